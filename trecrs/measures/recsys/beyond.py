"""Beyond-accuracy measures: coverage, concentration (Gini, entropy), novelty, popularity, and
popularity-stratified precision/recall (short head vs long tail).

Item popularity comes from the training ratings (``train=``): φ(i) = number of training ratings of i
(= users who rated it), p(i) = φ(i)/|U_train|. Short head and long tail follow the one rule of
:mod:`trecrs.data.popularity` (ties at the boundary split by natural item id order). The catalogue I is the item catalogue given (``items=``,
``--items``), else every item of the training ratings plus every item the run retrieved. "Recommended" means: in the top k of an evaluated query (the whole L_u when
no cutoff is given), in trec_eval's order.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ...data.popularity import HEAD, STRATUM, TAIL, popularity_strata
from ...schema import DOC, ITEM, QUERY, RANK
from ..trec_eval import HIGHER, NEITHER
from .registry import (
    CUTOFFS,
    GLOBAL,
    NO_PARAMS,
    RELEVANT,
    VALUE,
    Context,
    ExtraMeasure,
    register,
    safe_div,
    undefined_unless,
)
from .ties import FREE, FREE_WHOLE

F = pl.Float64


def _recommended(ctx: Context, k: int | None) -> pl.DataFrame:
    return ctx.top(k).select(QUERY, pl.col(DOC).alias(ITEM), RANK, RELEVANT)


def _item_counts(ctx: Context, k: int | None) -> pl.DataFrame:
    """How often each item is recommended (in a top k) over the evaluated queries: ``item, n``."""
    return ctx.cached(
        ("rec_counts", k), lambda: _recommended(ctx, k).group_by(ITEM).agg(pl.len().cast(F).alias("n"))
    )


# --------------------------------------------------------------------------------------------- coverage


def _user_coverage(ctx: Context, param, frame) -> float:
    """Share of the qrels queries (test users) that receive at least one recommendation.

    |{u in qrels : L_u non-empty}| / |qrels queries| (Herlocker et al. 2004, section 5.1; Ge, Delgado-Battenfeld,
    Jannach 2010). Queries of the run that are not in the qrels do not count.
    """
    n = ctx.stats.filter(pl.col("num_ret") > 0).height
    return n / ctx.all_qrels_queries if ctx.all_qrels_queries else math.nan


def _catalog_coverage(ctx: Context, k: int | None, frame) -> float:
    """Share of the catalogue recommended to someone: |∪_u top-k(u)| / |I| (Ge et al. 2010)."""
    rec = _item_counts(ctx, k).get_column(ITEM)
    return rec.n_unique() / ctx.catalogue.len()


def _prediction_pairs(ctx: Context) -> pl.DataFrame:
    """``query, covered, total`` per evaluated query: the user's test ratings that got a score."""

    def make() -> pl.DataFrame:
        test = ctx.require("test", "prediction_coverage").select("user", ITEM)
        per = ctx.query_users.join(test, on="user", how="inner")
        if ctx.predictions is not None:
            scored = ctx.predictions.filter(pl.col("score").is_not_null() & pl.col("score").is_not_nan())
            per = per.join(
                scored.select("user", ITEM).with_columns(pl.lit(True).alias("hit")),
                on=["user", ITEM],
                how="left",
            )
        else:
            ret = ctx.ranked.select(QUERY, pl.col(DOC).alias(ITEM)).with_columns(pl.lit(True).alias("hit"))
            per = per.join(ret, on=[QUERY, ITEM], how="left")
        agg = per.group_by(QUERY).agg(
            pl.col("hit").fill_null(False).sum().cast(F).alias("covered"), pl.len().cast(F).alias("total")
        )
        q = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
        return q.join(agg, on=QUERY, how="left", maintain_order="left").fill_null(0.0)

    return ctx.cached("prediction_pairs", make)


def _prediction_coverage(ctx: Context, param) -> pl.DataFrame:
    """Share of the user's test ratings the system scored: in ``predictions=`` when given, else in L_u.

    Herlocker et al. 2004, section 5.1 (prediction coverage). Per query: covered/|Te_u| (undefined when the
    user has no test rating); summary pooled over the evaluated queries: sum covered / sum |Te_u|.
    """
    p = _prediction_pairs(ctx)
    return p.select(
        QUERY, undefined_unless(pl.col("total") > 0, pl.col("covered") / pl.col("total")).alias(VALUE)
    )


def _prediction_coverage_summary(ctx: Context, param, frame) -> float:
    p = _prediction_pairs(ctx)
    total = float(p.get_column("total").sum())
    return float(p.get_column("covered").sum()) / total if total else math.nan


