"""What every recommender shares: training ratings coded as sparse matrices, the base class, the scores.

:class:`Recommender` fits on training ratings (``user item rating``) and scores exactly the (user, item)
pairs it is asked about; :class:`Scores` is what it returns. Also here: the similarity measures and
baseline estimates more than one algorithm builds on.

Everything is vectorised with numpy / scipy.sparse over index-coded users and items (ids sorted in
natural order: numeric when all ids are integers), scoring users in blocks so memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from ..errors import InputError, UsageError, warn
from ..ids import codes, natural_sort, natural_unique
from ..ranges import check_seed
from ..schema import ITEM, RATING, SCORE, USER
from ..threads import one_thread

if TYPE_CHECKING:  # scipy is imported where it is used, keeping `import trecrs` (every command) fast
    import scipy.sparse as sp


_BLOCK_CELLS = 4_000_000  # dense cells per scoring block (32 MB of float64)
# Fitting and scoring run with one BLAS thread (trecrs.threads); scipy's BLAS (ARPACK, scipy.linalg) is a
# library of its own, loaded here before the pools are pinned.
_BLAS_MODULES = ("scipy.sparse.linalg",)
_UIDX = "_uidx"
_IIDX = "_iidx"


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


def baseline_estimates(data: RatingData, lambda_item: float = 25.0, lambda_user: float = 10.0):
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
    """What :meth:`Recommender.score` returns: the scored pairs and how many the model could not score."""

    frame: pl.DataFrame  # user, item, score (finite), natural (user, item) order
    n_pairs: int  # distinct (user, item) pairs asked
    n_unscored: int  # of which the model could not score
    n_fallback: int = 0  # of those, how many got the fallback score (the rest are left out)


def popularity_below(model: Recommender, values: np.ndarray, items: np.ndarray) -> np.ndarray:
    """The fallback scores of pairs the model could not score (``values`` NaN), with ``items`` their codes.

    Rule: below every score the model gave in the same call, ordered by the item's number of training
    ratings: f = lo - 1 - r, lo the lowest model score (0 when there is none), r the rank of the item's
    popularity among the fallback pairs, 0 for the most popular (equal counts share r; an item absent
    from training counts 0). So the model's own ranking is never changed, and what it cannot rank comes
    after it, most popular first (TopPop, Cremonesi et al. 2010, the usual cold-start answer). Integer
    steps survive trec_eval's float32 scores.
    """
    scored = values[np.isfinite(values)]
    lo = float(scored.min()) if scored.size else 0.0
    missing = ~np.isfinite(values)
    counts = np.diff(model._fitted.R.tocsc().indptr)
    pop = np.where(items[missing] >= 0, counts[np.maximum(items[missing], 0)], 0)
    distinct = np.unique(pop)  # ascending: the rank from the top is (#distinct - 1 - position)
    rank = distinct.size - 1 - np.searchsorted(distinct, pop)
    out = values.copy()
    out[missing] = lo - 1.0 - rank
    return out


# What ``Recommender.score`` does with the pairs the model cannot score (``trecrs recommend --unscored``):
# name -> (rule, how the scores are completed; None leaves them out)
UNSCORED: dict[str, tuple[str, Callable[..., np.ndarray] | None]] = {
    "fallback": (
        "scored below every model score, most popular training item first (popularity_below)",
        popularity_below,
    ),
    "drop": ("left out of the scores (and counted): only the model's own scores", None),
}


class Recommender:
    """Base class: ``fit(train)`` then ``score(pairs)``. Subclasses implement ``_fit`` and ``_block``.

    ``_block(users)`` returns the dense scores (len(users) x n_items) of known users, NaN where the model
    has no score; ``_score_coded`` may be overridden instead for models that score unknown ids too.
    """

    name = "recommender"
    # Parameters a subclass accepts, with defaults (:func:`registry.parse_param` types KEY=VALUE by them).
    defaults: dict[str, Any] = {}

    def __init__(self, seed: int = 0, **params):
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            known = ", ".join(self.defaults) or "none"
            raise UsageError(f"{self.name}: unknown parameter(s) {', '.join(unknown)}; known: {known}")
        self.seed = check_seed(int(seed))
        self.params = {**self.defaults, **params}
        for key, value in self.params.items():
            setattr(self, key, value)
        self.data: RatingData | None = None

    @property
    def _fitted(self) -> RatingData:
        """The training data :meth:`fit` coded (a UsageError before ``fit``)."""
        if self.data is None:
            raise UsageError(f"{self.name}: fit() before score()")
        return self.data

    # ---- public
    def fit(self, train: pl.DataFrame) -> Recommender:
        """Learn from training ratings (columns ``user, item, rating``); returns ``self``.

        Runs with one BLAS / OpenMP thread (:func:`trecrs.threads.one_thread`): a model is then a function
        of its training data, parameters and seed alone, the same bytes on any number of cores.
        """
        with one_thread(*_BLAS_MODULES):
            self.data = RatingData.from_frame(train)
            self._fit()
        return self

    def score(self, pairs: pl.DataFrame, *, unscored: str = "drop") -> Scores:
        """Score the distinct (user, item) pairs of ``pairs`` (columns ``user, item``; others ignored).

        ``unscored`` (:data:`UNSCORED`): what happens to a pair the model cannot score: ``drop`` (the
        default here: the model's own scores, as rating predictions need) leaves it out; ``fallback``
        gives it :func:`popularity_below`'s score and warns with the count (``TrecrsWarning``). Scores
        are computed with one BLAS / OpenMP thread, as :meth:`fit` fits.
        """
        if self.data is None:
            raise UsageError(f"{self.name}: fit() before score()")
        complete = option(self.name, "unscored", unscored, UNSCORED)[1]
        for c in (USER, ITEM):
            if c not in pairs.columns:
                raise InputError(None, None, f"pairs lack column {c!r}; have {pairs.columns}")
        distinct = pairs.select(pl.col(USER).cast(pl.Utf8), pl.col(ITEM).cast(pl.Utf8)).unique()
        distinct = natural_sort(distinct, [USER, ITEM]) if distinct.height else distinct
        u, i = self.data.code_pairs(distinct)
        with one_thread(*_BLAS_MODULES):
            values = self._score_coded(u, i, distinct)
        n_unscored = int((~np.isfinite(values)).sum())
        if complete is not None and n_unscored:
            values = complete(self, values, i)
            _warn_fallbacks(self.name, n_unscored, distinct.height)
        ok = np.isfinite(values)
        frame = distinct.with_columns(pl.Series(SCORE, values, dtype=pl.Float64)).filter(pl.Series(ok))
        return Scores(frame, distinct.height, n_unscored, n_unscored if complete is not None else 0)

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
        step = max(1, _BLOCK_CELLS // max(1, self._fitted.n_items))
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
        sub = self._fitted.R[users]
        r, c = sub.nonzero()
        block[r, c] = np.asarray(sub[r, c]).ravel()


def _warn_fallbacks(name: str, n: int, total: int) -> None:
    warn(
        f"{name}: {n:,} of {total:,} distinct pairs ({100 * n / total:.1f}%) could not be scored by the model "
        "and got the fallback score (below every model score, most popular item first; "
        "--unscored drop, unscored='drop' in Python, leaves them out)"
    )


def option(owner: str, what: str, value: str, known: dict[str, Any]) -> Any:
    """``known[value]``: the registered rule ``value`` names, or a UsageError listing the names known."""
    if value not in known:
        names = list(known)
        listed = " or ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]
        raise UsageError(f"{owner}: {what} must be {listed}, not {value!r}")
    return known[value]
