"""A refused option value is named by the option as typed, whoever refuses it: argparse or the library.

Every option that takes a value, of every command (read from the parsers: a new option fails
``test_every_option_is_classified`` until it is given a refused value below or a reason why none exists),
is given a value argparse accepts and the library refuses, and a value argparse refuses. Both must end
with status 2 and one line naming the option as argparse does: ``trecrs run: error: argument --depth:
...``, ``argument -M/--Max_retrieved_per_topic: ...`` (docs/errors.md, "One line, one status").
"""

from __future__ import annotations

import re

import pytest

from trecrs.cli.common import c_long
from trecrs.errors import EXIT_USAGE

from .commands import BASELINES, commands, value_options, with_options

OPR = {"--methodology": "one-plus-random", "--seed": "1"}
# (command, dest): a value argparse accepts and the library refuses, and the other options it needs
REFUSED = {
    ("eval", "measures"): ("P.0", {}),
    ("eval", "level"): ("0", {"--engine": "pytrec_eval"}),  # pytrec_eval's extension refuses levels below 1
    ("eval", "depth"): ("-1", {}),  # trec_eval crashes on a negative -M
    ("eval", "partitions"): ("0", {"--engine": "dask"}),
    ("eval", "scheduler"): ("x", {"--engine": "dask"}),  # not an address: refused before any connection
    ("eval", "trec_eval_version"): ("11", {}),
    ("eval", "debug"): ("1", {}),
    # an existing file that is not Python (a missing one is an I/O error naming it, status 5)
    **{(c, "measures_from"): ("qrels.txt", {}) for c in ("eval", "compare", "sensitivity", "study", "audit")},
    ("eval", "head_share"): ("1.5", {}),
    ("eval-factors", "measures"): ("P.0", {}),
    ("eval-factors", "depth"): ("-1", {}),
    ("eval-factors", "block_users"): ("0", {}),
    ("compare", "measures"): ("P.0", {}),
    ("compare", "baseline"): ("nosuch", {}),
    ("compare", "depth"): ("-1", {}),
    ("compare", "trec_eval_version"): ("11", {}),
    ("compare", "plot"): ("figure.txt", {}),
    ("compare", "pr_plot"): ("figure.txt", {}),
    ("sensitivity", "measures"): ("P.0", {}),
    ("sensitivity", "n"): ("0", {}),
    ("sensitivity", "predictions"): ("a=scores.txt", {}),  # one system of two
    ("sensitivity", "columns"): ("x", {}),
    ("sensitivity", "plot"): ("figure.txt", {}),
    ("sampled", "scores"): ("=scores.txt", {}),
    ("sampled", "n"): ("0", {}),
    ("sampled", "ks"): ("0", {}),
    ("sampled", "lam"): ("2", {}),
    ("sampled", "plot"): ("figure.txt", {}),
    ("sampled", "columns"): ("x", {}),
    ("datasets synthetic", "items"): ("20", {}),  # not more than --min-ratings (20)
    ("datasets synthetic", "min_ratings"): ("30", {}),  # as many as --items (30)
    ("split", "ratio"): ("2", {}),
    ("split", "folds"): ("1", {"--method": "kfold", "--ratio": None}),
    ("split", "given"): ("0", {"--method": "per-user", "--ratio": None}),
    ("split", "all_but"): ("0", {"--method": "per-user", "--ratio": None}),
    ("split", "last"): ("0", {"--method": "temporal", "--ratio": None}),
    ("split", "last_ratio"): ("2", {"--method": "temporal", "--ratio": None}),
    ("split", "separator"): ("", {}),
    ("split", "columns"): ("x", {}),
    ("qrels", "scale"): ("0", {}),
    ("qrels", "long_tail"): ("1.5", {"--train": "train.tsv"}),
    ("candidates", "n"): ("0", {}),
    ("candidates", "long_tail"): ("1.5", {}),
    ("candidates", "columns"): ("x", {}),
    ("run", "n"): ("0", OPR),
    ("run", "long_tail"): ("1.5", OPR),
    ("run", "columns"): ("x", {}),
    ("run", "score_columns"): ("x", {}),
    ("run", "depth"): ("0", {}),
    ("run", "tag"): ("a b", {}),
    ("recommend", "algorithm"): ("x", {}),
    ("recommend", "param"): ("k=0", {}),
    ("audit", "measures"): ("P.0", {}),
    ("audit", "columns"): ("x", {}),
    ("definitions", "measure"): ("foo@3", {}),
    ("study", "measures"): ("P.0", {}),
    ("study", "baseline"): ("nosuch", {}),
    ("study", "depth"): ("-1", {}),
    ("study", "trec_eval_version"): ("11", {}),
    ("study", "plot"): ("figure.txt", {}),
}  # fmt: skip

PATH = (
    "a path: a file that cannot be read or written is an I/O or input error naming the file (status 5 or 3)"
)
SEED = "argparse's seed type takes exactly the valid range [0, 2^63-1]"
THRESHOLD = ("every finite threshold is valid (argparse refuses NaN and infinities); one that leaves nothing "
             "relevant is a semantic error about the data (status 4)")  # fmt: skip
