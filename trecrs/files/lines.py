"""Text files as content lines: blank and ``#`` lines dropped, line numbers kept for error messages.

Every text input trecrs reads is opened here (:func:`_open_bytes`); the path ``-`` is standard input
(:data:`STDIN`, named ``<stdin>`` in errors), read once and kept, so every reader takes it. It is strict
UTF-8 without NUL bytes, checked here (:func:`check_text`) and nowhere else: a byte sequence that is not UTF-8, or a NUL, is an :class:`~trecrs.errors.InputError` naming
the line of the first offending byte. Lines are counted by ``\\n``: a ``\\r`` before it belongs to the line
end, a lone ``\\r`` is an ordinary character.
"""

from __future__ import annotations

import codecs
import gzip
import io as _io
import os
import sys
import tempfile
import warnings
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeGuard, TypeVar

import numpy as np
import polars as pl

from ..errors import STDIN, STDIN_NAME, FileAccessError, InputError

PathLike = str | os.PathLike

LINE = "line"
LINENO = "lineno"


# What reading a damaged .gz raises: truncated, not gzip at all, or corrupt compressed data
DAMAGED_GZIP = (EOFError, gzip.BadGzipFile, zlib.error)


def read_failure(path: PathLike, exc: BaseException) -> InputError:
    """The error for ``exc``, raised while reading ``path``: a damaged .gz is a malformed input (status
    3), any other OS error a path that cannot be read (status 5)."""
    if isinstance(exc, EOFError):
        return InputError(path, None, "the compressed file is truncated")
    if isinstance(exc, DAMAGED_GZIP):
        return InputError(path, None, "not a valid gzip file (cannot decompress it)")
    return FileAccessError.from_os_error(path, exc)


def is_stdin(path: object) -> TypeGuard[str | os.PathLike]:
    """Whether ``path`` is ``-``, standard input (a file literally named ``-`` is ``./-``)."""
    return isinstance(path, str | os.PathLike) and os.fspath(path) == STDIN


def source_name(path: PathLike) -> str:
    """``path`` as error messages and notes name it: ``<stdin>`` for ``-``."""
    return STDIN_NAME if is_stdin(path) else os.fspath(path)


_stdin_read: tuple[object, bytes] | None = None  # (the sys.stdin it came from, its bytes)


def stdin_bytes() -> bytes:
    """All of standard input, read on first use and kept: a command may read an input more than once
    (parse it, then hash it for the manifest), and a pipe can be read only once."""
    global _stdin_read
    stream = sys.stdin
    if _stdin_read is None or _stdin_read[0] is not stream:  # a new stdin (tests replace it) is read anew
        try:
            data = (
                stream.buffer.read()
                if hasattr(stream, "buffer")
                else stream.read().encode("utf-8", "surrogateescape")
            )
        except OSError as exc:
            raise FileAccessError.from_os_error(STDIN_NAME, exc) from None
        _stdin_read = (stream, data)
    return _stdin_read[1]


T = TypeVar("T")


def read_through_file(reader: Callable[..., T], path: PathLike, **options) -> T:
    """``reader(path, **options)``; for ``-``, standard input's bytes in a temporary file, for a reader
    that opens its path itself (the chunked TREC readers of :mod:`.trec`), with the errors and warnings
    that name the temporary renamed ``<stdin>``."""
    if not is_stdin(path):
        return reader(path, **options)
    with tempfile.TemporaryDirectory(prefix="trecrs-stdin-") as folder:
        tmp = Path(folder) / "stdin"
        tmp.write_bytes(stdin_bytes())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = reader(tmp, **options)
            except InputError as exc:
                if exc.path != os.fspath(tmp):
                    raise
                raise type(exc)(STDIN, exc.line, exc.reason, arguments=exc.arguments) from None
    for w in caught:  # raised again outside the recording, under the name the user gave
        message = w.message
        if isinstance(message, Warning) and os.fspath(tmp) in str(message):
            message = type(message)(str(message).replace(os.fspath(tmp), STDIN_NAME))
        warnings.warn_explicit(message, w.category, w.filename, w.lineno)
    return result


