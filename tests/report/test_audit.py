"""``trecrs.audit``: every finding counted exactly on inputs with planted flaws, clean inputs clean, the counts
equal a direct computation on random splits (hypothesis), the report the same whatever the line order."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trecrs.ordering import trec_order
from trecrs.report.audit import CHECKS, audit, format_json, format_markdown, format_text
from trecrs.report.stats import detectable_dz, paired_t_power

from ..warned import warned

JSON_KEYS = {"id", "severity", "count", "of", "example", "source", "advice"}


def ratings(rows) -> pl.DataFrame:
    """``(user, item, rating, timestamp)`` rows as a ratings frame."""
    return pl.DataFrame(rows, schema={"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64, "timestamp": pl.Int64},
                        orient="row")  # fmt: skip


def run_frame(rows) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"query": pl.Utf8, "doc": pl.Utf8, "score": pl.Float64}, orient="row")


def qrels_frame(rows) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"query": pl.Utf8, "doc": pl.Utf8, "rel": pl.Int64}, orient="row")


def by_id(result, run=None, measure=None) -> dict:
    return {f.id: f for f in result.findings if f.run == run and f.measure == measure}


# A temporal split of three users: every training rating before every test rating.
CLEAN_TRAIN = ratings([("u1", "a", 4, 10), ("u1", "b", 3, 11), ("u2", "a", 5, 12), ("u2", "c", 2, 13),
                       ("u3", "b", 4, 14), ("u3", "d", 1, 15)])  # fmt: skip
CLEAN_TEST = ratings([("u1", "c", 5, 20), ("u2", "b", 4, 21), ("u3", "a", 5, 22)])


def test_a_clean_split_gives_no_error_or_warning():
    result = audit(train=CLEAN_TRAIN, test=CLEAN_TEST)
    assert [f.id for f in result.findings if f.count and f.severity != "info"] == []
    assert {f.id for f in result.findings} == {"overlap", "test-before-train-user", "future-training", "cold-users",
                                               "cold-items"}  # fmt: skip
    assert not result.failed
    assert {s["id"] for s in result.skipped} == set(CHECKS) - {f.id for f in result.findings}


def test_planted_split_flaws_are_counted_exactly():
    train = ratings([("u1", "a", 4, 10), ("u1", "b", 3, 30), ("u2", "a", 5, 12), ("u2", "c", 2, 13),
                     ("u3", "b", 4, 40), ("u3", "d", 1, 15)])  # fmt: skip
    test = ratings([
        ("u1", "a", 4, 20),  # overlap; before u1's latest training rating (30)
        ("u1", "c", 5, 25),  # before 30
        ("u2", "c", 1, 21),  # overlap
        ("u3", "e", 5, 22),  # before 40; item e has no training rating
        ("u4", "e", 3, 50),  # cold user, cold item
        ("u4", "a", 4, 51),  # cold user
    ])  # fmt: skip
    f = by_id(audit(train=train, test=test))
    assert (f["overlap"].count, f["overlap"].of, f["overlap"].severity) == (2, 6, "error")
    assert f["overlap"].example == "user u1, item a"
    assert (f["test-before-train-user"].count, f["test-before-train-user"].of) == (3, 6)
    # the oldest test rating is at 20: training ratings at 30 and 40 are newer
    assert (f["future-training"].count, f["future-training"].of, f["future-training"].severity) == (
        2,
        6,
        "warning",
    )
    assert (f["cold-users"].count, f["cold-users"].of, f["cold-users"].example) == (1, 4, "user u4")
    assert (f["cold-items"].count, f["cold-items"].of) == (2, 6)
    assert by_id(audit(train=train, test=test, random_split=True))["future-training"].severity == "info"


def test_runs_candidates_and_one_plus_random_flaws():
    train = ratings([("u1", "a", 4, 1), ("u1", "b", 3, 2), ("u2", "c", 5, 3)])
    test = ratings([("u1", "x", 5, 9), ("u1", "y", 4, 9), ("u1", "z", 2, 9), ("u2", "y", 5, 9)])
    candidates = pl.DataFrame(
        {
            "query": ["u1:x"] * 4 + ["u1:y"] * 3 + ["u2:y"] * 3,
            "user": ["u1"] * 7 + ["u2"] * 3,
            "item": ["x", "y", "z", "a", "y", "x", "q", "y", "c", "x"],
        }
    )  # u1:x holds y (relevant: 4 >= 4), z (2: not relevant) and a (training); u1:y holds x; u2:y holds c (training)
    qrels = qrels_frame([("u1:x", "x", 5), ("u1:y", "y", 4), ("u2:y", "y", 5), ("u3:w", "w", 1)])
    run = run_frame([("u1:x", "x", 2.0), ("u1:x", "y", 3.0), ("u1:x", "a", 2.0), ("u1:x", "z", 1.0),
                     ("u1:y", "y", 1.0), ("u1:y", "x", 0.5), ("u9:v", "v", 1.0)])  # fmt: skip
    result = audit(train=train, test=test, qrels=qrels, candidates=candidates, runs={"r": run}, items=list("xyzaqc"),
                   measures=["P.2"])  # fmt: skip
    f, per_run = by_id(result), by_id(result, run="r")
    assert (f["candidate-in-train"].count, f["candidate-in-train"].of) == (2, 10)
    assert (f["negative-is-positive"].count, f["negative-is-positive"].of) == (2, 7)  # y in u1:x, x in u1:y
    assert f["negative-is-positive"].example == "query u1:x: item y, rated 4 in the test set"
    assert (per_run["missing-users"].count, per_run["missing-users"].of) == (2, 4)  # u2:y, u3:w
    assert (per_run["extra-users"].count, per_run["extra-users"].of) == (1, 3)  # u9:v
    assert (per_run["seen-items"].count, per_run["seen-items"].of) == (1, 7)
    assert per_run["seen-items"].example == "query u1:x, doc a (user u1)"
    # at P.2's cutoff: u1:x ranks y, then x (relevant) and a tied across rank 2: their order moves P_2
    ties = per_run["ties-at-cutoff"]
    assert (ties.count, ties.of) == (1, 3)
    assert ties.values == {"cutoff": 2, "straddled": 1, "truncated": 0, "values_move": 1, "evaluated": 2}
    assert ties.example == "query u1:x: 2 documents tied at ranks 2 to 3, across rank 2"
    assert (per_run["unknown-items"].count, per_run["unknown-items"].of) == (1, 7)
    assert result.failed


def test_the_report_does_not_depend_on_the_line_order():
    train = ratings(
        [(f"u{u}", f"i{(u * 7 + k) % 13}", 1 + k % 5, 100 * u + k) for u in range(9) for k in range(6)]
    )
    test = ratings(
        [
            (f"u{u}", f"i{(u * 3 + k) % 13}", 1 + (u + k) % 5, 450 + 10 * k)
            for u in range(10)
            for k in range(3)
        ]
    )
    shuffled = [df.sample(fraction=1.0, shuffle=True, seed=3) for df in (train, test)]
    assert format_json(audit(train=train, test=test)) == format_json(
        audit(train=shuffled[0], test=shuffled[1])
    )


# --------------------------------------------------------------------------------------------- measures


def test_detectable_difference_matches_g_power():
    """G*Power (paired t, two-sided, alpha 0.05, power 0.8): dz 0.5 needs 34 pairs, 0.8 needs 15, 0.2 needs 199."""
    for dz, n in ((0.5, 34), (0.8, 15), (0.2, 199)):
        assert detectable_dz(n) < dz < detectable_dz(n - 1)
    assert paired_t_power(0.5, 34) == pytest.approx(0.8078, abs=1e-4)
    assert paired_t_power(detectable_dz(50), 50) == pytest.approx(0.8, abs=1e-9)
    assert math.isnan(detectable_dz(1))


def _ranked_qrels_and_runs():
    qrels = qrels_frame([(f"u{u}", f"i{(u + k) % 7}", 1) for u in range(12) for k in range(2)])
    train = ratings([(f"u{u}", f"i{i}", 4, 1) for u in range(12) for i in range(7, 9 + u % 3)])
    good = run_frame([(f"u{u}", f"i{i}", 10.0 - (i - u) % 7) for u in range(12) for i in range(7)])
    return qrels, train, good


def test_power_is_the_paired_t_test_at_the_run_s_sd():
    qrels, train, run = _ranked_qrels_and_runs()
    result = audit(qrels=qrels, runs={"good": run}, measures=["P.3"])
    f = by_id(result, run="good", measure="P_3")["power"]
    import trecrs

    values = trecrs.evaluate(qrels, run, ["P.3"]).per_query.get_column("P_3").to_numpy()
    sd = values.std(ddof=1)
    assert (f.count, f.of) == (12, 12)
    assert f.values["sd"] == pytest.approx(sd, rel=1e-12)
    assert f.values["detectable_difference"] == pytest.approx(
        detectable_dz(12) * math.sqrt(2) * sd, rel=1e-12
    )


def test_baselines_warn_when_a_run_does_not_beat_toppop():
    qrels, train, good = _ranked_qrels_and_runs()
    # TopPop over the same items: the training counts of i0..i6 are all 0, so its order is doc id descending
    result = audit(qrels=qrels, train=train, runs={"good": good}, measures=["P.2"])
    f = by_id(result, run="good", measure="P_2")["baselines"]
    assert (f.count, f.of, f.severity) == (0, 2, "info")
    assert f.values["run"] == 1.0
    # every item tied, every count 0: TopPop's order too, but no popularity order to recognise in it
    pop = good.with_columns(pl.lit(1.0).alias("score"))
    f = by_id(audit(qrels=qrels, train=train, runs={"pop": pop}, measures=["P.2"]), run="pop", measure="P_2")[
        "baselines"
    ]
    assert f.severity == "warning" and "TopPop" in f.values["not_beaten"]
    assert "popularity_baseline" not in f.values
    assert f.values["run"] == f.values["TopPop"]


def test_a_run_ranking_by_training_popularity_is_the_popularity_baseline():
    """TopPop's score is the number of training ratings (a: 3, b: 1, c: 0): a run ranking a, b, c in that
    order does not beat TopPop because it is TopPop (a note saying so); a run ranking them otherwise and
    not beating TopPop is the warning; every item tied puts c, b, a first (document id descending)."""
    qrels = qrels_frame([(f"u{u}", "a", 1) for u in range(6)])
    train = ratings([("v0", "a", 4, 1), ("v1", "a", 4, 1), ("v1", "b", 4, 1), ("v2", "a", 4, 1)])
    counts = {"a": 3.0, "b": 1.0, "c": 0.0}
    runs = {
        "toppop": run_frame([(f"u{u}", i, c) for u in range(6) for i, c in counts.items()]),
        "anti": run_frame([(f"u{u}", i, -c) for u in range(6) for i, c in counts.items()]),
        "tied": run_frame([(f"u{u}", i, 1.0) for u in range(6) for i in counts]),
    }
    result = audit(qrels=qrels, train=train, runs=runs, measures=["P.1"])
    pop = by_id(result, run="toppop", measure="P_1")["baselines"]
    assert (pop.severity, pop.values["run"], pop.values["TopPop"]) == ("info", 1.0, 1.0)
    assert pop.values["popularity_baseline"] is True and "TopPop" in pop.values["not_beaten"]
    assert "it is the popularity baseline" in pop.detail and pop.advice.startswith("nothing to fix")
    for name in ("anti", "tied"):
        f = by_id(result, run=name, measure="P_1")["baselines"]
        assert (f.severity, f.values["run"], f.values["TopPop"]) == ("warning", 0.0, 1.0)
        assert "popularity_baseline" not in f.values and f.detail == ""
    text = format_text(result)
    assert "INFO    baselines [toppop] [P_1]: 1 of 2 baselines (50.0%)" in text
    assert "WARNING baselines [anti] [P_1]: " in text


# --------------------------------------------------------------------------------------------- output


def test_json_text_and_markdown_carry_the_same_findings():
    train = ratings([("u1", "a", 4, 10), ("u2", "a", 4, 10)])
    test = ratings([("u1", "a", 4, 20), ("u3", "b", 4, 30)])
    result = audit(train=train, test=test)
    doc = json.loads(format_json(result))
    assert set(doc) == {"findings", "skipped"}
    for f in doc["findings"]:
        assert JSON_KEYS <= set(f) and f["severity"] in ("error", "warning", "info")
        assert isinstance(f["count"], int) and isinstance(f["of"], int)
    assert doc["findings"][0]["id"] == "overlap"  # worst first
    text, md = format_text(result), format_markdown(result)
    assert text.startswith("trecrs audit: 1 error, 1 warning, 1 note\n")
    assert "ERROR   overlap: 1 of 2 test pairs (50.0%)" in text and "e.g. user u1, item a" in text
    assert (
        "| error | `overlap` |" in md
        and "Not run: `id-form`, `seen-items`, `ties-at-cutoff` (need a RUN)." in md
    )


# --------------------------------------------------------------------------------------------- properties

ids = st.sampled_from([f"{c}{n}" for c in "uv" for n in range(4)])
items = st.sampled_from([f"i{n:02d}" for n in range(8)])
rows = st.lists(st.tuples(ids, items, st.integers(1, 5), st.integers(0, 20)), min_size=1, max_size=40)


def _dedupe(r):
    return ratings(list({(u, i): (u, i, float(x), t) for u, i, x, t in r}.values()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows,
    rows,
    st.lists(st.tuples(ids, items, st.sampled_from([0.5, 1.0, 2.0])), max_size=40),
    st.integers(1, 4),
)
def test_counts_equal_a_direct_computation(train_rows, test_rows, run_rows, k):
    train, test = _dedupe(train_rows), _dedupe(test_rows)
    run = run_frame(list({(q, d): (q, d, s) for q, d, s in run_rows}.values()))
    result = audit(train=train, test=test, runs={"r": run} if run.height else None, measures=[f"P.{k}"])
    f = by_id(result) | by_id(result, run="r")
    tr, te = {(u, i) for u, i, *_ in train.rows()}, {(u, i) for u, i, *_ in test.rows()}
    assert f["overlap"].count == len(tr & te)
    last = {}
    for u, _, _, t in train.rows():
        last[u] = max(last.get(u, t), t)
    assert f["test-before-train-user"].count == sum(u in last and t < last[u] for u, _, _, t in test.rows())
    oldest = min(t for *_, t in test.rows())
    assert f["future-training"].count == sum(t > oldest for *_, t in train.rows())
    users = {u for u, _ in tr}
    assert f["cold-users"].count == len({u for u, _ in te} - users)
    assert f["cold-items"].count == sum(i not in {i for _, i in tr} for _, i in te)
    # the examples: the smallest offending pair (ids bytewise), decoded from the audit's integer codes
    both = min(tr & te, default=None)
    assert f["overlap"].example == (f"user {both[0]}, item {both[1]}" if both else "")
    older = min(((u, i, t) for u, i, _, t in test.rows() if u in last and t < last[u]), default=None)
    assert f["test-before-train-user"].example == (
        f"user {older[0]}, item {older[1]}: rated at {older[2]}, the user's latest training rating at "
        f"{last[older[0]]}" if older else "")  # fmt: skip
    newer = min(((u, i, t) for u, i, _, t in train.rows() if t > oldest), default=None)
    assert f["future-training"].example == (
        f"user {newer[0]}, item {newer[1]}: rated at {newer[2]}, after the oldest test rating ({oldest})"
        if newer else "")  # fmt: skip
    cold = sorted({u for u, _ in te} - users)
    assert f["cold-users"].example == (f"user {cold[0]}" if cold else "")
    cold_pair = min(((u, i) for u, i in te if i not in {i for _, i in tr}), default=None)
    assert f["cold-items"].example == (f"user {cold_pair[0]}, item {cold_pair[1]}" if cold_pair else "")
    if run.height:
        assert f["seen-items"].count == sum((q, d) in tr for q, d, _ in run.rows())
        ordered = trec_order(run)
        straddled = truncated = 0
        for _, g in ordered.group_by("query"):
            s = g.get_column("score").cast(pl.Float32).to_numpy()
            straddled += bool(s.size > k and s[k - 1] == s[k])
            truncated += bool(s.size == k > 1 and s[k - 2] == s[k - 1])  # a list cut inside a tie group
        assert f["ties-at-cutoff"].count == straddled + truncated
        assert f["ties-at-cutoff"].values["truncated"] == truncated
        assert f["ties-at-cutoff"].of == run.get_column("query").n_unique()


def test_a_large_split_is_checked_in_seconds():
    """200k ratings: the split checks take well under a second (the slow suite's ML-20M-sized run is in
    tests/cli/test_audit.py)."""
    import time

    rng = np.random.default_rng(0)
    n = 200_000
    df = pl.DataFrame({"user": rng.integers(0, 5000, n).astype(str), "item": rng.integers(0, 3000, n).astype(str),
                       "rating": rng.integers(1, 6, n).astype(float), "timestamp": rng.integers(0, 10**9, n)})  # fmt: skip
    df = df.unique(["user", "item"])
    cut = df.height * 4 // 5
    t0 = time.perf_counter()
    result = audit(train=df.slice(0, cut), test=df.slice(cut))
    assert time.perf_counter() - t0 < 5.0
    assert by_id(result)["overlap"].count == 0


def test_a_random_split_is_declared_by_its_manifest(tmp_path):
    """trecrs split's manifests say whether the method ignores time: kfold does, loo --pick latest does not."""
    from trecrs import split_file
    from trecrs.report.audit import declared_random_split

    rows = [(f"u{u}", f"i{i}", 3.0, 100 * u + i) for u in range(4) for i in range(5)]
    (tmp_path / "r.tsv").write_text("".join(f"{u}\t{i}\t{r:g}\t{t}\n" for u, i, r, t in rows))
    split_file(tmp_path / "r.tsv", tmp_path / "k", "kfold", seed=1, folds=2)
    split_file(tmp_path / "r.tsv", tmp_path / "l", "loo", pick="latest")
    kfold = sorted((tmp_path / "k").glob("*train*"))[0]
    assert declared_random_split(kfold) and not declared_random_split(tmp_path / "l" / "train")
    assert not declared_random_split(tmp_path / "r.tsv")  # no manifest


