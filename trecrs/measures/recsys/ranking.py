"""Ranking measures: ROC AUC and LAUC, boolean and rating-based rank correlations, NDPM, half-life utility,
reciprocal rank and hit rate at k, nDCG variants, and GMAP/HMAP/QMAP (the rank correlations with the test
ratings computed in :mod:`.rating_correlation`, registered here in the order they print).

Conventions (see :mod:`.registry`): the ranking is trec_eval's (:func:`trecrs.ordering.trec_order`: score as
float32 descending, ties by document id descending), so every ranking is strict; relevant = qrels value >=
the relevance level; relevant documents the run did not retrieve sit below every retrieved document, tied
with each other. Cutoff measures without a cutoff use the whole ranking. Positions are 1-based (rank j).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ...errors import UsageError
from ...schema import QUERY, RANK, REL
from ..trec_eval import LOWER
from .rating_correlation import kendall_vs_ratings as _kendall
from .rating_correlation import ndpm as _ndpm
from .rating_correlation import spearman_vs_ratings as _spearman
from .registry import (
    CUTOFFS,
    GLOBAL,
    NO_PARAMS,
    REDUCE,
    RELEVANT,
    VALUE,
    VALUES,
    Context,
    ExtraMeasure,
    register,
    safe_div,
    undefined_unless,
)
from .ties import MONOTONE, TIE_GAIN, TIE_GAIN_EXP, first_relevant, mean_gain, per_outcome

F = pl.Float64


def cumulative(ctx: Context) -> pl.DataFrame:
    """The ranked rows with ``cum_rel`` / ``cum_nonrel``: relevant / non-relevant documents at ranks <= j."""

    def make() -> pl.DataFrame:
        return ctx.ranked.with_columns(
            pl.col(RELEVANT).cast(pl.Int64).cum_sum().over(QUERY).alias("cum_rel"),
            (~pl.col(RELEVANT)).cast(pl.Int64).cum_sum().over(QUERY).alias("cum_nonrel"),
        )

    return ctx.cached("cumulative", make)


def _with_stats(ctx: Context, agg: pl.DataFrame) -> pl.DataFrame:
    """Every evaluated query's stats, left-joined with per-query aggregates (0 where a query has no rows)."""
    return ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left").fill_null(0)


# --------------------------------------------------------------------------------------------- ROC


def _auc(ctx: Context, param) -> pl.DataFrame:
    """ROC AUC of one query: the share of (relevant, non-relevant) pairs ranked in the right order.

    AUC_u = (1/(R·N)) · sum over relevant documents at rank j of #{non-relevant documents below j}, with R
    the relevant documents of the query (unretrieved ones count as ranked last) and N the non-relevant
    documents of L_u. Undefined when R = 0 or N = 0. (Hanley & McNeil 1982; per-user AUC as in Schröder
    et al. 2011 and Rendle et al. 2009.)
    """
    c = cumulative(ctx)
    agg = c.filter(pl.col(RELEVANT)).group_by(QUERY).agg(pl.col("cum_nonrel").sum().alias("above"))
    st = _with_stats(ctx, agg)
    r, n = pl.col("num_rel").cast(F), pl.col("num_nonrel_ret").cast(F)
    below = pl.col("num_rel_ret").cast(F) * n - pl.col("above").cast(F)
    return st.select(QUERY, undefined_unless((r > 0) & (n > 0), below / (r * n)).alias(VALUE))


def _lauc(ctx: Context, k: int | None) -> pl.DataFrame:
    """Limited AUC (Schröder et al. 2011): the ROC curve of the top k, then a straight line to (1, 1).

    With TPR_j = cum_rel(j)/R and FPR_j = cum_nonrel(j)/N after rank j:
    LAUC@k = sum over non-relevant documents at rank j <= k of TPR_j/N  +  (1 - FPR_k)(TPR_k + 1)/2.
    It is 1 when the relevant documents fill the first ranks and all lie within the top k, 0 when the top
    k holds only non-relevant documents and they are all of L_u's non-relevant documents, and it rises
    when a relevant document moves up. Without k (or k >= |L_u|) it is the AUC. Undefined when R or N is 0.
    """
    if k is None:
        return _auc(ctx, None)
    c = cumulative(ctx).filter(pl.col(RANK) <= k)
    agg = c.group_by(QUERY).agg(
        pl.col("cum_rel").filter(~pl.col(RELEVANT)).sum().alias("area_num"),
        pl.col(RELEVANT).sum().alias("rel_k"),
        (~pl.col(RELEVANT)).sum().alias("nonrel_k"),
    )
    st = _with_stats(ctx, agg)
    r, n = pl.col("num_rel").cast(F), pl.col("num_nonrel_ret").cast(F)
    tpr_k = pl.col("rel_k").cast(F) / r
    fpr_k = pl.col("nonrel_k").cast(F) / n
    value = pl.col("area_num").cast(F) / (r * n) + (1 - fpr_k) * (tpr_k + 1) / 2
    return st.select(QUERY, undefined_unless((r > 0) & (n > 0), value).alias(VALUE))