def _open_bytes(path: PathLike) -> bytes:
    if is_stdin(path):  # plain text only: a compressed stream is not recognised on stdin
        return stdin_bytes()
    path = Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as fh:
                return fh.read()
        return path.read_bytes()
    except (OSError, *DAMAGED_GZIP) as exc:
        raise read_failure(path, exc) from None


def head_bytes(path: PathLike, size: int) -> bytes:
    """The first ``size`` bytes of a file (gunzipped for ``.gz``; of standard input, kept whole), all of it
    when it is shorter: what a reader looks at to detect a layout, without reading the rest."""
    if is_stdin(path):
        return stdin_bytes()[:size]
    path = Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as fh:
                return fh.read(size)
        with path.open("rb") as fh:
            return fh.read(size)
    except (OSError, *DAMAGED_GZIP) as exc:
        raise read_failure(path, exc) from None


_STEP = 1 << 24  # bytes decoded at a time when checking (at least 4): bounds the memory the check needs


def _invalid_utf8_at(data: bytes) -> int:
    """The offset of the first byte of ``data`` that does not start valid UTF-8 (-1 if all is valid)."""
    view = memoryview(data)
    start, n = 0, len(data)
    while start < n:
        end = min(start + _STEP, n)
        try:  # a character cut at ``end`` is left for the next step (not final): only real errors raise
            _, used = codecs.utf_8_decode(view[start:end], "strict", end == n)
        except UnicodeDecodeError as exc:
            return start + exc.start
        start += used
    return -1


def check_text(data: bytes, path: PathLike | None) -> None:
    """Raise :class:`InputError` ``FILE:LINE: reason`` unless ``data`` is UTF-8 without a NUL byte.

    The line (1-based, counted by ``\\n``) and byte column are those of the first offending byte. Text is
    never decoded lossily: two different ids must never become one.
    """
    nul = data.find(b"\x00")
    bad = -1 if data.isascii() else _invalid_utf8_at(data)
    if nul < 0 and bad < 0:
        return
    at = nul if bad < 0 or 0 <= nul < bad else bad
    line = data.count(b"\n", 0, at) + 1
    column = at - (data.rfind(b"\n", 0, at) + 1) + 1
    if at == nul:
        reason = f"NUL byte in the line (column {column})"
    else:
        reason = f"not valid UTF-8 (byte 0x{data[at]:02x} at column {column})"
    raise InputError(path, line, reason)


def read_bytes(path: PathLike) -> bytes:
    """The bytes of a text file (gunzipped for ``.gz``), checked by :func:`check_text`."""
    data = _open_bytes(path)
    check_text(data, path)
    return data


def read_text(path: PathLike) -> str:
    """The text of a file (gunzipped for ``.gz``): strict UTF-8 without NUL (see :func:`check_text`), a
    leading byte order mark dropped."""
    return decode_text(_open_bytes(path), path)


def decode_text(data: bytes, source: PathLike | None) -> str:
    """``data`` as text, checked by :func:`check_text` (``source`` names it in errors); a leading byte
    order mark is dropped, as :func:`read_lines` drops it."""
    check_text(data, source)
    return data.decode("utf-8").removeprefix("\ufeff")


def read_lines(path: PathLike) -> pl.DataFrame:
    """Read a text file into a DataFrame ``(lineno, line)`` of its content lines.

    Blank lines and lines whose first non-blank character is ``#`` are dropped; ``lineno`` keeps the
    1-based line number of each remaining line for error messages. Raises on an empty file, and on text
    that is not UTF-8 or holds a NUL byte (:func:`check_text`).
    """
    return content_lines(_open_bytes(path), path)


def content_lines(data: bytes, path: PathLike | None) -> pl.DataFrame:
    """:func:`read_lines` of the bytes ``data`` read from ``path``."""
    check_text(data, path)
    if not data.strip():
        raise InputError(path, None, "empty file")
    df = pl.read_csv(
        _io.BytesIO(data),
        has_header=False,
        separator="\x00",  # never in checked text: each line is one field, whatever it holds
        quote_char=None,
        new_columns=[LINE],
        schema_overrides={LINE: pl.Utf8},
        encoding="utf8",
        truncate_ragged_lines=True,
    )
    df = df.with_row_index(LINENO, offset=1).with_columns(pl.col(LINE).str.strip_chars())
    df = df.filter(pl.col(LINE).is_not_null() & (pl.col(LINE) != "") & ~pl.col(LINE).str.starts_with("#"))
    if df.height == 0:
        raise InputError(path, None, "no content lines (only blank or # comment lines)")
    return df