# --------------------------------------------------------------------------------------------- ids, ties, details


def test_id_key_sets_the_number_s_form_apart():
    from trecrs.report.audit_ids import form_matches, id_key

    ids = ["u1", "1.0", "001", "1", "user_7", "242.0", "2.5", "u1:242", "abc", "inf", "i01", "u001"]
    got = pl.DataFrame({"id": ids}).select(id_key(pl.col("id")), id_key(pl.col("id"), bare=True).alias("b"))
    assert got.get_column("id").to_list() == ["u1", "1", "1", "1", "user_7", "242", "2.5", "u1:242", "abc", "inf",
                                              "i1", "u1"]  # fmt: skip
    assert got.get_column("b").to_list() == [
        "1",
        "1",
        "1",
        "1",
        "7",
        "242",
        "2.5",
        "u1:242",
        "abc",
        "inf",
        "1",
        "1",
    ]
    refs = [("--train", pl.Series(["1", "u2", "v3", "i04"])), ("--qrels", pl.Series(["5"]))]
    run = pl.Series(["1", "u1", "2", "u2.0", "u3", "i4", "5.0", "x"])
    found = form_matches(run, refs).sort("id").rows()
    # u1 has a prefix 1 has not; 2 lacks u2's; u2.0 writes u2's number otherwise; i4 is i04; u3 is not v3
    assert found == [("2", "u2", "--train"), ("5.0", "5", "--qrels"), ("i4", "i04", "--train"),
                     ("u1", "1", "--train"), ("u2.0", "u2", "--train")]  # fmt: skip


