"""trec_eval's document and query order, written once for every part of trecrs that ranks documents.

Rule (trec_eval ``form_res_rels.c``, ``comp_sim_docno``): per query, documents sorted by score
descending, the score compared as a C ``float`` (IEEE float32, so 1.0 and 1.000000001 tie, and -0.0
equals 0.0); ties broken by document id descending, compared bytewise (``strcmp``). The rank column of a
run file is never trusted. Queries are evaluated, printed and averaged in bytewise qid order
(``trec_eval.c`` sorts the query ids with ``strcmp``).

trec_eval 10.0 compares scores as C ``double``s instead (``trec_format.h``); every function here takes
the score type (``score_dtype``, :attr:`trecrs.trec_eval_versions.TrecEvalVersion.score_dtype`), float32
by default. The score comparison is one key, :func:`descending_key`; :func:`trec_order` applies the rule to a polars
frame of string ids, :func:`order_rows` and :func:`in_trec_order` to integer-coded rows (ids replaced by
their rank in a bytewise sorted vocabulary, so comparing codes compares ids). Rows grouped by query with
scores non-increasing, as recommenders write them, are not sorted: only their tie groups (rows of equal
score, :func:`tied_with_previous`) are put in doc id descending order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from .schema import DOC, QUERY, RANK, SCORE

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

#: Rows in trec_eval order: ``(qcode, scores, dcode)``
Columns = tuple[np.ndarray, np.ndarray, np.ndarray]

ROWS_PER_PASS = 1 << 22  # rows handled at once by passes over a whole run (bounds their temporaries)
_KEY = "__trec_score_key"


def bytewise_sorted(values: Iterable[str]) -> list[str]:
    """Query ids in trec_eval's order: ascending, compared bytewise (``strcmp`` on UTF-8)."""
    return sorted(values, key=lambda s: s.encode("utf-8"))


def c_floats(scores: pl.Series, score_dtype: DTypeLike = np.float32) -> np.ndarray:
    """Scores as C ``float``s (float32) or, for trec_eval 10.0, ``double``s; -0.0 made 0.0 (they compare
    equal in C, so the doc id decides).

    Converted chunk by chunk, so no float64 copy of a long column is made for float32.
    """
    out = np.empty(scores.len(), dtype=score_dtype)
    cast = pl.Float32 if out.dtype == np.float32 else pl.Float64
    at = 0
    for chunk in scores.get_chunks():
        v = chunk.cast(cast).to_numpy()
        out[at : at + v.size] = v
        at += v.size
    out[out == 0] = 0.0
    return out


def descending_key(s32: np.ndarray) -> np.ndarray:
    """uint32 keys whose ascending order is the descending order of float32 scores as C compares them.

    IEEE bits made monotonic (sign bit flipped for positives, all bits for negatives), then inverted;
    -0.0 and 0.0 get one key.
    """
    s = np.where(s32 == 0, np.float32(0.0), s32).astype(np.float32)
    b = s.view(np.uint32)
    asc = np.where(b & np.uint32(0x80000000), ~b, b | np.uint32(0x80000000))
    return ~asc


def score_doc_key(s32: np.ndarray, dcode: np.ndarray, dbits: int) -> np.ndarray:
    """uint64 keys ordering rows by score descending, then doc code descending (codes below ``2**dbits``)."""
    dmax = np.uint64((1 << dbits) - 1)
    key = descending_key(s32).astype(np.uint64) << np.uint64(dbits)
    key |= dmax - dcode.astype(np.uint64)
    return key


def trec_order(run: pl.DataFrame, *, rank: bool = True, score_dtype: DTypeLike = np.float32) -> pl.DataFrame:
    """Order a run the way trec_eval ranks it, and (optionally) renumber the rank column.

    Per query, score (as a C ``float``, or ``double`` with ``score_dtype=np.float64``) descending, then document id descending bytewise, so ``"9"``
    ranks above ``"10"``; the rank column of the input is ignored. Queries come out in ascending order
    (bytewise for string ids), the order trec_eval evaluates them in.

    Returns a new DataFrame; ``rank`` (1-based, per query) is rewritten when ``rank=True``.
    """
    if np.dtype(score_dtype) == np.float32:
        key = pl.Series(_KEY, descending_key(run.get_column(SCORE).cast(pl.Float32).to_numpy()))
    else:  # -0.0 made 0.0, then negated: ascending order of the key is descending score
        key = pl.Series(_KEY, -c_floats(run.get_column(SCORE).cast(pl.Float64), np.float64))
    out = run.with_columns(key).sort([QUERY, _KEY, DOC], descending=[False, False, True]).drop(_KEY)
    if rank:
        out = out.with_columns((pl.int_range(pl.len()).over(QUERY) + 1).cast(pl.Int64).alias(RANK))
    return out


