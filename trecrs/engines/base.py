"""The engine registry: the ways of computing trec_eval measures, looked up by name.

An engine takes qrels and a run already restricted to the queries to evaluate (and cut at ``depth``),
and returns one row per query with one column per output value (``P_5``, ``map``, ...), in trec_eval's
table order. Choosing the engine, ``-c`` completion, averaging and printing are the engine-independent
job of :mod:`trecrs.evaluate`; engines never see them.

``pytrec_eval`` (:mod:`.pytrec_eval`) is the reference: trec_eval's own C code. ``vectorized``
(:mod:`.vectorized`) is the default. The CLI's ``--engine`` choices come from :data:`ENGINES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from ..errors import UsageError
from ..measures.request import MeasureRequest


@dataclass(frozen=True)
class Engine:
    """A registered way of computing trec_eval measures.

    ``compute(qrels, run, request, *, relevance_level, judged_only) -> DataFrame`` (query + one column
    per output value, queries in bytewise order); ``supports(request)`` says whether every requested
    measure, with its parameters, is computed exactly.
    """

    name: str
    compute: Callable[..., pl.DataFrame]
    supports: Callable[[MeasureRequest], bool]
    description: str = ""


@dataclass
class Computed:
    """An engine's answer for one run: per-query values and what trec_eval prints besides numbers."""

    per_query: pl.DataFrame  # query + one column per output value, any query order
    stand_in: list[str] = field(default_factory=list)  # -c: queries evaluated on the stand-in ranking
    relstrings: dict[str, str] = field(default_factory=dict)  # filled when relstring is requested


ENGINES: dict[str, Engine] = {}


def register_engine(engine: Engine) -> Engine:
    """Add ``engine`` to the registry (its name must be new)."""
    if engine.name in ENGINES:
        raise UsageError(f"engine {engine.name!r} already registered")
    ENGINES[engine.name] = engine
    return engine
