"""Reading and writing TREC qrels, TREC runs, ratings and score files.

Readers are tolerant of layout (any run of spaces/tabs between fields, CRLF line ends, blank lines,
``#`` comment lines, ``.gz`` files) and strict about content: a malformed line raises
:class:`~trecrs.errors.InputError` naming the file, the line and the reason. Writers are strict and atomic:
the file appears complete under its final name or not at all.

:func:`trec_order` is the one definition of trec_eval's ranking used everywhere in trecrs.
"""

from __future__ import annotations

import collections
import concurrent.futures
import gzip
import os
import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from ..errors import FileAccessError, InputError, warn
from ..ids import natural_sort
from ..ordering import trec_order
from ..ranges import REL_MAX, relevance_reason
from ..schema import DOC, ITER, QRELS_SCHEMA, QUERY, RANK, REL, RUN_SCHEMA, SCORE, TAG
from .lines import (
    DAMAGED_GZIP,
    LINE,
    LINENO,
    describe,
    first_duplicate,
    first_match,
    read_failure,
    read_lines,
    split_fields,
    take_fields,
)
from .output import write_table
from .parquet import is_parquet, last_value, read_parquet

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

PathLike = str | os.PathLike


# --------------------------------------------------------------------------------------------- reading


# large enough to parse on all cores and keep per-chunk costs small (16 MB: case b of benchmarks/ scored
# about 0.2 s faster than with 8 MB chunks, for 130 MB more at the peak), small enough to reuse freed memory
_CHUNK_BYTES = 1 << 24
# chunks handed to the parser before the first result is taken: two parsing, two waiting, so that the
# parser keeps the cores busy while the caller works on what it was given (4 x 16 MB of text at most)
_AHEAD = 4
# Left to the line-by-line path: comments, other whitespace, the unit separator, and NUL (refused there,
# naming its line). With isascii(), a regular chunk is thus valid text without being decoded.
_FORBIDDEN = (b"#", b"\x0b", b"\x0c", b"\x1f", b"\x00")
# parsed for lean_piece
LEAN_RUN_SCHEMA: dict[str, PolarsDataType] = {**RUN_SCHEMA, QUERY: pl.Categorical, DOC: pl.Categorical}


def _chunks(path: PathLike) -> Iterator[bytes]:
    """The file's bytes (gunzipped for ``.gz``) in pieces of about :data:`_CHUNK_BYTES` that end on a line end."""
    path = Path(path)
    try:
        fh = gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise FileAccessError.from_os_error(path, exc) from None
    with fh:
        while True:
            try:
                buf = fh.read(_CHUNK_BYTES)
                if buf and not buf.endswith(b"\n"):
                    buf += fh.readline()
            except (OSError, *DAMAGED_GZIP) as exc:
                raise read_failure(path, exc) from None
            if not buf:
                return
            yield buf


def _regular(chunk: bytes, sep: bytes) -> bool:
    """Whether ``chunk`` can be split on ``sep`` alone: ASCII without NUL, no other whitespace, no ``#``,
    CRLF only."""
    if not chunk.isascii() or chunk.find(b"\t" if sep == b" " else b" ") >= 0:
        return False
    if any(chunk.find(b) >= 0 for b in _FORBIDDEN):
        return False
    return chunk.find(b"\r") < 0 or chunk.count(b"\r") == chunk.count(b"\r\n")


def _separated(path: PathLike) -> Iterator[tuple[bytes, bytes | None]]:
    """``(chunk, separator)`` pairs, separator None for an irregular chunk (sniffed from the first line)."""
    sep = None
    for chunk in _chunks(path):
        if sep is None:
            first = chunk[: chunk.find(b"\n")] if b"\n" in chunk else chunk
            sep = b"\t" if b"\t" in first else b" "
        yield chunk, sep if _regular(chunk, sep) else None


def _one_chunk(path: PathLike) -> bool:
    """Whether ``path`` is a plain file of one chunk at most: read and parsed on the caller's thread, as no
    reading or parsing would overlap (a small run or qrels starts no thread)."""
    try:
        return Path(path).suffix != ".gz" and os.stat(path).st_size < _CHUNK_BYTES and os.path.isfile(path)
    except (OSError, ValueError):
        return False  # the threaded path reports what is wrong with it


