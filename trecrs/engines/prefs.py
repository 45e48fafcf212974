"""Preference (``-R prefs``/``qrels_prefs``) and judgment-group (``-R qrels_jg``) measures of trec_eval.

A per-query Python port of trec_eval 9.0.8/10.0's ``form_prefs_counts.c``, ``form_res_rels_jg.c``,
``m_prefs_*.c`` and ``m_{map,P,Rprec_mult}_avgjg.c``: the counts of each judgment group are numpy
matrices (preference arrays, their transitive closure, the counts array), the loops over queries and
groups are Python — these formats are small (a few judged documents per query), and the C code's order
of additions is kept so that the last bit agrees. The two formats differ from qrels in how the ranking
breaks score ties: ``form_prefs_counts.c`` sorts equal scores by docno *ascending*,
``form_res_rels_jg.c`` descending, as the rest of trec_eval does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from ..errors import SemanticError
from ..files.prefs import JG, JSG, LEVEL
from ..measures.request import MeasureRequest, double_cutoffs, long_cutoffs
from ..ordering import c_floats
from ..schema import DOC, QUERY, REL, SCORE

NAN = float("nan")


@dataclass
class JudgmentGroup:
    """Counts of one judgment group (``JG`` of ``trec_format.h``), docs as docid ranks."""

    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    ecs: list[np.ndarray] = field(default_factory=list)  # equivalence classes, highest level first
    pa: np.ndarray | None = None  # preference array (several sub-groups), transitive
    rel: np.ndarray | None = None  # rel_level per docid rank (-1: not in this group)


@dataclass
class PrefCounts:
    """``RESULTS_PREFS``: the groups, the counts array over all groups, judged and judged-retrieved sizes."""

    jgs: list[JudgmentGroup]
    counts: np.ndarray
    num_judged: int
    num_judged_ret: int


def _ranked(docs: list[str], scores: np.ndarray, *, doc_ascending: bool) -> list[str]:
    """Docs by score descending, ties by docno (bytewise) ascending or descending."""
    order = sorted(range(len(docs)), key=lambda i: docs[i].encode(), reverse=not doc_ascending)
    order.sort(key=lambda i: -scores[i])
    return [docs[i] for i in order]


def pref_counts(rows: list[tuple[str, str, float, str]], ranked: list[str]) -> PrefCounts:
    """``form_prefs_counts``: rows ``(jg, jsg, level, doc)`` of one query against its ranked docs.

    Docid ranks: the judged docs retrieved, in rank order (0..njr-1), then the judged docs not retrieved
    in docno order. A group with one sub-group is a list of equivalence classes (equal levels); with
    several, a preference array made transitive.
    """
    judged = {r[3] for r in rows}
    retrieved = [d for d in ranked if d in judged]
    rank = {d: i for i, d in enumerate(retrieved)}
    for d in sorted(judged - set(retrieved), key=str.encode):
        rank[d] = len(rank)
    nj, njr = len(rank), len(retrieved)
    items = sorted((r[0].encode(), r[1].encode(), -r[2], rank[r[3]], r[3]) for r in rows)
    counts = np.zeros((nj, nj), dtype=np.int64)
    groups = []
    start = 0
    for i in range(1, len(items) + 1):
        if i == len(items) or items[i][0] != items[start][0]:
            group = items[start:i]
            several = len({g[1] for g in group}) > 1
            groups.append((_pa_group if several else _ec_group)(group, nj, njr, counts))
            start = i
    return PrefCounts(groups, counts, nj, njr)


def _ec_group(group: list, nj: int, njr: int, counts: np.ndarray) -> JudgmentGroup:
    """``form_jg_ec`` + ``add_ec_pref_to_jg``: every doc of a higher class preferred to every lower one."""
    jg = JudgmentGroup()
    levels: list[float] = []
    ecs: list[list[int]] = []
    for g in group:
        if not levels or -g[2] != levels[-1]:
            levels.append(-g[2])
            ecs.append([])
        ecs[-1].append(g[3])
    jg.ecs = [np.array(e, dtype=np.int64) for e in ecs]
    for k, (level, ec) in enumerate(zip(levels, jg.ecs, strict=True)):
        ret = int((ec < njr).sum())
        if level > 0.0:
            jg.num_rel_ret += ret
            jg.num_rel += ec.size
        else:
            jg.num_nonrel_ret += ret
            jg.num_nonrel += ec.size
        for ec2 in jg.ecs[k + 1 :]:
            a, b = ec[:, None], ec2[None, :]
            counts[np.ix_(ec, ec2)] += 1
            ful = a < b
            jg.ful_ret += int((ful & (b < njr)).sum())
            jg.ful_imp += int((ful & (b >= njr) & (a < njr)).sum())
            jg.poss_ret += int((~ful & (a < njr)).sum())
            jg.poss_imp += int((~ful & (a >= njr) & (b < njr)).sum())
            jg.notoccur += int(((a >= njr) & (b >= njr)).sum())
    jg.poss_ret += jg.ful_ret
    jg.poss_imp += jg.ful_imp
    return jg


def _pa_group(group: list, nj: int, njr: int, counts: np.ndarray) -> JudgmentGroup:
    """``form_jg_pa`` + ``add_transitives`` + ``add_pa_pref_to_jg``: partial preferences of sub-groups."""
    rel, pa = np.full(nj, -1.0), np.zeros((nj, nj), dtype=bool)
    jg = JudgmentGroup(rel=rel, pa=pa)
    for i, (_, jsg, neg, r, doc) in enumerate(group):
        level, cur = -neg, rel[r]
        if (cur > 0.0 and level == 0.0) or (cur == 0.0 and level > 0.0):
            raise SemanticError(
                f"doc {doc!r} has both 0 and non-0 rel_level in one judgment group "
                "(trec_eval cannot calculate the preference measures either)"
            )
        rel[r] = level
        for g in group[i + 1 :]:
            if g[1] != jsg:
                break
            if g[2] != neg:
                pa[r, g[3]] = True
    jg.pa = pa = _transitive(pa)
    _count_pa(jg, pa, njr)
    counts += pa
    jg.num_rel_ret, jg.num_nonrel_ret = int((rel[:njr] > 0).sum()), int((rel[:njr] == 0).sum())
    jg.num_rel, jg.num_nonrel = int((rel > 0).sum()), int((rel == 0).sum())
    return jg


def _transitive(pa: np.ndarray) -> np.ndarray:
    """The transitive closure (diagonal 0); a doc preferred both ways is an inconsistency (trec_eval aborts)."""
    reach = pa | np.eye(pa.shape[0], dtype=bool)
    while True:
        nxt = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
        if (nxt == reach).all():
            break
        reach = nxt
    np.fill_diagonal(reach, False)
    if (reach & reach.T).any():
        i, j = np.argwhere(reach & reach.T)[0]
        raise SemanticError(
            f"inconsistent preferences in one judgment group: internal ranks {i} and {j} are "
            "each preferred to the other (trec_eval aborts here)"
        )
    return reach


def _count_pa(jg: JudgmentGroup, a: np.ndarray, njr: int, *, retrieved_only: bool = False) -> None:
    """The five areas of ``add_pa_pref_to_jg`` (fulfilled/not, both, one or neither retrieved)."""
    ret = a[:njr, :njr]
    jg.ful_ret, jg.poss_ret = int(np.triu(ret, 1).sum()), int(np.tril(ret, -1).sum())
    if not retrieved_only:
        jg.ful_imp, jg.poss_imp, jg.notoccur = (
            int(a[:njr, njr:].sum()),
            int(a[njr:, :njr].sum()),
            int(a[njr:, njr:].sum()),
        )
    jg.poss_ret += jg.ful_ret
    jg.poss_imp += jg.ful_imp


def _div(a: float, b: float) -> float:
    """C's double division: x/0 is inf, 0/0 NaN."""
    if b:
        return a / b
    return NAN if a == 0 else float("inf")


