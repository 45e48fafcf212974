"""Run the Tamm et al. (2021) reproduction end to end and write its results, figure and report."""

from __future__ import annotations

import os
import time
from pathlib import Path

from ...files.output import write_text_atomic
from ...report.records import REPORT_NAME, RESULTS_NAME, ReportResult, write_manifests
from ...report.tables import write_results
from .constants import FIGURE_NAME, REGULARIZATION, RELEVANT_RATING, SPLIT, K
from .experiment import Progress, prepare, score_libraries
from .figure import plot
from .findings import check_findings
from .text import markdown

PathLike = str | os.PathLike


def reproduce(
    out_dir: PathLike,
    *,
    data: PathLike | None = None,
    command: list[str] | None = None,
    progress: Progress | None = None,
) -> ReportResult:
    """Split ``data`` (MovieLens 100K's folder, or any MovieLens folder or ratings file), rank with EASE,
    score the ranking under every library's definitions, and write ``results.tsv``, ``report.md`` and
    ``tamm2021_spread.png`` (each with a manifest) into ``out_dir``. ``progress`` receives one line per
    step."""
    from ...errors import UsageError

    if data is None:
        raise UsageError("tamm2021 reads MovieLens 100K: give its folder", arguments=["data"])
    start = time.perf_counter()
    experiment, train = prepare(data, progress)
    results = score_libraries(experiment, train, progress)
    findings = check_findings(results)
    out = Path(out_dir)
    results_path, fig_path, report_path = out / RESULTS_NAME, out / FIGURE_NAME, out / REPORT_NAME
    write_results(results_path, results.fill_null(float("nan")), ("value",))
    plot(results, fig_path, Path(data).name)
    runtime = time.perf_counter() - start
    write_text_atomic(report_path, markdown(results, findings, experiment.counts, runtime, str(data)))
    write_manifests(
        {results_path: "results", fig_path: "figure", report_path: "report"},
        parameters={
            "report": "tamm2021",
            "k": K,
            "ease_regularization": REGULARIZATION,
            "relevant_rating": RELEVANT_RATING,
            "split": SPLIT,
            "counts": experiment.counts,
        },
        command=command,
        inputs={"data": data},
    )
    return ReportResult(
        [results_path, report_path, fig_path], findings, results, {"counts": experiment.counts}
    )
