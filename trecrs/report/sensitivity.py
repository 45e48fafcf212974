"""Methodology sensitivity: do the user's systems rank the same under every evaluation methodology?

Bellogín, Castells & Cantador, "Precision-oriented evaluation of recommender systems: an algorithmic
comparison", RecSys 2011, show that the same recommenders order differently under TestRatings,
TestItems, TrainingItems, AllItems and One-Plus-Random (Cremonesi, Koren & Turrin, RecSys 2010). For a
split and one score file per system, :func:`sensitivity` builds every system's run under every
methodology (the candidates of :func:`~trecrs.protocol.candidates.candidate_set`, the runs of
:func:`~trecrs.protocol.runs.build_run`, the qrels of :func:`~trecrs.protocol.candidates.methodology_qrels`:
exactly what ``trecrs candidates``/``run``/``qrels`` write), evaluates them as ``trecrs eval`` does and
reports:

* the system x methodology table of each measure;
* Kendall's tau-b (Kendall 1945; equal to ``scipy.stats.kendalltau``) and the discordant pairs between
  the system orders of every two methodologies, and against RMSE (ascending) when predictions are given;
  systems are ordered best first by :func:`trecrs.measures.direction.better` (ascending where lower is
  better: ``rmse``, ``ndpm``, ``fpr``; by value where a measure has no direction: ``gini``, ``arp``);
* the value a uniformly random permutation of each query's candidates L_u gets in expectation
  (:data:`~trecrs.report.random_expectation.EXPECTATIONS`), which shows each methodology's bias.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..errors import TrecrsWarning, UsageError, warn
from ..evaluate.api import evaluate_full
from ..evaluate.settings import EvalSettings
from ..measures.direction import sign
from ..measures.recsys.error import join_predictions, rmse
from ..measures.request import parse_measures
from ..measures.trec_eval import base_of
from ..protocol.candidates import METHODOLOGIES, CandidateSet, make_split, methodology_name, methodology_qrels
from ..protocol.indexed import CandidateOptions
from ..protocol.one_plus_random import _check_draw_options as check_draw_options
from ..protocol.runs import build_run
from .markdown import latex_escape, md_table
from .notebook import html_table
from .random_expectation import expected_value, query_stats

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..measures.request import MeasureRequest
    from ..protocol.candidates import Items
    from ..protocol.indexed import IndexedSplit

RANDOM = "random (expected)"  # the row of the random ranking's expectation
RMSE = "RMSE"  # the column of the order by ascending RMSE in the agreement tables

# --------------------------------------------------------------------------------------------- agreement


def kendall_tau(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> tuple[float, int]:
    """Kendall's tau-b of two orders given as values (higher first) and the number of discordant pairs.

    tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)), C / D the concordant / discordant pairs, n0 = n(n-1)/2,
    n1 / n2 the pairs tied in ``x`` / ``y`` (Kendall 1945; equal to ``scipy.stats.kendalltau``). NaN when
    either side ties everything.
    """
    conc = disc = tie_x = tie_y = 0
    for i, j in combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        tie_x += dx == 0
        tie_y += dy == 0
        conc += dx * dy > 0
        disc += dx * dy < 0
    n0 = len(x) * (len(x) - 1) // 2
    den = (n0 - tie_x) * (n0 - tie_y)
    return (float((conc - disc) / math.sqrt(den)) if den > 0 else math.nan), int(disc)


# --------------------------------------------------------------------------------------------- the study


@dataclass
class SensitivityResult:
    """Values (``system, methodology, measure, value``), the random expectation (``methodology, measure,
    value``), each system's RMSE (or None), and the agreement of the system orders (``measure, a, b, tau,
    discordant``: every two methodologies, and each methodology against ``RMSE``)."""

    systems: list[str]
    methodologies: list[str]
    measures: list[str]
    values: pl.DataFrame
    expected: pl.DataFrame
    rmse: dict[str, float] | None
    agreement: pl.DataFrame = field(default_factory=pl.DataFrame)
    info: dict = field(default_factory=dict)

    def value(self, system: str, methodology: str, measure: str) -> float:
        """The summary value, NaN when the methodology evaluated no query for it (e.g. One-Plus-Random with
        no test rating above the relevance threshold: no case to rank)."""
        v = self.values.filter(
            (pl.col("system") == system)
            & (pl.col("methodology") == methodology)
            & (pl.col("measure") == measure)
        )
        return v.get_column("value")[0] if v.height else math.nan

    def plot(self, path: str | os.PathLike | None = None) -> Figure:
        """The paper's Figure 2 for these systems, as ``--plot`` draws it (:func:`plot`): the Figure."""
        return plot(self, path)

    def _repr_html_(self) -> str:
        """What a notebook shows: every table of the text report as HTML, its title the caption."""
        return "".join(html_table(header, rows, title) for title, header, rows in _tables(self))


