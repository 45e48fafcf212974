"""DaisyRec's definitions that no other trecrs measure gives: AP and nDCG normalised by the hits of the list
alone, and an F1 with no value for a list without a hit.

Each is the formula of DaisyRec 2.3.0's own source (``daisy/utils/metrics.py``, function and lines named per
measure) on trecrs's data conventions (:mod:`.registry`): L_k = the top k of an evaluated query's ranking in
trec_eval's order (DaisyRec's rank list, always k long there), R = the query's relevant qrels documents (its
``test_ur``), h = |L_k ∩ R| (the hits). ``daisyrec:MAP@k``, ``daisyrec:NDCG@k`` and ``daisyrec:F1@k``
(:mod:`trecrs.measures.dialects.daisyrec`) compute them.
"""

from __future__ import annotations

import polars as pl

from ...schema import QUERY, RANK
from .frameworks import _ap_sum, _hits
from .ranking import cumulative
from .registry import CUTOFFS, RELEVANT, VALUE, Context, ExtraMeasure, register, safe_div, undefined_unless

F = pl.Float64
DAISYREC = "DaisyRec 2.3.0 daisy/utils/metrics.py"


def _map_hits(ctx: Context, k: int | None) -> pl.DataFrame:
    """AP over the hits: the mean of P@j over the relevant ranks j <= k, Σ P@j / h; 0 without a hit.

    DaisyRec ``MAP`` (``metrics.py`` lines 188-202: ``np.mean`` of ``r[:k+1].sum() / (k + 1)`` at each hit,
    ``0.`` when there is none). It ignores the relevant items the list missed: one hit at rank 2 of 5 relevant
    items gives 1/2 (``map_cut.k`` 1/10), two hits at ranks 1 and 4 (1 + 2/4)/2 = 0.75.
    """
    st = _ap_sum(ctx, k)
    return st.select(QUERY, safe_div(pl.col("s"), pl.col("tp")).alias(VALUE))


def _hits_dcg(ctx: Context, k: int | None) -> pl.DataFrame:
    """Every evaluated query with ``h`` (hits in the top k) and ``dcg`` = Σ_{relevant j <= k} 1/log2(j + 1)."""
    c = cumulative(ctx).filter(pl.col(RELEVANT))
    if k is not None:
        c = c.filter(pl.col(RANK) <= k)
    agg = c.group_by(QUERY).agg(
        pl.len().cast(F).alias("h"), (1.0 / (pl.col(RANK).cast(F) + 1.0).log(2)).sum().alias("dcg")
    )
    st = ctx.stats.select(QUERY)
    return st.join(agg, on=QUERY, how="left", maintain_order="left").with_columns(
        pl.col("h", "dcg").fill_null(0.0)
    )


def _ndcg_hits(ctx: Context, k: int | None) -> pl.DataFrame:
    """nDCG with the ideal over the hits: Σ_{relevant j <= k} 1/log2(j + 1) / Σ_{j <= h} 1/log2(j + 1); 0
    without a hit.

    DaisyRec ``NDCG`` (``metrics.py`` lines 204-227: the ideal is ``DCG(sorted(r, reverse=True))``, the same
    hit flags sorted, so the relevant items the list missed never enter it). Any list whose hits are all
    at its top scores 1: one hit at rank 1 of 5 relevant items gives 1 (``ndcg_cut.k`` 0.339 at k = 5).
    """
    st = _hits_dcg(ctx, k)
    ideal = pl.int_ranges(1, pl.col("h").cast(pl.Int64) + 1).list.eval(
        1.0 / (pl.element().cast(F) + 1.0).log(2)
    )
    st = st.with_columns(ideal.list.sum().alias("ideal"))
    return st.select(QUERY, safe_div(pl.col("dcg"), pl.col("ideal")).alias(VALUE))


def _f1_hits(ctx: Context, k: int | None) -> pl.DataFrame:
    """F1 of precision h/|L_k| and recall h/|R|, 2h/(|L_k| + |R|), undefined (NaN in DaisyRec) without a hit.

    DaisyRec ``F1`` (``metrics.py`` lines 263-278: ``2 * pre * rec / (pre + rec)``, 0/0 when h = 0). With a
    hit it equals ``f1.k``, which gives 0 instead. DaisyRec's mean over users is then NaN.
    """
    st = _hits(ctx, k)
    value = 2.0 * pl.col("tp") / (pl.col("kk") + pl.col("num_rel"))
    return st.select(QUERY, undefined_unless(pl.col("tp") > 0, value).alias(VALUE))


for _name, _doc, _src, _fn, _undefined in (
    (
        "daisy_map",
        "AP@k over the hits: mean of P@j at the relevant j <= k, 0 without a hit (DaisyRec MAP)",
        "MAP",
        _map_hits,
        "",
    ),
    (
        "daisy_ndcg",
        "nDCG@k with the ideal over the hits of the top k alone, 0 without a hit (DaisyRec NDCG)",
        "NDCG",
        _ndcg_hits,
        "",
    ),
    (
        "daisy_f1",
        "2 hits / (|L_k| + |R|), undefined without a hit (DaisyRec F1)",
        "F1",
        _f1_hits,
        "no relevant document in the top k",
    ),
):
    register(
        ExtraMeasure(
            _name, "ranking", _doc, f"{DAISYREC} {_src}", _fn, params=CUTOFFS, undefined_when=_undefined
        )
    )
