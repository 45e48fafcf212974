"""Measure aliases: ir_measures-style and recommender-style names for trec_eval and recommender measures.

One registry, :data:`ALIASES`. An alias is one or more spellings, matched case-insensitively (``P@10``,
``precision@10``), that either require a cutoff ``@k`` or take none; it resolves to a target measure with
``k`` as its parameter: a trec_eval measure (:mod:`trecrs.measures.trec_eval`, ``P@k`` -> ``P.k``) or a
recommender measure (:mod:`trecrs.measures.recsys`, ``RR@k`` -> ``recip_rank_cut.k``). A value asked for
through an alias is printed under the name as typed (:attr:`trecrs.measures.request.MeasureRequest.labels`).
trec_eval's own names are matched first, exactly and case-sensitively, so ``map``, ``bpref`` or ``P`` keep
trec_eval's meaning and printed name.

Spellings follow ir_measures (MacAvaney, Macdonald, Ounis, ECIR 2022, ``ir_measures/measures/``) where it
has the measure, and the recommender literature (hit rate, F1@k) where it does not. This module is data
only; :func:`trecrs.measures.request.parse_measures` resolves names against it.
"""

from __future__ import annotations

from dataclasses import dataclass

# whether an alias takes a cutoff
REQUIRED = "required"  # NAME@k, k the target's parameter
NONE = "none"  # NAME alone; the target's default parameters

# the family each target belongs to
TREC_EVAL = "trec_eval"
RECSYS = "recsys"


@dataclass(frozen=True)
class Alias:
    """One alias: its spellings (documented case first), its cutoff rule, its target and definition.

    ``difference`` says how the value differs from the nearest trec_eval measure when the target is not a
    trec_eval measure (empty when it is one: the alias is that measure under another name).
    """

    spellings: tuple[str, ...]
    k: str  # REQUIRED or NONE
    target: str  # a trec_eval measure name, or a recommender measure name (family)
    family: str
    definition: str
    difference: str = ""
    note: str = ""  # a remark on use (One-Plus-Random, ...)
    param: str = "k"  # what the cutoff is called in documentation (IPrec@r: a recall level)

    def forms(self, k: str | None = None) -> list[str]:
        """The spellings as typed with the cutoff ``k`` (``P@10``; ``P@k`` without one) or bare."""
        return [s + (f"@{k or self.param}" if self.k == REQUIRED else "") for s in self.spellings]

    def resolves_to(self, k: str | None = None) -> str:
        """The target as trec_eval's ``-m`` would name it: ``P.10`` (``P.k`` without a cutoff), ``map``."""
        return f"{self.target}.{k or self.param}" if self.k == REQUIRED else self.target


def _a(spellings, k, target, definition, difference="", note="", family=TREC_EVAL, param="k") -> Alias:
    return Alias(tuple(spellings), k, target, family, definition, difference, note, param)


_OPR = (
    "on a One-Plus-Random run each query is one test case (user:item, one relevant item), so the per-case "
    "value equals opr_recall.k and the mean is Cremonesi et al.'s recall(N)"
)

