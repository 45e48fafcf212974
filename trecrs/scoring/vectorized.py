"""The vectorized engine: trec_eval 9.x measures computed with numpy/polars, to the last bit.

Every run line becomes a few integers (query code, document code, relevance) held in numpy arrays; ids are
encoded once (polars ``Enum`` of the qrels' query and document ids, in bytewise order) and no Python object
is created per line. The rules reproduced are trec_eval's own (``form_res_rels.c`` and the ``m_*.c`` files):

* ranking: per query, score as a C ``float`` descending, ties by document id descending bytewise
  (:func:`trecrs.io.trec_order`); a run already in that order (what recommenders and ``trecrs run`` write)
  is verified in linear time instead of being sorted;
* relevance of a retrieved document: its qrels value; ``-1`` when absent from the qrels (not pooled);
  ``-2`` when its qrels value is negative (pooled but unjudged); ``num_rel`` counts qrels documents with
  ``0 <= level <= rel``; ``-J`` removes retrieved documents with a negative value before ranking;
* every floating-point value is computed with the operations trec_eval performs, in the same order
  (sums accumulated sequentially per query, ``log2``/``log`` from the C library through :mod:`math`), so the
  per-query values are bitwise equal to pytrec_eval's, and the printed output is byte-identical.

Measures covered (the whole of ``all_trec`` and ``official``): num_q, num_ret, num_rel, num_rel_ret, map,
gm_map, Rprec, bpref, recip_rank, iprec_at_recall, P, recall, infAP, gm_bpref, Rprec_mult, utility,
11pt_avg, binG, G, ndcg, ndcg_rel, Rndcg, ndcg_cut, map_cut, relative_P, success, set_P,
set_relative_P, set_recall, set_map, set_F, num_nonrel_judged_ret. Gain-parameterised variants
(``ndcg.1=3,...``, ``G.…``), ``11pt_avg`` with explicit recall points, relevance levels below 1 and
malformed parameters are not claimed (:func:`supports` says no) and go to the pytrec_eval engine.

Agreement with pytrec_eval on every query and measure is a property test (``tests/test_engine_agreement.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import polars as pl

from ..schema import DOC, QUERY, REL, SCORE
from .engines import Engine, register_engine
from .trec_measures import BY_NAME, DOUBLE_CUTOFFS, LONG_CUTOFFS, PAIR_PARAMS, MeasureRequest

NONPOOL = -1  # trec_eval RELVALUE_NONPOOL: retrieved document absent from the qrels
UNJUDGED = -2  # trec_eval RELVALUE_UNJUDGED: in the qrels with a negative value
MIN_GEO_MEAN = 0.00001  # trec_eval.h
INFAP_EPSILON = 0.00001  # trec_eval.h
_TABLE_CELLS = 1 << 24  # size of the (query x doc) relevance lookup table built per chunk of queries

# --------------------------------------------------------------------------------------------- C math


_LOG2 = np.zeros(2, dtype=np.float64)


def _log2(ints: np.ndarray) -> np.ndarray:
    """C ``log2`` of non-negative integers, from a table filled with :func:`math.log2` (libm's ``log2``).

    numpy's vectorised ``log2`` may use its own SIMD routines; trec_eval uses the C library's, and the last
    bit matters for byte-identical output.
    """
    global _LOG2
    if ints.size == 0:
        return np.zeros(0, dtype=np.float64)
    top = int(ints.max())
    if top >= _LOG2.size:
        size = max(top + 1, 2 * _LOG2.size, 4096)
        _LOG2 = np.fromiter((math.log2(i) if i > 0 else -math.inf for i in range(size)), np.float64, size)
    return _LOG2[ints]


def _c_log(values: np.ndarray) -> np.ndarray:
    """C ``log`` elementwise (via :func:`math.log`), for gm_map / gm_bpref."""
    return np.fromiter(map(math.log, values.tolist()), np.float64, values.size)


def _div(a, b) -> np.ndarray:
    """IEEE division as C does it (x/0 -> inf, 0/0 -> nan), without numpy warnings."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))


# --------------------------------------------------------------------------------------------- segments


def _segmented(values: np.ndarray, starts: np.ndarray, lens: np.ndarray, how: str) -> np.ndarray:
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
    if (width == width[0]).all() and width[0] * nz.size == values.size and (
        starts[nz] == np.arange(nz.size, dtype=np.int64) * width[0]
    ).all():
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
    raise ValueError(how)


# --------------------------------------------------------------------------------------------- ranking


@dataclass
class Ranked:
    """trec_eval's ``RES_RELS`` for every evaluated query at once, as flat numpy arrays.

    Segment ``s`` (query ``queries[s]``, bytewise order) owns ``rel[starts[s]:starts[s+1]]``: the
    relevance value of each retrieved document in trec_eval's ranking order (after ``-J``).
    """

    queries: list[str]
    starts: np.ndarray  # int64, len S+1
    rel: np.ndarray  # int64 per ranked document
    level: int
    num_rel: np.ndarray  # judged documents with rel >= level
    num_nonrel: np.ndarray  # judged documents with 0 <= rel < level
    ideal_starts: np.ndarray  # int64, len S+1, into ideal
    ideal: np.ndarray  # float64: positive judged values, descending within each query
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def S(self) -> int:
        return len(self.queries)

    @cached_property
    def lens(self) -> np.ndarray:
        return np.diff(self.starts)

    @cached_property
    def first(self) -> np.ndarray:
        return self.starts[:-1]

    # ---- relevant-at-level rows (trec_eval: results_rel_list[i] >= relevance_level)
    @cached_property
    def isrel(self) -> np.ndarray:
        return self.rel >= self.level

    @cached_property
    def cs0(self) -> np.ndarray:
        """Running count of relevant rows, with a leading 0 (count in rows [a, b) = cs0[b] - cs0[a])."""
        out = np.zeros(self.rel.size + 1, dtype=np.int64)
        np.cumsum(self.isrel, out=out[1:])
        return out

    @cached_property
    def relret(self) -> np.ndarray:
        return self.cs0[self.starts[1:]] - self.cs0[self.first]

    def count_at(self, k) -> np.ndarray:
        """Relevant documents among the first ``k`` retrieved of each query (k scalar or per query)."""
        return self.cs0[self.first + np.minimum(k, self.lens)] - self.cs0[self.first]

    @cached_property
    def relrows(self) -> Sparse:
        return Sparse.of(self, self.isrel)

    # ---- judged rows (rel >= 0), judged non-relevant, pooled-unjudged
    @cached_property
    def judged(self) -> np.ndarray:
        return self.rel >= 0

    @cached_property
    def num_judged_ret(self) -> np.ndarray:
        return _seg_count(self.judged, self.starts)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """trec_eval's num_rel_ret: judged retrieved documents with rel >= level."""
        return self.relret  # level >= 1: relevant rows are judged rows

    @cached_property
    def gainrows(self) -> Sparse:
        """Rows with a positive relevance value (the rows that add to a DCG)."""
        return Sparse.of(self, self.rel > 0)

    @cached_property
    def ideal_lens(self) -> np.ndarray:
        return np.diff(self.ideal_starts)

    @cached_property
    def ideal_prefix(self) -> np.ndarray:
        """Running ideal DCG: sum_{j<=i} g_j / log2(j + 2) over each query's ideal gains (sequential)."""
        pos = np.arange(self.ideal.size, dtype=np.int64) - np.repeat(self.ideal_starts[:-1], self.ideal_lens)
        return _segmented(self.ideal / _log2(pos + 2), self.ideal_starts[:-1], self.ideal_lens, "sum")

    def ideal_at(self, k) -> np.ndarray:
        """Ideal DCG of the first ``k`` ideal positions (k >= 0 per query or scalar); 0 where k == 0."""
        m = np.minimum(k, self.ideal_lens)
        out = np.zeros(self.S, dtype=np.float64)
        has = m > 0
        out[has] = self.ideal_prefix[(self.ideal_starts[:-1] + m - 1)[has]]
        return out

    @cached_property
    def dcg_prefix(self) -> np.ndarray:
        """Running DCG over the gain rows: sum of rel / log2(pos + 2), sequential per query."""
        g = self.gainrows
        contrib = self.rel[g.idx].astype(np.float64) / _log2(g.pos + 2)
        return _segmented(contrib, g.starts, g.lens, "sum")

    def dcg_upto(self, m) -> np.ndarray:
        """DCG after the first ``m`` gain rows of each query (m per query, 0 allowed)."""
        g = self.gainrows
        out = np.zeros(self.S, dtype=np.float64)
        has = m > 0
        out[has] = self.dcg_prefix[(g.starts + m - 1)[has]]
        return out

    def dcg_at_rows(self, seg: np.ndarray, m: np.ndarray) -> np.ndarray:
        """DCG of the first ``m`` retrieved documents of query ``seg``, for pairs (seg, m)."""
        g = self.gainrows
        first = self.first[seg]
        c = g.cs0[first + np.minimum(m, self.lens[seg])] - g.cs0[first]
        out = np.zeros(seg.size, dtype=np.float64)
        has = c > 0
        out[has] = self.dcg_prefix[(g.starts[seg] + c - 1)[has]]
        return out

    def seq_sum(self, sparse: Sparse, contrib: np.ndarray) -> np.ndarray:
        """Per-query sequential sum of ``contrib`` (one value per row of ``sparse``), 0.0 when empty."""
        pref = _segmented(contrib, sparse.starts, sparse.lens, "sum")
        out = np.zeros(self.S, dtype=np.float64)
        has = sparse.lens > 0
        out[has] = pref[(sparse.starts + sparse.lens - 1)[has]]
        return out


@dataclass
class Sparse:
    """A subset of a :class:`Ranked`'s rows, kept in ranking order and grouped by query."""

    idx: np.ndarray  # row indices into Ranked.rel
    seg: np.ndarray  # query of each row
    pos: np.ndarray  # 0-based rank of each row within its query
    starts: np.ndarray  # start of each query's rows within idx (len S)
    lens: np.ndarray  # rows per query (len S)
    cs0: np.ndarray  # running count of subset rows over all ranked rows, leading 0
    r_first: np.ndarray  # Ranked.first
    r_lens: np.ndarray  # Ranked.lens

    @classmethod
    def of(cls, r: Ranked, mask: np.ndarray) -> Sparse:
        cs0 = np.zeros(mask.size + 1, dtype=np.int64)
        np.cumsum(mask, out=cs0[1:])
        lens = cs0[r.starts[1:]] - cs0[r.first]
        idx = np.flatnonzero(mask)
        seg = np.repeat(np.arange(r.S, dtype=np.int64), lens)
        pos = idx - r.first[seg]
        return cls(idx, seg, pos, cs0[r.first], lens, cs0, r.first, r.lens)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based ordinal of each row among its query's rows of this subset."""
        return np.arange(self.idx.size, dtype=np.int64) - np.repeat(self.starts, self.lens) + 1

    def count_at(self, k) -> np.ndarray:
        """Subset rows among the first ``k`` retrieved of each query."""
        return self.cs0[self.r_first + np.minimum(k, self.r_lens)] - self.cs0[self.r_first]

    def before(self, mask_cs0: np.ndarray) -> np.ndarray:
        """For each subset row, how many rows of another mask (given by its running count) precede it."""
        return mask_cs0[self.idx] - mask_cs0[self.r_first[self.seg]]


def _cs0(mask: np.ndarray) -> np.ndarray:
    out = np.zeros(mask.size + 1, dtype=np.int64)
    np.cumsum(mask, out=out[1:])
    return out


def _seg_count(mask: np.ndarray, starts: np.ndarray) -> np.ndarray:
    cs0 = _cs0(mask)
    return cs0[starts[1:]] - cs0[starts[:-1]]


# --------------------------------------------------------------------------------------------- encoding


def _codes(col: pl.Series, enum: pl.Enum) -> np.ndarray:
    """Positions of ``col``'s values among ``enum``'s categories (-1 where absent), as int64."""
    return col.cast(enum, strict=False).to_physical().cast(pl.Int64).fill_null(-1).to_numpy()


def _as_utf8(col: pl.Series) -> pl.Series:
    return col if col.dtype == pl.Utf8 else col.cast(pl.Utf8)


def _float32_scores(col: pl.Series) -> np.ndarray:
    """Scores as C ``float``s, with -0.0 made 0.0 (they compare equal in C, so the doc id decides)."""
    s = col.cast(pl.Float32).to_numpy().copy()
    s[s == 0] = 0.0
    return s


def _order(qcode: np.ndarray, s32: np.ndarray, docs: pl.Series) -> np.ndarray | None:
    """Row permutation putting the run in trec_eval order (query code, score desc, doc desc bytewise).

    Returns None when the rows already are in that order. Linear-time check first: each query's rows
    contiguous, scores non-increasing, equal scores with strictly decreasing doc ids. A run whose queries
    are contiguous and internally ordered only needs its query blocks permuted; anything else is sorted.
    """
    n = qcode.size
    if n == 0:
        return None
    change = np.empty(n, dtype=bool)
    change[0] = True
    np.not_equal(qcode[1:], qcode[:-1], out=change[1:])
    bstart = np.flatnonzero(change)
    bq = qcode[bstart]
    contiguous = np.unique(bq).size == bq.size
    ordered = contiguous
    if ordered:
        same = ~change[1:]
        if (same & (s32[1:] > s32[:-1])).any():
            ordered = False
        else:
            tie = np.flatnonzero(same & (s32[1:] == s32[:-1]))
            if tie.size:
                prev = _as_utf8(docs.gather(tie))
                nxt = _as_utf8(docs.gather(tie + 1))
                ordered = bool((nxt < prev).all())
    if ordered:
        if (np.diff(bq) > 0).all():
            return None
        # permute whole query blocks into query-code order
        blens = np.diff(np.append(bstart, n))
        bo = np.argsort(bq, kind="stable")
        new_lens = blens[bo]
        new_starts = np.cumsum(new_lens) - new_lens
        return np.repeat(bstart[bo] - new_starts, new_lens) + np.arange(n, dtype=np.int64)
    frame = pl.DataFrame({"q": qcode, "s": s32, "d": _as_utf8(docs)})
    return frame.select(
        pl.arg_sort_by(["q", "s", "d"], descending=[False, True, True], maintain_order=True)
    ).to_series().to_numpy()


def _lookup(qcode: np.ndarray, dcode: np.ndarray, qq: np.ndarray, qd: np.ndarray, qv: np.ndarray, ndocs: int):
    """Relevance of each (query code, doc code) row: qrels value, NONPOOL or UNJUDGED.

    ``qcode`` must be sorted. A dense (query x doc) table is filled for a chunk of queries at a time
    (about 2^24 cells), read for the chunk's run rows, and cleared again, so the cost is linear in the
    number of run and qrels lines whatever the catalogue size.
    """
    n = qcode.size
    out = np.full(n, NONPOOL, dtype=np.int64)
    if n == 0 or qq.size == 0:
        return out
    val = np.where(qv < 0, UNJUDGED, qv)
    lo, hi = int(val.min()), int(val.max())
    dtype = np.int16 if -32768 < lo and hi < 32767 else np.int64
    o = np.argsort(qq, kind="stable")
    qq, qd, val = qq[o], qd[o], val[o].astype(dtype)
    per = max(1, _TABLE_CELLS // max(ndocs, 1))
    nq = int(max(qcode[-1], qq[-1])) + 1
    table = np.full(min(nq, per) * ndocs, NONPOOL, dtype=dtype)
    valid = dcode >= 0
    for q0 in range(int(qcode[0]) - int(qcode[0]) % per, int(qcode[-1]) + 1, per):
        q1 = q0 + per
        a, b = np.searchsorted(qcode, [q0, q1])
        if a == b:
            continue
        c, d = np.searchsorted(qq, [q0, q1])
        cells = (qq[c:d] - q0) * ndocs + qd[c:d]
        table[cells] = val[c:d]
        rows = np.arange(a, b)[valid[a:b]]
        out[rows] = table[(qcode[rows] - q0) * ndocs + dcode[rows]]
        table[cells] = NONPOOL
    return out


def rank(qrels: pl.DataFrame, run: pl.DataFrame, *, relevance_level: int = 1, judged_only: bool = False) -> Ranked:
    """Build trec_eval's ranked relevance lists for every query present in both the run and the qrels.

    ``qrels``: columns query, doc, rel; ``run``: query, doc, score. Ids may be ``Utf8`` or ``Categorical``.
    Implements ``form_res_rels.c``: ranking by :func:`trecrs.io.trec_order`'s rule, relevance lookup,
    ``-J`` (judged documents only, original tie order kept) and the per-query relevance counts.
    """
    qq_str = _as_utf8(qrels.get_column(QUERY))
    qvals = qq_str.unique().sort()  # polars sorts strings bytewise, trec_eval's strcmp order
    qenum = pl.Enum(qvals)
    dvals = _as_utf8(qrels.get_column(DOC)).unique().sort()
    denum = pl.Enum(dvals)
    qq = _codes(qq_str, qenum)
    qd = _codes(_as_utf8(qrels.get_column(DOC)), denum)
    qv = qrels.get_column(REL).cast(pl.Int64).to_numpy()

    docs = run.get_column(DOC)
    qcode = _codes(run.get_column(QUERY), qenum)
    keep = qcode >= 0
    if not keep.all():  # run-only queries: trec_eval skips them
        rows = np.flatnonzero(keep)
        qcode = qcode[rows]
        docs = docs.gather(rows)
        s32 = _float32_scores(run.get_column(SCORE).gather(rows))
    else:
        s32 = _float32_scores(run.get_column(SCORE))
    dcode = _codes(docs, denum)
    perm = _order(qcode, s32, docs)
    del s32, docs
    if perm is not None:
        qcode = qcode[perm]
        dcode = dcode[perm]
    rel = _lookup(qcode, dcode, qq, qd, qv, len(dvals))
    del dcode

    present = np.flatnonzero(np.bincount(qcode, minlength=len(qvals)) > 0)
    seg_of = np.full(len(qvals), -1, dtype=np.int64)
    seg_of[present] = np.arange(present.size)
    if judged_only:
        k = rel >= 0
        rel = rel[k]
        qcode = qcode[k]
    lens = np.bincount(seg_of[qcode], minlength=present.size) if qcode.size else np.zeros(present.size, np.int64)
    starts = np.zeros(present.size + 1, dtype=np.int64)
    np.cumsum(lens, out=starts[1:])

    # per-query qrels counts (form_res_rels.c rel_levels / num_rel)
    qseg = seg_of[qq]
    inq = qseg >= 0
    qseg, qv_in = qseg[inq], qv[inq]
    level = int(relevance_level)
    S = present.size
    num_rel = np.bincount(qseg[(qv_in >= 0) & (qv_in >= level)], minlength=S)
    num_nonrel = np.bincount(qseg[(qv_in >= 0) & (qv_in < level)], minlength=S)
    pos_g = qv_in > 0
    ig_seg, ig_val = qseg[pos_g], qv_in[pos_g]
    o = np.lexsort((-ig_val, ig_seg))
    ideal = ig_val[o].astype(np.float64)
    ilens = np.bincount(ig_seg, minlength=S)
    istarts = np.zeros(S + 1, dtype=np.int64)
    np.cumsum(ilens, out=istarts[1:])
    return Ranked(
        queries=qvals.gather(present).to_list(),
        starts=starts,
        rel=rel,
        level=level,
        num_rel=num_rel.astype(np.int64),
        num_nonrel=num_nonrel.astype(np.int64),
        ideal_starts=istarts,
        ideal=ideal,
    )


# --------------------------------------------------------------------------------------------- measures
#
# Each function mirrors trec_eval's m_<name>.c for all queries at once and returns one array per output
# value (one per cutoff for the cutoff measures). Comments give the C expression where the order of the
# floating-point operations matters.


def _long_cutoffs(base: str, p: str | None) -> list[int]:
    return list(BY_NAME[base].defaults) if p is None else sorted(int(x) for x in p.split(","))


def _double_cutoffs(base: str, p: str | None) -> list[float]:
    return list(BY_NAME[base].defaults) if p is None else sorted(float(x) for x in p.split(","))


def _f(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _ap_prefix(r: Ranked) -> np.ndarray:
    """Running sum of rel_so_far / rank over the relevant rows (m_map.c), per query, sequential."""
    if "ap" not in r._cache:
        sp = r.relrows
        r._cache["prec_at_rel"] = _div(sp.rank, sp.pos + 1)  # (double) rel_so_far / (double) (i + 1)
        r._cache["ap"] = _segmented(r._cache["prec_at_rel"], sp.starts, sp.lens, "sum")
    return r._cache["ap"]


def _ap_sum_upto(r: Ranked, m: np.ndarray) -> np.ndarray:
    """AP numerator after the first ``m`` relevant rows of each query."""
    pref = _ap_prefix(r)
    sp = r.relrows
    out = np.zeros(r.S, dtype=np.float64)
    has = m > 0
    out[has] = pref[(sp.starts + m - 1)[has]]
    return out


def _ap(r: Ranked) -> np.ndarray:
    s = _ap_sum_upto(r, r.relret)
    return np.where(r.relret > 0, _div(s, r.num_rel), 0.0)


def m_num_q(r: Ranked, p):
    return [np.ones(r.S)]


def m_num_ret(r: Ranked, p):
    return [_f(r.lens)]


def m_num_rel(r: Ranked, p):
    return [_f(r.num_rel)]


def m_num_rel_ret(r: Ranked, p):
    return [_f(r.num_rel_ret)]


def m_num_nonrel_judged_ret(r: Ranked, p):
    # num_ret - num_nonpool - num_unjudged_in_pool - num_rel_ret
    return [_f(r.num_judged_ret - r.num_rel_ret)]


def m_map(r: Ranked, p):
    return [_ap(r)]


def m_gm_map(r: Ranked, p):
    return [_c_log(np.maximum(_ap(r), MIN_GEO_MEAN))]


def m_map_cut(r: Ranked, p):
    out = []
    for k in _long_cutoffs("map_cut", p):
        s = _ap_sum_upto(r, r.count_at(k))
        out.append(np.where(r.num_rel > 0, _div(s, r.num_rel), 0.0))
    return out


def m_Rprec(r: Ranked, p):
    m = np.minimum(r.lens, r.num_rel)
    return [np.where(m > 0, _div(r.count_at(m), r.num_rel), 0.0)]


def m_recip_rank(r: Ranked, p):
    sp = r.relrows
    out = np.zeros(r.S, dtype=np.float64)
    has = sp.lens > 0
    out[has] = _div(1.0, sp.pos[sp.starts[has]] + 1)
    return [out]


def m_P(r: Ranked, p):
    return [_div(r.count_at(k), k) for k in _long_cutoffs("P", p)]


def m_recall(r: Ranked, p):
    return [np.where(r.num_rel > 0, _div(r.count_at(k), r.num_rel), 0.0) for k in _long_cutoffs("recall", p)]


def m_success(r: Ranked, p):
    return [(r.count_at(k) > 0).astype(np.float64) for k in _long_cutoffs("success", p)]


def m_relative_P(r: Ranked, p):
    return [
        np.where(r.num_rel > 0, _div(r.count_at(k), np.minimum(k, r.num_rel)), 0.0)
        for k in _long_cutoffs("relative_P", p)
    ]


def _bpref(r: Ranked) -> np.ndarray:
    """m_bpref.c: for each judged relevant row, 1 - min(nonrel above, R) / min(num_nonrel, R)."""
    sp = r.relrows  # judged rows with rel >= level (level >= 1)
    nonrel = r.judged & ~r.isrel
    nsf = sp.before(_cs0(nonrel))
    R = r.num_rel[sp.seg]
    NN = r.num_nonrel[sp.seg]
    contrib = np.where(nsf > 0, 1.0 - _div(np.minimum(nsf, R), np.minimum(NN, R)), 1.0)
    s = r.seq_sum(sp, contrib)
    return np.where(r.num_rel > 0, _div(s, r.num_rel), s)


def m_bpref(r: Ranked, p):
    return [_bpref(r)]


def m_gm_bpref(r: Ranked, p):
    return [_c_log(np.maximum(_bpref(r), MIN_GEO_MEAN))]


def m_infAP(r: Ranked, p):
    """m_infap.c (Yilmaz & Aslam 2006), with trec_eval's operation order."""
    sp = r.relrows
    nonrel = r.judged & ~r.isrel
    nsf = sp.before(_cs0(nonrel))
    pusf = sp.before(_cs0(r.rel == UNJUDGED))
    rsf = sp.rank
    fj = _f(sp.pos)
    with np.errstate(divide="ignore", invalid="ignore"):
        # 1.0/(fj+1.0) + (fj/(fj+1.0)) * ((rsf-1+nsf+pusf)/fj) * ((rsf-1+EPS)/(rsf-1+nsf+2*EPS))
        t = (fj / (fj + 1.0)) * (_f(rsf - 1 + nsf + pusf) / fj)
        t = t * ((_f(rsf - 1) + INFAP_EPSILON) / (_f(rsf - 1 + nsf) + 2 * INFAP_EPSILON))
        contrib = np.where(sp.pos == 0, 1.0, 1.0 / (fj + 1.0) + t)
    s = r.seq_sum(sp, contrib)
    return [np.where(r.num_rel > 0, _div(s, r.num_rel), s)]


def _iprec_values(r: Ranked, points: list[float]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """m_iprec_at_recall.c: interpolated precision at each recall point, and the point's rank cutoff."""
    _ap_prefix(r)
    sp = r.relrows
    sufmax = _segmented(r._cache["prec_at_rel"], sp.starts, sp.lens, "revmax")
    nrr = r.num_rel_ret
    # int_precis when the loop stops above the first relevant doc: max over all relevant ranks, or
    # num_rel_ret / num_ret (0, or nan for an empty ranking) when nothing relevant was retrieved
    final = _div(nrr, r.lens)
    has = sp.lens > 0
    final[has] = sufmax[sp.starts[has]]
    values, cuts = [], []
    for pt in points:
        cut = (pt * _f(r.num_rel) + 0.9).astype(np.int64)  # (long) (percent * num_rel + 0.9)
        v = np.zeros(r.S, dtype=np.float64)
        mid = (cut >= 1) & (cut <= nrr)
        v[mid] = sufmax[(sp.starts + cut - 1)[mid]]
        zero = (cut == 0) & (cut <= nrr)
        v[zero] = final[zero]
        values.append(v)
        cuts.append(cut)
    return values, cuts


def m_iprec_at_recall(r: Ranked, p):
    return _iprec_values(r, _double_cutoffs("iprec_at_recall", p))[0]


def m_11pt_avg(r: Ranked, p):
    points = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    values, cuts = _iprec_values(r, points)
    acc = np.zeros(r.S, dtype=np.float64)
    for v, cut in zip(reversed(values), reversed(cuts), strict=True):  # summed from the last point down
        acc = np.where(cut <= r.num_rel_ret, acc + v, acc)
    return [acc / float(len(points))]


def m_Rprec_mult(r: Ranked, p):
    out = []
    for pt in _double_cutoffs("Rprec_mult", p):
        cut = (pt * _f(r.num_rel) + 0.9).astype(np.int64)
        inside = _div(r.count_at(cut), cut)  # rel_so_far / i at i == cutoff
        beyond = _div(r.num_rel_ret, cut)  # num_rel_ret / cutoff when cutoff > num_ret
        out.append(np.where(cut == 0, 0.0, np.where(cut > r.lens, beyond, inside)))
    return out


def m_set_P(r: Ranked, p):
    return [np.where(r.lens > 0, _div(r.num_rel_ret, r.lens), 0.0)]


def m_set_recall(r: Ranked, p):
    return [np.where(r.num_rel > 0, _div(r.num_rel_ret, r.num_rel), 0.0)]


def m_set_relative_P(r: Ranked, p):
    ok = (r.lens > 0) & (r.num_rel > 0)
    return [np.where(ok, _div(r.num_rel_ret, np.minimum(r.lens, r.num_rel)), 0.0)]


def m_set_map(r: Ranked, p):
    ok = (r.lens > 0) & (r.num_rel > 0)
    nrr = _f(r.num_rel_ret)
    return [np.where(ok, _div(nrr * nrr, _f(r.lens) * _f(r.num_rel)), 0.0)]


def m_set_F(r: Ranked, p):
    x = 1.0 if p is None else float(p)
    P = _div(r.num_rel_ret, r.lens)
    R = _div(r.num_rel_ret, r.num_rel)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (x + 1.0) * P * R / (x * P + R)
    return [np.where(r.num_rel_ret > 0, v, 0.0)]


def m_utility(r: Ranked, p):
    a, b, c, d = (1.0, -1.0, 0.0, 0.0) if p is None else (float(x) for x in p.split(","))
    nrr, n, R = r.num_rel_ret, r.lens, r.num_rel
    # params[0]*a + params[1]*b + params[2]*c + params[3]*(num_docs_in_coll (0) + nrr - n - R)
    return [a * _f(nrr) + b * _f(n - nrr) + c * _f(R - nrr) + d * _f(nrr - n - R)]


def m_binG(r: Ranked, p):
    sp = r.relrows
    contrib = _div(1.0, _log2(3 + sp.pos - sp.rank))  # 1.0 / log2(3 + i - rel_so_far)
    s = r.seq_sum(sp, contrib)
    return [np.where(r.relret > 0, _div(s, r.num_rel), 0.0)]


def _dcg_total(r: Ranked) -> np.ndarray:
    return r.dcg_upto(r.gainrows.lens)


def m_ndcg(r: Ranked, p):
    rd = _dcg_total(r)
    idg = r.ideal_at(r.ideal_lens)
    return [np.where(idg > 0, _div(rd, idg), 0.0)]


def m_ndcg_cut(r: Ranked, p):
    out = []
    for k in _long_cutoffs("ndcg_cut", p):
        dcg = r.dcg_upto(r.gainrows.count_at(k))
        idg = r.ideal_at(np.full(r.S, k, dtype=np.int64))
        out.append(np.where(idg > 0, _div(dcg, idg), dcg))
    return out


def m_ndcg_rel(r: Ranked, p):
    """m_ndcg_rel.c: nDCG averaged over the relevant (gain > 0) documents, unretrieved ones at the end."""
    g = r.gainrows
    rd_rows = r.dcg_prefix
    ilen = r.ideal_lens[g.seg]
    id_rows = r.ideal_prefix[r.ideal_starts[:-1][g.seg] + np.minimum(g.pos + 1, ilen) - 1] if g.idx.size else _f([])
    s = r.seq_sum(g, _div(rd_rows, id_rows))
    rd = _dcg_total(r)
    idg = r.ideal_at(r.ideal_lens)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = s + (_f(r.ideal_lens - g.lens) * rd) / idg  # sum += (num_rel - num_rel_ret) * dcg / ideal
        return [np.where(s > 0.0, s / _f(r.ideal_lens), 0.0)]


def m_Rndcg(r: Ranked, p):
    """m_Rndcg.c: nDCG averaged at the ranks where the ideal gain changes, plus once at num_ret."""
    S = r.S
    ist = r.ideal_starts[:-1]
    # boundaries b (number of ideal positions before a change of gain), within and at the end of the list
    j = np.arange(r.ideal.size, dtype=np.int64)
    seg_j = np.repeat(np.arange(S, dtype=np.int64), r.ideal_lens)
    inner = np.flatnonzero((j > ist[seg_j]) & (r.ideal != np.roll(r.ideal, 1)))
    b_seg = np.concatenate([seg_j[inner], np.flatnonzero(r.ideal_lens > 0)])
    b_pos = np.concatenate([inner - ist[seg_j[inner]], r.ideal_lens[r.ideal_lens > 0]])
    o = np.lexsort((b_pos, b_seg))
    b_seg, b_pos = b_seg[o], b_pos[o]
    m = np.minimum(b_pos, r.lens[b_seg])
    rd_b = r.dcg_at_rows(b_seg, m)
    id_b = r.ideal_prefix[ist[b_seg] + b_pos - 1]
    nb = np.bincount(b_seg, minlength=S)
    bstarts = np.cumsum(nb) - nb
    s = np.zeros(S, dtype=np.float64)
    pref = _segmented(_div(rd_b, id_b), bstarts, nb, "sum")
    has = nb > 0
    s[has] = pref[(bstarts + nb - 1)[has]]
    final = (r.ideal_lens >= 1) & (r.ideal_lens + 1 < r.lens)
    rd = _dcg_total(r)
    idg = r.ideal_at(r.ideal_lens)
    s = np.where(final, s + _div(rd, idg), s)
    count = nb + final
    return [np.where(r.num_rel > 0, _div(s, count), 0.0)]


def m_G(r: Ranked, p):
    """m_G.c (default gains): each gain / log2(2 + ideal cost so far - gain so far), over the ideal total."""
    g = r.gainrows
    gains = r.rel[g.idx]
    gcs = np.cumsum(gains)  # integer running gain over the gain rows (other rows add 0): exact
    gstart_cum = np.zeros(r.S, dtype=np.int64)
    has = g.lens > 0
    gstart_cum[has] = gcs[g.starts[has]] - gains[g.starts[has]]
    sum_results = gcs - np.repeat(gstart_cum, g.lens)
    ideal_int = r.ideal.astype(np.int64)
    icum = np.cumsum(ideal_int)
    ist = r.ideal_starts[:-1]
    ibase = np.zeros(r.S, dtype=np.int64)
    ihas = r.ideal_lens > 0
    ibase[ihas] = icum[ist[ihas]] - ideal_int[ist[ihas]]
    Rp = r.ideal_lens[g.seg]
    m = np.minimum(g.pos + 1, Rp)
    ideal_m = np.where(m > 0, icum[np.maximum(ist[g.seg] + m - 1, 0)] - ibase[g.seg], 0) if g.idx.size else gains
    sum_cost = ideal_m + np.maximum(0, g.pos + 1 - Rp)
    contrib = _div(gains, _log2(2 + sum_cost - sum_results))
    s = r.seq_sum(g, contrib)
    total = np.zeros(r.S, dtype=np.int64)
    total[ihas] = icum[(ist + r.ideal_lens - 1)[ihas]] - ibase[ihas]
    return [np.where(total > 0, _div(s, total), 0.0)]


# --------------------------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class VectorMeasure:
    """A trec_eval measure the vectorized engine computes: its function and which parameters it takes."""

    name: str
    compute: Callable[[Ranked, str | None], list[np.ndarray]]
    accepts: Callable[[str | None], bool] = lambda p: True


VECTOR_MEASURES: dict[str, VectorMeasure] = {}


def register_vector_measure(measure: VectorMeasure) -> VectorMeasure:
    """Add a measure to the vectorized engine (its name must be a trec_eval measure name)."""
    if measure.name not in BY_NAME:
        raise ValueError(f"{measure.name!r} is not a trec_eval measure")
    VECTOR_MEASURES[measure.name] = measure
    return measure


def _no_params(p: str | None) -> bool:
    return p is None


def _n_floats(n: int) -> Callable[[str | None], bool]:
    def ok(p: str | None) -> bool:
        if p is None:
            return True
        try:
            vals = [float(x) for x in p.split(",")]
        except ValueError:
            return False
        return len(vals) == n and all(math.isfinite(v) for v in vals)

    return ok


for _name, _fn, _accepts in (
    ("num_q", m_num_q, None),
    ("num_ret", m_num_ret, None),
    ("num_rel", m_num_rel, None),
    ("num_rel_ret", m_num_rel_ret, None),
    ("map", m_map, None),
    ("gm_map", m_gm_map, None),
    ("Rprec", m_Rprec, None),
    ("bpref", m_bpref, None),
    ("recip_rank", m_recip_rank, None),
    ("iprec_at_recall", m_iprec_at_recall, None),
    ("P", m_P, None),
    ("recall", m_recall, None),
    ("infAP", m_infAP, None),
    ("gm_bpref", m_gm_bpref, None),
    ("Rprec_mult", m_Rprec_mult, None),
    ("utility", m_utility, _n_floats(4)),
    ("11pt_avg", m_11pt_avg, _no_params),
    ("binG", m_binG, None),
    ("G", m_G, _no_params),
    ("ndcg", m_ndcg, _no_params),
    ("ndcg_rel", m_ndcg_rel, _no_params),
    ("Rndcg", m_Rndcg, _no_params),
    ("ndcg_cut", m_ndcg_cut, None),
    ("map_cut", m_map_cut, None),
    ("relative_P", m_relative_P, None),
    ("success", m_success, None),
    ("set_P", m_set_P, None),
    ("set_relative_P", m_set_relative_P, None),
    ("set_recall", m_set_recall, None),
    ("set_map", m_set_map, None),
    ("set_F", m_set_F, _n_floats(1)),
    ("num_nonrel_judged_ret", m_num_nonrel_judged_ret, None),
):
    register_vector_measure(VectorMeasure(_name, _fn, _accepts or (lambda p: True)))

_HANDLED_BY_EVALUATE = ("runid", "relstring")  # printed by evaluate(), not computed by engines


def output_names(request: MeasureRequest, base: str) -> list[str]:
    """The per-query column names an engine returns for ``base``, as pytrec_eval names them.

    Cutoff measures get one column per cutoff (``P_10``, ``iprec_at_recall_0.10``); the others one column
    named after the measure, whatever its parameters (``set_F``, ``utility``).
    """
    if BY_NAME[base].params in (LONG_CUTOFFS, DOUBLE_CUTOFFS) and base != "11pt_avg":
        return request.output_names(base)
    return [base]


def supports(request: MeasureRequest) -> bool:
    """True when every requested measure (with its parameters) is computed exactly by this engine."""
    for base in request.names:
        if base in _HANDLED_BY_EVALUATE:
            continue
        m = VECTOR_MEASURES.get(base)
        if m is None or not m.accepts(request.params[base]):
            return False
        if BY_NAME[base].params == PAIR_PARAMS and request.params[base] is not None:
            return False
    return True


def compute_ranked(r: Ranked, request: MeasureRequest) -> pl.DataFrame:
    """Per-query values (one row per query of ``r``, columns in trec_eval table order) from a :class:`Ranked`."""
    data: dict[str, object] = {QUERY: pl.Series(QUERY, r.queries, dtype=pl.Utf8)}
    for base in request.names:
        if base in _HANDLED_BY_EVALUATE:
            continue
        values = VECTOR_MEASURES[base].compute(r, request.params[base])
        for name, v in zip(output_names(request, base), values, strict=True):
            data[name] = np.asarray(v, dtype=np.float64)
    return pl.DataFrame(data)


def compute(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
) -> pl.DataFrame:
    """Engine entry point (see :mod:`trecrs.scoring.engines`): one row per query in both run and qrels.

    A relevance level below 1 goes to the pytrec_eval engine, which refuses it as pytrec_eval does.
    """
    if relevance_level < 1:
        from .engines import ENGINES

        return ENGINES["pytrec_eval"].compute(
            qrels, run, request, relevance_level=relevance_level, judged_only=judged_only
        )
    bases = [b for b in request.names if b not in _HANDLED_BY_EVALUATE]
    if not bases or run.height == 0:
        return pl.DataFrame({QUERY: _as_utf8(run.get_column(QUERY)).unique().sort()})
    r = rank(qrels, run, relevance_level=relevance_level, judged_only=judged_only)
    if r.S == 0:
        return pl.DataFrame({QUERY: []}, schema={QUERY: pl.Utf8})
    return compute_ranked(r, request)


ENGINE = register_engine(
    Engine(
        name="vectorized",
        compute=compute,
        supports=supports,
        description="numpy/polars implementation of trec_eval 9.x, bitwise equal to pytrec_eval (default)",
    )
)
