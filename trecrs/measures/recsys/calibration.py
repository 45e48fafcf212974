"""Calibration of the top k to the user's training profile over item categories (Steck, RecSys 2018).

p(c|i) = 1/|cats(i)| for each category c of item i (item features: ``item_features=``); p(c|u), the user's
profile, the mean of p(c|i) over the training items Tr_u that have categories; q(c|u) the same mean over
the items of L_u@k (the top k of the query's ranking in trec_eval's order) that have categories.
"""

from __future__ import annotations

import polars as pl

from ...schema import CATEGORY, DOC, ITEM, QUERY, USER
from ..trec_eval import LOWER
from .registry import CUTOFFS, VALUE, Context, ExtraMeasure, register
from .ties import FREE_WHOLE

F = pl.Float64
ALPHA = 0.01  # Steck 2018's smoothing of q towards p: q~ = (1 - alpha) q + alpha p


def _category_shares(items: pl.DataFrame, cats: pl.DataFrame, key: str) -> pl.DataFrame:
    """``key, category, share``: the mean over the ``key``'s items with categories of p(c|i)."""
    weights = cats.with_columns((1.0 / pl.len().over(ITEM)).cast(F).alias("w"))
    rows = items.join(weights, on=ITEM, how="inner")
    n = rows.group_by(key).agg(pl.col(ITEM).n_unique().cast(F).alias("n"))
    sums = rows.group_by(key, CATEGORY).agg(pl.col("w").sum())
    return sums.join(n, on=key).select(key, CATEGORY, (pl.col("w") / pl.col("n")).alias("share"))


def _miscalibration(ctx: Context, k: int | None) -> pl.DataFrame:
    """Miscalibration: KL(p_u ‖ q~_u) = Σ_c p(c|u) ln(p(c|u) / q~(c|u)) in nats, q~ = 0.99 q + 0.01 p
    (Steck, "Calibrated recommendations", RecSys 2018, α = 0.01). Undefined when the user has no training
    item with categories or the top k holds none."""
    cats = ctx.require("item_features", "miscalibration")
    train = ctx.require("train", "miscalibration").select(USER, ITEM)
    p = ctx.query_users.join(_category_shares(train, cats, USER), on=USER, how="inner").select(
        QUERY, CATEGORY, pl.col("share").alias("p")
    )
    top = ctx.top(k).select(QUERY, pl.col(DOC).alias(ITEM))
    q = _category_shares(top, cats, QUERY).rename({"share": "q"})
    listed = q.select(QUERY).unique()
    rows = p.join(listed, on=QUERY).join(q, on=[QUERY, CATEGORY], how="left").fill_null(0.0)
    q_smooth = (1.0 - ALPHA) * pl.col("q") + ALPHA * pl.col("p")
    agg = rows.group_by(QUERY).agg((pl.col("p") * (pl.col("p") / q_smooth).log()).sum().alias(VALUE))
    out = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
    return out.join(agg, on=QUERY, how="left", maintain_order="left")


register(
    ExtraMeasure(
        "miscalibration",
        "beyond",
        "KL(p_u || 0.99 q_u + 0.01 p_u) in nats: training vs top-k category shares",
        "Steck 2018 (Calibrated recommendations)",
        _miscalibration,
        params=CUTOFFS,
        needs=("train", "item_features"),
        better=LOWER,
        undefined_when="no categorised training item or top-k item",
        ties=FREE_WHOLE,
    )
)
