"""Integer-coded splits: the form every methodology builds its candidates from.

Users and items are numbered in natural id order (:func:`trecrs.ids.natural_key`); a coded frame holds
``_u`` (user code), ``_i`` (item code) and, for candidates, ``_q`` (query code).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

# Column names of coded frames: user, item and query codes.
_U, _I, _Q = "_u", "_i", "_q"
# Rows of candidates materialised at once (a users x items bool mask of about this many cells).
CHUNK_ROWS = 4_000_000


@dataclass
class IndexedSplit:
    """A validated train/test split with integer codes: users and items numbered in natural id order.

    ``items`` is the catalogue I (the given one, else the items of train ∪ test); ``users`` every user of
    train ∪ test. ``train`` / ``test`` hold codes ``_u``, ``_i`` (``test`` its ``rating`` too), sorted by
    (user, item).
    """

    users: pl.Series
    items: pl.Series
    train: pl.DataFrame
    test: pl.DataFrame
    catalogue_given: bool = False

    @property
    def query_users(self) -> np.ndarray:
        """Codes of the users with test ratings, ascending (natural id order)."""
        return np.unique(self.test.get_column(_U).to_numpy())

    def item_mask(self, frame: pl.DataFrame) -> np.ndarray:
        """Bool mask over ``items`` of the items appearing in ``frame`` (``train`` or ``test``)."""
        mask = np.zeros(self.items.len(), dtype=bool)
        mask[frame.get_column(_I).to_numpy()] = True
        return mask


@dataclass(frozen=True)
class CandidateOptions:
    """Options of candidate generation (only One-Plus-Random uses ``n``, ``seed``, ``pool``, the threshold)."""

    n: int = 1000
    relevant_threshold: float = 5.0
    seed: int | None = None
    pool: str = "all"
    long_tail: float | None = None
    chunk_rows: int = CHUNK_ROWS


def rated_rows(frame: pl.DataFrame, users: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(user code, item code) arrays of ``frame`` (sorted by user) for users in ``users`` (ascending)."""
    u = frame.get_column(_U).to_numpy()
    lo = int(np.searchsorted(u, users[0], side="left"))
    hi = int(np.searchsorted(u, users[-1], side="right"))
    su = u[lo:hi]
    si = frame.get_column(_I).to_numpy()[lo:hi]
    keep = np.isin(su, users)
    return su[keep], si[keep]


def pair_keys(frame: pl.DataFrame, n_items: int) -> np.ndarray:
    """One int64 per row of a coded frame: ``_u * n_items + _i`` (ascending for a frame sorted by
    (user, item), as ``IndexedSplit.train`` / ``test`` are)."""
    keys = frame.get_column(_U).to_numpy().astype(np.int64)  # one array: a split's size, not three
    keys *= n_items
    keys += frame.get_column(_I).to_numpy()
    return keys


def in_sorted(ordered: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Bool mask: which of ``keys`` are in the ascending array ``ordered`` (one binary search each)."""
    if ordered.size == 0:
        return np.zeros(keys.size, dtype=bool)
    at = np.minimum(np.searchsorted(ordered, keys), ordered.size - 1)
    return ordered[at] == keys
