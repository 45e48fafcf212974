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

One-Plus-Random (Cremonesi, Koren & Turrin, RecSys 2010) lives in :mod:`.one_plus_random`: its cases,
query ids, reproducible draws and qrels; the registry entry here points there.

Candidates are produced in chunks of whole queries (a dense users x items mask per chunk, so memory is
bounded by ``chunk_rows`` whatever the dataset size).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from ..data.ratings import validate_ratings
from ..errors import InputError, UsageError
from ..files.candidates import read_candidates, read_items, write_candidates  # noqa: F401 - re-exported
from ..files.ratings import as_ratings
from ..ids import natural_unique, positions
from ..schema import CANDIDATES_SCHEMA, ITEM, QUERY, RATING, USER
from .indexed import (
    _I,
    _Q,
    _U,
    CHUNK_ROWS,
    CandidateOptions,
    IndexedSplit,
    in_sorted,
    pair_keys,
    rated_rows,
)
from .one_plus_random import (  # noqa: F401 - CASE_SEPARATOR, OPR_POOLS: also importable from here
    CASE_SEPARATOR,
    OPR_POOLS,
    case_names,
    check_case_names,
    one_plus_random_chunks,
    opr_cases,
    opr_qrels,
)
from .qrels import QrelsResult, make_qrels

# --------------------------------------------------------------------------------------------- split

# An item catalogue: item ids, or a path read by read_items
Items = Sequence[object] | pl.Series | np.ndarray | str | os.PathLike
# A methodology's candidate chunks of a split: (split, options, info to fill) -> integer-coded frames
Chunks = Callable[[IndexedSplit, CandidateOptions, dict], Iterator[pl.DataFrame]]
# A methodology's membership rule: (split, coded pairs ``_u, _i, ...``, info to fill) -> the pairs that are
# candidates, with their query code ``_q``; ``info`` gets the counts enumerating the chunks would give
Members = Callable[[IndexedSplit, pl.DataFrame, dict], pl.DataFrame]


def make_split(
    train: object, test: object, items: Items | None = None, *, paths: dict | None = None
) -> IndexedSplit:
    """Validate a split and number its users and items (see :class:`IndexedSplit`).

    ``train`` / ``test``: ratings frames (or paths); ``items``: an optional catalogue (a sequence or
    Series of item ids, or a path read by :func:`read_items`). Errors: an empty test set, a (user, item)
    pair in both train and test, rated items missing from the catalogue.
    """
    paths = paths or {}
    train = validate_ratings(train, "training ratings", paths.get("train"))
    test = validate_ratings(test, "test ratings", paths.get("test"))
    if test.height == 0:
        raise InputError(paths.get("test"), None, "the test set is empty: there is nothing to evaluate")
    if items is not None or not (_is_coded(train) and _is_coded(test)):
        train, test = _as_text(train), _as_text(test)
    rated_items = pl.concat([train.get_column(ITEM), test.get_column(ITEM)])
    users = _natural_unique(pl.concat([train.get_column(USER), test.get_column(USER)]))
    # without a catalogue the items are coded once, in natural order; with one, the rated items are coded
    # for the overlap check (refused before the catalogue is read) and coded again in its order after
    vocab = _natural_unique(rated_items) if items is None else rated_items.unique()
    tr, te = _coded(train, users, vocab, rating=False), _coded(test, users, vocab)
    users, vocab = users.cast(pl.Utf8), vocab.cast(pl.Utf8)
    _refuse_overlap(tr, te, vocab.len(), train, test, paths)
    catalogue_given = items is not None
    items_s = vocab
    if items is not None:
        if isinstance(items, str | os.PathLike):
            items = read_items(items)
        catalogue = pl.Series(ITEM, items, dtype=pl.Utf8).unique()
        outside = rated_items.unique().filter(~rated_items.unique().is_in(catalogue.implode()))
        if outside.len():
            raise InputError(
                paths.get("items"),
                None,
                f"the catalogue lacks {outside.len()} item(s) that have ratings (first: {outside.sort()[0]!r})",
            )
        items_s = natural_unique(catalogue)
        tr, te = _coded(train, users, items_s, rating=False), _coded(test, users, items_s)
    return IndexedSplit(users.alias(USER), items_s.alias(ITEM), tr, te, catalogue_given)


