"""Microsoft Recommenders' definitions that no other trecrs measure gives: R-precision at k left undefined for a
user without a hit in its first min(k, |R|) places, catalogue coverage over the training items, novelty
pooled over every recommendation, and intra-list diversity and unexpectedness (its serendipity) from the
training co-occurrence of items.

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
from scipy import sparse

from ...schema import DOC, ITEM, QUERY, RANK, USER
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


def _cosine(ctx: Context, pairs: pl.DataFrame, measure: str) -> pl.DataFrame:
    """``pairs`` (columns ``i1``, ``i2`` among others) with ``sim`` = co(i1, i2) / sqrt(n_i1 · n_i2): co = the
    training users who rated both, n = the training users of each; 0 when no user rated both.

    Microsoft Recommenders' ``_get_cooccurrence_similarity`` (lines 1109-1162: the co-occurrence counts of
    the item pairs of every training user over the square roots of the items' counts; a pair absent from it
    is filled with 0 where it is used). An item paired with itself: 1."""
    train = ctx.require("train", measure).select(USER, ITEM).unique()
    items = pl.concat([pairs.get_column("i1"), pairs.get_column("i2")]).unique().sort()
    code = pl.DataFrame({ITEM: items, "c": np.arange(items.len())})
    rated = train.join(code, on=ITEM).with_columns(pl.col(USER).rank("dense").cast(pl.Int64).alias("u") - 1)
    shape = (rated.get_column("u").n_unique(), items.len())  # u = 0 .. distinct users − 1
    x = sparse.csr_matrix(
        (np.ones(rated.height), (rated.get_column("u").to_numpy(), rated.get_column("c").to_numpy())),
        shape=shape,
    )
    co = (x.T @ x).tocoo()
    counts = pl.DataFrame(
        {"c1": co.row.astype(np.int64), "c2": co.col.astype(np.int64), "co": co.data.astype(np.float64)}
    )
    n = counts.filter(pl.col("c1") == pl.col("c2")).select(pl.col("c1").alias("c"), pl.col("co").alias("n"))
    coded = (
        pairs.join(code.rename({ITEM: "i1", "c": "c1"}), on="i1", how="left")
        .join(code.rename({ITEM: "i2", "c": "c2"}), on="i2", how="left")
        .join(counts, on=["c1", "c2"], how="left")
        .join(n.rename({"c": "c1", "n": "n1"}), on="c1", how="left")
        .join(n.rename({"c": "c2", "n": "n2"}), on="c2", how="left")
    )
    sim = (pl.col("co") / (pl.col("n1") * pl.col("n2")).sqrt()).fill_null(0.0)
    return coded.with_columns(sim.alias("sim")).drop("c1", "c2", "co", "n1", "n2")


def _user_diversity(ctx: Context, k: int | None) -> pl.DataFrame:
    """1 − the mean co-occurrence cosine (:func:`_cosine`) of the pairs of distinct items of L_k; undefined for
    a list of fewer than two items.

    Microsoft Recommenders' ``_get_intralist_similarity`` and ``user_diversity`` (lines 1202-1303: the pairs i1 < i2 of each user's
    recommendations, their similarity or 0, averaged, ``1 - avg_il_sim``); its ``diversity`` is the mean
    over users (``item_sim_measure="item_cooccurrence_count"``, the default)."""
    top = ctx.top(k).select(QUERY, pl.col(DOC).alias("i1"))
    pairs = top.join(top.rename({"i1": "i2"}), on=QUERY).filter(pl.col("i1") < pl.col("i2"))
    sims = _cosine(ctx, pairs, "ild_cooccurrence")
    agg = sims.group_by(QUERY).agg((1.0 - pl.col("sim").mean()).alias(VALUE))
    return ctx.stats.select(QUERY).join(agg, on=QUERY, how="left", maintain_order="left")


def _unexpectedness(ctx: Context, k: int | None) -> pl.DataFrame:
    """Mean over L_k of 1 − the mean co-occurrence cosine (:func:`_cosine`) of the item with each of the user's
    training items; undefined for a user without training items or an empty list.

    Microsoft Recommenders' ``user_serendipity`` with no ``col_relevance`` (lines 1443-1593: every
    recommendation relevant, 1.0; ``(1 - avg_item2interactedHistory_sim) * relevance`` per item, averaged
    per user); its ``serendipity`` is the mean over users. (It refuses a recommended item the user rated
    in training; here such an item counts its similarity 1 with itself.)"""
    train = ctx.require("train", "unexpectedness_cooccurrence").select(USER, pl.col(ITEM).alias("t")).unique()
    top = ctx.top(k).select(QUERY, pl.col(DOC).alias("r")).join(ctx.query_users, on=QUERY, how="left")
    triples = top.join(train, on=USER).with_columns(
        pl.min_horizontal("r", "t").alias("i1"), pl.max_horizontal("r", "t").alias("i2")
    )
    sims = _cosine(ctx, triples, "unexpectedness_cooccurrence")
    per_item = sims.group_by(QUERY, "r").agg((1.0 - pl.col("sim").mean()).alias("u"))
    agg = per_item.group_by(QUERY).agg(pl.col("u").mean().alias(VALUE))
    return ctx.stats.select(QUERY).join(agg, on=QUERY, how="left", maintain_order="left")


register(
    ExtraMeasure(
        "r_prec_hit",
        "ranking",
        "|L_min(k,|R|) ∩ R| / |R|, undefined when 0 (Microsoft Recommenders r_precision_at_k)",
        f"{MSR} r_precision_at_k",
        _r_prec_hit,
        params=CUTOFFS,
        undefined_when="no relevant document in the first min(k, |R|) places",
    )
)
register(
    ExtraMeasure(
        "catalog_coverage_train",
        "beyond",
        "distinct items of the top k lists / distinct training items (Microsoft "
        "Recommenders catalog_coverage)",
        f"{MSR} catalog_coverage",
        None,
        summary=GLOBAL,
        global_summary=_coverage_of_train,
        params=CUTOFFS,
        needs=("train",),
        aggregate="global",
        better=HIGHER,
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "novelty_pooled",
        "beyond",
        "−log2(training ratings share) pooled over every recommendation of the top k "
        "(Microsoft Recommenders novelty)",
        f"{MSR} novelty",
        None,
        summary=GLOBAL,
        global_summary=_novelty_pooled,
        params=CUTOFFS,
        needs=("train",),
        aggregate="global: pooled over every recommendation",
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "ild_cooccurrence",
        "beyond",
        "1 − mean training co-occurrence cosine of the pairs of the top k (Microsoft "
        "Recommenders user_diversity)",
        f"{MSR} user_diversity, diversity",
        _user_diversity,
        params=CUTOFFS,
        needs=("train",),
        undefined_when="fewer than two recommended items",
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "unexpectedness_cooccurrence",
        "beyond",
        "mean over the top k of 1 − the mean training co-occurrence cosine "
        "with the user's training items (Microsoft Recommenders user_serendipity)",
        f"{MSR} user_serendipity, serendipity",
        _unexpectedness,
        params=CUTOFFS,
        needs=("train",),
        undefined_when="no training item or no recommendation",
        ties=FREE_WHOLE,
    )
)
