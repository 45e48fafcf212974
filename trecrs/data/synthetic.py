"""A seeded generator of small MovieLens-like rating data, for examples, tests and trying pipelines out.

The data are synthetic (no MovieLens rating is used), so they can be shipped with the project. They mimic
what matters to offline evaluation on MovieLens 100K:

* **who rates what** is popularity-skewed (a long tail): item ``i`` is chosen by user ``u`` with weight
  ``pop_i * exp(1.5 <p_u, q_i>)``, ``pop`` Zipf-like (``rank^-zipf``), so ratings are missing not at random
  and taste correlates with what is rated;
* **how many**: every user has at least ``min_ratings`` (20, as in every MovieLens release) plus a
  log-normal number more, so a few users rate a lot;
* **the ratings** come from a latent-factor model ``b_u + b_i + 2 <p_u, q_i> + noise`` (item bias grows
  with popularity), cut into 1..5 stars at the quantiles of MovieLens 100K's star histogram
  (6.1%, 11.4%, 27.1%, 34.2%, 21.2%);
* **timestamps**: a user rates in sessions (90% of gaps minutes long, 10% days long), and the user's
  whole activity is placed at a uniform position inside a seven-month window starting on ML-100K's first
  timestamp (1997-09-20);
* **file order** is random, as in ``u.data``, so line-position splits (``mku.sh``) behave as on ML-100K.

Every item is rated at least once. The same parameters and seed give the same table, byte for byte.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ..errors import UsageError
from ..ranges import SYNTHETIC_CELLS_MAX, SYNTHETIC_MAX, check_int
from ..schema import ITEM, RATING, RATINGS_SCHEMA, TIMESTAMP, USER

PathLike = str | os.PathLike

#: MovieLens 100K's share of 1..5 star ratings (from its u.data), the target histogram.
ML100K_STAR_SHARES = (0.06110, 0.11370, 0.27145, 0.34174, 0.21201)
_T0 = 874_724_710  # 1997-09-20, the first ML-100K timestamp
_SPAN = 18_000_000  # about seven months, ML-100K's time span


def generate(
    n_users: int = 300,
    n_items: int = 600,
    *,
    seed: int = 42,
    min_ratings: int = 20,
    median_extra: float = 35.0,
    factors: int = 8,
    zipf: float = 1.0,
) -> pl.DataFrame:
    """A synthetic ratings table ``user item rating timestamp`` (ids ``"1".."n"``), in random file order.

    ``min_ratings`` ratings per user at least; the number above that is log-normal with median
    ``median_extra`` (sigma 1.1), capped at 60% of the items. ``zipf`` is the popularity exponent,
    ``factors`` the latent dimension. Deterministic in ``seed`` (numpy PCG64).
    """
    check_int(n_users, 1, SYNTHETIC_MAX, "n_users", arguments=["n_users"])
    check_int(n_items, 2, SYNTHETIC_MAX, "n_items", arguments=["n_items"])
    check_int(min_ratings, 1, SYNTHETIC_MAX, "min_ratings", arguments=["min_ratings"])
    if n_items < min_ratings + 1:
        raise UsageError(
            f"need more items than min_ratings={min_ratings}, got {n_items}",
            arguments=["n_items", "min_ratings"],
        )
    if n_users * n_items > SYNTHETIC_CELLS_MAX:
        raise UsageError(
            f"{n_users} users x {n_items} items is {n_users * n_items:,} pairs; the generator draws "
            f"a dense users x items matrix and takes at most {SYNTHETIC_CELLS_MAX:,}",
            arguments=["n_users", "n_items"],
        )
    rng = np.random.default_rng(seed)
    # Popularity: Zipf weights assigned to items in random id order (ids do not reveal popularity).
    pop = np.arange(1, n_items + 1, dtype=float) ** -zipf
    pop = pop[rng.permutation(n_items)]
    p = rng.normal(0, 1 / np.sqrt(factors), (n_users, factors))
    q = rng.normal(0, 1 / np.sqrt(factors), (n_items, factors))
    affinity = p @ q.T  # users x items

    cap = max(min_ratings, int(0.6 * n_items))
    extra = np.floor(rng.lognormal(np.log(median_extra), 1.1, n_users)).astype(int)
    counts = np.minimum(min_ratings + extra, cap)

    # Who rates what: weighted sampling without replacement by the Gumbel top-k trick.
    logw = np.log(pop)[None, :] + 1.5 * affinity
    keys = logw + rng.gumbel(size=(n_users, n_items))
    order = np.argsort(-keys, axis=1, kind="stable")
    rated = np.zeros((n_users, n_items), dtype=bool)
    for u in range(n_users):  # n_users rows of a small matrix: cheap
        rated[u, order[u, : counts[u]]] = True
    # Every item gets at least one rating: give an unrated item to the user who wants it most.
    unrated = np.flatnonzero(~rated.any(axis=0))
    rated[np.argmax(keys[:, unrated], axis=0), unrated] = True

    uu, ii = np.nonzero(rated)
    b_u = rng.normal(0, 0.4, n_users)
    b_i = 0.5 * (np.log(pop) - np.log(pop).mean()) / np.log(pop).std() + rng.normal(0, 0.3, n_items)
    latent = b_u[uu] + b_i[ii] + 2.0 * affinity[uu, ii] + rng.normal(0, 0.6, uu.size)
    # Stars: cut the latent scores at the quantiles of ML-100K's histogram (ties broken by position).
    cuts = np.quantile(latent, np.cumsum(ML100K_STAR_SHARES)[:-1])
    stars = 1 + np.searchsorted(cuts, latent, side="right")

    # Time: session gaps (mostly minutes, sometimes days); each user's span placed uniformly in the window.
    join = rng.random(n_users)  # where in the window the user's activity starts (a fraction of the slack)
    gaps = np.where(
        rng.random(uu.size) < 0.9, rng.exponential(60, uu.size), rng.exponential(86_400 * 7, uu.size)
    )
    gaps = np.maximum(1, gaps.astype(np.int64))
    tie = rng.permutation(uu.size)  # the order a user rated items in: random, not by id
    by_user = np.lexsort((tie, uu))
    users_sorted = uu[by_user]
    csum = np.cumsum(gaps[by_user])
    start = np.r_[0, np.flatnonzero(np.diff(users_sorted)) + 1]
    sizes = np.diff(np.r_[start, uu.size])
    offset = csum - np.repeat(csum[start], sizes)  # seconds since the user's first rating
    duration = np.maximum.reduceat(offset, start)
    # A user whose activity would outlast the window is squeezed into it (never clipped: no fake ties).
    scale = np.minimum(1.0, _SPAN / np.maximum(duration, 1))
    offset = (offset * np.repeat(scale, sizes)).astype(np.int64)
    duration = (duration * scale).astype(np.int64)
    first = _T0 + (join[users_sorted[start]] * (_SPAN - duration)).astype(np.int64)
    ts = np.empty(uu.size, dtype=np.int64)
    ts[by_user] = np.repeat(first, sizes) + offset

    shuffle = rng.permutation(uu.size)  # random line order, as in u.data
    df = pl.DataFrame(
        {
            USER: pl.Series(uu[shuffle] + 1).cast(
                pl.Utf8
            ),  # not numpy's fixed-width strings: 4 bytes a character
            ITEM: pl.Series(ii[shuffle] + 1).cast(pl.Utf8),
            RATING: stars[shuffle].astype(float),
            TIMESTAMP: ts[shuffle],
        }
    )
    return df.select([pl.col(c).cast(t) for c, t in RATINGS_SCHEMA.items()])


def write_synthetic(
    out_dir: PathLike,
    n_users: int = 300,
    n_items: int = 600,
    *,
    seed: int = 42,
    command: list[str] | None = None,
    **kwargs: Any,
) -> Path:
    """Generate (see :func:`generate`) and write ``OUT_DIR/u.data`` (ML-100K layout) with its manifest."""
    from ..files.manifest import write_manifest
    from ..files.ratings import write_ratings

    df = generate(n_users, n_items, seed=seed, **kwargs)
    path = Path(out_dir) / "u.data"
    write_ratings(df, path, fmt="ml100k")
    # "generator" names the algorithm, not a module path: it stays as recorded in the bundled sample's
    # manifest so that regenerating the sample gives the same bytes
    write_manifest(
        path,
        "ratings",
        parameters={
            "generator": "trecrs.synthetic.generate",
            "n_users": n_users,
            "n_items": n_items,
            "seed": seed,
            **kwargs,
        },
        command=command,
        extra={"synthetic": True, "ratings": df.height},
    )
    return path


__all__ = ["ML100K_STAR_SHARES", "generate", "write_synthetic"]
