"""Reproductions of published experiments, one package per paper, and the registry ``trecrs report``
reads its choices from.

Each paper's package (:mod:`.bellogin2011`, :mod:`.cremonesi2010`) holds its constants, the collection of
its results from the files its script ``scripts/reproduce_<name>.sh`` leaves in an output folder, its
findings (one rule per published claim), its figure and its report text; the generic parts (Markdown
tables, tidy evaluation tables, figures, the :class:`~trecrs.report.records.Finding` record) live in
:mod:`trecrs.report`. A paper's package is imported only when its report is built.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import FileAccessError, UsageError
from ..report.records import PipelineRun

if TYPE_CHECKING:
    from ..report.records import ReportResult

PathLike = str | os.PathLike


@dataclass(frozen=True)
class Reproduction:
    """A paper's reproduction report: its name (also its package's), and what it shows.

    The package provides ``build_report(out_dir, *, reference, run) -> ReportResult``; it is imported
    only when the report is built.
    """

    name: str
    summary: str

    def files(self) -> list[str]:
        """The names of the files the report writes in its folder (each with a manifest)."""
        from ..report.records import REPORT_NAME, RESULTS_NAME

        figure = importlib.import_module(f".{self.name}.constants", __package__).FIGURE_NAME
        return [RESULTS_NAME, figure, REPORT_NAME]

    def build(self, out_dir: PathLike, **options) -> ReportResult:
        return importlib.import_module(f".{self.name}", __package__).build_report(out_dir, **options)


REPORTS: dict[str, Reproduction] = {
    r.name: r
    for r in (
        Reproduction(
            "bellogin2011", "Bellogín et al. 2011, Figure 2 (six methodologies, three recommenders)"
        ),
        Reproduction("cremonesi2010", "Cremonesi et al. 2010, recall/precision at N, full and long tail"),
    )
}


def make_report(name: str, out_dir: PathLike, *, reference: PathLike | None = None, **run) -> ReportResult:
    """Build the report ``name`` (a :data:`REPORTS` key) from the files in ``out_dir``.

    ``run``: how the pipeline ran (``runtime``, ``jobs``, ``data``, ``command``; see :class:`PipelineRun`).
    """
    if name not in REPORTS:
        raise UsageError(f"unknown report {name!r}; choose from {', '.join(REPORTS)}")
    if not Path(out_dir).is_dir():
        raise FileAccessError(out_dir, None, "no such folder")
    return REPORTS[name].build(out_dir, reference=reference, run=PipelineRun(**run))
