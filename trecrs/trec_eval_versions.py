"""The trec_eval versions trecrs reproduces, and what differs between them: one registry, pure data.

trecrs prints what trec_eval 9.0.8 prints (the default) or, when asked, what trec_eval 10.0 prints.
Each :class:`TrecEvalVersion` says how that version ranks (the C type scores are compared in,
``trec_format.h``/``form_res_rels.c``), how it turns a recall level into a rank cutoff
(``m_iprec_at_recall.c``, ``m_11pt_avg.c``), which measures it has and adds to ``all_trec``
(``measures.c``), and how its main loop treats the queries (``trec_eval.c``). Every version-dependent
rule in trecrs reads this registry instead of testing a version number.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import UsageError

ENV = "TRECRS_TREC_EVAL_VERSION"
DEFAULT = 9


def _ceil_ish(x: np.ndarray) -> np.ndarray:
    """9.0.8's ``(long) (x + 0.9)``: truncation after adding 0.9 (x >= 0)."""
    return (x + 0.9).astype(np.int64)


def _lround(x: np.ndarray) -> np.ndarray:
    """10.0's ``lround(x)``: nearest integer, halves away from zero (x >= 0)."""
    fl = np.floor(x)
    return (fl + (x - fl >= 0.5)).astype(np.int64)


@dataclass(frozen=True)
class TrecEvalVersion:
    """What one trec_eval version does where versions differ (see docs/trec_eval_compatibility.md)."""

    number: int
    label: str
    score_dtype: type  # C type of `sim` when documents are ordered
    recall_cutoff: Callable[[np.ndarray], np.ndarray]  # recall level * num_rel -> rank cutoff
    added_measures: tuple[str, ...] = ()  # measure-table entries the version has beyond 9.0.8
    all_trec_added: tuple[str, ...] = ()  # names its all_trec nickname has beyond 9.0.8
    # -c stand-in values reset to 0, matched against the printed names (fnmatch: 10.0 compares names with
    # strcmp, so "utility_2,1,-1,1" is not reset, and "unj" with strncmp, so every "unj_K" is)
    stand_in_resets: tuple[str, ...] = ("num_ret", "utility*")
    uncovered_query_fatal: bool = False  # a qrels query without run lines stops it (status 4)
    run_from_stdin: bool = False  # results file "-" is standard input
    version_id: str = ""  # what its -v prints after "trec_eval version " (the Makefile's VERSIONID)

    def has_measure(self, base: str) -> bool:
        """Whether ``base`` (a measure-table name) exists in this version."""
        return base not in _LATER_MEASURES or base in self.added_measures


VERSIONS: dict[int, TrecEvalVersion] = {
    9: TrecEvalVersion(9, "9.0.8", np.float32, _ceil_ish, version_id="9.0.7"),  # the 9.0.8 release says 9.0.7
    10: TrecEvalVersion(
        10,
        "10.0",
        np.float64,
        _lround,
        added_measures=("dcg", "ideal_dcg", "rbp", "rbp_resid", "unj"),
        all_trec_added=("unj", "rbp", "rbp_resid"),
        stand_in_resets=("num_ret", "utility", "unj*", "rbp_resid", "relstring"),
        uncovered_query_fatal=True,
        version_id="10.0-rc3",
        run_from_stdin=True,
    ),
}
_LATER_MEASURES = frozenset(n for v in VERSIONS.values() for n in v.added_measures)


def get(version: int | str | None = None) -> TrecEvalVersion:
    """The registry entry for ``version`` (None: ``$TRECRS_TREC_EVAL_VERSION``, else 9); UsageError if
    unknown, about the argument ``trec_eval_version`` when it was given, else naming the variable."""
    given = version is not None
    if version is None:
        version = os.environ.get(ENV) or DEFAULT
    try:
        return VERSIONS[int(version)]
    except (ValueError, TypeError, KeyError):
        known = ", ".join(str(v) for v in VERSIONS)
        where = "" if given else f" (${ENV})"
        raise UsageError(
            f"trec_eval version {version!r}{where} is not supported: use one of {known}",
            arguments=["trec_eval_version"] if given else [],
        ) from None
