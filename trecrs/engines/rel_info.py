"""The registries of trec_eval's relevance-info formats (``-R``) and results formats (``-T``).

trec_eval 9.0.8 and 10.0 (``formats.c``) read relevance information as ``qrels`` (the default),
``prefs``, ``qrels_prefs`` or ``qrels_jg``, and results as ``trec_results`` only. Each measure reads one
kind of relevance data (:attr:`~trecrs.measures.trec_eval.TrecMeasure.rel_info`: ``form_res_rels``,
``form_prefs_counts`` or ``form_res_rels_jg``); asked for with a format that does not provide it,
trec_eval stops with "Can't calculate measure" (status 4). The CLI's ``-R``/``-T`` choices come from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..files.prefs import read_prefs, read_qrels_jg, read_qrels_prefs
from ..files.trec import read_qrels, read_run
from ..measures.request import MeasureRequest
from ..measures.trec_eval import BY_NAME


@dataclass(frozen=True)
class RelInfoFormat:
    """One ``-R`` format: how its file is read, the kind of data it gives measures, who computes them.

    ``compute(rel, run, queries, request, *, depth, relevance_level, judged_only) -> DataFrame``; None for
    ``qrels``, which goes through the engines of :data:`trecrs.engines.ENGINES`.
    """

    name: str
    kind: str
    read: Callable
    compute: Callable | None
    description: str


def _prefs(rel, run, queries, request, *, depth, relevance_level, judged_only):
    from .prefs import compute_prefs  # imported by the formats that use it: qrels needs none of it

    # form_prefs_counts.c reads neither -l nor -J
    return compute_prefs(rel, run, queries, request, depth=depth)


def _jg(rel, run, queries, request, **flags):
    from .prefs import compute_jg

    return compute_jg(rel, run, queries, request, **flags)


REL_INFO_FORMATS: dict[str, RelInfoFormat] = {
    f.name: f
    for f in (
        RelInfoFormat("qrels", "qrels", read_qrels, None, "qid iter docno rel (the default)"),
        RelInfoFormat("prefs", "prefs", read_prefs, _prefs, "qid jg jsg docno rel_level: preferences"),
        RelInfoFormat(
            "qrels_prefs", "prefs", read_qrels_prefs, _prefs, "a qrels file read as preferences, iter = jg"
        ),
        RelInfoFormat("qrels_jg", "qrels_jg", read_qrels_jg, _jg, "qid jg docno rel: one qrels per jg"),
    )
}

#: ``-T``: results formats by name, each a reader of the run file.
RESULTS_FORMATS: dict[str, Callable] = {"trec_results": read_run}


def unserved(fmt: RelInfoFormat, request: MeasureRequest) -> list[str]:
    """The requested measures that cannot be computed from ``fmt``'s data, in table order."""
    return [n for n in request.names if BY_NAME[n].rel_info not in (None, fmt.kind)]


def kinds_for(measure: str) -> list[str]:
    """The ``-R`` formats that serve ``measure``."""
    kind = BY_NAME[measure].rel_info
    return [f.name for f in REL_INFO_FORMATS.values() if kind in (None, f.kind)]
