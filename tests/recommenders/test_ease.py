"""EASE (Steck 2019) against a hand-worked example, the closed form computed densely with numpy.linalg.solve,
and the ridge regression each column of B solves (Steck's eq. 1 with diag(B) = 0)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from trecrs.errors import UsageError
from trecrs.recommenders.registry import ALGORITHMS, make_recommender


def ratings(rows: list[tuple[str, str]]) -> pl.DataFrame:
    """Training ratings of the (user, item) pairs, each rated 3 (EASE reads only which pairs exist)."""
    return pl.DataFrame(
        {"user": [u for u, _ in rows], "item": [i for _, i in rows], "rating": [3.0] * len(rows)}
    )


def scores(model, asked: list[tuple[str, str]]) -> dict[tuple[str, str], float]:
    frame = pl.DataFrame({"user": [u for u, _ in asked], "item": [i for _, i in asked]})
    return {(u, i): s for u, i, s in model.score(frame).frame.iter_rows()}


def test_hand_worked_two_items():
    # X: u1 rated a and b, u2 only a, u3 only b. G = X^T X + 1 I = [[3, 1], [1, 3]],
    # P = G^-1 = [[3, -1], [-1, 3]] / 8, B_ab = -P_ab / P_bb = (1/8) / (3/8) = 1/3 = B_ba, B_aa = B_bb = 0.
    model = make_recommender("ease", regularization=1.0).fit(
        ratings([("u1", "a"), ("u1", "b"), ("u2", "a"), ("u3", "b")])
    )
    got = scores(model, [("u1", "a"), ("u1", "b"), ("u2", "a"), ("u2", "b"), ("u3", "a"), ("u3", "b")])
    third = 1 / 3
    want = {("u1", "a"): third, ("u1", "b"): third, ("u2", "a"): 0.0, ("u2", "b"): third}
    want.update({("u3", "a"): third, ("u3", "b"): 0.0})
    assert got == pytest.approx(want, abs=1e-15)


def _random_x(seed: int, users: int = 30, items: int = 9) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.random((users, items)) < 0.3).astype(float)
    x[0, :] = 1.0  # every item rated at least once and every user rates one, so all are in training
    x[np.arange(users), np.arange(users) % items] = 1.0
    return x


def _fit_dense(x: np.ndarray, lam: float):
    rows = [(f"u{u}", f"i{i}") for u, i in zip(*np.nonzero(x), strict=True)]
    model = make_recommender("ease", regularization=lam).fit(ratings(rows))
    asked = [(f"u{u}", f"i{i}") for u in range(x.shape[0]) for i in range(x.shape[1])]
    got = scores(model, asked)
    return np.array([[got[(f"u{u}", f"i{i}")] for i in range(x.shape[1])] for u in range(x.shape[0])])


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("lam", [0.5, 10.0, 500.0])
def test_closed_form_with_solve(seed, lam):
    x = _random_x(seed)
    n = x.shape[1]
    p = np.linalg.solve(x.T @ x + lam * np.eye(n), np.eye(n))
    b = np.eye(n) - p @ np.diag(1.0 / np.diag(p))
    np.testing.assert_allclose(_fit_dense(x, lam), x @ b, rtol=1e-12, atol=1e-12)


def test_each_column_is_the_ridge_regression_on_the_other_items():
    # Steck's eq. 1 with the constraint B_jj = 0 is, per column j, ridge regression of x_j on the other
    # columns: b_-j = (X_-j^T X_-j + lambda I)^-1 X_-j^T x_j (no Lagrangian involved).
    x, lam = _random_x(7), 4.0
    n = x.shape[1]
    b = np.zeros((n, n))
    for j in range(n):
        others = [i for i in range(n) if i != j]
        xo = x[:, others]
        b[others, j] = np.linalg.solve(xo.T @ xo + lam * np.eye(n - 1), xo.T @ x[:, j])
    np.testing.assert_allclose(_fit_dense(x, lam), x @ b, rtol=1e-10, atol=1e-12)


def test_ratings_values_are_not_used_and_unknown_ids_get_no_score():
    rows = [("u1", "a"), ("u1", "b"), ("u2", "a"), ("u3", "b")]
    ones = make_recommender("ease", regularization=1.0).fit(ratings(rows))
    varied = ratings(rows).with_columns(pl.Series("rating", [5.0, 1.0, 2.0, 4.0]))
    other = make_recommender("ease", regularization=1.0).fit(varied)
    asked = [("u1", "a"), ("u2", "b"), ("u9", "a"), ("u1", "z")]
    assert scores(ones, asked) == scores(other, asked)
    assert set(scores(ones, asked)) == {("u1", "a"), ("u2", "b")}


def test_registered_and_refuses_a_non_positive_regularization():
    assert ALGORITHMS["ease"].defaults == {"regularization": 500.0}
    for lam in (0.0, -1.0):
        with pytest.raises(UsageError, match="regularization must be > 0"):
            make_recommender("ease", regularization=lam).fit(ratings([("u1", "a")]))
