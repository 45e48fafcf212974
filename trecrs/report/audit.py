"""``trecrs audit``: can the evaluation behind a number be trusted?

:func:`audit` runs every check of :data:`~.audit_registry.CHECKS` whose inputs are given (a split, qrels,
runs, candidates, a catalogue) and returns its :class:`AuditFinding` list, worst first: leakage between train
and test (Ji et al., TOIS 2023; Hidasi & Czapp, RecSys 2023), items the user already rated left in a
ranking, users a run drops from trec_eval's mean, One-Plus-Random negatives that are positives, ties that
decide a value at a cutoff, the difference the number of users can detect, and whether each run beats
TopPop and a random ranking. Each finding counts exactly what docs/audit.md defines, with one example,
its source and one sentence of advice. A finding with count 0 is a check that passed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from ..errors import SemanticError, UsageError
from ..schema import ITEM, TIMESTAMP, USER
from . import audit_measures  # noqa: F401  (registers power and baselines)
from .audit_checks import AuditInputs
from .audit_registry import CHECKS, NEEDS, SEVERITIES, Outcome
from .markdown import md_escape, md_table

if TYPE_CHECKING:
    from ..measures.request import MeasureRequest
    from .audit_registry import Check

PathLike = str | os.PathLike
#: The runs of an audit: paths (each named by its path), or name -> path or frame.
Runs = dict[str, PathLike | pl.DataFrame] | Iterable[PathLike]
DEFAULT_MEASURES = ("P.10", "ndcg_cut.10")
DEFAULT_CUTOFF = 10
#: The columns of a training file the checks read (no check looks at a training rating's value).
TRAIN_ROLES = (USER, ITEM, TIMESTAMP)


@dataclass(frozen=True)
class AuditFinding:
    """One check's answer (for one run and one measure when it has them): ``count`` of ``of``."""

    id: str
    severity: str  # error, warning or info
    count: int
    of: int
    example: str  # one offending pair, line or query ("" when count is 0)
    source: str  # the paper or rule behind the check
    advice: str  # one sentence on the fix
    run: str | None = None
    measure: str | None = None
    values: dict = field(default_factory=dict)
    # what the count holds, beside the numbers it leaves out ("" when there is nothing to add)
    detail: str = ""

    def to_dict(self) -> dict:
        out = {k: getattr(self, k) for k in ("id", "severity", "count", "of", "example", "source", "advice")}
        out |= {k: v for k in ("run", "measure", "values", "detail") if (v := getattr(self, k))}
        return out


@dataclass(frozen=True)
class AuditResult:
    """The findings, worst first, and the checks that did not run for want of an input."""

    findings: list[AuditFinding]
    # {"id", "needs"}, and "reason" when an input is there but unusable ("run" too for one run's checks)
    skipped: list[dict]

    @property
    def failed(self) -> bool:
        """An error was found (``--strict`` exits 1)."""
        return any(f.severity == "error" and f.count > 0 for f in self.findings)

    def to_dict(self) -> dict:
        return {"findings": [f.to_dict() for f in self.findings], "skipped": self.skipped}