def query_blocks(qcode: np.ndarray) -> np.ndarray:
    """Start row of each run of equal query codes."""
    change = np.empty(qcode.size, dtype=bool)
    change[:1] = True
    np.not_equal(qcode[1:], qcode[:-1], out=change[1:])
    return np.flatnonzero(change)


def tied_with_previous(qcode: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Per row of a run in trec_eval order: True when the row has the query and the score (as trec_eval
    compares it: :func:`c_floats`) of the row above it, i.e. trec_eval breaks a tie between the two by
    document id. A tie group is a row that is not tied followed by the tied rows below it."""
    tied = np.zeros(qcode.size, dtype=bool)
    if qcode.size > 1:
        np.equal(scores[1:], scores[:-1], out=tied[1:])
        tied[1:] &= qcode[1:] == qcode[:-1]
    return tied


def _grouped_descending(qcode: np.ndarray, scores: np.ndarray) -> bool:
    """True when each query's rows are contiguous (in any query order) with scores non-increasing: only
    the rows of equal score may then be out of trec_eval's order (checked in linear time)."""
    n = qcode.size
    bstart = query_blocks(qcode)
    # more runs of equal codes than codes (rows in no order): a query comes back, no need to sort the runs
    if bstart.size > int(qcode.max()) + 1 or np.unique(qcode[bstart]).size != bstart.size:
        return False
    same = np.ones(n - 1, dtype=bool)
    same[bstart[1:] - 1] = False
    for a in range(0, n - 1, ROWS_PER_PASS):  # in slices: temporaries stay small
        b = min(n - 1, a + ROWS_PER_PASS)
        if (same[a:b] & (scores[a + 1 : b + 1] > scores[a:b])).any():
            return False
    return True


def _tie_moves(
    qcode: np.ndarray, scores: np.ndarray, dcode: np.ndarray, tied: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """For rows grouped by query with scores non-increasing: the rows of the tie groups that are not in
    doc-code-descending order, and where each of them goes; None when every tie group is in order.

    Returns ``(at, rows)``: positions ``at`` (ascending) are to hold rows ``rows``. Each such group is
    sorted alone, by doc code descending, its rows staying in the positions it occupies, so the cost
    follows the tied rows (a reversed group is what recommenders write), not the run. ``tied``: the
    rows' :func:`tied_with_previous` flags, when the caller has them.
    """
    if tied is None:
        tied = tied_with_previous(qcode, scores)
    second = np.flatnonzero(tied)  # rows tied with the row above them
    if second.size == 0:
        return None
    wrong = dcode[second] >= dcode[second - 1]
    if not wrong.any():
        return None
    opens = ~tied[second - 1]  # a tied row right below its group's first row
    first = np.flatnonzero(opens)  # per tie group: its first tied row, as an index into `second`
    bad = np.unique((np.cumsum(opens) - 1)[wrong])  # the groups holding a wrong pair
    head = second[first[bad]] - 1
    lens = second[np.append(first[1:], second.size)[bad] - 1] + 1 - head
    offsets = np.cumsum(lens) - lens
    at = np.repeat(head - offsets, lens) + np.arange(int(lens.sum()))
    d = dcode[at].astype(np.uint64)
    dbits = int(d.max()).bit_length()
    key = np.repeat(np.arange(head.size, dtype=np.uint64), lens) << np.uint64(dbits)
    key |= np.uint64((1 << dbits) - 1) - d
    return at, at[np.argsort(key, kind="stable")]


def order_rows(qcode: np.ndarray, s32: np.ndarray, dcode: np.ndarray) -> np.ndarray | None:
    """Row permutation putting each query's rows together in trec_eval order (score desc, doc id desc).

    ``qcode``/``dcode`` are ranks in bytewise-sorted id vocabularies; ``s32`` are C floats or doubles
    (:func:`c_floats`). Returns None when nothing has to move: each query's rows contiguous (in any
    query order), scores non-increasing and equal scores with decreasing doc ids — the runs ``trecrs
    run`` writes. When only equal scores are out of order (recommenders write ties by item id
    ascending), only those tie groups are reordered (:func:`_tie_moves`). Otherwise (queries not
    contiguous, a score rising within a query) a sort by (query, score, doc).
    """
    if qcode.size == 0:
        return None
    if _grouped_descending(qcode, s32):
        moves = _tie_moves(qcode, s32, dcode)
        if moves is None:
            return None
        perm = np.arange(qcode.size, dtype=np.intp)
        perm[moves[0]] = moves[1]
        return perm
    return _sorted_rows(qcode, s32, dcode)


def in_trec_order(qcode: np.ndarray, scores: np.ndarray, dcode: np.ndarray) -> Columns:
    """``(qcode, scores, dcode)`` with the rows in trec_eval order, as :func:`order_rows` orders them."""
    return ordered_with_ties(qcode, scores, dcode)[:3]


def ordered_with_ties(
    qcode: np.ndarray, scores: np.ndarray, dcode: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(qcode, scores, dcode, tied)``: the rows in trec_eval order and their :func:`tied_with_previous`
    flags (computed once: reordering a tie group leaves its flags as they are).

    Rows already in order come back as they are. When only tie groups are out of order, ``dcode`` is
    reordered in place (a copy if it is read-only) and the other two are returned unchanged: a tie group
    shares its query and its score, so the rows stay the same rows and no copy of the run is made.
    Otherwise the rows are sorted: float32 scores and codes that fit one 64-bit key per row are sorted as
    those keys and decoded from them (no gather; a -0.0 comes back as 0.0, which C compares equal),
    else the three columns are gathered after the sort.
    """
    if qcode.size == 0:
        return qcode, scores, dcode, np.zeros(0, dtype=bool)
    if _grouped_descending(qcode, scores):
        tied = tied_with_previous(qcode, scores)
        moves = _tie_moves(qcode, scores, dcode, tied)
        if moves is not None:
            if not dcode.flags.writeable:  # a zero-copy view of a polars column
                dcode = dcode.copy()
            dcode[moves[0]] = dcode[moves[1]]
        return qcode, scores, dcode, tied
    qcode, scores, dcode = _sorted_columns(qcode, scores, dcode)
    return qcode, scores, dcode, tied_with_previous(qcode, scores)


def _sorted_columns(qcode: np.ndarray, scores: np.ndarray, dcode: np.ndarray) -> Columns:
    """The three columns sorted by (query, score descending, doc descending)."""
    keyed = _row_keys(qcode, scores, dcode)
    if keyed is not None:
        key, dbits = keyed
        key = pl.Series(key).sort().to_numpy()
        low = np.uint64((1 << dbits) - 1)
        asc = ~(key >> np.uint64(dbits)).astype(np.uint32)  # descending_key undone
        bits = np.where(asc & np.uint32(0x80000000), asc & np.uint32(0x7FFFFFFF), ~asc)
        return (
            (key >> np.uint64(32 + dbits)).astype(qcode.dtype),
            bits.view(np.float32),
            (low - (key & low)).astype(dcode.dtype),
        )
    perm = _sorted_rows(qcode, scores, dcode)
    return qcode[perm], scores[perm], dcode[perm]


def _row_keys(qcode: np.ndarray, s32: np.ndarray, dcode: np.ndarray) -> tuple[np.ndarray, int] | None:
    """One uint64 key per row ordering by (query, score descending, doc descending) and the doc codes'
    width, or None when the scores are doubles or the codes too wide for 64 bits."""
    qbits = int(qcode.max()).bit_length()
    dbits = int(dcode.max()).bit_length()
    if s32.dtype != np.float32 or qbits + 32 + dbits > 64:
        return None
    key = score_doc_key(s32, dcode, dbits)
    key |= qcode.astype(np.uint64) << np.uint64(32 + dbits)
    return key, dbits


def _sorted_rows(qcode: np.ndarray, s32: np.ndarray, dcode: np.ndarray) -> np.ndarray:
    """The full sort by (query, score descending, doc descending), for rows in no usable order."""
    keyed = _row_keys(qcode, s32, dcode)
    if keyed is not None:  # one 64-bit key per line: a single integer sort
        return pl.Series(keyed[0]).arg_sort().to_numpy()
    frame = pl.DataFrame({"q": qcode, "s": s32, "d": dcode})
    return (
        frame.select(pl.arg_sort_by(["q", "s", "d"], descending=[False, True, True], maintain_order=True))
        .to_series()
        .to_numpy()
    )
