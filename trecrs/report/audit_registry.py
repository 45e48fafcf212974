"""The registry of ``trecrs audit``'s checks: each check's finding definition, severity, source and advice.

:func:`check` registers a check (:mod:`.audit_checks`, :mod:`.audit_measures`) in :data:`CHECKS`, in the
order the report lists checks of one severity; a check returns an :class:`Outcome`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

#: Severities, worst first.
SEVERITIES = ("error", "warning", "info")

#: What each input is called on the command line (the report says which a skipped check needs).
NEEDS = {
    "train": "--train", "test": "--test", "qrels": "--qrels", "runs": "a RUN", "candidates": "--candidates",
    "items": "--items", "timestamps": "timestamps on every rating of --train and --test",
    "opr": "One-Plus-Random candidates (queries USER:ITEM)",
    "ids": "--train, --test, --qrels, --candidates or --items (ids to compare with)",
}  # fmt: skip


@dataclass(frozen=True)
class Outcome:
    """What one check found: ``count`` of ``of``, one offending example (empty when nothing was found)."""

    count: int
    of: int
    example: str = ""
    severity: str | None = None  # when the check's own severity depends on what it found
    measure: str | None = None  # the measure of a per-measure check
    values: dict = field(default_factory=dict)  # further numbers (the report prints them in JSON)
    detail: str = ""  # one sentence saying what the count holds, beside the numbers it leaves out
    advice: str | None = None  # when the fix depends on what was found (else the check's advice)


@dataclass(frozen=True)
class Check:
    """A registered check: what it counts, out of what, its source and the advice that fixes it."""

    id: str
    severity: str
    needs: tuple[str, ...]
    per_run: bool
    count: str  # what ``count`` counts
    of: str  # what ``of`` counts (plural noun: "test pairs")
    source: str
    advice: str
    func: Callable[..., Outcome | list[Outcome]]


CHECKS: dict[str, Check] = {}
CheckFunc = TypeVar("CheckFunc", bound=Callable[..., Outcome | list[Outcome]])


def check(
    id: str,
    severity: str,
    needs: tuple[str, ...],
    *,
    count: str,
    of: str,
    source: str,
    advice: str,
    per_run: bool = False,
) -> Callable[[CheckFunc], CheckFunc]:
    """Decorator adding a check to :data:`CHECKS` (an id registered twice is refused)."""

    def deco(func: CheckFunc) -> CheckFunc:
        if id in CHECKS:
            raise ValueError(f"audit check {id!r} registered twice")
        CHECKS[id] = Check(id, severity, needs, per_run, count, of, source, advice, func)
        return func

    return deco