def test_ids_that_differ_only_in_form_are_an_error_and_other_runs_are_still_checked():
    """Items written 242.0 (training 242) and users u1 (qrels 1): every line escapes seen-items; the run
    whose queries match nothing gets no power or baselines (with the reason), the good run gets both."""
    train = ratings([("1", "242", 4, 1), ("1", "7", 3, 2), ("2", "242", 5, 3)])
    qrels = qrels_frame([("1", "9", 1), ("2", "7", 1)])
    good = run_frame([("1", "9", 2.0), ("1", "8", 1.0), ("2", "7", 1.0)])
    floats = run_frame([("1", "242.0", 3.0), ("1", "9", 2.0), ("2", "8", 1.0)])
    prefixed = run_frame([("u1", "9", 2.0), ("u1", "8", 1.0), ("u2", "7", 1.0)])
    result = audit(train=train, qrels=qrels, runs={"good": good, "floats": floats, "prefixed": prefixed},
                   measures=["P.1"])  # fmt: skip
    f = {name: by_id(result, run=name)["id-form"] for name in ("good", "floats", "prefixed")}
    assert (f["good"].count, f["good"].of) == (0, 3)
    assert (f["floats"].count, f["floats"].of, f["floats"].severity) == (1, 3, "error")
    assert f["floats"].example == "document 242.0 of floats is item 242 of --train"
    assert f["floats"].values == {"query_ids": 0, "doc_ids": 1}
    seen = by_id(result, run="floats")["seen-items"]  # (1, 242.0) is the training pair (1, 242)
    assert (seen.count, seen.values, seen.example) == (1, {"by_form": 1}, "query 1, doc 242.0")
    assert seen.detail == "1 of them only once ids are compared by form (see id-form)"
    assert by_id(result, run="good")["seen-items"].values == {}
    # its items have no training count as written: no popularity order to recognise, so TopPop's warning
    floats_base = by_id(result, run="floats", measure="P_1")["baselines"]
    assert (floats_base.severity, floats_base.values["run"], floats_base.values["TopPop"]) == (
        "warning",
        0.0,
        0.5,
    )
    assert "popularity_baseline" not in floats_base.values
    assert (f["prefixed"].count, f["prefixed"].of) == (3, 3)
    assert f["prefixed"].example == "query u1 of prefixed is query 1 of --qrels"
    assert result.failed
    assert {(s["id"], s.get("run")) for s in result.skipped if "reason" in s} == {
        ("power", "prefixed"),
        ("baselines", "prefixed"),
    }
    assert by_id(result, run="good", measure="P_1")["power"].count == 2
    text = format_text(result)
    assert "ERROR   id-form [prefixed]: 3 of 3 run lines (100.0%)" in text
    assert (
        "not run: " in text
        and "power [prefixed], baselines [prefixed] (prefixed: no queries with both" in text
    )


