"""implicit's ranking AUC at K, which no other trecrs measure gives: the pairs of a top-K list with the rest of
the catalogue, the items after the list counted as tied with the relevant items the list missed.

The formula of implicit 0.7.3's ``ranking_metrics_at_k`` (``implicit/evaluation.pyx``, lines 444-464), on
trecrs's data conventions (:mod:`.registry`): the top k of the run in trec_eval's order is the list the
model's ``recommend(N=K)`` returns (padded with ids that are no item when the run lists fewer than k: each
such place counts as a miss, as implicit counts an id it does not find among the test items), R = the
query's relevant qrels documents (implicit's test items of the user), n = the columns of implicit's
user-item matrix, here every item of the data set (:attr:`Context.dataset_items`). The ``implicit:AUC_at_k``
name of :mod:`trecrs.measures.dialects.implicit` computes it.
"""

from __future__ import annotations

import polars as pl

from ...schema import QUERY, RANK
from .ranking import cumulative
from .registry import CUTOFFS, RELEVANT, VALUE, Context, ExtraMeasure, register, undefined_unless

F = pl.Float64
IMPLICIT = "implicit 0.7.3 implicit/evaluation.pyx ranking_metrics_at_k"


def _auc_at_k(ctx: Context, k: int | None) -> pl.DataFrame:
    """(A + (h + |R|)/2 · (n − |R| − (k − h))) / (|R| (n − |R|)): h = |L_k ∩ R|, A = Σ over the k − h places
    of the top k that hold no relevant item (a short list's missing places included) of the relevant items
    above the place; the n − |R| − (k − h) other non-relevant items each count as below the h found items
    and tied with the |R| − h missed ones. Without a cutoff k = |L|. Undefined when R is empty (implicit
    leaves such a user out) or every item is relevant.

    implicit's ``auc`` (``evaluation.pyx`` lines 448-464: ``auc += hit`` per miss, then ``auc += ((hit +
    num_pos_items) / 2.0) * (num_neg_items - miss)``, ``/ (num_pos_items * num_neg_items)``). Ten items,
    R = {a, c}, top 3 = [a, x, y]: misses x and y count 1 each, the 8 − 2 = 6 others (1 + 2)/2 each:
    (2 + 9) / (2 · 8) = 11/16.
    """
    n = float(ctx.dataset_items.len())
    top = cumulative(ctx)
    if k is not None:
        top = top.filter(pl.col(RANK) <= k)
    agg = top.group_by(QUERY).agg(
        pl.col("cum_rel").filter(~pl.col(RELEVANT)).sum().cast(F).alias("above"),
        pl.col(RELEVANT).sum().cast(F).alias("h"),
        pl.len().cast(F).alias("listed"),
    )
    st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left").with_columns(
        pl.col("above", "h", "listed").fill_null(0.0), pl.col("num_rel").cast(F).alias("r")
    )
    places = pl.col("listed") if k is None else pl.lit(float(k))
    miss = places - pl.col("h")
    above = pl.col("above") + (places - pl.col("listed")) * pl.col("h")
    rest = (pl.col("h") + pl.col("r")) / 2.0 * (n - pl.col("r") - miss)
    value = (above + rest) / (pl.col("r") * (n - pl.col("r")))
    defined = (pl.col("r") > 0) & (pl.col("r") < n)
    return st.select(QUERY, undefined_unless(defined, value).alias(VALUE))


register(
    ExtraMeasure(
        "auc_topk_catalog",
        "ranking",
        "implicit's AUC of the top k against every item: the items after the list tie with "
        "the missed relevant ones (implicit AUC_at_k)",
        IMPLICIT,
        _auc_at_k,
        params=CUTOFFS,
        needs=("catalogue",),
        undefined_when="no relevant document",
    )
)
