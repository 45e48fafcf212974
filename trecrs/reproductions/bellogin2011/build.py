"""Build the Bellogín et al. (2011) report from a reproduction's output folder."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from ...files.output import write_text_atomic
from ...report.records import REPORT_NAME, RESULTS_NAME, PipelineRun, ReportResult, write_manifests
from ...report.tables import write_results
from .constants import FIGURE_NAME, LEVEL, SPLITS
from .figure import plot
from .findings import check_findings
from .reference import read_reference, reference_to_compare
from .results import collect_results, with_means
from .text import markdown

PathLike = str | os.PathLike


def build_report(
    out_dir: PathLike, *, reference: PathLike | None = None, run: PipelineRun | None = None
) -> ReportResult:
    """Write ``results.tsv``, ``report.md`` and ``bellogin2011_fig2.png`` into ``out_dir``.

    ``reference``: the published values (:func:`~.reference.read_reference`; default: the packaged
    :data:`~.reference.PUBLISHED`), compared only with MovieLens 100K results
    (:func:`~.reference.reference_to_compare`); ``run``: how the pipeline ran (runtime, jobs, the data
    folder, checked to be MovieLens 100K; the command for the manifests).
    The findings are checked on each split present.
    """
    run = run or PipelineRun()
    out = Path(out_dir)
    raw, coverage = collect_results(out)
    res = with_means(raw)
    reference, not_compared = reference_to_compare(reference, run.data)
    ref = read_reference(reference) if reference else None
    findings = {s: check_findings(res, s) for s in SPLITS if res.filter(pl.col("split") == s).height}
    results_path = out / RESULTS_NAME
    write_results(results_path, res, ("value",))
    fig_path = out / FIGURE_NAME
    plot(res, ref, fig_path)
    report_path = out / REPORT_NAME
    write_text_atomic(
        report_path,
        markdown(out, res, coverage, ref, findings, run.runtime, run.jobs, run.data, not_compared),
    )
    write_manifests(
        {results_path: "results", fig_path: "figure", report_path: "report"},
        parameters={
            "report": "bellogin2011",
            "non_tr_level": LEVEL,
            "runtime_seconds": run.runtime,
            "jobs": run.jobs,
        },
        command=run.command,
        inputs={"reference": reference} if reference else None,
    )
    flat = [f for fs in findings.values() for f in fs]
    return ReportResult([results_path, report_path, fig_path], flat, res, {"findings_by_split": findings})
