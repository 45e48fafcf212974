"""The ``recommenders:`` names (Microsoft Recommenders 1.2.1) and the measures they introduced (``r_prec_hit``,
``catalog_coverage_train``, ``novelty_pooled``) on hand-computed cases."""

from __future__ import annotations

import math

import polars as pl
import pytest

from trecrs import evaluate

# u: R = {a, c, e}, list x, a, y, c; v: R = {b}, list x, b
QRELS = {"u": {"a": 1, "c": 1, "e": 1}, "v": {"b": 1}}
RUN = {"u": {"x": 4.0, "a": 3.0, "y": 2.0, "c": 1.0}, "v": {"x": 2.0, "b": 1.0}}
# training ratings: a twice, b, c, d once each (5 ratings, 4 training items)
TRAIN = pl.DataFrame(
    [("t1", "a", 1), ("t2", "a", 1), ("t1", "b", 1), ("t2", "c", 1), ("t3", "d", 1)],
    schema=["user", "item", "rating"],
    orient="row",
)


def test_r_precision_at_k_leaves_out_a_user_without_a_hit_in_its_first_r_places():
    """u: the first min(4, 3) = 3 places x, a, y hold a: 1/3; v: the first min(4, 1) = 1 place x holds none:
    no value, and the mean is u's alone (Recommenders' ``.mean()`` skips the NaN)."""
    res = evaluate(QRELS, RUN, ["recommenders:r_precision_at_k@4", "recommenders:precision_at_k@4"],
                   relevance_level=1)  # fmt: skip
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    assert rows["u"]["recommenders:r_precision_at_k@4"] == pytest.approx(1 / 3, abs=1e-15)
    assert rows["v"].get("recommenders:r_precision_at_k@4") is None
    assert res.summary["recommenders:r_precision_at_k@4"] == pytest.approx(1 / 3, abs=1e-15)
    assert res.summary["recommenders:precision_at_k@4"] == pytest.approx((2 / 4 + 1 / 4) / 2, abs=1e-15)


def test_map_divides_by_r_and_map_at_k_by_min_r_k():
    """u at k = 2: a at rank 2, P@2 = 1/2; ``map`` / |R| = 1/6, ``map_at_k`` / min(3, 2) = 1/4."""
    res = evaluate({"u": QRELS["u"]}, {"u": RUN["u"]}, ["recommenders:map@2", "recommenders:map_at_k@2"],
                   relevance_level=1)  # fmt: skip
    assert res.summary["recommenders:map@2"] == pytest.approx(1 / 6, abs=1e-15)
    assert res.summary["recommenders:map_at_k@2"] == pytest.approx(1 / 4, abs=1e-15)


def test_ndcg_at_k_raw_takes_the_rating_as_gain():
    """R = {a: 5, b: 4}, list b, x, a: DCG = 4/log2 2 + 5/log2 4, ideal 5/log2 2 + 4/log2 3 (the base of the
    logarithm cancels); ``exp``: gains 15 and 31; binary: (1 + 1/2)/(1 + 1/log2 3)."""
    names = ["recommenders:ndcg_at_k(score_type=raw)@3", "recommenders:ndcg_at_k(score_type=exp)@3",
             "recommenders:ndcg_at_k@3"]  # fmt: skip
    res = evaluate(
        {"u": {"a": 5, "b": 4, "c": 2}}, {"u": {"b": 3.0, "x": 2.0, "a": 1.0}}, names, relevance_level=4
    )
    log3 = math.log2(3)
    assert res.summary[names[0]] == pytest.approx((4 + 5 / 2) / (5 + 4 / log3), abs=1e-12)
    assert res.summary[names[1]] == pytest.approx((15 + 31 / 2) / (31 + 15 / log3), abs=1e-12)
    assert res.summary[names[2]] == pytest.approx((1 + 1 / 2) / (1 + 1 / log3), abs=1e-12)


def test_beyond_accuracy_names_pool_every_recommendation():
    """Top 2 lists [x, a], [x, b]: distinct {x, a, b} over the 4 training items = 0.75 (x counted though no
    one rated it); novelty: a −log2(2/4) = 1, b −log2(1/4) = 2, x (no training rating) 0, over 4
    recommendations = 3/4; distributional coverage: p = 1/2, 1/4, 1/4, entropy 1.5 bits."""
    names = [
        "recommenders:catalog_coverage@2",
        "recommenders:novelty@2",
        "recommenders:distributional_coverage@2",
    ]
    res = evaluate(QRELS, RUN, names, relevance_level=1, train=TRAIN)
    assert res.summary[names[0]] == pytest.approx(0.75, abs=1e-15)
    assert res.summary[names[1]] == pytest.approx((math.log2(5 / 2) + math.log2(5)) / 4, abs=1e-15)
    assert res.summary[names[2]] == pytest.approx(1.5, abs=1e-15)


def test_diversity_and_serendipity_use_the_training_co_occurrence():
    """Training: t1 rated a, b; t2 a, c; t3 b: n_a = n_b = 2, n_c = 1, co(a, b) = co(a, c) = 1, co(b, c) = 0.
    u's list a, b, c: 1 − (1/2 + 1/√2 + 0)/3. t1's list c, x: c against t1's a, b: 1 − (1/√2 + 0)/2, x (no
    training user) 1, mean of the two; u has no training items: no serendipity."""
    train = pl.DataFrame([("t1", "a"), ("t1", "b"), ("t2", "a"), ("t2", "c"), ("t3", "b")], schema=["user", "item"],
                         orient="row").with_columns(pl.lit(1).alias("rating"))  # fmt: skip
    qrels = {"u": {"a": 1}, "t1": {"c": 1}}
    run = {"u": {"a": 3.0, "b": 2.0, "c": 1.0}, "t1": {"c": 2.0, "x": 1.0}}
    names = ["recommenders:diversity@3", "recommenders:serendipity@3"]
    res = evaluate(qrels, run, names, relevance_level=1, train=train)
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    assert rows["u"][names[0]] == pytest.approx(1 - (0.5 + 2**-0.5) / 3, abs=1e-15)
    assert rows["t1"][names[0]] == pytest.approx(1 - 0.0, abs=1e-15)  # c, x: never rated together
    assert rows["t1"][names[1]] == pytest.approx((1 - 2**-0.5 / 2 + 1) / 2, abs=1e-15)
    assert rows["u"].get(names[1]) is None
