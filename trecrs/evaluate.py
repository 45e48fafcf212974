"""evaluate(): trec_eval semantics around an engine — query selection, -M, -J, -c, averaging, relstring.

This module picks the engine (:mod:`trecrs.engines`) and the input path, and ends every evaluation in
:func:`finalize`.

The rules reproduced here are trec_eval 9.x's (``trec_eval.c``, ``form_res_rels.c``, ``meas_avg.c``):

* queries evaluated = queries of the run that are also in the qrels (a qrels query whose judgements are
  all non-relevant still counts, and scores 0); with ``average_all`` (``-c``) the averages are over every
  qrels query, as 9.0.8's ``calc_avg_meas`` does (:func:`summarize`; ``trec_eval_version=10``: 10.0's
  one-document stand-in ranking per missing query instead);
* a query judged with negative values only fails where trec_eval fails (:func:`check_judged`);
* ``depth`` (``-M``) keeps the first N documents of each query after trec_eval's ordering;
* summary: ``num_*`` summed, ``num_q`` counted, ``gm_*`` = exp(mean(log(max(v, 1e-5)))), all others the
  arithmetic mean, accumulated in double precision in trec_eval's query order (bytewise qid order).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from .engines import ENGINES, Computed, vectorized
from .engines.rel_info import REL_INFO_FORMATS, RESULTS_FORMATS, RelInfoFormat, kinds_for, unserved
from .engines.vectorized.measures import MIN_GEO_MEAN
from .errors import SemanticError, TrecrsWarning, UsageError
from .files.lines import is_stdin, read_through_file
from .files.trec import as_polars, read_qrels, read_run, run_tag
from .files.zscores import read_zscores
from .measures.recsys.evaluation import evaluate_extras
from .measures.recsys.opr import summarize_trec_by_user
from .measures.request import MeasureRequest, long_cutoffs, parse_measures
from .measures.trec_eval import BY_NAME, COUNT, GEO, LONG_CUTOFFS, NONE, SUM, base_of, printed_per_query
from .ordering import bytewise_sorted, trec_order
from .protocol.qrels import QrelsResult
from .protocol.runs import RunResult
from .ranges import REL_MAX, REL_MAX_PYTREC_EVAL
from .schema import ALL, DOC, MEASURE, QRELS_SCHEMA, QUERY, RANK, REL, RUN_SCHEMA, SCORE, VALUE
from .trec_eval_versions import TrecEvalVersion
from .trec_eval_versions import get as trec_eval_version_entry

BOGUS_DOC = "ceci_nest_pas_un_docno"  # trec_eval 10.0's stand-in ranking for a query missing under -c


@dataclass
class Evaluation:
    """Everything trec_eval would print for one run: per-query values, the summary, runid, relstrings."""

    request: MeasureRequest
    per_query: pl.DataFrame  # query + one column per output value, bytewise qid order
    summary: dict[str, float]
    runid: str
    relstrings: dict[str, str] = field(default_factory=dict)
    num_q: int = 0
    notes: list[str] = field(default_factory=list)  # counts of undefined/left-out values (extras)
    extra_columns: list[str] = field(default_factory=list)  # per-query columns of extras (printed last)
    zscores: bool = False  # values are z-scores (-Z): printed as trec_eval prints them, names prefixed "Z"

    def columns(self) -> list[str]:
        return [c for c in self.per_query.columns if c != QUERY]

    def printed_names(self, column: str) -> list[str]:
        """The names a value column is printed under: its own, or those of the request's
        :attr:`~trecrs.measures.request.MeasureRequest.labels` (``P_10`` -> ``["P@10"]`` for ``-m P@10``;
        ``["P_10", "P@10"]`` for ``-m P.10 -m P@10``), in that order."""
        return list(self.request.labels.get(column, (column,)))

    def tidy(self, *, per_query: bool = True) -> pl.DataFrame:
        """``(query, measure, value)`` rows: per-query values (trec_eval's -q lines) then the ``all`` rows."""
        frames = []
        if per_query and self.per_query.height:
            cols = [c for c in self.columns() if printed_per_query(c)]
            if cols:
                long = self.per_query.select([QUERY, *cols]).unpivot(
                    index=QUERY, on=cols, variable_name=MEASURE, value_name=VALUE
                )
                # unpivot groups by measure; trec_eval prints query by query
                order = {c: i for i, c in enumerate(cols)}
                long = long.with_columns(pl.col(MEASURE).replace_strict(order, return_dtype=pl.Int64).alias("_m"))
                qorder = {q: i for i, q in enumerate(self.per_query.get_column(QUERY).to_list())}
                long = long.with_columns(pl.col(QUERY).replace_strict(qorder, return_dtype=pl.Int64).alias("_q"))
                # extras leave undefined per-query values null: no row for them
                long = long.sort(["_q", "_m"]).drop(["_q", "_m"]).filter(pl.col(VALUE).is_not_null())
                frames.append(self._relabelled(long) if self.request.labels else long)
        names = [(n, v) for c, v in self.summary.items() for n in self.printed_names(c)]
        summ = pl.DataFrame(
            {QUERY: [ALL] * len(names), MEASURE: [n for n, _ in names], VALUE: [v for _, v in names]},
            schema={QUERY: pl.Utf8, MEASURE: pl.Utf8, VALUE: pl.Float64},
        )
        frames.append(summ)
        rows = pl.concat(frames, how="vertical")
        if self.zscores:  # named as trec_eval prints z-scores
            z = pl.when(pl.col(MEASURE) == "runid").then(pl.col(MEASURE)).otherwise(pl.lit("Z") + pl.col(MEASURE))
            rows = rows.with_columns(z.alias(MEASURE))
        return rows

    def _relabelled(self, long: pl.DataFrame) -> pl.DataFrame:
        """Tidy rows with each value column's rows repeated under each of its :meth:`printed_names`."""
        pairs = [(c, n) for c in long.get_column(MEASURE).unique(maintain_order=True) for n in self.printed_names(c)]
        names = pl.DataFrame({MEASURE: [c for c, _ in pairs], "_name": [n for _, n in pairs]})
        joined = long.with_row_index("_r").join(names, on=MEASURE, how="left", maintain_order="left_right")
        return joined.sort("_r", maintain_order=True).select(QUERY, pl.col("_name").alias(MEASURE), VALUE)


#: How an evaluation becomes text, by format name. ``"trec"`` is :func:`trecrs.report.trec.format_trec`,
#: registered by ``trecrs/__init__.py``: the report layer sits above this one, which cannot import it.
TEXT_FORMATS: dict[str, Callable[..., str]] = {}


@dataclass
class EvaluationResult:
    """What :func:`evaluate` returns: per-query values, the summary, trec_eval's text, tidy rows.

    ``per_query`` has one row per evaluated query (trec_eval's order) and one column per value trec_eval
    prints per query, named as printed; ``summary`` maps each summary value's name to its ``all`` value
    (runid left out: :attr:`runid`). Frames are pandas when a pandas frame was given, else polars.
    """

    evaluation: Evaluation
    pandas: bool = False

    @property
    def runid(self) -> str:
        return self.evaluation.runid

    @property
    def per_query(self):
        """``query`` then one column per per-query value (``P_10``, ``map``...), as trec_eval's ``-q`` prints."""
        rows = self.evaluation.tidy(per_query=True).filter(pl.col(QUERY) != ALL)
        wide = self.evaluation.per_query.select(QUERY)
        if rows.height:
            wide = wide.join(rows.pivot(on=MEASURE, index=QUERY, values=VALUE), on=QUERY, how="left",
                             maintain_order="left")
        return self._frame(wide)

    @property
    def summary(self) -> dict[str, float]:
        """Summary value name -> the ``all`` value trec_eval prints (runid left out)."""
        rows = self.evaluation.tidy(per_query=False)
        return {m: v for m, v in zip(rows[MEASURE], rows[VALUE], strict=True) if m != "runid"}

    def to_trec(self, per_query: bool = False) -> str:
        """Exactly what ``trecrs eval`` (``-q`` with ``per_query``) prints for this evaluation."""
        return TEXT_FORMATS["trec"](self.evaluation, per_query=per_query)

    def tidy(self, per_query: bool = True):
        """``(query, measure, value)`` rows: per query (trec_eval's ``-q`` order), then the ``all`` rows."""
        return self._frame(self.evaluation.tidy(per_query=per_query).filter(pl.col(MEASURE) != "runid"))

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query: {measure: value}}`` of the per-query values, as pytrec_eval's ``evaluate`` returns."""
        out: dict[str, dict[str, float]] = {}
        for q, m, v in self.evaluation.tidy(per_query=True).filter(pl.col(QUERY) != ALL).iter_rows():
            out.setdefault(q, {})[m] = v
        return out

    def _frame(self, frame: pl.DataFrame):
        return frame.to_pandas() if self.pandas else frame

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v:.4g}" for k, v in list(self.summary.items())[:6])
        more = ", ..." if len(self.summary) > 6 else ""
        return f"EvaluationResult(runid={self.runid!r}, queries={self.evaluation.per_query.height}: {shown}{more})"


