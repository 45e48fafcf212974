"""trecrs: offline evaluation of recommender systems with TREC files and trec_eval semantics.

Users are queries, items are documents. The public API is what this module exports.
"""

__version__ = "0.1.0"

from .errors import InputError, TrecrsError, UsageError  # noqa: E402
from .io import read_qrels, read_run, trec_order, write_qrels, write_run  # noqa: E402
from .ratings import read_ratings, write_ratings  # noqa: E402
from .scoring import evaluate, evaluate_full, parse_measures  # noqa: E402

__all__ = [
    "InputError",
    "TrecrsError",
    "UsageError",
    "__version__",
    "evaluate",
    "evaluate_full",
    "parse_measures",
    "read_qrels",
    "read_ratings",
    "read_run",
    "trec_order",
    "write_qrels",
    "write_ratings",
    "write_run",
]
