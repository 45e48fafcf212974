"""Framework dialects: ``prefix:Name@k`` names a measure as a recommender framework defines it.

``lenskit:NDCG@10`` is LensKit's ``NDCG(n=10)``, ``recbole:map@10`` RecBole's ``map@10``, ``elliot:MAP@10``
Elliot's ``MAP`` at cutoff 10, ``replay:MAP@10`` RePlay's ``MAP(10)``, ``ranx:ndcg@10`` ranx's ``ndcg@10``:
the same name means different things in different frameworks, and the prefix says whose definition is
meant. Names are spelled as the framework spells them (LensKit's and RePlay's class names, RecBole's config
names matched in any case as RecBole lowercases them, Elliot's config names, RecTools' class names with a
defining constructor argument in the name, ``MAP(divide_by_k=True)``; Cornac's metric class names, ranx's
metric strings); the cutoff ``@k`` is required (RecBole's ``gauc``, Elliot's ``GAUC`` and ``AUC``, Cornac's
``MRR``, ``AUC`` and ``MAP``, ranx's ``r-precision``, ``bpref`` and ``rbp.95`` take none; ``.95`` is the RBP
persistence, read as ranx reads it, ``rbp@95`` too). Each name resolves to a recommender measure of
:mod:`trecrs.measures.recsys` with the cutoff as its parameter, computed on the qrels as the framework sees
its test data:

* the framework's test items (LensKit's test list, RecBole's positives, Elliot's items rated at or above
  its ``relevance_threshold``, Cornac's at or above its ``rating_threshold``, RePlay's ground truth) are
  the qrels documents with rel >= the global ``-l``; ranx's names carry their own level instead
  (``ndcg@10-l2``: rel >= 2; without ``-lN``, ranx's default 1). Any other name takes the same suffix,
  which replaces the global ``-l`` for it (``recbole:ndcg@10-l4``: rel >= 4 whatever ``-l``): the
  spelling of one framework threshold that no flag changes (``trecrs definitions`` prints these);
* :data:`BINARY` qrels: every such item has gain 1 (the frameworks' binary metrics), :data:`SHIFTED`:
  gain rel − l + 1 (Elliot's ``DiscountedRelevance``, 2^(r−t+1) − 1 under ``ndcg_exp``), :data:`GRADED`:
  gain rel, the items below the level 0 (ranx's ``ndcg``, ``dcg``, ``rbp``), :data:`AS_IS`: unchanged, so
  that the measure sees the level ``-l`` (Cornac's full ranking applies it to the training ratings too);
* ``users``: the users the framework averages over (:data:`~.base.USER_SETS`): the qrels users the run
  ranks (most names), every qrels user, ranked or not (RePlay's accuracy names: an unranked user has an
  empty list and scores 0), every user the run ranks (RePlay's ``Surprisal`` and ``Coverage``: a user outside
  the qrels counts; such a user gets a per-query row of its own), or every training user (RePlay's
  ``Novelty``: a training user without a list scores 1);
* ``needs_relevant``: a query without relevant document has no value and is left out of the mean, as the
  framework leaves such a user out (RecBole has no such user, Elliot skips it, LensKit gives NaN); ranx
  gives such a user 0 and counts it.

The ranking is trec_eval's (score descending, ties by docno descending); the frameworks leave ties in an
unspecified order. This module is data and parsing only: :func:`trecrs.evaluate.compute.add_recsys`
computes each :class:`DialectVariant` with the recommender measures, its column named as typed.
Definitions and sources: docs/measures.md, "Framework dialects".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from ...errors import UsageError
from ...ordering import bytewise_sorted
from ...schema import QUERY, REL, USER
from ..grammar import Variant
from . import (
    cornac,
    daisyrec,
    elliot,
    evidently,
    implicit,
    lenskit,
    lightfm,
    ranx,
    recbole,
    recommenders,
    rectools,
    replay,
    rs_metrics,
    sklearn,
    torchmetrics,
)
from .base import (
    ALL_QRELS_USERS,
    AS_IS,
    BINARY,
    GRADED,
    QRELS_USERS,
    RUN_USERS,
    SHIFTED,
    USER_SETS,
    Dialect,
    Framework,
)

#: Every prefix, in the order --list-measures prints them: one module per framework holds its names.
FRAMEWORKS: dict[str, Framework] = {
    m.FRAMEWORK.prefix: m.FRAMEWORK
    for m in (
        lenskit,
        recbole,
        elliot,
        ranx,
        rectools,
        cornac,
        replay,
        sklearn,
        torchmetrics,
        implicit,
        lightfm,
        recommenders,
        evidently,
        rs_metrics,
        daisyrec,
    )
}

__all__ = [
    "AS_IS",
    "BINARY",
    "FRAMEWORKS",
    "GRADED",
    "SHIFTED",
    "Dialect",
    "DialectVariant",
    "Framework",
    "listing",
    "parse_dialect",
]


@dataclass(frozen=True)
class DialectVariant(Variant):
    """A ``prefix:Name@k`` measure: a :class:`~trecrs.measures.grammar.Variant` whose target is a recommender
    measure, computed at the global ``-l`` on the qrels the framework sees (:meth:`inputs`)."""

    qrels: str = BINARY
    needs_relevant: bool = True
    level: int | None = None  # the level the name gives (-lN; ranx's default 1), None: the global -l
    users: str = QRELS_USERS  # the users the mean is over (base.USER_SETS)

    def inputs(
        self,
        qrels: pl.DataFrame,
        run: pl.DataFrame,
        level: int,
        queries: list[str],
        *,
        full_run: pl.DataFrame | None = None,
        train: pl.DataFrame | None = None,
        full_qrels: pl.DataFrame | None = None,
    ) -> tuple[pl.DataFrame, pl.DataFrame, int, list[str]]:
        """The qrels, run, relevance level and evaluated queries the target is computed on: relevant
        documents (rel >= ``level``) as the framework's test items, gains as :attr:`qrels` says; the users
        of :attr:`users`: the queries of ``queries`` the run ranks (the frameworks measure the users they
        have a list for, so ``-c`` adds none), every query of ``full_run`` (the run before it is restricted
        to the qrels queries), every query of ``full_qrels`` (the qrels of every query, ranked or not), or
        every user of ``train`` (with the run's list, or none); with :attr:`needs_relevant` only those with
        a relevant document. :attr:`level`, when set, replaces ``level``."""
        level = level if self.level is None else self.level
        if self.users == ALL_QRELS_USERS and full_qrels is not None:
            qrels = full_qrels
        relevant = pl.col(REL) >= level
        keep = pl.min_horizontal(pl.col(REL), pl.lit(0))  # unjudged (-1) stays unjudged under -J
        shifted = pl.col(REL) - level + 1
        gains = {AS_IS: None, BINARY: pl.lit(1), SHIFTED: shifted, GRADED: pl.col(REL)}[self.qrels]
        if gains is not None:
            qrels = qrels.with_columns(
                pl.when(relevant).then(gains).otherwise(keep).cast(qrels.schema[REL]).alias(REL)
            )
            level = 1
        run, have = self._population(run, queries, full_run, train, qrels)
        if self.needs_relevant:
            have &= set(qrels.filter(pl.col(REL) >= level).get_column(QUERY).to_list())
        run = run.filter(pl.col(QUERY).is_in(list(have)))
        return qrels, run, level, bytewise_sorted(have)

    def _population(
        self,
        run: pl.DataFrame,
        queries: list[str],
        full_run: pl.DataFrame | None,
        train: pl.DataFrame | None,
        qrels: pl.DataFrame,
    ) -> tuple[pl.DataFrame, set[str]]:
        """The run the users of :attr:`users` are ranked by, and those users."""
        if self.users == QRELS_USERS or full_run is None:
            return run, set(queries) & set(run.get_column(QUERY).unique().to_list())
        if self.users == RUN_USERS:
            return full_run, set(full_run.get_column(QUERY).unique().to_list())
        if self.users == ALL_QRELS_USERS:
            return full_run, set(qrels.get_column(QUERY).unique().to_list())
        if train is None:
            raise UsageError(f"measure {self.spec} needs the training ratings (train=)")
        return full_run, set(train.get_column(USER).cast(pl.Utf8).unique().to_list())


_SPEC = re.compile(r"^(?P<prefix>[A-Za-z][A-Za-z_]*):(?P<rest>.*)$")  # rs_metrics: an underscore
_LEVEL = re.compile(r"^(?P<rest>.*)-l(?P<level>-?[0-9]+)$")


def _level(framework: Framework, rest: str) -> tuple[str, int | None]:
    """``rest`` without its ``-lN`` suffix and the level N it names; without a suffix, ranx's default 1 for
    ranx (:attr:`Framework.levels`: ranx reads ``ndcg@10`` so), else None: the global ``-l`` applies."""
    m = _LEVEL.match(rest)
    if m is not None:
        return m.group("rest"), int(m.group("level"))
    return rest, (1 if framework.levels else None)


def _find(framework: Framework, name: str, k: str | None) -> tuple[Dialect | None, str | None, str | None]:
    """The dialect ``name`` spells, its persistence digits (``rbp.95`` or, as ranx also reads it, ``rbp@95``)
    and its cutoff."""
    dialect = framework.find(name)
    if dialect is None:
        base, dot, digits = name.partition(".")
        found = framework.find(base) if dot else None
        return (found, digits, k) if found is not None and found.persistence else (None, None, k)
    return (dialect, k, None) if dialect.persistence else (dialect, None, k)


def _unknown(spec: str, framework: Framework, name: str) -> UsageError:
    known = ", ".join(f"{framework.prefix}:{d.spelling()}" for d in framework.names)
    return UsageError(f"measure {spec!r}: no {framework.label} measure {name!r} (known: {known})")


def parse_dialect(spec: str) -> DialectVariant | None:
    """``lenskit:NDCG@10`` (``recbole:ndcg@10-l4``, ``ranx:ndcg@10-l2``, ``ranx:rbp.95``) as a
    :class:`DialectVariant` named as typed; None when ``spec`` is not written ``prefix:...``. An unknown
    prefix or name, or a missing or bad cutoff or persistence, is a UsageError listing the prefixes or the
    prefix's names."""
    m = _SPEC.match(spec)
    if m is None:
        return None
    prefix = m.group("prefix")
    framework = FRAMEWORKS.get(prefix.lower())
    if framework is None:
        raise UsageError(
            f"measure {spec!r}: unknown framework prefix {prefix!r} (known: {', '.join(FRAMEWORKS)})"
        )
    rest, level = _level(framework, m.group("rest"))
    name, at, cut = rest.partition("@")
    dialect, p, k = _find(framework, name, cut if at else None)
    if dialect is None:
        raise _unknown(spec, framework, name)
    label = f"{framework.prefix}:{dialect.name}"
    if dialect.persistence and (p is None or not re.fullmatch(r"[0-9]+", p)):
        raise UsageError(
            f"measure {spec!r}: {label} needs its persistence as digits after the name ({label}.95)"
        )
    if not dialect.cutoff and k is not None:
        raise UsageError(f"measure {spec!r}: {label} takes no cutoff")
    if dialect.cutoff and (k is None or not re.fullmatch(r"[1-9][0-9]*", k)):
        raise UsageError(f"measure {spec!r}: {label} needs a positive integer cutoff @k")
    arguments = dialect.arguments(name, framework.case_insensitive) or {}
    base, _, param = dialect.target.format(k=k, p=f"0.{p}", **arguments).partition(".")
    relevant, users = dialect.needs_relevant, dialect.users
    return DialectVariant(
        spec, base, param or None, qrels=dialect.qrels, needs_relevant=relevant, level=level, users=users
    )


def listing() -> list[str]:
    """One line per prefixed name for ``trecrs eval --list-measures``: the name, what it equals, its definition."""
    out = []
    for f in FRAMEWORKS.values():
        case = ", any case" if f.case_insensitive else ""
        default = ", default 1, -l unused" if f.levels else " instead of -l"
        levels = f"; -lN after the name: relevant = rel >= N{default}"
        out.append(f"  {f.prefix}: {f.label} ({f.source}{case}{levels})")
        for d in f.names:
            name = f"    {f.prefix}:{d.spelling()}"
            users = "" if d.users == QRELS_USERS else f"; over {USER_SETS[d.users]}"
            out.append(name.ljust(34) + f" = {d.equals}: {d.definition}{users}")
    return out
