"""Everything for an encoded qrels/run pair at once: ranking, the measures, the relstrings."""

from __future__ import annotations

import numpy as np
import polars as pl

from ...measures.request import MeasureRequest
from ...schema import QUERY
from ..base import Computed
from .measures import compute_ranked
from .rank import Encoded, Prepared, prepare, rank_prepared, relstrings
from .tie_report import tie_report
from .ties import check, compute_expected


def compute_encoded(
    enc: Encoded,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    complete: bool = False,
    check_duplicates: bool = False,
    ties: str = "trec_eval",
    report_ties: bool = True,
) -> Computed:
    """Everything for an encoded qrels/run pair at once: ``-M`` (``depth``), ``-J``, ``-c`` (``complete``:
    stand-in rankings for qrels queries missing from the run), ``ties`` (:mod:`trecrs.measures.ties`) and
    the relstrings when requested.

    The run arrays of ``enc`` are released as they are used, so a 22-million-line run needs a few hundred
    MB. Raises :class:`~.rank.DuplicateEntry` (with ``check_duplicates``) for a repeated (query, doc).
    """
    p = prepare(enc, check_duplicates=check_duplicates)
    return compute_prepared(
        p,
        request,
        relevance_level=relevance_level,
        judged_only=judged_only,
        depth=depth,
        complete=complete,
        ties=ties,
        report_ties=report_ties,
    )


def compute_prepared(
    p: Prepared,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    complete: bool = False,
    ties: str = "trec_eval",
    report_ties: bool = True,
) -> Computed:
    """:func:`compute_encoded` on a :class:`~.rank.Prepared` pair (which it does not change); in trec_eval's
    order, with ``report_ties``, where ties decide values (:func:`~.tie_report.tie_report`)."""
    if ties == "expected":  # the closed forms count the positions above -M themselves
        r = rank_prepared(p, relevance_level=relevance_level, judged_only=judged_only, complete=complete)
        values = pl.DataFrame(
            {QUERY: pl.Series(QUERY, r.queries, dtype=pl.Utf8), **compute_expected(r, request, depth)}
        )
    else:
        if ties != "trec_eval":  # gain parameters must keep the order of the judged values present
            check(request, ties, p.enc.qv)
        r = rank_prepared(
            p,
            depth=depth,
            tie_order=None if ties == "trec_eval" else ties,
            relevance_level=relevance_level,
            judged_only=judged_only,
            complete=complete,
        )
        values = compute_ranked(r, request)
    stand_in = [r.queries[s] for s in np.flatnonzero(r.bogus)] if r.bogus is not None else []
    length = request.relstring_length()
    report = None
    if ties == "trec_eval" and report_ties:  # values over the tie orders only without -M (as on frames)
        report = tie_report(r, request, depth)
    return Computed(values, stand_in, {} if length is None else relstrings(r, length), report)