def _qrels(
    name: str, train: object, test: object, threshold: float, relevant_threshold: float
) -> pl.DataFrame:
    if METHODOLOGIES[name].per_case:
        return methodology_qrels(name, train, test, relevant_threshold=relevant_threshold).qrels
    return methodology_qrels(name, train, test, threshold=threshold).qrels


def _evaluate_methodology(
    name: str, split: IndexedSplit, qrels: pl.DataFrame, scores: dict, request: MeasureRequest, options: dict
) -> tuple[list[tuple], list[tuple], dict]:
    """Each system's summary under ``name`` and the random expectation: (rows, expected rows, info)."""
    cset = CandidateSet(
        split, METHODOLOGIES[name], options["candidates"]
    )  # the split is coded once, for every methodology
    rows: list[tuple] = []
    info: dict[str, dict] = {}
    caught: dict[tuple[type[Warning], str], list[str]] = {}
    for system, table in scores.items():
        with _collected_warnings(system, caught):
            run = build_run(
                cset, table, missing=options["missing"], tag=system, scores_path=options["paths"][system]
            )
            # train/test/predictions feed the recommender measures that need them (novelty, rmse...)
            ev = evaluate_full(
                qrels,
                run.run,
                request,
                settings=options["evaluation"],
                train=options["train"],
                test=options["test"],
                predictions=options["predictions"].get(system),
            )
        info[system] = {k: run.info[k] for k in ("candidates", "missing", "lines", "queries")}
        rows += [
            (system, name, label, float(v)) for c, v in ev.summary.items() for label in ev.printed_names(c)
        ]
    _warn_grouped(caught, name)
    stats = query_stats(cset.frame(), qrels)
    formulas = all(
        getattr(options["evaluation"], f) == getattr(_FORMULA_SETTINGS, f) for f in _FORMULA_FIELDS
    )
    # the value columns and their printed names as the systems' rows have them (every run: the same request)
    expected = [
        (name, label, None if _own_gains(request, c) or not formulas else expected_value(stats, c))
        for c in ev.summary
        for label in ev.printed_names(c)
    ]
    return rows, expected, info


@contextlib.contextmanager
def _collected_warnings(system: str, caught: dict) -> Iterator[None]:
    """Collect the warnings of one system's run and evaluation into ``caught`` (message -> systems)."""
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        yield
    for w in records:
        caught.setdefault((w.category, str(w.message)), []).append(system)


def _warn_grouped(caught: dict, methodology: str) -> None:
    """Each distinct warning of a methodology once, naming the systems it concerns: a count means
    nothing without them, and the same coverage note for every system is one line, not one each."""
    for (category, message), systems in caught.items():
        text = f"{', '.join(systems)} under {methodology}: {message}"
        warn(category(text) if issubclass(category, TrecrsWarning) else category(message))


#: The settings the random expectations assume, in the fields that change them (-l 1, no -J, no -c, every
#: rank: trec_eval's defaults); under others the expectation is left empty rather than wrong.
_FORMULA_SETTINGS = EvalSettings()
_FORMULA_FIELDS = ("relevance_level", "judged_only", "average_all", "depth")


def _own_gains(request: MeasureRequest, column: str) -> bool:
    """``ndcg.1=3,2=9``: gains other than the rel values, which :func:`expected_ndcg` assumes."""
    return base_of(column) == "ndcg" and request.params.get("ndcg") is not None


