"""Popularity bias and novelty of the top k: APLT, ACLT, PopRSP, PopREO, EPC, EFD and ItemMAD.

L_u@k is the top k of an evaluated query's ranking in trec_eval's order (the whole ranking without k);
Tr_u the training items of the query's user; Rel_u the query's qrels items with ``rel >= level`` (``-l``).
n_i is the number of training users who rated item i, |U| the number of training users. Head and tail
follow the one short-head rule of :mod:`trecrs.data.popularity` with ``head_share`` (``--head-share``);
the tail is every other item of the catalogue (training items and run items, as ``catalog_coverage``).

Novelty in rank- and relevance-aware form (Vargas & Castells, "Rank and relevance in novelty and diversity
metrics for recommender systems", RecSys 2011; their RankSys library): m = Σ_j disc(j) rel(i_j) nov(i_j) /
Σ_j disc(j) over the positions j = 1..|L_u@k|, disc(j) = 0.85^(j-1), rel binary (i_j ∈ Rel_u), with
nov = 1 - n_i/|U| (EPC) or -log2(n_i/|U|) (EFD). The plain forms ``epc``/``efd`` take disc = rel = 1 (a
mean over L_u@k, as Elliot's EPC); ``efd`` is then ``novelty``'s mean self-information. An item no
training user rated has no EFD and is left out of both of EFD's sums.
"""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import combinations

import numpy as np
import polars as pl

from ...data.popularity import short_head
from ...schema import DOC, GROUP, ITEM, QUERY, RANK, USER
from ..trec_eval import LOWER
from . import beyond  # noqa: F401 - registers arp before its RecBole name below
from .registry import (
    CUTOFFS,
    GLOBAL,
    REGISTRY,
    RELEVANT,
    VALUE,
    Context,
    ExtraMeasure,
    register,
    undefined_unless,
)
from .ties import FREE_WHOLE

F = pl.Float64
DISCOUNT = 0.85  # Vargas & Castells 2011's rank discount base: disc(j) = 0.85^(j-1)
HEAD = "head"
COUNT = "count"


def head_items(ctx: Context) -> pl.Series:
    """The short-head items of the training ratings (:func:`trecrs.data.popularity.short_head`)."""
    return ctx.cached(
        "short_head",
        lambda: short_head(ctx.require("train", "head/tail"), ctx.head_share, argument="head_share"),
    )


def _recommended(ctx: Context, k: int | None) -> pl.DataFrame:
    """``query, item, rank, relevant, head, count``: the top k with each item's stratum and n_i."""
    head = head_items(ctx)
    return (
        ctx.top(k)
        .select(QUERY, pl.col(DOC).alias(ITEM), RANK, RELEVANT)
        .with_columns(pl.col(ITEM).is_in(head.implode()).alias(HEAD))
        .join(ctx.item_popularity, on=ITEM, how="left", maintain_order="left")
        .with_columns(pl.col(COUNT).fill_null(0))
    )


def _per_query(ctx: Context, agg: pl.DataFrame) -> pl.DataFrame:
    q = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
    return q.join(agg, on=QUERY, how="left", maintain_order="left")


def mean_absolute_difference(values) -> float:
    """Mean over every pair of values of |a - b| (Deldjoo et al. 2020's MAD between groups); NaN for
    fewer than two values."""
    pairs = list(combinations([float(v) for v in values], 2))
    return sum(abs(a - b) for a, b in pairs) / len(pairs) if pairs else math.nan


def relative_std(p) -> float:
    """std(p) / mean(p), the standard deviation with ddof=0 (PopRSP, PopREO); NaN when the mean is 0."""
    p = np.asarray(p, dtype=np.float64)
    return float(np.std(p) / np.mean(p)) if np.all(np.isfinite(p)) and np.mean(p) > 0 else math.nan


# --------------------------------------------------------------------------------------------- long tail


def _aplt(ctx: Context, k: int | None) -> pl.DataFrame:
    """Average percentage of long tail items: |L_u@k ∩ tail| / |L_u@k| (Abdollahpouri, Burke & Mobasher
    2019). Undefined for an empty ranking."""
    agg = _recommended(ctx, k).group_by(QUERY).agg((~pl.col(HEAD)).cast(F).mean().alias(VALUE))
    return _per_query(ctx, agg)


def _aclt(ctx: Context, k: int | None) -> pl.DataFrame:
    """Average coverage of long tail items: |L_u@k ∩ tail| (Abdollahpouri, Burke & Mobasher 2019); 0 for
    an empty ranking."""
    agg = _recommended(ctx, k).group_by(QUERY).agg((~pl.col(HEAD)).sum().cast(F).alias(VALUE))
    return _per_query(ctx, agg).with_columns(pl.col(VALUE).fill_null(0.0))


