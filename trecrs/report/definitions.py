"""``trecrs definitions``: every definition that goes by one measure name, each run's mean under it, the spread.

The same name gives different numbers in different libraries: MAP takes several values on the same input
(Tamm, Damdinov & Vasilev, "Quality metrics in recommender systems: do we calculate metrics
consistently?", RecSys 2021). For a name such as ``NDCG@10``, :func:`definitions` finds the concept it
names (ndcg at cutoff 10) and evaluates every spelling of that concept trecrs knows: trec_eval's measure,
ir_measures' name, and each framework dialect's (:mod:`trecrs.measures.dialects`, whose names carry their
concept), each exactly as ``trecrs eval -m SPELLING`` evaluates it on the same files with the same ``-l``
(ranx's names with that level written ``-lN``, as ranx takes it). Each row also gives the spelling that
carries the level itself, so that ``trecrs eval -m`` gives the row's value whatever ``-l``: ir_measures'
``P(rel=4)@10`` for trec_eval's ``P.10``, ``recbole:ndcg@10-l4`` for RecBole's ``ndcg@10``. Every
definition ranks tied scores in trec_eval's order; the frameworks themselves leave ties in their own orders
(docs/frameworks.md).
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import textwrap
import warnings
from dataclasses import dataclass

from ..errors import TrecrsError, TrecrsWarning, UsageError
from ..evaluate.api import evaluate_full
from ..evaluate.settings import EvalSettings
from ..measures.dialects import FRAMEWORKS
from ..measures.dialects.base import CONCEPTS
from ..measures.grammar import BY_SPELLING

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
IR_MEASURES = {
    "precision": "P@{k}",
    "recall": "R@{k}",
    "ndcg": "nDCG@{k}",
    "map": "AP@{k}",
    "mrr": "RR@{k}",
    "hit": "Success@{k}",
}
#: ir_measures' spelling of a concept without a cutoff.
IR_MEASURES_WHOLE = {"ndcg": "nDCG", "map": "AP", "mrr": "RR"}
_NAME = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_\-]*?)(?:[@.](?P<k>[1-9][0-9]*))?$")


@dataclass(frozen=True)
class Definition:
    """One definition of the name: whose, how it is spelled there, the ``trecrs eval -m`` spelling that gives
    the row's value at any ``-l`` (it carries the relevance level), the run's mean under it."""

    framework: str
    name: str
    trecrs: str
    value: float | None
    definition: str


@dataclass(frozen=True)
class Definitions:
    """Every definition of ``measure`` at ``relevance_level`` and the spread of their values (max - min over
    those computed)."""

    measure: str
    definitions: list[Definition]
    relevance_level: int = 1

    @property
    def spread(self) -> float | None:
        values = [d.value for d in self.definitions if d.value is not None and not math.isnan(d.value)]
        return max(values) - min(values) if values else None

    def to_dict(self) -> dict:
        rows = [
            {k: getattr(d, k) for k in ("framework", "name", "trecrs", "value", "definition")}
            for d in self.definitions
        ]
        return {
            "measure": self.measure,
            "relevance_level": self.relevance_level,
            "definitions": rows,
            "spread": self.spread,
        }


def concept_of(measure: str) -> tuple[str, int | None]:
    """``(concept, k)`` of a name as people type it: ``NDCG@10``, ``ndcg_cut.10``, ``MAP@10``, ``HitRate@5``,
    ``MRR`` (any framework's spelling of the concept, trec_eval's or ir_measures'; any case)."""
    m = _NAME.match(measure.strip())
    concept = _spellings().get(m.group("name").lower()) if m else None
    if m is None or concept is None:
        known = ", ".join(sorted({c for c in _spellings().values()}))
        raise UsageError(
            f"measure {measure!r}: no known definitions go by this name (concepts: {known}; "
            "e.g. NDCG@10, MAP@10, Recall@20, HitRate@5, MRR)",
            arguments=["measure"],
        )
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


def _ir_measures(concept: str, k: int | None, level: int, *, explicit: bool) -> str:
    """ir_measures' spelling of ``concept`` at ``level``: ``P(rel=4)@10``; ``rel`` written only where its
    measure takes it (``nDCG`` has no level: trec_eval's gain is the grade at any ``-l``), and with
    ``explicit`` False only where it is not ir_measures' default 1 (``P@10`` is ``P(rel=1)@10`` there).
    The parameter form is computed at its own level whatever ``-l`` (:mod:`trecrs.measures.grammar`).
    "" for a concept ir_measures lacks."""
    spelled = IR_MEASURES.get(concept) if k is not None else IR_MEASURES_WHOLE.get(concept)
    if not spelled:
        return ""
    name, at, _ = spelled.partition("@")
    if "rel" in BY_SPELLING[name.lower()].params and (explicit or level != 1):
        name = f"{name}(rel={level})"
    return name + (f"@{k}" if at else "")


def spellings(concept: str, k: int | None, level: int = 1) -> list[tuple[str, str, str, str]]:
    """``(framework, name, trecrs spelling, definition)`` of every definition of ``concept`` at cutoff ``k``
    (None: the definitions without a cutoff) with relevant = rel >= ``level``: the name as the framework
    writes it, and the ``trecrs eval -m`` spelling giving its value at any ``-l`` (it carries ``level``:
    ir_measures' ``rel=`` for trec_eval's measures, ``-lN`` after a dialect name)."""
    rows = []
    ref = CONCEPTS.get(concept, "") if k is not None else WHOLE.get(concept, "")
    ir = _ir_measures(concept, k, level, explicit=True)
    if ref:
        name = ref.format(k=k)
        rows.append(("trec_eval", name, ir, TREC_EVAL_TEXT.get(name.split(".")[0], "")))
    if ir:
        text = "ir_measures' name, computed by its pytrec_eval provider: trec_eval's measure"
        rows.append(("ir_measures", _ir_measures(concept, k, level, explicit=False), ir, text))
    for f in FRAMEWORKS.values():
        for d in f.names:
            # a name with a free argument (``F1Beta(beta={beta})``, ranx's ``rbp.PP``) is a family, not one
            # definition
            if (
                d.concept == concept
                and d.cutoff == (k is not None)
                and "{" not in d.name
                and not d.persistence
            ):
                name = f"{f.prefix}:{d.name}" + (f"@{k}" if k is not None else "")
                # ranx's own spelling names a level other than its default 1; trecrs's always names it
                own = name + (f"-l{level}" if f.levels and level != 1 else "")
                rows.append((f.label, own, f"{name}-l{level}", d.definition))
    return rows


def definitions(
    measure: str,
    qrels: object,
    run: object,
    *,
    train: object = None,
    relevance_level: int = 1,
    trec_eval_version: int = 9,
) -> Definitions:
    """Every definition that goes by ``measure``, with ``run``'s mean under each (as ``trecrs eval -m`` gives
    it with ``-l relevance_level``; ``train`` feeds the definitions that need training data). A definition
    that cannot be computed on these inputs has value None and says why; a concept with no definition at
    (or without) a cutoff is a UsageError."""
    from ..files.ratings import as_ratings
    from ..files.trec import read_qrels, read_run

    concept, k = concept_of(measure)
    rows = spellings(concept, k, relevance_level)
    if not rows:
        form = "takes a cutoff" if k is not None else "goes without a cutoff: give one (NAME@k)"
        raise UsageError(f"measure {measure!r}: no definition of {concept} {form}", arguments=["measure"])
    settings = EvalSettings(relevance_level=relevance_level, trec_eval_version=trec_eval_version)
    # read once (a malformed file is its reader's error, not a definition "not computed"), then evaluated
    # as frames: the evaluations of the spellings share the pair's checked encoding (trecrs.evaluate.warm)
    qrels = read_qrels(qrels) if isinstance(qrels, str | os.PathLike) else qrels
    run = read_run(run) if isinstance(run, str | os.PathLike) else run
    train = None if train is None else as_ratings(train)
    out = []
    for framework, name, spelling, text in rows:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TrecrsWarning)
                ev = evaluate_full(qrels, run, [name], settings=settings, train=train)
        except TrecrsError as exc:  # e.g. a definition that needs --train
            out.append(Definition(framework, name, spelling, None, f"{text} (not computed: {exc})"))
            continue
        # the one summary value (a global measure, recbole:auc, has no per-query column); none: undefined
        # for every query
        value = next(iter(ev.summary.values()), None)
        out.append(Definition(framework, name, spelling, value, text))
    return Definitions(measure, out, relevance_level)


