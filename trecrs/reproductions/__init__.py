"""Reproductions of published experiments, one package per paper, and the registry ``trecrs report`` and
``trecrs reproduce`` read their choices from.

Each paper's package (:mod:`.bellogin2011`, :mod:`.cremonesi2010`, :mod:`.tamm2021`) holds its constants,
its results, its findings (one rule per published claim), its figure and its report text; the generic
parts (Markdown tables, tidy evaluation tables, figures, the :class:`~trecrs.report.records.Finding`
record) live in :mod:`trecrs.report`. A reproduction declares how it runs (:class:`Reproduction`): its
report built from the files a script ``scripts/reproduce_<name>.sh`` leaves in an output folder
(``trecrs report``), or the whole experiment run by the package (``trecrs reproduce``), or both. A
paper's package is imported only when it runs.
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
    """A paper's reproduction: its name (also its package's), what it shows, and how it runs.

    ``report``: the package provides ``build_report(out_dir, *, reference, run) -> ReportResult``, the
    report of the files a pipeline left in ``out_dir`` (``trecrs report``). ``end_to_end``: the experiment
    runs whole from the data (``trecrs reproduce``): with ``batches``, its ``pipeline.reproduce(out_dir,
    data_dir, *, run_batch, progress, **options)`` runs files of trecrs command lines through the
    ``run_batch`` its caller gives (folds in parallel processes) and draws a bar on the ``progress`` stream;
    otherwise the package's ``reproduce(out_dir, *, data, command, progress)`` runs in this process, calling
    ``progress`` with a line per step. ``options``: the options it takes besides the data (``jobs``,
    ``seed``, ``folds``, ``reference``). The package is imported only when it runs.
    """

    name: str
    summary: str
    report: bool = True
    end_to_end: bool = False
    batches: bool = False
    options: tuple[str, ...] = ()

    def files(self) -> list[str]:
        """The names of the files the report writes in its folder (each with a manifest)."""
        from ..report.records import REPORT_NAME, RESULTS_NAME

        figure = importlib.import_module(f".{self.name}.constants", __package__).FIGURE_NAME
        return [RESULTS_NAME, figure, REPORT_NAME]

    def build(self, out_dir: PathLike, **options) -> ReportResult:
        return importlib.import_module(f".{self.name}", __package__).build_report(out_dir, **options)


REPRODUCTIONS: dict[str, Reproduction] = {
    r.name: r
    for r in (
        Reproduction(
            "bellogin2011",
            "Bellogín et al. 2011, Figure 2 (six methodologies, three recommenders)",
            end_to_end=True,
            batches=True,
            options=("jobs", "seed", "folds", "reference"),
        ),
        Reproduction(
            "cremonesi2010",
            "Cremonesi et al. 2010, recall/precision at N, full and long tail",
            end_to_end=True,
            batches=True,
            options=("seed",),
        ),
        Reproduction(
            "tamm2021",
            "Tamm et al. 2021, one EASE top-20 list under every library's metric definitions",
            report=False,
            end_to_end=True,
        ),
    )
}
#: The reproductions whose report ``trecrs report`` builds from a pipeline's output folder.
REPORTS: dict[str, Reproduction] = {n: r for n, r in REPRODUCTIONS.items() if r.report}
#: The reproductions ``trecrs reproduce`` runs whole.
END_TO_END: dict[str, Reproduction] = {n: r for n, r in REPRODUCTIONS.items() if r.end_to_end}


def make_report(name: str, out_dir: PathLike, *, reference: PathLike | None = None, **run) -> ReportResult:
    """Build the report ``name`` (a :data:`REPORTS` key) from the files in ``out_dir``.

    ``run``: how the pipeline ran (``runtime``, ``jobs``, ``data``, ``command``; see :class:`PipelineRun`).
    """
    if name not in REPORTS:
        raise UsageError(f"unknown report {name!r}; choose from {', '.join(REPORTS)}")
    if not Path(out_dir).is_dir():
        raise FileAccessError(out_dir, None, "no such folder")
    return REPORTS[name].build(out_dir, reference=reference, run=PipelineRun(**run))


def reproduce(
    name: str,
    out_dir: PathLike,
    *,
    data: PathLike | None = None,
    command: list[str] | None = None,
    progress=None,
    run_batch=None,
    **options,
) -> ReportResult:
    """Run the reproduction ``name`` (an :data:`END_TO_END` key) whole, writing its files into ``out_dir``.

    ``data``: the data folder it reads (a reproduction of MovieLens 100K's folds runs on the bundled
    synthetic sample without it); ``command``: the command line, for the manifests; ``progress``: a
    stream for the bar of a reproduction that runs ``batches``, else a callable given one line per step;
    ``run_batch``: how a batch reproduction runs a file of command lines (see :class:`Reproduction`);
    ``options``: those the reproduction takes (:attr:`Reproduction.options`), a UsageError for another.
    """
    if name not in END_TO_END:
        raise UsageError(f"unknown reproduction {name!r}; choose from {', '.join(END_TO_END)}")
    entry = END_TO_END[name]
    extra = [k for k in options if k not in entry.options]
    if extra:
        raise UsageError(f"{name} takes no {extra[0]}", arguments=[extra[0]])
    if entry.batches:
        if run_batch is None:
            raise UsageError(f"{name} runs files of trecrs commands: give run_batch")
        pipeline = importlib.import_module(f".{name}.pipeline", __package__)
        return pipeline.reproduce(out_dir, data, run_batch=run_batch, progress=progress, **options)
    package = importlib.import_module(f".{name}", __package__)
    return package.reproduce(out_dir, data=data, command=command, progress=progress)
