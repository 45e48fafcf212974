"""trec_eval's document order, written once for every part of trecrs that ranks documents.

Rule (trec_eval ``form_res_rels.c``, ``comp_sim_docno``): per query, documents sorted by score
descending, the score compared as a C ``float`` (IEEE float32); ties broken by document id descending,
compared bytewise (``strcmp``). The rank column of a run file is never trusted.
"""

from __future__ import annotations

import polars as pl

from .schema import DOC, QUERY, RANK, SCORE


def trec_order(run: pl.DataFrame, *, rank: bool = True) -> pl.DataFrame:
    """Order a run the way trec_eval 9.x ranks it, and (optionally) renumber the rank column.

    Rule (``form_res_rels.c``): per query, documents sorted by score descending, the score compared as a
    C ``float`` (IEEE float32, so 1.0 and 1.000000001 tie); ties broken by document id descending,
    compared bytewise (``strcmp``), so ``"9"`` ranks above ``"10"``. The rank column of the input is
    ignored. Queries come out in bytewise ascending order, the order trec_eval evaluates them in.

    Returns a new DataFrame; ``rank`` (1-based, per query) is rewritten when ``rank=True``.
    """
    score32 = pl.col(SCORE).cast(pl.Float32)
    # -0.0 and 0.0 compare equal in C; make them one key so the doc id decides, as in trec_eval.
    score32 = pl.when(score32 == 0).then(pl.lit(0.0, dtype=pl.Float32)).otherwise(score32)
    out = run.sort([pl.col(QUERY), score32, pl.col(DOC)], descending=[False, True, True])
    if rank:
        out = out.with_columns((pl.int_range(pl.len()).over(QUERY) + 1).cast(pl.Int64).alias(RANK))
    return out
