"""Gain parameters (``ndcg.1=3,2=0``, ``G.0=1``, ...) as trec_eval applies them, for every query at once.

``m_ndcg.c``, ``m_ndcg_rel.c``, ``m_Rndcg.c`` and ``m_G.c`` share ``setup_gains``: one entry per
``rel=gain`` pair (level ``atol(rel)``, gain ``atof(gain)``), then one per judged level ``0 ..
num_rel_levels - 1`` that no pair names (gain = the level); the first pair naming a level takes that
level's document count. The list is sorted with glibc's ``qsort`` (a stable top-down merge sort) and the
comparator ``(int) (gain1 - gain2)``, which truncates: gains less than 1 apart compare equal, so the order
is not always by gain. A retrieved document's gain is that of the first entry (in sorted order) with its
relevance value (``get_gain``), 0 when none; the ideal ranking walks the entries from the last one down,
each repeated by its count, and stops at the first counted entry whose gain is not positive (at once
when the last entry's gain is not positive).

The entry order depends on the query only through ``num_rel_levels``, so it is computed once per distinct
value, never per query; :func:`gain_view` returns the :class:`GainRanked` the measures then read.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields
from functools import cached_property

import numpy as np

from ...ranges import c_atol
from .cmath import c_log2, segmented
from .rank import Ranked, Sparse

_INT_MIN = -(2**31)  # x86-64 cvttsd2si of a NaN or out-of-range double
_ATOF = re.compile(
    r"\s*[+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    r"|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)",
    re.IGNORECASE,
)
# Up to this many judged levels an inconsistent comparator's order is built entry by entry, as qsort does;
# above, from the pairs and runs of default entries (_entries_fast), in memory independent of the levels.
FULL_SORT_MAX = 4096


def c_atof(text: str) -> float:
    """C ``atof``: the longest numeric prefix (decimal, hex, inf, nan), 0.0 when there is none."""
    m = _ATOF.match(text)
    if not m:
        return 0.0
    s = m.group(0).strip()
    body = s.lstrip("+-")
    if body[:2].lower() == "0x":
        v = float.fromhex(body)
        return -v if s.startswith("-") else v
    if body[:3].lower() == "nan":
        return -math.nan if s.startswith("-") else math.nan
    return float(s)


def parse_pairs(p: str) -> list[tuple[int, float]]:
    """``"1=3,2=0.5"`` -> [(1, 3.0), (2, 0.5)], as ``get_param_pairs`` and ``setup_gains`` read them."""
    out = []
    for piece in p.split(","):
        name, _, value = piece.partition("=")
        out.append((c_atol(name), c_atof(value)))
    return out


def _cmp(a: float, b: float) -> int:
    """``comp_rel_gain``: ``(int) (a - b)``, truncated toward zero as x86-64 converts."""
    d = a - b
    if d != d or not -2147483649.0 < d < 2147483648.0:
        return _INT_MIN
    return int(d)


def _msort(items: list, key) -> list:
    """glibc 2.x ``qsort`` (``msort_with_tmp``): top-down merge sort, first half ``n / 2`` elements."""
    n = len(items)
    if n <= 1:
        return list(items)
    b1, b2 = _msort(items[: n // 2], key), _msort(items[n // 2 :], key)
    out, i, j = [], 0, 0
    while i < len(b1) and j < len(b2):
        if _cmp(key(b1[i]), key(b2[j])) <= 0:
            out.append(b1[i])
            i += 1
        else:
            out.append(b2[j])
            j += 1
    return out + b1[i:] + b2[j:]


def sorted_entries(num_levels: int, pairs: list[tuple[int, float]]) -> list[tuple[int, float, int]]:
    """``setup_gains``: (rel level, gain, level whose count it takes or -1), in qsort's order."""
    ents = [(lvl, gain, -1) for lvl, gain in pairs]
    first: dict[int, int] = {}
    for j, (lvl, _) in enumerate(pairs):
        first.setdefault(lvl, j)
    for i in range(num_levels):
        k = first.get(i)
        if k is None:
            ents.append((i, float(i), i))
        else:
            ents[k] = (ents[k][0], ents[k][1], i)
    return _msort(ents, key=lambda e: e[1])