def audit(
    *,
    train: object = None,
    test: object = None,
    qrels: PathLike | pl.DataFrame | None = None,
    runs: Runs | None = None,
    candidates: PathLike | pl.DataFrame | None = None,
    items: PathLike | Iterable[str] | None = None,
    measures: list[str] | tuple[str, ...] | None = None,
    relevance_level: int = 1,
    threshold: float = 4.0,
    random_split: bool | None = None,
    seed: int = 0,
    trec_eval_version: int = 9,
    ratings_options: dict | None = None,
) -> AuditResult:
    """Check an evaluation's inputs for the flaws of docs/audit.md; every input is optional.

    ``train``/``test``: ratings (paths, read as every command reads them, or frames); ``qrels``; ``runs``: a
    list of paths or a dict name -> path or frame; ``candidates`` (``query user item``); ``items`` (a
    catalogue file or a sequence of ids). ``measures`` (default ``P.10``, ``ndcg_cut.10``) are evaluated
    as ``trecrs eval -m`` with ``-l relevance_level``; ties-at-cutoff looks at their deepest cutoff (10 when
    none). ``threshold``: a test rating at or above it is relevant (negative-is-positive). ``random_split``:
    the split ignores time (future-training is then a note); None reads it from the split files' manifests
    (:func:`trecrs.data.splits.declared_random`). ``seed``: the Random baseline's. ``ratings_options``:
    :func:`~trecrs.files.ratings.read_ratings`'s keywords for ``train``/``test`` given as paths.

    A check of one run that finds no answer on it (a :class:`~trecrs.errors.SemanticError`: no query of the
    run is in the qrels) is listed as not run for that run, with the reason; the other runs are checked.
    """
    a = _inputs(
        train,
        test,
        qrels,
        runs,
        candidates,
        items,
        measures,
        relevance_level=relevance_level,
        threshold=threshold,
        random_split=random_split,
        seed=seed,
        trec_eval_version=trec_eval_version,
        ratings_options=ratings_options or {},
    )
    found: list[tuple[tuple, AuditFinding]] = []
    skipped: list[dict] = []
    for rank, c in enumerate(CHECKS.values()):
        missing = [n for n in c.needs if not a.has(n)]
        if missing:
            skipped.append(
                {"id": c.id, "needs": ", ".join(NEEDS[n] for n in missing)} | _why_missing(a, missing)
            )
            continue
        targets = list(a.runs.items()) if c.per_run else [(None, None)]
        for r, (name, run) in enumerate(targets):
            try:
                got = c.func(a, run, name) if c.per_run else c.func(a)
            except SemanticError as e:
                skipped.append(
                    {"id": c.id, "needs": "", "reason": str(e)} | ({"run": name} if c.per_run else {})
                )
                continue
            for m, o in enumerate(got if isinstance(got, list) else [got]):
                f = _finding(c, o, name)
                found.append(((f.count == 0, SEVERITIES.index(f.severity), rank, r, m), f))
    found.sort(key=lambda kv: kv[0])
    return AuditResult([f for _, f in found], skipped)


def _finding(c: Check, o: Outcome, run: str | None) -> AuditFinding:
    if o.count > o.of:  # every count is a subset of what it is out of (docs/audit.md)
        raise AssertionError(f"audit check {c.id}: count {o.count} above its base {o.of}")
    return AuditFinding(
        c.id,
        o.severity or c.severity,
        int(o.count),
        int(o.of),
        o.example if o.count else "",
        c.source,
        o.advice or c.advice,
        run,
        o.measure,
        o.values,
        o.detail,
    )


def _why_missing(a: AuditInputs, missing: list[str]) -> dict:
    """``{"reason": ...}`` naming the first rating without a timestamp when that is what a check lacks."""
    if missing != ["timestamps"]:
        return {}
    for part in ("train", "test"):
        df = getattr(a, part)
        if df is not None and df.height and (rows := df.get_column(TIMESTAMP).is_null().arg_true()).len():
            return {
                "reason": f"{untimed_line(a.paths.get(part), int(rows[0]), a.ratings_options)}: a rating "
                "without a timestamp"
            }
    return {}


def untimed_line(path: str | None, row: int, options: dict) -> str:
    """``FILE:LINE`` of the first rating without a timestamp in the ratings file at ``path``, found with the
    reader's own layout (so the line is the file's, header and comments counted), or ``FILE row N`` of a
    Parquet file, ``row N`` of a frame."""
    from ..files.lines import read_lines
    from ..files.ratings import text_layout
    from ..files.ratings_format import ratings_format

    if path is None:
        return f"row {row + 1} of the ratings given"
    spec = ratings_format(path, options.get("fmt", "auto"), columns=options.get("columns"))
    if spec.name == "parquet":
        return f"{path} row {row + 1}"
    lines, to_raw, _ = text_layout(read_lines(path), path, spec)
    raw = to_raw(lines).filter(pl.col("_timestamp").is_null() | (pl.col("_timestamp") == ""))
    return f"{path}:{raw.item(0, 0)}" if raw.height else f"{path} row {row + 1}"


