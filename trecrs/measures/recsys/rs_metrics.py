"""rs_metrics' popularity: the mean share of the training users who rated each recommended item.

The formula of rs_metrics 0.6.0's own source (``rs_metrics/metrics.py`` ``popularity``, with
``rs_metrics/statistics.py`` ``item_pop``) on trecrs's data conventions (:mod:`.registry`): L_u@k = the top
k of an evaluated query's ranking in trec_eval's order, U = the training users, n_i = the training users who
rated item i. ``rs_metrics:popularity@k`` (:mod:`trecrs.measures.dialects.rs_metrics`) computes it; its
``surprisal`` is RecTools' ``miuf.k`` and needs no measure of its own.
"""

from __future__ import annotations

import polars as pl

from ...schema import DOC, ITEM, QUERY, USER
from ..trec_eval import NEITHER
from .diversity import _per_query
from .registry import CUTOFFS, VALUE, Context, ExtraMeasure, register
from .ties import FREE_WHOLE

F = pl.Float64
RS_METRICS = "rs_metrics 0.6.0 rs_metrics/metrics.py"


def _pop_share(ctx: Context, k: int | None) -> pl.DataFrame:
    """Mean over L_u@k of n_i / |U|: the share of the training users who rated each recommended item, 0 for
    an item no training user rated; undefined for an empty ranking.

    rs_metrics ``popularity`` (``metrics.py`` lines 110-129: ``_popularity`` is ``np.mean([df.get(item,
    fill) ...])`` with ``fill`` 0 over ``item_pop`` = ``groupby(item)[user].nunique() / nunique users``,
    statistics.py lines 1-3). 4 training users, top 2 = [an item 3 of them rated, an unrated item]:
    (3/4 + 0)/2 = 0.375. ``arp.k`` counts ratings instead, ``arp_share.k`` divides by the ratings;
    ``epc.k`` is 1 − this value.
    """
    train = ctx.require("train", "pop_share")
    users = float(train.get_column(USER).n_unique())
    rated = train.group_by(ITEM).agg((pl.col(USER).n_unique().cast(F) / users).alias("p"))
    top = ctx.top(k).select(QUERY, pl.col(DOC).alias(ITEM)).join(rated, on=ITEM, how="left")
    agg = top.group_by(QUERY).agg(pl.col("p").fill_null(0.0).mean().alias(VALUE))
    return _per_query(ctx, agg)


register(
    ExtraMeasure(
        "pop_share",
        "beyond",
        "mean share n_i/|U| of the training users who rated each top-k item (rs_metrics popularity@k)",
        f"{RS_METRICS} popularity",
        _pop_share,
        params=CUTOFFS,
        needs=("train",),
        undefined_when="no recommendation",
        better=NEITHER,
        ties=FREE_WHOLE,
    )
)
