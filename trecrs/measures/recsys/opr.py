"""One-Plus-Random (OPR): Cremonesi's per-case recall and precision, and the two ways of averaging cases.

In the One-Plus-Random methodology (Cremonesi, Koren, Turrin, RecSys 2010, section 2) every highly rated
test item i of user u is a test case: i is ranked among N = 1000 random items u has not rated; it is a hit
at N when it ranks within the top N. trecrs names a case's query ``<user>:<item>`` and its qrels hold just
(``u:i``, i); the user and the target are recovered by :func:`trecrs.protocol.one_plus_random.case_ids`
(split where the qrels item ends the id, so ids holding ``:`` work; else at the first ``:``). The protocol
side (case ids, draws, qrels, per-user grouping) is :mod:`trecrs.protocol.one_plus_random`.

* Per test case (Cremonesi's definition): recall(N) = #hits / |T|, precision(N) = recall(N) / N, |T| the
  number of cases: the arithmetic mean over cases of hit(N) and hit(N)/N. This is trec_eval's ordinary
  mean over queries (``opr_average="case"``, the default), and equals trec_eval's ``recall.N`` / ``P.N``
  on OPR qrels (one relevant document per query).
* Per user (Bellogín, Castells, Cantador, RecSys 2011, section 3.3): each user's cases are averaged first,
  then the users: ``opr_average="user"``. Applies to every measure whose summary is a mean over queries
  (trec_eval's arithmetic and geometric means, and the extras' means); sums (``num_ret``...) stay sums,
  ``num_q`` stays the number of cases, and global extras (coverage, Gini, half-life...) are unchanged.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ...protocol.one_plus_random import OPR_AVERAGES, TARGET, case_ids, check_average, user_means
from ...schema import DOC, QUERY, RANK
from .registry import CUTOFFS, VALUE, Context, ExtraMeasure, register, sequential_mean

by_user = user_means  # each user's mean over their cases (the name measures and callers know)


def _target_rank(ctx: Context) -> pl.DataFrame:
    def make() -> pl.DataFrame:
        q = ctx.cases.select(QUERY, pl.col(TARGET).alias(DOC))
        bad = q.filter(pl.col(DOC).is_null()).height
        if bad:
            ctx.note(f"opr measures: {bad} queries are not named user:item; no value for them")
        return q.join(ctx.ranked.select(QUERY, DOC, RANK), on=[QUERY, DOC], how="left", maintain_order="left")

    return ctx.cached("opr_target", make)


def _opr_recall(ctx: Context, n: int | None) -> pl.DataFrame:
    """Cremonesi's recall(N) of one case: 1 if the target item ranks within the top N, else 0."""
    t = _target_rank(ctx)
    hit = pl.col(RANK).is_not_null() & (pl.lit(True) if n is None else pl.col(RANK) <= n)
    return t.select(
        QUERY, pl.when(pl.col(DOC).is_null()).then(None).otherwise(hit.cast(pl.Float64)).alias(VALUE)
    )


def _opr_precision(ctx: Context, n: int | None) -> pl.DataFrame:
    """Cremonesi's precision(N) of one case: recall(N) / N (N = the case's list length when not given)."""
    r = _opr_recall(ctx, n)
    if n is not None:
        return r.with_columns(pl.col(VALUE) / n)
    lengths = ctx.stats.select(QUERY, pl.col("num_ret").cast(pl.Float64).alias("len"))
    r = r.join(lengths, on=QUERY, how="left", maintain_order="left")
    return r.select(
        QUERY, pl.when(pl.col("len") > 0).then(pl.col(VALUE) / pl.col("len")).otherwise(0.0).alias(VALUE)
    )


def summarize_trec_by_user(per_query: pl.DataFrame, num_q: int, qrels: pl.DataFrame) -> dict[str, float]:
    """trec_eval summary values with cases averaged per user first (``opr_average="user"``).

    Arithmetic means: mean over users of the user's mean over cases. Geometric means (``gm_map``,
    ``gm_bpref``, whose per-query values are already logs): exp of the same two-level mean. Sums and
    ``num_q`` as trec_eval.
    """
    from ..trec_eval import BY_NAME, COUNT, GEO, NONE, SUM, base_of

    cols = [c for c in per_query.columns if c != QUERY]
    ids = case_ids(per_query.get_column(QUERY).to_list(), qrels)
    users = user_means(per_query, cols, ids) if per_query.height else None
    out: dict[str, float] = {}
    for col in cols:
        base = base_of(col)
        agg = BY_NAME[base].aggregate if base else "mean"
        if agg == NONE:
            continue
        if agg == COUNT:
            out[col] = float(num_q)
            continue
        if agg == SUM:
            v = per_query.get_column(col).to_numpy().astype(np.float64)
            out[col] = float(np.add.accumulate(v)[-1]) if v.size else 0.0
            continue
        v = (
            users.get_column(col).drop_nulls().to_numpy().astype(np.float64)
            if users is not None
            else np.empty(0)
        )
        mean = sequential_mean(v) if v.size else 0.0
        out[col] = math.exp(mean) if agg == GEO else mean
    return out


CREMONESI = (
    "Cremonesi, Koren, Turrin 2010 (Performance of recommender algorithms on top-N recommendation tasks)"
)

register(
    ExtraMeasure(
        "opr_recall",
        "opr",
        "One-Plus-Random recall(N): 1 if the case's target item (query "
        "user:item) is in the top N; mean = #hits/|T|",
        CREMONESI,
        _opr_recall,
        params=CUTOFFS,
        undefined_when="the query is not named user:item",
    )
)
register(
    ExtraMeasure(
        "opr_precision",
        "opr",
        "One-Plus-Random precision(N) = recall(N)/N",
        CREMONESI,
        _opr_precision,
        params=CUTOFFS,
        undefined_when="the query is not named user:item",
    )
)

__all__ = ["OPR_AVERAGES", "by_user", "case_ids", "check_average", "summarize_trec_by_user"]
