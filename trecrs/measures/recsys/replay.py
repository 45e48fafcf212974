"""RePlay's beyond-accuracy definitions: coverage of the training items, novelty as the share of the list
the user has not rated before, and surprisal, the self-information of the recommended items normalised
to [0, 1] with unrated items counting 1.

Each is the formula of RePlay 0.22.0's own source (``replay/metrics/``, named per measure) on trecrs's
data conventions (:mod:`.registry`): L_u@k = the top k of an evaluated query's ranking in trec_eval's order
(the whole ranking without k; RePlay orders by score, then item id, descending: the same order), Tr_u =
its user's training items, I_train = every training item, U = the training users, n_i = the training users
who rated item i. ``replay:Coverage@k``, ``replay:Novelty@k`` and ``replay:Surprisal@k``
(:mod:`trecrs.measures.dialects.replay`) compute them.
"""

from __future__ import annotations

import math

import polars as pl

from ...schema import DOC, ITEM, QUERY, USER
from ..trec_eval import HIGHER
from .beyond import _item_counts
from .registry import CUTOFFS, GLOBAL, VALUE, Context, ExtraMeasure, register, safe_div
from .ties import FREE_WHOLE

F = pl.Float64
REPLAY = "RePlay 0.22.0 replay/metrics"


def _train_coverage(ctx: Context, k: int | None, frame) -> float:
    """|∪_u L_u@k ∩ I_train| / |I_train|: the share of the training items some top k holds; recommended
    items nobody rated in training do not count.

    RePlay ``coverage.py`` ``Coverage`` (``len(pred_items & train_items) / len_train_items``). Training
    items a, b, c, d and top 2s [a, x], [a, b]: |{a, b}| / 4 = 0.5, where ``catalog_coverage.2`` (catalogue
    a, b, c, d, x) gives 3/5.
    """
    items = ctx.require("train", "train_coverage").get_column(ITEM).unique()
    recommended = _item_counts(ctx, k).get_column(ITEM)
    return float(recommended.is_in(items.implode()).sum()) / items.len() if items.len() else math.nan


def _with_user_history(ctx: Context, k: int | None) -> pl.DataFrame:
    """``query, item, seen``: the top k of every evaluated query, and whether its user rated the item in
    training."""
    train = (
        ctx.require("train", "unseen_share")
        .select(USER, ITEM)
        .unique()
        .with_columns(pl.lit(True).alias("seen"))
    )
    top = ctx.top(k).select(QUERY, pl.col(DOC).alias(ITEM)).join(ctx.query_users, on=QUERY, how="left")
    return top.join(train, on=[USER, ITEM], how="left").with_columns(pl.col("seen").fill_null(False))


def _unseen_share(ctx: Context, k: int | None) -> pl.DataFrame:
    """1 − |L_u@k ∩ Tr_u| / |L_u@k|: the share of the top k (min(k, |L_u|) items) the user has not rated in
    training; 1 for an empty ranking.

    RePlay ``novelty.py`` ``Novelty`` (``1 - len(set(pred[:k]) & set_train) / len(pred[:k])``, 1 without
    recommendations or training items; after Castells, Vargas & Wang 2011). A top 5 holding 1 of the user's
    training items: 0.8; a list of 3 holding 1 at k = 5: 1 − 1/3. Not ``novelty.k`` (self-information).
    """
    agg = _with_user_history(ctx, k).group_by(QUERY).agg(pl.col("seen").mean().cast(F).alias("seen"))
    st = ctx.stats.select(QUERY).join(agg, on=QUERY, how="left").fill_null(0.0)
    return st.select(QUERY, (1.0 - pl.col("seen")).alias(VALUE))


def _surprisal(ctx: Context, k: int | None) -> pl.DataFrame:
    """(1/k) Σ_{i ∈ L_u@k} s(i), s(i) = log2(|U| / n_i) / log2 |U| (self-information normalised to [0, 1]),
    s = 1 for an item no training user rated; / |L_u| without k; 0 for an empty ranking. Undefined for
    every query with fewer than two training users (log2 |U| = 0).

    RePlay ``surprisal.py`` ``Surprisal`` (weights ``log2(n_users / len(users)) / log2(n_users)``, cold items
    1, ``sum(weights[:k]) / k``). 4 training users, top 2 = [an item 1 user rated, an unrated item], k = 3:
    (log2 4 / log2 4 + 1)/3 = 2/3. ``novelty.k`` and ``efd.k`` are the raw −log2(n_i/|U|), averaged over the
    rated items of the list.
    """
    train = ctx.require("train", "surprisal")
    users = train.get_column(USER).n_unique()
    if users < 2:
        return ctx.stats.select(QUERY, pl.lit(None, F).alias(VALUE))
    rated = train.group_by(ITEM).agg(pl.col(USER).n_unique().cast(F).alias("n"))
    weight = (pl.lit(float(users)) / pl.col("n")).log(2) / math.log2(users)
    top = ctx.top(k).select(QUERY, pl.col(DOC).alias(ITEM)).join(rated, on=ITEM, how="left")
    agg = top.group_by(QUERY).agg(pl.when(pl.col("n").is_null()).then(1.0).otherwise(weight).sum().alias("s"))
    den = pl.lit(float(k)) if k is not None else pl.col("num_ret").cast(F)
    st = ctx.stats.join(agg, on=QUERY, how="left").with_columns(pl.col("s").fill_null(0.0))
    return st.select(QUERY, safe_div(pl.col("s"), den).alias(VALUE))


register(
    ExtraMeasure(
        "train_coverage",
        "beyond",
        "share of the training items in some top k (RePlay Coverage@k)",
        f"{REPLAY}/coverage.py Coverage",
        None,
        summary=GLOBAL,
        global_summary=_train_coverage,
        params=CUTOFFS,
        needs=("train",),
        aggregate="global",
        better=HIGHER,
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "unseen_share",
        "beyond",
        "share of the top k the user has not rated in training (RePlay Novelty@k)",
        f"{REPLAY}/novelty.py Novelty",
        _unseen_share,
        params=CUTOFFS,
        needs=("train",),
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "surprisal",
        "beyond",
        "Σ over the top k of log2(|U|/n_i)/log2|U| (unrated items 1) / k (RePlay Surprisal@k)",
        f"{REPLAY}/surprisal.py Surprisal",
        _surprisal,
        params=CUTOFFS,
        needs=("train",),
        undefined_when="fewer than two training users",
        ties=FREE_WHOLE,
    )
)
