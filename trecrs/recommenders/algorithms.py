"""Reference recommenders: the small, fast, seeded baselines the reproduced papers used.

Not a recommender library: just enough to turn a training split into the scores every methodology needs.
Each recommender is fitted on training ratings (``user item rating``) and then scores exactly the
(user, item) pairs it is asked about (:meth:`Recommender.score`), which is what ``trecrs candidates`` /
``trecrs run`` need; the same call on test pairs gives rating predictions for error measures.

A pair the model cannot score (unknown user or item, no neighbour who rated the item, ...) gets no score:
it is left out of the result and counted (``Scores.n_unscored``); NaN is never returned.

Algorithms (:data:`ALGORITHMS`, the registry; :data:`PRESETS` names the configurations of the papers):

========== ==================================================================================== =========
name       rule                                                                                 source
========== ==================================================================================== =========
random     uniform in [0, 1), a hash of (seed, user, item): independent of the pairs asked      -
toppop     number of training ratings of the item (0 for an item nobody rated)                  [C10]
itemavg    mean training rating of the item ("MovieAvg")                                        [C10]
userknn    Mahout user-based kNN: k nearest users (Pearson/cosine over co-rated items),         [M]
           weighted mean of the neighbours' ratings of the item
itemknn    Mahout item-based kNN with adjusted cosine (weighted mean over all the user's items) [M, S01]
mf         biased matrix factorisation mu + b_u + b_i + p_u.q_i, f factors, ALS-WR, seeded      [Z08, K09]
puresvd    r_u . Q . q_i^T, Q = f leading right singular vectors of the zero-filled matrix      [C10 eq.6]
corngbr    b_ui + sum_j d_ij (r_uj - b_uj) / sum_j d_ij, shrunk Pearson, k neighbours          [C10 eq.1]
nncosngbr  b_ui + sum_j d_ij (r_uj - b_uj), shrunk cosine, k neighbours (not normalised)       [C10 eq.2]
========== ==================================================================================== =========

[C10] Cremonesi, Koren, Turrin, "Performance of recommender algorithms on top-N recommendation tasks",
RecSys 2010. [M] Apache Mahout 0.x Taste: ``GenericUserBasedRecommender`` with
``NearestNUserNeighborhood``, ``GenericItemBasedRecommender``, ``PearsonCorrelationSimilarity``, as used by
Bellogín, Castells, Cantador, "Precision-oriented evaluation of recommender systems: an algorithmic
comparison", RecSys 2011. [S01] Sarwar, Karypis, Konstan, Riedl, "Item-based collaborative filtering
recommendation algorithms", WWW 2001. [Z08] Zhou, Wilkinson, Schreiber, Pan, "Large-scale parallel
collaborative filtering for the Netflix prize", AAIM 2008. [K09] Koren, Bell, Volinsky, "Matrix
factorization techniques for recommender systems", IEEE Computer 2009.

Everything is vectorised with numpy / scipy.sparse over index-coded users and items (ids sorted in
natural order: numeric when all ids are integers), scoring users in blocks so memory stays bounded.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from ..errors import InputError, UsageError
from ..ids import codes, hash_ids, mix64, natural_sort, natural_unique
from ..schema import ITEM, RATING, SCORE, USER

if TYPE_CHECKING:  # scipy is imported where it is used, keeping `import trecrs` (every command) fast
    import scipy.sparse as sp

_UIDX = "_uidx"
_IIDX = "_iidx"
_BLOCK_CELLS = 4_000_000  # dense cells per scoring block (32 MB of float64)


# --------------------------------------------------------------------------------------------- data


@dataclass
class RatingData:
    """Training ratings coded as indices: ``R`` (users x items, CSR, the ratings) and ``B`` (its pattern).

    ``users`` / ``items`` hold the ids in natural order; index ``k`` of a row or column is ``users[k]``.
    """

    users: pl.Series
    items: pl.Series
    R: sp.csr_matrix
    B: sp.csr_matrix
    r_min: float
    r_max: float

    @property
    def n_users(self) -> int:
        return self.users.len()

    @property
    def n_items(self) -> int:
        return self.items.len()

    @classmethod
    def from_frame(cls, train: pl.DataFrame) -> RatingData:
        missing = [c for c in (USER, ITEM, RATING) if c not in train.columns]
        if missing:
            raise InputError(None, None, f"training ratings lack column(s) {missing}; have {train.columns}")
        df = train.select(
            pl.col(USER).cast(pl.Utf8), pl.col(ITEM).cast(pl.Utf8), pl.col(RATING).cast(pl.Float64)
        )
        if df.height == 0:
            raise InputError(None, None, "no training ratings")
        if df.select(pl.col(RATING).is_null().any() | ~pl.col(RATING).is_finite().all()).item():
            raise InputError(None, None, "training ratings contain a missing or non-finite rating")
        if df.select(pl.struct(USER, ITEM).is_duplicated().any()).item():
            row = df.filter(pl.struct(USER, ITEM).is_duplicated()).row(0, named=True)
            raise InputError(
                None, None, f"training ratings rate user {row[USER]!r}, item {row[ITEM]!r} twice"
            )
        users = natural_unique(df.get_column(USER))
        items = natural_unique(df.get_column(ITEM))
        coded = _code(df, users, items)
        rows = coded.get_column(_UIDX).to_numpy()
        cols = coded.get_column(_IIDX).to_numpy()
        vals = coded.get_column(RATING).to_numpy().astype(np.float64)
        shape = (users.len(), items.len())
        import scipy.sparse as sp

        R = sp.csr_matrix((vals, (rows, cols)), shape=shape)
        R.sort_indices()
        B = R.copy()
        B.data = np.ones_like(B.data)  # the pattern, explicit even where a centred value is 0
        return cls(users, items, R, B, float(vals.min()), float(vals.max()))

    def code_pairs(self, pairs: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Index arrays (user, item) of ``pairs``' rows, -1 for an id absent from training."""
        coded = _code(pairs.select(USER, ITEM), self.users, self.items, how="left")
        u = coded.get_column(_UIDX).fill_null(-1).to_numpy().astype(np.int64)
        i = coded.get_column(_IIDX).fill_null(-1).to_numpy().astype(np.int64)
        return u, i


