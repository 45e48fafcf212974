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

from ..ids import IdCodes as _Ids
from ..measures.trec_eval import BY_NAME, DOUBLE_CUTOFFS, LONG_CUTOFFS, PAIR_PARAMS, MeasureRequest
from ..schema import DOC, QUERY, REL, SCORE
from .base import Engine, register_engine

NONPOOL = -1  # trec_eval RELVALUE_NONPOOL: retrieved document absent from the qrels
UNJUDGED = -2  # trec_eval RELVALUE_UNJUDGED: in the qrels with a negative value
MIN_GEO_MEAN = 0.00001  # trec_eval.h
INFAP_EPSILON = 0.00001  # trec_eval.h
_TABLE_CELLS = 1 << 20  # (query x doc) lookup table per range of queries: small enough to stay in cache
_SLICE = 1 << 22  # rows handled at once by the passes over the whole run (bounds their temporaries)

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

    Segment ``s`` (query ``queries[s]``; segments follow the run's query order, then the ``-c`` stand-in
    queries) owns ``rel[starts[s]:starts[s+1]]``: the relevance value of each retrieved document in
    trec_eval's ranking order (after ``-M`` and ``-J``).
    """

    queries: list[str]
    starts: np.ndarray  # int64, len S+1
    rel: np.ndarray  # int64 per ranked document
    level: int
    num_rel: np.ndarray  # judged documents with rel >= level
    num_nonrel: np.ndarray  # judged documents with 0 <= rel < level
    ideal_starts: np.ndarray  # int64, len S+1, into ideal
    ideal: np.ndarray  # float64: positive judged values, descending within each query
    bogus: np.ndarray | None = None  # -c: queries absent from the run (evaluated on a stand-in ranking)
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

    # ---- row subsets, kept sparse: rows are never scanned again once the subsets are drawn
    @cached_property
    def relrows(self) -> Sparse:
        """Relevant rows (trec_eval: ``results_rel_list[i] >= relevance_level``)."""
        return Sparse.of(self, self.rel >= self.level)

    @cached_property
    def relret(self) -> np.ndarray:
        return self.relrows.lens

    def count_at(self, k) -> np.ndarray:
        """Relevant documents among the first ``k`` retrieved of each query (k scalar or per query)."""
        return self.relrows.count_at(k)

    @cached_property
    def nonrelrows(self) -> Sparse:
        """Judged non-relevant rows (``0 <= rel < level``)."""
        return Sparse.of(self, (self.rel >= 0) & (self.rel < self.level))

    @cached_property
    def num_judged_ret(self) -> np.ndarray:
        return self.relret + self.nonrelrows.lens

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
        c = np.searchsorted(g.idx, self.first[seg] + np.minimum(m, self.lens[seg])) - g.starts[seg]
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
    """A subset of a :class:`Ranked`'s rows, in ranking order (so grouped by query), as row indices.

    Counts over rank ranges are binary searches in the sorted row indices, so nothing proportional to
    the whole run is computed again once the subset is drawn.
    """

    idx: np.ndarray  # sorted row indices into Ranked.rel
    seg: np.ndarray  # query of each row
    pos: np.ndarray  # 0-based rank of each row within its query
    starts: np.ndarray  # start of each query's rows within idx (len S)
    lens: np.ndarray  # rows per query (len S)
    r_first: np.ndarray  # Ranked.first
    r_lens: np.ndarray  # Ranked.lens

    @classmethod
    def of(cls, r: Ranked, mask: np.ndarray) -> Sparse:
        idx = np.flatnonzero(mask)
        bounds = np.searchsorted(idx, r.starts)
        lens = np.diff(bounds)
        seg = np.repeat(np.arange(r.S, dtype=np.int64), lens)
        pos = idx - r.first[seg]
        return cls(idx, seg, pos, bounds[:-1], lens, r.first, r.lens)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based ordinal of each row among its query's rows of this subset."""
        return np.arange(self.idx.size, dtype=np.int64) - np.repeat(self.starts, self.lens) + 1

    def count_at(self, k) -> np.ndarray:
        """Subset rows among the first ``k`` retrieved of each query."""
        return np.searchsorted(self.idx, self.r_first + np.minimum(k, self.r_lens)) - self.starts

    def before(self, other: Sparse) -> np.ndarray:
        """For each row of this subset, how many rows of ``other`` precede it in its query's ranking."""
        return np.searchsorted(other.idx, self.idx) - other.starts[self.seg]