def _inputs(
    train: object,
    test: object,
    qrels: PathLike | pl.DataFrame | None,
    runs: Runs | None,
    candidates: PathLike | pl.DataFrame | None,
    items: PathLike | Iterable[str] | None,
    measures: list[str] | tuple[str, ...] | None,
    *,
    relevance_level: int,
    threshold: float,
    random_split: bool | None,
    seed: int,
    trec_eval_version: int,
    ratings_options: dict,
) -> AuditInputs:
    """Read what is given as paths (each with its own reader's errors) into an :class:`AuditInputs`."""
    from ..files.candidates import read_candidates, read_items
    from ..files.ratings import as_ratings, read_ratings
    from ..files.ratings_fast import large
    from ..files.ratings_format import ROLES
    from ..files.trec import read_qrels, read_run
    from ..measures.request import parse_measures

    def ratings(x: object, roles: tuple[str, ...] = ROLES, coded: bool = False) -> pl.DataFrame | None:
        if isinstance(x, str | os.PathLike):
            return read_ratings(x, **ratings_options, roles=roles, coded=coded and large(x))
        return None if x is None else as_ratings(x)

    if random_split is None:
        random_split = declared_random_split(train, test)
    names = list(measures or DEFAULT_MEASURES)
    request = parse_measures(names, trec_eval_version=trec_eval_version)
    a = AuditInputs(
        # the checks read training ids only as codes (audit_codes): a large file's are never held as text
        train=ratings(train, TRAIN_ROLES, coded=True),
        test=ratings(test),
        qrels=None if qrels is None else read_qrels(qrels) if isinstance(qrels, str | os.PathLike) else qrels,
        candidates=(
            None
            if candidates is None
            else read_candidates(candidates)
            if isinstance(candidates, str | os.PathLike)
            else candidates
        ),
        items=(
            None
            if items is None
            else read_items(items)
            if isinstance(items, str | os.PathLike)
            else pl.Series("item", list(items), dtype=pl.Utf8)
        ),
        runs=_runs(runs, read_run),
        measures=names,
        cutoff=_cutoff(request),
        relevance_level=relevance_level,
        threshold=threshold,
        random_split=random_split,
        seed=seed,
        trec_eval_version=trec_eval_version,
        paths={
            k: os.fspath(v) for k, v in (("train", train), ("test", test)) if isinstance(v, str | os.PathLike)
        },
        ratings_options=ratings_options,
    )
    return a


def _runs(runs: Runs | None, read_run: Callable[[PathLike], pl.DataFrame]) -> dict[str, pl.DataFrame]:
    if runs is None:
        return {}
    if not isinstance(runs, dict):
        runs = {os.fspath(p): p for p in runs}
    if len(runs) != len({str(k) for k in runs}):
        raise UsageError("each run is given once", arguments=["runs"])
    return {str(k): read_run(v) if isinstance(v, str | os.PathLike) else v for k, v in runs.items()}


def _cutoff(request: MeasureRequest) -> int:
    from ..engines.vectorized.ties import report_cutoffs

    ks = report_cutoffs(request)
    return ks[-1] if ks else DEFAULT_CUTOFF


def declared_random_split(*paths: object) -> bool:
    """True when a split file's manifest declares a split that ignores time."""
    from ..data.splits import declared_random
    from ..files.manifest import read_manifest

    for p in paths:
        if isinstance(p, str | os.PathLike):
            m = read_manifest(p)
            if m is not None and declared_random(m.get("parameters")):
                return True
    return False


