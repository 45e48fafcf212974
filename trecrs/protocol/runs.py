"""Score files -> TREC runs for a methodology: restrict to the candidates, order as trec_eval, cut, tag.

A recommender scores (user, item) pairs; :func:`build_run` keeps the scores of each query's candidates
(:mod:`trecrs.protocol.candidates`), ranks them with :func:`~trecrs.ordering.trec_order` (score as float32
descending, then item id descending bytewise: trec_eval's own order) and numbers them 1..n, optionally cut
at ``depth`` documents per query. It counts, never silently drops:

* candidates with no score, handled by the ``missing`` policy (:data:`MISSING_POLICIES`): ``fail`` (an
  error), ``last`` (ranked after every scored candidate of the run with one score below all of them,
  ``min - max(1, |min|)`` over the score file, so ties among them fall to trec_eval's doc-id rule), or
  ``drop`` (left out of the run: the usual reading of a top-N list); ``last`` and ``drop`` warn
  (:class:`~trecrs.errors.TrecrsWarning`) with the count and share. Under ``drop`` a methodology with a
  membership rule (``Methodology.members``: all but One-Plus-Random) keeps the scored pairs that are
  candidates and counts the candidates arithmetically, so the cost follows the score file, not users x
  items; the run, counts and errors are the enumeration's;
* scores that are not candidates (dropped): training pairs, users without test ratings, items outside L_u.

A score naming a user absent from both train and test is an error (the ids do not belong to the split),
and so is a score file none of whose pairs is a candidate. Top-N lists (``user item rank``, JSON
``{"user": ID, "items": [...]}``) are read as scores ``max_rank + 1 - rank``, so rank 1 comes first and
the run keeps each list's order (``info["order"] == "list"``; see :mod:`trecrs.files.scores`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import polars as pl

from ..errors import InputError, UsageError, warn
from ..files.lines import LINENO as _LINENO
from ..files.lines import first_duplicate, is_stdin
from ..files.output import write_chunks
from ..files.scores import as_score_table, percent
from ..ids import codes, positions
from ..ordering import c_floats, query_blocks, score_doc_key
from ..schema import DOC, ITEM, ITER, QUERY, RANK, RUN_SCHEMA, SCORE, TAG, USER
from .candidates import _I, _Q, _U, CandidateSet, candidate_set

MISSING_POLICIES: tuple[str, ...] = ("fail", "last", "drop")

PathLike = str | os.PathLike
Columns = str | Mapping[str, str | int]  # role -> column name or position from 1, or "user=userId,..."

_S = "_s"
# With missing="drop", a methodology with a membership rule keeps the scored pairs that are candidates
# instead of enumerating every candidate (same run, counts and errors); False forces the enumeration.
_MEMBERSHIP = True


def default_tag(scores: PathLike) -> str:
    """The run tag of a score file when none is given: its name without its last extension.

    ``fold1.SVD50.scores`` -> ``fold1.SVD50``, ``svd.parquet`` -> ``svd``; a ``.gz`` is dropped first
    (``fold1.SVD50.scores.gz`` -> ``fold1.SVD50``), so runs of one fold's systems keep distinct tags. A
    run tag is one word (trec_eval splits its lines on blanks): blanks become ``_``. Standard input is
    ``stdin``; a name with nothing left (``.gz``) is ``trecrs``, :func:`iter_run`'s default.
    """
    if is_stdin(scores):
        return "stdin"
    name = os.path.basename(os.fspath(scores))
    name = name.removesuffix(".gz")
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return "_".join(stem.split()) or "trecrs"


# --------------------------------------------------------------------------------------------- candidates


class FrameCandidates:
    """Candidates given as a frame ``query, user, item`` (e.g. read from a PAIRS file), coded like a split."""

    def __init__(self, frame: pl.DataFrame) -> None:
        missing = [c for c in (QUERY, USER, ITEM) if c not in frame.columns]
        if missing:
            raise InputError(None, None, f"candidates lack column(s) {missing}; has {frame.columns}")
        frame = frame.select(
            pl.col(QUERY).cast(pl.Utf8), pl.col(USER).cast(pl.Utf8), pl.col(ITEM).cast(pl.Utf8)
        )
        self.queries = frame.get_column(QUERY).unique(maintain_order=True)
        self.users = frame.get_column(USER).unique(maintain_order=True)
        self.items = frame.get_column(ITEM).unique(maintain_order=True)
        dup = first_duplicate(frame, [QUERY, ITEM])
        if dup is not None:
            first, second = dup
            raise InputError(
                None,
                None,
                f"row {second['_row']}: candidate item {second[ITEM]!r} listed twice for "
                f"query {second[QUERY]!r} (first seen on row {first['_row']})",
            )
        self._frame = frame
        self.info: dict = {}

    def code_chunks(self) -> Iterator[pl.DataFrame]:
        f = self._frame
        coded = f.select(
            codes(f.get_column(QUERY), self.queries).alias(_Q),
            codes(f.get_column(USER), self.users).alias(_U),
            codes(f.get_column(ITEM), self.items).alias(_I),
        )
        self.info.update(queries=self.queries.len(), pairs=coded.height)
        yield coded

    def query_names(self, q: pl.Series) -> pl.Series:
        return self.queries.gather(q).alias(QUERY)


# --------------------------------------------------------------------------------------------- runs


@dataclass
class RunResult:
    """A run (``schema.RUN_SCHEMA``, trec_eval order) and the counts of what was filled and dropped."""

    run: pl.DataFrame
    info: dict = field(default_factory=dict)


@dataclass
class _Tally:
    """What building a run counted so far (see :func:`iter_run`)."""

    used: np.ndarray  # per score row: it matched a candidate
    candidates: int = 0
    missing: int = 0
    written: int = 0
    cut: int = 0
    first_missing: tuple[str, str, str] | None = (
        None  # (query, user, item) of the first candidate without a score
    )


def _check_run_options(missing: str, depth: int | None, tag: str) -> None:
    if missing not in MISSING_POLICIES:
        raise UsageError(f"unknown missing-score policy {missing!r}; choose from {MISSING_POLICIES}")
    if depth is not None and depth < 1:
        raise UsageError(f"depth must be a positive number of documents, got {depth}", arguments=["depth"])
    if not tag or any(ch.isspace() for ch in tag):
        raise UsageError(
            f"the run tag must be a non-empty word without blanks, got {tag!r}", arguments=["tag"]
        )


def _codes(values: pl.Series, index: pl.Series) -> pl.Series:
    """:func:`~trecrs.ids.codes` of ``values`` in ``index`` (distinct ids), read as the physical codes of an
    ``Enum`` of ``index``: one lookup per value instead of a join. Coded ids (numbers, from
    :func:`~trecrs.files.scores.read_score_table`) are looked up by :func:`_number_codes`."""
    if values.dtype.is_integer():
        return _number_codes(values, index)
    if index.null_count():
        return codes(values, index)
    return values.cast(pl.Enum(index), strict=False).to_physical().cast(pl.Int64)


def _number_codes(values: pl.Series, index: pl.Series) -> pl.Series:
    """The position in ``index`` (distinct text ids) of the id each number of ``values`` was read from
    (null when none): a coded id is the plain decimal of its number, so only the index ids that are their
    own number's text can match, found by :func:`~trecrs.ids.positions`, the numbers never made text."""
    index_numbers = index.cast(pl.UInt32, strict=False)
    own = index_numbers.is_not_null() & (index_numbers.cast(pl.Utf8) == index)
    at = np.flatnonzero(own.to_numpy())
    keys = index_numbers.to_numpy()[at].astype(np.int64)
    order = np.argsort(keys)
    keys, at = keys[order], at[order]
    if keys.size == 0:
        return pl.Series(values=[None] * values.len(), dtype=pl.Int64)
    found = positions(values.to_numpy(), keys)
    hit = found >= 0
    codes_ = pl.Series(at[np.maximum(found, 0)].astype(np.int64))
    return codes_.scatter(np.flatnonzero(~hit), None) if not hit.all() else codes_


