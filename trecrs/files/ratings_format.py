"""The layouts of rating files and their detection: the :data:`FORMATS` registry (MovieLens 100K, 1M/10M,
20M+ csv, generic delimited text, Parquet), ``--columns`` mappings, separator and header sniffing."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from ..errors import InputError, UsageError
from ..schema import ITEM, RATING, TIMESTAMP, USER
from .columns import find_roles, normalise_columns
from .lines import LINE, _open_bytes, decode_text, head_bytes
from .parquet import parquet_columns

PathLike = str | os.PathLike
#: A column mapping as a user gives it: role -> header name or position counted from 1, or the command
#: line's ``"user=userId,item=movieId,rating=rating"``; None for the layout's own.
ColumnsSpec = str | Mapping[str, str | int] | None

ROLES: tuple[str, ...] = (USER, ITEM, RATING, TIMESTAMP)
REQUIRED_ROLES: tuple[str, ...] = (USER, ITEM, RATING)
#: Separators read as "any run of blanks".
WHITESPACE = (" ", "\t", None)


@dataclass(frozen=True)
class RatingsFormat:
    """How a ratings file is laid out, for reading and for writing files the same way.

    ``separator``: the field delimiter (``None`` or a blank = any run of spaces/tabs when reading; written
    as ``write_separator``). ``header``: the file starts with a header line. ``columns``: role -> column
    name (with a header) or 0-based index; roles absent from the mapping are absent from the file.
    ``decimal_ratings``: write ``4.0`` rather than ``4`` (MovieLens ``ratings.csv`` does).
    ``exact_fields``: the number of fields every line must have (``None`` = at least what the mapping needs).
    """

    name: str
    separator: str | None
    header: bool
    columns: tuple[tuple[str, str | int], ...]
    decimal_ratings: bool = False
    exact_fields: int | None = None
    header_names: tuple[str, ...] = ()

    @property
    def mapping(self) -> dict[str, str | int]:
        return dict(self.columns)

    @property
    def write_separator(self) -> str:
        return "\t" if self.separator is None else self.separator


_POSITIONAL = ((USER, 0), (ITEM, 1), (RATING, 2), (TIMESTAMP, 3))

#: The registry of known layouts; ``text`` is the generic one that ``columns=``/``separator=`` adapt.
FORMATS: dict[str, RatingsFormat] = {
    "ml100k": RatingsFormat("ml100k", "\t", False, _POSITIONAL, exact_fields=4),
    "ml1m": RatingsFormat("ml1m", "::", False, _POSITIONAL, exact_fields=4),
    "csv": RatingsFormat(
        "csv",
        ",",
        True,
        ((USER, "userId"), (ITEM, "movieId"), (RATING, "rating"), (TIMESTAMP, "timestamp")),
        decimal_ratings=True,
        header_names=("userId", "movieId", "rating", "timestamp"),
    ),
    "text": RatingsFormat("text", None, False, _POSITIONAL),
    "parquet": RatingsFormat(
        "parquet", None, True, ((USER, USER), (ITEM, ITEM), (RATING, RATING), (TIMESTAMP, TIMESTAMP))
    ),
}


def normalise_mapping(columns: ColumnsSpec) -> dict[str, str | int] | None:
    """``columns`` as role -> name or 0-based index (:func:`trecrs.files.columns.normalise_columns`); a
    mapping refused is a :class:`UsageError` about the argument ``columns``."""
    try:
        return normalise_columns(columns, ROLES, REQUIRED_ROLES, what="ratings column")
    except UsageError as exc:
        raise exc.about("columns") from None


def parse_columns(spec: str) -> dict[str, str | int]:
    """Parse a command-line column mapping: ``user=userId,item=movieId,rating=rating[,timestamp=ts]``
    (names, or positions counted from 1), or a positional list of roles ``user,item,_,rating``."""
    mapping = normalise_mapping(spec)
    assert mapping is not None  # only None maps to None
    return mapping


def _sniff_separator(line: str) -> str | None:
    if "::" in line:
        return "::"
    for sep in ("\t", ",", ";", "|"):
        if sep in line:
            return sep
    return " " if " " in line else None


def is_number(text: str) -> bool:
    """Whether ``text`` reads as a number (how a header line is told from a data line)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def first_content_line(path: PathLike) -> str | None:
    """The first content line, from the file's first 64 KB (whole lines, checked as text: a bad byte there
    is the file's first, so the error is the one reading the whole file would give)."""
    limit = 1 << 16
    head = head_bytes(path, limit + 1)
    if len(head) > limit:  # the file goes on: whole lines only, at least the first
        cut = head.rfind(b"\n", 0, limit)
        if cut >= 0:
            head = head[: cut + 1]
        else:
            data = _open_bytes(path)
            head = data[: data.find(b"\n") + 1 or len(data)]
    for raw in decode_text(head, path).split("\n"):
        s = raw.strip()
        if s and not s.startswith("#"):
            return s
    return None


