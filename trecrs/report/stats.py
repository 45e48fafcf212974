"""Paired statistics for comparing two systems on the same queries (pure numpy/scipy, no I/O).

Every function takes the per-query values of a system ``a`` and of the baseline ``b`` (or their
differences ``d = a - b``), query by query in the same order. The tests and the corrections are looked
up by name in :data:`TESTS` and :data:`CORRECTIONS`; ``trecrs compare`` reads its choices from them.
Definitions and sources: docs/compare.md, section "Paired comparison".
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

#: The relative tolerance under which a resampled |mean| counts as equal to the observed one: the same
#: sum added in another order can differ in its last bits, and such a tie must count as "as extreme".
TIE_TOLERANCE = 1e-12


def paired_t(d: np.ndarray, *, rng: np.random.Generator | None = None, resamples: int = 0) -> float:
    """Two-sided p-value of Student's paired t test (equal to ``scipy.stats.ttest_rel(a, b).pvalue``).

    t = mean(d) / (sd(d, ddof=1) / sqrt(n)), p = 2 * P(T_{n-1} >= |t|) (Student 1908). When every
    difference is the same the test is degenerate: p = 1.0 if they are all 0 (nothing differs) and 0.0
    otherwise (a constant non-zero shift; scipy returns NaN here). ``rng`` and ``resamples`` are unused.
    """
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    mean, sd = float(d.mean()), float(d.std(ddof=1)) if n > 1 else 0.0
    if sd == 0.0 or n < 2:
        return 1.0 if mean == 0.0 else 0.0
    from scipy import stats as _scipy  # here: `import trecrs` stays light (numpy and polars at most)

    t = mean / (sd / np.sqrt(n))
    return float(2.0 * _scipy.t.sf(abs(t), n - 1))


def wilcoxon(d: np.ndarray, *, rng: np.random.Generator | None = None, resamples: int = 0) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test (``scipy.stats.wilcoxon(d)`` with its defaults).

    W = the smaller of the sums of the ranks of |d_i| over positive and negative d_i, zero differences
    dropped (``zero_method="wilcox"``), ties given mid-ranks; scipy's exact null distribution for small n
    without ties, else the normal approximation (Wilcoxon 1945). When every difference is 0 scipy cannot
    test (no rank is left): p = 1.0.
    """
    d = np.asarray(d, dtype=np.float64)
    if not np.any(d != 0.0):
        return 1.0
    from scipy import stats as _scipy  # here: `import trecrs` stays light (numpy and polars at most)

    return float(_scipy.wilcoxon(d).pvalue)


def randomization(d: np.ndarray, *, rng: np.random.Generator, resamples: int = 10000) -> float:
    """Two-sided p-value of the paired randomization (sign-flip) test, estimated from ``resamples`` draws.

    Under H0 each difference is as likely to carry either sign (Fisher 1935; Smucker, Allan & Carterette,
    CIKM 2007). Each resample flips the sign of every d_i with probability 1/2; count = the resamples whose
    |mean| >= |observed mean| * (1 - TIE_TOLERANCE) (float ties count as extreme), and
    p = (count + 1) / (B + 1), which counts the observed assignment itself and is never 0.
    """
    d = np.asarray(d, dtype=np.float64)
    observed = abs(float(d.mean()))
    count, done, chunk = 0, 0, max(1, min(resamples, 1_000_000 // max(d.size, 1)))
    while done < resamples:
        m = min(chunk, resamples - done)
        signs = rng.integers(0, 2, size=(m, d.size), dtype=np.int8) * 2 - 1
        count += int(np.count_nonzero(np.abs((signs * d).mean(axis=1)) >= observed * (1 - TIE_TOLERANCE)))
        done += m
    return (count + 1) / (resamples + 1)


def randomization_exact(d: np.ndarray) -> float:
    """The exact two-sided sign-flip p-value: the share of all 2^n sign assignments whose |mean| is at least
    the observed |mean| (same tolerance as :func:`randomization`). For checking the estimate; n <= 20."""
    d = np.asarray(d, dtype=np.float64)
    if d.size > 20:
        raise ValueError("exact enumeration is for n <= 20")
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=d.size)))
    means = np.abs((signs * d).mean(axis=1))
    return float(np.count_nonzero(means >= abs(float(d.mean())) * (1 - TIE_TOLERANCE)) / means.size)