def sensitivity(
    train: object,
    test: object,
    scores: dict,
    measures: list | tuple | str | None,
    *,
    predictions: dict | None = None,
    methodologies: Sequence[str] | None = None,
    items: Items | None = None,
    threshold: float = 4.0,
    relevant_threshold: float = 5.0,
    n: int = 1000,
    seed: int | None = None,
    missing: str = "drop",
    paths: dict | None = None,
    evaluation: EvalSettings | None = None,
) -> SensitivityResult:
    """Evaluate every system (``scores``: name -> score file or table, as :func:`build_run` takes) under
    every methodology (default: all of :data:`METHODOLOGIES`), with qrels ``rating >= threshold``
    (One-Plus-Random: its own, test ratings >= ``relevant_threshold``). ``missing``: the policy of
    :func:`build_run` for unscored candidates (default ``drop``). ``predictions`` (name -> predicted
    ratings, for every system) adds RMSE. ``evaluation`` (:class:`~trecrs.evaluate.EvalSettings`; default:
    trec_eval 9.0.8's defaults) is how every run is scored; the random expectations assume the defaults
    and are left empty under other settings. See the module docstring.

    >>> train = pl.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["a", "b", "a", "c"], "rating": 3.0})
    >>> test = pl.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["c", "d", "b", "d"],
    ...                      "rating": [5.0, 2.0, 5.0, 1.0]})
    >>> def scores(order):  # every user's items scored in the same order, best first
    ...     rows = [(u, i, float(len(order) - k)) for u in ("u1", "u2") for k, i in enumerate(order)]
    ...     return pl.DataFrame(rows, schema=["user", "item", "score"], orient="row")
    >>> result = sensitivity(train, test, {"good": scores("bceda"), "bad": scores("edacb")}, ["P@1"],
    ...                      items=list("abcde"), methodologies=["test-ratings", "all-items"])
    >>> {(s, m): result.value(s, m, "P@1") for s in result.systems for m in result.methodologies}
    {('good', 'test-ratings'): 1.0, ('good', 'all-items'): 1.0, ('bad', 'test-ratings'): 0.0, ('bad', 'all-items'): 0.0}
    >>> result.agreement.rows()
    [('P@1', 'test-ratings', 'all-items', 1.0, 0)]
    """
    from ..files.ratings import as_ratings
    from ..files.scores import as_score_table

    _check_systems(predictions, list(scores))
    names = [methodology_name(m) for m in (methodologies or list(METHODOLOGIES))]
    opts = CandidateOptions(n=n, relevant_threshold=relevant_threshold, seed=seed)
    if any(METHODOLOGIES[m].per_case for m in names):
        check_draw_options(opts)  # before any run is built: a missing seed is known now
    train, test = as_ratings(train), as_ratings(test)
    paths = paths or {}
    split = make_split(train, test, items, paths=paths)
    evaluation = evaluation or EvalSettings()
    request = parse_measures(measures, trec_eval_version=evaluation.trec_eval_version)
    tables = {s: as_score_table(v) for s, v in scores.items()}
    options = dict(
        candidates=opts,
        missing=missing,
        train=train,
        test=test,
        evaluation=evaluation,
        predictions=predictions or {},
        paths={s: v if isinstance(v, str | os.PathLike) else None for s, v in scores.items()},
    )
    rows, expected, info = [], [], {}
    for name in names:
        qrels = _qrels(name, train, test, threshold, relevant_threshold)
        r, e, info[name] = _evaluate_methodology(name, split, qrels, tables, request, options)
        rows += r
        expected += e
    values = pl.DataFrame(
        rows,
        schema={"system": pl.Utf8, "methodology": pl.Utf8, "measure": pl.Utf8, "value": pl.Float64},
        orient="row",
    )
    exp = pl.DataFrame(
        expected, schema={"methodology": pl.Utf8, "measure": pl.Utf8, "value": pl.Float64}, orient="row"
    )
    errors = _rmse(predictions, test, list(scores)) if predictions else None
    labels = list(dict.fromkeys(values.get_column("measure").to_list()))
    result = SensitivityResult(list(scores), names, labels, values, exp, errors, info=info)
    result.agreement = agreement(result)
    return result


def _check_systems(predictions: dict | None, systems: list[str]) -> None:
    """Two systems at least (an order needs them); RMSE orders every system or none: the predictions must
    name exactly the systems of the scores."""
    if len(systems) < 2:
        raise UsageError(
            f"give the scores of two systems or more: the study compares their orders, got {len(systems)}"
        )
    if predictions and set(predictions) != set(systems):
        raise UsageError(
            "predictions must name the same systems as the scores "
            f"(scores: {', '.join(systems)}; predictions: {', '.join(predictions)})"
        )


def _rmse(predictions: dict, test: pl.DataFrame, systems: list[str]) -> dict[str, float]:
    from ..files.scores import read_predictions

    out = {}
    for s in systems:
        p = predictions[s]
        joined, _ = join_predictions(read_predictions(p) if isinstance(p, str) else p, test)
        out[s] = rmse(joined.get_column("prediction").to_numpy(), joined.get_column("rating").to_numpy())
    return out


