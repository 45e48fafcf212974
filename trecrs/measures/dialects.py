"""Framework dialects: ``prefix:Name@k`` names a measure as a recommender framework defines it.

``lenskit:NDCG@10`` is LensKit's ``NDCG(n=10)``, ``recbole:map@10`` RecBole's ``map@10``, ``elliot:MAP@10``
Elliot's ``MAP`` at cutoff 10: the same name means different things in different frameworks, and the
prefix says whose definition is meant. Names are spelled as the framework spells them (LensKit's class
names, RecBole's config names matched in any case as RecBole lowercases them, Elliot's config names); the
cutoff ``@k`` is required (RecBole's ``gauc``, Elliot's ``GAUC`` and ``AUC`` take none). Each name resolves to a recommender measure of
:mod:`trecrs.measures.recsys` with the cutoff as its parameter, computed on the qrels as the framework sees
its test data:

* the framework's test items (LensKit's test list, RecBole's positives, Elliot's items rated at or above
  its ``relevance_threshold``) are the qrels documents with rel >= the global ``-l``;
* :data:`BINARY` qrels: every such item has gain 1 (the frameworks' binary metrics), :data:`SHIFTED`:
  gain rel − l + 1 (Elliot's ``DiscountedRelevance``, 2^(r−t+1) − 1 under ``ndcg_exp``);
* ``needs_relevant``: a query without relevant document has no value and is left out of the mean, as the
  framework leaves such a user out (RecBole has no such user, Elliot skips it, LensKit gives NaN).

The ranking is trec_eval's (score descending, ties by docno descending); the frameworks leave ties in an
unspecified order. This module is data and parsing only: :func:`trecrs.evaluate.compute.add_recsys`
computes each :class:`DialectVariant` with the recommender measures, its column named as typed.
Definitions and sources: docs/measures.md, "Framework dialects".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from ..errors import UsageError
from ..schema import QUERY, REL
from .grammar import Variant

AS_IS = "as is"  # qrels values unchanged, relevant = rel >= -l
BINARY = "binary"  # rel >= -l becomes 1, evaluated at level 1
SHIFTED = "shifted"  # rel >= -l becomes rel - l + 1, evaluated at level 1


@dataclass(frozen=True)
class Dialect:
    """One framework measure: its name as the framework spells it, the recommender measure computing it
    (``{k}`` = the cutoff), the qrels it is computed on, whether a query without relevant documents is
    undefined, and for docs/--list-measures its definition and the trecrs measure it equals (or "new")."""

    name: str
    target: str
    definition: str
    equals: str
    qrels: str = BINARY
    needs_relevant: bool = True
    cutoff: bool = True  # whether the name takes @k (required) or none


@dataclass(frozen=True)
class Framework:
    """A prefix: the framework, the version whose source defines its names, the source files, the names."""

    prefix: str
    label: str
    source: str
    case_insensitive: bool
    names: tuple[Dialect, ...]

    def find(self, name: str) -> Dialect | None:
        """The dialect spelled ``name`` (any case for a case-insensitive framework), or None."""
        same = (lambda a, b: a.lower() == b.lower()) if self.case_insensitive else str.__eq__
        return next((d for d in self.names if same(d.name, name)), None)


_D = Dialect
FRAMEWORKS: dict[str, Framework] = {f.prefix: f for f in (
    Framework("lenskit", "LensKit 2025.8.1", "src/lenskit/metrics/ranking/*.py", False, (
        _D("Precision", "precision.{k}", "|L_k ∩ R| / min(k, |L|); 0 without relevant documents",
           "precision.k", needs_relevant=False),
        _D("Recall", "recall_cap.{k}", "|L_k ∩ R| / min(|R|, k)", "new: recall_cap.k (= recall.k when |R| <= k)"),
        _D("RecipRank", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0",
           "recip_rank_cut.k"),
        _D("Hit", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)"),
        _D("NDCG", "ndcg_jk.{k},2", "Σ_{j<=k, relevant} 1/max(1, log2 j) over the same of the min(|R|, k) first "
           "ranks (binary gains)", "ndcg_jk.k,2 on binary qrels"),
        _D("DCG", "dcg_jk.{k}", "Σ_{j<=k, relevant} 1/max(1, log2 j); 0 without relevant documents",
           "new: dcg_jk.k (numerator of ndcg_jk.k,2)", needs_relevant=False),
        _D("RBP", "rbp_cut.{k},0.85", "(1 − p) Σ_{j<=k, relevant} p^(j−1), p = 0.85",
           "rbp_cut.k,0.85 = trec_eval 10.0 rbp.p=0.85 with -M k"),
        _D("AveragePrecision", "map_cap_ret.{k}", "Σ_{relevant j<=k} P@j / min(|R|, |L_k|)",
           "new: map_cap_ret.k (= map_cut.k when |R| <= |L_k|)"),
        _D("ListGini", "gini.{k}", "Gini index of how often each catalogue item is in a top k; needs train",
           "gini.k (LensKit's items = the catalogue)", needs_relevant=False),
        _D("MeanPopRank", "pop_quantile.{k}", "mean over L_k of the item's popularity quantile (training users); "
           "needs train", "new: pop_quantile.k", needs_relevant=False),
    )),
    Framework("recbole", "RecBole 1.2.1", "recbole/evaluator/metrics.py", True, (
        _D("hit", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)"),
        _D("mrr", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0",
           "recip_rank_cut.k"),
        _D("precision", "precision_cut.{k}", "|L_k ∩ R| / k", "P.k (precision_cut.k)"),
        _D("recall", "tpr.{k}", "|L_k ∩ R| / |R|", "recall.k (tpr.k)"),
        _D("ndcg", "ndcg_exp.{k}", "Σ_{j<=k, relevant} 1/log2(j+1) over the same of the min(|R|, k) first ranks "
           "(binary gains)", "ndcg_cut.k on binary qrels (ndcg_exp.k)"),
        _D("map", "map_cap.{k}", "Σ_{relevant j<=k} P@j / min(|R|, k)", "new: map_cap.k (= map_cut.k when |R| <= k)"),
        _D("gauc", "auc_weighted", "per-user ROC AUC over L ∪ R; mean weighted by |R|",
           "new: gauc = auc_weighted (per user: auc)", cutoff=False),
        _D("itemcoverage", "catalog_coverage_pad.{k}", "|∪ L_k| / (|I| + 1), I = training items + run items; "
           "needs train", "new: catalog_coverage_pad.k"),
        _D("averagepopularity", "arp.{k}", "mean over L_k of the item's training ratings; needs train", "arp.k"),
        _D("giniindex", "gini_pad.{k}", "Gini index of the top-k counts over |I| + 1 items; needs train",
           "new: gini_pad.k (gini.k over one more item)"),
        _D("tailpercentage", "least_rated_share.{k},0.1", "|L_k ∩ T| / k, T = the 10% least-rated training items "
           "(count, then item id); needs train", "new: least_rated_share.k,0.1 (not tail_percentage.k = aplt.k)"),
        _D("shannonentropy", "entropy_per_item.{k}", "(−Σ p ln p) / number of distinct items in the top k",
           "new: entropy_per_item.k (= entropy.k · ln 2 / m)"),
    )),
    Framework("elliot", "Elliot 0.3.1", "elliot/evaluation/metrics/accuracy/*/*.py", False, (
        _D("nDCG", "ndcg_exp.{k}", "Σ_{j<=k} (2^(r_j−l+1) − 1)/log2(j+1) over the ideal of the min(|R|, k) best "
           "(r = rel, l = -l: Elliot's relevance_threshold)", "ndcg_exp.k on qrels rel − l + 1", SHIFTED),
        _D("nDCGRendle2020", "ndcg_exp.{k}", "Σ_{j<=k, relevant} 1/log2(j+1) over the same of the min(|R|, k) "
           "first ranks (binary gains)", "ndcg_cut.k on binary qrels (ndcg_exp.k)"),
        _D("Precision", "precision_cut.{k}", "|L_k ∩ R| / k", "P.k (precision_cut.k)"),
        _D("Recall", "tpr.{k}", "|L_k ∩ R| / |R|", "recall.k (tpr.k)"),
        _D("HR", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)"),
        _D("MRR", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0",
           "recip_rank_cut.k"),
        _D("MAP", "mean_p_cut.{k}", "(1/k) Σ_{n=1}^{k} P@n, every cutoff counted", "new: mean_p_cut.k"),
        _D("MAR", "mean_r_cut.{k}", "(1/k) Σ_{n=1}^{k} |L_n ∩ R| / |R|", "new: mean_r_cut.k"),
        _D("F1", "f1_cut.{k}", "2PR/(P+R), P = |L_k ∩ R|/k, R = |L_k ∩ R|/|R|", "f1_cut.k"),
        _D("GAUC", "gauc_n1", "(1/|R|) Σ_{relevant retrieved} (N + 1 − above)/(N + 1), N = |I| − |train_u| − |R|; "
           "needs train", "new: gauc_n1 (= (N·auc + 1)/(N + 1) when all of R is retrieved)", cutoff=False),
        _D("AUC", "auc_n1", "(N + 1 − above)/(N + 1) averaged over every retrieved relevant document of every "
           "user; needs train", "new: auc_n1", cutoff=False),
        _D("LAUC", "lauc_n1.{k}", "Σ_{relevant j<=k} (N + 1 − above)/(N + 1) / min(k, |R|); needs train",
           "new: lauc_n1.k (not lauc.k)"),
    )),
)}  # fmt: skip


@dataclass(frozen=True)
class DialectVariant(Variant):
    """A ``prefix:Name@k`` measure: a :class:`~trecrs.measures.grammar.Variant` whose target is a recommender
    measure, computed at the global ``-l`` on the qrels the framework sees (:meth:`inputs`)."""

    qrels: str = BINARY
    needs_relevant: bool = True

    def inputs(self, qrels: pl.DataFrame, run: pl.DataFrame, level: int,
               queries: list[str]) -> tuple[pl.DataFrame, pl.DataFrame, int, list[str]]:  # fmt: skip
        """The qrels, run, relevance level and evaluated queries the target is computed on: relevant
        documents (rel >= ``level``) as the framework's test items, gains as :attr:`qrels` says; only the
        queries the run ranks (the frameworks measure the users they have a list for, so ``-c`` adds none)
        and with :attr:`needs_relevant` only those with a relevant document."""
        relevant = pl.col(REL) >= level
        keep = pl.min_horizontal(pl.col(REL), pl.lit(0))  # unjudged (-1) stays unjudged under -J
        gains = {AS_IS: None, BINARY: pl.lit(1), SHIFTED: pl.col(REL) - level + 1}[self.qrels]
        if gains is not None:
            qrels = qrels.with_columns(pl.when(relevant).then(gains).otherwise(keep).cast(qrels.schema[REL]).alias(REL))
            level = 1
        have = set(run.get_column(QUERY).unique().to_list())
        if self.needs_relevant:
            have &= set(qrels.filter(pl.col(REL) >= level).get_column(QUERY).to_list())
            run = run.filter(pl.col(QUERY).is_in(list(have)))
        return qrels, run, level, [q for q in queries if q in have]


_SPEC = re.compile(r"^(?P<prefix>[A-Za-z]+):(?P<name>[^@]*)(?:@(?P<k>.*))?$")


def parse_dialect(spec: str) -> DialectVariant | None:
    """``lenskit:NDCG@10`` as a :class:`DialectVariant` named as typed; None when ``spec`` is not written
    ``prefix:...``. An unknown prefix or name, or a missing or bad cutoff, is a UsageError listing the
    prefixes or the prefix's names."""
    m = _SPEC.match(spec)
    if m is None:
        return None
    prefix, name, k = m.group("prefix"), m.group("name"), m.group("k")
    framework = FRAMEWORKS.get(prefix.lower())
    if framework is None:
        raise UsageError(f"measure {spec!r}: unknown framework prefix {prefix!r} (known: {', '.join(FRAMEWORKS)})")
    dialect = framework.find(name)
    if dialect is None:
        raise UsageError(f"measure {spec!r}: no {framework.label} measure {name!r} (known: "
                         f"{', '.join(framework.prefix + ':' + d.name + ('@k' if d.cutoff else '') for d in framework.names)})")
    if not dialect.cutoff and k is not None:
        raise UsageError(f"measure {spec!r}: {framework.prefix}:{dialect.name} takes no cutoff")
    if dialect.cutoff and (k is None or not re.fullmatch(r"[1-9][0-9]*", k)):
        raise UsageError(f"measure {spec!r}: {framework.prefix}:{dialect.name} needs a positive integer cutoff @k")
    base, _, param = dialect.target.format(k=k).partition(".")
    return DialectVariant(spec, base, param or None, qrels=dialect.qrels, needs_relevant=dialect.needs_relevant)


def listing() -> list[str]:
    """One line per prefixed name for ``trecrs eval --list-measures``: the name, what it equals, its definition."""
    out = []
    for f in FRAMEWORKS.values():
        case = ", any case" if f.case_insensitive else ""
        out.append(f"  {f.prefix}: {f.label} ({f.source}{case})")
        for d in f.names:
            name = f"    {f.prefix}:{d.name}" + ("@k" if d.cutoff else "")
            out.append(name.ljust(34) + f" = {d.equals}: {d.definition}")
    return out
