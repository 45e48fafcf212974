"""Ratings as text in the layout a file was read with: one pre-joined line per row, written by polars.

A row's line joins its fields in the layout's order with its separator (``user<TAB>item<TAB>rating<TAB>ts``
for ``u.data``, ``user::item::rating::ts`` for ``ratings.dat``, a header line first for ``ratings.csv``).
Ratings are written as integers when integral (``4``; ``4.0`` when the layout has ``decimal_ratings``, as
MovieLens' ``ratings.csv`` does), else with the shortest text that reads back as the same float64 (Python's
``repr``). A layout without a header drops the timestamp field when no row has one, and refuses rows
of which only some have one (the fields would no longer line up).

:func:`write_rows` streams the chosen rows of a table to the file (no text of the whole file is built in
memory: a slice of rows at a time), so a split of a 100-million-rating file costs little beyond the table
itself. Reading, the
column mapping and :func:`~trecrs.files.ratings.write_ratings` live in :mod:`trecrs.files.ratings`.
"""

from __future__ import annotations

import os

import numpy as np
import polars as pl

from ..errors import UsageError
from ..schema import ITEM, RATING, TIMESTAMP, USER
from .output import atomic_path, write_text_atomic
from .ratings_format import ROLES, RatingsFormat

PathLike = str | os.PathLike

_LINE = "_line"
#: Rows written at once: the text of a slice is built whole (about 30 MB), never the file's.
SLICE_ROWS = 1 << 20
#: polars' CSV options that write a frame of one text column as its lines, each as it is.
_PLAIN: dict = {"include_header": False, "quote_style": "never", "line_terminator": "\n"}
_DISTINCT_MAX = 10_000  # up to this many distinct ratings are formatted one by one in Python


def _rating_str(value: float, decimal: bool) -> str:
    if value == int(value) and abs(value) < 2**53:
        return f"{int(value)}.0" if decimal else str(int(value))
    return repr(float(value))  # the shortest text that reads back as the same float64


def _rating_text(ratings: pl.Series, decimal: bool) -> pl.Expr:
    """Rating text of the written ``ratings``: integral values without a decimal part (``4``; ``4.0`` when
    ``decimal``), others the shortest round-trip text. Rating scales have few distinct values, so they
    are formatted once each."""
    values = ratings.unique()
    if values.len() <= _DISTINCT_MAX:
        old = values.to_list()
        return pl.col(RATING).replace_strict(
            old, [_rating_str(v, decimal) for v in old], return_dtype=pl.Utf8
        )
    r = pl.col(RATING)
    whole = r.cast(pl.Int64).cast(pl.Utf8) + (".0" if decimal else "")
    return pl.when((r == r.round(0)) & (r.abs() < 2**53)).then(whole).otherwise(r.cast(pl.Utf8))


def line_layout(ratings: pl.Series, timestamps: pl.Series, fmt: RatingsFormat) -> tuple[pl.Expr, str]:
    """The expression of each written line (column ``_line``) and the header text (``""`` when the layout
    has none) of rows whose rating and timestamp columns are ``ratings`` and ``timestamps``."""
    sep = fmt.write_separator
    mapping = fmt.mapping
    height = ratings.len()
    ts_nulls = timestamps.null_count()
    all_null_ts = height == 0 or ts_nulls == height
    roles = [r for r in ROLES if r in mapping and not (r == TIMESTAMP and all_null_ts and not fmt.header)]
    if not fmt.header:
        # Positional layouts: order the written fields by position.
        roles.sort(key=lambda r: int(mapping[r]))
    elif all(isinstance(mapping[r], str) for r in roles) and fmt.header_names:
        order = {n: i for i, n in enumerate(fmt.header_names)}
        roles.sort(key=lambda r: order.get(str(mapping[r]), len(order)))  # every role is named here
    if TIMESTAMP in roles and not fmt.header and ts_nulls:
        raise UsageError(f"cannot write {fmt.name} ratings: some rows have a timestamp and some do not")
    texts = {
        USER: pl.col(USER),
        ITEM: pl.col(ITEM),
        RATING: _rating_text(ratings, fmt.decimal_ratings) if height else pl.col(RATING).cast(pl.Utf8),
        TIMESTAMP: pl.col(TIMESTAMP).cast(pl.Utf8).fill_null(""),
    }
    line = pl.concat_str([texts[r] for r in roles], separator=sep).alias(_LINE)
    header = ""
    if fmt.header:
        header = sep.join(str(mapping[r]) if isinstance(mapping[r], str) else r for r in roles) + "\n"
    return line, header


def _text(lines: pl.DataFrame) -> str:
    """The text of a one-column frame of lines: each line as it is (no quoting), ``\\n`` after each."""
    return lines.write_csv(**_PLAIN) if lines.height else ""


def format_ratings(df: pl.DataFrame, fmt: RatingsFormat) -> str:
    """The text of ``df`` in layout ``fmt`` (header line included when the layout has one)."""
    line, header = line_layout(df.get_column(RATING), df.get_column(TIMESTAMP), fmt)
    # One pre-joined text column written by polars: fast, and no quoting of any field.
    return header + _text(df.select(line))


def write_rows(df: pl.DataFrame, keep: np.ndarray | None, path: PathLike, fmt: RatingsFormat) -> None:
    """Write the rows of ``df`` where ``keep`` is true (every row when None), in their order, as text in
    layout ``fmt``, atomically; the lines go from the table to the file a slice of :data:`SLICE_ROWS` rows
    at a time (a ``.gz`` file is compressed reproducibly from the whole text)."""
    mask = None if keep is None else pl.Series(keep)
    ratings, stamps = df.get_column(RATING), df.get_column(TIMESTAMP)
    if mask is not None:  # the layout depends on the rows written (their ratings, whether they have times)
        ratings, stamps = ratings.filter(mask), stamps.filter(mask)
    line, header = line_layout(ratings, stamps, fmt)
    height = ratings.len()
    del ratings, stamps
    if str(path).endswith(".gz"):
        rows = df if mask is None else df.filter(mask)
        write_text_atomic(path, header + _text(rows.select(line)))
        return
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(header.encode())
            for start in range(0, df.height if height else 0, SLICE_ROWS):
                part = df.slice(start, SLICE_ROWS)
                if mask is not None:
                    part = part.filter(mask.slice(start, SLICE_ROWS))
                if part.height:
                    part.select(line).write_csv(fh, **_PLAIN)


__all__ = ["format_ratings", "line_layout", "write_rows"]
