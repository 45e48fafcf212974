"""Cornac's measures (trecrs/measures/recsys/cornac.py): the worked examples of docs/measures.md.

The golden file tests/data/dialects/cornac.json checks every ``cornac:`` name on the shared fixture, whose
training ratings (all 1) are below its relevance level, so there every item is a candidate. Here the
user's training positives leave the candidates; the values of ``test_full_ranking_of_the_candidates``
are Cornac 3.0.1's own (``BaseMethod.evaluate`` with ``rating_threshold=3``: tests/dialects/
make_golden_cornac.py prints them, ``example()``).
"""

from __future__ import annotations

import polars as pl
import pytest

import trecrs

# u's training: g rated 5 (a positive: never a candidate), h rated 1 (a candidate); v makes a..h known
TRAIN = pl.DataFrame(
    [("u", "g", 5.0), ("u", "h", 1.0)] + [("v", i, 1.0) for i in "abcdefh"],
    schema=["user", "item", "rating"], orient="row",
)  # fmt: skip
QRELS = {"u": {"a": 4, "b": 5, "c": 1}}
RUN = {"u": {"d": 3.0, "a": 2.0, "e": 1.0}}


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_full_ranking_of_the_candidates():
    """Candidates a..h but g; full ranking d a e, then c f h (non-relevant), then b: ranks 1..7."""
    names = [
        "cornac:MRR",
        "cornac:AUC",
        "cornac:MAP",
        "cornac:NCRR@3",
        "recip_rank_full",
        "auc_full",
        "map_full",
    ]
    res = trecrs.evaluate(QRELS, RUN, names, relevance_level=3, train=TRAIN).summary
    assert res["cornac:MRR"] == res["recip_rank_full"] == 0.5
    assert (
        res["cornac:AUC"] == res["auc_full"] == pytest.approx(0.4)
    )  # a above e, c, f, h of 5 negatives; b none
    assert res["cornac:MAP"] == res["map_full"] == pytest.approx((1 / 2 + 2 / 7) / 2)  # a at 2, b at 7
    assert res["cornac:NCRR@3"] == pytest.approx((1 / 2) / (1 + 1 / 2))


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_a_listed_training_positive_stays_a_listed_non_relevant_document():
    """The run lists g, u's training positive (Cornac never ranks it), then d: g keeps rank 1, then come
    the unlisted candidates, c e f h (non-relevant), then a and b."""
    res = trecrs.evaluate(QRELS, {"u": {"g": 2.0, "d": 1.0}}, ["recip_rank_full", "auc_full", "map_full"],
                          relevance_level=3, train=TRAIN).summary  # fmt: skip
    # full ranking: g d | c e f h | a b  (8 documents: g listed, 7 candidates)
    assert res["recip_rank_full"] == pytest.approx(1 / 7)
    assert res["auc_full"] == 0.0
    assert res["map_full"] == pytest.approx((1 / 7 + 2 / 8) / 2)


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_the_full_ranking_equals_trec_eval_when_the_run_lists_every_candidate():
    run = {"u": {"d": 7.0, "a": 6.0, "e": 5.0, "c": 4.0, "b": 3.0, "f": 2.0, "h": 1.0}}
    res = trecrs.evaluate(QRELS, run, ["recip_rank_full", "auc_full", "map_full", "recip_rank", "auc", "map"],
                          relevance_level=3, train=TRAIN).summary  # fmt: skip
    assert res["recip_rank_full"] == res["recip_rank"] == 0.5
    assert res["auc_full"] == pytest.approx(res["auc"]) and res["map_full"] == pytest.approx(res["map"])


def test_ncrr_worked_example_and_ties():
    """Relevant a, b, c; ranking x a y b: CRR@3 = 1/2, ideal over min(3, 3) ranks; CRR@4 = 1/2 + 1/4."""
    res = trecrs.evaluate({"q": {"a": 1, "b": 1, "c": 1}}, {"q": {"x": 4.0, "a": 3.0, "y": 2.0, "b": 1.0}},
                          ["ncrr.1,3,4", "ncrr"]).summary  # fmt: skip
    h3 = 1 + 1 / 2 + 1 / 3
    assert res["ncrr_1"] == 0.0
    assert res["ncrr_3"] == pytest.approx(0.5 / h3)
    assert res["ncrr_4"] == res["ncrr"] == pytest.approx(0.75 / h3)
    tied = {"q": {"a": 1.0, "b": 1.0}}  # trec_eval's order: b (docno descending), then a
    got = {t: trecrs.evaluate({"q": {"a": 1}}, tied, ["ncrr.2"], ties=t).summary["ncrr_2"]
           for t in ("trec_eval", "expected", "best")}  # fmt: skip
    assert got == {"trec_eval": 0.5, "expected": 0.75, "best": 1.0}
