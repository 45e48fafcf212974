"""Factor model files: one Parquet table per side, an id column and a ``factors`` column.

``user.parquet`` has ``user`` and ``factors``, ``item.parquet`` ``item`` and ``factors``: ids are strings
(an integer column becomes its decimal text), each once; ``factors`` is a list (or array) of numbers of one
length in every row, read as float32. Errors name the file and the row (counted from 1).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..errors import InputError
from .parquet import PathLike, read_parquet

FACTORS = "factors"


def read_factors(path: PathLike, id_column: str) -> tuple[pl.Series, np.ndarray]:
    """The ids (Utf8) and the factor matrix (rows x rank, float32) of a factor file."""
    df = read_parquet(
        path, {id_column: pl.Utf8, FACTORS: None}, what=f"{id_column} factors", unique=[id_column]
    )
    col = df.get_column(FACTORS)
    if isinstance(col.dtype, pl.Array):
        col = col.arr.to_list()
    if not isinstance(col.dtype, pl.List) or not col.dtype.inner.is_numeric():
        raise InputError(path, None, f"column {FACTORS!r} must hold lists of numbers, has {col.dtype}")
    lens = col.list.len().to_numpy()
    if lens.size and (lens != lens[0]).any():
        row = int(np.flatnonzero(lens != lens[0])[0])
        raise InputError(path, None, f"row {row + 1}: {lens[row]} factors, row 1 has {lens[0]}")
    values = col.explode()
    if values.null_count():
        raise InputError(path, None, f"row {_row_of(values.is_null(), lens)}: missing value in {FACTORS!r}")
    matrix = values.cast(pl.Float32).to_numpy().reshape(df.height, int(lens[0]) if lens.size else 0)
    bad = ~np.isfinite(matrix)
    if bad.any():
        raise InputError(
            path, None, f"row {int(np.argwhere(bad)[0][0]) + 1}: {FACTORS} not finite (NaN or inf)"
        )
    return df.get_column(id_column), matrix


def _row_of(mask: pl.Series, lens: np.ndarray) -> int:
    """Row (from 1) of the first true element of an exploded column."""
    first = int(np.flatnonzero(mask.to_numpy())[0])
    return int(np.searchsorted(np.cumsum(lens), first, "right")) + 1
