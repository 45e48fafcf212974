"""The tidy tables of the reports: reading ``trecrs eval --format tsv`` files, writing results tables."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..errors import InputError
from ..files.lines import read_bytes
from ..files.output import write_text_atomic

EVAL_COLUMNS = ("run", "query", "measure", "value")


def read_eval(path: Path) -> pl.DataFrame:
    """The ``all`` rows of a ``trecrs eval --format tsv`` file: columns run (the run file's basename),
    query, measure, value."""
    if not path.is_file():
        raise InputError(path, None, "missing evaluation file (did this fold's pipeline finish?)")
    try:
        df = pl.read_csv(
            read_bytes(path),
            separator="\t",
            schema_overrides={"run": pl.Utf8, "query": pl.Utf8, "value": pl.Float64},
        )
    except pl.exceptions.PolarsError as exc:
        raise InputError(
            path, None, f"not a tab-separated table: {str(exc).strip().splitlines()[0]}"
        ) from None
    need = set(EVAL_COLUMNS)
    if not need <= set(df.columns):
        raise InputError(path, 1, f"expected columns {sorted(need)}, found {df.columns}")
    return df.filter(pl.col("query") == "all").with_columns(
        pl.col("run").map_elements(lambda p: Path(p).name, return_dtype=pl.Utf8)
    )


def write_results(path: Path, results: pl.DataFrame, numbers: tuple[str, ...]) -> None:
    """Write ``results`` as a tab-separated table, the float columns ``numbers`` with six decimals."""
    body = results.with_columns(
        pl.col(c).map_elements(lambda x: f"{x:.6f}", return_dtype=pl.Utf8) for c in numbers
    )
    write_text_atomic(path, body.write_csv(separator="\t", quote_style="never"))