def _is_coded(ratings: pl.DataFrame) -> bool:
    """Whether the ids of ``ratings`` are coded numbers (:func:`~trecrs.files.ratings.read_ratings`)."""
    return ratings.schema[USER].is_integer() and ratings.schema[ITEM].is_integer()


def _as_text(ratings: pl.DataFrame) -> pl.DataFrame:
    """``ratings`` with its ids as text (coded ids cast back to the text they were read from)."""
    return ratings.with_columns(pl.col(USER, ITEM).cast(pl.Utf8)) if _is_coded(ratings) else ratings


def _natural_unique(ids: pl.Series) -> pl.Series:
    """The distinct ids in natural order: coded ids (plain decimals) in the order of their numbers."""
    return ids.unique().sort() if ids.dtype.is_integer() else natural_unique(ids)


def _coded(ratings: pl.DataFrame, users: pl.Series, items: pl.Series, *, rating: bool = True) -> pl.DataFrame:
    """``_u, _i, rating`` of ``ratings`` sorted by (user, item): each id's position in ``users`` / ``items``
    (distinct ids holding every id of ``ratings``), read as the physical code of an ``Enum`` of them.
    ``rating=False``: the codes alone (no methodology reads a training rating: a Netflix-sized training
    set's ratings would hold 0.6 GB for nothing)."""
    if users.dtype.is_integer():
        return _coded_numbers(ratings, users, items, rating=rating)

    def code(column: str, index: pl.Series) -> pl.Expr:
        return pl.col(column).cast(pl.Enum(index)).to_physical().cast(pl.Int64)

    coded = ratings.select(
        code(USER, users).alias(_U), code(ITEM, items).alias(_I), *([RATING] if rating else [])
    )
    return coded.sort(pl.col(_U) * items.len() + pl.col(_I))  # one integer key: (user, item) order


def _coded_numbers(
    ratings: pl.DataFrame, users: pl.Series, items: pl.Series, *, rating: bool
) -> pl.DataFrame:
    """:func:`_coded` of coded ids, ``users`` and ``items`` their sorted distinct numbers: the rows are
    ordered by (user, item) on the numbers (their codes' order), then each column is taken in that order
    and its numbers found (:func:`~trecrs.ids.positions`), one column at a time (a 100-million-rating
    split is never held twice)."""
    user, item = ratings.get_column(USER), ratings.get_column(ITEM)
    key = user.to_numpy().astype(np.uint64)
    key <<= np.uint64(32)
    key |= item.to_numpy()
    order = pl.Series(key).arg_sort()  # pairs are distinct: no ties to order
    del key
    at = order.to_numpy()  # numpy's gather of a column: a fifth of the time of polars' on 16M rows
    columns = {
        _U: pl.Series(positions(user.to_numpy()[at], users.to_numpy())),
        _I: pl.Series(positions(item.to_numpy()[at], items.to_numpy())),
    }
    if rating:
        columns[RATING] = ratings.get_column(RATING).gather(order)
    return pl.DataFrame(columns)


def _refuse_overlap(
    tr: pl.DataFrame, te: pl.DataFrame, n_items: int, train: pl.DataFrame, test: pl.DataFrame, paths: dict
) -> None:
    """An error when a (user, item) pair is in both the training and the test ratings.

    Checked on the coded pairs (sorted, so one binary search per test pair); the message names the first
    such pair of the training ratings, found on the ids once there is one.
    """
    if not in_sorted(pair_keys(tr, n_items), pair_keys(te, n_items)).any():
        return
    both = _as_text(train.join(test, on=[USER, ITEM], how="semi"))
    u, i = both.row(0)[:2]
    raise InputError(
        paths.get("test"),
        None,
        f"{both.height} (user, item) pair(s) are in both the training and the test ratings "
        f"(first: user {u!r}, item {i!r}); a split must keep them apart",
    )


# --------------------------------------------------------------------------------------------- methodologies


@dataclass(frozen=True)
class Methodology:
    """A registry entry: how the candidates of every query are built, and where the definition comes from."""

    name: str
    rule: str
    reference: str
    chunks: Chunks
    per_case: bool = False
    # The paper's short names (Bellogín et al. 2011, Figure 2: TR, TeI, TrI, AI, 1R; OPR), accepted
    # case-insensitively wherever a methodology is named; manifests record ``name``.
    abbreviations: tuple[str, ...] = ()
    # The rule deciding whether given pairs are candidates, without enumerating them (None: enumerate)
    members: Members | None = None


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


