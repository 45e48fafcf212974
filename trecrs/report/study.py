"""``trecrs study``: conclusions across folds and data sets.

A study lists one (dataset, fold, system) per line with its qrels and run (:mod:`trecrs.files.study`).
Each is evaluated as ``trecrs eval`` evaluates it with the same flags (one :class:`EvalSettings`); the fold
value of a measure is its ``all`` value. Then, per (dataset, system, measure): folds, mean, sample sd,
Student's t interval at 1 - alpha, and against the baseline system the mean difference and the p-value of
a paired test over the fold differences, paired by fold label: Nadeau & Bengio's corrected resampled t
test when the study gives the test and training sizes (the folds' training sets overlap, which makes the
plain test too liberal: "Inference for the generalization error", Machine Learning 2003), the plain paired t
test otherwise. Across data sets, per measure: each system's average rank (1 = best mean on a data set,
means equal within :data:`~.stats.TIE_TOLERANCE` are ties and get the average rank, lower-is-better measures
ranked ascending), the Friedman chi-square with scipy's tie correction and its p-value (>= 3 systems, >= 2
data sets, a note otherwise), and Nemenyi's critical difference (Demšar, "Statistical comparisons of
classifiers over multiple data sets", JMLR 2006). The warnings of each evaluation are passed on prefixed
with the line they come from (``dataset d1, fold f1, system A (qrels q, run r): ...``).
"""

from __future__ import annotations

import contextlib
import math
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeVar, cast

import numpy as np
import polars as pl

from ..errors import UsageError, reissue_named
from ..evaluate.api import evaluate_full
from ..evaluate.settings import EvalSettings
from ..measures.direction import sign
from .stats import corrected_resampled_t, nemenyi_cd, t_interval, tolerant_ties

PathLike = str | os.PathLike
T = TypeVar("T")
CORRECTED = "corrected resampled t"
PLAIN = "paired t"


@dataclass(frozen=True)
class Cell:
    """One (dataset, system, measure): the fold values summarised, and the comparison with the baseline."""

    dataset: str
    system: str
    measure: str
    folds: int
    mean: float
    sd: float | None
    ci_low: float | None
    ci_high: float | None
    delta: float | None  # mean difference to the baseline (None for the baseline)
    p: float | None
    test: str | None  # CORRECTED or PLAIN (None for the baseline)


@dataclass
class StudyResult:
    """Everything ``trecrs study`` prints (the JSON document is :meth:`to_dict`)."""

    measures: list[str]
    systems: list[str]
    datasets: list[str]
    baseline: str
    alpha: float
    cells: list[Cell]
    ranks: dict[str, dict[str, float]]
    friedman: dict[str, dict[str, float | None]]  # statistic, p (None: NaN)
    cd: dict[str, float]
    fold_values: pl.DataFrame  # dataset, fold, system, measure, value
    notes: list[str] = field(default_factory=list)

    def cell(self, dataset: str, system: str, measure: str) -> Cell:
        return next(c for c in self.cells if (c.dataset, c.system, c.measure) == (dataset, system, measure))

    def to_dict(self) -> dict:
        cells = [
            {
                k: _json_num(getattr(c, k))
                for k in (
                    "dataset",
                    "system",
                    "measure",
                    "folds",
                    "mean",
                    "sd",
                    "ci_low",
                    "ci_high",
                    "delta",
                    "p",
                    "test",
                )
            }
            for c in self.cells
        ]
        return {
            "measures": self.measures,
            "systems": self.systems,
            "datasets": self.datasets,
            "baseline": self.baseline,
            "alpha": self.alpha,
            "cells": cells,
            "ranks": self.ranks,
            "friedman": self.friedman,
            "cd": self.cd,
            "notes": self.notes,
        }


def from_dict(doc: dict) -> StudyResult:
    """A :class:`StudyResult` back from its JSON document (:meth:`StudyResult.to_dict`; no fold values)."""
    cells = [Cell(**{k: c[k] for k in Cell.__dataclass_fields__}) for c in doc["cells"]]
    return StudyResult(
        doc["measures"],
        doc["systems"],
        doc["datasets"],
        doc["baseline"],
        doc["alpha"],
        cells,
        doc["ranks"],
        doc["friedman"],
        doc["cd"],
        pl.DataFrame(),
        doc.get("notes", []),
    )


def _json_num(v: T) -> T | None:
    return None if isinstance(v, float) and math.isnan(v) else v


def study(
    path: PathLike,
    measures: list | tuple | str | None,
    *,
    baseline: str | None = None,
    alpha: float = 0.05,
    evaluation: EvalSettings | None = None,
) -> StudyResult:
    """Evaluate every line of the study file ``path`` with ``measures`` and ``evaluation`` (trec_eval's flags,
    ``--ties``, the engine) and summarise it (module docstring). ``baseline``: a system name (default: the
    first system listed)."""
    from ..files.study import read_study

    if not 0 < alpha < 1:
        raise UsageError(f"alpha must be a number between 0 and 1, got {alpha}", arguments=["alpha"])
    lines = read_study(path)
    systems = lines.get_column("system").unique(maintain_order=True).to_list()
    baseline = systems[0] if baseline is None else baseline
    if baseline not in systems:
        raise UsageError(
            f"baseline {baseline!r} is not a system of the study ({', '.join(systems)})",
            arguments=["baseline"],
        )
    values = _fold_values(lines, measures, evaluation or EvalSettings())
    names = values.get_column("measure").unique(maintain_order=True).to_list()
    datasets = lines.get_column("dataset").unique(maintain_order=True).to_list()
    notes: list[str] = []
    ratios = {d: _size_ratio(lines.filter(pl.col("dataset") == d), d, notes) for d in datasets}
    cells = [c for d in datasets for m in names for c in _cells(values, d, m, baseline, alpha, ratios[d])]
    result = StudyResult(names, systems, datasets, baseline, alpha, cells, {}, {}, {}, values, notes)
    _across(result)
    return result


