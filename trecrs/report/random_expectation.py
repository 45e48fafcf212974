"""The value a uniformly random permutation of each query's candidates L_u gets in expectation: the bias of a
methodology, before any recommender (the "random (expected)" row of ``trecrs sensitivity``).

Precision and recall at k count the relevant candidates expected in the first min(k, |L_u|) ranks; nDCG sums
each rank's discount times the expected gain there (linearity); AP and RR take the expectation over where the
relevant candidates fall. tests/report/test_sensitivity.py checks each formula against the mean over every
permutation of small queries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from ..measures.trec_eval import base_of
from ..schema import DOC, ITEM, QUERY, REL


@dataclass(frozen=True)
class QueryStats:
    """Per query (trec_eval's evaluated queries: in the qrels, with candidates), what a random ranking meets.

    ``n`` = |L_u|; ``rel_in`` = |Rel_u ∩ L_u| (rel >= 1); ``rel`` = |Rel_u| (the qrels); ``gain_in`` the
    summed gains (rel > 0) of the judged candidates; ``ideal`` each query's gains in descending order.
    """

    n: np.ndarray
    rel_in: np.ndarray
    rel: np.ndarray
    gain_in: np.ndarray
    ideal: list[np.ndarray]


def query_stats(candidates: pl.DataFrame, qrels: pl.DataFrame) -> QueryStats:
    """The :class:`QueryStats` of candidates ``query, item`` against qrels ``query, doc, rel``."""
    sizes = candidates.group_by(QUERY).agg(pl.len().alias("n"))
    judged = candidates.select(QUERY, pl.col(ITEM).alias(DOC)).join(
        qrels.select(QUERY, DOC, REL), on=[QUERY, DOC]
    )
    inside = judged.group_by(QUERY).agg(
        (pl.col(REL) >= 1).sum().alias("rel_in"), pl.col(REL).clip(lower_bound=0).sum().alias("gain_in")
    )
    whole = qrels.group_by(QUERY).agg(
        (pl.col(REL) >= 1).sum().alias("rel"),
        pl.col(REL).filter(pl.col(REL) > 0).sort(descending=True).alias("ideal"),
    )
    s = whole.join(sizes, on=QUERY).join(inside, on=QUERY, how="left").fill_null(0).sort(QUERY)
    return QueryStats(
        s.get_column("n").to_numpy().astype(np.float64),
        s.get_column("rel_in").to_numpy().astype(np.float64),
        s.get_column("rel").to_numpy().astype(np.float64),
        s.get_column("gain_in").to_numpy().astype(np.float64),
        [np.asarray(g, dtype=np.float64) for g in s.get_column("ideal").to_list()],
    )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def expected_precision(s: QueryStats, k: int) -> np.ndarray:
    """E[P@k] = |Rel ∩ L| / |L| · min(k, |L|) / k (trec_eval's P_k divides by k, m_P.c)."""
    return _ratio(s.rel_in, s.n) * np.minimum(k, s.n) / k


def expected_recall(s: QueryStats, k: int) -> np.ndarray:
    """E[recall@k] = |Rel ∩ L| / |Rel| · min(k, |L|) / |L| (m_recall.c divides by every relevant of the qrels)."""
    return _ratio(s.rel_in, s.rel) * _ratio(np.minimum(k, s.n), s.n)


def _discount_sum(m: float) -> float:
    return float(np.sum(1.0 / np.log2(np.arange(2, int(m) + 2, dtype=np.float64))))


def expected_ndcg(s: QueryStats, k: int | None) -> np.ndarray:
    """E[nDCG@k] by linearity: Σ_{d ∈ Rel ∩ L} gain(d) · (1/|L|) Σ_{j=1}^{min(k,|L|)} 1/log2(j+1) / IDCG@k.

    Gains are the qrels' rel values (> 0); IDCG@k the first k of them in descending order (m_ndcg_cut.c);
    ``k=None`` is trec_eval's ndcg (every position, the whole ideal ranking, m_ndcg.c).
    """
    out = np.zeros_like(s.n)
    for q in range(s.n.size):
        depth = s.n[q] if k is None else min(k, s.n[q])
        g = s.ideal[q] if k is None else s.ideal[q][:k]
        idcg = float(np.sum(g / np.log2(np.arange(2, g.size + 2, dtype=np.float64))))
        if idcg > 0 and s.n[q] > 0:
            out[q] = s.gain_in[q] * _discount_sum(depth) / s.n[q] / idcg
    return out


def expected_ap(s: QueryStats) -> np.ndarray:
    """E[AP] of a random permutation of L_u (n = |L|, r = |Rel ∩ L|, R = |Rel|, H_n the harmonic number).

    AP = (1/R) Σ_{d relevant} (1/rank(d)) · (1 + #{relevant d' above d}); with E[1/rank(d)] = H_n/n and
    E[1[d' above d]/rank(d)] = Σ_r (1/n)(1/r)(r-1)/(n-1) = (n - H_n)/(n(n-1)) for each other relevant d':
    E[AP] = (1/R) · (r·H_n/n + r(r-1)(n - H_n)/(n(n-1))) (derived here; checked against every permutation
    of small lists in tests/report/test_sensitivity.py).
    """
    out = np.zeros_like(s.n)
    for q in range(s.n.size):
        n, r = s.n[q], s.rel_in[q]
        if r == 0 or s.rel[q] == 0:
            continue
        h = float(np.sum(1.0 / np.arange(1, int(n) + 1)))
        pairs = r * (r - 1) * (n - h) / (n * (n - 1)) if n > 1 else 0.0
        out[q] = (r * h / n + pairs) / s.rel[q]
    return out


def expected_rr(s: QueryStats) -> np.ndarray:
    """E[RR] = Σ_{j=1}^{n-r+1} (1/j) · P(first relevant at j), P = Π_{i<j} (n-r-i+1)/(n-i+1) · r/(n-j+1)."""
    out = np.zeros_like(s.n)
    for q in range(s.n.size):
        n, r = int(s.n[q]), int(s.rel_in[q])
        if r == 0:
            continue
        j = np.arange(1, n - r + 2, dtype=np.float64)
        none_before = np.cumprod(np.concatenate([[1.0], (n - r - j[:-1] + 1) / (n - j[:-1] + 1)]))
        out[q] = float(np.sum(none_before * r / (n - j + 1) / j))
    return out


def _cutoff(column: str, base: str) -> int | None:
    rest = column[len(base) + 1 :]
    return int(rest) if rest.isdigit() else None


def _k(column: str, base: str) -> int:
    """The cutoff of a column that has one (:func:`expected_value` returns None before for one without)."""
    k = _cutoff(column, base)
    assert k is not None
    return k


# trec_eval base measure -> E[value] per query of a random ranking, given the value column (P_10 -> k=10)
EXPECTATIONS: dict[str, Callable[[QueryStats, str], np.ndarray]] = {
    "P": lambda s, c: expected_precision(s, _k(c, "P")),
    "recall": lambda s, c: expected_recall(s, _k(c, "recall")),
    "ndcg_cut": lambda s, c: expected_ndcg(s, _cutoff(c, "ndcg_cut")),
    "ndcg": lambda s, c: expected_ndcg(s, None),
    "map": lambda s, c: expected_ap(s),
    "recip_rank": lambda s, c: expected_rr(s),
}


def expected_value(stats: QueryStats, column: str) -> float | None:
    """The mean over queries (trec_eval's average) of a random ranking's expected ``column``; None when
    :data:`EXPECTATIONS` has no formula for it (or no query is evaluated)."""
    base = base_of(column) or ""
    rule = EXPECTATIONS.get(base)
    if rule is None or stats.n.size == 0:
        return None
    if base in ("P", "recall", "ndcg_cut") and _cutoff(column, base) is None:
        return None
    return float(np.mean(rule(stats, column)))
