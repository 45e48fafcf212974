"""Rows of a ratings table chosen by a mask, and each row's rank within its user: the split's own work.

A split is decided as a boolean mask over the table's rows in file order (:class:`Rows`); the rows are
copied into a frame only when someone asks for one, so train and test files are written straight from
the table (:func:`trecrs.files.ratings_write.write_rows`) and k folds cost k masks, not k copies. The
table's ids may be coded (UInt32 numbers, :func:`~trecrs.files.ratings.read_ratings`): a frame of rows
has them as text again.
Users are ranked (:func:`per_user_rank`) on integers: one user code per row (:class:`Table`), a sort key
and the file position, never by sorting the table's strings.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..ids import id_codes
from ..schema import ITEM, USER


class Rows:
    """The rows of a ratings table where ``keep`` is true (every row when None), in file order; the frame of
    those rows is built only when asked for (a split is written from the table and the mask)."""

    def __init__(self, table: pl.DataFrame | Table, keep: np.ndarray | None = None):
        self.table = table if isinstance(table, Table) else Table(table)
        self.keep = keep
        self.height = self.table.ratings.height if keep is None else int(np.count_nonzero(keep))
        self._frame: pl.DataFrame | None = None

    @property
    def ratings(self) -> pl.DataFrame:
        """The whole table the rows are chosen from."""
        return self.table.ratings

    def frame(self) -> pl.DataFrame:
        """The rows as a ratings table (built once)."""
        if self._frame is None:
            keep = self.keep
            frame = self.ratings if keep is None else self.ratings.filter(pl.Series(keep))
            self._frame = frame.with_columns(pl.col(USER, ITEM).cast(pl.Utf8))  # coded ids as written
        return self._frame

    def users(self) -> int:
        """How many distinct users the rows hold."""
        if self.keep is None:
            return self.ratings.get_column(USER).n_unique() if self.height else 0
        return int(np.count_nonzero(np.bincount(self.table.codes[self.keep])))


class Table:
    """A ratings table and, computed once when first needed, an integer code for each row's user."""

    def __init__(self, ratings: pl.DataFrame):
        self.ratings = ratings
        self._codes: np.ndarray | None = None

    @property
    def codes(self) -> np.ndarray:
        """Each row's user as a small non-negative integer (equal ids, equal codes)."""
        if self._codes is None:
            self._codes = id_codes(self.ratings.get_column(USER))
        return self._codes


def per_user_rank(table: Table, key: np.ndarray, descending: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Each row's 1-based rank within its user by ``key`` (ties by file order: a later line counts as
    later, so it comes first when ``descending``) and each code's rating count (``np.bincount``).

    One stable sort ranks the rows by key over the whole table; a second orders them by user, then rank
    (both keys in one integer, so no ties). The rank within a user is the position after the user's start.
    """
    codes = table.codes
    n = codes.size
    rank = np.empty(n, dtype=np.int64)
    rank[stable_order(key)] = np.arange(n, dtype=np.int64)
    if descending:  # the reverse of (key, file order) is (key, file order) descending
        rank = (n - 1) - rank
    bits = max(int(n).bit_length(), 1)
    order = stable_order((codes << bits) | rank)
    counts = np.bincount(codes)
    starts = np.cumsum(counts) - counts
    nth = np.empty(n, dtype=np.int64)
    nth[order] = np.arange(1, n + 1, dtype=np.int64) - starts[codes[order]]
    return nth, counts


def stable_order(values: np.ndarray) -> np.ndarray:
    """The permutation sorting ``values`` ascending, ties in their order (polars' parallel sort)."""
    frame = pl.DataFrame({"v": values})
    return frame.select(pl.arg_sort_by("v", maintain_order=True)).to_series().to_numpy()


__all__ = ["Rows", "Table", "per_user_rank", "stable_order"]