def _code(df: pl.DataFrame, users: pl.Series, items: pl.Series, how: str = "inner") -> pl.DataFrame:
    """``df`` with the user and item codes (``_UIDX``, ``_IIDX``); ``how="inner"`` drops unknown ids."""
    out = df.with_columns(
        codes(df.get_column(USER), users).alias(_UIDX), codes(df.get_column(ITEM), items).alias(_IIDX)
    )
    return out.drop_nulls([_UIDX, _IIDX]) if how == "inner" else out


def _row_means(X: sp.csr_matrix) -> np.ndarray:
    counts = np.diff(X.indptr)
    sums = np.asarray(X.sum(axis=1)).ravel()
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def baselines(data: RatingData, lambda_item: float = 25.0, lambda_user: float = 10.0):
    """Regularised baseline estimates b_ui = mu + b_u + b_i (Koren, KDD 2008, section 2.1).

    b_i = sum_{u in R(i)} (r_ui - mu) / (lambda_item + |R(i)|);
    b_u = sum_{i in R(u)} (r_ui - mu - b_i) / (lambda_user + |R(u)|). Returns (mu, b_u, b_i).
    """
    R = data.R
    mu = float(R.data.mean())
    Rc = R.tocsc()
    n_i = np.diff(Rc.indptr)
    b_i = (np.asarray(Rc.sum(axis=0)).ravel() - mu * n_i) / (lambda_item + n_i)
    resid = R.data - mu - b_i[R.indices]
    n_u = np.diff(R.indptr)
    b_u = np.add.reduceat(resid, R.indptr[:-1]) if resid.size else np.zeros(data.n_users)
    b_u = np.where(n_u > 0, b_u, 0.0) / (lambda_user + n_u)
    return mu, b_u, b_i


