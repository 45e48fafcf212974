"""Markdown and LaTeX pieces of the reports: numbers with a fixed number of digits, tables, the findings table,
the Markdown escape of a table cell, LaTeX escapes."""

from __future__ import annotations

import math
from collections.abc import Iterable

from .records import Finding

MISSING = "–"  # a value that could not be computed (absent or NaN)


def fmt(v: float | None, digits: int = 3) -> str:
    """``v`` with ``digits`` decimals, or an en dash when it is missing or NaN."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return MISSING
    return f"{v:.{digits}f}"


def signed(v: float | None, digits: int = 3) -> str:
    """``v`` with its sign and ``digits`` decimals, or an en dash when it is missing or NaN."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return MISSING
    return f"{v:+.{digits}f}"


def md_escape(text: str) -> str:
    """``text`` made one Markdown table cell: ``|`` escaped as ``\\|`` and line breaks as spaces.

    GitHub Flavored Markdown splits a row at every unescaped ``|``, inside code spans too (GFM spec,
    "Tables (extension)": a pipe in a cell is written ``\\|``), so free text (evidence such as
    ``max |a - b| = 0``, examples, run names) is escaped wherever it goes into a cell.

    >>> md_escape("max |TrI - AI| = 0")
    'max \\\\|TrI - AI\\\\| = 0'
    """
    return text.replace("\r\n", " ").replace("\n", " ").replace("|", "\\|")


def md_table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """A Markdown table; ``align`` has one letter per column, ``l`` left or ``r`` right (default: the
    first column left, the others right)."""
    align = align or ("l" + "r" * (len(header) - 1))
    marks = ["---" if a == "l" else "--:" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def findings_table(findings: Iterable[Finding]) -> str:
    """The claims, our verdict on each and its evidence, as a Markdown table."""
    rows = [
        [md_escape(f.claim), "**holds**" if f.holds else "**does not hold**", md_escape(f.evidence)]
        for f in findings
    ]
    return md_table(["claim", "ours", "evidence"], rows, "lll")


_LATEX_SPECIAL = {
    "–": "--",
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (ids and measure names: ``P_10``, ``run#2``); the en dash
    of a missing value as ``--``."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)
