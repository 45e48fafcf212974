"""The published values of Bellogín et al. (2011, Figure 2), read from a TSV, and ours beside them."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from ...errors import FileAccessError, InputError
from ...files.lines import read_bytes
from .constants import RECOMMENDERS

PathLike = str | os.PathLike


def read_reference(path: PathLike) -> pl.DataFrame:
    """The published Figure 2 values: a TSV ``split metric methodology SVD50 IB UB50`` -> long form
    ``split metric methodology recommender published``."""
    path = Path(path)
    if not path.is_file():
        raise FileAccessError(path, None, "no such file")
    try:
        df = pl.read_csv(read_bytes(path), separator="\t", schema_overrides={r: pl.Float64 for r in RECOMMENDERS})
    except pl.exceptions.PolarsError as exc:
        raise InputError(path, None, f"not a tab-separated table: {str(exc).strip().splitlines()[0]}") from None
    missing = [c for c in ("split", "metric", "methodology", *RECOMMENDERS) if c not in df.columns]
    if missing:
        raise InputError(path, 1, f"missing column(s) {missing}")
    return df.unpivot(
        index=["split", "metric", "methodology"],
        on=list(RECOMMENDERS),
        variable_name="recommender",
        value_name="published",
    )


def comparison(results: pl.DataFrame, reference: pl.DataFrame) -> pl.DataFrame:
    """Our fold means beside the published values: ``... ours published diff`` (diff = ours - published)."""
    ours = results.filter(pl.col("fold") == "mean").rename({"value": "ours"}).drop("fold")
    both = reference.join(ours, on=["split", "metric", "methodology", "recommender"], how="left")
    return both.with_columns((pl.col("ours") - pl.col("published")).alias("diff"))
