"""evaluate(): trec_eval semantics around an engine — query selection, -M, -J, -c, averaging, relstring.

The rules reproduced here are trec_eval 9.x's (``trec_eval.c``, ``form_res_rels.c``, ``meas_avg.c``):

* queries evaluated = queries of the run that are also in the qrels (a qrels query whose judgements are
  all non-relevant still counts, and scores 0); with ``average_all`` (``-c``) every qrels query counts,
  a query missing from the run being evaluated on an empty ranking (num_rel still counted, num_ret 0,
  gm_* at the 1e-5 floor);
* ``depth`` (``-M``) keeps the first N documents of each query after trec_eval's ordering;
* summary: ``num_*`` summed, ``num_q`` counted, ``gm_*`` = exp(mean(log(max(v, 1e-5)))), all others the
  arithmetic mean, accumulated in double precision in trec_eval's query order (bytewise qid order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from .engines.base import ENGINES
from .errors import UsageError
from .files.trec import as_polars, run_tag
from .measures.trec_eval import BY_NAME, COUNT, GEO, NONE, SUM, MeasureRequest, base_of, parse_measures
from .ordering import trec_order
from .schema import ALL, DOC, MEASURE, QRELS_SCHEMA, QUERY, RANK, REL, RUN_SCHEMA, SCORE, VALUE

BOGUS_DOC = "ceci_nest_pas_un_docno"  # trec_eval's stand-in ranking for a query missing under -c


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

    def columns(self) -> list[str]:
        return [c for c in self.per_query.columns if c != QUERY]

    def tidy(self, *, per_query: bool = True) -> pl.DataFrame:
        """``(query, measure, value)`` rows: per-query values (trec_eval's -q lines) then the ``all`` rows."""
        frames = []
        if per_query and self.per_query.height:
            cols = [c for c in self.columns() if _printed_per_query(c)]
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
                frames.append(long.sort(["_q", "_m"]).drop(["_q", "_m"]).filter(pl.col(VALUE).is_not_null()))
        summ = pl.DataFrame(
            {QUERY: [ALL] * len(self.summary), MEASURE: list(self.summary), VALUE: list(self.summary.values())},
            schema={QUERY: pl.Utf8, MEASURE: pl.Utf8, VALUE: pl.Float64},
        )
        frames.append(summ)
        return pl.concat(frames, how="vertical")


def _printed_per_query(output_name: str) -> bool:
    base = base_of(output_name)
    return base is None or BY_NAME[base].per_query


def _bytewise_sorted(values) -> list[str]:
    return sorted(values, key=lambda s: s.encode("utf-8"))


def relstrings(
    qrels: pl.DataFrame, run: pl.DataFrame, length: int = 10, *, judged_only: bool = False
) -> dict[str, str]:
    """trec_eval's ``relstring``: one character per retrieved doc among the first ``length``.

    ``0``-``9`` the judged relevance, ``>`` above 9, ``-`` not in the qrels, ``.`` in the qrels but
    unjudged (negative relevance). With ``judged_only`` (``-J``) unjudged documents are removed first.
    """
    ordered = trec_order(run.select(QUERY, DOC, SCORE), rank=False)
    joined = ordered.join(qrels.select(QUERY, DOC, REL), on=[QUERY, DOC], how="left", maintain_order="left")
    if judged_only:
        joined = joined.filter(pl.col(REL) >= 0)
    joined = joined.with_columns((pl.int_range(pl.len()).over(QUERY)).alias("_r")).filter(pl.col("_r") < length)
    char = (
        pl.when(pl.col(REL).is_null())
        .then(pl.lit("-"))
        .when(pl.col(REL) > 9)
        .then(pl.lit(">"))
        .when(pl.col(REL) >= 0)
        .then(pl.col(REL).cast(pl.Utf8))
        .otherwise(pl.lit("."))
    )
    agg = joined.group_by(QUERY, maintain_order=True).agg(char.str.join("").alias("s"))
    return dict(zip(agg.get_column(QUERY).to_list(), agg.get_column("s").to_list(), strict=True))


def _sequential_sum(values: np.ndarray) -> float:
    # trec_eval adds query by query in double precision; numpy's pairwise sum could differ in the last bit
    # and flip a %6.4f rounding, so accumulate strictly left to right.
    if values.size == 0:
        return 0.0
    return float(np.add.accumulate(values)[-1])


def summarize(per_query: pl.DataFrame, num_q: int) -> dict[str, float]:
    """trec_eval's summary values from per-query values (rows in bytewise qid order)."""
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
            out[col] = math.exp(_sequential_sum(v) / num_q) if num_q else 0.0
        elif agg == NONE:
            continue
        else:
            out[col] = _sequential_sum(v) / num_q if num_q else 0.0
    return out


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
) -> Evaluation:
    """Evaluate one run as trec_eval would and return every printable piece (see :class:`Evaluation`).

    Recommender-specific measures (:mod:`trecrs.scoring.extras`) named in ``measures`` are computed on the
    same queries and printed after the trec_eval ones; ``train``/``test``/``predictions`` (frames or paths)
    feed those that need them. ``opr_average="user"`` averages One-Plus-Random cases per user first.
    """
    request = measures if isinstance(measures, MeasureRequest) else parse_measures(measures)
    if opr_average not in (None, "case", "user"):
        raise UsageError(f"opr_average must be 'case' or 'user', got {opr_average!r}")
    if not getattr(request, "extras", ()) and opr_average != "user":
        from .engines.vectorized import (
            evaluate_files,  # files + vectorized engine: lean read, no string frames
        )

        fast = evaluate_files(
            qrels, run, request, engine=engine, relevance_level=relevance_level, judged_only=judged_only,
            average_all=average_all, depth=depth,
        )  # fmt: skip
        if fast is not None:
            return fast
    qrels = as_polars(qrels, QRELS_SCHEMA, "qrels")
    run = as_polars(run, RUN_SCHEMA, "run")
    tag = run_tag(run)
    if depth is not None:
        if depth <= 0:
            raise UsageError("-M/depth must be a positive number of documents")
        run = trec_order(run).filter(pl.col(RANK) <= depth)
    eng = _choose_engine(engine, request)

    qrels_queries = set(qrels.get_column(QUERY).unique().to_list())
    run_queries = set(run.get_column(QUERY).unique().to_list())
    evaluated = run_queries & qrels_queries
    if not evaluated and not average_all:
        raise UsageError("no queries with both results and relevance info (trec_eval exits here too)")
    if not evaluated and average_all and run.height == 0:
        raise UsageError("the run is empty")

    sub_run = run.filter(pl.col(QUERY).is_in(list(evaluated)))
    sub_qrels = qrels.filter(pl.col(QUERY).is_in(list(evaluated)))
    kwargs = dict(relevance_level=relevance_level, judged_only=judged_only)
    if not request.params:  # only extras asked for: no trec_eval measure to compute
        eng = _NoTrecMeasures
    frames = [eng.compute(sub_qrels, sub_run, request, **kwargs)] if evaluated else []

    missing = qrels_queries - run_queries if average_all else set()
    if missing:
        # trec_eval -c: each missing query is evaluated on a one-document ranking of a document that is
        # in no qrels, then num_ret and utility are reset to 0 (trec_eval.c, "bogus_ranking").
        bogus = pl.DataFrame({QUERY: sorted(missing), DOC: BOGUS_DOC, SCORE: 1.0})
        bq = qrels.filter(pl.col(QUERY).is_in(list(missing)))
        fixed = eng.compute(bq, bogus, request, **kwargs)
        resets = [c for c in fixed.columns if c in ("num_ret", "utility") or base_of(c) == "utility"]
        fixed = fixed.with_columns([pl.lit(0.0).alias(c) for c in resets])
        frames.append(fixed)

    per_query = pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame({QUERY: []})
    order = _bytewise_sorted(per_query.get_column(QUERY).to_list())
    per_query = per_query.join(pl.DataFrame({QUERY: order}).with_row_index("_o"), on=QUERY).sort("_o").drop("_o")
    num_q = per_query.height
    summary = summarize(per_query, num_q)
    notes: list[str] = []
    extra_columns: list[str] = []
    if opr_average == "user":
        from .measures.recsys.opr import summarize_trec_by_user

        summary = summarize_trec_by_user(per_query, num_q, qrels)
    if request.extras:
        from .measures.recsys.evaluation import evaluate_extras

        res = evaluate_extras(
            request.extras, qrels=sub_qrels, run=sub_run, queries=order, all_qrels_queries=len(qrels_queries),
            level=relevance_level, judged_only=judged_only, train=train, test=test, predictions=predictions,
            opr_average=opr_average, head_share=head_share,
        )  # fmt: skip
        extra_columns = [c for c in res.per_query.columns if c != QUERY]
        if extra_columns:
            per_query = per_query.with_columns([res.per_query.get_column(c) for c in extra_columns])
        summary.update(res.summary)
        notes = res.notes

    rs: dict[str, str] = {}
    if "relstring" in request.params:
        p = request.params["relstring"]
        length = int(float(p.split(",")[0])) if p else 10
        rs = relstrings(sub_qrels, sub_run, length, judged_only=judged_only)
        for q in missing:
            rs[q] = ""
    ordered_summary = {}
    if "runid" in request.params:
        ordered_summary["runid"] = float("nan")
    ordered_summary.update(summary)
    return Evaluation(request, per_query, ordered_summary, tag, rs, num_q, notes, extra_columns)