ALIASES: tuple[Alias, ...] = (
    _a(("NumQ",), NONE, "num_q", "number of queries averaged over"),
    _a(("NumRet",), NONE, "num_ret", "number of documents retrieved, summed over queries"),
    _a(("NumRel",), NONE, "num_rel", "number of relevant documents (rel >= level), summed over queries"),
    _a(("NumRelRet",), NONE, "num_rel_ret", "number of relevant documents retrieved, summed over queries"),
    _a(("AP", "MAP"), NONE, "map", "average precision: sum of P at the rank of each relevant document / num_rel"),
    _a(("Rprec", "R-Prec"), NONE, "Rprec", "precision after num_rel documents retrieved"),
    _a(("Bpref",), NONE, "bpref", "binary preference (Buckley & Voorhees 2004)"),
    _a(("RR", "MRR"), NONE, "recip_rank", "1/rank of the first relevant document, 0 if none is retrieved"),
    _a(("IPrec",), REQUIRED, "iprec_at_recall", "interpolated precision at recall level r (0 <= r <= 1)",
       param="r"),
    _a(("P", "Precision"), REQUIRED, "P", "relevant documents in the top k / k (fewer than k retrieved still divides by k)"),
    _a(("R", "Recall"), REQUIRED, "recall", "relevant documents in the top k / num_rel"),
    _a(("infAP",), NONE, "infAP", "inferred AP (Yilmaz & Aslam 2006); rel -1 = pooled but unjudged"),
    _a(("nDCG", "NDCG"), NONE, "ndcg", "nDCG of the whole ranking: gain = rel, discount 1/log2(rank+1)"),
    _a(("nDCG", "NDCG"), REQUIRED, "ndcg_cut", "nDCG of the top k: gain = rel, discount 1/log2(rank+1), ideal of the top k"),
    _a(("AP", "MAP"), REQUIRED, "map_cut", "AP of the top k: sum of P at the rank of each relevant document <= k / num_rel"),
    _a(("HR", "Hit", "HitRate", "Success"), REQUIRED, "success", "1 if a relevant document is in the top k, else 0",
       note=_OPR),
    _a(("SetP",), NONE, "set_P", "relevant retrieved / retrieved, over the whole retrieved set"),
    _a(("SetR",), NONE, "set_recall", "relevant retrieved / num_rel, over the whole retrieved set"),
    _a(("SetAP",), NONE, "set_map", "SetP x SetR: relevant retrieved^2 / (retrieved x num_rel)"),
    _a(("SetF",), NONE, "set_F", "2 SetP SetR / (SetP + SetR): set_F with beta = 1"),
    _a(("RR", "MRR"), REQUIRED, "recip_rank_cut", "1/rank of the first relevant document if it is in the top k, else 0",
       "recip_rank counts the first relevant document at any rank; RR@k is 0 when it is below k",
       family=RECSYS),
    _a(("Judged",), NONE, "judgment_rate", "judged documents retrieved / retrieved",
       "trec_eval has no judgment rate", family=RECSYS),
    _a(("Judged",), REQUIRED, "judgment_rate", "judged documents in the top k / min(k, retrieved)",
       "trec_eval has no judgment rate; P@k with a level below every grade divides by k, not min(k, retrieved)",
       family=RECSYS),
    _a(("ERR",), REQUIRED, "err", "sum_{j<=k} R_j / j prod_{i<j} (1 - R_i), R = (2^rel - 1) / 2^4 (gdeval.pl)",
       "trec_eval has no ERR; a query without relevant documents scores 0 (as in ir_measures)",
       family=RECSYS),
    _a(("F1",), REQUIRED, "f1_cut", "2 P@k R@k / (P@k + R@k) = 2 TP_k / (k + num_rel), 0 when TP_k = 0",
       "trec_eval has no F at a cutoff (set_F is over the whole retrieved set); f1.k divides by "
       "min(k, num_ret) + num_rel instead, and so exceeds F1@k when fewer than k documents are retrieved",
       family=RECSYS),
)  # fmt: skip


def _index() -> dict[tuple[str, bool], Alias]:
    """(lower-case spelling, takes @k) -> alias; a spelling twice with the same cutoff rule is a bug."""
    out: dict[tuple[str, bool], Alias] = {}
    for alias in ALIASES:
        for spelling in alias.spellings:
            key = (spelling.lower(), alias.k == REQUIRED)
            if out.get(key, alias) is not alias:  # nDCG and NDCG: one alias, two documented spellings
                raise ValueError(f"alias {spelling!r} registered twice")
            out[key] = alias
    return out


BY_SPELLING: dict[tuple[str, bool], Alias] = _index()


def lookup(name: str, with_k: bool) -> Alias | None:
    """The alias spelled ``name`` (any case), written with ``@k`` (``with_k``) or bare; None if none is."""
    return BY_SPELLING.get((name.lower(), with_k))


def bare_spellings() -> frozenset[str]:
    """Lower-case spellings used without ``@k``: names a recommender measure may not take."""
    return frozenset(s for s, with_k in BY_SPELLING if not with_k)


def listing() -> list[str]:
    """One line per alias for ``trecrs eval --list-measures``: its forms, its target, its definition."""
    return [f"  {' '.join(a.forms()):<30} = {a.resolves_to():<18} {a.definition}" for a in ALIASES]


def markdown_table() -> str:
    """The alias table of ``docs/measures.md``: alias, resolves to, definition, difference from trec_eval."""
    lines = [
        "| alias | resolves to | definition | difference from trec_eval |",
        "|-------|-------------|------------|---------------------------|",
    ]
    for a in ALIASES:
        forms = ", ".join(f"`{f}`" for f in a.forms())
        diff = a.difference or f"none: trec_eval's `{a.resolves_to()}`"
        if a.note:
            diff += f"; {a.note}"
        lines.append(f"| {forms} | `{a.resolves_to()}` | {a.definition} | {diff} |")
    return "\n".join(lines) + "\n"
