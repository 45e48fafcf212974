"""A manifest never describes another file: the old one goes before its file is replaced, and a stale
one (a file changed behind trecrs' back) is refused by readers or not copied as provenance."""

from __future__ import annotations

import json

import pytest

from trecrs.errors import EXIT_INPUT, InputError
from trecrs.files.manifest import read_manifest, write_manifest
from trecrs.files.output import write_text_atomic


def test_replacing_a_file_removes_its_old_manifest(tmp_path):
    target = tmp_path / "a.txt"
    write_text_atomic(target, "old\n")
    write_manifest(target, "test")
    write_text_atomic(target, "new\n")  # the old manifest described "old\n"
    assert not (tmp_path / "a.txt.manifest.json").exists()
    write_manifest(target, "test")
    assert read_manifest(target)["bytes"] == 4


def test_a_stale_manifest_is_an_input_error(tmp_path):
    target = tmp_path / "a.txt"
    write_text_atomic(target, "old\n")
    write_manifest(target, "test")
    target.write_text("changed by hand\n")
    with pytest.raises(InputError) as info:
        read_manifest(target)
    assert info.value.exit_code == EXIT_INPUT
    assert str(info.value).startswith(f"{target}.manifest.json: describes another file (sha256 ")
    assert str(info.value).endswith(f"); rerun the command that wrote {target}")


def test_a_stale_upstream_manifest_is_not_recorded(tmp_path):
    source, derived = tmp_path / "in.txt", tmp_path / "out.txt"
    write_text_atomic(source, "old\n")
    write_manifest(source, "ratings")
    source.write_text("changed by hand\n")
    write_text_atomic(derived, "x\n")
    with pytest.warns(UserWarning, match="in.txt.manifest.json: describes another file"):
        write_manifest(derived, "test", inputs={"ratings": source})
    assert "upstream" not in json.loads((tmp_path / "out.txt.manifest.json").read_text())["inputs"]["ratings"]
