"""The audit's ids as text: the examples a finding prints and the ids that match only in another form.

Examples are chosen without regard to the files' line order (the smallest ids, bytewise), so the same
inputs give the same report however their lines are ordered. An id written in another form (``242.0``,
``u001``) is told from its value by :func:`id_key`; :func:`form_matches` finds a run's ids that match the
other inputs only that way (the ``id-form`` check of :mod:`.audit_checks`).
"""

from __future__ import annotations

from typing import cast

import polars as pl

from ..schema import ITEM, USER


def least(df: pl.DataFrame, column: str) -> str:
    """The smallest (bytewise) id of a string column."""
    return cast(str, df.get_column(column).min())


def unique_pairs(df: pl.DataFrame) -> pl.DataFrame:
    """The distinct ``user, item`` pairs of a frame."""
    return df.select(USER, ITEM).unique()


def distinct_pairs(df: pl.DataFrame) -> int:
    """The number of distinct ``user, item`` pairs of a frame."""
    return df.height if df.height < 2 else df.select(USER, ITEM).n_unique()


def smallest(df: pl.DataFrame, by: list[str]) -> dict:
    """The row with the smallest ``by`` values (bytewise), as a dict; {} for an empty frame."""
    return df.bottom_k(1, by=by).row(0, named=True) if df.height else {}


def pair_example(df: pl.DataFrame, what: str = "") -> str:
    """``user U, item I`` of the smallest pair (bytewise), and ``what`` after it; "" for an empty frame."""
    r = smallest(df, [USER, ITEM])
    return f"user {r[USER]}, item {r[ITEM]}{what}" if r else ""


def id_key(ids: pl.Expr, *, bare: bool = False) -> pl.Expr:
    """The key of string ids that tells their forms apart from their values: the number after an id's
    prefix (its leading run of letters or ``_``) written in one form, behind the prefix (``u001`` and
    ``u1.0`` give ``u1``; ``001`` and ``1.0`` give ``1``), or without it when ``bare`` (``u1`` gives ``1``).
    An id with no number after its prefix keeps its text."""
    num = ids.str.replace(r"^[A-Za-z_]+", "").cast(pl.Float64, strict=False)
    integral = num.is_finite() & (num == num.floor()) & (num.abs() < 2.0**53)
    canon = pl.when(integral).then(num.cast(pl.Int64).cast(pl.Utf8)).otherwise(num.cast(pl.Utf8))
    key = canon if bare else ids.str.extract(r"^([A-Za-z_]*)", 1) + canon
    return pl.when(num.is_finite()).then(key).otherwise(ids)


def keyed_ids(ids: pl.Series | pl.DataFrame, name: str) -> pl.DataFrame:
    """``name, _full, _bare, _plain``: each id with its :func:`id_key` with and without its prefix, and
    whether it has none."""
    frame = ids.to_frame(name) if isinstance(ids, pl.Series) else ids.select(name)
    return frame.with_columns(
        id_key(pl.col(name)).alias("_full"),
        id_key(pl.col(name), bare=True).alias("_bare"),
        pl.col(name).str.contains(r"^[A-Za-z_]").not_().alias("_plain"),
    )


def form_matches(ids: pl.Series, refs: list[tuple[str, pl.Series]]) -> pl.DataFrame:
    """``id, ref, source``: the ids found in no reference as written that match one by :func:`id_key` (the
    first option's, its smallest such id bytewise): the same prefix and the same number written otherwise
    (``u001``, ``u1``), or the same number with a prefix on one side only (``u1``, ``1``); ``u1`` and ``v1``
    differ."""
    loose = ids.to_frame("id")
    for _, ref in refs:  # anti joins first: no distinct pass over a large file when every id matches
        loose = loose.join(ref.to_frame("id"), on="id", how="anti")
    out = pl.DataFrame(schema={"id": pl.Utf8, "ref": pl.Utf8, "source": pl.Utf8})
    if not loose.height:
        return out
    loose = keyed_ids(loose, "id")
    for source, ref in refs:
        keyed = keyed_ids(ref.unique(), "ref")
        # the same prefix, a number written otherwise; a prefix the reference has not; one the run has not
        hits = [
            loose.join(keyed, on="_full"),
            loose.join(keyed.filter(pl.col("_plain")), left_on="_bare", right_on="_full"),
            loose.filter(pl.col("_plain")).join(keyed, left_on="_full", right_on="_bare"),
        ]
        hit = pl.concat([h.select("id", "ref") for h in hits]).group_by("id").agg(pl.col("ref").min())
        out = pl.concat([out, hit.select("id", "ref", pl.lit(source).alias("source"))])
        loose = loose.join(hit.select("id"), on="id", how="anti")
    return out