def agreement(result: SensitivityResult) -> pl.DataFrame:
    """Kendall's tau-b and the discordant pairs of the system orders, per measure, for every two
    methodologies (in the order asked) and for each methodology against the ascending-RMSE order; each
    order is best first (:func:`trecrs.measures.direction.sign`), so tau > 0 means the same systems lead."""
    rows = []
    for measure in result.measures:
        way = sign(measure)
        orders = {
            m: [way * result.value(s, m, measure) for s in result.systems] for m in result.methodologies
        }
        if result.rmse is not None:
            orders[RMSE] = [sign("rmse") * result.rmse[s] for s in result.systems]
        for a, b in combinations(orders, 2):
            x, y = np.asarray(orders[a], dtype=float), np.asarray(orders[b], dtype=float)
            # a system without a value (the measure is not defined under that methodology) has no place in
            # the order: the agreement is undefined, not "no discordant pair"
            tau, disc = (
                kendall_tau(x, y) if np.isfinite(x).all() and np.isfinite(y).all() else (math.nan, None)
            )
            rows.append((measure, a, b, tau, disc))
    return pl.DataFrame(
        rows,
        schema={"measure": pl.Utf8, "a": pl.Utf8, "b": pl.Utf8, "tau": pl.Float64, "discordant": pl.Int64},
        orient="row",
    )


# --------------------------------------------------------------------------------------------- output


def _missing(v: object) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _num(v: float | None, digits: int = 4) -> str:
    return "–" if _missing(v) else f"{v:.{digits}f}"


