"""Test ratings -> TREC qrels: users are queries, items are documents, judged by a relevance rule.

A qrels line ``user 0 item rel`` is written for every test rating the rule finds relevant, ``rel`` being the
graded value (by default the rating itself, what the trec_eval runs of Bellogín, Castells & Cantador,
"Precision-oriented evaluation of recommender systems", RecSys 2011, used). Below-threshold test ratings
are either left out (the trec_eval convention: the item is then *unjudged*) or written as judged
non-relevant lines (``rel 0``), which changes ``num_q``, ``bpref`` and what ``-J`` keeps; see
``docs/methodologies.md``.

Relevance rules (all on the rating as read, in the file's own units):

* global threshold ``T``: relevant iff ``rating >= T``;
* per-user base ``b_u`` (``mean`` = the user's mean rating, ``max`` = the user's highest rating, over the
  user's ratings in the chosen set, see :data:`USER_STATS_FROM`) plus an offset ``d``: relevant iff
  ``rating >= b_u + d``; with both a global threshold and a per-user base, both must hold.

Graded values (:data:`GRADES`): ``rating`` (the rating mapped to an integer, see :func:`rating_scale`),
``binary`` (1), ``shifted`` (``scaled(rating) - ceil(scaled(T)) + 1``, so the lowest relevant rating is 1).

Long-tail filter (Cremonesi, Koren & Turrin, "Performance of recommender algorithms on top-N
recommendation tasks", RecSys 2010): test ratings of *short-head* items are dropped, the short head being
the smallest set of most popular items (by number of TRAINING ratings) holding at least a share ``s`` of
the training ratings (``s = 0.33`` in the paper); the rule is :func:`trecrs.data.popularity.short_head`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ..data.popularity import short_head
from ..data.ratings import validate_ratings
from ..errors import SemanticError, UsageError
from ..ids import natural_sort
from ..ranges import REL_MAX
from ..schema import DOC, ITEM, ITER, QRELS_SCHEMA, QUERY, RATING, REL, USER

# Factors tried, in order, to map a rating scale onto integers without loss (x2 = half stars).
SCALE_FACTORS: tuple[int, ...] = (1, 2, 4, 5, 10, 100)

# Which of the user's ratings a per-user base (mean, max) is computed over: name -> (test, train) -> ratings
# (train is given for every name but "test").
USER_STATS_SOURCES: dict[str, Callable[[pl.DataFrame, pl.DataFrame], pl.DataFrame]] = {
    "test": lambda test, train: test,
    "train": lambda test, train: train,
    "all": lambda test, train: pl.concat([train.select(USER, ITEM, RATING), test.select(USER, ITEM, RATING)]),
}
USER_STATS_FROM: tuple[str, ...] = tuple(USER_STATS_SOURCES)

# Largest number of distinct rating values recorded value by value in the manifest's scale map.
_MAP_LIMIT = 200


# --------------------------------------------------------------------------------------------- inputs


# --------------------------------------------------------------------------------------------- scale


def rating_scale(ratings: pl.Series, factor: int | None = None) -> tuple[int, dict[str, int] | None]:
    """The integer factor ``f`` that maps every rating to an integer ``round(f * rating)`` without loss.

    With ``factor=None`` the first of :data:`SCALE_FACTORS` that works (1 for star ratings, 2 for half
    stars). Returns ``(f, map)``, ``map`` = {rating text: integer} for up to 200 distinct values (None if
    more). Raises :class:`UsageError` when no factor maps the scale exactly.
    """
    if factor is not None and factor < 1:  # a factor of 0 or below maps every rating to 0 or reverses them
        raise UsageError(f"scale must be a positive integer, got {factor}", arguments=["scale"])
    values = ratings.drop_nulls().unique().sort()
    candidates = (factor,) if factor is not None else SCALE_FACTORS
    for f in candidates:
        scaled = values * f
        if ((scaled - scaled.round()).abs() <= 1e-9 * scaled.abs().clip(lower_bound=1.0)).all():
            mapping = None
            if values.len() <= _MAP_LIMIT:
                mapping = {_num(v): int(round(v * f)) for v in values.to_list()}
            return f, mapping
    shown = ", ".join(_num(v) for v in values.head(5).to_list())
    if factor is not None:
        raise UsageError(f"scale={factor} does not map the ratings to integers (values: {shown}, ...)")
    raise UsageError(
        f"cannot map the rating scale to integers with a factor in {SCALE_FACTORS} (values: {shown}, ...); "
        "use grade=binary, or scale=N"
    )


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


# --------------------------------------------------------------------------------------------- grades


@dataclass(frozen=True)
class Grade:
    """How a relevant rating becomes the integer relevance value of its qrels line."""

    name: str
    summary: str
    value: Callable[[pl.Expr, int, float | None], pl.Expr]  # (scaled rating, factor, threshold) -> rel
    needs_threshold: bool = False


def _shifted(scaled: pl.Expr, factor: int, threshold: float | None) -> pl.Expr:
    # the lowest rating that can pass the threshold gets 1: ceil is exact for thresholds on the grid
    assert threshold is not None  # needs_threshold: make_qrels refuses grade=shifted without one
    base = math.ceil(threshold * factor - 1e-9)
    return scaled - base + 1


GRADES: dict[str, Grade] = {
    g.name: g
    for g in (
        Grade(
            "rating", "the rating itself (times the scale factor for non-integer scales)", lambda s, f, t: s
        ),
        Grade("binary", "1 for every relevant rating", lambda s, f, t: pl.lit(1, dtype=pl.Int64)),
        Grade(
            "shifted",
            "scaled(rating) - ceil(scaled(threshold)) + 1: the lowest relevant rating is 1",
            _shifted,
            needs_threshold=True,
        ),
    )
}

# Per-user bases b_u of the rule rating >= b_u + offset.
USER_BASES: dict[str, Callable[[pl.Expr], pl.Expr]] = {
    "mean": lambda r: r.mean(),
    "max": lambda r: r.max(),
}


# --------------------------------------------------------------------------------------------- qrels


@dataclass
class QrelsResult:
    """A qrels frame (``schema.QRELS_SCHEMA``) and what building it kept, dropped and assumed."""

    qrels: pl.DataFrame
    info: dict = field(default_factory=dict)


def relevance_mask(
    test: pl.DataFrame,
    *,
    threshold: float | None = None,
    per_user: str | None = None,
    offset: float = 0.0,
    per_user_from: str = "test",
    train: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """``test`` with a boolean column ``_relevant`` (and ``_has_base``: the user's base is defined).

    ``rating >= threshold`` (if given) and ``rating >= b_u + offset`` (if ``per_user`` is given).
    """
    if threshold is None and per_user is None:
        raise UsageError("give a relevance threshold (threshold=T) or a per-user rule (per_user=mean|max)")
    out = test.with_columns(pl.lit(True).alias("_relevant"), pl.lit(True).alias("_has_base"))
    if threshold is not None:
        out = out.with_columns((pl.col(RATING) >= threshold).alias("_relevant"))
    if per_user is not None:
        if per_user not in USER_BASES:
            raise UsageError(f"unknown per-user rule {per_user!r}; choose from {sorted(USER_BASES)}")
        if per_user_from not in USER_STATS_FROM:
            raise UsageError(f"per-user statistics come from one of {USER_STATS_FROM}, not {per_user_from!r}")
        if per_user_from != "test" and train is None:
            raise UsageError(f"per-user statistics from {per_user_from!r} need the training ratings (train=)")
        source = USER_STATS_SOURCES[per_user_from](test, test if train is None else train)
        base = source.group_by(USER).agg(USER_BASES[per_user](pl.col(RATING)).alias("_base"))
        out = out.join(base, on=USER, how="left", maintain_order="left")
        out = out.with_columns(
            (pl.col("_relevant") & (pl.col(RATING) >= pl.col("_base") + offset))
            .fill_null(False)
            .alias("_relevant"),
            pl.col("_base").is_not_null().alias("_has_base"),
        ).drop("_base")
    return out


def make_qrels(
    test: object,
    *,
    threshold: float | None = None,
    per_user: str | None = None,
    offset: float = 0.0,
    per_user_from: str = "test",
    train: object = None,
    grade: str = "rating",
    nonrelevant: bool = False,
    scale: int | None = None,
    long_tail: float | None = None,
) -> QrelsResult:
    """Build TREC qrels from test ratings (query = user, doc = item); see the module docstring for the rules.

    ``nonrelevant=True`` also writes below-threshold test ratings as judged non-relevant lines (rel 0).
    ``scale`` forces the integer factor of :func:`rating_scale`; ``long_tail`` (a share such as 0.33, needs
    ``train``) drops the test ratings of short-head items (:func:`short_head`). Lines come out in natural
    (user, item) order. ``info`` counts what was written and dropped and records the rating map.
    """
    test = validate_ratings(test, "test ratings")
    if test.height == 0:
        raise SemanticError("the test set is empty: no qrels can be built")
    if grade not in GRADES:
        raise UsageError(f"unknown grade {grade!r}; choose from {sorted(GRADES)}")
    g = GRADES[grade]
    if g.needs_threshold and threshold is None:
        raise UsageError(f"grade={grade} needs a global threshold= (it is the value mapped to 1)")
    if train is not None:
        train = validate_ratings(train, "training ratings")
    info: dict = {"test_ratings": test.height}

    if long_tail is not None:
        if train is None:
            raise UsageError(
                "the long-tail filter needs the training ratings (train=): popularity is counted there"
            )
        head = short_head(train, long_tail, argument="long_tail")
        before = test.height
        test = test.filter(~pl.col(ITEM).is_in(head.implode()))
        info.update(
            long_tail_share=long_tail, short_head_items=head.len(), dropped_short_head=before - test.height
        )
        if test.height == 0:
            raise SemanticError(
                "every test rating is of a short-head item: the long-tail qrels would be empty"
            )

    factor, mapping = (1, None) if grade == "binary" else rating_scale(test.get_column(RATING), scale)
    info.update(scale_factor=factor, rating_map=mapping)

    judged = relevance_mask(
        test, threshold=threshold, per_user=per_user, offset=offset, per_user_from=per_user_from, train=train
    )
    no_base = judged.filter(~pl.col("_has_base")).height
    if no_base:
        judged = judged.filter(pl.col("_has_base"))
        info["dropped_no_user_statistics"] = no_base
    scaled = (pl.col(RATING) * factor).round().cast(pl.Int64)
    top = judged.select((pl.col(RATING).abs() * factor).max()).item()
    if top is not None and top > REL_MAX:  # a grade trecrs (and trec_eval) could not read back
        raise UsageError(
            f"ratings times the scale factor {factor} reach {top:g}, beyond the largest relevance {REL_MAX}"
        )
    judged = judged.with_columns(
        pl.when(pl.col("_relevant"))
        .then(g.value(scaled, factor, threshold))
        .otherwise(pl.lit(0))
        .cast(pl.Int64)
        .alias(REL)
    )
    bad = judged.filter(pl.col("_relevant") & (pl.col(REL) < 1))
    if bad.height:
        u, i, r = bad.row(0)[:3]
        raise UsageError(
            f"{bad.height} relevant rating(s) would get a relevance value below 1 (user {u!r}, item {i!r}, "
            f"rating {_num(r)}), which trec_eval reads as non-relevant or unjudged; use grade=binary or grade=shifted"
        )
    relevant = judged.filter(pl.col("_relevant"))
    below = judged.height - relevant.height
    info.update(
        relevant=relevant.height, below_threshold=below, nonrelevant_written=below if nonrelevant else 0
    )
    kept = judged if nonrelevant else relevant
    if kept.height == 0:
        raise SemanticError("no test rating is relevant under this rule: the qrels would be empty")
    users_all = test.get_column(USER).n_unique()
    users_kept = kept.get_column(USER).n_unique()
    info.update(queries=users_kept, users_without_qrels=users_all - users_kept)
    out = kept.select(
        pl.col(USER).alias(QUERY), pl.lit("0").alias(ITER), pl.col(ITEM).alias(DOC), pl.col(REL)
    )
    return QrelsResult(natural_sort(out, [QUERY, DOC]).select(list(QRELS_SCHEMA)), info)


def qrels_from_ratings(test: object, **options: Any) -> pl.DataFrame:
    """The qrels frame of :func:`make_qrels` alone (same options)."""
    return make_qrels(test, **options).qrels
