"""Figure 2 of Bellogín et al. (2011), redrawn from our results; the published D1 bars as black ticks when
they are compared."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from ...report.figures import pyplot, save_figure
from .constants import METHODOLOGIES, METRICS, RECOMMENDERS, SPLITS
from .results import present, value

COLOURS = {"SVD50": "#1f4e79", "IB": "#c0504d", "UB50": "#9bbb59"}
PANELS = (*METRICS.values(), "RMSE")
TITLE = "Bellogín, Castells & Cantador (RecSys 2011), Figure 2 – reproduced with trecrs (mean over folds)"


def plot(results: pl.DataFrame, reference: pl.DataFrame | None, path: Path) -> None:
    """Figure 2 of the paper: per split a row of panels (P@50, Recall@50, nDCG@50: bars grouped by
    methodology, one bar per recommender; RMSE: one bar per recommender); the published D1 bars as black
    ticks when ``reference`` is given (only then: the report's text says so only then too)."""
    plt = pyplot()
    splits = present(results, "split", SPLITS)
    recs = present(results, "recommender", RECOMMENDERS)
    fig, axes = plt.subplots(
        len(splits),
        4,
        figsize=(15, 3.6 * len(splits)),
        squeeze=False,
        gridspec_kw={"width_ratios": [3, 3, 3, 1.2]},
    )
    width = 0.8 / max(1, len(recs))
    for row, split in enumerate(splits):
        for col, metric in enumerate(PANELS):
            ax = axes[row][col]
            published = reference if split == "D1" else None
            _bars(ax, results, published, split, metric, recs, width)
            _axes(ax, split, metric, recs, width)
    _legend(axes[0][0], reference is not None)
    fig.suptitle(TITLE, fontsize=11)
    fig.tight_layout()
    save_figure(fig, path)


def _published(reference: pl.DataFrame, split: str, metric: str, meth: str, rec: str) -> float | None:
    p = reference.filter(
        (pl.col("split") == split)
        & (pl.col("metric") == metric)
        & (pl.col("methodology") == meth)
        & (pl.col("recommender") == rec)
    ).get_column("published")
    return float(p[0]) if p.len() else None


def _bars(ax, results, reference, split: str, metric: str, recs: list[str], width: float) -> None:
    """One panel's bars (one per recommender and methodology) and the published values as ticks."""
    meths = METHODOLOGIES if metric != "RMSE" else ("-",)
    for k, rec in enumerate(recs):
        xs = [j + (k - (len(recs) - 1) / 2) * width for j in range(len(meths))]
        ys = [value(results, split, rec, meth, metric) for meth in meths]
        ax.bar(xs, ys, width=width * 0.95, color=COLOURS.get(rec, "grey"), label=rec)
        if reference is None:
            continue
        for x, meth in zip(xs, meths, strict=True):
            p = _published(reference, split, metric, meth, rec)
            if p is not None:
                ax.plot([x - width * 0.45, x + width * 0.45], [p] * 2, color="black", lw=1.6)


def _axes(ax, split: str, metric: str, recs: list[str], width: float) -> None:
    """Ticks, title and grid of one panel; the RMSE axis as the paper's, from 0.8 unless a bar is lower."""
    if metric == "RMSE":
        offsets = [(k - (len(recs) - 1) / 2) * width for k in range(len(recs))]
        ax.set_xticks(offsets)
        ax.set_xticklabels(recs, fontsize=8)
    else:
        ax.set_xticks(range(len(METHODOLOGIES)))
        ax.set_xticklabels(METHODOLOGIES)
    ax.set_title(f"{split} – {metric}", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    if metric == "RMSE":
        # the paper's axis starts at 0.8; go lower when a bar would otherwise vanish below it
        heights = [b.get_height() for b in ax.patches if b.get_height() > 0]
        low = min([0.8, *(math.floor(h * 10 - 0.5) / 10 for h in heights)])
        ax.set_ylim(max(0.0, low), max(1.3, ax.get_ylim()[1]))


def _legend(ax, with_reference: bool) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if with_reference:
        from matplotlib.lines import Line2D

        handles.append(Line2D([0], [0], color="black", lw=1.6))
        labels.append("published (D1)")
    ax.legend(handles, labels, fontsize=8, loc="upper right")
