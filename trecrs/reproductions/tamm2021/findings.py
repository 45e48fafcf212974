"""The findings of Tamm, Damdinov & Vasilev (RecSys 2021, section 3 and Table 1), each checked by one rule
on the table of values (library x metric) that :mod:`.experiment` computes.

A claim is about the libraries the paper measured: a rule reads :class:`Table` over those of them computed
here (the libraries the paper did not measure are in the report's table, not in its claims) and returns a
:class:`~trecrs.report.records.Finding` whose evidence names the values, or ``None`` when the libraries it
needs were not computed in this version (the report lists those claims as not checked). A claim that does
not hold because a library changed its definition since the paper says so (:data:`CHANGED`). Values equal
to :data:`AGREE` relative difference are one value: float32 libraries print seven digits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from ...report.markdown import fmt
from ...report.records import Finding, check
from ...report.stats import tolerant_ties
from .constants import LIBRARIES

AGREE = 1e-6
#: Why a claim may not hold today: the definition a library changed since the versions the paper ran.
CHANGED = {
    "MRR@20 is the same in every library but DaisyRec, whose MRR@20 is higher": "DaisyRec 2.x stops at "
    "the first hit; the paper's DaisyRec summed 1/rank over every hit, which can pass 1 "
    "(github.com/AmazingDD/daisyRec/issues/9)",
    "MS Recommenders' and rs_metrics' MAP@20 agree": "Microsoft Recommenders' map_at_k divides by "
    "min(|R|, k) since recommenders-team/recommenders#2004; the paper's version divided by |R|, as rs_metrics' "
    "mapr and today's `recommenders:map` do",
    "MAP@20 takes at least five distinct values across the libraries": "the paper's fifth value is NeuRec's, "
    "not reproduced here",
}


@dataclass(frozen=True)
class Table:
    """The computed values: ``values(metric)`` maps each library with a value to it (table order)."""

    results: pl.DataFrame  # library, metric, value (null where not computed)

    def values(self, metric: str) -> dict[str, float]:
        part = self.results.filter((pl.col("metric") == metric) & pl.col("value").is_not_null())
        return dict(
            zip(part.get_column("library").to_list(), part.get_column("value").to_list(), strict=True)
        )

    def groups(self, metric: str) -> list[list[str]]:
        """The libraries grouped by equal value of ``metric`` (within :data:`AGREE`), largest value first."""
        vals = self.values(metric)
        libs = list(vals)
        tied = tolerant_ties(np.array([vals[lib] for lib in libs]), rel=AGREE)
        by_value: dict[float, list[str]] = {}
        for lib, v in zip(libs, tied, strict=True):
            by_value.setdefault(float(v), []).append(lib)
        return [by_value[v] for v in sorted(by_value, reverse=True)]

    def describe(self, metric: str) -> str:
        """``0.123: A, B; 0.045: C``: each distinct value of ``metric`` and the libraries giving it, with
        the digits (4 to 7) that tell the values apart."""
        vals = self.values(metric)
        groups = self.groups(metric)
        firsts = [vals[g[0]] for g in groups]
        digits = next((d for d in range(4, 8) if len({fmt(v, d) for v in firsts}) == len(firsts)), 7)
        return "; ".join(f"{fmt(vals[g[0]], digits)}: {', '.join(g)}" for g in groups) or "none computed"


Rule = Callable[[Table], "Finding | None"]
RULES: list[Rule] = []
#: every claim, in the report's order, whether or not its rule applies to the libraries computed
CLAIMS: list[str] = []


def _rule(claim: str) -> Callable[[Callable[[Table, str], Finding | None]], Rule]:
    def register(f: Callable[[Table, str], Finding | None]) -> Rule:
        CLAIMS.append(claim)

        def rule(t: Table) -> Finding | None:
            return f(t, claim)

        rule.__doc__ = f.__doc__
        RULES.append(rule)
        return rule

    return register


def check_findings(results: pl.DataFrame) -> list[Finding]:
    """Every finding of the paper that applies to the libraries of the paper computed in ``results``, with
    the definition change behind a claim that does not hold (:data:`CHANGED`)."""
    beyond = [lib.label for lib in LIBRARIES if lib.paper is None]  # libraries the paper did not measure
    found = check(RULES, Table(results.filter(~pl.col("library").is_in(beyond))))
    return [
        f
        if f.holds or f.claim not in CHANGED
        else Finding(f.claim, f.holds, f"{f.evidence}; {CHANGED[f.claim]}")
        for f in found
    ]


def _one_value(t: Table, metric: str, claim: str) -> Finding | None:
    groups = t.groups(metric)
    if sum(len(g) for g in groups) < 2:
        return None
    return Finding(claim, len(groups) == 1, f"{metric}: {t.describe(metric)}")


@_rule("Precision@20 is the same in every library")
def precision_agrees(t: Table, claim: str) -> Finding | None:
    """Every library computing Precision@20 gives one value (paper: all ten agree)."""
    return _one_value(t, "Precision@20", claim)


@_rule("Recall@20 is the same in every library")
def recall_agrees(t: Table, claim: str) -> Finding | None:
    """Every library computing Recall@20 gives one value (paper: all ten agree)."""
    return _one_value(t, "Recall@20", claim)


@_rule("MAP@20 takes at least five distinct values across the libraries")
def map_five_values(t: Table, claim: str) -> Finding | None:
    """MAP@20 splits the libraries into at least five groups (paper: DaisyRec, RecBole = RecSys2019,
    Elliot, MS Recommenders = Beta-RecSys = rs_metrics, NeuRec)."""
    groups = t.groups("MAP@20")
    if not groups:
        return None
    return Finding(claim, len(groups) >= 5, f"{len(groups)} distinct: {t.describe('MAP@20')}")


@_rule("MAP@20 takes more distinct values than any other metric")
def map_most_divergent(t: Table, claim: str) -> Finding | None:
    """No other metric has as many distinct values as MAP@20 (paper: MAP 5, NDCG 4, the rest at most 2)."""
    counts = {m: len(t.groups(m)) for m in t.results.get_column("metric").unique(maintain_order=True)}
    if not counts.get("MAP@20"):
        return None
    others = {m: c for m, c in counts.items() if m != "MAP@20"}
    top = max(others, key=others.__getitem__) if others else "-"
    return Finding(
        claim,
        all(counts["MAP@20"] > c for c in others.values()),
        f"MAP@20: {counts['MAP@20']} distinct; most among the others: {top} {others.get(top, 0)}",
    )


@_rule("NDCG@20 is not the same in every library")
def ndcg_differs(t: Table, claim: str) -> Finding | None:
    """NDCG@20 takes at least two values (paper: Elliot, RecSys2019 and OpenRec differ from the rest)."""
    groups = t.groups("NDCG@20")
    if sum(len(g) for g in groups) < 2:
        return None
    return Finding(claim, len(groups) >= 2, f"NDCG@20: {t.describe('NDCG@20')}")


@_rule("HitRate@20 is the same in every library")
def hitrate_agrees(t: Table, claim: str) -> Finding | None:
    """HitRate@20 gives one value (paper: all but RecSys2019_DL_Eval, which counts hits, above 1)."""
    return _one_value(t, "HitRate@20", claim)


@_rule("MRR@20 is the same in every library but DaisyRec, whose MRR@20 is higher")
def mrr_daisyrec(t: Table, claim: str) -> Finding | None:
    """The libraries other than DaisyRec agree on MRR@20 and DaisyRec's is above theirs (paper: 0.275 vs 0.186)."""
    vals = t.values("MRR@20")
    if "DaisyRec" not in vals:
        return None
    rest = {k: v for k, v in vals.items() if k != "DaisyRec"}
    one = len(set(tolerant_ties(np.array(list(rest.values())), rel=AGREE).tolist())) <= 1
    return Finding(
        claim, one and all(vals["DaisyRec"] > v for v in rest.values()), f"MRR@20: {t.describe('MRR@20')}"
    )