def _ktau_bool(ctx: Context, k: int | None) -> pl.DataFrame:
    """Kendall's tau-b between the system's order and boolean relevance (relevant > non-relevant).

    Universe U = L_u ∪ R_u. The system order: the first k' = min(k, n) documents by rank, every other
    document tied below them (the top-k variant; without k, k' = n and only unretrieved relevant documents
    tie). Reference order: relevant above non-relevant, ties within each class. With C / D the
    concordant / discordant pairs, n0 = |U|(|U|-1)/2, n1 = R(R-1)/2 + N(N-1)/2 the pairs tied in the
    reference and n2 = b(b-1)/2 (b = |U| - k') those tied by the system:
    tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)) (Kendall 1945; top-k lists as in Fagin, Kumar, Sivakumar
    2003, unranked documents tied at the bottom). Equals ``scipy.stats.kendalltau``. Undefined when R or N
    is 0 or the system ties everything.
    """
    c = cumulative(ctx)
    if k is not None:
        c = c.filter(pl.col(RANK) <= k)
    rt = pl.col(RELEVANT).sum()
    nt = (~pl.col(RELEVANT)).sum()
    agg = c.group_by(QUERY).agg(
        rt.alias("rt"),
        nt.alias("nt"),
        pl.len().alias("kk"),
        pl.col("cum_nonrel").filter(pl.col(RELEVANT)).sum().alias("s_c_above"),
        pl.col("cum_rel").filter(~pl.col(RELEVANT)).sum().alias("s_d_above"),
    )
    st = _with_stats(ctx, agg)
    R, N = pl.col("num_rel").cast(F), pl.col("num_nonrel_ret").cast(F)
    RT, NT, kk = pl.col("rt").cast(F), pl.col("nt").cast(F), pl.col("kk").cast(F)
    # pairs inside the top: a relevant doc at j is above (NT - cum_nonrel(j)) non-relevant top docs
    s_c = RT * NT - pl.col("s_c_above").cast(F)
    s_d = NT * RT - pl.col("s_d_above").cast(F)
    conc = s_c + RT * (N - NT)
    disc = s_d + NT * (R - RT)
    u = R + N
    n0 = u * (u - 1) / 2
    n1 = R * (R - 1) / 2 + N * (N - 1) / 2
    b = u - kk
    n2 = b * (b - 1) / 2
    den = (n0 - n1) * (n0 - n2)
    return st.select(QUERY, undefined_unless(den > 0, (conc - disc) / den.sqrt()).alias(VALUE))


# --------------------------------------------------------------------------------------------- utility


def _halflife_parts(ctx: Context, param) -> pl.DataFrame:
    alpha, d = param

    def make() -> pl.DataFrame:
        util = (pl.col(REL).cast(F) - d).clip(lower_bound=0.0)
        util = pl.when(pl.col(REL).is_not_null() & (pl.col(REL) >= 0)).then(util).otherwise(0.0)
        disc = pl.lit(2.0).pow((pl.col(RANK).cast(F) - 1) / (alpha - 1))
        got = ctx.ranked.group_by(QUERY).agg((util / disc).sum().alias("r_u"))
        ideal = (
            ctx.qrels.filter(pl.col(REL) >= 0)
            .with_columns(util.alias("g"))
            .sort([QUERY, "g"], descending=[False, True])
            .with_columns((pl.int_range(pl.len()).over(QUERY) + 1).alias(RANK))
            .group_by(QUERY)
            .agg((pl.col("g") / disc).sum().alias("r_max"))
        )
        q = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
        return q.join(got, on=QUERY, how="left").join(ideal, on=QUERY, how="left").fill_null(0.0)

    return ctx.cached(("halflife", param), make)


