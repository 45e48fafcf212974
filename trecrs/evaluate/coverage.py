"""The coverage and sanity warnings of an evaluation, and trec_eval 10.0's stop on an uncovered query.

Each warning is one :class:`~.result.RunWarning` (a :class:`~trecrs.errors.TrecrsWarning`) with counts and
percentages (:class:`Coverage`), attributed to the first caller outside trecrs; the command line prints it
as ``trecrs eval: warning: ...`` (``trecrs eval: warning: RUN: ...`` when it scores several runs). The rules are trec_eval's (``trec_eval.c``, ``m_rbp.c``): what it leaves
out, what it counts as 0, and where its value is not defined.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SemanticError, warn
from ..measures.request import MeasureRequest, long_cutoffs
from ..measures.trec_eval import BY_NAME, LONG_CUTOFFS
from ..trec_eval_versions import TrecEvalVersion
from .result import RunWarning, share

#: Measures whose gains trec_eval normalises with ``min``/``max`` it never initialises (10.0's ``m_rbp.c``):
#: with a relevance value above 1 the normalisation always runs, so the value depends on leftover memory.
UNINITIALISED_NORMALISATION = ("rbp",)


def stop_uncovered(uncovered: list[str], version: TrecEvalVersion) -> None:
    """trec_eval 10.0 stops (status 4) at the first qrels query, in qid order, with no line in the run.

    Its message (``trec_eval.c``: "result qid 'Q' not found in qrels") names the qrels query but reads
    the other way round; trecrs says what is missing and how to go on.
    """
    if uncovered:
        more = f" (and {len(uncovered) - 1:,} more)" if len(uncovered) > 1 else ""
        raise SemanticError(
            f"qrels query {uncovered[0]!r}{more} has no line in the run: trec_eval {version.label} stops here "
            "(use -c to score such queries 0, or remove them from the qrels)"
        )


def warn_uncovered(qrels_queries: int, uncovered: int, *, average_all: bool) -> None:
    """One :class:`~trecrs.errors.TrecrsWarning` when qrels queries have no line in the run.

    trec_eval leaves such queries out of every average (``-c`` counts them as scoring 0), so a
    run that covers part of the users scores as if the rest did not exist.
    """
    if uncovered and not average_all:
        warn(
            f"{share(uncovered, qrels_queries)} qrels queries have no line in the run: left out of the "
            "averages, as trec_eval does (-c would count them, scoring 0)",
            RunWarning,
        )


@dataclass(frozen=True)
class Coverage:
    """Query counts behind the sanity warnings of an evaluation (:func:`warn_coverage`)."""

    qrels_queries: int  # queries with qrels lines
    uncovered: int  # ... and no line in the run
    run_queries: int  # queries with run lines
    unjudged: int  # ... and no qrels line: never evaluated
    evaluated: int  # in both
    no_relevant: int  # evaluated, with no qrels value at the relevance level or above
    short: int  # evaluated, retrieving fewer documents than cutoff
    cutoff: int | None  # the deepest cutoff given explicitly (P.100, ndcg_cut.100, P@100)
    graded: int = 0  # evaluated, with a relevance value above 1, counted when rbp is asked for (10.0)
    normalised: str = ""  # "trec_eval 10.0's rbp": the measure of UNINITIALISED_NORMALISATION asked for


def deepest_cutoff(request: MeasureRequest) -> int | None:
    """The largest cutoff the request gives explicitly to a measure with rank cutoffs (``P.5,100`` -> 100).

    Default cutoffs (``-m P``, the ``official`` nickname's P up to 1000) are not "asked for": a
    recommender's short top-N list against them is routine and would warn on every run.
    """
    cuts = [
        max(long_cutoffs(n, p))
        for n, p in request.params.items()
        if p is not None and BY_NAME[n].params == LONG_CUTOFFS
    ]
    return max(cuts, default=None)


def warn_coverage(c: Coverage, *, average_all: bool, relevance_level: int) -> None:
    """The coverage and sanity warnings of an evaluation, one :class:`~trecrs.errors.TrecrsWarning` each.

    Qrels queries without a ranking (:func:`warn_uncovered`); run queries without qrels (trec_eval skips
    them); evaluated queries with nothing relevant at ``relevance_level`` (they score 0 on most
    measures); evaluated queries retrieving fewer documents than the deepest cutoff asked for (the
    missing ranks count as non-relevant: P@100 of a 10-document ranking is at most 0.1); ``rbp`` asked
    for on evaluated queries with relevance values above 1 (trec_eval 10.0's ``m_rbp.c`` normalises their
    gains with ``min``/``max`` it never initialises; trecrs takes them over the query's gains).
    """
    warn_uncovered(c.qrels_queries, c.uncovered, average_all=average_all)
    if c.unjudged:
        warn(
            f"{share(c.unjudged, c.run_queries)} run queries have no qrels: not evaluated, as trec_eval does",
            RunWarning,
        )
    if c.no_relevant:
        warn(
            f"{share(c.no_relevant, c.evaluated)} evaluated queries have no relevant document at relevance "
            f"level {relevance_level}: they score 0 on most measures",
            RunWarning,
        )
    if c.short:
        warn(
            f"{share(c.short, c.evaluated)} evaluated queries retrieve fewer than {c.cutoff:,} documents, the "
            f"deepest cutoff asked for: the missing ranks are counted as non-relevant",
            RunWarning,
        )
    if c.graded:
        warn(
            f"{share(c.graded, c.evaluated)} evaluated queries have relevance values above 1: "
            f"{c.normalised} normalises their gains with min and max it never initialises (m_rbp.c), "
            "so its values there are undefined; trecrs takes min and max over the query's gains",
            RunWarning,
        )


def coverage(
    in_qrels: np.ndarray,
    in_run: np.ndarray,
    top: np.ndarray,
    retrieved: np.ndarray,
    request: MeasureRequest,
    *,
    relevance_level: int,
) -> Coverage:
    """:class:`Coverage` from per-query arrays over one vocabulary: in the qrels, in the run, highest
    relevance value, documents retrieved (after ``depth``); the cutoff is :func:`deepest_cutoff`'s."""
    cutoff = deepest_cutoff(request)
    both = in_qrels & in_run
    short = int((both & (retrieved < cutoff)).sum()) if cutoff is not None else 0
    asked = next((n for n in UNINITIALISED_NORMALISATION if n in request.params), None)
    graded = int((both & (top > 1)).sum()) if asked else 0
    normalised = f"trec_eval {request.version.label}'s {asked}" if asked else ""
    return Coverage(
        int(in_qrels.sum()),
        int((in_qrels & ~in_run).sum()),
        int(in_run.sum()),
        int((in_run & ~in_qrels).sum()),
        int(both.sum()),
        int((both & (top < relevance_level)).sum()),
        short,
        cutoff,
        graded,
        normalised,
    )
