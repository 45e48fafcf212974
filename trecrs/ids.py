"""Ids are strings; this module holds their one natural order, their integer codes and their hashes.

* order: :func:`natural_key`, :func:`natural_sort`, :func:`natural_unique`;
* codes: :func:`codes` (position of each id in an index of distinct ids), :class:`IdCodes` (a column's
  codes in a sorted vocabulary, categorical columns mapped through their physical codes), :func:`pair_codes`
  (one integer per pair of ids), :func:`id_codes` (one integer per id, an id's own number when every id is a
  plain decimal);
* hashes: :func:`hash_ids` (64-bit blake2b of each id string) and :func:`mix64` (the splitmix64
  finaliser), the platform-independent pseudo-randomness of One-Plus-Random draws and random scores.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import cast

import numpy as np
import polars as pl

# --------------------------------------------------------------------------------------------- order


def natural_key(values: pl.Series) -> pl.Series:
    """Sort key for ids: numeric order when every id is a plain non-negative integer, else bytewise."""
    if values.len() and values.str.contains(r"^\d{1,18}$").all():
        return values.cast(pl.Int64)
    return values


def natural_sort(df: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """Sort ``df`` by ``columns`` in natural id order (see :func:`natural_key`); stable and deterministic.

    Ids with equal keys (``"7"``, ``"007"``) are ordered bytewise. A numeric key of ids without a leading
    zero stands for one id, so those ids need not break ties; two such keys are sorted as one integer
    when their product fits (a sort on several columns costs a few times more).
    """
    keys = [natural_key(df.get_column(c)) for c in columns]
    ties = [c for c, k in zip(columns, keys, strict=True) if not _one_id_per_key(df.get_column(c), k)]
    if not ties and len(keys) == 2:
        high, low = keys
        span = int(cast("int", low.max())) + 1
        if (int(cast("int", high.max())) + 1) * span < 2**63:
            return df.sort(high * span + low, maintain_order=True)
    return df.sort([*keys, *ties], maintain_order=True)


def _one_id_per_key(ids: pl.Series, key: pl.Series) -> bool:
    """Whether the numeric ``key`` of ``ids`` has one id per value: no id is null or has a leading zero."""
    if key.dtype != pl.Int64 or key.null_count():
        return False
    return not (ids.str.starts_with("0") & (ids.str.len_bytes() > 1)).any()


def natural_unique(values: pl.Series) -> pl.Series:
    """The distinct ids of ``values`` in natural order (ids with equal keys, ``"7"``/``"007"``, bytewise)."""
    uniq = values.unique()
    return natural_sort(pl.DataFrame({"id": uniq}), ["id"]).get_column("id").alias(values.name)


# --------------------------------------------------------------------------------------------- codes


def codes(values: pl.Series, index: pl.Series) -> pl.Series:
    """The position (Int64) of each of ``values`` in ``index`` (distinct ids), null for an id not in it."""
    lookup = pl.DataFrame({"_id": index}).with_row_index("_c").with_columns(pl.col("_c").cast(pl.Int64))
    joined = pl.DataFrame({"_id": values}).join(lookup, on="_id", how="left", maintain_order="left")
    return joined.get_column("_c")


def positions(values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The index of each of ``values`` (non-negative integers) in ``keys`` (distinct non-negative integers,
    ascending), -1 where it is none of them: read from a table indexed by number when the largest key is
    below twice the values' count plus 65536 (the table then costs about the values' own size), else found
    by a binary search per value."""
    if keys.size == 0:
        return np.full(values.size, -1, dtype=np.int64)
    top = int(keys[-1]) + 1
    if top <= 2 * values.size + 2**16:
        table = np.full(top + 1, -1, dtype=np.int32 if keys.size < 2**31 else np.int64)  # [top]: no key
        table[keys] = np.arange(keys.size)
        return table[np.minimum(values, top)].astype(np.int64)
    found = np.minimum(np.searchsorted(keys, values), keys.size - 1).astype(np.int64)
    found[keys[found] != values] = -1
    return found


def pair_codes(a: pl.Series, b: pl.Series) -> np.ndarray:
    """One uint64 per row of two id columns, equal for two rows exactly when both their ids are: the
    categorical code of ``a`` in the high 32 bits, of ``b`` in the low ones (a duplicate check on these
    costs a fraction of one on the strings)."""
    high = a.cast(pl.Utf8).cast(pl.Categorical).to_physical().to_numpy().astype(np.uint64)
    high <<= np.uint64(32)
    high |= b.cast(pl.Utf8).cast(pl.Categorical).to_physical().to_numpy()
    return high


