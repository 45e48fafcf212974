"""Reading and writing what recommenders produce and consume: score files, prediction files, pairs.

* score files ``user item score`` (or top-N lists ``user item rank``), read by :func:`read_scores` /
  :func:`as_scores` and written by :func:`write_scores`;
* prediction files ``user item predicted_rating`` for the error measures (:func:`read_predictions`);
* pairs to score, ``query user item`` or ``user item`` (:func:`read_pairs`).

Text files are whitespace separated (``#`` comments and blank lines skipped, line numbers in errors);
``*.parquet`` files are read by :func:`~trecrs.files.parquet.read_parquet` with columns by name.
"""

from __future__ import annotations

import os

import polars as pl

from ..errors import InputError, UsageError
from ..ranges import RATING_ABS_MAX, rating_reason
from ..schema import ITEM, SCORE, USER
from .lines import LINE, LINENO, first_duplicate, read_lines, split_fields, take_fields
from .manifest import write_manifest
from .output import write_table
from .parquet import is_parquet, read_parquet

SCORE_KINDS: tuple[str, ...] = ("score", "rank")

PathLike = str | os.PathLike

_V = "_v"


# --------------------------------------------------------------------------------------------- scores


def read_scores(path: PathLike, *, kind: str = "score") -> pl.DataFrame:
    """Read a score file: ``user item score`` (or ``user item rank`` with ``kind="rank"``).

    Text: three whitespace-separated fields per line (a first line ``user item score``/``rank`` is a
    header); Parquet (``*.parquet``): columns ``user``, ``item`` and ``score``/``rank``. Scores must be
    finite numbers, ranks positive integers; a (user, item) pair may appear once. Returns ``user, item,
    score`` plus ``lineno`` (null for Parquet). Ranks become scores ``max_rank + 1 - rank``, so rank 1
    comes first.
    """
    if kind not in SCORE_KINDS:
        raise UsageError(f"unknown score kind {kind!r}; choose from {SCORE_KINDS}")
    if is_parquet(path):
        raw = read_parquet(path, {USER: pl.Utf8, ITEM: pl.Utf8, kind: pl.Utf8}, what="scores")
        df = raw.select(USER, ITEM, pl.col(kind).alias(_V), pl.lit(None, dtype=pl.UInt32).alias(LINENO))
    else:
        lines = split_fields(read_lines(path))
        first = lines.item(0, "fields")
        if len(first) == 3 and first[0].lower() == USER and first[2].lower() == kind:
            lines = lines.slice(1)
        df = take_fields(lines, path, [USER, ITEM, _V], f"user item {kind}").drop(LINE)
    return _parse_values(df, path, kind)


def as_scores(data, *, kind: str = "score") -> pl.DataFrame:
    """Scores from a path (:func:`read_scores`) or a polars/pandas frame with ``user, item, score|rank``."""
    if isinstance(data, str | os.PathLike):
        return read_scores(data, kind=kind)
    if not isinstance(data, pl.DataFrame):
        data = pl.from_pandas(data)
    missing = [c for c in (USER, ITEM, kind) if c not in data.columns]
    if missing:
        raise InputError(None, None, f"scores DataFrame lacks column(s) {missing}; has {data.columns}")
    df = data.select(
        pl.col(USER).cast(pl.Utf8), pl.col(ITEM).cast(pl.Utf8), pl.col(kind).cast(pl.Utf8).alias(_V),
        pl.lit(None, dtype=pl.UInt32).alias(LINENO),
    )
    return _parse_values(df, None, kind)


def _parse_values(df: pl.DataFrame, path: PathLike | None, kind: str) -> pl.DataFrame:
    """``user, item, score, lineno`` from the text values ``_v``: checked, ranks turned into scores."""
    if df.height == 0:
        raise InputError(path, None, "the score file has no scores")
    nulls = df.filter(pl.col(USER).is_null() | pl.col(ITEM).is_null() | pl.col(_V).is_null())
    if nulls.height:
        raise InputError(path, nulls.item(0, LINENO), f"missing user, item or {kind} ({nulls.height} row(s))")
    df = df.with_columns(pl.col(_V).str.strip_chars().cast(pl.Float64, strict=False).alias(SCORE))
    df = _checked_scores(df, path) if kind == "score" else _ranks_as_scores(df, path)
    dup = first_duplicate(df, [USER, ITEM])
    if dup is not None:
        first, second = dup
        by_row = second[LINENO] is None  # Parquet, or a frame: rows instead of lines
        where = f"row {second['_row']}: " if by_row else ""
        seen = f"row {first['_row']}" if by_row else f"line {first[LINENO]}"
        raise InputError(path, second[LINENO], f"{where}user {second[USER]!r}, item {second[ITEM]!r} has more than "
                         f"one {kind} (first seen on {seen})")
    return df.select(USER, ITEM, SCORE, LINENO)


