"""``trecrs.report.markdown``: a table cell holding free text keeps its ``|`` (the Bellogín report's evidence)."""

from __future__ import annotations

import re

from trecrs.report.markdown import findings_table, md_escape
from trecrs.reproductions.bellogin2011.findings import tri_equals_ai


def cells(table: str) -> list[list[str]]:
    """The cells of each row of a Markdown table, split where GitHub Flavored Markdown splits them (at
    every ``|`` not escaped)."""
    rows = [line.strip() for line in table.splitlines() if line.startswith("|")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]


class _Means:
    """Two methodologies with the same means: the SplitMeans a rule reads (recommenders, then values)."""

    recs = ["IB", "SVD50"]

    def __call__(self, rec: str, methodology: str, metric: str) -> float:
        return 0.25


def test_md_escape():
    assert md_escape("max |TrI - AI| = 0") == r"max \|TrI - AI\| = 0"
    assert md_escape("two\nlines") == "two lines"


def test_the_evidence_of_a_finding_stays_in_its_cell():
    finding = tri_equals_ai(_Means())  # type: ignore[arg-type]
    assert finding.evidence == "max |TrI - AI| = 0 over recommenders and metrics"
    rows = cells(findings_table([finding]))
    assert [len(r) for r in rows] == [3, 3, 3]
    assert rows[2] == [finding.claim, "**holds**", r"max \|TrI - AI\| = 0 over recommenders and metrics"]
