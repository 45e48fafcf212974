"""Measures of the user's own: a Python function over the ranked run, registered under a name.

``register_measure(name, fn, description=...)`` makes ``name`` a recommender measure like the others of
:mod:`.registry` (family ``custom``): ``-m name`` computes it with ``-M``, ``-J``, ``-l``, ``-c``, the
One-Plus-Random averaging, user groups, ``compare`` and ``sensitivity``, and prints it after the built-in
measures. ``fn(ranked)`` (``fn(ranked, k)`` with ``params="cutoff"``; ``fn(ranked, *values)`` with named
numeric parameters) receives one polars frame, a row per retrieved document of every evaluated query in
trec_eval's order (:func:`trecrs.ordering.trec_order`, after ``-M`` and ``-J``):

==========  ============================================================================
``query``   the query (str)
``rank``    1-based rank within the query (int)
``doc``     the document (str)
``rel``     its qrels grade, null when the qrels do not judge it
``num_rel`` the query's relevant documents in the qrels (grade >= ``-l``), retrieved or not
``relevant`` whether the document is relevant at ``-l`` (grade >= ``-l``; false when unjudged)
==========  ============================================================================

and returns a frame ``query, value``: one finite number per query; a query it leaves out scores 0 (a query
without retrieved documents has no rows, and under ``-c`` counts). A custom measure has no tie-aware form:
``--ties expected|best|worst`` refuses it. A function that raises, returns other columns, a value that is
not a finite number, a query twice or a query that was not evaluated is a :class:`~trecrs.errors.MeasureError`
naming the measure.

Where measures come from: ``load_measures_file(path)`` imports a Python file once (``--measures-from``), and
the entry points of group ``trecrs.measures`` are loaded once, when a measure name is not found or the
measures are listed (:func:`load_entry_points`), so that start-up does not pay for them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping

import polars as pl

from ...errors import FileAccessError, MeasureError, UsageError
from ...schema import DOC, QUERY, RANK, REL
from ..trec_eval import HIGHER, LOWER
from .registry import CUTOFFS, NO_PARAMS, UNKNOWN_NAME_HOOKS, VALUE, VALUES, Context, ExtraMeasure, register

FAMILY = "custom"
ENTRY_POINT_GROUP = "trecrs.measures"
NUM_REL = "num_rel"
RELEVANT = "relevant"
COLUMNS = (QUERY, RANK, DOC, REL, NUM_REL, RELEVANT)  # the frame a custom measure receives

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_SOURCE: list[str] = []  # what is being loaded now (a file, an entry point): each measure records it
_LOADED_FILES: dict[str, str] = {}  # resolved path -> module name
_ENTRY_POINTS = {"loaded": False}


def register_measure(
    name: str,
    fn: Callable,
    *,
    description: str,
    higher_is_better: bool = True,
    params: str | Mapping[str, float] | None = None,
) -> ExtraMeasure:
    """Register ``fn`` as the measure ``name`` (module docstring); returns its registry entry.

    ``params``: None (``-m name``), ``"cutoff"`` (``-m name.k[,k...]``, one output ``name_k`` per cutoff,
    ``fn(ranked, k)`` with k a positive int), or a mapping of parameter names to defaults (``-m
    name.a,b``, ``fn(ranked, a, b)`` with floats, missing trailing ones taking their defaults). A name
    already registered, one of trec_eval's or of an alias is refused (:class:`~trecrs.errors.UsageError`).
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise UsageError(f"measure name {name!r}: letters, digits and _ only, starting with a letter")
    if not callable(fn):
        raise UsageError(f"measure {name}: fn must be callable, got {type(fn).__name__}")
    style, names, defaults, validate = _param_style(name, params)
    source = _SOURCE[-1] if _SOURCE else f"Python module {getattr(fn, '__module__', None) or '?'}"
    measure = ExtraMeasure(
        name,
        FAMILY,
        " ".join(str(description).split()),
        source,
        _per_query(name, fn),
        params=style,
        param_names=names,
        defaults=defaults,
        validate=validate,
        better=HIGHER if higher_is_better else LOWER,
    )
    return register(measure)


def _param_style(
    name: str, params: str | Mapping[str, float] | None
) -> tuple[str, tuple[str, ...], tuple[float, ...], Callable | None]:
    """The registry's parameter style, names, defaults and check for ``params`` (see :func:`register_measure`)."""
    if params is None:
        return NO_PARAMS, (), (), None
    if params == "cutoff":

        def needs_cutoff(param: int | None) -> None:
            if param is None:
                raise UsageError(f"measure {name} needs a cutoff: {name}.k (k a positive integer)")

        return CUTOFFS, ("k",), (), needs_cutoff
    if isinstance(params, Mapping) and params and all(isinstance(p, str) and _NAME.match(p) for p in params):
        defaults = tuple(float(v) for v in params.values())
        if not all(math.isfinite(v) for v in defaults):
            raise UsageError(f"measure {name}: parameter defaults must be finite numbers")
        return VALUES, tuple(params), defaults, None
    raise UsageError(
        f"measure {name}: params must be None, 'cutoff' or a mapping of parameter names to "
        f"defaults, got {params!r}"
    )