def _coded_scores(
    cands: CandidateSet | FrameCandidates,
    scores: pl.DataFrame,
    users: pl.Series,
    items: pl.Series,
    scores_path: PathLike | None,
) -> pl.DataFrame:
    """``_u, _i, score, _s`` (row number in ``scores``) of the scores whose user and item the candidates know.

    With a split's candidates, a user in neither train nor test is an error: the ids are not the split's.
    """
    coded = scores.with_row_index(_S).with_columns(
        _codes(scores.get_column(USER), users).alias(_U), _codes(scores.get_column(ITEM), items).alias(_I)
    )
    if isinstance(cands, CandidateSet):
        unknown = coded.filter(pl.col(_U).is_null())
        if unknown.height:
            row = unknown.row(0, named=True)
            n_users = unknown.get_column(USER).n_unique()
            raise InputError(
                scores_path,
                row[_LINENO],
                f"{n_users} user(s) of the score file are in neither the training nor the test ratings "
                f"(first: {str(row[USER])!r}; {unknown.height} score(s)); do the ids belong to this split?",
            )
    return coded.filter(pl.col(_U).is_not_null() & pl.col(_I).is_not_null()).select(_U, _I, SCORE, _S)


class _ByUser:
    """The scores sorted by user code, so each candidate chunk is joined with its own users' scores only:
    the enumeration costs the candidates plus the scores once, not the scores once per chunk."""

    def __init__(self, scored: pl.DataFrame) -> None:
        self.scored = scored.sort(_U, maintain_order=True)
        self.users = self.scored.get_column(_U).to_numpy()

    def of(self, chunk: pl.DataFrame) -> pl.DataFrame:
        """The scores of the users from the chunk's first to its last user code."""
        if chunk.height == 0:
            return self.scored.clear()
        u = chunk.get_column(_U).to_numpy()
        lo = int(np.searchsorted(self.users, u.min(), side="left"))
        hi = int(np.searchsorted(self.users, u.max(), side="right"))
        return self.scored.slice(lo, hi - lo)


