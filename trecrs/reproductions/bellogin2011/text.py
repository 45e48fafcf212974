"""The Markdown report of the Bellogín et al. (2011) reproduction, one function per section."""

from __future__ import annotations

import os
from pathlib import Path
from typing import cast

import polars as pl

from ..._version import __version__
from ...report.markdown import MISSING, findings_table, fmt, md_table, signed
from ...report.records import RESULTS_NAME, Finding
from .audit import audit_section
from .constants import (
    FIGURE_NAME,
    LEVEL,
    LEVELS,
    METHODOLOGIES,
    METHODOLOGY_ORDER,
    METRICS,
    NON_TR,
    RECOMMENDERS,
    RESULTS_COLUMNS,
    SPLITS,
)
from .reference import comparison
from .results import level_sensitivity, value
from .study import study_section


def markdown(
    out: Path,
    res: pl.DataFrame,
    coverage: pl.DataFrame,
    ref: pl.DataFrame | None,
    findings: dict[str, list[Finding]],
    runtime: float | None,
    jobs: int | None,
    data: str | None,
    not_compared: str | None = None,
) -> str:
    """The whole report: header, method, findings per split, published values (or ``not_compared``, why
    they are not compared), our values, the sensitivity to the relevance level, the files."""
    lines = _header(res, runtime, jobs, data) + _method()
    for split, fs in findings.items():
        lines += [f"## Findings of the paper, checked on {split} (mean over folds)", "", findings_table(fs)]
    lines += _published(res, ref) if ref is not None else _not_compared(not_compared)
    for split in SPLITS:
        lines += _our_values(res, coverage, split)
    lines += _sensitivity(level_sensitivity(out))
    lines += study_section(out)
    lines += audit_section(out)
    return "\n".join(lines + _files(with_published=ref is not None))


def _header(res: pl.DataFrame, runtime: float | None, jobs: int | None, data: str | None) -> list[str]:
    folds = {
        s: res.filter((pl.col("split") == s) & (pl.col("fold") != "mean")).get_column("fold").unique().sort()
        for s in SPLITS
    }
    lines = [
        "# Reproduction: Bellogín, Castells & Cantador (RecSys 2011), Figure 2",
        "",
        f"trecrs {__version__}. Data: `{data or '?'}`. Folds: "
        + "; ".join(f"{s} = {', '.join(f.to_list()) or 'none'}" for s, f in folds.items())
        + ".",
        "",
    ]
    if runtime is not None:
        lines.append(
            f"**Runtime:** {runtime:.0f} s for the whole pipeline (splits, qrels, candidates, three recommenders, "
            f"runs, trec_eval-compatible scoring of every fold), {jobs or 1} fold(s) at a time on "
            f"{os.cpu_count()} core(s)."
        )
        lines.append("")
    return lines


def _method() -> list[str]:
    return [
        "## How the numbers were made",
        "",
        "- Splits: ML-100K's predefined `u1..u5` (D1) and `ua, ub` (D2), regenerated from `u.data`.",
        "- Recommenders (`trecrs recommend`): **SVD50** biased matrix factorisation (50 factors, ALS-WR), "
        "**IB** Mahout item-based kNN with adjusted cosine, **UB50** Mahout user-based kNN (50 nearest users, "
        "Pearson). The kNN weights follow Mahout 0.3 (similarity + 1), which reproduces the u1 runs the "
        "authors released (IB score for score, UB50 on 98.6% of its scores).",
        "- Runs (`trecrs run --missing drop --depth 50`): a candidate the recommender cannot score is left "
        "out, as in the released runs; cutting at 50 changes none of the @50 measures.",
        "- TR_3 / TR_4: TestRatings runs against qrels of the test ratings >= 3 / >= 4 (graded by the rating, "
        "the released `urels_th3/th4`).",
        f"- TeI, TrI, AI: qrels of **all** test ratings graded by the rating (the released `urels.txt`), "
        f"scored with **`trec_eval -l {LEVEL}`**: relevant = rated >= 4, the TR_4 rule, so TR_4 and "
        "the other methodologies differ only in their candidates (nDCG's gains are the ratings whatever `-l`, as "
        "in trec_eval). The paper does not say which of the released levels (1, 3, 4) each bar used; the "
        "sensitivity table below shows the other two.",
        "- OPR: One-Plus-Random, one query per 5-star test rating, 1,000 random unrated items (pool: the "
        "catalogue = items of train and test), judged: the test item only.",
        "- RMSE: over the test ratings each recommender predicts (Mahout's RMSRecommenderEvaluator skips the "
        "others); coverage below.",
        "",
    ]