def _sequential_sum(values: np.ndarray) -> float:
    # trec_eval adds query by query in double precision; numpy's pairwise sum could differ in the last bit
    # and flip a %6.4f rounding, so accumulate strictly left to right.
    if values.size == 0:
        return 0.0
    return float(np.add.accumulate(values)[-1])


@dataclass(frozen=True)
class QrelsTotals:
    """What trec_eval's ``-c`` summary reads from the whole qrels rather than from the evaluated queries."""

    queries: int  # qrels queries: num_q and the divisor of every mean (meas_avg.c, m_num_q.c)
    relevant: int  # judgements with rel > 0 whatever -l, -J or -M: the summary num_rel (m_num_rel.c)


def qrels_totals(query_codes: np.ndarray, rels: np.ndarray) -> QrelsTotals:
    """:class:`QrelsTotals` of a qrels given as one query code and one relevance value per line."""
    return QrelsTotals(int(np.unique(query_codes).size), int((rels > 0).sum()))


# measures whose m_*.c never calls te_form_res_rels, so a query judged with negative values only passes
FORM_RES_RELS_FREE = frozenset({"runid", "num_q"})


def check_judged(evaluated: list[tuple[str, int]], request: MeasureRequest) -> None:
    """Fail where trec_eval fails on a query whose judgements are all negative (``form_res_rels.c``).

    ``evaluated``: (query, highest relevance value) of each evaluated query in trec_eval's order
    (bytewise). ``te_form_res_rels`` sizes its per-grade counters by the highest value plus one: for such a
    query on the first call (nothing allocated yet) it returns UNDEF ("Can't calculate measure", status
    4); later, a highest value of -2 or less makes it ``memset`` a negative size (a crash), and -1 leaves
    the query as one with nothing relevant (nothing it retrieves has a gain, so the previous query's
    counters it reads change no value). Measures that never call it (runid, num_q) never fail.
    """
    calling = [n for n in request.names if n not in FORM_RES_RELS_FREE]
    if not calling:
        return
    for i, (query, top) in enumerate(evaluated):
        if top < 0 and i == 0:
            raise SemanticError(
                f"query {query!r} has only negative relevance values (nothing judged) and is the first query "
                f"evaluated: trec_eval cannot calculate measure '{calling[0]}' (it exits here too)"
            )
        if top <= -2:
            raise SemanticError(
                f"query {query!r} has only relevance values of -2 or less (nothing judged): trec_eval crashes on "
                "such a query"
            )


def summarize(per_query: pl.DataFrame, num_q: int) -> dict[str, float]:
    """trec_eval's summary values from per-query values (rows in bytewise qid order), averaged over
    ``num_q`` queries (``meas_avg.c``).

    ``num_q`` may exceed the rows (``-c`` in trec_eval 9.0.8: every qrels query): the queries without a
    row add 0 to the means and log(1e-5) to the geometric means (``te_calc_avg_meas_s_gm``).
    """
    missing = num_q - per_query.height
    out: dict[str, float] = {}
    for col in per_query.columns:
        if col == QUERY:
            continue
        base = base_of(col)
        agg = BY_NAME[base].aggregate if base else "mean"
        v = per_query.get_column(col).to_numpy().astype(np.float64)
        if agg == SUM:
            out[col] = _sequential_sum(v)
        elif agg == COUNT:
            out[col] = float(num_q)
        elif agg == GEO:
            total = _sequential_sum(v)
            if missing:  # added to the sum at the end, as te_calc_avg_meas_s_gm does
                total += missing * math.log(MIN_GEO_MEAN)
            out[col] = math.exp(total / num_q) if num_q else 0.0
        elif agg == NONE:
            continue
        else:
            out[col] = _sequential_sum(v) / num_q if num_q else 0.0
    return out