def _ratio_sum(pc: PrefCounts, ful, poss) -> float:
    """Sum over groups of ful/poss where poss is not 0, in group order."""
    total = 0.0
    for jg in pc.jgs:
        p = poss(jg)
        if p:
            total += ful(jg) / p
    return total


def _avg_over_jgs(pc: PrefCounts, total: float) -> float:
    """``if (sum > 0.0) value = sum / num_jgs``: 0 for a NaN or non-positive sum."""
    return total / len(pc.jgs) if total > 0.0 else 0.0


def _simp(ful, poss):
    def measure(pc: PrefCounts) -> float:
        f, p = sum(ful(j) for j in pc.jgs), sum(poss(j) for j in pc.jgs)  # integers: exact
        return f / p if p else 0.0

    return measure


def _avgjg(ful, poss):
    return lambda pc: _avg_over_jgs(pc, _ratio_sum(pc, ful, poss))


def _pair(blocks: int):
    """``prefs_pair`` (blocks 3: pairs with neither doc retrieved count, as failures), ``_imp`` (2), ``_ret`` (1)."""

    def measure(pc: PrefCounts) -> float:
        c, r, n = pc.counts, pc.num_judged_ret, pc.num_judged
        both = (c + c.T) > 0
        upper = np.triu(both, 1)
        parts: list[np.ndarray] = [np.argwhere(upper[:r, :r])]
        if blocks >= 2:
            parts.append(np.argwhere(both[:r, r:]) + [0, r])
        ij = np.concatenate(parts)
        i, j = ij[:, 0], ij[:, 1]
        shares = c[i, j] / (c[i, j] + c[j, i])
        # added one pair after the other, in the C loops' order (a pairwise sum could differ in the last bit)
        total = float(np.add.accumulate(shares)[-1]) if shares.size else 0.0
        pairs = shares.size
        if blocks == 3:
            pairs += int(upper[r:n, r:n].sum())
        return total / pairs if pairs else 0.0

    return measure