# --------------------------------------------------------------------------------------------- encoding


class DuplicateEntry(ValueError):
    """A (query, doc) pair occurs twice in the run (trec_eval refuses such a run)."""


def _as_utf8(col: pl.Series) -> pl.Series:
    return col if col.dtype == pl.Utf8 else col.cast(pl.Utf8)


def _float32_scores(col: pl.Series) -> np.ndarray:
    """Scores as C ``float``s, with -0.0 made 0.0 (they compare equal in C, so the doc id decides)."""
    out = np.empty(col.len(), dtype=np.float32)
    at = 0
    for chunk in col.get_chunks():
        v = chunk.cast(pl.Float32).to_numpy()
        out[at : at + v.size] = v
        at += v.size
    out[out == 0] = 0.0
    return out


def _blocks(qcode: np.ndarray) -> np.ndarray:
    """Start row of each run of equal query codes."""
    change = np.empty(qcode.size, dtype=bool)
    change[:1] = True
    np.not_equal(qcode[1:], qcode[:-1], out=change[1:])
    return np.flatnonzero(change)


def _order(qcode: np.ndarray, s32: np.ndarray, dcode: np.ndarray) -> np.ndarray | None:
    """Row permutation putting each query's rows together in trec_eval order (score desc, doc id desc).

    ``qcode``/``dcode`` are ranks in bytewise-sorted id vocabularies, so comparing codes compares ids.
    Returns None when nothing has to move: each query's rows contiguous (in any query order), scores
    non-increasing and equal scores with decreasing doc ids — checked in linear time; runs written by
    recommenders and by ``trecrs run`` are like that. Otherwise a sort by (query, score, doc).
    """
    n = qcode.size
    if n == 0:
        return None
    bstart = _blocks(qcode)
    if np.unique(qcode[bstart]).size == bstart.size:
        same = np.ones(n - 1, dtype=bool)
        same[bstart[1:] - 1] = False
        for a in range(0, n - 1, _SLICE):  # in slices: temporaries stay small
            b = min(n - 1, a + _SLICE)
            sp, sn = s32[a:b], s32[a + 1 : b + 1]
            bad = (sn > sp) | ((sn == sp) & (dcode[a + 1 : b + 1] >= dcode[a:b]))
            if (same[a:b] & bad).any():
                break
        else:
            return None
    qbits = int(qcode.max()).bit_length()
    dbits = int(dcode.max()).bit_length()
    if qbits + 32 + dbits <= 64:
        # one 64-bit key per line (query, score descending, doc descending): a single integer sort
        dmax = np.uint64((1 << dbits) - 1)
        key = qcode.astype(np.uint64) << np.uint64(32 + dbits)
        key |= _descending_key(s32).astype(np.uint64) << np.uint64(dbits)
        key |= dmax - dcode.astype(np.uint64)
        return pl.Series(key).arg_sort().to_numpy()
    frame = pl.DataFrame({"q": qcode, "s": s32, "d": dcode})
    return frame.select(
        pl.arg_sort_by(["q", "s", "d"], descending=[False, True, True], maintain_order=True)
    ).to_series().to_numpy()


