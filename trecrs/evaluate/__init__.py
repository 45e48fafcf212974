"""evaluate: trec_eval semantics around an engine — query selection, -M, -J, -c, averaging, relstring.

One module per concept: :mod:`.settings` (:class:`EvalSettings`, the one record of flags every entry point
takes), :mod:`.result` (:class:`Evaluation`, :class:`EvaluationResult`), :mod:`.formats` (the text
formats ``to_trec()`` prints through and the figures ``plot()`` draws), :mod:`.finalize` (the end of every evaluation: ``-c``, z-scores,
query order, the summary), :mod:`.coverage` (the coverage warnings), :mod:`.inputs` (reading and checking
what is given), :mod:`.compute` (the engine and the per-query values) and :mod:`.api` (:func:`evaluate`,
:func:`evaluate_full`, :func:`evaluate_matrix`, :func:`evaluate_factors`). The names other modules import
are re-exported here, each imported when first used (:mod:`trecrs.lazy`).
"""

from ..lazy import exports
from .formats import FIGURES, TEXT_FORMATS

_NAMES = {
    "evaluate": ".api:evaluate",
    "evaluate_factors": ".api:evaluate_factors",
    "evaluate_full": ".api:evaluate_full",
    "evaluate_matrix": ".api:evaluate_matrix",
    "_choose_engine": ".compute:choose_engine",  # the name tests and callers import
    "Coverage": ".coverage:Coverage",
    "deepest_cutoff": ".coverage:deepest_cutoff",
    "stop_uncovered": ".coverage:stop_uncovered",
    "warn_coverage": ".coverage:warn_coverage",
    "warn_uncovered": ".coverage:warn_uncovered",
    "BOGUS_DOC": ".finalize:BOGUS_DOC",
    "MISSING_ZSCORE": ".finalize:MISSING_ZSCORE",
    "QrelsTotals": ".finalize:QrelsTotals",
    "check_judged": ".finalize:check_judged",
    "finalize": ".finalize:finalize",
    "qrels_totals": ".finalize:qrels_totals",
    "summarize": ".finalize:summarize",
    "to_zscores": ".finalize:to_zscores",
    "_sequential_sum": ".finalize:_sequential_sum",  # the name report.compare imports
    "unwrap": ".inputs:unwrap",
    "Evaluation": ".result:Evaluation",
    "EvaluationResult": ".result:EvaluationResult",
    "EvalSettings": ".settings:EvalSettings",
}
__getattr__, __dir__ = exports(__name__, _NAMES)

__all__ = [
    "BOGUS_DOC",
    "FIGURES",
    "MISSING_ZSCORE",
    "TEXT_FORMATS",
    "Coverage",
    "EvalSettings",
    "Evaluation",
    "EvaluationResult",
    "QrelsTotals",
    "check_judged",
    "deepest_cutoff",
    "evaluate",
    "evaluate_factors",
    "evaluate_full",
    "evaluate_matrix",
    "finalize",
    "qrels_totals",
    "stop_uncovered",
    "summarize",
    "to_zscores",
    "unwrap",
    "warn_coverage",
    "warn_uncovered",
]
