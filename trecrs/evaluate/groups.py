"""User groups: each averaged measure's mean over every group's evaluated users, and the mean absolute
difference between the group means (``user_groups=``, ``--user-groups``).

An averaged measure is one whose summary is the arithmetic mean of its per-query values: trec_eval's
measures aggregated by ``mean`` (not the counts, ``gm_map`` or ``runid``) and the recommender measures
with a mean summary (not the global ones: Gini, coverage, PopRSP...). A query's user is the query itself,
or the user of a One-Plus-Random case ``user:item`` (:func:`~trecrs.protocol.one_plus_random.case_ids`);
users without a group form no group. A group's mean is taken over its evaluated queries with a value, in
bytewise query order, left to right as trec_eval sums; groups are in bytewise name order. ``NAME_mad`` is
the mean over every pair of groups of |mean_a - mean_b| (Deldjoo, Anelli, Zamani, Bellogín & Di Noia 2020,
UserMADranking for a ranking measure), printed when at least two groups have a mean.
"""

from __future__ import annotations

import polars as pl

from ..measures.recsys.popularity_bias import mean_absolute_difference
from ..measures.recsys.registry import MEAN as EXTRA_MEAN
from ..measures.recsys.registry import output_measure, sequential_mean
from ..measures.trec_eval import BY_NAME, MEAN, base_of
from ..protocol.one_plus_random import case_ids
from ..schema import GROUP, QUERY, USER
from .result import Evaluation


def averaged_columns(ev: Evaluation) -> list[str]:
    """The value columns of ``ev`` whose summary is the mean of their per-query values."""
    out = []
    for column in ev.columns():
        if column not in ev.summary:
            continue
        if column in ev.extra_columns:
            m = output_measure(column)
            averaged = m is not None and m.summary == EXTRA_MEAN and m.print_per_query
        else:
            base = base_of(ev.request.measure_of(column))
            averaged = base is not None and BY_NAME[base].aggregate == MEAN and BY_NAME[base].per_query
        if averaged:
            out.append(column)
    return out


def add_groups(ev: Evaluation, groups: pl.DataFrame, qrels: pl.DataFrame | None = None) -> None:
    """Fill ``ev.group_means`` (column -> {group: mean}) and ``ev.group_mad`` (column -> MAD) from
    ``groups`` (``user, group``); ``qrels`` tells One-Plus-Random case ids apart (see the module)."""
    columns = averaged_columns(ev)
    queries = ev.per_query.get_column(QUERY).to_list()
    qrels = qrels if qrels is not None else pl.DataFrame(schema={QUERY: pl.Utf8, "doc": pl.Utf8})
    users = case_ids(queries, qrels, set(groups.get_column(USER).to_list())).select(QUERY, USER)
    frame = ev.per_query.select(QUERY, *columns).join(users, on=QUERY, how="left", maintain_order="left")
    frame = frame.join(groups, on=USER, how="inner", maintain_order="left")
    names = sorted(frame.get_column(GROUP).unique().to_list(), key=lambda g: g.encode())
    for column in columns:
        means = {}
        for g in names:
            values = frame.filter((pl.col(GROUP) == g) & pl.col(column).is_not_null()).get_column(column)
            if values.len():
                means[g] = sequential_mean(values.cast(pl.Float64).to_numpy())
        ev.group_means[column] = means
        if len(means) >= 2:
            ev.group_mad[column] = mean_absolute_difference(means.values())