def _halflife(ctx: Context, param) -> pl.DataFrame:
    """Half-life utility (Breese, Heckerman, Kadie 1998, eq. 6), normalised per query.

    R_u = sum over ranks j of max(v_uj - d, 0) / 2^((j-1)/(alpha-1)), v_uj the qrels value of the document
    at rank j (0 if unjudged), d the neutral vote, alpha the half-life (the rank with a 50% chance of being
    viewed). R_u^max: the same sum with the query's judged documents in decreasing order of vote.
    Per query R_u / R_u^max (undefined when R_u^max = 0). Summary, as Breese et al.: sum R_u / sum R_u^max
    (they report 100 times that). Parameters ``halflife.ALPHA,D`` (defaults 5 and 0); the relevance level
    plays no part (d is the threshold).
    """
    p = _halflife_parts(ctx, param)
    return p.select(
        QUERY, undefined_unless(pl.col("r_max") > 0, pl.col("r_u") / pl.col("r_max")).alias(VALUE)
    )


def _halflife_summary(ctx: Context, param, frame) -> float:
    p = _halflife_parts(ctx, param)
    total = float(p.get_column("r_max").sum())
    return float(p.get_column("r_u").sum()) / total if total > 0 else math.nan


def _halflife_validate(param) -> None:
    if param[0] <= 1:
        raise UsageError(f"measure halflife: the half-life alpha must be > 1, got {param[0]:g}")


# --------------------------------------------------------------------------------------------- top-k


def _hit_rate_expected(ctx: Context, k: int | None) -> pl.DataFrame:
    """The probability of a relevant document in the top k over the orders of the tie group k cuts."""
    from .classification import confusion

    return per_outcome(confusion(ctx, k), (pl.col("tp") > 0).cast(F))


def _recip_rank_cut(ctx: Context, k: int | None) -> pl.DataFrame:
    """1/j for the first relevant document at rank j <= k, 0 if none (Voorhees 1999; MRR@k)."""
    agg = ctx.top(k).filter(pl.col(RELEVANT)).group_by(QUERY).agg(pl.col(RANK).min().alias("first"))
    st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left")
    return st.select(
        QUERY, pl.when(pl.col("first").is_null()).then(0.0).otherwise(1.0 / pl.col("first")).alias(VALUE)
    )


def _hit_rate(ctx: Context, k: int | None) -> pl.DataFrame:
    """1 if a relevant document is in the top k, else 0 (hit rate, success@k; Deshpande & Karypis 2004)."""
    agg = ctx.top(k).group_by(QUERY).agg(pl.col(RELEVANT).any().alias("hit"))
    st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left")
    return st.select(QUERY, pl.col("hit").fill_null(False).cast(F).alias(VALUE))


def _judgment_rate(ctx: Context, k: int | None) -> pl.DataFrame:
    """Judged documents in the top k / min(k, retrieved), 0 when nothing is retrieved: ir_measures'
    ``Judged@k`` (``providers/judged_provider.py``, after OpenNIR); a document is judged when the qrels
    list it, whatever its grade."""
    agg = ctx.top(k).group_by(QUERY).agg(pl.col(REL).is_not_null().sum().alias("judged"), pl.len().alias("n"))
    st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left")
    rate = pl.when(pl.col("n") > 0).then(pl.col("judged") / pl.col("n")).otherwise(0.0)
    return st.select(QUERY, rate.cast(F).alias(VALUE))


def _dcg_parts(
    ctx: Context, k: int | None, gain: pl.Expr, discount, tie_gain: str = TIE_GAIN
) -> pl.DataFrame:
    """nDCG of the top k with ``gain`` of the relevant documents and ``discount(rank)``; under ``--ties
    expected`` each position holds its tie group's mean gain (``tie_gain``, the group's sum of ``gain``)."""
    graded = pl.when(pl.col(RELEVANT)).then(gain).otherwise(0.0)
    if ctx.ties == "expected":
        graded = mean_gain(tie_gain)
    got = ctx.top(k).group_by(QUERY).agg((graded / discount(pl.col(RANK).cast(F))).sum().alias("dcg"))
    ideal = (
        ctx.qrels.filter(pl.col(REL) >= ctx.level)
        .sort([QUERY, REL], descending=[False, True])
        .with_columns((pl.int_range(pl.len()).over(QUERY) + 1).alias(RANK))
    )
    if k is not None:
        ideal = ideal.filter(pl.col(RANK) <= k)
    ideal = ideal.group_by(QUERY).agg((gain / discount(pl.col(RANK).cast(F))).sum().alias("idcg"))
    st = ctx.stats.join(got, on=QUERY, how="left").join(ideal, on=QUERY, how="left").fill_null(0.0)
    return st.select(QUERY, safe_div(pl.col("dcg"), pl.col("idcg")).alias(VALUE))


