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


def figure(**subplots):
    """A matplotlib Figure and its axes (``Figure.subplots(**subplots)``), made without pyplot.

    No backend is chosen or switched, so a notebook keeps its own (``pyplot()`` would set Agg for the whole
    session), and pyplot does not hold the figure: a cell that returns it shows it once, and nothing has
    to be closed. Saving still renders with Agg (:func:`save_figure`); matplotlib is imported here.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=subplots.pop("figsize", None))
    return fig, fig.subplots(**subplots)


def finish(fig, path=None):
    """``fig``, saved first to ``path`` when one is given (:func:`save_figure`): what every ``plot`` returns."""
    if path is not None:
        save_figure(fig, Path(path))
    return fig


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
    if fig.canvas.manager is not None:  # a pyplot figure; one of figure() is not held by pyplot
        pyplot().close(fig)
