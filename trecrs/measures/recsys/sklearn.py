"""scikit-learn's ranking metrics, per user, as a user calls them on a top-N list.

``sklearn.metrics`` scores arrays: a user's ``y_true`` (gains, or binary labels) and ``y_score`` over the
same items. A top-N list is scored as the items of the user's ranking with their scores, plus the user's
relevant documents the ranking missed, scored below every listed item (all of them tied, at
min(0, lowest listed score − 1): :func:`score_vectors`); otherwise recall-like denominators and the ideal
DCG would come from the list alone. Each function below is the formula of scikit-learn 1.9.1's
``sklearn/metrics/_ranking.py`` (lines named per function) on one user's vectors: s = the scores (float64,
as given), g = the gains (the qrels value of a relevant document, else 0), r = relevance (g > 0), n = the
length of the vectors, R = Σ r. Ties in ``s`` are what scikit-learn sees: the names that average over
tied scores use the run's scores, ``ignore_ties=True`` uses trecrs's order (scikit-learn's ``argsort``
leaves tied items in an unspecified order). The ``sklearn:`` names (:mod:`trecrs.measures.dialects.sklearn`)
compute them; docs/frameworks.md has the pitfalls.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import polars as pl

from ...schema import DOC, QUERY, RANK, REL, SCORE
from ..trec_eval import LOWER
from .registry import CUTOFFS, NO_PARAMS, RELEVANT, VALUE, Context, ExtraMeasure, register

SKLEARN = "scikit-learn 1.9.1 sklearn/metrics/_ranking.py"


def score_vectors(ctx: Context) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """``(query, s, g)`` of every evaluated query: the ranked documents (trecrs's order) with their scores
    and gains, then the relevant documents the ranking missed, each scored min(0, lowest listed score − 1)
    with its gain. s is float64; g is the qrels value of a relevant document, 0 for the others."""

    def make() -> dict[str, tuple[np.ndarray, np.ndarray]]:
        gain = pl.when(pl.col(RELEVANT)).then(pl.col(REL).cast(pl.Float64)).otherwise(0.0)
        scores = ctx.run.select(QUERY, DOC, pl.col(SCORE).cast(pl.Float64))
        listed = ctx.ranked.join(scores, on=[QUERY, DOC], how="left").sort(QUERY, RANK)
        listed = listed.select(QUERY, DOC, SCORE, gain.alias("g"))
        low = listed.group_by(QUERY).agg(pl.min_horizontal(pl.col(SCORE).min() - 1.0, 0.0).alias("low"))
        missed = ctx.qrels.filter(pl.col(REL) >= ctx.level).join(listed, on=[QUERY, DOC], how="anti")
        missed = missed.join(low, on=QUERY, how="left").select(
            QUERY, DOC, pl.col("low").fill_null(0.0).alias(SCORE), pl.col(REL).cast(pl.Float64).alias("g")
        )
        both = pl.concat([listed, missed.sort(QUERY, DOC)]).group_by(QUERY, maintain_order=True)
        rows = both.agg(SCORE, "g").iter_rows()
        return {q: (np.asarray(s, dtype=np.float64), np.asarray(g, dtype=np.float64)) for q, s, g in rows}

    vectors = ctx.cached("score_vectors", make)
    empty = (np.zeros(0), np.zeros(0))
    for q in ctx.queries:
        yield (q, *vectors.get(q, empty))


def per_user(fn: Callable[[np.ndarray, np.ndarray, Any], float]):
    """A registry ``per_query`` computing ``fn(s, g, k)`` on every query's :func:`score_vectors` (NaN: no
    value)."""

    def per_query(ctx: Context, k) -> pl.DataFrame:
        out = [(q, fn(s, g, k)) for q, s, g in score_vectors(ctx)]
        values = [None if v is None or math.isnan(v) else float(v) for _, v in out]
        return pl.DataFrame(
            {QUERY: [q for q, _ in out], VALUE: values}, schema={QUERY: pl.Utf8, VALUE: pl.Float64}
        )

    return per_query


def tie_averaged_dcg(s: np.ndarray, g: np.ndarray, k: int | None) -> float:
    """Σ over the tie groups of ``s`` (descending) of the group's mean gain × the sum of the discounts
    1/log2(j + 1) of the ranks j <= k it spans (McSherry & Najork 2008): DCG averaged over every order of
    the tied items. ``_ranking.py`` ``_dcg_sample_scores`` (``ignore_ties=False``), ``_tie_averaged_dcg``
    (1655-1760)."""
    discount = 1 / (np.log(np.arange(s.size) + 2) / np.log(2))
    if k is not None:
        discount[k:] = 0
    cumsum = np.cumsum(discount)
    _, inv, counts = np.unique(-s, return_inverse=True, return_counts=True)
    ranked = np.zeros(len(counts))
    np.add.at(ranked, inv, g)
    ranked /= counts
    ends = np.cumsum(counts) - 1
    sums = np.empty(len(counts))
    sums[0] = cumsum[ends[0]]
    sums[1:] = np.diff(cumsum[ends])
    return float((ranked * sums).sum())


def ranked_dcg(g: np.ndarray, k: int | None) -> float:
    """Σ_{j <= k} g_j / log2(j + 1) over ``g`` in its order: ``_dcg_sample_scores(ignore_ties=True)``."""
    discount = 1 / (np.log(np.arange(g.size) + 2) / np.log(2))
    if k is not None:
        discount[k:] = 0
    return float(discount.dot(g))


def _dcg(s: np.ndarray, g: np.ndarray, k: int | None, ties: bool) -> float:
    return tie_averaged_dcg(s, g, k) if ties else ranked_dcg(g, k)


def ndcg(ties: bool) -> Callable[[np.ndarray, np.ndarray, int | None], float]:
    """``ndcg_score(y_true=[g], y_score=[s], k=k, ignore_ties=not ties)``: DCG@k over the ideal DCG@k of
    the gains sorted descending (from the vectors passed: the ranking and its missed relevant documents),
    0 when the ideal is 0; NaN for a single item, where scikit-learn raises (``_ndcg_sample_scores``,
    ``ndcg_score``, 1898-2078)."""

    def value(s: np.ndarray, g: np.ndarray, k: int | None) -> float:
        if s.size < 2:
            return math.nan
        ideal = ranked_dcg(np.sort(g)[::-1], k)
        return _dcg(s, g, k, ties) / ideal if ideal > 0 else 0.0

    return value


def dcg(ties: bool) -> Callable[[np.ndarray, np.ndarray, int | None], float]:
    """``dcg_score(y_true=[g], y_score=[s], k=k, ignore_ties=not ties)`` (``dcg_score``, 1789-1896)."""
    return lambda s, g, k: _dcg(s, g, k, ties) if s.size else 0.0


def _groups(s: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Relevant and non-relevant items per distinct score, the highest score first."""
    _, inv = np.unique(-s, return_inverse=True)
    m = inv.max() + 1 if inv.size else 0
    pos = np.bincount(inv, weights=r.astype(float), minlength=m)
    return pos, np.bincount(inv, minlength=m) - pos


