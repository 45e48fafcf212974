"""Reproduction of Tamm, Damdinov & Vasilev, "Quality Metrics in Recommender Systems: Do We Calculate
Metrics Consistently?", RecSys 2021: one EASE top-20 list scored under every library's definition of
HitRate, Precision, Recall, MAP, MRR, NDCG and AUC, beside the values the authors published.

:func:`reproduce` runs it whole (``trecrs reproduce tamm2021 OUT --data ML100K``): the protocol is
:mod:`.experiment`'s, the library x metric table of measure names :data:`.constants.LIBRARIES`, the
published values :data:`.published.PUBLISHED`, the findings :mod:`.findings`. See docs/reproductions.md.
"""

from __future__ import annotations

from .build import reproduce
from .constants import LIBRARIES, METRICS, NOT_REPRODUCED
from .findings import CLAIMS, RULES, check_findings
from .published import PUBLISHED

__all__ = [
    "CLAIMS",
    "LIBRARIES",
    "METRICS",
    "NOT_REPRODUCED",
    "PUBLISHED",
    "RULES",
    "check_findings",
    "reproduce",
]
