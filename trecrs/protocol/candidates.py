"""The five evaluation methodologies: which items each query's ranking is built from (candidates L_u).

For a split (training ratings Tr, test ratings Te, optional item catalogue) each methodology defines the
candidate items a recommender ranks for each user u who has test ratings (the queries that can be
evaluated). With Tr_u / Te_u the items u rated in train / test and I the catalogue (the items of
train ∪ test when none is given), following Bellogín, Castells & Cantador, "Precision-oriented
evaluation of recommender systems: an algorithmic comparison", RecSys 2011, section 3:

================  =====================================  =========================================
name              candidates                             query id
================  =====================================  =========================================
test-ratings      L_u = Te_u                             ``u``
test-items        L_u = ∪_v Te_v \\ Tr_u                  ``u``
training-items    L_u = ∪_{v≠u} Tr_v \\ Tr_u              ``u``
all-items         L_u = I \\ Tr_u                         ``u``
one-plus-random   {i} ∪ N random items u has not rated,  ``u:i`` (user id, colon, item id)
                  one query per test rating (u, i) >= the
                  "highly relevant" threshold (default 5)
================  =====================================  =========================================

One-Plus-Random is Cremonesi, Koren & Turrin, "Performance of recommender algorithms on top-N
recommendation tasks", RecSys 2010: N = 1000 items drawn without replacement from a pool (``all``: I
minus the items u rated in train or test; ``test``: the items of the test set minus the same), all of
the pool when it holds fewer than N. The draw for the case (u, i) depends only on (seed, u, i) and the
pool: every item j gets a key ``mix(k(seed, u, i) XOR h(j))`` (blake2b of the ids, splitmix64's
bijective finaliser), and the N smallest keys win. So it is the same on every platform and in every
run, independent of the order or presence of other users and cases, and an item added to or removed
from the pool changes the draw only if its own key is among the N smallest. Its qrels hold one line per
query, ``(u:i, i)`` graded like any qrels (the rating by default).

Candidates are produced in chunks of whole queries (a dense users x items mask per chunk, so memory is
bounded by ``chunk_rows`` whatever the dataset size).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from ..errors import InputError, UsageError
from ..files.candidates import read_items
from ..ids import hash_ids, mix64, natural_unique
from ..schema import CANDIDATES_SCHEMA, DOC, ITEM, ITER, QRELS_SCHEMA, QUERY, RATING, REL, USER
from .qrels import GRADES, QrelsResult, make_qrels, rating_scale, short_head, validate_ratings

# Separator of One-Plus-Random query ids: ``user:item``.
CASE_SEPARATOR = ":"
# One-Plus-Random pools.
OPR_POOLS: tuple[str, ...] = ("all", "test")
# Rows of candidates materialised at once (a users x items bool mask of about this many cells).
CHUNK_ROWS = 4_000_000

_U, _I, _Q = "_u", "_i", "_q"
_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


# --------------------------------------------------------------------------------------------- split


@dataclass
class IndexedSplit:
    """A validated train/test split with integer codes: users and items numbered in natural id order.

    ``items`` is the catalogue I (the given one, else the items of train ∪ test); ``users`` every user of
    train ∪ test. ``train`` / ``test`` hold codes ``_u``, ``_i`` (and ``rating``), sorted by (user, item).
    """

    users: pl.Series
    items: pl.Series
    train: pl.DataFrame
    test: pl.DataFrame
    catalogue_given: bool = False

    @property
    def query_users(self) -> np.ndarray:
        """Codes of the users with test ratings, ascending (natural id order)."""
        return np.unique(self.test.get_column(_U).to_numpy())

    def item_mask(self, frame: pl.DataFrame) -> np.ndarray:
        """Bool mask over ``items`` of the items appearing in ``frame`` (``train`` or ``test``)."""
        mask = np.zeros(self.items.len(), dtype=bool)
        mask[frame.get_column(_I).to_numpy()] = True
        return mask


def _index(values: pl.Series, code: str) -> pl.DataFrame:
    return pl.DataFrame({"_id": values}).with_row_index(code).with_columns(pl.col(code).cast(pl.Int64))


def make_split(train, test, items=None, *, paths: dict | None = None) -> IndexedSplit:
    """Validate a split and number its users and items (see :class:`IndexedSplit`).

    ``train`` / ``test``: ratings frames (or paths); ``items``: an optional catalogue (a sequence or
    Series of item ids, or a path read by :func:`~trecrs.files.candidates.read_items`). Errors: an empty test set, a (user, item)
    pair in both train and test, rated items missing from the catalogue.
    """
    paths = paths or {}
    train = validate_ratings(train, "training ratings", paths.get("train"))
    test = validate_ratings(test, "test ratings", paths.get("test"))
    if test.height == 0:
        raise InputError(paths.get("test"), None, "the test set is empty: there is nothing to evaluate")
    both = train.join(test, on=[USER, ITEM], how="semi")
    if both.height:
        u, i = both.row(0)[:2]
        raise InputError(
            paths.get("test"), None,
            f"{both.height} (user, item) pair(s) are in both the training and the test ratings "
            f"(first: user {u!r}, item {i!r}); a split must keep them apart",
        )
    rated_items = pl.concat([train.get_column(ITEM), test.get_column(ITEM)])
    catalogue_given = items is not None
    if items is not None:
        if isinstance(items, str | os.PathLike):
            items = read_items(items)
        catalogue = pl.Series(ITEM, items, dtype=pl.Utf8).unique()
        outside = rated_items.unique().filter(~rated_items.unique().is_in(catalogue.implode()))
        if outside.len():
            raise InputError(
                paths.get("items"), None,
                f"the catalogue lacks {outside.len()} item(s) that have ratings (first: {outside.sort()[0]!r})",
            )
    else:
        catalogue = rated_items
    users = natural_unique(pl.concat([train.get_column(USER), test.get_column(USER)]))
    items_s = natural_unique(catalogue)
    uidx, iidx = _index(users, _U), _index(items_s, _I)

    def codes(df: pl.DataFrame) -> pl.DataFrame:
        out = df.join(uidx, left_on=USER, right_on="_id").join(iidx, left_on=ITEM, right_on="_id")
        return out.select(_U, _I, RATING).sort(_U, _I)

    return IndexedSplit(users.alias(USER), items_s.alias(ITEM), codes(train), codes(test), catalogue_given)


# --------------------------------------------------------------------------------------------- hashing


def _seed_key(seed: int) -> np.uint64:
    return hash_ids([str(int(seed))], b"trecrs.seed")[0]


def case_keys(seed: int, users: list[str], items: list[str]) -> np.ndarray:
    """The key k(seed, u, i) of each One-Plus-Random case; a function of those three strings only."""
    hu = hash_ids(users, b"trecrs.user")
    hi = hash_ids(items, b"trecrs.case")
    return mix64(mix64(hu ^ _seed_key(seed), add_gamma=False) ^ hi, add_gamma=False)


# --------------------------------------------------------------------------------------------- methodologies


@dataclass(frozen=True)
class CandidateOptions:
    """Options of candidate generation (only One-Plus-Random uses ``n``, ``seed``, ``pool``, the threshold)."""

    n: int = 1000
    relevant_threshold: float = 5.0
    seed: int | None = None
    pool: str = "all"
    long_tail: float | None = None
    chunk_rows: int = CHUNK_ROWS


@dataclass(frozen=True)
class Methodology:
    """A registry entry: how the candidates of every query are built, and where the definition comes from."""

    name: str
    rule: str
    reference: str
    chunks: Callable[[IndexedSplit, CandidateOptions, dict], Iterator[pl.DataFrame]]
    per_case: bool = False


def _test_ratings_chunks(split: IndexedSplit, opts: CandidateOptions, info: dict) -> Iterator[pl.DataFrame]:
    pairs = split.test.select(pl.col(_U).alias(_Q), _U, _I)
    step = max(1, opts.chunk_rows)
    users = pairs.get_column(_U).to_numpy()
    start = 0
    while start < pairs.height:  # cut between users so a chunk holds whole queries
        stop = min(pairs.height, start + step)
        if stop < pairs.height:
            stop = int(np.searchsorted(users, users[stop - 1], side="right"))
        yield pairs.slice(start, stop - start)
        start = stop


def _rated_rows(frame: pl.DataFrame, users: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(user code, item code) arrays of ``frame`` (sorted by user) for users in ``users`` (ascending)."""
    u = frame.get_column(_U).to_numpy()
    lo = int(np.searchsorted(u, users[0], side="left"))
    hi = int(np.searchsorted(u, users[-1], side="right"))
    su = u[lo:hi]
    si = frame.get_column(_I).to_numpy()[lo:hi]
    keep = np.isin(su, users)
    return su[keep], si[keep]


