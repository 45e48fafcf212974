"""Score files -> runs: trec_eval ordering, depth, missing/outside counts, top-N lists, the AllItems -J
equivalence with TestRatings, and bad inputs (clear error, exit 2, no file)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from tests.conftest import run_command, run_in_process, write
from tests.warned import warned
from trecrs import evaluate
from trecrs.errors import InputError, UsageError
from trecrs.files.scores import read_scores
from trecrs.protocol.candidates import candidate_set, methodology_qrels
from trecrs.protocol.runs import build_run

TRAIN = pl.DataFrame(
    {
        "user": ["a", "a", "b", "b", "c"],
        "item": ["1", "2", "2", "3", "5"],
        "rating": [4.0, 3.0, 5.0, 1.0, 2.0],
    }
)
TEST = pl.DataFrame(
    {"user": ["a", "a", "b", "d"], "item": ["3", "4", "1", "2"], "rating": [5.0, 2.0, 5.0, 4.0]}
)
# all-items candidates: a {3,4,5}, b {1,4,5}, d {1,2,3,4,5}


def scores(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"user": pl.Utf8, "item": pl.Utf8, "score": pl.Float64}, orient="row")


def ranking(run: pl.DataFrame, query: str) -> list[tuple[str, int, float]]:
    return [(d, r, s) for q, _, d, r, s, _ in run.rows() if q == query]


FULL = [
    ("a", "3", 0.5),
    ("a", "4", 0.5),
    ("a", "5", 0.9),
    ("b", "1", 1.0),
    ("b", "4", 1.0000000001),
    ("b", "5", 2.0),
    ("d", "1", 1.0),
    ("d", "2", 1.0),
    ("d", "3", 1.0),
    ("d", "4", 1.0),
    ("d", "5", 1.0),
]


def test_order_ties_tag_and_counts():
    cs = candidate_set("all-items", TRAIN, TEST)
    extra = [
        ("a", "1", 9.0),
        ("c", "5", 3.0),
        ("a", "99", 1.0),
    ]  # a training pair, a non-query user, an unknown item
    r = build_run(cs, scores(FULL + extra), tag="knn")
    # ties: score compared as float32 (1.0 == 1.0000000001), then doc id descending, bytewise
    assert ranking(r.run, "a") == [("5", 1, 0.9), ("4", 2, 0.5), ("3", 3, 0.5)]
    assert [d for d, _, _ in ranking(r.run, "b")] == ["5", "4", "1"]
    assert [d for d, _, _ in ranking(r.run, "d")] == ["5", "4", "3", "2", "1"]
    assert r.run.get_column("query").unique(maintain_order=True).to_list() == ["a", "b", "d"]
    assert set(r.run.get_column("tag")) == {"knn"} and set(r.run.get_column("iter")) == {"Q0"}
    assert r.info["candidates"] == 11 and r.info["missing"] == 0
    assert r.info["scores_outside_candidates"] == 3 and r.info["lines"] == 11
    cut = build_run(cs, scores(FULL), depth=2)
    assert cut.run.height == 6 and cut.info["cut_by_depth"] == 5
    assert ranking(cut.run, "d") == [("5", 1, 1.0), ("4", 2, 1.0)]


def test_missing_policies():
    cs = lambda: candidate_set("all-items", TRAIN, TEST)  # noqa: E731
    partial = scores([s for s in FULL if s[:2] not in {("b", "4"), ("d", "3")}] + [("a", "1", -3.0)])
    with pytest.raises(InputError, match="2 of 11 candidates have no score .*query 'b', user 'b', item '4'"):
        build_run(cs(), partial)
    with warned("2 of 11 candidates .* have no score: ranked last with score -6.0"):
        last = build_run(cs(), partial, missing="last")
    # fill = min - max(1, |min|) over the score file: -3 - 3 = -6, below every score
    assert ranking(last.run, "b") == [("5", 1, 2.0), ("1", 2, 1.0), ("4", 3, -6.0)]
    assert ranking(last.run, "d")[-1] == ("3", 5, -6.0)
    assert last.info["missing"] == 2 and last.info["missing_score_value"] == -6.0
    with warned("2 of 11 candidates .* have no score: left out"):
        drop = build_run(cs(), partial, missing="drop")
    assert drop.run.height == 9 and [d for d, _, _ in ranking(drop.run, "b")] == ["5", "1"]


def test_missing_fill_is_below_every_score_as_float32():
    for low in (0.0, 1e-50, 0.3, 5.0, 1e9, -0.5, -7.0, -1e30):
        cs = candidate_set("all-items", TRAIN, TEST)
        rows = [s for s in FULL if s[:2] != ("d", "3")] + [("c", "5", low)]
        with warned("1 of 11 candidates .* have no score: ranked last"):
            run = build_run(cs, scores(rows), missing="last").run
        d = ranking(run, "d")
        assert d[-1][0] == "3"
        assert np.float32(d[-1][2]) < np.float32(min(low, 0.5))


def test_top_n_lists_as_ranks():
    cs = candidate_set("test-items", TRAIN, TEST)  # a {3,4}, b {1,4}, d {1,2,3,4}
    ranks = pl.DataFrame(
        {"user": ["a", "a", "d", "d", "d"], "item": ["4", "3", "2", "9", "1"], "rank": [1, 2, 1, 2, 3]}
    )
    with warned("4 of 8 candidates .* have no score: left out"):
        r = build_run(cs, ranks, kind="rank", missing="drop")
    assert ranking(r.run, "a") == [("4", 1, 3.0), ("3", 2, 2.0)]  # score = max rank + 1 - rank
    assert ranking(r.run, "d") == [("2", 1, 3.0), ("1", 2, 1.0)]
    assert r.info["missing"] == 4 and r.info["scores_outside_candidates"] == 1
    with pytest.raises(InputError, match="rank must be a positive integer"):
        build_run(cs, ranks.with_columns(pl.col("rank").cast(pl.Float64) / 2), kind="rank", missing="drop")


def test_opr_run_from_candidates_frame_equals_candidate_set():
    cs = candidate_set("one-plus-random", TRAIN, TEST, n=2, seed=1)
    frame = cs.frame()
    with pytest.raises(InputError, match="listed twice"):
        build_run(pl.concat([frame, frame.head(1)]), scores(FULL))
    sc = scores(FULL)
    a = build_run(candidate_set("one-plus-random", TRAIN, TEST, n=2, seed=1), sc, missing="last").run
    b = build_run(frame, sc, missing="last").run
    assert a.equals(b)
    assert a.get_column("query").unique(maintain_order=True).to_list() == ["a:3", "b:1"]


def test_library_bad_scores():
    cs = lambda: candidate_set("all-items", TRAIN, TEST)  # noqa: E731
    with pytest.raises(InputError, match="1 user\\(s\\) of the score file are in neither .*'zz'"):
        build_run(cs(), scores(FULL + [("zz", "1", 1.0)]))
    with pytest.raises(InputError, match="score is NaN"):
        build_run(cs(), scores(FULL + [("c", "1", float("nan"))]))
    with pytest.raises(InputError, match="score is infinite"):
        build_run(cs(), scores(FULL + [("c", "1", float("inf"))]))
    with pytest.raises(InputError, match="none of the 1 scores is a candidate"):
        build_run(cs(), scores([("a", "1", 1.0)]), missing="last")
    with pytest.raises(InputError, match="more than one score"):
        build_run(cs(), scores(FULL + FULL[:1]))
    with pytest.raises(InputError, match="lacks column"):
        build_run(cs(), scores(FULL).drop("score"))
    with pytest.raises(UsageError, match="tag"):
        build_run(cs(), scores(FULL), tag="two words")


def test_read_scores_text_header_and_line_numbers(tmp_path):
    f = write(tmp_path / "s", "user item score\n# comment\n1 2 0.5\n1\t3   -1e3\n")
    assert read_scores(f).select("user", "item", "score").rows() == [("1", "2", 0.5), ("1", "3", -1000.0)]
    with pytest.raises(InputError, match=r"s:3: score is NaN"):
        read_scores(write(tmp_path / "s", "1 2 0.5\n\n1 3 nan\n"))
    with pytest.raises(InputError, match=r"s:2: expected 3 fields"):
        read_scores(write(tmp_path / "s", "1 2 0.5\n1 3\n"))
    with pytest.raises(InputError, match=r"s:2: user '1', item '2' has more than one score"):
        read_scores(write(tmp_path / "s", "1 2 0.5\n1 2 0.7\n"))
    pl.DataFrame({"user": [1, 1], "item": [2, 3], "score": [0.5, 0.25]}).write_parquet(tmp_path / "s.parquet")
    assert read_scores(tmp_path / "s.parquet").select("user", "item", "score").rows() == [
        ("1", "2", 0.5),
        ("1", "3", 0.25),
    ]


# ---------------------------------------------------------------- the -J equivalence


def synthetic_split(seed: int = 3, users: int = 60, items: int = 90, per_user: int = 25):
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(1, users + 1):
        for i in rng.choice(items, per_user, replace=False):
            rows.append((str(u), str(i + 1), float(rng.integers(1, 6)), bool(rng.random() < 0.25)))
    df = pl.DataFrame(rows, schema=["user", "item", "rating", "is_test"], orient="row")
    return df.filter(~pl.col("is_test")).drop("is_test"), df.filter(pl.col("is_test")).drop("is_test")


def equivalence(train: pl.DataFrame, test: pl.DataFrame, threshold: int, seed: int = 0):
    """AllItems scored with -J against qrels holding the rel-0 lines == TestRatings (every all_trec value)."""
    rng = np.random.default_rng(seed)
    users = pl.concat([train, test]).get_column("user").unique()
    items = pl.concat([train, test]).get_column("item").unique()
    every = pl.DataFrame({"user": users}).join(pl.DataFrame({"item": items}), how="cross")
    sc = every.with_columns(pl.Series("score", rng.integers(0, 12, every.height) / 4.0))  # many ties
    all_items = build_run(candidate_set("all-items", train, test), sc).run
    test_ratings = build_run(candidate_set("test-ratings", train, test), sc).run
    judged = methodology_qrels("all-items", train, test, threshold=threshold, nonrelevant=True).qrels
    # users whose test ratings are all below the threshold have no relevant item
    with warned(
        "evaluated queries have no relevant document",
        "tied documents of different relevance straddle cutoff 1 in",
    ):
        a = evaluate(judged, all_items, "all_trec", judged_only=True).tidy()
    with warned(
        "evaluated queries have no relevant document",
        "tied documents of different relevance straddle cutoff 1 in",
    ):
        b = evaluate(judged, test_ratings, "all_trec").tidy()
    assert a.height == b.height and a.height > 100
    assert a.equals(b)
    # without -J the AllItems ranking interleaves unjudged items: the values differ
    with warned(
        "evaluated queries have no relevant document",
        "tied documents of different relevance straddle cutoff 1 in",
    ):
        c = evaluate(judged, all_items, "all_trec").tidy()
    assert not c.equals(b)
    return a


def test_all_items_judged_only_equals_test_ratings_synthetic():
    train, test = synthetic_split()
    a = equivalence(train, test, threshold=4)
    assert a.filter((pl.col("query") == "all") & (pl.col("measure") == "num_q")).item(0, "value") == 60


def test_all_items_judged_only_equals_test_ratings_u1(ml100k):
    from trecrs.files.ratings import read_ratings

    train, test = read_ratings(ml100k.parent / "u1.base"), read_ratings(ml100k.parent / "u1.test")
    a = equivalence(train, test, threshold=4, seed=11)
    assert a.filter((pl.col("query") == "all") & (pl.col("measure") == "num_ret")).item(0, "value") == 20000


# ---------------------------------------------------------------- the command line


@pytest.fixture
def files(tmp_path):
    train, test = synthetic_split(users=12, items=30, per_user=10)
    for name, df in (("tr", train), ("te", test)):
        write(tmp_path / name, "".join(f"{u}\t{i}\t{int(r)}\t0\n" for u, i, r in df.rows()))
    every = (
        pl.concat([train, test])
        .select("user")
        .unique()
        .join(pl.concat([train, test]).select("item").unique(), how="cross")
        .sort("user", "item")
    )
    text = "".join(f"{u} {i} {(k * 7919) % 101 / 10}\n" for k, (u, i) in enumerate(every.rows()))
    write(tmp_path / "s.scores", text)
    return tmp_path


def test_cli_run_and_candidates_file_agree(files, cli):
    t = files
    base = ["--train", t / "tr", "--test", t / "te"]
    base += ["--seed", "9"]
    code, _, err = cli(
        "run",
        "--methodology",
        "one-plus-random",
        *base,
        "--n",
        "5",
        "--scores",
        t / "s.scores",
        "-o",
        t / "a.run",
    )
    assert code == 0, err
    assert "scores are not candidates: dropped" in err and "wrote" in err
    code, _, err = cli("candidates", "--methodology", "one-plus-random", *base, "--n", "5", "-o", t / "p")
    assert code == 0, err
    code, _, err = cli("run", "--candidates", t / "p", "--scores", t / "s.scores", "-o", t / "b.run")
    assert code == 0, err
    assert (t / "a.run").read_bytes() == (t / "b.run").read_bytes()
    first = (t / "a.run").read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[3] == "1" and first[5] == "s"  # tag: the score file's name
    assert (t / "a.run.manifest.json").exists()


def test_cli_depth_tag_and_eval(files, cli):
    t = files
    code, _, err = cli(
        "run",
        "--methodology",
        "all-items",
        "--train",
        t / "tr",
        "--test",
        t / "te",
        "--scores",
        t / "s.scores",
        "--depth",
        "3",
        "--tag",
        "pop",
        "-o",
        t / "r",
    )
    assert code == 0, err
    lines = [x.split() for x in (t / "r").read_text().splitlines()]
    per_q: dict[str, int] = {}
    for q, *_ in lines:
        per_q[q] = per_q.get(q, 0) + 1
    assert set(per_q.values()) == {3} and {x[5] for x in lines} == {"pop"}
    code, _, err = cli("qrels", "--test", t / "te", "--threshold", "1", "-o", t / "q")
    assert code == 0, err
    code, out, err = cli("eval", "-m", "num_ret", t / "q", t / "r")
    assert code == 0, err
    assert out.split() == ["num_ret", "all", str(3 * len(per_q))]


@pytest.mark.parametrize(
    "case,message",
    [
        ("unknown-user", "s.scores:13: 1 user\\(s\\) of the score file are in neither"),
        ("nan", "s.scores:2: score is NaN"),
        ("missing", "candidates have no score"),
        ("dup-rating", "duplicate rating"),
        ("missing-column", "te:1:"),
        ("empty-test", "te: (empty file|no content lines)"),
        ("overlap", "in both the training and the test"),
        ("no-methodology", "give --methodology"),
    ],
)
def test_cli_bad_inputs(files, case, message):
    t = files
    scores = (t / "s.scores").read_text().splitlines()
    te = (t / "te").read_text().splitlines()
    tr = (t / "tr").read_text().splitlines()
    if case == "unknown-user":
        scores.insert(12, "nobody 1 0.5")
    elif case == "nan":
        scores[1] = scores[1].rsplit(" ", 1)[0] + " NaN"
    elif case == "missing":  # the score of a test pair, an all-items candidate
        u, i = te[0].split("\t")[:2]
        scores = [x for x in scores if x.split()[:2] != [u, i]]
    elif case == "dup-rating":
        te.append(te[0])
    elif case == "missing-column":
        te = ["\t".join(x.split("\t")[:2]) for x in te]
    elif case == "empty-test":
        te = []
    elif case == "overlap":
        te.append(tr[0])
    write(t / "s.scores", "\n".join(scores) + "\n")
    write(t / "te", "\n".join(te) + ("\n" if te else ""))
    args = ["run", "--scores", t / "s.scores", "-o", t / "out.run"]
    if case != "no-methodology":
        args += ["--methodology", "all-items", "--train", t / "tr", "--test", t / "te"]
    via = run_command if case == "unknown-user" else run_in_process  # one round trip through a process
    proc = via(*args)
    assert proc.returncode == (2 if case == "no-methodology" else 3), proc.stderr  # usage, else a bad file
    assert proc.stderr.startswith("trecrs run: error:") and len(proc.stderr.strip().splitlines()) == 1
    import re

    assert re.search(message, proc.stderr), proc.stderr
    assert not (t / "out.run").exists() and not [p for p in t.iterdir() if p.name.startswith(".out.run")]
