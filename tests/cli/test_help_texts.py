"""What the commands' --help says, checked against what they do."""

from __future__ import annotations

import argparse

import pytest

from tests.reliability.commands import command_parser

FILE_OUTPUTS = [("eval", "output"), ("eval-factors", "output"), ("compare", "output"), ("study", "output"),
                ("audit", "output"), ("definitions", "output"), ("sensitivity", "output"), ("sampled", "output"),
                ("qrels", "output"), ("candidates", "output"), ("run", "output"), ("recommend", "output"),
                ("recommend", "predictions")]  # fmt: skip


def _action(command: str, dest: str) -> argparse.Action:
    return next(a for a in command_parser((command,))._actions if a.dest == dest)


@pytest.mark.parametrize(("command", "dest"), FILE_OUTPUTS)
def test_every_file_output_says_what_dash_does(command, dest):
    assert _action(command, dest).help.endswith("- writes to standard output (no manifest)")


def test_every_declared_file_output_is_listed():
    """The outputs the commands declare (set_defaults(outputs=...)), but for figures and batch's logs."""
    declared = set()
    for name in ("eval", "eval-factors", "compare", "study", "audit", "definitions", "sensitivity", "sampled",
                 "qrels", "candidates", "run", "recommend"):  # fmt: skip
        outputs = command_parser((name,)).get_default("outputs")
        declared |= {(name, dest) for dest in outputs if dest not in ("plot", "pr_plot")}
    assert declared == set(FILE_OUTPUTS)


def test_run_tag_is_the_score_file_name_without_its_last_extension(cli, tmp_path):
    rule = (
        "without its last extension, and without .gz: fold1.SVD50.scores and fold1.SVD50.scores.gz are tagged"
    )
    assert f"{rule} fold1.SVD50;" in _action("run", "tag").help
    (tmp_path / "p.pairs").write_text("u1\tu1\ti1\nu1\tu1\ti2\n")
    (tmp_path / "svd.all.scores").write_text("u1 i1 0.5\nu1 i2 0.25\n")
    code, out, err = cli(
        "run",
        "--quiet",
        "--candidates",
        tmp_path / "p.pairs",
        "--scores",
        tmp_path / "svd.all.scores",
        "-o",
        "-",
    )
    assert (code, out, err) == (0, "u1 Q0 i1 1 0.5 svd.all\nu1 Q0 i2 2 0.25 svd.all\n", "")


def test_datasets_verify_statuses_are_those_its_help_gives(cli, tmp_path):
    epilog = command_parser(("datasets",)).epilog
    assert "3 no MovieLens file found (name the release with --dataset), 5 not a folder." in epilog
    (tmp_path / "file").write_text("x\n")
    (tmp_path / "empty").mkdir()
    assert cli("datasets", "verify", tmp_path / "file")[0] == 5
    assert cli("datasets", "verify", tmp_path / "empty")[0] == 3


def test_batch_states_no_stale_start_up_time():
    """The start-up batch saves is about a second (numpy and polars imported; measured 1.1 s for
    `python -m trecrs eval --quiet sample_data/tiny.qrels sample_data/tiny.run` against 0.02-0.03 s in
    process), not the 0.3 s it once said."""
    description = command_parser(("batch",)).description
    assert "0.3 s" not in description and "about a second" in description