def _fold_values(
    lines: pl.DataFrame, measures: list | tuple | str | None, settings: EvalSettings
) -> pl.DataFrame:
    """``dataset fold system measure value``: each line's ``all`` value of each measure, as printed."""
    rows = []
    for r in lines.iter_rows(named=True):
        label = f"dataset {r['dataset']}, fold {r['fold']}, system {r['system']} (qrels {r['qrels']}, run {r['run']})"
        with _warnings_about(label):
            ev = evaluate_full(r["qrels"], r["run"], measures, settings=settings)
        for col in ev.columns():
            if col in ev.summary:
                rows.append(
                    (r["dataset"], r["fold"], r["system"], ev.printed_names(col)[0], float(ev.summary[col]))
                )
    return pl.DataFrame(rows, schema=["dataset", "fold", "system", "measure", "value"], orient="row")


@contextlib.contextmanager
def _warnings_about(label: str) -> Iterator[None]:
    """Pass on the warnings raised inside prefixed with ``label: ``: a study evaluates many lines, and a
    warning that does not say which line it is about is of no use (as ``trecrs compare`` names its runs)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    reissue_named(caught, label, name_others=True)  # another library's warning is about this line too


def _size_ratio(part: pl.DataFrame, dataset: str, notes: list[str]) -> float | None:
    """n_test / n_train of a data set's folds (the means, when the folds differ), None without sizes."""
    test, train = part.get_column("test_size"), part.get_column("train_size")
    if test.null_count() or train.null_count():
        if test.null_count() < part.height or train.null_count() < part.height:
            notes.append(f"{dataset}: test_size/train_size missing on some lines: plain paired t test")
        return None
    mean_test, mean_train = cast(float, test.mean()), cast(float, train.mean())  # numbers, no nulls
    if test.n_unique() > 1 or train.n_unique() > 1:
        notes.append(
            f"{dataset}: the folds' sizes differ; their means are used ({mean_test:g} / {mean_train:g})"
        )
    return float(mean_test) / float(mean_train)


def _cells(
    values: pl.DataFrame, dataset: str, measure: str, baseline: str, alpha: float, ratio: float | None
) -> list[Cell]:
    part = values.filter((pl.col("dataset") == dataset) & (pl.col("measure") == measure))
    base = dict(part.filter(pl.col("system") == baseline).select("fold", "value").iter_rows())
    out = []
    for (system,), g in part.group_by("system", maintain_order=True):
        v = g.get_column("value").to_numpy()
        low, high = t_interval(v, alpha)
        sd = float(v.std(ddof=1)) if v.size > 1 else None
        delta = p = test = None
        if system != baseline:
            d = np.array([val - base[f] for f, val in g.select("fold", "value").iter_rows()])
            delta = float(d.mean())
            if d.size >= 2:  # one fold: a difference, no test
                p, test = corrected_resampled_t(d, ratio), CORRECTED if ratio is not None else PLAIN
        out.append(
            Cell(
                dataset,
                system,
                measure,
                int(v.size),
                float(v.mean()),
                sd,
                _none(low),
                _none(high),
                delta,
                p,
                test,
            )
        )
    return out


def _none(x: float) -> float | None:
    return None if math.isnan(x) else x


def _across(result: StudyResult) -> None:
    """Average ranks, Friedman and the critical difference of each measure (every system is in every data set:
    :mod:`trecrs.files.study`), with a note when there are too few data sets or systems for them."""
    note = too_few_note(result)
    if note is not None:
        result.notes.append(note)
    for m in result.measures if len(result.systems) >= 2 else []:
        means = {(c.dataset, c.system): c.mean for c in result.cells if c.measure == m}
        # means equal up to float noise are ties (stats.tolerant_ties), for the ranks and for Friedman alike
        table = np.array(
            [tolerant_ties(np.array([means[(d, s)] for s in result.systems])) for d in result.datasets]
        )
        _rank(result, m, table)


def too_few_note(result: StudyResult) -> str | None:
    """The note for a study too small for Friedman's test (3 systems, 2 data sets) or the critical difference
    (2 data sets) (Demšar 2006); None when both apply."""
    if len(result.datasets) == 1:
        return (
            f"one data set ({result.datasets[0]}): Friedman's test and Nemenyi's critical difference need "
            "at least two; the average ranks are its ranks"
        )
    if len(result.systems) == 2:
        return "two systems: Friedman's test needs at least three (the critical difference still applies)"
    return None


def _rank(result: StudyResult, m: str, table: np.ndarray) -> None:
    """One measure's average ranks, Friedman statistic and critical difference from its (data set x system)
    table of means."""
    from scipy import stats as _scipy

    ranks = np.vstack([_scipy.rankdata(-sign(m) * row, method="average") for row in table])
    result.ranks[m] = {s: float(r) for s, r in zip(result.systems, ranks.mean(axis=0), strict=True)}
    n, k = table.shape
    if k >= 3 and n >= 2 and all(np.unique(row).size == 1 for row in table):
        # every data set ties every system: the tie correction is 0, scipy's statistic 0/0
        result.friedman[m] = {"statistic": None, "p": None}
        result.notes.append(f"{m}: every system ties on every data set, so there is no Friedman statistic")
    elif k >= 3 and n >= 2:
        stat, p = _scipy.friedmanchisquare(*table.T)
        result.friedman[m] = {"statistic": _json_num(float(stat)), "p": _json_num(float(p))}
    if n >= 2:
        result.cd[m] = nemenyi_cd(k, n, result.alpha)
