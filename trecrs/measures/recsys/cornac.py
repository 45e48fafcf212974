"""Cornac's ranking measures that no other trecrs measure gives: normalised cumulative reciprocal rank, and
reciprocal rank, average precision and ROC AUC over the full ranking of a user's candidate items.

Cornac's ``ranking_eval`` (cornac/eval_methods/base_method.py) has the model rank every candidate of a
user: C_u = every item except the user's training positives (training rating >= the relevance level),
the user's relevant test items always included. A run lists the head of that ranking; the ``*_full``
measures complete it with the candidates it does not list, ranked after it with the non-relevant ones
first — the worst order, so each value is the lowest Cornac can give for a ranking that begins with the
run, and exactly Cornac's when the run lists every candidate. With I = the catalogue (training items +
run items), T_u = the user's training items with rating >= level and R = the query's relevant qrels
documents, the unlisted candidates number |C_u \\ L| = |I| + |R \\ I| − |T_u \\ R| − |L| + |L ∩ (T_u \\ R)|:
m = |R| − |L ∩ R| of them relevant, q = |C_u \\ L| − m not. A training positive the run lists stays in the
ranking as a non-relevant document (Cornac never ranks one).

The ``cornac:`` names of :mod:`trecrs.measures.dialects` compute them; docs/measures.md ("With the
frameworks' denominators") gives their worked examples.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ...schema import DOC, ITEM, QUERY, RANK, RATING, REL, USER
from .ranking import cumulative
from .registry import CUTOFFS, RELEVANT, VALUE, Context, ExtraMeasure, register, safe_div, undefined_unless
from .ties import MONOTONE, mean_relevant

F = pl.Float64
CORNAC = "Cornac 3.0.1 cornac/metrics/ranking.py"
NO_RELEVANT = "no relevant document"


def _harmonic(n: pl.Series) -> pl.Series:
    """H(n) = Σ_{j=1}^{n} 1/j for each n (0 for n = 0)."""
    counts = n.cast(pl.Int64).to_numpy()
    h = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, max(int(counts.max(initial=0)), 1) + 1))])
    return pl.Series(h[counts])


def _ncrr(ctx: Context, k: int | None) -> pl.DataFrame:
    """Normalised cumulative reciprocal rank: Σ_{relevant j <= k} 1/j / Σ_{j=1}^{min(|R|, k)} 1/j (min(|R|, k)
    = |R| without a cutoff); 0 when R is empty.

    Cornac's ``NCRR`` (``ranking.py``: ``crr = Σ 1/rank`` of the hits in ``pd_rank[:k]`` over ``icrr`` for
    ``min(len(gt_pos), len(pd_rank[:k]))`` ideal ranks; ``pd_rank`` is the ranking of all the user's
    candidates, so at least k long). The reciprocal-rank analogue of nDCG with binary gains.
    """
    weight = mean_relevant() if ctx.ties == "expected" else pl.col(RELEVANT).cast(F)
    agg = ctx.top(k).group_by(QUERY).agg((weight / pl.col(RANK).cast(F)).sum().alias("crr"))
    st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left").with_columns(
        pl.col("crr").fill_null(0.0)
    )
    ideal = st.get_column("num_rel") if k is None else st.get_column("num_rel").clip(upper_bound=k)
    st = st.with_columns(_harmonic(ideal).alias("icrr"))
    return st.select(QUERY, safe_div(pl.col("crr"), pl.col("icrr")).alias(VALUE))


def _unlisted(ctx: Context) -> pl.DataFrame:
    """Every evaluated query's stats with ``m`` (unlisted relevant candidates) and ``q`` (unlisted
    non-relevant candidates), as floats (module docstring)."""
    relevant = ctx.qrels.filter(pl.col(REL) >= ctx.level).select(QUERY, DOC).unique()
    train = ctx.require("train", "Cornac's full ranking").filter(pl.col(RATING) >= ctx.level)
    seen = (
        ctx.query_users.join(train.select(USER, pl.col(ITEM).alias(DOC)), on=USER).select(QUERY, DOC).unique()
    )
    seen = seen.join(relevant, on=[QUERY, DOC], how="anti")  # T_u \ R
    catalogue = pl.DataFrame({DOC: ctx.catalogue})
    counts = [
        relevant.join(catalogue, on=DOC, how="anti").group_by(QUERY).agg(pl.len().alias("r_out")),
        seen.group_by(QUERY).agg(pl.len().alias("t_only")),
        ctx.ranked.select(QUERY, DOC).join(seen, on=[QUERY, DOC]).group_by(QUERY).agg(pl.len().alias("l_t")),
    ]
    st = ctx.stats
    for c in counts:
        st = st.join(c, on=QUERY, how="left", maintain_order="left")
    st = st.fill_null(0).with_columns(
        pl.col(c).cast(F) for c in ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_ret")
    )
    unlisted = ctx.catalogue.len() + pl.col("r_out") - pl.col("t_only") - pl.col("num_ret") + pl.col("l_t")
    m = pl.col("num_rel") - pl.col("num_rel_ret")
    return st.with_columns(m.alias("m"), (unlisted.cast(F) - m).alias("q"))


def _recip_rank_full(ctx: Context, param) -> pl.DataFrame:
    """1 / the rank of the first relevant document of the full ranking: 1/j for the first listed relevant
    document at rank j, else 1/(|L| + q + 1) (the first unlisted relevant candidate, after the q unlisted
    non-relevant ones); undefined when R is empty.

    Cornac's ``MRR`` (``ranking.py``: ``1 / (first index of gt_pos in pd_rank + 1)``) on the ranking of
    all candidates. (Cornac's ``Recommender.rank`` sorts only the top max(k) of the metrics evaluated
    together, so its ``MRR`` evaluated with ``@k`` metrics may read a partly unsorted list.)
    """
    first = ctx.ranked.filter(pl.col(RELEVANT)).group_by(QUERY).agg(pl.col(RANK).min().cast(F).alias("first"))
    st = _unlisted(ctx).join(first, on=QUERY, how="left", maintain_order="left")
    rank = pl.coalesce(pl.col("first"), pl.col("num_ret") + pl.col("q") + 1)
    return st.select(QUERY, undefined_unless(pl.col("num_rel") > 0, 1 / rank).alias(VALUE))


def _map_full(ctx: Context, param) -> pl.DataFrame:
    """Average precision of the full ranking: (1/|R|) [Σ_{listed relevant j} cum_rel_j / j + Σ_{t=1}^{m}
    (|L ∩ R| + t) / (|L| + q + t)]; undefined when R is empty.

    Cornac's ``MAP`` (``ranking.py``: ``rank = rankdata(-pd_scores, "max")`` of the relevant candidates,
    ``L`` their ranks among themselves, ``(L / rank).mean()``); with tied scores Cornac gives each tied
    item the largest rank of its group, trecrs the run's order.
    """
    listed = cumulative(ctx).filter(pl.col(RELEVANT))
    head = listed.group_by(QUERY).agg((pl.col("cum_rel").cast(F) / pl.col(RANK).cast(F)).sum().alias("head"))
    st = (
        _unlisted(ctx)
        .join(head, on=QUERY, how="left", maintain_order="left")
        .with_columns(pl.col("head").fill_null(0.0))
    )
    t = st.select(
        QUERY, "num_rel_ret", "num_ret", "q", pl.int_ranges(1, pl.col("m").cast(pl.Int64) + 1).alias("t")
    )
    t = t.explode("t").drop_nulls("t").with_columns(pl.col("t").cast(F))
    tail = t.group_by(QUERY).agg(
        ((pl.col("num_rel_ret") + pl.col("t")) / (pl.col("num_ret") + pl.col("q") + pl.col("t")))
        .sum()
        .alias("tail")
    )
    st = st.join(tail, on=QUERY, how="left", maintain_order="left").with_columns(
        pl.col("tail").fill_null(0.0)
    )
    value = (pl.col("head") + pl.col("tail")) / pl.col("num_rel")
    return st.select(QUERY, undefined_unless(pl.col("num_rel") > 0, value).alias(VALUE))


def _auc_full(ctx: Context, param) -> pl.DataFrame:
    """ROC AUC of the full ranking: the share of (relevant, non-relevant candidate) pairs in order,
    (Σ_{listed relevant j} (non-relevant listed below j) + |L ∩ R|·q) / (|R| · (N_L + q)), N_L = the listed
    non-relevant documents; an unlisted relevant candidate is above no one. Undefined when R is empty or
    there is no negative.

    Cornac's ``AUC`` (``ranking.py``: ``(ui_scores > uj_scores).sum() / len(uj_scores)`` over every
    (``gt_pos``, ``gt_neg``) pair of the user's candidates, ``gt_neg`` = the candidates not in
    ``gt_pos``); a tied pair counts 0 in Cornac (strict ``>``), as under ``--ties worst``.
    """
    above = (
        cumulative(ctx)
        .filter(pl.col(RELEVANT))
        .group_by(QUERY)
        .agg(pl.col("cum_nonrel").sum().cast(F).alias("above"))
    )
    st = (
        _unlisted(ctx)
        .join(above, on=QUERY, how="left", maintain_order="left")
        .with_columns(pl.col("above").fill_null(0.0))
    )
    hits = pl.col("num_rel_ret")
    pairs = hits * pl.col("num_nonrel_ret") - pl.col("above") + hits * pl.col("q")
    negatives = pl.col("num_nonrel_ret") + pl.col("q")
    defined = (pl.col("num_rel") > 0) & (negatives > 0)
    return st.select(QUERY, undefined_unless(defined, pairs / (pl.col("num_rel") * negatives)).alias(VALUE))


register(
    ExtraMeasure(
        "ncrr",
        "ranking",
        "normalised cumulative reciprocal rank Σ_{relevant j<=k} 1/j / Σ_{j<=min(|R|,k)} 1/j (Cornac NCRR@k)",
        f"{CORNAC} NCRR",
        _ncrr,
        params=CUTOFFS,
        ties=MONOTONE,
        expected=_ncrr,
    )
)
_FULL = "; the run, then its unlisted candidates (every item but the user's training positives), non-relevant first"
for _name, _doc, _src, _fn, _undefined in (
    (
        "recip_rank_full",
        "reciprocal rank of the full ranking (Cornac MRR)",
        "MRR",
        _recip_rank_full,
        NO_RELEVANT,
    ),
    ("map_full", "average precision of the full ranking (Cornac MAP)", "MAP", _map_full, NO_RELEVANT),
    (
        "auc_full",
        "ROC AUC of the full ranking (Cornac AUC)",
        "AUC",
        _auc_full,
        "no relevant or no negative candidate",
    ),
):
    register(
        ExtraMeasure(
            _name,
            "ranking",
            _doc + _FULL,
            f"{CORNAC} {_src}; cornac/eval_methods/base_method.py ranking_eval",
            _fn,
            needs=("train",),
            undefined_when=_undefined,
            ties=MONOTONE,
            ties_depth=False,
        )
    )