def _scored_chunk(
    chunk: pl.DataFrame,
    scored: pl.DataFrame,
    missing: str,
    fill: float,
    tally: _Tally,
    name: Callable[[dict], tuple[str, str, str]],
) -> pl.DataFrame | None:
    """A candidate chunk with its scores, missing ones handled by ``missing``; None once ``fail`` has failed."""
    joined = chunk.join(scored, on=[_U, _I], how="left")
    tally.used[joined.get_column(_S).drop_nulls().to_numpy()] = True
    tally.candidates += chunk.height
    absent = joined.filter(pl.col(SCORE).is_null())
    if absent.height:
        if tally.first_missing is None:
            tally.first_missing = name(absent.row(0, named=True))
        tally.missing += absent.height
        if missing == "drop":
            joined = joined.filter(pl.col(SCORE).is_not_null())
        elif missing == "last":
            joined = joined.with_columns(pl.col(SCORE).fill_null(fill))
    if missing == "fail" and tally.missing:
        return None
    return joined


def _scored_members(
    cands: CandidateSet | FrameCandidates, scored: pl.DataFrame, tally: _Tally
) -> pl.DataFrame | None:
    """The scored pairs that are candidates (``_q, _u, _i, score``), counted in ``tally`` as the
    enumeration under ``missing="drop"`` counts them; None when ``cands`` can only be enumerated.

    The dropped candidates are the ones without a score: |L| - (scored pairs in L), |L| from the
    methodology's arithmetic count (:meth:`~trecrs.protocol.candidates.CandidateSet.members`).
    """
    if not isinstance(cands, CandidateSet):
        return None
    kept = cands.members(scored)
    if kept is None:
        return None
    tally.used[kept.get_column(_S).to_numpy()] = True
    tally.candidates = cands.info["pairs"]
    tally.missing = tally.candidates - kept.height
    return kept.select(_Q, _U, _I, SCORE)


def _run_chunk(
    joined: pl.DataFrame,
    cands: CandidateSet | FrameCandidates,
    items: pl.Series,
    depth: int | None,
    tag: str,
    tally: _Tally,
    order: _DocOrder,
) -> pl.DataFrame:
    """Scored candidates -> run lines: trec_eval order, ranks 1..n, cut at ``depth``.

    :func:`~trecrs.ordering.trec_order`'s order on integers: per query code (natural order, as the
    queries of a chunk are numbered), the key :func:`~trecrs.ordering.score_doc_key` of the float32
    score and the item's bytewise rank among the catalogue's ids; the ids are gathered once, in order.
    """
    q = joined.get_column(_Q).to_numpy()
    i = joined.get_column(_I).to_numpy()
    key = score_doc_key(c_floats(joined.get_column(SCORE)), order.ranks[i], order.bits)
    perm = np.lexsort((key, q))
    q = q[perm]
    starts = query_blocks(q)
    lengths = np.diff(np.append(starts, q.size))
    rank = np.arange(q.size, dtype=np.int64) - np.repeat(starts, lengths) + 1
    if depth is not None:
        keep = rank <= depth
        tally.cut += q.size - int(keep.sum())
        perm, q, rank = perm[keep], q[keep], rank[keep]
    tally.written += q.size
    take = pl.Series(perm)
    return pl.DataFrame(
        {
            QUERY: cands.query_names(pl.Series(q)),
            ITER: "Q0",
            DOC: items.gather(joined.get_column(_I).gather(take)),
            RANK: rank,
            SCORE: joined.get_column(SCORE).gather(take),
            TAG: tag,
        },
        schema=RUN_SCHEMA,
    )


