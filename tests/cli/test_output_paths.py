"""Output paths are checked before anything is read: an input is never overwritten, a bad path is one line.

Every command that writes a file (-o, --predictions) refuses an output that is one of its inputs (or a
link to one), a folder, or a path under a file, and leaves nothing behind when it fails. Every command that
writes into a folder (split, datasets ml100k-splits/synthetic, report) refuses a folder that is a file or
lies under one, and any file it would write there that is a folder or one of its inputs.
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
    "compare": (["compare", "-m", "P.1", "-o", "OUT", "tiny.qrels", "tiny.run", "tiny.run"], "tiny.run"),
    "qrels": (["qrels", "--test", "test", "--threshold", "4", "-o", "OUT"], "test"),
    "candidates": (
        ["candidates", "--methodology", "test-items", "--train", "train", "--test", "test", "-o", "OUT"],
        "train",
    ),
    "recommend": (
        ["recommend", "-a", "toppop", "--train", "train", "--predict", "test", "-o", "OUT"],
        "train",
    ),
}


def _line(args: list[str], out: str) -> list[str]:
    return [out if a == "OUT" else a for a in args]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_input_as_output_is_refused_and_left_intact(cli, work, command):
    args, victim = COMMANDS[command]
    before = (work / victim).read_bytes()
    code, out, err = cli(*_line(args, victim))
    assert code == 5 and out == ""
    assert (
        err
        == f"trecrs {command}: error: {victim}: is also an input ({victim}); writing it would destroy that input\n"
    )
    assert (work / victim).read_bytes() == before
    assert not (work / f"{victim}.manifest.json").exists()


def test_a_link_to_an_input_is_refused(cli, work):
    (work / "alias.run").symlink_to(work / "tiny.run")
    code, _, err = cli("eval", "-o", "alias.run", "tiny.qrels", "tiny.run")
    assert code == 5 and "is also an input (tiny.run)" in err


def test_stdin_is_not_a_file_for_the_output_check(cli, work, monkeypatch):
    """`-` names standard input, not the file ./-: an output that a file named `-` links to is no input."""
    import io
    import sys

    (work / "-").symlink_to(work / "scores.out")
    (work / "scores.out").write_text("an old output\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((work / "tiny.run").read_bytes())))
    code, out, err = cli("eval", "-m", "P.5", "-o", "scores.out", "tiny.qrels", "-")
    assert code == 0, err
    assert (work / "scores.out").read_text() == "P_5                   \tall\t0.5000\n"  # as from tiny.run
    # ./- is a file when named so: then the link to it is refused as before
    code, _, err = cli("eval", "-o", "scores.out", "tiny.qrels", "./-")
    assert code == 5 and "is also an input (-)" in err


def test_the_same_output_twice_is_refused(cli, work):
    code, _, err = cli(
        "recommend",
        "-a",
        "toppop",
        "--train",
        "train",
        "--predict",
        "test",
        "-o",
        "s.txt",
        "--predictions",
        "s.txt",
    )
    assert code == 5 and err.endswith("s.txt: named twice as an output\n")
    assert not (work / "s.txt").exists()


@pytest.mark.parametrize(
    ("out", "reason"),
    [
        ("folder", "is a folder; give a file name for the output"),
        ("tiny.qrels/x.txt", "tiny.qrels is a file, not a folder"),
    ],
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


# Folder outputs: (command line with OUT where the folder goes, an input one of its files would overwrite
# written as [FOLDER, NAME]: the command reads FOLDER/NAME and would write a file of that name)
FOLDER_COMMANDS = {
    "split": (["split", "--method", "kfold", "--folds", "2", "--seed", "1", "INPUT", "OUT"], "fold2.test"),
    "ml100k-splits": (["datasets", "ml100k-splits", "INPUT", "OUT"], "u1.base"),
    "synthetic": (["datasets", "synthetic", "--users", "30", "--items", "40", "OUT"], None),
    "report": (["report", "bellogin2011", "OUT", "--reference", "INPUT"], "results.tsv"),
    "reproduce": (["reproduce", "tamm2021", "OUT", "--data", "INPUT"], "results.tsv"),
}


def _folder_line(command: str, out: str, victim: str = "u.data") -> list[str]:
    args, _ = FOLDER_COMMANDS[command]
    return [{"OUT": out, "INPUT": victim}.get(a, a) for a in args]


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its bytes (None for a folder): what a failed command must not change."""
    return {
        p.relative_to(root).as_posix(): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def _refused(cli, work, line, reason):
    before = _tree(work)
    code, out, err = cli(*line)
    assert code == 5 and out == "" and err.count("\n") == 1, err
    assert reason in err
    assert _tree(work) == before  # nothing created, nothing changed


@pytest.mark.parametrize("command", sorted(FOLDER_COMMANDS))
def test_a_folder_output_that_is_a_file_is_refused(cli, work, command):
    _refused(cli, work, _folder_line(command, "tiny.qrels"), "tiny.qrels: is a file, not a folder")


@pytest.mark.parametrize("command", sorted(FOLDER_COMMANDS))
def test_a_folder_output_under_a_file_is_refused(cli, work, command):
    _refused(
        cli,
        work,
        _folder_line(command, "tiny.qrels/sub/out"),
        "cannot create it: tiny.qrels is a file, not a folder",
    )


@pytest.mark.parametrize("command", sorted(FOLDER_COMMANDS))
def test_a_file_the_command_writes_that_is_a_folder_is_refused(cli, work, command):
    args, victim = FOLDER_COMMANDS[command]
    name = victim or "u.data"
    (work / "out" / name).mkdir(parents=True)
    _refused(
        cli, work, _folder_line(command, "out"), f"out/{name}: is a folder; give a file name for the output"
    )


@pytest.mark.parametrize("command", sorted(c for c, (_, victim) in FOLDER_COMMANDS.items() if victim))
def test_a_file_in_the_folder_that_is_an_input_is_refused(cli, work, command):
    _, victim = FOLDER_COMMANDS[command]
    (work / "data").mkdir()
    shutil.copy(work / "u.data", work / "data" / victim)
    _refused(
        cli,
        work,
        _folder_line(command, "data", f"data/{victim}"),
        f"data/{victim}: is also an input (data/{victim}); writing it would destroy that input",
    )


def test_a_link_in_the_folder_to_an_input_is_refused(cli, work):
    (work / "data").mkdir()
    (work / "data" / "train").symlink_to(work / "u.data")
    _refused(
        cli,
        work,
        ["split", "--method", "holdout", "--seed", "1", "u.data", "data"],
        "is also an input (u.data)",
    )


@pytest.mark.skipif(
    not hasattr(__import__("os"), "geteuid") or __import__("os").geteuid() == 0,
    reason="root may write anywhere",
)
def test_a_folder_output_in_a_read_only_folder_is_refused(cli, work):
    (work / "ro").mkdir()
    (work / "ro").chmod(0o555)
    try:
        _refused(cli, work, _folder_line("split", "ro/out"), "cannot write in ro: permission denied")
    finally:
        (work / "ro").chmod(0o755)


def test_a_failed_split_leaves_the_folder_as_it_was(cli, work):
    (work / "out").mkdir()
    (work / "out" / "train").write_text("old\n")
    (work / "bad.data").write_text("1\t2\tnot-a-number\t4\n")
    before = _tree(work)
    code, _, _ = cli("split", "--method", "holdout", "--seed", "1", "bad.data", "out")
    assert code == 3 and _tree(work) == before
    code, _, _ = cli("split", "--method", "holdout", "--seed", "1", "bad.data", "new/deep")
    assert code == 3 and not (work / "new").exists()


def test_a_folder_output_is_created_on_success(cli, work):
    code, _, _ = cli(*_folder_line("split", "new/deep"))
    assert code == 0
    assert sorted(p.name for p in (work / "new" / "deep").iterdir()) == sorted(
        f"fold{i}.{r}{m}" for i in (1, 2) for r in ("train", "test") for m in ("", ".manifest.json")
    )


def test_files_of_a_failed_command_are_not_put_in_place(tmp_path):
    """Inside deferred_writes (every CLI command runs in one) nothing is in place until the block ends."""
    from trecrs.files.manifest import write_manifest
    from trecrs.files.output import deferred_writes, write_text_atomic

    write_text_atomic(tmp_path / "a.txt", "old\n")
    write_manifest(tmp_path / "a.txt", "test")
    before = _tree(tmp_path)
    with pytest.raises(RuntimeError), deferred_writes():
        write_text_atomic(tmp_path / "a.txt", "new\n")
        write_manifest(tmp_path / "a.txt", "test")
        write_text_atomic(tmp_path / "b" / "c.txt", "new\n")
        assert {n: _tree(tmp_path)[n] for n in before} == before  # only hidden temporaries so far
        raise RuntimeError
    assert _tree(tmp_path) == before
    with deferred_writes():
        write_text_atomic(tmp_path / "a.txt", "new\n")
        write_manifest(tmp_path / "a.txt", "test")
    assert (tmp_path / "a.txt").read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "a.txt.manifest.json"]


