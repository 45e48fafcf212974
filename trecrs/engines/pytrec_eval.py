"""The reference engine: trec_eval 9.x's own C code, through the extension of pytrec-eval-terrier
(Van Gysel & de Rijke, SIGIR 2018)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

from ..errors import UsageError
from ..files.trec import check_relevance
from ..measures.request import MeasureRequest
from ..measures.trec_eval import BY_NAME
from ..ordering import bytewise_sorted
from ..ranges import REL_MAX_PYTREC_EVAL
from ..schema import DOC, QUERY, REL, SCORE
from .base import Engine, register_engine


def nested_dict(df: pl.DataFrame, value: str, cast: Callable = float) -> dict[str, dict[str, Any]]:
    """``{query: {doc: value}}`` from a long frame, built group by group (no per-row Python work)."""
    if df.height == 0:
        return {}
    df = df.sort(QUERY, maintain_order=True)
    queries = df.get_column(QUERY)
    # boundaries of each query's block
    change = np.flatnonzero(queries.ne_missing(queries.shift(1)).fill_null(True).to_numpy())
    ends = np.append(change[1:], df.height)
    docs = df.get_column(DOC).to_list()
    vals = (
        df.get_column(value).to_list() if cast is None else [cast(v) for v in df.get_column(value).to_list()]
    )
    qids = queries.gather(change).to_list()
    return {
        q: dict(zip(docs[a:b], vals[a:b], strict=True)) for q, a, b in zip(qids, change, ends, strict=True)
    }


def compute(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
) -> pl.DataFrame:
    """Compute with pytrec_eval (trec_eval 9.x C code), calling its extension directly.

    The extension is called without pytrec_eval's Python wrapper because the wrapper re-sorts parameter
    lists as strings (``utility.1,-1,0,0`` would be scrambled); here each measure gets exactly the
    ``name.params`` string trec_eval's ``-m`` would.
    """
    from pytrec_eval_ext import RelevanceEvaluator  # the C extension of pytrec-eval-terrier

    if int(relevance_level) < 1:
        # trec_eval accepts -l 0 and below (every judged document relevant, then unjudged ones too); the
        # pytrec_eval extension refuses them
        raise UsageError(
            f"relevance_level must be at least 1 for the pytrec_eval engine (pytrec_eval refuses it), "
            f"got {relevance_level}: use engine=vectorized",
            arguments=["relevance_level"],
        )

    # trec_eval's C code allocates a counter per grade and builds nDCG gains in quadratic time: larger
    # grades would crash it, give zeros or run for minutes (ranges.REL_MAX_PYTREC_EVAL)
    check_relevance(qrels, None, max_rel=REL_MAX_PYTREC_EVAL)
    specs = [s for s in request.engine_specs() if s.split(".")[0] != "relstring"]
    if not specs or run.height == 0:
        return pl.DataFrame({QUERY: run.get_column(QUERY).unique().sort()})
    qrels_d = _judged_something(nested_dict(qrels, REL, int))
    run_d = nested_dict(run, SCORE, float)
    # the extension takes a C int; the grades here are at most REL_MAX_PYTREC_EVAL, so every larger level
    # means the same thing (nothing is relevant) and -l 2147483648 .. 2^63-1 ask for exactly that
    level = min(int(relevance_level), REL_MAX_PYTREC_EVAL + 1)
    evaluator = RelevanceEvaluator(
        qrels_d, set(specs), relevance_level=level, judged_docs_only_flag=int(bool(judged_only))
    )
    results = evaluator.evaluate(run_d)
    queries = bytewise_sorted(results)
    if not queries:
        return pl.DataFrame({QUERY: []}, schema={QUERY: pl.Utf8})
    names = [n for n in results[queries[0]] if n not in ("runid", "relstring")]
    data: dict[str, list[str] | np.ndarray] = {QUERY: queries}
    for n in names:
        data[n] = np.fromiter((results[q][n] for q in queries), dtype=np.float64, count=len(queries))
    return pl.DataFrame(data)


# a document no run line can name (run fields are split at white space)
NOTHING_JUDGED_STAND_IN = "trecrs: nothing judged"


def _judged_something(qrels_d: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """Give a query judged with negative values only one unretrieved non-relevant judgement.

    Such a query makes trec_eval's ``te_form_res_rels`` (``form_res_rels.c``) size its per-grade counters
    by a negative number: UNDEF, a crash or a hang, depending on what the process evaluated before.
    :func:`trecrs.evaluate.check_judged` refuses the cases where trec_eval 9.0.8 fails; in the others
    trec_eval evaluates the query as one with nothing relevant, and so does this judgement (rel 0, never
    retrieved: no value depends on it, the counters it fills have no gain).
    """
    for docs in qrels_d.values():
        if max(docs.values()) < 0:
            docs[NOTHING_JUDGED_STAND_IN] = 0
    return qrels_d


def supports(request: MeasureRequest) -> bool:
    """Every trec_eval 9.x measure, with any parameters trec_eval accepts (9.x requests only), except
    utility with ``-N`` (pytrec_eval has no way to set the collection size)."""
    if request.num_docs_in_coll and "utility" in request.params:
        return False
    return request.trec_eval_version == 9 and all(n in BY_NAME for n in request.names)


ENGINE = register_engine(
    Engine(
        name="pytrec_eval",
        compute=compute,
        supports=supports,
        description="trec_eval 9.x's own C code via pytrec-eval-terrier (the reference)",
    )
)
