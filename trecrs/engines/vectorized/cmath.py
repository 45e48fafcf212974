"""C arithmetic for the vectorized engine: libm's ``log2``/``log``, IEEE division, sequential sums.

trec_eval accumulates in double precision, one value after the other, with the C library's ``log2`` and
``log``; these helpers do the same over many queries at once so that the last bit agrees.
"""

from __future__ import annotations

import math

import numpy as np

_LOG2 = np.zeros(2, dtype=np.float64)
LOG2_TABLE_MAX = 1 << 22  # the table of c_log2 holds at most this many entries (32 MB)


def c_log2(ints: np.ndarray) -> np.ndarray:
    """C ``log2`` of non-negative integers, from a table filled with :func:`math.log2` (libm's ``log2``).

    numpy's vectorised ``log2`` may use its own SIMD routines; trec_eval uses the C library's, and the last
    bit matters for byte-identical output.
    """
    global _LOG2
    if ints.size == 0:
        return np.zeros(0, dtype=np.float64)
    top = int(ints.max())
    if top >= LOG2_TABLE_MAX:  # a grade of 2^31 makes G's costs that large: those one by one, not a table
        big = ints >= LOG2_TABLE_MAX
        out = np.empty(ints.size, dtype=np.float64)
        out[~big] = c_log2(ints[~big])
        out[big] = np.fromiter((math.log2(float(i)) for i in ints[big].tolist()), np.float64, int(big.sum()))
        return out
    if top >= _LOG2.size:
        size = max(top + 1, 2 * _LOG2.size, 4096)
        _LOG2 = np.fromiter((math.log2(i) if i > 0 else -math.inf for i in range(size)), np.float64, size)
    return _LOG2[ints]


def c_log2_real(values: np.ndarray) -> np.ndarray:
    """C ``log2`` of doubles: the table of :func:`c_log2` when all are small non-negative integers, else
    :func:`math.log2` (libm's) one by one, with C's results outside its domain: -inf at 0, below it the
    x86 default NaN, whose sign bit is set (trec_eval prints ``-nan``), and a NaN passed through."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return np.zeros(0, dtype=np.float64)
    if np.isfinite(v).all() and (v >= 0).all() and (v == np.floor(v)).all() and v.max() < 1 << 24:
        return c_log2(v.astype(np.int64))

    return np.fromiter(map(_c_domain(math.log2), v.tolist()), np.float64, v.size)


def _c_domain(fn):
    """``fn`` (libm's log or log2) with C's results outside its domain: -inf at 0, below it the x86 default
    NaN, whose sign bit is set (trec_eval prints ``-nan``), and a NaN passed through."""

    def one(x: float) -> float:
        if x > 0:
            return fn(x)
        return -math.inf if x == 0 else x if x != x else -math.nan

    return one


def c_log(values: np.ndarray) -> np.ndarray:
    """C ``log`` elementwise (via :func:`math.log`), for gm_map / gm_bpref / yaap (whose argument is negative
    when unjudged documents count as relevant, below level 0)."""
    return np.fromiter(map(_c_domain(math.log), values.tolist()), np.float64, values.size)


def c_div(a, b) -> np.ndarray:
    """IEEE division as C does it (x/0 -> inf, 0/0 -> nan), without numpy warnings."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))


# --------------------------------------------------------------------------------------------- segments


def segmented(values: np.ndarray, starts: np.ndarray, lens: np.ndarray, how: str) -> np.ndarray:
    """Per-segment running ``sum`` (strictly left to right, as a C loop adds) or reverse running ``max``.

    ``values`` holds consecutive segments (segment ``s`` = ``values[starts[s] : starts[s] + lens[s]]``).
    Segments are grouped by length (powers of two) and laid out as rows of a padded 2-D array, so that
    ``np.cumsum(axis=1)`` — a sequential accumulation, unlike numpy's pairwise ``sum`` — works on many
    segments at once; the result is bitwise what a per-segment C loop gives.
    """
    out = np.empty(values.shape, dtype=np.float64)
    if values.size == 0:
        return out
    lens = np.asarray(lens, dtype=np.int64)
    starts = np.asarray(starts, dtype=np.int64)
    nz = np.flatnonzero(lens > 0)
    if nz.size == 0:
        return out
    width = lens[nz]
    # fast layout: equal-length segments covering the array end to end
    if (
        (width == width[0]).all()
        and width[0] * nz.size == values.size
        and (starts[nz] == np.arange(nz.size, dtype=np.int64) * width[0]).all()
    ):
        m = values.astype(np.float64, copy=True).reshape(nz.size, int(width[0]))
        return _accumulate(m, how).reshape(-1)
    bucket = np.zeros(nz.size, dtype=np.int64)
    bucket[width > 1] = np.ceil(np.log2(width[width > 1])).astype(np.int64)
    for b in np.unique(bucket):
        segs = nz[bucket == b]
        L = lens[segs]
        W = int(L.max())
        total = int(L.sum())
        rows = np.repeat(np.arange(segs.size), L)
        cols = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(L) - L, L)
        src = np.repeat(starts[segs], L) + cols
        m = np.full((segs.size, W), 0.0 if how == "sum" else -np.inf)
        m[rows, cols] = values[src]
        out[src] = _accumulate(m, how)[rows, cols]
    return out


def _accumulate(m: np.ndarray, how: str) -> np.ndarray:
    if how == "sum":
        return np.cumsum(m, axis=1)
    if how == "revmax":
        return np.maximum.accumulate(m[:, ::-1], axis=1)[:, ::-1]
    raise AssertionError(f"unknown accumulation {how!r}")
