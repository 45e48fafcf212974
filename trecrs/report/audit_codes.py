"""The audit's ids as integers: each (user, item) row of a ratings input coded once per audit, so that the
checks that compare a split's parts, a run or candidates with the training ratings work on integers.

A row's code holds the user's code in the high 32 bits and the item's in the low ones; the user and the
item of a row are read back from it (``>> 32``, ``& 0xFFFFFFFF``) for the checks that need one of them
alone, and a per-user or per-item table is an array indexed by code. An id's code is, per audit:

* its own number, when every user and item id of ``--train`` and ``--test`` is a plain decimal (no sign,
  no leading zero: ``7`` and ``007`` stay apart) below twice their count plus 65536 (a large training file
  is read with coded ids, :func:`~trecrs.files.ratings.read_ratings`, and never held as text): a parse, where a
  categorical code costs a hash of every string (MovieLens and Netflix ids). An id of another input that
  is no such number is no training id, and gets a code no training row has;
* else its polars categorical code (:func:`trecrs.ids.pair_codes`). Polars' categorical codes are global
  to the process while some categorical column is alive (once none is, the next cast starts again from 0),
  so the audit keeps an empty one for as long as its codes serve (:func:`_anchor`): then two columns coded
  at different times agree, and an id has one code wherever it occurs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..ids import pair_codes, plain_decimal
from ..schema import ITEM, USER

if TYPE_CHECKING:
    from .audit_checks import AuditInputs

_LOW = np.uint64(0xFFFFFFFF)


def _anchor(a: AuditInputs) -> None:
    """Keep polars' global categories (and so every code given so far) for the audit's lifetime."""
    a.cache.setdefault("categories", pl.Series([], dtype=pl.Utf8).cast(pl.Categorical))


def _numbers(ids: pl.Series, top: int) -> np.ndarray:
    """Each id's number when it is a plain decimal (:func:`~trecrs.ids.plain_decimal`) below ``top``, else -1.
    Coded ids (an integer column, :func:`~trecrs.files.ratings.read_ratings`) are plain decimals already."""
    if ids.dtype.is_integer():
        num = ids.cast(pl.UInt32).to_numpy()
        out = num.astype(np.int32, casting="unsafe")  # top < 2**31: a number that wraps is above it
        out[num >= top] = -1
        return out
    text = ids.cast(pl.Utf8)
    num = text.cast(pl.UInt32, strict=False)
    plain = text.to_frame("id").select(plain_decimal(pl.col("id"))).to_series() & (num < top)
    return num.cast(pl.Int64).set(~plain, -1).cast(pl.Int32).to_numpy()  # top < 2**31


def _keys(u: np.ndarray, i: np.ndarray) -> np.ndarray:
    """Pair codes of number codes; a row with an id that is no number (-1) gets all ones, no training row's."""
    key = u.astype(np.uint64)
    key <<= np.uint64(32)
    key |= i.view(np.uint32)  # in place, widened chunk by chunk: no temporary the size of the column
    key[(u < 0) | (i < 0)] = np.uint64(0xFFFFFFFFFFFFFFFF)
    return key


def _numeric(a: AuditInputs) -> int | None:
    """The bound of the numbers when the audit codes ids by their numbers (see the module), else None;
    decided with the first codes, which it then stores (the parse is the coding)."""
    if "numbers below" not in a.cache:
        parts = [p for p in ("train", "test") if getattr(a, p) is not None]
        top = min(2 * sum(getattr(a, p).height for p in parts) + 2**16, 2**31 - 1)
        found: dict[str, np.ndarray] = {}
        for p in parts:  # one part at a time, stopped at the first id that is no number
            u = _numbers(getattr(a, p).get_column(USER), top)
            i = _numbers(getattr(a, p).get_column(ITEM), top) if u.min(initial=0) >= 0 else u
            if i.min(initial=0) < 0:
                found = {}
                break
            found[p] = _keys(u, i)
            del u, i
        numeric = len(found) == len(parts)
        a.cache["numbers below"] = top if numeric else None
        for p, key in found.items():
            a.cache[("pair codes", p)] = key
    return a.cache["numbers below"]


def pairs(a: AuditInputs, user_ids: pl.Series, item_ids: pl.Series) -> np.ndarray:
    """The pair code of each (user, item) row of two id columns, in the audit's codes."""
    top = _numeric(a)
    if top is None:
        _anchor(a)
        return pair_codes(user_ids, item_ids)
    return _keys(_numbers(user_ids, top), _numbers(item_ids, top))


def rows(a: AuditInputs, part: str) -> np.ndarray:
    """The pair code of each row of ``a.train`` or ``a.test`` (``part``), computed once per audit.

    The training ids are then dropped from ``a.train``: their strings are the audit's largest memory (80M
    ratings: 2.5 GB), every check reads them from the codes, and an example decodes its own
    (:func:`smallest_pair`)."""
    key = ("pair codes", part)
    if key not in a.cache:
        df = getattr(a, part)
        if df is None:
            raise ValueError("an audit check ran without an input it needs")
        _numeric(a)  # may code both parts
        if key not in a.cache:
            a.cache[key] = pairs(a, df.get_column(USER), df.get_column(ITEM))
    if part == "train" and a.train is not None and USER in a.train.columns:
        a.train = a.train.drop(USER, ITEM)
    return a.cache[key]


def strings(a: AuditInputs, codes: np.ndarray) -> pl.Series:
    """The ids of codes of ``a.train`` or ``a.test``'s rows (users or items, as :func:`users` and
    :func:`items` give them)."""
    if _numeric(a) is not None:
        return pl.Series(codes).cast(pl.Utf8)  # a plain decimal is written as its number
    return pl.Series(codes.astype(np.uint32)).cat.to(pl.Categorical).cast(pl.Utf8)


def smallest_pair(a: AuditInputs, part: str, mask: np.ndarray) -> tuple[str, str, int] | None:
    """The smallest (bytewise) user and item of the rows of ``part`` where ``mask`` holds, and the first such
    row's index; None when there is none. Only the distinct users, then that user's items, are decoded."""
    code = rows(a, part)
    if not mask.any():
        return None
    row_users = users(code)
    found = np.flatnonzero(present(row_users[mask], span(row_users)))
    user = int(found[strings(a, found).arg_min() or 0])
    mine = mask & (row_users == user)
    row_items = items(code[mine])
    item = int(row_items[strings(a, row_items).arg_min() or 0])
    row = int(np.flatnonzero(mine)[np.argmax(row_items == item)])
    return str(strings(a, np.array([user]))[0]), str(strings(a, np.array([item]))[0]), row


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
    return pl.Series(in_training(a, pairs(a, user_ids, item_ids)))


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
    return strings(a, np.flatnonzero(present(of, span(of)))).alias(column)


def training_counts(a: AuditInputs, ids: pl.Series) -> pl.Series:
    """The number of training ratings of each item of ``ids`` (0 for an item nobody rated): TopPop's
    score, φ(i) of :func:`trecrs.data.popularity.item_popularity`, counted once per audit by item code."""
    if "item counts" not in a.cache:
        a.cache["item counts"] = np.bincount(items(rows(a, "train")))
    counts = a.cache["item counts"]
    top = _numeric(a)
    if top is None:  # (rows() anchored the codes)
        code = ids.cast(pl.Utf8).cast(pl.Categorical).to_physical().to_numpy().astype(np.intp)
    else:
        code = _numbers(ids, top)
    out = np.zeros(code.size, dtype=np.int64)
    known = (code >= 0) & (code < counts.size)
    out[known] = counts[code[known]]
    return pl.Series(ids.name, out)