def _rnonrel(retrieved_only: bool):
    """``prefs_avgjg_Rnonrel`` (and ``_ret``): the nonrelevant docs of a group counted as R of them."""

    def measure(pc: PrefCounts) -> float:
        total = 0.0
        for jg in pc.jgs:
            r, n = (jg.num_rel_ret, jg.num_nonrel_ret) if retrieved_only else (jg.num_rel, jg.num_nonrel)
            if r >= n:
                ful = jg.ful_ret + (0 if retrieved_only else jg.ful_imp) + jg.num_rel_ret * (r - n)
                poss = (
                    jg.poss_ret + (0 if retrieved_only else jg.poss_imp + jg.notoccur) + jg.num_rel * (r - n)
                )
            else:
                ful, poss = _recalculate(jg, pc, retrieved_only)
            total += _div(ful, poss)
        return _avg_over_jgs(pc, total)

    return measure


def _recalculate(jg: JudgmentGroup, pc: PrefCounts, retrieved_only: bool) -> tuple[int, int]:
    """``recalculate`` of ``m_prefs_avgjg_Rnonrel[_ret].c``: only the first R nonrelevant docs kept."""
    njr = pc.num_judged_ret
    if jg.pa is None:
        keep = jg.num_rel_ret if retrieved_only else jg.num_rel
        ecs = [e[e < njr] if retrieved_only else e for e in jg.ecs]
        new = jg.ecs[-1][:keep]
        new = new[new < njr] if retrieved_only else new
        pairs = [(ecs[a], ecs[b]) for a in range(len(ecs)) for b in range(a + 1, len(ecs) - 1)]
        pairs += [(e, new) for e in ecs]
        ful = poss = 0
        for e1, e2 in pairs:
            won = e1[:, None] < e2[None, :]
            if not retrieved_only:
                won &= (e1 < njr)[:, None]
            ful += int(won.sum())
            poss += int((~won).sum())
        return ful, poss + ful
    assert jg.rel is not None  # set with pa (_pa_group)
    limit = njr if retrieved_only else pc.num_judged
    nonrel = np.flatnonzero(jg.rel[:limit] == 0.0)
    first = int(nonrel[jg.num_rel]) if nonrel.size > jg.num_rel else limit
    kept = ~((np.arange(pc.num_judged) >= first) & (jg.rel == 0.0))
    part = JudgmentGroup()
    _count_pa(part, jg.pa & kept[:, None] & kept[None, :], njr, retrieved_only=retrieved_only)
    ful = part.ful_ret + part.ful_imp
    return ful, part.poss_ret + part.poss_imp + part.notoccur


def _ful_ret(j):
    return j.ful_ret


def _ful(j):
    return j.ful_ret + j.ful_imp


def _poss_ret(j):
    return j.poss_ret


def _poss_imp(j):
    return j.poss_ret + j.poss_imp