def split_fields(lines: pl.DataFrame) -> pl.DataFrame:
    """Add a list column ``fields``: each line split on runs of whitespace."""
    return lines.with_columns(pl.col(LINE).str.replace_all(r"\s+", " ").str.split(" ").alias("fields"))


def first_match(df: pl.DataFrame, mask: pl.Expr) -> dict | None:
    """The first row of ``df`` where ``mask`` holds, as a dict (None if there is none)."""
    bad = df.filter(mask)
    return None if bad.height == 0 else bad.row(0, named=True)


#: A check: the mask of the rows that fail it, and the error its first such row raises.
Check = tuple[pl.Expr, Callable[[dict], InputError]]


def raise_first(df: pl.DataFrame, checks: Sequence[Check]) -> None:
    """Run ``checks`` in order; the first that a row of ``df`` fails raises, naming its first such row."""
    for mask, error in checks:
        bad = first_match(df, mask)
        if bad is not None:
            raise error(bad)


def first_repeat(keys: np.ndarray) -> tuple[int, int] | None:
    """:func:`first_duplicate`'s rule on integer keys: ``(first, second)``, the 0-based row of the earliest
    row whose key repeats an earlier row's and of that key's first row (None when no key repeats).

    One sort of a copy tells whether any key repeats; only then a stable argsort finds the rows.
    """
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    order = np.argsort(keys, kind="stable")
    repeats = order[1:][keys[order[1:]] == keys[order[:-1]]]  # every row but the first of its key
    second = int(repeats.min())
    return int(order[np.searchsorted(ordered, keys[second])]), second


def first_duplicate(df: pl.DataFrame, key: list[str]) -> tuple[dict, dict] | None:
    """``(first, second)``: the earliest row whose ``key`` repeats an earlier row's, and that earlier row's
    first occurrence, as dicts with the 1-based row number under ``"_row"`` (None when no key repeats).

    The one rule of every duplicate message: name the line (row) of the second occurrence, and the first.
    """
    if df.height < 2:
        return None
    rows = df.with_row_index("_row", offset=1)
    later = rows.filter(~pl.struct(key).is_first_distinct())
    if later.height == 0:
        return None
    second = later.row(0, named=True)
    same = pl.all_horizontal([pl.col(c).eq_missing(second[c]) for c in key])
    return rows.filter(same).row(0, named=True), second


def describe(line: str, limit: int = 80) -> str:
    """A line as quoted in an error message: cut to ``limit`` characters."""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def take_fields(
    lines: pl.DataFrame, path: PathLike | None, columns: list[str], layout: str, *, at_least: bool = False
) -> pl.DataFrame:
    """``lineno``, ``line`` and the first ``len(columns)`` fields of split ``lines`` (see
    :func:`split_fields`), named ``columns``. Every line must have exactly that many fields (at least,
    with ``at_least``: extra fields are ignored); the first that does not is an error quoting ``layout``."""
    n = len(columns)
    count = pl.col("fields").list.len()
    bad = lines.filter(count < n if at_least else count != n)
    if bad.height:
        row = bad.row(0, named=True)
        raise InputError(
            path,
            row[LINENO],
            f"expected {'at least ' if at_least else ''}{n} fields ({layout}), "
            f"found {len(row['fields'])}: {describe(row[LINE])!r}",
        )
    f = pl.col("fields")
    return lines.select(
        pl.col(LINENO), pl.col(LINE), *[f.list.get(k).alias(c) for k, c in enumerate(columns)]
    )


def utf8_or_each_line(data: bytes, fix_line: Callable[[bytes], bytes]) -> bytes:
    """``data`` as it is when it is UTF-8, else each line through ``fix_line``: the readers of MovieLens files
    whose titles are Latin-1 (``u.item``, ``movies.dat``) mask the fields they never read, so that an id or a
    category must still be UTF-8 like any other text."""
    try:
        data.decode("utf-8")
        return data
    except UnicodeDecodeError:
        pass
    return b"\n".join(fix_line(line) for line in data.split(b"\n"))
