"""Text files as content lines: blank and ``#`` lines dropped, line numbers kept for error messages."""

from __future__ import annotations

import gzip
import io as _io
import os
from pathlib import Path

import polars as pl

from ..errors import FileAccessError, InputError

PathLike = str | os.PathLike

LINE = "line"
LINENO = "lineno"


def _open_bytes(path: PathLike) -> bytes:
    path = Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as fh:
                return fh.read()
        return path.read_bytes()
    except (OSError, EOFError) as exc:
        raise FileAccessError.from_os_error(path, exc) from None


def read_lines(path: PathLike) -> pl.DataFrame:
    """Read a text file into a DataFrame ``(lineno, line)`` of its content lines.

    Blank lines and lines whose first non-blank character is ``#`` are dropped; ``lineno`` keeps the
    1-based line number of each remaining line for error messages. Raises on an empty file.
    """
    data = _open_bytes(path)
    if not data.strip():
        raise InputError(path, None, "empty file")
    df = pl.read_csv(
        _io.BytesIO(data),
        has_header=False,
        separator="\x1f",
        quote_char=None,
        new_columns=[LINE],
        schema_overrides={LINE: pl.Utf8},
        encoding="utf8-lossy",
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
    return lines.select(pl.col(LINENO), pl.col(LINE), *[f.list.get(k).alias(c) for k, c in enumerate(columns)])