def plain_decimal(text: pl.Expr) -> pl.Expr:
    """Whether an id (text) is a plain decimal below 2**32: digits only, no sign, no leading zero, so the
    id is its UInt32 number's own text (``"7"``; not ``"007"``, ``"+7"``, ``"-0"``). The one rule by which
    trecrs holds ids as numbers (the readers' coded ids, :func:`id_codes`, the audit's codes)."""
    leading_zero = text.str.starts_with("0") & (text.str.len_bytes() > 1)
    return text.cast(pl.UInt32, strict=False).is_not_null() & ~text.str.starts_with("+") & ~leading_zero


def id_codes(ids: pl.Series) -> np.ndarray:
    """One int64 per id, equal exactly when the ids are: the id's own number when every id is a plain
    decimal (:func:`plain_decimal`: ``"7"`` and ``"007"`` stay apart) below twice the count of ids plus
    65536, else its polars categorical code (an integer column's own values, or their dense rank when they
    exceed that bound). Numbers cost a parse where categorical codes cost a hash of every string; the bound
    keeps a count per code (``np.bincount``) about the column's size."""
    top = min(2 * ids.len() + 2**16, 2**31)  # and room for a row's rank beside a code in one int64 key
    if ids.dtype.is_integer():  # coded ids (:func:`~trecrs.files.ratings.read_ratings`): their own numbers
        if ids.len() and cast(int, ids.max()) < top:
            return ids.cast(pl.Int64).to_numpy()
        return ids.rank("dense").cast(pl.Int64).to_numpy() - 1
    if ids.len() and ids.to_frame("id").select(plain_decimal(pl.col("id")).all()).item():
        numbers = ids.cast(pl.Int64)
        if cast(int, numbers.max()) < top:
            return numbers.to_numpy()
    return ids.cast(pl.Categorical).to_physical().to_numpy().astype(np.int64)


class IdCodes:
    """An id column and its distinct values (as strings), computed once, to code it in a vocabulary."""

    def __init__(self, col: pl.Series):
        self.col = col
        self.cat = col.dtype == pl.Categorical
        if self.cat:
            # categorical codes are global and dense: every code up to the largest one used names an id,
            # so the strings of codes 0..max stand in for a (costlier) distinct pass over the column;
            # ids of other columns that come along are harmless extra vocabulary
            top = cast("int | None", col.to_physical().max())  # UInt32 codes
            self.phys = np.arange(0 if top is None else int(top) + 1, dtype=np.uint32)
            self.strings = pl.Series(self.phys).cat.to(pl.Categorical).cast(pl.Utf8)
        else:
            self.strings = col.unique()

    def encode(self, vocab: pl.Series) -> np.ndarray:
        """Position of each value in the sorted string array ``vocab`` (-1 where absent), int32.

        A categorical column is mapped through its distinct physical codes (a table lookup per line,
        chunk by chunk, so no 64-bit temporary the size of the run); a string column through a polars
        ``Enum`` cast.
        """
        enum = pl.Enum(vocab)
        if not self.cat:
            return self.col.cast(enum, strict=False).to_physical().cast(pl.Int32).fill_null(-1).to_numpy()
        lut = self.strings.cast(enum, strict=False).to_physical().cast(pl.Int32).fill_null(-1).to_numpy()
        out = np.empty(self.col.len(), dtype=np.int32)
        at = 0
        for chunk in self.col.get_chunks():
            phys = chunk.to_physical().to_numpy()
            np.take(lut, phys, out=out[at : at + phys.size], mode="clip")  # codes < lut.size: no bounds check
            at += phys.size
        return out


# --------------------------------------------------------------------------------------------- hashes

_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)


def hash_ids(values: pl.Series | Sequence[str], salt: bytes = b"") -> np.ndarray:
    """64-bit blake2b of each id's UTF-8 bytes (``person=salt``), little-endian, as uint64.

    Independent of platform, process and order; each distinct id is hashed once.
    """
    series = values if isinstance(values, pl.Series) else pl.Series(values, dtype=pl.Utf8)
    uniq = series.unique(maintain_order=True)
    table = np.array(
        [
            int.from_bytes(hashlib.blake2b(v.encode("utf-8"), digest_size=8, person=salt).digest(), "little")
            for v in uniq.to_list()
        ],
        dtype=np.uint64,
    )
    if uniq.len() == series.len():
        return table
    return table[codes(series, uniq).to_numpy()]


def mix64(x: np.ndarray, *, add_gamma: bool) -> np.ndarray:
    """splitmix64's finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
    OOPSLA 2014): a bijection of uint64 with full avalanche; uint64 arithmetic wraps.

    ``add_gamma``: first add the golden gamma ``0x9E3779B97F4A7C15`` (splitmix64's whole step, as the
    random scores use it); without it, the bare finaliser (One-Plus-Random keys).
    """
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        if add_gamma:
            x = x + _GOLDEN_GAMMA
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))
