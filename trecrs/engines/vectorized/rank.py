"""trec_eval's ranked relevance lists (``form_res_rels.c``) for every query at once, as numpy arrays.

Every run line becomes a few integers (query code, document code, relevance); ids are encoded once
(ranks in the bytewise-sorted vocabulary of the qrels' and run's ids) and no Python object is created
per line. Rules (``form_res_rels.c``):

* ranking: :func:`trecrs.ordering.order_rows` (score as a C ``float`` descending, ties by document id
  descending bytewise); a run already in that order (what recommenders and ``trecrs run`` write) is
  verified in linear time instead of being sorted;
* relevance of a retrieved document: its qrels value; ``-1`` when absent from the qrels (not pooled);
  ``-2`` when its qrels value is negative (pooled but unjudged); ``num_rel`` counts qrels documents with
  ``0 <= level <= rel``; ``-J`` removes retrieved documents with a negative value before ranking;
* ``-M`` keeps the first N documents of each ranking; ``-c`` adds every qrels query missing from the run
  on trec_eval's stand-in ranking (``trec_eval.c``: one document that is in no qrels).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import polars as pl

from ...errors import TrecrsError
from ...ids import IdCodes
from ...ordering import ROWS_PER_PASS, c_floats, ordered_with_ties, query_blocks
from ...schema import DOC, QUERY, REL, SCORE
from .cmath import c_log2, segmented

NONPOOL = -1  # trec_eval RELVALUE_NONPOOL: retrieved document absent from the qrels
UNJUDGED = -2  # trec_eval RELVALUE_UNJUDGED: in the qrels with a negative value
_TABLE_CELLS = 1 << 20  # (query x doc) lookup table per range of queries: small enough to stay in cache

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
    num_zero: np.ndarray | None = None  # judged documents with rel == 0 (rel_levels[0]; gain parameters)
    tied: np.ndarray | None = (
        None  # per ranked document: same score as the one above it (False at each query's first)
    )
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
    def judgedrows(self) -> Sparse:
        """Judged rows (``rel >= 0``): unjudged (-1) and pooled-but-unjudged (-2) rows left out."""
        return Sparse.of(self, self.rel >= 0)

    @cached_property
    def judgedrelrows(self) -> Sparse:
        """Judged relevant rows (``rel >= max(level, 0)``): what m_bpref.c and m_infap.c count, as they skip
        unjudged rows before testing the level."""
        return self.relrows if self.level >= 0 else Sparse.of(self, self.rel >= 0)

    def counted_down(self) -> Ranked:
        """The ranking as the reverse loops of m_iprec_at_recall.c and m_Rprec_mult.c see it.

        They start from num_rel_ret and count down at every row with ``rel >= level``, stopping at 0. Below
        level 0 unjudged rows pass that test but are not in num_rel_ret, so the loop reaches 0 that many
        relevant rows early: the same as the ranking whose first ``relret - num_rel_ret`` relevant rows are
        not relevant. ``self`` when no query has such rows.
        """
        extra = self.relret - self.num_rel_ret
        if not extra.any():
            return self
        sp = self.relrows
        rel = self.rel.copy()
        rel[sp.idx[sp.rank <= extra[sp.seg]]] = min(self.level, 0) - 1  # below the level, and not judged
        out = Ranked(
            self.queries,
            self.starts,
            rel,
            self.level,
            self.num_rel,
            self.num_nonrel,
            self.ideal_starts,
            self.ideal,
            self.bogus,
            self.num_zero,
            self.tied,
        )
        out.__dict__["num_rel_ret"] = self.num_rel_ret
        return out

    @cached_property
    def num_judged_ret(self) -> np.ndarray:
        return self.relret + self.nonrelrows.lens if self.level >= 0 else self.judgedrows.lens

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """trec_eval's num_rel_ret: judged retrieved documents with rel >= level.

        From level 0 up the relevant rows are judged rows; below 0 the measures that test
        ``results_rel_list[i] >= level`` count unjudged rows (-1, and -2 from level -2) as relevant, but
        ``form_res_rels.c`` counts num_rel_ret over judged rows only, so the two part.
        """
        return self.relret if self.level >= 0 else self.judgedrows.lens

    @cached_property
    def gainrows(self) -> Sparse:
        """Rows with a positive relevance value (the rows that add to a DCG)."""
        return Sparse.of(self, self.rel > 0)

    @property
    def posrows(self) -> Sparse:
        """Rows with a positive gain: the gain rows, as gains are relevance values here."""
        return self.gainrows

    @cached_property
    def ideal_lens(self) -> np.ndarray:
        return np.diff(self.ideal_starts)

    @cached_property
    def ideal_prefix(self) -> np.ndarray:
        """Running ideal DCG: sum_{j<=i} g_j / log2(j + 2) over each query's ideal gains (sequential)."""
        pos = np.arange(self.ideal.size, dtype=np.int64) - np.repeat(self.ideal_starts[:-1], self.ideal_lens)
        return segmented(self.ideal / c_log2(pos + 2), self.ideal_starts[:-1], self.ideal_lens, "sum")

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
        contrib = self.rel[g.idx].astype(np.float64) / c_log2(g.pos + 2)
        return segmented(contrib, g.starts, g.lens, "sum")

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
        pref = segmented(contrib, sparse.starts, sparse.lens, "sum")
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


