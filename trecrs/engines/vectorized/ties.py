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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import polars as pl

from ...errors import UsageError
from ...measures.request import MeasureRequest, long_cutoffs
from ...measures.ties import ap_terms, expected_count, expected_first
from ...schema import QUERY
from ..base import TieReport
from .cmath import c_log2
from .gains import c_atof, gain_view
from .measures import HANDLED_ELSEWHERE, compute_ranked
from .rank import Ranked, Sparse, reorder_ties


@dataclass
class TieGroups:
    """The tie groups of a :class:`Ranked` and, per group, what the closed forms need.

    ``limit`` (per query): the positions that count, ``min(retrieved, depth)``. ``mask``: which rows count
    as relevant (``rel >= level`` unless given).
    """

    r: Ranked
    limit: np.ndarray
    mask: np.ndarray

    @classmethod
    def of(cls, r: Ranked, depth: int | None, mask: np.ndarray | None = None) -> TieGroups:
        limit = r.lens if depth is None else np.minimum(r.lens, depth)
        return cls(r, limit, r.rel >= r.level if mask is None else mask)

    @cached_property
    def heads(self) -> np.ndarray:
        """First row of each group."""
        tied = self.r.tied if self.r.tied is not None else np.zeros(self.r.rel.size, dtype=bool)
        return np.flatnonzero(~tied)

    @cached_property
    def size(self) -> np.ndarray:
        return np.diff(np.append(self.heads, self.r.rel.size))

    @cached_property
    def group(self) -> np.ndarray:
        """Group of each row."""
        return np.repeat(np.arange(self.heads.size, dtype=np.int64), self.size)

    @cached_property
    def seg(self) -> np.ndarray:
        """Query of each group."""
        return np.repeat(np.arange(self.r.S, dtype=np.int64), self.r.lens)[self.heads]

    @cached_property
    def above(self) -> np.ndarray:
        """Documents ranked above each group (0-based position of its first row)."""
        return self.heads - self.r.first[self.seg]

    @cached_property
    def _cum(self) -> np.ndarray:
        cum = np.zeros(self.mask.size + 1, dtype=np.int64)
        np.cumsum(self.mask, out=cum[1:])
        return cum

    @cached_property
    def rel(self) -> np.ndarray:
        """Relevant rows of each group."""
        return self._cum[self.heads + self.size] - self._cum[self.heads]

    @cached_property
    def rel_above(self) -> np.ndarray:
        """Relevant rows above each group, in its query."""
        return self._cum[self.heads] - self._cum[self.r.first[self.seg]]

    def at(self, k) -> tuple[np.ndarray, ...]:
        """Per query, the count of relevant documents among the first ``min(k, limit)``: the relevant rows
        of the groups wholly above, and the group cut there (size ``t``, relevant ``r``, ``m`` of its
        places above the cut); ``t = 1, r = m = 0`` where nothing counts."""
        S = self.r.S
        K = np.minimum(np.broadcast_to(np.asarray(k, dtype=np.int64), (S,)), self.limit)
        c0, t, r, m = np.zeros(S, np.int64), np.ones(S, np.int64), np.zeros(S, np.int64), np.zeros(S, np.int64)
        has = K > 0
        g = self.group[self.r.first[has] + K[has] - 1]
        c0[has], t[has], r[has] = self.rel_above[g], self.size[g], self.rel[g]
        m[has] = K[has] - self.above[g]
        return c0, t, r, m

    def count(self, k) -> np.ndarray:
        """Expected relevant documents among the first ``min(k, limit)`` of each query."""
        return expected_count(*self.at(k))

    def count_of(self, k, g: Callable) -> np.ndarray:
        """Expected ``g(count, query)`` of the relevant documents among the first ``min(k, limit)``."""
        return expected_count(*self.at(k), g=g)

    def position_sums(self, rows: np.ndarray, contrib: np.ndarray, k=None) -> np.ndarray:
        """Per query, the sum (sequential, in rank order) of ``contrib`` over ``rows`` (sorted row indices)
        at positions below ``min(k, limit)``."""
        r = self.r
        sp = Sparse.of(r, _mask(r.rel.size, rows))
        K = self.limit if k is None else np.minimum(k, self.limit)
        cut = sp.count_at(K)
        pref = np.zeros(rows.size, dtype=np.float64)
        if rows.size:
            from .cmath import segmented

            pref = segmented(contrib, sp.starts, sp.lens, "sum")
        out = np.zeros(r.S, dtype=np.float64)
        has = cut > 0
        out[has] = pref[(sp.starts + cut - 1)[has]]
        return out