def _checked_scores(df: pl.DataFrame, path: PathLike | None) -> pl.DataFrame:
    bad = df.filter(pl.col(SCORE).is_null() | ~pl.col(SCORE).is_finite())
    if bad.height:
        row = bad.row(0, named=True)
        what = "not a number" if row[SCORE] is None else ("NaN" if row[SCORE] != row[SCORE] else "infinite")
        raise InputError(path, row[LINENO], f"score is {what}: {row[_V]!r} ({bad.height} bad score(s) in the file)")
    return df


def _ranks_as_scores(df: pl.DataFrame, path: PathLike | None) -> pl.DataFrame:
    s = pl.col(SCORE)
    bad = df.filter(s.is_null() | ~s.is_finite() | (s < 1) | (s != s.round()))
    if bad.height:
        row = bad.row(0, named=True)
        raise InputError(path, row[LINENO], f"rank must be a positive integer, found {row[_V]!r}")
    top = df.get_column(SCORE).max()
    return df.with_columns((top + 1 - s).alias(SCORE))


def write_scores(scores, path: PathLike, *, inputs=None, parameters=None, command=None) -> None:
    """Write a score file ``user item score`` (Parquet for ``*.parquet``), atomically, with its manifest.

    ``scores``: what a recommender's ``score`` returns (``frame``, ``n_pairs``, ``n_unscored``).
    """
    write_table(scores.frame.select(USER, ITEM, SCORE), path)
    write_manifest(
        path,
        "scores",
        inputs=inputs,
        parameters=parameters,
        command=command,
        extra={
            "counts": {"pairs": scores.n_pairs, "scored": scores.frame.height, "unscored": scores.n_unscored}
        },
    )


# --------------------------------------------------------------------------------------------- predictions


def read_predictions(path: PathLike) -> pl.DataFrame:
    """Read a prediction file ``user item predicted_rating`` (whitespace-separated; extra fields ignored).

    Returns ``user, item, score``. A line with fewer than 3 fields or a value that is not a number is an
    error naming the line, and so is a value beyond ``ranges.RATING_ABS_MAX`` in magnitude (``inf``
included); ``nan`` is accepted and means "no prediction". Duplicate pairs are an error.
    """
    lines = split_fields(read_lines(path))
    df = take_fields(lines, path, [USER, ITEM, _V], "user item predicted_rating", at_least=True)
    df = df.with_columns(pl.col(_V).cast(pl.Float64, strict=False).alias(SCORE))
    bad = df.filter(pl.col(SCORE).is_null())
    if bad.height:
        r = bad.row(0, named=True)
        raise InputError(path, r[LINENO], f"predicted rating is not a number: {r[_V]!r}")
    # same range as ratings: an infinite or huge prediction would make RMSE print inf
    bad = df.filter(pl.col(SCORE).is_not_nan() & (pl.col(SCORE).abs() > RATING_ABS_MAX))
    if bad.height:
        r = bad.row(0, named=True)
        raise InputError(path, r[LINENO], f"predicted {rating_reason(r[_V])}")
    dup = first_duplicate(df, [USER, ITEM])
    if dup is not None:
        first, r = dup
        raise InputError(
            path,
            r[LINENO],
            f"duplicate prediction for user {r[USER]!r}, item {r[ITEM]!r} (first seen on line {first[LINENO]})",
        )
    return df.select(USER, ITEM, SCORE)


# --------------------------------------------------------------------------------------------- pairs


def read_pairs(path: PathLike) -> pl.DataFrame:
    """Read candidate pairs: lines ``query user item`` (``trecrs candidates``) or ``user item``; Parquet
    with columns ``user``, ``item``. Returns ``user, item`` (duplicates kept: a recommender scores each
    distinct pair once). Every line has the first line's number of fields."""
    if is_parquet(path):
        return read_parquet(path, {USER: pl.Utf8, ITEM: pl.Utf8}, what="pairs")
    lines = split_fields(read_lines(path))
    first = lines.get_column("fields").list.len()[0]
    if first not in (2, 3):
        first = 3  # the message names the layout trecrs writes
    names = [USER, ITEM] if first == 2 else ["_q", USER, ITEM]
    layout = "user item" if first == 2 else "query user item"
    return take_fields(lines, path, names, layout).select(USER, ITEM)