class DuplicateEntry(TrecrsError):
    """A (query, doc) pair occurs twice in the run (trec_eval refuses such a run)."""


def rank(qrels: pl.DataFrame, run: pl.DataFrame, *, score_dtype=np.float32, **options) -> Ranked:
    """Build trec_eval's ranked relevance lists for every query present in both the run and the qrels.

    ``qrels``: columns query, doc, rel; ``run``: query, doc, score. Ids may be ``Utf8`` or ``Categorical``.
    Implements ``form_res_rels.c``: ranking by :func:`trecrs.ordering.order_rows`, ``-M`` (``depth``:
    the first N of each ranking), relevance lookup, ``-J`` (judged documents only, original tie order
    kept) and the per-query relevance counts. With ``complete`` (``-c``) every qrels query missing from
    the run is added on trec_eval's stand-in ranking, one document in no qrels (``Ranked.bogus`` marks
    them; they come after the others). ``score_dtype``: the C type scores are compared in (float32 for
    trec_eval 9.x, float64 for 10.0). ``options`` are :func:`rank_encoded`'s.
    """
    return rank_encoded(encode(qrels, run, score_dtype=score_dtype), **options)


@dataclass
class Encoded:
    """A qrels/run pair as integers: ids as ranks in bytewise-sorted vocabularies, scores as C floats."""

    qvocab: pl.Series  # every query id (qrels and run), sorted bytewise
    dvocab: pl.Series  # every doc id, sorted bytewise
    qq: np.ndarray  # qrels rows: query code
    qd: np.ndarray  # qrels rows: doc code
    qv: np.ndarray  # qrels rows: relevance value
    qcode: np.ndarray | None  # run rows: query code (None once released by prepare)
    dcode: np.ndarray | None  # run rows: doc code (None once released)
    s32: (
        np.ndarray | None
    )  # run rows: score as float32 (trec_eval 9.x) or float64 (10.0) (None once released)


def encode(qrels: pl.DataFrame, run: pl.DataFrame, *, score_dtype=np.float32) -> Encoded:
    """Encode ids once (``Utf8`` or ``Categorical`` columns) so that comparing codes compares ids bytewise."""
    rq, rd = IdCodes(run.get_column(QUERY)), IdCodes(run.get_column(DOC))
    qq, qd = IdCodes(qrels.get_column(QUERY)), IdCodes(qrels.get_column(DOC))
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
        s32=c_floats(run.get_column(SCORE), score_dtype),
    )


