"""Helpers of the recommenders: id coding, id hashing, candidate-pair and score files."""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl

from ..errors import InputError
from ..ids import natural_key
from ..schema import ITEM, SCORE, USER

_UIDX = "_uidx"
_IIDX = "_iidx"


def _natural_unique(ids: pl.Series) -> pl.Series:
    uniq = ids.unique()
    key = natural_key(uniq)
    return pl.DataFrame({"id": uniq, "k": key}).sort(["k", "id"]).get_column("id")


def _code(df: pl.DataFrame, users: pl.Series, items: pl.Series, how: str = "inner") -> pl.DataFrame:
    umap = pl.DataFrame({USER: users, _UIDX: np.arange(users.len(), dtype=np.int64)})
    imap = pl.DataFrame({ITEM: items, _IIDX: np.arange(items.len(), dtype=np.int64)})
    return df.join(umap, on=USER, how=how, maintain_order="left").join(
        imap, on=ITEM, how=how, maintain_order="left"
    )


# --------------------------------------------------------------------------------------------- hashing


def _hash64(ids: pl.Series) -> np.ndarray:
    """A stable 64-bit hash (blake2b) of each id; computed once per distinct id."""
    uniq = ids.unique(maintain_order=True)
    table = np.array(
        [
            int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "little")
            for s in uniq.to_list()
        ],
        dtype=np.uint64,
    )
    codes = ids.to_frame("id").join(
        pl.DataFrame({"id": uniq, "_k": np.arange(uniq.len())}), on="id", how="left", maintain_order="left"
    )
    return table[codes.get_column("_k").to_numpy()]


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser (Steele, Lea, Flood 2014), vectorised; uint64 arithmetic wraps."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


# --------------------------------------------------------------------------------------------- files


def read_pairs(path) -> pl.DataFrame:
    """Read candidate pairs: lines ``query user item`` (``trecrs candidates``) or ``user item``; Parquet
    with columns ``user``, ``item``. Returns ``user, item`` (duplicates kept; :meth:`Recommender.score`
    scores each distinct pair once)."""
    from ..files.lines import read_lines, split_fields

    if str(path).endswith(".parquet"):
        try:
            df = pl.read_parquet(path)
        except Exception as exc:  # noqa: BLE001 - report any reader failure as a bad input
            raise InputError(path, None, f"cannot read Parquet: {exc}") from None
        missing = [c for c in (USER, ITEM) if c not in df.columns]
        if missing:
            raise InputError(path, None, f"Parquet pairs lack column(s) {missing}; have {df.columns}")
        return df.select(pl.col(USER).cast(pl.Utf8), pl.col(ITEM).cast(pl.Utf8))
    lines = split_fields(read_lines(path))
    n = pl.col("fields").list.len()
    first = lines.get_column("fields").list.len()[0]
    bad = lines.filter(((n != 2) & (n != 3)) | (n != first))
    if bad.height:
        row = bad.row(0, named=True)
        found = len(row["fields"])
        why = "like the first line" if found in (2, 3) else "('query user item' or 'user item')"
        raise InputError(
            path, row["lineno"], f"expected {first if found in (2, 3) else '3'} fields {why}, found {found}"
        )
    off = first - 2
    f = pl.col("fields")
    return lines.select(f.list.get(off).alias(USER), f.list.get(off + 1).alias(ITEM))


def write_scores(scores, path, *, inputs=None, parameters=None, command=None) -> None:
    """Write a score file ``user item score`` (Parquet for ``*.parquet``), atomically, with its manifest."""
    from ..files.manifest import write_manifest
    from ..files.output import write_table

    write_table(scores.frame.select(USER, ITEM, SCORE), path)
    write_manifest(
        path,
        "scores",
        inputs=inputs,
        parameters=parameters,
        command=command,
        extra={
            "counts": {"pairs": scores.n_pairs, "scored": scores.frame.height, "unscored": scores.n_unscored}
        },
    )