def finalize(
    request: MeasureRequest,
    computed: Computed,
    tag: str,
    *,
    average_all: bool = False,
    totals: QrelsTotals | None = None,
    trec_eval_version: int = 9,
    zscores: pl.DataFrame | None = None,
) -> Evaluation:
    """The end of every evaluation, whatever the engine or input path (``trec_eval.c``, ``meas_avg.c``).

    * no evaluated query is an error (9.0.8 exits with status 7 even under ``-c``; 10.0 and the stand-in
      rankings of its ``-c`` count as evaluated);
    * ``-c`` (``average_all``, with the qrels' ``totals``), trec_eval 9.0.8: per-query rows for the
      evaluated queries only, every mean over all qrels queries (:func:`summarize`); 10.0: a query
      evaluated on the stand-in ranking gets ``num_ret`` and ``utility`` reset to 0 and an empty relstring
      (trec_eval.c, "bogus_ranking"); both: the summary ``num_rel`` counts every rel > 0 (``m_num_rel.c``);
    * ``zscores`` (``-Z``, :func:`trecrs.files.zscores.read_zscores`): each query's values become z-scores
      (:func:`to_zscores`) after those resets and before averaging, as ``trec_eval.c`` converts them;
    * rows in bytewise qid order, then the summary, the ``runid`` line first.
    """
    per_query, stand_in = computed.per_query, computed.stand_in
    if per_query.height == len(stand_in) and not (average_all and trec_eval_version == 10 and stand_in):
        raise SemanticError("no queries with both results and relevance info (trec_eval exits here too)")
    if stand_in:
        resets = [c for c in per_query.columns if c != QUERY and _reset_on_stand_in(request, c)]
        mask = pl.col(QUERY).is_in(stand_in)
        per_query = per_query.with_columns([pl.when(mask).then(0.0).otherwise(pl.col(c)).alias(c) for c in resets])
    if zscores is not None:
        per_query = to_zscores(per_query, zscores, request)
    order = bytewise_sorted(per_query.get_column(QUERY).to_list())
    if order != per_query.get_column(QUERY).to_list():
        per_query = per_query.join(pl.DataFrame({QUERY: order}).with_row_index("_o"), on=QUERY).sort("_o").drop("_o")
    complete = average_all and totals is not None
    num_q = totals.queries if complete and trec_eval_version == 9 else per_query.height
    summary: dict[str, float] = {"runid": float("nan")} if "runid" in request.params else {}
    summary.update(summarize(per_query, num_q))
    if complete and "num_rel" in summary:
        summary["num_rel"] = float(totals.relevant)
    rs: dict[str, str] = {}
    if request.relstring_length() is not None:
        # 10.0 empties a stand-in's relstring when its printed name is one it resets ("relstring", not
        # "relstring_5"); otherwise it prints the stand-in ranking's own
        emptied = stand_in if _reset_on_stand_in(request, "relstring") else []
        rs = {**dict.fromkeys(stand_in, ""), **computed.relstrings, **dict.fromkeys(emptied, "")}
    return Evaluation(request, per_query, summary, tag, rs, num_q, zscores=zscores is not None)


#: what trec_eval gives a value whose mean and standard deviation are not in the z-score file
MISSING_ZSCORE = -1000000.0


def to_zscores(per_query: pl.DataFrame, zscores: pl.DataFrame, request: MeasureRequest) -> pl.DataFrame:
    """Each value as a z-score, (value - mean) / stddev, with the mean and standard deviation the file gives
    for its query and printed name (``convert_zscores.c``).

    A zero standard deviation gives 0 when the value equals the mean, else -1000000; a (query, measure)
    missing from the file gives -1000000. A NaN standard deviation is not zero (C truth): the result is NaN.
    """
    out = []
    for col in (c for c in per_query.columns if c != QUERY):
        z = zscores.filter(pl.col(MEASURE) == request.printed_name(col)).drop(MEASURE)
        j = per_query.select(QUERY, col).join(z, on=QUERY, how="left", maintain_order="left")
        v = j.get_column(col).cast(pl.Float64).to_numpy()
        found = j.get_column("mean").is_not_null().to_numpy()
        mean = j.get_column("mean").fill_null(0.0).to_numpy()
        sd = j.get_column("stddev").fill_null(0.0).to_numpy()
        with np.errstate(all="ignore"):
            scaled = (v - mean) / sd
        zero_sd = np.where(v == mean, 0.0, MISSING_ZSCORE)
        out.append(pl.Series(col, np.where(found, np.where(sd != 0, scaled, zero_sd), MISSING_ZSCORE)))
    return per_query.with_columns(out)


def _reset_on_stand_in(request: MeasureRequest, column: str) -> bool:
    """Whether trec_eval resets ``column`` to 0 on a -c stand-in ranking (``trec_eval.c``, by printed name)."""
    name = request.printed_name(column)
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in request.version.stand_in_resets)


@dataclass
class _Frames:
    """A qrels/run pair read as frames (run cut at ``depth``) and the queries trec_eval evaluates."""

    qrels: pl.DataFrame
    run: pl.DataFrame
    tag: str
    evaluated: list[str]  # in both the run and the qrels
    missing: list[str]  # -c in trec_eval 10.0: in the qrels only (evaluated on the stand-in ranking)
    totals: QrelsTotals

    def restricted(self, frame: pl.DataFrame, queries: list[str]) -> pl.DataFrame:
        return frame.filter(pl.col(QUERY).is_in(queries))


def _read_frames(
    qrels, run, request: MeasureRequest, *, depth: int | None, average_all: bool, trec_eval_version: int = 9,
    max_rel: int = REL_MAX, relevance_level: int = 1,
) -> _Frames:  # fmt: skip
    qrels = as_polars(unwrap(qrels), QRELS_SCHEMA, "qrels", max_rel=max_rel)
    run = as_polars(unwrap(run), RUN_SCHEMA, "run")
    tag = run_tag(run)
    if depth is not None:
        run = trec_order(run, score_dtype=request.version.score_dtype).filter(pl.col(RANK) <= depth)
    qrels_queries = set(qrels.get_column(QUERY).unique().to_list())
    run_queries = set(run.get_column(QUERY).unique().to_list())
    evaluated = run_queries & qrels_queries
    stand_ins = average_all and trec_eval_version == 10
    if not evaluated and not stand_ins:
        raise SemanticError("no queries with both results and relevance info (trec_eval exits here too)")
    if not evaluated and run.height == 0:
        raise SemanticError("the run is empty")
    missing = sorted(qrels_queries - run_queries) if stand_ins else []
    if request.version.uncovered_query_fatal and not average_all:
        stop_uncovered(bytewise_sorted(qrels_queries - run_queries), request.version)
    top = dict(qrels.group_by(QUERY).agg(pl.col(REL).max()).iter_rows())
    _warn_frames(qrels_queries, run, top, request, average_all=average_all, relevance_level=relevance_level)
    check_judged([(q, top[q]) for q in bytewise_sorted([*evaluated, *missing])], request)
    totals = QrelsTotals(len(qrels_queries), int((qrels.get_column(REL) > 0).sum()))
    return _Frames(qrels, run, tag, list(evaluated), missing, totals)


def _warn_frames(qrels_queries: set, run: pl.DataFrame, top: dict, request: MeasureRequest, *, average_all: bool,
                 relevance_level: int) -> None:
    """:func:`warn_coverage` on frames (the run already cut at ``depth``)."""
    retrieved = dict(run.group_by(QUERY).len().iter_rows())
    vocab = sorted(qrels_queries | set(retrieved))
    in_qrels = np.array([q in qrels_queries for q in vocab], bool)
    in_run = np.array([q in retrieved for q in vocab], bool)
    tops = np.array([top.get(q, np.iinfo(np.int64).min) for q in vocab], np.int64)
    counts = np.array([retrieved.get(q, 0) for q in vocab], np.int64)
    cov = _coverage(in_qrels, in_run, tops, counts, cutoff=deepest_cutoff(request), relevance_level=relevance_level)
    warn_coverage(cov, average_all=average_all, relevance_level=relevance_level)


