"""What a reproduction report returns and writes: the published findings checked, the files it made.

A reproduction checks each published claim with a small rule (a function of its results returning a
:class:`Finding`, or ``None`` when the claim does not apply to the results at hand); :func:`check`
applies a list of such rules in order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import polars as pl

from ..files.manifest import write_manifest

RESULTS_NAME = "results.tsv"
REPORT_NAME = "report.md"

T = TypeVar("T")


@dataclass(frozen=True)
class PipelineRun:
    """How a reproduction's pipeline ran, as its report and manifests state it (no result depends on it)."""

    runtime: float | None = None  # wall-clock seconds
    jobs: int | None = None  # folds run at the same time
    data: str | None = None  # the data folder, as given
    command: list[str] | None = None  # the command line, for the manifests


@dataclass
class Finding:
    """A published claim, whether our numbers bear it out, and the numbers that say so."""

    claim: str
    holds: bool
    evidence: str


@dataclass
class ReportResult:
    """What a report wrote and what it found."""

    files: list[Path]
    findings: list[Finding]
    results: pl.DataFrame
    extra: dict = field(default_factory=dict)


def check(rules: Iterable[Callable[[T], Finding | None]], results: T) -> list[Finding]:
    """The findings of ``rules`` on ``results``, in the rules' order (a rule returning ``None`` does not
    apply to these results and is left out)."""
    return [f for rule in rules if (f := rule(results)) is not None]


def write_manifests(
    files: dict[Path, str],
    *,
    parameters: dict,
    command: list[str] | None,
    inputs: dict[str, str | os.PathLike] | None = None,
) -> None:
    """One manifest per written file (``files``: path -> kind), all with the same parameters."""
    for path, kind in files.items():
        write_manifest(path, kind, inputs=inputs, parameters=parameters, command=command)
