"""Qrels from test ratings: Bellogín et al.'s released qrels, hand-computed rules, and bad inputs."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest

from tests.conftest import run_command, run_in_process, write
from tests.warned import warned
from trecrs import evaluate
from trecrs.errors import InputError, UsageError
from trecrs.protocol.qrels import make_qrels, rating_scale, short_head

# ---------------------------------------------------------------- golden: the authors' urels_th3/th4


@pytest.mark.parametrize("th", [3, 4])
def test_reproduces_bellogin_urels(golden, ml100k, cli, tmp_path, th):
    """`trecrs qrels --test u1.test --threshold T` = urels_thT.txt line for line (the file has CRLF ends)."""
    out = tmp_path / f"th{th}.qrels"
    code, _, err = cli("qrels", "--test", ml100k.parent / "u1.test", "--threshold", th, "-o", out)
    assert code == 0, err
    expected = (golden / "runs_test_ratings" / f"urels_th{th}.txt").read_bytes().decode()
    assert out.read_text().splitlines() == expected.splitlines()
    assert len(expected.splitlines()) == {3: 16417, 4: 11235}[th]
    assert f"{ {3: 16417, 4: 11235}[th]:,} relevant of 20,000 test ratings" in err
    manifest = json.loads((tmp_path / f"th{th}.qrels.manifest.json").read_text())
    assert manifest["parameters"]["threshold"] == th
    assert manifest["rating_scale"] == {"factor": 1, "map": {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5}}


# ---------------------------------------------------------------- hand-computed rules

TEST = pl.DataFrame(
    {
        "user": ["a", "a", "a", "b", "b", "c"],
        "item": ["1", "2", "3", "1", "4", "2"],
        "rating": [5.0, 2.0, 4.0, 2.0, 1.0, 3.0],
    }
)
TRAIN = pl.DataFrame(
    {
        "user": ["a", "b", "b", "c", "c", "d"],
        "item": ["4", "2", "3", "1", "3", "1"],
        "rating": [1.0, 5.0, 5.0, 1.0, 2.0, 4.0],
    }
)


def rows(q: pl.DataFrame) -> list[tuple]:
    return [(r[0], r[2], r[3]) for r in q.rows()]


def test_global_threshold_graded_by_rating():
    r = make_qrels(TEST, threshold=3)
    assert rows(r.qrels) == [("a", "1", 5), ("a", "3", 4), ("c", "2", 3)]
    assert r.qrels.get_column("iter").to_list() == ["0"] * 3
    assert r.info["relevant"] == 3 and r.info["below_threshold"] == 3
    assert r.info["queries"] == 2 and r.info["users_without_qrels"] == 1  # b has nothing >= 3


def test_nonrelevant_lines_binary_and_shifted():
    r = make_qrels(TEST, threshold=3, nonrelevant=True, grade="binary")
    assert rows(r.qrels) == [
        ("a", "1", 1),
        ("a", "2", 0),
        ("a", "3", 1),
        ("b", "1", 0),
        ("b", "4", 0),
        ("c", "2", 1),
    ]
    assert r.info["queries"] == 3 and r.info["nonrelevant_written"] == 3
    # shifted: 3 -> 1, 4 -> 2, 5 -> 3
    assert rows(make_qrels(TEST, threshold=3, grade="shifted").qrels) == [
        ("a", "1", 3),
        ("a", "3", 2),
        ("c", "2", 1),
    ]
    # a threshold between grid points: the lowest rating that passes (4) maps to 1
    assert rows(make_qrels(TEST, threshold=3.5, grade="shifted").qrels) == [("a", "1", 2), ("a", "3", 1)]


def test_per_user_rules():
    # means over test ratings: a 11/3=3.67, b 1.5, c 3
    assert rows(make_qrels(TEST, per_user="mean").qrels) == [
        ("a", "1", 5),
        ("a", "3", 4),
        ("b", "1", 2),
        ("c", "2", 3),
    ]
    # max: a 5, b 2, c 3; offset -1 admits ratings within one star of the user's top
    assert rows(make_qrels(TEST, per_user="max").qrels) == [("a", "1", 5), ("b", "1", 2), ("c", "2", 3)]
    assert rows(make_qrels(TEST, per_user="max", offset=-1).qrels) == [
        ("a", "1", 5),
        ("a", "3", 4),
        ("b", "1", 2),
        ("b", "4", 1),
        ("c", "2", 3),
    ]
    # with a global threshold too, both must hold
    assert rows(make_qrels(TEST, per_user="mean", threshold=3).qrels) == [
        ("a", "1", 5),
        ("a", "3", 4),
        ("c", "2", 3),
    ]
    # means over training ratings: a 1, b 5, c 1.5 (d has no test ratings)
    assert rows(make_qrels(TEST, per_user="mean", per_user_from="train", train=TRAIN).qrels) == [
        ("a", "1", 5),
        ("a", "2", 2),
        ("a", "3", 4),
        ("c", "2", 3),
    ]
    # over train + test: a (1+5+2+4)/4 = 3, b (5+5+2+1)/4 = 3.25, c (1+2+3)/3 = 2
    assert rows(make_qrels(TEST, per_user="mean", per_user_from="all", train=TRAIN).qrels) == [
        ("a", "1", 5),
        ("a", "3", 4),
        ("c", "2", 3),
    ]


def test_per_user_from_train_drops_users_without_training_ratings():
    test = pl.concat([TEST, pl.DataFrame({"user": ["e"], "item": ["1"], "rating": [5.0]})])
    r = make_qrels(test, per_user="mean", per_user_from="train", train=TRAIN)
    assert r.info["dropped_no_user_statistics"] == 1
    assert "e" not in r.qrels.get_column("query").to_list()


def test_half_stars_are_doubled_and_mapped():
    test = pl.DataFrame({"user": ["u", "u", "u"], "item": ["x", "y", "z"], "rating": [4.5, 3.5, 0.5]})
    r = make_qrels(test, threshold=3.5)
    assert rows(r.qrels) == [("u", "x", 9), ("u", "y", 7)]
    assert r.info["scale_factor"] == 2
    assert r.info["rating_map"] == {"0.5": 1, "3.5": 7, "4.5": 9}
    assert rating_scale(pl.Series([1.0, 2.25]))[0] == 4
    with pytest.raises(UsageError, match="cannot map the rating scale"):
        rating_scale(pl.Series([1.0, 1.0 / 3]))


def test_short_head_and_long_tail_filter():
    # training popularity: i1 4, i2 3, i3 2, i4 1 (10 ratings); 33% = 3.3 -> i1 alone holds 40%
    train = pl.DataFrame(
        {
            "user": [f"u{k}" for k in range(10)],
            "item": ["1"] * 4 + ["2"] * 3 + ["3"] * 2 + ["4"],
            "rating": [4.0] * 10,
        }
    )
    assert short_head(train, 0.33).to_list() == ["1"]
    assert short_head(train, 0.5).to_list() == ["1", "2"]  # 4 < 5, 4 + 3 >= 5
    assert short_head(train, 0.4).to_list() == ["1"]  # exactly reached
    r = make_qrels(TEST, threshold=1, train=train, long_tail=0.33)
    assert "1" not in r.qrels.get_column("doc").to_list()
    assert r.info["dropped_short_head"] == 2 and r.info["short_head_items"] == 1


def test_nonrelevant_lines_change_num_q_bpref_and_judged_only():
    """a's ranking 2 (rated 2), 1 (rated 5), 3 (rated 4); threshold 4; b rated everything below 4.

    Without rel-0 lines: item 2 is unjudged, bpref(a) = (1 + 1)/2 = 1, b is no query, -J drops item 2 so
    P@1 = 1. With them: bpref(a) = (1 - 1/min(2,1)) * 2 / 2 = 0, b is a query scoring 0, -J keeps 2: P@1 = 0.
    """
    run = pl.DataFrame(
        {
            "query": ["a", "a", "a", "b", "b"],
            "doc": ["2", "1", "3", "1", "4"],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    plain = make_qrels(TEST, threshold=4).qrels
    judged = make_qrels(TEST, threshold=4, nonrelevant=True).qrels

    def value(qrels, measure, query="a", **kw):
        # without the rel-0 lines, query b has no qrels; with them, it has no relevant document (and a user of
        # the test ratings is not in the run)
        said = (
            ["1 of 2 .* run queries have no qrels"]
            if qrels is plain
            else ["1 of 2 .* have no relevant document", "1 of 3 .* qrels queries have no line in the run"]
        )
        with warned(*said):
            ev = evaluate(qrels, run, [measure], **kw).tidy()
        return ev.filter((pl.col("query") == query) & (pl.col("measure") == measure.replace(".", "_"))).item(
            0, "value"
        )

    assert value(plain, "bpref") == 1.0 and value(judged, "bpref") == 0.0
    assert value(plain, "num_q", "all") == 1 and value(judged, "num_q", "all") == 2
    assert value(plain, "P.1", judged_only=True) == 1.0 and value(judged, "P.1", judged_only=True) == 0.0


# ---------------------------------------------------------------- bad inputs


def test_library_errors():
    with pytest.raises(UsageError, match="threshold"):
        make_qrels(TEST)
    with pytest.raises(UsageError, match="empty"):
        make_qrels(TEST.head(0), threshold=3)
    with pytest.raises(UsageError, match="no test rating is relevant"):
        make_qrels(TEST, threshold=6)
    with pytest.raises(InputError, match="lacks column"):
        make_qrels(TEST.drop("rating"), threshold=3)
    with pytest.raises(InputError) as dup:
        make_qrels(pl.concat([TEST, TEST.head(1), TEST.slice(3, 1)]), threshold=3)
    assert dup.value.reason == (
        "test ratings: duplicate rating for user 'a', item '1' (4 rows involved); "
        "resolve duplicates when reading the ratings"
    )
    with pytest.raises(UsageError, match="below 1"):  # a relevant 0 rating would read as non-relevant
        make_qrels(TEST.with_columns(pl.col("rating") - 5), threshold=-1)
    with pytest.raises(UsageError, match="shifted needs a global"):
        make_qrels(TEST, per_user="mean", grade="shifted")
    with pytest.raises(UsageError, match="long-tail filter needs the training"):
        make_qrels(TEST, threshold=3, long_tail=0.33)


@pytest.mark.parametrize(
    "content,args,message,status",
    [
        (
            "1\t1\t5\t0\n1\t1\t4\t0\n",
            ["--threshold", "3"],
            ":2: duplicate rating",
            3,
        ),  # duplicate rating names lines
        ("# only a comment\n", ["--threshold", "3"], "no content lines|empty", 3),
        ("1\t1\t5\t0\n", ["--threshold", "6"], "no test rating is relevant", 4),
        ("1\t1\tfive\t0\n", ["--threshold", "3"], "rating", 3),
        ("1\t1\t5\t0\n", [], "--threshold", 2),
        ("1\t1\t5\t0\n", ["--threshold", "3", "--methodology", "one-plus-random"], "do not apply", 2),
    ],
)
def test_cli_bad_inputs_leave_no_file(tmp_path, content, args, message, status):
    test = write(tmp_path / "t.test", content)
    out = tmp_path / "q.qrels"
    via = (
        run_command if message == ":2: duplicate rating" else run_in_process
    )  # one round trip through a process
    proc = via("qrels", "--test", test, *args, "-o", out)
    assert proc.returncode == status, proc.stderr
    assert proc.stderr.startswith("trecrs qrels: error:") and len(proc.stderr.strip().splitlines()) == 1
    assert re.search(message, proc.stderr), proc.stderr
    assert list(tmp_path.iterdir()) == [test]


def test_cli_half_stars_map_in_manifest_and_opr_qrels(tmp_path, cli):
    test = write(tmp_path / "t.csv", "userId,movieId,rating,timestamp\n1,10,4.5,0\n1,11,5.0,0\n2,10,3.0,0\n")
    out = tmp_path / "q"
    code, _, err = cli("qrels", "--test", test, "--threshold", "3.5", "-o", out)
    assert code == 0, err
    assert out.read_text() == "1\t0\t10\t9\n1\t0\t11\t10\n"
    m = json.loads((tmp_path / "q.manifest.json").read_text())
    assert m["rating_scale"] == {"factor": 2, "map": {"3": 6, "4.5": 9, "5": 10}}
    assert "multiplied by 2" in err
    code, _, err = cli(
        "qrels",
        "--methodology",
        "one-plus-random",
        "--test",
        test,
        "--relevant-threshold",
        "4.5",
        "--separator",
        "space",
        "-o",
        out,
    )
    assert code == 0, err
    assert out.read_text() == "1:10 0 10 9\n1:11 0 11 10\n"
