"""Non-personalised baselines: random scores, popularity (TopPop) and item mean rating (MovieAvg).

Cremonesi, Koren, Turrin, "Performance of recommender algorithms on top-N recommendation tasks",
RecSys 2010, section 3 (TopPop, MovieAvg).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..ids import hash_ids, mix64
from ..schema import ITEM, USER
from .base import Recommender, _row_means


class RandomScores(Recommender):
    """Uniform scores in [0, 1): a 64-bit hash of (seed, user id, item id), so a pair's score does not
    depend on which other pairs are scored or in which order."""

    name = "random"

    def _fit(self) -> None:
        pass

    def _score_coded(self, u, i, pairs):
        return random_scores(pairs.get_column(USER), pairs.get_column(ITEM), self.seed)


def random_scores(users: pl.Series, items: pl.Series, seed: int) -> np.ndarray:
    """:class:`RandomScores`' score of each (user, item) row: splitmix64 of the 64-bit hashes of the two ids
    and the seed, its top 53 bits as a float in [0, 1) (each distinct id hashed once)."""
    hu = hash_ids(users)
    hi = hash_ids(items)
    key = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    x = mix64(hu ^ mix64(hi + key, add_gamma=True), add_gamma=True)
    return (x >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


class TopPop(Recommender):
    """Popularity: the number of training ratings of the item (Cremonesi 2010, "TopPop"); 0 for an item
    nobody rated. The same score for every user, known or not."""

    name = "toppop"

    def _fit(self) -> None:
        self._count = np.diff(self._fitted.R.tocsc().indptr).astype(np.float64)

    def _score_coded(self, u, i, pairs):
        return np.where(i >= 0, self._count[np.maximum(i, 0)], 0.0)


class ItemAvg(Recommender):
    """Item mean rating: mean of the item's training ratings (Cremonesi 2010, "MovieAvg"); no score for an
    item nobody rated. The same score for every user, known or not."""

    name = "itemavg"

    def _fit(self) -> None:
        self._mean = _row_means(self._fitted.R.T.tocsr())

    def _score_coded(self, u, i, pairs):
        return np.where(i >= 0, self._mean[np.maximum(i, 0)], np.nan)