# --------------------------------------------------------------------------------------------- concentration


def gini_index(counts: np.ndarray) -> float:
    """Gini index of a distribution of counts (items never recommended included as zeros).

    G = sum_i (2i - n - 1) x_(i) / (n · sum x), x sorted ascending, i = 1..n: 0 when every item is
    recommended equally often, (n-1)/n when one item takes every recommendation (Gini 1912; as a sales
    diversity measure: Fleder & Hosanagar 2009; Shani & Gunawardana 2011, section 8.3.3).
    """
    x = np.sort(np.asarray(counts, dtype=np.float64))
    n = x.size
    total = x.sum()
    if n == 0 or total == 0:
        return math.nan
    i = np.arange(1, n + 1, dtype=np.float64)
    return float(np.sum((2 * i - n - 1) * x) / (n * total))


def shannon_entropy(counts: np.ndarray) -> float:
    """Shannon entropy in bits of the recommendation distribution: -sum p_i log2 p_i, p_i = x_i / sum x.

    log2 n for n items recommended equally often, 0 when one item takes every recommendation (Shannon 1948;
    Shani & Gunawardana 2011, section 8.3.3).
    """
    x = np.asarray(counts, dtype=np.float64)
    x = x[x > 0]
    if x.size == 0:
        return math.nan
    p = x / x.sum()
    return float(-np.sum(p * np.log2(p)))


def _gini(ctx: Context, k: int | None, frame) -> float:
    counts = _item_counts(ctx, k)
    cat = pl.DataFrame({ITEM: ctx.catalogue})
    x = cat.join(counts, on=ITEM, how="left").get_column("n").fill_null(0.0).to_numpy()
    return gini_index(x)


def _entropy(ctx: Context, k: int | None, frame) -> float:
    return shannon_entropy(_item_counts(ctx, k).get_column("n").to_numpy())


# --------------------------------------------------------------------------------------------- popularity


def _with_popularity(ctx: Context, k: int | None) -> pl.DataFrame:
    rec = _recommended(ctx, k).join(ctx.item_popularity, on=ITEM, how="left")
    return rec.with_columns(pl.col("count").fill_null(0))


def _novelty(ctx: Context, k: int | None) -> pl.DataFrame:
    """Mean self-information of the recommended items: mean over the top k of -log2 p(i).

    p(i) = |users who rated i in training| / |training users| (Zhou et al. 2010, PNAS; Vargas & Castells
    2011). Items without training ratings have no defined self-information: left out, and counted.
    Per query the mean over its top k; summary the mean over queries (undefined for a query with no
    recommended item of known popularity).
    """
    rec = _with_popularity(ctx, k)
    unknown = rec.filter(pl.col("count") == 0).height
    if unknown:
        ctx.note(f"novelty: {unknown} recommendations of items without training ratings left out")
    users = float(ctx.train_users)
    agg = (
        rec.filter(pl.col("count") > 0)
        .group_by(QUERY)
        .agg((-(pl.col("count").cast(F) / users).log(2)).mean().alias(VALUE))
    )
    q = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
    return q.join(agg, on=QUERY, how="left", maintain_order="left")


def _arp(ctx: Context, k: int | None) -> pl.DataFrame:
    """Average recommended popularity: mean over the top k of φ(i), the item's number of training ratings.

    ARP = (1/|U|) sum_u (1/|L_u|) sum_{i in L_u} φ(i) (Abdollahpouri, Burke, Mobasher 2019); items without
    training ratings count φ = 0. Undefined for a query with no recommendation.
    """
    rec = _with_popularity(ctx, k)
    agg = rec.group_by(QUERY).agg(pl.col("count").cast(F).mean().alias(VALUE))
    q = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
    return q.join(agg, on=QUERY, how="left", maintain_order="left")


# --------------------------------------------------------------------------------------------- strata


def _strata(ctx: Context) -> pl.DataFrame:
    return ctx.cached("strata", lambda: popularity_strata(ctx.require("train", "head/tail"), ctx.head_share))


