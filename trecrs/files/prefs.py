"""trec_eval's preference and judgment-group relevance files: ``prefs``, ``qrels_prefs``, ``qrels_jg``.

Layouts (``formats.c``, ``get_prefs.c``, ``get_qrels_prefs.c``, ``get_qrels_jg.c``, trec_eval 9.0.8/10.0):

* ``prefs``: ``qid jg jsg docno rel_level`` (five fields). Within a judgment sub-group (jsg) of a judgment
  group (jg), a document with a higher ``rel_level`` is preferred; 0 means non-relevant.
* ``qrels_prefs``: a qrels file ``qid jg docno rel_level`` read as prefs: the second column is the
  judgment group, each group has one sub-group (trec_eval names it ``"0"``).
* ``qrels_jg``: ``qid jg docno rel`` with an integer ``rel``: one set of qrels per judgment group.

Lines come through :mod:`trecrs.files.lines` (blank and ``#`` lines dropped, as trec_eval 10.0 drops
``#`` lines). trec_eval reads the level with ``atof``/``atol`` and takes a malformed number as 0; trecrs
refuses it, naming the line. A document listed twice in one (query, jg, jsg) is an error here (trec_eval
either stops or counts the pair twice).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from ..errors import InputError
from ..schema import DOC, QUERY, REL
from .lines import (
    LINE,
    LINENO,
    PathLike,
    describe,
    first_duplicate,
    first_match,
    read_lines,
    split_fields,
    take_fields,
)

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

JG = "jg"
JSG = "jsg"
LEVEL = "level"

PREFS_SCHEMA: dict[str, PolarsDataType] = {
    QUERY: pl.Utf8,
    JG: pl.Utf8,
    JSG: pl.Utf8,
    DOC: pl.Utf8,
    LEVEL: pl.Float64,
}
QRELS_JG_SCHEMA: dict[str, PolarsDataType] = {QUERY: pl.Utf8, JG: pl.Utf8, DOC: pl.Utf8, REL: pl.Int64}

_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"
_INTEGER = r"^[+-]?\d+$"


def read_prefs(path: PathLike) -> pl.DataFrame:
    """A ``prefs`` file (``qid jg jsg docno rel_level``) as :data:`PREFS_SCHEMA` rows, in file order."""
    df = take_fields(
        split_fields(read_lines(path)), path, [QUERY, JG, JSG, DOC, "_v"], "qid jg jsg docno rel_level"
    )
    return _levels(df, path, "prefs")


def read_qrels_prefs(path: PathLike) -> pl.DataFrame:
    """A qrels file read as prefs (``get_qrels_prefs.c``): ``qid jg docno rel_level``, one sub-group ``"0"``."""
    df = take_fields(split_fields(read_lines(path)), path, [QUERY, JG, DOC, "_v"], "qid jg docno rel_level")
    return _levels(df.with_columns(pl.lit("0").alias(JSG)), path, "qrels_prefs")


def read_qrels_jg(path: PathLike) -> pl.DataFrame:
    """A ``qrels_jg`` file (``qid jg docno rel``, integer rel) as :data:`QRELS_JG_SCHEMA` rows."""
    df = take_fields(split_fields(read_lines(path)), path, [QUERY, JG, DOC, "_v"], "qid jg docno rel")
    _check_numbers(df, path, _INTEGER, "relevance must be an integer")
    df = df.with_columns(pl.col("_v").cast(pl.Int64, strict=False).alias(REL))
    bad = first_match(df, pl.col(REL).is_null())
    if bad is not None:
        raise InputError(path, bad[LINENO], f"relevance out of range: {describe(bad[LINE])!r}")
    _check_unique(df, path, [QUERY, JG, DOC], "qrels_jg")
    return df.select(list(QRELS_JG_SCHEMA))


def _levels(df: pl.DataFrame, path: PathLike, what: str) -> pl.DataFrame:
    _check_numbers(df, path, _NUMBER, "rel_level must be a number")
    df = df.with_columns(pl.col("_v").cast(pl.Float64).alias(LEVEL))
    _check_unique(df, path, [QUERY, JG, JSG, DOC], what)
    return df.select(list(PREFS_SCHEMA))


def _check_numbers(df: pl.DataFrame, path: PathLike, pattern: str, reason: str) -> None:
    bad = first_match(df, ~pl.col("_v").str.contains(pattern))
    if bad is not None:
        raise InputError(path, bad[LINENO], f"{reason}, found {bad['_v']!r}: {describe(bad[LINE])!r}")


def _check_unique(df: pl.DataFrame, path: PathLike, key: list[str], what: str) -> None:
    found = first_duplicate(df, key)
    if found is not None:
        first, second = found
        where = ", ".join(f"{k} {second[k]!r}" for k in key)
        raise InputError(
            path, second[LINENO], f"duplicate {what} entry for {where} (first seen on line {first[LINENO]})"
        )
