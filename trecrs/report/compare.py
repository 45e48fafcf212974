"""Paired comparison of runs against a baseline: per-query values, tests, corrections, tables, figures.

Every run is evaluated by :func:`trecrs.evaluate.evaluate_full` with the same flags, so its per-query
values are those ``trecrs eval -q`` prints. All systems are compared on one query set
(:data:`QUERY_RULES`); the statistics are :mod:`trecrs.report.stats`, the figures
:mod:`trecrs.report.compare_figures`. Definitions: docs/compare.md.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..errors import SemanticError, UsageError, reissue_named, warn
from ..evaluate.api import evaluate_full
from ..evaluate.finalize import _sequential_sum as sequential_sum
from ..evaluate.result import Evaluation
from ..evaluate.settings import EvalSettings
from ..files.frames import as_polars
from ..files.hashing import file_digest
from ..files.lines import is_stdin, read_through_file, source_name
from ..files.manifest import read_manifest
from ..files.trec import read_qrels
from ..ids import hash_ids
from ..measures.direction import HIGHER, NEITHER, better
from ..measures.request import typed_order
from ..measures.trec_eval import printed_per_query
from ..ordering import bytewise_sorted
from ..schema import QRELS_SCHEMA, QUERY
from .compare_figures import RECALL_LEVELS, plot_comparison, plot_precision_recall
from .compare_groups import ALL_USERS, group_label, group_queries, read_groups
from .compare_output import COLUMNS, QUERY_RULES, format_html
from .stats import CORRECTIONS, TESTS, bootstrap_ci, cohens_d, wins_ties_losses

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The inputs of a run's manifest that fix what it was built from (with the methodology parameter).
PROVENANCE_INPUTS = ("train", "test", "candidates")


@dataclass(frozen=True)
class Settings:
    """How the comparison was made (recorded in the json output)."""

    test: str = "t"
    correction: str = "holm"
    alpha: float = 0.05
    seed: int = 0
    resamples: int = 10000
    query_rule: str = "all"


@dataclass
class RunInfo:
    """One compared run: its path, system name (the run's tag) and what its manifest says."""

    path: str
    system: str
    sha256: str
    manifest: dict | None = None


@dataclass
class Comparison:
    """The result: one row per (measure, system), the baseline's own row with empty comparison columns."""

    rows: list[dict]
    measures: list[str]
    systems: list[str]
    baseline: str
    n_queries: int
    settings: Settings
    runs: list[RunInfo] = field(default_factory=list)
    # system -> mean interpolated precision at RECALL_LEVELS over the compared queries (pr_curves=True)
    pr: dict[str, list[float]] | None = None
    users: str = ALL_USERS  # whose queries: every user's, or one group's (all:GROUP)
    groups: list[Comparison] = field(default_factory=list)  # user_groups=: one comparison per group

    def row(self, measure: str, system: str) -> dict:
        return next(r for r in self.rows if r["measure"] == measure and r["system"] == system)

    def significant(self, row: dict) -> bool:
        """After the correction, the difference to the baseline is significant at alpha (p_adjusted < alpha)."""
        return row["p_adjusted"] is not None and row["p_adjusted"] < self.settings.alpha

    def plot(self, path: str | os.PathLike | None = None) -> Figure:
        """The differences to the baseline with their CIs, as ``--plot`` draws them (:func:`plot_comparison`)."""
        return plot_comparison(self, path)

    def plot_pr(self, path: str | os.PathLike | None = None) -> Figure:
        """The precision-recall curves, as ``--pr-plot`` draws them (:func:`plot_precision_recall`)."""
        if self.pr is None:
            raise UsageError(
                "no precision-recall curves: compare with pr_curves=True", arguments=["pr_curves"]
            )
        return plot_precision_recall(self, path)

    def _repr_html_(self) -> str:
        """What a notebook shows: the table of :func:`format_html`; the plain repr is the dataclass's."""
        return format_html(self)


# ------------------------------------------------------------------------------------- per-query values


def per_query_values(ev: Evaluation) -> dict[str, dict[str, float]]:
    """``{printed measure name: {query: value}}`` of an evaluation; aliases under the name given.

    A summary-only value (``gm_map``, ``num_q``: trec_eval prints no per-query line) cannot be compared
    query by query: a :class:`~trecrs.errors.UsageError` names it. So does a value left undefined on some
    query (a recommender measure), which no paired test can take.
    """
    out: dict[str, dict[str, float]] = {}
    queries = ev.per_query.get_column(QUERY).to_list()
    for name in [n for c in ev.summary for n in ev.printed_names(c)]:
        if name != "runid" and not any(
            name in ev.printed_names(c) for c in ev.columns() if printed_per_query(ev.request.measure_of(c))
        ):
            raise UsageError(
                f"measure {name} has a value for the whole run only (no per-query value): "
                "it cannot be compared query by query"
            )
    if ev.request.relstring_length() is not None:
        raise UsageError("relstring is a string of relevance values, not a number: it cannot be compared")
    for column in [c for c in ev.columns() if printed_per_query(ev.request.measure_of(c))]:
        values = ev.per_query.get_column(column)
        if values.null_count():
            raise UsageError(
                f"measure {ev.printed_names(column)[0]} is undefined on {values.null_count()} of "
                f"{values.len()} queries: it cannot be compared query by query"
            )
        for name in ev.printed_names(column):
            out[name] = dict(zip(queries, values.cast(pl.Float64).to_list(), strict=True))
    if not out:
        raise UsageError("no measure with per-query values to compare")
    return out


def _aligned(values: dict[str, float], queries: list[str]) -> np.ndarray:
    """Values in ``queries`` order; a query without a value (missing from the run) scores 0."""
    return np.array([values.get(q, 0.0) for q in queries], dtype=np.float64)


def _query_set(qrels: object, per_run: list[dict[str, dict[str, float]]], rule: str) -> list[str]:
    """The compared queries in bytewise order (:data:`QUERY_RULES`)."""
    if rule == "all":
        return bytewise_sorted(as_polars(qrels, QRELS_SCHEMA, "qrels").get_column(QUERY).unique().to_list())
    answered = [set(next(iter(values.values()), {})) for values in per_run]
    common = set.intersection(*answered) if answered else set()
    if not common:
        raise SemanticError("no query is answered by every run (and judged in the qrels): nothing to compare")
    return bytewise_sorted(common)


# ------------------------------------------------------------------------------------------- provenance


def _provenance(manifest: dict) -> dict[str, str | None]:
    """What a run was built from, by its manifest: the methodology and the sha256 of train/test/candidates."""
    inputs = manifest.get("inputs") or {}
    known = {"methodology": (manifest.get("parameters") or {}).get("methodology")}
    known.update({role: (inputs.get(role) or {}).get("sha256") for role in PROVENANCE_INPUTS})
    return known


def check_provenance(runs: list[RunInfo], *, allow_mixed: bool = False) -> None:
    """Refuse runs built from different splits, candidates or methodologies (known from their manifests).

    Two runs whose manifests disagree on the methodology parameter or on the sha256 of an input in
    :data:`PROVENANCE_INPUTS` are a :class:`~trecrs.errors.SemanticError` (status 4) unless ``allow_mixed``;
    runs without a manifest give one warning: their provenance is unknown.
    """
    unknown = [r.path for r in runs if r.manifest is None]
    if unknown:
        warn(
            f"{len(unknown)} of {len(runs)} runs have no manifest ({', '.join(unknown)}): their provenance "
            "(split, candidates, methodology) is unknown and cannot be checked"
        )
    known = [(r, _provenance(r.manifest)) for r in runs if r.manifest is not None]
    if allow_mixed or len(known) < 2:
        return
    first, want = known[0]
    for run, have in known[1:]:
        for key in want:
            if have[key] != want[key]:
                raise SemanticError(
                    f"runs {first.path} and {run.path} were built from different {key} "
                    f"({want[key]} vs {have[key]}, from their manifests): comparing them mixes experiments; "
                    "allow_mixed= compares them anyway"
                )


def run_info(path: object, ev: Evaluation) -> RunInfo:
    """A run's :class:`RunInfo`: its tag, and its manifest's record (the file's own sha256 without one)."""
    if not isinstance(path, str | os.PathLike):
        return RunInfo(f"<{ev.runid}>", ev.runid, "", None)
    manifest = read_manifest(path) if os.fspath(path) != "-" else None
    sha = manifest.get("sha256") if manifest else None
    return RunInfo(os.fspath(path), ev.runid, sha or file_digest(path), manifest)


# ------------------------------------------------------------------------------------------- comparison


def _baseline_index(runs: list[RunInfo], baseline: str | None) -> int:
    """The baseline: the first run, or the one ``baseline`` names by path or by tag."""
    if baseline is None:
        return 0
    for i, r in enumerate(runs):
        if baseline in (r.path, r.system):
            return i
    raise UsageError(
        f"baseline {baseline!r} is neither a run's path nor its tag ({', '.join(r.system for r in runs)})",
        arguments=["baseline"],
    )


def _name_systems(runs: list[RunInfo]) -> None:
    """Systems are named by their run's tag; when two runs share a tag (as runs written by one tool often
    do), every system is named by its file name instead, with a warning. Two runs that share both are a
    :class:`~trecrs.errors.UsageError`: one would hide the other in every table."""
    if len({r.system for r in runs}) == len(runs):
        return
    names = [os.path.basename(r.path) for r in runs]
    if len(set(names)) < len(names):
        shared = next(n for n in names if names.count(n) > 1)
        raise UsageError(
            f"two runs have the same tag and the same file name {shared!r}: re-tag one of them "
            "(the 6th column names the system)"
        )
    tags = sorted({r.system for r in runs if [x.system for x in runs].count(r.system) > 1})
    warn(f"runs share the tag {', '.join(map(repr, tags))}: systems are named by their file names")
    for r, name in zip(runs, names, strict=True):
        r.system = name


def pair_rngs(seed: int, measure: str, system: str, baseline: str) -> tuple[np.random.Generator, ...]:
    """The generators of one compared pair: (test, bootstrap).

    Seeded by ``SeedSequence([seed, hash(measure), hash(system), hash(baseline)])`` (:func:`trecrs.ids.hash_ids`),
    spawned in two: a pair's results depend on its own names and the seed only, not on which other runs or
    measures are compared nor on their order; the test and the bootstrap draw from separate streams.
    """
    ss = np.random.SeedSequence([seed, *(int(h) for h in hash_ids([measure, system, baseline]))])
    return tuple(np.random.default_rng(s) for s in ss.spawn(2))


def _mean(values: np.ndarray) -> float:
    """The mean as trec_eval takes it: summed query by query in bytewise qid order (``meas_avg.c``), so that
    a system's mean is the one ``trecrs eval -c`` prints (a missing query's 0 leaves the sum unchanged)."""
    return sequential_sum(values) / values.size


def _pair_row(measure: str, system: str, baseline: str, a: np.ndarray, b: np.ndarray, s: Settings) -> dict:
    """The comparison row of ``system`` against ``baseline`` on one measure (p_adjusted filled later)."""
    d = a - b
    test_rng, boot_rng = pair_rngs(s.seed, measure, system, baseline)
    low, high = bootstrap_ci(d, rng=boot_rng, resamples=s.resamples, alpha=s.alpha)
    wins, ties, losses = _wins(measure, a, b)
    return {
        "measure": measure,
        "system": system,
        "baseline": baseline,
        "n_queries": int(d.size),
        "mean": _mean(a),
        "baseline_mean": _mean(b),
        "delta": _mean(d),
        "ci_low": low,
        "ci_high": high,
        "test": s.test,
        "p_value": TESTS[s.test](d, rng=test_rng, resamples=s.resamples),
        "p_adjusted": None,
        "effect_size": cohens_d(d),
        "wins": wins,
        "ties": ties,
        "losses": losses,
    }


def _wins(measure: str, a: np.ndarray, b: np.ndarray) -> tuple[int | None, int | None, int | None]:
    """Queries where the system is better than the baseline, equal, worse (:func:`trecrs.measures.direction.better`):
    higher values win, or lower ones when lower is better; a measure with no direction (``num_ret``) has no
    wins or losses (empty)."""
    direction = better(measure)
    if direction == NEITHER:
        return None, None, None
    return wins_ties_losses(a, b) if direction == HIGHER else wins_ties_losses(b, a)


def _baseline_row(measure: str, baseline: str, b: np.ndarray) -> dict:
    """The baseline's own row: its mean; it is not compared with itself (empty comparison columns)."""
    row = dict.fromkeys(COLUMNS)
    row.update(
        measure=measure,
        system=baseline,
        baseline=baseline,
        n_queries=int(b.size),
        mean=_mean(b),
        baseline_mean=_mean(b),
    )
    return row


def compare(
    qrels: object,
    runs: Sequence[object],
    measures: list | tuple,
    *,
    baseline: str | None = None,
    settings: Settings = Settings(),
    allow_mixed: bool = False,
    pr_curves: bool = False,
    evaluation: EvalSettings | None = None,
    user_groups: object = None,
    group_by: str | None = None,
    **eval_flags: object,
) -> Comparison:
    """Compare ``runs`` with a baseline on every measure: paired test, bootstrap CI, effect size, W/T/L.

    Each run is evaluated with :func:`~trecrs.evaluate.evaluate_full` and the same settings: ``evaluation``
    (:class:`~trecrs.evaluate.EvalSettings`) with ``eval_flags`` applied (its fields: ``relevance_level``,
    ``depth``, ``judged_only``, ``engine``, ``trec_eval_version``...), ``average_all`` set by
    ``settings.query_rule``; the p-values of every (system, measure) pair compared with the baseline are
    adjusted together by ``settings.correction``.
    ``pr_curves``: also each system's precision-recall curve (:func:`precision_recall`) in ``.pr``.
    ``runs``: files, or frames (``query, doc, score, tag``) as :func:`~trecrs.evaluate.evaluate` takes.
    ``user_groups`` (and ``group_by``, as :func:`~trecrs.evaluate.evaluate` takes them): also the same
    comparison on each group's queries alone, in ``.groups`` (:mod:`trecrs.report.compare_groups`).

    >>> import polars as pl
    >>> def run(tag, ranked):  # {query: [doc, ...]} best first
    ...     rows = [(q, d, float(len(ds) - i)) for q, ds in ranked.items() for i, d in enumerate(ds)]
    ...     return pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row").with_columns(tag=pl.lit(tag))
    >>> qrels = {"q1": {"a": 1}, "q2": {"c": 1}, "q3": {"d": 1}}
    >>> base = run("base", {"q1": ["b", "a"], "q2": ["x", "c"], "q3": ["d"]})
    >>> new = run("new", {"q1": ["a", "b"], "q2": ["c", "x"], "q3": ["d"]})
    >>> result = compare(qrels, [base, new], ["RR"])
    >>> row = result.row("RR", "new")
    >>> row["mean"], row["baseline_mean"], (row["wins"], row["ties"], row["losses"])
    (1.0, 0.6666666666666666, (2, 1, 0))
    """
    _check_settings(settings, len(runs))
    groups = read_groups(user_groups, group_by)
    if is_stdin(qrels):  # read once: each run's evaluation and the query set take the same qrels
        qrels = read_through_file(read_qrels, qrels)
    # every run, and the precision-recall curves, scored with one record: -c follows the query rule
    evaluation = (evaluation or EvalSettings()).replace(
        average_all=settings.query_rule == "all", **eval_flags
    )
    if pr_curves and evaluation.ties != "trec_eval":  # checked before any run is scored
        raise UsageError(
            f"the precision-recall curves are trec_eval's iprec_at_recall, which has no tie-aware "
            f"form for ties={evaluation.ties!r}",
            arguments=["pr_curves", "ties"],
        )
    evs = [_evaluate(qrels, r, measures, evaluation) for r in runs]
    infos = [run_info(r, ev) for r, ev in zip(runs, evs, strict=True)]
    _name_systems(infos)
    check_provenance(infos, allow_mixed=allow_mixed)
    values = [per_query_values(ev) for ev in evs]
    queries = _query_set(qrels, values, settings.query_rule)
    base = _baseline_index(infos, baseline)
    names = typed_order(list(values[0]), measures, trec_eval_version=evaluation.trec_eval_version)
    systems = [r.system for r in infos]
    pr = precision_recall(qrels, runs, queries, evaluation) if pr_curves else None
    result = Comparison(
        _rows(names, values, infos, base, queries, settings),
        names,
        systems,
        infos[base].system,
        len(queries),
        settings,
        infos,
        None if pr is None else dict(zip(systems, pr, strict=True)),
    )
    for g, subset in ({} if groups is None else group_queries(qrels, queries, groups)).items():
        result.groups.append(
            Comparison(
                _rows(names, values, infos, base, subset, settings),
                names,
                systems,
                infos[base].system,
                len(subset),
                settings,
                infos,
                users=group_label(g),
            )
        )
    return result


def _rows(
    names: list[str],
    values: list[dict[str, dict[str, float]]],
    infos: list[RunInfo],
    base: int,
    queries: list[str],
    settings: Settings,
) -> list[dict]:
    """The rows of every (measure, system) on ``queries``, measures in the order of ``names``, p-values
    corrected over the pairs compared."""
    rows = []
    for m in names:
        b = _aligned(values[base][m], queries)
        for i, info in enumerate(infos):
            a = _aligned(values[i][m], queries)
            rows.append(
                _baseline_row(m, info.system, b)
                if i == base
                else _pair_row(m, info.system, infos[base].system, a, b, settings)
            )
    compared = [r for r in rows if r["p_value"] is not None]
    adjusted = CORRECTIONS[settings.correction](np.array([r["p_value"] for r in compared]))
    for r, p in zip(compared, adjusted.tolist(), strict=True):
        r["p_adjusted"] = p
    return rows


def precision_recall(
    qrels: object, runs: Sequence[object], queries: list[str], evaluation: EvalSettings
) -> list[list[float]]:
    """Each run's interpolated precision at :data:`RECALL_LEVELS`, averaged over ``queries``.

    trec_eval's ``iprec_at_recall`` (the max precision at any recall >= r, per query), computed by the same
    engines with the same settings, averaged as :func:`_mean` (a query missing from a run scores 0): over
    every qrels query (``evaluation.average_all``, the query rule ``all``) it is ``trecrs eval -m
    iprec_at_recall -c``'s summary.
    """
    curves = []
    for run in runs:
        ev = _evaluate(qrels, run, ["iprec_at_recall"], evaluation)
        values = per_query_values(ev)
        curves.append([_mean(_aligned(values[f"iprec_at_recall_{r:3.2f}"], queries)) for r in RECALL_LEVELS])
    return curves


def _evaluate(qrels: object, run: object, measures: list | tuple, evaluation: EvalSettings) -> Evaluation:
    """:func:`~trecrs.evaluate.evaluate_full` of one run, its warnings passed on prefixed with the run
    (``base.run: 1 of 4 qrels queries have no line in the run ...``), as ``trecrs eval`` does for several
    runs: with two runs or more, a warning that does not say which is of no use."""
    label = source_name(run) if isinstance(run, str | os.PathLike) else "<run>"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = evaluate_full(qrels, run, measures, settings=evaluation)
    if label == "<run>":
        label = f"<{ev.runid}>"  # an in-memory run: named by its tag, as run_info names it
    reissue_named(caught, label)
    return ev


def _check_settings(s: Settings, n_runs: int) -> None:
    """Refuse what no comparison can be made with; the library names its own arguments."""
    if n_runs < 2:
        raise UsageError("give at least two runs: a baseline and a system to compare with it")
    checks = {
        "test": s.test in TESTS,
        "correction": s.correction in CORRECTIONS,
        "alpha": 0 < s.alpha < 1,
        "resamples": s.resamples >= 1,
        "query_rule": s.query_rule in QUERY_RULES,
    }
    for name, ok in checks.items():
        if not ok:
            raise UsageError(
                f"{name} {getattr(s, name)!r} is not valid (see trecrs compare --help)", arguments=[name]
            )
