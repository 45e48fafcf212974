"""trecrs: offline evaluation of recommender systems with TREC files and trec_eval semantics.

Users are queries, items are documents. The public API is what this module exports; each name is imported
the first time it is used (:mod:`trecrs.lazy`), so ``import trecrs`` loads no third-party package: numpy
and polars come with the first name used, scipy, pyarrow and the rest with the functions that need them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import evaluate as _evaluate_package
from ._version import __version__
from .errors import InputError, MeasureError, TrecrsError, UsageError
from .lazy import exports

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_PUBLIC = {
    "load_movielens": ".data.datasets:load",
    "ml100k_splits": ".data.datasets:ml100k_splits",
    "verify_movielens": ".data.datasets:verify",
    "Split": ".data.splits:Split",
    "split": ".data.splits:split",
    "split_file": ".data.split_files:split_file",
    "synthetic_ratings": ".data.synthetic:generate",
    "TEXT_FORMATS": ".evaluate:TEXT_FORMATS",
    "EvalSettings": ".evaluate:EvalSettings",
    "EvaluationResult": ".evaluate:EvaluationResult",
    "evaluate": ".evaluate:evaluate",
    "evaluate_factors": ".evaluate:evaluate_factors",
    "evaluate_full": ".evaluate:evaluate_full",
    "evaluate_matrix": ".evaluate:evaluate_matrix",
    "read_ratings": ".files.ratings:read_ratings",
    "write_ratings": ".files.ratings:write_ratings",
    "as_scores": ".files.scores:as_scores",
    "read_score_table": ".files.scores:read_score_table",
    "read_scores": ".files.scores:read_scores",
    "read_qrels": ".files.trec:read_qrels",
    "read_run": ".files.trec:read_run",
    "write_qrels": ".files.trec:write_qrels",
    "write_run": ".files.trec:write_run",
    "error_measures": ".measures.recsys:error_measures",
    "load_measures_file": ".measures.recsys:load_measures_file",
    "mae": ".measures.recsys:mae",
    "register_measure": ".measures.recsys:register_measure",
    "rmse": ".measures.recsys:rmse",
    "parse_measures": ".measures.request:parse_measures",
    "trec_order": ".ordering:trec_order",
    "METHODOLOGIES": ".protocol.candidates:METHODOLOGIES",
    "candidate_set": ".protocol.candidates:candidate_set",
    "candidates": ".protocol.candidates:candidates",
    "methodology_qrels": ".protocol.candidates:methodology_qrels",
    "qrels": ".protocol.candidates:build_qrels",
    "make_qrels": ".protocol.qrels:make_qrels",
    "qrels_from_ratings": ".protocol.qrels:qrels_from_ratings",
    "build_run": ".protocol.runs:build_run",
    "run": ".protocol.runs:run_from_scores",
    "make_recommender": ".recommenders:make_recommender",
    "recommend": ".recommenders:recommend",
    "audit": ".report.audit:audit",
    "compare": ".report.compare:compare",
    "definitions": ".report.definitions:definitions",
    "sampled": ".report.sampled:sampled",
    "sensitivity": ".report.sensitivity:sensitivity",
    "study": ".report.study:study",
    "format_trec": ".report.trec:format_trec",
    "pytrec_eval": ".pytrec_eval",  # the drop-in module: from trecrs import pytrec_eval
}
__getattr__, __dir__ = exports(__name__, _PUBLIC)


def _format_trec(*args: Any, **kwargs: Any) -> str:
    """trec_eval's text output, printed by the report layer (imported when first used)."""
    from .report.trec import format_trec

    return format_trec(*args, **kwargs)


def _format_html(*args: Any, **kwargs: Any) -> str:
    """An evaluation's summary as an HTML table, by the report layer (imported when first used)."""
    from .report.notebook import evaluation_html

    return evaluation_html(*args, **kwargs)


def _plot_distribution(*args: Any, **kwargs: Any) -> Figure:
    """The per-query values of a measure as a figure, drawn by the report layer (imported when first used)."""
    from .report.notebook import plot_distribution

    return plot_distribution(*args, **kwargs)


# EvaluationResult.to_trec(), its notebook table and .plot() go through the report layer, above evaluate/
_evaluate_package.TEXT_FORMATS.setdefault("trec", _format_trec)
_evaluate_package.TEXT_FORMATS.setdefault("html", _format_html)
_evaluate_package.FIGURES.setdefault("distribution", _plot_distribution)

__all__ = [
    "EvalSettings",
    "EvaluationResult",
    "InputError",
    "METHODOLOGIES",
    "MeasureError",
    "Split",
    "TrecrsError",
    "UsageError",
    "__version__",
    "as_scores",
    "audit",
    "build_run",
    "candidate_set",
    "candidates",
    "compare",
    "definitions",
    "error_measures",
    "evaluate",
    "evaluate_factors",
    "evaluate_full",
    "evaluate_matrix",
    "load_measures_file",
    "load_movielens",
    "mae",
    "make_qrels",
    "make_recommender",
    "methodology_qrels",
    "ml100k_splits",
    "parse_measures",
    "pytrec_eval",
    "qrels",
    "qrels_from_ratings",
    "read_qrels",
    "read_ratings",
    "read_run",
    "read_score_table",
    "read_scores",
    "recommend",
    "register_measure",
    "rmse",
    "run",
    "sampled",
    "sensitivity",
    "study",
    "split",
    "split_file",
    "synthetic_ratings",
    "trec_order",
    "verify_movielens",
    "write_qrels",
    "write_ratings",
    "write_run",
]
