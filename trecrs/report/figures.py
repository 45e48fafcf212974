"""Figures of the reports, drawn without a display and saved reproducibly (same data, same PNG bytes)."""

from __future__ import annotations

import sys
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
    to be closed. Saving still renders with Agg (:func:`save_figure`); matplotlib is imported here. In
    IPython the figure is shown as an image (:func:`show_in_ipython`).
    """
    from matplotlib.figure import Figure

    show_in_ipython(Figure)
    fig = Figure(figsize=subplots.pop("figsize", None))
    return fig, fig.subplots(**subplots)


def show_in_ipython(figure_class: type) -> None:
    """Let a running IPython shell show a Figure that pyplot does not hold as a PNG image, as
    ``%matplotlib inline`` shows pyplot's.

    IPython shows an object as an image through a formatter registered for its type; matplotlib's inline
    backend registers one for ``Figure`` only when pyplot is imported (``select_figure_formats`` in
    ``IPython/core/pylabtools.py``), so without pyplot a returned figure would print as its text repr.
    A formatter already registered for ``Figure`` (``%matplotlib inline``, ``InlineBackend.figure_formats``
    or the user's own) is left as it is. IPython is never imported here: without a running shell nothing
    happens. The formatter keeps no figure, and saved figures (:func:`save_figure`) are unchanged.
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    formatters = getattr(getattr(shell, "display_formatter", None), "formatters", None)
    if not formatters or "image/png" not in formatters:
        return
    for formatter in formatters.values():
        try:
            formatter.lookup_by_type(figure_class)
            return
        except KeyError:
            continue
    formatters["image/png"].for_type(figure_class, _png_for_ipython)


def _png_for_ipython(fig):
    """The PNG IPython shows for ``fig`` (base64, as the inline backend's, ``bbox_inches="tight"``); nothing
    for a figure pyplot holds, which its own backend shows."""
    from IPython.core.pylabtools import print_figure

    return None if fig.canvas.manager is not None else print_figure(fig, "png", base64=True)


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
