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


#: The metadata each format would fill with the version or the time: left out, so that the same figure
#: gives the same bytes (PNG: Software; PDF: Creator and Producer, which name the versions, and CreationDate).
_NO_METADATA = {"png": {"Software": None}, "pdf": {"Creator": None, "Producer": None, "CreationDate": None}}


def save_figure(fig, path: Path) -> None:
    """Save ``fig`` atomically as a PNG (a ``.pdf`` path: a PDF), without the metadata that changes from
    one run or version to the next: the same figure gives the same bytes. ``-`` (standard output) is
    refused (:class:`~trecrs.errors.UsageError`)."""
    fmt = "pdf" if Path(path).suffix.lower() == ".pdf" else "png"
    with atomic_path(path, binary="a figure") as tmp:
        fig.savefig(tmp, format=fmt, dpi=110, metadata=_NO_METADATA[fmt])
    pyplot().close(fig)
