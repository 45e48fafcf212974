"""Beyond-accuracy extras against hand-computed values.

Training ratings (user: items): u1: a b c, u2: a b, u3: a, u4: d  -> popularity a 3, b 2, c 1, d 1; 4 users.
Run top-2 lists: u1 -> a, e; u2 -> a, b; u3 -> c, a (e has no training rating). Catalogue = {a, b, c, d, e}.
Recommendation counts in the top 2: a 3, b 1, c 1, e 1, d 0.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from trecrs.measures.recsys import gini_index, popularity_strata, shannon_entropy

from .test_recsys_ranking import values

TRAIN = pl.DataFrame(
    {
        "user": ["u1", "u1", "u1", "u2", "u2", "u3", "u4"],
        "item": list("abcabad"),
        "rating": [5.0, 4, 3, 5, 2, 4, 1],
    }
)
RUN = pl.DataFrame(
    {
        "query": ["u1", "u1", "u1", "u2", "u2", "u3", "u3"],
        "doc": ["a", "e", "d", "a", "b", "c", "a"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
    }
)
QRELS = pl.DataFrame({"query": ["u1", "u2", "u3", "u9"], "doc": ["e", "b", "x", "a"], "rel": [1, 1, 1, 1]})
U9 = ["1 of 4 .* qrels queries have no line in the run"]  # u9, as evaluate says


def test_gini_and_entropy_reference_values():
    assert gini_index(np.full(7, 4.0)) == pytest.approx(0.0)
    assert gini_index(np.array([0, 0, 0, 5.0])) == pytest.approx(3 / 4)  # (n-1)/n
    for n in (1, 2, 8, 1000):
        assert shannon_entropy(np.full(n, 3.0)) == pytest.approx(math.log2(n))
    assert shannon_entropy(np.array([0, 0, 9.0])) == 0.0
    # sorted 0 1 1 1 3: sum (2i-n-1) x_i = (-4)0 + (-2)1 + 0*1 + 2*1 + 4*3 = 12; n * sum = 5 * 6
    assert gini_index(np.array([3, 1, 1, 1, 0.0])) == pytest.approx(12 / 30)


def test_concentration_and_coverage_from_a_run():
    got = values(QRELS, RUN, ["gini.2", "entropy.2", "catalog_coverage.2,1", "user_coverage", "arp.2", "novelty.2"],
                 train=TRAIN, said=U9)  # fmt: skip
    assert got[("all", "gini_2")] == pytest.approx(12 / 30)
    p = np.array([3, 1, 1, 1]) / 6
    assert got[("all", "entropy_2")] == pytest.approx(float(-np.sum(p * np.log2(p))))
    assert got[("all", "catalog_coverage_2")] == pytest.approx(4 / 5)  # a b c e of a b c d e
    assert got[("all", "catalog_coverage_1")] == pytest.approx(2 / 5)  # a, c
    # u1, u2, u3 recommended; u9 is a qrels query without a ranking
    assert got[("all", "user_coverage")] == pytest.approx(3 / 4)
    # ARP: u1 (3 + 0)/2, u2 (3 + 2)/2, u3 (1 + 3)/2
    assert got[("u1", "arp_2")] == pytest.approx(1.5)
    assert got[("all", "arp_2")] == pytest.approx((1.5 + 2.5 + 2.0) / 3)
    # novelty: -log2(pop/4); u1 has only a (e unknown, left out)
    sa, sb, sc = -math.log2(3 / 4), -math.log2(2 / 4), -math.log2(1 / 4)
    assert got[("u1", "novelty_2")] == pytest.approx(sa)
    assert got[("u2", "novelty_2")] == pytest.approx((sa + sb) / 2)
    assert got[("u3", "novelty_2")] == pytest.approx((sc + sa) / 2)
    assert ("all", "gini_2") in got and ("u1", "gini_2") not in got  # global measures: summary only


def test_missing_training_ratings_is_a_clear_error():
    from trecrs.errors import UsageError

    with pytest.raises(UsageError, match=r"novelty_2 needs the training ratings \(train=\)"):
        values(QRELS, RUN, ["novelty.2"], said=U9)


def test_prediction_coverage_from_run_and_from_predictions():
    test = pl.DataFrame({"user": ["u1", "u1", "u2", "u2", "u2"], "item": list("edbzy"), "rating": [4.0] * 5})
    got = values(QRELS, RUN, ["prediction_coverage"], test=test, said=U9)
    assert got[("u1", "prediction_coverage")] == 1.0  # e and d retrieved
    assert got[("u2", "prediction_coverage")] == pytest.approx(1 / 3)  # b of b z y
    assert ("u3", "prediction_coverage") not in got  # no test rating: undefined
    assert got[("all", "prediction_coverage")] == pytest.approx(3 / 5)  # pooled
    pred = pl.DataFrame(
        {"user": ["u1", "u2", "u2"], "item": ["e", "z", "y"], "score": [3.0, 2.0, float("nan")]}
    )
    got = values(QRELS, RUN, ["prediction_coverage"], test=test, predictions=pred, said=U9)
    assert got[("u1", "prediction_coverage")] == 0.5 and got[("u2", "prediction_coverage")] == pytest.approx(
        1 / 3
    )


def test_popularity_strata_and_stratified_recall():
    # 10 items with counts 30 20 10 10 5 5 5 5 5 5 (total 100): the head holds the top 33% of ratings.
    counts = [30, 20, 10, 10, 5, 5, 5, 5, 5, 5]
    rows = [(f"u{j}", f"i{i}", 3.0) for i, c in enumerate(counts) for j in range(c)]
    train = pl.DataFrame(rows, schema=["user", "item", "rating"], orient="row")
    strata = dict(popularity_strata(train).select("item", "stratum").iter_rows())
    # cumulative share 0.30, 0.50: i1 reaches 33% -> c* = 20 -> head = {i0, i1}
    assert {i for i, s in strata.items() if s == "head"} == {"i0", "i1"}
    # a share reached inside a tie group splits it by item id (i2 and i3 at 10): 30 + 20 + 10 >= 55
    strata = dict(popularity_strata(train, 0.55).select("item", "stratum").iter_rows())
    assert {i for i, s in strata.items() if s == "head"} == {"i0", "i1", "i2"}

    qrels = pl.DataFrame({"query": ["u"] * 4, "doc": ["i0", "i5", "i6", "new"], "rel": [1, 1, 1, 1]})
    run = pl.DataFrame({"query": ["u"] * 4, "doc": ["i5", "i0", "i9", "new"], "score": [4.0, 3.0, 2.0, 1.0]})
    got = values(qrels, run, ["recall_head.2", "recall_tail.2,4", "precision_tail.2", "precision_head.2"],
                 train=train)  # fmt: skip
    assert got[("u", "recall_head_2")] == 1.0  # i0 of {i0}
    assert got[("u", "recall_tail_2")] == pytest.approx(1 / 3)  # i5 of {i5, i6, new (no training ratings)}
    assert got[("u", "recall_tail_4")] == pytest.approx(2 / 3)
    assert got[("u", "precision_tail_2")] == 0.5 and got[("u", "precision_head_2")] == 0.5
