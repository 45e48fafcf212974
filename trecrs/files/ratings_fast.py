"""Columnar reading of plain ratings text: polars' CSV parser over the whole file, its values checked at once.

The line-by-line reader (:func:`trecrs.files.ratings.text_layout`) is tolerant of layout: it strips each
line, drops blank and ``#`` lines, splits on runs of blanks (a blank separator) or on the separator with
the blanks and double quotes around each field dropped (any other). A file that needs none of that
tolerance splits the same way on one separator byte, so polars can parse its columns directly, with ids as
text, the rating as Float64 and the timestamp as Int64, the types the line-by-line reader casts them to.

:func:`plain_plan` tells such a file by single-byte searches: no blank but the separator, no ``#``, no
double quote, a carriage return only before a newline. What those cannot see shows in what polars parses:
a blank line, or a separator at the start of a line or doubled, leaves an empty field (null) before one
that is not; a line with too many fields makes polars refuse the file, one with too few leaves a required
column null. :func:`read_plain` returns None then, as for any value the checks refuse (an empty id, a
rating or timestamp polars cannot parse, a rating not finite or out of range): the caller runs the
line-by-line reader, whose error names the file, the line and the reason. On a plain file each row is a
line, so the line of a row is its index plus the header's line.

Asked for ``coded`` ids (:func:`read_plain`), polars parses the file in batches and each batch's ids become
UInt32 numbers as they come, so the ids' text is never held whole (a 100-million-rating file's ids as text
cost about four times their numbers). That holds only when every id is a plain decimal, the number's own
text (no sign, no leading zero, below 2**32): an id read back by a cast to text is then the id as written.
Any other id, or a file those batches refuse, is parsed again with ids as text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from ..ids import plain_decimal
from ..ranges import RATING_ABS_MAX
from ..schema import ITEM, RATING, TIMESTAMP, USER
from .lines import LINE, _open_bytes, check_text, is_stdin
from .ratings_format import WHITESPACE, PathLike, RatingsFormat, field_positions, split_fields

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

#: The ASCII bytes the line-by-line reader strips and splits on, besides the line end.
_BLANKS = (b" ", b"\t", b"\x0b", b"\x0c")
#: The UTF-8 lead bytes of the other characters it strips (Unicode White_Space) and of a byte order mark;
#: ``\xe2\x80`` covers more than the spaces U+2000-U+202F: such a file is merely read line by line.
_UNICODE_BLANKS = (
    b"\xc2\x85",
    b"\xc2\xa0",
    b"\xe1\x9a\x80",
    b"\xe2\x80",
    b"\xe2\x81\x9f",
    b"\xe3\x80\x80",
    b"\xef\xbb\xbf",
)
#: The types polars parses each role's column into (:func:`trecrs.files.ratings.typed`'s casts).
_DTYPES: dict[str, PolarsDataType] = {USER: pl.Utf8, ITEM: pl.Utf8, RATING: pl.Float64, TIMESTAMP: pl.Int64}
#: The column flagging a row whose ids are not plain decimals (a coded parse).
_ODD = "_odd"
#: The size from which a file is worth reading with ``coded`` ids (:func:`large`): below it the ids' text
#: costs little memory, and the batches' start-up costs more than the time they save (u.data is 2 MB).
CODED_MIN_BYTES = 32 << 20


@dataclass(frozen=True)
class Plan:
    """How polars splits a plain file: on the byte ``byte``, the layout's fields being every ``stride``-th
    column (``::`` is split on ``:``, its fields every second column); ``blanks``: the layout's separator
    is a run of blanks, so an empty field is no value but a run to collapse."""

    byte: str
    stride: int
    blanks: bool


def large(path: PathLike) -> bool:
    """Whether ``path`` is a file of at least :data:`CODED_MIN_BYTES`, worth reading with coded ids."""
    return not is_stdin(path) and os.path.isfile(path) and os.path.getsize(path) >= CODED_MIN_BYTES


def plain_plan(data: bytes, sep: str | None) -> Plan | None:
    """The :class:`Plan` of ``data`` (checked text) with the separator ``sep``, or None when a line may
    need the line-by-line reader's tolerance."""
    if not data or data[:1] in b" \t\r\n" or b"#" in data:
        return None
    if not data.isascii() and any(u in data for u in _UNICODE_BLANKS):
        return None
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):  # a CR inside a line is a blank
        return None
    if sep in WHITESPACE:
        byte = b"\t" if b"\t" in data else b" "
        if any(b in data for b in _BLANKS if b != byte):
            return None
        return Plan(byte.decode(), 1, True)
    assert sep is not None  # None is a blank separator
    raw = sep.encode()
    one = raw[:1]
    if raw != one * len(raw) or not one.isascii() or any(b in data for b in (*_BLANKS, b'"')):
        return None
    # "::" split on ":" gives the fields every second column when every run of ":" is a run of "::"
    if len(raw) > 1 and data.count(one) != len(raw) * data.count(raw):
        return None
    return Plan(one.decode(), len(raw), False)


