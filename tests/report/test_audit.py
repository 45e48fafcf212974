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
    pop = good.with_columns(
        pl.lit(1.0).alias("score")
    )  # every item tied, and every count 0: TopPop's own order
    f = by_id(audit(qrels=qrels, train=train, runs={"pop": pop}, measures=["P.2"]), run="pop", measure="P_2")[
        "baselines"
    ]
    assert f.severity == "info" and "TopPop" in f.values["not_beaten"] and f.values["popularity_baseline"]
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
