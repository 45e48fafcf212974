"""``trecrs definitions``: every definition that goes by one measure name, each run's mean under it, the spread.

The same name gives different numbers in different libraries: MAP takes several values on the same input
(Tamm, Damdinov & Vasilev, "Quality metrics in recommender systems: do we calculate metrics
consistently?", RecSys 2021). For a name such as ``NDCG@10``, :func:`definitions` finds the concept it
names (ndcg at cutoff 10) and evaluates every spelling of that concept trecrs knows: trec_eval's measure,
ir_measures' name, and each framework dialect's (:mod:`trecrs.measures.dialects`, whose names carry their
concept), each exactly as ``trecrs eval -m SPELLING`` evaluates it on the same files with the same ``-l``.
Every definition ranks tied scores in trec_eval's order; the frameworks themselves leave ties in their own
orders (docs/frameworks.md).
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import TrecrsError, TrecrsWarning, UsageError
from ..evaluate.api import evaluate_full
from ..evaluate.settings import EvalSettings
from ..measures.dialects import FRAMEWORKS
from ..measures.dialects.base import CONCEPTS

if TYPE_CHECKING:
    from ..measures.request import MeasureRequest

#: trec_eval's measure of a concept without a cutoff (``MRR``, ``MAP``), where the cutoff form is none.
WHOLE = {"ndcg": "ndcg", "map": "map", "mrr": "recip_rank"}
#: What trec_eval's reference measures compute, in the words of the dialects' definitions.
TREC_EVAL_TEXT = {
    "P": "|L_k ∩ R| / k (a list shorter than k counts its missing ranks as not relevant)",
    "recall": "|L_k ∩ R| / |R|, R every relevant qrels document",
    "ndcg_cut": "gain = the grade, discount 1/log2(j+1), ideal: the |R| best grades cut at k",
    "ndcg": "gain = the grade, discount 1/log2(j+1), over the whole list",
    "map_cut": "Σ_{relevant j<=k} P@j / |R|",
    "map": "Σ_{relevant j} P@j / |R|",
    "success": "1 if L_k ∩ R is not empty",
    "recip_rank": "1 / rank of the first relevant document, 0 without one",
}
#: ir_measures' spelling of each concept (its pytrec_eval provider computes trec_eval's measure).
IR_MEASURES = {"precision": "P@{k}", "recall": "R@{k}", "ndcg": "nDCG@{k}", "map": "AP@{k}", "mrr": "RR@{k}",
               "hit": "Success@{k}"}  # fmt: skip
#: ir_measures' spelling of a concept without a cutoff.
IR_MEASURES_WHOLE = {"ndcg": "nDCG", "map": "AP", "mrr": "RR"}
_NAME = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_\-]*?)(?:[@.](?P<k>[1-9][0-9]*))?$")


@dataclass(frozen=True)
class Definition:
    """One definition of the name: whose, how it is spelled, the trecrs measure, the run's mean under it."""

    framework: str
    name: str
    trecrs: str
    value: float | None
    definition: str


@dataclass(frozen=True)
class Definitions:
    """Every definition of ``measure`` and the spread of their values (max - min over those computed)."""

    measure: str
    definitions: list[Definition]

    @property
    def spread(self) -> float | None:
        values = [d.value for d in self.definitions if d.value is not None and not math.isnan(d.value)]
        return max(values) - min(values) if values else None

    def to_dict(self) -> dict:
        rows = [
            {k: getattr(d, k) for k in ("framework", "name", "trecrs", "value", "definition")}
            for d in self.definitions
        ]
        return {"measure": self.measure, "definitions": rows, "spread": self.spread}


def concept_of(measure: str) -> tuple[str, int | None]:
    """``(concept, k)`` of a name as people type it: ``NDCG@10``, ``ndcg_cut.10``, ``MAP@10``, ``HitRate@5``,
    ``MRR`` (any framework's spelling of the concept, trec_eval's or ir_measures'; any case)."""
    m = _NAME.match(measure.strip())
    concept = _spellings().get(m.group("name").lower()) if m else None
    if m is None or concept is None:
        known = ", ".join(sorted({c for c in _spellings().values()}))
        raise UsageError(f"measure {measure!r}: no known definitions go by this name (concepts: {known}; "
                         "e.g. NDCG@10, MAP@10, Recall@20, HitRate@5, MRR)", arguments=["measure"])  # fmt: skip
    return concept, int(m.group("k")) if m.group("k") else None