def read_plain(
    path: PathLike, spec: RatingsFormat, *, coded: bool = False
) -> tuple[pl.DataFrame, int] | None:
    """The ratings ``user item rating timestamp`` of the text file ``path`` in layout ``spec`` and the line
    of its first row, or None when the file is not plain or a value is refused (see the module's doc).
    ``coded``: ids as UInt32 numbers when every id is a plain decimal (see the module's doc).

    Raises what the line-by-line reader raises first on any file: text that is not UTF-8 or holds a NUL,
    and, with a header, a column the header lacks.
    """
    data = _open_bytes(path)
    check_text(data, path)
    plan = plain_plan(data, spec.separator)
    if plan is None:
        return None
    end = data.find(b"\n")
    first = data[: end if end >= 0 else len(data)].decode().rstrip("\r")
    header = None
    if spec.header:
        line = pl.DataFrame({LINE: [first]}).select(pl.col(LINE).str.strip_chars())  # as read_lines strips
        names = line.select(split_fields(spec.separator)).item().to_list()
        header = (1, names)
    positions = field_positions(path, spec, header)
    fields = max(positions.values()) + 1
    exact = spec.exact_fields is not None and not spec.header
    if exact:
        fields = max(fields, spec.exact_fields or 0)
    elif plan.blanks:  # every field is read: an empty one in the middle of a line shows as a null
        fields = max(fields, len(first.split(plan.byte)))
    if len(set(positions.values())) < len(positions):
        return None
    if not is_stdin(path) and not str(path).endswith(".gz"):
        del data  # polars maps the file itself: the bytes are not held twice
        source: str | bytes = os.fspath(path)
    else:
        source = data
    args = (source, plan, positions, fields)
    table = _parse_coded(*args, header=header is not None, ragged=not exact) if coded else None
    if table is None:
        table = _parse(*args, header=header is not None, ragged=not exact)
    if table is None or table.height == 0 or refused(table, table.columns if plan.blanks else None):
        return None
    out = [pl.col(r) if r in positions else pl.lit(None, d).alias(r) for r, d in _DTYPES.items()]
    return table.select(out), 1 + (header is not None)


def _layout(
    plan: Plan, positions: dict[str, int], fields: int, *, header: bool, ragged: bool
) -> tuple[list[str], list[int], dict]:
    """The columns of ``fields`` fields per line (named by their role, the others ``_N``), the positions
    of those read and polars' CSV options of a plain file."""
    role_of = {p * plan.stride: r for r, p in positions.items()}
    width = (fields - 1) * plan.stride + 1
    schema = {role_of.get(c, f"_{c}"): _DTYPES[role_of[c]] if c in role_of else pl.Utf8 for c in range(width)}
    # every column is read unless a line may hold more fields than the layout's: polars accepts a line of
    # too many fields silently when some columns are left out (the "::" layout's empty ones between fields)
    read = sorted(role_of) if ragged and not plan.blanks else range(width)
    options = {
        "has_header": False,
        "separator": plan.byte,
        "quote_char": None,
        "skip_rows": int(header),
        "schema": schema,
        "truncate_ragged_lines": ragged and not plan.blanks,
        "missing_columns": "insert",
        "glob": False,
    }
    return list(schema), list(read), options


def _parse(
    source: str | bytes, plan: Plan, positions: dict[str, int], fields: int, *, header: bool, ragged: bool
) -> pl.DataFrame | None:
    """The columns of ``fields`` fields per line, named by their role (the others ``_N``; read only with
    ``plan.blanks``), parsed by polars; None when it refuses the file (a value of the wrong type, too many
    fields on a line)."""
    _, read, options = _layout(plan, positions, fields, header=header, ragged=ragged)
    try:
        return pl.read_csv(source, columns=read, **options)
    except pl.exceptions.PolarsError:
        return None


def _parse_coded(
    source: str | bytes, plan: Plan, positions: dict[str, int], fields: int, *, header: bool, ragged: bool
) -> pl.DataFrame | None:
    """:func:`_parse`'s columns with the ids as UInt32, each batch's ids cast as it is parsed; None when
    an id is not a plain decimal below 2**32 (or polars refuses the file): then they are parsed as text."""
    names, read, options = _layout(plan, positions, fields, header=header, ragged=ragged)
    ids = [USER, ITEM]
    columns = [
        pl.col(c).cast(pl.UInt32, strict=False) if c in ids else pl.col(c)
        for c in map(names.__getitem__, read)
    ]
    flag = not_plain_decimal(ids)
    try:
        lazy = pl.scan_csv(source, **options).select(*columns, flag.alias(_ODD))
        table = lazy.collect(engine="streaming")
    except pl.exceptions.PolarsError:
        return None
    if table.height == 0 or table.get_column(_ODD).any():
        return None
    return table.drop(_ODD)


def not_plain_decimal(columns: list[str]) -> pl.Expr:
    """Whether a row's text id of ``columns`` is not a plain decimal below 2**32
    (:func:`~trecrs.ids.plain_decimal`): a cast reads "+7" and "007" as 7, and such ids are not their
    number's text."""
    return ~pl.all_horizontal(*(plain_decimal(pl.col(c)) for c in columns))


def refused(df: pl.DataFrame, fields: list[str] | None = None) -> bool:
    """Whether a row of ratings ``df`` fails a check of the line-by-line reader (an empty id, a rating that
    is not a finite number in range) or has an empty field of ``fields`` (a line's fields, in order) before
    one that is not."""
    user, item, rating = pl.col(USER), pl.col(ITEM), pl.col(RATING)
    bad = [
        user.is_null(),
        item.is_null(),
        rating.is_null(),
        ~rating.is_finite(),
        rating.abs() > RATING_ABS_MAX,
    ]
    bad += [pl.col(c) == "" for c in (USER, ITEM) if df.schema[c] == pl.Utf8]
    names = fields or []
    bad += [pl.col(a).is_null() & pl.col(b).is_not_null() for a, b in zip(names, names[1:], strict=False)]
    return bool(df.select(pl.any_horizontal(bad).any()).item())