def _lookup(bstart, dcode, qq, qd, qv, ndocs: int, *, check_duplicates: bool = False) -> np.ndarray:
    """Relevance of each run row — its qrels value, NONPOOL or UNJUDGED — in one linear pass.

    The run's rows come in blocks, one per query (block ``i`` starts at row ``bstart[i]``); qrels row ``j``
    belongs to block ``qq[j]`` (negative: a query absent from the run, ignored). A dense (block x doc)
    table for a range of blocks at a time (about 2^20 cells, which stay in cache) is filled from the
    qrels, read for those blocks' rows, and cleared again, so the cost is linear in the number of lines
    whatever the catalogue size. With ``check_duplicates`` a cell claimed by two rows is a repeated
    (query, doc) pair (:func:`_repeats`; :class:`DuplicateEntry`).
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
    owner = np.full(table.size, -1, dtype=np.int32) if check_duplicates else None  # see _repeats
    marks = np.zeros(table.size, dtype=np.uint8) if check_duplicates else None
    b0 = 0
    while b0 < nb:
        # a range of blocks: at most `per` of them (table size) and about ROWS_PER_PASS rows (temporaries)
        reach = np.searchsorted(bounds, np.array([bounds[b0] + ROWS_PER_PASS], dtype=bounds.dtype), "right")
        b1 = min(nb, b0 + per, max(b0 + 1, int(reach[0]) - 1))
        a, b = int(bounds[b0]), int(bounds[b1])
        c, d = np.searchsorted(qq, np.array([b0, b1], dtype=qq.dtype))  # same dtype: no copy of qq
        cells = (qq[c:d] - b0) * ndocs + qd[c:d]
        table[cells] = val[c:d]
        lens = np.diff(bounds[b0 : b1 + 1])
        idx = np.repeat(np.arange(0, (b1 - b0) * ndocs, ndocs, dtype=np.int32), lens) + dcode[a:b]
        out[a:b] = table[idx]
        table[cells] = NONPOOL
        if owner is not None and marks is not None and _repeats(owner, marks, idx, (b1 - b0) * ndocs):
            raise DuplicateEntry("duplicate (query, doc) in the run")
        b0 = b1
    return out


def _repeats(owner: np.ndarray, marks: np.ndarray, idx: np.ndarray, cells: int) -> bool:
    """Whether a cell of ``idx`` (cells below ``cells``) repeats; ``owner`` (all -1) and ``marks`` (all 0)
    are left as found.

    When the cells are few against the rows, each is marked once and the marks counted (fewer marks than
    rows: a repeat); otherwise each row writes its number into its cell and a row that does not read it
    back shares the cell: linear in the rows either way, whatever the number of cells.
    """
    idx = idx.astype(np.intp)  # numpy scatters several times faster with native-width indices than int32
    if cells <= 4 * idx.size:
        marks[idx] = 1
        repeat = int(np.count_nonzero(marks[:cells])) != idx.size
        marks[idx] = 0
        return repeat
    rows = np.arange(idx.size, dtype=np.int32)
    owner[idx] = rows
    repeat = not (owner[idx] == rows).all()
    owner[idx] = -1
    return repeat


@dataclass
class _Blocks:
    """The run's rows grouped in blocks, one per query, in the order the run lists the queries."""

    start: np.ndarray  # first row of each block
    query: np.ndarray  # query code of each block
    lens: np.ndarray  # rows per block
    rel: np.ndarray  # relevance value of each row (NONPOOL, UNJUDGED or the qrels value)
    tied: np.ndarray  # per row: the same score as the row above, in the same query (a tie trec_eval breaks)


def _blocks(enc: Encoded, *, check_duplicates: bool) -> _Blocks:
    """Order the run's rows (trec_eval's rule) and look their relevance up; ``enc``'s run arrays are released."""
    qcode, dcode, s32 = enc.qcode, enc.dcode, enc.s32
    assert qcode is not None and dcode is not None and s32 is not None  # released only here, once per pair
    enc.qcode = enc.dcode = enc.s32 = None
    qcode, s32, dcode, tied = ordered_with_ties(qcode, s32, dcode)  # tie groups reordered in place, no copy
    del s32
    # one block of rows per query, in the order the run lists them: rows never move again
    bstart = query_blocks(qcode)
    bq = qcode[bstart]
    blens = np.diff(np.append(bstart, qcode.size))
    del qcode
    block_of = np.full(len(enc.qvocab), -1, dtype=np.int32)
    block_of[bq] = np.arange(bstart.size, dtype=np.int32)
    rel = _lookup(
        bstart, dcode, block_of[enc.qq], enc.qd, enc.qv, len(enc.dvocab), check_duplicates=check_duplicates
    )
    return _Blocks(bstart, bq, blens, rel, tied)


