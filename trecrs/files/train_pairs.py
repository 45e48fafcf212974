"""Training pairs: the (user, item) pairs of a ratings file, all an AllItems exclusion needs, read lean.

A factor model's AllItems run leaves out each user's training items, so ``eval-factors`` and
:func:`trecrs.evaluate_factors` need only which items each user rated. :func:`read_train_pairs` reads the
ratings files every command reads (each layout of :mod:`trecrs.files.ratings`, detected the same way)
and refuses what :func:`~trecrs.files.ratings.read_ratings` refuses, with the same message naming the
same line: the same checks (:func:`~trecrs.files.ratings.text_layout`,
:func:`~trecrs.files.ratings.value_checks`) run in the same order, each reporting its first failing line.
What it does not do is hold the whole file parsed: the lines are split and checked one slice at a time,
the ratings and timestamps are checked and dropped, and a pair rated twice is found on one 64-bit code
per pair (:func:`trecrs.ids.pair_codes`) rather than on a struct of strings. On 16M ratings this keeps a
third of the general reader's peak memory.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import polars as pl

from ..ids import pair_codes
from ..schema import ITEM, USER
from .lines import LINE, LINENO, Check, describe, first_match, first_repeat, read_lines
from .parquet import PathLike
from .ratings import duplicate_error, parquet_layout, ratings_format, text_layout, typed, value_checks

#: Lines (rows) parsed and checked at a time: bounds the split fields held at once (~100 MB)
SLICE = 1 << 20


def read_train_pairs(path: PathLike, *, fmt="auto", columns=None, separator=None) -> pl.DataFrame:
    """The ``user item`` pairs (strings, in file order) of a ratings file, checked as
    :func:`~trecrs.files.ratings.read_ratings` checks it.

    ``fmt``, ``columns``, ``separator``: as for :func:`~trecrs.files.ratings.read_ratings`. A malformed
    line (too few fields, an empty id, a rating that is not a finite number in range, a timestamp that
    is not an integer) or a (user, item) pair given twice is the :class:`~trecrs.errors.InputError`
    ``read_ratings`` raises for it (``FILE:LINE: reason``; a Parquet file's rows are named in the reason).
    """
    spec = ratings_format(path, fmt, columns=columns, separator=separator)
    if spec.name == "parquet":
        numbered, exprs = parquet_layout(path, spec)
        parts = (typed(numbered.slice(at, SLICE).select(exprs)) for at in _starts(numbered.height))
        checks = value_checks(path, line_of=lambda r: None, text_of=lambda r: f"row {r[LINENO]}")
        unit = "row"
    else:
        numbered, to_raw, count = text_layout(read_lines(path), path, spec)
        parts = (typed(to_raw(numbered.slice(at, SLICE))) for at in _starts(numbered.height))
        checks = [
            count,
            *value_checks(path, line_of=lambda r: r[LINENO], text_of=lambda r: describe(r[LINE])),
        ]
        unit = "line"
    pairs = _checked(parts, checks)
    repeat = first_repeat(pair_codes(pairs.get_column(USER), pairs.get_column(ITEM)))
    if repeat is not None:  # the rows' numbers: the pairs are the numbered lines (rows) in order
        first, second = ({**pairs.row(i, named=True), LINENO: numbered.item(i, LINENO)} for i in repeat)
        raise duplicate_error(path, unit, first, second)
    return pairs


def _starts(height: int) -> range:
    """The first row of each slice (one empty slice for an empty table: its columns still come out)."""
    return range(0, max(height, 1), SLICE)


def _checked(parts: Iterator[pl.DataFrame], checks: Sequence[Check]) -> pl.DataFrame:
    """The pairs of ``parts`` after every check: the first check (in ``checks`` order) that any row fails
    raises at its first failing row, as running each check over the whole file would."""
    failed: list[dict | None] = [None] * len(checks)
    kept = []
    for part in parts:
        for k, (mask, _) in enumerate(checks):
            if failed[k] is None:
                failed[k] = first_match(part, mask)
        kept.append(part.select(pl.col(f"_{USER}").alias(USER), pl.col(f"_{ITEM}").alias(ITEM)))
    for bad, (_, error) in zip(failed, checks, strict=True):
        if bad is not None:
            raise error(bad)
    return pl.concat(kept)


__all__ = ["read_train_pairs"]
