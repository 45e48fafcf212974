"""The ``implicit:`` and ``lightfm:`` names and the measures they introduced (``auc_topk_catalog``,
``precision_tied``, ``recall_tied``, ``recip_rank_tied``, ``auc_tied``) on hand-computed cases.

Ten items ``a``..``j`` form the catalogue (``items=``); the values are worked out from the formulas of
implicit 0.7.3's ``evaluation.pyx`` and LightFM 1.17's ``evaluation.py`` / ``_lightfm_fast.pyx.template``.
"""

from __future__ import annotations

import pytest

from trecrs import evaluate

from ..warned import warned

ITEMS = list("abcdefghij")


def _values(qrels, run, names):
    res = evaluate(qrels, run, names, relevance_level=1, items=ITEMS)
    return {r["query"]: r for r in res.per_query.to_dicts()}, res.summary


def test_implicit_auc_counts_a_short_lists_missing_places_as_misses():
    """R = {a, c}. Top 3 = [a, x, y]: misses x, y count 1 hit above each, the 8 − 2 = 6 other negatives
    (1 + 2)/2 each: (2 + 9)/(2·8) = 11/16. A list [a] alone at k = 3 has two missing places, each a miss
    below one hit: the same 11/16. Precision = 1/min(3, 2), MAP = 1/min(3, 2), nDCG = 1/(1 + 1/log2 3)."""
    qrels = {"u": {"a": 1, "c": 1}, "v": {"a": 1, "c": 1}}
    run = {"u": {"a": 3.0, "d": 2.0, "e": 1.0}, "v": {"a": 1.0}}
    rows, _ = _values(qrels, run, ["implicit:AUC_at_k@3", "implicit:precision_at_k@3",
                                   "implicit:mean_average_precision_at_k@3", "implicit:ndcg_at_k@3"])  # fmt: skip
    for user in ("u", "v"):
        assert rows[user]["implicit:AUC_at_k@3"] == pytest.approx(11 / 16, abs=1e-15)
        assert rows[user]["implicit:precision_at_k@3"] == pytest.approx(0.5, abs=1e-15)
        assert rows[user]["implicit:mean_average_precision_at_k@3"] == pytest.approx(0.5, abs=1e-15)
        assert rows[user]["implicit:ndcg_at_k@3"] == pytest.approx(1 / (1 + 1 / 1.584962500721156), abs=1e-12)


def test_lightfm_counts_a_tie_against_the_item():
    """a, b (relevant) tied at 0.9, c at 0.5: each of a, b has one other item scored >= it, rank 1, so
    precision@1 = 0 where trec_eval's P.1 = 1; precision@2 = 2/2; reciprocal rank 1/(1 + 1) = 0.5. AUC over the
    10 items (8 negatives): ranks 1, 1 sorted, minus 0 and 1: (1 − 1/8 + 1 − 0/8)/2 = 15/16."""
    rows, _ = _values({"u": {"a": 1, "b": 1}}, {"u": {"a": 0.9, "b": 0.9, "c": 0.5}},
                      ["P.1", "lightfm:precision_at_k@1", "lightfm:precision_at_k@2", "lightfm:recall_at_k@1",
                       "lightfm:reciprocal_rank", "lightfm:auc_score"])  # fmt: skip
    r = rows["u"]
    assert (r["P_1"], r["lightfm:precision_at_k@1"], r["lightfm:recall_at_k@1"]) == (1.0, 0.0, 0.0)
    assert r["lightfm:precision_at_k@2"] == 1.0
    assert r["lightfm:reciprocal_rank"] == 0.5
    assert r["lightfm:auc_score"] == pytest.approx(15 / 16, abs=1e-15)


def test_lightfm_ties_scores_equal_as_float32():
    """0.1 and 0.1 + 1e-10 are one float32: a tie, so the relevant item's rank is 1 whichever way it sorts."""
    rows, _ = _values({"u": {"a": 1}}, {"u": {"a": 0.1, "b": 0.1 + 1e-10}}, ["lightfm:reciprocal_rank"])
    assert rows["u"]["lightfm:reciprocal_rank"] == 0.5


def test_lightfm_ranks_missed_items_below_every_other_item():
    """R = {a, b}, neither listed ([x, y]): each ties with the 7 unlisted items and is below the 2 listed, rank
    n − 1 = 9. Reciprocal rank 1/10; recall@10: 9 < 10, both found; precision@10 = 2/10; AUC (8 negatives)
    = (1 − 9/8 + 1 − 8/8)/2 = −1/16, below 0. A user without a relevant item has no value."""
    with warned("have no relevant document"):
        rows, summary = _values({"u": {"a": 1, "b": 1}, "w": {"a": 0}}, {"u": {"c": 2.0, "d": 1.0}, "w": {"a": 1.0}},
                            ["lightfm:reciprocal_rank", "lightfm:recall_at_k@10", "lightfm:precision_at_k@10",
                             "lightfm:recall_at_k@9", "lightfm:auc_score"])  # fmt: skip
    r = rows["u"]
    assert r["lightfm:reciprocal_rank"] == pytest.approx(0.1, abs=1e-15)
    assert (r["lightfm:recall_at_k@10"], r["lightfm:recall_at_k@9"]) == (1.0, 0.0)
    assert r["lightfm:precision_at_k@10"] == pytest.approx(0.2, abs=1e-15)
    assert r["lightfm:auc_score"] == pytest.approx(-1 / 16, abs=1e-15)
    assert "w" not in rows or rows["w"].get("lightfm:auc_score") is None
    assert summary["lightfm:auc_score"] == pytest.approx(-1 / 16, abs=1e-15)