# --------------------------------------------------------------------------------------------- similarity


def corated_similarity(
    R: sp.csr_matrix, B: sp.csr_matrix, *, centered: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Similarity of every pair of rows over their co-rated columns, as Mahout's ``AbstractSimilarity``.

    Over the n columns both rows rated, with x, y their values: Pearson (``centered``) =
    (Sxy - Sx*Sy/n) / (sqrt(Sxx - Sx^2/n) * sqrt(Syy - Sy^2/n)); uncentred cosine = Sxy / sqrt(Sxx*Syy).
    NaN when n = 0 or a denominator is 0 (Mahout's ``PearsonCorrelationSimilarity`` /
    ``UncenteredCosineSimilarity``, unweighted), clamped to [-1, 1]. Returns (similarity, n), dense.
    """
    R2 = R.multiply(R).tocsr()
    n = (B @ B.T).toarray()
    sxy = (R @ R.T).toarray()
    if centered:
        sx = (R @ B.T).toarray()  # sum of row u's values over the columns it shares with row v
        sy = sx.T
        sxx = (R2 @ B.T).toarray()
        syy = sxx.T
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_x = sx / n
            mean_y = sy / n
            num = sxy - mean_y * sx
            dx = sxx - mean_x * sx
            dy = syy - mean_y * sy
    else:
        sxx = (R2 @ B.T).toarray()
        num, dx, dy = sxy, sxx, sxx.T
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.sqrt(dx) * np.sqrt(dy)
        sim = num / den
    sim[(n == 0) | ~(den > 0)] = np.nan
    np.clip(sim, -1.0, 1.0, out=sim)
    return sim, n


def adjusted_cosine(data: RatingData) -> np.ndarray:
    """Item-item adjusted cosine (Sarwar et al. 2001, section 3.1.3), over the users who rated both items.

    sim(i,j) = sum_u (r_ui - m_u)(r_uj - m_u) / (sqrt(sum_u (r_ui - m_u)^2) * sqrt(sum_u (r_uj - m_u)^2)),
    u ranging over the users who rated i and j, m_u = u's mean training rating. NaN when no user rated
    both or a denominator is 0 (Mahout's convention for undefined similarities), clamped to [-1, 1].
    """
    R, B = data.R, data.B
    means = _row_means(R)
    C = R.copy()
    C.data = C.data - np.repeat(means, np.diff(R.indptr))
    C2 = C.multiply(C).tocsr()
    Ct = C.T.tocsr()
    num = (Ct @ C).toarray()
    a = (C2.T.tocsr() @ B).toarray()  # a[i, j] = sum over users who rated i and j of (r_ui - m_u)^2
    n = (B.T.tocsr() @ B).toarray()
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.sqrt(a) * np.sqrt(a.T)
        sim = num / den
    sim[(n == 0) | ~(den > 0)] = np.nan
    np.clip(sim, -1.0, 1.0, out=sim)
    return sim


def shrink(sim: np.ndarray, n: np.ndarray, lam: float) -> np.ndarray:
    """Shrunk similarity d_ij = n_ij / (n_ij + lambda) * s_ij (Koren, KDD 2008, eq. 2; Cremonesi 2010)."""
    return n / (n + lam) * sim


# --------------------------------------------------------------------------------------------- base class


@dataclass
class Scores:
    """What :meth:`Recommender.score` returns: the scored pairs and how many could not be scored."""

    frame: pl.DataFrame  # user, item, score (finite), natural (user, item) order
    n_pairs: int  # distinct (user, item) pairs asked
    n_unscored: int  # of which the model could not score


class Recommender:
    """Base class: ``fit(train)`` then ``score(pairs)``. Subclasses implement ``_fit`` and ``_block``.

    ``_block(users)`` returns the dense scores (len(users) x n_items) of known users, NaN where the model
    has no score; ``_score_coded`` may be overridden instead for models that score unknown ids too.
    """

    name = "recommender"
    # Parameters a subclass accepts, with defaults (the CLI's --param KEY=VALUE is typed from these).
    defaults: dict[str, Any] = {}

    def __init__(self, seed: int = 0, **params):
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            known = ", ".join(self.defaults) or "none"
            raise UsageError(f"{self.name}: unknown parameter(s) {', '.join(unknown)}; known: {known}")
        self.seed = int(seed)
        self.params = {**self.defaults, **params}
        for key, value in self.params.items():
            setattr(self, key, value)
        self.data: RatingData | None = None

    # ---- public
    def fit(self, train: pl.DataFrame) -> Recommender:
        """Learn from training ratings (columns ``user, item, rating``); returns ``self``."""
        self.data = RatingData.from_frame(train)
        self._fit()
        return self

    def score(self, pairs: pl.DataFrame) -> Scores:
        """Score the distinct (user, item) pairs of ``pairs`` (columns ``user, item``; others ignored)."""
        if self.data is None:
            raise UsageError(f"{self.name}: fit() before score()")
        for c in (USER, ITEM):
            if c not in pairs.columns:
                raise InputError(None, None, f"pairs lack column {c!r}; have {pairs.columns}")
        distinct = pairs.select(pl.col(USER).cast(pl.Utf8), pl.col(ITEM).cast(pl.Utf8)).unique()
        distinct = natural_sort(distinct, [USER, ITEM]) if distinct.height else distinct
        u, i = self.data.code_pairs(distinct)
        values = self._score_coded(u, i, distinct)
        ok = np.isfinite(values)
        frame = distinct.with_columns(pl.Series(SCORE, values, dtype=pl.Float64)).filter(pl.Series(ok))
        return Scores(frame, distinct.height, int((~ok).sum()))

    def describe(self) -> dict:
        """Name, parameters and seed, for manifests."""
        return {"algorithm": self.name, "parameters": dict(self.params), "seed": self.seed}

    # ---- for subclasses
    def _fit(self) -> None:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _block(self, users: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _score_coded(self, u: np.ndarray, i: np.ndarray, pairs: pl.DataFrame) -> np.ndarray:
        """Scores of coded pairs (-1 = unknown id): known pairs gathered from per-user-block dense scores."""
        out = np.full(u.shape, np.nan)
        known = (u >= 0) & (i >= 0)
        if not known.any():
            return out
        idx = np.flatnonzero(known)
        idx = idx[np.argsort(u[idx], kind="stable")]
        uu = u[idx]
        users = np.unique(uu)
        step = max(1, _BLOCK_CELLS // max(1, self.data.n_items))
        for start in range(0, users.size, step):
            block_users = users[start : start + step]
            dense = self._block(block_users)
            lo = np.searchsorted(uu, block_users[0], side="left")
            hi = np.searchsorted(uu, block_users[-1], side="right")
            sel = idx[lo:hi]
            rows = np.searchsorted(block_users, u[sel])
            out[sel] = dense[rows, i[sel]]
        return out

    def _known_ratings(self, block: np.ndarray, users: np.ndarray) -> None:
        """Mahout returns a user's own rating for an item the user rated; do the same in ``block``."""
        sub = self.data.R[users]
        r, c = sub.nonzero()
        block[r, c] = np.asarray(sub[r, c]).ravel()


# --------------------------------------------------------------------------------------------- algorithms


class RandomScores(Recommender):
    """Uniform scores in [0, 1): a 64-bit hash of (seed, user id, item id), so a pair's score does not
    depend on which other pairs are scored or in which order."""

    name = "random"

    def _fit(self) -> None:
        pass

    def _score_coded(self, u, i, pairs):
        hu = hash_ids(pairs.get_column(USER))
        hi = hash_ids(pairs.get_column(ITEM))
        seed = np.uint64(self.seed & 0xFFFFFFFFFFFFFFFF)
        x = mix64(hu ^ mix64(hi + seed, add_gamma=True), add_gamma=True)
        return (x >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


class TopPop(Recommender):
    """Popularity: the number of training ratings of the item (Cremonesi 2010, "TopPop"); 0 for an item
    nobody rated. The same score for every user, known or not."""

    name = "toppop"

    def _fit(self) -> None:
        self._count = np.diff(self.data.R.tocsc().indptr).astype(np.float64)

    def _score_coded(self, u, i, pairs):
        return np.where(i >= 0, self._count[np.maximum(i, 0)], 0.0)


class ItemAvg(Recommender):
    """Item mean rating: mean of the item's training ratings (Cremonesi 2010, "MovieAvg"); no score for an
    item nobody rated. The same score for every user, known or not."""

    name = "itemavg"

    def _fit(self) -> None:
        self._mean = _row_means(self.data.R.T.tocsr())

    def _score_coded(self, u, i, pairs):
        return np.where(i >= 0, self._mean[np.maximum(i, 0)], np.nan)


WEIGHTINGS: dict[str, str] = {
    "shifted": "w = sim + 1 in numerator and denominator (Mahout 0.3; the authors' released runs)",
    "signed": "w = sim, at least two terms, estimate clamped to the rating range (Mahout 0.4 and later)",
    "absolute": "sum(sim * r) / sum(|sim|) (the textbook weighted mean)",
}


def _weights(sim: np.ndarray, weighting: str) -> tuple[np.ndarray, np.ndarray]:
    """(numerator weights, denominator weights) of defined similarities under ``weighting``."""
    if weighting == "shifted":
        return sim + 1.0, sim + 1.0
    if weighting == "signed":
        return sim, sim
    if weighting == "absolute":
        return sim, np.abs(sim)
    raise UsageError(f"unknown weighting {weighting!r}; known: {', '.join(WEIGHTINGS)}")


def _weighted_estimate(num, den, cnt, weighting: str, r_min: float, r_max: float) -> np.ndarray:
    """Mahout's estimate num / den with the no-estimate rules of ``weighting`` (see :data:`WEIGHTINGS`)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.asarray(num, dtype=np.float64) / np.asarray(den, dtype=np.float64)
    if weighting == "signed":
        est[np.asarray(cnt) <= 1] = np.nan  # "Throw out the estimate if it was based on ... just one"
        np.clip(est, r_min, r_max, out=est)  # EstimatedPreferenceCapper; NaN stays NaN
    else:
        est[np.asarray(den) == 0] = np.nan  # "totalSimilarity == 0.0 ? Float.NaN"
    return est


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

    def _fit(self) -> None:
        if self.similarity not in ("pearson", "cosine"):
            raise UsageError(f"userknn: similarity must be pearson or cosine, not {self.similarity!r}")
        if int(self.k) < 1:
            raise UsageError("userknn: k must be at least 1")
        _weights(np.zeros(1), self.weighting)  # validates the name
        d = self.data
        sim, _ = corated_similarity(d.R, d.B, centered=self.similarity == "pearson")
        np.fill_diagonal(sim, np.nan)  # Mahout's estimator skips the user itself
        self.neighbours = nearest_neighbours(sim, int(self.k), self.ties)
        r, c = self.neighbours.nonzero()
        w_num, w_den = _weights(sim[r, c], self.weighting)
        shape = self.neighbours.shape
        import scipy.sparse as sp

        self._Wn = sp.csr_matrix((w_num, (r, c)), shape=shape)
        self._Wd = sp.csr_matrix((w_den, (r, c)), shape=shape)

    def _block(self, users):
        d = self.data
        num = (self._Wn[users] @ d.R).toarray()
        den = (self._Wd[users] @ d.B).toarray()
        cnt = (self.neighbours[users] @ d.B).toarray() if self.weighting == "signed" else None
        est = _weighted_estimate(num, den, cnt, self.weighting, d.r_min, d.r_max)
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

    def _fit(self) -> None:
        d = self.data
        if self.similarity == "adjusted-cosine":
            sim = adjusted_cosine(d)
        elif self.similarity in ("pearson", "cosine"):
            Rt, Bt = d.R.T.tocsr(), d.B.T.tocsr()
            sim, _ = corated_similarity(Rt, Bt, centered=self.similarity == "pearson")
        else:
            raise UsageError(
                f"itemknn: similarity must be adjusted-cosine, pearson or cosine, not {self.similarity!r}"
            )
        defined = ~np.isnan(sim)
        w_num, w_den = _weights(np.where(defined, sim, 0.0), self.weighting)
        self._Wn_t = np.ascontiguousarray(np.where(defined, w_num, 0.0).T)
        self._Wd_t = np.ascontiguousarray(np.where(defined, w_den, 0.0).T)
        self._M_t = np.ascontiguousarray(defined.T.astype(np.float64)) if self.weighting == "signed" else None

    def _block(self, users):
        d = self.data
        num = d.R[users] @ self._Wn_t  # num[u, i] = sum_j r_uj w(sim(i, j))
        den = d.B[users] @ self._Wd_t
        cnt = d.B[users] @ self._M_t if self._M_t is not None else None
        est = _weighted_estimate(num, den, cnt, self.weighting, d.r_min, d.r_max)
        self._known_ratings(est, users)
        return est


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

    def _fit(self) -> None:
        d = self.data
        f = int(self.factors)
        lam = float(self.regularization)
        if f < 1 or lam < 0 or int(self.iterations) < 1:
            raise UsageError("mf: factors and iterations must be >= 1, regularization >= 0")
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


def _als_side(R: sp.csr_matrix, other: np.ndarray, other_bias: np.ndarray, mu: float, lam: float):
    """One ALS half-step: solve every row's [factors, bias] given the other side (ALS-WR regulariser).

    Row u solves (sum_i y_i y_i^T + lam |R(u)| I) x_u = sum_i y_i (r_ui - mu - b_i), y_i = [q_i, 1]; the
    Gram matrices of all rows come from one sparse product with the items' outer products, and the systems
    are solved as a batch (no Python loop over rows).
    """
    n, f = R.shape[0], other.shape[1]
    Y = np.hstack([other, np.ones((other.shape[0], 1))])
    outer = (Y[:, :, None] * Y[:, None, :]).reshape(Y.shape[0], -1)
    pattern = R.copy()
    pattern.data = np.ones_like(pattern.data)
    counts = np.diff(R.indptr)
    A = np.asarray(pattern @ outer).reshape(n, f + 1, f + 1)
    A += (lam * np.maximum(counts, 1))[:, None, None] * np.eye(f + 1)
    T = R.copy()
    T.data = T.data - mu - other_bias[T.indices]
    rhs = np.asarray(T @ Y)
    X = np.linalg.solve(A, rhs[:, :, None])[:, :, 0]
    X[counts == 0] = 0.0
    return X[:, :f], X[:, f]


class PureSVD(Recommender):
    """PureSVD (Cremonesi 2010, eq. 6): score r_ui = r_u . Q . q_i^T.

    R (users x items) is the training matrix with missing ratings as 0, Q (items x f) its f leading right
    singular vectors (R ~ U S Q^T). Exact SVD for matrices up to 10^7 cells, else ARPACK (``svds``) with a
    starting vector drawn from the seed; the score does not depend on the singular vectors' signs. No
    score for an unknown user or item.
    """

    name = "puresvd"
    defaults = {"factors": 50}

    def _fit(self) -> None:
        d = self.data
        f = int(self.factors)
        if f < 1:
            raise UsageError("puresvd: factors must be >= 1")
        small = min(d.n_users, d.n_items)
        if d.n_users * d.n_items <= 10_000_000 or f >= small - 1:
            _, _, vt = np.linalg.svd(d.R.toarray(), full_matrices=False)
            Q = vt[: min(f, vt.shape[0])].T
        else:
            from scipy.sparse.linalg import svds

            v0 = np.random.default_rng(self.seed).random(small)
            _, _, vt = svds(d.R, k=f, v0=v0, solver="arpack")
            Q = vt.T
        self._Q = np.ascontiguousarray(Q)

    def _block(self, users):
        return np.asarray(self.data.R[users] @ self._Q) @ self._Q.T


class _CremonesiKNN(Recommender):
    """Shared machinery of CorNgbr and NNCosNgbr: baselines, shrunk item similarities, D^k(u; i)."""

    normalised = True

    def _similarity(self) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _fit(self) -> None:
        if int(self.k) < 1 or float(self.shrinkage) < 0:
            raise UsageError(f"{self.name}: k must be >= 1 and shrinkage >= 0")
        self._mu, self._bu, self._bi = baselines(self.data, self.lambda_item, self.lambda_user)
        d = self._similarity()
        d[np.isnan(d)] = 0.0
        np.fill_diagonal(d, 0.0)  # an item is not its own neighbour
        self._D = d

    def _block(self, users):
        d = self.data
        k = int(self.k)
        out = np.empty((users.size, d.n_items))
        for row, u in enumerate(users):
            lo, hi = d.R.indptr[u], d.R.indptr[u + 1]
            rated = d.R.indices[lo:hi]
            resid = d.R.data[lo:hi] - (self._mu + self._bu[u] + self._bi[rated])
            sims = self._D[:, rated]  # items x rated
            # D^k(u; i): the (at most) k rated items most similar to i; only positive similarities count
            # as "similar", which also keeps eq. 1's denominator positive.
            pos = np.where(sims > 0, sims, 0.0)
            if rated.size > k:
                cut = np.partition(pos, rated.size - k, axis=1)[:, rated.size - k][:, None]
                top = pos >= cut
                # exact k: among equal similarities at the cut, the lower item index wins
                over = top.sum(axis=1) > k
                if over.any():
                    ranks = np.argsort(np.argsort(-pos[over], axis=1, kind="stable"), axis=1, kind="stable")
                    top[over] = ranks < k
                pos = np.where(top, pos, 0.0)
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
    (positive similarities only); b_ui from :func:`baselines`. With no similar rated item, r_ui = b_ui.
    """

    name = "corngbr"
    defaults = {"k": 200, "shrinkage": 100.0, "lambda_item": 25.0, "lambda_user": 10.0}
    normalised = True

    def _similarity(self):
        d = self.data
        sim, n = corated_similarity(d.R.T.tocsr(), d.B.T.tocsr(), centered=True)
        return shrink(sim, n, float(self.shrinkage))


class NNCosNgbr(_CremonesiKNN):
    """NNCosNgbr (Cremonesi 2010, eq. 2): r_ui = b_ui + sum_{j in D^k(u;i)} d_ij (r_uj - b_uj), no
    normalisation, so items with many similar rated items score higher.

    d_ij = n_ij / (n_ij + lambda) * cos(i, j), the cosine of the items' rating columns (missing = 0);
    D^k(u; i) and b_ui as for :class:`CorNgbr`.
    """

    name = "nncosngbr"
    defaults = {"k": 200, "shrinkage": 100.0, "lambda_item": 25.0, "lambda_user": 10.0}
    normalised = False

    def _similarity(self):
        d = self.data
        Rt = d.R.T.tocsr()
        num = (Rt @ Rt.T).toarray()
        norms = np.sqrt(np.asarray(Rt.multiply(Rt).sum(axis=1)).ravel())
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = num / np.outer(norms, norms)
        n = (d.B.T.tocsr() @ d.B).toarray()
        return shrink(cos, n, float(self.shrinkage))


# --------------------------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Algorithm:
    """A registered algorithm: its class, a one-line summary, and the paper it follows."""

    name: str
    factory: Callable[..., Recommender]
    summary: str
    source: str
    defaults: dict = field(default_factory=dict)


ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm("random", RandomScores, "uniform random scores (seeded hash of user, item)", "-"),
        Algorithm("toppop", TopPop, "number of training ratings of the item", "Cremonesi et al. 2010"),
        Algorithm("itemavg", ItemAvg, "mean training rating of the item (MovieAvg)", "Cremonesi et al. 2010"),
        Algorithm(
            "userknn", UserKNN, "Mahout user-based kNN (k nearest users, Pearson/cosine)", "Mahout 0.x"
        ),
        Algorithm(
            "itemknn", ItemKNN, "Mahout item-based kNN, adjusted cosine, all rated items", "Mahout 0.x"
        ),
        Algorithm(
            "mf", BiasedMF, "biased matrix factorisation, ALS-WR", "Zhou et al. 2008; Koren et al. 2009"
        ),
        Algorithm(
            "puresvd", PureSVD, "PureSVD: r_u Q q_i^T from a truncated SVD", "Cremonesi et al. 2010, eq. 6"
        ),
        Algorithm(
            "corngbr", CorNgbr, "baseline + normalised shrunk-Pearson kNN", "Cremonesi et al. 2010, eq. 1"
        ),
        Algorithm(
            "nncosngbr",
            NNCosNgbr,
            "baseline + non-normalised shrunk-cosine kNN",
            "Cremonesi et al. 2010, eq. 2",
        ),
    )
}

# The configurations the reproduced papers name, as (algorithm, parameters).
PRESETS: dict[str, tuple[str, dict]] = {
    "Random": ("random", {}),
    "TopPop": ("toppop", {}),
    "MovieAvg": ("itemavg", {}),
    "UB50": ("userknn", {"k": 50, "similarity": "pearson"}),
    "IB": ("itemknn", {"similarity": "adjusted-cosine"}),
    "SVD50": ("mf", {"factors": 50}),
    "PureSVD50": ("puresvd", {"factors": 50}),
    "PureSVD150": ("puresvd", {"factors": 150}),
    "CorNgbr": ("corngbr", {}),
    "NNCosNgbr": ("nncosngbr", {}),
}


def algorithm_names() -> list[str]:
    """Every name ``make_recommender`` accepts: algorithms, then presets (case-insensitive duplicates once)."""
    return [*ALGORITHMS, *(p for p in PRESETS if p.lower() not in ALGORITHMS)]


def resolve(name: str) -> tuple[str, dict]:
    """(algorithm, preset parameters) for an algorithm or preset name (case-insensitive)."""
    lowered = {k.lower(): k for k in PRESETS}
    if name in ALGORITHMS:
        return name, {}
    if name.lower() in ALGORITHMS:
        return name.lower(), {}
    if name.lower() in lowered:
        algo, params = PRESETS[lowered[name.lower()]]
        return algo, dict(params)
    raise UsageError(f"unknown algorithm {name!r}; known: {', '.join(algorithm_names())}")


def make_recommender(name: str, *, seed: int = 0, **params) -> Recommender:
    """A recommender by algorithm or preset name; ``params`` override the preset's / defaults."""
    algo, preset = resolve(name)
    return ALGORITHMS[algo].factory(seed=seed, **{**preset, **params})


def parse_param(text: str, algorithm: str) -> tuple[str, Any]:
    """``KEY=VALUE`` typed like the algorithm's default for KEY (int, float or str)."""
    if "=" not in text:
        raise UsageError(f"--param expects KEY=VALUE, got {text!r}")
    key, raw = text.split("=", 1)
    key = key.strip().replace("-", "_")
    algo, _ = resolve(algorithm)
    defaults = ALGORITHMS[algo].factory.defaults
    if key not in defaults:
        known = ", ".join(defaults) or "none"
        raise UsageError(f"{algo}: unknown parameter {key!r}; known: {known}")
    kind = type(defaults[key])
    try:
        value = kind(float(raw)) if kind is int and float(raw).is_integer() else kind(raw)
    except ValueError:
        raise UsageError(f"{algo}: parameter {key} expects {kind.__name__}, got {raw!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"{algo}: parameter {key} must be finite")
    return key, value


def recommend(train: pl.DataFrame, pairs: pl.DataFrame, algorithm: str, *, seed: int = 0, **params) -> Scores:
    """Fit ``algorithm`` on ``train`` and score the distinct (user, item) pairs of ``pairs``."""
    return make_recommender(algorithm, seed=seed, **params).fit(train).score(pairs)
