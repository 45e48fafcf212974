"""Item popularity in the training ratings, and the one short-head / long-tail rule.

Popularity φ(i) = the number of training ratings of item i (= users who rated it in training).

Popularity order: φ descending; items of equal φ in natural id order (:func:`trecrs.ids.natural_key`:
numeric when every item id is a plain non-negative integer, else bytewise), so the order, and every
split drawn from it, is deterministic.

Short head (Cremonesi, Koren & Turrin, "Performance of recommender algorithms on top-N recommendation
tasks", RecSys 2010, section 3): the smallest prefix of the popularity order whose ratings reach
``share * |train|`` (``share = 0.33`` in the paper: 1.7% of the Netflix items). Every other item,
items without training ratings included, is in the long tail. Items tied with the last head item may
fall on either side: the id order decides, as for any other position of the order.

The long-tail test sets (:func:`trecrs.protocol.qrels.make_qrels`, One-Plus-Random's ``long_tail``) and
the head/tail measures (``precision_head``... in :mod:`trecrs.measures.recsys.beyond`) all use this rule.
"""

from __future__ import annotations

import polars as pl

from ..errors import UsageError
from ..ids import natural_key
from ..schema import ITEM

#: The short head's share of the training ratings by default (Cremonesi et al. 2010): ``--head-share``.
HEAD_SHARE = 0.33
COUNT = "count"
STRATUM = "stratum"
HEAD, TAIL = "head", "tail"


def item_popularity(train: pl.DataFrame) -> pl.DataFrame:
    """``item, count``: φ(i) of every item with training ratings, in popularity order (see the module)."""
    pop = train.group_by(ITEM).agg(pl.len().cast(pl.Int64).alias(COUNT))
    return pop.sort([pl.col(COUNT), natural_key(pop.get_column(ITEM))], descending=[True, False])


def check_share(share: float, argument: str = "share") -> None:
    """Raise :class:`UsageError` about ``argument`` unless 0 < ``share`` < 1."""
    if not 0.0 < share < 1.0:
        raise UsageError(
            f"the short-head share must be between 0 and 1 (exclusive), got {share}", arguments=[argument]
        )


def short_head(train: pl.DataFrame, share: float, *, argument: str = "share") -> pl.Series:
    """The short-head items, in popularity order: the smallest prefix holding ``share`` of the ratings.

    Rule: with c_k the cumulative count of the first k items of the popularity order, the head is the
    first k items for the smallest k with ``c_k >= share * |train|``; an item is in it iff the items
    before it hold less than ``share * |train|`` ratings. Raises :class:`UsageError` unless 0 < share < 1,
    about ``argument`` (the caller's name for the share: ``long_tail``).
    """
    check_share(share, argument)
    pop = item_popularity(train).with_columns(pl.col(COUNT).cum_sum().alias("_cum"))
    target = share * train.height
    return pop.filter((pl.col("_cum") - pl.col(COUNT)) < target).get_column(ITEM)


def popularity_strata(train: pl.DataFrame, head_share: float = HEAD_SHARE) -> pl.DataFrame:
    """``item, count, stratum``: each item with training ratings, ``head`` if in :func:`short_head`, else ``tail``.

    Items without training ratings are absent here and count as tail wherever strata are used. A tie
    group at the boundary is split by id, as in :func:`short_head` (the head/tail measures once put the
    whole group in the head).
    """
    head = short_head(train, head_share, argument="head_share")
    return item_popularity(train).with_columns(
        pl.when(pl.col(ITEM).is_in(head.implode())).then(pl.lit(HEAD)).otherwise(pl.lit(TAIL)).alias(STRATUM)
    )
