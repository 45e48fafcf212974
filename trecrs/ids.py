"""Ids are strings; this module holds the one natural order of ids and their integer codes."""

from __future__ import annotations

import polars as pl


def natural_key(values: pl.Series) -> pl.Series:
    """Sort key for ids: numeric order when every id is a plain non-negative integer, else bytewise."""
    if values.len() and values.str.contains(r"^\d{1,18}$").all():
        return values.cast(pl.Int64)
    return values


def natural_sort(df: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """Sort ``df`` by ``columns`` in natural id order (see :func:`natural_key`); stable and deterministic."""
    keys = [natural_key(df.get_column(c)) for c in columns]
    return df.sort(keys + columns, maintain_order=True)
