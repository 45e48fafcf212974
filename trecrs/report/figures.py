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


# Per format, the metadata left out so that the same figure gives the same bytes: the version (PNG's
# Software) and the time of writing (PDF's CreationDate).
_METADATA = {"png": {"Software": None}, "pdf": {"CreationDate": None}}


def save_figure(fig, path: Path) -> None:
    """Save ``fig`` atomically as a PNG, or a PDF when ``path`` ends in ``.pdf``, reproducibly (same
    figure, same bytes: no version or date in the metadata)."""
    fmt = "pdf" if Path(path).suffix.lower() == ".pdf" else "png"
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=110, metadata=_METADATA[fmt])
    pyplot().close(fig)