def _lookup(bstart, dcode, qq, qd, qv, ndocs: int, *, check_duplicates: bool = False) -> np.ndarray:
    """Relevance of each run row — its qrels value, NONPOOL or UNJUDGED — in one linear pass.

    The run's rows come in blocks, one per query (block ``i`` starts at row ``bstart[i]``); qrels row ``j``
    belongs to block ``qq[j]`` (negative: a query absent from the run, ignored). A dense (block x doc)
    table for a range of blocks at a time (about 2^20 cells, which stay in cache) is filled from the
    qrels, read for those blocks' rows, and cleared again, so the cost is linear in the number of lines
    whatever the catalogue size. With ``check_duplicates`` a second table records which row claimed each cell; a row
    that does not find itself there repeats a (query, doc) pair (:class:`DuplicateEntry`).
    """
    n = dcode.size
    out = np.full(n, NONPOOL, dtype=np.int16)
    if n == 0:
        return out
    use = qq >= 0
    qq, qd, qv = qq[use], qd[use], qv[use]
    val = np.where(qv < 0, UNJUDGED, qv) if qv.size else qv
    if qv.size and not (-32768 < int(val.min()) and int(val.max()) < 32767):
        out = out.astype(np.int64)
    o = np.argsort(qq, kind="stable")
    qq, qd, val = qq[o], qd[o], val[o].astype(out.dtype)
    nb = bstart.size
    bounds = np.append(bstart, n)
    per = max(1, _TABLE_CELLS // max(ndocs, 1))
    table = np.full(min(nb, per) * ndocs, NONPOOL, dtype=out.dtype)
    owner = np.full(table.size, -1, dtype=np.int32) if check_duplicates else None
    b0 = 0
    while b0 < nb:
        # a range of blocks: at most `per` of them (table size) and about _SLICE rows (temporaries)
        reach = np.searchsorted(bounds, np.array([bounds[b0] + _SLICE], dtype=bounds.dtype), "right")
        b1 = min(nb, b0 + per, max(b0 + 1, int(reach[0]) - 1))
        a, b = int(bounds[b0]), int(bounds[b1])
        c, d = np.searchsorted(qq, np.array([b0, b1], dtype=qq.dtype))  # same dtype: no copy of qq
        cells = (qq[c:d] - b0) * ndocs + qd[c:d]
        table[cells] = val[c:d]
        lens = np.diff(bounds[b0 : b1 + 1])
        idx = np.repeat(np.arange(0, (b1 - b0) * ndocs, ndocs, dtype=np.int32), lens) + dcode[a:b]
        out[a:b] = table[idx]
        table[cells] = NONPOOL
        if owner is not None:
            rows = np.arange(b - a, dtype=np.int32)
            owner[idx] = rows
            if not (owner[idx] == rows).all():
                raise DuplicateEntry("duplicate (query, doc) in the run")
            owner[idx] = -1
        b0 = b1
    return out


def rank(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    complete: bool = False,
    check_duplicates: bool = False,
) -> Ranked:
    """Build trec_eval's ranked relevance lists for every query present in both the run and the qrels.

    ``qrels``: columns query, doc, rel; ``run``: query, doc, score. Ids may be ``Utf8`` or ``Categorical``.
    Implements ``form_res_rels.c``: ranking by :func:`trecrs.io.trec_order`'s rule, ``-M`` (``depth``:
    the first N of each ranking), relevance lookup, ``-J`` (judged documents only, original tie order
    kept) and the per-query relevance counts. With ``complete`` (``-c``) every qrels query missing from
    the run is added on trec_eval's stand-in ranking, one document in no qrels (``Ranked.bogus`` marks
    them; they come after the others).
    """
    return rank_encoded(
        encode(qrels, run), relevance_level=relevance_level, judged_only=judged_only, depth=depth,
        complete=complete, check_duplicates=check_duplicates,
    )  # fmt: skip


@dataclass
class Encoded:
    """A qrels/run pair as integers: ids as ranks in bytewise-sorted vocabularies, scores as C floats."""

    qvocab: pl.Series  # every query id (qrels and run), sorted bytewise
    dvocab: pl.Series  # every doc id, sorted bytewise
    qq: np.ndarray  # qrels rows: query code
    qd: np.ndarray  # qrels rows: doc code
    qv: np.ndarray  # qrels rows: relevance value
    qcode: np.ndarray  # run rows: query code
    dcode: np.ndarray  # run rows: doc code
    s32: np.ndarray  # run rows: score as float32


def encode(qrels: pl.DataFrame, run: pl.DataFrame) -> Encoded:
    """Encode ids once (``Utf8`` or ``Categorical`` columns) so that comparing codes compares ids bytewise."""
    rq, rd = _Ids(run.get_column(QUERY)), _Ids(run.get_column(DOC))
    qq, qd = _Ids(qrels.get_column(QUERY)), _Ids(qrels.get_column(DOC))
    # polars sorts strings by their bytes, as trec_eval's strcmp compares them
    qvocab = pl.concat([qq.strings, rq.strings]).unique().sort()
    dvocab = pl.concat([qd.strings, rd.strings]).unique().sort()
    return Encoded(
        qvocab=qvocab,
        dvocab=dvocab,
        qq=qq.encode(qvocab),
        qd=qd.encode(dvocab),
        qv=qrels.get_column(REL).cast(pl.Int64).to_numpy(),
        qcode=rq.encode(qvocab),
        dcode=rd.encode(dvocab),
        s32=_float32_scores(run.get_column(SCORE)),
    )


def rank_encoded(
    enc: Encoded,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    complete: bool = False,
    check_duplicates: bool = False,
) -> Ranked:
    """:func:`rank` on an :class:`Encoded` pair; the run arrays of ``enc`` are released as they are used."""
    qvocab, dvocab, qq, qd, qv = enc.qvocab, enc.dvocab, enc.qq, enc.qd, enc.qv
    qcode, dcode, s32 = enc.qcode, enc.dcode, enc.s32
    enc.qcode = enc.dcode = enc.s32 = None
    judged_q = np.zeros(len(qvocab), dtype=bool)
    judged_q[qq] = True
    perm = _order(qcode, s32, dcode)
    del s32
    if perm is not None:
        qcode = qcode[perm]
        dcode = dcode[perm]
        del perm
    # one block of rows per query, in the order the run lists them: rows never move again
    bstart = _blocks(qcode)
    nb = bstart.size
    bq = qcode[bstart]  # query code of each block
    blens = np.diff(np.append(bstart, qcode.size))
    del qcode
    block_of = np.full(len(qvocab), -1, dtype=np.int32)
    block_of[bq] = np.arange(nb, dtype=np.int32)
    rel = _lookup(bstart, dcode, block_of[qq], qd, qv, len(dvocab), check_duplicates=check_duplicates)
    del dcode
    keep_block = judged_q[bq]  # queries absent from the qrels are not evaluated
    keep = None
    if not keep_block.all():
        keep = np.repeat(keep_block, blens)
    if depth is not None and (blens > depth).any():
        pos = np.arange(rel.size, dtype=np.int64) - np.repeat(bstart, blens)
        keep = pos < depth if keep is None else keep & (pos < depth)
        del pos
    if judged_only:
        keep = rel >= 0 if keep is None else keep & (rel >= 0)
    if keep is not None:
        blens = np.add.reduceat(keep, bstart, dtype=np.int64) if rel.size else blens
        rel = rel[keep]
    del keep
    present = np.flatnonzero(keep_block)  # evaluated blocks, in run order
    seg_q = bq[present]  # query code of each segment
    lens = blens[present]
    if complete:
        in_run = np.zeros(len(qvocab), dtype=bool)
        in_run[bq] = True
        missing = np.flatnonzero(judged_q & ~in_run)
    else:
        missing = np.zeros(0, dtype=np.int64)
    if missing.size:
        # trec_eval -c: a missing query is ranked as one document that is in no qrels (gone under -J)
        seg_q = np.concatenate([seg_q, missing])
        stand_in = 0 if judged_only else 1
        rel = np.concatenate([rel, np.full(missing.size * stand_in, NONPOOL, dtype=rel.dtype)])
        lens = np.concatenate([lens, np.full(missing.size, stand_in, dtype=lens.dtype)])
    S = seg_q.size
    starts = np.zeros(S + 1, dtype=np.int64)
    np.cumsum(lens, out=starts[1:])
    seg_of = np.full(len(qvocab), -1, dtype=np.int64)
    seg_of[seg_q] = np.arange(S)

    # per-query qrels counts (form_res_rels.c rel_levels / num_rel)
    qseg = seg_of[qq]
    inq = qseg >= 0
    qseg, qv_in = qseg[inq], qv[inq]
    level = int(relevance_level)
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
        queries=qvocab.gather(seg_q).to_list(),
        bogus=np.arange(S) >= S - missing.size,
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
    nsf = sp.before(r.nonrelrows)
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
    nsf = sp.before(r.nonrelrows)
    pusf = sp.before(Sparse.of(r, r.rel == UNJUDGED))
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
        from .base import ENGINES

        return ENGINES["pytrec_eval"].compute(
            qrels, run, request, relevance_level=relevance_level, judged_only=judged_only
        )
    bases = [b for b in request.names if b not in _HANDLED_BY_EVALUATE]
    if not bases or run.height == 0:
        return pl.DataFrame({QUERY: _as_utf8(run.get_column(QUERY)).unique().sort()})
    r = rank(qrels, run, relevance_level=relevance_level, judged_only=judged_only)
    if r.S == 0:
        return pl.DataFrame({QUERY: []}, schema={QUERY: pl.Utf8})
    return compute_ranked(r, request).sort(QUERY)  # bytewise query order, as pytrec_eval's engine gives


ENGINE = register_engine(
    Engine(
        name="vectorized",
        compute=compute,
        supports=supports,
        description="numpy/polars implementation of trec_eval 9.x, bitwise equal to pytrec_eval (default)",
    )
)


# --------------------------------------------------------------------------------------------- files


def relstrings(r: Ranked, length: int = 10) -> dict[str, str]:
    """trec_eval's ``relstring`` from the ranked relevance values: ``0``-``9``, ``>`` above 9, ``-`` not in the
    qrels, ``.`` pooled but unjudged; queries evaluated on the ``-c`` stand-in ranking get an empty string,
    queries left with no document (``-J``) none, as in :func:`trecrs.scoring.evaluate.relstrings`.
    """
    take = np.minimum(r.lens, max(length, 0))
    rows = np.repeat(r.first, take) + (np.arange(int(take.sum())) - np.repeat(np.cumsum(take) - take, take))
    seg = np.repeat(np.arange(r.S), take)
    v = r.rel[rows]
    chars = np.where(v == NONPOOL, "-", np.where(v < 0, ".", np.where(v > 9, ">", v.clip(0, 9).astype(str))))
    frame = pl.DataFrame({"s": seg, "c": chars})
    joined = frame.group_by("s", maintain_order=True).agg(pl.col("c").str.join(""))
    out: dict[str, str] = {}
    for s_, c in zip(joined.get_column("s").to_list(), joined.get_column("c").to_list(), strict=True):
        out[r.queries[s_]] = c
    if r.bogus is not None:
        for s_ in np.flatnonzero(r.bogus):
            out[r.queries[s_]] = ""
    return out


def evaluate_files(
    qrels,
    run,
    request: MeasureRequest,
    *,
    engine: str = "auto",
    relevance_level: int = 1,
    judged_only: bool = False,
    average_all: bool = False,
    depth: int | None = None,
):
    """:func:`trecrs.scoring.evaluate_full` for a qrels file and a run file, the lean way, or None.

    The run is read with :func:`trecrs.io.read_run_for_scoring` (categorical ids, C-float scores; iter,
    rank and tag dropped as it is parsed) and evaluated here without building a string frame, so a
    22-million-line run needs a few hundred MB. Same rules and output as ``evaluate_full``: queries of
    the run present in the qrels, ``-c`` stand-in rankings (num_ret and utility then reset to 0), sums
    and means in bytewise query order, relstring, runid. Returns None (the caller then takes the general
    path) unless both inputs are paths and this engine is asked for (or ``auto``) and covers the request.
    """
    import os

    from ..errors import UsageError
    from ..files.trec import read_qrels, read_run_for_scoring

    if not all(isinstance(x, str | os.PathLike) for x in (qrels, run)):
        return None
    if engine not in ("auto", ENGINE.name) or not supports(request) or relevance_level < 1:
        return None
    if depth is not None and depth <= 0:
        raise UsageError("-M/depth must be a positive number of documents")
    run_df, tag = read_run_for_scoring(run, check_duplicates=False)  # checked while ranking, below
    enc = encode(read_qrels(qrels), run_df)
    del run_df  # from here on only integer arrays
    try:
        r = rank_encoded(
            enc, relevance_level=relevance_level, judged_only=judged_only, depth=depth, complete=average_all,
            check_duplicates=True,
        )  # fmt: skip
    except DuplicateEntry:
        from ..files.trec import read_run

        read_run(run)  # raises the error naming both lines
        raise
    return _evaluation(r, request, tag, average_all=average_all)


def _evaluation(r: Ranked, request: MeasureRequest, tag: str, *, average_all: bool):
    """evaluate_full's pieces from a :class:`Ranked`: per-query values (``-c`` resets), bytewise query
    order, summary, relstrings, runid."""
    from ..errors import UsageError
    from ..evaluate import Evaluation, _bytewise_sorted, summarize
    from ..measures.trec_eval import base_of

    n_bogus = int(r.bogus.sum()) if r.bogus is not None else 0
    if r.S - n_bogus == 0 and not average_all:
        raise UsageError("no queries with both results and relevance info (trec_eval exits here too)")
    per_query = compute_ranked(r, request)
    if n_bogus:
        # trec_eval.c resets num_ret and utility of a query evaluated on the stand-in ranking
        resets = [c for c in per_query.columns if c == "num_ret" or base_of(c) == "utility"]
        mask = pl.Series(r.bogus)
        per_query = per_query.with_columns([pl.when(mask).then(0.0).otherwise(pl.col(c)).alias(c) for c in resets])
    order = _bytewise_sorted(per_query.get_column(QUERY).to_list())
    if order != per_query.get_column(QUERY).to_list():
        per_query = per_query.join(pl.DataFrame({QUERY: order}).with_row_index("_o"), on=QUERY).sort("_o").drop("_o")
    num_q = per_query.height
    summary = summarize(per_query, num_q)
    rs: dict[str, str] = {}
    if "relstring" in request.params:
        p = request.params["relstring"]
        rs = relstrings(r, int(float(p.split(",")[0])) if p else 10)
    ordered_summary: dict[str, float] = {}
    if "runid" in request.params:
        ordered_summary["runid"] = float("nan")
    ordered_summary.update(summary)
    return Evaluation(request, per_query, ordered_summary, tag, rs, num_q)


# --------------------------------------------------------------------------------------------- matrix


def _descending_key(s32: np.ndarray) -> np.ndarray:
    """uint32 keys whose ascending order is the descending order of the float32 scores (C comparison)."""
    s = np.where(s32 == 0, np.float32(0.0), s32).astype(np.float32)  # -0.0 and 0.0 compare equal in C
    b = s.view(np.uint32)
    asc = np.where(b & np.uint32(0x80000000), ~b, b | np.uint32(0x80000000))
    return ~asc


def evaluate_matrix(
    qrels,
    scores,
    user_ids,
    item_ids,
    *,
    exclude=None,
    measures=None,
    relevance_level: int = 1,
    judged_only: bool = False,
    average_all: bool = False,
    depth: int | None = None,
    per_query: bool = True,
    tag: str = "trecrs",
) -> pl.DataFrame:
    """Score a users x items score matrix as the AllItems run it stands for, without writing that run.

    ``scores[u, i]`` is the score of item ``item_ids[i]`` for user ``user_ids[u]`` (numpy, float32 or
    float64); ``exclude`` (same shape, bool) marks the pairs that are not candidates — for AllItems
    (Bellogín, Castells & Cantador 2011) the user's training items (L_u = I \\ Tr_u). The result is
    exactly what writing the run ``user Q0 item rank score tag`` (one line per candidate pair) and scoring
    it with ``trecrs eval`` / :func:`trecrs.evaluate` gives: same ranking rule (score as a C float, ties
    by item id descending bytewise), same trec_eval measures and flags (``relevance_level`` = ``-l``,
    ``judged_only`` = ``-J``, ``average_all`` = ``-c``, ``depth`` = ``-M``). Tidy rows as
    :func:`trecrs.evaluate` returns them: ``(query, measure, value)``, per query then ``all``.

    Each row is ordered with one 64-bit key per cell (score bits, then item rank), so a 6,040 x 3,706
    matrix needs a few hundred MB and no string is created per pair. Only measures of the vectorized
    engine are available here (everything in ``all_trec``).
    """
    from ..errors import InputError, UsageError
    from ..files.trec import as_polars
    from ..measures.trec_eval import parse_measures
    from ..schema import MEASURE, QRELS_SCHEMA

    request = measures if isinstance(measures, MeasureRequest) else parse_measures(measures)
    if getattr(request, "extras", ()) or not supports(request):
        raise UsageError(f"evaluate_matrix computes the vectorized engine's measures only; got {measures!r}")
    if relevance_level < 1:
        raise UsageError("relevance_level must be at least 1")
    if depth is not None and depth <= 0:
        raise UsageError("-M/depth must be a positive number of documents")
    scores = np.asarray(scores)
    if scores.ndim != 2:
        raise ValueError(f"scores must be a users x items matrix, got shape {scores.shape}")
    users = pl.Series(QUERY, [str(u) for u in user_ids], dtype=pl.Utf8)
    items = pl.Series(DOC, [str(i) for i in item_ids], dtype=pl.Utf8)
    if scores.shape != (users.len(), items.len()):
        raise ValueError(f"scores shape {scores.shape} != ({users.len()} users, {items.len()} items)")
    for what, ids in (("user", users), ("item", items)):
        if ids.n_unique() != ids.len():
            dup = ids.filter(ids.is_duplicated())[0]
            raise InputError(None, None, f"{what} id {dup!r} occurs twice")
    cand = np.ones(scores.shape, dtype=bool) if exclude is None else ~np.asarray(exclude, dtype=bool)
    if cand.shape != scores.shape:
        raise ValueError(f"exclude shape {cand.shape} != scores shape {scores.shape}")
    s32 = scores.astype(np.float64, copy=False).astype(np.float32)
    if np.isnan(s32[cand]).any():
        u, i = np.argwhere(np.isnan(s32) & cand)[0]
        raise InputError(None, None, f"score of user {users[int(u)]!r}, item {items[int(i)]!r} is NaN")

    qrels_df = as_polars(qrels, QRELS_SCHEMA, "qrels")
    qrels_q, qrels_d = qrels_df.get_column(QUERY).cast(pl.Utf8), qrels_df.get_column(DOC).cast(pl.Utf8)
    qvocab = pl.concat([qrels_q.unique(), users]).unique().sort()
    dvocab = pl.concat([qrels_d.unique(), items]).unique().sort()
    ucode = _Ids(users).encode(qvocab)
    icode = _Ids(items).encode(dvocab)
    # one key per cell: score descending, then item id descending; non-candidates sort last
    key = _descending_key(s32).astype(np.uint64) << np.uint64(32)
    key |= (np.uint64(len(dvocab)) - 1 - icode.astype(np.uint64))[None, :]
    key[~cand] = np.iinfo(np.uint64).max
    order = np.argsort(key, axis=1)
    del key
    n_cand = cand.sum(axis=1)
    keep = np.arange(scores.shape[1])[None, :] < n_cand[:, None]
    cols = order[keep]
    del order
    rows = np.repeat(np.arange(scores.shape[0]), n_cand)
    enc = Encoded(
        qvocab=qvocab,
        dvocab=dvocab,
        qq=_Ids(qrels_q).encode(qvocab),
        qd=_Ids(qrels_d).encode(dvocab),
        qv=qrels_df.get_column(REL).cast(pl.Int64).to_numpy(),
        qcode=ucode[rows],
        dcode=icode[cols],
        s32=s32[rows, cols],
    )
    del rows, cols
    r = rank_encoded(
        enc, relevance_level=relevance_level, judged_only=judged_only, depth=depth, complete=average_all
    )
    ev = _evaluation(r, request, tag, average_all=average_all)
    out = ev.tidy(per_query=per_query)
    return out.filter(pl.col(MEASURE) != "runid")
