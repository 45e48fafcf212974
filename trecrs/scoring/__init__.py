"""Scoring: trec_eval measures (engines) and recommender-specific measures."""

from . import vectorized  # noqa: F401 - registers the "vectorized" engine (the default)
from .engines import ENGINES, Engine, register_engine
from .evaluate import Evaluation, evaluate, evaluate_full
from .trec_measures import TREC_MEASURES, MeasureRequest, parse_measures
from .vectorized import evaluate_matrix

__all__ = [
    "ENGINES",
    "Engine",
    "Evaluation",
    "MeasureRequest",
    "TREC_MEASURES",
    "evaluate",
    "evaluate_full",
    "evaluate_matrix",
    "parse_measures",
    "register_engine",
]
