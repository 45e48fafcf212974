"""The recommender measures under ``--ties expected|best|worst`` (:mod:`trecrs.measures.ties`).

Each measure says how ties touch it (:attr:`~.registry.ExtraMeasure.ties`): :data:`FREE`, its value does
not depend on the order of a query's documents (errors, coverage of whole lists); :data:`FREE_WHOLE`, only
without a cutoff (the top k of a list depends on the order, the whole list does not); :data:`MONOTONE`, it
never decreases when a more relevant document moves above a less relevant one, so ``best`` / ``worst`` are
its value on the ranking whose tie groups are ordered from the most / least relevant document, and
``expected`` is its :attr:`~.registry.ExtraMeasure.expected` function, when it has one.

The ranking a measure sees (:func:`ranked`) is trec_eval's, ``-J`` applied, then: for ``best`` / ``worst``
each tie group reordered by relevance value; for ``expected`` each row carries its tie group's size and
counts, taken before the ``-M`` cut (a group the cut straddles competes for its last places), then cut.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ...errors import UsageError
from ...ordering import trec_order
from ...schema import DOC, QUERY, RANK, REL, SCORE
from ..ties import DEFAULT, ap_terms, expected_first, hypergeometric

FREE = "free"
FREE_WHOLE = "free-whole"
MONOTONE = "monotone"

F = pl.Float64
WEIGHT = "weight"  # probability of an outcome row (expected mode: one row per outcome of the count at k)
# per row, of its tie group (expected mode): size, documents and relevant documents above it, relevant in
# it, 1-based position in it, and the sums of the linear and exponential gains of its relevant documents
TIE_T, TIE_A, TIE_C, TIE_R, TIE_J, TIE_GAIN, TIE_GAIN_EXP = (
    "tie_t",
    "tie_a",
    "tie_c",
    "tie_r",
    "tie_j",
    "tie_gain",
    "tie_gain_exp",
)


def supports(measure, param, mode: str, depth: int | None = None) -> bool:
    """Whether ``measure`` (an ExtraMeasure) with ``param`` has a value under tie mode ``mode`` (and ``-M``
    ``depth``: the documents it keeps from a tie group it cuts depend on the order)."""
    if mode == DEFAULT or measure.ties == FREE:
        return True
    if measure.ties == FREE_WHOLE:
        return param is None and depth is None
    if measure.ties != MONOTONE or (depth is not None and not measure.ties_depth):
        return False
    return mode != "expected" or measure.expected is not None


def check(outputs, mode: str, depth: int | None = None) -> None:
    """A :class:`UsageError` naming the first output without a form for ``mode``."""
    for out in outputs:
        if not supports(out.measure, out.param, mode, depth):
            raise UsageError(
                f"measure {out.name} has no tie-aware form for --ties {mode} (docs/measures.md, Score ties)",
                arguments=["ties"],
            )


def ranked(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    *,
    level: int,
    judged_only: bool,
    mode: str,
    depth: int | None,
    score_dtype,
) -> pl.DataFrame:
    """``query, doc, rank, rel, relevant`` (and the tie columns in ``expected`` mode): the ranking the
    measures see under tie mode ``mode`` (module docstring)."""
    ordered = trec_order(run.select(QUERY, DOC, SCORE), rank=False, score_dtype=score_dtype)
    joined = ordered.join(qrels.select(QUERY, DOC, REL), on=[QUERY, DOC], how="left", maintain_order="left")
    if judged_only:
        joined = joined.filter(pl.col(REL).is_not_null() & (pl.col(REL) >= 0))
    relevant = pl.col(REL).fill_null(-1) >= level
    if mode != DEFAULT:
        joined = joined.with_columns(_tie_group(score_dtype))
        if mode == "expected":
            joined = _group_counts(joined, relevant)
        else:  # each group by relevance value, as the engine orders it (absent from the qrels -1, negative -2)
            value = (
                pl.when(pl.col(REL).is_null()).then(-1).when(pl.col(REL) < 0).then(-2).otherwise(pl.col(REL))
            )
            joined = (
                joined.with_columns(value.alias("__v"))
                .sort(["__g", "__v"], descending=[False, mode == "best"], maintain_order=True)
                .drop("__v")
            )
        joined = joined.drop("__g")
    out = joined.with_columns(
        (pl.int_range(pl.len()).over(QUERY) + 1).cast(pl.Int64).alias(RANK), relevant.alias("relevant")
    )
    if depth is not None:
        out = out.filter(pl.col(RANK) <= depth)
    return out.drop(SCORE)


def _tie_group(score_dtype) -> pl.Expr:
    """``__g``: one increasing id per tie group of an ordered run (a query's rows with the score trec_eval
    compares equal: C floats or doubles, -0.0 = 0.0)."""
    score = pl.col(SCORE).cast(pl.Float32 if np.dtype(score_dtype) == np.float32 else pl.Float64) + 0.0
    tied = (pl.col(QUERY) == pl.col(QUERY).shift(1)) & (score == score.shift(1))
    return (~tied.fill_null(False)).cast(pl.Int64).cum_sum().alias("__g")


def _group_counts(joined: pl.DataFrame, relevant: pl.Expr) -> pl.DataFrame:
    """The tie columns of every row (expected mode), from its whole group."""
    rel_i = relevant.cast(pl.Int64)
    out = joined.with_columns(
        pl.int_range(pl.len()).over(QUERY).alias("__pos"),
        (rel_i.cum_sum().over(QUERY) - rel_i).alias("__above"),
        rel_i.alias("__rel"),
        pl.when(relevant).then(pl.col(REL).cast(F)).otherwise(0.0).alias("__gain"),
        pl.when(relevant).then(pl.lit(2.0).pow(pl.col(REL).cast(F)) - 1).otherwise(0.0).alias("__gexp"),
    )
    return (
        out.with_columns(
            pl.len().over("__g").cast(pl.Int64).alias(TIE_T),
            pl.col("__pos").min().over("__g").alias(TIE_A),
            pl.col("__above").min().over("__g").alias(TIE_C),
            pl.col("__rel").sum().over("__g").alias(TIE_R),
            pl.col("__gain").sum().over("__g").alias(TIE_GAIN),
            pl.col("__gexp").sum().over("__g").alias(TIE_GAIN_EXP),
        )
        .with_columns((pl.col("__pos") - pl.col(TIE_A) + 1).alias(TIE_J))
        .drop("__pos", "__above", "__rel", "__gain", "__gexp")
    )


# --------------------------------------------------------------------------------------------- closed forms


def tp_law(ctx, k: int | None) -> pl.DataFrame:
    """``query, tp, weight``: per evaluated query, each possible count of relevant documents in its top
    ``k`` (the whole list without one) and its probability over the orders of the tie group the cutoff cuts."""
    r = ctx.ranked
    n = ctx.stats.select(QUERY, pl.col("num_ret").alias("__n"))
    at = n.with_columns(
        (pl.col("__n") if k is None else pl.min_horizontal(pl.col("__n"), pl.lit(k))).alias("__k")
    )
    row = at.join(
        r.select(QUERY, RANK, TIE_T, TIE_A, TIE_C, TIE_R),
        left_on=[QUERY, "__k"],
        right_on=[QUERY, RANK],
        how="left",
        maintain_order="left",
    )
    t = row.get_column(TIE_T).fill_null(1).to_numpy()
    rr = row.get_column(TIE_R).fill_null(0).to_numpy()
    m = (row.get_column("__k") - row.get_column(TIE_A).fill_null(0)).to_numpy()
    m = np.where(row.get_column(TIE_T).is_null().to_numpy(), 0, m)
    c0 = row.get_column(TIE_C).fill_null(0).to_numpy()
    seg, x, p = hypergeometric(t, rr, m)
    queries = row.get_column(QUERY).gather(seg)
    return pl.DataFrame({QUERY: queries, "tp": (c0[seg] + x).astype(np.float64), WEIGHT: p})


def per_outcome(frame: pl.DataFrame, expr: pl.Expr) -> pl.DataFrame:
    """``query, value``: ``expr`` on each row, or, where ``frame`` holds outcomes (:data:`WEIGHT`), its
    expectation: the probability-weighted sum (null where every outcome is undefined)."""
    if WEIGHT not in frame.columns:
        return frame.select(QUERY, expr.alias("value"))
    v = expr.alias("value")
    agg = pl.when(v.is_null().all()).then(None).otherwise((v * pl.col(WEIGHT)).sum())
    return frame.group_by(QUERY, maintain_order=True).agg(agg.alias("value"))


def first_relevant(ctx, k: int | None) -> pl.DataFrame:
    """``query, value``: the expected 1 / rank of the first relevant document within the top ``k`` (and
    the retrieved ones)."""
    r = ctx.ranked.filter(pl.col(TIE_R) > 0).group_by(QUERY, maintain_order=True).first()
    r = r.join(ctx.stats.select(QUERY, "num_ret"), on=QUERY, how="left", maintain_order="left")
    limit = r.get_column("num_ret").to_numpy()
    if k is not None:
        limit = np.minimum(limit, k)
    v = expected_first(
        r.get_column(TIE_A).to_numpy(), r.get_column(TIE_T).to_numpy(), r.get_column(TIE_R).to_numpy(), limit
    )
    got = pl.DataFrame({QUERY: r.get_column(QUERY), "value": v})
    return ctx.stats.select(QUERY).join(got, on=QUERY, how="left", maintain_order="left").fill_null(0.0)


def ap_sums(ctx, k: int | None) -> pl.DataFrame:
    """``query, s``: the expected sum of precision at each relevant document within the top ``k``."""
    rows = ctx.top(k).filter(pl.col(TIE_R) > 0)
    terms = ap_terms(*(rows.get_column(c).to_numpy() for c in (TIE_A, TIE_C, TIE_T, TIE_R, TIE_J)))
    got = (
        rows.select(QUERY)
        .with_columns(pl.Series("s", terms))
        .group_by(QUERY, maintain_order=True)
        .agg(pl.col("s").sum())
    )
    return ctx.stats.select(QUERY).join(got, on=QUERY, how="left", maintain_order="left").fill_null(0.0)


def mean_gain(column: str = TIE_GAIN) -> pl.Expr:
    """The expected gain at a row's position: its tie group's mean gain."""
    return pl.col(column) / pl.col(TIE_T).cast(F)


def mean_relevant() -> pl.Expr:
    """The probability that the document at a row's position is relevant: its tie group's share."""
    return pl.col(TIE_R).cast(F) / pl.col(TIE_T).cast(F)
