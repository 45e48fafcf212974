"""Exact AllItems rankings from a factor model, one block of users at a time, never users x items at once.

A factor model scores item ``i`` for user ``u`` as the dot product of their factor vectors. The run it
stands for is AllItems (Bellogín, Castells & Cantador 2011): every item of the catalogue but the user's
training items, in trec_eval's order (:mod:`trecrs.ordering`: score as a C float descending, ties by
item id descending bytewise). Only the judged items' places matter to the measures, so for each block
of users the scores are computed (:func:`factor_scores`), each row is sorted once, and each judged
item's 0-based rank is found by binary search:

    rank(j) = #{candidates with score > s_j} + #{candidates with score == s_j and id > id_j (bytewise)}

The block then becomes a :class:`~.rank.Ranked` (judged values at their ranks, NONPOOL elsewhere) and the
one implementation of the measures (:func:`~.measures.compute_ranked`) computes it. Full ranks of every
judged item, never a truncated top-N: MAP, R-prec and recall at any depth are exact.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import polars as pl

from ...errors import InputError
from ...measures.request import MeasureRequest
from ...schema import QUERY
from ...threads import one_thread
from ..base import Computed, QueryStats
from .measures import compute_ranked
from .rank import NONPOOL, UNJUDGED, Encoded, Ranked, _qrels_counts, relstrings, reorder_ties
from .tie_report import tie_report
from .ties import compute_expected


def factor_scores(user_factors: np.ndarray, item_factors: np.ndarray) -> np.ndarray:
    """The scores of a factor model: ``float32(sum_k p_uk * q_ik)``, the sum taken in float64 (a dgemm).

    Each float32 product is exact in float64 and a row's value does not depend on the other rows of the
    block (checked by the tests), so a run written from these scores with ``%.9g`` (which round-trips a
    float32) is ranked by trec_eval exactly as :func:`compute_factors` ranks them (same call, same layout).
    The product runs on one BLAS thread (:func:`trecrs.threads.one_thread`), as in :func:`compute_factors`:
    how a threaded BLAS splits it must not move a near-tie.
    """
    with one_thread():
        return _scores(
            threading.local(), np.asarray(user_factors, dtype=np.float64), _item_matrix(item_factors)
        ).copy()


def _item_matrix(item_factors: np.ndarray) -> np.ndarray:
    """The item factors as the k x items float64 matrix every product is taken with (one layout, one dgemm)."""
    return np.ascontiguousarray(np.asarray(item_factors, dtype=np.float64).T)


@dataclass
class FactorPairs:
    """The qrels, the training pairs and the ids of a factor model, as integer codes.

    Users are coded by their bytewise rank in ``qvocab`` (qrels users and factor users); items by their
    column in the item factors (``-1``: not in the catalogue). Only the factor users with qrels are
    ranked (trec_eval ignores the rankings of other queries): ``factor_row`` lists them, and "row" below
    means an index into it. ``item_rank`` is the bytewise rank of each catalogue item's id (the
    tie-break). Qrels and training rows are sorted by row (``-1``: a qrels user without factors), so a
    block of rows owns one slice of each. ``stats`` counts every factor user's candidates.
    """

    qvocab: pl.Series
    factor_row: np.ndarray  # per row: the user's row in the user factors
    user_code: np.ndarray  # per row: the user's code in qvocab
    n_cand: np.ndarray  # per row: candidates (catalogue minus training items)
    item_rank: np.ndarray  # per catalogue column: bytewise rank of the item id
    q_row: np.ndarray  # qrels rows, sorted: row of the user (-1: no factors)
    q_code: np.ndarray  # qrels rows: user code
    q_col: np.ndarray  # qrels rows: catalogue column of the item (-1: not in the catalogue)
    q_val: np.ndarray  # qrels rows: relevance value
    t_row: np.ndarray  # training pairs in the catalogue, sorted: row of the user (int32)
    t_col: np.ndarray  # training pairs: catalogue column (int32)
    run_stats: pl.DataFrame  # every factor user with a candidate: query, retrieved (before -M)


def _codes(ids: pl.Series, vocab: pl.Series) -> np.ndarray:
    """Position of each id in ``vocab`` (distinct strings; -1 when absent), int64: a cast to the ``Enum`` of
    ``vocab``, whose physical codes are those positions (a join would hold a copy of the 16M training ids)."""
    return ids.cast(pl.Enum(vocab), strict=False).to_physical().cast(pl.Int64).fill_null(-1).to_numpy()


def _sorted_unique(x: np.ndarray) -> np.ndarray:
    """``np.unique`` by sorting in place (numpy 2's hash-based unique is several times slower on 16M keys)."""
    x.sort()
    return x[np.concatenate(([True], x[1:] != x[:-1]))] if x.size else x


def _train_keys(train: pl.DataFrame, users: pl.Series, items: pl.Series) -> np.ndarray:
    """The distinct training pairs in the catalogue as sorted keys ``user * items + column`` (a pair rated
    twice counts once), built in place: the temporaries of 16M pairs are freed on return."""
    user = _codes(train.get_column("user").cast(pl.Utf8), users)
    col = _codes(train.get_column("item").cast(pl.Utf8), items)
    keep = (user >= 0) & (col >= 0)
    key = user * items.len()
    del user
    key += col
    del col
    return _sorted_unique(key[keep])


def encode_pairs(qrels: pl.DataFrame, train: pl.DataFrame, users: pl.Series, items: pl.Series) -> FactorPairs:
    """:class:`FactorPairs` from the qrels (query, doc, rel), the training pairs (user, item) and the ids."""
    qrels_q = qrels.get_column("query").cast(pl.Utf8)
    qvocab = pl.concat([qrels_q.unique(), users]).unique().sort()  # polars sorts strings bytewise
    n_items = items.len()
    t = _train_keys(train, users, items)
    n_cand = n_items - np.bincount(t // n_items, minlength=users.len())
    code = _codes(users, qvocab)
    has = n_cand > 0
    run_stats = pl.DataFrame({"query": qvocab.gather(code[has]), "retrieved": n_cand[has].astype(np.int64)})
    q_code = _codes(qrels_q, qvocab)
    judged = np.zeros(len(qvocab), dtype=bool)
    judged[q_code] = True
    factor_row = np.flatnonzero(judged[code])
    row_of = np.full(len(qvocab), -1, dtype=np.int64)
    row_of[code[factor_row]] = np.arange(factor_row.size)
    row_of_user = np.full(users.len(), -1, dtype=np.int64)
    row_of_user[factor_row] = np.arange(factor_row.size)
    q_row = row_of[q_code]
    o = np.argsort(q_row, kind="stable")
    t_row = row_of_user[t // n_items]
    tk = t_row >= 0
    t_col = (t % n_items)[tk].astype(np.int32)  # rows and columns fit 32 bits: half the memory of the keys
    t_row = t_row[tk].astype(np.int32)
    del t
    item_rank = np.empty(n_items, dtype=np.int64)
    item_rank[items.arg_sort().to_numpy()] = np.arange(n_items)
    return FactorPairs(
        qvocab,
        factor_row,
        code[factor_row],
        n_cand[factor_row],
        item_rank,
        q_row[o],
        q_code[o],
        _codes(qrels.get_column("doc").cast(pl.Utf8), items)[o],
        qrels.get_column("rel").cast(pl.Int64).to_numpy()[o],
        t_row,
        t_col,
        run_stats,
    )


def factor_stats(pairs: FactorPairs, depth: int | None) -> QueryStats:
    """:class:`~trecrs.engines.base.QueryStats` of the qrels and the AllItems run (factor users with a
    candidate), as :func:`~.files.encoded_stats` gives them for a written run."""
    qrels = (
        pl.DataFrame({"code": pairs.q_code, "v": pairs.q_val})
        .group_by("code")
        .agg(pl.col("v").max().alias("top"), (pl.col("v") > 0).sum().cast(pl.Int64).alias("relevant"))
    )
    qrels = qrels.select(
        pl.Series("query", pairs.qvocab.gather(qrels.get_column("code").to_numpy())), "top", "relevant"
    )
    run = pairs.run_stats
    if depth is not None:
        run = run.with_columns(pl.col("retrieved").clip(upper_bound=depth))
    return QueryStats(qrels, run)


@dataclass
class _Block:
    """The judged catalogue items of a block of users and their 0-based ranks."""

    row: np.ndarray  # block-local row
    rank: np.ndarray
    val: np.ndarray  # relevance value (UNJUDGED for negative qrels values)
    group: (
        np.ndarray
    )  # 0-based rank of the first candidate with the item's score (its tie group's first place)
    size: np.ndarray  # candidates with the item's score (its tie group's size)


def _judged_ranks(
    scores: np.ndarray, rows: np.ndarray, cols: np.ndarray, n_cand: np.ndarray, item_rank: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """0-based rank of each (row, col) candidate, and its tie group's first rank and size; non-candidates
    of ``scores`` are NaN (sorted last)."""
    ordered = np.sort(scores, axis=1)
    s = scores[rows, cols]
    above = np.empty(rows.size, dtype=np.int64)
    ties = np.empty(rows.size, dtype=np.int64)
    bounds = np.searchsorted(rows, np.arange(scores.shape[0] + 1))
    for r in np.flatnonzero(np.diff(bounds)):  # rows is sorted: one slice of judged cells per row
        a, b = bounds[r], bounds[r + 1]
        lo = np.searchsorted(ordered[r], s[a:b], "left")
        hi = np.searchsorted(ordered[r], s[a:b], "right")
        above[a:b] = n_cand[r] - hi
        ties[a:b] = hi - lo
    first = above.copy()
    for k in np.flatnonzero(ties > 1):  # equal C floats: the bytewise greater item id ranks first
        tied = np.flatnonzero(scores[rows[k]] == s[k])
        above[k] += int((item_rank[tied] > item_rank[cols[k]]).sum())
    return above, first, ties


def _block(pairs: FactorPairs, lo: int, hi: int, scores: np.ndarray, n_cand: np.ndarray) -> _Block:
    """Exclude the block's training pairs (NaN) and rank its judged candidates."""
    t0, t1 = np.searchsorted(pairs.t_row, [lo, hi])
    scores[pairs.t_row[t0:t1] - lo, pairs.t_col[t0:t1]] = np.nan
    q0, q1 = np.searchsorted(pairs.q_row, [lo, hi])
    rows, cols, vals = pairs.q_row[q0:q1] - lo, pairs.q_col[q0:q1], pairs.q_val[q0:q1]
    inside = cols >= 0
    rows, cols, vals = rows[inside], cols[inside], vals[inside]
    cand = ~np.isnan(scores[rows, cols])  # a judged training item is no candidate
    rows, cols, vals = rows[cand], cols[cand], vals[cand]
    ranks, group, size = _judged_ranks(scores, rows, cols, n_cand, pairs.item_rank)
    return _Block(rows, ranks, np.where(vals < 0, UNJUDGED, vals), group, size)


def _scores(local: threading.local, p64: np.ndarray, q64t: np.ndarray) -> np.ndarray:
    """:func:`factor_scores` of a block into this thread's buffers, reused from block to block (a fresh
    100 MB array per block costs more in page faults than the product itself)."""
    shape = (p64.shape[0], q64t.shape[1])
    if getattr(local, "f64", None) is None or local.f64.shape[0] < shape[0]:
        local.f64 = np.empty(shape, dtype=np.float64)
        local.f32 = np.empty(shape, dtype=np.float32)
    f64, f32 = local.f64[: shape[0]], local.f32[: shape[0]]
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, refused by _check_finite naming the pair
        np.matmul(p64, q64t, out=f64)
    np.copyto(f32, f64, casting="same_kind")
    return f32


def _check_finite(scores: np.ndarray, users: np.ndarray, user_ids: pl.Series, item_ids: pl.Series) -> None:
    """A NaN score (inf - inf in a dot product) cannot be ranked: an error naming the pair."""
    if np.isnan(scores).any():
        u, i = np.argwhere(np.isnan(scores))[0]
        raise InputError(
            None, None, f"score of user {user_ids[int(users[u])]!r}, item {item_ids[int(i)]!r} is NaN"
        )


def _ranked(
    pairs: FactorPairs,
    lo: int,
    hi: int,
    b: _Block,
    n_cand: np.ndarray,
    *,
    level: int,
    judged_only: bool,
    depth: int | None,
    ties: str = "trec_eval",
) -> Ranked:
    """The block as trec_eval's ranked lists: -M keeps the first N, -J the judged candidates among them.

    Every list carries its tie flags for the tie groups holding a judged item (a group of unjudged items
    alone changes no measure, whatever its order). Under ``ties`` best or worst those groups are first
    reordered by relevance value (:func:`~.rank.reorder_ties`); under ``expected`` the lists are not cut at
    ``depth`` (:func:`~.ties.compute_expected` counts the places).
    """
    n = hi - lo
    full = np.zeros(n + 1, dtype=np.int64)  # each row's first place, every candidate place in a row
    np.cumsum(n_cand, out=full[1:])
    gstart, gsize = _groups(b, full)
    row, pos, val = b.row, b.rank, b.val
    if ties in ("best", "worst"):
        row, pos, val = _reordered(b, full, gstart, gsize, ties)
    elif ties == "expected":
        depth = None
    lens = n_cand.astype(np.int64)
    if depth is not None:  # -M cuts the ranking first, then -J drops from what is left (as rank.py does)
        keep = pos < depth
        row, pos, val = row[keep], pos[keep], val[keep]
        lens = np.minimum(lens, depth)
    seg = np.flatnonzero(n_cand > 0)  # a user without candidates retrieves nothing: absent from the run
    seg_of = np.full(n, -1, dtype=np.int64)
    seg_of[seg] = np.arange(seg.size)
    if judged_only:
        keep = val >= 0
        row, pos, val = row[keep], pos[keep], val[keep]
        o = np.lexsort((pos, row))
        row, pos, val = row[o], pos[o], val[o]
        group = _group_of(full[row] + pos, gstart, gsize)
        tied = np.zeros(row.size, dtype=bool)
        tied[1:] = (row[1:] == row[:-1]) & (group[1:] == group[:-1]) & (group[1:] >= 0)
        lens = np.bincount(row, minlength=n).astype(np.int64)
        pos = np.arange(row.size) - np.repeat(np.cumsum(lens) - lens, lens)
    starts = np.zeros(seg.size + 1, dtype=np.int64)
    np.cumsum(lens[seg], out=starts[1:])
    if not judged_only:
        grow = np.searchsorted(full, gstart, "right") - 1
        tied = _flags(int(starts[-1]), starts[seg_of[grow]], gstart - full[grow], gsize, lens[grow])
    small = val.size == 0 or (-32768 < int(val.min()) and int(val.max()) < 32767)
    rel = np.full(int(starts[-1]), NONPOOL, dtype=np.int16 if small else np.int64)
    rel[starts[seg_of[row]] + pos] = val
    seg_q = pairs.user_code[lo:hi][seg]
    q0, q1 = np.searchsorted(pairs.q_row, [lo, hi])
    enc = Encoded(
        pairs.qvocab,
        pl.Series([], dtype=pl.Utf8),
        pairs.q_code[q0:q1],
        pairs.q_col[q0:q1],
        pairs.q_val[q0:q1],
        *(np.empty(0),) * 3,
    )
    num_rel, num_nonrel, num_zero, istarts, ideal = _qrels_counts(enc, seg_q, level)
    return Ranked(
        queries=pairs.qvocab.gather(seg_q).to_list(),
        starts=starts,
        rel=rel,
        level=level,
        num_rel=num_rel,
        num_nonrel=num_nonrel,
        ideal_starts=istarts,
        ideal=ideal,
        bogus=np.zeros(seg.size, dtype=bool),
        num_zero=num_zero,
        tied=tied,
    )


def _groups(b: _Block, full: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tie groups of more than one candidate that hold a judged item: first place (counting every
    candidate place of the block, row after row) and size, once each, ascending."""
    many = b.size > 1
    first = full[b.row[many]] + b.group[many]
    first, at = np.unique(first, return_index=True)
    return first, b.size[many][at]


def _group_of(place: np.ndarray, gstart: np.ndarray, gsize: np.ndarray) -> np.ndarray:
    """The group (its first place) of each place, -1 - place for a place in no group."""
    k = np.searchsorted(gstart, place, "right") - 1
    kk = np.maximum(k, 0)
    inside = (k >= 0) & (place < gstart[kk] + gsize[kk]) if gstart.size else np.zeros(place.size, dtype=bool)
    return np.where(inside, gstart[kk] if gstart.size else 0, -1 - place)


def _flags(
    total: int, offset: np.ndarray, first: np.ndarray, size: np.ndarray, cap: np.ndarray
) -> np.ndarray:
    """Tie flags of ``total`` places: each group (its first place ``first`` and ``size`` within a list whose
    places start at ``offset`` and are cut at ``cap``) flags its places after the first."""
    lo, hi = first + 1, np.minimum(first + size, cap)
    n = np.maximum(hi - lo, 0)
    out = np.zeros(total, dtype=bool)
    if n.sum():
        base = np.repeat(offset + lo - (np.cumsum(n) - n), n)
        out[base + np.arange(int(n.sum()))] = True
    return out


def _reordered(b: _Block, full: np.ndarray, gstart: np.ndarray, gsize: np.ndarray, ties: str):
    """The judged items' (row, rank, value) after ``ties``'s order (best, worst) of each tie group."""
    rel = np.full(int(full[-1]), NONPOOL, dtype=b.val.dtype if b.val.size else np.int16)
    rel[full[b.row] + b.rank] = b.val
    tied = _flags(
        rel.size, np.zeros(gstart.size, dtype=np.int64), gstart, gsize, np.full(gstart.size, rel.size)
    )
    rel = reorder_ties(rel, tied, descending=ties == "best")
    idx = np.flatnonzero(rel != NONPOOL)
    row = np.searchsorted(full, idx, "right") - 1
    return row, idx - full[row], rel[idx]


def compute_factors(
    pairs: FactorPairs,
    user_factors: np.ndarray,
    item_factors: np.ndarray,
    user_ids: pl.Series,
    item_ids: pl.Series,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    block_users: int = 512,
    threads: int = 2,
    ties: str = "trec_eval",
) -> Computed:
    """Every judged factor user's trec_eval values over AllItems, ``block_users`` users per block.

    Users without qrels are not scored (trec_eval ignores their rankings). Blocks run on ``threads``
    threads (numpy's matrix product, sort and searches release the GIL), each product on one BLAS thread
    (:func:`trecrs.threads.one_thread`): the values depend on neither ``threads`` nor the BLAS's thread
    count. A block needs about ``block_users x items x 14`` bytes.
    """
    q64t = _item_matrix(item_factors)
    length = request.relstring_length()

    local = threading.local()

    def one(lo: int, hi: int) -> Computed:
        users = pairs.factor_row[lo:hi]
        scores = _scores(local, np.asarray(user_factors[users], dtype=np.float64), q64t)
        _check_finite(scores, users, user_ids, item_ids)
        n_cand = pairs.n_cand[lo:hi]
        r = _ranked(
            pairs,
            lo,
            hi,
            _block(pairs, lo, hi, scores, n_cand),
            n_cand,
            level=relevance_level,
            judged_only=judged_only,
            depth=depth,
            ties=ties,
        )
        if ties == "expected":
            values = compute_expected(r, request, depth)
            return Computed(pl.DataFrame({QUERY: pl.Series(QUERY, r.queries, dtype=pl.Utf8), **values}))
        report = None
        if ties == "trec_eval":  # values over the tie orders only without -M, as for a run file
            report = tie_report(r, request, depth)
        return Computed(
            compute_ranked(r, request), [], {} if length is None else relstrings(r, length), report
        )

    n = pairs.factor_row.size
    spans = [(lo, min(n, lo + block_users)) for lo in range(0, n, block_users)]
    with (
        one_thread(),
        ThreadPoolExecutor(max_workers=max(1, threads)) as pool,
    ):  # pinned once, for every worker
        parts = list(pool.map(lambda span: one(*span), spans))
    return Computed.concat(parts)
