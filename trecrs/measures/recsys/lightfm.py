"""LightFM's evaluation measures, which rank each test item against every other item of the catalogue with a
tied score counted above it: precision and recall at k, reciprocal rank and ROC AUC of that rank.

The formulas of LightFM 1.17's ``lightfm/evaluation.py`` over the ranks of ``predict_rank``
(``lightfm/_lightfm_fast.pyx.template`` ``predict_ranks``, line 1318: an item's rank counts every other item whose
prediction is >= its own, 0 = best; ``calculate_auc_from_rank`` for AUC), on trecrs's data conventions
(:mod:`.registry`) with a run read as a score matrix: a listed item's prediction is its score as float32 (LightFM
computes in float32), every item the run does not list scores one value below the list. So, with
n = the catalogue of LightFM's interaction matrix, here every item of the data set
(:attr:`Context.dataset_items`), a listed relevant item's rank ρ is the number of other listed items scored
>= it, and a relevant item the run missed has rank n − 1 (every other item ties with or beats it). The
``lightfm:`` names of :mod:`trecrs.measures.dialects.lightfm` compute them; LightFM is called without
``train_interactions``, its default.
"""

from __future__ import annotations

import polars as pl

from ...schema import DOC, QUERY, SCORE
from .registry import CUTOFFS, NO_PARAMS, RELEVANT, VALUE, Context, ExtraMeasure, register, undefined_unless

F = pl.Float64
LIGHTFM = "LightFM 1.17 lightfm/evaluation.py"


def _listed_ranks(ctx: Context) -> pl.DataFrame:
    """``query, rho``: LightFM's rank of every listed relevant item, the other listed items whose float32
    score is >= its own."""
    scores = ctx.run.select(QUERY, DOC, pl.col(SCORE).cast(pl.Float32)).unique([QUERY, DOC])
    listed = ctx.ranked.select(QUERY, DOC, RELEVANT).join(scores, on=[QUERY, DOC], how="left")
    rho = pl.col(SCORE).rank("max", descending=True).over(QUERY).cast(F) - 1.0
    return listed.with_columns(rho.alias("rho")).filter(pl.col(RELEVANT)).select(QUERY, "rho")


def _stats(ctx: Context, k: int | None) -> pl.DataFrame:
    """Every evaluated query's stats with ``found`` = the relevant items of rank < k (missed ones included when
    n − 1 < k), ``first`` = the lowest rank of a relevant item, ``r`` = |R| and ``m`` = the missed ones."""
    n = float(ctx.dataset_items.len())

    def make() -> pl.DataFrame:
        agg = (
            _listed_ranks(ctx)
            .group_by(QUERY)
            .agg(pl.len().cast(F).alias("h"), pl.col("rho").min().alias("first"), pl.col("rho").alias("rhos"))
        )
        st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left")
        st = st.with_columns(pl.col("h").fill_null(0.0), pl.col("num_rel").cast(F).alias("r"))
        return st.with_columns((pl.col("r") - pl.col("h")).alias("m"))

    st = ctx.cached("lightfm_ranks", make)
    if k is None:
        return st
    listed = pl.col("rhos").list.eval(pl.element() < k).list.sum().fill_null(0).cast(F)
    return st.with_columns((listed + pl.when(n - 1 < k).then(pl.col("m")).otherwise(0.0)).alias("found"))


def _precision(ctx: Context, k: int | None) -> pl.DataFrame:
    """|{i ∈ R : ρ_i < k}| / k, ρ_i counting every other item scored >= i (a tie counts against i).

    LightFM's ``precision_at_k`` (``evaluation.py`` lines 80-82: ``np.less(ranks.data, k)`` summed per user, ``/ k``).
    Scores a, b tied at the top, both relevant: ρ = 1 for each, precision@1 = 0 (trec_eval's P.1: 1).
    Undefined when R is empty (LightFM leaves the user out)."""
    st = _stats(ctx, k)
    return st.select(QUERY, undefined_unless(pl.col("r") > 0, pl.col("found") / float(k or 1)).alias(VALUE))