def _mask(n: int, rows: np.ndarray) -> np.ndarray:
    m = np.zeros(n, dtype=bool)
    m[rows] = True
    return m


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
    """Expected sum of precision at each relevant document (AP's numerator), positions below ``min(k, limit)``."""
    if "ap" not in tg.__dict__:
        rows = np.flatnonzero(np.repeat(tg.rel > 0, tg.size))
        gr = tg.group[rows]
        j = rows - tg.heads[gr] + 1
        tg.__dict__["ap"] = (rows, ap_terms(tg.above[gr], tg.rel_above[gr], tg.size[gr], tg.rel[gr], j))
    rows, terms = tg.__dict__["ap"]
    return tg.position_sums(rows, terms, k)


def e_map(r, tg, p):
    return [_div(_ap_sum(tg), r.num_rel)]


def e_map_cut(r, tg, p):
    return [_div(_ap_sum(tg, k), r.num_rel) for k in long_cutoffs("map_cut", p)]


def e_recip_rank(r, tg, p):
    return [_first_relevant(tg, tg.limit)]


def _first_relevant(tg: TieGroups, limit) -> np.ndarray:
    """Expected 1 / rank of the first relevant document, 0 when it is below ``limit`` (per query)."""
    out = np.zeros(tg.r.S, dtype=np.float64)
    g = np.flatnonzero(tg.rel > 0)
    seg, first = np.unique(tg.seg[g], return_index=True)
    g = g[first]
    out[seg] = expected_first(tg.above[g], tg.size[g], tg.rel[g], np.asarray(limit)[seg])
    return out


def _dcg(tg: TieGroups, gains: np.ndarray, k=None) -> np.ndarray:
    """Expected DCG: each position holds its group's mean gain, over log2(position + 1), below ``min(k, limit)``."""
    cum = np.zeros(gains.size + 1)
    np.cumsum(gains, out=cum[1:])
    mean = (cum[tg.heads + tg.size] - cum[tg.heads]) / tg.size
    rows = np.flatnonzero(np.repeat(mean != 0, tg.size))
    pos = rows - tg.r.first[tg.seg[tg.group[rows]]]
    return tg.position_sums(rows, mean[tg.group[rows]] / c_log2(pos + 2), k)


def _gained(r: Ranked, p) -> tuple[np.ndarray, Ranked]:
    """Per-row gains and the ranking carrying the ideal ones: relevance values above 0, or ``p``'s gains."""
    if p is None:
        return np.where(r.rel > 0, r.rel, 0).astype(np.float64), r
    gv = gain_view(r, p)
    return gv.gain.astype(np.float64), gv


def e_ndcg(r, tg, p):
    gains, gr = _gained(r, p)
    idg = gr.ideal_at(gr.ideal_lens)
    return [np.where(idg > 0, _div(_dcg(tg, gains), idg), 0.0)]


def e_dcg(r, tg, p):
    return [_dcg(tg, _gained(r, p)[0])]


def e_ideal_dcg(r, tg, p):
    gr = _gained(r, p)[1]
    return [gr.ideal_at(gr.ideal_lens)]


def e_ndcg_cut(r, tg, p):
    gains = _gained(r, None)[0]
    out = []
    for k in long_cutoffs("ndcg_cut", p):
        dcg = _dcg(tg, gains, k)
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
        elif mode != "expected" and base in ("ndcg", "dcg") and not _increasing_gains(request.params[base], levels):
            out.append(f"{base}.{request.params[base]}")
    return out


def _increasing_gains(p: str | None, levels=None) -> bool:
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
    gains = [0.0] + [named.get(lvl, float(lvl)) for lvl in sorted(present | {lvl for lvl in named if lvl >= 0})]
    return all(a <= b for a, b in zip(gains, gains[1:], strict=False))


def check(request: MeasureRequest, mode: str, levels=None) -> None:
    """A :class:`UsageError` naming the first measure without a form for ``mode``."""
    missing = unsupported(request, mode, levels)
    if missing:
        raise UsageError(f"measure {missing[0]} has no tie-aware form for --ties {mode} (docs/measures.md, Score ties)",
                         arguments=["ties"])


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


