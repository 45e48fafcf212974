"""What a notebook shows of a result: HTML tables (``_repr_html_``) and the per-query distribution figure.

Jupyter shows an object by its ``_repr_html_`` when it has one (IPython's display protocol); every string
that comes from the data (run names, measure names, query ids) is escaped with :func:`html.escape`.
:func:`evaluation_html` and :func:`plot_distribution` are what ``EvaluationResult._repr_html_`` and
``EvaluationResult.plot`` call, registered by ``trecrs/__init__.py`` in :mod:`trecrs.evaluate.formats`
(the evaluate layer sits below this one and cannot import it).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..errors import UsageError
from ..evaluate.result import Evaluation
from ..schema import ALL
from .figures import figure, finish
from .trec import format_trec

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

    from ..files.output import PathLike


class Html(str):
    """Text that is HTML already (markup trecrs wrote around numbers it formatted): :func:`html_table`
    puts it in as it is; every other string is escaped."""


def _cell(text: object) -> str:
    return text if isinstance(text, Html) else html.escape(str(text))


def html_table(header: list[str], rows: list[list[str]], caption: str = "") -> str:
    """An HTML ``<table>``: the caption, a header row, one row per list; every string escaped
    (:func:`html.escape`) but :class:`Html` ones."""
    head = "".join(f"<th>{_cell(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>\n" for row in rows)
    title = f"<caption>{_cell(caption)}</caption>\n" if caption else ""
    return f"<table>\n{title}<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>\n"


def evaluation_html(ev: Evaluation) -> str:
    """An evaluation's summary as an HTML table: every ``all`` line ``trecrs eval`` prints (with user
    groups, the ``all:GROUP`` lines too), names and values exactly as printed (:func:`format_trec`); the
    run and its number of queries in the caption."""
    lines = [line.split("\t") for line in format_trec(ev).splitlines()]
    rows = [
        [name.rstrip() if query == ALL else f"{name.rstrip()} ({query})", value]
        for name, query, value in lines
        if name.rstrip() != "runid"
    ]
    return html_table(["measure", ALL], rows, caption=f"run {ev.runid}: {ev.per_query.height} queries")


# ------------------------------------------------------------------------------------------- figures


def _histogram(ax: Axes, values: np.ndarray, measure: str) -> Callable[..., object]:
    from matplotlib.ticker import MaxNLocator

    ax.hist(values, bins="auto", color="C0", edgecolor="white")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of queries
    ax.set_xlabel(measure)
    ax.set_ylabel("queries")
    return ax.axvline  # where the overall value is drawn: across the values' axis


def _box(ax: Axes, values: np.ndarray, measure: str) -> Callable[..., object]:
    ax.boxplot(values, widths=0.5, showfliers=False)
    # every query a point, spread sideways by a fixed seed: the same values give the same figure
    spread = np.random.default_rng(0).uniform(-0.15, 0.15, values.size)
    ax.plot(1 + spread, values, "o", color="C0", alpha=0.5, markersize=3)
    ax.set_xticks([])
    ax.set_ylabel(measure)
    return ax.axhline


#: How the per-query values are drawn, by ``kind``: ``hist`` a histogram (numpy's ``"auto"`` bins),
#: ``box`` a box plot (quartiles, whiskers at 1.5 IQR) over one point per query.
DISTRIBUTIONS = {"hist": _histogram, "box": _box}


def plot_distribution(
    values: ArrayLike,
    *,
    measure: str,
    runid: str,
    overall: float | None,
    kind: str = "hist",
    path: PathLike | None = None,
) -> Figure:
    """The per-query values of one measure of one run, drawn as ``kind`` (:data:`DISTRIBUTIONS`), with the
    ``overall`` value (trec_eval's ``all``) a dashed line: the Figure (one axes), saved to ``path`` (PNG,
    or PDF by the suffix, deterministic bytes: :func:`~trecrs.report.figures.save_figure`) when given."""
    if kind not in DISTRIBUTIONS:
        raise UsageError(
            f"kind {kind!r} is not a figure of per-query values; choose from {', '.join(DISTRIBUTIONS)}",
            arguments=["kind"],
        )
    values = np.asarray(values, dtype=np.float64)
    fig, ax = figure(figsize=(5.0, 3.2))
    across = DISTRIBUTIONS[kind](ax, values, measure)
    if overall is not None:
        across(overall, color="black", linestyle="dashed", linewidth=1, label=f"{ALL}: {overall:.4f}")
        ax.legend(fontsize=8)
    ax.set_title(f"{runid}: {measure} over {values.size} queries", fontsize=9)
    fig.tight_layout()
    return finish(fig, path)
