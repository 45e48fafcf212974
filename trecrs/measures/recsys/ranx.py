"""The measures ranx computes that trecrs had under no recommender name: hits, AP@k over |R|, nDCG with the
relevance value as gain, unnormalised DCG with linear or exponential gain, R-precision and bpref as ranx
divides it.

Each is the formula of ranx 0.3.21's own source (``ranx/metrics/*.py``, named per measure), expressed on
trecrs's data conventions (:mod:`.registry`): the ranking is trec_eval's, relevant = qrels value >= the
relevance level, L_k = the top k of the run, R = the query's relevant qrels documents, r_j = the qrels value
of the document at rank j when it is relevant, else 0. The ``ranx:`` names of :mod:`trecrs.measures.dialects`
(``ranx:ndcg@10-l2``) compute them; docs/measures.md ("Framework dialects") compares them with trec_eval's.
"""

from __future__ import annotations

import polars as pl

from ...schema import QUERY, RANK, REL
from .frameworks import _ap_sum, _hits
from .ranking import _dcg_parts
from .registry import CUTOFFS, RELEVANT, VALUE, Context, ExtraMeasure, register, safe_div
from .ties import MONOTONE, TIE_GAIN, TIE_GAIN_EXP, mean_gain, per_outcome

F = pl.Float64
RANX = "ranx 0.3.21 ranx/metrics"
LINEAR = pl.col(REL).cast(F)
EXPONENTIAL = pl.lit(2.0).pow(pl.col(REL).cast(F)) - 1


def _log2_discount(j: pl.Expr) -> pl.Expr:
    return (j + 1).log(2)


def _hits_at(ctx: Context, k: int | None) -> pl.DataFrame:
    """Hits: |L_k ∩ R|, the number of relevant documents in the top k (0 without relevant documents).

    ranx's ``hits`` (``hits.py``: ``_hits`` counts the run's first k documents found in the qrels kept at
    ``rel_lvl``); = trec_eval's ``num_rel_ret`` on the run cut at k.
    """
    return per_outcome(_hits(ctx, k), pl.col("tp").fill_null(0.0))


def _ap_cut(ctx: Context, k: int | None) -> pl.DataFrame:
    """AP@k over every relevant document: Σ_{relevant j <= k} P@j / |R|; 0 when R is empty.

    ranx's ``map@k`` (``average_precision.py``: ``sum(precision_scores) / qrels.shape[0]`` on the hit list of
    the top k); = trec_eval's ``map_cut.k``.
    """
    st = _ap_sum(ctx, k)
    return st.select(QUERY, safe_div(pl.col("s"), pl.col("num_rel")).alias(VALUE))


def _ndcg_lin(ctx: Context, k: int | None) -> pl.DataFrame:
    """nDCG@k with the relevance value as gain: DCG = Σ_{j<=k} r_j / log2(j + 1), over the same of the k best
    relevant qrels documents; 0 when the query has no relevant document.

    ranx's ``ndcg`` (``ndcg.py``: ``_dcg`` with ``jarvelin=True``, ``_idcg`` = the DCG of the qrels sorted
    by value); = trec_eval's ``ndcg_cut.k`` when the non-relevant grades are 0.
    """
    return _dcg_parts(ctx, k, LINEAR, _log2_discount)


def _dcg(ctx: Context, k: int | None, gain: pl.Expr, tie_gain: str) -> pl.DataFrame:
    """Unnormalised DCG@k: Σ_{j<=k} gain(r_j) / log2(j + 1) over the relevant documents; under ``--ties
    expected`` each position holds its tie group's mean gain (``tie_gain``)."""
    graded = (
        mean_gain(tie_gain) if ctx.ties == "expected" else pl.when(pl.col(RELEVANT)).then(gain).otherwise(0.0)
    )
    agg = ctx.top(k).group_by(QUERY).agg((graded / _log2_discount(pl.col(RANK).cast(F))).sum().alias("dcg"))
    st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left")
    return st.select(QUERY, pl.col("dcg").fill_null(0.0).alias(VALUE))


def _dcg_lin(ctx: Context, k: int | None) -> pl.DataFrame:
    """DCG@k with the relevance value as gain: Σ_{j<=k} r_j / log2(j + 1) (Järvelin & Kekäläinen 2002 gain,
    log2(j + 1) discount); 0 without relevant documents.

    ranx's ``dcg`` (``ndcg.py``: ``_dcg`` with ``jarvelin=True``). The numerator of ``ndcg_lin.k``.
    """
    return _dcg(ctx, k, LINEAR, TIE_GAIN)


def _dcg_exp(ctx: Context, k: int | None) -> pl.DataFrame:
    """DCG@k with exponential gain: Σ_{j<=k} (2^r_j − 1) / log2(j + 1) (Burges et al. 2005); 0 without
    relevant documents.

    ranx's ``dcg_burges`` (``ndcg.py``: ``_dcg`` with ``jarvelin=False``). The numerator of ``ndcg_exp.k``.
    """
    return _dcg(ctx, k, EXPONENTIAL, TIE_GAIN_EXP)


