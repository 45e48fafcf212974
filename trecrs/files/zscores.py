"""trec_eval's z-score file (``-Z``): the mean and standard deviation of each measure for each query.

Lines ``qid measure mean stddev`` (``get_zscores.c``), fields separated by whitespace; ``measure`` is the
name trec_eval prints (``P_10``, ``map``, ``ndcg_cut_20``). Read strictly (:mod:`trecrs.files.lines`):
a line without exactly four fields, a mean or a standard deviation that is not a number (trec_eval's
``atof`` would read it as 0), or a (qid, measure) given twice is an error naming the line; ``nan`` is
a number, as ``atof`` reads it.
"""

from __future__ import annotations

import polars as pl

from ..errors import InputError
from ..schema import MEASURE, QUERY
from .lines import LINE, LINENO, PathLike, describe, first_duplicate, read_lines, split_fields, take_fields

MEAN, STDDEV = "mean", "stddev"


def read_zscores(path: PathLike) -> pl.DataFrame:
    """``query, measure, mean, stddev`` (Utf8, Utf8, Float64, Float64), one row per line of ``path``."""
    rows = take_fields(
        split_fields(read_lines(path)), path, [QUERY, MEASURE, MEAN, STDDEV], "qid measure mean stddev"
    )
    for col in (MEAN, STDDEV):
        parsed = rows.get_column(col).cast(pl.Float64, strict=False)
        bad = rows.filter(parsed.is_null())
        if bad.height:
            row = bad.row(0, named=True)
            raise InputError(
                path, row[LINENO], f"{col} {row[col]!r} is not a number: {describe(row[LINE])!r}"
            )
        rows = rows.with_columns(parsed.alias(col))
    dup = first_duplicate(rows.select(LINENO, QUERY, MEASURE), [QUERY, MEASURE])
    if dup is not None:
        first, second = dup
        raise InputError(
            path,
            second[LINENO],
            f"query {second[QUERY]!r}, measure {second[MEASURE]!r} repeats line {first[LINENO]}",
        )
    return rows.select(QUERY, MEASURE, MEAN, STDDEV)
