"""The spread of each metric across the libraries: ours on the left, the paper's on the right.

Each point is one library's value divided by the median of that metric over the libraries computing it,
so metrics of different scales share an axis: a metric every library agrees on is one point at 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from ...report.figures import figure, save_figure
from .constants import METRICS
from .published import PUBLISHED, published_value

TITLE = "Tamm, Damdinov & Vasilev (RecSys 2021) – one top-20 list, each library's definition"
MARKERS = "o^sDvP*Xph<>d8H"


def _relative(values: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """library -> metric -> value / the metric's median over the libraries (metrics with a nonzero median)."""
    out: dict[str, dict[str, float]] = {lib: {} for lib in values}
    for metric in METRICS:
        col = {lib: v[metric] for lib, v in values.items() if metric in v}
        median = float(np.median(list(col.values()))) if col else 0.0
        for lib, v in col.items():
            if median > 0:
                out[lib][metric] = v / median
    return out


def _panel(ax, values: dict[str, dict[str, float]], title: str) -> None:
    rel = _relative(values)
    for n, (lib, by_metric) in enumerate(rel.items()):
        xs = [METRICS.index(m) + (n - len(rel) / 2) * 0.03 for m in by_metric]
        ax.scatter(xs, list(by_metric.values()), marker=MARKERS[n % len(MARKERS)], s=28, label=lib, alpha=0.8)
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_xticks(range(len(METRICS)), METRICS, rotation=35, ha="right", fontsize=8)
    ax.set(title=title, ylabel="value / median over the libraries", yscale="log")
    ax.title.set_fontsize(10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)


def plot(results: pl.DataFrame, path: Path, data_label: str) -> None:
    """Draw and save the two panels (``results``: library, metric, value; null values left out)."""
    ours: dict[str, dict[str, float]] = {}
    for lib, metric, value in results.select("library", "metric", "value").iter_rows():
        if value is not None:
            ours.setdefault(lib, {})[metric] = value
    paper = {lib: {m: v for m in METRICS if (v := published_value(lib, m)) is not None} for lib in PUBLISHED}
    fig, axes = figure(ncols=2, figsize=(13, 5.5), sharey=True)
    _panel(axes[0], ours, f"trecrs dialects, EASE on {data_label}")
    _panel(axes[1], paper, "published (res_full.csv), EASE on MovieLens 20M")
    fig.suptitle(TITLE, fontsize=11)
    fig.tight_layout()
    save_figure(fig, path)
