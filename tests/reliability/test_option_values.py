"""Every option of every command, given values at and beyond the edges of its range.

Whatever the value, a command either succeeds or stops with one line ``trecrs CMD: error: ...`` and a
documented status (2 usage, 3 input, 4 semantic, 5 I/O): never an internal error, never a traceback, never
minutes. The options are read from the parser itself, so a new option is swept without being listed here.
"""

from __future__ import annotations

import signal
from contextlib import contextmanager

import pytest

from trecrs.errors import EXIT_INPUT, EXIT_IO, EXIT_OK, EXIT_SEMANTIC, EXIT_USAGE

from .commands import BASELINES, value_options, with_options

VALUES = ("-1", "0", "1", "0.5", "nan", "inf", "-inf", "1e20", "99999999999999999999", "x", "")
MEASURES = ("P.1e20", "P.-1", "P.0", "P.1.5", "ndcg_cut.99999999999999999999", "map_cut.nan", "nmae.nan,5",
            "lauc.inf", "halflife.1", "P.", "P.5,5", "recall.2147483648")  # fmt: skip
# options whose values are files (the corpus breaks those) or free text
SKIP = {"train", "test", "scores", "candidates", "items", "predictions", "predict", "output", "log", "progress",
        "reference", "data", "columns", "tag", "commands", "qrels", "runs", "user_factors", "item_factors"}  # fmt: skip
STATUSES = (EXIT_OK, EXIT_USAGE, EXIT_INPUT, EXIT_SEMANTIC, EXIT_IO)
SECONDS = 60  # a value must not make a command run for minutes


def _cases():
    for name, argv in BASELINES.items():
        for action in value_options(tuple(name.split())):
            if action.dest in SKIP:
                continue
            values = MEASURES if action.dest == "measures" else action.choices or VALUES
            for value in values:
                option = tuple(action.option_strings)
                yield pytest.param(argv, option, str(value), id=f"{name}-{action.dest}={value}")


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
        code, _, err = cli(*with_options(argv, {option: value}))
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