def _pool_minus_train(pool: Callable[[IndexedSplit], np.ndarray]) -> Chunks:
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
            ru, ri = rated_rows(split.train, us)
            m[np.searchsorted(us, ru), ri] = False
            rows, cols = np.nonzero(m)
            u = us[rows].astype(np.int64)
            yield pl.DataFrame({_Q: u, _U: u, _I: cols.astype(np.int64)})

    return chunks


def _test_ratings_members(split: IndexedSplit, pairs: pl.DataFrame, info: dict) -> pl.DataFrame:
    """The pairs in Te (L_u = Te_u); queries and pairs counted as :func:`_test_ratings_chunks` yields them."""
    info.update(queries=split.test.get_column(_U).n_unique(), pairs=split.test.height)
    n_items = split.items.len()
    kept = pairs.filter(pl.Series(in_sorted(pair_keys(split.test, n_items), pair_keys(pairs, n_items))))
    return kept.with_columns(pl.col(_U).alias(_Q))


def _pool_members(pool: Callable[[IndexedSplit], np.ndarray]) -> Members:
    """The membership rule of L_u = P \\ Tr_u: u has test ratings, i in P, (u, i) not in Tr.

    The counts are arithmetic: |L_u| = |P| - |Tr_u ∩ P| per query user, a query when |L_u| > 0.
    """

    def members(split: IndexedSplit, pairs: pl.DataFrame, info: dict) -> pl.DataFrame:
        mask = pool(split)
        users = split.query_users
        info["pool_items"] = int(mask.sum())
        is_query = np.zeros(split.users.len(), dtype=bool)
        is_query[users] = True
        tr_u, tr_i = (split.train.get_column(c).to_numpy() for c in (_U, _I))
        in_pool = is_query[tr_u] & mask[tr_i]
        rated = np.bincount(tr_u[in_pool], minlength=is_query.size)[users]
        sizes = int(mask.sum()) - rated
        info.update(queries=int((sizes > 0).sum()), pairs=int(sizes.sum()))
        u, i = (pairs.get_column(c).to_numpy() for c in (_U, _I))
        keep = is_query[u] & mask[i]
        keys = u[keep].astype(np.int64) * mask.size + i[keep]
        keep[keep] = ~in_sorted(pair_keys(split.train, mask.size), keys)  # (u, i) not in Tr
        return pairs.filter(pl.Series(keep)).with_columns(pl.col(_U).alias(_Q))

    return members


def _test_items(split: IndexedSplit) -> np.ndarray:
    return split.item_mask(split.test)


def _training_items(split: IndexedSplit) -> np.ndarray:
    return split.item_mask(split.train)


def _all_items(split: IndexedSplit) -> np.ndarray:
    return np.ones(split.items.len(), dtype=bool)


_BELLOGIN = "Bellogín, Castells & Cantador, RecSys 2011"
_CREMONESI = "Cremonesi, Koren & Turrin, RecSys 2010"

METHODOLOGIES: dict[str, Methodology] = {
    m.name: m
    for m in (
        Methodology(
            "test-ratings",
            "L_u = Te_u",
            _BELLOGIN,
            _test_ratings_chunks,
            abbreviations=("TR",),
            members=_test_ratings_members,
        ),
        Methodology(
            "test-items",
            "L_u = (items of the test set) \\ Tr_u",
            _BELLOGIN,
            _pool_minus_train(_test_items),
            abbreviations=("TeI",),
            members=_pool_members(_test_items),
        ),
        Methodology(
            "training-items",
            "L_u = (items rated in train by another user) \\ Tr_u",
            _BELLOGIN,
            _pool_minus_train(_training_items),
            abbreviations=("TrI",),
            members=_pool_members(_training_items),
        ),
        Methodology(
            "all-items",
            "L_u = I \\ Tr_u",
            _BELLOGIN,
            _pool_minus_train(_all_items),
            abbreviations=("AI",),
            members=_pool_members(_all_items),
        ),
        Methodology(
            "one-plus-random",
            "{i} ∪ N random unrated items, one query u:i per test rating >= threshold",
            _CREMONESI,
            one_plus_random_chunks,
            per_case=True,
            abbreviations=("1R", "OPR"),
        ),
    )
}