def _pair(metric: str, a: str, b: str) -> Callable[[Table, str], Finding | None]:
    def rule(t: Table, claim: str) -> Finding | None:
        vals = t.values(metric)
        if a not in vals or b not in vals:
            return None
        same = any(a in g and b in g for g in t.groups(metric))
        return Finding(claim, same, f"{metric}: {a} {fmt(vals[a], 6)}, {b} {fmt(vals[b], 6)}")

    rule.__doc__ = f"{a} and {b} give the same {metric} (paper: they do)."
    return rule


_rule("RecBole's and RePlay's MAP@20 agree")(_pair("MAP@20", "RecBole", "RePlay"))
_rule("MS Recommenders' and rs_metrics' MAP@20 agree")(_pair("MAP@20", "MS Recommenders", "rs_metrics"))
_rule("RecBole's and MS Recommenders' AUC agree")(_pair("AUC", "RecBole", "MS Recommenders"))


@_rule("AUC over the full ranking is not the same in every library")
def auc_differs(t: Table, claim: str) -> Finding | None:
    """The AUC over the full ranking takes at least two values (paper: RecBole = MS Recommenders 0.687,
    Elliot 0.688, OpenRec 0.705)."""
    groups = t.groups("AUC")
    if sum(len(g) for g in groups) < 2:
        return None
    return Finding(claim, len(groups) >= 2, f"AUC: {t.describe('AUC')}")