def ranked_frame(ctx: Context) -> pl.DataFrame:
    """``query, rank, doc, rel, num_rel, relevant``: the frame a custom measure receives (module docstring);
    ``relevant`` lets a measure follow ``-l`` as the built-in ones do."""

    def make() -> pl.DataFrame:
        counts = ctx.stats.select(QUERY, pl.col(NUM_REL))
        joined = ctx.ranked.join(counts, on=QUERY, how="left", maintain_order="left")
        return joined.select(
            QUERY,
            pl.col(RANK).cast(pl.Int64),
            DOC,
            pl.col(REL).cast(pl.Int64),
            pl.col(NUM_REL).fill_null(0).cast(pl.Int64),
            (pl.col(REL) >= ctx.level).fill_null(False).alias(RELEVANT),
        )

    return ctx.cached("custom-ranked", make)


def _per_query(name: str, fn: Callable) -> Callable:
    """The registry's ``per_query(ctx, param)`` of a custom measure: ``fn`` called and its answer checked."""

    def per_query(ctx: Context, param: int | tuple[float, ...] | None) -> pl.DataFrame:
        label = (
            name
            if param is None
            else f"{name}_{param if isinstance(param, int) else ','.join(map(_num, param))}"
        )
        args = () if param is None else (param,) if isinstance(param, int) else tuple(param)
        frame = ranked_frame(ctx)
        try:
            got = fn(frame.clone(), *args)
        except Exception as exc:  # noqa: BLE001 - the user's code: any failure is one line naming it
            raise MeasureError(f"measure {label} raised {type(exc).__name__}: {exc}") from exc
        values = checked(label, got, ctx.queries)
        queries = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
        out = queries.join(values, on=QUERY, how="left", maintain_order="left")
        return out.with_columns(pl.col(VALUE).fill_null(0.0))

    return per_query


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def checked(label: str, got: object, queries: list[str]) -> pl.DataFrame:
    """``got`` as ``query`` (str), ``value`` (float): a :class:`MeasureError` naming measure ``label`` unless
    it is a polars frame of exactly those columns, one finite number per evaluated query at most."""
    if not isinstance(got, pl.DataFrame):
        raise MeasureError(
            f"measure {label} returned {type(got).__name__}, not a polars DataFrame (query, value)"
        )
    if sorted(got.columns) != sorted((QUERY, VALUE)):
        raise MeasureError(
            f"measure {label} returned the columns {', '.join(got.columns) or '(none)'}; "
            "expected query, value"
        )
    try:
        out = got.select(pl.col(QUERY).cast(pl.Utf8), pl.col(VALUE).cast(pl.Float64))
    except (pl.exceptions.PolarsError, TypeError, ValueError):
        raise MeasureError(
            f"measure {label} returned a value column of type {got.schema[VALUE]}, not numbers"
        ) from None
    bad = out.filter(pl.col(VALUE).is_null() | ~pl.col(VALUE).is_finite() | pl.col(QUERY).is_null())
    if bad.height:
        row = bad.row(0, named=True)
        raise MeasureError(
            f"measure {label} returned {row[VALUE]} for query {row[QUERY]!r}, not a finite number"
        )
    twice = out.filter(pl.col(QUERY).is_duplicated())
    if twice.height:
        raise MeasureError(f"measure {label} returned query {twice.item(0, QUERY)!r} twice")
    unknown = out.filter(~pl.col(QUERY).is_in(queries))
    if unknown.height:
        raise MeasureError(
            f"measure {label} returned query {unknown.item(0, QUERY)!r}, which was not evaluated"
        )
    return out


@contextlib.contextmanager
def _loading(source: str) -> Iterator[None]:
    """Measures registered within are recorded as coming from ``source``."""
    _SOURCE.append(source)
    try:
        yield
    finally:
        _SOURCE.pop()


def load_measures_file(path: str | os.PathLike) -> None:
    """Import the Python file ``path`` once (by its resolved path), recording the measures it registers
    as coming from it; an error in the file is one :class:`MeasureError` naming it."""
    where = os.fspath(path)
    resolved = os.path.realpath(where)
    if resolved in _LOADED_FILES:
        return
    if not os.path.isfile(resolved):
        raise FileAccessError(
            where, None, "no such file" if not os.path.exists(resolved) else "is a directory, expected a file"
        )
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(resolved))[0])
    module_name = f"trecrs_measures_{len(_LOADED_FILES)}_{stem}"
    spec = importlib.util.spec_from_file_location(module_name, resolved)
    if spec is None or spec.loader is None:
        raise UsageError(f"{where}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    _LOADED_FILES[resolved] = module_name
    try:
        with _loading(where):
            spec.loader.exec_module(module)
    except UsageError as exc:  # a measure refused (a duplicate name, bad params): say which file
        raise MeasureError(f"measures file {where}: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - the user's file: any failure is one line naming it
        raise MeasureError(f"measures file {where}: {type(exc).__name__}: {exc}") from exc


def load_entry_points() -> bool:
    """Load each entry point of group ``trecrs.measures`` once: a module (importing it registers its
    measures) or a callable, then called without arguments. Returns whether this call loaded them."""
    if _ENTRY_POINTS["loaded"]:
        return False
    _ENTRY_POINTS["loaded"] = True
    from importlib.metadata import entry_points  # only when a name is not found: start-up stays fast

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        source = f"entry point {ep.name} ({ep.value})"
        try:
            with _loading(source):
                obj = ep.load()
                if callable(obj):
                    obj()
        except UsageError as exc:
            raise MeasureError(f"{source}: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - a third-party package: one line naming it
            raise MeasureError(f"{source}: {type(exc).__name__}: {exc}") from exc
    return True


UNKNOWN_NAME_HOOKS.append(load_entry_points)
