"""evidently's top-k definitions: each computed on the ranking followed by the relevant items it missed, the rows
evidently is given, with its precision over min(rows, k), its MAP's relevance read at the last row, and its
F-beta of the mean precision and the mean recall.

evidently 0.7.23 (``evidently/legacy/metrics/recsys/``, the legacy classes the new ``evidently.metrics``
classes wrap) takes one row per (user, item) with a score or rank and a target, and computes every top-k
value from those rows. A top-N list is given as its items with their scores plus the user's relevant items
it missed, scored below every listed item (the convention of the dialects): so E_u = the ranking in
trec_eval's order (n items), then the m relevant documents it did not retrieve (ranks n + 1 .. n + m, id
descending), |E_u| = n + m rows, R = the relevant documents, tp_j = the relevant documents of E_u at ranks
<= j, rel_j = whether the document at rank min(j, |E_u|) is relevant. With k > n the missed documents
count as retrieved at ranks n + 1 .. k, as they do in evidently. The ``evidently:`` names
(:mod:`trecrs.measures.dialects.evidently`) compute them; the ``shift`` of ``ev_ndcg`` and ``ev_mrr`` is the
new API's: its row labelled k holds the legacy value at k − 1.
"""

from __future__ import annotations

import math

import polars as pl

from ...errors import UsageError
from ...schema import DOC, QUERY, RANK, REL
from .registry import (
    CUTOFFS,
    GLOBAL,
    RELEVANT,
    VALUE,
    VALUES,
    Context,
    ExtraMeasure,
    register,
    safe_div,
    unit_values,
)

F = pl.Float64
EVIDENTLY = "evidently 0.7.23 evidently/legacy/metrics/recsys"


def _extended(ctx: Context) -> pl.DataFrame:
    """``query, rank, relevant, cum_rel``: each evaluated query's ranking, then the relevant documents it did
    not retrieve at ranks n + 1 .. n + m (id descending), with the relevant documents at ranks <= j."""

    def make() -> pl.DataFrame:
        ranked = ctx.ranked.select(QUERY, DOC, pl.col(RANK).cast(pl.Int64), RELEVANT)
        relevant = ctx.qrels.filter((pl.col(REL) >= ctx.level) & pl.col(QUERY).is_in(ctx.queries)).select(
            QUERY, DOC
        )
        missed = relevant.join(ranked, on=[QUERY, DOC], how="anti").sort(
            [QUERY, DOC], descending=[False, True]
        )
        missed = missed.join(ctx.stats.select(QUERY, "num_ret"), on=QUERY, how="left").select(
            QUERY,
            DOC,
            (pl.col("num_ret") + pl.int_range(1, pl.len() + 1).over(QUERY)).cast(pl.Int64).alias(RANK),
            pl.lit(True).alias(RELEVANT),
        )
        rows = pl.concat([ranked, missed]).sort(QUERY, RANK)
        return rows.with_columns(pl.col(RELEVANT).cast(pl.Int64).cum_sum().over(QUERY).alias("cum_rel"))

    return ctx.cached("evidently_rows", make)


def _at(ctx: Context, k: int) -> pl.DataFrame:
    """Per evaluated query: ``size`` = |E_u|, ``r`` = |R|, ``tp`` = tp_min(k, size), ``first`` = the rank of the
    first relevant row of E_u (null without one), ``s_p`` = Σ_{relevant j <= min(k, size)} tp_j / j, ``s_r`` =
    Σ_{relevant j <= min(k, size)} tp_j, ``last`` = rel at rank |E_u|, ``dcg`` = Σ_{relevant j <= k} 1/log2(j+1)."""
    rows = _extended(ctx)
    cut = rows.filter(pl.col(RANK) <= k)
    rel = pl.col(RELEVANT)
    agg = rows.group_by(QUERY).agg(
        pl.len().cast(F).alias("size"),
        rel.sum().cast(F).alias("r"),
        pl.col(RANK).filter(rel).min().alias("first"),
        rel.sort_by(RANK).last().cast(F).alias("last"),
    )
    at_k = cut.group_by(QUERY).agg(
        rel.sum().cast(F).alias("tp"),
        (pl.col("cum_rel").cast(F) / pl.col(RANK).cast(F)).filter(rel).sum().alias("s_p"),
        pl.col("cum_rel").cast(F).filter(rel).sum().alias("s_r"),
        (1.0 / (pl.col(RANK).cast(F) + 1.0).log(2)).filter(rel).sum().alias("dcg"),
    )
    q = ctx.stats.select(QUERY)
    out = q.join(agg, on=QUERY, how="left", maintain_order="left").join(
        at_k, on=QUERY, how="left", maintain_order="left"
    )
    return out.with_columns(pl.col("size", "r", "tp", "s_p", "s_r", "dcg", "last").fill_null(0.0))