def average_precision(s: np.ndarray, g: np.ndarray, _k: object = None) -> float:
    """Σ over the distinct scores t (descending) of (R_t − R_{t−1}) · P_t, R_t and P_t the recall and
    precision of the items scoring >= t: each tie group is one step, its precision that of the whole
    group (``average_precision_score``, ``_binary_uninterpolated_average_precision``, 128-300); 0 without
    a relevant item (scikit-learn warns and gives 0)."""
    r = g > 0
    if not r.any():
        return 0.0
    pos, neg = _groups(s, r)
    tp, fp = np.cumsum(pos), np.cumsum(pos + neg)
    return float(max(0.0, np.sum(np.diff(np.concatenate([[0.0], tp / r.sum()])) * (tp / fp))))


def roc_auc(s: np.ndarray, g: np.ndarray, _k: object = None) -> float:
    """Share of the (relevant, non-relevant) pairs in order, a tie counting 1/2 (the trapezoids of
    ``roc_curve``); NaN without a relevant or a non-relevant item (``_binary_roc_auc_score``, 466-490:
    scikit-learn warns and returns NaN)."""
    r = g > 0
    if r.all() or not r.any():
        return math.nan
    pos, neg = _groups(s, r)
    below = neg.sum() - np.cumsum(neg)  # non-relevant items scoring lower than each group
    return float(np.sum(pos * (below + neg / 2)) / (r.sum() * (~r).sum()))


