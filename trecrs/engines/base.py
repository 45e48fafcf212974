"""Engines: how trec_eval measures are computed.

An engine takes qrels and a run already restricted to the queries to evaluate (and cut at ``-M``), and
returns one row per query with one column per output value (``P_5``, ``map``, ...), in trec_eval's
table order. Averaging, ``-c`` and printing are the engine-independent job of
:func:`trecrs.scoring.evaluate`.

``pytrec_eval`` is the reference: it is trec_eval's own C code. Engines are looked up by name in
:data:`ENGINES`; the CLI's ``--engine`` choices come from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from ..errors import UsageError
from ..measures.trec_eval import BY_NAME, MeasureRequest
from ..schema import DOC, QUERY, REL, SCORE


@dataclass(frozen=True)
class Engine:
    """A registered way of computing trec_eval measures."""

    name: str
    compute: Callable[..., pl.DataFrame]
    supports: Callable[[MeasureRequest], bool]
    description: str = ""


ENGINES: dict[str, Engine] = {}


def register_engine(engine: Engine) -> Engine:
    """Add ``engine`` to the registry (its name must be new)."""
    if engine.name in ENGINES:
        raise ValueError(f"engine {engine.name!r} already registered")
    ENGINES[engine.name] = engine
    return engine


def nested_dict(df: pl.DataFrame, value: str, cast: Callable = float) -> dict[str, dict[str, object]]:
    """``{query: {doc: value}}`` from a long frame, built group by group (no per-row Python work)."""
    if df.height == 0:
        return {}
    df = df.sort(QUERY, maintain_order=True)
    queries = df.get_column(QUERY)
    # boundaries of each query's block
    change = np.flatnonzero(queries.ne_missing(queries.shift(1)).fill_null(True).to_numpy())
    ends = np.append(change[1:], df.height)
    docs = df.get_column(DOC).to_list()
    vals = df.get_column(value).to_list() if cast is None else [cast(v) for v in df.get_column(value).to_list()]
    qids = queries.gather(change).to_list()
    return {q: dict(zip(docs[a:b], vals[a:b], strict=True)) for q, a, b in zip(qids, change, ends, strict=True)}


def _pytrec_compute(
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
        # trec_eval accepts -l0 (every judged document relevant); its pytrec_eval wrapper refuses it
        raise UsageError(f"relevance level {relevance_level} is not supported: use -l 1 or more")

    specs = [s for s in request.engine_specs() if s.split(".")[0] != "relstring"]
    if not specs or run.height == 0:
        return pl.DataFrame({QUERY: run.get_column(QUERY).unique().sort()})
    qrels_d = nested_dict(qrels, REL, int)
    run_d = nested_dict(run, SCORE, float)
    evaluator = RelevanceEvaluator(
        qrels_d, set(specs), relevance_level=int(relevance_level), judged_docs_only_flag=int(bool(judged_only))
    )
    results = evaluator.evaluate(run_d)
    queries = sorted(results, key=lambda q: q.encode())
    if not queries:
        return pl.DataFrame({QUERY: []}, schema={QUERY: pl.Utf8})
    names = [n for n in results[queries[0]] if n not in ("runid", "relstring")]
    data = {QUERY: queries}
    for n in names:
        data[n] = np.fromiter((results[q][n] for q in queries), dtype=np.float64, count=len(queries))
    return pl.DataFrame(data)


def _pytrec_supports(request: MeasureRequest) -> bool:
    return all(n in BY_NAME for n in request.names)


register_engine(
    Engine(
        name="pytrec_eval",
        compute=_pytrec_compute,
        supports=_pytrec_supports,
        description="trec_eval 9.x's own C code via pytrec-eval-terrier (the reference)",
    )
)