def _precision(ctx: Context, k: int | None) -> pl.DataFrame:
    """tp_k / min(|E_u|, k): evidently ``PrecisionTopK`` (``precision_recall_k.py`` lines 52-56:
    ``tp_{k} / np.minimum(size, k)``, 0 for a user without rows, NaN and inf replaced by 0)."""
    st = _at(ctx, _cut(k))
    return st.select(
        QUERY, safe_div(pl.col("tp"), pl.min_horizontal("size", pl.lit(float(_cut(k))))).alias(VALUE)
    )


def _recall(ctx: Context, k: int | None) -> pl.DataFrame:
    """tp_k / |R|, 0 without a relevant document: evidently ``RecallTopK`` (``precision_recall_k.py`` line 57)."""
    st = _at(ctx, _cut(k))
    return st.select(QUERY, safe_div(pl.col("tp"), pl.col("r")).alias(VALUE))


def _tail(k: int) -> pl.Expr:
    """The ranks past the last row that evidently still counts: max(0, k − |E_u|), each repeating rel and tp
    of the last row (``groupby(...).target.agg("last")`` over the rows ranked <= k)."""
    return pl.max_horizontal(pl.lit(float(k)) - pl.col("size"), pl.lit(0.0)) * pl.col("last")


def _map(ctx: Context, k: int | None) -> pl.DataFrame:
    """(Σ_{relevant j <= min(k, |E_u|)} tp_j/j + max(0, k − |E_u|)·rel_last·|R|/|E_u|) / |R|: evidently ``MAP``
    (``precision_recall_k.py`` lines 51-75: the expanding sum over j <= k of precision_j · rel_j, rel_j the
    target of the *last row in frame order* among those ranked <= j, divided by |R|).

    With the rows of each user in rank order rel_j is the relevance at rank j while j <= |E_u|, and past the
    last row the last row's again: a list of 3 non-relevant items and one missed relevant item gives, at
    k = 10, (1/4 + 6·1/4)/1 = 1.75. Rows in another order give another value.
    """
    kk = _cut(k)
    st = _at(ctx, kk)
    value = (pl.col("s_p") + _tail(kk) * safe_div(pl.col("r"), pl.col("size"))) / pl.col("r")
    return st.select(QUERY, pl.when(pl.col("r") > 0).then(value).otherwise(0.0).alias(VALUE))


def _mar(ctx: Context, k: int | None) -> pl.DataFrame:
    """(Σ_{relevant j <= min(k, |E_u|)} tp_j + max(0, k − |E_u|)·rel_last·|R|) / |R|²: evidently ``MARKMetric``
    (``precision_recall_k.py`` lines 76-95: the same expanding sum of recall_j · rel_j, divided by |R|)."""
    kk = _cut(k)
    st = _at(ctx, kk)
    value = (pl.col("s_r") + _tail(kk) * pl.col("r")) / (pl.col("r") * pl.col("r"))
    return st.select(QUERY, pl.when(pl.col("r") > 0).then(value).otherwise(0.0).alias(VALUE))


def _hit(ctx: Context, k: int | None) -> pl.DataFrame:
    """1 if a relevant row of E_u is ranked <= k: evidently ``HitRate`` (``hit_rate_k.py`` lines 38-44)."""
    st = _at(ctx, _cut(k))
    return st.select(QUERY, (pl.col("first") <= _cut(k)).fill_null(False).cast(F).alias(VALUE))


def _shifted(param: tuple[float, ...]) -> int:
    """The legacy cutoff a (k, shift) names: k − shift (the new API's label k holds the value at k − 1)."""
    return int(param[0]) - int(param[1])


def _ndcg(ctx: Context, param: tuple[float, ...]) -> pl.DataFrame:
    """Σ_{relevant j <= k} 1/log2(j + 1) over E_u / Σ_{j <= min(k, |R|)} 1/log2(j + 1), 0 without a relevant
    document: evidently ``NDCGKMetric`` (``ndcg_k.py`` lines 40-54; binary targets here). At k − shift; the
    new API's ``NDCG`` (``metrics/recsys.py`` lines 111-118: ``"rank": current_series.index + 1`` over a
    series already indexed 1..k) labels the value at k − 1 as k, so it has no value at label 1."""
    k = _shifted(param)
    if k < 1:
        return ctx.stats.select(QUERY, pl.lit(None, F).alias(VALUE))
    st = _at(ctx, k)
    ideal = pl.int_ranges(1, pl.min_horizontal(pl.col("r"), pl.lit(float(k))).cast(pl.Int64) + 1)
    ideal = ideal.list.eval(1.0 / (pl.element().cast(F) + 1.0).log(2)).list.sum()
    return st.select(QUERY, safe_div(pl.col("dcg"), ideal).alias(VALUE))