def _checked_chunks(path: PathLike) -> Iterator[tuple[bytes, bytes | None]]:
    """:func:`_separated`'s pairs, read and checked one chunk ahead in a thread, so that reading the file
    overlaps with polars parsing the previous chunk."""
    out: queue.Queue = queue.Queue(maxsize=2)
    stop = threading.Event()
    done = object()

    def offer(item: object) -> bool:
        while not stop.is_set():  # the consumer may stop early: never block on a full queue
            try:
                out.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in _separated(path):
                if not offer(item):
                    return
            offer(done)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer
            offer(exc)

    worker = threading.Thread(target=produce, daemon=True)
    worker.start()
    try:
        while True:
            item = out.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()


def _fast_read(
    path: PathLike, schema: Mapping[str, PolarsDataType], keep: Callable[[pl.DataFrame], Any] | None = None
) -> list[Any] | None:
    """Parse a regular TREC file with polars' CSV reader, or return None to use the line-by-line path.

    Regular: the separator (one space, or one tab, sniffed from the first line) is the only whitespace
    besides line ends, every line has exactly ``len(schema)`` non-empty fields (an empty field means a
    doubled separator), no ``#``, ASCII. Such a file splits the same way on ``sep`` as on runs of
    whitespace, so both paths give the same frame. Returns the parsed pieces in file order, each mapped
    by ``keep`` (which may drop columns early, or return None to give up).
    """
    frames: list = []
    for df in fast_pieces(path, schema, keep):
        if df is None:
            return None
        frames.append(df)
    return frames or None


def fast_pieces(
    path: PathLike, schema: Mapping[str, PolarsDataType], keep: Callable[[pl.DataFrame], Any] | None = None
) -> Iterator[Any]:
    """:func:`_fast_read`'s pieces one at a time, in file order (about 16 MB of text each); a None piece
    means the file is not regular (the line-by-line path decides) and ends the iteration. Two pieces are
    parsed at a time, at most :data:`_AHEAD` are in hand, and none is kept once yielded, so memory does
    not grow with the file. A plain file of one chunk is read and parsed on the caller's thread."""

    def parse(chunk: bytes, sep: bytes) -> Any:
        try:
            df = pl.read_csv(
                chunk,
                has_header=False,
                separator=sep.decode(),
                quote_char=None,
                schema=schema,
                raise_if_empty=False,
            )
        except pl.exceptions.PolarsError:
            return None
        if df.height == 0 or df.null_count().sum_horizontal().item():
            return None  # blank line or missing field: the line-by-line path decides
        return df if keep is None else keep(df)

    if _one_chunk(path):
        for chunk, sep in _separated(path):
            df = None if sep is None else parse(chunk, sep)
            yield df
            if df is None:
                return
        return
    pending: collections.deque = collections.deque()
    # two chunks parsed at a time: polars releases the GIL, so the cores stay busy between chunks
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        try:
            for chunk, sep in _checked_chunks(path):
                if sep is None:
                    yield None
                    return
                pending.append(pool.submit(parse, chunk, sep))
                del chunk
                if len(pending) >= _AHEAD:
                    df = pending.popleft().result()
                    yield df
                    if df is None:
                        return
            while pending:
                df = pending.popleft().result()
                yield df
                if df is None:
                    return
        finally:
            for f in pending:
                f.cancel()


def _concat(frames: list[pl.DataFrame] | None) -> pl.DataFrame | None:
    if not frames:
        return None
    return pl.concat(frames, how="vertical", rechunk=False) if len(frames) > 1 else frames[0]


def read_run_for_scoring(path: PathLike, *, check_duplicates: bool = True) -> tuple[pl.DataFrame, str]:
    """A run reduced to what scoring needs: ``(query, doc, score)`` with categorical ids, and the run tag.

    ``query`` and ``doc`` are ``pl.Categorical`` (4 bytes a line instead of a string each), ``score`` is the
    C ``float`` trec_eval ranks by (``pl.Float32``, rounded from the parsed double as trec_eval does). Same
    validation as :func:`read_run` (a bad file raises the same error; ``check_duplicates=False`` leaves the
    duplicate check to the caller); iter and rank columns are checked and dropped chunk by chunk, so a
    22-million-line run fits in a few hundred MB.
    """
    if is_parquet(path):
        return _read_parquet_for_scoring(path, check_duplicates)
    pieces = _fast_read(path, LEAN_RUN_SCHEMA, lean_piece)
    fast = _concat([p[0] for p in pieces]) if pieces else None
    if fast is not None and check_duplicates:
        key = pl.col(QUERY).to_physical().cast(pl.UInt64) * (1 << 32) + pl.col(DOC).to_physical()
        if fast.select(key.n_unique()).item() != fast.height:
            fast = None  # a duplicate: the line-by-line path reports it with its line numbers
    if fast is None or pieces is None:  # pieces is None only when fast is
        full = _read_run_lines(path)
        warn_rank_contradictions(
            path, rank_contradictions(full), full.height, full.get_column(QUERY).n_unique()
        )
        return _lean(full), run_tag(full)
    found = pl.concat([p[2] for p in pieces])
    warn_rank_contradictions(path, found, fast.height, fast.get_column(QUERY).n_unique())
    return fast, pieces[-1][1]  # the tag of the file's last line: pieces come in file order


