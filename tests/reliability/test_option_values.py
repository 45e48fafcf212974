"""Every option of every command, given values at and beyond the edges of its range.

Whatever the value, a command either succeeds or stops with one line ``trecrs CMD: error: ...`` and a
documented status (2 usage, 3 input, 4 semantic, 5 I/O): never an internal error, never a traceback, never
minutes. The options are read from the parser itself, so a new option is swept without being listed here.
"""

from __future__ import annotations

import argparse
import signal
from contextlib import contextmanager

import pytest

from trecrs.cli import build_parser
from trecrs.errors import EXIT_INPUT, EXIT_IO, EXIT_OK, EXIT_SEMANTIC, EXIT_USAGE

OUT = "out.txt"
OUT_DIR = "outdir"
BASELINES = {
    "eval": ("eval", "-o", OUT, "qrels.txt", "run.txt"),
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
    "split": ("split", "--method", "holdout", "--seed", "1", "--ratio", "0.2", "ratings.tsv", OUT_DIR),
    "datasets synthetic": ("datasets", "synthetic", "--users", "20", "--items", "30", OUT_DIR),
}  # fmt: skip
VALUES = ("-1", "0", "1", "0.5", "nan", "inf", "-inf", "1e20", "99999999999999999999", "x", "")
MEASURES = ("P.1e20", "P.-1", "P.0", "P.1.5", "ndcg_cut.99999999999999999999", "map_cut.nan", "nmae.nan,5",
            "lauc.inf", "halflife.1", "P.", "P.5,5", "recall.2147483648")  # fmt: skip
# options whose values are files (the corpus breaks those) or free text
SKIP = {"train", "test", "scores", "candidates", "items", "predictions", "predict", "output", "log", "progress",
        "reference", "data", "columns", "tag", "commands", "qrels", "runs"}  # fmt: skip
STATUSES = (EXIT_OK, EXIT_USAGE, EXIT_INPUT, EXIT_SEMANTIC, EXIT_IO)
SECONDS = 60  # a value must not make a command run for minutes


def _parser(words: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for word in words:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser


def _cases():
    for name, argv in BASELINES.items():
        for action in _parser(tuple(name.split()))._actions:
            if not action.option_strings or action.nargs == 0 or action.dest in SKIP or action.dest == "help":
                continue
            values = MEASURES if action.dest == "measures" else action.choices or VALUES
            for value in values:
                yield pytest.param(argv, action.option_strings[-1], str(value), id=f"{name}-{action.dest}={value}")


def _with(argv: tuple[str, ...], option: str, value: str) -> list[str]:
    argv = list(argv)
    if option in argv:
        argv[argv.index(option) + 1] = value
    else:
        argv[1:1] = [option, value]
    return argv


@contextmanager
def _deadline(seconds: int):
    def late(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.slow
@pytest.mark.parametrize("argv,option,value", list(_cases()))
def test_an_option_value_never_crashes(cli, base, tmp_path, monkeypatch, argv, option, value):
    for name, data in base.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    with _deadline(SECONDS):
        code, _, err = cli(*_with(argv, option, value))
    assert code in STATUSES, err
    if code != EXIT_OK:
        # argparse names the top-level command for a value it takes as an option ("--seed -inf")
        assert err.count("\n") == 1 and err.startswith("trecrs") and ": error: " in err, err


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BASELINES))
def test_the_baseline_itself_succeeds(cli, base, tmp_path, monkeypatch, name):
    """Each sweep starts from a command that works: a failing baseline would make every case an error."""
    for file, data in base.items():
        (tmp_path / file).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(*BASELINES[name])
    assert code == EXIT_OK, err