def _published(res: pl.DataFrame, ref: pl.DataFrame) -> list[str]:
    """Our D1 means beside the published bars, and how far they are per methodology."""
    cmp = comparison(res, ref)
    lines = ["## D1: ours beside the published bars (mean of u1..u5; diff = ours - published)", ""]
    rows = []
    for metric in [*METRICS.values(), "RMSE"]:
        for meth in METHODOLOGIES if metric != "RMSE" else ("-",):
            row = [metric, meth]
            for rec in RECOMMENDERS:
                c = cmp.filter(
                    (pl.col("metric") == metric)
                    & (pl.col("methodology") == meth)
                    & (pl.col("recommender") == rec)
                )
                if c.height:
                    first = c.row(0, named=True)
                    row += [fmt(first["ours"]), fmt(first["published"]), signed(first["diff"])]
                else:
                    row += [MISSING] * 3
            rows.append(row)
    header = ["metric", "methodology"] + [f"{r} {k}" for r in RECOMMENDERS for k in ("ours", "paper", "diff")]
    lines.append(md_table(header, rows, "ll" + "r" * 9))
    return lines + _distance(cmp.filter(pl.col("diff").is_not_null()))


def _distance(d: pl.DataFrame) -> list[str]:
    """Mean and max |ours - published| per methodology, and the mean over every bar compared."""
    if not d.height:
        return []
    by = d.group_by("methodology").agg(
        pl.col("diff").abs().mean().alias("mad"), pl.col("diff").abs().max().alias("max")
    )
    by = by.sort(pl.col("methodology").replace_strict(METHODOLOGY_ORDER, default=99, return_dtype=pl.Int64))
    return [
        "",
        "Distance from the published bars, per methodology (mean and max |ours - published| over "
        "recommenders and metrics): "
        + "; ".join(f"{m} {a:.3f} / {b:.3f}" for m, a, b in by.iter_rows())
        + f". Over all {d.height} bars: mean {cast(float, d.get_column('diff').abs().mean()):.3f}.",
        "",
    ]


def _not_compared(reason: str | None) -> list[str]:
    return [
        "## Published values",
        "",
        f"Not compared: {reason or 'no published values were given'}. The findings above are checked on "
        "this data and say nothing about the paper's numbers.",
        "",
    ]


def _our_values(res: pl.DataFrame, coverage: pl.DataFrame, split: str) -> list[str]:
    """The split's means: every methodology and metric, then RMSE with the share of ratings predicted."""
    if not res.filter((pl.col("split") == split) & (pl.col("fold") == "mean")).height:
        return []
    rows = [
        [metric, rec] + [fmt(value(res, split, rec, m, metric)) for m in METHODOLOGIES]
        for metric in METRICS.values()
        for rec in RECOMMENDERS
    ]
    rm = [
        [
            rec,
            fmt(value(res, split, rec, "-", "RMSE")),
            fmt(
                cast(
                    "float | None",  # the mean of a float column (None without rows)
                    coverage.filter((pl.col("split") == split) & (pl.col("recommender") == rec))
                    .get_column("coverage")
                    .mean(),
                )
            ),
        ]
        for rec in RECOMMENDERS
    ]
    return [
        f"## {split}: our values (mean over folds)",
        "",
        md_table(["metric", "recommender", *METHODOLOGIES], rows, "ll" + "r" * 6),
        "",
        md_table(["recommender", "RMSE", "test ratings predicted (share)"], rm),
    ]


def _sensitivity(sens: pl.DataFrame) -> list[str]:
    """P@50 and Recall@50 of TeI, TrI, AI on D1 at each trec_eval -l level evaluated."""
    if not sens.height:
        return []
    rows = []
    for metric in ("P@50", "Recall@50"):
        for meth in NON_TR:
            for rec in RECOMMENDERS:
                cells = []
                for level in LEVELS:
                    c = sens.filter(
                        (pl.col("split") == "D1")
                        & (pl.col("metric") == metric)
                        & (pl.col("methodology") == meth)
                        & (pl.col("recommender") == rec)
                        & (pl.col("level") == level)
                    ).get_column("value")
                    cells.append(fmt(float(c[0])) if c.len() else MISSING)
                rows.append([metric, meth, rec, *cells])
    header = ["metric", "methodology", "recommender", *(f"-l {lv}" for lv in LEVELS)]
    return [
        "## Sensitivity: the relevance threshold of TeI, TrI, AI (trec_eval -l), D1 mean",
        "",
        md_table(header, rows, "lll" + "rrr"),
    ]


def _files(*, with_published: bool) -> list[str]:
    # the figure draws the published bars only when they are compared
    drawn = "bars: ours; black ticks: published D1 values" if with_published else "bars: ours"
    return [
        "## Files",
        "",
        f"- `{RESULTS_NAME}`: every number (per fold and `mean`), columns `{' '.join(RESULTS_COLUMNS)}`.",
        f"- `{FIGURE_NAME}`: the figure ({drawn}).",
        "- `D1/u1/...`: each fold's qrels, score files, runs (depth 50), predictions, `trecrs eval` outputs and "
        "`trecrs audit` findings (`audit.*.json`), each with its `.manifest.json`; `log.txt` holds every command's report.",
        "",
        f"![Figure 2 reproduced]({FIGURE_NAME})",
        "",
    ]
