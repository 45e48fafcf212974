"""Reading and writing what recommenders produce and consume: score files, prediction files, pairs.

* score files ``user item score`` and top-N lists ``user item rank`` in every layout of
  :mod:`~trecrs.files.score_formats` (whitespace, CSV, TSV, JSON lines, TREC runs, Parquet; headers by
  the one table of :mod:`~trecrs.files.columns`), read by :func:`read_score_table` / :func:`read_scores` /
  :func:`as_scores` and written by :func:`write_scores`. Ranks become scores ``max_rank + 1 - rank`` so
  that trec_eval's order is the lists' order; with scores and ranks both, the scores rank (trec_eval's
  rule) and a contradicting rank column is warned about;
* prediction files ``user item predicted_rating`` for the error measures (:func:`read_predictions`), in
  the same layouts;
* pairs to score, ``query user item`` or ``user item`` (:func:`read_pairs`).

Text files: ``#`` comments and blank lines skipped, line numbers in errors (:mod:`~trecrs.files.lines`);
``*.parquet`` files are read by :func:`~trecrs.files.parquet.read_parquet` with columns by name.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

import polars as pl

from ..errors import InputError, UsageError, warn
from ..ids import pair_codes
from ..ranges import RATING_ABS_MAX, rating_reason
from ..schema import ITEM, QUERY, RANK, SCORE, USER
from .columns import ColumnsArg
from .lines import LINENO, first_repeat, read_lines, split_fields, take_fields
from .manifest import write_manifest
from .output import write_table
from .parquet import is_parquet, read_parquet
from .score_formats import normalise_score_columns, read_raw, roles_of_names, score_format, value_role
from .scores_fast import read_coded_scores
from .trec import rank_contradictions

SCORE_KINDS: tuple[str, ...] = ("score", "rank")
ORDERS: tuple[str, ...] = ("score", "list")  # a run ranked by the scores, or in the order of top-N lists

#: The longest top-N list: ranks become scores ``max_rank + 1 - rank``, integers a float32 holds exactly
#: (trec_eval compares scores as C floats) only up to 2**24; beyond, two ranks could tie.
MAX_RANK = 2**24

PathLike = str | os.PathLike

_V = "_v"


# --------------------------------------------------------------------------------------------- scores


@dataclass(frozen=True)
class ScoreTable:
    """A checked score file. ``frame``: ``user, item, score, lineno`` (lineno null for Parquet and frames);
    ``order``: ``"score"`` (ranked by the scores) or ``"list"`` (top-N lists: ranks became scores, so the
    run keeps each list's order); ``format``: the layout read (a :data:`~.score_formats.FORMATS` name)."""

    frame: pl.DataFrame
    order: str
    format: str


def read_score_table(
    path: PathLike,
    *,
    kind: str | None = None,
    fmt: str = "auto",
    columns: ColumnsArg = None,
    coded: bool = False,
) -> ScoreTable:
    """Read a score file or top-N lists in any layout of :data:`~trecrs.files.score_formats.FORMATS`.

    ``fmt``: a format name or ``"auto"`` (by extension, else by the first content line). ``columns``: role
    -> header name or position counted from 1 (``{"user": "uid", "item": 2, "score": "p"}``, or the text
    ``user=uid,item=2,score=p``), for headers the table of :mod:`~trecrs.files.columns` does not know.
    ``kind``: rank by the ``"score"`` or the ``"rank"`` column; None: the score column if there is one,
    else the rank column. Ranks become scores ``max_rank + 1 - rank``, so rank 1 comes first; when a file
    has both, the scores rank (as trec_eval ranks) and a rank column that contradicts them is warned about.
    ``coded``: a large plain ``user item score`` file is read with UInt32 ids when every id is a plain
    decimal (:mod:`~trecrs.files.scores_fast`); any other file, or one it refuses, with text ids.
    """
    _check_kind(kind)
    if coded and columns is None:
        spec = score_format(path, fmt)
        frame = read_coded_scores(path, spec, kind)
        if frame is not None:
            return ScoreTable(frame, "score", spec.name)
    raw, spec = read_raw(path, fmt=fmt, kind=kind, columns=columns)
    return _table(raw, path, kind, spec.name)


def read_scores(
    path: PathLike, *, kind: str | None = None, fmt: str = "auto", columns: ColumnsArg = None
) -> pl.DataFrame:
    """:func:`read_score_table`'s frame: ``user, item, score, lineno`` (see there)."""
    return read_score_table(path, kind=kind, fmt=fmt, columns=columns).frame


def as_score_table(data: object, *, kind: str | None = None, columns: ColumnsArg = None) -> ScoreTable:
    """A :class:`ScoreTable` from a path (:func:`read_score_table`) or a polars/pandas frame, whose column
    names take roles by :data:`~trecrs.files.columns.HEADER_NAMES` (``userID, itemID, prediction`` too)
    or by ``columns=``."""
    if isinstance(data, ScoreTable):
        return data
    if isinstance(data, str | os.PathLike):
        return read_score_table(data, kind=kind, columns=columns)
    _check_kind(kind)
    if not isinstance(data, pl.DataFrame):
        data = pl.from_pandas(data)
    names = data.columns
    roles = roles_of_names(names, normalise_score_columns(columns), what="the scores DataFrame")
    value_role(roles, kind)
    raw = data.select(
        pl.lit(None, dtype=pl.UInt32).alias(LINENO),
        *[pl.col(names[k]).cast(pl.Utf8).alias(r) for r, k in roles.items()],
    )
    return _table(raw, None, kind, "frame")


def as_scores(data: object, *, kind: str | None = None, columns: ColumnsArg = None) -> pl.DataFrame:
    """:func:`as_score_table`'s frame: ``user, item, score, lineno``."""
    return as_score_table(data, kind=kind, columns=columns).frame


def _check_kind(kind: str | None) -> None:
    if kind is not None and kind not in SCORE_KINDS:
        raise UsageError(f"unknown score kind {kind!r}; choose from {SCORE_KINDS} (or None)")


def _table(raw: pl.DataFrame, path: PathLike | None, kind: str | None, fmt: str) -> ScoreTable:
    """Check a raw table (``lineno`` and the text of each role) into a :class:`ScoreTable`."""
    role = value_role(raw.columns, kind, path)
    df = _parse_values(raw.rename({role: _V}), path, role)
    if role == SCORE and RANK in raw.columns:
        _warn_rank_contradictions(df.with_columns(raw.get_column(RANK)), path)
    return ScoreTable(df.select(USER, ITEM, SCORE, LINENO), "list" if role == RANK else "score", fmt)


def _where(row: dict) -> tuple[str, str]:
    """How a message names a row: ``(prefix, "line N")``, or ``row N`` for Parquet and frames."""
    if row[LINENO] is None:
        return f"row {row['_row']}: ", f"row {row['_row']}"
    return "", f"line {row[LINENO]}"


def _parse_values(df: pl.DataFrame, path: PathLike | None, kind: str) -> pl.DataFrame:
    """``user, item, score, lineno`` (and ``_v``) from the text values ``_v``: checked, ranks turned into
    scores, each (user, item) once, and each rank once per user."""
    if df.height == 0:
        raise InputError(path, None, "the score file has no scores")
    empty = pl.col(USER).is_null() | pl.col(ITEM).is_null() | (pl.col(USER) == "") | (pl.col(ITEM) == "")
    nulls = df.filter(empty | pl.col(_V).is_null())
    if nulls.height:
        raise InputError(path, nulls.item(0, LINENO), f"missing user, item or {kind} ({nulls.height} row(s))")
    df = df.with_columns(pl.col(_V).str.strip_chars().cast(pl.Float64, strict=False).alias(SCORE))
    df = _checked_scores(df, path) if kind == SCORE else _ranks_as_scores(df, path)
    _refuse_duplicate(
        df, [USER, ITEM], path, lambda r: f"user {r[USER]!r}, item {r[ITEM]!r} has more than one {kind}"
    )
    if kind == RANK:
        _refuse_duplicate(
            df,
            [USER, _V],
            path,
            lambda r: (
                f"user {r[USER]!r} has two items at rank {r[_V]}, "
                f"the second {r[ITEM]!r}; a top-N list's order must be total"
            ),
        )
    return df


def _refuse_duplicate(
    df: pl.DataFrame, key: list[str], path: PathLike | None, what: Callable[[dict[str, Any]], str]
) -> None:
    """The duplicate rule of every reader (:func:`~.lines.first_duplicate`): name both lines (rows).

    ``key`` is two columns, checked as one integer per row (:func:`~trecrs.ids.pair_codes`,
    :func:`~.lines.first_repeat`: the rows :func:`~.lines.first_duplicate` names, at a fraction of the
    cost of a struct of strings on a long file).
    """
    a, b = key
    repeat = first_repeat(pair_codes(df.get_column(a), df.get_column(b)))
    if repeat is not None:
        first, second = ({**df.row(k, named=True), "_row": k + 1} for k in repeat)
        where, _ = _where(second)
        raise InputError(path, second[LINENO], f"{where}{what(second)} (first seen on {_where(first)[1]})")


def _checked_scores(df: pl.DataFrame, path: PathLike | None) -> pl.DataFrame:
    bad = df.filter(pl.col(SCORE).is_null() | ~pl.col(SCORE).is_finite())
    if bad.height:
        row = bad.row(0, named=True)
        what = "not a number" if row[SCORE] is None else ("NaN" if row[SCORE] != row[SCORE] else "infinite")
        raise InputError(
            path, row[LINENO], f"score is {what}: {row[_V]!r} ({bad.height} bad score(s) in the file)"
        )
    return df


def _ranks_as_scores(df: pl.DataFrame, path: PathLike | None) -> pl.DataFrame:
    """Ranks -> scores ``max_rank + 1 - rank``: rank 1 scores highest; exact in float32 up to 2**24."""
    s = pl.col(SCORE)
    bad = df.filter(s.is_null() | ~s.is_finite() | (s < 1) | (s != s.round()))
    if bad.height:
        row = bad.row(0, named=True)
        raise InputError(path, row[LINENO], f"rank must be a positive integer, found {row[_V]!r}")
    too_far = df.filter(s > MAX_RANK)
    if too_far.height:
        row = too_far.row(0, named=True)
        raise InputError(
            path,
            row[LINENO],
            f"rank {row[_V]} is beyond {MAX_RANK:,}: a longer list cannot keep "
            "its order as trec_eval's float32 scores",
        )
    top = cast(float, df.get_column(SCORE).max())  # Float64, not empty
    return df.with_columns((top + 1 - s).alias(SCORE), s.cast(pl.Int64).alias(_V))


def percent(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage for messages: one decimal, ``<0.1%`` for a small non-zero part."""
    p = 100.0 * part / whole if whole else 0.0
    return "<0.1%" if 0 < p < 0.05 else f"{p:.1f}%"


def _warn_rank_contradictions(df: pl.DataFrame, path: PathLike | None) -> None:
    """One :class:`TrecrsWarning` when a user's rank order is not their score order, or a rank is not an
    integer (:func:`~trecrs.files.trec.rank_contradictions`, on each user's lines in rank order)."""
    rank = pl.col(RANK).str.strip_chars().cast(pl.Float64, strict=False)
    # a rank that is not an integer (a score in the rank column) contradicts, as in a TREC run
    rank = pl.when(rank == rank.round()).then(rank).otherwise(None).alias(RANK)
    ranked = df.select(pl.col(USER).alias(QUERY), rank, pl.col(SCORE))
    ranked = ranked.sort([QUERY, RANK], nulls_last=True, maintain_order=True)
    found = rank_contradictions(ranked)
    if found.height == 0:
        return
    users = df.get_column(USER).n_unique()
    lines = int(found.get_column("lines").sum())
    warn(
        f"{path if path is not None else 'scores'}: the rank column contradicts the scores for "
        f"{found.height:,} of {users:,} users ({percent(found.height, users)}; {lines:,} of {df.height:,} "
        "lines); ranking by score as trec_eval does (are the rank and score columns swapped?)"
    )


class ScoresLike(Protocol):
    """What :func:`write_scores` reads of a recommender's scores (:class:`trecrs.recommenders.base.Scores`)."""

    frame: pl.DataFrame
    n_pairs: int
    n_unscored: int


def write_scores(
    scores: ScoresLike,
    path: PathLike,
    *,
    inputs: dict[str, str | os.PathLike] | None = None,
    parameters: dict | None = None,
    command: list[str] | None = None,
) -> None:
    """Write a score file ``user item score`` (Parquet for ``*.parquet``), atomically, with its manifest.

    ``scores``: what a recommender's ``score`` returns (``frame``, ``n_pairs``, ``n_unscored``).
    """
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


# --------------------------------------------------------------------------------------------- predictions


def read_predictions(path: PathLike, *, fmt: str = "auto", columns: ColumnsArg = None) -> pl.DataFrame:
    """Read a prediction file ``user item predicted_rating``, in any layout a score file may have
    (:func:`read_score_table`: whitespace, CSV, TSV, JSON lines, Parquet; headers by name, ``columns=``).

    Returns ``user, item, score``. A headerless whitespace line may have extra fields (ignored). A value
    that is not a number is an error naming the line, and so is a value beyond ``ranges.RATING_ABS_MAX``
    in magnitude (``inf`` included); ``nan`` is accepted and means "no prediction". Duplicate pairs are
    an error.
    """
    raw, _ = read_raw(path, fmt=fmt, kind=SCORE, columns=columns, extra_fields=True)
    df = raw.rename({SCORE: _V})
    empty = df.filter(
        pl.col(USER).is_null() | pl.col(ITEM).is_null() | (pl.col(USER) == "") | (pl.col(ITEM) == "")
    )
    if empty.height:
        raise InputError(path, empty.item(0, LINENO), f"missing user or item ({empty.height} row(s))")
    df = df.with_columns(pl.col(_V).str.strip_chars().cast(pl.Float64, strict=False).alias(SCORE))
    bad = df.filter(pl.col(SCORE).is_null())
    if bad.height:
        r = bad.row(0, named=True)
        raise InputError(path, r[LINENO], f"predicted rating is not a number: {r[_V]!r}")
    # same range as ratings: an infinite or huge prediction would make RMSE print inf
    bad = df.filter(pl.col(SCORE).is_not_nan() & (pl.col(SCORE).abs() > RATING_ABS_MAX))
    if bad.height:
        r = bad.row(0, named=True)
        raise InputError(path, r[LINENO], f"predicted {rating_reason(r[_V])}")
    _refuse_duplicate(
        df, [USER, ITEM], path, lambda r: f"duplicate prediction for user {r[USER]!r}, item {r[ITEM]!r}"
    )
    return df.select(USER, ITEM, SCORE)


# --------------------------------------------------------------------------------------------- pairs


def read_pairs(path: PathLike) -> pl.DataFrame:
    """Read candidate pairs: lines ``query user item`` (``trecrs candidates``) or ``user item``; Parquet
    with columns ``user``, ``item``. Returns ``user, item`` (duplicates kept: a recommender scores each
    distinct pair once). Every line has the first line's number of fields."""
    if is_parquet(path):
        return read_parquet(path, {USER: pl.Utf8, ITEM: pl.Utf8}, what="pairs")
    lines = split_fields(read_lines(path))
    first = lines.get_column("fields").list.len()[0]
    if first not in (2, 3):
        first = 3  # the message names the layout trecrs writes
    names = [USER, ITEM] if first == 2 else ["_q", USER, ITEM]
    layout = "user item" if first == 2 else "query user item"
    return take_fields(lines, path, names, layout).select(USER, ITEM)
