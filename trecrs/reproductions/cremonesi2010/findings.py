"""The MovieLens findings of Cremonesi et al. (2010, section 4), each checked by one rule on recall(10).

A rule reads :class:`Recalls` and returns a :class:`Finding` (``None`` when its recommender is absent);
:data:`RULES` lists them in the order the report shows them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import polars as pl

from ...report.records import Finding, check
from .constants import FINDING_CUTOFF, RECOMMENDERS, TESTSETS
from .results import recall

RIVALS = ("TopPop", "MovieAvg", "CorNgbr")  # what PureSVD is said to beat


@dataclass(frozen=True)
class Recalls:
    """recall(10) of the results, and the number of test cases per test set (for standard errors)."""

    results: pl.DataFrame
    n_cases: dict[str, int] = field(default_factory=dict)

    def __call__(self, testset: str, rec: str) -> float:
        return recall(self.results, testset, rec, FINDING_CUTOFF)

    def has(self, rec: str) -> bool:
        return bool(self.results.filter(pl.col("recommender") == rec).height)

    def shown(self, testset: str, rec: str) -> str:
        """recall(10), with its binomial standard error sqrt(r (1 - r) / |T|) when |T| is known."""
        r = self(testset, rec)
        n = self.n_cases.get(testset)
        return f"{r:.3f}" + (f" ± {math.sqrt(r * (1 - r) / n):.3f}" if n else "")


def check_findings(res: pl.DataFrame, n_cases: dict[str, int] | None = None) -> list[Finding]:
    """The MovieLens findings of Cremonesi et al. (2010, section 4) on our recall@10.

    ``n_cases`` (test set -> number of test cases) adds each recall's binomial standard error
    sqrt(r (1 - r) / |T|) to the evidence: on ML-100K |T| is about 300, so differences of a few hundredths
    are noise.
    """
    return check(RULES, Recalls(res, n_cases or {}))


def svd_beats_rivals(r: Recalls, svd: str) -> Finding | None:
    """PureSVD (``svd``) has a higher recall(10) than TopPop, MovieAvg and CorNgbr on the full test set."""
    if not r.has(svd):
        return None
    rivals = [x for x in RIVALS if r.has(x)]
    beaten = [x for x in rivals if r("full", svd) > r("full", x)]
    return Finding(
        f"{svd} beats TopPop, MovieAvg and CorNgbr at recall@10 on the full test set",
        len(beaten) == len(rivals),
        ", ".join(f"{x} {r.shown('full', x)}" for x in (svd, *rivals))
        + (
            ""
            if len(beaten) == len(rivals)
            else f"; not above: {', '.join(sorted(set(rivals) - set(beaten)))}"
        ),
    )


def toppop_drops_on_long_tail(r: Recalls) -> Finding:
    """TopPop's recall(10) on the long tail is less than half of its recall(10) on the full test set."""
    full, tail = r("full", "TopPop"), r("longtail", "TopPop")
    ratio = tail / full if full > 0 else float("nan")
    ranks = {}
    for testset in TESTSETS:
        vals = {x: r(testset, x) for x in RECOMMENDERS}
        ranks[testset] = sorted(vals, key=lambda x: -vals[x]).index("TopPop") + 1
    return Finding(
        "TopPop drops sharply on the long tail",
        ratio < 0.5,
        f"TopPop recall@10 {r.shown('full', 'TopPop')} (full) -> {r.shown('longtail', 'TopPop')} (long tail), "
        f"ratio {ratio:.2f} (rule: < 0.5); it ranks {ranks['full']} of 6 on the full test set, "
        f"{ranks['longtail']} of 6 on the long tail",
    )


RULES: list[Callable[[Recalls], Finding | None]] = [
    partial(svd_beats_rivals, svd="PureSVD50"),
    partial(svd_beats_rivals, svd="PureSVD150"),
    toppop_drops_on_long_tail,
]