def _mrr(ctx: Context, param: tuple[float, ...]) -> pl.DataFrame:
    """1 / the rank of the first relevant row of E_u when it is <= k, else 0: evidently ``MRRKMetric``
    (``mrr.py`` lines 38-45: ``1 / preds.min()`` over the relevant rows ranked <= k, summed / users). At
    k − shift, as ``_ndcg``: the new API's ``MRR`` row labelled k holds the legacy value at k − 1."""
    k = _shifted(param)
    if k < 1:
        return ctx.stats.select(QUERY, pl.lit(None, F).alias(VALUE))
    st = _at(ctx, k)
    value = pl.when(pl.col("first") <= k).then(1.0 / pl.col("first").cast(F)).otherwise(0.0)
    return st.select(QUERY, value.fill_null(0.0).alias(VALUE))


def _fbeta(ctx: Context, param: tuple[float, ...], frame) -> float:
    """F-beta of the means: (1 + β²)·P̄·R̄ / (β²·P̄ + R̄), P̄ and R̄ the means over the evaluated queries of
    ``_precision`` and ``_recall`` at k: evidently ``FBetaTopK`` (``f_beta_top_k.py`` lines 50-66: ``fbeta``
    of the lists of mean precisions and mean recalls). No per-user value: it is not a mean of one."""
    k, beta = int(param[0]), param[1]
    p = unit_values(_precision(ctx, k))
    r = unit_values(_recall(ctx, k))
    if not p.size:
        return math.nan
    pm, rm = float(p.mean()), float(r.mean())
    den = beta * beta * pm + rm
    return (1 + beta * beta) * pm * rm / den if den > 0 else math.nan


def _cut(k: int | None) -> int:
    if k is None:
        raise UsageError("the evidently measures need a cutoff k")
    return k


def _validate(param) -> None:
    if param is None or param[0] < 1 or param[0] != int(param[0]):
        raise UsageError("the evidently measures need a positive integer cutoff k")


for _name, _doc, _src, _fn in (
    (
        "ev_precision",
        "tp_k / min(k, rows) over the list and its missed relevant items (evidently PrecisionTopK)",
        "precision_recall_k.py PrecisionTopKMetric",
        _precision,
    ),
    (
        "ev_recall",
        "tp_k / |R| over the list and its missed relevant items (evidently RecallTopK)",
        "precision_recall_k.py RecallTopKMetric",
        _recall,
    ),
    (
        "ev_map",
        "Σ_{j<=k} P_j·rel_j / |R|, rel_j read at the last row ranked <= j (evidently MAP)",
        "precision_recall_k.py MAPKMetric",
        _map,
    ),
    (
        "ev_mar",
        "Σ_{j<=k} R_j·rel_j / |R|, rel_j read at the last row ranked <= j (evidently MARKMetric)",
        "precision_recall_k.py MARKMetric",
        _mar,
    ),
    (
        "ev_hit_rate",
        "1 if the list and its missed relevant items hold a relevant one in the top k (evidently HitRate)",
        "hit_rate_k.py HitRateKMetric",
        _hit,
    ),
):
    register(
        ExtraMeasure(_name, "ranking", _doc, f"{EVIDENTLY}/{_src}", _fn, params=CUTOFFS, validate=_validate)
    )
for _name, _doc, _src, _at_shift in (
    (
        "ev_ndcg",
        "nDCG at k - shift over the list and its missed relevant items (evidently NDCG, NDCGKMetric)",
        "ndcg_k.py NDCGKMetric",
        _ndcg,
    ),
    (
        "ev_mrr",
        "1/first relevant rank at k - shift over the list and its missed relevant items (evidently MRR)",
        "mrr.py MRRKMetric",
        _mrr,
    ),
):
    register(
        ExtraMeasure(
            _name,
            "ranking",
            _doc,
            f"{EVIDENTLY}/{_src}",
            _at_shift,
            params=VALUES,
            validate=_validate,
            param_names=("K", "SHIFT"),
            defaults=(10.0, 0.0),
            undefined_when="k - shift < 1",
        )
    )
register(
    ExtraMeasure(
        "ev_fbeta",
        "ranking",
        "F-beta of the mean ev_precision and the mean ev_recall at k (evidently FBetaTopK)",
        f"{EVIDENTLY}/f_beta_top_k.py FBetaTopKMetric",
        None,
        summary=GLOBAL,
        global_summary=_fbeta,
        params=VALUES,
        param_names=("K", "BETA"),
        defaults=(10.0, 1.0),
        validate=_validate,
        aggregate="F-beta of two means",
    )
)