def unwrap(data):
    """trecrs's own results as the frame they hold: :func:`~trecrs.protocol.runs.build_run`'s ``.run``,
    :func:`~trecrs.protocol.qrels.make_qrels`'s ``.qrels``; anything else unchanged."""
    if isinstance(data, RunResult):
        return data.run
    if isinstance(data, QrelsResult):
        return data.qrels
    return data


def stop_uncovered(uncovered: list[str], version: TrecEvalVersion) -> None:
    """trec_eval 10.0 stops (status 4) at the first qrels query, in qid order, with no line in the run.

    Its message (``trec_eval.c``: "result qid 'Q' not found in qrels") names the qrels query but reads
    the other way round; trecrs says what is missing and how to go on.
    """
    if uncovered:
        more = f" (and {len(uncovered) - 1:,} more)" if len(uncovered) > 1 else ""
        raise SemanticError(
            f"qrels query {uncovered[0]!r}{more} has no line in the run: trec_eval {version.label} stops here "
            "(use -c to score such queries 0, or remove them from the qrels)"
        )


def _share(part: int, whole: int) -> str:
    """``"1,234 of 5,678 (21.7%)"``: counts with thousands separators, the percentage with one decimal."""
    return f"{part:,} of {whole:,} ({100 * part / whole:.1f}%)" if whole else f"{part:,} of {whole:,}"


def warn_uncovered(qrels_queries: int, uncovered: int, *, average_all: bool) -> None:
    """One :class:`~trecrs.errors.TrecrsWarning` when qrels queries have no line in the run.

    trec_eval leaves such queries out of every average (``-c`` counts them as scoring 0), so a
    run that covers part of the users scores as if the rest did not exist.
    """
    if uncovered and not average_all:
        _warn(f"{_share(uncovered, qrels_queries)} qrels queries have no line in the run: left out of the "
              "averages, as trec_eval does (-c would count them, scoring 0)")


@dataclass(frozen=True)
class Coverage:
    """Query counts behind the sanity warnings of an evaluation (:func:`warn_coverage`)."""

    qrels_queries: int  # queries with qrels lines
    uncovered: int  # ... and no line in the run
    run_queries: int  # queries with run lines
    unjudged: int  # ... and no qrels line: never evaluated
    evaluated: int  # in both
    no_relevant: int  # evaluated, with no qrels value at the relevance level or above
    short: int  # evaluated, retrieving fewer documents than cutoff
    cutoff: int | None  # the deepest cutoff given explicitly (P.100, ndcg_cut.100, P@100)


def deepest_cutoff(request: MeasureRequest) -> int | None:
    """The largest cutoff the request gives explicitly to a measure with rank cutoffs (``P.5,100`` -> 100).

    Default cutoffs (``-m P``, the ``official`` nickname's P up to 1000) are not "asked for": a
    recommender's short top-N list against them is routine and would warn on every run.
    """
    cuts = [max(long_cutoffs(n, p)) for n, p in request.params.items()
            if p is not None and BY_NAME[n].params == LONG_CUTOFFS]
    return max(cuts, default=None)


def warn_coverage(c: Coverage, *, average_all: bool, relevance_level: int) -> None:
    """The coverage and sanity warnings of an evaluation, one :class:`~trecrs.errors.TrecrsWarning` each.

    Qrels queries without a ranking (:func:`warn_uncovered`); run queries without qrels (trec_eval skips
    them); evaluated queries with nothing relevant at ``relevance_level`` (they score 0 on most
    measures); evaluated queries retrieving fewer documents than the deepest cutoff asked for (the
    missing ranks count as non-relevant: P@100 of a 10-document ranking is at most 0.1).
    """
    warn_uncovered(c.qrels_queries, c.uncovered, average_all=average_all)
    if c.unjudged:
        _warn(f"{_share(c.unjudged, c.run_queries)} run queries have no qrels: not evaluated, as trec_eval does")
    if c.no_relevant:
        _warn(f"{_share(c.no_relevant, c.evaluated)} evaluated queries have no relevant document at relevance "
              f"level {relevance_level}: they score 0 on most measures")
    if c.short:
        _warn(f"{_share(c.short, c.evaluated)} evaluated queries retrieve fewer than {c.cutoff:,} documents, the "
              f"deepest cutoff asked for: the missing ranks are counted as non-relevant")


