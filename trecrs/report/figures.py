"""Figures of the reports, drawn without a display and saved reproducibly (same data, same PNG bytes)."""

from __future__ import annotations

from pathlib import Path

from ..files.output import atomic_path


def pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend (imported on demand: matplotlib is slow to
    import and only the reports need it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: Path) -> None:
    """Save ``fig`` atomically as a PNG without the Software metadata (which names the version), or as a
    PDF (a ``.pdf`` path) without its creation date, so the same figure gives the same bytes."""
    pdf = Path(path).suffix.lower() == ".pdf"
    with atomic_path(path) as tmp:
        if pdf:
            fig.savefig(tmp, format="pdf", metadata={"CreationDate": None, "Producer": None})
        else:
            fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
    pyplot().close(fig)
