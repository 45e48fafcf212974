"""The tie report: where trec_eval's order of tied documents decides a value (:mod:`trecrs.measures.ties`),
over a :class:`~.rank.Ranked` in trec_eval's order, for every query at once.

Per cutoff asked for, the queries whose documents tied with the one at that rank, of different relevance,
also stand below it (:func:`~.ties.mixed_groups`); and the best and worst values (``--ties best`` /
``worst``, :class:`Extremes`) of every requested measure the order may move, computed only for the queries
holding a tie group of different relevance values. :mod:`trecrs.evaluate.ties` turns it into the warning.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import polars as pl

from ...measures.request import MeasureRequest
from ...schema import QUERY
from ..base import TieReport
from .measures import compute_ranked
from .rank import Ranked, encode, prepare, rank_prepared, reorder_ties
from .ties import CUTOFF_MEASURES, TIE_AWARE, TieGroups, increasing_gains, mixed_groups, report_cutoffs

#: trec_eval's tie-aware measures of the retrieved set as a whole: without ``-M`` (the only case whose range
#: the report computes) every order of the tied documents gives them the same value.
ORDER_FREE = frozenset(
    {
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "num_nonrel_judged_ret",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
        "utility",
        "ideal_dcg",
    }
)


def order_request(request: MeasureRequest, levels=None) -> MeasureRequest | None:
    """The requested measures whose value the order of tied documents may move and that ``--ties best`` /
    ``worst`` value exactly (:data:`TIE_AWARE` less :data:`ORDER_FREE`, gain parameters that keep the
    order of the relevance values ``levels``); None when there is none."""
    bases = [
        b
        for b in request.names
        if b in TIE_AWARE
        and b not in ORDER_FREE
        and (b not in ("ndcg", "dcg") or increasing_gains(request.params[b], levels))
    ]
    if not bases:
        return None
    return MeasureRequest(
        {b: request.params[b] for b in bases},
        trec_eval_version=request.trec_eval_version,
        num_docs_in_coll=request.num_docs_in_coll,
    )


def tie_report(r: Ranked, request: MeasureRequest, depth: int | None = None) -> TieReport | None:
    """Where ties straddle a cutoff of ``request`` in ``r`` (trec_eval's order), and the best and worst values
    of the request's measures over the tie orders (:class:`Extremes`; without ``-M`` only: ``depth`` cuts
    groups whose order the file then decides). None when the request has neither a cutoff nor such a
    measure.

    Only the queries holding a tie group of different relevance values are valued (in any other query every
    order gives the same ranking of values), each ranking whole, or its top (up to the end of the tie group
    at the deepest cutoff) when only cutoff measures are asked for: the cost follows the tied queries, and
    a run without ties costs one pass over its tie flags."""
    ks = report_cutoffs(request)
    if r.tied is None:
        return None
    if not r.tied.any():
        return TieReport(dict.fromkeys(ks, 0)) if ks else None
    sub = order_request(request, r.rel)
    if not ks and sub is None:
        return None
    top = _top(r, ks[-1]) if ks else r
    parts = []
    if depth is None and sub is not None:
        view = top if ks and all(b in CUTOFF_MEASURES for b in sub.names) else r
        tg = TieGroups.of(view, None)
        moved = _unequal_groups(tg)
        if (
            2 * moved.size > view.S
        ):  # most queries hold one: copying them costs more than valuing the others too
            parts.append(Extremes.of(view, sub, tg))
        elif moved.size:
            parts.append(Extremes.of(_take(view, moved), sub))
    return TieReport(_straddled(top, ks) if ks else {}, parts)


@dataclass(frozen=True)
class Extremes:
    """The best and the worst values of a block's queries whose values the tie orders move (:func:`tie_report`):
    computed with the block and kept instead of its rankings, so that a run read in blocks holds no ranking
    longer than its block."""

    best: pl.DataFrame
    worst: pl.DataFrame

    @classmethod
    def of(cls, r: Ranked, request: MeasureRequest, tg: TieGroups | None = None) -> Extremes:
        """The values of ``request`` on ``r`` (its tie groups ``tg``) with every tie group in its best and its
        worst order, for the queries where the two differ."""
        assert r.tied is not None  # tie_report's rankings carry their tie flags
        best_rel = reorder_ties(r.rel, r.tied, descending=True)
        worst_rel = _reversed_groups(best_rel, TieGroups.of(r, None) if tg is None else tg)
        best, worst = (
            compute_ranked(dataclasses.replace(r, rel=rel, _cache={}), request)
            for rel in (best_rel, worst_rel)
        )
        columns = [c for c in best.columns if c != QUERY]
        moved = pl.any_horizontal([best.get_column(c) != worst.get_column(c) for c in columns])
        return cls(best.filter(moved), worst.filter(moved))

    def extremes(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        return self.best, self.worst


def _unequal_groups(tg: TieGroups) -> np.ndarray:
    """The queries (segments, ascending) with a tie group whose relevance values are not all equal: those
    whose values ``--ties best`` and ``worst`` may tell apart (:func:`~.rank.reorder_ties` sorts by value)."""
    if tg.heads.size == 0:
        return np.zeros(0, dtype=np.int64)
    rows = tg.r.rel[tg.members]
    unequal = np.minimum.reduceat(rows, tg.opening) != np.maximum.reduceat(rows, tg.opening)
    return np.unique(tg.seg[unequal])


def _reversed_groups(rel: np.ndarray, tg: TieGroups) -> np.ndarray:
    """``rel`` with each tie group's values in reverse order: the worst order from the best one (the values
    of a group sorted descending, reversed, are sorted ascending; equal values are alike whatever their
    order), without sorting again."""
    if tg.members.size == 0:
        return rel
    first = np.repeat(tg.heads, tg.size)
    last = first + np.repeat(tg.size, tg.size) - 1
    out = rel.copy()
    out[tg.members] = rel[first + last - tg.members]
    return out


def _take(r: Ranked, q: np.ndarray, keep: np.ndarray | None = None) -> Ranked:
    """The rankings of segments ``q`` of ``r`` (their first ``keep`` documents; None: all), with their qrels
    counts and ideal gains."""
    lens = r.lens[q] if keep is None else keep
    starts = np.zeros(q.size + 1, dtype=np.int64)
    np.cumsum(lens, out=starts[1:])
    rows = np.repeat(r.first[q] - starts[:-1], lens) + np.arange(int(starts[-1]))
    ilens = np.diff(r.ideal_starts)[q]
    istarts = np.zeros(q.size + 1, dtype=np.int64)
    np.cumsum(ilens, out=istarts[1:])
    irows = np.repeat(r.ideal_starts[q] - istarts[:-1], ilens) + np.arange(int(istarts[-1]))
    return Ranked(
        [r.queries[i] for i in q.tolist()],
        starts,
        r.rel[rows],
        r.level,
        r.num_rel[q],
        r.num_nonrel[q],
        istarts,
        r.ideal[irows],
        None if r.bogus is None else r.bogus[q],
        None if r.num_zero is None else r.num_zero[q],
        None if r.tied is None else r.tied[rows],
    )


def _top(r: Ranked, k: int) -> Ranked:
    """``r`` with each ranking cut after the tie group holding its ``k``-th document (the places that decide
    every measure at a cutoff up to ``k``, whatever the order of the tied documents)."""
    assert r.tied is not None  # tie_report's rankings carry their tie flags
    tg = TieGroups.of(r, None)
    last = r.first + np.minimum(r.lens, k) - 1
    g = tg.group_of(last)
    end = np.where(
        g >= 0, tg.heads[np.maximum(g, 0)] + tg.size[np.maximum(g, 0)] if tg.heads.size else 0, last + 1
    )
    return _take(r, np.arange(r.S), np.where(r.lens > 0, end - r.first, 0))


def _straddled(r: Ranked, ks: list[int]) -> dict[int, int]:
    """Per cutoff k, the queries whose document at rank k is tied with the one at k + 1 in a group whose
    documents are not all alike (the non-relevant ones alike, each relevance value of the relevant ones its
    own): a group of equals changes nothing whatever its order."""
    out = dict.fromkeys(ks, 0)
    tied = r.tied
    assert tied is not None  # tie_report's rankings carry their tie flags
    found = {k: np.flatnonzero(r.lens > k) for k in ks}
    found = {k: q[tied[r.first[q] + k]] for k, q in found.items()}
    if not any(q.size for q in found.values()):
        return out
    heads, mixed = mixed_groups(r.rel, tied, r.level)
    for k, q in found.items():
        g = np.searchsorted(heads, r.first[q] + k, "right") - 1
        out[k] = int(mixed[g].sum())
    return out


def reordered(r: Ranked, mode: str) -> Ranked:
    """``r`` with each tie group ordered by ``mode`` (best, worst): exact when no ``-M`` cut (``-J`` and the
    order commute)."""
    assert r.tied is not None  # tie_report's rankings carry their tie flags
    return dataclasses.replace(r, rel=reorder_ties(r.rel, r.tied, descending=mode == "best"), _cache={})


def report_frames(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
) -> TieReport | None:
    """:func:`tie_report` of a qrels/run pair given as frames (the run already cut at ``depth``: no values
    then, as on the files)."""
    if (not report_cutoffs(request) and order_request(request) is None) or run.height == 0:
        return None
    p = prepare(encode(qrels, run, score_dtype=request.version.score_dtype))
    return tie_report(
        rank_prepared(p, relevance_level=relevance_level, judged_only=judged_only), request, depth
    )