def bootstrap_ci(
    d: np.ndarray, *, rng: np.random.Generator, resamples: int = 10000, alpha: float = 0.05
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval (1 - alpha) of the mean difference (Efron 1979).

    B resamples of the n queries drawn with replacement; the interval is the alpha/2 and 1 - alpha/2
    quantiles (numpy's default linear interpolation) of the B resampled means.
    """
    d = np.asarray(d, dtype=np.float64)
    means = np.empty(resamples)
    chunk = max(1, 1_000_000 // max(d.size, 1))
    for start in range(0, resamples, chunk):
        m = min(chunk, resamples - start)
        means[start : start + m] = d[rng.integers(0, d.size, size=(m, d.size))].mean(axis=1)
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def cohens_d(d: np.ndarray) -> float:
    """Cohen's d for paired data (d_z): mean(d) / sd(d, ddof=1) (Cohen 1988, the standardized mean
    difference of the paired differences).

    When sd = 0 (or within float noise of it: at most 1e-12 times the largest |d|): 0.0 if the mean is 0
    too (no difference), else +inf or -inf with the mean's sign (a constant shift is infinitely many
    standard deviations away). With one query sd is undefined: the same.
    """
    d = np.asarray(d, dtype=np.float64)
    mean = float(d.mean())
    sd = float(d.std(ddof=1)) if d.size > 1 else 0.0
    # equal differences summed in another order differ in their last bits: an sd at that scale is 0
    if sd <= TIE_TOLERANCE * max(1.0, float(np.abs(d).max(initial=0.0))):
        return 0.0 if mean == 0.0 else float(np.copysign(np.inf, mean))
    return mean / sd


def paired_t_power(dz: float, n: int, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t test at level ``alpha`` for ``n`` pairs and a true standardized
    difference ``dz`` = mean(d) / sd(d): P(|T'| > t_{1-alpha/2, n-1}) with T' noncentral t, n - 1 degrees
    of freedom, noncentrality dz * sqrt(n) (Cohen 1988, ch. 2; G*Power's "means: difference from constant")."""
    from scipy import stats as _scipy  # here: `import trecrs` stays light

    crit = _scipy.t.ppf(1 - alpha / 2, n - 1)
    nc = dz * np.sqrt(n)
    lower = float(_scipy.nct.cdf(-crit, n - 1, nc))  # far below 1e-9 where scipy's series gives NaN
    return float(_scipy.nct.sf(crit, n - 1, nc)) + (0.0 if np.isnan(lower) else lower)


