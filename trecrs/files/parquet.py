"""The one Parquet reader: named columns, strict casts, and errors naming the file and the row.

Every table trecrs reads from ``*.parquet`` (qrels, runs, ratings, scores, pairs, item catalogues) goes
through :func:`read_parquet`. Columns are found by name; only the columns asked for are read. Rows are
counted from 1, so ``row 3`` is the third row of the file.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..errors import FileAccessError, InputError
from .lines import first_duplicate

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

PathLike = str | os.PathLike


def is_parquet(path) -> bool:
    """Whether ``path`` names a Parquet file (by its ``.parquet`` suffix)."""
    return isinstance(path, str | os.PathLike) and str(path).endswith(".parquet")


@contextlib.contextmanager
def _reading(path: PathLike, wrong_type: str | None = None) -> Iterator[None]:
    """Turn what polars raises while reading ``path`` into one-line errors: a path that cannot be opened
    is a :class:`FileAccessError`; anything else (not Parquet, truncated, corrupt; a value that does not
    cast, then reported as ``wrong_type``) is an :class:`InputError`."""
    try:
        yield
    except OSError as exc:
        code = exc.errno or _os_errno(exc)
        if code is not None or isinstance(exc, FileNotFoundError):
            raise FileAccessError.from_os_error(path, OSError(code or 2, "")) from None
        raise InputError(path, None, f"cannot read as Parquet: {_first_line(exc)}") from None
    except pl.exceptions.InvalidOperationError as exc:
        reason = wrong_type or "cannot read as Parquet"
        raise InputError(path, None, f"{reason}: {_first_line(exc)}") from None
    except (pl.exceptions.PolarsError, pl.exceptions.PanicException) as exc:  # a panic: a corrupt file
        raise InputError(path, None, f"cannot read as Parquet: {_first_line(exc)}") from None


def _os_errno(exc: OSError) -> int | None:
    """The errno of an ``OSError`` polars raised (it gives it only in the message: ``(os error 2)``)."""
    m = re.search(r"\(os error (\d+)\)", str(exc))
    return int(m.group(1)) if m else None


def parquet_columns(path: PathLike) -> list[str]:
    """The column names of a Parquet file (its schema only is read)."""
    if Path(path).is_dir():
        raise FileAccessError(path, None, "is a directory, expected a file")
    with _reading(path):
        return list(pl.read_parquet_schema(os.fspath(path)))


def read_parquet(
    path: PathLike,
    columns: Mapping[str, PolarsDataType | None],
    *,
    what: str,
    fill: Mapping[str, object] | None = None,
    not_null: Sequence[str] | None = None,
    not_nan: Sequence[str] = (),
    unique: Sequence[str] = (),
) -> pl.DataFrame:
    """Read ``columns`` (name -> dtype, None keeps the file's type) of a Parquet file, in that order.

    A column absent from the file is an error unless ``fill`` gives its value. Casts are strict: a value
    that is not of the type (``"x"`` for a float) is an error. Then, each naming the first bad row: a
    null in ``not_null`` (default: every column read from the file), a NaN in ``not_nan``, a repeated
    key ``unique``. ``pl.Categorical`` means ids read as strings and stored as categoricals. ``what``
    names the table in messages (``"run"``, ``"scores"``...).
    """
    fill = fill or {}
    names = parquet_columns(path)
    missing = [c for c in columns if c not in names and c not in fill]
    if missing:
        raise InputError(path, None, f"{what} Parquet file lacks column(s) {missing}; has {names}")
    exprs = [
        _cast(pl.col(c) if c in names else pl.lit(fill[c]), dtype).alias(c) for c, dtype in columns.items()
    ]
    with _reading(path, f"{what} Parquet column has the wrong type"):
        df = pl.scan_parquet(os.fspath(path)).select(exprs).collect()
    read = [c for c in columns if c in names]
    _check_no_nul(df, path, read)
    _check_rows(df, path, what, read if not_null is None else list(not_null), list(not_nan))
    if unique:
        check_unique(df, list(unique), path=path, what=what)
    return df


def last_value(path: PathLike, column: str, dtype: PolarsDataType) -> object | None:
    """The last row's value of ``column`` cast to ``dtype`` (None when the file lacks the column, has no
    rows or the value is null); only that column is read."""
    if column not in parquet_columns(path):
        return None
    with _reading(path, f"cannot read column {column!r} as {dtype}"):
        last_row = pl.scan_parquet(os.fspath(path)).select(pl.col(column).last().cast(dtype), pl.len())
        last, rows = last_row.collect().row(0)
    if isinstance(last, str) and "\x00" in last:
        raise InputError(path, None, f"row {rows}: NUL byte in column {column!r}")
    return last


def _check_no_nul(df: pl.DataFrame, path: PathLike, columns: list[str]) -> None:
    """A NUL byte in a string column is an error naming the first row, as in a text file: ids with a NUL
    cannot be written to or compared with text files."""
    nul = pl.col("_s").str.contains("\x00", literal=True)
    for c in columns:
        dtype = df.schema[c]
        if dtype not in (pl.Utf8, pl.Categorical):
            continue
        values = df.get_column(c)
        distinct = values.unique() if dtype == pl.Categorical else values  # a categorical: each id once
        if distinct.cast(pl.Utf8).to_frame("_s").select(nul.any()).item():
            row = _first_row(df.select(pl.col(c).cast(pl.Utf8).alias("_s")), nul)
            raise InputError(path, None, f"row {row}: NUL byte in column {c!r}")


def _cast(expr: pl.Expr, dtype: PolarsDataType | None) -> pl.Expr:
    if dtype is None:
        return expr
    if dtype == pl.Categorical:  # ids are strings first: an integer id column becomes its decimal text
        return expr.cast(pl.Utf8, strict=True).cast(pl.Categorical)
    return expr.cast(dtype, strict=True)


def _check_rows(df: pl.DataFrame, path: PathLike, what: str, not_null: list[str], not_nan: list[str]) -> None:
    nulls = [c for c in not_null if df.get_column(c).null_count()]
    if nulls:
        row = _first_row(df, pl.any_horizontal(pl.col(nulls).is_null()))
        there = [c for c in nulls if df.item(row - 1, c) is None]
        raise InputError(path, None, f"row {row}: missing value in {there}")
    for c in not_nan:
        if df.select(pl.col(c).is_nan().any()).item():
            raise InputError(path, None, f"row {_first_row(df, pl.col(c).is_nan())}: {c} is NaN")


def check_unique(df: pl.DataFrame, key: list[str], *, path: PathLike | None, what: str) -> None:
    """Raise naming the first row (1-based) whose ``key`` columns repeat an earlier row's, and that row."""
    if df.height < 2 or df.select(key).n_unique() == df.height:
        return
    found = first_duplicate(df, key)
    assert found is not None  # some key repeats: n_unique is below the height
    first, at = found
    where = ", ".join(f"{c} {at[c]!r}" for c in key)
    raise InputError(
        path,
        None,
        f"row {at['_row']}: duplicate {what} entry for {where} (first seen on row {first['_row']})",
    )


def _first_row(df: pl.DataFrame, mask: pl.Expr) -> int:
    return df.with_row_index("_r").filter(mask).get_column("_r")[0] + 1


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().split("\n", 1)[0]