def test_ties_at_cutoff_counts_lists_cut_inside_a_tie_and_says_what_eval_counts():
    """k = 2. q1: a tie across rank 2 of a relevant and a non-relevant document (eval's warning counts it);
    q2: a tie across rank 2 of two non-relevant documents; q3: two documents, tied (a list cut inside a
    tie group); q4: a tie across rank 2, not in the qrels (not evaluated); q5: no tie."""
    qrels = qrels_frame([("q1", "b", 1), ("q2", "a", 1), ("q3", "a", 1), ("q5", "a", 1)])
    run = run_frame([("q1", "a", 3.0), ("q1", "b", 2.0), ("q1", "c", 2.0),
                     ("q2", "a", 3.0), ("q2", "b", 2.0), ("q2", "c", 2.0),
                     ("q3", "a", 1.0), ("q3", "b", 1.0),
                     ("q4", "a", 3.0), ("q4", "b", 2.0), ("q4", "c", 2.0),
                     ("q5", "a", 3.0), ("q5", "b", 2.0), ("q5", "c", 1.0)])  # fmt: skip
    f = by_id(audit(qrels=qrels, runs={"r": run}, measures=["P.2"]), run="r")["ties-at-cutoff"]
    assert (f.count, f.of) == (4, 5)  # q1, q2, q4 across rank 2; q3 cut inside a tie
    assert f.values == {"cutoff": 2, "straddled": 3, "truncated": 1, "values_move": 1, "evaluated": 4}
    assert f.detail == (
        "3 of 5 run queries have a tie group across rank 2; in 1 of them the tied documents differ in "
        "relevance (what trecrs eval's tie warning counts, of 4 evaluated queries); 1 more lists end inside a "
        "tie group at rank 2"
    )
    import trecrs

    # eval's tie warning counts values_move of the evaluated queries (its wording: either version of it)
    with warned(r"straddle cutoff 2 in 1 of 4 (evaluated )?queries", r"1 of 5 .* run queries have no qrels"):
        trecrs.evaluate(qrels, run, ["P.2"])
    only_cut = by_id(audit(runs={"r": run.filter(pl.col("query") == "q3")}, measures=["P.2"]), run="r")
    assert only_cut["ties-at-cutoff"].example == "query q3: its 2 documents end with 2 tied at ranks 1 to 2"