# --------------------------------------------------------------------------------------------- the report

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


def tie_report(r: Ranked, request: MeasureRequest, depth: int | None = None) -> TieReport | None:
    """Where ties straddle a cutoff of ``request`` in ``r`` (trec_eval's order), and the best and worst
    values of the request's cutoff measures for the queries where the order of tied documents moves them
    (without ``-M`` only: ``depth`` cuts groups the file's order then decides). None when the request has no
    cutoff. Only each ranking's top is looked at: up to the end of the tie group at the deepest cutoff."""
    ks = report_cutoffs(request)
    if not ks or r.tied is None:
        return None
    top = _top(r, ks[-1])
    straddled = _straddled(top, ks)
    sub = MeasureRequest({b: request.params[b] for b in request.names if b in CUTOFF_MEASURES},
                         trec_eval_version=request.trec_eval_version)  # fmt: skip
    empty = pl.DataFrame({QUERY: []}, schema={QUERY: pl.Utf8})
    if depth is not None or not top.tied.any():
        return TieReport(straddled, empty, empty)
    best, worst = (compute_ranked(reordered(top, mode), sub) for mode in ("best", "worst"))
    columns = [c for c in best.columns if c != QUERY]
    moved = pl.any_horizontal([best.get_column(c) != worst.get_column(c) for c in columns])
    return TieReport(straddled, best.filter(moved), worst.filter(moved))


def _top(r: Ranked, k: int) -> Ranked:
    """``r`` with each ranking cut after the tie group holding its ``k``-th document (the places that decide
    every measure at a cutoff up to ``k``, whatever the order of the tied documents)."""
    heads = np.append(np.flatnonzero(~r.tied), r.rel.size)  # each group's first row, then the end
    last = r.first + np.minimum(r.lens, k) - 1
    end = heads[np.minimum(np.searchsorted(heads, last, "right"), heads.size - 1)]
    keep = np.where(r.lens > 0, np.minimum(end, r.first + r.lens) - r.first, 0)
    starts = np.zeros(r.S + 1, dtype=np.int64)
    np.cumsum(keep, out=starts[1:])
    rows = np.repeat(r.first - starts[:-1], keep) + np.arange(int(starts[-1]))
    return dataclasses.replace(r, starts=starts, rel=r.rel[rows], tied=r.tied[rows], _cache={})


def _straddled(r: Ranked, ks: list[int]) -> dict[int, int]:
    """Per cutoff k, the queries whose document at rank k is tied with the one at k + 1 in a group whose
    documents are not all alike (the non-relevant ones alike, each relevance value of the relevant ones its
    own): a group of equals changes nothing whatever its order."""
    out = dict.fromkeys(ks, 0)
    found = {k: np.flatnonzero(r.lens > k) for k in ks}
    found = {k: q[r.tied[r.first[q] + k]] for k, q in found.items()}
    if not any(q.size for q in found.values()):
        return out
    heads = np.flatnonzero(~r.tied)
    value = np.where(r.rel >= r.level, r.rel, min(r.level, 0) - 3)  # the non-relevant ones alike
    low = np.minimum.reduceat(value, heads)
    high = np.maximum.reduceat(value, heads)
    for k, q in found.items():
        g = np.searchsorted(heads, r.first[q] + k, "right") - 1
        out[k] = int((low[g] != high[g]).sum())
    return out


def reordered(r: Ranked, mode: str) -> Ranked:
    """``r`` with each tie group ordered by ``mode`` (best, worst): exact when no ``-M`` cut (``-J`` and the
    order commute)."""
    return dataclasses.replace(r, rel=reorder_ties(r.rel, r.tied, descending=mode == "best"), _cache={})


def report_frames(qrels: pl.DataFrame, run: pl.DataFrame, request: MeasureRequest, *, relevance_level: int = 1,
                  judged_only: bool = False, depth: int | None = None) -> TieReport | None:  # fmt: skip
    """:func:`tie_report` of a qrels/run pair given as frames (the run already cut at ``depth``: no values
    then, as on the files)."""
    from .rank import encode, prepare, rank_prepared

    if not report_cutoffs(request) or run.height == 0:
        return None
    p = prepare(encode(qrels, run, score_dtype=request.version.score_dtype))
    return tie_report(rank_prepared(p, relevance_level=relevance_level, judged_only=judged_only), request, depth)
