"""Microsoft Recommenders' definitions that no other trecrs measure gives: R-precision at k left undefined for a
user without a hit in its first min(k, |R|) places, catalogue coverage over the training items, and novelty
pooled over every recommendation.

Each is the formula of Microsoft Recommenders 1.2.1's ``recommenders/evaluation/python_evaluation.py``
(named per measure), on trecrs's data conventions (:mod:`.registry`): the ranking is trec_eval's (the
library sorts each user's predictions by score and numbers them in the frame's row order, ``relevancy_method
="top_k"``), L_k = the top k, R = the query's relevant qrels documents (the library's ``rating_true`` rows of
the user), the training ratings are its ``train_df``. The ``recommenders:`` names of
:mod:`trecrs.measures.dialects.recommenders` compute them.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ...schema import ITEM, QUERY, RANK
from ..trec_eval import HIGHER
from .beyond import _item_counts, _recommended
from .ranking import cumulative
from .registry import CUTOFFS, GLOBAL, RELEVANT, VALUE, Context, ExtraMeasure, register, undefined_unless
from .ties import FREE_WHOLE

F = pl.Float64
MSR = "Microsoft Recommenders 1.2.1 recommenders/evaluation/python_evaluation.py"


def _r_prec_hit(ctx: Context, k: int | None) -> pl.DataFrame:
    """|L_min(k, |R|) ∩ R| / |R| where that is above 0; undefined otherwise (and without relevant documents).

    Microsoft Recommenders' ``r_precision_at_k`` (lines 581-598: the hits of the top k with ``rank <=
    actual``, counted per user by ``groupby().size()`` and divided by ``actual`` aligned on the users with a
    hit in the top k; a user without such a hit is NaN, and ``.mean()`` leaves it out). So its printed mean
    is over the users with a hit in their first min(k, |R|) places, not over every user. Without a cutoff
    k = |L|.
    """
    top = cumulative(ctx)
    if k is not None:
        top = top.filter(pl.col(RANK) <= k)
    st = ctx.stats.select(QUERY, pl.col("num_rel").cast(F).alias("r"))
    hits = (
        top.join(st, on=QUERY)
        .filter(pl.col(RELEVANT) & (pl.col(RANK).cast(F) <= pl.col("r")))
        .group_by(QUERY)
        .agg(pl.len().cast(F).alias("h"))
    )
    st = st.join(hits, on=QUERY, how="left", maintain_order="left")
    return st.select(QUERY, undefined_unless(pl.col("h") > 0, pl.col("h") / pl.col("r")).alias(VALUE))


def _coverage_of_train(ctx: Context, k: int | None, frame) -> float:
    """|∪_u L_u@k| / |I_train|: the distinct items of every top k over the distinct training items; a
    recommended item nobody rated in training counts above, so the value can pass 1.

    Microsoft Recommenders' ``catalog_coverage`` (lines 1645-1675: ``reco_df[col_item].nunique() /
    train_df[col_item].nunique()``, ``reco_df`` = the top k lists). ``catalog_coverage.k`` divides by the
    training and recommended items, RePlay's ``train_coverage.k`` counts only recommended training items.
    """
    items = ctx.require("train", "catalog_coverage_train").get_column(ITEM).n_unique()
    return _item_counts(ctx, k).height / items if items else math.nan


def _novelty_pooled(ctx: Context, k: int | None, frame) -> float:
    """(1/|recs|) Σ over every (user, item) of the top k lists of −log2(c_i / |train|), c_i = the training
    ratings of item i, |train| = the training ratings; an item without training ratings adds 0 to the sum
    and 1 to |recs|.

    Microsoft Recommenders' ``novelty`` (lines 1355-1437: ``historical_item_novelty`` = ``-log2(count /
    n_records)``, then ``Σ count_reco · item_novelty / reco_df.shape[0]``, the merge dropping items without
    training ratings from the sum only). Pooled over the recommendations, not a mean of per-user means
    (``novelty.k``: training users, per user).
    """
    train = ctx.require("train", "novelty_pooled")
    counts = train.group_by(ITEM).agg(pl.len().cast(F).alias("c"))
    recs = _recommended(ctx, k).join(counts, on=ITEM, how="left")
    if recs.height == 0:
        return math.nan
    info = (-(pl.col("c") / float(train.height)).log(2)).fill_null(0.0)
    return float(np.sum(recs.select(info).to_series().to_numpy())) / recs.height


register(ExtraMeasure(
    "r_prec_hit", "ranking", "|L_min(k,|R|) ∩ R| / |R|, undefined when 0 (Microsoft Recommenders r_precision_at_k)",
    f"{MSR} r_precision_at_k", _r_prec_hit, params=CUTOFFS,
    undefined_when="no relevant document in the first min(k, |R|) places"))  # fmt: skip
register(ExtraMeasure(
    "catalog_coverage_train", "beyond", "distinct items of the top k lists / distinct training items (Microsoft "
    "Recommenders catalog_coverage)", f"{MSR} catalog_coverage", None, summary=GLOBAL,
    global_summary=_coverage_of_train, params=CUTOFFS, needs=("train",), aggregate="global", better=HIGHER,
    ties=FREE_WHOLE))  # fmt: skip
register(ExtraMeasure(
    "novelty_pooled", "beyond", "−log2(training ratings share) pooled over every recommendation of the top k "
    "(Microsoft Recommenders novelty)", f"{MSR} novelty", None, summary=GLOBAL, global_summary=_novelty_pooled,
    params=CUTOFFS, needs=("train",), aggregate="global: pooled over every recommendation", ties=FREE_WHOLE))  # fmt: skip