def ratings_format(
    path: PathLike,
    fmt: str | RatingsFormat = "auto",
    *,
    columns: ColumnsSpec = None,
    separator: str | None = None,
) -> RatingsFormat:
    """The :class:`RatingsFormat` of ``path``: ``fmt`` by name, or detected when ``fmt="auto"``.

    Detection: ``*.parquet`` -> parquet; ``u.data``, ``*.base``, ``*.test`` -> ml100k; ``*.dat`` -> ml1m;
    otherwise the first content line decides: ``::`` -> ml1m; a MovieLens header ``userId,movieId,...``
    -> csv; a header line (a non-numeric rating field) -> text with a header; else positional text with
    the sniffed delimiter (tab, comma, semicolon, bar, space). ``columns``/``separator`` override the
    layout's mapping/delimiter.
    """
    if separator is not None and (separator == "\\t" or separator.lower() == "tab"):
        separator = "\t"
    if separator == "" or (separator is not None and ("\n" in separator or "\r" in separator)):
        raise UsageError(
            f"the separator must be a character or a word, not {separator!r}", arguments=["separator"]
        )
    mapping = normalise_mapping(columns)
    if isinstance(fmt, RatingsFormat):
        base = fmt
    elif fmt == "auto":
        base = _detect(path, separator, mapping)
    elif fmt in FORMATS:
        base = FORMATS[fmt]
    else:
        raise UsageError(f"unknown ratings format {fmt!r}; known: auto, {', '.join(FORMATS)}")
    if separator is not None:
        base = replace(base, separator=separator)
    if mapping is not None:
        named = any(isinstance(c, str) for c in mapping.values())
        header = base.header or named
        if base.name != "parquet" and any(isinstance(c, int) for c in mapping.values()) and named:
            raise UsageError("a column mapping uses either header names or positions, not both")
        base = replace(
            base,
            name=base.name if base.name in ("parquet", "csv", "text") else "text",
            header=header,
            columns=tuple((r, mapping[r]) for r in ROLES if r in mapping),
            exact_fields=None,
            header_names=base.header_names if named else (),
        )
    return base


def _detect(path: PathLike, separator: str | None, mapping: dict | None = None) -> RatingsFormat:
    name = Path(path).name
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith(".parquet"):
        if mapping is not None:
            return FORMATS["parquet"]
        # The roles' columns from the file's schema (schema names, MovieLens names or aliases), so that
        # files written in this layout keep the input's column names.
        names = tuple(parquet_columns(path))
        return replace(FORMATS["parquet"], columns=columns_from_header(path, names), header_names=names)
    if separator is None:
        if name == "u.data" or re.search(r"\.(base|test)$", name):
            return FORMATS["ml100k"]
        if name.endswith(".dat"):
            return FORMATS["ml1m"]
    line = first_content_line(path)
    if line is None:
        raise InputError(path, None, "empty file (no content lines)")
    sep = separator if separator is not None else _sniff_separator(line)
    if sep == "::" and separator is None:
        return FORMATS["ml1m"]
    fields = _split_one(line, sep)
    if [f.strip('"') for f in fields[:4]] == list(
        FORMATS["csv"].header_names[: len(fields[:4])]
    ) and sep == ",":
        return FORMATS["csv"]
    rating_pos = 2
    if mapping is not None:
        rating_pos = mapping[RATING] if isinstance(mapping[RATING], int) else -1
    if rating_pos < 0 or (len(fields) > rating_pos and not is_number(fields[rating_pos].strip('"'))):
        # A header line: map its names to roles (the mapping given, else the known aliases).
        names = tuple(f.strip('"') for f in fields)
        cols = () if mapping is not None else columns_from_header(path, names)
        return RatingsFormat("text", sep, True, cols, header_names=names)
    if sep == "\t" and len(fields) == 4 and separator is None:
        return FORMATS["ml100k"]
    return replace(FORMATS["text"], separator=sep)


def _split_one(line: str, sep: str | None) -> list[str]:
    if sep in WHITESPACE:
        return line.split()
    return [f.strip() for f in line.split(sep)]


def split_fields(sep: str | None) -> pl.Expr:
    """The fields of each content line (column ``line``) of a text ratings file: a blank separator splits
    on runs of blanks (spaces, tabs); any other on itself, the blanks and double quotes around each field
    not being part of its value."""
    line = pl.col(LINE)
    if sep in WHITESPACE:
        return line.str.replace_all(r"\s+", " ").str.split(" ")
    return line.str.split(sep).list.eval(pl.element().str.strip_chars().str.strip_chars('"'))


def field_positions(
    path: PathLike, spec: RatingsFormat, header: tuple[int, list[str]] | None = None
) -> dict[str, int]:
    """Role -> 0-based field of the layout ``spec``; a layout with a header names its columns in
    ``header`` (its line number and fields): a name it lacks is an error naming that line."""
    if header is None:
        return {role: int(col) for role, col in spec.mapping.items()}
    lineno, names = header
    positions: dict[str, int] = {}
    missing = []
    for role, col in spec.mapping.items():
        if isinstance(col, int):
            positions[role] = col
        elif col in names:
            positions[role] = names.index(col)
        else:
            missing.append(f"{role} ({col!r})")
    if missing:
        raise InputError(path, lineno, f"missing column(s) {', '.join(missing)} in the header {names}")
    return positions


def columns_from_header(path: PathLike, names: Sequence[str]) -> tuple[tuple[str, str], ...]:
    found = find_roles(
        names,
        ROLES,
        REQUIRED_ROLES,
        path=path,
        mapping_hint="give a column mapping: columns={'user': ..., 'item': ..., 'rating': ...}",
    )
    return tuple(found.items())
