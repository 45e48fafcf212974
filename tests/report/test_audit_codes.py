"""The audit's columnar pieces against a direct computation: the training-pair lookup on integer codes
against a Python set of string pairs, and the baselines' row-by-row scores against the recommenders'
own fitted scores (trecrs.recommenders)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from trecrs.files import ratings_fast
from trecrs.recommenders import make_recommender
from trecrs.report import audit_codes
from trecrs.report.audit import audit, format_json
from trecrs.report.audit_checks import AuditInputs, training_pair
from trecrs.report.audit_measures import BASELINES, baseline_run

IDS = st.sampled_from(["1", "2", "10", "u1", "01", "x"])


def train_frame(pairs) -> pl.DataFrame:
    rows = sorted(set(pairs))
    return pl.DataFrame({"user": [u for u, _ in rows], "item": [i for _, i in rows],
                         "rating": [float(1 + k % 5) for k in range(len(rows))]},
                        schema={"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64})  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(IDS, IDS), max_size=20), st.lists(st.tuples(IDS, IDS), max_size=20))
def test_training_pair_is_membership_in_the_training_pairs_as_written(train, lines):
    a = AuditInputs(train=train_frame(train))
    users = pl.Series("user", [u for u, _ in lines], dtype=pl.Utf8)
    items = pl.Series("doc", [i for _, i in lines], dtype=pl.Utf8)
    assert training_pair(a, users, items).to_list() == [p in set(train) for p in lines]
    # the codes are built once; a second lookup (another run) gives the same answer
    assert training_pair(a, users, items).to_list() == [p in set(train) for p in lines]


def test_number_codes_keep_apart_ids_written_otherwise():
    # plain decimal ids are coded by their numbers; "01", "+1", "5.0" are other ids, as trec_eval sees them
    a = AuditInputs(train=train_frame([("1", "5"), ("2", "10"), ("3", "5")]))
    users = pl.Series(["1", "01", "+1", "1", "1", "-0", "2", "u2"])
    items = pl.Series(["5", "5", "5", "05", "5.0", "5", "10", "10"])
    assert training_pair(a, users, items).to_list() == [True, False, False, False, False, False, True, False]
    assert audit_codes._numeric(a) is not None
    counts = audit_codes.training_counts(a, pl.Series(["5", "05", "10", "x", "99"]))
    assert counts.to_list() == [2, 0, 1, 0, 0]


def test_codes_agree_after_other_categorical_columns_come_and_go():
    # ids that are not numbers get polars categorical codes, which restart from 0 once no categorical
    # column is alive: the audit keeps its own
    a = AuditInputs(train=train_frame([("a", "a"), ("b", "c")]))
    assert training_pair(a, pl.Series(["b"]), pl.Series(["c"])).to_list() == [True]
    assert audit_codes._numeric(a) is None
    pl.Series(["z", "c", "b"]).cast(pl.Categorical)  # another column coded, then dropped
    got = training_pair(a, pl.Series(["c", "b", "a", "z"]), pl.Series(["b", "c", "c", "a"]))
    assert got.to_list() == [False, True, False, False]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(IDS, IDS), min_size=1, max_size=20), st.lists(st.booleans(), min_size=20, max_size=20)
)
def test_smallest_pair_and_distinct_ids_are_decoded_from_the_codes(pairs, bits):
    train = train_frame(pairs)
    rows = train.select("user", "item").rows()
    mask = np.array(bits[: len(rows)])
    a = AuditInputs(train=train)
    chosen = [(u, i, n) for n, (u, i) in enumerate(rows) if mask[n]]
    assert audit_codes.smallest_pair(a, "train", mask) == (min(chosen) if chosen else None)
    assert "user" not in a.train.columns  # the training ids live on as codes only
    assert sorted(audit_codes.distinct(a, "train", "user").to_list()) == sorted({u for u, _ in rows})
    assert sorted(audit_codes.distinct(a, "train", "item").to_list()) == sorted({i for _, i in rows})


def test_baseline_runs_score_as_the_fitted_recommenders():
    rng = np.random.default_rng(3)
    train = train_frame([(str(u), str(i)) for u, i in rng.integers(0, 30, (300, 2))])
    # run pairs: known and unknown users and items, a pair repeated under two queries
    pairs = pl.DataFrame({"query": ["1", "1", "1", "2", "3", "q"], "user": ["1", "1", "1", "2", "99", "1"],
                          "item": ["3", "4", "77", "3", "5", "3"]})  # fmt: skip
    a = AuditInputs(train=train, seed=11)
    for label, name in BASELINES.items():
        scores = make_recommender(name, seed=11).fit(train).score(pairs.select("user", "item")).frame
        want = pairs.join(scores, on=["user", "item"], how="left").get_column("score").to_list()
        got = baseline_run(a, label, pairs)
        assert got.columns == ["query", "doc", "score"]
        assert got.get_column("score").to_list() == want, label
    toppop = baseline_run(a, "TopPop", pairs).get_column("score").to_list()
    counts = train.get_column("item").value_counts()
    assert toppop[2] == 0.0 and toppop[0] == counts.filter(pl.col("item") == "3").item(0, "count")


# ids of every kind the coding tells apart: plain decimals, one above any number code's bound (a coded id
# the audit codes by category), and ids that keep a file's ids as text (a leading zero, a prefix)
FILE_IDS = st.sampled_from(["1", "2", "10", "4294967295"])
TEXT_IDS = st.sampled_from(["1", "2", "007", "u1"])
ROW = st.tuples(st.integers(0, 9), st.integers(0, 3))  # (timestamp, rating - 1)


def _write(path, pairs, rows) -> None:
    path.write_text(
        "".join(f"{u}\t{i}\t{r + 1}\t{t}\n" for (u, i), (t, r) in zip(pairs, rows[: len(pairs)], strict=True))
    )


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(FILE_IDS, FILE_IDS), min_size=1, max_size=16, unique=True),
    st.lists(st.tuples(st.one_of(FILE_IDS, TEXT_IDS), FILE_IDS), min_size=1, max_size=10, unique=True),
    st.lists(ROW, min_size=17, max_size=17),  # a time for each of 16 pairs and the text id's
    st.booleans(),
)
def test_a_training_file_read_with_coded_ids_gives_the_same_report(train, test, when, text_train):
    """A large training file's ids are read as numbers (never held as text): the report is the same as
    with its ids read as text, whether the numbers serve as codes or the audit codes ids by category."""
    if text_train:  # an id that is no plain decimal: the file's ids stay text
        train = [("007", "1"), *train]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        _write(tmp / "train.tsv", train, when)
        _write(tmp / "test.tsv", test, when)
        run = "".join(
            f"{u} Q0 {i} {n} {9 - n} r\n" for n, (u, i) in enumerate(dict.fromkeys(train[:5] + test[:5]))
        )
        (tmp / "a.run").write_text(run)
        (tmp / "q.qrels").write_text("".join(f"{u} 0 {i} 1\n" for u, i in test))
        kw = {
            "train": tmp / "train.tsv",
            "test": tmp / "test.tsv",
            "qrels": tmp / "q.qrels",
            "runs": [tmp / "a.run"],
        }
        as_text = format_json(audit(**kw))
        old = ratings_fast.CODED_MIN_BYTES
        try:
            ratings_fast.CODED_MIN_BYTES = 0
            assert format_json(audit(**kw)) == as_text
        finally:
            ratings_fast.CODED_MIN_BYTES = old