@dataclass(frozen=True)
class _DocOrder:
    """Each catalogue item's rank in bytewise id order (trec_eval's doc-id tie rule), and its bit width."""

    ranks: np.ndarray
    bits: int

    @classmethod
    def of(cls, items: pl.Series) -> _DocOrder:
        ranks = np.empty(items.len(), dtype=np.int64)
        ranks[items.cast(pl.Binary).arg_sort().to_numpy()] = np.arange(items.len())
        return cls(ranks, max(1, int(items.len()).bit_length()))


def _finish(
    info: dict,
    cands: CandidateSet | FrameCandidates,
    n_scores: int,
    tally: _Tally,
    *,
    missing: str,
    depth: int | None,
    tag: str,
    fill: float,
    scores_path: PathLike | None,
) -> None:
    """Fill ``info`` with the counts; raise when no score was a candidate or ``fail`` found a gap."""
    n_used = int(tally.used.sum())
    info.update(
        cands.info,
        candidates=tally.candidates,
        scores=n_scores,
        scored_candidates=tally.candidates - tally.missing,
        missing=tally.missing,
        missing_policy=missing,
        scores_outside_candidates=n_scores - n_used,
        depth=depth,
        cut_by_depth=tally.cut,
        lines=tally.written,
        tag=tag,
    )
    if missing == "last" and tally.missing:
        info["missing_score_value"] = fill
    if n_used == 0:
        raise InputError(
            scores_path,
            None,
            f"none of the {n_scores} scores is a candidate pair of this "
            "methodology; do the user and item ids belong to this split?",
        )
    if missing == "fail" and tally.missing:
        assert tally.first_missing is not None  # recorded with the first missing candidate
        q, u, i = tally.first_missing
        raise InputError(
            scores_path,
            None,
            f"{tally.missing} of {tally.candidates} candidates have no score (first: query {q!r}, user {u!r}, "
            f"item {i!r}); score every candidate, or choose missing=last (rank them last) or missing=drop",
        )
    if missing != "fail" and tally.missing:
        how = f"ranked last with score {fill!r}" if missing == "last" else "left out"
        warn(
            f"{tally.missing:,} of {tally.candidates:,} candidates ({percent(tally.missing, tally.candidates)}) "
            f"have no score: {how}"
        )


def iter_run(
    cands: CandidateSet | FrameCandidates | pl.DataFrame,
    scores: object,
    *,
    missing: str = "fail",
    depth: int | None = None,
    tag: str = "trecrs",
    kind: str | None = None,
    columns: Columns | None = None,
    scores_path: PathLike | None = None,
    info: dict | None = None,
) -> Iterator[pl.DataFrame]:
    """Yield the run chunk by chunk (whole queries, natural query order); ``info`` is filled at the end.

    See :func:`build_run`; ``scores_path`` (the file errors name) defaults to ``scores`` when it is a path.
    Errors (unscored candidates under ``fail``, no candidate scored at all) are raised after the last
    chunk, so a caller streaming to a temporary file can discard it.
    """
    _check_run_options(missing, depth, tag)
    info = {} if info is None else info
    if scores_path is None and isinstance(scores, str | os.PathLike):
        scores_path = scores
    if isinstance(cands, pl.DataFrame):
        cands = FrameCandidates(cands)
    if isinstance(scores, pl.DataFrame) and scores.columns == [USER, ITEM, SCORE, _LINENO]:
        order = "score"  # a frame from read_scores is already validated
    else:
        table = as_score_table(scores, kind=kind, columns=columns)
        scores, order = table.frame, table.order
        del table
    info["order"] = order
    if isinstance(cands, CandidateSet):
        users, items = cands.split.users, cands.split.items
    else:
        users, items = cands.users, cands.items
    scored = _coded_scores(cands, scores, users, items, scores_path)
    smin = cast(float, scores.get_column(SCORE).min())  # a Float64 column, never empty
    fill = float(smin - max(1.0, abs(smin)))
    n_scores = scores.height
    tally = _Tally(np.zeros(n_scores, dtype=bool))
    del scores  # the coded pairs are all the run needs: a caller that passed a ScoreTable may let it go
    doc_order = _DocOrder.of(items)

    def name(row: dict) -> tuple[str, str, str]:
        return cands.query_names(pl.Series([row[_Q]]))[0], users[row[_U]], items[row[_I]]

    kept = _scored_members(cands, scored, tally) if missing == "drop" and _MEMBERSHIP else None
    if kept is not None:
        yield _run_chunk(kept, cands, items, depth, tag, tally, doc_order)
    else:
        by_user = _ByUser(scored)
        for chunk in cands.code_chunks():
            joined = _scored_chunk(chunk, by_user.of(chunk), missing, fill, tally, name)
            if joined is not None:
                yield _run_chunk(joined, cands, items, depth, tag, tally, doc_order)
    _finish(
        info,
        cands,
        n_scores,
        tally,
        missing=missing,
        depth=depth,
        tag=tag,
        fill=fill,
        scores_path=scores_path,
    )


