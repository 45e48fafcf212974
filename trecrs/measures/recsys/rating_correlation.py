"""Rank correlations of a ranking with the user's test ratings: NDPM (Yao 1995), Kendall's tau-b and
Spearman's rho (Herlocker et al. 2004). Registered by :mod:`.ranking`, in the order its measures print.

Conventions as :mod:`.ranking`: trec_eval's ranking; a rated item the run did not retrieve sits below every
retrieved one, tied with the other unretrieved ones.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ...schema import DOC, ITEM, QUERY, RANK, RATING, USER
from .registry import VALUE, Context, undefined_unless

F = pl.Float64


def _reference_pairs(ctx: Context) -> pl.DataFrame:
    """All pairs of a query's test-rated items: ``query, cmp_ref, cmp_sys`` (signs of a-vs-b preferences).

    Reference: the user's test ratings (``--test``). System: rank in the run; test items the run did not
    retrieve are tied below every retrieved one. Built by a self-join per query: O(sum of |Te_u|^2) rows.
    """

    def make() -> pl.DataFrame:
        test = ctx.require("test", "rank correlations")
        ref = ctx.query_users.join(test.select(USER, ITEM, RATING), on=USER, how="inner")
        pos = ctx.ranked.select(QUERY, pl.col(DOC).alias(ITEM), RANK)
        ref = ref.join(pos, on=[QUERY, ITEM], how="left")
        big = np.iinfo(np.int64).max
        ref = ref.with_columns(
            pl.col(RANK).fill_null(big).alias("pos"), pl.int_range(pl.len()).over(QUERY).alias("i")
        )
        a = ref.select(QUERY, "i", pl.col(RATING).alias("ra"), pl.col("pos").alias("pa"))
        b = ref.select(QUERY, pl.col("i").alias("j"), pl.col(RATING).alias("rb"), pl.col("pos").alias("pb"))
        pairs = a.join(b, on=QUERY).filter(pl.col("i") < pl.col("j"))
        return pairs.select(
            QUERY,
            (pl.col("ra") - pl.col("rb")).sign().cast(pl.Int8).alias("cmp_ref"),
            # a ranked higher (smaller position) means the system prefers a
            (pl.col("pb") - pl.col("pa")).sign().cast(pl.Int8).alias("cmp_sys"),
        )

    return ctx.cached("reference_pairs", make)


def _pair_counts(ctx: Context) -> pl.DataFrame:
    pairs = _reference_pairs(ctx)
    prod = pl.col("cmp_ref") * pl.col("cmp_sys")
    agg = pairs.group_by(QUERY).agg(
        pl.len().cast(F).alias("n0"),
        (prod > 0).sum().cast(F).alias("conc"),
        (prod < 0).sum().cast(F).alias("disc"),
        (pl.col("cmp_ref") == 0).sum().cast(F).alias("tie_ref"),
        (pl.col("cmp_sys") == 0).sum().cast(F).alias("tie_sys"),
        ((pl.col("cmp_ref") != 0) & (pl.col("cmp_sys") == 0)).sum().cast(F).alias("compatible"),
    )
    q = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
    return q.join(agg, on=QUERY, how="left", maintain_order="left").fill_null(0.0)


def ndpm(ctx: Context, param) -> pl.DataFrame:
    """Normalized distance-based performance measure (Yao 1995), over the user's test-rated items.

    NDPM = (2·C⁻ + C^u) / (2·C^i): C⁻ pairs the user orders strictly and the system the other way, C^u
    pairs the user orders strictly and the system ties (both unretrieved), C^i pairs the user orders
    strictly. 0 = the system agrees with every strict preference, 1 = it reverses all; lower is better.
    Undefined when the user's test ratings are all equal (Herlocker et al. 2004, section 4.2.3).
    """
    pc = _pair_counts(ctx)
    strict = pl.col("n0") - pl.col("tie_ref")
    value = (2 * pl.col("disc") + pl.col("compatible")) / (2 * strict)
    return pc.select(QUERY, undefined_unless(strict > 0, value).alias(VALUE))


def kendall_vs_ratings(ctx: Context, param) -> pl.DataFrame:
    """Kendall's tau-b between the system's order and the user's test ratings (over the test-rated items).

    tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)), n1 / n2 the pairs tied by the ratings / by the system
    (unretrieved items tie). Equals ``scipy.stats.kendalltau``. Undefined when either side ties everything.
    """
    pc = _pair_counts(ctx)
    den = (pl.col("n0") - pl.col("tie_ref")) * (pl.col("n0") - pl.col("tie_sys"))
    value = (pl.col("conc") - pl.col("disc")) / den.sqrt()
    return pc.select(QUERY, undefined_unless(den > 0, value).alias(VALUE))


def spearman_vs_ratings(ctx: Context, param) -> pl.DataFrame:
    """Spearman's rho between the system's order and the user's test ratings (over the test-rated items).

    Pearson correlation of the average ranks (ties get their mean rank; unretrieved items tie below the
    retrieved ones). Equals ``scipy.stats.spearmanr``. Undefined when either side ties everything.
    """

    def make() -> pl.DataFrame:
        test = ctx.require("test", "spearman_rho")
        ref = ctx.query_users.join(test.select(USER, ITEM, RATING), on=USER, how="inner")
        pos = ctx.ranked.select(QUERY, pl.col(DOC).alias(ITEM), RANK)
        ref = ref.join(pos, on=[QUERY, ITEM], how="left").with_columns(
            (-pl.col(RANK).fill_null(np.iinfo(np.int64).max)).cast(F).alias("sys")
        )
        ref = ref.with_columns(
            pl.col(RATING).rank("average").over(QUERY).alias("ra"),
            pl.col("sys").rank("average").over(QUERY).alias("sa"),
        )
        return ref.group_by(QUERY).agg(pl.corr("ra", "sa").alias(VALUE))

    agg = ctx.cached("spearman", make)
    q = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
    out = q.join(agg, on=QUERY, how="left", maintain_order="left")
    return out.with_columns(pl.when(pl.col(VALUE).is_nan()).then(None).otherwise(pl.col(VALUE)).alias(VALUE))