@dataclass
class Prepared:
    """An encoded pair ordered (trec_eval's rule) and looked up: what every evaluation of the pair shares,
    whatever its flags (``-l``, ``-J``, ``-M``, ``-c``). Read only: :func:`rank_prepared` copies what it cuts."""

    enc: Encoded  # the qrels arrays and the vocabularies (the run arrays are released)
    blocks: _Blocks
    judged_q: np.ndarray  # per query code: in the qrels


def prepare(enc: Encoded, *, check_duplicates: bool = False) -> Prepared:
    """Order the run and look every row's relevance up (:class:`DuplicateEntry` with ``check_duplicates``);
    the run arrays of ``enc`` are released."""
    judged_q = np.zeros(len(enc.qvocab), dtype=bool)
    judged_q[enc.qq] = True
    return Prepared(enc, _blocks(enc, check_duplicates=check_duplicates), judged_q)


def _cut(b: _Blocks, rel: np.ndarray, judged_q: np.ndarray, *, depth: int | None, judged_only: bool):
    """Drop rows of queries absent from the qrels, beyond ``depth`` (-M) and unjudged under -J.

    ``rel``: the rows' relevance (``b.rel``, or its tie groups reordered). Returns the relevance, the tie
    flags and the blocks' lengths after the cut (``b`` is left as it is) and the mask of evaluated blocks
    (queries in the qrels). A kept row is tied when it shares its tie group with the kept row above it.
    """
    keep_block = judged_q[b.query]
    keep = None
    if not keep_block.all():
        keep = np.repeat(keep_block, b.lens)
    if depth is not None and (b.lens > depth).any():
        pos = np.arange(rel.size, dtype=np.int64) - np.repeat(b.start, b.lens)
        keep = pos < depth if keep is None else keep & (pos < depth)
        del pos
    if judged_only:
        keep = rel >= 0 if keep is None else keep & (rel >= 0)
    if keep is None:
        return rel, b.tied, b.lens, keep_block
    lens = np.add.reduceat(keep, b.start, dtype=np.int64) if rel.size else b.lens
    group = np.cumsum(~b.tied)[keep]
    tied = np.zeros(group.size, dtype=bool)
    np.equal(group[1:], group[:-1], out=tied[1:])
    return rel[keep], tied, lens, keep_block


def reorder_ties(rel: np.ndarray, tied: np.ndarray, *, descending: bool) -> np.ndarray:
    """``rel`` with each tie group sorted by relevance value, descending (``--ties best``: the most relevant
    first) or ascending (``worst``); rows of equal value keep trec_eval's order. Groups of one row stay."""
    member = tied.copy()
    member[:-1] |= tied[1:]
    idx = np.flatnonzero(member)
    if idx.size == 0:
        return rel
    group = np.cumsum(~tied[idx])  # a member that is not tied starts its group
    v = rel[idx]
    order = np.lexsort((-v if descending else v, group))
    out = rel.copy()
    out[idx] = v[order]
    return out


def _stand_ins(b: _Blocks, judged_q: np.ndarray, seg_q, lens, rel, tied, *, judged_only: bool):
    """-c: every qrels query missing from the run, ranked as one document that is in no qrels (gone
    under -J), appended after the run's queries (``trec_eval.c``). Returns (seg_q, lens, rel, tied,
    n_missing)."""
    in_run = np.zeros(judged_q.size, dtype=bool)
    in_run[b.query] = True
    missing = np.flatnonzero(judged_q & ~in_run)
    if not missing.size:
        return seg_q, lens, rel, tied, 0
    stand_in = 0 if judged_only else 1
    rel = np.concatenate([rel, np.full(missing.size * stand_in, NONPOOL, dtype=rel.dtype)])
    tied = np.concatenate([tied, np.zeros(missing.size * stand_in, dtype=bool)])
    lens = np.concatenate([lens, np.full(missing.size, stand_in, dtype=lens.dtype)])
    return np.concatenate([seg_q, missing]), lens, rel, tied, int(missing.size)