def _spellings() -> dict[str, str]:
    """lower-case name -> concept: every dialect name with a concept, trec_eval's and ir_measures' names."""
    out = {c: c for c in CONCEPTS} | {"arp": "popularity", "fmeasure": "f1"}
    out |= {d.name.lower(): d.concept for f in FRAMEWORKS.values() for d in f.names if d.concept}
    out |= {"ap": "map", "hr": "hit", "hitrate": "hit", "rr": "mrr", "p": "precision", "r": "recall"}
    for concept, ref in CONCEPTS.items():
        if ref:
            out[ref.split(".")[0].lower()] = concept
    out |= {ref.lower(): c for c, ref in WHOLE.items()} | {
        s.split("@")[0].lower(): c for c, s in IR_MEASURES.items()
    }
    return out


def spellings(concept: str, k: int | None) -> list[tuple[str, str, str]]:
    """``(framework, spelling, definition)`` of every definition of ``concept`` at cutoff ``k`` (None: the
    definitions without a cutoff)."""
    rows = []
    ref = CONCEPTS.get(concept, "") if k is not None else WHOLE.get(concept, "")
    if ref:
        name = ref.format(k=k)
        rows.append(("trec_eval", name, TREC_EVAL_TEXT.get(name.split(".")[0], "")))
    ir = IR_MEASURES.get(concept) if k is not None else IR_MEASURES_WHOLE.get(concept)
    if ir:
        name = ir.format(k=k)
        rows.append(
            (
                "ir_measures",
                name,
                "ir_measures' name, computed by its pytrec_eval provider: trec_eval's measure",
            )
        )
    for f in FRAMEWORKS.values():
        for d in f.names:
            # a name with a free argument (``F1Beta(beta={beta})``) is a family, not one definition
            if d.concept == concept and d.cutoff == (k is not None) and "{" not in d.name:
                rows.append(
                    (f.label, f"{f.prefix}:{d.name}" + (f"@{k}" if k is not None else ""), d.definition)
                )
    return rows


def definitions(measure: str, qrels: object, run: object, *, train: object = None, relevance_level: int = 1,
                trec_eval_version: int = 9) -> Definitions:  # fmt: skip
    """Every definition that goes by ``measure``, with ``run``'s mean under each (as ``trecrs eval -m`` gives
    it with ``-l relevance_level``; ``train`` feeds the definitions that need training data). A definition
    that cannot be computed on these inputs has value None and says why."""
    from ..files.ratings import as_ratings
    from ..files.trec import read_qrels, read_run

    concept, k = concept_of(measure)
    settings = EvalSettings(relevance_level=relevance_level, trec_eval_version=trec_eval_version)
    # read once (a malformed file is its reader's error, not a definition "not computed"), then evaluated
    # as frames: the evaluations of the spellings share the pair's checked encoding (trecrs.evaluate.warm)
    qrels = read_qrels(qrels) if isinstance(qrels, str | os.PathLike) else qrels
    run = read_run(run) if isinstance(run, str | os.PathLike) else run
    train = None if train is None else as_ratings(train)
    rows = []
    for framework, name, text in spellings(concept, k):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TrecrsWarning)
                ev = evaluate_full(qrels, run, [name], settings=settings, train=train)
        except TrecrsError as exc:  # e.g. a definition that needs --train
            rows.append(Definition(framework, name, "", None, f"{text} (not computed: {exc})"))
            continue
        column = ev.columns()[0]
        rows.append(Definition(framework, name, _target(ev.request), ev.summary.get(column), text))
    return Definitions(measure, rows)


def _target(request: MeasureRequest) -> str:
    """The trecrs measure one spelling resolves to, as ``-m`` names it (``ndcg_cut.10``, ``ndcg_jk.10,2``)."""
    if request.variants:
        return request.variants[0].target()
    if request.extras:
        return str(request.extras[0])
    name = request.names[0]
    return name if request.params[name] is None else f"{name}.{request.params[name]}"


# --------------------------------------------------------------------------------------------- output


def format_text(result: Definitions) -> str:
    """The table: framework, spelling, trecrs measure, value, definition; then the spread."""
    header = ("framework", "name", "trecrs measure", "value", "definition")
    rows = [(d.framework, d.name, d.trecrs, "–" if d.value is None else f"{d.value:.4f}", d.definition)
            for d in result.definitions]  # fmt: skip
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    lines = [
        f"{result.measure}: {len(rows)} definition{'s' if len(rows) != 1 else ''} go{'' if len(rows) != 1 else 'es'} by this name",
        "",
    ]
    for r in [header, *rows]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True)) + "  " + r[4])
    spread = result.spread
    lines += ["", f"spread (max - min): {'–' if spread is None else f'{spread:.4f}'}",
              "every value ranks tied scores in trec_eval's order (score, then document id descending)"]  # fmt: skip
    return "\n".join(lines) + "\n"


def format_json(result: Definitions) -> str:
    return json.dumps(result.to_dict(), indent=1, ensure_ascii=False) + "\n"


#: Output formats of ``trecrs definitions --format``.
FORMATS = {"text": format_text, "json": format_json}