# Every accepted spelling, lower-cased: the name itself and each abbreviation -> the registry name
_SPELLINGS: dict[str, str] = {
    alias.lower(): m.name for m in METHODOLOGIES.values() for alias in (m.name, *m.abbreviations)
}


def methodology_choices() -> list[str]:
    """Every methodology as ``name (ABBR, ...)``, for help texts and error messages."""
    return [f"{m.name} ({', '.join(m.abbreviations)})" for m in METHODOLOGIES.values()]


def methodology_name(name: str) -> str:
    """The registry name of a methodology given by name or abbreviation, case-insensitively (``TeI``,
    ``tei``, ``Test-Items`` -> ``test-items``); a :class:`UsageError` listing the choices otherwise."""
    try:
        return _SPELLINGS[str(name).strip().lower()]
    except KeyError:
        raise UsageError(
            f"unknown methodology {name!r}; choose from {', '.join(methodology_choices())}"
        ) from None


def get_methodology(name: str) -> Methodology:
    """The registry entry called ``name`` or one of its abbreviations (see :func:`methodology_name`)."""
    return METHODOLOGIES[methodology_name(name)]


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
        self._names: pl.Series | None = None
        self._cases = opr_cases(self.split, self.options) if self.methodology.per_case else None
        if self._cases is not None:
            self._check_case_ids(self._cases)

    def _check_case_ids(self, cases: pl.DataFrame) -> None:
        check_case_names(self.split.users, self.split.items, lambda: self.query_names(cases.get_column(_Q)))

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

    def members(self, pairs: pl.DataFrame) -> pl.DataFrame | None:
        """The coded pairs (``_u, _i, ...``) that are candidates, with ``_q``, and ``info`` counted as
        :meth:`code_chunks` counts it; None when the methodology has no membership rule (enumerate)."""
        rule = self.methodology.members
        return None if rule is None else rule(self.split, pairs, self.info)

    def query_names(self, q: pl.Series) -> pl.Series:
        """Query ids of query codes: the user id, or ``user:item`` for One-Plus-Random."""
        if self._cases is None:
            return self.split.users.gather(q).alias(QUERY)
        if self._names is None:  # each case's id made once, then gathered for its 1 + N candidates
            c = self._cases
            self._names = case_names(
                self.split.users.gather(c.get_column(_U)), self.split.items.gather(c.get_column(_I))
            )
        return self._names.gather(q)

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
    train: object,
    test: object = None,
    items: Items | None = None,
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

    ``train``/``test``: ratings frames or paths; or ``train`` alone as a :class:`trecrs.data.splits.Split`
    (anything with ``.train`` and ``.test``) or an :class:`IndexedSplit`.
    """
    m = get_methodology(methodology)
    split = train if isinstance(train, IndexedSplit) else _indexed(train, test, items, paths)
    opts = CandidateOptions(
        n=n,
        relevant_threshold=relevant_threshold,
        seed=seed,
        pool=pool,
        long_tail=long_tail,
        chunk_rows=chunk_rows,
    )
    return CandidateSet(split, m, opts)


def _indexed(train: object, test: object, items: Items | None, paths: dict | None) -> IndexedSplit:
    """A split of ratings coded once: ``train``/``test``, or ``train`` alone as a Split (``.train``/``.test``
    ratings). Checked after IndexedSplit, which has ``.train``/``.test`` too, of codes, not ratings."""
    if test is None and hasattr(train, "train") and hasattr(train, "test"):
        test = train.test
        train = train.train
    return make_split(train, test, items, paths=paths)


def candidates(
    methodology: str, train: object, test: object = None, items: Items | None = None, **options: Any
) -> pl.DataFrame:
    """All candidate pairs ``query, user, item`` of ``methodology`` on a split (see :func:`candidate_set`).

    Queries in natural user order (One-Plus-Random: natural (user, item) order), items in natural order.
    """
    return candidate_set(methodology, train, test, items, **options).frame()


# --------------------------------------------------------------------------------------------- qrels


def methodology_qrels(
    methodology: str,
    train: object,
    test: object,
    items: Items | None = None,
    *,
    relevant_threshold: float = 5.0,
    long_tail: float | None = None,
    grade: str = "rating",
    scale: int | None = None,
    **qrels_options: Any,
) -> QrelsResult:
    """The qrels matching ``methodology``'s queries.

    test-ratings, test-items, training-items, all-items: one qrels per split, :func:`~trecrs.protocol.qrels.make_qrels`
    with ``qrels_options`` (``threshold``, ``per_user``, ``nonrelevant``...). one-plus-random: one line
    ``(u:i, 0, i, value)`` per case (test rating >= ``relevant_threshold``), ``value`` graded by ``grade``
    (the rating by default; Cremonesi et al. 2010 judge only the case item, every drawn item is unjudged).
    """
    m = get_methodology(methodology)
    if train is None and m.per_case and long_tail is not None:
        raise UsageError(
            "the long-tail filter needs the training ratings (train=): popularity is counted there"
        )
    if (
        train is None
    ):  # the qrels need the test ratings alone, unless a long-tail or per-user rule says otherwise
        train = (
            pl.DataFrame(schema={USER: pl.Utf8, ITEM: pl.Utf8, RATING: pl.Float64}) if m.per_case else None
        )
    if not m.per_case:
        return make_qrels(test, train=train, long_tail=long_tail, grade=grade, scale=scale, **qrels_options)
    given = sorted(k for k, v in qrels_options.items() if v not in (None, False, 0.0, "test"))
    if given:
        raise UsageError(
            f"one-plus-random judges its case items only; {', '.join(given)} do not apply "
            "(its relevant items are the test ratings >= relevant_threshold)"
        )
    cset = candidate_set(
        methodology, train, test, items, relevant_threshold=relevant_threshold, long_tail=long_tail
    )
    cases = cset.cases
    assert cases is not None  # per_case: the candidate set built them
    qrels, info = opr_qrels(
        cset.query_names(cases.get_column(_Q)),
        cset.split.items.gather(cases.get_column(_I)),
        cases,
        relevant_threshold=relevant_threshold,
        grade=grade,
        scale=scale,
    )
    info = {"test_ratings": cset.split.test.height, **info}
    if long_tail is not None:
        info["long_tail_share"] = long_tail
    return QrelsResult(qrels, info)


# the rules of make_qrels that One-Plus-Random's case qrels do not take (they take grade, scale, long_tail)
_NOT_PER_CASE = ("threshold", "per_user", "offset", "per_user_from", "nonrelevant")


def build_qrels(
    test: object,
    *,
    methodology: str = "test-ratings",
    relevant_threshold: float = 5.0,
    train: object = None,
    columns: str | Mapping[str, str | int] | None = None,
    **options: Any,
) -> pl.DataFrame:
    """The qrels frame ``trecrs qrels`` writes (``query iter doc rel``), from test ratings (a frame or a path).

    ``options`` are the rules of :func:`~trecrs.protocol.qrels.make_qrels`: relevant is rating >= ``threshold``
    and/or rating >= the user's mean/max (``per_user``, from ``per_user_from``) + ``offset``; graded by
    ``grade`` (``scale``); ``nonrelevant`` adds below-threshold ratings as rel 0; ``long_tail`` drops the
    short-head items of ``train``. ``methodology="one-plus-random"``: one line per test rating
    >= ``relevant_threshold`` (:func:`methodology_qrels`). ``columns`` maps the columns of ``test`` and
    ``train`` as the command line's ``--columns`` does (frames are otherwise recognised by column name).

    >>> test = pl.DataFrame({"userId": [1, 1, 2], "movieId": [10, 20, 10], "rating": [5.0, 2.0, 4.0]})
    >>> build_qrels(test, threshold=4).rows()
    [('1', '0', '10', 5), ('2', '0', '10', 4)]
    """
    opr = get_methodology(methodology).per_case
    if opr and (
        options.get("threshold") is not None or options.get("per_user") or options.get("nonrelevant")
    ):
        raise UsageError(
            "one-plus-random qrels judge the case items only (test ratings >= relevant_threshold); "
            "threshold, per_user and nonrelevant do not apply"
        )
    test = as_ratings(test, columns=columns)
    train = None if train is None else as_ratings(train, columns=columns)
    if opr:  # refused above when set, or moot (offset, per_user_from only refine per_user)
        options = {k: v for k, v in options.items() if k not in _NOT_PER_CASE}
    return methodology_qrels(methodology, train, test, relevant_threshold=relevant_threshold, **options).qrels