def _lean(df: pl.DataFrame) -> pl.DataFrame:
    """``query, doc`` categorical and ``score`` as a C float, in one contiguous piece."""
    cat = pl.Categorical
    return df.select(pl.col(QUERY).cast(cat), pl.col(DOC).cast(cat), pl.col(SCORE).cast(pl.Float32)).rechunk()


def lean_piece(df: pl.DataFrame) -> tuple[pl.DataFrame, str, pl.DataFrame] | None:
    """A parsed chunk reduced by :func:`_lean`, its last line's tag and its :func:`rank_contradictions`;
    None (the line-by-line path decides) if a score is NaN."""
    if df.select(pl.col(SCORE).is_nan().any()).item():
        return None
    return _lean(df), df.get_column(TAG)[-1], rank_contradictions(df)


def rank_contradictions(run: pl.DataFrame) -> pl.DataFrame:
    """The queries of ``run`` whose rank column contradicts their scores, with the number of such lines.

    A line contradicts when its rank is not an integer, or when, compared with the line just before it in
    the same query, rank and score (the C float trec_eval ranks by) move the same way: a worse (larger)
    rank with a higher score, or the reverse. trec_eval ignores the rank column and ranks by score, and so
    does trecrs; a run whose rank and score columns are swapped is the usual cause.
    """
    score = pl.col(SCORE).cast(pl.Float32)
    # categorical ids compare by their codes: no string is made for a line that does not contradict
    query = pl.col(QUERY).to_physical() if run.schema[QUERY] == pl.Categorical else pl.col(QUERY)
    moves = pl.col(RANK).cast(pl.Float64).diff().sign() * score.cast(pl.Float64).diff().sign()
    bad = pl.col(RANK).is_null() | ((query == query.shift(1)) & (moves > 0)).fill_null(False)
    return run.lazy().filter(bad).select(pl.col(QUERY).cast(pl.Utf8)).group_by(QUERY).len("lines").collect()


def warn_rank_contradictions(path: PathLike, found: pl.DataFrame, lines: int, queries: int) -> None:
    """One :class:`TrecrsWarning` when ranks contradict scores (see :func:`rank_contradictions`)."""
    if found.height == 0:
        return
    found = found.group_by(QUERY).agg(pl.col("lines").sum())  # a query may span two chunks
    warn(
        f"{path}: the rank column contradicts the scores on {found.get_column('lines').sum():,} of {lines:,} "
        f"lines ({found.height:,} of {queries:,} queries); ranking by score as trec_eval does "
        "(are the rank and score columns swapped?)"
    )


def _read_parquet_for_scoring(path: PathLike, check_duplicates: bool) -> tuple[pl.DataFrame, str]:
    """read_run_for_scoring for Parquet: only query, doc and score are read (and the last tag)."""
    cat = pl.Categorical
    df = read_parquet(
        path,
        {QUERY: cat, DOC: cat, SCORE: pl.Float64},
        what="run",
        not_nan=[SCORE],
        unique=[QUERY, DOC] if check_duplicates else (),
    )
    tag = last_value(path, TAG, pl.Utf8)
    return df.with_columns(pl.col(SCORE).cast(pl.Float32)), "trecrs" if tag is None else str(tag)


def _read_parquet(path: PathLike, schema: Mapping[str, PolarsDataType], what: str) -> pl.DataFrame:
    """A qrels/run stored as Parquet: required columns checked, optional ones filled, values validated."""
    need = [QUERY, DOC, REL if what == "qrels" else SCORE]
    fill = {ITER: "0" if what == "qrels" else "Q0", RANK: 0, TAG: "trecrs"}
    nan = [SCORE] if what == "run" else []
    return read_parquet(path, schema, what=what, fill=fill, not_null=need, not_nan=nan, unique=[QUERY, DOC])


