"""Build the Cremonesi et al. (2010) report from a reproduction's output folder."""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import UsageError
from ...files.output import write_text_atomic
from ...report.records import REPORT_NAME, RESULTS_NAME, PipelineRun, ReportResult, write_manifests
from ...report.tables import write_results
from .constants import FIGURE_NAME
from .figure import plot
from .findings import check_findings
from .results import collect_results, count_cases
from .text import markdown

PathLike = str | os.PathLike


def build_report(
    out_dir: PathLike, *, reference: PathLike | None = None, run: PipelineRun | None = None
) -> ReportResult:
    """Write ``results.tsv``, ``report.md`` and ``cremonesi2010.png`` into ``out_dir``.

    ``run``: how the pipeline ran (runtime and data for the report, the command for the manifests; its
    ``jobs`` is unused, the pipeline runs in one process). There is no ``reference``: the paper's curves
    are checked qualitatively.
    """
    run = run or PipelineRun()
    if reference:
        raise UsageError(
            "the Cremonesi report has no reference file (the paper's curves are checked qualitatively)"
        )
    out = Path(out_dir)
    res = collect_results(out)
    n_cases = count_cases(out)
    findings = check_findings(res, n_cases)
    results_path = out / RESULTS_NAME
    write_results(results_path, res, ("recall", "precision"))
    fig_path = out / FIGURE_NAME
    plot(res, fig_path)
    report_path = out / REPORT_NAME
    write_text_atomic(report_path, markdown(res, findings, n_cases, run.runtime, run.data))
    write_manifests(
        {results_path: "results", fig_path: "figure", report_path: "report"},
        parameters={"report": "cremonesi2010", "runtime_seconds": run.runtime},
        command=run.command,
    )
    return ReportResult([results_path, report_path, fig_path], findings, res)
