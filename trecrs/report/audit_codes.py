"""The audit's ids as integers: each (user, item) row of a ratings input coded once per audit, so that the
checks that compare a split's parts, a run or candidates with the training ratings work on integers.

A row's code is :func:`trecrs.ids.pair_codes`' (the polars categorical code of the user in the high 32
bits, of the item in the low ones). Polars' categorical codes are global to the process while some
categorical column is alive (once none is, the next cast starts again from 0), so the audit keeps an
empty one for as long as its codes serve (:func:`_anchor`): then two columns coded at different times
agree, an id has one code wherever it occurs, and the user and the item of a row are read back from its
pair code (``>> 32``, ``& 0xFFFFFFFF``) for the checks that need one of them alone. Codes are dense (one
per distinct string coded meanwhile), so a per-user or per-item table is an array indexed by code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..ids import pair_codes
from ..schema import ITEM, USER

if TYPE_CHECKING:
    from .audit_checks import AuditInputs

_LOW = np.uint64(0xFFFFFFFF)


def _anchor(a: AuditInputs) -> None:
    """Keep polars' global categories (and so every code given so far) for the audit's lifetime."""
    a.cache.setdefault("categories", pl.Series([], dtype=pl.Utf8).cast(pl.Categorical))


def rows(a: AuditInputs, part: str) -> np.ndarray:
    """The pair code of each row of ``a.train`` or ``a.test`` (``part``), computed once per audit.

    The training ids are then dropped from ``a.train``: their strings are the audit's largest memory (80M
    ratings: 2.5 GB), every check reads them from the codes, and an example decodes its own
    (:func:`smallest_pair`)."""
    _anchor(a)
    key = ("pair codes", part)
    if key not in a.cache:
        df = getattr(a, part)
        if df is None:
            raise ValueError("an audit check ran without an input it needs")
        a.cache[key] = pair_codes(df.get_column(USER), df.get_column(ITEM))
        if part == "train":
            a.train = df.drop(USER, ITEM)
    return a.cache[key]


def strings(codes: np.ndarray) -> pl.Series:
    """The ids of codes (users or items, as :func:`users` and :func:`items` give them)."""
    return pl.Series(codes.astype(np.uint32)).cat.to(pl.Categorical).cast(pl.Utf8)


def smallest_pair(a: AuditInputs, part: str, mask: np.ndarray) -> tuple[str, str, int] | None:
    """The smallest (bytewise) user and item of the rows of ``part`` where ``mask`` holds, and the first such
    row's index; None when there is none. Only the distinct users, then that user's items, are decoded."""
    code = rows(a, part)
    if not mask.any():
        return None
    row_users = users(code)
    found = np.flatnonzero(present(row_users[mask], span(row_users)))
    user = int(found[strings(found).arg_min() or 0])
    mine = mask & (row_users == user)
    row_items = items(code[mine])
    item = int(row_items[strings(row_items).arg_min() or 0])
    row = int(np.flatnonzero(mine)[np.argmax(row_items == item)])
    return str(strings(np.array([user]))[0]), str(strings(np.array([item]))[0]), row


def users(codes: np.ndarray) -> np.ndarray:
    """The user code of each pair code."""
    return (codes >> np.uint64(32)).astype(np.intp)


def items(codes: np.ndarray) -> np.ndarray:
    """The item code of each pair code."""
    return (codes & _LOW).astype(np.intp)


def present(codes: np.ndarray, size: int) -> np.ndarray:
    """A boolean table over codes ``0 .. size - 1``: True where a code occurs in ``codes``."""
    out = np.zeros(size, dtype=bool)
    out[codes] = True
    return out


def span(*codes: np.ndarray) -> int:
    """One more than the largest code of the arrays: the size of a table indexed by any of them."""
    return 1 + max((int(c.max()) for c in codes if c.size), default=-1)


def training_pair(a: AuditInputs, user_ids: pl.Series, item_ids: pl.Series) -> pl.Series:
    """Whether each (user, item) row is a training pair (ids as written), by their pair codes."""
    _anchor(a)
    return pl.Series(in_training(a, pair_codes(user_ids, item_ids)))


def in_training(a: AuditInputs, codes: np.ndarray) -> np.ndarray:
    """Whether each pair code is a training row's. The training rows (the audit's largest array) are
    probed against a hash table of ``codes`` (a run, the test set: the smaller side), and each code is
    then looked up among the few training codes found, so no table of every training pair is built."""
    probe = pl.DataFrame({"k": codes})
    found = pl.DataFrame({"k": rows(a, "train")}).join(probe, on="k", how="semi")  # hashes its right side
    return probe.get_column("k").is_in(found.get_column("k").implode()).to_numpy()


def distinct(a: AuditInputs, part: str, column: str) -> pl.Series:
    """The distinct ids of ``column`` (user or item) of ``a.train`` or ``a.test``, read from the row codes
    (no pass over the strings)."""
    codes = rows(a, part)
    of = users(codes) if column == USER else items(codes)
    found = np.flatnonzero(present(of, span(of))).astype(np.uint32)
    return pl.Series(column, found).cat.to(pl.Categorical).cast(pl.Utf8)


def training_counts(a: AuditInputs, ids: pl.Series) -> pl.Series:
    """The number of training ratings of each item of ``ids`` (0 for an item nobody rated): TopPop's
    score, φ(i) of :func:`trecrs.data.popularity.item_popularity`, counted once per audit by item code."""
    if "item counts" not in a.cache:
        a.cache["item counts"] = np.bincount(items(rows(a, "train")))
    counts = a.cache["item counts"]  # (rows() anchored the codes)
    code = ids.cast(pl.Utf8).cast(pl.Categorical).to_physical().to_numpy().astype(np.intp)
    out = np.zeros(code.size, dtype=np.int64)
    known = code < counts.size
    out[known] = counts[code[known]]
    return pl.Series(ids.name, out)
