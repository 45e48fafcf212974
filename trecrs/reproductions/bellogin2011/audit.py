"""The audit section of the Bellogín et al. (2011) report: what ``trecrs audit`` found in each fold.

Read from ``OUT/{split}/{fold}/audit.TR.json`` (the TestRatings runs against TR_4's qrels) and
``audit.AI.json`` (the AllItems runs against every test rating at ``-l 4``, baselines over the AllItems
candidates), written by the pipeline (:mod:`.pipeline`; docs/audit.md defines each finding).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from ...report.markdown import fmt, md_escape, md_table
from .constants import SPLITS

AUDITS = {"TR": "audit.TR.json", "AI": "audit.AI.json"}
_SEVERITY = {"error": 0, "warning": 1, "info": 2}


def audit_rows(out: Path) -> pl.DataFrame:
    """One row per finding of every fold's audits (runs named by their file name)."""
    rows = []
    for split, folds in SPLITS.items():
        for fold in folds:
            for label, name in AUDITS.items():
                path = out / split / fold / name
                if not path.is_file():
                    continue
                for f in json.loads(path.read_text(encoding="utf-8"))["findings"]:
                    rows.append(
                        {
                            "split": split,
                            "fold": fold,
                            "runs": label,
                            "id": f["id"],
                            "severity": f["severity"],
                            "run": Path(f["run"]).name if f.get("run") else "",
                            "measure": f.get("measure", ""),
                            "count": f["count"],
                            "of": f["of"],
                            "example": f["example"],
                            "detectable": f.get("values", {}).get("detectable_difference"),
                        }
                    )
    return pl.DataFrame(
        rows,
        schema={
            "split": pl.Utf8,
            "fold": pl.Utf8,
            "runs": pl.Utf8,
            "id": pl.Utf8,
            "severity": pl.Utf8,
            "run": pl.Utf8,
            "measure": pl.Utf8,
            "count": pl.Int64,
            "of": pl.Int64,
            "example": pl.Utf8,
            "detectable": pl.Float64,
        },
    )


def audit_section(out: Path) -> list[str]:
    """The findings over the folds of each split (worst first), and the differences the folds can detect."""
    rows = audit_rows(out)
    if not rows.height:
        return []
    lines = ["## Audit of every fold (`trecrs audit`, docs/audit.md)", ""]
    return lines + _findings_table(rows) + _power_table(rows)


def _findings_table(rows: pl.DataFrame) -> list[str]:
    """The findings other than power, one row per (split, runs, finding, run, measure) over the folds."""
    found = rows.filter((pl.col("count") > 0) & (pl.col("id") != "power"))
    keys = ["split", "runs", "id", "run", "measure"]
    table = (
        found.group_by(keys, maintain_order=True)
        .agg(
            pl.col("severity").first(),
            pl.len().alias("folds"),
            pl.col("count").sum(),
            pl.col("of").sum(),
            pl.col("example").first(),
        )
        .sort(pl.col("severity").replace_strict(_SEVERITY, return_dtype=pl.Int64), *keys)
    )
    if not table.height:
        return ["No finding in any fold.", ""]
    body = [
        [
            r["severity"],
            r["split"],
            r["runs"],
            f"`{r['id']}`",
            md_escape(r["run"]),
            r["measure"],
            f"{r['folds']} of {len(SPLITS[r['split']])}",
            f"{r['count']} of {r['of']}",
            md_escape(r["example"] or ""),
        ]
        for r in table.iter_rows(named=True)
    ]
    header = [
        "severity",
        "split",
        "runs",
        "finding",
        "run",
        "measure",
        "folds",
        "count (all folds)",
        "example",
    ]
    return [md_table(header, body, "llllllrrl"), ""]


def _power_table(rows: pl.DataFrame) -> list[str]:
    """The smallest difference each split's folds can detect, per runs and measure (the power finding)."""
    power = (
        rows.filter(pl.col("id") == "power")
        .group_by("split", "runs", "measure", maintain_order=True)
        .agg(
            pl.col("count").mean().alias("users"),
            pl.col("detectable").min().alias("low"),
            pl.col("detectable").max().alias("high"),
        )
    )
    if not power.height:
        return []
    body = [
        [
            r["split"],
            r["runs"],
            r["measure"],
            f"{r['users']:.0f}",
            f"{fmt(r['low'], 4)} to {fmt(r['high'], 4)}",
        ]
        for r in power.iter_rows(named=True)
    ]
    return [
        "The smallest difference a paired t test detects between two runs of a fold (alpha 0.05, power "
        "0.8, the runs' own spread): ",
        "",
        md_table(["split", "runs", "measure", "users (mean)", "detectable difference"], body, "lllrr"),
        "",
    ]
