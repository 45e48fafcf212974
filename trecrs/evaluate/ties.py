"""The tie report: one warning per run when trec_eval's order of tied documents decides a value.

trec_eval breaks a score tie by document id (:mod:`trecrs.ordering`), an order that carries no information.
:func:`warn_ties` says, cutoff by cutoff (``P.10``, ``ndcg_cut.50``, ``HR@10``), in how many evaluated
queries tied documents of different relevance straddle it (the document at that rank is tied with the one
below it, in a group whose documents are not all alike: only then does the order move a value), and
between which means each requested measure with a ``--ties best/worst`` form lies over every order of the
tied documents (the means of the per-query ``--ties best`` and ``--ties worst`` values, averaged as the
summary is), naming those whose printed mean (four decimals) moves: cutoff measures and the others
(``map``, ``ndcg``, ``recip_rank``...), with the count of evaluated queries where a tie moves one of those
without a straddled cutoff. Without a straddled cutoff the warning is given when such a mean moves, with
that count. Under ``-M`` only the straddles are counted
(``--ties best/worst`` give the range); ``-Z`` values are not reported.
"""

from __future__ import annotations

import polars as pl

from ..engines.base import TieReport
from ..errors import warn
from ..schema import QUERY
from .finalize import summarize
from .result import Evaluation, RunWarning, share

#: the end of every tie warning that gives the ranges
OVER_ORDERS = "over tie orders (--ties best/worst)"


def warn_ties(ev: Evaluation, report: TieReport | None) -> None:
    """One :class:`~trecrs.evaluate.result.RunWarning` with the counts and the ranges (module docstring)."""
    if report is None or ev.zscores:
        return
    n = ev.per_query.height
    straddled = {k: c for k, c in report.straddled.items() if c}
    ranges, moved = _ranges(ev, report, straddled)
    if not straddled and not ranges:
        return
    if straddled:
        where = "; ".join(f"cutoff {k} in {share(c, n, 'evaluated queries')}" for k, c in straddled.items())
        head = f"tied documents of different relevance straddle {where}"
        if moved:  # a measure without a straddled cutoff moves wherever such a group stands: say where
            head += f"; ties anywhere in the lists move the other measures in {share(moved, n, 'evaluated queries')}"
    else:
        head = f"tied documents of different relevance move values in {share(moved, n, 'evaluated queries')}"
    if ranges:
        tail = ", ".join(f"{name} lies between {lo:.4f} and {hi:.4f}" for name, lo, hi in ranges)
        tail += f" {OVER_ORDERS}"
    elif report.parts:  # values computed: no mean moves in its fourth decimal
        tail = f"no mean moves in its fourth decimal {OVER_ORDERS}"
    else:
        tail = "the values depend on trec_eval's order of the tied documents (--ties best/worst give their range)"
    warn(RunWarning(f"{head}: {tail}"))


def _ranges(
    ev: Evaluation, report: TieReport, straddled: dict[int, int]
) -> tuple[list[tuple[str, float, float]], int]:
    """(printed name, worst mean, best mean) of each value whose printed mean the tie orders move, those at a
    straddled cutoff first, each group in the summary's order; and the evaluated queries where one of the
    others (no straddled cutoff: ``map``, ``ndcg``) moves."""
    best, worst = report.extremes()
    columns = [c for c in best.columns if c != QUERY and c in ev.summary]
    if not columns or best.height == 0:
        return [], 0
    means = {}
    for side, extreme in (("best", best), ("worst", worst)):
        frame = ev.per_query.select(QUERY, *columns)
        values = extreme.select(QUERY, *columns)
        frame = frame.join(values, on=QUERY, how="left", suffix="__r", maintain_order="left").select(
            QUERY, *[pl.coalesce(f"{c}__r", c).alias(c) for c in columns]
        )
        means[side] = summarize(frame, ev.num_q)
    moving = [
        c for c in ev.summary if c in columns and f"{means['worst'][c]:.4f}" != f"{means['best'][c]:.4f}"
    ]
    cut = tuple(f"_{k}" for k in straddled)
    moving.sort(key=lambda c: not c.endswith(cut))  # stable: the summary's order within each group
    uncut = [c for c in moving if not c.endswith(cut)]  # no straddled cutoff: moved below the cutoffs too
    moved = (
        best.filter(pl.any_horizontal([best.get_column(c) != worst.get_column(c) for c in uncut])).height
        if uncut
        else 0
    )
    return [(ev.printed_names(c)[0], means["worst"][c], means["best"][c]) for c in moving], moved