@pytest.mark.parametrize("log", ["--log", "--progress"])
def test_a_batch_log_is_an_output(cli, work, log):
    """--log and --progress are checked like -o: against the batch's file and every command's files, before
    any command runs (the first line's output is never written)."""
    (work / "cmds").write_text(
        "eval -m P.5 -o first.txt tiny.qrels tiny.run\neval -o second.txt tiny.qrels tiny.run\n"
    )
    (work / "folder").mkdir()
    before = {name: (work / name).read_bytes() for name in ("cmds", "tiny.run")}
    for path, reason in [
        ("cmds", "cmds: is also an input (cmds); writing it would destroy that input"),
        ("tiny.run", "tiny.run: is also an input (tiny.run); writing it would destroy that input"),
        ("second.txt", "second.txt: is also written by the command on line 2 of cmds"),
        ("folder", "folder: is a folder; give a file name for the output"),
    ]:
        code, out, err = cli("batch", log, path, "cmds")
        assert (code, out, err) == (5, "", f"trecrs batch: error: {reason}\n")
        assert not (work / "first.txt").exists() and not (work / "second.txt").exists()
        assert {name: (work / name).read_bytes() for name in before} == before
    code, _, err = cli("batch", log, "log.txt", "cmds")
    assert code == 0 and (work / "first.txt").exists() and (work / "log.txt").exists(), err