def _pool_minus_train(pool: Callable[[IndexedSplit], np.ndarray]):
    """Chunks of L_u = P \\ Tr_u for a pool P of items (a bool mask over the catalogue)."""

    def chunks(split: IndexedSplit, opts: CandidateOptions, info: dict) -> Iterator[pl.DataFrame]:
        mask = pool(split)
        n_items = mask.size
        users = split.query_users
        info["pool_items"] = int(mask.sum())
        step = max(1, opts.chunk_rows // max(1, n_items))
        for start in range(0, users.size, step):
            us = users[start : start + step]
            m = np.repeat(mask[None, :], us.size, axis=0)
            ru, ri = _rated_rows(split.train, us)
            m[np.searchsorted(us, ru), ri] = False
            rows, cols = np.nonzero(m)
            u = us[rows].astype(np.int64)
            yield pl.DataFrame({_Q: u, _U: u, _I: cols.astype(np.int64)})

    return chunks


def opr_cases(split: IndexedSplit, opts: CandidateOptions) -> pl.DataFrame:
    """One-Plus-Random cases: test ratings >= the highly-relevant threshold (long tail only, if asked).

    Columns ``_q`` (case number, in natural (user, item) order), ``_u``, ``_i``, ``rating``.
    """
    cases = split.test.filter(pl.col(RATING) >= opts.relevant_threshold)
    if opts.long_tail is not None:
        train = pl.DataFrame({ITEM: split.items.gather(split.train.get_column(_I))})
        head = short_head(train, opts.long_tail)
        head_codes = split.items.to_frame().with_row_index(_I).filter(pl.col(ITEM).is_in(head.implode()))
        cases = cases.filter(~pl.col(_I).is_in(head_codes.get_column(_I).cast(pl.Int64).implode()))
    if cases.height == 0:
        raise UsageError(
            f"no test rating reaches the highly-relevant threshold {opts.relevant_threshold:g}"
            + (" among long-tail items" if opts.long_tail is not None else "")
            + ": One-Plus-Random has no query"
        )
    return cases.sort(_U, _I).with_row_index(_Q).with_columns(pl.col(_Q).cast(pl.Int64))


def _one_plus_random_chunks(split: IndexedSplit, opts: CandidateOptions, info: dict) -> Iterator[pl.DataFrame]:
    if opts.pool not in OPR_POOLS:
        raise UsageError(f"unknown One-Plus-Random pool {opts.pool!r}; choose from {OPR_POOLS}")
    if opts.n < 1:
        raise UsageError(f"--n must be a positive number of random items, got {opts.n}")
    if opts.seed is None:
        raise UsageError("one-plus-random draws random items: give a seed (--seed S)")
    cases = opr_cases(split, opts)
    n_items = split.items.len()
    pool = np.ones(n_items, dtype=bool) if opts.pool == "all" else split.item_mask(split.test)
    item_hash = hash_ids(split.items, b"trecrs.item")
    if np.unique(item_hash).size != item_hash.size:  # probability ~ n^2 / 2^65
        raise UsageError("two item ids share a 64-bit hash; One-Plus-Random cannot order them reproducibly")
    item_hash[~pool] = 0  # masked out below anyway
    rated = pl.concat([split.train.select(_U, _I), split.test.select(_U, _I)]).sort(_U, _I)
    cu = cases.get_column(_U).to_numpy()
    ci = cases.get_column(_I).to_numpy()
    keys_case = case_keys(opts.seed, split.users.gather(cu).to_list(), split.items.gather(ci).to_list())
    step = max(1, opts.chunk_rows // max(1, n_items))
    short = 0
    for start in range(0, cases.height, step):
        sl = slice(start, start + step)
        c_u, c_i, k = cu[sl], ci[sl], keys_case[sl]
        keys = mix64(k[:, None] ^ item_hash[None, :], add_gamma=False)
        np.minimum(keys, _MAX - np.uint64(1), out=keys)  # _MAX marks "not drawable"
        keys[:, ~pool] = _MAX
        # items the case's user rated (train or test, the case item included) are not drawable
        us = np.unique(c_u)
        ru, ri = _rated_rows(rated, us)
        starts = np.searchsorted(ru, c_u, side="left")
        stops = np.searchsorted(ru, c_u, side="right")
        lens = stops - starts
        rows = np.repeat(np.arange(c_u.size), lens)
        # positions starts[c] .. stops[c]-1 of every case c, concatenated, without a Python loop
        idx = np.arange(rows.size) - np.repeat(np.cumsum(lens) - lens, lens) + np.repeat(starts, lens)
        keys[rows, ri[idx]] = _MAX
        drawable = (keys != _MAX).sum(axis=1)
        short += int((drawable < opts.n).sum())
        if opts.n < n_items:
            kth = np.partition(keys, opts.n - 1, axis=1)[:, opts.n - 1]
        else:
            kth = np.full(c_u.size, _MAX - np.uint64(1))
        chosen = (keys <= kth[:, None]) & (keys != _MAX)
        chosen[np.arange(c_u.size), c_i] = True
        r, c = np.nonzero(chosen)
        yield pl.DataFrame({_Q: (r + start).astype(np.int64), _U: c_u[r].astype(np.int64), _I: c.astype(np.int64)})
    info.update(cases=cases.height, cases_short_of_n=short, pool=opts.pool, n=opts.n, seed=opts.seed)


_BELLOGIN = "Bellogín, Castells & Cantador, RecSys 2011"
_CREMONESI = "Cremonesi, Koren & Turrin, RecSys 2010"

METHODOLOGIES: dict[str, Methodology] = {
    m.name: m
    for m in (
        Methodology("test-ratings", "L_u = Te_u", _BELLOGIN, _test_ratings_chunks),
        Methodology("test-items", "L_u = (items of the test set) \\ Tr_u", _BELLOGIN,
                    _pool_minus_train(lambda s: s.item_mask(s.test))),
        Methodology("training-items", "L_u = (items rated in train by another user) \\ Tr_u", _BELLOGIN,
                    _pool_minus_train(lambda s: s.item_mask(s.train))),
        Methodology("all-items", "L_u = I \\ Tr_u", _BELLOGIN,
                    _pool_minus_train(lambda s: np.ones(s.items.len(), dtype=bool))),
        Methodology("one-plus-random", "{i} ∪ N random unrated items, one query u:i per test rating >= threshold",
                    _CREMONESI, _one_plus_random_chunks, per_case=True),
    )
}


def get_methodology(name: str) -> Methodology:
    """The registry entry called ``name`` (a :class:`UsageError` listing the choices otherwise)."""
    try:
        return METHODOLOGIES[name]
    except KeyError:
        raise UsageError(f"unknown methodology {name!r}; choose from {', '.join(METHODOLOGIES)}") from None


# --------------------------------------------------------------------------------------------- candidates


@dataclass
class CandidateSet:
    """The candidates of a methodology on a split, produced lazily in chunks of whole queries.

    :meth:`code_chunks` yields integer-coded frames (``_q``, ``_u``, ``_i``); :meth:`chunks` the same as
    ``query, user, item`` strings; :meth:`frame` all of them at once. ``info`` gains counts as chunks are
    produced (queries, pairs, One-Plus-Random cases short of N).
    """

    split: IndexedSplit
    methodology: Methodology
    options: CandidateOptions
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._cases = opr_cases(self.split, self.options) if self.methodology.per_case else None
        if self._cases is not None:
            self._check_case_ids()

    def _check_case_ids(self) -> None:
        users = self.split.users
        items = self.split.items
        if not (users.str.contains(CASE_SEPARATOR, literal=True).any()
                and items.str.contains(CASE_SEPARATOR, literal=True).any()):
            return  # "u:i" cannot collide unless both user and item ids hold the separator
        q = self.query_names(self._cases.get_column(_Q))
        if q.n_unique() != q.len():
            raise UsageError(f"ids containing {CASE_SEPARATOR!r} make two One-Plus-Random query ids equal")

    @property
    def cases(self) -> pl.DataFrame | None:
        return self._cases

    def code_chunks(self) -> Iterator[pl.DataFrame]:
        queries = pairs = 0
        for chunk in self.methodology.chunks(self.split, self.options, self.info):
            queries += chunk.get_column(_Q).n_unique()
            pairs += chunk.height
            self.info.update(queries=queries, pairs=pairs)
            yield chunk

    def query_names(self, q: pl.Series) -> pl.Series:
        """Query ids of query codes: the user id, or ``user:item`` for One-Plus-Random."""
        if self._cases is None:
            return self.split.users.gather(q).alias(QUERY)
        c = self._cases
        u = self.split.users.gather(c.get_column(_U).gather(q))
        i = self.split.items.gather(c.get_column(_I).gather(q))
        return (u + CASE_SEPARATOR + i).alias(QUERY)

    def named(self, chunk: pl.DataFrame) -> pl.DataFrame:
        """A code chunk as ``query, user, item`` strings (``schema.CANDIDATES_SCHEMA``)."""
        return pl.DataFrame(
            {
                QUERY: self.query_names(chunk.get_column(_Q)),
                USER: self.split.users.gather(chunk.get_column(_U)),
                ITEM: self.split.items.gather(chunk.get_column(_I)),
            },
            schema=CANDIDATES_SCHEMA,
        )

    def chunks(self) -> Iterator[pl.DataFrame]:
        for chunk in self.code_chunks():
            yield self.named(chunk)

    def frame(self) -> pl.DataFrame:
        parts = list(self.chunks())
        return pl.concat(parts) if parts else pl.DataFrame(schema=CANDIDATES_SCHEMA)


def candidate_set(
    methodology: str,
    train,
    test=None,
    items=None,
    *,
    n: int = 1000,
    relevant_threshold: float = 5.0,
    seed: int | None = None,
    pool: str = "all",
    long_tail: float | None = None,
    chunk_rows: int = CHUNK_ROWS,
    paths: dict | None = None,
) -> CandidateSet:
    """The lazily built candidates of ``methodology`` (a :data:`METHODOLOGIES` name) on a split.

    ``train``/``test``: ratings frames or paths; or ``train`` alone as a :class:`trecrs.splits.Split`
    (anything with ``.train`` and ``.test``) or an :class:`IndexedSplit`.
    """
    m = get_methodology(methodology)
    if test is None and hasattr(train, "train") and hasattr(train, "test"):
        train, test = train.train, train.test
    split = train if isinstance(train, IndexedSplit) else make_split(train, test, items, paths=paths)
    opts = CandidateOptions(n=n, relevant_threshold=relevant_threshold, seed=seed, pool=pool,
                            long_tail=long_tail, chunk_rows=chunk_rows)
    return CandidateSet(split, m, opts)


def candidates(methodology: str, train, test=None, items=None, **options) -> pl.DataFrame:
    """All candidate pairs ``query, user, item`` of ``methodology`` on a split (see :func:`candidate_set`).

    Queries in natural user order (One-Plus-Random: natural (user, item) order), items in natural order.
    """
    return candidate_set(methodology, train, test, items, **options).frame()


# --------------------------------------------------------------------------------------------- qrels


def methodology_qrels(
    methodology: str,
    train,
    test,
    items=None,
    *,
    relevant_threshold: float = 5.0,
    long_tail: float | None = None,
    grade: str = "rating",
    scale: int | None = None,
    **qrels_options,
) -> QrelsResult:
    """The qrels matching ``methodology``'s queries.

    test-ratings, test-items, training-items, all-items: one qrels per split, :func:`~trecrs.qrels.make_qrels`
    with ``qrels_options`` (``threshold``, ``per_user``, ``nonrelevant``...). one-plus-random: one line
    ``(u:i, 0, i, value)`` per case (test rating >= ``relevant_threshold``), ``value`` graded by ``grade``
    (the rating by default; Cremonesi et al. 2010 judge only the case item, every drawn item is unjudged).
    """
    m = get_methodology(methodology)
    if train is None and m.per_case and long_tail is not None:
        raise UsageError("the long-tail filter needs the training ratings (--train): popularity is counted there")
    if train is None:  # the qrels need the test ratings alone, unless a long-tail or per-user rule says otherwise
        train = pl.DataFrame(schema={USER: pl.Utf8, ITEM: pl.Utf8, RATING: pl.Float64}) if m.per_case else None
    if not m.per_case:
        return make_qrels(test, train=train, long_tail=long_tail, grade=grade, scale=scale, **qrels_options)
    given = sorted(k for k, v in qrels_options.items() if v not in (None, False, 0.0, "test"))
    if given:
        raise UsageError(f"one-plus-random judges its case items only; {', '.join(given)} do not apply "
                         "(its relevant items are the test ratings >= --relevant-threshold)")
    if grade not in GRADES:
        raise UsageError(f"unknown grade {grade!r}; choose from {sorted(GRADES)}")
    cset = candidate_set(methodology, train, test, items, relevant_threshold=relevant_threshold,
                         long_tail=long_tail)
    cases = cset.cases
    factor, mapping = (1, None) if grade == "binary" else rating_scale(cases.get_column(RATING), scale)
    scaled = (pl.col(RATING) * factor).round().cast(pl.Int64)
    value = GRADES[grade].value(scaled, factor, relevant_threshold)
    qrels = pl.DataFrame(
        {
            QUERY: cset.query_names(cases.get_column(_Q)),
            ITER: "0",
            DOC: cset.split.items.gather(cases.get_column(_I)),
            REL: cases.select(value.cast(pl.Int64)).to_series(),
        },
        schema=QRELS_SCHEMA,
    )
    if qrels.select((pl.col(REL) < 1).any()).item():
        raise UsageError("some case ratings get a relevance value below 1; use --grade binary or shifted")
    info = {"test_ratings": cset.split.test.height, "relevant": qrels.height, "queries": qrels.height,
            "relevant_threshold": relevant_threshold, "scale_factor": factor, "rating_map": mapping}
    if long_tail is not None:
        info["long_tail_share"] = long_tail
    return QrelsResult(qrels, info)