class _NoTrecMeasures:
    """Stand-in engine when a request holds only extras: one row per query, no trec_eval columns."""

    @staticmethod
    def compute(qrels, run, request, **kwargs) -> pl.DataFrame:
        return pl.DataFrame({QUERY: run.get_column(QUERY).unique()}, schema={QUERY: pl.Utf8})


def _choose_engine(name: str, request: MeasureRequest):
    if name == "auto":
        for candidate in ENGINES.values():
            if candidate.name != "pytrec_eval" and candidate.supports(request):
                return candidate
        return ENGINES["pytrec_eval"]
    if name not in ENGINES:
        raise UsageError(f"unknown engine {name!r}; choose from {sorted(ENGINES)}")
    eng = ENGINES[name]
    if not eng.supports(request):
        raise UsageError(f"engine {name!r} cannot compute {request.names}")
    return eng


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
    per_query: bool = True,
    train=None,
    test=None,
    predictions=None,
    opr_average: str | None = None,
    head_share: float = 0.33,
) -> pl.DataFrame:
    """Score a run against qrels exactly as trec_eval 9.x does; tidy ``(query, measure, value)`` rows.

    ``qrels`` / ``run``: polars or pandas DataFrames (columns ``query, doc, rel`` / ``query, doc, score``)
    or paths of TREC files. ``measures``: trec_eval names (``"P.5,10"``, ``"ndcg_cut.50"``, ``"map"``,
    nicknames ``"official"``/``"all_trec"``) or ir_measures-style (``"P@10"``, ``"nDCG@50"``, ``"AP"``).
    ``relevance_level`` is trec_eval's ``-l``, ``judged_only`` its ``-J``, ``average_all`` its ``-c`` and
    ``depth`` its ``-M``. Rows: every value trec_eval prints per query (``-q``), query by query in bytewise
    qid order, then the summary rows with query ``"all"`` (``num_q``, ``gm_map``... appear only there).
    Measure names are trec_eval's output names (``P_10``, ``ndcg_cut_50``).

    ``measures`` may also name recommender-specific measures (``"auc"``, ``"lauc.10"``, ``"ndpm"``,
    ``"novelty.10"``, ``"mae"``...; see ``docs/measures.md``), whose rows follow the trec_eval ones;
    ``train``, ``test`` (ratings frames or files) and ``predictions`` (``user, item, score``) feed those that
    need them; ``opr_average="user"`` averages One-Plus-Random cases (queries ``user:item``) per user first.

    Reproduces trec_eval 9.x (Buckley; the C code inside pytrec_eval, Van Gysel & de Rijke, SIGIR 2018).
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
    )
    out = ev.tidy(per_query=per_query)
    return out.filter(pl.col(MEASURE) != "runid")
