"""Reproduction of Bellogín, Castells & Cantador, "Precision-oriented evaluation of recommender systems:
an algorithmic comparison", RecSys 2011 (Figure 2): three recommenders (SVD50, IB, UB50) under six
evaluation methodologies (TR_3, TR_4, TeI, TrI, AI, OPR), P@50 / Recall@50 / nDCG@50 and RMSE, on
MovieLens 100K's splits D1 (u1..u5) and D2 (ua, ub).

:func:`.pipeline.reproduce` runs the pipeline with trecrs commands (``scripts/reproduce_bellogin2011.sh``
is an example of its use); :func:`build_report` reads the folder it leaves (layout in :mod:`.results`) and writes the results table, the findings checked
(:mod:`.findings`), the figure and the Markdown report. See docs/reproductions.md for the decisions.
"""

from __future__ import annotations

from .build import build_report
from .constants import LEVEL, LEVELS, METHODOLOGIES, METRICS, RECOMMENDERS, RESULTS_COLUMNS, SPLITS
from .findings import RULES, check_findings
from .reference import PUBLISHED, comparison, read_reference
from .results import collect_results, level_sensitivity, with_means

__all__ = [
    "LEVEL",
    "LEVELS",
    "METHODOLOGIES",
    "METRICS",
    "PUBLISHED",
    "RECOMMENDERS",
    "RESULTS_COLUMNS",
    "RULES",
    "SPLITS",
    "build_report",
    "check_findings",
    "collect_results",
    "comparison",
    "level_sensitivity",
    "read_reference",
    "with_means",
]