def _recall(ctx: Context, k: int | None) -> pl.DataFrame:
    """|{i ∈ R : ρ_i < k}| / |R|. LightFM's ``recall_at_k`` (``evaluation.py`` lines 157-166: the same count ``/
    test_interactions.getnnz(axis=1)``). Undefined when R is empty."""
    st = _stats(ctx, k)
    return st.select(QUERY, undefined_unless(pl.col("r") > 0, pl.col("found") / pl.col("r")).alias(VALUE))


def _recip_rank(ctx: Context, param) -> pl.DataFrame:
    """1 / (min_{i ∈ R} ρ_i + 1) over the whole catalogue, no cutoff: 1/n when the run lists no relevant item.

    LightFM's ``reciprocal_rank`` (``evaluation.py`` lines 320-322: ``1 / (ranks + 1)``, the maximum per user). A relevant
    item tied with two others at the top: 1/3. Undefined when R is empty."""
    n = float(ctx.dataset_items.len())
    st = _stats(ctx, None)
    value = 1.0 / (pl.coalesce(pl.col("first"), pl.lit(n - 1.0)) + 1.0)
    return st.select(QUERY, undefined_unless(pl.col("r") > 0, value).alias(VALUE))


def _auc(ctx: Context, param) -> pl.DataFrame:
    """(1/|R|) Σ_{i=0}^{|R|−1} (1 − max(ρ_(i) − i, 0) / (n − |R|)), ρ_(0) <= ρ_(1) <= ... the ranks of the relevant
    items sorted, so that i other relevant items rank above the i-th; the m missed ones have ρ = n − 1.

    LightFM's ``auc_score`` (``_lightfm_fast.pyx.template`` ``calculate_auc_from_rank``, lines 1326-1376: ``rank - i``
    clamped at 0, ``1.0 - rank / num_negatives``, averaged over the positives; float32). A missed relevant
    item counts the unlisted items it ties with as negatives above it, so two missed relevant items of a
    10-item catalogue give (1 − 9/8 + 1 − 8/8) / 2 = −1/16: below 0. Undefined when R is empty or holds
    every item."""
    n = float(ctx.dataset_items.len())
    st = _stats(ctx, None)
    listed = (
        pl.col("rhos")
        .list.sort()
        .list.eval((pl.element() - pl.int_range(pl.len()).cast(F)).clip(lower_bound=0.0))
    )
    r, h, m = pl.col("r"), pl.col("h"), pl.col("m")
    missed = m * (n - 1.0) - (r * (r - 1.0) - h * (h - 1.0)) / 2.0
    above = listed.list.sum().fill_null(0.0) + missed
    value = (r - above / (n - r)) / r
    return st.select(QUERY, undefined_unless((r > 0) & (r < n), value).alias(VALUE))


_NOTE = "; LightFM ranks: a tie counts against the item, unlisted items tie below the list"
for _name, _doc, _fn, _params, _src in (
    (
        "precision_tied",
        "|{relevant i: rank_i < k}| / k, rank_i = other items scored >= i (LightFM precision_at_k)",
        _precision,
        CUTOFFS,
        "precision_at_k",
    ),
    (
        "recall_tied",
        "|{relevant i: rank_i < k}| / |R| (LightFM recall_at_k)",
        _recall,
        CUTOFFS,
        "recall_at_k",
    ),
    (
        "recip_rank_tied",
        "1 / (the best rank of a relevant item + 1) over the catalogue (LightFM reciprocal_rank)",
        _recip_rank,
        NO_PARAMS,
        "reciprocal_rank",
    ),
    (
        "auc_tied",
        "ROC AUC from the ranks over the catalogue, other relevant items above discounted (LightFM "
        "auc_score)",
        _auc,
        NO_PARAMS,
        "auc_score",
    ),
):
    register(
        ExtraMeasure(
            _name,
            "ranking",
            _doc + _NOTE,
            f"{LIGHTFM} {_src}",
            _fn,
            params=_params,
            needs=("catalogue",),
            undefined_when="no relevant document",
        )
    )
