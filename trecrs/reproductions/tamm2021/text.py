"""The Markdown report of the Tamm et al. (2021) reproduction, one function per section."""

from __future__ import annotations

import os

import polars as pl

from ..._version import __version__
from ...report.markdown import MISSING, findings_table, fmt, md_escape, md_table
from ...report.records import RESULTS_NAME, Finding
from .constants import FIGURE_NAME, LIBRARIES, METRICS, NOT_REPRODUCED, REGULARIZATION, RELEVANT_RATING, SPLIT
from .findings import CLAIMS
from .published import PUBLISHED, SOURCE

NOT_AVAILABLE = "n/a†"  # the library defines the metric, this version of trecrs has no name for it yet


def markdown(
    results: pl.DataFrame,
    findings: list[Finding],
    counts: dict[str, int],
    runtime: float | None,
    data: str | None,
) -> str:
    """The whole report: header, method, our table, the published table, findings, names, files."""
    lines = _header(runtime, data) + _method(counts)
    lines += ["## Each library's value of the same top-20 list", "", _ours(results), _legend(results), ""]
    lines += ["## Published (MovieLens 20M)", "", f"Source: {SOURCE}.", "", _published(), ""]
    scope = (
        "Each claim is checked over the libraries the paper measured that are computed here; the table above "
        "also has libraries the paper did not measure. A claim a library's later definition change undoes "
        "says which change."
    )
    lines += ["## Findings of the paper", "", scope, "", findings_table(findings)]
    lines += _unchecked(findings) + _names() + _not_reproduced() + _files()
    return "\n".join(lines)


def _header(runtime: float | None, data: str | None) -> list[str]:
    lines = [
        "# Reproduction: Tamm, Damdinov & Vasilev (RecSys 2021), do we calculate metrics consistently?",
        "",
        f"trecrs {__version__}. Data: `{data or '?'}`.",
        "",
    ]
    if runtime is not None:
        lines += [f"**Runtime:** {runtime:.1f} s for the whole reproduction on {os.cpu_count()} core(s).", ""]
    return lines


def _method(c: dict[str, int]) -> list[str]:
    return [
        "## How the numbers were made",
        "",
        f"- Split (`trecrs split --method {SPLIT['method']} --ratio {SPLIT['ratio']}`): the latest "
        f"{float(SPLIT['ratio']):.0%} of the {c.get('ratings', 0):,} ratings are the test period "
        f"({c.get('train', 0):,} training, {c.get('test', 0):,} test ratings of {c.get('test_users', 0)} users, "
        f"{c.get('warm_test_users', 0)} of whom have training ratings).",
        f"- Relevant: a test rating of {RELEVANT_RATING:g} by a user with training ratings "
        f"({c.get('relevant', 0):,} ratings of {c.get('users', 0)} users, the users evaluated; "
        f"{c.get('relevant_unseen_items', 0)} of them of items without training ratings, which no list can hold).",
        f"- EASE (`trecrs recommend -a ease -p regularization={REGULARIZATION}`, Steck 2019) on the binary "
        "training matrix ranks every training item the user has not rated (`trecrs candidates --methodology "
        f"training-items`): one run of {c.get('ranked', 0):,} (user, item) pairs, ranked by trec_eval's order.",
        "- That one run is scored under each library's definition of each metric by its trecrs dialect name "
        "(`trecrs eval -m NAME`, table below): @20 names read the first 20 items, AUC the whole ranking.",
        "- The paper used MovieLens 20M (relevant: rating >= 4.5) and the same EASE code: the values differ "
        "from ours; which libraries agree, and the findings, are what is compared.",
        "",
    ]


def _cell(results: pl.DataFrame, library: str, metric: str) -> str:
    row = results.filter((pl.col("library") == library) & (pl.col("metric") == metric))
    if row.height == 0:
        return MISSING
    value, status = row.row(0)[3], row.row(0)[4]
    return fmt(value, 4) if value is not None else (NOT_AVAILABLE if status != "computed" else MISSING)


def _ours(results: pl.DataFrame) -> str:
    libs = [lib.label for lib in LIBRARIES]
    rows = [[m, *(_cell(results, lib, m) for lib in libs)] for m in METRICS]
    return md_table(["metric", *libs], rows)


def _legend(results: pl.DataFrame) -> str:
    missing = results.filter(pl.col("status") != "computed").get_column("measure").to_list()
    text = f"{MISSING}: the library has no such metric."
    if missing:
        text += f" {NOT_AVAILABLE}: not available in this version ({', '.join(f'`{n}`' for n in missing)})."
    return text


def _published() -> str:
    libs = list(PUBLISHED)
    rows = [[m, *(_published_cell(PUBLISHED[lib][m]) for lib in libs)] for m in METRICS]
    return md_table(["metric", *(lib.replace("_", " ") for lib in libs)], rows)


def _published_cell(text: str) -> str:
    """A published value with four decimals (the authors' ``*`` kept), a failure as written, "-" as missing."""
    if text == "-":
        return MISSING
    try:
        return fmt(float(text.rstrip("*")), 4) + ("*" if text.endswith("*") else "")
    except ValueError:
        return md_escape(text)


def _unchecked(findings: list[Finding]) -> list[str]:
    done = {f.claim for f in findings}
    rest = [c for c in CLAIMS if c not in done]
    if not rest:
        return [""]
    return [
        "",
        "Not checked (the libraries they compare are not available in this version): "
        + "; ".join(md_escape(c) for c in rest)
        + ".",
        "",
    ]


def _names() -> list[str]:
    rows = [[lib.label, ", ".join(f"`{n}`" for n in lib.names.values())] for lib in LIBRARIES]
    return ["## The measure names", "", md_table(["library", "trecrs names"], rows, "ll"), ""]


def _not_reproduced() -> list[str]:
    rows = [[lib, md_escape(why)] for lib, why in NOT_REPRODUCED.items()]
    return ["## Libraries of the paper not reproduced", "", md_table(["library", "why"], rows, "ll"), ""]


def _files() -> list[str]:
    return [
        "## Files",
        "",
        f"- `{RESULTS_NAME}`: library, metric, measure name, value, status (one line per cell).",
        f"- `{FIGURE_NAME}`: the spread of each metric across the libraries, ours and the paper's.",
        "",
    ]
