"""Columnar reading of large plain score files with coded ids: polars' CSV parser in batches.

The score reader (:func:`~trecrs.files.score_formats.read_delimited`) reads each line as text and splits
it, so a top-100 file for half a million users (48 million lines) holds its ids as text, about four
times their numbers. A large file (:func:`~trecrs.files.ratings_fast.large`) in a delimited layout
(whitespace, CSV, TSV) whose lines need none of that reader's tolerance
(:func:`~trecrs.files.ratings_fast.plain_plan`: no comment, quote or stray blank) and hold exactly
``user item score`` (headerless, or under a header naming those three columns) is parsed by polars in
streaming batches instead, each batch's ids cast to UInt32 as the coded ratings reader casts them
(:func:`~trecrs.files.ratings_fast.read_plain`), so the ids' text is never held whole. A score is the
Float64 cast of its field's text, as the text reader casts it; a row's line is its index plus the
header's line (a plain file has no blank or comment line).

Anything else is None, and the caller reads the file as text, whose errors name the file, the line and
the reason: an id that is not a plain decimal below 2**32 (the id would not be its number's text), a
missing or extra field, a score that is not a finite number, a (user, item) pair twice.
"""

from __future__ import annotations

import os

import numpy as np
import polars as pl

from ..errors import InputError
from ..schema import ITEM, RANK, SCORE, USER
from .lines import LINENO, _open_bytes, check_text, first_repeat, is_stdin
from .ratings_fast import large, not_plain_decimal, plain_plan
from .score_formats import ScoreFormat, has_header, positional_roles, roles_of_names

#: The layouts read this way: one separator between the fields of a line.
DELIMITED = ("whitespace", "csv", "tsv")
_BAD = "_bad"


def read_coded_scores(path: os.PathLike | str, spec: ScoreFormat, kind: str | None) -> pl.DataFrame | None:
    """``user, item, score, lineno`` of the large plain score file ``path`` (layout ``spec``), the ids
    UInt32, or None when the file is small, not plain, not ``user item score``, or refused (see the
    module's doc). Raises what the text reader raises first: text that is not UTF-8 or holds a NUL."""
    if spec.name not in DELIMITED or kind == RANK or not large(path):
        return None
    data = _open_bytes(path)
    check_text(data, path)
    plan = plain_plan(data, spec.separator)
    if plan is None or plan.stride != 1:
        return None
    end = data.find(b"\n")
    fields = data[: end if end >= 0 else len(data)].decode().rstrip("\r").split(plan.byte)
    header = has_header(fields, spec, kind, None)
    try:
        roles = roles_of_names(fields, None, path=path, line=1) if header else positional_roles(spec, kind)
    except InputError:
        return None  # the text reader raises it, after the checks it makes first
    if len(fields) != 3 or set(roles) != {USER, ITEM, SCORE} or sorted(roles.values()) != [0, 1, 2]:
        return None
    if not is_stdin(path) and not str(path).endswith(".gz"):
        del data  # polars maps the file itself: the bytes are not held twice
        source: str | bytes = os.fspath(path)
    else:
        source = data
    table = _parse(source, plan.byte, dict(sorted(roles.items(), key=lambda rk: rk[1])), header)
    if table is None or table.height == 0 or table.get_column(_BAD).any():
        return None
    key = table.get_column(USER).to_numpy().astype(np.uint64)
    key <<= np.uint64(32)
    key |= table.get_column(ITEM).to_numpy()
    if first_repeat(key) is not None:
        return None
    del key
    first = 1 + int(header)
    lines = pl.int_range(first, first + table.height, dtype=pl.UInt32, eager=True)
    return table.select(USER, ITEM, SCORE).with_columns(lines.alias(LINENO))


def _parse(source: str | bytes, byte: str, roles: dict[str, int], header: bool) -> pl.DataFrame | None:
    """The columns ``user, item, score`` (UInt32, UInt32, Float64) and ``_bad`` (an id not a plain
    decimal, a field missing, a score not a finite number), parsed in batches; None when polars refuses
    the file (a line of more than three fields)."""
    options: dict = {
        "has_header": False,
        "separator": byte,
        "quote_char": None,
        "skip_rows": int(header),
        "schema": {role: pl.Utf8 for role in roles},
        "truncate_ragged_lines": False,
        "missing_columns": "insert",
        "glob": False,
    }
    score = pl.col(SCORE).cast(pl.Float64, strict=False)
    bad = not_plain_decimal([USER, ITEM]) | score.is_null() | ~score.is_finite()
    ids = [pl.col(c).cast(pl.UInt32, strict=False) for c in (USER, ITEM)]
    try:
        lazy = pl.scan_csv(source, **options).select(*ids, score, bad.alias(_BAD))
        return lazy.collect(engine="streaming")
    except pl.exceptions.PolarsError:
        return None
