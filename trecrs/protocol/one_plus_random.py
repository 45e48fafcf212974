"""One-Plus-Random (Cremonesi, Koren & Turrin, "Performance of recommender algorithms on top-N
recommendation tasks", RecSys 2010, section 2): test cases, their query ids, random draws, qrels and the
per-user averaging of cases.

Cases: every test rating (u, i) >= the "highly relevant" threshold (default 5) is one query, named
``u:i`` (:data:`CASE_SEPARATOR`), restricted to long-tail items on request (:mod:`trecrs.data.popularity`).
Its candidates are i plus N = 1000 items drawn without replacement from a pool (:data:`OPR_POOLS`:
``all`` = the catalogue, ``test`` = the items of the test set) minus every item u rated in train or
test; the whole pool when it holds fewer than N.

Draw: every item j gets the key ``mix(k(seed, u, i) XOR h(j))`` (blake2b of the id strings, splitmix64's
bijective finaliser) and the N smallest keys win. The draw of a case depends only on (seed, u, i) and
the pool: the same on every platform and in every run, independent of other users and cases; an item
added to or removed from the pool changes it only if its own key is among the N smallest.

Qrels: one line ``(u:i, 0, i, value)`` per case, graded like any qrels (the rating by default); the drawn
items are unjudged. Averaging: per case (Cremonesi's, trec_eval's mean over queries) or per user
(Bellogín, Castells & Cantador, RecSys 2011, section 3.3: each user's cases first, then the users).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import polars as pl

from ..data.popularity import short_head
from ..errors import SemanticError, UsageError
from ..ids import hash_ids, mix64
from ..ranges import check_seed
from ..schema import DOC, ITEM, ITER, QRELS_SCHEMA, QUERY, RATING, REL, USER
from .indexed import _I, _Q, _U, CandidateOptions, IndexedSplit, rated_rows
from .qrels import GRADES, rating_scale

# Separator of One-Plus-Random query ids: ``user:item``.
CASE_SEPARATOR = ":"
# Column of the target item of a case (see :func:`case_ids`).
TARGET = "target"
# Pools the random items are drawn from.
OPR_POOLS: tuple[str, ...] = ("all", "test")
# How summaries average cases: over cases (trec_eval's mean over queries) or over users first.
OPR_AVERAGES: tuple[str, ...] = ("case", "user")

_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)  # the key of an item that cannot be drawn


# --------------------------------------------------------------------------------------------- case ids


def case_names(users: pl.Series, items: pl.Series) -> pl.Series:
    """Query ids ``user:item`` of cases given their user and item ids."""
    return (users + CASE_SEPARATOR + items).alias(QUERY)


def check_case_names(users: pl.Series, items: pl.Series, names) -> None:
    """A :class:`UsageError` when two cases would share a query id (``names()`` gives them all).

    ``u:i`` cannot collide unless both some user id and some item id hold the separator.
    """
    if not (
        users.str.contains(CASE_SEPARATOR, literal=True).any()
        and items.str.contains(CASE_SEPARATOR, literal=True).any()
    ):
        return
    q = names()
    if q.n_unique() != q.len():
        raise UsageError(f"ids containing {CASE_SEPARATOR!r} make two One-Plus-Random query ids equal")


def case_ids(queries: list[str], qrels: pl.DataFrame, users: set[str] | None = None) -> pl.DataFrame:
    """``query, user, target``: the user and (for One-Plus-Random cases) the target item of each query.

    A case is named ``<user>:<item>`` and its qrels hold the item. Ids may themselves contain ``:``, so a
    query is split where its own qrels document ``d`` ends it (``query = user + ":" + d``); failing that,
    at its first ``:``. A query that is a known user id (``users``, from the ratings given) or holds no
    ``:`` is a user with no target.
    """
    q = pl.DataFrame({QUERY: queries}, schema={QUERY: pl.Utf8})
    suffix = (
        qrels.select(QUERY, pl.col(DOC).alias(TARGET))
        .filter(pl.col(QUERY).is_in(queries) & pl.col(QUERY).str.ends_with(CASE_SEPARATOR + pl.col(TARGET)))
        .sort(pl.col(TARGET).str.len_bytes(), descending=True)
        .unique(QUERY, keep="first")
    )
    q = q.join(suffix, on=QUERY, how="left", maintain_order="left")
    head = pl.col(QUERY).str.splitn(CASE_SEPARATOR, 2)
    from_suffix = pl.col(QUERY).str.slice(
        0, pl.col(QUERY).str.len_chars() - pl.col(TARGET).str.len_chars() - 1
    )
    is_user = pl.col(QUERY).is_in(list(users)) if users else pl.lit(False)
    has_sep = pl.col(QUERY).str.contains(CASE_SEPARATOR, literal=True)
    return q.select(
        QUERY,
        pl.when(is_user | ~has_sep)
        .then(pl.col(QUERY))
        .when(pl.col(TARGET).is_not_null())
        .then(from_suffix)
        .otherwise(head.struct.field("field_0"))
        .alias(USER),
        pl.when(is_user | ~has_sep)
        .then(None)
        .otherwise(pl.coalesce(pl.col(TARGET), head.struct.field("field_1")))
        .alias(TARGET),
    )


# --------------------------------------------------------------------------------------------- cases


def opr_cases(split: IndexedSplit, opts: CandidateOptions) -> pl.DataFrame:
    """One-Plus-Random cases: test ratings >= the highly-relevant threshold (long tail only, if asked).

    Columns ``_q`` (case number, in natural (user, item) order), ``_u``, ``_i``, ``rating``.
    """
    cases = split.test.filter(pl.col(RATING) >= opts.relevant_threshold)
    if opts.long_tail is not None:
        train = pl.DataFrame({ITEM: split.items.gather(split.train.get_column(_I))})
        head = short_head(train, opts.long_tail, argument="long_tail")
        head_codes = split.items.to_frame().with_row_index(_I).filter(pl.col(ITEM).is_in(head.implode()))
        cases = cases.filter(~pl.col(_I).is_in(head_codes.get_column(_I).cast(pl.Int64).implode()))
    if cases.height == 0:
        raise SemanticError(
            f"no test rating reaches the highly-relevant threshold {opts.relevant_threshold:g}"
            + (" among long-tail items" if opts.long_tail is not None else "")
            + ": One-Plus-Random has no query"
        )
    return cases.sort(_U, _I).with_row_index(_Q).with_columns(pl.col(_Q).cast(pl.Int64))


# --------------------------------------------------------------------------------------------- draws


def _seed_key(seed: int) -> np.uint64:
    return hash_ids([str(int(seed))], b"trecrs.seed")[0]


def case_keys(seed: int, users: list[str], items: list[str]) -> np.ndarray:
    """The key k(seed, u, i) of each One-Plus-Random case; a function of those three strings only."""
    hu = hash_ids(users, b"trecrs.user")
    hi = hash_ids(items, b"trecrs.case")
    return mix64(mix64(hu ^ _seed_key(seed), add_gamma=False) ^ hi, add_gamma=False)


def _check_draw_options(opts: CandidateOptions) -> int:
    if opts.pool not in OPR_POOLS:
        raise UsageError(f"unknown One-Plus-Random pool {opts.pool!r}; choose from {OPR_POOLS}")
    if opts.n < 1:
        raise UsageError(f"n must be a positive number of random items, got {opts.n}", arguments=["n"])
    if opts.seed is None:
        raise UsageError("one-plus-random draws random items: give a seed (seed=S)")
    check_seed(opts.seed)
    return opts.seed


def _item_hashes(split: IndexedSplit, pool: np.ndarray) -> np.ndarray:
    """h(j) of every catalogue item (0 outside the pool, whose keys are masked anyway)."""
    item_hash = hash_ids(split.items, b"trecrs.item")
    if np.unique(item_hash).size != item_hash.size:  # probability ~ n^2 / 2^65
        raise SemanticError(
            "two item ids share a 64-bit hash; One-Plus-Random cannot order them reproducibly"
        )
    item_hash[~pool] = 0
    return item_hash


def _mask_rated(keys: np.ndarray, c_u: np.ndarray, rated: pl.DataFrame) -> None:
    """Set to ``_MAX`` the keys of the items each case's user rated (train or test, the case item too)."""
    ru, ri = rated_rows(rated, np.unique(c_u))
    starts = np.searchsorted(ru, c_u, side="left")
    stops = np.searchsorted(ru, c_u, side="right")
    lens = stops - starts
    rows = np.repeat(np.arange(c_u.size), lens)
    # positions starts[c] .. stops[c]-1 of every case c, concatenated, without a Python loop
    idx = np.arange(rows.size) - np.repeat(np.cumsum(lens) - lens, lens) + np.repeat(starts, lens)
    keys[rows, ri[idx]] = _MAX