def _qrels_counts(enc: Encoded, seg_q: np.ndarray, level: int):
    """Per-query qrels counts (``form_res_rels.c`` rel_levels / num_rel) and the ideal gains.

    Returns num_rel (rel >= level), num_nonrel (0 <= rel < level), num_zero (rel == 0), ideal_starts and
    ideal (positive judged values, descending within each query).
    """
    S = seg_q.size
    seg_of = np.full(len(enc.qvocab), -1, dtype=np.int64)
    seg_of[seg_q] = np.arange(S)
    qseg = seg_of[enc.qq]
    inq = qseg >= 0
    qseg, qv_in = qseg[inq], enc.qv[inq]
    num_rel = np.bincount(qseg[(qv_in >= 0) & (qv_in >= level)], minlength=S)
    num_nonrel = np.bincount(qseg[(qv_in >= 0) & (qv_in < level)], minlength=S)
    num_zero = np.bincount(qseg[qv_in == 0], minlength=S).astype(np.int64)
    pos_g = qv_in > 0
    ig_seg, ig_val = qseg[pos_g], qv_in[pos_g]
    o = np.lexsort((-ig_val, ig_seg))
    ideal = ig_val[o].astype(np.float64)
    ilens = np.bincount(ig_seg, minlength=S)
    istarts = np.zeros(S + 1, dtype=np.int64)
    np.cumsum(ilens, out=istarts[1:])
    return num_rel.astype(np.int64), num_nonrel.astype(np.int64), num_zero, istarts, ideal


def rank_encoded(
    enc: Encoded,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    complete: bool = False,
    check_duplicates: bool = False,
    tie_order: str | None = None,
) -> Ranked:
    """:func:`rank` on an :class:`Encoded` pair; the run arrays of ``enc`` are released as they are used."""
    return rank_prepared(
        prepare(enc, check_duplicates=check_duplicates),
        relevance_level=relevance_level,
        judged_only=judged_only,
        depth=depth,
        complete=complete,
        tie_order=tie_order,
    )


def rank_prepared(
    p: Prepared,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    complete: bool = False,
    tie_order: str | None = None,
) -> Ranked:
    """The :class:`Ranked` of a :class:`Prepared` pair under trec_eval's flags (``p`` is not changed).

    ``tie_order``: None keeps trec_eval's order; ``"best"`` / ``"worst"`` order each tie group by relevance
    value, descending / ascending, before ``-M`` and ``-J`` apply (:func:`reorder_ties`).
    """
    enc, b = p.enc, p.blocks
    rel = b.rel if tie_order is None else reorder_ties(b.rel, b.tied, descending=tie_order == "best")
    rel, tied, lens, evaluated = _cut(b, rel, p.judged_q, depth=depth, judged_only=judged_only)
    present = np.flatnonzero(evaluated)  # in run order
    seg_q, lens, n_missing = b.query[present], lens[present], 0
    if complete:
        seg_q, lens, rel, tied, n_missing = _stand_ins(
            b, p.judged_q, seg_q, lens, rel, tied, judged_only=judged_only
        )
    S = seg_q.size
    starts = np.zeros(S + 1, dtype=np.int64)
    np.cumsum(lens, out=starts[1:])
    level = int(relevance_level)
    num_rel, num_nonrel, num_zero, istarts, ideal = _qrels_counts(enc, seg_q, level)
    return Ranked(
        queries=enc.qvocab.gather(seg_q).to_list(),
        bogus=np.arange(S) >= S - n_missing,
        starts=starts,
        rel=rel,
        level=level,
        num_rel=num_rel,
        num_nonrel=num_nonrel,
        ideal_starts=istarts,
        ideal=ideal,
        num_zero=num_zero,
        tied=tied,
    )


# --------------------------------------------------------------------------------------------- relstring


def relstrings(r: Ranked, length: int = 10) -> dict[str, str]:
    """trec_eval's ``relstring`` (``m_relstring.c``): one character per ranked document among the first ``length``.

    ``0``-``9`` the judged relevance, ``>`` above 9, ``-`` not in the qrels, ``.`` pooled but unjudged
    (negative qrels value). Queries evaluated on the ``-c`` stand-in ranking get an empty string; queries
    left with no document (``-J``) get no entry (printed as an empty string).
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
