"""Recommender measures, aliases, ir_measures names and framework dialects under ``ties=expected|best|worst``,
against the enumeration of every tie order (tests/ties_reference.py), as tests/engines/test_ties.py does for
trec_eval's measures; and the refusals and order-free measures."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings

import trecrs
from trecrs.errors import UsageError

from ..engines.test_ties import flags, pairs
from ..ties_reference import ORDERS_MAX, assert_close, count, enumerate_modes
from ..warned import recorded

EXPECTED = ["precision.2", "tpr.3", "fpr.2", "fnr.2", "npv.2", "tnr.2", "f1.2", "f_beta.2,0.5", "informedness.2",
            "markedness.2", "mcc.2", "f1_cut.2", "recip_rank_cut.2", "hit_rate.1,3", "ndcg_exp.3", "ndcg_jk.3,2",
            "ndcg_jk", "recall_cap.2", "precision_cut.2", "map_cap.3", "map_cap_ret.3", "dcg_jk.3", "rbp_cut.3,0.8",
            "HR@2", "MRR@3", "nDCG@3", "F1@2", "AP@3", "P(rel=2)@2", "RR(rel=2)", "nDCG(judged_only=True)@3",
            "recbole:hit@2", "recbole:mrr@3", "lenskit:NDCG@3", "lenskit:Recall@2", "elliot:nDCG@3"]  # fmt: skip
EXTREMES = ["auc", "lauc.3", "ktau_bool.3", "mean_p_cut.3", "mean_r_cut.3", "gauc"]


def _check(qrels, run, measures, f, mode):
    want = enumerate_modes(qrels, run, measures, **f)[mode]
    with recorded():
        got = trecrs.evaluate(qrels, run, measures, ties=mode, **f).to_dict()
    assert_close(got, want, context=(mode, f, qrels, run))


@pytest.mark.parametrize("mode", ["expected", "best", "worst"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs(), f=flags())
def test_recommender_measures_equal_the_enumeration(mode, data, f):
    _enumerated(mode, data, f)


def _enumerated(mode, data, f):
    qrels, run = data
    if count(run) > ORDERS_MAX:
        return
    measures = EXPECTED + (EXTREMES if mode != "expected" else [])
    if f["depth"] is not None:  # refused: which documents -M keeps decides which are judged, or the list's TN
        negatives = (
            "fpr",
            "npv",
            "tnr",
            "informedness",
            "markedness",
            "mcc",
            "auc",
            "lauc",
            "ktau_bool",
            "gauc",
        )
        measures = [m for m in measures if "judged_only" not in m and m.split(".")[0] not in negatives]
    _check(qrels, run, measures, f, mode)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["expected", "best", "worst"])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs(), f=flags())
def test_recommender_measures_equal_the_enumeration_at_length(mode, data, f):
    _enumerated(mode, data, f)


def test_order_free_measures_are_unchanged():
    """Error measures and whole-list beyond-accuracy measures do not depend on the order within a list."""
    qrels = {"u1": {"a": 1, "c": 1}, "u2": {"x": 1}}
    run = {"u1": {"a": 1.0, "b": 1.0, "c": 0.5}, "u2": {"x": 0.2, "y": 0.2}}
    train = pl.DataFrame({"user": ["u1", "u2", "u3"], "item": ["b", "c", "y"], "rating": [4.0, 5.0, 3.0]})
    measures = ["novelty", "arp", "user_coverage", "catalog_coverage", "gini"]
    with recorded():
        base = trecrs.evaluate(qrels, run, measures, train=train)
        for mode in ("expected", "best", "worst"):
            got = trecrs.evaluate(qrels, run, measures, train=train, ties=mode)
            assert got.summary == base.summary
            assert got.to_dict() == base.to_dict()


@pytest.mark.parametrize(
    ("measure", "mode"),
    [
        ("ndpm", "best"),
        ("err.10", "expected"),
        ("novelty.10", "worst"),
        ("auc", "expected"),
        ("gmap", "expected"),
        ("epc_rel", "best"),
    ],
)
def test_measures_without_a_form_are_refused(measure, mode):
    with pytest.raises(UsageError, match=f"no tie-aware form for --ties {mode}"):
        trecrs.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [measure], ties=mode, test=_ratings("q", "a"),
                        train=_ratings("q", "b"))  # fmt: skip


def test_true_negatives_under_depth_are_refused():
    for measure, mode in (("mcc.2", "expected"), ("fpr.2", "worst"), ("auc", "best")):
        with pytest.raises(
            UsageError, match=f"measure {measure.replace('.', '_')} has no tie-aware form for --ties {mode}"
        ):
            trecrs.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [measure], ties=mode, depth=5)


def test_whole_list_measures_under_depth_are_refused():
    """-M under a tie mode keeps the top of a tie group it cuts by that mode's order: a whole-list measure's
    items would depend on it."""
    with pytest.raises(UsageError, match="measure novelty has no tie-aware form for --ties best"):
        trecrs.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["novelty"], ties="best", depth=5,
                        train=_ratings("q", "b"))  # fmt: skip


def _ratings(user: str, item: str) -> pl.DataFrame:
    return pl.DataFrame({"user": [user], "item": [item], "rating": [4.0]})