def _group_sizes(ctx: Context) -> tuple[int, int]:
    """|head|, |tail|: the tail is the rest of the catalogue."""
    n_head = head_items(ctx).len()
    return n_head, ctx.catalogue.len() - n_head


def _pop_rsp(ctx: Context, k: int | None, frame) -> float:
    """PopRSP: p_g = Σ_u |L_u@k ∩ g| / Σ_u |g \\ Tr_u| for g in {head, tail}; std(p)/mean(p), ddof=0 (Zhu,
    Wang & Caverlee 2020, popularity-opportunity ranking-based statistical parity; as Elliot's PopRSP)."""
    rec = _recommended(ctx, k)
    in_head = int(rec.get_column(HEAD).sum())
    train = ctx.require("train", "pop_rsp").select(USER, ITEM)
    trained = (
        train.with_columns(pl.col(ITEM).is_in(head_items(ctx).implode()).alias(HEAD))
        .group_by(USER)
        .agg(pl.col(HEAD).sum().alias("h"), (~pl.col(HEAD)).sum().alias("t"))
    )
    users = ctx.query_users.join(trained, on=USER, how="left").fill_null(0)
    n_head, n_tail = _group_sizes(ctx)
    q = users.height
    den = (q * n_head - int(users.get_column("h").sum()), q * n_tail - int(users.get_column("t").sum()))
    if min(den) <= 0:
        return math.nan
    return relative_std([in_head / den[0], (rec.height - in_head) / den[1]])


def _pop_reo(ctx: Context, k: int | None, frame) -> float:
    """PopREO: p_g = Σ_u |L_u@k ∩ g ∩ Rel_u| / Σ_u |g ∩ Rel_u| for g in {head, tail}; std(p)/mean(p)
    (Zhu, Wang & Caverlee 2020, ranking-based equal opportunity; as Elliot's PopREO)."""
    rec = _recommended(ctx, k).filter(pl.col(RELEVANT))
    rel = ctx.qrels.filter(pl.col("rel") >= ctx.level).with_columns(
        pl.col(DOC).is_in(head_items(ctx).implode()).alias(HEAD)
    )
    den = (int(rel.get_column(HEAD).sum()), int((~rel.get_column(HEAD)).sum()))
    if min(den) == 0:
        return math.nan
    hits = int(rec.get_column(HEAD).sum())
    return relative_std([hits / den[0], (rec.height - hits) / den[1]])


def _item_mad(ctx: Context, k: int | None, frame) -> float:
    """ItemMADranking: the mean absolute difference between item groups (head, tail; or ``item_groups``)
    of the mean number of times an item of the group is recommended in a top k (Deldjoo et al. 2020;
    Elliot's ItemMADranking); an item never recommended counts 0, an item of no given group is left out.
    The training ratings are needed for head/tail only: given item groups replace them."""
    if ctx.item_groups is not None:
        return _item_groups_mad(ctx, ctx.item_groups, k)
    ctx.require("train", "item_mad" if k is None else f"item_mad_{k}")
    rec = _recommended(ctx, k)
    in_head = int(rec.get_column(HEAD).sum())
    n_head, n_tail = _group_sizes(ctx)
    if not n_head or not n_tail:
        return math.nan
    return mean_absolute_difference([in_head / n_head, (rec.height - in_head) / n_tail])


def _item_groups_mad(ctx: Context, groups: pl.DataFrame, k: int | None) -> float:
    """ItemMAD over the groups of ``item_groups``: each group's items as listed, in bytewise group order."""
    times = ctx.top(k).group_by(DOC).agg(pl.len().alias("n")).rename({DOC: ITEM})
    per_group = (
        groups.join(times, on=ITEM, how="left")
        .group_by(GROUP)
        .agg(pl.col("n").fill_null(0).cast(F).mean().alias("m"))
        .sort(pl.col(GROUP).cast(pl.Binary))
    )
    return mean_absolute_difference(per_group.get_column("m").to_list())


# --------------------------------------------------------------------------------------------- novelty


def _novelty_form(kind: str, aware: bool):
    """EPC or EFD per query, plain (a mean over L_u@k) or rank- and relevance-aware (see the module)."""

    def per_query(ctx: Context, k: int | None) -> pl.DataFrame:
        rec = _recommended(ctx, k)
        share = pl.col(COUNT).cast(F) / float(ctx.train_users)
        if kind == "efd":
            rec = rec.filter(pl.col(COUNT) > 0)
            nov = -share.log(2)
        else:
            nov = 1.0 - share
        one = pl.col(RANK).cast(F).pow(0)  # 1 on every row: a literal would be summed once per group
        disc = pl.lit(DISCOUNT, dtype=F).pow(pl.col(RANK) - 1) if aware else one
        rel = pl.col(RELEVANT).cast(F) if aware else one
        agg = rec.group_by(QUERY).agg((disc * rel * nov).sum().alias("num"), disc.sum().alias("den"))
        agg = agg.select(
            QUERY, undefined_unless(pl.col("den") > 0, pl.col("num") / pl.col("den")).alias(VALUE)
        )
        return _per_query(ctx, agg)

    return per_query


