"""Figures 2-5 of Cremonesi et al. (2010) on MovieLens, redrawn from our results in one image."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ...report.figures import pyplot, save_figure
from .constants import TESTSETS

STYLES = {  # recommender -> (colour, marker)
    "TopPop": ("#7f7f7f", "o"),
    "MovieAvg": ("#bcbd22", "v"),
    "CorNgbr": ("#2ca02c", "s"),
    "NNCosNgbr": ("#17becf", "D"),
    "PureSVD50": ("#d62728", "^"),
    "PureSVD150": ("#1f77b4", "x"),
}
TITLE = "Cremonesi, Koren & Turrin (RecSys 2010) – reproduced with trecrs"


def plot(res: pl.DataFrame, path: Path) -> None:
    """Recall@N (N = 1..20) and precision vs recall, full and long-tail test sets (the paper's Figures 2-5)."""
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11, 8.5))
    for row, testset in enumerate(TESTSETS):
        part = res.filter(pl.col("testset") == testset)
        for rec in part.get_column("recommender").unique(maintain_order=True).to_list():
            r = part.filter(pl.col("recommender") == rec).sort("N")
            colour, marker = STYLES.get(rec, ("black", "."))
            axes[row][0].plot(r["N"], r["recall"], color=colour, marker=marker, ms=4, lw=1.3, label=rec)
            axes[row][1].plot(
                r["recall"], r["precision"], color=colour, marker=marker, ms=4, lw=1.3, label=rec
            )
        title = "all test items" if testset == "full" else "long tail (short head = 33% of ratings removed)"
        axes[row][0].set(xlabel="N", ylabel="recall(N)", title=f"recall at N – {title}", xlim=(0, 21))
        axes[row][0].set_xticks([1, 5, 10, 15, 20])
        axes[row][1].set(xlabel="recall(N)", ylabel="precision(N)", title=f"precision vs recall – {title}")
        for ax in axes[row]:
            ax.grid(alpha=0.3)
            ax.title.set_fontsize(10)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(TITLE, fontsize=11)
    fig.tight_layout()
    save_figure(fig, path)
