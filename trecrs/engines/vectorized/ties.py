"""trec_eval's measures under ``--ties expected|best|worst`` (:mod:`trecrs.measures.ties`), over a
:class:`~.rank.Ranked`, for every query at once.

``best`` / ``worst`` rank each tie group from its most / least relevant document
(:func:`~.rank.reorder_ties`) and compute the measures as trec_eval does (:mod:`.measures`): exact for every
measure of :data:`TIE_AWARE`, each of which never decreases when a more relevant document moves above a
less relevant one (gain parameters must then give gains that do not decrease with the relevance value).

``expected`` is computed here from the closed forms of :mod:`trecrs.measures.ties` on the ranking before
``-M`` (a tie group that straddles the ``-M`` cut competes for its last places: ``depth`` limits the
positions counted); ``-J`` removes unjudged documents first (its documents were never in a group). Each
``e_<name>`` returns one array per output value, as the ``m_<name>`` functions do.

Also here: the cutoff measures, and where a tie group of different relevance straddles a cutoff
(:func:`straddles`, which :mod:`.tie_report` and ``trecrs audit`` count).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import polars as pl

from ...errors import UsageError
from ...measures.request import MeasureRequest, long_cutoffs
from ...measures.ties import ap_terms, expected_count, expected_first
from ...schema import DOC, QUERY, REL
from .cmath import c_log2, segmented
from .gains import c_atof, gain_view
from .measures import HANDLED_ELSEWHERE
from .rank import Ranked


@dataclass
class TieGroups:
    """The tie groups of more than one document of a :class:`Ranked` and, per group, what the closed forms
    need; a document in no such group keeps its place in every order.

    ``limit`` (per query): the positions that count, ``min(retrieved, depth)``. ``mask``: which rows count
    as relevant (None: ``rel >= level``). Everything is computed from the tied rows and the relevant rows,
    never row by row over the whole ranking, so the closed forms cost about what trec_eval's order does.
    """

    r: Ranked
    limit: np.ndarray
    mask: np.ndarray | None = None

    @classmethod
    def of(cls, r: Ranked, depth: int | None, mask: np.ndarray | None = None) -> TieGroups:
        limit = r.lens if depth is None else np.minimum(r.lens, depth)
        return cls(r, limit, mask)

    @cached_property
    def relevant(self) -> np.ndarray:
        """Relevant rows, ascending."""
        return self.r.relrows.idx if self.mask is None else np.flatnonzero(self.mask)

    def relevant_before(self, rows) -> np.ndarray:
        """Relevant rows above each of ``rows`` (row indices into the whole ranking)."""
        return np.searchsorted(self.relevant, rows)

    @cached_property
    def members(self) -> np.ndarray:
        """Rows in a tie group of two documents or more, ascending."""
        tied = self.r.tied
        if tied is None or tied.size == 0:
            return np.zeros(0, dtype=np.int64)
        member = tied.copy()
        member[:-1] |= tied[1:]
        return np.flatnonzero(member)

    @cached_property
    def opening(self) -> np.ndarray:
        """Where each group starts in :attr:`members` (a member not tied with the row above opens one)."""
        tied = self.r.tied
        if tied is None:  # no flags: no group (members is empty)
            return self.members
        return np.flatnonzero(~tied[self.members])

    @cached_property
    def heads(self) -> np.ndarray:
        """First row of each group."""
        return self.members[self.opening]

    @cached_property
    def size(self) -> np.ndarray:
        return np.diff(np.append(self.opening, self.members.size))

    @cached_property
    def seg(self) -> np.ndarray:
        """Query of each group."""
        return np.searchsorted(self.r.starts, self.heads, "right") - 1

    @cached_property
    def above(self) -> np.ndarray:
        """Documents ranked above each group (0-based position of its first row)."""
        return self.heads - self.r.first[self.seg]

    @cached_property
    def rel(self) -> np.ndarray:
        """Relevant rows of each group."""
        return self.relevant_before(self.heads + self.size) - self.relevant_before(self.heads)

    @cached_property
    def rel_above(self) -> np.ndarray:
        """Relevant rows above each group, in its query."""
        return self.relevant_before(self.heads) - self.relevant_before(self.r.first[self.seg])

    def group_of(self, rows: np.ndarray) -> np.ndarray:
        """The group of each of ``rows``, -1 for a row in none."""
        g = np.searchsorted(self.heads, rows, "right") - 1
        inside = (
            (g >= 0) & (rows < self.heads[np.maximum(g, 0)] + self.size[np.maximum(g, 0)])
            if self.heads.size
            else np.zeros(rows.size, dtype=bool)
        )
        return np.where(inside, g, -1)

    def at(self, k) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per query, the count of relevant documents among the first ``min(k, limit)``: the relevant rows
        of the groups wholly above, and the group cut there (size ``t``, relevant ``r``, ``m`` of its
        places above the cut); ``t = 1, r = m = 0`` where the cut splits no group."""
        S, first = self.r.S, self.r.first
        K = np.minimum(np.broadcast_to(np.asarray(k, dtype=np.int64), (S,)), self.limit)
        c0 = self.relevant_before(first + K) - self.relevant_before(first)
        t, r, m = np.ones(S, np.int64), np.zeros(S, np.int64), np.zeros(S, np.int64)
        q = np.flatnonzero(K > 0)
        g = self.group_of(first[q] + K[q] - 1)
        q, g = q[g >= 0], g[g >= 0]
        c0[q], t[q], r[q], m[q] = self.rel_above[g], self.size[g], self.rel[g], K[q] - self.above[g]
        return c0, t, r, m

    def count(self, k) -> np.ndarray:
        """Expected relevant documents among the first ``min(k, limit)`` of each query."""
        return expected_count(*self.at(k))

    def count_of(self, k, g: Callable) -> np.ndarray:
        """Expected ``g(count, query)`` of the relevant documents among the first ``min(k, limit)``."""
        return expected_count(*self.at(k), g=g)

    def sums(self, rows: np.ndarray, contrib: np.ndarray, k=None) -> np.ndarray:
        """Per query, the sum (sequential, in rank order) of ``contrib`` over ``rows`` (row indices, any order)
        at positions below ``min(k, limit)``."""
        o = np.argsort(rows, kind="stable")
        rows, contrib = rows[o], contrib[o]
        r = self.r
        bounds = np.searchsorted(rows, r.starts)
        lens = np.diff(bounds)
        K = self.limit if k is None else np.minimum(k, self.limit)
        cut = np.searchsorted(rows, r.first + K) - bounds[:-1]
        pref = segmented(contrib, bounds[:-1], lens, "sum") if rows.size else contrib
        out = np.zeros(r.S, dtype=np.float64)
        has = cut > 0
        out[has] = pref[(bounds[:-1] + cut - 1)[has]]
        return out

    def split(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Those of ``rows`` (ascending) in no group; every group's rows (ascending); the group of each."""
        g = self.group_of(rows)
        return rows[g < 0], self.members, np.searchsorted(self.heads, self.members, "right") - 1


def _f(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _div(num, den) -> np.ndarray:
    den = _f(den)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, _f(num) / np.where(den != 0, den, 1.0), 0.0)


# --------------------------------------------------------------------------------------------- counts


def _judged_groups(tg: TieGroups) -> TieGroups:
    """Groups counting the judged relevant rows: num_rel_ret's rows (judged ones only below level 0)."""
    r = tg.r
    if r.level >= 0:
        return tg
    return TieGroups(r, tg.limit, r.rel >= 0)


def e_num_q(r, tg, p):
    return [np.ones(r.S)]


def e_num_ret(r, tg, p):
    return [_f(tg.limit)]


def e_num_rel(r, tg, p):
    return [_f(r.num_rel)]


def e_num_rel_ret(r, tg, p):
    return [_judged_groups(tg).count(tg.limit)]


def e_num_nonrel_judged_ret(r, tg, p):
    judged = TieGroups(r, tg.limit, r.rel >= 0)
    return [judged.count(tg.limit) - _judged_groups(tg).count(tg.limit)]


def e_set_P(r, tg, p):
    return [_div(_judged_groups(tg).count(tg.limit), tg.limit)]


def e_set_recall(r, tg, p):
    return [_div(_judged_groups(tg).count(tg.limit), r.num_rel)]


def e_set_relative_P(r, tg, p):
    ok = (tg.limit > 0) & (r.num_rel > 0)
    return [np.where(ok, _div(_judged_groups(tg).count(tg.limit), np.minimum(tg.limit, r.num_rel)), 0.0)]


def e_set_map(r, tg, p):
    den = _f(tg.limit) * _f(r.num_rel)
    return [_judged_groups(tg).count_of(tg.limit, lambda c, q: _div(_f(c) * _f(c), den[q]))]


def e_set_F(r, tg, p):
    x = 1.0 if p is None else c_atof(p.split(",")[0])
    n, R = _f(tg.limit), _f(r.num_rel)

    def f(c, q):
        P, Rc = _div(c, n[q]), _div(c, R[q])
        with np.errstate(divide="ignore", invalid="ignore"):
            v = (x + 1.0) * P * Rc / (x * P + Rc)
        return np.where(c > 0, v, 0.0)

    return [_judged_groups(tg).count_of(tg.limit, f)]


def e_utility(r, tg, p, num_docs_in_coll: int = 0):
    a, b, c, d = (1.0, -1.0, 0.0, 0.0) if p is None else (c_atof(x) for x in p.split(","))
    nrr, n, R = _judged_groups(tg).count(tg.limit), _f(tg.limit), _f(r.num_rel)
    return [a * nrr + b * (n - nrr) + c * (R - nrr) + d * (float(num_docs_in_coll) + nrr - n - R)]


def e_P(r, tg, p):
    return [tg.count(k) / k for k in long_cutoffs("P", p)]


def e_recall(r, tg, p):
    return [_div(tg.count(k), r.num_rel) for k in long_cutoffs("recall", p)]


def e_success(r, tg, p):
    return [tg.count_of(k, lambda c, q: (c > 0).astype(np.float64)) for k in long_cutoffs("success", p)]


def e_relative_P(r, tg, p):
    return [_div(tg.count(k), np.minimum(k, r.num_rel)) for k in long_cutoffs("relative_P", p)]


def e_Rprec(r, tg, p):
    m = np.minimum(tg.limit, r.num_rel)
    return [np.where(m > 0, _div(tg.count(m), r.num_rel), 0.0)]


# --------------------------------------------------------------------------------------------- by position


def _ap_sum(tg: TieGroups, k=None) -> np.ndarray:
    """Expected sum of precision at each relevant document (AP's numerator), positions below ``min(k, limit)``:
    a relevant document in no group adds what it adds in any order, a group's places their expected terms."""
    if "ap" not in tg.__dict__:
        r = tg.r
        single, rows, group = tg.split(tg.relevant)
        seg = np.searchsorted(r.starts, single, "right") - 1
        pos = single - r.first[seg]
        own = (tg.relevant_before(single) - tg.relevant_before(r.first[seg]) + 1) / (pos + 1.0)
        keep = tg.rel[group] > 0
        rows, group = rows[keep], group[keep]
        j = rows - tg.heads[group] + 1
        terms = ap_terms(tg.above[group], tg.rel_above[group], tg.size[group], tg.rel[group], j)
        tg.__dict__["ap"] = (np.concatenate([single, rows]), np.concatenate([own, terms]))
    rows, terms = tg.__dict__["ap"]
    return tg.sums(rows, terms, k)


def e_map(r, tg, p):
    return [_div(_ap_sum(tg), r.num_rel)]


def e_map_cut(r, tg, p):
    return [_div(_ap_sum(tg, k), r.num_rel) for k in long_cutoffs("map_cut", p)]


def e_recip_rank(r, tg, p):
    return [_first_relevant(tg, tg.limit)]


def _first_relevant(tg: TieGroups, limit) -> np.ndarray:
    """Expected 1 / rank of the first relevant document, 0 when it is below ``limit`` (per query)."""
    r = tg.r
    out = np.zeros(r.S, dtype=np.float64)
    lo = np.searchsorted(tg.relevant, r.first)
    q = np.flatnonzero(np.searchsorted(tg.relevant, r.first + r.lens) > lo)
    row = tg.relevant[lo[q]]  # the first relevant row of the query, in trec_eval's order
    g = tg.group_of(row)
    lim = np.broadcast_to(np.asarray(limit), (r.S,))[q]
    pos = row - r.first[q] + 1
    out[q] = np.where(pos <= lim, 1.0 / pos, 0.0)
    ing = g >= 0
    gq, gg = q[ing], g[ing]
    out[gq] = expected_first(tg.above[gg], tg.size[gg], tg.rel[gg], lim[ing])
    return out


def _dcg(tg: TieGroups, gain: Callable, gain_rows: np.ndarray, k=None) -> np.ndarray:
    """Expected DCG below ``min(k, limit)``: a document in no group adds its gain over log2(rank + 1), each
    place of a group its group's mean gain (``gain(rows)``: the gains of rows; ``gain_rows``: the rows with a
    non-zero gain, ascending)."""
    r = tg.r
    single, rows, group = tg.split(gain_rows)
    total = np.zeros(tg.heads.size)
    np.add.at(total, group, gain(rows))
    mean = (total / tg.size)[group]
    keep = mean != 0
    every = np.concatenate([single, rows[keep]])
    contrib = np.concatenate([gain(single), mean[keep]])
    pos = every - r.first[np.searchsorted(r.starts, every, "right") - 1]
    return tg.sums(every, contrib / c_log2(pos + 2), k)


def _gained(r: Ranked, p) -> tuple[Callable, np.ndarray, Ranked]:
    """The gains of rows, the rows with a non-zero gain and the ranking carrying the ideal gains: the
    relevance values above 0, or ``p``'s gains (:func:`.gains.gain_view`)."""
    if p is None:
        return lambda rows: np.maximum(r.rel[rows], 0).astype(np.float64), r.gainrows.idx, r
    gv = gain_view(r, p)
    return lambda rows: gv.gain[rows].astype(np.float64), gv.gainrows.idx, gv


def e_ndcg(r, tg, p):
    gains, rows, gr = _gained(r, p)
    idg = gr.ideal_at(gr.ideal_lens)
    return [np.where(idg > 0, _div(_dcg(tg, gains, rows), idg), 0.0)]


def e_dcg(r, tg, p):
    gains, rows, _ = _gained(r, p)
    return [_dcg(tg, gains, rows)]


def e_ideal_dcg(r, tg, p):
    gr = _gained(r, p)[2]
    return [gr.ideal_at(gr.ideal_lens)]


def e_ndcg_cut(r, tg, p):
    gains, rows, _ = _gained(r, None)
    out = []
    for k in long_cutoffs("ndcg_cut", p):
        dcg = _dcg(tg, gains, rows, k)
        idg = r.ideal_at(np.full(r.S, k, dtype=np.int64))
        out.append(np.where(idg > 0, _div(dcg, idg), dcg))
    return out


# --------------------------------------------------------------------------------------------- registry

#: The measures with a tie-aware form: ``expected`` functions; ``best`` and ``worst`` compute the same
#: measures on the reordered ranking.
EXPECTED: dict[str, Callable] = {
    "num_q": e_num_q, "num_ret": e_num_ret, "num_rel": e_num_rel, "num_rel_ret": e_num_rel_ret,
    "num_nonrel_judged_ret": e_num_nonrel_judged_ret, "map": e_map, "map_cut": e_map_cut, "Rprec": e_Rprec,
    "recip_rank": e_recip_rank, "P": e_P, "recall": e_recall, "success": e_success, "relative_P": e_relative_P,
    "set_P": e_set_P, "set_recall": e_set_recall, "set_relative_P": e_set_relative_P, "set_map": e_set_map,
    "set_F": e_set_F, "utility": e_utility, "ndcg": e_ndcg, "ndcg_cut": e_ndcg_cut, "dcg": e_dcg,
    "ideal_dcg": e_ideal_dcg,
}  # fmt: skip
TIE_AWARE = frozenset(EXPECTED)
_CONTEXT = {"utility": lambda request: (request.num_docs_in_coll,)}


def unsupported(request: MeasureRequest, mode: str, levels=None) -> list[str]:
    """The requested trec_eval measures without a form for tie mode ``mode`` (none for ``trec_eval``);
    ``levels``: the judged relevance values, when known (gain parameters are checked against them)."""
    if mode == "trec_eval":
        return []
    out = []
    for base in request.names:
        if base == "runid" or (base == "relstring" and mode != "expected"):
            continue
        if base not in TIE_AWARE:
            out.append(base)
        elif (
            mode != "expected"
            and base in ("ndcg", "dcg")
            and not increasing_gains(request.params[base], levels)
        ):
            out.append(f"{base}.{request.params[base]}")
    return out


def increasing_gains(p: str | None, levels=None) -> bool:
    """Whether gain parameters keep the gains in the order of the relevance values, as best/worst order the
    tie groups: a judged level no pair names has its own value as gain, an unjudged document (value below
    0) gain 0 (``setup_gains`` / ``get_gain`` of m_ndcg.c). ``levels``: the judged values present (None:
    the named ones)."""
    if p is None:
        return True
    from .gains import parse_pairs

    named: dict[int, float] = {}
    for level, gain in parse_pairs(p):
        if named.setdefault(level, gain) != gain:
            return False  # a level named twice: which gain applies depends on trec_eval's sort
    present = {int(v) for v in ([] if levels is None else np.unique(levels).tolist()) if v >= 0}
    gains = [0.0] + [
        named.get(lvl, float(lvl)) for lvl in sorted(present | {lvl for lvl in named if lvl >= 0})
    ]
    return all(a <= b for a, b in zip(gains, gains[1:], strict=False))


def check(request: MeasureRequest, mode: str, levels=None) -> None:
    """A :class:`UsageError` naming the first measure without a form for ``mode``."""
    missing = unsupported(request, mode, levels)
    if missing:
        raise UsageError(
            f"measure {missing[0]} has no tie-aware form for --ties {mode} (docs/measures.md, Score ties)",
            arguments=["ties"],
        )


def compute_expected(r: Ranked, request: MeasureRequest, depth: int | None) -> dict[str, np.ndarray]:
    """Per-query expected values (``--ties expected``) of ``r`` ranked without the ``-M`` cut, ``depth``
    limiting the positions counted: output name -> values, in trec_eval's table order."""
    from .measures import output_names

    tg = TieGroups.of(r, depth)
    data: dict[str, np.ndarray] = {}
    for base in request.names:
        if base in HANDLED_ELSEWHERE:
            continue
        fn = EXPECTED[base]
        values = fn(r, tg, request.params[base], *_CONTEXT.get(base, lambda q: ())(request))
        for name, v in zip(output_names(request, base), values, strict=True):
            data[name] = np.asarray(v, dtype=np.float64)
    return data


# ------------------------------------------------------------------------------- where ties straddle a cutoff

#: trec_eval's measures with a rank cutoff (``P.10``): where a tie group straddles one, the value depends on
#: trec_eval's order of the tied documents.
CUTOFF_MEASURES = ("P", "recall", "success", "relative_P", "ndcg_cut", "map_cut")


def report_cutoffs(request: MeasureRequest) -> list[int]:
    """The cutoffs the request asks for (trec_eval's cutoff measures, aliases included), ascending."""
    ks: set[int] = set()
    for base in request.names:
        if base in CUTOFF_MEASURES:
            ks.update(k for k in long_cutoffs(base, request.params[base]) if k > 0)
    return sorted(ks)


def mixed_groups(rel: np.ndarray, tied: np.ndarray, level: int) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each tie group and whether the group's documents differ (the non-relevant ones
    alike, each relevance value of the relevant ones its own): only then does their order move a value."""
    heads = np.flatnonzero(~tied)
    value = np.where(rel >= level, rel, min(level, 0) - 3)
    return heads, np.minimum.reduceat(value, heads) != np.maximum.reduceat(value, heads)


@dataclass(frozen=True)
class Straddles:
    """Where the tie group holding a run's ``k``-th document continues below rank ``k`` (trec_eval's order)."""

    queries: int  # queries in the run
    straddled: list[str]  # queries whose k-th and (k+1)-th documents are tied, bytewise id order
    mixed: int  # of those, the queries whose group holds documents of different relevance (values move)
    group: dict[str, tuple[int, int]]  # per straddled query: rank of its group's first document, group size


def straddles(
    run: pl.DataFrame,
    k: int,
    *,
    qrels: pl.DataFrame | None = None,
    relevance_level: int = 1,
    score_dtype=np.float32,
) -> Straddles:
    """:class:`Straddles` of every query of ``run`` at cutoff ``k`` (queries absent from ``qrels`` too:
    with no qrels, every document is non-relevant and ``mixed`` is 0)."""
    from .rank import encode, prepare

    if qrels is None:
        qrels = pl.DataFrame(schema={QUERY: pl.Utf8, DOC: pl.Utf8, REL: pl.Int64})
    p = prepare(encode(qrels, run, score_dtype=score_dtype))
    b, names = p.blocks, p.enc.qvocab
    at = b.start + k  # the (k+1)-th document of each block
    q = np.flatnonzero(b.lens > k)
    q = q[b.tied[at[q]]]
    heads, mixed = mixed_groups(b.rel, b.tied, relevance_level)
    g = np.searchsorted(heads, at[q], "right") - 1
    ends = np.append(heads[1:], b.rel.size)
    order = np.argsort(b.query[q], kind="stable")  # query codes are ranks in the bytewise-sorted ids
    group = {
        names[int(b.query[i])]: (int(heads[j] - b.start[i] + 1), int(ends[j] - heads[j]))
        for i, j in zip(q[order], g[order], strict=True)
    }
    return Straddles(int(b.query.size), list(group), int(mixed[g].sum()), group)
