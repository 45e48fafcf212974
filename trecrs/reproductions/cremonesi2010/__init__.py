"""Reproduction of the MovieLens experiments of Cremonesi, Koren & Turrin, "Performance of recommender
algorithms on top-N recommendation tasks", RecSys 2010 (Figures 2-5): recall(N) and precision(N),
N = 1..20, of TopPop, MovieAvg, CorNgbr, NNCosNgbr, PureSVD50 and PureSVD150 under One-Plus-Random, on
all test items and on the long tail.

:func:`.pipeline.reproduce` runs the pipeline with trecrs commands and the protocol's
constants (:mod:`.constants`); :func:`build_report` reads the folder it leaves (layout in
:mod:`.results`) and writes the results table, the findings checked (:mod:`.findings`), the figure and
the Markdown report.
"""

from __future__ import annotations

from .build import build_report
from .constants import (
    CUTOFFS,
    PROBE_RATIO,
    PROBE_THRESHOLD,
    RANDOM_ITEMS,
    RECOMMENDERS,
    RESULTS_COLUMNS,
    SHORT_HEAD_SHARE,
    TESTSETS,
)
from .findings import RULES, check_findings
from .results import collect_results, count_cases

__all__ = [
    "CUTOFFS",
    "PROBE_RATIO",
    "PROBE_THRESHOLD",
    "RANDOM_ITEMS",
    "RECOMMENDERS",
    "RESULTS_COLUMNS",
    "RULES",
    "SHORT_HEAD_SHARE",
    "TESTSETS",
    "build_report",
    "check_findings",
    "collect_results",
    "count_cases",
]
