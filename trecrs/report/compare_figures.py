"""The figures of a comparison (:mod:`trecrs.report.compare`): the differences to the baseline with their
CIs (``trecrs compare --plot``, ``Comparison.plot()``) and the precision-recall curves (``--pr-plot``,
``Comparison.plot_pr()``). Each returns the matplotlib Figure and saves it when given a path."""

from __future__ import annotations

import os

from ..measures.trec_eval import BY_NAME
from .figures import figure, finish

#: trec_eval's 11 standard recall levels (iprec_at_recall's defaults, ``m_iprec_at_recall.c``): where
#: :func:`trecrs.report.compare.precision_recall` takes the curves and where they are drawn.
RECALL_LEVELS = BY_NAME["iprec_at_recall"].defaults

# c is a trecrs.report.compare.Comparison, read by its attributes only: compare imports this module


def plot_comparison(c, path: str | os.PathLike | None = None):
    """Per measure, each system's mean difference to the baseline with its bootstrap CI as error bars, a
    zero line, significant differences (after the correction) filled, the others hollow: the Figure, one
    axes per measure, saved to ``path`` (``.png`` or ``.pdf``, deterministic bytes:
    :func:`trecrs.report.figures.save_figure`) when given."""
    systems = [s for s in c.systems if s != c.baseline]
    fig, axes = figure(
        nrows=1,
        ncols=len(c.measures),
        figsize=(3.2 * len(c.measures), 0.5 * len(systems) + 1.5),
        squeeze=False,
        sharey=True,
    )
    for ax, m in zip(axes[0], c.measures, strict=True):
        for y, s in enumerate(systems):
            r = c.row(m, s)
            err = [[r["delta"] - r["ci_low"]], [r["ci_high"] - r["delta"]]]
            ax.errorbar(
                [r["delta"]],
                [y],
                xerr=err,
                fmt="o",
                color="C0",
                capsize=3,
                markerfacecolor="C0" if c.significant(r) else "white",
            )
        ax.axvline(0.0, color="grey", linewidth=0.8)
        ax.set_title(m)
        ax.set_xlabel(f"difference to {c.baseline}")
        ax.set_yticks(range(len(systems)), systems)
    fig.suptitle(
        f"filled: significant ({c.settings.test}, {c.settings.correction}, alpha {c.settings.alpha:g}); "
        f"n = {c.n_queries}",
        fontsize=8,
    )
    fig.tight_layout()
    return finish(fig, path)


def plot_precision_recall(c, path: str | os.PathLike | None = None):
    """Each system's interpolated precision at the 11 standard recall levels (:attr:`Comparison.pr`), one
    line each, the baseline dashed: the Figure, saved to ``path`` (``.png`` or ``.pdf``, deterministic
    bytes: :func:`save_figure`) when given."""
    fig, ax = figure(figsize=(5.0, 4.0))
    for i, s in enumerate(c.systems):
        ax.plot(
            RECALL_LEVELS,
            c.pr[s],
            marker="o",
            markersize=3,
            color=f"C{i % 10}",
            linestyle="--" if s == c.baseline else "-",
            label=s + (" (baseline)" if s == c.baseline else ""),
        )
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.05)
    ax.legend(fontsize=8)
    ax.set_title(
        f"iprec_at_recall, mean over n = {c.n_queries} queries ({c.settings.query_rule})", fontsize=9
    )
    fig.tight_layout()
    return finish(fig, path)
