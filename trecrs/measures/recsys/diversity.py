"""Diversity of the top k over item categories: intra-list diversity, subtopic recall, category coverage,
categorical diversity (distinct categories per slot).

cats(i) is the set of categories of item i in the item features (``item_features=``, ``--item-features``;
:mod:`trecrs.files.features`); an item absent from them has no category. L_u@k is the top k of an
evaluated query's ranking in trec_eval's order (the whole ranking without k), Rel_u the query's qrels
items with ``rel >= level``.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ...schema import CATEGORY, DOC, ITEM, QUERY, REL
from .registry import (
    CUTOFFS,
    GLOBAL,
    RELEVANT,
    VALUE,
    Context,
    ExtraMeasure,
    register,
    safe_div,
    undefined_unless,
)
from .ties import FREE_WHOLE

F = pl.Float64
SET = "_set"


def categories(ctx: Context, measure: str) -> pl.DataFrame:
    """``item, category``: the item features (a :class:`UsageError` naming ``item_features=`` if absent)."""
    return ctx.require("item_features", measure)


def _top_items(ctx: Context, k: int | None) -> pl.DataFrame:
    return ctx.top(k).select(QUERY, pl.col(DOC).alias(ITEM))


def _per_query(ctx: Context, agg: pl.DataFrame) -> pl.DataFrame:
    q = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
    return q.join(agg, on=QUERY, how="left", maintain_order="left")


def category_sets(ctx: Context, distance: str = "jaccard") -> tuple[pl.DataFrame, np.ndarray]:
    """``item, _set``: each categorised item's category set as an index, and D[s, t], the distance of the
    sets s and t: 1 − Jaccard (``distance="jaccard"``) or the Hamming distance |s Δ t| of their category
    indicator vectors (``"hamming"``). Items with the same categories share a set, so the pairs of a list
    are counted by set."""

    def make():
        cats = categories(ctx, "ild")
        per_item = (
            cats.group_by(ITEM)
            .agg(pl.col(CATEGORY).unique().sort())
            .with_columns(pl.col(CATEGORY).list.join("\x00").alias("key"))
        )  # no category holds a NUL (files.lines)
        sets = (
            per_item.select("key", pl.col(CATEGORY).alias("s"))
            .unique("key", maintain_order=True)
            .with_row_index(SET)
        )
        per_item = per_item.join(sets, on="key").select(ITEM, pl.col(SET).cast(pl.Int64))
        names = cats.get_column(CATEGORY).unique().sort()
        index = {c: j for j, c in enumerate(names.to_list())}
        member = np.zeros((sets.height, len(index)))
        for s, cs in enumerate(sets.get_column("s").to_list()):
            member[s, [index[c] for c in cs]] = 1.0
        inter = member @ member.T
        size = member.sum(axis=1)
        union = size[:, None] + size[None, :] - inter
        return per_item, {"jaccard": 1.0 - inter / union, "hamming": union - inter}

    per_item, dist = ctx.cached("category_sets", make)
    return per_item, dist[distance]


def _pair_sums(ctx: Context, k: int | None, distance: str) -> pl.DataFrame:
    """Per query with a categorised item in L_u@k: ``n`` = its categorised items, ``sum`` = Σ over the
    ordered pairs of them of the distance of their category sets (each pair counted twice)."""
    per_item, dist = category_sets(ctx, distance)
    counts = (
        _top_items(ctx, k)
        .join(per_item, on=ITEM, how="inner")
        .group_by(QUERY, SET)
        .agg(pl.len().cast(F).alias("c"))
    )
    pairs = counts.join(counts, on=QUERY, suffix="_t")
    flat = pairs.get_column(SET).to_numpy() * dist.shape[0] + pairs.get_column(f"{SET}_t").to_numpy()
    pairs = pairs.with_columns(pl.Series("d", dist.ravel()[flat]))
    total = pairs.group_by(QUERY).agg((pl.col("c") * pl.col("c_t") * pl.col("d")).sum().alias("sum"))
    return counts.group_by(QUERY).agg(pl.col("c").sum().alias("n")).join(total, on=QUERY)


def _ild(ctx: Context, k: int | None) -> pl.DataFrame:
    """Intra-list diversity: mean over the pairs i < j of L_u@k of 1 - |cats(i) ∩ cats(j)| / |cats(i) ∪ cats(j)|
    (Ziegler, McNee, Konstan & Lausen 2005, with Jaccard distance). Items without categories are left out;
    undefined for fewer than two categorised items."""
    agg = _pair_sums(ctx, k, "jaccard").select(
        QUERY,
        undefined_unless(pl.col("n") >= 2, pl.col("sum") / (pl.col("n") * (pl.col("n") - 1))).alias(VALUE),
    )  # Σ over ordered pairs counts each pair twice: / n(n-1) is the mean over n(n-1)/2 pairs
    return _per_query(ctx, agg)


def _ild_hamming(ctx: Context, k: int | None) -> pl.DataFrame:
    """Intra-list diversity with the Hamming distance of the category indicator vectors: mean over the pairs
    i < j of the categorised items of L_u@k of |cats(i) Δ cats(j)|; 0 when L_u@k holds fewer than two items,
    undefined when it holds two or more but fewer than two categorised ones.

    RecTools 0.19.0's ``IntraListDiversity`` with ``PairwiseHammingDistanceCalculator`` over one binary
    feature per category (``rectools/metrics/diversity.py``, ``distances.py``: a pair with an item missing
    from the features has a NaN distance, left out of the mean; a list of one item scores 0).
    """
    sums = _pair_sums(ctx, k, "hamming")
    listed = _top_items(ctx, k).group_by(QUERY).agg(pl.len().alias("m"))
    agg = listed.join(sums, on=QUERY, how="left").select(
        QUERY,
        pl.when(pl.col("m") < 2)
        .then(0.0)
        .otherwise(undefined_unless(pl.col("n") >= 2, pl.col("sum") / (pl.col("n") * (pl.col("n") - 1))))
        .alias(VALUE),
    )
    return _per_query(ctx, agg)


def _srecall(ctx: Context, k: int | None) -> pl.DataFrame:
    """Subtopic recall: |cats(L_u@k ∩ Rel_u)| / |cats(Rel_u)| (Zhai, Cohen & Lafferty 2003; Elliot's
    SRecall). Undefined when the relevant items have no category."""
    cats = categories(ctx, "srecall")
    rel = ctx.qrels.filter(pl.col(REL) >= ctx.level).select(QUERY, pl.col(DOC).alias(ITEM))
    all_cats = rel.join(cats, on=ITEM).group_by(QUERY).agg(pl.col(CATEGORY).n_unique().cast(F).alias("den"))
    hit = ctx.top(k).filter(pl.col(RELEVANT)).select(QUERY, pl.col(DOC).alias(ITEM)).join(cats, on=ITEM)
    found = hit.group_by(QUERY).agg(pl.col(CATEGORY).n_unique().cast(F).alias("num"))
    agg = all_cats.join(found, on=QUERY, how="left").fill_null(0.0)
    return _per_query(ctx, agg.select(QUERY, (pl.col("num") / pl.col("den")).alias(VALUE)))


def _category_diversity(ctx: Context, k: int | None) -> pl.DataFrame:
    """Categorical diversity: |cats(L_u@k)| / k, the distinct categories of the top k per recommendation
    slot (/ |L_u| without k); 0 for an empty ranking.

    RePlay 0.22.0 ``replay/metrics/categorical_diversity.py`` ``CategoricalDiversity``: distinct
    ``category_id`` among the first min(k, |L|) recommendations / k, one category per recommendation (here
    an item's categories, so the two agree when every item has one). Top 5 in categories a, b, a, c, a:
    3/5 = 0.6; a list of 3 items in a, b, c at k = 5: 3/5 too.
    """
    cats = categories(ctx, "category_diversity")
    top = _top_items(ctx, k).join(cats, on=ITEM)
    found = top.group_by(QUERY).agg(pl.col(CATEGORY).n_unique().cast(F).alias("c"))
    den = pl.lit(float(k)) if k is not None else pl.col("num_ret").cast(F)
    st = ctx.stats.join(found, on=QUERY, how="left").fill_null(0.0)
    return st.select(QUERY, safe_div(pl.col("c"), den).alias(VALUE))


def _category_coverage(ctx: Context, k: int | None) -> pl.DataFrame:
    """Category coverage: |cats(L_u@k)| / |all categories|; 0 for an empty ranking."""
    cats = categories(ctx, "category_coverage")
    total = float(cats.get_column(CATEGORY).n_unique())
    agg = (
        _top_items(ctx, k)
        .join(cats, on=ITEM)
        .group_by(QUERY)
        .agg((pl.col(CATEGORY).n_unique() / total).alias(VALUE))
    )
    return _per_query(ctx, agg).with_columns(pl.col(VALUE).fill_null(0.0))


def _category_coverage_summary(ctx: Context, k: int | None, frame) -> float:
    """|cats(∪_u L_u@k)| / |all categories|: the categories of every list together."""
    cats = categories(ctx, "category_coverage")
    seen = _top_items(ctx, k).join(cats, on=ITEM).get_column(CATEGORY).n_unique()
    return seen / cats.get_column(CATEGORY).n_unique()


ZIEGLER = (
    "Ziegler, McNee, Konstan & Lausen 2005 (Improving recommendation lists through topic diversification)"
)
ZHAI = "Zhai, Cohen & Lafferty 2003 (Beyond independent relevance); Elliot's SRecall"

register(
    ExtraMeasure(
        "ild",
        "beyond",
        "intra-list diversity: mean over pairs of the top k of 1 - Jaccard(cats(i), cats(j))",
        ZIEGLER,
        _ild,
        params=CUTOFFS,
        needs=("item_features",),
        undefined_when="fewer than two recommended items with categories",
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "ild_hamming",
        "beyond",
        "intra-list diversity with Hamming distance: mean over pairs of the top k of "
        "|cats(i) Δ cats(j)| (RecTools IntraListDiversity)",
        "RecTools 0.19.0 rectools/metrics/diversity.py IntraListDiversity; {ZIEGLER}",
        _ild_hamming,
        params=CUTOFFS,
        needs=("item_features",),
        undefined_when="two or more recommended items but fewer than two with categories",
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "srecall",
        "beyond",
        "subtopic recall: categories of the relevant top k / categories of the relevant items",
        ZHAI,
        _srecall,
        params=CUTOFFS,
        needs=("item_features",),
        undefined_when="no relevant item has a category",
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "category_coverage",
        "beyond",
        "share of every category found in the top k",
        "Elliot; Ziegler et al. 2005",
        _category_coverage,
        summary=GLOBAL,
        global_summary=_category_coverage_summary,
        params=CUTOFFS,
        needs=("item_features",),
        aggregate="global: categories of the union of every top k / all categories",
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "category_diversity",
        "beyond",
        "distinct categories in the top k / k (RePlay CategoricalDiversity@k)",
        "RePlay 0.22.0 replay/metrics/categorical_diversity.py CategoricalDiversity",
        _category_diversity,
        params=CUTOFFS,
        needs=("item_features",),
        ties=FREE_WHOLE,
    )
)
