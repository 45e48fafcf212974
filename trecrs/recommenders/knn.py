"""Neighbourhood recommenders: Mahout's user- and item-based kNN, Cremonesi's CorNgbr and NNCosNgbr.

[M] Apache Mahout 0.x Taste: ``GenericUserBasedRecommender`` with ``NearestNUserNeighborhood``,
``GenericItemBasedRecommender``, ``PearsonCorrelationSimilarity``, as used by Bellogín, Castells, Cantador,
"Precision-oriented evaluation of recommender systems: an algorithmic comparison", RecSys 2011.
[S01] Sarwar, Karypis, Konstan, Riedl, "Item-based collaborative filtering recommendation algorithms",
WWW 2001. [C10] Cremonesi, Koren, Turrin, "Performance of recommender algorithms on top-N recommendation
tasks", RecSys 2010, eqs. 1 and 2.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import UsageError
from .base import (
    RatingData,
    Recommender,
    adjusted_cosine,
    baseline_estimates,
    corated_similarity,
    option,
    shrink,
)

if TYPE_CHECKING:
    import scipy.sparse as sp


# --------------------------------------------------------------------------------------------- weightings


@dataclass(frozen=True)
class Weighting:
    """How Mahout's kNN weighs a neighbour's rating: p = sum w(sim) r / sum w'(sim).

    ``weights(sim)`` gives (w, w'); ``capped`` is Mahout 0.4's rule (no estimate from fewer than two
    terms, estimate clamped to the rating range), else there is no estimate when sum w' = 0 (Mahout 0.3).
    """

    rule: str
    weights: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
    capped: bool = False


WEIGHTINGS: dict[str, Weighting] = {
    "shifted": Weighting(
        "w = sim + 1 in numerator and denominator (Mahout 0.3; the authors' released runs)",
        lambda sim: (sim + 1.0, sim + 1.0),
    ),
    "signed": Weighting(
        "w = sim, at least two terms, estimate clamped to the rating range (Mahout 0.4 and later)",
        lambda sim: (sim, sim),
        capped=True,
    ),
    "absolute": Weighting(
        "sum(sim * r) / sum(|sim|) (the textbook weighted mean)", lambda sim: (sim, np.abs(sim))
    ),
}


def _weighted_estimate(num, den, cnt, weighting: Weighting, r_min: float, r_max: float) -> np.ndarray:
    """Mahout's estimate num / den with the no-estimate rules of ``weighting`` (see :class:`Weighting`)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.asarray(num, dtype=np.float64) / np.asarray(den, dtype=np.float64)
    if weighting.capped:
        est[np.asarray(cnt) <= 1] = np.nan  # "Throw out the estimate if it was based on ... just one"
        np.clip(est, r_min, r_max, out=est)  # EstimatedPreferenceCapper; NaN stays NaN
    else:
        est[np.asarray(den) == 0] = np.nan  # "totalSimilarity == 0.0 ? Float.NaN"
    return est


# --------------------------------------------------------------------------------------------- similarities

# Similarities by name, computed from the training data as a dense matrix (NaN = undefined): between
# users (rows of R) for UserKNN, between items (columns of R) for ItemKNN.
USER_SIMILARITIES: dict[str, Callable[[RatingData], np.ndarray]] = {
    "pearson": lambda d: corated_similarity(d.R, d.B, centered=True)[0],
    "cosine": lambda d: corated_similarity(d.R, d.B, centered=False)[0],
}
ITEM_SIMILARITIES: dict[str, Callable[[RatingData], np.ndarray]] = {
    "adjusted-cosine": adjusted_cosine,
    "pearson": lambda d: corated_similarity(d.R.T.tocsr(), d.B.T.tocsr(), centered=True)[0],
    "cosine": lambda d: corated_similarity(d.R.T.tocsr(), d.B.T.tocsr(), centered=False)[0],
}


# --------------------------------------------------------------------------------------------- neighbourhoods


def mahout_top_n(values: np.ndarray, n: int) -> np.ndarray:
    """Indices Mahout's ``TopItems.getTopUsers(n, ...)`` keeps from ``values`` scanned in index order.

    An exact emulation of the ``java.util.PriorityQueue`` (binary min-heap, ``Collections.reverseOrder()``
    of ``SimilarUser``, equal similarities comparing equal) Mahout fills: NaN skipped; a value enters while
    the queue holds at most n, afterwards only if strictly above the current minimum, the head being
    polled each time. Among equal values at the cut, which one survives depends on the heap layout; this
    reproduces it.
    """
    heap: list[tuple[float, int]] = []
    full = False
    lowest = -math.inf

    def sift_down(x: tuple[float, int]) -> None:
        size = len(heap)
        k, half = 0, size >> 1
        while k < half:
            child = 2 * k + 1
            right = child + 1
            if right < size and heap[child][0] > heap[right][0]:
                child = right
            if x[0] <= heap[child][0]:
                break
            heap[k] = heap[child]
            k = child
        heap[k] = x

    for idx in range(values.size):
        v = float(values[idx])
        if v != v or (full and not v > lowest):
            continue
        x = (v, idx)
        heap.append(x)
        k = len(heap) - 1
        while k > 0:  # siftUp
            parent = (k - 1) >> 1
            if x[0] >= heap[parent][0]:
                break
            heap[k] = heap[parent]
            k = parent
        heap[k] = x
        if full or len(heap) > n:
            full = True
            last = heap.pop()  # poll(): move the last element to the root and sift it down
            if heap:
                sift_down(last)
        lowest = heap[0][0]
    return np.array(sorted(i for _, i in heap), dtype=np.int64)


def nearest_neighbours(sim: np.ndarray, k: int, ties: str = "mahout") -> sp.csr_matrix:
    """Indicator (rows x cols, CSR) of each row's k largest defined values (NaN = undefined).

    ``ties`` decides among values equal to the k-th: ``mahout`` as Mahout's heap does
    (:func:`mahout_top_n`, run only for rows with a tie at the cut), ``lowest-id`` the lower column index.
    """
    import scipy.sparse as sp

    if ties not in ("mahout", "lowest-id"):
        raise UsageError(f"ties must be mahout or lowest-id, not {ties!r}")
    n_rows, n_cols = sim.shape
    k = min(k, n_cols)
    key = np.where(np.isnan(sim), np.inf, -sim)
    order = np.argsort(key, axis=1, kind="stable")  # stable: lower column index first among equals
    top = order[:, :k]
    rows = np.repeat(np.arange(n_rows), k)
    cols = top.ravel()
    keep = ~np.isnan(sim[rows, cols])
    indicator = sp.csr_matrix((np.ones(int(keep.sum())), (rows[keep], cols[keep])), shape=sim.shape)
    if ties == "mahout" and k < n_cols:
        kth = sim[np.arange(n_rows), order[:, k - 1]]
        nxt = sim[np.arange(n_rows), order[:, k]]
        tied = np.flatnonzero(kth == nxt)  # NaN never compares equal
        if tied.size:
            indicator = indicator.tolil()
            for r in tied:
                indicator.rows[r] = mahout_top_n(sim[r], k).tolist()
                indicator.data[r] = [1.0] * len(indicator.rows[r])
            indicator = indicator.tocsr()
    return indicator


# --------------------------------------------------------------------------------------------- Mahout kNN


class UserKNN(Recommender):
    """Mahout's user-based kNN (``GenericUserBasedRecommender`` + ``NearestNUserNeighborhood(k)``).

    Neighbourhood N(u): the k users most similar to u overall (not per item), similarity Pearson or
    uncentred cosine over co-rated items (:func:`corated_similarity`); undefined similarities never enter;
    negative ones may (Mahout's minimum similarity is -inf); equal similarities at the cut are resolved as
    Mahout's heap resolves them (``ties``, :func:`nearest_neighbours`).
    Estimate over the neighbours v who rated i: p_ui = sum_v w(sim) r_vi / sum_v w'(sim) with the weights of
    ``weighting`` (:data:`WEIGHTINGS`). The default ``shifted`` (w = sim + 1, no estimate when the weights
    sum to 0) is Mahout 0.3's code and reproduces the UB50 run the authors released for ML-100K u1
    (Bellogín et al. 2011) on 98.6% of its scores, the rest differing by tie order among equal similarities.
    A rated item returns the user's own rating, as in Mahout. UB50 = k 50, Pearson.
    """

    name = "userknn"
    defaults = {"k": 50, "similarity": "pearson", "weighting": "shifted", "ties": "mahout"}
    k: int
    similarity: str
    weighting: str
    ties: str

    def _fit(self) -> None:
        similarity = option(self.name, "similarity", self.similarity, USER_SIMILARITIES)
        if int(self.k) < 1:
            raise UsageError("userknn: k must be at least 1")
        self._weighting = option(self.name, "weighting", self.weighting, WEIGHTINGS)
        sim = similarity(self._fitted)
        np.fill_diagonal(sim, np.nan)  # Mahout's estimator skips the user itself
        self.neighbours = nearest_neighbours(sim, int(self.k), self.ties)
        r, c = self.neighbours.nonzero()
        w_num, w_den = self._weighting.weights(sim[r, c])
        shape = self.neighbours.shape
        import scipy.sparse as sp

        self._Wn = sp.csr_matrix((w_num, (r, c)), shape=shape)
        self._Wd = sp.csr_matrix((w_den, (r, c)), shape=shape)

    def _block(self, users):
        d = self._fitted
        num = (self._Wn[users] @ d.R).toarray()
        den = (self._Wd[users] @ d.B).toarray()
        cnt = (self.neighbours[users] @ d.B).toarray() if self._weighting.capped else None
        est = _weighted_estimate(num, den, cnt, self._weighting, d.r_min, d.r_max)
        self._known_ratings(est, users)
        return est


class ItemKNN(Recommender):
    """Mahout's item-based kNN (``GenericItemBasedRecommender``), adjusted cosine by default ("IB").

    p_ui = sum_j w(sim(i,j)) r_uj / sum_j w'(sim(i,j)) over all the items j the user rated whose similarity
    to i is defined (no neighbourhood cut), with the weights of ``weighting`` (:data:`WEIGHTINGS`; the
    default ``shifted``, w = sim + 1, is Mahout 0.3's). A rated item returns the user's own rating.
    ``similarity``: ``adjusted-cosine`` (Sarwar et al. 2001, :func:`adjusted_cosine`), ``pearson`` or
    ``cosine`` (Mahout's item similarities over co-raters). With ``shifted`` weights these reproduce the
    authors' released u1 runs IB_AdjCos (adjusted cosine) and IB (Pearson) score for score.
    """

    name = "itemknn"
    defaults = {"similarity": "adjusted-cosine", "weighting": "shifted"}
    similarity: str
    weighting: str

    def _fit(self) -> None:
        similarity = option(self.name, "similarity", self.similarity, ITEM_SIMILARITIES)
        self._weighting = option(self.name, "weighting", self.weighting, WEIGHTINGS)
        sim = similarity(self._fitted)
        defined = ~np.isnan(sim)
        w_num, w_den = self._weighting.weights(np.where(defined, sim, 0.0))
        self._Wn_t = np.ascontiguousarray(np.where(defined, w_num, 0.0).T)
        self._Wd_t = np.ascontiguousarray(np.where(defined, w_den, 0.0).T)
        self._M_t = np.ascontiguousarray(defined.T.astype(np.float64)) if self._weighting.capped else None

    def _block(self, users):
        d = self._fitted
        num = d.R[users] @ self._Wn_t  # num[u, i] = sum_j r_uj w(sim(i, j))
        den = d.B[users] @ self._Wd_t
        cnt = d.B[users] @ self._M_t if self._M_t is not None else None
        est = _weighted_estimate(num, den, cnt, self._weighting, d.r_min, d.r_max)
        self._known_ratings(est, users)
        return est


# --------------------------------------------------------------------------------------------- Cremonesi kNN


def _top_k_positive(sims: np.ndarray, k: int) -> np.ndarray:
    """``sims`` (items x rated items) with all but each row's k largest positive values set to 0.

    D^k(u; i) of Cremonesi 2010: the (at most) k rated items most similar to i; only positive
    similarities count as "similar", which also keeps eq. 1's denominator positive. Among equal values at
    the cut, the lower column index wins.
    """
    pos = np.where(sims > 0, sims, 0.0)
    n = sims.shape[1]
    if n <= k:
        return pos
    cut = np.partition(pos, n - k, axis=1)[:, n - k][:, None]
    top = pos >= cut
    over = top.sum(axis=1) > k  # ties at the cut: exactly k by rank, stable on the column index
    if over.any():
        ranks = np.argsort(np.argsort(-pos[over], axis=1, kind="stable"), axis=1, kind="stable")
        top[over] = ranks < k
    return np.where(top, pos, 0.0)


class _CremonesiKNN(Recommender):
    """Shared machinery of CorNgbr and NNCosNgbr: baselines, shrunk item similarities, D^k(u; i)."""

    defaults = {"k": 200, "shrinkage": 100.0, "lambda_item": 25.0, "lambda_user": 10.0}
    k: int
    shrinkage: float
    lambda_item: float
    lambda_user: float
    normalised = True

    def _similarity(self) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _fit(self) -> None:
        if int(self.k) < 1 or float(self.shrinkage) < 0:
            raise UsageError(f"{self.name}: k must be >= 1 and shrinkage >= 0")
        self._mu, self._bu, self._bi = baseline_estimates(self._fitted, self.lambda_item, self.lambda_user)
        d = self._similarity()
        d[np.isnan(d)] = 0.0
        np.fill_diagonal(d, 0.0)  # an item is not its own neighbour
        self._D = d

    def _block(self, users):
        d = self._fitted
        k = int(self.k)
        out = np.empty((users.size, d.n_items))
        for row, u in enumerate(users):
            lo, hi = d.R.indptr[u], d.R.indptr[u + 1]
            rated = d.R.indices[lo:hi]
            resid = d.R.data[lo:hi] - (self._mu + self._bu[u] + self._bi[rated])
            pos = _top_k_positive(self._D[:, rated], k)
            num = pos @ resid
            base = self._mu + self._bu[u] + self._bi
            if self.normalised:
                den = pos.sum(axis=1)
                with np.errstate(invalid="ignore", divide="ignore"):
                    out[row] = base + np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
            else:
                out[row] = base + num
        return out


class CorNgbr(_CremonesiKNN):
    """CorNgbr (Cremonesi 2010, eq. 1): r_ui = b_ui + sum_{j in D^k(u;i)} d_ij (r_uj - b_uj) / sum d_ij.

    d_ij = n_ij / (n_ij + lambda) * rho_ij, rho_ij the Pearson correlation of items i and j over their
    common raters (undefined = 0), n_ij their number; D^k(u; i) the k items rated by u most similar to i
    (positive similarities only, :func:`_top_k_positive`); b_ui from :func:`baseline_estimates`. With no
    similar rated item, r_ui = b_ui.
    """

    name = "corngbr"
    normalised = True

    def _similarity(self):
        d = self._fitted
        sim, n = corated_similarity(d.R.T.tocsr(), d.B.T.tocsr(), centered=True)
        return shrink(sim, n, float(self.shrinkage))


class NNCosNgbr(_CremonesiKNN):
    """NNCosNgbr (Cremonesi 2010, eq. 2): r_ui = b_ui + sum_{j in D^k(u;i)} d_ij (r_uj - b_uj), no
    normalisation, so items with many similar rated items score higher.

    d_ij = n_ij / (n_ij + lambda) * cos(i, j), the cosine of the items' rating columns (missing = 0);
    D^k(u; i) and b_ui as for :class:`CorNgbr`.
    """

    name = "nncosngbr"
    normalised = False

    def _similarity(self):
        d = self._fitted
        Rt = d.R.T.tocsr()
        num = (Rt @ Rt.T).toarray()
        norms = np.sqrt(np.asarray(Rt.multiply(Rt).sum(axis=1)).ravel())
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = num / np.outer(norms, norms)
        n = (d.B.T.tocsr() @ d.B).toarray()
        return shrink(cos, n, float(self.shrinkage))
