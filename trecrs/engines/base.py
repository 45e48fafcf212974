"""The engine registry: the ways of computing trec_eval measures, looked up by name.

An engine takes qrels and a run already restricted to the queries to evaluate (and cut at ``depth``),
and returns one row per query with one column per output value (``P_5``, ``map``, ...), in trec_eval's
table order. Choosing the engine, ``-c`` completion, averaging and printing are the engine-independent
job of :mod:`trecrs.evaluate`; engines never see them.

``pytrec_eval`` (:mod:`.pytrec_eval`) is the reference: trec_eval's own C code. ``vectorized``
(:mod:`.vectorized`) is the default. The CLI's ``--engine`` choices come from :data:`ENGINES`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import polars as pl

from ..errors import UsageError
from ..measures.request import MeasureRequest
from ..schema import QUERY


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
    #: ``compute_files(qrels_path, run_path, request, *, relevance_level, judged_only, depth, complete,
    #: **options) -> FileComputed``: the engine reads the files itself (streamed, partitioned, distributed).
    #: ``complete``: trec_eval 10.0's ``-c`` stand-in rankings for qrels queries missing from the run.
    #: ``options`` are engine-specific (``trecrs.evaluate(..., engine_options=)``). None: frames only.
    compute_files: Callable[..., FileComputed] | None = None
    #: ``compute`` also takes ``depth`` (``-M``) and answers ``depth=0``: every query ranked on nothing, as
    #: trec_eval answers ``-M 0``. The frames reach such an engine cut at one document per query.
    empty_rankings: bool = False
    #: the tie modes (:data:`trecrs.measures.ties.TIE_MODES`) ``compute`` and ``compute_files`` take as ``ties``
    #: (the default mode, ``trec_eval``, is not passed): trec_eval's own order only, unless the engine says more.
    tie_modes: tuple[str, ...] = ("trec_eval",)


@dataclass
class TieReport:
    """Where trec_eval's order of tied documents decides a value (:mod:`trecrs.measures.ties`): per cutoff
    asked for, the queries whose documents tied with the one at that rank, of different relevance, also
    stand below it; and the parts that give, when asked (:meth:`extremes`), the best and worst values of
    every requested measure the tie orders may move, for the queries holding a tie group of different
    relevance values."""

    straddled: dict[int, int]  # cutoff -> queries where tied documents of different relevance straddle it
    parts: list = field(default_factory=list)  # each with extremes() -> (best, worst) frames of its queries

    def extremes(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        """``query`` + value columns: the best and the worst values of the queries the tie orders move."""
        pairs = [p.extremes() for p in self.parts]
        empty = pl.DataFrame({QUERY: []}, schema={QUERY: pl.Utf8})
        return tuple(
            pl.concat(f, how="diagonal_relaxed") if f else empty  # type: ignore[return-value]
            for f in ([b for b, _ in pairs if b.height], [w for _, w in pairs if w.height])
        )

    @classmethod
    def concat(cls, parts: list[TieReport]) -> TieReport | None:
        """One report from the reports of disjoint sets of queries."""
        if not parts:
            return None
        straddled = {k: sum(p.straddled.get(k, 0) for p in parts) for k in parts[0].straddled}
        return cls(straddled, [x for p in parts for x in p.parts])


@dataclass
class Computed:
    """An engine's answer for one run: per-query values and what trec_eval prints besides numbers."""

    per_query: pl.DataFrame  # query + one column per output value, any query order
    stand_in: list[str] = field(default_factory=list)  # -c: queries evaluated on the stand-in ranking
    relstrings: dict[str, str] = field(default_factory=dict)  # filled when relstring is requested
    ties: TieReport | None = None  # trec_eval's order: where ties decide values (None: not looked at)

    @classmethod
    def concat(cls, parts: list[Computed]) -> Computed:
        """One answer from the answers of disjoint sets of queries (blocks, partitions), in any order."""
        frames = [p.per_query for p in parts if p.per_query.height]
        per_query = (
            pl.concat(frames, how="diagonal_relaxed")
            if frames
            else pl.DataFrame({QUERY: []}, schema={QUERY: pl.Utf8})
        )
        reports = [p.ties for p in parts if p.ties is not None]
        return cls(
            per_query,
            [q for p in parts for q in p.stand_in],
            {k: v for p in parts for k, v in p.relstrings.items()},
            TieReport.concat(reports),
        )


@dataclass
class QueryStats:
    """Per-query counts of a qrels/run pair, from which :mod:`trecrs.evaluate` checks and warns.

    ``qrels``: one row per qrels query: ``query`` (Utf8), ``top`` (Int64, highest relevance value),
    ``relevant`` (Int64, lines with a value above 0). ``run``: one row per run query: ``query`` (Utf8),
    ``retrieved`` (Int64, lines kept after ``depth``). Row order does not matter.
    """

    qrels: pl.DataFrame
    run: pl.DataFrame


@dataclass
class FileComputed:
    """What :attr:`Engine.compute_files` returns: the per-query values, the run tag, the query counts."""

    computed: Computed
    tag: (
        str | None
    )  # the tag of the run's last line, as trec_eval prints it in runid (None: a dask part without rows)
    stats: QueryStats


class EngineRegistry(Mapping[str, Engine]):
    """The engines by name, in registration order, the built-in ones first (in :data:`BUILTIN_ENGINES`'
    order) whether their module is imported yet or not: looking one up imports its module, which
    registers it. Listing the names (``--engine``'s choices) imports nothing, so that a run scored by the
    vectorized engine never loads the reference's or dask's module."""

    def __init__(self, builtin: Mapping[str, str]):
        self._builtin = dict(builtin)  # name -> module that registers it
        self._engines: dict[str, Engine] = {}

    def __getitem__(self, name: str) -> Engine:
        if name not in self._engines and name in self._builtin:
            importlib.import_module(self._builtin[name])
        return self._engines[name]

    def __contains__(self, name: object) -> bool:
        return name in self._builtin or name in self._engines

    def __iter__(self) -> Iterator[str]:
        yield from self._builtin
        yield from (name for name in self._engines if name not in self._builtin)

    def __len__(self) -> int:
        return len(self._builtin.keys() | self._engines.keys())

    def add(self, engine: Engine) -> Engine:
        """Register ``engine``; its name must be new (a built-in name is taken even before its import)."""
        module = self._builtin.get(engine.name)
        if module is not None and module not in sys.modules:
            importlib.import_module(module)  # the built-in one first, so that this one is refused
        if engine.name in self._engines:
            raise UsageError(f"engine {engine.name!r} already registered")
        self._engines[engine.name] = engine
        return engine


#: The engines trecrs ships, in the order ``--engine`` lists them, and the module each registers in.
BUILTIN_ENGINES = {
    "pytrec_eval": "trecrs.engines.pytrec_eval",
    "vectorized": "trecrs.engines.vectorized",
    "dask": "trecrs.engines.dask",
}
ENGINES = EngineRegistry(BUILTIN_ENGINES)


def register_engine(engine: Engine) -> Engine:
    """Add ``engine`` to the registry (its name must be new)."""
    return ENGINES.add(engine)
