"""How runs are scored: trec_eval's flags and trecrs's choices, one frozen record built once.

The entry points (:func:`~trecrs.evaluate.api.evaluate`, :func:`~trecrs.evaluate.api.evaluate_full`,
:func:`~trecrs.evaluate.api.evaluate_matrix`, :func:`~trecrs.evaluate.api.evaluate_factors`),
:func:`trecrs.report.compare.compare`, :func:`trecrs.report.sensitivity.sensitivity` and the commands
that score runs take one :class:`EvalSettings` and pass it on unchanged. The entry points still take its
fields as keyword arguments (``evaluate(qrels, run, ["map"], relevance_level=3)``): :func:`takes_settings`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ..data.popularity import HEAD_SHARE
from ..errors import UsageError


@dataclass(frozen=True)
class EvalSettings:
    """The settings of an evaluation: trec_eval's flags (``-l``, ``-J``, ``-c``, ``-M``, ``-Z``, ``-N``,
    ``-R``, ``-T``) and trecrs's choices (engine, trec_eval version, recommender-measure options).

    The defaults are trec_eval 9.0.8's defaults (``trec_eval.c``); the inputs (qrels, run, measures,
    training and test ratings, predictions) are not settings: each call names its own.
    """

    relevance_level: int = 1
    """``-l``: the lowest relevance value that counts as relevant."""
    judged_only: bool = False
    """``-J``: documents absent from the qrels leave the ranking before anything is computed."""
    average_all: bool = False
    """``-c``: averages over every qrels query; a query missing from the run scores 0 (9.0.8) or is
    evaluated on a one-document stand-in ranking (10.0)."""
    depth: int | None = None
    """``-M``: only the first N documents of each query after trec_eval's ordering; None keeps them all."""
    trec_eval_version: int = 9
    """The trec_eval reproduced: 9 (9.0.8) or 10 (10.0) (:mod:`trecrs.trec_eval_versions`)."""
    engine: str = "auto"
    """The engine (:data:`trecrs.engines.ENGINES`), or ``auto``: the first registered one covering the request."""
    engine_options: Mapping | None = None
    """Options of an engine that reads the files itself (``block_lines``, ``partitions``;
    :attr:`trecrs.engines.base.Engine.compute_files`)."""
    zscores: object = None
    """``-Z``: a file or a ``query, measure, mean, stddev`` frame; every value becomes a z-score."""
    num_docs_in_coll: int = 0
    """``-N``: the number of documents in the collection, read by ``utility``."""
    rel_info_format: str = "qrels"
    """``-R``: the format of the relevance file (:data:`trecrs.engines.rel_info.REL_INFO_FORMATS`)."""
    results_format: str = "trec_results"
    """``-T``: the format of the run (:data:`trecrs.engines.rel_info.RESULTS_FORMATS`)."""
    opr_average: str | None = None
    """One-Plus-Random cases (queries ``user:item``): averaged as they are (None, ``"case"``) or per user
    first, then over users (``"user"``)."""
    head_share: float = HEAD_SHARE
    """The short head's share of the training items, for the head/tail measures
    (:mod:`trecrs.data.popularity`)."""
    ties: str = "trec_eval"
    """How tied scores are valued (:data:`trecrs.measures.ties.TIE_MODES`): trec_eval's order (``trec_eval``,
    the default), the mean over every order of the tied documents (``expected``), or the largest or smallest
    value over them (``best``, ``worst``)."""

    def replace(self, **changes: Any) -> EvalSettings:
        """A copy with ``changes`` applied (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)


FIELDS: dict[str, dataclasses.Field] = {f.name: f for f in dataclasses.fields(EvalSettings)}

_R = TypeVar("_R")


def _differs(value: object, default: object) -> bool:
    # identity first: a frame given as -Z cannot be compared with ==
    return value is not None if default is None else value is not default and value != default


def resolve(
    settings: EvalSettings | None, flags: dict[str, Any], names: tuple[str, ...], caller: str
) -> EvalSettings:
    """``settings`` (None: the defaults) with the keyword arguments ``flags`` applied.

    ``names``: the fields ``caller`` reads. A field it does not read, set in ``settings`` to anything but
    its default, is a :class:`~trecrs.errors.UsageError` rather than silently ignored.
    """
    base = EvalSettings() if settings is None else settings
    if not isinstance(base, EvalSettings):
        raise UsageError(
            f"settings must be an EvalSettings, got {type(base).__name__}", arguments=["settings"]
        )
    for name, f in FIELDS.items():
        if name not in names and _differs(getattr(base, name), f.default):
            raise UsageError(
                f"{caller} does not take {name} (the settings give {getattr(base, name)!r})", arguments=[name]
            )
    return base.replace(**flags) if flags else base


def takes_settings(*names: str) -> Callable[[Callable[..., _R]], Callable[..., _R]]:
    """Decorate an entry point that reads the fields ``names`` of :class:`EvalSettings`.

    The decorated function is called with ``settings=`` (an :class:`EvalSettings` or None) and those
    fields as keyword arguments; the function itself receives one record, :func:`resolve`'s. Its
    signature (``help()``, ``inspect.signature``) lists the fields after its own parameters.
    """
    unknown = set(names) - set(FIELDS)
    if unknown:
        raise ValueError(f"not fields of EvalSettings: {sorted(unknown)}")

    def wrap(func: Callable[..., _R]) -> Callable[..., _R]:
        @functools.wraps(func)
        def call(*args: Any, settings: EvalSettings | None = None, **kwargs: Any) -> _R:
            flags = {n: kwargs.pop(n) for n in names if n in kwargs}
            return func(*args, settings=resolve(settings, flags, names, func.__name__), **kwargs)

        own = inspect.signature(func)
        extra = [
            inspect.Parameter(
                n, inspect.Parameter.KEYWORD_ONLY, default=FIELDS[n].default, annotation=FIELDS[n].type
            )
            for n in names
        ]
        signature = own.replace(parameters=[*own.parameters.values(), *extra])
        vars(call).update(__signature__=signature, settings_fields=names)  # what help() and callers read
        return call

    return wrap


#: Every field: what :func:`~trecrs.evaluate.api.evaluate` and ``evaluate_full`` read.
ALL_FIELDS: tuple[str, ...] = tuple(FIELDS)
#: The fields of trec_eval's ranking flags and the tie mode, read by every entry point.
RANKING_FIELDS: tuple[str, ...] = ("relevance_level", "judged_only", "average_all", "depth", "ties")