# --------------------------------------------------------------------------------------------- output


def _share(f: AuditFinding) -> str:
    return f" ({100 * f.count / f.of:.1f}%)" if f.of else ""


def _headline(f: AuditFinding) -> str:
    what = CHECKS[f.id]
    where = "".join(f" [{x}]" for x in (f.run, f.measure) if x)
    return f"{f.id}{where}: {f.count} of {f.of} {what.of}{_share(f)}"


def format_text(result: AuditResult) -> str:
    """The readable report: the findings worst first, the passed checks in one line, what did not run."""
    counts = {s: sum(f.severity == s and f.count > 0 for f in result.findings) for s in SEVERITIES}
    words = {"error": ("error", "errors"), "warning": ("warning", "warnings"), "info": ("note", "notes")}
    lines = ["trecrs audit: " + ", ".join(f"{n} {words[s][n != 1]}" for s, n in counts.items()), ""]
    shown = [f for f in result.findings if f.count]
    for i, f in enumerate(shown):
        lines.append(f"{f.severity.upper():<8}{_headline(f)}")
        lines += [f"        {f.detail}"] * bool(f.detail)
        if f.example:
            lines.append(f"        e.g. {f.example}")
        last = i + 1 == len(shown) or (shown[i + 1].id, shown[i + 1].advice) != (f.id, f.advice)
        if last:  # advice and source once per group of a check with the same advice
            lines += [f"        fix: {f.advice}", f"        see: {f.source}"]
    passed = sorted(
        {f.id for f in result.findings if f.count == 0} - {f.id for f in result.findings if f.count}
    )
    if passed:
        lines += ["", "passed: " + ", ".join(passed)]
    if result.skipped:
        lines.append("not run: " + "; ".join(f"{', '.join(ids)} ({why})" for why, ids in _by_needs(result)))
    return "\n".join(lines) + "\n"


def _by_needs(result: AuditResult) -> list[tuple[str, list[str]]]:
    """The skipped checks grouped by why they did not run (what they need, the reason; a run's checks by
    run), in the registry's order."""
    groups: dict[str, list[str]] = {}
    for s in result.skipped:
        if "run" in s:
            why, name = f"{s['run']}: {s['reason']}", f"{s['id']} [{s['run']}]"
        elif not s["needs"]:
            why, name = s["reason"], s["id"]
        else:
            why, name = f"need {s['needs']}" + (f": {s['reason']}" if "reason" in s else ""), s["id"]
        groups.setdefault(why, []).append(name)
    return list(groups.items())


def format_markdown(result: AuditResult) -> str:
    """The same report as a Markdown table (worst first), then the passed and skipped checks."""
    rows = [
        [
            f.severity,
            f"`{f.id}`",
            *map(md_escape, (f.run or "", f.measure or "")),
            str(f.count),
            f"{f.of} {CHECKS[f.id].of}",
            *map(md_escape, (f.example, f.detail, f.advice)),
        ]
        for f in result.findings
        if f.count
    ]
    header = ["severity", "finding", "run", "measure", "count", "of", "example", "detail", "advice"]
    out = md_table(header, rows, align="llllrllll") if rows else ""
    passed = sorted(
        {f.id for f in result.findings if f.count == 0} - {f.id for f in result.findings if f.count}
    )
    tail = ([f"Passed: {', '.join(f'`{p}`' for p in passed)}."] if passed else []) + [
        f"Not run: {', '.join(f'`{i}`' for i in ids)} ({why})." for why, ids in _by_needs(result)
    ]
    return out + ("\n" if out and tail else "") + "\n".join(tail) + ("\n" if tail else "")


def format_json(result: AuditResult) -> str:
    return json.dumps(result.to_dict(), indent=1, ensure_ascii=False) + "\n"


#: Output formats of ``trecrs audit --format``.
FORMATS = {"text": format_text, "markdown": format_markdown, "json": format_json}
