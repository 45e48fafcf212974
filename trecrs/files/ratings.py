"""Reading and writing rating files: MovieLens layouts, any delimited text with a column mapping, Parquet.

A ratings table has the columns of :data:`trecrs.schema.RATINGS_SCHEMA`: ``user`` and ``item`` (strings),
``rating`` (float64) and ``timestamp`` (int64, null when the file has none). Rows keep the file's order;
splitters depend on it (MovieLens 100K's predefined splits are defined by line position in ``u.data``).

Each file layout is a :class:`RatingsFormat` in the :data:`FORMATS` registry:

=========  ======================================  ====================================================
name       layout                                  files
=========  ======================================  ====================================================
ml100k     ``user<TAB>item<TAB>rating<TAB>ts``      MovieLens 100K ``u.data``, ``u1.base``, ``ua.test``...
ml1m       ``user::item::rating::ts``               MovieLens 1M / 10M ``ratings.dat``
csv        header ``userId,movieId,rating,timestamp``  MovieLens 20M / 25M / 32M ``ratings.csv``
text       any delimiter, header or positional     anything else (``columns=`` maps the columns)
parquet    columns by name                         ``*.parquet``
=========  ======================================  ====================================================

Reading is tolerant of layout (CRLF, blank lines, ``#`` comment lines, ``.gz``) and strict about content:
a missing column, a non-numeric or non-finite rating, a non-integer timestamp or an empty id raises
:class:`~trecrs.errors.InputError` naming the file, the line and the reason. A (user, item) pair rated
twice is an error naming both lines, unless a ``dedupe`` policy (``first``, ``last``, ``mean``) is given;
then how many rows were merged is reported.

A plain text file (none of that tolerance needed) is parsed by columns (:mod:`.ratings_fast`), a Parquet
file in its own types; the line-by-line reader runs for the rest, and to name the line of an error.

Writing (:func:`write_ratings`) is atomic and uses the layout a file was read with, so a split of
``u.data`` is written as ``u.data``-style lines.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import polars as pl

from ..errors import InputError, UsageError, warn
from ..ids import natural_sort, pair_codes
from ..ranges import RATING_ABS_MAX, rating_reason
from ..schema import ITEM, RATING, RATINGS_SCHEMA, TIMESTAMP, USER
from .columns import find_roles
from .lines import LINE as _LINE
from .lines import LINENO as _LINENO
from .lines import Check, describe, first_repeat, raise_first, read_lines
from .output import atomic_path
from .parquet import parquet_columns, read_parquet
from .ratings_fast import read_plain, refused
from .ratings_format import (
    FORMATS,
    REQUIRED_ROLES,
    ROLES,
    ColumnsSpec,
    RatingsFormat,
    columns_from_header,
    field_positions,
    normalise_mapping,
    parse_columns,
    ratings_format,
    split_fields,
)
from .ratings_write import format_ratings, write_rows

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

PathLike = str | os.PathLike
LineOf = Callable[[dict], "int | None"]  # a row -> its line number (None: a Parquet row)
LineAt = Callable[[int], int]  # a row's 0-based index -> its line (its row, counted from 1, in Parquet)
TextOf = Callable[[dict], str]  # a row -> the text an error quotes

DEDUPE_POLICIES: tuple[str, ...] = ("first", "last", "mean")
_PAIR_SEEDS = (0x7E5, 0x51D)  # any two seeds: the hash only tells whether a pair may repeat

# --------------------------------------------------------------------------------------------- reading


def read_ratings(
    path: PathLike,
    *,
    fmt: str | RatingsFormat = "auto",
    columns: ColumnsSpec = None,
    separator: str | None = None,
    dedupe: str | None = None,
    report: Callable[[str], None] | None = None,
    roles: Sequence[str] = ROLES,
    coded: bool = False,
) -> pl.DataFrame:
    """Read a ratings file into a DataFrame ``user item rating timestamp`` (``schema.RATINGS_SCHEMA``).

    ``fmt``: a :data:`FORMATS` name, a :class:`RatingsFormat`, or ``"auto"`` (see :func:`ratings_format`).
    ``columns``: role -> column name or position (counted from 1), or a list giving the role of each position
    (``["user", "item", "_", "rating"]``). ``separator``: the delimiter of generic text. ``dedupe``: what
    to do with a (user, item) rated more than once: ``None`` (an error naming both lines), ``"first"`` /
    ``"last"`` (keep that occurrence, at its own position), ``"mean"`` (one row at the first occurrence's
    position holding the mean rating and the latest timestamp). ``report`` receives a one-line message
    with the count of merged rows (default: a :class:`UserWarning`). ``roles``: the columns returned, in
    this order; every column is checked whichever are returned. ``coded``: the ids of a plain text file
    whose ids are all plain decimals below 2**32 come as UInt32 numbers, never held as text (a cast to
    text gives each id as written; :mod:`.ratings_fast`); other files' ids are strings as usual.

    Rows keep the file's order. Ids are strings exactly as written (``"007"`` stays ``"007"``). A text file
    is parsed column by column when none of its lines needs the tolerance of layout above
    (:mod:`.ratings_fast`), else, and to name the line of an error, line by line.
    """
    if dedupe is not None and dedupe not in DEDUPE_POLICIES:
        raise UsageError(f"unknown dedupe policy {dedupe!r}; use one of {', '.join(DEDUPE_POLICIES)}")
    if not set(roles) <= set(ROLES):
        raise UsageError(f"ratings have the columns {', '.join(ROLES)}, not {', '.join(roles)}")
    spec = ratings_format(path, fmt, columns=columns, separator=separator)
    if spec.name == "parquet":
        df, line_at = _read_parquet(path, spec)
    else:
        df, line_at = _read_text(path, spec, coded=coded)
    unit = "row" if spec.name == "parquet" else "line"
    return _dedupe(df, path, dedupe, report, unit=unit, line_at=line_at).select(roles)


def _read_text(path: PathLike, spec: RatingsFormat, *, coded: bool = False) -> tuple[pl.DataFrame, LineAt]:
    plain = read_plain(path, spec, coded=coded)
    if plain is not None:
        df, first = plain
        return df, lambda i: i + first
    lines, to_raw, count = text_layout(read_lines(path), path, spec)
    raw = to_raw(lines)
    raise_first(raw, [count])
    df = _validate(
        raw.drop("fields"), path, line_of=lambda r: r[_LINENO], text_of=lambda r: describe(r[_LINE])
    )
    numbers = df.get_column(_LINENO)
    return df.drop(_LINENO), lambda i: int(numbers[i])


def text_layout(
    lines: pl.DataFrame, path: PathLike, spec: RatingsFormat
) -> tuple[pl.DataFrame, Callable, Check]:
    """The content lines of a text ratings file after its header line, ``to_raw`` (content lines ->
    ``lineno line fields _user _item _rating _timestamp``, every value as written) and the check of the
    field count, the first check of every line."""
    sep = spec.separator
    fields = split_fields(sep)
    if spec.header:
        head = lines.head(1).with_columns(fields.alias("fields")).row(0, named=True)
        positions = field_positions(path, spec, (head[_LINENO], list(head["fields"])))
        lines = lines.slice(1)
        if lines.height == 0:
            raise InputError(path, None, "no ratings after the header line")
    else:
        positions = field_positions(path, spec)
    n = pl.col("fields").list.len()
    if spec.exact_fields is not None and not spec.header:
        # Fixed MovieLens layouts: 4 fields, or 3 when the file carries no timestamps at all.
        ok = n.is_in([spec.exact_fields, spec.exact_fields - 1])
        want = f"{spec.exact_fields - 1} or {spec.exact_fields} fields (user item rating [timestamp])"
    else:
        need = max(p for r, p in positions.items() if r in REQUIRED_ROLES) + 1
        ok = n >= need
        want = f"at least {need} fields"

    def count_error(bad: dict) -> InputError:
        found = f"found {len(bad['fields'])}: {describe(bad[_LINE])!r}"
        return InputError(path, bad[_LINENO], f"expected {want} separated by {_sep_name(sep)}, {found}")

    exprs = [pl.col(_LINENO), pl.col(_LINE), pl.col("fields")]
    for role in ROLES:
        if role in positions:
            exprs.append(pl.col("fields").list.get(positions[role], null_on_oob=True).alias(f"_{role}"))
        else:
            exprs.append(pl.lit(None, dtype=pl.Utf8).alias(f"_{role}"))
    return lines, lambda part: part.with_columns(fields.alias("fields")).select(exprs), (~ok, count_error)


def _read_parquet(path: PathLike, spec: RatingsFormat) -> tuple[pl.DataFrame, LineAt]:
    df = _parquet_typed(path, spec)
    if df is None:  # values to parse as text, or an error to name
        table, exprs = parquet_layout(path, spec)
        raw = table.select(exprs)
        df = _validate(raw, path, line_of=lambda r: None, text_of=lambda r: f"row {r[_LINENO]}").drop(_LINENO)
    return df, lambda i: i + 1


def _parquet_mapping(path: PathLike, spec: RatingsFormat) -> dict[str, str]:
    """Role -> column of a Parquet ratings file: the layout's, or when the default mapping (the schema's
    names) does not fit the file, the MovieLens names and aliases found in it."""
    names = parquet_columns(path)
    mapping = spec.mapping
    if spec.columns == FORMATS["parquet"].columns and not all(c in names for c in mapping.values()):
        mapping = dict(columns_from_header(path, names))
    # A position is no Parquet name: read_parquet reports it as a missing column.
    return cast("dict[str, str]", mapping)


def parquet_layout(path: PathLike, spec: RatingsFormat) -> tuple[pl.DataFrame, list[pl.Expr]]:
    """The columns of a Parquet ratings file that the layout maps, with ``lineno`` (the row), and the
    expressions of the raw columns (``_user _item _rating _timestamp`` as text)."""
    names_of = _parquet_mapping(path, spec)
    # Values are read as text and parsed by _validate, as for text files: a float32 rating 3.7 stays 3.7.
    dtypes: dict[str, PolarsDataType | None] = {
        c: None if r == TIMESTAMP else pl.Utf8 for r, c in names_of.items()
    }
    table = read_parquet(path, dtypes, what="ratings", not_null=())
    table = table.with_row_index(_LINENO, offset=1)
    exprs = [pl.col(_LINENO), pl.lit("").alias(_LINE)]
    for role in ROLES:
        if role not in names_of:
            exprs.append(pl.lit(None, dtype=pl.Utf8).alias(f"_{role}"))
            continue
        col = pl.col(names_of[role])
        if role == TIMESTAMP and table.schema[names_of[role]].is_temporal():
            col = col.cast(pl.Datetime("us")).dt.epoch("s")
        exprs.append(col.cast(pl.Utf8).alias(f"_{role}"))
    return table, exprs


def _parquet_typed(path: PathLike, spec: RatingsFormat) -> pl.DataFrame | None:
    """The ratings of a Parquet file whose ratings are numbers and timestamps integers or dates, cast
    from their own types to what :func:`parquet_layout`'s text parses to (a float64 is the float its
    shortest text reads back as; a float32 goes through its text, so 3.7 stays 3.7); None for other
    types, or when any value is refused (then :func:`parquet_layout`'s rows name it)."""
    names_of = _parquet_mapping(path, spec)
    dtypes: dict[str, PolarsDataType | None] = {
        c: pl.Utf8 if r in (USER, ITEM) else None for r, c in names_of.items()
    }
    try:
        table = read_parquet(path, dtypes, what="ratings", not_null=())
    except InputError:
        return None
    schema = table.schema
    kind = schema[names_of[RATING]]
    if kind == pl.Float64 or kind.is_integer():
        rating = pl.col(names_of[RATING]).cast(pl.Float64)
    elif kind.is_float() or kind.is_decimal():
        rating = pl.col(names_of[RATING]).cast(pl.Utf8).cast(pl.Float64, strict=False)
    else:
        return None
    stamp = pl.lit(None, pl.Int64)
    if TIMESTAMP in names_of:
        kind = schema[names_of[TIMESTAMP]]
        stamp = pl.col(names_of[TIMESTAMP])
        if kind.is_temporal():
            stamp = stamp.cast(pl.Datetime("us")).dt.epoch("s")
        elif not kind.is_integer():
            return None
        stamp = stamp.cast(pl.Int64, strict=False)
    df = table.select(
        pl.col(names_of[USER]).alias(USER),
        pl.col(names_of[ITEM]).alias(ITEM),
        rating.alias(RATING),
        stamp.alias(TIMESTAMP),
    )
    if (
        TIMESTAMP in names_of
        and table.get_column(names_of[TIMESTAMP]).null_count() < df.null_count()[TIMESTAMP][0]
    ):
        return None  # a timestamp beyond 64 bits
    return None if refused(df) else df


def typed(raw: pl.DataFrame) -> pl.DataFrame:
    """``raw`` with ``rating`` (Float64) and ``timestamp`` (Int64) parsed from their text (null: not one)."""
    return raw.with_columns(
        pl.col(f"_{RATING}").cast(pl.Float64, strict=False).alias(RATING),
        pl.col(f"_{TIMESTAMP}").cast(pl.Int64, strict=False).alias(TIMESTAMP),
    )


def value_checks(path: PathLike, *, line_of: LineOf, text_of: TextOf) -> list[Check]:
    """The checks of ids, ratings and timestamps on :func:`typed` rows, in the order they run: an empty
    user or item id, a rating that is not a finite number or is out of range, a non-integer timestamp."""

    def empty(role: str) -> Check:
        bad = pl.col(f"_{role}").is_null() | (pl.col(f"_{role}") == "")
        return bad, lambda r: InputError(path, line_of(r), f"empty {role} id: {text_of(r)!r}")

    def not_number(r: dict) -> InputError:
        what = "not a number" if r[RATING] is None else "not a finite number"
        return InputError(path, line_of(r), f"rating is {what}: {r['_' + RATING]!r} in {text_of(r)!r}")

    def huge(r: dict) -> InputError:
        reason, line = rating_reason(r["_" + RATING]), line_of(r)  # a Parquet file has rows: the row leads
        return InputError(
            path, line, f"{reason}: {text_of(r)!r}" if line is not None else f"{text_of(r)}: {reason}"
        )

    def timestamp(r: dict) -> InputError:
        return InputError(
            path, line_of(r), f"timestamp must be an integer, found {r['_' + TIMESTAMP]!r} in {text_of(r)!r}"
        )

    has_ts = pl.col(f"_{TIMESTAMP}").is_not_null() & (pl.col(f"_{TIMESTAMP}") != "")
    return [
        empty(USER),
        empty(ITEM),
        (pl.col(RATING).is_null() | ~pl.col(RATING).is_finite(), not_number),
        (pl.col(RATING).abs() > RATING_ABS_MAX, huge),
        (has_ts & pl.col(TIMESTAMP).is_null(), timestamp),
    ]


def _validate(raw: pl.DataFrame, path: PathLike, *, line_of: LineOf, text_of: TextOf) -> pl.DataFrame:
    """Check ids, ratings and timestamps; cast to the ratings schema (keeping ``lineno`` for duplicates)."""
    df = typed(raw)
    raise_first(df, value_checks(path, line_of=line_of, text_of=text_of))
    return df.select(
        pl.col(_LINENO), pl.col(f"_{USER}").alias(USER), pl.col(f"_{ITEM}").alias(ITEM), RATING, TIMESTAMP
    )


def duplicate_error(path: PathLike, unit: str, first: dict, second: dict) -> InputError:
    """The error of a (user, item) pair rated twice: ``first`` and ``second`` are the two rows (``lineno``,
    ``user``, ``item``); a text file's error names the second line, a Parquet file's (``unit`` row) both rows."""
    where = f"{unit}s {first[_LINENO]} and {second[_LINENO]} (choose a policy: dedupe='first'|'last'|'mean')"
    reason = f"duplicate rating for user {second[USER]!r}, item {second[ITEM]!r}: {where}"
    return InputError(path, None if unit == "row" else second[_LINENO], reason)


def repeated_pair(users: pl.Series, items: pl.Series) -> tuple[int, int] | None:
    """``(first, second)``: the 0-based rows of the earliest (user, item) pair that repeats an earlier
    row's, and of that pair's first row (None when every pair is distinct; the rule of
    :func:`~trecrs.files.lines.first_repeat`).

    A 64-bit hash of each pair, sorted, tells whether any pair may repeat; only then are the pairs coded
    exactly (:func:`~trecrs.ids.pair_codes`) to find the rows: a hash collision costs time, never an error.
    """
    if users.len() < 2:
        return None
    hashed = users.hash(_PAIR_SEEDS[0]) ^ items.hash(_PAIR_SEEDS[1])
    ordered = hashed.sort().to_numpy()
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    return first_repeat(pair_codes(users, items))


def _dedupe(
    df: pl.DataFrame,
    path: PathLike,
    policy: str | None,
    report: Callable[[str], None] | None,
    *,
    unit: str,
    line_at: LineAt,
) -> pl.DataFrame:
    pair = repeated_pair(df.get_column(USER), df.get_column(ITEM))
    if pair is not None:
        df = df.with_columns(pl.col(USER, ITEM).cast(pl.Utf8))  # the ids an error or a merge names
        if policy is None:
            first, second = ({**df.row(i, named=True), _LINENO: line_at(i)} for i in pair)
            raise duplicate_error(path, unit, first, second)
        df = _merge_repeats(df, path, policy, report)
    coded = df.schema[USER] == pl.UInt32  # a coded read's ids stay numbers
    return df.select(
        [pl.col(c) if c in (USER, ITEM) and coded else pl.col(c).cast(t) for c, t in RATINGS_SCHEMA.items()]
    )


def _merge_repeats(
    df: pl.DataFrame, path: PathLike, policy: str, report: Callable[[str], None] | None
) -> pl.DataFrame:
    """``df`` with the rows of each repeated (user, item) merged by ``policy``, reported in one line."""
    # the pairs are compared as integer codes (a struct of two strings costs several times the memory)
    key = pl.col("_pair")
    df = df.with_columns(pl.Series("_pair", pair_codes(df.get_column(USER), df.get_column(ITEM))))
    n_dup = df.select(key.is_duplicated().sum()).item()
    before = df.height
    if policy == "first":
        df = df.filter(key.is_first_distinct())
    elif policy == "last":
        df = df.filter(key.is_last_distinct())
    else:  # mean: one row at the first occurrence, mean rating, latest timestamp
        df = df.with_columns(
            pl.col(RATING).mean().over(key),
            pl.col(TIMESTAMP).max().over(key),
        ).filter(key.is_first_distinct())
    merged = before - df.height
    groups = n_dup - merged
    msg = (
        f"{path}: {merged} duplicate rating row(s) merged into {groups} (user, item) pair(s) "
        f"(dedupe={policy}); {df.height} ratings kept"
    )
    if report is None:
        warn(msg)
    else:
        report(msg)
    return df.drop("_pair")


def as_ratings(data: object, columns: ColumnsSpec = None) -> pl.DataFrame:
    """Accept a ratings DataFrame (polars or pandas) or a path; return it with the ratings schema dtypes.

    A frame's columns take their roles by name (:func:`~trecrs.files.columns.find_roles`: ``userId``,
    ``movieId``, ``rating``...) unless ``columns`` maps them (role -> column name or position counted
    from 1, or the command line's ``"user=userId,item=movieId,rating=rating"``); a path is read by
    :func:`read_ratings` with ``columns``. A frame without ``timestamp`` gets a null one; ids are cast
    to strings.

    >>> as_ratings(pl.DataFrame({"userId": [1], "movieId": [31], "rating": [2.5]})).rows()
    [('1', '31', 2.5, None)]
    """
    if isinstance(data, str | os.PathLike):
        return read_ratings(data, columns=columns)
    if not isinstance(data, pl.DataFrame):
        try:
            data = pl.from_pandas(data)
        except (TypeError, ValueError):
            raise UsageError(
                f"ratings: expected a path or a polars/pandas DataFrame, got {type(data).__name__}"
            ) from None
    mapping = normalise_mapping(columns)
    if mapping is None:
        found = find_roles(
            data.columns,
            ROLES,
            REQUIRED_ROLES,
            what="the ratings DataFrame",
            mapping_hint="give columns='user=COLUMN,item=COLUMN,rating=COLUMN'",
        )
    else:
        found = {role: data.columns[c] if isinstance(c, int) else c for role, c in mapping.items()}
        absent = [c for c in found.values() if c not in data.columns]
        if absent:
            raise InputError(
                None,
                None,
                f"ratings DataFrame lacks column(s) {absent} named by columns=; has {data.columns}",
            )
    cols = []
    for name, dtype in RATINGS_SCHEMA.items():
        cols.append((pl.col(found[name]) if name in found else pl.lit(None)).cast(dtype).alias(name))
    return data.select(cols)


# --------------------------------------------------------------------------------------------- writing


def write_ratings(
    df: pl.DataFrame,
    path: PathLike,
    *,
    fmt: str | RatingsFormat | None = None,
    sort: bool = False,
) -> pl.DataFrame:
    """Write ratings atomically in layout ``fmt`` (a :data:`FORMATS` name or the :class:`RatingsFormat` a
    file was read with); returns the rows written, in file order.

    ``fmt=None`` picks by name: ``*.parquet`` parquet, ``*.dat`` ml1m, ``*.csv`` csv, else ml100k.
    Ratings are written as integers when integral (``4.0`` in the csv layout, as MovieLens does), else
    with the shortest text that reads back as the same float64. Rows keep their order unless ``sort``
    (natural (user, item) order). A ``.gz`` name is gzip-compressed reproducibly.
    """
    df = as_ratings(df)
    if sort and df.height:
        df = natural_sort(df, [USER, ITEM])
    if fmt is None:
        name = str(path)[:-3] if str(path).endswith(".gz") else str(path)
        fmt = {".parquet": "parquet", ".dat": "ml1m", ".csv": "csv"}.get(Path(name).suffix, "ml100k")
    if isinstance(fmt, str):
        if fmt not in FORMATS:
            raise UsageError(f"unknown ratings format {fmt!r}; known: {', '.join(FORMATS)}")
        fmt = FORMATS[fmt]
    if fmt.name == "parquet":
        mapping = fmt.mapping
        out = df.select([pl.col(r).alias(str(mapping.get(r, r))) for r in ROLES if r in mapping])
        with atomic_path(path) as tmp:
            out.write_parquet(tmp, statistics=False)
        return df
    write_rows(df, None, path, fmt)
    return df


def _sep_name(sep: str | None) -> str:
    return {None: "blanks", " ": "blanks", "\t": "tabs", ",": "commas", "::": "'::'"}.get(sep, repr(sep))


__all__ = [
    "DEDUPE_POLICIES",
    "FORMATS",
    "ColumnsSpec",
    "RatingsFormat",
    "as_ratings",
    "format_ratings",
    "parse_columns",
    "ratings_format",
    "read_ratings",
    "write_ratings",
]
