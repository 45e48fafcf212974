"""The published values of Bellogín et al. (2011, Figure 2), read from a TSV, and ours beside them.

:data:`PUBLISHED` is the package's copy of the Figure 2 bars (split D1, mean of u1..u5), with its source
in its header; :func:`reference_to_compare` decides whether a report compares with them.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from ...data.datasets import verify, verify_ok
from ...errors import FileAccessError, InputError, TrecrsError
from ...files.lines import read_bytes
from .constants import RECOMMENDERS

PathLike = str | os.PathLike

# Figure 2's bars, D1 (MovieLens 100K, mean of u1..u5), read from the vector drawing of the authors' PDF
PUBLISHED = Path(__file__).with_name("published_fig2_D1.tsv")


def read_reference(path: PathLike) -> pl.DataFrame:
    """The published Figure 2 values: a TSV ``split metric methodology SVD50 IB UB50`` -> long form
    ``split metric methodology recommender published``."""
    path = Path(path)
    if not path.is_file():
        raise FileAccessError(path, None, "no such file")
    try:
        df = pl.read_csv(
            read_bytes(path),
            separator="\t",
            comment_prefix="#",
            schema_overrides={r: pl.Float64 for r in RECOMMENDERS},
        )
    except pl.exceptions.PolarsError as exc:
        raise InputError(
            path, None, f"not a tab-separated table: {str(exc).strip().splitlines()[0]}"
        ) from None
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


def reference_to_compare(reference: PathLike | None, data: PathLike | None) -> tuple[Path | None, str | None]:
    """``(values, None)`` to compare with, or ``(None, reason)`` when the report must not compare.

    Figure 2's bars are MovieLens 100K results, so they are compared only with results on MovieLens 100K:
    with a data folder, only when it passes ``trecrs datasets verify`` (the ML-100K checksums); without
    one, only when ``reference`` is named explicitly (its caller vouches for the data). ``reference``
    defaults to the packaged :data:`PUBLISHED`.
    """
    if data is None:
        if reference is None:
            return None, (
                "no data folder was named (`--data`), so the data cannot be checked to be "
                "MovieLens 100K, on which the published values were measured"
            )
        return Path(reference), None
    try:
        checks = verify(data, "ml-100k")
    except TrecrsError as exc:
        checks, why = [], str(exc)
    else:
        if verify_ok(checks):
            return Path(reference or PUBLISHED), None
        wrong = [f"{c.file} {c.check}" for c in checks if c.status == "MISMATCH"]
        more = f" and {len(wrong) - 2} more" if len(wrong) > 2 else ""
        why = ("mismatch in " + ", ".join(wrong[:2]) + more) if wrong else "no u.data"
    return None, (
        f"the data `{data}` is not MovieLens 100K (`trecrs datasets verify`: {why}), on which the "
        "published values were measured"
    )