def detectable_dz(n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest standardized difference dz a two-sided paired t test over ``n`` pairs detects with
    ``power`` at level ``alpha``: the root of :func:`paired_t_power` (NaN below 2 pairs). For n = 34,
    alpha 0.05, power 0.8 it is 0.4950 (G*Power: dz = 0.5 needs 34 pairs, power 0.8078)."""
    if n < 2:
        return float("nan")
    from scipy.optimize import brentq

    def short(dz: float) -> float:
        return paired_t_power(dz, n, alpha) - power

    high = 1.0
    while short(high) < 0:  # a bracket small enough for the noncentral t to stay finite
        high *= 2.0
    return float(brentq(short, 0.0, high, xtol=1e-12))


def corrected_resampled_t(d: np.ndarray, test_train: float | None) -> float:
    """Two-sided p-value of the paired t test over k folds' differences ``d``; with ``test_train`` =
    n_test / n_train, Nadeau & Bengio's corrected resampled t test: t = mean(d) / sqrt((1/k + n_test/n_train)
    var(d)), var with ddof 1, k - 1 degrees of freedom ("Inference for the generalization error", Machine
    Learning 2003; Bouckaert & Frank, PAKDD 2004). ``test_train`` None: the plain paired t test
    (:func:`paired_t`). Every difference equal: p = 1 when they are 0, else 0."""
    d = np.asarray(d, dtype=np.float64)
    if test_train is None:
        return paired_t(d)
    k = d.size
    var = float(d.var(ddof=1)) if k > 1 else 0.0
    mean = float(d.mean())
    if var == 0.0 or k < 2:
        return 1.0 if mean == 0.0 else 0.0
    from scipy import stats as _scipy

    t = mean / np.sqrt((1.0 / k + test_train) * var)
    return float(2.0 * _scipy.t.sf(abs(t), k - 1))


def tolerant_ties(values: np.ndarray, rel: float = TIE_TOLERANCE) -> np.ndarray:
    """``values`` with those equal up to float noise made exactly equal, for ranking.

    Sorted ascending, a value within ``rel * max(|a|, |b|)`` of the first value ``a`` of the current run joins
    the run and takes ``a``; another starts a new run. Means of equal fold values summed in another order
    differ in their last bits (``(0.1 + 0.2) / 2`` is 0.15000000000000002, ``(0.0 + 0.3) / 2`` is 0.15): such
    values are ties, ranked as ties (average ranks, Demšar 2006), not 1 and 2 on the noise.
    """
    v = np.asarray(values, dtype=np.float64)
    out = v.copy()
    order = np.argsort(v, kind="stable")
    if order.size:
        first = v[order[0]]
        for i in order[1:]:
            if abs(v[i] - first) <= rel * max(abs(v[i]), abs(first)):
                out[i] = first
            else:
                first = v[i]
    return out


def t_interval(values: np.ndarray, alpha: float = 0.05) -> tuple[float, float]:
    """Student's t interval of the mean at level 1 - alpha: mean -+ t_{1-alpha/2, n-1} sd / sqrt(n), sd with
    ddof 1 (equal to ``scipy.stats.t.interval(1 - alpha, n - 1, mean, sem)``); NaN for fewer than 2 values.
    Every value equal (sd = 0): the interval (mean, mean) of width 0, where scipy gives (NaN, NaN) for a
    scale of 0: no spread was observed, and the table prints ``± 0.0000`` rather than nothing."""
    v = np.asarray(values, dtype=np.float64)
    if v.size < 2:
        return float("nan"), float("nan")
    from scipy import stats as _scipy

    half = float(_scipy.t.ppf(1 - alpha / 2, v.size - 1)) * float(v.std(ddof=1)) / np.sqrt(v.size)
    return float(v.mean()) - half, float(v.mean()) + half


def nemenyi_cd(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of average ranks, k systems over n data sets: q_alpha sqrt(k (k + 1) /
    (6 n)), q_alpha the studentized range quantile (k groups, infinite df) / sqrt(2) (Demšar, "Statistical
    comparisons of classifiers over multiple data sets", JMLR 2006: q_0.05 = 2.569 for k = 4)."""
    from scipy import stats as _scipy

    q = float(_scipy.studentized_range.ppf(1 - alpha, k, np.inf)) / np.sqrt(2.0)
    return q * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def wins_ties_losses(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int]:
    """Queries where ``a`` scores higher than ``b``, exactly the same, and lower (ties: equal floats)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return int(np.count_nonzero(a > b)), int(np.count_nonzero(a == b)), int(np.count_nonzero(a < b))


# --------------------------------------------------------------------------------------- corrections


def bonferroni(p: np.ndarray) -> np.ndarray:
    """Bonferroni: p_adj_i = min(1, m * p_i) over the m p-values."""
    p = np.asarray(p, dtype=np.float64)
    return np.minimum(1.0, p * p.size)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down (Holm 1979): with p sorted ascending, p_adj_(k) = max_{j <= k} min(1, (m - j + 1) p_(j))."""
    p = np.asarray(p, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (p.size - np.arange(p.size)) * p[order])
    out = np.empty_like(p)
    out[order] = np.maximum.accumulate(scaled)
    return out


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg step-up (1995): with p sorted ascending, p_adj_(k) = min_{j >= k} min(1, m p_(j) / j)
    (equal to ``scipy.stats.false_discovery_control(p, method="bh")``)."""
    p = np.asarray(p, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * p.size / np.arange(1, p.size + 1)
    out = np.empty_like(p)
    out[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return out


def no_correction(p: np.ndarray) -> np.ndarray:
    """No correction: the p-values as they are."""
    return np.asarray(p, dtype=np.float64).copy()


#: Paired significance tests by name: ``test(d, rng=..., resamples=...)`` -> two-sided p-value.
TESTS: dict[str, Callable[..., float]] = {"t": paired_t, "wilcoxon": wilcoxon, "randomization": randomization}

#: Multiple-comparison corrections by name: adjusted p-values, same order, monotone, at most 1.
CORRECTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "holm": holm, "bonferroni": bonferroni, "bh": benjamini_hochberg, "none": no_correction,
}  # fmt: skip