def _ndcg_exp(ctx: Context, k: int | None) -> pl.DataFrame:
    """nDCG@k with exponential gain (Burges et al. 2005): DCG = sum_{j<=k} (2^rel_j - 1)/log2(j + 1).

    Gain from the qrels value of relevant documents (rel >= level), 0 otherwise; the ideal DCG ranks the
    query's relevant qrels documents by value. 0 when the query has no relevant document.
    """
    gain = pl.lit(2.0).pow(pl.col(REL).cast(F)) - 1
    return _dcg_parts(ctx, k, gain, lambda j: (j + 1).log(2), TIE_GAIN_EXP)


def _ndcg_jk(ctx: Context, param) -> pl.DataFrame:
    """nDCG with the Järvelin & Kekäläinen (2002) discount: DCG = sum_{j<=k} rel_j / max(1, log_b j).

    The original cumulated-gain discount (the one recommender lectures quote, Breese-style: the first b
    ranks are not discounted). ``ndcg_jk.K,B`` (defaults: whole ranking, b = 2); gain = qrels value of
    relevant documents; 0 when the query has no relevant document.
    """
    k, base = param
    kk = None if k == 0 else int(k)
    return _dcg_parts(ctx, kk, pl.col(REL).cast(F), lambda j: pl.max_horizontal(pl.lit(1.0), j.log(base)))


def _ndcg_jk_validate(param) -> None:
    k, base = param
    if k < 0 or k != int(k):
        raise UsageError(
            f"measure ndcg_jk: the cutoff must be a positive integer (0 = whole ranking), got {k:g}"
        )
    if base <= 1:
        raise UsageError(f"measure ndcg_jk: the log base must be > 1, got {base:g}")


# --------------------------------------------------------------------------------------------- means of AP


def average_precision(ctx: Context) -> pl.DataFrame:
    """AP per query: (1/R) sum over relevant documents at rank j of (relevant at ranks <= j)/j; 0 if R = 0.

    trec_eval's ``map`` (Buckley & Voorhees 2000); relevant documents not retrieved contribute 0.
    """

    def make() -> pl.DataFrame:
        c = cumulative(ctx).filter(pl.col(RELEVANT))
        agg = c.group_by(QUERY).agg((pl.col("cum_rel").cast(F) / pl.col(RANK).cast(F)).sum().alias("s"))
        st = _with_stats(ctx, agg)
        return st.select(QUERY, safe_div(pl.col("s").cast(F), pl.col("num_rel").cast(F)).alias(VALUE))

    return ctx.cached("ap", make)


FLOOR = 1e-5  # trec_eval's gm_map floor, applied to HMAP too so that a zero AP does not make it 0


def gmap(values: np.ndarray) -> float:
    """Geometric mean of AP: exp(mean(log(max(AP, 1e-5)))) (Robertson 2006; trec_eval's gm_map)."""
    return float(math.exp(np.add.accumulate(np.log(np.maximum(values, FLOOR)))[-1] / values.size))


def hmap(values: np.ndarray) -> float:
    """Harmonic mean of AP: n / sum(1/max(AP, 1e-5))."""
    return float(values.size / np.add.accumulate(1.0 / np.maximum(values, FLOOR))[-1])


def qmap(values: np.ndarray) -> float:
    """Quadratic mean of AP: sqrt(mean(AP²))."""
    return float(math.sqrt(np.add.accumulate(values * values)[-1] / values.size))


# --------------------------------------------------------------------------------------------- registry

SCHRODER = "Schröder, Thiele, Lehner 2011 (Setting goals and choosing metrics for recommender evaluations)"
HERLOCKER = "Herlocker, Konstan, Terveen, Riedl 2004 (Evaluating collaborative filtering recommender systems)"
NO_POS_NEG = "no relevant or no non-relevant document"

