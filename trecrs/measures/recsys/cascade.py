"""Cascade measures: expected reciprocal rank (ERR@k), as gdeval.pl and ir_measures compute it.

ERR (Chapelle, Metzler, Zhang, Grinspan 2009): a user scans down the ranking and stops at rank j with
probability R_j = (2^g_j - 1) / 2^g_max, g_j the grade of a relevant document (rel >= level) and 0
otherwise; ERR@k = sum_{j<=k} R_j / j * prod_{i<j} (1 - R_i). g_max is 4 as in TREC's gdeval.pl
(``$MAX_JUDGMENT``; ir_measures' ERR runs that script), so values equal gdeval's (printed there to 5
decimals); gdeval refuses grades above 4. A query with no relevant document scores 0: gdeval.pl prints no
line for it and ir_measures gives such a qrels query 0 (its evaluators' default), as trec_eval does.
"""

from __future__ import annotations

import polars as pl

from ...schema import QUERY, RANK, REL
from .registry import CUTOFFS, RELEVANT, VALUE, Context, ExtraMeasure, register

F = pl.Float64
#: gdeval.pl's maximum grade, the denominator's exponent
MAX_GRADE = 4


def _err(ctx: Context, k: int | None) -> pl.DataFrame:
    """ERR@k: sum_{j<=k} R_j / j * prod_{i<j} (1 - R_i), R_j = (2^g_j - 1) / 2^4 (gdeval.pl)."""
    stop = (
        pl.when(pl.col(RELEVANT))
        .then((pl.lit(2.0).pow(pl.col(REL).cast(F)) - 1) / 2.0**MAX_GRADE)
        .otherwise(0.0)
    )
    top = ctx.top(k).sort(QUERY, RANK, maintain_order=True).with_columns(stop.alias("r"))
    reached = (1 - pl.col("r")).cum_prod().shift(1, fill_value=1.0).over(QUERY)
    got = (
        top.with_columns(reached.alias("reached"))
        .group_by(QUERY)
        .agg((pl.col("r") * pl.col("reached") / pl.col(RANK).cast(F)).sum().alias("err"))
    )
    st = ctx.stats.join(got, on=QUERY, how="left", maintain_order="left")
    return st.select(QUERY, pl.col("err").fill_null(0.0).alias(VALUE))


register(
    ExtraMeasure(
        "err",
        "ranking",
        "expected reciprocal rank at k, gain (2^rel - 1) / 2^4 (gdeval.pl; ir_measures' ERR@k)",
        "Chapelle, Metzler, Zhang, Grinspan 2009",
        _err,
        params=CUTOFFS,
    )
)