def read_qrels(path: PathLike, *, max_rel: int = REL_MAX) -> pl.DataFrame:
    """Read a TREC qrels file ``qid iter docno rel`` into a DataFrame (``schema.QRELS_SCHEMA``).

    Exactly four whitespace-separated fields per line; ``rel`` must be an integer from
    ``ranges.REL_MIN`` to ``max_rel`` (default ``ranges.REL_MAX``; see there why), else an error naming
    the line (a negative value
    marks a document that is in the pool but unjudged, as in trec_eval). A (query, doc) pair that
    appears twice is an error, as it is for trec_eval. Ids are kept as strings. A ``.parquet`` file
    with columns query, doc, rel (iter optional) is read as is.

    A file laid out regularly (one space or one tab between fields, ASCII) is parsed directly by polars'
    CSV reader; anything else — and any error — goes through the line-by-line path, which names the line.
    """
    if is_parquet(path):
        return check_relevance(_read_parquet(path, QRELS_SCHEMA, "qrels"), path, max_rel=max_rel)
    fast = _concat(_fast_read(path, QRELS_SCHEMA))
    if fast is not None and fast.select(pl.col(REL).max() <= max_rel).item() and not _has_duplicates(fast):
        return fast  # Int64 parsing already bounds the low end: a value below ranges.REL_MIN is a parse error
    df = take_fields(split_fields(read_lines(path)), path, [QUERY, ITER, DOC, "_rel"], "qid iter docno rel")
    bad = first_match(df, ~pl.col("_rel").str.contains(r"^[+-]?\d+$"))
    if bad is not None:
        raise InputError(
            path, bad[LINENO], f"relevance must be an integer, found {bad['_rel']!r}: {describe(bad[LINE])!r}"
        )
    df = df.with_columns(pl.col("_rel").cast(pl.Int64, strict=False).alias(REL))
    bad = first_match(df, pl.col(REL).is_null() | (pl.col(REL) > max_rel))
    if bad is not None:
        raise InputError(path, bad[LINENO], relevance_reason(int(bad["_rel"]), max_rel))
    _check_duplicates(df, path, "qrels")
    return df.select(list(QRELS_SCHEMA))


def check_relevance(qrels: pl.DataFrame, path: PathLike | None, *, max_rel: int = REL_MAX) -> pl.DataFrame:
    """``qrels`` if every relevance is at most ``max_rel`` (Int64 bounds the low end), else an
    :class:`InputError` naming the first bad row (of a Parquet file or a frame: there are no lines)."""
    if qrels.height == 0 or qrels.select(pl.col(REL).max() <= max_rel).item():
        return qrels
    row = qrels.with_row_index("_r").filter(pl.col(REL) > max_rel).row(0, named=True)
    raise InputError(path, None, f"row {row['_r'] + 1}: {relevance_reason(row[REL], max_rel)}")


def read_run(path: PathLike) -> pl.DataFrame:
    """Read a TREC run ``qid iter docno rank score tag`` into a DataFrame (``schema.RUN_SCHEMA``).

    At least six whitespace-separated fields (extra fields are ignored, as trec_eval does). The rank
    column is ignored for ranking (use :func:`trec_order`); it is kept as an integer when it is one. The
    score must be a finite-or-infinite number, never NaN. The run tag of the file is the last line's
    (trec_eval's rule); see :func:`run_tag`. A duplicate (query, doc) is an error. A ``.parquet`` file
    with the ``schema.RUN_SCHEMA`` columns (query, doc, score required) is read as is.

    A file laid out regularly (one space or one tab between exactly six fields, ASCII) is parsed directly
    by polars' CSV reader; anything else — and any error — goes through the line-by-line path.
    """
    if is_parquet(path):
        return _read_parquet(path, RUN_SCHEMA, "run")
    fast = _concat(_fast_read(path, RUN_SCHEMA))
    if (
        fast is not None
        and not fast.select(pl.col(SCORE).is_nan().any()).item()
        and not _has_duplicates(fast)
    ):
        run = fast
    else:
        run = _read_run_lines(path)
    warn_rank_contradictions(path, rank_contradictions(run), run.height, run.get_column(QUERY).n_unique())
    return run


