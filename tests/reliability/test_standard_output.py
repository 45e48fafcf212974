"""``-o -`` writes to standard output: every command that writes a file through ``-o``/``--output`` (and
recommend's ``--predictions``) prints exactly the bytes it would write to a file, creates no file named
``-``, writes no manifest, and says so in one note line."""

from __future__ import annotations

import pytest

from ..conftest import ROOT, run_command
from .commands import BASELINES, OUT

NOTE = "trecrs: wrote to standard output (no manifest)\n"
FILE_COMMANDS = {name: argv for name, argv in BASELINES.items() if "-o" in argv}
FILE_COMMANDS["recommend --predictions"] = (
    "recommend", "-a", "itemavg", "--train", "train.tsv", "--candidates", "pairs.txt", "-o", "scores.out",
    "--predict", "test.tsv", "--predictions", OUT)  # fmt: skip


@pytest.fixture
def files(base, tmp_path, monkeypatch):
    for name, data in base.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _to(argv: tuple[str, ...], out: str) -> list[str]:
    return [out if word == OUT else word for word in argv]


def test_every_command_writing_a_file_is_listed():
    """The commands with -o (split and datasets write folders, which '-' does not name)."""
    assert sorted(FILE_COMMANDS) == sorted([
        "audit", "candidates", "compare", "definitions", "eval", "eval-factors", "qrels", "recommend",
        "recommend --predictions", "run", "sampled", "sensitivity", "study"])  # fmt: skip


@pytest.mark.parametrize("name", sorted(FILE_COMMANDS))
def test_dash_is_standard_output(cli, files, name):
    argv = FILE_COMMANDS[name]
    code, _, err = cli(*_to(argv, OUT))
    assert code == 0, err
    written = (files / OUT).read_text()
    assert written and (files / f"{OUT}.manifest.json").is_file()
    before = {p.name for p in files.iterdir()}
    code, out, err = cli(*_to(argv, "-"))
    assert code == 0, err
    assert out == written
    assert err.count(NOTE) == 1
    assert (
        "wrote -" not in err and "-> -" not in err
    )  # the command's own "wrote FILE" note gives way to the one line
    assert not (files / "-").exists() and not (files / "-.manifest.json").exists()
    assert {
        p.name for p in files.iterdir()
    } == before  # nothing else written either (scores.out is rewritten)


def test_quiet_drops_the_note(cli, files):
    code, out, err = cli("qrels", "--quiet", "--test", "test.tsv", "--threshold", "3", "-o", "-")
    assert code == 0 and err == ""
    assert out == (files / "qrels.txt").read_text()  # the base qrels were made with the same options


def test_a_file_named_dash_is_dot_slash_dash(cli, files):
    code, out, err = cli("qrels", "--test", "test.tsv", "--threshold", "3", "-o", "./-")
    assert code == 0 and out == "" and NOTE not in err
    assert (files / "-").read_text() == (files / "qrels.txt").read_text() and (
        files / "-.manifest.json"
    ).is_file()


def test_a_failed_command_prints_nothing(cli, files):
    (files / "bad.run").write_text("1 Q0 a 1\n")
    code, out, err = cli("eval", "-o", "-", "qrels.txt", "run.txt", "bad.run")
    assert code == 3 and out == "" and NOTE not in err


def test_standard_output_named_twice_is_refused(cli, files):
    code, out, err = cli(
        "recommend",
        "-a",
        "itemavg",
        "--train",
        "train.tsv",
        "--candidates",
        "pairs.txt",
        "-o",
        "-",
        "--predict",
        "test.tsv",
        "--predictions",
        "-",
    )
    assert (code, out) == (2, "")
    assert err == (
        "trecrs recommend: error: '-' (standard output) is named for two outputs; give a file name "
        "for one of them\n"
    )


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ("eval", "--format", "parquet", "-o", "-", "qrels.txt", "run.txt"),
            "trecrs eval: error: --format parquet needs -o FILE (a file: Parquet is not written to standard output)\n",
        ),
        (
            (
                "eval-factors",
                "--format",
                "parquet",
                "--train",
                "train.tsv",
                "--user-factors",
                "user.parquet",
                "--item-factors",
                "item.parquet",
                "-o",
                "-",
                "qrels.txt",
            ),
            "trecrs eval-factors: error: --format parquet needs -o FILE (a file: Parquet is not written to standard "
            "output)\n",
        ),
        (
            ("compare", "-m", "P.5", "--plot", "-", "qrels.txt", "run.txt", "run2.txt"),
            "trecrs compare: error: argument --plot: must name a .png or .pdf file, got '-'\n",
        ),
        (
            ("batch", "--log", "-", "batch.txt"),
            "trecrs batch: error: argument --log: appends to a file; '-' (standard output) is not one\n",
        ),
    ],
    ids=["eval-parquet", "eval-factors-parquet", "compare-plot", "batch-log"],
)
def test_binary_outputs_are_refused_on_standard_output(cli, files, argv, line):
    code, out, err = cli(*argv)
    assert (code, out, err) == (2, "", line)
    assert not (files / "-").exists()


def test_round_trip(files):
    """The process's own standard output, bytes as in the file."""
    done = run_command(
        "eval", "-m", "P.5", "-m", "map", "-o", "-", files / "qrels.txt", files / "run.txt", cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "map                   \tall\t0.3567\nP_5                   \tall\t0.2400\n"
    assert NOTE in done.stderr and not (files / "-").exists() and not (ROOT / "-").exists()
