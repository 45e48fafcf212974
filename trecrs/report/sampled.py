"""The sampled-metrics report: per system, estimator, metric and cutoff the estimate, the exact value and
their difference; whether each estimator orders the systems as the exact metric does (Kendall's tau);
and recall(N) curves, sampled against exact, in the style of Cremonesi, Koren & Turrin (RecSys 2010,
Figure 2). The estimators are :mod:`trecrs.measures.recsys.sampled` (Krichene & Rendle, KDD 2020).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from ..measures.recsys.registry import sequential_mean
from ..measures.recsys.sampled import ESTIMATORS, RANK_METRICS, estimate_all, hit
from .figures import pyplot, save_figure
from .trec import render

TEXT_FORMATS: tuple[str, ...] = ("text", "csv", "json")
CURVE_CUTOFFS = range(1, 21)  # recall(N), N = 1..20: Cremonesi et al. 2010, Figure 2


@dataclass(frozen=True)
class SampledReport:
    """``table``: system, measure, k, estimator, value, exact, difference (value - exact), one row per
    combination; ``agreement``: measure, k, estimator, kendall_tau (tau-b of the systems' values against
    the exact ones; null with fewer than two systems or when either side ties every system); ``cases``:
    each system's per-case ranks (:func:`~trecrs.measures.recsys.sampled.case_ranks`) when built by
    :func:`sampled`."""

    table: pl.DataFrame
    agreement: pl.DataFrame
    cases: dict[str, pl.DataFrame] | None = None


def sampled(
    train: object,
    test: object,
    scores: dict,
    ks: Iterable[int] = (1, 5, 10),
    *,
    n: int = 100,
    relevant_threshold: float = 5.0,
    seed: int | None = None,
    items: object = None,
    lam: float = 0.1,
    missing: str = "fail",
    paths: dict | None = None,
) -> SampledReport:
    """Sampled against exact rank metrics of every system (``scores``: name -> score file or table) on the
    One-Plus-Random candidates of a split: ``trecrs sampled``.

    The candidates are :func:`~trecrs.measures.recsys.sampled.opr_candidates` (``n`` drawn items per
    case, ``seed``), each system's case ranks :func:`~trecrs.measures.recsys.sampled.case_ranks`, the
    report :func:`sampled_report` at cutoffs ``ks`` (Krichene & Rendle, KDD 2020; docs/sampled.md).

    >>> train = pl.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["a", "b", "a", "c"], "rating": 3.0})
    >>> test = pl.DataFrame({"user": ["u1", "u2"], "item": ["c", "b"], "rating": 5.0})
    >>> good = pl.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["c", "d", "b", "d"],
    ...                      "score": [0.9, 0.1, 0.8, 0.2]})
    >>> report = sampled(train, test, {"good": good}, ks=[1], n=1, seed=7)
    >>> report.table.filter(pl.col("estimator") == "exact").select("measure", "value").rows()
    [('recall', 1.0), ('ndcg', 1.0)]
    """
    from ..measures.recsys.sampled import case_ranks, opr_candidates

    cands = opr_candidates(
        train, test, items, n=n, relevant_threshold=relevant_threshold, seed=seed, paths=paths
    )
    cases = {
        name: case_ranks(
            cands, table, missing=missing, scores_path=table if isinstance(table, str | os.PathLike) else None
        )
        for name, table in scores.items()
    }
    report = sampled_report(cases, list(ks), lam)
    return SampledReport(report.table, report.agreement, cases)


def sampled_report(cases: dict[str, pl.DataFrame], ks: list[int], lam: float = 0.1) -> SampledReport:
    """The report of the per-case ranks of each system (``{name: case_ranks(...)}``) at cutoffs ``ks``.

    Values are means over cases (Cremonesi's per-case average), summed left to right as trec_eval does.
    """
    targets = [(metric, int(k)) for metric in RANK_METRICS for k in sorted(set(ks))]
    rows = []
    for system, frame in cases.items():
        values = estimate_all(frame, targets, lam)
        for metric, k in targets:
            exact = sequential_mean(values[("exact", metric, k)])
            for est in ESTIMATORS:
                v = sequential_mean(values[(est, metric, k)])
                rows.append((system, metric, k, est, v, exact, v - exact))
    table = pl.DataFrame(
        rows,
        schema={
            "system": pl.Utf8,
            "measure": pl.Utf8,
            "k": pl.Int64,
            "estimator": pl.Utf8,
            "value": pl.Float64,
            "exact": pl.Float64,
            "difference": pl.Float64,
        },
        orient="row",
    )
    return SampledReport(table, _agreement(table))


def kendall(a: np.ndarray, b: np.ndarray) -> float | None:
    """Kendall's tau-b of two orders of the same systems (``scipy.stats.kendalltau``); None if undefined."""
    from scipy.stats import kendalltau  # here: `import trecrs` stays light (numpy and polars at most)

    if a.size < 2:
        return None
    tau = kendalltau(a, b).statistic
    return None if np.isnan(tau) else float(tau)


def _agreement(table: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for (metric, k, est), part in table.group_by(["measure", "k", "estimator"], maintain_order=True):
        rows.append(
            (
                metric,
                k,
                est,
                kendall(part.get_column("exact").to_numpy(), part.get_column("value").to_numpy()),
            )
        )
    return pl.DataFrame(
        rows,
        schema={"measure": pl.Utf8, "k": pl.Int64, "estimator": pl.Utf8, "kendall_tau": pl.Float64},
        orient="row",
    )


def _number(v: float | None) -> str:
    return "-" if v is None else f"{v:.4f}"


def format_text(report: SampledReport) -> str:
    """The report as aligned text: one block per measure and cutoff, then the agreement of system orders."""
    lines = []
    for (metric, k), part in report.table.group_by(["measure", "k"], maintain_order=True):
        lines.append(f"{metric}@{k}")
        lines.append(f"  {'system':<16} {'estimator':<14} {'value':>14} {'exact':>10} {'difference':>14}")
        for row in part.iter_rows(named=True):
            lines.append(
                f"  {row['system']:<16} {row['estimator']:<14} {row['value']:>14.4f} {row['exact']:>10.4f} "
                f"{row['difference']:>+14.4f}"
            )
    lines.append("system order against the exact order (Kendall tau-b)")
    for row in report.agreement.iter_rows(named=True):
        lines.append(
            f"  {row['measure'] + '@' + str(row['k']):<12} {row['estimator']:<14} {_number(row['kendall_tau']):>8}"
        )
    return "\n".join(lines) + "\n"


def format_report(report: SampledReport, fmt: str) -> str:
    """``text`` (:func:`format_text`), or the table with the agreement joined on as ``csv`` / ``json``."""
    if fmt == "text":
        return format_text(report)
    joined = report.table.join(
        report.agreement, on=["measure", "k", "estimator"], how="left", maintain_order="left"
    )
    return render(joined, fmt)


def recall_curves(cases: dict[str, pl.DataFrame], path: Path) -> None:
    """recall(N) for N = 1..20 of every system: exact (solid, from R) and sampled (dashed, from r)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    ns = np.array(list(CURVE_CUTOFFS))
    for i, (system, frame) in enumerate(cases.items()):
        colour = f"C{i % 10}"
        for column, style, label in (("R", "-", "exact"), ("r", "--", "sampled")):
            ranks = frame.get_column(column).to_numpy()
            ax.plot(
                ns, [hit(ranks, int(n)).mean() for n in ns], style, color=colour, label=f"{system} ({label})"
            )
    ax.set_xlabel("N")
    ax.set_ylabel("recall(N)")
    ax.set_xticks([1, 5, 10, 15, 20])
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path)


__all__ = [
    "CURVE_CUTOFFS",
    "TEXT_FORMATS",
    "SampledReport",
    "format_report",
    "format_text",
    "kendall",
    "recall_curves",
    "sampled",
    "sampled_report",
]