def _poss(j):
    return j.poss_ret + j.poss_imp + j.notoccur


#: The preference measures, by trec_eval name (``m_prefs_*.c``).
PREFS_MEASURES = {
    "prefs_num_prefs_poss": lambda pc: float(sum(_poss(j) for j in pc.jgs)),
    "prefs_num_prefs_ful": lambda pc: float(sum(_ful(j) for j in pc.jgs)),
    "prefs_num_prefs_ful_ret": lambda pc: float(sum(j.ful_ret for j in pc.jgs)),
    "prefs_simp": _simp(_ful, _poss),
    "prefs_pair": _pair(3),
    "prefs_avgjg": _avgjg(_ful, _poss),
    "prefs_avgjg_Rnonrel": _rnonrel(False),
    "prefs_simp_ret": _simp(_ful_ret, _poss_ret),
    "prefs_pair_ret": _pair(1),
    "prefs_avgjg_ret": _avgjg(_ful_ret, _poss_ret),
    "prefs_avgjg_Rnonrel_ret": _rnonrel(True),
    "prefs_simp_imp": _simp(_ful, _poss_imp),
    "prefs_pair_imp": _pair(2),
    "prefs_avgjg_imp": _avgjg(_ful, _poss_imp),
}


@dataclass
class JudgedRanking:
    """``RES_RELS`` of one judgment group: rel values in rank order (-1 not in the group), counts."""

    rels: list[int]
    num_rel: int
    num_rel_ret: int


def jg_rankings(
    qrels: dict[str, list[tuple[str, int]]], ranked: list[str], *, level: int, judged_only: bool
) -> list[JudgedRanking]:
    """``te_form_res_rels_jg``: one :class:`JudgedRanking` per group (groups in bytewise order).

    ``-J`` (``judged_only``) keeps the docs judged (rel >= 0) in that group; num_rel counts the group's
    judgements with rel >= 0 and >= ``level``.
    """
    out = []
    for name in sorted(qrels, key=str.encode):
        rel = dict(qrels[name])
        # not in the group: RELVALUE_NONPOOL (-1); in it with a negative value: RELVALUE_UNJUDGED (-2)
        rels = [-1 if d not in rel else (rel[d] if rel[d] >= 0 else -2) for d in ranked]
        if judged_only:
            rels = [r for r in rels if r >= 0]
        num_rel = sum(1 for r in rel.values() if r >= 0 and r >= level)
        out.append(JudgedRanking(rels, num_rel, sum(1 for r in rels if r >= 0 and r >= level)))
    return out


def _map_avgjg(groups: list[JudgedRanking], level: int, params) -> list[float]:
    value = 0.0
    for g in groups:
        found, total = 0, 0.0
        for i, r in enumerate(g.rels):
            if r >= level:
                found += 1
                total += found / (i + 1)
        if found:
            value += total / g.num_rel
    return [value / len(groups) if len(groups) > 1 else value]


def _p_avgjg(groups: list[JudgedRanking], level: int, cutoffs: list[int]) -> list[float]:
    values = [0.0] * len(cutoffs)
    for g in groups:
        k = found = 0
        for i, r in enumerate(g.rels):
            if i == cutoffs[k]:
                values[k] += found / i
                k += 1
                if k == len(cutoffs):
                    break
            if r >= level:
                found += 1
        for rest in range(k, len(cutoffs)):  # cutoffs beyond the ranking
            values[rest] += found / cutoffs[rest]
    return [v / len(groups) for v in values] if len(groups) > 1 else values


def _rprec_mult_avgjg(groups: list[JudgedRanking], level: int, percents: list[float]) -> list[float]:
    values = [0.0] * len(percents)
    for g in groups:
        cuts = [int(p * g.num_rel + 0.9) for p in percents]
        n, k = len(g.rels), len(cuts) - 1
        while k >= 0 and cuts[k] > n:
            values[k] += g.num_rel_ret / cuts[k]
            k -= 1
        found = g.num_rel_ret
        i = n
        while i > 0 and found > 0:
            precis = found / i
            while k >= 0 and i == cuts[k]:
                values[k] += precis
                k -= 1
            if g.rels[i - 1] >= level:
                found -= 1
            i -= 1
    return [v / len(groups) for v in values] if len(groups) > 1 else values


