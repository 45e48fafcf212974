"""The end of every evaluation, whatever the engine or input path: :func:`finalize` (``-c``, z-scores,
query order, the summary, runid, relstrings), with the rules it applies (``trec_eval.c``,
``form_res_rels.c``, ``meas_avg.c``, ``convert_zscores.c``):

* a query judged with negative values only fails where trec_eval fails (:func:`check_judged`);
* summary: ``num_*`` summed, ``num_q`` counted, ``gm_*`` = exp(mean(log(max(v, 1e-5)))), all others the
  arithmetic mean, accumulated in double precision in trec_eval's query order (bytewise qid order)
  (:func:`summarize`); with ``average_all`` (``-c``) the averages are over every qrels query, as 9.0.8's
  ``calc_avg_meas`` does (10.0: its one-document stand-in ranking per missing query instead).
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from ..engines import Computed
from ..engines.vectorized.measures import MIN_GEO_MEAN
from ..errors import SemanticError
from ..measures.request import MeasureRequest
from ..measures.trec_eval import BY_NAME, COUNT, GEO, NONE, SUM, base_of
from ..ordering import bytewise_sorted
from ..schema import MEASURE, QUERY
from .result import Evaluation

BOGUS_DOC = "ceci_nest_pas_un_docno"  # trec_eval 10.0's stand-in ranking for a query missing under -c


def _sequential_sum(values: np.ndarray) -> float:
    # trec_eval adds query by query in double precision; numpy's pairwise sum could differ in the last bit
    # and flip a %6.4f rounding, so accumulate strictly left to right. Its sum starts at 0.0, so a -0.0
    # value (set_F with a negative beta) is +0.0 in the summary: 0.0 + -0.0 = 0.0.
    if values.size == 0:
        return 0.0
    return 0.0 + float(np.add.accumulate(values)[-1])


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


def summarize(per_query: pl.DataFrame, num_q: int, bases: dict[str, str] | None = None) -> dict[str, float]:
    """trec_eval's summary values from per-query values (rows in bytewise qid order), averaged over
    ``num_q`` queries (``meas_avg.c``).

    ``num_q`` may exceed the rows (``-c`` in trec_eval 9.0.8: every qrels query): the queries without a
    row add 0 to the means and log(1e-5) to the geometric means (``te_calc_avg_meas_s_gm``). ``bases``: the
    trec_eval measure of a column not named after one (``NumRelRet(rel=2)`` -> ``num_rel_ret``: summed).
    """
    missing = num_q - per_query.height
    out: dict[str, float] = {}
    for col in per_query.columns:
        if col == QUERY:
            continue
        base = (bases or {}).get(col) or base_of(col)
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
        per_query = per_query.with_columns(
            [pl.when(mask).then(0.0).otherwise(pl.col(c)).alias(c) for c in resets]
        )
    if zscores is not None:
        per_query = to_zscores(per_query, zscores, request)
    order = bytewise_sorted(per_query.get_column(QUERY).to_list())
    if order != per_query.get_column(QUERY).to_list():
        per_query = (
            per_query.join(pl.DataFrame({QUERY: order}).with_row_index("_o"), on=QUERY).sort("_o").drop("_o")
        )
    complete = totals if average_all else None  # -c, with the qrels' totals
    num_q = complete.queries if complete is not None and trec_eval_version == 9 else per_query.height
    summary: dict[str, float] = {"runid": float("nan")} if "runid" in request.params else {}
    summary.update(summarize(per_query, num_q, {v.spec: v.base for v in request.variants}))
    if complete is not None and "num_rel" in summary:
        summary["num_rel"] = float(complete.relevant)
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
