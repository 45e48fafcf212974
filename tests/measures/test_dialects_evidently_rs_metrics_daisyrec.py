"""The ``evidently:``, ``rs_metrics:`` and ``daisyrec:`` dialects on lists small enough to compute by hand.

The golden files (tests/data/dialects/{evidently,rs_metrics,daisyrec}.json, checked per user by
test_dialects.py) hold the libraries' own values; here each new definition is checked against its
documented example, worked out by hand.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import trecrs
from trecrs.errors import UsageError
from trecrs.measures.dialects import parse_dialect

# lists shorter than the cutoff on purpose: the coverage warning is expected
pytestmark = pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
D = [1 / math.log2(j + 1) for j in range(1, 11)]  # the discount at ranks 1..10


def _values(qrels, run, names, **kw) -> dict[str, list]:
    res = trecrs.evaluate(qrels, run, names, **kw)
    return {c: res.per_query.get_column(c).to_list() for c in res.per_query.columns if c != "query"}


def _ranked(*items: str) -> dict[str, float]:
    return {i: float(len(items) - n) for n, i in enumerate(items)}


def test_daisyrec_map_and_ndcg_are_normalised_by_the_hits():
    qrels = {"u": {i: 1 for i in "abcde"}, "v": {i: 1 for i in "abcde"}, "w": {"a": 1}}
    run = {
        "u": _ranked("x", "a", "y", "z", "w"),
        "v": _ranked("a", "x", "y", "b", "z"),
        "w": _ranked("x", "y"),
    }
    got = _values(
        qrels, run, ["daisyrec:MAP@5", "map_cut.5", "daisyrec:NDCG@5", "ndcg_cut.5", "daisyrec:F1@5", "f1.5"]
    )
    assert got["daisyrec:MAP@5"] == pytest.approx([1 / 2, (1 + 2 / 4) / 2, 0.0])  # one hit at rank 2: 1/2
    assert got["map_cut_5"] == pytest.approx([1 / 10, 0.3, 0.0])
    assert got["daisyrec:NDCG@5"] == pytest.approx([D[1] / D[0], (D[0] + D[3]) / (D[0] + D[1]), 0.0])
    assert got["ndcg_cut_5"][1] == pytest.approx((D[0] + D[3]) / sum(D[:5]))
    # F1 = 2h/(|L_k| + |R|), no value without a hit (DaisyRec: NaN), where f1.k gives 0
    assert got["daisyrec:F1@5"] == pytest.approx([2 / 10, 4 / 10, None])
    assert got["f1_5"][2] == 0.0


def test_daisyrec_one_hit_at_the_top_is_a_perfect_ndcg():
    got = _values({"u": {i: 1 for i in "abcde"}}, {"u": _ranked("a", "x", "y", "z", "w")},
                  ["daisyrec:NDCG@5", "ndcg_cut.5", "daisyrec:AUC@5"])  # fmt: skip
    assert got["daisyrec:NDCG@5"] == [1.0]
    assert got["ndcg_cut_5"] == pytest.approx([1 / sum(D[:5])])  # 0.339
    assert got["daisyrec:AUC@5"] == [1.0]  # the hit above the 4 misses


def test_rs_metrics_popularity_is_the_share_of_training_users():
    train = pl.DataFrame({"user": ["1", "2", "3", "4"], "item": ["p", "p", "p", "q"], "rating": [1, 1, 1, 1]})
    got = _values({"u": {"p": 1}}, {"u": _ranked("p", "new")}, ["rs_metrics:popularity@2", "epc.2",
                  "rs_metrics:surprisal@2"], train=train)  # fmt: skip
    assert got["rs_metrics:popularity@2"] == pytest.approx([(3 / 4 + 0) / 2])  # an unrated item counts 0
    assert got["epc_2"] == pytest.approx([1 - 0.375])
    assert got["rs_metrics:surprisal@2"] == pytest.approx([(-math.log2(3 / 4) + math.log2(4)) / 2])


def test_rs_metrics_precision_divides_by_the_list_and_its_prefix_takes_an_underscore():
    got = _values({"u": {"a": 1, "b": 1}}, {"u": _ranked("a", "x", "b")}, ["rs_metrics:precision@5", "P.5"])
    assert got == {"P_5": [0.4], "rs_metrics:precision@5": [2 / 3]}
    with pytest.raises(UsageError, match="known: "):
        parse_dialect("rs_metrics:map@5")


def test_evidently_counts_the_missed_relevant_items_after_the_list():
    """Three non-relevant items and one missed relevant one: E = x, y, z, m (m at rank 4)."""
    names = ["evidently:MAP@10", "evidently:PrecisionTopK@10", "evidently:RecallTopK@10", "evidently:HitRate@3",
             "evidently:HitRate@10", "evidently:NDCGKMetric@10", "evidently:MRRKMetric@10", "evidently:MARKMetric@10",
             "recall.10"]  # fmt: skip
    got = _values({"u": {"m": 1}}, {"u": _ranked("x", "y", "z")}, names)
    # MAP: P_4·rel_4 = 1/4, then six more ranks past the last row repeat it: (1/4 + 6/4)/1
    assert got["evidently:MAP@10"] == pytest.approx([1.75])
    assert got["evidently:MARKMetric@10"] == pytest.approx([7.0])  # (1 + 6·1)/1²: recall 1 at rank 4
    assert got["evidently:PrecisionTopK@10"] == pytest.approx([1 / 4])  # / min(10, 4 rows)
    assert got["evidently:RecallTopK@10"] == [1.0] and got["recall_10"] == [0.0]
    assert got["evidently:HitRate@3"] == [0.0] and got["evidently:HitRate@10"] == [1.0]
    assert got["evidently:NDCGKMetric@10"] == pytest.approx([D[3]])
    assert got["evidently:MRRKMetric@10"] == pytest.approx([1 / 4])


def test_evidently_new_api_labels_ndcg_and_mrr_one_rank_late():
    qrels = {"u": {"b": 1, "c": 1}}
    run = {"u": _ranked("a", "b", "c", "d")}
    got = _values(qrels, run, ["evidently:NDCG@1", "evidently:NDCG@3", "evidently:NDCGKMetric@2",
                               "evidently:MRR@2", "evidently:MRRKMetric@2", "evidently:MAP@2", "evidently:MAPKMetric@2"])  # fmt: skip
    assert "evidently:NDCG@1" not in got  # the new API has no row 1: no value for any user, no column
    assert got["evidently:NDCG@3"] == got["evidently:NDCGKMetric@2"] == pytest.approx([D[1] / (D[0] + D[1])])
    assert got["evidently:MRR@2"] == [0.0] and got["evidently:MRRKMetric@2"] == [0.5]
    assert got["evidently:MAP@2"] == got["evidently:MAPKMetric@2"] == pytest.approx([(1 / 2) / 2])


def test_evidently_fbeta_is_the_f_of_the_mean_precision_and_recall():
    qrels = {"u": {"a": 1}, "v": {"a": 1, "b": 1, "c": 1, "d": 1}, "w": {"q": 0}}
    run = {"u": _ranked("a", "x"), "v": _ranked("a", "x"), "w": _ranked("x", "y")}
    names = [
        "evidently:FBetaTopK@2",
        "evidently:FBetaTopK(beta=2)@2",
        "evidently:FBetaTopK(no_feedback_users=True)@2",
    ]
    res = trecrs.evaluate(qrels, run, names)
    p, r = (1 / 2 + 1 / 2) / 2, (1 + 1 / 4) / 2  # the means over u and v (w has no relevant item)
    assert res.summary["evidently:FBetaTopK@2"] == pytest.approx(2 * p * r / (p + r))
    assert res.summary["evidently:FBetaTopK(beta=2)@2"] == pytest.approx(5 * p * r / (4 * p + r))
    p3, r3 = 1 / 3, (1 + 1 / 4) / 3  # w counts 0 in both means
    assert res.summary["evidently:FBetaTopK(no_feedback_users=True)@2"] == pytest.approx(
        2 * p3 * r3 / (p3 + r3)
    )
    assert all(n not in res.per_query.columns for n in names)  # no per-user value
