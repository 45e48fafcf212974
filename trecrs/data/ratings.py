"""Ratings in memory: the checks every protocol step applies to the training and test ratings it is given.

Reading and writing ratings files (formats, detection, duplicates policy) is :mod:`trecrs.files.ratings`.
"""

from __future__ import annotations

import os

import polars as pl

from ..errors import InputError
from ..files.ratings import read_ratings, repeated_pair
from ..schema import ITEM, RATING, USER


def validate_ratings(data, what: str = "ratings", path=None) -> pl.DataFrame:
    """Validate ratings (a polars/pandas frame, or a path read with :func:`~trecrs.files.ratings.read_ratings`).

    Rules: columns ``user``, ``item``, ``rating`` are required; ids become strings; ratings must be
    numbers, never missing or NaN; a (user, item) pair may appear once. Returns ``user, item, rating``;
    coded ids (UInt32, :func:`~trecrs.files.ratings.read_ratings`) stay numbers.
    """
    if isinstance(data, str | os.PathLike):
        path = data
        data = read_ratings(data)
    if not isinstance(data, pl.DataFrame):
        try:
            data = pl.from_pandas(data)
        except Exception as exc:  # noqa: BLE001 - report what we were given
            raise TypeError(f"{what}: expected a polars/pandas DataFrame, got {type(data)!r}") from exc
    missing = [c for c in (USER, ITEM, RATING) if c not in data.columns]
    if missing:
        raise InputError(path, None, f"{what} lacks column(s) {missing}; has {data.columns}")
    coded = data.schema[USER] == pl.UInt32 and data.schema[ITEM] == pl.UInt32
    cols = [pl.col(USER), pl.col(ITEM)] if coded else [pl.col(USER).cast(pl.Utf8), pl.col(ITEM).cast(pl.Utf8)]
    try:
        df = data.select([*cols, pl.col(RATING).cast(pl.Float64)])
    except pl.exceptions.PolarsError as exc:
        raise InputError(path, None, f"{what}: ratings must be numbers ({exc.__class__.__name__})") from None
    bad = df.filter(
        pl.col(USER).is_null() | pl.col(ITEM).is_null() | pl.col(RATING).is_null() | pl.col(RATING).is_nan()
    )
    if bad.height:
        raise InputError(
            path,
            None,
            f"{what}: {bad.height} row(s) with a missing user, item or rating (first: {bad.row(0)})",
        )
    if repeated_pair(df.get_column(USER), df.get_column(ITEM)) is not None:
        dup = df.filter(pl.struct(USER, ITEM).is_duplicated()).with_columns(pl.col(USER, ITEM).cast(pl.Utf8))
        u, i, _ = dup.row(0)
        raise InputError(
            path,
            None,
            f"{what}: duplicate rating for user {u!r}, item {i!r} "
            f"({dup.height} rows involved); resolve duplicates when reading the ratings",
        )
    return df
