"""Measures that compare the ranking with the qrels' ideal ranking or its own pairs: compatibility (Compat,
Clarke, Vtyurina, Smucker 2021), the pairwise accuracy of the retrieved list (ir_measures' Accuracy) and
the ROC AUC of the top k that RePlay computes (its RocAuc: the same pairs, with a value for every list).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ...errors import UsageError
from ...schema import DOC, QUERY, RANK, REL
from .ranking import cumulative
from .registry import CUTOFFS, RELEVANT, VALUE, VALUES, Context, ExtraMeasure, register, undefined_unless

F = pl.Float64
COMPAT_SOURCE = (
    "Clarke, Vtyurina, Smucker 2021 (Assessing top-k preferences, TOIS); ir_measures' compat provider"
)


def _rbo(first: np.ndarray, p: float, depth: int) -> float:
    """Rank-biased overlap to ``depth`` of two rankings whose common documents enter both top-d sets at
    depths ``first``: sum_d p^(d-1) |A_d ∩ B_d| / d / sum_d p^(d-1) (Webber, Moffat, Zobel 2010)."""
    if depth == 0:
        return 0.0
    overlap = np.cumsum(np.bincount(first, minlength=depth + 1)[1 : depth + 1])
    weight = np.cumprod(np.concatenate([[1.0], np.full(depth - 1, p)]))
    return float((weight * overlap / np.arange(1, depth + 1)).sum() / weight.sum())


def _ideal(ctx: Context) -> pl.DataFrame:
    """``query, rank, ideal``: each relevant qrels document (grade >= level) at its place in the ideal ranking
    (grade descending, then in the run's order, unretrieved documents last) and its rank in the run (null if
    not retrieved)."""
    rel = ctx.qrels.filter(pl.col(REL) >= ctx.level).select(QUERY, DOC, REL)
    ranked = ctx.ranked.select(QUERY, DOC, RANK)
    joined = rel.join(ranked, on=[QUERY, DOC], how="left").sort(
        [QUERY, REL, RANK], descending=[False, True, False], nulls_last=True
    )
    return joined.with_columns((pl.int_range(pl.len()).over(QUERY) + 1).alias("ideal")).select(
        QUERY, RANK, "ideal"
    )


def _compat(ctx: Context, param: tuple) -> pl.DataFrame:
    """Compat = RBO_p(run, ideal) to depth max(|run|, |ideal|), divided by RBO_p(ideal, ideal) when
    ``normalize`` (and that is > 0); the ideal ranking is the query's relevant documents by grade
    (ir_measures' compat provider, Clarke et al. 2021). A document enters both top-d sets at
    d = max(its rank in the run, its place in the ideal)."""
    p, normalize = param[0], bool(param[1])
    ideal = _ideal(ctx)
    firsts = dict(
        ideal.filter(pl.col(RANK).is_not_null())
        .group_by(QUERY)
        .agg(pl.max_horizontal(RANK, "ideal").alias("first"))
        .iter_rows()
    )
    values = []
    for query, n_ret, n_rel in ctx.stats.select(QUERY, "num_ret", "num_rel").iter_rows():
        depth = max(n_ret, n_rel)
        score = _rbo(np.asarray(firsts.get(query, []), dtype=np.int64), p, depth)
        if normalize:
            best = _rbo(np.arange(1, n_rel + 1, dtype=np.int64), p, depth)
            score = score / best if best > 0.0 else score
        values.append(score)
    return pl.DataFrame(
        {QUERY: ctx.stats.get_column(QUERY), VALUE: values}, schema={QUERY: pl.Utf8, VALUE: F}
    )


def _check_compat(param: tuple) -> None:
    if not 0.0 <= param[0] <= 1.0:
        raise UsageError("measure compat: p must be in [0, 1]")
    if param[1] not in (0.0, 1.0):
        raise UsageError("measure compat: normalize must be 0 or 1")


def _pairs(ctx: Context, k: int | None) -> pl.DataFrame:
    """``query, above, r, n`` of every evaluated query: over the top k, the sum over relevant documents of
    the non-relevant documents above them, and the relevant (R_k) and non-relevant (N_k, unjudged
    included) documents; 0 for a query without ranking."""
    top = cumulative(ctx) if k is None else cumulative(ctx).filter(pl.col(RANK) <= k)
    agg = top.group_by(QUERY).agg(
        pl.col("cum_nonrel").filter(pl.col(RELEVANT)).sum().cast(F).alias("above"),
        pl.col(RELEVANT).sum().cast(F).alias("r"),
        (~pl.col(RELEVANT)).sum().cast(F).alias("n"),
    )
    return ctx.stats.select(QUERY).join(agg, on=QUERY, how="left", maintain_order="left").fill_null(0)


def _accuracy(ctx: Context, k: int | None) -> pl.DataFrame:
    """Accuracy@k = 1 - sum over relevant documents at rank <= k of #{non-relevant above it} / (R_k N_k), R_k
    and N_k the relevant and non-relevant (unjudged included) documents of the top k: the share of
    (relevant, non-relevant) pairs of the top k in the right order (ir_measures' accuracy provider).
    Undefined when R_k or N_k is 0."""
    r, n = pl.col("r"), pl.col("n")
    return _pairs(ctx, k).select(
        QUERY, undefined_unless((r > 0) & (n > 0), 1.0 - pl.col("above") / (n * r)).alias(VALUE)
    )


def _auc_cut(ctx: Context, k: int | None) -> pl.DataFrame:
    """ROC AUC of the top k alone: 1 - Σ_{relevant j <= k} #{non-relevant above j} / (R_k N_k) as
    ``accuracy.k``, but 0 when the top k holds no relevant document (an empty ranking too) and 1 when it
    holds no non-relevant one: every query has a value.

    RePlay 0.22.0 ``replay/metrics/rocauc.py`` ``RocAuc``: over the first min(k, |L|) recommendations,
    ``fp_cum`` (Σ over hits of the misses above) / (``fp_cur`` · hits), 0 if there is no hit, 1 if
    ``fp_cum`` is 0. Ranks 1-3 = [non-relevant, relevant, relevant] at k = 3: 1 - 2/(1 · 2) = 0.
    """
    r, n = pl.col("r"), pl.col("n")
    value = pl.when(r == 0).then(0.0).when(n == 0).then(1.0).otherwise(1.0 - pl.col("above") / (n * r))
    return _pairs(ctx, k).select(QUERY, value.alias(VALUE))


register(
    ExtraMeasure(
        "compat",
        "ranking",
        "compatibility: rank-biased overlap with the ideal ranking of the qrels, normalised (ir_measures' Compat)",
        COMPAT_SOURCE,
        _compat,
        params=VALUES,
        param_names=("p", "normalize"),
        defaults=(0.95, 1.0),
        validate=_check_compat,
    )
)
register(
    ExtraMeasure(
        "accuracy",
        "ranking",
        "share of (relevant, non-relevant) pairs of the top k in order (ir_measures' Accuracy)",
        "ir_measures' accuracy provider (MacAvaney, Macdonald, Ounis 2022)",
        _accuracy,
        params=CUTOFFS,
        undefined_when="no relevant or no non-relevant document in the top k",
    )
)
register(
    ExtraMeasure(
        "auc_cut",
        "ranking",
        "ROC AUC of the top k: 0 without relevant, 1 without non-relevant documents there (RePlay RocAuc@k)",
        "RePlay 0.22.0 replay/metrics/rocauc.py RocAuc",
        _auc_cut,
        params=CUTOFFS,
    )
)