def test_extra_users_say_whether_ids_or_relevance_are_why():
    """u2 is a test user with no relevant rating (no qrels line); x9 is no test user."""
    test = ratings([("u1", "a", 5, 1), ("u2", "b", 2, 1)])
    qrels = qrels_frame([("u1", "a", 5)])
    run = run_frame([("u1", "a", 1.0), ("u2", "a", 1.0), ("x9", "a", 1.0)])
    f = by_id(audit(test=test, qrels=qrels, runs={"r": run}), run="r")["extra-users"]
    assert (f.count, f.of) == (2, 3)
    assert f.values == {"no_relevant_test_rating": 1, "unmatched": 1}
    assert f.detail == ("1 users of --test with no qrels line (no relevant test rating: trec_eval leaves them "
                        "out); 1 queries whose user is not in --test (ids that match nothing)")  # fmt: skip
    assert f.advice == CHECKS["extra-users"].advice
    quiet = by_id(audit(test=test, qrels=qrels, runs={"r": run.head(2)}), run="r")["extra-users"]
    assert quiet.values == {"no_relevant_test_rating": 1, "unmatched": 0} and quiet.advice.startswith(
        "nothing"
    )
    alone = by_id(audit(qrels=qrels, runs={"r": run}), run="r")["extra-users"]
    assert "without --test" in alone.detail