register(
    ExtraMeasure(
        "auc",
        "ranking",
        "ROC AUC of the ranked list (share of relevant/non-relevant pairs in order)",
        f"Hanley & McNeil 1982; {SCHRODER}",
        _auc,
        undefined_when=NO_POS_NEG,
        ties=MONOTONE,
        ties_depth=False,
    )
)
register(
    ExtraMeasure(
        "lauc",
        "ranking",
        "limited AUC: ROC curve of the top k, then a straight line to (1,1)",
        SCHRODER,
        _lauc,
        params=CUTOFFS,
        undefined_when=NO_POS_NEG,
        ties=MONOTONE,
        ties_depth=False,
    )
)
register(
    ExtraMeasure(
        "ktau_bool",
        "ranking",
        "Kendall tau-b of the ranking vs boolean relevance (top-k variant with a cutoff)",
        f"Kendall 1945; Fagin, Kumar, Sivakumar 2003; {SCHRODER}",
        _ktau_bool,
        params=CUTOFFS,
        undefined_when=NO_POS_NEG,
        ties=MONOTONE,
        ties_depth=False,
    )
)
register(
    ExtraMeasure(
        "ndpm",
        "ranking",
        "normalized distance-based performance measure vs the test ratings (lower is better)",
        f"Yao 1995; {HERLOCKER}",
        _ndpm,
        needs=("test",),
        undefined_when="the user's test ratings are all equal",
        better=LOWER,
    )
)
register(
    ExtraMeasure(
        "spearman_rho",
        "ranking",
        "Spearman's rho of the ranking vs the user's test ratings",
        f"Spearman 1904; {HERLOCKER}",
        _spearman,
        needs=("test",),
        undefined_when="fewer than two distinct test ratings or system positions",
    )
)
register(
    ExtraMeasure(
        "kendall_tau",
        "ranking",
        "Kendall's tau-b of the ranking vs the user's test ratings",
        f"Kendall 1945; {HERLOCKER}",
        _kendall,
        needs=("test",),
        undefined_when="fewer than two distinct test ratings or system positions",
    )
)
register(
    ExtraMeasure(
        "halflife",
        "ranking",
        "half-life utility R_u/R_u^max; halflife.ALPHA,D (defaults 5, 0); summary sum R_u / sum R_u^max",
        "Breese, Heckerman, Kadie 1998",
        _halflife,
        summary=GLOBAL,
        global_summary=_halflife_summary,
        params=VALUES,
        param_names=("alpha", "d"),
        defaults=(5, 0),
        validate=_halflife_validate,
        aggregate="sum of R_u over sum of R_u^max (Breese et al.)",
        undefined_when="no judged document with a vote above d",
    )
)
register(
    ExtraMeasure(
        "recip_rank_cut",
        "ranking",
        "reciprocal rank of the first relevant document within the top k (MRR@k)",
        "Voorhees 1999 (TREC-8 QA)",
        _recip_rank_cut,
        params=CUTOFFS,
        ties=MONOTONE,
        expected=lambda ctx, k: first_relevant(ctx, k),
    )
)
register(
    ExtraMeasure(
        "judgment_rate",
        "ranking",
        "share of the top k documents that have a judgment (ir_measures' Judged@k)",
        "MacAvaney, Macdonald, Ounis 2022 (ir_measures)",
        _judgment_rate,
        params=CUTOFFS,
    )
)
register(
    ExtraMeasure(
        "hit_rate",
        "ranking",
        "1 if a relevant document is in the top k (success@k)",
        "Deshpande & Karypis 2004; Cremonesi, Koren, Turrin 2010",
        _hit_rate,
        params=CUTOFFS,
        ties=MONOTONE,
        expected=_hit_rate_expected,
    )
)
register(
    ExtraMeasure(
        "ndcg_exp",
        "ranking",
        "nDCG@k with gain 2^rel - 1 and discount 1/log2(j+1)",
        "Burges et al. 2005; Järvelin & Kekäläinen 2002",
        _ndcg_exp,
        params=CUTOFFS,
        ties=MONOTONE,
        expected=_ndcg_exp,
    )
)
register(
    ExtraMeasure(
        "ndcg_jk",
        "ranking",
        "nDCG with discount 1/max(1, log_b j); ndcg_jk.K,B (defaults: whole ranking (K=0), b=2)",
        "Järvelin & Kekäläinen 2002",
        _ndcg_jk,
        params=VALUES,
        param_names=("k", "b"),
        defaults=(0, 2),
        validate=_ndcg_jk_validate,
        aliases=("ndcg_breese",),
        ties=MONOTONE,
        expected=_ndcg_jk,
    )
)
for _name, _fn, _doc, _src in (
    ("gmap", gmap, "geometric mean of AP, floor 1e-5 (= trec_eval gm_map)", "Robertson 2006 (On GMAP)"),
    ("hmap", hmap, "harmonic mean of AP, floor 1e-5", "harmonic alternative to MAP (cf. Robertson 2006)"),
    (
        "qmap",
        qmap,
        "quadratic mean of AP: sqrt(mean(AP²))",
        "quadratic alternative to MAP (cf. Robertson 2006)",
    ),
):
    register(
        ExtraMeasure(
            _name,
            "ranking",
            _doc,
            _src,
            lambda ctx, p: average_precision(ctx),
            summary=REDUCE,
            reduce=_fn,
            print_per_query=False,
            aggregate=_doc.split(",")[0],
            ties=MONOTONE,
        )
    )

__all__ = ["NO_PARAMS", "average_precision", "cumulative", "gmap", "hmap", "qmap"]
