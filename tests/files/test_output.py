"""The writer's ``-``: standard output, bytes held until the command succeeds, no manifest, no Parquet."""

from __future__ import annotations

import polars as pl
import pytest

from trecrs.errors import UsageError
from trecrs.files.manifest import write_manifest
from trecrs.files.output import atomic_path, check_outputs, deferred_writes, write_table, write_text_atomic


def _temporaries(tmp_path):
    return sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".trecrs-stdout."))


@pytest.fixture
def tmpdir_for_stdout(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_outside_a_command_the_bytes_go_out_at_once(capsys, tmpdir_for_stdout):
    write_text_atomic("-", "é 1\n")
    write_table(pl.DataFrame({"a": ["q1", "q2"], "b": [1, 2]}), "-", separator="\t")
    assert capsys.readouterr().out == "é 1\nq1\t1\nq2\t2\n"
    assert write_manifest("-", "qrels") is None
    assert sorted(p.name for p in tmpdir_for_stdout.iterdir()) == []  # no ./-, no temporary, no manifest


def test_inside_a_command_they_wait_for_success(capsys, tmpdir_for_stdout):
    with deferred_writes():
        write_text_atomic("-", "first\n")
        write_text_atomic(tmpdir_for_stdout / "f.txt", "file\n")
        write_text_atomic("-", "second\n")
        assert capsys.readouterr().out == "" and len(_temporaries(tmpdir_for_stdout)) == 2
    assert capsys.readouterr().out == "first\nsecond\n"
    assert sorted(p.name for p in tmpdir_for_stdout.iterdir()) == ["f.txt"]


def test_a_failed_command_prints_none_of_it(capsys, tmpdir_for_stdout):
    with pytest.raises(KeyError), deferred_writes():
        write_text_atomic("-", "never\n")
        raise KeyError("x")
    assert capsys.readouterr().out == "" and list(tmpdir_for_stdout.iterdir()) == []


def test_binary_is_refused_and_dash_is_no_path(tmpdir_for_stdout):
    with pytest.raises(
        UsageError, match=r"^Parquet is not written to standard output \('-'\); give a file name$"
    ):
        with atomic_path("-", binary="Parquet"):
            pass
    check_outputs(["-", "out.txt"], inputs=["-"])  # '-' is neither a folder nor an input here
    with pytest.raises(UsageError, match="named for two outputs"):
        check_outputs(["-", "-"])
    assert list(tmpdir_for_stdout.iterdir()) == []
