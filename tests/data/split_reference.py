"""The straightforward split: every method on a polars frame, sorted and ranked with polars' own ``over``.

The reference the fast splitter (:mod:`trecrs.data.splits`, on masks and integer codes) is checked
against byte for byte: same seeded draws in the same order, ties in timestamps by file order, train and
test in file order, written with the layout's text of each row (:func:`reference_text`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl

from trecrs.data.splits import round_half_up
from trecrs.files.ratings_format import ROLES, RatingsFormat

COLS = ["user", "item", "rating", "timestamp"]


def _rank(df: pl.DataFrame, key: pl.Expr, descending: bool = False) -> pl.DataFrame:
    order = df.sort(
        ["user", key, pl.col("_pos")], descending=[False, descending, descending], maintain_order=True
    )
    return order.with_columns(
        (pl.int_range(pl.len()).over("user") + 1).alias("_nth"), pl.len().over("user").alias("_n")
    )


def _parts(df: pl.DataFrame, in_test) -> tuple[pl.DataFrame, pl.DataFrame]:
    marked = df.with_columns(in_test.alias("_test"))
    return (
        marked.filter(~pl.col("_test")).sort("_pos").select(COLS),
        marked.filter(pl.col("_test")).sort("_pos").select(COLS),
    )


def _share_mask(df: pl.DataFrame, frac: Fraction) -> tuple[pl.DataFrame, pl.Expr]:
    counts = df.filter(pl.col("_nth") == 1).select("user", "_n")
    n = counts.get_column("_n").to_numpy()
    t = np.minimum(round_half_up(frac, n).astype(np.int64), n - 1)
    df = df.join(counts.with_columns(pl.Series("_t", t)).select("user", "_t"), on="user", how="left")
    return df, pl.col("_nth") <= pl.col("_t")


def _random_share(n: int, frac: Fraction, rng: np.random.Generator) -> np.ndarray:
    chosen = np.zeros(n, dtype=bool)
    chosen[rng.permutation(n)[: round_half_up(frac, n)]] = True
    return chosen


def reference_split(
    ratings: pl.DataFrame, method: str, seed: int, **o
) -> list[tuple[pl.DataFrame, pl.DataFrame]]:
    """(train, test) of each split of ``ratings`` by ``method`` with options ``o``, the straightforward way."""
    df = ratings.with_row_index("_pos")
    rng = np.random.default_rng(seed)
    nth, n = pl.col("_nth"), pl.col("_n")
    if method == "holdout":
        return [_parts(df, pl.Series(_random_share(df.height, Fraction(o["ratio"]), rng)))]
    if method == "kfold":
        fold_of = np.empty(df.height, dtype=np.int64)
        fold_of[rng.permutation(df.height)] = np.arange(df.height) % o["folds"]
        df = df.with_columns(pl.Series("_fold", fold_of))
        return [_parts(df, pl.col("_fold") == i) for i in range(o["folds"])]
    if method == "probe":
        probe = _random_share(df.height, Fraction(o["ratio"]), rng)
        df = df.with_columns(pl.Series("_probe", probe))
        test = df.filter(pl.col("_probe") & (pl.col("rating") >= o["threshold"])).select(COLS)
        return [(df.filter(~pl.col("_probe")).select(COLS), test)]
    if method == "temporal" and "cut" in o:
        return [_parts(df, pl.col("timestamp") >= o["cut"])]
    if method == "temporal" and "ratio" in o:
        n_test = round_half_up(Fraction(o["ratio"]), df.height)
        order = df.sort(["timestamp", "_pos"]).with_columns(pl.int_range(pl.len()).alias("_r"))
        return [_parts(order, pl.col("_r") >= df.height - n_test)]
    if method in ("per-user", "loo") and o.get("pick", "random") == "random":
        df = _rank(df.with_columns(pl.Series("_key", rng.random(df.height))), pl.col("_key"))
    else:
        df = _rank(df, pl.col("timestamp"), descending=True)
    if method == "loo":
        return [_parts(df, (nth == 1) & (n > 1))]
    if "given" in o:
        return [_parts(df, (n > o["given"]) & (nth > o["given"]))]
    for name in ("all_but", "last"):
        if name in o:
            return [_parts(df, (n > o[name]) & (nth <= o[name]))]
    df, in_test = _share_mask(df, Fraction(o.get("ratio", o.get("last_ratio"))))
    return [_parts(df, in_test)]


def reference_text(df: pl.DataFrame, fmt: RatingsFormat) -> bytes:
    """The bytes of ``df`` in a header-less positional layout (``u.data``, ``ratings.dat``), row by row."""
    roles = sorted((r for r in ROLES if r in fmt.mapping), key=lambda r: int(fmt.mapping[r]))

    def field(role: str, v) -> str:
        if role != "rating":
            return str(v)
        return str(int(v)) if v == int(v) else repr(float(v))

    lines = (
        fmt.write_separator.join(field(r, row[r]) for r in roles) + "\n" for row in df.iter_rows(named=True)
    )
    return "".join(lines).encode()