def lrap(s: np.ndarray, g: np.ndarray, _k: object = None) -> float:
    """Mean over the relevant items i of |{relevant j: s_j >= s_i}| / |{j: s_j >= s_i}| (ties count
    against: ``rankdata(..., "max")``); 1 when no item or every item is relevant
    (``label_ranking_average_precision_score``, 1383-1481)."""
    r = g > 0
    if not r.any() or r.all():
        return 1.0
    pos, neg = _groups(s, r)
    tp, n = np.cumsum(pos), np.cumsum(pos + neg)
    return float(np.sum(pos * tp / n) / r.sum())


def coverage_error(s: np.ndarray, g: np.ndarray, _k: object = None) -> float:
    """|{j: s_j >= the lowest score of a relevant item}|: how deep the ranking must be read to hold every
    relevant item, ties counted in full; 0 without a relevant item (``coverage_error``, 1484-1558)."""
    r = g > 0
    return float((s >= s[r].min()).sum()) if r.any() else 0.0


def ranking_loss(s: np.ndarray, g: np.ndarray, _k: object = None) -> float:
    """Share of the (relevant, non-relevant) pairs where the non-relevant item scores at least as high (a
    tie counts as an error); 0 when no item or every item is relevant (``label_ranking_loss``,
    1561-1652)."""
    r = g > 0
    if not r.any() or r.all():
        return 0.0
    pos, neg = _groups(s, r)
    above = np.cumsum(neg)  # non-relevant items scoring at least as high as each group
    return float(np.sum(pos * above) / (r.sum() * (~r).sum()))


_MEASURES: tuple[tuple[str, str, str, Callable[[np.ndarray, np.ndarray, Any], float], str, dict], ...] = (
    ("sk_ndcg", "nDCG@k averaged over tied scores, linear gains, ideal from the list + missed (sklearn ndcg_score)",
     "ndcg_score", ndcg(True), CUTOFFS, {}),
    ("sk_ndcg_nt", "nDCG@k in trecrs's order, linear gains, ideal from the list + missed (ndcg_score ignore_ties)",
     "ndcg_score(ignore_ties=True)", ndcg(False), CUTOFFS, {}),
    ("sk_dcg", "DCG@k averaged over tied scores, linear gains, the missed relevant within k counted (dcg_score)",
     "dcg_score", dcg(True), CUTOFFS, {}),
    ("sk_dcg_nt", "DCG@k in trecrs's order, linear gains, the missed relevant within k counted (dcg_score "
     "ignore_ties)", "dcg_score(ignore_ties=True)", dcg(False), CUTOFFS, {}),
    ("sk_ap", "AP with each distinct score one step, the missed relevant one last step (average_precision_score)",
     "average_precision_score", average_precision, NO_PARAMS, {}),
    ("sk_auc", "ROC AUC of the list + missed, ties 1/2 (roc_auc_score per user)", "roc_auc_score", roc_auc, NO_PARAMS,
     {"undefined_when": "no relevant or no non-relevant item"}),
    ("sk_lrap", "label ranking AP: ties count against, 1 without relevant items "
     "(label_ranking_average_precision_score)", "label_ranking_average_precision_score", lrap, NO_PARAMS, {}),
    ("sk_coverage_error", "items scoring at least the lowest relevant one (coverage_error)", "coverage_error",
     coverage_error, NO_PARAMS, {"better": LOWER}),
    ("sk_ranking_loss", "share of (relevant, non-relevant) pairs misordered or tied (label_ranking_loss)",
     "label_ranking_loss", ranking_loss, NO_PARAMS, {"better": LOWER}),
)  # fmt: skip
for _name, _doc, _src, _fn, _params, _kw in _MEASURES:
    register(ExtraMeasure(_name, "ranking", _doc, f"{SKLEARN} {_src}", per_user(_fn), params=_params, **_kw))