def _r_prec(ctx: Context, param) -> pl.DataFrame:
    """R-precision: |L_|R| ∩ R| / |R|, the precision at rank |R| (counted as |R| even when fewer documents are
    retrieved); 0 when R is empty.

    ranx's ``r-precision`` (``r_precision.py``: ``_precision(qrels, run, len(qrels))``); = trec_eval's
    ``Rprec``.
    """
    st = ctx.stats.select(QUERY, "num_rel")
    top = ctx.ranked.join(st, on=QUERY).filter(pl.col(RANK) <= pl.col("num_rel"))
    agg = top.group_by(QUERY).agg(pl.col(RELEVANT).sum().cast(F).alias("tp"))
    st = st.join(agg, on=QUERY, how="left", maintain_order="left").fill_null(0.0)
    return st.select(QUERY, safe_div(pl.col("tp"), pl.col("num_rel").cast(F)).alias(VALUE))


def _bpref_strict(ctx: Context, param) -> pl.DataFrame:
    """bpref as ranx divides it: (1/|R|) Σ_{relevant retrieved r} (1 − min(n_r, |R|) / min(|R|, N)), n_r = the
    judged non-relevant documents ranked above r (unjudged ones are skipped), N = the query's judged
    non-relevant documents (qrels value < the level); 0 when R is empty, undefined when N = 0 and a relevant
    document is retrieved (0/0).

    ranx's ``bpref`` (``bpref.py``: ``_bpref`` on the hit list without the unjudged documents). Equals
    trec_eval's ``bpref`` except where N = 0: trec_eval counts 1 per retrieved relevant document there.
    """
    nonrel = ctx.qrels.filter(pl.col(REL) < ctx.level).group_by(QUERY).agg(pl.len().alias("num_nonrel"))
    st = ctx.stats.join(nonrel, on=QUERY, how="left", maintain_order="left").with_columns(
        pl.col("num_nonrel").fill_null(0).cast(F), pl.col("num_rel").cast(F)
    )
    judged = ctx.ranked.filter(pl.col(REL).is_not_null()).with_columns(
        (~pl.col(RELEVANT)).cast(F).cum_sum().over(QUERY).alias("above")
    )
    rows = judged.filter(pl.col(RELEVANT)).join(st.select(QUERY, "num_rel", "num_nonrel"), on=QUERY)
    share = pl.min_horizontal("above", "num_rel") / pl.min_horizontal("num_rel", "num_nonrel")
    agg = rows.filter(pl.col("num_nonrel") > 0).group_by(QUERY).agg((1 - share).sum().alias("s"))
    st = st.join(agg, on=QUERY, how="left", maintain_order="left").with_columns(pl.col("s").fill_null(0.0))
    undefined = (pl.col("num_nonrel") == 0) & (pl.col("num_rel_ret") > 0)
    return st.select(
        QUERY, pl.when(undefined).then(None).otherwise(safe_div(pl.col("s"), pl.col("num_rel"))).alias(VALUE)
    )


_CUT = (
    ("hits", "hits |L_k ∩ R|: relevant documents in the top k (ranx hits@k)", "hits.py hits", _hits_at),
    ("ap_cut", "AP@k divided by |R| (= trec_eval map_cut.k; ranx map@k)", "average_precision.py average_precision",
     _ap_cut),
    ("ndcg_lin", "nDCG@k with gain rel and discount 1/log2(j+1) (ranx ndcg@k)", "ndcg.py ndcg", _ndcg_lin),
    ("dcg_lin", "unnormalised DCG Σ rel_j / log2(j+1) of the top k (ranx dcg@k)", "ndcg.py dcg", _dcg_lin),
    ("dcg_exp", "unnormalised DCG Σ (2^rel_j - 1) / log2(j+1) of the top k (ranx dcg_burges@k)",
     "ndcg.py dcg_burges", _dcg_exp),
)  # fmt: skip
for _name, _doc, _src, _fn in _CUT:
    register(
        ExtraMeasure(
            _name, "ranking", _doc, f"{RANX}/{_src}", _fn, params=CUTOFFS, ties=MONOTONE, expected=_fn
        )
    )
register(
    ExtraMeasure(
        "r_prec",
        "ranking",
        "R-precision |L_|R| ∩ R| / |R| (= trec_eval Rprec; ranx r-precision)",
        f"{RANX}/r_precision.py r_precision",
        _r_prec,
        ties=MONOTONE,
    )
)
register(
    ExtraMeasure(
        "bpref_strict",
        "ranking",
        "bpref, undefined without judged non-relevant documents when a "
        "relevant one is retrieved (ranx bpref)",
        f"{RANX}/bpref.py bpref",
        _bpref_strict,
        undefined_when="no judged non-relevant document and a relevant one retrieved",
    )
)
