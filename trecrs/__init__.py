"""trecrs: offline evaluation of recommender systems with TREC files and trec_eval semantics.

Users are queries, items are documents. The public API is what this module exports.
"""

from ._version import __version__  # noqa: E402
from .data.datasets import load as load_movielens  # noqa: E402
from .data.datasets import ml100k_splits  # noqa: E402
from .data.datasets import verify as verify_movielens  # noqa: E402
from .data.splits import Split, split, split_file  # noqa: E402
from .data.synthetic import generate as synthetic_ratings  # noqa: E402
from .errors import InputError, TrecrsError, UsageError  # noqa: E402
from .evaluate import (  # noqa: E402
    TEXT_FORMATS,
    EvalSettings,
    EvaluationResult,
    evaluate,
    evaluate_factors,
    evaluate_full,
    evaluate_matrix,
)
from .files.ratings import read_ratings, write_ratings  # noqa: E402
from .files.scores import as_scores, read_score_table, read_scores  # noqa: E402
from .files.trec import read_qrels, read_run, write_qrels, write_run  # noqa: E402
from .measures.recsys import error_measures, mae, rmse  # noqa: E402
from .measures.request import parse_measures  # noqa: E402
from .ordering import trec_order  # noqa: E402
from .protocol.candidates import METHODOLOGIES, candidate_set, candidates, methodology_qrels  # noqa: E402
from .protocol.candidates import build_qrels as qrels  # noqa: E402
from .protocol.qrels import make_qrels, qrels_from_ratings  # noqa: E402
from .protocol.runs import build_run  # noqa: E402
from .protocol.runs import run_from_scores as run  # noqa: E402
from .recommenders import make_recommender, recommend  # noqa: E402
from .report.compare import compare  # noqa: E402
from .report.sampled import sampled  # noqa: E402
from .report.sensitivity import sensitivity  # noqa: E402
from .report.trec import format_trec  # noqa: E402

# EvaluationResult.to_trec() prints through the report layer, which sits above evaluate/
TEXT_FORMATS["trec"] = format_trec

__all__ = [
    "EvalSettings",
    "EvaluationResult",
    "InputError",
    "METHODOLOGIES",
    "Split",
    "TrecrsError",
    "UsageError",
    "__version__",
    "as_scores",
    "build_run",
    "candidate_set",
    "candidates",
    "compare",
    "error_measures",
    "evaluate",
    "evaluate_factors",
    "evaluate_full",
    "evaluate_matrix",
    "load_movielens",
    "mae",
    "make_qrels",
    "make_recommender",
    "methodology_qrels",
    "ml100k_splits",
    "parse_measures",
    "qrels",
    "qrels_from_ratings",
    "read_qrels",
    "read_ratings",
    "read_run",
    "read_score_table",
    "read_scores",
    "recommend",
    "rmse",
    "run",
    "sampled",
    "sensitivity",
    "split",
    "split_file",
    "synthetic_ratings",
    "trec_order",
    "verify_movielens",
    "write_qrels",
    "write_ratings",
    "write_run",
]
