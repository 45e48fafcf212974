"""The exit-status table of the README: one line on stderr per failure, a status per class, tracebacks on request."""

from __future__ import annotations

import pytest

from trecrs import cli as trecrs_cli
from trecrs.errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_IO, EXIT_SEMANTIC, EXIT_USAGE

QRELS = "q1 0 a 1\nq1 0 b 0\n"
RUN = "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    return tmp_path


def test_each_class_has_its_status(cli, files):
    t = files
    assert cli("eval", "-m", "nope", t / "q", t / "r")[0] == EXIT_USAGE
    (t / "bad").write_text("q1 Q0 a 1 2.0\n")
    assert cli("eval", t / "q", t / "bad")[0] == EXIT_INPUT
    (t / "other").write_text("q9 Q0 a 1 2.0 t\n")
    code, _, err = cli("eval", t / "q", t / "other")
    assert code == EXIT_SEMANTIC and "no queries with both results and relevance info" in err
    code, _, err = cli("eval", t / "q", t / "missing")
    assert code == EXIT_IO and err == f"trecrs eval: error: {t / 'missing'}: no such file\n"


def test_a_bug_is_one_line_and_status_70(cli, files, monkeypatch):
    def boom(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(trecrs_cli.eval, "evaluate_full", boom)
    code, out, err = cli("eval", files / "q", files / "r")
    assert code == EXIT_INTERNAL and out == ""
    assert err == (
        "trecrs eval: internal error: ZeroDivisionError: division by zero "
        "(a bug in trecrs; TRECRS_DEBUG=1 shows the traceback)\n"
    )


def test_trecrs_debug_shows_the_traceback(cli, files, monkeypatch):
    monkeypatch.setenv("TRECRS_DEBUG", "1")
    (files / "bad").write_text("q1 Q0 a 1 2.0\n")
    code, _, err = cli("eval", files / "q", files / "bad")
    assert code == EXIT_INPUT and err.startswith("Traceback (most recent call last):")
    assert err.endswith(
        "expected at least 6 fields (qid iter docno rank score tag), found 5: 'q1 Q0 a 1 2.0'\n"
    )


def test_an_unnamed_os_error_is_an_io_failure(cli, files, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device", str(files / "out"))

    monkeypatch.setattr(trecrs_cli.eval, "evaluate_full", full)
    code, _, err = cli("eval", files / "q", files / "r")
    assert code == EXIT_IO and err == f"trecrs eval: error: {files / 'out'}: no space left on the device\n"


def test_trecrs_alone_prints_the_usage_and_where_to_start(monkeypatch, capsys):
    """``trecrs`` with no command: the usage listing every command, then where to start; status 2 (usage),
    nothing on stdout. The console script's call, ``main()`` reading ``sys.argv``, in-process."""
    monkeypatch.setattr("sys.argv", ["trecrs"])
    status = trecrs_cli.main()
    done = capsys.readouterr()
    assert (status, done.out) == (EXIT_USAGE, "")
    lines = done.err.splitlines()
    assert lines[0] == "usage: trecrs [-h] [--version] COMMAND ..."
    listed = [line.split()[0] for line in lines if line.startswith("    ") and not line.startswith("     ")]
    assert listed == list(trecrs_cli.COMMAND_MODULES)
    assert lines[-1] == (
        "trecrs: error: no command given; start with 'trecrs eval --help' (score runs against qrels as "
        "trec_eval does), or 'trecrs COMMAND --help' for any command above"
    )
    assert "Traceback" not in done.err