def _consistent(pairs: list[tuple[int, float]], num_levels: int) -> bool:
    """Whether ``(int) (a - b)`` orders every entry as the gains do: integer gains less than 2^31 apart.
    Then qsort's stable merge gives the order of a stable sort by gain, whatever the other entries."""
    gains = [g for _, g in pairs] + [0.0, float(max(num_levels - 1, 0))]
    return all(math.isfinite(g) and g == math.floor(g) for g in gains) and max(gains) - min(gains) < 2**31


def _entries_fast(num_levels: int, pairs: list[tuple[int, float]]):
    """``sorted_entries`` without building the default entries: a list of explicit entries and ``range``
    objects of default levels (entry ``(i, float(i), i)`` for each level ``i`` in it), in qsort's order.

    The default entries follow the pairs in increasing order of integer gain, so any part of the list
    holding defaults only is already sorted (``(int) (a - b)`` is negative for ``a < b``, or INT_MIN beyond
    the int range, both "not greater"), and merging two such parts concatenates them. Only the parts
    holding a pair are merged one comparison at a time; an entry of gain ``x`` merged with a run of
    defaults takes the defaults ``g`` with ``1 <= x - g < 2^31`` first (a prefix of the run, since ``x - g``
    falls as ``g`` grows), found by bisection. Memory and time grow with the number of pairs and
    log(num_levels), not with num_levels, and the order is the one :func:`sorted_entries` builds.
    Returns the list and the function giving the level of default number ``t``.
    """
    k = len(pairs)
    named = sorted({lvl for lvl, _ in pairs if 0 <= lvl < num_levels})
    ents = [(lvl, gain, -1) for lvl, gain in pairs]
    for lvl in named:
        j = next(j for j, (pl_, _) in enumerate(pairs) if pl_ == lvl)
        ents[j] = (ents[j][0], ents[j][1], lvl)

    def level(t: int) -> int:  # the t-th default level: the t-th level no pair names
        for m in named:
            if m <= t:
                t += 1
        return t

    def sort(lo: int, hi: int) -> list:
        if hi - lo <= 2 * k + 8:
            items = [
                ents[p] if p < k else (level(p - k), float(level(p - k)), level(p - k)) for p in range(lo, hi)
            ]
            return _msort(items, key=lambda e: e[1])
        if lo >= k:
            return [range(lo - k, hi - k)]
        mid = lo + (hi - lo) // 2  # glibc: the first half has n / 2 elements; mid >= k here
        return _merge_run(sort(lo, mid), mid - k, hi - k, level)

    return sort(0, k + num_levels - len(named)), level


def _merge_run(left: list, j: int, end: int, level) -> list:
    """``msort``'s merge of ``left`` with the default entries ``j .. end - 1`` (all of higher level than
    the defaults in ``left``, so a default of ``left`` always goes first)."""
    out = []
    for item in left:
        if not isinstance(item, range) and j < end and _cmp(item[1], float(level(j))) > 0:
            lo, hi = j, end  # the defaults taken before item: those with x - g >= 1, a prefix
            while hi - lo > 1:
                m = (lo + hi) // 2
                lo, hi = (m, hi) if item[1] - float(level(m)) >= 1.0 else (lo, m)
            out.append(range(j, hi))
            j = hi
        out.append(item)
    if j < end:
        out.append(range(j, end))
    return out


def _expand(seq: list, level, present: list[int]) -> list:
    """The explicit entries of :func:`_entries_fast`'s list, and of its runs the default entries of the
    ``present`` levels not named by a pair (no other default entry can count a document)."""
    out = []
    for item in seq:
        if not isinstance(item, range):
            out.append(item)
            continue
        low, high = level(item.start), level(item.stop - 1)
        out += [(v, float(v), v) for v in present if low <= v <= high]
    return out