def test_candidate_lines_and_distinct_pairs_and_same_second_timestamps():
    """(u1, a) is a training pair and a candidate of two queries: 2 lines, 1 distinct pair. u1's latest
    training rating is at 5: a test rating at 5 is not counted, one at 4 is; the oldest test rating is at 4:
    a training rating at 4 is not counted, one at 5 is."""
    train = ratings([("u1", "a", 4, 5), ("u1", "b", 4, 4), ("u2", "c", 4, 1)])
    test = ratings([("u1", "x", 4, 5), ("u1", "y", 4, 4), ("u2", "z", 4, 6)])
    candidates = pl.DataFrame(
        {"query": ["q1", "q2", "q2"], "user": ["u1", "u1", "u1"], "item": ["a", "a", "x"]}
    )
    f = by_id(audit(train=train, test=test, candidates=candidates))
    c = f["candidate-in-train"]
    assert (c.count, c.of, c.values) == (2, 3, {"distinct_pairs": 1, "of_distinct_pairs": 2})
    assert c.detail == "1 of 2 distinct (user, item) pairs"
    before = f["test-before-train-user"]
    assert (before.count, before.values["same_second"]) == (
        1,
        1,
    )  # (u1, y) counted; (u1, x) at the same second
    assert before.detail.startswith(
        "1 more test ratings at the same second as the user's latest training rating"
    )
    future = f["future-training"]
    assert (future.count, future.values["same_second"]) == (
        1,
        1,
    )  # (u1, a) at 5 > 4; (u1, b) at 4 not counted
    assert "1 more training ratings at the second of the oldest test rating" in future.detail