#: The judgment-group measures (``m_*_avgjg.c``): name -> (function, parameters from the request).
JG_MEASURES: dict[str, tuple[Callable[..., list[float]], Callable[[str, str | None], object]]] = {
    "map_avgjg": (_map_avgjg, lambda base, p: None),
    "P_avgjg": (_p_avgjg, long_cutoffs),
    "Rprec_mult_avgjg": (_rprec_mult_avgjg, double_cutoffs),
}


def _by_query(run: pl.DataFrame, score_dtype) -> dict[str, tuple[list[str], np.ndarray]]:
    scores = c_floats(run.get_column(SCORE), score_dtype)
    out: dict[str, tuple[list[str], list[int]]] = {}
    for i, (q, d) in enumerate(
        zip(run.get_column(QUERY).to_list(), run.get_column(DOC).to_list(), strict=True)
    ):
        out.setdefault(q, ([], []))
        out[q][0].append(d)
        out[q][1].append(i)
    return {q: (docs, scores[np.array(idx, dtype=np.int64)]) for q, (docs, idx) in out.items()}


def compute_prefs(
    prefs: pl.DataFrame, run: pl.DataFrame, queries: list[str], request: MeasureRequest, *, depth: int | None
) -> pl.DataFrame:
    """Per-query values of the requested preference measures (plus num_q) for ``queries``."""
    level_dtype = np.float32 if np.dtype(request.version.score_dtype) == np.float32 else np.float64
    levels = prefs.get_column(LEVEL).to_numpy().astype(level_dtype).astype(np.float64)  # rel_level's C type
    rows: dict[str, list] = {}
    for (q, jg, jsg, doc), lv in zip(prefs.select(QUERY, JG, JSG, DOC).iter_rows(), levels, strict=True):
        rows.setdefault(q, []).append((jg, jsg, float(lv), doc))
    runs = _by_query(run, request.version.score_dtype)
    data: dict[str, list] = {QUERY: list(queries)}
    names = [n for n in request.names if n in PREFS_MEASURES or n == "num_q"]
    for n in names:
        data[n] = []
    counted = any(n in PREFS_MEASURES for n in names)  # num_q alone never calls form_prefs_counts
    for q in queries:
        docs, scores = runs.get(q, ([], np.zeros(0)))
        pc = pref_counts(rows[q], _ranked(docs, scores, doc_ascending=True)[:depth]) if counted else None
        for n in names:
            data[n].append(1.0 if n == "num_q" else PREFS_MEASURES[n](pc))
    return pl.DataFrame(data, schema={QUERY: pl.Utf8, **{n: pl.Float64 for n in names}})


def compute_jg(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    queries: list[str],
    request: MeasureRequest,
    *,
    depth: int | None,
    relevance_level: int,
    judged_only: bool,
) -> pl.DataFrame:
    """Per-query values of the requested judgment-group measures (plus num_q) for ``queries``."""
    groups: dict[str, dict[str, list]] = {}
    for q, jg, doc, rel in qrels.select(QUERY, JG, DOC, REL).iter_rows():
        groups.setdefault(q, {}).setdefault(jg, []).append((doc, rel))
    runs = _by_query(run, request.version.score_dtype)
    data: dict[str, list] = {QUERY: list(queries)}
    names = [n for n in request.names if n in JG_MEASURES or n == "num_q"]
    columns = {n: (request.output_names(n) if n in JG_MEASURES and n != "map_avgjg" else [n]) for n in names}
    for cols in columns.values():
        data.update({c: [] for c in cols})
    for q in queries:
        docs, scores = runs.get(q, ([], np.zeros(0)))
        ranking = jg_rankings(
            groups[q],
            _ranked(docs, scores, doc_ascending=False)[:depth],
            level=relevance_level,
            judged_only=judged_only,
        )
        for n in names:
            if n == "num_q":
                values = [1.0]
            else:
                fn, params = JG_MEASURES[n]
                values = fn(ranking, relevance_level, params(n, request.params[n]))
            for c, v in zip(columns[n], values, strict=True):
                data[c].append(float(v))
    return pl.DataFrame(
        data, schema={QUERY: pl.Utf8, **{c: pl.Float64 for cols in columns.values() for c in cols}}
    )
