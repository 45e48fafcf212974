"""Classification measures at a cutoff k: the top-k of L_u as the positive predictions.

The confusion matrix of a query at cutoff k (k = the whole list when no cutoff is given), over the universe
L_u ∪ R_u (the run's documents for the query plus its relevant qrels documents; the latter are usually
all in L_u already), with n = |L_u| and R = |R_u|:

* TP = relevant documents in the top min(k, n)
* FP = min(k, n) - TP                         (non-relevant documents recommended)
* FN = R - TP                                 (relevant documents not in the top k, retrieved or not)
* TN = (n - |R_u ∩ L_u|) - FP                 (non-relevant documents of L_u not in the top k)

Measures (Powers, "Evaluation: from precision, recall and F-measure to ROC, informedness, markedness and
correlation", 2007/2011; Schröder, Thiele, Lehner, "Setting goals and choosing metrics for recommender
system evaluations", UCERSTI 2, RecSys 2011), each with 0/0 := 0:

precision = TP/(TP+FP)   tpr (recall)  = TP/(TP+FN)   fpr (fallout)          = FP/(FP+TN)
fnr (miss rate) = FN/(TP+FN)   npv (inverse precision) = TN/(TN+FN)   tnr (inverse recall) = TN/(TN+FP)
F_beta = (1+b²)TP / ((1+b²)TP + b²FN + FP)   informedness = tpr + tnr - 1   markedness = precision + npv - 1
MCC = (TP·TN - FP·FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)), 0 when a marginal is 0.

``precision.k`` differs from trec_eval's ``P.k`` only when a query retrieved fewer than k documents (P.k
divides by k); ``tpr.k`` equals trec_eval's ``recall.k``; ``f1_cut.k`` = 2TP/(k+TP+FN) is the harmonic
mean of ``P.k`` and ``recall.k`` (the alias ``F1@k``), which differs from ``f1.k`` in the same case. All are averaged over queries (arithmetic mean).
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from ...errors import UsageError
from ...ranges import INT64_MAX
from ...schema import QUERY, RANK
from ..trec_eval import HIGHER, LOWER
from .registry import CUTOFFS, RELEVANT, VALUES, Context, ExtraMeasure, register, safe_div
from .ties import MONOTONE, WEIGHT, per_outcome, tp_law

F = pl.Float64
TP, FP, FN, TN = (pl.col(c) for c in ("tp", "fp", "fn", "tn"))


def confusion(ctx: Context, k: int | None) -> pl.DataFrame:
    """``query, tp, fp, fn, tn`` (float) of every evaluated query at cutoff ``k`` (None = whole list)."""

    def make() -> pl.DataFrame:
        if ctx.ties == "expected":  # one row per possible tp, with its probability (.ties.tp_law)
            kk = pl.col("num_ret") if k is None else pl.min_horizontal(pl.col("num_ret"), pl.lit(k))
            st = ctx.stats.with_columns(kk.alias("kk")).join(
                tp_law(ctx, k), on=QUERY, how="left", maintain_order="left"
            )
            extra = [pl.col(WEIGHT)]
        else:
            top = ctx.top(k).group_by(QUERY).agg(pl.col(RELEVANT).sum().alias("tp"), pl.len().alias("kk"))
            st = ctx.stats.join(top, on=QUERY, how="left", maintain_order="left").fill_null(0)
            extra = []
        return st.select(
            QUERY,
            pl.col("tp").cast(F).alias("tp"),
            (pl.col("kk") - pl.col("tp")).cast(F).alias("fp"),
            (pl.col("num_rel") - pl.col("tp")).cast(F).alias("fn"),
            (pl.col("num_nonrel_ret") - (pl.col("kk") - pl.col("tp"))).cast(F).alias("tn"),
            *extra,
        )

    return ctx.cached(("confusion", k), make)


def _measure(expr_of: Callable[[], pl.Expr]) -> Callable[[Context, int | None], pl.DataFrame]:
    def per_query(ctx: Context, k: int | None) -> pl.DataFrame:
        return per_outcome(confusion(ctx, k), expr_of())

    return per_query


def _ppv() -> pl.Expr:
    return safe_div(TP, TP + FP)


def _tpr() -> pl.Expr:
    return safe_div(TP, TP + FN)


def _tnr() -> pl.Expr:
    return safe_div(TN, TN + FP)


def _npv() -> pl.Expr:
    return safe_div(TN, TN + FN)


def _mcc() -> pl.Expr:
    den = ((TP + FP) * (TP + FN) * (TN + FP) * (TN + FN)).sqrt()
    return safe_div(TP * TN - FP * FN, den)


def _f_beta_per_query(ctx: Context, param):
    k, beta = int(param[0]), param[1]
    b2 = beta * beta
    return per_outcome(confusion(ctx, k), safe_div((1 + b2) * TP, (1 + b2) * TP + b2 * FN + FP))


def _f_beta_validate(param, name: str = "f_beta") -> None:
    k, beta = param
    if k <= 0 or k != int(k) or k > INT64_MAX:  # a cutoff, as every other: at most a C long
        raise UsageError(
            f"measure {name}: the cutoff must be a positive integer up to {INT64_MAX}, got {k:g}"
        )
    if beta <= 0:
        raise UsageError(f"measure {name}: beta must be positive, got {beta:g}")


POWERS = "Powers 2007 (Evaluation: from precision, recall and F-measure to ROC, informedness, markedness)"
SCHRODER = "Schröder, Thiele, Lehner 2011 (Setting goals and choosing metrics for recommender evaluations)"

_SIMPLE = (
    ("precision", "TP/(TP+FP): share of the top-k that is relevant (P.k divides by k instead)", _ppv, ()),
    (
        "tpr",
        "TP/(TP+FN): recall, sensitivity, true positive rate (= trec_eval recall.k)",
        _tpr,
        ("sensitivity",),
    ),
    ("fpr", "FP/(FP+TN): fallout, false positive rate", lambda: safe_div(FP, FP + TN), ("fallout",)),
    ("fnr", "FN/(TP+FN): miss rate, false negative rate", lambda: safe_div(FN, TP + FN), ("miss_rate",)),
    ("npv", "TN/(TN+FN): inverse precision, negative predictive value", _npv, ("inv_precision",)),
    (
        "tnr",
        "TN/(TN+FP): inverse recall, specificity, true negative rate",
        _tnr,
        ("inv_recall", "specificity"),
    ),
    (
        "f1",
        "2TP/(2TP+FP+FN): harmonic mean of precision and tpr",
        lambda: safe_div(2 * TP, 2 * TP + FP + FN),
        (),
    ),
)

# TN counts the non-relevant documents of the list -M leaves, which a tie group straddling the -M cut makes
# depend on the order: the tie modes refuse these under -M
_NEGATIVES = ("fpr", "npv", "tnr")
for _name, _doc, _expr, _aliases in _SIMPLE:
    _source = f"{POWERS}; {SCHRODER}"
    # fallout and miss rate count mistakes: lower is better
    _better = LOWER if _name in ("fpr", "fnr") else HIGHER
    register(
        ExtraMeasure(
            _name,
            "classification",
            _doc,
            _source,
            _measure(_expr),
            params=CUTOFFS,
            aliases=_aliases,
            better=_better,
            ties=MONOTONE,
            expected=_measure(_expr),
            ties_depth=_name not in _NEGATIVES,
        )
    )

register(
    ExtraMeasure(
        "f_beta",
        "classification",
        "(1+b²)TP/((1+b²)TP+b²FN+FP) at cutoff k; f_beta.K,BETA (defaults 10, 1)",
        f"van Rijsbergen 1979; {POWERS}",
        _f_beta_per_query,
        params=VALUES,
        param_names=("k", "beta"),
        defaults=(10, 1),
        validate=_f_beta_validate,
        ties=MONOTONE,
        expected=_f_beta_per_query,
    )
)
# Combinations of the rates above (Powers 2007): one row each, registered after f_beta.
_COMBINED = (
    (
        "informedness",
        "tpr + tnr - 1 (Youden's J, bookmaker informedness)",
        POWERS,
        lambda: _tpr() + _tnr() - 1,
    ),
    ("markedness", "precision + npv - 1", POWERS, lambda: _ppv() + _npv() - 1),
    (
        "mcc",
        "Matthews correlation (TP·TN-FP·FN)/sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)); mcc² = informedness·markedness",
        f"Matthews 1975; {POWERS}",
        _mcc,
    ),
)
for _name, _doc, _source, _expr in _COMBINED:
    register(
        ExtraMeasure(
            _name,
            "classification",
            _doc,
            _source,
            _measure(_expr),
            params=CUTOFFS,
            ties=MONOTONE,
            expected=_measure(_expr),
            ties_depth=False,
        )
    )


def _f1_cut_per_query(ctx: Context, k: int | None) -> pl.DataFrame:
    """2 P.k recall.k / (P.k + recall.k) = 2TP/(k + R): trec_eval's P.k divides by k, not by min(k, n)."""
    retrieved_or_k = TP + FP if k is None else pl.lit(float(k))
    return per_outcome(confusion(ctx, k), safe_div(2 * TP, retrieved_or_k + TP + FN))


