"""Matrix-factorisation recommenders: biased MF fitted by ALS-WR ("SVD50") and PureSVD.

Zhou, Wilkinson, Schreiber, Pan, "Large-scale parallel collaborative filtering for the Netflix prize",
AAIM 2008 (ALS-WR); Koren, Bell, Volinsky, "Matrix factorization techniques for recommender systems",
IEEE Computer 2009 (biases); Cremonesi, Koren, Turrin, RecSys 2010, eq. 6 (PureSVD).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import UsageError
from ..ranges import MF_BLOCK_BYTES, MF_FACTORS_MAX, MF_ITERATIONS_MAX, MF_OPERATIONS_MAX
from .base import Recommender

if TYPE_CHECKING:
    import scipy.sparse as sp


class BiasedMF(Recommender):
    """Biased matrix factorisation r_ui ~ mu + b_u + b_i + p_u . q_i with f factors ("SVD50" for f=50).

    Fitted by alternating least squares with weighted-lambda regularisation (ALS-WR, Zhou et al. 2008):
    each user's [p_u, b_u] minimises sum_{i in R(u)} (r_ui - mu - b_i - b_u - p_u.q_i)^2
    + lambda * |R(u)| * (|p_u|^2 + b_u^2), then each item's [q_i, b_i] likewise, ``iterations`` times from
    N(0, 0.1^2) factors drawn with the seed (biases from Koren et al. 2009). lambda = 0.065 is the value
    Zhou et al. report best on Netflix. No score for an unknown user or item.
    """

    name = "mf"
    defaults = {"factors": 50, "regularization": 0.065, "iterations": 15}
    factors: int
    regularization: float
    iterations: int

    def _fit(self) -> None:
        d = self._fitted
        f = int(self.factors)
        lam = float(self.regularization)
        if f < 1 or lam < 0 or int(self.iterations) < 1:
            raise UsageError("mf: factors and iterations must be >= 1, regularization >= 0")
        if f > MF_FACTORS_MAX or int(self.iterations) > MF_ITERATIONS_MAX:  # memory and time (ranges.py)
            raise UsageError(
                f"mf: factors must be at most {MF_FACTORS_MAX} and iterations at most {MF_ITERATIONS_MAX}"
            )
        _check_size(d.n_users + d.n_items, f, int(self.iterations))
        rng = np.random.default_rng(self.seed)
        P = rng.normal(0.0, 0.1, (d.n_users, f))
        Q = rng.normal(0.0, 0.1, (d.n_items, f))
        bu = np.zeros(d.n_users)
        bi = np.zeros(d.n_items)
        mu = float(d.R.data.mean())
        R = d.R
        Rt = d.R.T.tocsr()
        for _ in range(int(self.iterations)):
            P, bu = _als_side(R, Q, bi, mu, lam)
            Q, bi = _als_side(Rt, P, bu, mu, lam)
        self._P, self._Q, self._bu, self._bi, self._mu = P, Q, bu, bi, mu

    def _block(self, users):
        return self._mu + self._bu[users][:, None] + self._bi[None, :] + self._P[users] @ self._Q.T


def _check_size(rows: int, factors: int, iterations: int) -> None:
    """Refuse an ALS whose solves, rows x (factors + 1)^3 x iterations operations (rows = users + items),
    exceed :data:`~trecrs.ranges.MF_OPERATIONS_MAX`; memory is bounded by blocks (:func:`_als_side`)."""
    work = rows * (factors + 1) ** 3 * iterations
    if work > MF_OPERATIONS_MAX:
        raise UsageError(
            f"mf: {factors} factors and {iterations} iterations on {rows} users and items need {work:.1e} "
            f"operations; at most {MF_OPERATIONS_MAX:.0e}: use fewer factors or iterations"
        )


def _als_side(R: sp.csr_matrix, other: np.ndarray, other_bias: np.ndarray, mu: float, lam: float):
    """One ALS half-step: solve every row's [factors, bias] given the other side (ALS-WR regulariser).

    Row u solves (sum_i y_i y_i^T + lam |R(u)| I) x_u = sum_i y_i (r_ui - mu - b_i), y_i = [q_i, 1]. The
    Gram matrices come from sparse products with the other side's outer products and are solved as a
    batch, both in blocks of rows and of outer-product columns of about :data:`~trecrs.ranges.MF_BLOCK_BYTES`:
    each entry is still the sum over the row's ratings in index order, so the blocks do not change a bit.
    """
    n, f = R.shape[0], other.shape[1]
    Y = np.hstack([other, np.ones((other.shape[0], 1))])
    pattern = R.copy()
    pattern.data = np.ones_like(pattern.data)
    counts = np.diff(R.indptr)
    T = R.copy()
    T.data = T.data - mu - other_bias[T.indices]
    rhs = np.asarray(T @ Y)
    X = np.empty((n, f + 1))
    step = max(1, MF_BLOCK_BYTES // (8 * (f + 1) ** 2))
    for start in range(0, n, step):
        rows = slice(start, min(n, start + step))
        A = _gram(pattern[rows], Y)
        A += (lam * np.maximum(counts[rows], 1))[:, None, None] * np.eye(f + 1)
        X[rows] = np.linalg.solve(A, rhs[rows, :, None])[:, :, 0]
    X[counts == 0] = 0.0
    return X[:, :f], X[:, f]


def _gram(pattern: sp.csr_matrix, Y: np.ndarray) -> np.ndarray:
    """sum_{i in R(u)} y_i y_i^T for each row u of ``pattern`` (0/1), as a (rows, k, k) array (k = Y's columns).

    The outer products y_i y_i^T are formed a band of rows of the k x k matrix at a time, so at most about
    :data:`~trecrs.ranges.MF_BLOCK_BYTES` of them exist at once.
    """
    m, k = Y.shape
    A = np.empty((pattern.shape[0], k, k))
    band = max(1, MF_BLOCK_BYTES // (8 * k * max(m, 1)))
    for a in range(0, k, band):
        b = min(k, a + band)
        outer = (Y[:, a:b, None] * Y[:, None, :]).reshape(m, -1)
        A[:, a:b, :] = np.asarray(pattern @ outer).reshape(-1, b - a, k)
    return A


class PureSVD(Recommender):
    """PureSVD (Cremonesi 2010, eq. 6): score r_ui = r_u . Q . q_i^T.

    R (users x items) is the training matrix with missing ratings as 0, Q (items x f) its f leading right
    singular vectors (R ~ U S Q^T). Exact SVD for matrices up to :attr:`dense_cells` cells, else ARPACK
    (``svds``) with a starting vector drawn from the seed; the score does not depend on the singular
    vectors' signs. No score for an unknown user or item.
    """

    name = "puresvd"
    defaults = {"factors": 50}
    factors: int
    # Largest users x items matrix decomposed densely (80 MB of float64); larger ones go to ARPACK.
    dense_cells = 10_000_000

    def _fit(self) -> None:
        d = self._fitted
        f = int(self.factors)
        if f < 1:
            raise UsageError("puresvd: factors must be >= 1")
        small = min(d.n_users, d.n_items)
        # ARPACK takes k below min(shape) - 1; that many factors is a full decomposition anyway
        if d.n_users * d.n_items <= self.dense_cells or f >= small - 1:
            _, _, vt = np.linalg.svd(d.R.toarray(), full_matrices=False)
            Q = vt[: min(f, vt.shape[0])].T
        else:
            from scipy.sparse.linalg import svds

            v0 = np.random.default_rng(self.seed).random(small)
            _, _, vt = svds(d.R, k=f, v0=v0, solver="arpack")
            Q = vt.T
        self._Q = np.ascontiguousarray(Q)

    def _block(self, users):
        return np.asarray(self._fitted.R[users] @ self._Q) @ self._Q.T
