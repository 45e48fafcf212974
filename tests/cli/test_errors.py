"""Library errors reach the shell as one line naming the command-line options, with a documented status."""

from __future__ import annotations

import pytest

from trecrs.errors import EXIT_INPUT, EXIT_USAGE, InputError, UsageError

SAMPLE = "sample_data/synth-100k-like/u.data"


def test_library_arguments_become_the_command_options(cli, tmp_path):
    code, out, err = cli("split", "--method", "holdout", SAMPLE, tmp_path / "s")
    assert code == EXIT_USAGE and out == ""
    assert err == "trecrs split: error: argument --seed: the holdout split draws at random: give a seed\n"
    assert not (tmp_path / "s").exists()


def test_several_arguments_are_all_named(cli, tmp_path):
    code, _, err = cli("split", "--method", "per-user", "--given", "3", "--ratio", "0.2", "--seed", "1", SAMPLE, tmp_path / "s")
    assert code == EXIT_USAGE
    assert err.startswith("trecrs split: error: arguments --given, --all-but, --ratio: per-user split:")
    assert err.count("\n") == 1


def test_library_error_speaks_of_library_arguments():
    import trecrs

    ratings = trecrs.read_ratings(SAMPLE)
    with pytest.raises(UsageError, match="give a seed") as info:
        trecrs.split(ratings, "holdout")
    assert "--" not in str(info.value) and info.value.arguments == ("seed",)


def test_input_error_names_file_and_line():
    exc = InputError("run.txt", 3, "expected 6 fields")
    assert str(exc) == "run.txt:3: expected 6 fields" and exc.exit_code == EXIT_INPUT


def test_datasets_verify_mismatch_is_status_1(cli, tmp_path):
    folder = tmp_path / "ml-100k"
    folder.mkdir()
    (folder / "u.data").write_text("1\t1\t5\t881250949\n")
    code, _, _ = cli("datasets", "verify", folder)
    assert code == 1