# options for which no value passes argparse and is refused by the library: by dest, or (command, dest)
NOT_REFUSED = {
    **dict.fromkeys(("train", "test", "items", "item_features", "item_groups", "user_groups", "candidates", "predict", "zscores", "output", "user_factors",
                     "item_factors", "reference", "data", "log", "progress"), PATH),
    ("run", "scores"): PATH,
    ("eval", "predictions"): PATH,
    ("recommend", "predictions"): PATH,
    ("sensitivity", "scores"): "NAME=FILE: argparse's action checks the form and repeated names; the FILE is " + PATH,
    "seed": SEED,
    ("eval", "num_docs"): "any C long is a collection size: trec_eval's utility reads -N as given",
    ("eval", "block_lines"): "argparse's type takes exactly the valid range [1, 2^63-1]",
    ("eval", "old_results_format"): "accepted and ignored, as trec_eval ignores it",
    ("compare", "alpha"): "argparse's type takes exactly the valid range (0, 1)",
    ("compare", "resamples"): "argparse's type takes exactly the valid range [1, 10^7]",
    ("eval-factors", "level"): "any C long is a relevance level, as trec_eval reads -l",
    ("compare", "level"): "any C long is a relevance level, as trec_eval reads -l",
    ("audit", "level"): "any C long is a relevance level, as trec_eval reads -l",
    ("definitions", "level"): "any C long is a relevance level, as trec_eval reads -l",
    ("study", "level"): "any C long is a relevance level, as trec_eval reads -l",
    ("study", "alpha"): "argparse's type takes exactly the valid range (0, 1)",
    ("audit", "qrels"): PATH,
    ("audit", "threshold"): "every finite threshold is valid (argparse refuses NaN and infinities): one above "
                            "every rating finds no negative that is a positive",
    ("sensitivity", "methodologies"): "argparse's type checks each name and repeats",
    ("datasets synthetic", "users"): "argparse's type takes exactly the valid range [1, 10^6]",
    ("split", "cut"): "every C long is a time; a cut that leaves a side empty is a semantic error (status 4)",
    ("report", "runtime"): "reported as given: any finite number (argparse refuses NaN and infinities)",
    ("report", "jobs"): "argparse's type takes exactly the valid range [1, 2^63-1]",
    ("reproduce", "jobs"): "argparse's type takes exactly the valid range [1, 2^63-1]",
    **dict.fromkeys([(c, "threshold") for c in ("sensitivity", "qrels", "split")]
                    + [(c, "relevant_threshold") for c in ("sensitivity", "sampled", "qrels", "candidates", "run")]
                    + [("qrels", "offset")], THRESHOLD),
}  # fmt: skip


def _name(words: tuple[str, ...]) -> str:
    return " ".join(words)


def _not_refused(name: str, dest: str) -> str | None:
    return NOT_REFUSED.get((name, dest), NOT_REFUSED.get(dest))


def _names_option(err: str, option: str) -> bool:
    """``err`` is one line ``trecrs CMD: error: argument(s) ..., OPTION, ...: reason``."""
    m = re.fullmatch(r"trecrs [\w -]+: error: arguments? (.+?): .*\n", err, flags=re.DOTALL)
    return m is not None and err.count("\n") == 1 and option in m.group(1).split(", ")


def test_every_option_is_classified():
    """Each option taking a value has a refused value, or a reason why none exists (choices: argparse)."""
    unclassified = [
        f"{_name(words)} {action.dest}"
        for words in commands()
        for action in value_options(words)
        if not action.choices and (_name(words), action.dest) not in REFUSED and not _not_refused(_name(words), action.dest)
    ]  # fmt: skip
    assert not unclassified, "give a refused value or the reason there is none: " + ", ".join(unclassified)
    listed = {(_name(w), a.dest) for w in commands() for a in value_options(w)}
    assert set(REFUSED) <= listed and not set(REFUSED) & {k for k in NOT_REFUSED if isinstance(k, tuple)}


def _refused_cases():
    for (name, dest), (value, others) in REFUSED.items():
        yield pytest.param(name, dest, value, others, id=f"{name}-{dest}={value}")


@pytest.mark.parametrize("name,dest,value,others", list(_refused_cases()))
def test_a_value_the_library_refuses_names_the_option(
    cli, base, tmp_path, monkeypatch, name, dest, value, others
):
    for file, data in base.items():
        (tmp_path / file).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    action = next(a for a in value_options(tuple(name.split())) if a.dest == dest)
    argv = with_options(BASELINES[name], {**others, tuple(action.option_strings): value})
    code, out, err = cli(*argv)
    assert code == EXIT_USAGE and out == "", err
    assert _names_option(err, "/".join(action.option_strings)), err


def _argparse_cases():
    for words in commands():
        for action in value_options(words):
            if (
                action.type is c_long
            ):  # -l, -M, -N read any text as trec_eval's atol does ("x" is 0), with a warning
                continue
            yield pytest.param(words, action, id=f"{_name(words)}-{action.dest}")


@pytest.mark.parametrize("words,action", list(_argparse_cases()))
def test_a_value_argparse_refuses_names_the_option(cli, words, action):
    """A value the option's type, choices or action refuses ("x"), or no value at all for a plain string."""
    checked = (
        action.type is not None or action.choices is not None or action.__class__.__module__ != "argparse"
    )
    value = ["x"] if checked else []
    code, out, err = cli(*words, action.option_strings[-1], *value)
    assert code == EXIT_USAGE and out == "", err
    assert _names_option(err, "/".join(action.option_strings)), err