def _warn(message: str) -> None:
    """A :class:`~trecrs.errors.TrecrsWarning` attributed to the first caller outside trecrs (the user's line)."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(TrecrsWarning(message), stacklevel=level)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _coverage(in_qrels: np.ndarray, in_run: np.ndarray, top: np.ndarray, retrieved: np.ndarray, *,
              cutoff: int | None, relevance_level: int) -> Coverage:
    """:class:`Coverage` from per-query arrays over one vocabulary: in the qrels, in the run, highest
    relevance value, documents retrieved (after ``depth``)."""
    both = in_qrels & in_run
    short = int((both & (retrieved < cutoff)).sum()) if cutoff is not None else 0
    return Coverage(
        int(in_qrels.sum()), int((in_qrels & ~in_run).sum()), int(in_run.sum()), int((in_run & ~in_qrels).sum()),
        int(both.sum()), int((both & (top < relevance_level)).sum()), short, cutoff,
    )


def _compute_frames(f: _Frames, eng, request: MeasureRequest, *, relevance_level: int, judged_only: bool) -> Computed:
    """Per-query values of the evaluated queries, then of the -c stand-in rankings, then relstrings."""
    kwargs = dict(relevance_level=relevance_level, judged_only=judged_only)
    sub_qrels, sub_run = f.restricted(f.qrels, f.evaluated), f.restricted(f.run, f.evaluated)
    frames = [eng.compute(sub_qrels, sub_run, request, **kwargs)] if f.evaluated else []
    if f.missing:
        # trec_eval 10.0's -c: each missing query is evaluated on a one-document ranking of a document that is in
        # no qrels (trec_eval.c, "bogus_ranking"); finalize() resets its num_ret and utility
        bogus = pl.DataFrame({QUERY: f.missing, DOC: BOGUS_DOC, SCORE: 1.0})
        frames.append(eng.compute(f.restricted(f.qrels, f.missing), bogus, request, **kwargs))
    per_query = pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame({QUERY: []})
    rs: dict[str, str] = {}
    if request.relstring_length() is not None:
        rs = _relstrings(sub_qrels, sub_run, request, judged_only)
        if f.missing:  # the stand-in rankings' own relstrings (finalize() empties them where 10.0 does)
            rs.update(_relstrings(f.restricted(f.qrels, f.missing), bogus, request, judged_only))
    return Computed(per_query, f.missing, rs)


def _relstrings(qrels: pl.DataFrame, run: pl.DataFrame, request: MeasureRequest, judged_only: bool) -> dict[str, str]:
    if run.height == 0:
        return {}
    ranked = vectorized.rank(qrels, run, judged_only=judged_only, score_dtype=request.version.score_dtype)
    return vectorized.relstrings(ranked, request.relstring_length())


def _compute_files(eng, qrels, run, request: MeasureRequest, *, complete: bool, version: int, options: dict,
                   **flags) -> tuple[Computed, str, QrelsTotals]:
    """An engine that reads the files itself (:attr:`~trecrs.engines.base.Engine.compute_files`), then the
    checks :func:`_read_frames` makes on frames: the coverage warnings and :func:`check_judged`."""
    stand_ins = complete and version == 10
    out = eng.compute_files(qrels, run, request, complete=stand_ins, **flags, **options)
    totals = _check_stats(out.stats, request, average_all=complete, stand_ins=stand_ins, **flags)
    return out.computed, out.tag, totals


def _check_stats(stats, request: MeasureRequest, *, average_all: bool, stand_ins: bool, relevance_level: int,
                 depth: int | None = None, judged_only: bool = False, warn: bool = True) -> QrelsTotals:
    """The qrels totals of a pair given by its :class:`~trecrs.engines.base.QueryStats`, after the coverage
    warnings (with ``warn``) and :func:`check_judged` (on the queries trec_eval evaluates, in its order)."""
    both = stats.qrels.join(stats.run, on=QUERY, how="full", coalesce=True)
    both = both.sort(QUERY)  # polars sorts strings bytewise: trec_eval's query order
    in_qrels = both.get_column("top").is_not_null().to_numpy()
    in_run = both.get_column("retrieved").is_not_null().to_numpy()
    top = both.get_column("top").fill_null(np.iinfo(np.int64).min).to_numpy()
    retrieved = both.get_column("retrieved").fill_null(0).to_numpy()
    if warn:
        cov = _coverage(in_qrels, in_run, top, retrieved, cutoff=deepest_cutoff(request),
                        relevance_level=relevance_level)
        warn_coverage(cov, average_all=average_all, relevance_level=relevance_level)
    codes = np.flatnonzero(in_qrels if stand_ins else in_qrels & in_run)
    check_judged(list(zip(both.get_column(QUERY).gather(codes).to_list(), top[codes].tolist(), strict=True)), request)
    return QrelsTotals(stats.qrels.height, int(stats.qrels.get_column("relevant").sum()))


def _add_recsys(
    ev: Evaluation, f: _Frames, request: MeasureRequest, *, opr_average, average_all: bool = False, **extras_args
) -> None:
    """Recommender measures and the One-Plus-Random per-user summary (:mod:`trecrs.measures.recsys`).

    Under trec_eval 9.0.8's ``-c`` (no stand-in rankings) they are averaged, like trec_eval's measures, over
    every qrels query, a query missing from the run counting as one with an empty ranking; per-query rows
    remain those of the evaluated queries.
    """
    if opr_average == "user":
        ev.summary.update(summarize_trec_by_user(ev.per_query, ev.num_q, f.qrels))
    if not request.extras:
        return
    queries = ev.per_query.get_column(QUERY).to_list()
    if average_all and not f.missing:
        queries = bytewise_sorted(f.qrels.get_column(QUERY).unique().to_list())
    res = evaluate_extras(
        request.extras, qrels=f.restricted(f.qrels, f.evaluated), run=f.restricted(f.run, f.evaluated),
        queries=queries, all_qrels_queries=f.totals.queries, opr_average=opr_average, **extras_args,
    )  # fmt: skip
    ev.extra_columns = [c for c in res.per_query.columns if c != QUERY]
    rows = res.per_query
    if rows.height != ev.per_query.height:
        rows = ev.per_query.select(QUERY).join(rows, on=QUERY, how="left", maintain_order="left")
    if ev.extra_columns:
        ev.per_query = ev.per_query.with_columns([rows.get_column(c) for c in ev.extra_columns])
    ev.summary.update(res.summary)
    ev.notes = res.notes


def evaluate_full(
    qrels,
    run,
    measures=None,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    average_all: bool = False,
    depth: int | None = None,
    engine: str = "auto",
    train=None,
    test=None,
    predictions=None,
    opr_average: str | None = None,
    head_share: float = 0.33,
    trec_eval_version: int = 9,
    engine_options: dict | None = None,
    zscores=None,
    num_docs_in_coll: int = 0,
    rel_info_format: str = "qrels",
    results_format: str = "trec_results",
) -> Evaluation:
    """Evaluate one run as trec_eval would and return every printable piece (see :class:`Evaluation`).

    Recommender-specific measures (:mod:`trecrs.measures.recsys`) named in ``measures`` are computed on the
    same queries and printed after the trec_eval ones; ``train``/``test``/``predictions`` (frames or paths)
    feed those that need them. ``opr_average="user"`` averages One-Plus-Random cases per user first.
    Two paths end in :func:`finalize`: files the vectorized engine covers are read lean; anything else
    is read as frames and computed by the chosen engine. ``trec_eval_version``: 9 (9.0.8, the default) or
    10 (10.0), whose ``-c`` differ (:func:`finalize`). ``engine_options`` go to an engine that reads the
    files itself (:attr:`~trecrs.engines.base.Engine.compute_files`). ``zscores`` (trec_eval's ``-Z``: a
    file or a ``query, measure, mean, stddev`` frame) turns every value into a z-score
    (:func:`to_zscores`); ``num_docs_in_coll`` is ``-N``, read by utility. ``rel_info_format`` (trec_eval's
    ``-R``: ``qrels``, ``prefs``, ``qrels_prefs``, ``qrels_jg``) and ``results_format`` (``-T``:
    ``trec_results``) name the file formats (:mod:`trecrs.engines.rel_info`).
    """
    version = trec_eval_version_entry(trec_eval_version)
    request = _request(measures, version)
    if num_docs_in_coll:
        request = dataclasses.replace(request, num_docs_in_coll=int(num_docs_in_coll))
    z = _zscores(zscores, request)
    fmt = _rel_info_format(rel_info_format, results_format, request)
    qrels, run = _stdin_run(qrels, run, fmt)
    if fmt.compute is not None:
        flags = dict(relevance_level=relevance_level, judged_only=judged_only)
        return _evaluate_rel_info(fmt, qrels, run, request, engine=engine, depth=depth, average_all=average_all,
                                  zscores=z, **flags)
    if opr_average not in (None, "case", "user"):
        raise UsageError(f"opr_average must be 'case' or 'user', got {opr_average!r}")
    _check_depth(depth)
    eng = _choose_engine(engine, request)
    flags = dict(relevance_level=relevance_level, judged_only=judged_only)
    ends = dict(average_all=average_all, trec_eval_version=trec_eval_version, zscores=z)
    paths = all(isinstance(x, str | os.PathLike) for x in (qrels, run))
    lean = paths and eng.compute_files is not None and np.dtype(version.score_dtype) == np.float32  # float32 reader
    if lean and not request.extras and opr_average != "user" and relevance_level >= 1:
        computed, tag, totals = _compute_files(
            eng, qrels, run, request, depth=depth, complete=average_all, version=trec_eval_version,
            options=engine_options or {}, **flags,
        )  # fmt: skip
        return finalize(request, computed, tag, totals=totals, **ends)
    # trec_eval's own code takes fewer grades: checked while reading, so that the error names the line
    max_rel = REL_MAX_PYTREC_EVAL if eng is ENGINES["pytrec_eval"] else REL_MAX
    f = _read_frames(
        qrels, run, request, depth=depth, average_all=average_all, trec_eval_version=trec_eval_version,
        max_rel=max_rel, relevance_level=relevance_level,
    )  # fmt: skip
    if not request.params:  # only extras asked for: no trec_eval measure to compute
        eng = _NoTrecMeasures
    ev = finalize(request, _compute_frames(f, eng, request, **flags), f.tag, totals=f.totals, **ends)
    _add_recsys(
        ev, f, request, opr_average=opr_average, average_all=average_all, level=relevance_level, judged_only=judged_only, train=train,
        test=test, predictions=predictions, head_share=head_share,
    )  # fmt: skip
    return ev


def _zscores(zscores, request: MeasureRequest) -> pl.DataFrame | None:
    """The ``-Z`` table as a frame (read from a path); recommender measures have no z-scores in trec_eval."""
    if zscores is None:
        return None
    if request.extras:
        raise UsageError(f"z-scores (-Z) apply to trec_eval's measures only, not to {', '.join(request.extras)}")
    if isinstance(zscores, str | os.PathLike):
        return read_zscores(zscores)
    frame = zscores if isinstance(zscores, pl.DataFrame) else pl.from_pandas(zscores)
    return frame.select(pl.col(QUERY).cast(pl.Utf8), pl.col(MEASURE).cast(pl.Utf8), pl.col("mean").cast(pl.Float64),
                        pl.col("stddev").cast(pl.Float64))


def _request(measures, version: TrecEvalVersion | None = None) -> MeasureRequest:
    number = 9 if version is None else version.number
    if isinstance(measures, MeasureRequest):
        if measures.trec_eval_version == number:
            return measures
        request = parse_measures(measures.engine_specs() + list(measures.extras), trec_eval_version=number)
        request.labels = dict(measures.labels)  # the same value columns, printed under the same names
        return request
    return parse_measures(measures, trec_eval_version=number)


def _rel_info_format(name: str, results_format: str, request: MeasureRequest) -> RelInfoFormat:
    """The registered ``-R`` format ``name``, checked against ``results_format`` and the request.

    A measure whose data the format does not give stops trec_eval at the first query ("Can't calculate
    measure", status 4, nothing printed): a :class:`SemanticError` here, before anything is read.
    """
    if name not in REL_INFO_FORMATS:
        raise UsageError(f"rel_info_format {name!r} is not supported: use one of {', '.join(REL_INFO_FORMATS)}",
                         arguments=["rel_info_format"])
    if results_format not in RESULTS_FORMATS:
        raise UsageError(f"results_format {results_format!r} is not supported: use one of "
                         f"{', '.join(RESULTS_FORMATS)}", arguments=["results_format"])
    fmt = REL_INFO_FORMATS[name]
    missing = unserved(fmt, request)
    if missing:
        raise SemanticError(
            f"measure {missing[0]!r} cannot be calculated from {name} relevance info (it needs "
            f"{' or '.join(kinds_for(missing[0]))}): trec_eval cannot calculate it either (it exits here too)"
        )
    if fmt.compute is not None and request.extras:
        raise UsageError(f"recommender measures ({', '.join(request.extras)}) need qrels, not {name}")
    return fmt


def _evaluate_rel_info(fmt: RelInfoFormat, rel_path, run_path, request: MeasureRequest, *, engine: str,
                       depth: int | None, average_all: bool, relevance_level: int, judged_only: bool,
                       zscores: pl.DataFrame | None = None) -> Evaluation:
    """A run scored against a preference or judgment-group file (``fmt.compute``), ended in :func:`finalize`.

    Queries as trec_eval takes them: those of the run with relevance info; 10.0 stops at a relevance query
    missing from the run, or with ``-c`` scores it on its one-document stand-in ranking (no judged doc).
    """
    if engine not in ("auto", "vectorized"):
        raise UsageError(f"engine {engine!r} cannot read rel_info_format {fmt.name!r} (pytrec_eval reads qrels "
                         "only): use engine auto")
    if not all(isinstance(x, str | os.PathLike | pl.DataFrame) for x in (rel_path, run_path)):
        raise UsageError(f"rel_info_format {fmt.name!r} reads files: give the relevance info and the run as paths")
    _check_depth(depth)
    rel = rel_path if isinstance(rel_path, pl.DataFrame) else fmt.read(rel_path)  # a frame: read from stdin
    run = run_path if isinstance(run_path, pl.DataFrame) else read_run(run_path)
    rel_queries = set(rel.get_column(QUERY).to_list())
    run_queries = set(run.get_column(QUERY).to_list())
    version = request.version
    if version.uncovered_query_fatal and not average_all:
        stop_uncovered(bytewise_sorted(rel_queries - run_queries), version)
    missing = sorted(rel_queries - run_queries) if average_all and version.number == 10 else []
    queries = bytewise_sorted((rel_queries & run_queries) | set(missing))
    if not queries:
        raise SemanticError("no queries with both results and relevance info (trec_eval exits here too)")
    per_query = fmt.compute(rel, run, queries, request, depth=depth, relevance_level=relevance_level,
                            judged_only=judged_only)
    return finalize(request, Computed(per_query, missing), run_tag(run), average_all=average_all,
                    totals=QrelsTotals(len(rel_queries), 0), trec_eval_version=version.number, zscores=zscores)


def _stdin_run(qrels, run, fmt: RelInfoFormat | None = None):
    """``"-"`` for the qrels or the run (not both): standard input, read as that file (errors name
    ``<stdin>:LINE``), in both trec_eval modes. trec_eval 10.0 reads a run from ``-``
    (``get_trec_results.c``); 9.0.8 reads neither: a trecrs extension, as the qrels from ``-``."""
    if is_stdin(qrels) and is_stdin(run):
        raise UsageError("only one of the qrels and the run can be '-' (standard input)")
    if is_stdin(qrels):
        qrels = read_through_file(read_qrels if fmt is None else fmt.read, qrels)
    if is_stdin(run):
        run = read_through_file(read_run, run)
    return qrels, run


def _check_depth(depth: int | None) -> None:
    if depth is not None and depth <= 0:
        raise UsageError(f"depth must be a positive number of documents, got {depth}")


class _NoTrecMeasures:
    """Stand-in engine when a request holds only extras: one row per query, no trec_eval columns."""

    @staticmethod
    def compute(qrels, run, request, **kwargs) -> pl.DataFrame:
        return pl.DataFrame({QUERY: run.get_column(QUERY).unique()}, schema={QUERY: pl.Utf8})


def _choose_engine(name: str, request: MeasureRequest):
    """``auto``: the first registered engine other than the reference that covers the request, else
    pytrec_eval; a named engine must exist and cover the request. pytrec_eval embeds trec_eval 9.x's C
    code, so it serves only 9.x requests."""
    version = request.version
    if name == "pytrec_eval" and version.number != 9:
        raise UsageError(
            f"engine 'pytrec_eval' embeds trec_eval 9.x and cannot reproduce trec_eval {version.label}: "
            "use --engine vectorized (or auto)"
        )
    if name == "auto":
        for candidate in ENGINES.values():
            if candidate.name != "pytrec_eval" and candidate.supports(request):
                return candidate
        if version.number != 9:
            raise UsageError(
                f"engine 'vectorized' cannot compute {', '.join(request.engine_specs())} as trec_eval "
                f"{version.label}, and pytrec_eval embeds trec_eval 9.x (docs/trec_eval_compatibility.md)"
            )
        return ENGINES["pytrec_eval"]
    if name not in ENGINES:
        raise UsageError(f"unknown engine {name!r}; choose from {sorted(ENGINES)}")
    eng = ENGINES[name]
    if not eng.supports(request):
        raise UsageError(f"engine {name!r} cannot compute {', '.join(request.engine_specs())}")
    return eng


def _is_pandas(*data) -> bool:
    """Whether any of ``data`` is a pandas frame (the results then come back as pandas)."""
    return any(type(d).__module__.split(".")[0] == "pandas" for d in data)


def evaluate(
    qrels,
    run,
    measures=None,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    average_all: bool = False,
    depth: int | None = None,
    engine: str = "auto",
    train=None,
    test=None,
    predictions=None,
    opr_average: str | None = None,
    head_share: float = 0.33,
    trec_eval_version: int = 9,
    engine_options: dict | None = None,
    zscores=None,
    num_docs_in_coll: int = 0,
    rel_info_format: str = "qrels",
    results_format: str = "trec_results",
) -> EvaluationResult:
    """Score a run against qrels exactly as trec_eval 9.x does; an :class:`EvaluationResult`.

    ``qrels`` / ``run``: paths of TREC files; polars or pandas DataFrames whose columns are recognised by
    name (``query``/``qid``/``user``/``userId``, ``doc``/``docno``/``item``/``movieId``, ``rel``/``relevance``/
    ``label`` / ``score``/``prediction``; :mod:`trecrs.files.columns`); dicts ``{query: {doc: rel}}`` /
    ``{query: {doc: score}}`` as pytrec_eval takes them (or objects whose ``to_dict()`` returns one, as
    ranx's ``Qrels``/``Run``); trecrs's own results (:func:`~trecrs.protocol.runs.build_run`,
    :func:`~trecrs.protocol.qrels.make_qrels`). Ids become strings. ``measures``: trec_eval names (``"P.5,10"``, ``"ndcg_cut.50"``, ``"map"``,
    nicknames ``"official"``/``"all_trec"``) or aliases (``"P@10"``, ``"nDCG@50"``, ``"AP"``, ``"MRR@10"``).
    ``relevance_level`` is trec_eval's ``-l``, ``judged_only`` its ``-J``, ``average_all`` its ``-c`` and
    ``depth`` its ``-M``; ``trec_eval_version=10`` gives ``-c`` as trec_eval 10.0 does. The result's
    ``per_query`` frame and ``tidy()`` rows are pandas when ``qrels`` or ``run`` is a pandas frame, else
    polars; value names are trec_eval's output names (``P_10``, ``ndcg_cut_50``), and an alias prints under
    the name as given (``"nDCG@10"``; docs/measures.md, Aliases). Coverage problems
    (queries without a ranking or without qrels, nothing relevant, rankings shorter than a cutoff) are
    :class:`~trecrs.errors.TrecrsWarning` warnings.

    >>> result = evaluate({"u1": {"i1": 1}, "u2": {"i3": 1}},
    ...                   {"u1": {"i1": 0.9, "i2": 0.5}, "u2": {"i3": 0.1, "i4": 0.7}}, ["P.1", "recip_rank"])
    >>> result.summary
    {'recip_rank': 0.75, 'P_1': 0.5}
    >>> result.to_dict()["u2"]
    {'recip_rank': 0.5, 'P_1': 0.0}

    ``measures`` may also name recommender-specific measures (``"auc"``, ``"lauc.10"``, ``"ndpm"``,
    ``"novelty.10"``, ``"mae"``...; see ``docs/measures.md``), whose rows follow the trec_eval ones;
    ``train``, ``test`` (ratings frames or files) and ``predictions`` (``user, item, score``) feed those that
    need them; ``opr_average="user"`` averages One-Plus-Random cases (queries ``user:item``) per user first.

    Reproduces trec_eval 9.x (Buckley; the C code inside pytrec_eval, Van Gysel & de Rijke, SIGIR 2018),
    or trec_eval 10.0 with ``trec_eval_version=10`` (docs/trec_eval_compatibility.md). ``rel_info_format``
    and ``results_format`` are trec_eval's ``-R`` and ``-T`` (see :func:`evaluate_full`).
    """
    ev = evaluate_full(
        qrels,
        run,
        measures,
        relevance_level=relevance_level,
        judged_only=judged_only,
        average_all=average_all,
        depth=depth,
        engine=engine,
        train=train,
        test=test,
        predictions=predictions,
        opr_average=opr_average,
        head_share=head_share,
        trec_eval_version=trec_eval_version,
        engine_options=engine_options,
        zscores=zscores,
        num_docs_in_coll=num_docs_in_coll,
        rel_info_format=rel_info_format,
        results_format=results_format,
    )
    return EvaluationResult(ev, pandas=_is_pandas(qrels, run))


def evaluate_matrix(
    qrels,
    scores,
    user_ids,
    item_ids,
    *,
    exclude=None,
    measures=None,
    relevance_level: int = 1,
    judged_only: bool = False,
    average_all: bool = False,
    depth: int | None = None,
    tag: str = "trecrs",
    trec_eval_version: int = 9,
) -> EvaluationResult:
    """Score a users x items score matrix as the AllItems run it stands for, without writing that run.

    ``scores[u, i]`` is the score of item ``item_ids[i]`` for user ``user_ids[u]`` (numpy, float32 or
    float64); ``exclude`` (same shape, bool) marks the pairs that are not candidates — for AllItems
    (Bellogín, Castells & Cantador 2011) the user's training items (L_u = I \\ Tr_u). The result is
    exactly what writing the run ``user Q0 item rank score tag`` (one line per candidate pair) and scoring
    it with ``trecrs eval`` / :func:`trecrs.evaluate` gives: same ranking rule (score as a C float, ties
    by item id descending bytewise), same trec_eval measures and flags (``relevance_level`` = ``-l``,
    ``judged_only`` = ``-J``, ``average_all`` = ``-c``, ``depth`` = ``-M``). The same
    :class:`EvaluationResult` as :func:`trecrs.evaluate` returns (pandas frames when ``qrels`` is one).

    A 6,040 x 3,706 matrix needs a few hundred MB and no string is created per pair
    (:mod:`trecrs.engines.vectorized.matrix`). Only measures of the vectorized engine are available here
    (everything in ``all_trec``).

    >>> scores = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.4]])
    >>> exclude = np.array([[False, False, True], [False, False, False]])  # u1 trained on i3
    >>> evaluate_matrix({"u1": {"i2": 1}, "u2": {"i2": 1}}, scores, ["u1", "u2"], ["i1", "i2", "i3"],
    ...                 exclude=exclude, measures=["recip_rank"]).to_dict()
    {'u1': {'recip_rank': 0.5}, 'u2': {'recip_rank': 1.0}}
    """
    version = trec_eval_version_entry(trec_eval_version)
    if np.dtype(version.score_dtype) != np.float32:  # the matrix path encodes scores as C floats
        raise UsageError(
            f"evaluate_matrix ranks scores as C floats (trec_eval 9.0.8); trec_eval {version.label} ranks them "
            "as doubles: write the run and use evaluate(..., trec_eval_version=10)", arguments=["trec_eval_version"]
        )
    request = _request(measures, version)
    if request.extras or not vectorized.supports(request):
        raise UsageError(f"evaluate_matrix computes the vectorized engine's measures only; got {measures!r}")
    if relevance_level < 1:
        raise UsageError(f"relevance_level must be at least 1, got {relevance_level}")
    _check_depth(depth)
    pandas = _is_pandas(qrels)
    qrels = as_polars(unwrap(qrels), QRELS_SCHEMA, "qrels")
    enc = vectorized.encode_matrix(qrels, scores, user_ids, item_ids, exclude=exclude)
    stand_ins = average_all and trec_eval_version == 10
    totals = _check_stats(vectorized.encoded_stats(enc, depth=depth), request, average_all=average_all,
                          stand_ins=stand_ins, relevance_level=relevance_level, warn=False)
    computed = vectorized.compute_encoded(
        enc, request, relevance_level=relevance_level, judged_only=judged_only, depth=depth, complete=stand_ins
    )
    ev = finalize(request, computed, tag, average_all=average_all, totals=totals, trec_eval_version=trec_eval_version)
    return EvaluationResult(ev, pandas=pandas)


def evaluate_factors(
    qrels,
    train,
    user_factors,
    item_factors,
    user_ids,
    item_ids,
    *,
    measures=None,
    relevance_level: int = 1,
    judged_only: bool = False,
    average_all: bool = False,
    depth: int | None = None,
    block_users: int = 512,
    threads: int = 2,
    tag: str = "trecrs",
) -> EvaluationResult:
    """Score a factor model as the AllItems run it stands for, exactly, in blocks of users.

    ``user_factors`` (users x k) and ``item_factors`` (items x k) hold the factors of ``user_ids`` /
    ``item_ids``; the score of an item for a user is ``float32(sum_k p_uk q_ik)`` with the sum taken in
    float64 (:func:`trecrs.engines.vectorized.factors.factor_scores`). Each user's candidates are the
    items of the item factors minus the user's training items in ``train`` (ratings frame or file; AllItems,
    Bellogín, Castells & Cantador 2011). The result is what writing that run (``%.9g`` scores) and scoring
    it with :func:`trecrs.evaluate` gives: trec_eval's ranking (C float descending, ties by item id
    descending bytewise), full ranks of every judged item, the same flags (``relevance_level`` = ``-l``,
    ``judged_only`` = ``-J``, ``average_all`` = ``-c``, ``depth`` = ``-M``) and coverage warnings. A qrels
    user without factors (or whose training covers the catalogue) is a query missing from the run: left
    out, or counted as 0 under ``average_all``; a factor user without qrels is ignored, as trec_eval
    ignores such a ranking. Only the vectorized engine's measures; trec_eval 9.0.8.
    Memory: about ``block_users x items x 14`` bytes per thread besides the inputs.

    >>> evaluate_factors({"u1": {"i2": 1}}, {"user": ["u1"], "item": ["i3"]}, [[1.0], [-1.0]],
    ...                  [[3.0], [2.0], [9.0]], ["u1", "u2"], ["i1", "i2", "i3"], measures=["recip_rank"]).to_dict()
    {'u1': {'recip_rank': 0.5}}
    """
    from .engines.vectorized import factors

    request = _request(measures)
    if request.extras or not vectorized.supports(request):
        raise UsageError(f"evaluate_factors computes the vectorized engine's measures only; got {measures!r}")
    if relevance_level < 1:
        raise UsageError(f"relevance_level must be at least 1, got {relevance_level}")
    if block_users < 1:
        raise UsageError(f"block_users must be at least 1, got {block_users}")
    _check_depth(depth)
    pandas = _is_pandas(qrels)
    qrels = as_polars(unwrap(qrels), QRELS_SCHEMA, "qrels")
    train = _train_pairs(train)
    users, items, p, q = _factor_inputs(user_factors, item_factors, user_ids, item_ids)
    pairs = factors.encode_pairs(qrels, train, users, items)
    totals = _check_stats(factors.factor_stats(pairs, depth), request, average_all=average_all, stand_ins=False,
                          relevance_level=relevance_level)  # fmt: skip
    computed = factors.compute_factors(
        pairs, p, q, users, items, request, relevance_level=relevance_level, judged_only=judged_only, depth=depth,
        block_users=block_users, threads=threads,
    )  # fmt: skip
    ev = finalize(request, computed, tag, average_all=average_all, totals=totals)
    return EvaluationResult(ev, pandas=pandas)


def _train_pairs(train) -> pl.DataFrame:
    """The (user, item) training pairs: a ratings file or frame (:func:`~trecrs.files.ratings.as_ratings`),
    or a frame / dict of columns with just ``user`` and ``item``."""
    from .files.ratings import as_ratings

    if isinstance(train, dict) or _is_pandas(train):
        train = pl.DataFrame(train)
    if isinstance(train, pl.DataFrame) and {"user", "item"} <= set(train.columns):
        return train.select(pl.col("user").cast(pl.Utf8), pl.col("item").cast(pl.Utf8))
    return as_ratings(train).select("user", "item")


def _factor_inputs(user_factors, item_factors, user_ids, item_ids):
    """Ids as string Series (each once) and factors as float32 matrices of one rank, checked."""
    from .errors import InputError

    users = pl.Series(QUERY, [str(u) for u in user_ids], dtype=pl.Utf8)
    items = pl.Series(DOC, [str(i) for i in item_ids], dtype=pl.Utf8)
    p = np.asarray(user_factors, dtype=np.float32)
    q = np.asarray(item_factors, dtype=np.float32)
    for what, ids, f in (("user", users, p), ("item", items, q)):
        if f.ndim != 2 or f.shape[0] != ids.len():
            raise UsageError(f"{what} factors must be a {ids.len()} x k matrix, got shape {f.shape}")
        if ids.n_unique() != ids.len():
            raise InputError(None, None, f"{what} id {ids.filter(ids.is_duplicated())[0]!r} occurs twice")
    if p.shape[1] != q.shape[1]:
        raise UsageError(f"user factors have rank {p.shape[1]}, item factors {q.shape[1]}")
    return users, items, p, q