def test_every_count_is_within_its_base():
    """The invariant the report relies on: a finding's count is a subset of its ``of``."""
    from trecrs.report.audit import _finding
    from trecrs.report.audit_registry import Outcome

    with pytest.raises(AssertionError, match="count 3 above its base 2"):
        _finding(CHECKS["power"], Outcome(3, 2), "r")


def test_markdown_cells_hold_their_pipes():
    """A run name and an example with ``|``: every row of the table has the header's cells."""
    import re

    train = ratings([("1", "a|b", 4, 1)])
    run = run_frame([("1", "a|b", 1.0), ("1", "c", 0.5)])
    md = format_markdown(audit(train=train, runs={"x|y.run": run}))
    rows = [line for line in md.splitlines() if line.startswith("|")]
    cells = [re.split(r"(?<!\\)\|", line.strip())[1:-1] for line in rows]
    assert len(rows) >= 3 and {len(c) for c in cells} == {9}
    seen = next(c for c in cells if "`seen-items`" in c[1])
    assert (seen[2].strip(), seen[6].strip()) == (r"x\|y.run", r"query 1, doc a\|b")


def test_a_rating_without_a_timestamp_is_named_in_a_frame():
    train = ratings([("u1", "a", 4, 1), ("u1", "b", 4, None)])
    skipped = {s["id"]: s for s in audit(train=train, test=ratings([("u1", "c", 4, 2)])).skipped}
    assert skipped["future-training"]["reason"] == "row 2 of the ratings given: a rating without a timestamp"
    assert skipped["test-before-train-user"]["needs"] == "timestamps on every rating of --train and --test"