# --------------------------------------------------------------------------------------------- registry

ABDOLLAHPOURI = "Abdollahpouri, Burke & Mobasher 2019 (Managing popularity bias in recommender systems)"
ZHU = "Zhu, Wang & Caverlee 2020 (Measuring and mitigating item under-recommendation bias); Elliot"
VARGAS = "Vargas & Castells 2011 (Rank and relevance in novelty and diversity metrics)"
DELDJOO = "Deldjoo, Anelli, Zamani, Bellogín & Di Noia 2020 (A flexible framework for evaluating fairness)"

register(
    ExtraMeasure(
        "aplt",
        "beyond",
        "share of long-tail items in the top k: |L_u@k ∩ tail| / |L_u@k|",
        ABDOLLAHPOURI,
        _aplt,
        params=CUTOFFS,
        needs=("train",),
        undefined_when="no recommendation",
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "aclt",
        "beyond",
        "number of long-tail items in the top k: |L_u@k ∩ tail|",
        ABDOLLAHPOURI,
        _aclt,
        params=CUTOFFS,
        needs=("train",),
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "pop_rsp",
        "beyond",
        "std/mean over head and tail of Σ recommended / Σ not-trained items (PopRSP)",
        ZHU,
        None,
        summary=GLOBAL,
        global_summary=_pop_rsp,
        params=CUTOFFS,
        needs=("train",),
        better=LOWER,
        aggregate="global: std/mean of the two pooled shares",
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "pop_reo",
        "beyond",
        "std/mean over head and tail of Σ relevant recommended / Σ relevant (PopREO)",
        ZHU,
        None,
        summary=GLOBAL,
        global_summary=_pop_reo,
        params=CUTOFFS,
        needs=("train",),
        better=LOWER,
        aggregate="global: std/mean of the two pooled shares",
        ties=FREE_WHOLE,
    )
)
for _name, _kind, _aware, _doc in (
    ("epc", "epc", False, "expected popularity complement: mean of 1 - n_i/|U| over the top k"),
    (
        "epc_rel",
        "epc",
        True,
        "EPC with rank discount 0.85^(j-1) and relevance: Σ disc·rel·(1 - n_i/|U|) / Σ disc",
    ),
    ("efd", "efd", False, "expected free discovery: mean of -log2(n_i/|U|) over the top k"),
    (
        "efd_rel",
        "efd",
        True,
        "EFD with rank discount 0.85^(j-1) and relevance: Σ disc·rel·(-log2 n_i/|U|) / Σ disc",
    ),
):
    register(
        ExtraMeasure(
            _name,
            "beyond",
            _doc,
            VARGAS,
            _novelty_form(_kind, _aware),
            params=CUTOFFS,
            needs=("train",),
            undefined_when="no recommended item" + (" with training ratings" if _kind == "efd" else ""),
            ties="" if _aware else FREE_WHOLE,
        )
    )  # rank-discounted: the order counts over the whole list
register(
    ExtraMeasure(
        "item_mad",
        "beyond",
        "MAD between item groups (head/tail: needs --train; or --item-groups) of the mean times an "
        "item is in a top k",
        DELDJOO,
        None,
        summary=GLOBAL,
        global_summary=_item_mad,
        params=CUTOFFS,
        better=LOWER,
        aggregate="global: MAD between the item groups",
        ties=FREE_WHOLE,
    )
)

# RecBole's names for two of them, one implementation each: TailPercentage is APLT (here with the short-head
# rule's tail; RecBole's own least-rated tail is least_rated_share), AveragePopularity is ARP
RECBOLE = "RecBole 1.2.1 recbole/evaluator/metrics.py"
register(
    replace(
        REGISTRY["aplt"],
        name="tail_percentage",
        source=f"{RECBOLE} TailPercentage; {ABDOLLAHPOURI}",
        doc="RecBole's TailPercentage under the short-head rule's tail: |L_u@k ∩ tail| / |L_u@k| (= aplt.k)",
    )
)
register(
    replace(
        REGISTRY["arp"],
        name="average_popularity",
        source=f"{RECBOLE} AveragePopularity; {ABDOLLAHPOURI}",
        doc="RecBole's AveragePopularity: mean training ratings count of the top k (= arp.k)",
    )
)
