"""Output paths are checked before anything is read: an input is never overwritten, a bad path is one line.

Every command that writes a file (-o, --predictions) refuses an output that is one of its inputs (or a
link to one), a folder, or a path under a file, and leaves nothing behind when it fails.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ..conftest import ROOT

SAMPLE = ROOT / "sample_data"


@pytest.fixture
def work(tmp_path, monkeypatch) -> Path:
    for name in ("tiny.qrels", "tiny.run"):
        shutil.copy(SAMPLE / name, tmp_path / name)
    shutil.copy(SAMPLE / "synth-100k-like" / "u.data", tmp_path / "u.data")
    (tmp_path / "train").write_text("".join((tmp_path / "u.data").read_text().splitlines(True)[:3000]))
    (tmp_path / "test").write_text("".join((tmp_path / "u.data").read_text().splitlines(True)[3000:3500]))
    monkeypatch.chdir(tmp_path)
    return tmp_path


# (command line with OUT where the output goes, the input the output is pointed at)
COMMANDS = {
    "eval": (["eval", "-o", "OUT", "tiny.qrels", "tiny.run"], "tiny.run"),
    "qrels": (["qrels", "--test", "test", "--threshold", "4", "-o", "OUT"], "test"),
    "candidates": (["candidates", "--methodology", "test-items", "--train", "train", "--test", "test", "-o", "OUT"], "train"),
    "recommend": (["recommend", "-a", "toppop", "--train", "train", "--predict", "test", "-o", "OUT"], "train"),
}


def _line(args: list[str], out: str) -> list[str]:
    return [out if a == "OUT" else a for a in args]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_input_as_output_is_refused_and_left_intact(cli, work, command):
    args, victim = COMMANDS[command]
    before = (work / victim).read_bytes()
    code, out, err = cli(*_line(args, victim))
    assert code == 5 and out == ""
    assert err == f"trecrs {command}: error: {victim}: is also an input ({victim}); writing it would destroy that input\n"
    assert (work / victim).read_bytes() == before
    assert not (work / f"{victim}.manifest.json").exists()


def test_a_link_to_an_input_is_refused(cli, work):
    (work / "alias.run").symlink_to(work / "tiny.run")
    code, _, err = cli("eval", "-o", "alias.run", "tiny.qrels", "tiny.run")
    assert code == 5 and "is also an input (tiny.run)" in err


def test_the_same_output_twice_is_refused(cli, work):
    code, _, err = cli("recommend", "-a", "toppop", "--train", "train", "--predict", "test", "-o", "s.txt",
                       "--predictions", "s.txt")
    assert code == 5 and err.endswith("s.txt: named twice as an output\n")
    assert not (work / "s.txt").exists()


@pytest.mark.parametrize(
    ("out", "reason"),
    [("folder", "is a folder; give a file name for the output"), ("tiny.qrels/x.txt", "tiny.qrels is a file, not a folder")],
)
def test_unwritable_output_paths_are_one_line(cli, work, out, reason):
    (work / "folder").mkdir()
    code, _, err = cli("eval", "-o", out, "tiny.qrels", "tiny.run")
    assert code == 5 and reason in err and err.count("\n") == 1


def test_missing_folders_are_created_on_success_only(cli, work):
    (work / "bad.run").write_text("1 Q0 a 1\n")
    code, _, _ = cli("eval", "-o", "new/deep/out.txt", "tiny.qrels", "bad.run")
    assert code == 3 and not (work / "new").exists()
    code, _, _ = cli("eval", "-o", "new/deep/out.txt", "tiny.qrels", "tiny.run")
    assert code == 0 and (work / "new" / "deep" / "out.txt").is_file()


def test_a_failed_write_leaves_no_folder_behind(tmp_path):
    from trecrs.files.output import write_text_atomic

    class Boom(Exception):
        pass

    target = tmp_path / "a" / "b" / "out.txt"
    with pytest.raises(Boom):
        from trecrs.files.output import atomic_path

        with atomic_path(target):
            raise Boom
    assert not (tmp_path / "a").exists()
    write_text_atomic(target, "x\n")
    assert target.read_text() == "x\n"