def _f_beta_cut_per_query(ctx: Context, param) -> pl.DataFrame:
    """F-beta of trec_eval's P.k and recall.k: (1+β²) P R / (β² P + R) = (1+β²)TP / (β²(TP+FN) + k), P = TP/k
    (k counted when fewer are retrieved); 0 when TP = 0. β = 1: ``f1_cut.k``.

    RecTools 0.19.0's ``F1Beta(k, beta)`` (``rectools/metrics/classification.py``: ``p_k = tp / k``,
    ``r_k = tp / liked``, 0 where both are 0).
    """
    k, beta = int(param[0]), param[1]
    b2 = beta * beta
    return per_outcome(confusion(ctx, k), safe_div((1 + b2) * TP, b2 * (TP + FN) + float(k)))


# F1@k as ranx, RecBole and Elliot compute it: the harmonic mean of P@k and recall@k, P@k dividing by k
register(
    ExtraMeasure(
        "f1_cut",
        "classification",
        "2TP/(k+TP+FN) = harmonic mean of trec_eval's P.k and recall.k (F1@k); f1.k divides by min(k, n)+R",
        f"van Rijsbergen 1979; {SCHRODER}",
        _f1_cut_per_query,
        params=CUTOFFS,
        ties=MONOTONE,
        expected=_f1_cut_per_query,
    )
)

register(
    ExtraMeasure(
        "f_beta_cut",
        "classification",
        "(1+b²)TP/(b²(TP+FN)+k): F-beta of P.k and recall.k (RecTools F1Beta); f_beta_cut.K,BETA (defaults 10, 1)",
        "van Rijsbergen 1979; RecTools 0.19.0 rectools/metrics/classification.py F1Beta",
        _f_beta_cut_per_query,
        params=VALUES,
        param_names=("k", "beta"),
        defaults=(10, 1),
        validate=lambda param: _f_beta_validate(param, "f_beta_cut"),
        ties=MONOTONE,
        expected=_f_beta_cut_per_query,
    )
)

__all__ = ["confusion"]
_ = RANK  # ranks come from Context.top
