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


def test_an_unknown_argument_is_named_by_its_command(cli, tmp_path):
    code, out, err = cli("split", "--method", "holdout", "--bogus=1", SAMPLE, tmp_path / "s")
    assert (code, out) == (EXIT_USAGE, "")
    assert err == "trecrs split: error: unrecognized arguments: --bogus=1\n"
    assert not (tmp_path / "s").exists()


def test_several_arguments_are_all_named(cli, tmp_path):
    code, _, err = cli(
        "split",
        "--method",
        "per-user",
        "--given",
        "3",
        "--ratio",
        "0.2",
        "--seed",
        "1",
        SAMPLE,
        tmp_path / "s",
    )
    assert code == EXIT_USAGE
    assert err.startswith("trecrs split: error: arguments --given, --all-but, --ratio: per-user split:")
    assert err.count("\n") == 1


def test_library_error_speaks_of_library_arguments():
    import trecrs

    ratings = trecrs.read_ratings(SAMPLE)
    with pytest.raises(UsageError, match="give a seed") as info:
        trecrs.split(ratings, "holdout")
    assert "--" not in str(info.value) and info.value.arguments == ("seed",)


@pytest.mark.parametrize(("command", "message", "line"), [
    # listed arguments, the library's name where the option's dest differs, the leading name dropped
    (["eval", "q", "r"], UsageError("x", arguments=["depth", "relevance_level"]),
     "arguments -M/--Max_retrieved_per_topic, -l/--level_for_rel: x"),
    (["eval", "q", "r"], UsageError("depth must be positive, got 0", arguments=["depth"]),
     "argument -M/--Max_retrieved_per_topic: must be positive, got 0"),
    # none listed: "NAME must" names the argument, if the command has an option for it
    (["eval", "q", "r"], UsageError("relevance_level must be at least 1, got 0"),
     "argument -l/--level_for_rel: must be at least 1, got 0"),
    (["eval", "q", "r"], UsageError("lam must be from 0 to 1, got 2"), "lam must be from 0 to 1, got 2"),
    (["eval", "q", "r"], UsageError("depth is 3 and must be 4"), "depth is 3 and must be 4"),
    (["run", "--scores", "s", "-o", "o"], UsageError("n must be positive", arguments=["n"]), "argument --n: must be positive"),
])  # fmt: skip
def test_an_error_about_a_value_is_led_by_its_option(command, message, line):
    from trecrs.cli import build_parser
    from trecrs.cli.common import error_message

    parser = build_parser()
    assert error_message(parser, parser.parse_args(command), message) == line


def test_option_errors_names_the_option_of_usage_errors_only():
    from trecrs.cli.common import option_errors

    with pytest.raises(UsageError) as usage, option_errors("param"):
        raise UsageError("k must be at least 1")
    with pytest.raises(UsageError) as listed, option_errors("param", columns="score_columns"):
        raise UsageError("bad mapping", arguments=["columns"])
    with pytest.raises(InputError) as data, option_errors("param"):
        raise InputError("train.tsv", 3, "bad line")
    assert (usage.value.arguments, listed.value.arguments, data.value.arguments) == (
        ("param",),
        ("score_columns",),
        (),
    )


def test_input_error_names_file_and_line():
    exc = InputError("run.txt", 3, "expected 6 fields")
    assert str(exc) == "run.txt:3: expected 6 fields" and exc.exit_code == EXIT_INPUT


def test_datasets_verify_mismatch_is_status_1(cli, tmp_path):
    folder = tmp_path / "ml-100k"
    folder.mkdir()
    (folder / "u.data").write_text("1\t1\t5\t881250949\n")
    code, _, _ = cli("datasets", "verify", folder)
    assert code == 1
