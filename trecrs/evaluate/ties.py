"""The tie report: one warning per run when trec_eval's order of tied documents decides a value.

trec_eval breaks a score tie by document id (:mod:`trecrs.ordering`); when the documents tied with the one
at a cutoff asked for (``P.10``, ``ndcg_cut.50``, ``HR@10``) also stand below it, which of them count is
that arbitrary order's choice. :func:`warn_ties` says in how many queries that happens, cutoff by cutoff,
and between which means each tie-aware measure lies over every order of the tied documents (the means of
the per-query ``--ties best`` and ``--ties worst`` values, averaged as the summary is). Nothing is said when
no tie straddles a cutoff; under ``-M`` the range is left out (``--ties best/worst`` give it); ``-Z``
values are not reported.
"""

from __future__ import annotations

import polars as pl

from ..engines.base import TieReport
from ..errors import warn
from ..schema import QUERY
from .finalize import summarize
from .result import Evaluation


def warn_ties(ev: Evaluation, report: TieReport | None) -> None:
    """One :class:`~trecrs.errors.TrecrsWarning` with the counts and the ranges (module docstring)."""
    if report is None or ev.zscores or not any(report.straddled.values()):
        return
    n = ev.per_query.height
    where = "; ".join(f"cutoff {k} in {c:,} of {n:,} queries ({100 * c / n:.1f}%)"
                      for k, c in report.straddled.items() if c)  # fmt: skip
    ranges = _ranges(ev, report)
    if ranges:
        tail = ", ".join(f"{name} lies between {lo:.4f} and {hi:.4f}" for name, lo, hi in ranges)
        tail += " over tie orders (--ties best/worst)"
    elif report.parts:  # values computed: no mean moves in its fourth decimal
        tail = "no mean moves in its fourth decimal over tie orders (--ties best/worst)"
    else:
        tail = "the values depend on trec_eval's order of the tied documents (--ties best/worst give their range)"
    warn(f"ties straddle {where}: {tail}")


def _ranges(ev: Evaluation, report: TieReport) -> list[tuple[str, float, float]]:
    """(printed name, worst mean, best mean) of each column at a straddled cutoff whose printed mean the
    orders move, in the summary's order."""
    best, worst = report.extremes()
    cut = {f"_{k}" for k, c in report.straddled.items() if c}
    columns = [c for c in best.columns if c != QUERY and c in ev.summary and c[c.rfind("_") :] in cut]
    if not columns or best.height == 0:
        return []
    means = {}
    for side, extreme in (("best", best), ("worst", worst)):
        frame = ev.per_query.select(QUERY, *columns)
        values = extreme.select(QUERY, *columns)
        frame = frame.join(values, on=QUERY, how="left", suffix="__r", maintain_order="left").select(
            QUERY, *[pl.coalesce(f"{c}__r", c).alias(c) for c in columns])  # fmt: skip
        means[side] = summarize(frame, ev.num_q)
    out = []
    for c in (c for c in ev.summary if c in columns):
        lo, hi = means["worst"][c], means["best"][c]
        if f"{lo:.4f}" != f"{hi:.4f}":
            out.append((ev.printed_names(c)[0], lo, hi))
    return out