def _read_run_lines(path: PathLike) -> pl.DataFrame:
    columns = [QUERY, ITER, DOC, "_rank", "_score", TAG]
    df = take_fields(
        split_fields(read_lines(path)), path, columns, "qid iter docno rank score tag", at_least=True
    )
    df = df.with_columns(
        pl.col("_rank").cast(pl.Int64, strict=False).alias(RANK),
        pl.col("_score").cast(pl.Float64, strict=False).alias(SCORE),
    )
    bad = first_match(df, pl.col(SCORE).is_null() | pl.col(SCORE).is_nan())
    if bad is not None:
        what = "NaN" if bad[SCORE] is not None else "not a number"
        raise InputError(path, bad[LINENO], f"score is {what}: {bad['_score']!r} in {describe(bad[LINE])!r}")
    _check_duplicates(df, path, "run")
    return df.select(list(RUN_SCHEMA))


def _has_duplicates(df: pl.DataFrame) -> bool:
    """Whether a (query, doc) pair repeats; distinct row hashes prove there is none, cheaply."""
    if df.height < 2:
        return False
    if df.select(QUERY, DOC).hash_rows().n_unique() == df.height:
        return False
    return bool(df.select(pl.struct(QUERY, DOC).is_duplicated().any()).item())


def _check_duplicates(df: pl.DataFrame, path: PathLike | None, what: str) -> None:
    if not _has_duplicates(df):
        return
    found = first_duplicate(df, [QUERY, DOC])
    assert found is not None  # _has_duplicates found a repeated pair
    first, second = found
    also = f" (first seen on line {first[LINENO]})" if LINENO in df.columns else ""
    raise InputError(
        path,
        second.get(LINENO),
        f"duplicate {what} entry for query {second[QUERY]!r}, doc {second[DOC]!r}{also}",
    )


def run_tag(run: pl.DataFrame, default: str = "trecrs") -> str:
    """The run's tag as trec_eval reports it: the tag of the last line (``default`` if there is none)."""
    if TAG not in run.columns or run.height == 0:
        return default
    tag = run.get_column(TAG)[-1]
    return default if tag is None else str(tag)


# --------------------------------------------------------------------------------------------- writing


def format_run(run: pl.DataFrame, *, tag: str | None = None, depth: int | None = None) -> pl.DataFrame:
    """Order a run with :func:`trec_order`, cut it at ``depth`` per query, and lay out the six TREC columns."""
    ordered = trec_order(run)
    if depth is not None:
        ordered = ordered.filter(pl.col(RANK) <= depth)
    tag_expr = (
        pl.lit(tag) if tag is not None else (pl.col(TAG) if TAG in ordered.columns else pl.lit("trecrs"))
    )
    iter_expr = pl.col(ITER) if ITER in ordered.columns else pl.lit("Q0")
    return ordered.select(
        pl.col(QUERY), iter_expr.alias(ITER), pl.col(DOC), pl.col(RANK), pl.col(SCORE), tag_expr.alias(TAG)
    )


def write_run(
    run: pl.DataFrame, path: PathLike, *, tag: str | None = None, depth: int | None = None
) -> pl.DataFrame:
    """Write a run file ``qid Q0 docno rank score tag`` in trec_eval order; returns what was written.

    Queries are written in natural id order (numeric when every id is an integer), documents in
    :func:`trec_order` with ranks 1..n, cut at ``depth`` if given. Scores are written with the shortest
    text that reads back as the same float64, so a written run scores exactly like the frame.
    """
    out = format_run(run, tag=tag, depth=depth)
    if out.height:
        out = natural_sort(out, [QUERY])  # stable: documents keep their trec_eval order
    write_table(out, path)
    return out


def write_qrels(qrels: pl.DataFrame, path: PathLike, *, sort: bool = True) -> pl.DataFrame:
    """Write a qrels file ``qid 0 docno rel`` (natural id order when ``sort``); returns what was written."""
    iter_expr = pl.col(ITER) if ITER in qrels.columns else pl.lit("0")
    out = qrels.select(pl.col(QUERY), iter_expr.alias(ITER), pl.col(DOC), pl.col(REL).cast(pl.Int64))
    if sort and out.height:
        out = natural_sort(out, [QUERY, DOC])
    write_table(out, path)
    return out
