"""The five-fold table of the Bellogín et al. (2011) report, through ``trecrs study``.

The pipeline (:mod:`.pipeline`) writes one study file per methodology (``OUT/study/{TR_3,...}.tsv``:
the three recommenders' runs of every fold, with the folds' test and training sizes) and ``trecrs study``'s
JSON beside it (``.json``): each recommender's mean over the folds of each split (the ``mean`` rows of
results.tsv) with its t interval, the corrected resampled t test against SVD50 over the folds, and the
average ranks across the splits (docs/study.md).
"""

from __future__ import annotations

import json
from pathlib import Path

from ...report.study import from_dict
from ...report.study_output import format_markdown
from .constants import METHODOLOGIES


def study_section(out: Path) -> list[str]:
    """Each methodology's table as ``trecrs study`` prints it in Markdown; nothing when none was written."""
    lines = []
    for m in METHODOLOGIES:
        path = out / "study" / f"{m}.json"
        if path.is_file():
            lines += [
                f"### {m}",
                "",
                format_markdown(from_dict(json.loads(path.read_text(encoding="utf-8")))),
            ]
    if not lines:
        return []
    return [
        "## Five-fold table (`trecrs study`, docs/study.md)",
        "",
        "Mean over the folds of each split ± the half-width of the 95% t interval; * where Nadeau & Bengio's "
        "corrected resampled t test over the folds (their training sets overlap) against SVD50 gives p < 0.05; "
        "average ranks across the splits.",
        "",
        *lines,
    ]