def _stratified(stratum: str, kind: str):
    def per_query(ctx: Context, k: int | None) -> pl.DataFrame:
        strata = _strata(ctx).select(pl.col(ITEM).alias(DOC), STRATUM)
        in_stratum = pl.col(STRATUM).fill_null(TAIL) == stratum
        hits = (
            ctx.top(k)
            .join(strata, on=DOC, how="left")
            .group_by(QUERY)
            .agg((pl.col(RELEVANT) & in_stratum).sum().cast(F).alias("hits"))
        )
        rel = (
            ctx.qrels.filter(pl.col("rel") >= ctx.level)
            .join(strata, on=DOC, how="left")
            .filter(in_stratum)
            .group_by(QUERY)
            .agg(pl.len().cast(F).alias("rel_s"))
        )
        st = ctx.stats.join(hits, on=QUERY, how="left").join(rel, on=QUERY, how="left").fill_null(0.0)
        if kind == "precision":
            den = pl.lit(float(k)) if k is not None else pl.col("num_ret").cast(F)
            return st.select(QUERY, safe_div(pl.col("hits"), den).alias(VALUE))
        return st.select(
            QUERY, undefined_unless(pl.col("rel_s") > 0, pl.col("hits") / pl.col("rel_s")).alias(VALUE)
        )

    return per_query


# --------------------------------------------------------------------------------------------- registry

HERLOCKER = "Herlocker, Konstan, Terveen, Riedl 2004"
GE = "Ge, Delgado-Battenfeld, Jannach 2010 (Beyond accuracy: coverage and serendipity)"
CREMONESI = "Cremonesi, Koren, Turrin 2010 (Performance of recommender algorithms on top-N tasks)"


def _global(
    name: str,
    doc: str,
    source: str,
    summary,
    *,
    params: str = NO_PARAMS,
    needs=(),
    better: str = HIGHER,
    ties: str = FREE_WHOLE,
) -> None:
    """Register a measure of the whole evaluation (no per-query value): coverages, Gini, entropy."""
    register(
        ExtraMeasure(
            name,
            "beyond",
            doc,
            source,
            None,
            summary=GLOBAL,
            global_summary=summary,
            params=params,
            needs=needs,
            aggregate="global",
            better=better,
            ties=ties,
        )
    )


_global(
    "user_coverage",
    "share of the qrels queries with at least one recommendation",
    f"{HERLOCKER}; {GE}",
    _user_coverage,
    ties=FREE,
)
_global(
    "catalog_coverage", "share of the catalogue (the items given, else training items + run items) in some top k", GE,
    _catalog_coverage, params=CUTOFFS, needs=("catalogue",),
)  # fmt: skip
register(
    ExtraMeasure(
        "prediction_coverage",
        "beyond",
        "share of the test ratings scored (in the predictions if given, else in the run)",
        HERLOCKER,
        _prediction_coverage,
        summary=GLOBAL,
        global_summary=_prediction_coverage_summary,
        needs=("test",),
        aggregate="pooled: scored test ratings / test ratings",
        undefined_when="the user has no test rating",
        ties=FREE,
    )
)
# Gini and entropy describe how concentrated the recommendations are: neither way is better by definition
_global(
    "gini", "Gini index of how often catalogue items are recommended in the top k (0 = uniform)",
    "Fleder & Hosanagar 2009; Shani & Gunawardana 2011", _gini, params=CUTOFFS, needs=("catalogue",), better=NEITHER,
)  # fmt: skip
_global(
    "entropy", "Shannon entropy (bits) of the items recommended in the top k",
    "Shannon 1948; Shani & Gunawardana 2011", _entropy, params=CUTOFFS, better=NEITHER,
)  # fmt: skip
register(
    ExtraMeasure(
        "novelty",
        "beyond",
        "mean self-information -log2 p(i) of the top k, p = training popularity",
        "Zhou et al. 2010; Vargas & Castells 2011",
        _novelty,
        params=CUTOFFS,
        needs=("train",),
        undefined_when="no recommended item has training ratings",
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "arp",
        "beyond",
        "average recommended popularity: mean training ratings count of the top k",
        "Abdollahpouri, Burke, Mobasher 2019",
        _arp,
        params=CUTOFFS,
        needs=("train",),
        undefined_when="no recommendation",
        better=NEITHER,  # popularity bias described, not judged: the goal decides which way is better
        ties=FREE_WHOLE,
    )
)
for _s in (HEAD, TAIL):
    register(
        ExtraMeasure(
            f"precision_{_s}",
            "beyond",
            f"relevant {_s} items in the top k / k (short head = most "
            "popular items holding 33% of training ratings)",
            CREMONESI,
            _stratified(_s, "precision"),
            params=CUTOFFS,
            needs=("train",),
            ties=FREE_WHOLE,
        )
    )
    register(
        ExtraMeasure(
            f"recall_{_s}",
            "beyond",
            f"relevant {_s} items in the top k / relevant {_s} items",
            CREMONESI,
            _stratified(_s, "recall"),
            params=CUTOFFS,
            needs=("train",),
            undefined_when=f"the query has no relevant {_s} item",
            ties=FREE_WHOLE,
        )
    )

__all__ = ["NO_PARAMS", "gini_index", "popularity_strata", "shannon_entropy"]
