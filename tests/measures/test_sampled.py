"""Sampled metrics against exact ones (Krichene & Rendle, KDD 2020): the sampling distribution, the
corrections, and the ranks of One-Plus-Random cases on a small split with tied scores."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import hypergeom

from trecrs.measures.recsys.sampled import (
    case_ranks,
    corrected_values,
    estimate_all,
    hit,
    ndcg,
    opr_candidates,
    sampling_matrix,
)

TARGETS = (("recall", 1), ("recall", 5), ("ndcg", 5))


def test_one_relevant_item_metrics():
    assert hit(np.array([1, 5, 6]), 5).tolist() == [1.0, 1.0, 0.0]
    assert ndcg(np.array([1, 3, 6]), 5).tolist() == [1.0, 0.5, 0.0]  # 1/log2(4) = 0.5


def test_sampling_matrix_is_the_hypergeometric_distribution():
    a = sampling_matrix(40, 7)
    assert a.shape == (40, 8)
    assert np.allclose(a.sum(axis=1), 1.0)
    for rank in (1, 2, 17, 40):
        assert np.allclose(a[rank - 1], hypergeom.pmf(np.arange(8), 39, rank - 1, 7))
    assert a[0, 0] == pytest.approx(1.0) and a[39, 7] == pytest.approx(1.0)  # first and last stay there


def test_sampling_matrix_against_simulation():
    """r - 1 = the drawn items among the R - 1 ranked above: 20,000 seeded draws of m = 10 of 49."""
    n, m, rank = 50, 10, 21
    rng = np.random.default_rng(2020)
    others = np.arange(2, n + 1)  # exact ranks of the other items; the target is at `rank`
    draws = np.array(
        [
            (rng.choice(np.where(others <= rank, others - 1, others), m, replace=False) < rank).sum()
            for _ in range(20_000)
        ]
    )
    freq = np.bincount(draws, minlength=m + 1) / draws.size
    assert np.abs(freq - sampling_matrix(n, m)[rank - 1]).max() < 0.01


@pytest.mark.parametrize("lam", [0.0, 0.1, 1.0])
def test_no_sampling_corrections_are_exact(lam):
    """m = n - 1: r = R, A is the identity and every correction is the metric itself."""
    n = 30
    assert np.allclose(sampling_matrix(n, n - 1), np.eye(n))
    x = corrected_values(n, n - 1, TARGETS, lam)
    assert np.allclose(x[("recall", 5)], hit(np.arange(1, n + 1), 5))
    assert np.allclose(x[("ndcg", 5)], ndcg(np.arange(1, n + 1), 5))


def test_bias_variance_has_less_bias_than_the_sampled_metric():
    """A synthetic rank distribution (most relevant items near the top, a long tail), n = 1000, m = 100:
    the expected BV estimate is closer to the exact metric than the expected sampled metric (the paper's
    Figure 4 finding), computed exactly from P(r | R)."""
    n, m = 1000, 100
    p = 1.0 / np.arange(1, n + 1) ** 0.8
    p /= p.sum()
    a = sampling_matrix(n, m)
    for metric, fn in (("recall", hit), ("ndcg", ndcg)):
        exact = p @ fn(np.arange(1, n + 1), 10)
        sampled = p @ (a @ fn(np.arange(1, m + 2), 10))
        bv = p @ (a @ corrected_values(n, m, ((metric, 10),), 0.1)[(metric, 10)])
        assert abs(bv - exact) < abs(sampled - exact) / 5
        assert sampled > exact  # sampling inflates top-k metrics


# --------------------------------------------------------------------------------------------- a small split


def small_split(users=5, items=30, seed=3):
    """Ratings with several 5s per user, and scores on a 0.1 grid (ties broken by item id descending)."""
    rng = np.random.default_rng(seed)
    train, test, scores = [], [], []
    for u in range(1, users + 1):
        rated = rng.choice(items, 12, replace=False) + 1
        for j, i in enumerate(rated):
            (test if j < 4 else train).append((str(u), str(i), 5.0 if j < 3 else 3.0))
        for i in range(1, items + 1):
            scores.append((str(u), str(i), float(rng.integers(0, 10)) / 10))
    schema = {"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64}
    return (
        pl.DataFrame(train, schema=schema, orient="row"),
        pl.DataFrame(test, schema=schema, orient="row"),
        pl.DataFrame(scores, schema={"user": pl.Utf8, "item": pl.Utf8, "score": pl.Float64}, orient="row"),
    )


def exact_ranks_by_hand(train, test, scores, user, target, drop_other_tests=False):
    """The target's rank among I minus the user's training items, score desc then item id desc bytewise."""
    train_items = set(train.filter(pl.col("user") == user)["item"])
    others = set(test.filter(pl.col("user") == user)["item"]) - {target} if drop_other_tests else set()
    rows = [(np.float32(s), i) for u, i, s in scores.rows() if u == user and i not in train_items | others]
    rows.sort(key=lambda t: t[1].encode(), reverse=True)  # ties: item id descending, bytewise ("30" > "3")
    rows.sort(key=lambda t: -t[0])  # stable: score descending
    return [i for _, i in rows].index(target) + 1


CATALOGUE = [str(i) for i in range(1, 31)]  # every scored item, rated or not


def test_case_ranks_match_a_ranking_by_hand():
    train, test, scores = small_split()
    cases = case_ranks(opr_candidates(train, test, CATALOGUE, n=8, seed=5), scores)
    assert cases.height == 15 and set(cases["m"]) == {8}
    for row in cases.iter_rows(named=True):
        assert row["R"] == exact_ranks_by_hand(train, test, scores, row["user"], row["target"])
        assert row["R_pool"] == exact_ranks_by_hand(train, test, scores, row["user"], row["target"], True)
        assert row["n"] == 30 - 8 - 3  # 8 train items, 4 test items: 3 others never drawn
        assert 1 <= row["r"] <= row["R_pool"]


def test_whole_pool_sampled_equals_exact_pool_and_corrections():
    """N >= the pool: every case ranks the whole population, so every estimator gives M(R_pool)."""
    train, test, scores = small_split()
    cases = case_ranks(opr_candidates(train, test, n=1000, seed=5), scores)
    assert (cases["r"] == cases["R_pool"]).all() and (cases["m"] == cases["n"] - 1).all()
    values = estimate_all(cases, TARGETS, 0.1)
    for metric, k in TARGETS:
        want = values[("exact-pool", metric, k)]
        for est in ("sampled", "rescaled", "minimal-bias", "bias-variance"):
            assert np.allclose(values[(est, metric, k)], want), (est, metric, k)


def test_one_test_item_per_user_sampled_equals_exact():
    train, test, scores = small_split()
    test = test.filter(pl.col("rating") == 5.0).unique("user", keep="first", maintain_order=True)
    cases = case_ranks(opr_candidates(train, test, n=1000, seed=5), scores)
    assert (cases["r"] == cases["R"]).all() and (cases["R"] == cases["R_pool"]).all()


def test_the_correction_matrix_is_bounded():
    """n x (m + 1) entries at most 2^25: a draw near the size of a large catalogue is refused, not allocated."""
    from trecrs.errors import UsageError
    from trecrs.measures.recsys.sampled import sampling_matrix

    assert sampling_matrix(1000, 100).shape == (1000, 101)
    with pytest.raises(UsageError, match=r"is a 100000 x 5001 matrix; at most 33,554,432 entries"):
        sampling_matrix(100_000, 5000)