# --------------------------------------------------------------------------------------------- output


#: The widest line of the text output: the definitions wrap under their row, no text is cut.
WIDTH = 110


def format_text(result: Definitions) -> str:
    """The table: framework, name, value; under each row the ``trecrs eval -m`` spelling (shell-quoted) and
    the definition, wrapped to :data:`WIDTH` columns; then the spread."""
    header = ("framework", "name", "value")
    rows = [(d.framework, d.name, "–" if d.value is None else f"{d.value:.4f}") for d in result.definitions]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    indent = " " * (widths[0] + 2)
    n = len(rows)
    lines = [
        f"{result.measure}: {n} definition{'s' if n != 1 else ''} go{'' if n != 1 else 'es'} by this name "
        f"(relevant: rel >= {result.relevance_level})",
        "",
    ]
    lines.append("  ".join(c.ljust(w) for c, w in zip(header, widths, strict=True)).rstrip())
    for d, r in zip(result.definitions, rows, strict=True):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        lines += _wrapped(f"trecrs eval -m {shlex.quote(d.trecrs)}", indent)
        lines += _wrapped(d.definition, indent)
    spread = result.spread
    lines += ["", f"spread (max - min): {'–' if spread is None else f'{spread:.4f}'}"]
    lines += _wrapped(
        "every value ranks tied scores in trec_eval's order (score, then document id descending) "
        "unless its definition says a tie counts against the item; "
        f"each trecrs eval -m spelling carries its relevance level (rel >= {result.relevance_level}) "
        "and gives the row's value at any -l",
        "",
    )
    return "\n".join(lines) + "\n"


def _wrapped(text: str, indent: str) -> list[str]:
    """``text`` in lines of at most :data:`WIDTH` columns, each starting with ``indent``; words longer than a
    line are split (nothing is cut)."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)


def format_json(result: Definitions) -> str:
    return json.dumps(result.to_dict(), indent=1, ensure_ascii=False) + "\n"


#: Output formats of ``trecrs definitions --format``.
FORMATS = {"text": format_text, "json": format_json}
