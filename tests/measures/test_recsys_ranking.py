"""Ranking extras against hand-computed worked examples and scipy.

The 10-document list used throughout (relevance by rank, 1 = relevant; R = 4 relevant, N = 6 not):

    rank  1 2 3 4 5 6 7 8 9 10
    rel   1 1 0 1 0 0 1 0 0 0

Its ROC / precision-recall threshold table (cut after rank j), computed by hand:

    j    TP FP  TPR   FPR   precision
    1    1  0   1/4   0     1
    2    2  0   2/4   0     1
    3    2  1   2/4   1/6   2/3
    4    3  1   3/4   1/6   3/4
    5    3  2   3/4   2/6   3/5
    6    3  3   3/4   3/6   1/2
    7    4  3   1     3/6   4/7
    8    4  4   1     4/6   1/2
    9    4  5   1     5/6   4/9
    10   4  6   1     1     2/5

AUC = area under the (FPR, TPR) steps = (2/4 + 3/4 + 3/4 + 1 + 1 + 1)/6 = 5/6; by pairs: the relevant
documents at ranks 1, 2, 4, 7 are above 6, 6, 5, 3 of the 6 non-relevant ones: 20/24 = 5/6.
AP = (1/1 + 2/2 + 3/4 + 4/7)/4 = 0.830357...
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from scipy import stats

from trecrs import evaluate

from ..warned import warned

PATTERN = [1, 1, 0, 1, 0, 0, 1, 0, 0, 0]
TPR = [1 / 4, 2 / 4, 2 / 4, 3 / 4, 3 / 4, 3 / 4, 1, 1, 1, 1]
FPR = [0, 0, 1 / 6, 1 / 6, 2 / 6, 3 / 6, 3 / 6, 4 / 6, 5 / 6, 1]
PREC = [1, 1, 2 / 3, 3 / 4, 3 / 5, 1 / 2, 4 / 7, 1 / 2, 4 / 9, 2 / 5]


def make(patterns: dict[str, list[int]], grades: dict[str, list[int]] | None = None, extra_rel=None):
    """qrels/run frames: query q ranks docs d01..dNN in order (scores descending); pattern = relevance."""
    qrels, run = [], []
    for q, pat in patterns.items():
        g = grades[q] if grades else pat
        for j, (r, v) in enumerate(zip(pat, g, strict=True)):
            doc = f"{q}_d{j + 1:02d}"
            run.append((q, doc, float(100 - j)))
            qrels.append((q, doc, int(v) if r else 0))
    for q, doc, v in extra_rel or []:
        qrels.append((q, doc, v))
    return (
        pl.DataFrame(qrels, schema=["query", "doc", "rel"], orient="row"),
        pl.DataFrame(run, schema=["query", "doc", "score"], orient="row"),
    )


def values(qrels, run, measures, *, said=(), **kw) -> dict[tuple[str, str], float]:
    """{(query, measure): value}; trec_eval measures, used as references, come from trec_eval's own code.
    ``said``: the patterns of the warnings the inputs give (:func:`tests.warned.warned`)."""
    kw.setdefault("engine", "pytrec_eval")
    with warned(*said):
        out = evaluate(qrels, run, measures, **kw).tidy()
    return {(q, m): v for q, m, v in out.iter_rows()}


def test_roc_and_precision_recall_threshold_tables():
    qrels, run = make({"u": PATTERN})
    ks = ",".join(str(k) for k in range(1, 11))
    got = values(qrels, run, [f"tpr.{ks}", f"fpr.{ks}", f"precision.{ks}", f"P.{ks}", "auc", "map"])
    for j in range(1, 11):
        assert got[("u", f"tpr_{j}")] == pytest.approx(TPR[j - 1])
        assert got[("u", f"fpr_{j}")] == pytest.approx(FPR[j - 1])
        assert got[("u", f"precision_{j}")] == pytest.approx(PREC[j - 1])
        assert got[("u", f"P_{j}")] == pytest.approx(PREC[j - 1])
    # AUC: trapezoids over the table's ROC points from (0, 0) equal the pair count
    xs, ys = np.array([0.0, *FPR]), np.array([0.0, *TPR])
    assert float(np.sum((xs[1:] - xs[:-1]) * (ys[1:] + ys[:-1]) / 2)) == pytest.approx(5 / 6)
    assert got[("u", "auc")] == pytest.approx(5 / 6)
    assert got[("u", "map")] == pytest.approx((1 + 1 + 3 / 4 + 4 / 7) / 4)


@pytest.mark.parametrize(
    "pattern,ap",
    [
        ([1, 0, 0, 1, 1, 0, 0, 0, 0, 0], 0.7),  # (1/1 + 2/4 + 3/5)/3
        ([0, 1, 1, 1, 0, 0, 0, 0, 0, 0], (1 / 2 + 2 / 3 + 3 / 4) / 3),  # 0.6389
    ],
)
def test_average_precision_worked_examples(pattern, ap):
    qrels, run = make({"u": pattern})
    got = values(qrels, run, ["map", "gmap", "hmap", "qmap"])
    assert got[("u", "map")] == pytest.approx(ap, abs=1e-12)
    assert round(ap, 3) in (0.7, 0.639)
    # one query: every mean of AP is AP
    for m in ("gmap", "hmap", "qmap"):
        assert got[("all", m)] == pytest.approx(ap, abs=1e-12)


def test_means_of_ap_across_queries():
    qrels, run = make({"a": [1, 0, 0, 1, 1], "b": [0, 1, 1, 1, 0], "c": [0, 0, 0, 0, 1]})
    got = values(qrels, run, ["map", "gm_map", "gmap", "hmap", "qmap"])
    ap = np.array([0.7, (1 / 2 + 2 / 3 + 3 / 4) / 3, 1 / 5])
    assert got[("all", "gmap")] == pytest.approx(float(np.exp(np.mean(np.log(ap)))))
    assert got[("all", "gmap")] == pytest.approx(got[("all", "gm_map")], abs=1e-12)  # trec_eval's gm_map
    assert got[("all", "hmap")] == pytest.approx(3 / float(np.sum(1 / ap)))
    assert got[("all", "qmap")] == pytest.approx(math.sqrt(float(np.mean(ap**2))))
    assert ("a", "gmap") not in got  # summary-only, like trec_eval's gm_map


def test_lauc_hand_value_and_schroder_properties():
    qrels, run = make({"u": PATTERN})
    got = values(qrels, run, ["lauc.3,10,20", "auc"])
    # k = 3: non-relevant at rank 3 with TPR 1/2 -> 1/2 * 1/6; then (1 - 1/6)(1/2 + 1)/2
    assert got[("u", "lauc_3")] == pytest.approx(1 / 12 + (5 / 6) * 1.5 / 2)
    # k >= |L_u|: the ROC curve reaches (1, 1) itself: LAUC = AUC
    assert got[("u", "lauc_10")] == pytest.approx(5 / 6)
    assert got[("u", "lauc_20")] == pytest.approx(got[("u", "auc")])

    # 1 when all relevant items are within the top k, ahead of the non-relevant ones
    qrels, run = make({"u": [1, 1, 1, 0, 0, 0, 0, 0]})
    for k in (3, 4, 8):
        assert values(qrels, run, [f"lauc.{k}"])[("u", f"lauc_{k}")] == pytest.approx(1.0)
    # 0 when the top k holds only non-relevant items and they fill it (all of L_u's non-relevant items)
    qrels, run = make({"u": [0, 0, 0, 0, 0, 1, 1]})
    assert values(qrels, run, ["lauc.5"])[("u", "lauc_5")] == pytest.approx(0.0)
    # only non-relevant in a top k that they do not fill: the straight line still gives (1 - k/N)/2
    assert values(qrels, run, ["lauc.2"])[("u", "lauc_2")] == pytest.approx((1 - 2 / 5) / 2)

    # a relevant item moving up raises LAUC (inside the top k and from below it into the top k)
    base = [0, 1, 0, 0, 1, 0, 0, 0, 1, 0]
    prev = None
    for moved in ([0, 1, 0, 0, 1, 0, 0, 0, 1, 0], [0, 1, 0, 1, 0, 0, 0, 0, 1, 0], [1, 0, 0, 1, 0, 0, 0, 0, 1, 0],
                  [1, 0, 1, 1, 0, 0, 0, 0, 0, 0]):  # fmt: skip
        assert sum(moved) == sum(base)
        qrels, run = make({"u": moved})
        v = values(qrels, run, ["lauc.4"])[("u", "lauc_4")]
        if prev is not None:
            assert v > prev
        prev = v


def test_auc_undefined_without_negatives_is_left_out_and_counted():
    from trecrs.evaluate import evaluate_full

    qrels, run = make({"a": [1, 1, 1], "b": [1, 0, 0]})
    ev = evaluate_full(qrels, run, ["auc"])
    pq = dict(zip(ev.per_query["query"].to_list(), ev.per_query["auc"].to_list(), strict=True))
    assert pq == {"a": None, "b": 1.0}
    assert ev.summary["auc"] == 1.0  # mean over the defined query only
    assert any("auc: undefined for 1 of 2 queries" in n for n in ev.notes)


def test_unretrieved_relevant_documents_rank_last():
    # relevant doc "u_z" is judged but not retrieved: it counts in R and sits below every retrieved doc
    qrels, run = make({"u": [1, 0, 1, 0]}, extra_rel=[("u", "u_z", 1)])
    got = values(qrels, run, ["auc", "tpr.4", "recall.4"])
    # pairs (rel, nonrel): rank1 above 2, rank3 above 1, unretrieved above 0 -> 3 / (3*2)
    assert got[("u", "auc")] == pytest.approx(0.5)
    assert got[("u", "tpr_4")] == pytest.approx(2 / 3) == got[("u", "recall_4")]


def _scipy_bool_tau(pattern, n_unretrieved_rel, k):
    # system score: rank order for the first k, everything else tied at the bottom
    n = len(pattern)
    sys = [-(j + 1) if (k is None or j < k) else -(10**9) for j in range(n)] + [-(10**9)] * n_unretrieved_rel
    ref = list(pattern) + [1] * n_unretrieved_rel
    return stats.kendalltau(sys, ref).statistic


@pytest.mark.parametrize("k", [None, 1, 3, 5, 9])
def test_boolean_kendall_tau_equals_scipy(k):
    rng = np.random.default_rng(7)
    patterns = {f"q{i}": list(rng.integers(0, 2, size=int(rng.integers(2, 12)))) for i in range(30)}
    patterns = {q: p for q, p in patterns.items() if 0 < sum(p) < len(p)}
    qrels, run = make(patterns, extra_rel=[("q1", "q1_unret", 1)] if "q1" in patterns else None)
    name = "ktau_bool" if k is None else f"ktau_bool.{k}"
    out = "ktau_bool" if k is None else f"ktau_bool_{k}"
    got = values(qrels, run, [name])
    for q, pat in patterns.items():
        want = _scipy_bool_tau(pat, 1 if q == "q1" else 0, k)
        if math.isnan(want):
            assert (q, out) not in got
        else:
            assert got[(q, out)] == pytest.approx(want, abs=1e-12), (q, pat)


def _ratings_case():
    # user u: test ratings a5 b4 c3 d3 e1; the run ranks b, a, c (d and e not retrieved); x is unrated
    test = pl.DataFrame({"user": ["u"] * 5, "item": list("abcde"), "rating": [5.0, 4.0, 3.0, 3.0, 1.0]})
    run = pl.DataFrame({"query": ["u"] * 4, "doc": ["b", "a", "x", "c"], "score": [4.0, 3.0, 2.5, 2.0]})
    qrels = pl.DataFrame({"query": ["u"] * 2, "doc": ["a", "b"], "rel": [5, 4]})
    return qrels, run, test


def test_ndpm_small_example():
    """Strict user preferences: ab ac ad ae bc bd be ce de (cd tied) = 9 = C^i. The system reverses ab
    (C- = 1) and ties d, e (both unretrieved: C^u = 1). NDPM = (2*1 + 1)/(2*9) = 1/6."""
    qrels, run, test = _ratings_case()
    got = values(qrels, run, ["ndpm"], test=test)
    assert got[("u", "ndpm")] == pytest.approx(1 / 6)
    assert got[("all", "ndpm")] == pytest.approx(1 / 6)


def test_rank_correlations_equal_scipy():
    qrels, run, test = _ratings_case()
    got = values(qrels, run, ["spearman_rho", "kendall_tau"], test=test)
    ratings = [5, 4, 3, 3, 1]
    system = [-2, -1, -4, -(10**9), -(10**9)]  # a at rank 2, b 1, c 4 (x is not rated), d e tied last
    assert got[("u", "kendall_tau")] == pytest.approx(stats.kendalltau(ratings, system).statistic, abs=1e-12)
    assert got[("u", "spearman_rho")] == pytest.approx(stats.spearmanr(ratings, system).statistic, abs=1e-12)

    rng = np.random.default_rng(3)
    rows, runs, expect = [], [], {}
    for u in range(25):
        n = int(rng.integers(2, 9))
        r = rng.integers(1, 6, size=n).astype(float)
        retrieved = rng.random(n) < 0.8
        retrieved[0] = True  # every user is an evaluated query
        score = rng.permutation(n).astype(float)
        rows += [(f"u{u}", f"i{i}", r[i]) for i in range(n)]
        runs += [(f"u{u}", f"i{i}", score[i]) for i in range(n) if retrieved[i]]
        system = [score[i] if retrieved[i] else -1e9 for i in range(n)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # constant input: scipy says undefined (nan), as trecrs does
            expect[f"u{u}"] = (stats.kendalltau(r, system).statistic, stats.spearmanr(r, system).statistic)
    test = pl.DataFrame(rows, schema=["user", "item", "rating"], orient="row")
    run = pl.DataFrame(runs, schema=["query", "doc", "score"], orient="row")
    qrels = test.select(
        pl.col("user").alias("query"),
        pl.col("item").alias("doc"),
        pl.col("rating").cast(pl.Int64).alias("rel"),
    )
    got = values(qrels, run, ["spearman_rho", "kendall_tau"], test=test)
    defined = 0
    for u, (want_k, want_s) in expect.items():
        for name, want in (("kendall_tau", want_k), ("spearman_rho", want_s)):
            if math.isnan(want):
                assert (u, name) not in got
            else:
                assert got[(u, name)] == pytest.approx(want, abs=1e-12), (u, name)
                defined += 1
    assert defined >= 40


def test_halflife_utility_hand_example():
    # qrels votes a5 b4 c1; run a, d (unjudged), b, e; alpha 5, neutral d 3
    qrels = pl.DataFrame({"query": ["u"] * 3, "doc": ["a", "b", "c"], "rel": [5, 4, 1]})
    run = pl.DataFrame({"query": ["u"] * 4, "doc": ["a", "d", "b", "e"], "score": [4.0, 3.0, 2.0, 1.0]})
    got = values(qrels, run, ["halflife.5,3", "halflife"])
    r_u = 2 / 2**0 + 1 / 2 ** (2 / 4)  # a at rank 1 (vote 5-3), b at rank 3 (vote 4-3)
    r_max = 2 / 2**0 + 1 / 2 ** (1 / 4)
    assert got[("u", "halflife_5,3")] == pytest.approx(r_u / r_max)
    # d = 0: every vote counts in full
    assert got[("u", "halflife")] == pytest.approx((5 + 4 / 2**0.5) / (5 + 4 / 2**0.25 + 1 / 2**0.5))


def test_halflife_summary_is_a_ratio_of_sums():
    qrels = pl.DataFrame({"query": ["u", "v", "v"], "doc": ["a", "b", "c"], "rel": [1, 1, 1]})
    run = pl.DataFrame(
        {"query": ["u", "u", "v", "v"], "doc": ["z", "a", "b", "c"], "score": [2.0, 1.0, 2.0, 1.0]}
    )
    got = values(qrels, run, ["halflife.2"])
    # u: a at rank 2 -> 1/2; max 1. v: perfect, 1 + 1/2 of 1 + 1/2. Breese: (1/2 + 3/2) / (1 + 3/2)
    assert got[("u", "halflife_2")] == pytest.approx(0.5)
    assert got[("all", "halflife_2")] == pytest.approx(2 / 2.5)


def test_ndcg_variants_hand_values():
    # graded: ranks 1..4 carry rel 3, 0, 2, 1; ideal 3, 2, 1
    qrels, run = make({"u": [1, 0, 1, 1]}, grades={"u": [3, 0, 2, 1]})
    got = values(qrels, run, ["ndcg_exp.2", "ndcg_exp", "ndcg_jk", "ndcg_jk.3,3", "ndcg", "ndcg_cut.2"])
    dcg2 = 7 / math.log2(2)
    idcg2 = 7 / math.log2(2) + 3 / math.log2(3)
    assert got[("u", "ndcg_exp_2")] == pytest.approx(dcg2 / idcg2)
    dcg = 7 + 3 / math.log2(4) + 1 / math.log2(5)
    idcg = 7 + 3 / math.log2(3) + 1 / math.log2(4)
    assert got[("u", "ndcg_exp")] == pytest.approx(dcg / idcg)
    # Järvelin-Kekäläinen, b = 2: ranks 1 and 2 undiscounted, then 1/log2(j)
    jk = 3 + 0 + 2 / math.log2(3) + 1 / math.log2(4)
    ijk = 3 + 2 + 1 / math.log2(3)
    assert got[("u", "ndcg_jk")] == pytest.approx(jk / ijk)
    # b = 3, cutoff 3: ranks 1..3 undiscounted (log3 j <= 1)
    assert got[("u", "ndcg_jk_3,3")] == pytest.approx((3 + 0 + 2) / (3 + 2 + 1))
    # linear gain with trec_eval's discount would be trec_eval's own ndcg: different numbers
    assert got[("u", "ndcg")] != pytest.approx(got[("u", "ndcg_exp")])


def test_reciprocal_rank_and_hit_rate_match_trec_eval():
    qrels, run = make({"a": [0, 0, 1, 0], "b": [1, 0, 0, 0], "c": [0, 0, 0, 0, 0, 1]})
    got = values(
        qrels,
        run,
        ["recip_rank_cut.2,5", "recip_rank_cut", "recip_rank", "hit_rate.1,5", "success.1,5"],
        said=["2 of 3 .* retrieve fewer than 5 documents"],
    )
    assert got[("a", "recip_rank_cut_2")] == 0.0 and got[("a", "recip_rank_cut_5")] == pytest.approx(1 / 3)
    for q in "abc":
        assert got[(q, "recip_rank_cut")] == pytest.approx(got[(q, "recip_rank")])
        for k in (1, 5):
            assert got[(q, f"hit_rate_{k}")] == got[(q, f"success_{k}")]
