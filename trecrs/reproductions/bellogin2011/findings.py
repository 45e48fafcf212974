"""The findings of Bellogín et al. (2011, section 4 and Figure 2), each checked by one rule.

A rule reads the fold means of one split (:class:`SplitMeans`) and returns a :class:`Finding` whose
evidence states the rule; nothing is tuned. :data:`RULES` lists them in the order the report shows them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from ...report.records import Finding, check
from .constants import METRICS, NON_TR, RECOMMENDERS
from .results import present, value

OTHERS = (*NON_TR, "OPR")  # every methodology but TR_3 / TR_4
PAPER_METRICS = tuple(METRICS.values())


@dataclass(frozen=True)
class SplitMeans:
    """The fold means of one split: ``means(rec, methodology, metric)`` is a number (NaN when absent)."""

    results: pl.DataFrame
    split: str

    @property
    def recs(self) -> list[str]:
        """The paper's recommenders present in the results, in the paper's order."""
        return present(self.results, "recommender", RECOMMENDERS)

    def __call__(self, rec: str, meth: str, metric: str) -> float:
        return value(self.results, self.split, rec, meth, metric)


Rule = Callable[[SplitMeans], "Finding | None"]
RULES: list[Rule] = []


def _rule(f: Rule) -> Rule:
    RULES.append(f)
    return f


def check_findings(results: pl.DataFrame, split: str = "D1") -> list[Finding]:
    """Check every finding of the paper on the ``split`` means.

    ``results`` must hold the ``mean`` rows (:func:`~.results.with_means`).
    """
    return check(RULES, SplitMeans(results, split))


@_rule
def tr_far_above(v: SplitMeans) -> Finding:
    """TestRatings (TR_3, TR_4) gives values at least twice those of any other methodology."""
    ratios = {
        (rec, m): min(v(rec, "TR_3", m), v(rec, "TR_4", m)) / max(v(rec, o, m) for o in OTHERS)
        for rec in v.recs
        for m in PAPER_METRICS
    }
    worst = min(ratios, key=ratios.__getitem__)
    return Finding(
        "TR values are far above every other methodology",
        all(r >= 2 for r in ratios.values()),
        f"min over recommenders and metrics of min(TR_3, TR_4) / max(TeI, TrI, AI, OPR) = "
        f"{ratios[worst]:.1f} ({worst[0]}, {worst[1]}); rule: >= 2",
    )


@_rule
def tr_threshold_trade_off(v: SplitMeans) -> Finding:
    """Raising the TR relevance threshold from 3 to 4 lowers precision and raises recall."""
    ok, ev = True, []
    for rec in v.recs:
        p3, p4 = v(rec, "TR_3", "P@50"), v(rec, "TR_4", "P@50")
        r3, r4 = v(rec, "TR_3", "Recall@50"), v(rec, "TR_4", "Recall@50")
        ok &= p4 < p3 and r4 > r3
        ev.append(f"{rec}: P {p3:.3f}→{p4:.3f}, R {r3:.3f}→{r4:.3f}")
    return Finding("P@50 falls and Recall@50 rises from TR_3 to TR_4", ok, "; ".join(ev))


@_rule
def tri_equals_ai(v: SplitMeans) -> Finding:
    """TrainingItems and AllItems agree (to 1e-12) for collaborative recommenders."""
    diffs = {(rec, m): abs(v(rec, "TrI", m) - v(rec, "AI", m)) for rec in v.recs for m in PAPER_METRICS}
    return Finding(
        "TrI equals AI (CF recommenders cannot score items without training ratings)",
        max(diffs.values()) <= 1e-12,
        f"max |TrI - AI| = {max(diffs.values()):.2g} over recommenders and metrics",
    )


@_rule
def tei_at_least_tri(v: SplitMeans) -> Finding:
    """TestItems is never below TrainingItems."""
    gaps = {(rec, m): v(rec, "TeI", m) - v(rec, "TrI", m) for rec in v.recs for m in PAPER_METRICS}
    low = min(gaps, key=gaps.__getitem__)
    return Finding(
        "TeI >= TrI for every recommender and metric",
        min(gaps.values()) >= 0,
        f"min TeI - TrI = {gaps[low]:+.4f} ({low[0]}, {low[1]})",
    )


@_rule
def ib_rmse_against_ranking(v: SplitMeans) -> Finding | None:
    """IB beats UB50 on RMSE yet ranks below every other recommender on every non-TR methodology and
    metric (needs IB and UB50)."""
    recs = v.recs
    if not {"IB", "UB50"} <= set(recs):
        return None
    rm_ib, rm_ub = v("IB", "-", "RMSE"), v("UB50", "-", "RMSE")
    rest = [r for r in recs if r != "IB"]
    cells = [(meth, m) for meth in OTHERS for m in PAPER_METRICS]
    fails = [f"{meth} {m}" for meth, m in cells if not v("IB", meth, m) < min(v(r, meth, m) for r in rest)]
    return Finding(
        "IB has lower RMSE than UB50 yet is the worst recommender under TeI, TrI, AI and OPR",
        rm_ib < rm_ub and not fails,
        f"RMSE IB {rm_ib:.3f} vs UB50 {rm_ub:.3f}; IB below the others in "
        f"{len(cells) - len(fails)} of {len(cells)} (methodology, metric)"
        + (f" (not in: {', '.join(fails)})" if fails else ""),
    )


@_rule
def opr_low_precision_same_ndcg(v: SplitMeans) -> Finding:
    """One-Plus-Random has the lowest P@50, yet its nDCG@50 is within a factor 10 of the mean of
    TeI, TrI and AI."""
    ok, ev = True, []
    for rec in v.recs:
        p_opr = v(rec, "OPR", "P@50")
        p_min = min(v(rec, m, "P@50") for m in NON_TR)
        n_opr = v(rec, "OPR", "nDCG@50")
        n_mean = sum(v(rec, m, "nDCG@50") for m in NON_TR) / 3
        ratio = n_opr / n_mean if n_mean > 0 else float("inf")
        ok &= p_opr < p_min and 0.1 <= ratio <= 10
        ev.append(f"{rec}: P@50 OPR {p_opr:.4f} < {p_min:.4f}, nDCG@50 OPR/mean(TeI,TrI,AI) = {ratio:.2f}")
    return Finding(
        "OPR gives the lowest P@50 but an nDCG@50 of the same order as TeI/TrI/AI",
        ok,
        "; ".join(ev) + " (same order: ratio within 0.1..10)",
    )


@_rule
def same_ordering(v: SplitMeans) -> Finding:
    """The recommenders rank in the same order under every non-TR methodology and metric."""
    recs = v.recs
    orders = {(meth, m): _order(v, recs, meth, m) for meth in OTHERS for m in PAPER_METRICS}
    distinct = sorted(set(orders.values()))
    return Finding(
        "the ordering of the recommenders is the same under TeI, TrI, AI and OPR",
        len(distinct) == 1,
        "orders seen: "
        + "; ".join(
            " > ".join(o) + f" ({sum(1 for x in orders.values() if x == o)} of {len(orders)})"
            for o in distinct
        ),
    )


def _order(v: SplitMeans, recs: list[str], meth: str, metric: str) -> tuple[str, ...]:
    """``recs`` by descending mean under ``meth`` and ``metric`` (ties in their given order)."""
    return tuple(sorted(recs, key=lambda r: -v(r, meth, metric)))