def value_table(result: SensitivityResult, measure: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of one measure's systems x methodologies table, the random expectation last."""
    rows = [[s, *(_num(result.value(s, m, measure)) for m in result.methodologies)] for s in result.systems]
    exp = {m: v for m, meas, v in result.expected.iter_rows() if meas == measure}
    rows.append([RANDOM, *(_num(exp.get(m)) for m in result.methodologies)])
    return ["system", *result.methodologies], rows


def tau_table(result: SensitivityResult, measure: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of one measure's agreement matrix: ``tau (discordant pairs)`` in every cell."""
    cells = {}
    for _, a, b, tau, disc in result.agreement.filter(pl.col("measure") == measure).iter_rows():
        cells[a, b] = cells[b, a] = "–" if disc is None else f"{_num(tau, 3)} ({disc})"
    names = [*result.methodologies, *([RMSE] if result.rmse is not None else [])]
    return ["tau (discordant)", *names], [[a, *(cells.get((a, b), "–") for b in names)] for a in names]


def rmse_table(result: SensitivityResult) -> tuple[list[str], list[list[str]]]:
    """The RMSE of each system (a report has this table only with predictions)."""
    rmse = result.rmse or {}
    return ["system", RMSE], [[s, _num(rmse[s])] for s in result.systems]


def _tables(result: SensitivityResult) -> list[tuple[str, list[str], list[list[str]]]]:
    """Every table of a report: per measure the values, then the agreement; the RMSE last."""
    out = []
    for measure in result.measures:
        out.append((f"{measure}: systems x methodologies", *value_table(result, measure)))
        out.append(
            (
                f"{measure}: Kendall's tau-b between the system orders (discordant pairs)",
                *tau_table(result, measure),
            )
        )
    if result.rmse is not None:
        out.append(("RMSE (predicted ratings)", *rmse_table(result)))
    return out


def _aligned(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()

    return "\n".join(line(r) for r in [header, *rows]) + "\n"


def format_text(result: SensitivityResult) -> str:
    """Plain aligned tables (4 decimals; tau 3), one block per table."""
    return "\n".join(f"{title}\n{_aligned(h, rows)}" for title, h, rows in _tables(result))


def format_markdown(result: SensitivityResult) -> str:
    """Markdown tables under ``###`` headings."""
    return "\n".join(f"### {title}\n\n{md_table(h, rows)}" for title, h, rows in _tables(result))


def format_latex(result: SensitivityResult) -> str:
    """One ``tabular`` per table (booktabs rules), each preceded by its title as a comment."""
    out = []
    for title, header, rows in _tables(result):
        body = [" & ".join(latex_escape(c) for c in r) + r" \\" for r in rows]
        out.append(
            "\n".join(
                [
                    f"% {title}",
                    r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}",
                    r"\toprule",
                    " & ".join(latex_escape(c) for c in header) + r" \\",
                    r"\midrule",
                    *body,
                    r"\bottomrule",
                    r"\end{tabular}",
                ]
            )
            + "\n"
        )
    return "\n".join(out)


def _float(v: float | None) -> float | None:
    return None if v is None or math.isnan(v) else float(v)


def records(result: SensitivityResult) -> list[tuple[str, str, str, str, float | None]]:
    """Every number as ``(section, measure, row, column, value)``: value (system, methodology), expected
    (random, methodology), tau and discordant (methodology a, b), rmse (system, RMSE)."""
    out = [("value", m, s, meth, v) for s, meth, m, v in result.values.iter_rows()]
    out += [("expected", m, RANDOM, meth, _float(v)) for meth, m, v in result.expected.iter_rows()]
    for m, a, b, tau, disc in result.agreement.iter_rows():
        out += [("tau", m, a, b, _float(tau)), ("discordant", m, a, b, _float(disc))]
    out += [("rmse", RMSE, s, RMSE, v) for s, v in (result.rmse or {}).items()]
    return out


def format_csv(result: SensitivityResult) -> str:
    """One tidy CSV of :func:`records`, values at full precision (``repr``), empty when undefined."""
    lines = ["section,measure,row,column,value"]
    for sec, m, row, col, v in records(result):
        cells = [sec, m, row, col, "" if v is None else repr(float(v))]
        lines.append(
            ",".join(f'"{c}"' if ("," in c or '"' in c) else c for c in (x.replace('"', '""') for x in cells))
        )
    return "\n".join(lines) + "\n"


def format_json(result: SensitivityResult) -> str:
    """The whole study as one JSON object, values at full precision, null when undefined."""
    doc = {
        "systems": result.systems,
        "methodologies": result.methodologies,
        "measures": result.measures,
        "values": {
            m: {
                meth: {s: _float(result.value(s, meth, m)) for s in result.systems}
                for meth in result.methodologies
            }
            for m in result.measures
        },
        "expected_random": {
            m: {meth: _float(v) for meth, mm, v in result.expected.iter_rows() if mm == m}
            for m in result.measures
        },
        "rmse": result.rmse,
        "agreement": [
            {"measure": m, "a": a, "b": b, "tau": _float(t), "discordant": d}
            for m, a, b, t, d in result.agreement.iter_rows()
        ],
    }
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


FORMATS: dict[str, Callable[[SensitivityResult], str]] = {
    "text": format_text,
    "markdown": format_markdown,
    "latex": format_latex,
    "csv": format_csv,
    "json": format_json,
}


def plot(result: SensitivityResult, path: str | os.PathLike | None = None) -> Figure:
    """The paper's Figure 2 for these systems: one panel per methodology, bars per system per measure,
    the random expectation a dashed line across each measure's bars. The Figure, saved to ``path`` (PNG
    or PDF by the suffix) when given."""
    from matplotlib.lines import Line2D

    from .figures import figure, finish

    cols = len(result.methodologies)
    fig, axes = figure(nrows=1, ncols=cols, figsize=(3.2 * cols, 3.4), squeeze=False, sharey=True)
    width = 0.8 / max(1, len(result.systems))
    for ax, meth in zip(axes[0], result.methodologies, strict=True):
        for i, s in enumerate(result.systems):
            vals = [result.value(s, meth, m) for m in result.measures]
            ax.bar(
                np.arange(len(result.measures)) + (i - (len(result.systems) - 1) / 2) * width,
                vals,
                width,
                label=s,
            )
        exp = {m: v for mm, m, v in result.expected.iter_rows() if mm == meth}
        for j, m in enumerate(result.measures):
            if not _missing(exp.get(m)):
                ax.hlines(exp[m], j - 0.45, j + 0.45, colors="black", linestyles="dashed", linewidth=1)
        ax.set_title(meth)
        ax.set_xticks(np.arange(len(result.measures)), result.measures, rotation=30, fontsize=8)
    handles, labels = axes[0][0].get_legend_handles_labels()
    handles.append(Line2D([], [], color="black", linestyle="dashed", linewidth=1))
    # below the panels, so that no bar is hidden
    fig.legend(
        handles, [*labels, RANDOM], loc="lower center", ncol=len(labels) + 1, fontsize=8, frameon=False
    )
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return finish(fig, path)