def walked_entries(num_levels: int, pairs: list[tuple[int, float]], present: np.ndarray):
    """The entries the ideal walk can meet, in qsort's order, whether the walk starts at all, and the
    (level, gain) of the pairs in qsort's order (``get_gain`` takes the first naming a level).

    Only entries counting a level in ``present`` (the judged levels some query has) can add to the ideal
    ranking; the walk starts when the last entry's gain is positive. With a consistent comparator
    (:func:`_consistent`) the other default entries are never built, so a grade of 10^9 costs nothing.
    """
    if not _consistent(pairs, num_levels):
        if num_levels <= FULL_SORT_MAX:
            ents = sorted_entries(num_levels, pairs)
            starts = bool(ents) and ents[-1][1] > 0.0
        else:
            seq, level = _entries_fast(num_levels, pairs)
            names = {lvl for lvl, _ in pairs}
            ents = _expand(
                seq, level, sorted(int(v) for v in present if 0 <= v < num_levels and int(v) not in names)
            )
            starts = (float(level(seq[-1].stop - 1)) if isinstance(seq[-1], range) else seq[-1][1]) > 0.0
        named = [e[:2] for e in ents if e[0] in {lvl for lvl, _ in pairs}]
        return [e for e in ents if e[2] >= 0], starts, named
    first: dict[int, int] = {}
    for j, (lvl, _) in enumerate(pairs):
        first.setdefault(lvl, j)
    ents = [
        (lvl, g, lvl if first[lvl] == j and 0 <= lvl < num_levels else -1) for j, (lvl, g) in enumerate(pairs)
    ]
    ents += [(int(i), float(i), int(i)) for i in present if 0 <= i < num_levels and int(i) not in first]
    ents = sorted(ents, key=lambda e: e[1])  # stable, as the merge: pairs before levels of equal gain
    top_default = next((i for i in range(num_levels - 1, -1, -1) if i not in first), None)
    tops = [g for _, g in pairs] + ([] if top_default is None else [float(top_default)])
    named = [e[:2] for e in ents if e[0] in first]
    return [e for e in ents if e[2] >= 0], bool(tops) and max(tops) > 0.0, named


@dataclass
class GainRanked(Ranked):
    """A :class:`Ranked` whose documents carry gains from ``rel=gain`` parameters: ``gain`` per row,
    ``ideal`` the ideal ranking's gains (positive, in the order trec_eval walks them)."""

    gain: np.ndarray = field(kw_only=True)

    @cached_property
    def gainrows(self) -> Sparse:
        """Rows with a non-zero gain (those that change the DCG; negative gains do)."""
        return Sparse.of(self, self.gain != 0)

    @cached_property
    def posrows(self) -> Sparse:
        """Rows with a positive gain (``ndcg_rel`` averages at them)."""
        return Sparse.of(self, self.gain > 0)

    @cached_property
    def dcg_prefix(self) -> np.ndarray:
        """Running DCG over the gain rows: gain / log2(pos + 2), sequential per query."""
        g = self.gainrows
        return segmented(self.gain[g.idx] / c_log2(g.pos + 2), g.starts, g.lens, "sum")