def _smallest(keys: np.ndarray, n: int, c_i: np.ndarray) -> np.ndarray:
    """Bool mask of the drawn items: each row's n smallest drawable keys, plus the case item."""
    if n < keys.shape[1]:
        kth = np.partition(keys, n - 1, axis=1)[:, n - 1]
    else:
        kth = np.full(keys.shape[0], _MAX - np.uint64(1))
    chosen = (keys <= kth[:, None]) & (keys != _MAX)
    chosen[np.arange(c_i.size), c_i] = True
    return chosen


def one_plus_random_chunks(split: IndexedSplit, opts: CandidateOptions, info: dict) -> Iterator[pl.DataFrame]:
    """Candidates of every case (see the module docstring), in chunks of whole cases: ``_q, _u, _i``."""
    seed = _check_draw_options(opts)
    cases = opr_cases(split, opts)
    n_items = split.items.len()
    pool = np.ones(n_items, dtype=bool) if opts.pool == "all" else split.item_mask(split.test)
    item_hash = _item_hashes(split, pool)
    rated = pl.concat([split.train.select(_U, _I), split.test.select(_U, _I)]).sort(_U, _I)
    cu = cases.get_column(_U).to_numpy()
    ci = cases.get_column(_I).to_numpy()
    keys_case = case_keys(seed, split.users.gather(cu).to_list(), split.items.gather(ci).to_list())
    step = max(1, opts.chunk_rows // max(1, n_items))
    short = 0
    for start in range(0, cases.height, step):
        sl = slice(start, start + step)
        c_u, c_i, k = cu[sl], ci[sl], keys_case[sl]
        keys = mix64(k[:, None] ^ item_hash[None, :], add_gamma=False)
        np.minimum(keys, _MAX - np.uint64(1), out=keys)  # _MAX marks "not drawable"
        keys[:, ~pool] = _MAX
        _mask_rated(keys, c_u, rated)
        short += int(((keys != _MAX).sum(axis=1) < opts.n).sum())
        r, c = np.nonzero(_smallest(keys, opts.n, c_i))
        yield pl.DataFrame(
            {_Q: (r + start).astype(np.int64), _U: c_u[r].astype(np.int64), _I: c.astype(np.int64)}
        )
    info.update(cases=cases.height, cases_short_of_n=short, pool=opts.pool, n=opts.n, seed=opts.seed)


# --------------------------------------------------------------------------------------------- qrels


def opr_qrels(
    names: pl.Series,
    docs: pl.Series,
    cases: pl.DataFrame,
    *,
    relevant_threshold: float,
    grade: str = "rating",
    scale: int | None = None,
) -> tuple[pl.DataFrame, dict]:
    """The qrels of the cases (query ``names``, target ``docs``, ``cases`` with their ``rating``) and info.

    One line per case, its value graded by ``grade`` (:data:`trecrs.protocol.qrels.GRADES`); the shifted
    grade maps ``relevant_threshold`` to 1.
    """
    if grade not in GRADES:
        raise UsageError(f"unknown grade {grade!r}; choose from {sorted(GRADES)}")
    factor, mapping = (1, None) if grade == "binary" else rating_scale(cases.get_column(RATING), scale)
    scaled = (pl.col(RATING) * factor).round().cast(pl.Int64)
    value = GRADES[grade].value(scaled, factor, relevant_threshold)
    qrels = pl.DataFrame(
        {QUERY: names, ITER: "0", DOC: docs, REL: cases.select(value.cast(pl.Int64)).to_series()},
        schema=QRELS_SCHEMA,
    )
    if qrels.select((pl.col(REL) < 1).any()).item():
        raise UsageError("some case ratings get a relevance value below 1; use grade=binary or grade=shifted")
    info = {
        "relevant": qrels.height,
        "queries": qrels.height,
        "relevant_threshold": relevant_threshold,
        "scale_factor": factor,
        "rating_map": mapping,
    }
    return qrels, info


# --------------------------------------------------------------------------------------------- averaging


def check_average(average: str | None) -> str | None:
    """Validate an ``opr_average`` value (None and ``"case"`` both mean trec_eval's mean over queries)."""
    if average not in (None, *OPR_AVERAGES):
        raise UsageError(f"opr_average must be one of {', '.join(OPR_AVERAGES)}, got {average!r}")
    return average


def user_means(per_query: pl.DataFrame, columns: list[str], users: pl.DataFrame) -> pl.DataFrame:
    """Each user's mean of ``columns`` over their cases (nulls ignored); users in bytewise order.

    ``users``: ``query, user`` (:func:`case_ids`).
    """
    grouped = (
        per_query.join(users.select(QUERY, USER), on=QUERY, how="left")
        .group_by(USER)
        .agg([pl.col(c).mean() for c in columns])
    )
    return grouped.sort(pl.col(USER).cast(pl.Binary))


__all__ = [
    "CASE_SEPARATOR",
    "OPR_AVERAGES",
    "OPR_POOLS",
    "TARGET",
    "case_ids",
    "case_keys",
    "case_names",
    "check_average",
    "check_case_names",
    "one_plus_random_chunks",
    "opr_cases",
    "opr_qrels",
    "user_means",
]
