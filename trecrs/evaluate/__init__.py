"""evaluate: trec_eval semantics around an engine — query selection, -M, -J, -c, averaging, relstring.

One module per concept: :mod:`.settings` (:class:`EvalSettings`, the one record of flags every entry point
takes), :mod:`.result` (:class:`Evaluation`, :class:`EvaluationResult`), :mod:`.finalize` (the end of
every evaluation: ``-c``, z-scores, query order, the summary), :mod:`.coverage` (the coverage warnings),
:mod:`.inputs` (reading and checking what is given), :mod:`.compute` (the engine and the per-query values)
and :mod:`.api` (:func:`evaluate`, :func:`evaluate_full`, :func:`evaluate_matrix`, :func:`evaluate_factors`).
The names other modules import are re-exported here.
"""

from .api import evaluate, evaluate_factors, evaluate_full, evaluate_matrix
from .compute import choose_engine as _choose_engine  # noqa: F401 (the name tests and callers import)
from .coverage import Coverage, deepest_cutoff, stop_uncovered, warn_coverage, warn_uncovered
from .finalize import (
    BOGUS_DOC,
    MISSING_ZSCORE,
    QrelsTotals,
    check_judged,
    finalize,
    qrels_totals,
    summarize,
    to_zscores,
)
from .finalize import _sequential_sum as _sequential_sum  # the name report.compare imports
from .inputs import unwrap
from .result import TEXT_FORMATS, Evaluation, EvaluationResult
from .settings import EvalSettings

__all__ = [
    "BOGUS_DOC",
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