def _level_counts(r: Ranked):
    """Per query: num_rel_levels and a lookup (query, level) -> judged documents at that level."""
    S = r.S
    ist, ilen = r.ideal_starts[:-1], r.ideal_lens
    iseg = np.repeat(np.arange(S, dtype=np.int64), ilen)
    lv = r.ideal.astype(np.int64)
    change = np.ones(lv.size, dtype=bool)
    change[1:] = (lv[1:] != lv[:-1]) | (iseg[1:] != iseg[:-1])
    heads = np.flatnonzero(change)
    cnt = np.diff(np.append(heads, lv.size))
    zero = r.num_zero if r.num_zero is not None else np.zeros(S, dtype=np.int64)
    zs = np.flatnonzero(zero > 0)
    seg_t = np.concatenate([iseg[heads], zs])
    lvl_t = np.concatenate([lv[heads], np.zeros(zs.size, dtype=np.int64)])
    cnt_t = np.concatenate([cnt, zero[zs]])
    nlev = (zero > 0).astype(np.int64)  # only level 0 judged: one level
    has = ilen > 0
    nlev[has] = lv[ist[has]] + 1  # the highest judged level comes first
    width = int(nlev.max(initial=0)) + 1
    keys = seg_t * width + lvl_t
    o = np.argsort(keys, kind="stable")
    keys, cnt_t = np.append(keys[o], -1), np.append(cnt_t[o], 0)  # a sentinel: nothing matches it

    def count(seg: np.ndarray, level: np.ndarray) -> np.ndarray:
        k = seg * width + level
        at = np.minimum(np.searchsorted(keys[:-1], k), keys.size - 1)
        return np.where((level >= 0) & (keys[at] == k), cnt_t[at], 0)

    return nlev.astype(np.int64), lvl_t, count


def gain_view(r: Ranked, p: str) -> GainRanked:
    """``r`` with the gains of the parameters ``p`` (``"1=3,2=0"``): per-row gains and the ideal ranking."""
    pairs = parse_pairs(p)
    nlev, levels, count = _level_counts(r)
    S = r.S
    groups = np.unique(nlev)
    present = np.unique(levels)
    named = np.array(sorted({lvl for lvl, _ in pairs}), dtype=np.int64)
    table = np.zeros((groups.size, named.size), dtype=np.float64)  # gain of a named level, per group
    e_seg, e_gain, e_cnt = [], [], []
    for gi, u in enumerate(groups.tolist()):
        ents, starts, pair_order = walked_entries(u, pairs, present)
        for lvl, gain in reversed(pair_order):  # get_gain: the first in sorted order wins
            table[gi, np.searchsorted(named, lvl)] = gain
        qs = np.flatnonzero(nlev == u)
        top_down = ents[::-1]
        gains = np.array([e[1] for e in top_down], dtype=np.float64)
        cl = np.array([e[2] for e in top_down], dtype=np.int64)
        cnt = count(np.repeat(qs, cl.size), np.tile(cl, qs.size)).reshape(qs.size, cl.size)
        if not starts:
            cnt[:] = 0  # the walk never starts
        stop = np.cumsum((cnt > 0) & ~(gains > 0.0), axis=1) > 0
        cnt = np.where(stop, 0, cnt)
        e_seg.append(np.repeat(qs, cl.size))
        e_gain.append(np.tile(gains, qs.size))
        e_cnt.append(cnt.reshape(-1))
    seg_e = np.concatenate(e_seg) if e_seg else np.zeros(0, dtype=np.int64)
    o = np.argsort(seg_e, kind="stable")
    gain_e = np.concatenate(e_gain)[o] if e_gain else np.zeros(0)
    cnt_e = np.concatenate(e_cnt)[o] if e_cnt else np.zeros(0, dtype=np.int64)
    ideal = np.repeat(gain_e, cnt_e)
    ilens = np.bincount(seg_e[o], weights=cnt_e, minlength=S).astype(np.int64)
    istarts = np.zeros(S + 1, dtype=np.int64)
    np.cumsum(ilens, out=istarts[1:])
    group_of = np.searchsorted(groups, nlev)
    v = r.rel.astype(np.int64)
    gain = np.where(v >= 0, v, 0).astype(
        np.float64
    )  # a level no pair names: its own value (< num_rel_levels)
    if named.size and v.size:
        at = np.minimum(np.searchsorted(named, v), named.size - 1)
        is_named = named[at] == v
        row_group = np.repeat(group_of, r.lens)
        gain[is_named] = table[row_group[is_named], at[is_named]]
    base = {f.name: getattr(r, f.name) for f in fields(r) if f.name != "_cache"}
    return GainRanked(**{**base, "ideal": ideal, "ideal_starts": istarts}, gain=gain)
