"""Every command and its options, read from the parsers, and a working command line for most of them.

Shared by the option sweeps (``test_option_values.py``: edge values never crash; ``test_option_errors.py``:
a refused value names its option). The command lines run on the files of the ``base`` fixture
(``conftest.py``) in the current folder.
"""

from __future__ import annotations

import argparse

from trecrs.cli import build_parser

OUT = "out.txt"
OUT_DIR = "outdir"
BASELINES = {
    "eval": ("eval", "-o", OUT, "qrels.txt", "run.txt"),
    "eval-factors": ("eval-factors", "--train", "train.tsv", "--user-factors", "user.parquet", "--item-factors",
                     "item.parquet", "-o", OUT, "qrels.txt"),
    "qrels": ("qrels", "--test", "test.tsv", "--threshold", "3", "-o", OUT),
    "candidates": ("candidates", "--methodology", "one-plus-random", "--seed", "1", "--train", "train.tsv", "--test",
                   "test.tsv", "-o", OUT),
    "run": ("run", "--methodology", "all-items", "--train", "train.tsv", "--test", "test.tsv", "--scores",
            "scores.txt", "--missing", "last", "-o", OUT),
    "recommend": ("recommend", "-a", "userknn", "--train", "train.tsv", "--candidates", "pairs.txt", "-o", OUT),
    "sampled": ("sampled", "--train", "train.tsv", "--test", "test.tsv", "--scores", "scores.txt", "--seed", "1",
                "--missing", "last", "-o", OUT),
    "compare": ("compare", "-m", "P.5", "-m", "ndcg", "-o", OUT, "qrels.txt", "run.txt", "run2.txt"),
    "sensitivity": ("sensitivity", "--train", "train.tsv", "--test", "test.tsv", "--scores", "a=scores.txt",
                    "--scores", "b=scores2.txt", "-m", "P.5", "--seed", "1", "--n", "5", "-o", OUT),
    "audit": ("audit", "--train", "train.tsv", "--test", "test.tsv", "--qrels", "qrels.txt", "-o", OUT, "run.txt"),
    "definitions": ("definitions", "-m", "P@5", "-o", OUT, "qrels.txt", "run.txt"),
    "study": ("study", "-m", "P.5", "-o", OUT, "study.tsv"),
    "split": ("split", "--method", "holdout", "--seed", "1", "--ratio", "0.2", "ratings.tsv", OUT_DIR),
    "datasets synthetic": ("datasets", "synthetic", "--users", "20", "--items", "30", OUT_DIR),
}  # fmt: skip


def command_parser(words: tuple[str, ...]) -> argparse.ArgumentParser:
    """The parser of ``trecrs WORDS`` (``("datasets", "synthetic")``: a sub-command's)."""
    parser = build_parser()
    for word in words:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser


def commands(
    parser: argparse.ArgumentParser | None = None, words: tuple[str, ...] = ()
) -> list[tuple[str, ...]]:
    """Every command that runs, as its words: ``("eval",)``, ``("datasets", "verify")``, ..."""
    parser = parser or build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [words]
    return [found for name, sub in subs[0].choices.items() for found in commands(sub, (*words, name))]


def value_options(words: tuple[str, ...]) -> list[argparse.Action]:
    """The options of a command that take a value (``--quiet``, ``-q``, ``--help`` take none)."""
    return [a for a in command_parser(words)._actions if a.option_strings and a.nargs != 0]


def with_options(argv: tuple[str, ...], changes: dict[str | tuple[str, ...], str | None]) -> list[str]:
    """``argv`` with each option's value replaced, or the option added after the command's words, or removed
    (value None). An option is one spelling or all of them (``("-a", "--algorithm")``: either is replaced)."""
    argv = list(argv)
    words = 2 if argv[0] == "datasets" else 1
    for option, value in changes.items():
        spellings = (option,) if isinstance(option, str) else option
        at = next((i for i, word in enumerate(argv) if word in spellings), None)
        if at is not None and value is None:
            del argv[at : at + 2]
        elif at is not None:
            argv[at + 1] = value
        elif value is not None:
            argv[words:words] = [spellings[-1], value]
    return argv
