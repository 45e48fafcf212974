"""trecrs.report.stats against scipy, exact enumeration and hand computation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from trecrs.report import stats

A = np.array([0.50, 0.20, 0.90, 0.40, 0.70, 0.10, 0.60, 0.30, 0.80, 0.55, 0.45, 0.25])
B = np.array([0.40, 0.25, 0.70, 0.40, 0.50, 0.15, 0.65, 0.10, 0.60, 0.35, 0.45, 0.05])


def test_paired_t_equals_scipy():
    assert stats.paired_t(A - B) == pytest.approx(scipy_stats.ttest_rel(A, B).pvalue, rel=1e-12)


def test_paired_t_degenerate():
    assert stats.paired_t(np.zeros(5)) == 1.0
    assert stats.paired_t(np.full(5, 0.1)) == 0.0


@pytest.mark.parametrize("d", [
    A - B,  # ties in |d| and zeros
    np.array([0.1, -0.2, 0.3, 0.4, -0.05, 0.6, 0.7, 0.15]),  # exact distribution
    np.array([0.1, 0.1, -0.1, 0.2, 0.0, 0.0, 0.3, -0.2, 0.2, 0.1]),
])  # fmt: skip
def test_wilcoxon_equals_scipy(d):
    assert stats.wilcoxon(d) == pytest.approx(scipy_stats.wilcoxon(d).pvalue, rel=1e-12)


def test_wilcoxon_all_zero_is_one():
    assert stats.wilcoxon(np.zeros(6)) == 1.0


def test_randomization_estimate_near_exact_enumeration():
    d = (A - B)[:10]
    exact = stats.randomization_exact(d)
    signs = np.array(np.meshgrid(*[[-1, 1]] * 10)).reshape(10, -1).T  # the 1024 assignments, enumerated apart
    count = np.count_nonzero(np.abs((signs * d).mean(axis=1)) >= abs(d.mean()) - 1e-12)
    assert count == 48 and exact == 48 / 1024
    estimate = stats.randomization(d, rng=np.random.default_rng(1), resamples=20000)
    assert estimate == pytest.approx(exact, abs=0.01)  # binomial sd at p=0.047, B=20000: 0.0024


def test_randomization_p_shape():
    d = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0])
    # all positive: only the two all-same-sign flips reach |mean|; p = (count + 1) / (B + 1)
    p = stats.randomization(d, rng=np.random.default_rng(0), resamples=99)
    assert p * 100 == pytest.approx(round(p * 100))
    assert p == pytest.approx(1 / 100)
    assert stats.randomization(np.zeros(4), rng=np.random.default_rng(0), resamples=9) == 1.0


def test_bootstrap_deterministic_and_brackets_mean():
    d = A - B
    one = stats.bootstrap_ci(d, rng=np.random.default_rng(np.random.SeedSequence([0, 1])), resamples=2000)
    two = stats.bootstrap_ci(d, rng=np.random.default_rng(np.random.SeedSequence([0, 1])), resamples=2000)
    assert one == two
    assert one[0] < d.mean() < one[1]
    means = d[np.random.default_rng(np.random.SeedSequence([0, 1])).integers(0, d.size, (2000, d.size))].mean(
        1
    )
    assert one == pytest.approx(tuple(np.quantile(means, [0.025, 0.975])))


def test_cohens_d_hand_example():
    d = np.array([1.0, 2.0, 3.0])  # mean 2, sd (ddof=1) 1
    assert stats.cohens_d(d) == 2.0
    assert stats.cohens_d(np.zeros(3)) == 0.0
    assert stats.cohens_d(np.full(3, -0.5)) == -np.inf


def test_wins_ties_losses():
    assert stats.wins_ties_losses(A, B) == (7, 2, 3)


P = np.array([0.01, 0.04, 0.03, 0.20])


def test_bonferroni_by_hand():
    assert stats.bonferroni(P).tolist() == pytest.approx([0.04, 0.16, 0.12, 0.80])


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04, 0.20 times 4, 3, 2, 1 = 0.04, 0.09, 0.08 -> 0.09 (monotone), 0.20
    assert stats.holm(P).tolist() == pytest.approx([0.04, 0.09, 0.09, 0.20])
    assert stats.holm(np.array([0.5, 0.6])).tolist() == pytest.approx([1.0, 1.0])


def test_bh_by_hand_and_scipy():
    # sorted 0.01, 0.03, 0.04, 0.20 times 4/1, 4/2, 4/3, 4/4 = 0.04, 0.06, 0.0533, 0.20 -> step-up minimum
    assert stats.benjamini_hochberg(P).tolist() == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.20])
    rng = np.random.default_rng(3)
    for p in (P, rng.uniform(size=17), np.array([0.9, 0.95, 0.99])):
        assert stats.benjamini_hochberg(p) == pytest.approx(
            scipy_stats.false_discovery_control(p, method="bh")
        )


def test_registries():
    assert set(stats.TESTS) == {"t", "wilcoxon", "randomization"}
    assert set(stats.CORRECTIONS) == {"holm", "bonferroni", "bh", "none"}


def test_cohens_d_of_a_constant_shift_with_float_noise_is_infinite():
    """0.1 - 0.0 and 0.3 - 0.2 differ in their last bits: the shift is constant, d is +inf, not 1e16."""
    from trecrs.report.stats import cohens_d

    d = np.array([0.1 - 0.0, 0.3 - 0.2, 0.7 - 0.6])
    assert d.std(ddof=1) > 0 and cohens_d(d) == np.inf
