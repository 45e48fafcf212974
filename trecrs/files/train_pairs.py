"""Training pairs: the (user, item) pairs of a ratings file, all an AllItems exclusion needs.

A factor model's AllItems run leaves out each user's training items, so ``eval-factors`` and
:func:`trecrs.evaluate_factors` need only which items each user rated. :func:`read_train_pairs` is
:func:`~trecrs.files.ratings.read_ratings` returning the ``user item`` columns: the same layouts, detected
the same way, the same checks (the ratings and timestamps are checked, then dropped) and the same errors
naming the same line.
"""

from __future__ import annotations

import polars as pl

from ..schema import ITEM, USER
from .parquet import PathLike
from .ratings import read_ratings


def read_train_pairs(path: PathLike, *, fmt="auto", columns=None, separator=None) -> pl.DataFrame:
    """The ``user item`` pairs (strings, in file order) of a ratings file, checked as
    :func:`~trecrs.files.ratings.read_ratings` checks it.

    ``fmt``, ``columns``, ``separator``: as for :func:`~trecrs.files.ratings.read_ratings`. A malformed
    line (too few fields, an empty id, a rating that is not a finite number in range, a timestamp that
    is not an integer) or a (user, item) pair given twice is the :class:`~trecrs.errors.InputError`
    ``read_ratings`` raises for it (``FILE:LINE: reason``; a Parquet file's rows are named in the reason).
    """
    return read_ratings(path, fmt=fmt, columns=columns, separator=separator, roles=(USER, ITEM))


__all__ = ["read_train_pairs"]
