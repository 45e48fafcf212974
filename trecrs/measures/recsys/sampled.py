"""Sampled metrics measured against the exact ones: One-Plus-Random ranks, exact full ranks, and the
corrected estimators of Krichene & Rendle ("On Sampled Metrics for Item Recommendation", KDD 2020).

A One-Plus-Random case (Cremonesi, Koren & Turrin, RecSys 2010; :mod:`trecrs.protocol.one_plus_random`)
is a user u and a highly rated test item i ranked among m items drawn from the items u never rated. Per
case (:func:`case_ranks`), every ranking in trec_eval's order (:func:`trecrs.ordering.trec_order`, through
:func:`trecrs.protocol.runs.build_run`):

* ``r``: the sampled rank of i among i and its m drawn items (1-based);
* ``R``: the exact rank of i in the all-items ranking L_u = I \\ Tr_u (Bellogín et al. 2011), i the only
  relevant item (u's other test items count as non-relevant, as ``trecrs eval`` on the case's qrels);
* ``R_pool``: the rank of i among the population the draw samples from, i plus the n - 1 items u never
  rated (L_u minus u's other test items): ``n`` = that size, ``m`` = min(N, n - 1).

One relevant item: recall@k = HR@k = [R <= k], nDCG@k = [R <= k] / log2(R + 1) (:data:`RANK_METRICS`).
Sampling model, exact for a draw without replacement: r - 1 ~ Hypergeometric(population n - 1,
successes R_pool - 1, draws m) (:func:`sampling_matrix`). The estimators (:data:`ESTIMATORS`) map r to a
value whose mean over cases estimates the exact metric; see docs/sampled.md for their definitions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import polars as pl

from ...errors import UsageError
from ...protocol.candidates import CandidateSet, candidate_set
from ...protocol.indexed import _I, _Q, _U
from ...protocol.runs import build_run
from ...ranges import SAMPLED_CELLS_MAX
from ...schema import DOC, ITEM, QUERY, RANK, USER

KRICHENE = "Krichene & Rendle, On Sampled Metrics for Item Recommendation, KDD 2020"
# Policies for candidates without a score: "drop" would change the ranks being compared.
RANK_MISSING: tuple[str, ...] = ("fail", "last")


# --------------------------------------------------------------------------------------------- metrics


def hit(ranks: np.ndarray, k: int) -> np.ndarray:
    """HR@k = recall@k of one relevant item at rank R: 1 if R <= k, else 0."""
    return (np.asarray(ranks, dtype=np.float64) <= k).astype(np.float64)


def ndcg(ranks: np.ndarray, k: int) -> np.ndarray:
    """nDCG@k of one relevant item at rank R: 1 / log2(R + 1) if R <= k, else 0 (the ideal DCG is 1)."""
    r = np.asarray(ranks, dtype=np.float64)
    return np.where(r <= k, 1.0 / np.log2(r + 1.0), 0.0)


RANK_METRICS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {"recall": hit, "ndcg": ndcg}


def metric_function(name: str) -> Callable[[np.ndarray, int], np.ndarray]:
    """The metric called ``name`` in :data:`RANK_METRICS`; a :class:`UsageError` listing them otherwise."""
    if name not in RANK_METRICS:
        raise UsageError(f"unknown rank metric {name!r}; choose from {', '.join(RANK_METRICS)}")
    return RANK_METRICS[name]


# --------------------------------------------------------------------------------------------- sampling


@lru_cache(maxsize=4)
def _log_factorials(size: int) -> np.ndarray:
    out = np.zeros(size + 1)
    out[1:] = np.cumsum(np.log(np.arange(1, size + 1, dtype=np.float64)))
    return out


def _log_comb(lf: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ok = (b >= 0) & (b <= a)
    safe_b = np.where(ok, b, 0)
    return np.where(ok, lf[a] - lf[safe_b] - lf[a - safe_b], -np.inf)


def sampling_matrix(n: int, m: int) -> np.ndarray:
    """A[R-1, r-1] = P(r | R): the sampled rank r of an item at exact rank R among n, m others drawn.

    Drawing m of the n - 1 other items without replacement, r - 1 (the drawn items ranked above) is
    hypergeometric: P(r | R) = C(R-1, r-1) C(n-R, m-r+1) / C(n-1, m), R = 1..n, r = 1..m+1.
    """
    if not 0 <= m <= n - 1:
        raise UsageError(f"cannot draw {m} items from the {n - 1} other items of a ranking of {n}")
    if n * (m + 1) > SAMPLED_CELLS_MAX:
        raise UsageError(
            f"the correction for {m} items drawn from a ranking of {n} is a {n} x {m + 1} matrix; at "
            f"most {SAMPLED_CELLS_MAX:,} entries: draw fewer items",
            arguments=["n"],
        )
    lf = _log_factorials(n)
    above = np.arange(n)[:, None]  # R - 1
    drawn_above = np.arange(m + 1)[None, :]  # r - 1
    logp = _log_comb(lf, above, drawn_above) + _log_comb(lf, n - 1 - above, m - drawn_above)
    return np.exp(logp - (lf[n - 1] - lf[m] - lf[n - 1 - m]))


@lru_cache(maxsize=8192)  # the same split gives every system the same (n, m): computed once per report
def corrected_values(
    n: int, m: int, targets: tuple[tuple[str, int], ...], lam: float
) -> dict[tuple[str, int], np.ndarray]:
    """The corrected metric x[r-1] of Krichene & Rendle for each sampled rank r = 1..m+1, per (metric, k).

    Minimises over x, R uniform on 1..n: sum_R (E[x_r | R] - M(R))^2 + lam * sum_R Var[x_r | R]. With
    A = :func:`sampling_matrix`, b = M(1..n), c = column sums of A: x = ((1 - lam) A^T A + lam diag(c))^-1
    A^T b; lam = 0 is the minimal-bias correction (the least-squares solution of A x = b),
    lam = 1 the mean of M(R) given r.
    """
    a = sampling_matrix(n, m)
    b = np.stack([metric_function(metric)(np.arange(1, n + 1), k) for metric, k in targets], axis=1)
    lhs = (1.0 - lam) * (a.T @ a) + lam * np.diag(a.sum(axis=0))
    # lam = 0: the normal equations, solved by least squares (A^T A is ill-conditioned for m << n)
    x = np.linalg.lstsq(lhs, a.T @ b, rcond=None)[0] if lam == 0 else np.linalg.solve(lhs, a.T @ b)
    return {t: x[:, j] for j, t in enumerate(targets)}


# --------------------------------------------------------------------------------------------- estimators


@dataclass(frozen=True)
class Estimator:
    """An estimate of the exact metric from one case's ranks: ``values(cases, targets, lam)`` gives the
    per-case values (a frame from :func:`case_ranks`) of every (metric, k) in ``targets``."""

    name: str
    rule: str
    reference: str
    values: Callable[[pl.DataFrame, list[tuple[str, int]], float], dict[tuple[str, int], np.ndarray]]


def _of_column(column: str):
    def values(cases: pl.DataFrame, targets: list[tuple[str, int]], lam: float) -> dict:
        ranks = cases.get_column(column).to_numpy()
        return {(metric, k): metric_function(metric)(ranks, k) for metric, k in targets}

    return values


def _rescaled(cases: pl.DataFrame, targets: list[tuple[str, int]], lam: float) -> dict:
    # E[r - 1 | R] = m (R - 1) / (n - 1), so 1 + (r - 1)(n - 1) / m estimates R without bias
    r, n, m = (cases.get_column(c).to_numpy().astype(np.float64) for c in ("r", "n", "m"))
    rank = 1.0 + (r - 1.0) * (n - 1.0) / np.maximum(m, 1.0)
    return {(metric, k): metric_function(metric)(rank, k) for metric, k in targets}


def _corrected(fixed_lam: float | None):
    def values(cases: pl.DataFrame, targets: list[tuple[str, int]], lam: float) -> dict:
        use = float(lam if fixed_lam is None else fixed_lam)
        r, n, m = (cases.get_column(c).to_numpy() for c in ("r", "n", "m"))
        out = {t: np.empty(r.size) for t in targets}
        for nn, mm in sorted(set(zip(n.tolist(), m.tolist(), strict=True))):
            at = (n == nn) & (m == mm)
            for t, x in corrected_values(int(nn), int(mm), tuple(targets), use).items():
                out[t][at] = x[r[at] - 1]
        return out

    return values


ESTIMATORS: dict[str, Estimator] = {
    e.name: e
    for e in (
        Estimator("exact", "M(R): the all-items rank", "Bellogín et al. 2011 (all-items)", _of_column("R")),
        Estimator(
            "exact-pool", "M(R_pool): the rank among the sampled population", KRICHENE, _of_column("R_pool")
        ),
        Estimator(
            "sampled", "M(r): the metric of the sampled ranking", "Cremonesi et al. 2010", _of_column("r")
        ),
        Estimator(
            "rescaled", "M(1 + (r-1)(n-1)/m): the rank rescaled to the population", "derived", _rescaled
        ),
        Estimator("minimal-bias", "x_r minimising sum_R bias^2 (lam = 0)", KRICHENE, _corrected(0.0)),
        Estimator("bias-variance", "x_r minimising sum_R bias^2 + lam var", KRICHENE, _corrected(None)),
    )
}


def estimate_all(
    cases: pl.DataFrame, targets: list[tuple[str, int]], lam: float = 0.1, estimators=None
) -> dict[tuple[str, str, int], np.ndarray]:
    """Per-case values ``{(estimator, metric, k): array}`` of every estimator (:data:`ESTIMATORS`, or the
    names given) for every (metric, k) in ``targets``; the mean over cases estimates the exact metric."""
    names = list(ESTIMATORS) if estimators is None else list(estimators)
    unknown = [e for e in names if e not in ESTIMATORS]
    if unknown:
        raise UsageError(f"unknown estimator {unknown[0]!r}; choose from {', '.join(ESTIMATORS)}")
    if not 0.0 <= lam <= 1.0:
        raise UsageError(f"lam must be from 0 to 1, got {lam}", arguments=["lam"])
    for metric, k in targets:
        metric_function(metric)
        if k < 1:
            raise UsageError(f"k must be a positive cutoff, got {k}")
    out: dict[tuple[str, str, int], np.ndarray] = {}
    for e in names:
        for (metric, k), v in ESTIMATORS[e].values(cases, list(targets), lam).items():
            out[(e, metric, k)] = v
    return out


def estimate(cases: pl.DataFrame, estimator: str, metric: str, k: int, lam: float = 0.1) -> np.ndarray:
    """Per-case values of one ``estimator`` for ``metric`` at ``k`` (see :func:`estimate_all`)."""
    return estimate_all(cases, [(metric, k)], lam, [estimator])[(estimator, metric, k)]


# --------------------------------------------------------------------------------------------- ranks


def opr_candidates(
    train,
    test,
    items=None,
    *,
    n: int = 100,
    relevant_threshold: float = 5.0,
    seed: int | None = None,
    paths: dict | None = None,
) -> CandidateSet:
    """The One-Plus-Random candidates ``trecrs candidates --methodology one-plus-random`` draws (pool all)."""
    return candidate_set(
        "one-plus-random",
        train,
        test,
        items,
        n=n,
        relevant_threshold=relevant_threshold,
        seed=seed,
        paths=paths,
    )


def _rank_of(run: pl.DataFrame, keys: pl.DataFrame, name: str) -> pl.DataFrame:
    return keys.join(
        run.select(QUERY, DOC, pl.col(RANK).alias(name)), on=[QUERY, DOC], how="left", maintain_order="left"
    )


def case_ranks(cands: CandidateSet, scores, *, missing: str = "fail", scores_path=None) -> pl.DataFrame:
    """Per One-Plus-Random case: ``query, user, target, r, m, n, R, R_pool`` (see the module docstring).

    ``cands``: :func:`opr_candidates`; ``scores``: anything :func:`trecrs.protocol.runs.build_run` reads.
    """
    if missing not in RANK_MISSING:
        raise UsageError(
            f"missing must be one of {', '.join(RANK_MISSING)} to compare ranks, got {missing!r}"
        )
    split, cases = cands.split, cands.cases
    if cases is None:
        raise UsageError(
            "case_ranks needs One-Plus-Random candidates (opr_candidates), one case per test rating"
        )
    keys = pl.DataFrame(
        {
            QUERY: cands.query_names(cases.get_column(_Q)),
            USER: split.users.gather(cases.get_column(_U)),
            DOC: split.items.gather(cases.get_column(_I)),
        }
    )
    sampled = build_run(cands, scores, missing=missing, scores_path=scores_path).run
    out = _rank_of(sampled, keys, "r").join(
        sampled.group_by(QUERY).agg((pl.len() - 1).cast(pl.Int64).alias("m")),
        on=QUERY,
        how="left",
        maintain_order="left",
    )
    all_items = candidate_set("all-items", split)  # the same coded split: no second validation
    full = build_run(all_items, scores, missing=missing, scores_path=scores_path).run
    out = _rank_of(full, out.with_columns(pl.col(QUERY).alias("_name"), pl.col(USER).alias(QUERY)), "R")
    test = pl.DataFrame(
        {
            QUERY: split.users.gather(split.test.get_column(_U)),
            DOC: split.items.gather(split.test.get_column(_I)),
        }
    )
    test_ranks = test.join(full.select(QUERY, DOC, pl.col(RANK).alias("_t")), on=[QUERY, DOC])
    sizes = (
        full.group_by(QUERY)
        .agg(pl.len().alias("_len"))
        .join(test_ranks.group_by(QUERY).agg(pl.len().alias("_te")), on=QUERY)
    )
    above = (
        out.select("_name", QUERY, "R")
        .join(test_ranks.select(QUERY, "_t"), on=QUERY)
        .filter(pl.col("_t") < pl.col("R"))
        .group_by("_name")
        .agg(pl.len().alias("_above"))
    )
    out = out.join(sizes, on=QUERY, how="left", maintain_order="left").join(
        above, on="_name", how="left", maintain_order="left"
    )
    return out.select(
        pl.col("_name").alias(QUERY),
        USER,
        pl.col(DOC).alias(ITEM),
        "r",
        "m",
        (pl.col("_len") - pl.col("_te") + 1).cast(pl.Int64).alias("n"),
        "R",
        (pl.col("R") - pl.col("_above").fill_null(0)).cast(pl.Int64).alias("R_pool"),
    ).rename({ITEM: "target"})


__all__ = [
    "ESTIMATORS",
    "KRICHENE",
    "RANK_METRICS",
    "RANK_MISSING",
    "Estimator",
    "case_ranks",
    "corrected_values",
    "estimate",
    "estimate_all",
    "hit",
    "ndcg",
    "opr_candidates",
    "sampling_matrix",
]