def build_run(
    cands: CandidateSet | FrameCandidates | pl.DataFrame, scores: object, **options: Any
) -> RunResult:
    """The TREC run of a methodology's candidates from a recommender's scores (see the module docstring).

    ``cands``: a :class:`~trecrs.protocol.candidates.CandidateSet` (from
    :func:`~trecrs.protocol.candidates.candidate_set`) or a frame ``query, user, item``. ``scores``: a path
    (any layout of :mod:`trecrs.files.score_formats`), a :class:`~trecrs.files.scores.ScoreTable`, or a
    frame ``user, item, score`` or ``user, item, rank`` (column names as :mod:`trecrs.files.columns` knows
    them, or mapped by ``columns=``); ``kind`` picks the score or the rank column (None: the score column
    if there is one). ``info["order"]``: ``"list"`` when top-N lists rank the run. Rows come in natural query
    order, each query ranked by :func:`~trecrs.ordering.trec_order` with ranks 1..n (cut at ``depth``), iter
    ``Q0`` and ``tag``. ``info`` counts candidates, missing scores, dropped scores and depth cuts.
    ``options`` (``missing``, ``depth``, ``tag``, ``kind``, ``columns``, ``scores_path``): :func:`iter_run`'s.
    """
    info: dict = {}
    parts = list(iter_run(cands, scores, info=info, **options))
    run = pl.concat(parts) if parts else pl.DataFrame(schema=RUN_SCHEMA)
    return RunResult(run, info)


def write_run_stream(chunks: Iterator[pl.DataFrame], path: PathLike) -> None:
    """Write run chunks as ``qid Q0 docno rank score tag`` lines, atomically (nothing left on error)."""
    write_chunks(chunks, path)


def run_from_scores(
    scores: object,
    *,
    methodology: str,
    train: object,
    test: object,
    columns: Columns | None = None,
    missing: str = "fail",
    depth: int | None = None,
    tag: str = "trecrs",
    **candidate_options: Any,
) -> pl.DataFrame:
    """The TREC run ``trecrs run`` writes: ``methodology``'s candidates on the split ``train``/``test``
    ranked by ``scores`` (a path or a frame ``user, item, score``), as :func:`build_run` builds it.

    ``columns`` maps the score columns (``"user=userId,item=movieId,score=prediction"``); ``missing``:
    candidates without a score fail (default), are ranked ``"last"`` or ``"drop"``-ped; ``depth`` cuts each
    query; ``candidate_options`` go to :func:`~trecrs.protocol.candidates.candidate_set` (``n``, ``seed``...).

    >>> train = pl.DataFrame({"user": ["u1", "u2"], "item": ["a", "b"], "rating": [4.0, 3.0]})
    >>> test = pl.DataFrame({"user": ["u1", "u2"], "item": ["b", "a"], "rating": [5.0, 4.0]})
    >>> scores = pl.DataFrame({"user": ["u1", "u2"], "item": ["b", "a"], "score": [0.5, 0.25]})
    >>> run_from_scores(scores, methodology="test-ratings", train=train, test=test).select("query", "doc", "rank").rows()
    [('u1', 'b', 1), ('u2', 'a', 1)]
    """
    cands = candidate_set(methodology, train, test, **candidate_options)
    return build_run(cands, scores, missing=missing, depth=depth, tag=tag, columns=columns).run
