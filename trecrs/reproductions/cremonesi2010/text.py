"""The Markdown report of the Cremonesi et al. (2010) reproduction, one function per section."""

from __future__ import annotations

import os

import polars as pl

from ..._version import __version__
from ...report.markdown import findings_table, fmt, md_table
from ...report.records import RESULTS_NAME, Finding
from .constants import FIGURE_NAME, RESULTS_COLUMNS, TESTSETS
from .results import recall

TABLE_CUTOFFS = (1, 5, 10, 15, 20)


def markdown(
    res: pl.DataFrame,
    findings: list[Finding],
    n_cases: dict[str, int],
    runtime: float | None,
    data: str | None,
) -> str:
    """The whole report: header, method, test set sizes, findings, recall tables, files."""
    lines = _header(runtime, data) + _method()
    if n_cases:
        lines += [_counts(n_cases), ""]
    lines += ["## Findings of the paper", "", findings_table(findings)]
    for testset in TESTSETS:
        lines += _recall_table(res, testset)
    return "\n".join(lines + _files())


def _header(runtime: float | None, data: str | None) -> list[str]:
    lines = [
        "# Reproduction: Cremonesi, Koren & Turrin (RecSys 2010), recall and precision at N",
        "",
        f"trecrs {__version__}. Data: `{data or '?'}`.",
        "",
    ]
    if runtime is not None:
        lines += [f"**Runtime:** {runtime:.0f} s for the whole pipeline on {os.cpu_count()} core(s).", ""]
    return lines


def _method() -> list[str]:
    return [
        "## How the numbers were made",
        "",
        "- Split (`trecrs split --method probe`): a random 1.4% of the ratings is the probe set; the test set T "
        "is its 5-star ratings; training = every rating outside the probe.",
        "- One-Plus-Random (`trecrs candidates --methodology one-plus-random`): for each test rating (u, i), "
        "i and 1,000 items u has not rated, drawn at random (seeded per (user, item)); the recommender ranks "
        "the 1,001 items; a hit when i is among the first N.",
        "- recall(N) = #hits / |T| (trec_eval's recall_N averaged over the test cases, `-c`); "
        "precision(N) = recall(N) / N, the paper's definition.",
        "- Long tail: the test cases whose item is outside the short head (the most popular items that hold "
        "33% of the training ratings); same runs, qrels restricted (`trecrs qrels --long-tail 0.33`).",
        "- Recommenders (`trecrs recommend`): TopPop (number of ratings), MovieAvg (mean rating), CorNgbr "
        "(eq. 1) and NNCosNgbr (eq. 2) with k = 200 neighbours and shrinkage 100, PureSVD with 50 and 150 "
        "factors (eq. 6). Items a model cannot score (MovieAvg: no training rating) rank last; ties follow "
        "trec_eval's order (item id descending).",
        "",
    ]


def _counts(n_cases: dict[str, int]) -> str:
    return "Test set: " + ", ".join(f"{n:,} test cases ({t})" for t, n in n_cases.items()) + "."


def _recall_table(res: pl.DataFrame, testset: str) -> list[str]:
    part = res.filter(pl.col("testset") == testset)
    recs = part.get_column("recommender").unique(maintain_order=True).to_list()
    rows = [[rec] + [fmt(recall(res, testset, rec, n)) for n in TABLE_CUTOFFS] for rec in recs]
    header = ["recommender", *(f"N={n}" for n in TABLE_CUTOFFS)]
    return [f"## recall(N), {testset} test set", "", md_table(header, rows)]


def _files() -> list[str]:
    return [
        "## Files",
        "",
        f"- `{RESULTS_NAME}`: columns `{' '.join(RESULTS_COLUMNS)}` for N = 1..20.",
        f"- `{FIGURE_NAME}`: recall at N and precision vs recall, full and long-tail test sets.",
        "",
        f"![recall and precision]({FIGURE_NAME})",
        "",
    ]
