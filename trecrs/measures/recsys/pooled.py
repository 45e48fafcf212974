"""Measures of every scored (query, document) pair pooled together, not averaged per query: the ROC AUC
of all pairs and the log loss of the run's scores read as probabilities.

The pairs are the evaluated queries' retrieved documents (trec_eval's ranking, ``-J`` and ``-M``
applied), each with its score as the run gives it and its label ``relevant`` (qrels value >= the relevance
level; an unjudged document is not relevant). Scores of different queries are compared with each other,
as a classifier's outputs are: these are RecBole's value-based ``AUC`` and ``LogLoss``
(``recbole/evaluator/metrics.py``), which take the model's score of every evaluated (user, item) pair and
its label, whatever the user.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ...schema import DOC, QUERY, SCORE
from ..trec_eval import LOWER
from .registry import GLOBAL, RELEVANT, VALUE, Context, ExtraMeasure, register
from .ties import FREE_WHOLE

F = pl.Float64
RECBOLE = "RecBole 1.2.1 recbole/evaluator/metrics.py"
EPS = 1e-15  # RecBole's LogLoss clips the probabilities to [EPS, 1 - EPS]


def _pairs(ctx: Context) -> pl.DataFrame:
    """``query, doc, score, relevant`` of every retrieved document of the evaluated queries."""

    def make() -> pl.DataFrame:
        scores = ctx.run.select(QUERY, DOC, pl.col(SCORE).cast(F))
        return ctx.ranked.select(QUERY, DOC, RELEVANT).join(
            scores, on=[QUERY, DOC], how="left", maintain_order="left"
        )

    return ctx.cached("pooled_pairs", make)


def pooled_auc(positives: np.ndarray, negatives: np.ndarray, unranked_positives: int = 0) -> float:
    """ROC AUC of scored positives and negatives: the share of (positive, negative) pairs in which the
    positive scores higher, a tie counting one half (Mann-Whitney U / (P·N); Hanley & McNeil 1982).

    ``unranked_positives`` positives have no score and rank below every scored pair. NaN when there is
    no positive or no negative. RecBole's ``AUC`` (``metrics.py``: ``_binary_clf_curve``, then
    ``sklearn.metrics.auc`` of the ROC curve, whose trapezoids give a tie one half).
    """
    pos = np.concatenate([np.asarray(positives, dtype=np.float64), np.full(unranked_positives, -np.inf)])
    neg = np.asarray(negatives, dtype=np.float64)
    if pos.size == 0 or neg.size == 0:
        return math.nan
    both = np.concatenate([pos, neg])
    order = np.argsort(both, kind="stable")
    sorted_scores = both[order]
    # average ranks of tied scores (1-based, ascending)
    starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
    ends = np.r_[starts[1:], both.size]
    ranks = np.empty(both.size)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    u = ranks[: pos.size].sum() - pos.size * (pos.size + 1) / 2.0
    return float(u / (pos.size * neg.size))


def _auc_pooled(ctx: Context, param, frame) -> float:
    """ROC AUC over every (query, document) pair: the retrieved documents by their scores (as C floats, as
    trec_eval reads them), the relevant documents a query did not retrieve below every retrieved one.

    RecBole's ``AUC`` (:func:`pooled_auc`), not its per-user ``GAUC`` (``auc_weighted``).
    """
    p = _pairs(ctx).with_columns(pl.col(SCORE).cast(pl.Float32))
    positives = p.filter(pl.col(RELEVANT)).get_column(SCORE).to_numpy()
    negatives = p.filter(~pl.col(RELEVANT)).get_column(SCORE).to_numpy()
    unretrieved = int(ctx.stats.get_column("num_rel").sum()) - positives.size
    return pooled_auc(positives, negatives, unretrieved)


def _probabilities(ctx: Context) -> pl.DataFrame:
    """The pairs with their log loss ``loss``; scores outside [0, 1] are clipped as RecBole clips them, and
    counted in a note."""
    p = _pairs(ctx)
    outside = p.filter(~pl.col(SCORE).is_between(0.0, 1.0)).height
    if outside:
        ctx.note(
            f"logloss: {outside} of {p.height} scores lie outside [0, 1] and are clipped to [1e-15, 1 - 1e-15] "
            "(the run's scores are read as probabilities)"
        )
    unretrieved = int(ctx.stats.get_column("num_rel").sum()) - int(p.get_column(RELEVANT).sum())
    if unretrieved:
        ctx.note(
            f"logloss: {unretrieved} relevant documents the run did not retrieve have no probability and "
            "are left out"
        )
    prob = pl.col(SCORE).clip(EPS, 1 - EPS)
    loss = pl.when(pl.col(RELEVANT)).then(-prob.log()).otherwise(-(1 - prob).log())
    return p.with_columns(loss.alias("loss"))


def _logloss(ctx: Context, param) -> pl.DataFrame:
    """Each query's mean log loss over its retrieved documents; undefined for an empty ranking."""
    agg = _probabilities(ctx).group_by(QUERY).agg(pl.col("loss").mean().alias(VALUE))
    q = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
    return q.join(agg, on=QUERY, how="left", maintain_order="left")


def _logloss_pooled(ctx: Context, param, frame) -> float:
    """(1/|S|) Σ_{(u,i) in S} −(y log p + (1 − y) log(1 − p)), S = every retrieved (query, document) pair,
    p = its score clipped to [1e-15, 1 − 1e-15], y = 1 if relevant else 0.

    RecBole's ``LogLoss`` (``metrics.py``: ``np.clip(preds, eps, 1 - eps)``, ``eps = 1e-15``, the sum over
    all pairs divided by their number).
    """
    loss = _probabilities(ctx).get_column("loss").to_numpy()
    return float(np.add.accumulate(loss)[-1] / loss.size) if loss.size else math.nan


register(
    ExtraMeasure(
        "auc_pooled",
        "ranking",
        "ROC AUC over every (query, document) pair pooled, scores compared across queries (RecBole auc)",
        f"Hanley & McNeil 1982; {RECBOLE} AUC",
        None,
        summary=GLOBAL,
        global_summary=_auc_pooled,
        aggregate="global: one ROC curve of all pairs",
        ties=FREE_WHOLE,
    )
)
register(
    ExtraMeasure(
        "logloss",
        "error",
        "log loss of the run's scores read as probabilities of relevance, pooled "
        "over every retrieved document (RecBole logloss)",
        f"{RECBOLE} LogLoss",
        _logloss,
        summary=GLOBAL,
        global_summary=_logloss_pooled,
        undefined_when="empty ranking",
        aggregate="pooled over every retrieved (query, document) pair",
        better=LOWER,
        ties=FREE_WHOLE,
    )
)
