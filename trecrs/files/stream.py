"""A run read in blocks of whole queries, so that memory depends on the block size, not on the file.

:class:`RunBlocks` yields lean frames (``query``, ``doc`` categorical, ``score`` as a C float, as
:func:`~trecrs.files.trec.read_run_for_scoring` gives them) of at least ``block_lines`` lines each (the
last may be shorter) that never split a query: the lines of the query that straddles a block boundary
are carried into the next block. Text (``.gz`` too) is parsed piece by piece by
:func:`~trecrs.files.trec.fast_pieces`; Parquet is read in record batches.

Two ways out, each an exception the caller answers:

* :class:`NotRegular`: a piece is not regular (comments, mixed whitespace, a bad field, NaN, a Parquet
  value of the wrong kind...). The whole-file readers decide, and their errors name the file-global line.
* :class:`NotGrouped`: a query comes back after a block with another query. :func:`partition_run` then
  writes the run into temporary Parquet files by a stable hash of the query id (:func:`~trecrs.ids.hash_ids`)
  so that each file holds whole queries, and the caller evaluates them one at a time.
"""

from __future__ import annotations

import math
import os
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import numpy as np
import polars as pl

from ..errors import TrecrsError
from ..ids import hash_ids
from ..ordering import query_blocks
from ..ranges import PARTITIONS_MAX
from ..schema import DOC, QUERY, SCORE, TAG
from .parquet import is_parquet, last_value
from .trec import LEAN_RUN_SCHEMA, fast_pieces, lean_piece, warn_rank_contradictions

PathLike = str | os.PathLike

#: Default block size in lines (``block_lines``): ~3M lines keep the peak near 0.5 GB whatever the file
#: (benchmarks/README.md, "Streaming, issue 14").
BLOCK_LINES = 3_000_000
GZ_RATIO = 10  # assumed uncompressed/compressed size of a .gz run when sizing partitions (generous)


def _arrow():
    """pyarrow and pyarrow.parquet, imported when a Parquet run is streamed or partitioned: ``import trecrs``
    loads numpy and polars only."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa, pq


def _partition_schema():
    """Partition files hold the ids' categorical codes: they are this process's, which alone reads them."""
    pa, _ = _arrow()
    return pa.schema([(QUERY, pa.uint32()), (DOC, pa.uint32()), (SCORE, pa.float32())])


class NotRegular(TrecrsError):
    """The run needs the whole-file, line-by-line reader (which names the bad line, if any)."""


class NotGrouped(TrecrsError):
    """A query of the run comes back after a block holding another query."""


class _Totals:
    """What the whole run says besides its lines: the last tag, line and query counts, contradictions."""

    def __init__(self, path: PathLike):
        self.path = path
        self.tag = "trecrs"
        self.lines = 0
        self.seen: set[str] = set()
        self.found: list[pl.DataFrame] = []

    def add(self, lean: pl.DataFrame, tag: str | None, found: pl.DataFrame | None) -> None:
        self.lines += lean.height
        if tag is not None:
            self.tag = tag
        if found is not None and found.height:
            self.found.append(found)

    def warn(self) -> None:
        """One rank-contradiction warning for the whole run (totals over every block)."""
        if self.found:
            warn_rank_contradictions(self.path, pl.concat(self.found), self.lines, len(self.seen))


def _pieces(
    path: PathLike, batch_lines: int
) -> Iterator[tuple[pl.DataFrame, str | None, pl.DataFrame | None]]:
    """``(lean frame, last tag or None, rank contradictions or None)`` pieces in file order."""
    if is_parquet(path):
        yield from _parquet_pieces(path, batch_lines)
        return
    for piece in fast_pieces(path, LEAN_RUN_SCHEMA, lean_piece):
        if piece is None:
            raise NotRegular(f"{path}: not regular")
        yield piece


def _parquet_pieces(path: PathLike, batch_lines: int):
    """Batches of query, doc (categorical) and score (C float) from polars' streaming Parquet reader, which
    decodes and casts ahead in its own threads (bounded buffering) while the caller evaluates. Anything
    :func:`~trecrs.files.parquet.read_parquet` would refuse (missing column, wrong type, null, NaN, NUL)
    is :class:`NotRegular`: that reader names the row."""
    tag = last_value(path, TAG, pl.Utf8)
    ids = [pl.col(c).cast(pl.Utf8, strict=True).cast(pl.Categorical) for c in (QUERY, DOC)]
    score = pl.col(SCORE).cast(pl.Float64, strict=True).cast(pl.Float32)  # NaN stays NaN
    chunk_size = max(1, min(batch_lines, 1 << 20))
    batches = pl.scan_parquet(os.fspath(path)).select(*ids, score).collect_batches(chunk_size=chunk_size)
    nul = _NulCheck()
    try:
        for df in batches:
            if (
                df.null_count().sum_horizontal().item()
                or df.get_column(SCORE).is_nan().any()
                or nul.found(df)
            ):
                raise NotRegular(f"{path}: not regular")
            yield df, None, None
    except (OSError, pl.exceptions.PolarsError, pl.exceptions.PanicException):
        raise NotRegular(f"{path}: not regular") from None
    yield (
        pl.DataFrame(schema={QUERY: pl.Categorical, DOC: pl.Categorical, SCORE: pl.Float32}),
        ("trecrs" if tag is None else tag),
        None,
    )


class _NulCheck:
    """Whether a batch's ids hold a NUL byte. Categorical codes are dense and handed out in order, so each
    batch brings at most the codes above the largest seen so far: only their strings are looked at (codes
    of other columns that come along are looked at too: a NUL there only sends the run to the whole-file
    reader, which decides)."""

    def __init__(self):
        self.upto = -1  # every code up to this one is checked

    def found(self, df: pl.DataFrame) -> bool:
        codes = [
            cast("int | None", df.get_column(c).to_physical().max()) for c in (QUERY, DOC)
        ]  # UInt32 codes
        top = max(codes, key=lambda v: -1 if v is None else v)
        if top is None or top <= self.upto:
            return False
        new = (
            pl.Series(np.arange(self.upto + 1, top + 1, dtype=np.uint32)).cat.to(pl.Categorical).cast(pl.Utf8)
        )
        self.upto = top
        return bool(new.str.contains("\x00", literal=True).any())


def _query_end(df: pl.DataFrame, k: int) -> int | None:
    """The first row at or after ``k`` (k >= 1) that starts a new query (after row ``k - 1``'s); None
    when that query runs to the end of ``df``."""
    codes = df.get_column(QUERY).slice(k - 1).to_physical().to_numpy()
    change = np.flatnonzero(codes != codes[0])
    return None if change.size == 0 else k - 1 + int(change[0])


class RunBlocks:
    """Iterate over a run in blocks of whole queries of at least ``block_lines`` lines (see the module).

    After the iteration, :meth:`warn` gives the rank-contradiction warning and ``tag`` the last line's tag.
    """

    def __init__(self, path: PathLike, block_lines: int = BLOCK_LINES):
        self.path = path
        self.block_lines = max(1, int(block_lines))
        self.totals = _Totals(path)
        self.bytes_per_line = 0.0  # of the first piece's text, to size partitions

    @property
    def tag(self) -> str:
        return self.totals.tag

    def warn(self) -> None:
        self.totals.warn()

    def __iter__(self) -> Iterator[pl.DataFrame]:
        pending: list[pl.DataFrame] = []
        n = 0
        for lean, tag, found in _pieces(self.path, self.block_lines):
            self.totals.add(lean, tag, found)
            if lean.height:
                pending.append(lean)
                n += lean.height
            if n >= self.block_lines:
                pending, n = yield from self._cut(pending, last=False)
        if self.totals.lines == 0:
            raise NotRegular(f"{self.path}: empty")  # the whole-file reader says what an empty run means
        yield from self._cut(pending, last=True)

    def _cut(self, pending: list[pl.DataFrame], *, last: bool):
        """Yield the whole-query blocks of the pending pieces; return what is left for the next piece."""
        buf = (
            pl.concat(pending, how="vertical", rechunk=False)
            if len(pending) > 1
            else pending[0]
            if pending
            else None
        )
        pending.clear()
        while buf is not None and buf.height:
            cut = _query_end(buf, self.block_lines) if buf.height > self.block_lines else None
            if cut is None and not last:
                return [buf], buf.height
            cut = buf.height if cut is None else cut
            yield self._checked(buf.slice(0, cut))
            buf = buf.slice(cut)
        return [], 0

    def _checked(self, block: pl.DataFrame) -> pl.DataFrame:
        """``block``, after checking that none of its queries was in an earlier block."""
        queries = set(query_lines(block).get_column(QUERY).to_list())
        if not queries.isdisjoint(self.totals.seen):
            raise NotGrouped(f"{self.path}: not grouped by query")
        self.totals.seen |= queries
        return block


# the last block query_lines answered for, and its answer: the stream checks a block and the engine then
# counts its lines, one after the other, so the second call is a lookup (a weak reference: no block is
# kept; one tuple, read and replaced whole, so threads evaluating blocks side by side cannot mix two)
_last: tuple = (lambda: None, None)


def query_lines(block: pl.DataFrame) -> pl.DataFrame:
    """The distinct queries of a block (``query`` as strings) and their number of lines (``lines``).

    Counted on the categorical codes at the starts of the block's runs of equal queries (a grouped block
    has one run per query, a partition of a run in no order about one per line), so no hash table over
    the lines is built and only distinct ids become strings; the runs are counted per code (one pass)
    unless the codes are sparse against them, then sorted.
    """
    global _last
    seen, answer = _last
    if seen() is block:
        return answer
    col = block.get_column(QUERY)
    # one contiguous copy of the codes: converting a many-chunk column straight to numpy costs more
    phys = (
        (col if col.dtype == pl.Categorical else col.cast(pl.Categorical)).to_physical().rechunk().to_numpy()
    )
    starts = query_blocks(phys)
    heads, lens = phys[starts], np.diff(np.append(starts, phys.size))
    top = int(heads.max()) if heads.size else -1
    if top < 4 * heads.size + 1024:
        per_code = np.bincount(heads, weights=lens, minlength=top + 1)
        codes = np.flatnonzero(per_code)
        lines = per_code[codes]
    else:
        codes, which = np.unique(heads, return_inverse=True)
        lines = np.bincount(which, weights=lens, minlength=codes.size)
    ids = pl.Series(QUERY, codes.astype(np.uint32)).cat.to(pl.Categorical).cast(pl.Utf8)
    out = pl.DataFrame({QUERY: ids, "lines": lines.astype(np.int64)})
    _last = (weakref.ref(block), out)
    return out


def partition_count(path: PathLike, block_lines: int) -> int:
    """How many partitions keep each near ``block_lines`` lines: the file's rows (Parquet metadata) or
    its size over the bytes per line of its first lines (times :data:`GZ_RATIO` for ``.gz``)."""
    if is_parquet(path):
        lines = _arrow()[1].ParquetFile(path).metadata.num_rows
    else:
        size = Path(path).stat().st_size * (GZ_RATIO if Path(path).suffix == ".gz" else 1)
        lines = size / _bytes_per_line(path)
    return int(min(PARTITIONS_MAX, max(2, math.ceil(lines / max(1, block_lines)))))


def _bytes_per_line(path: PathLike) -> float:
    import gzip

    opener = gzip.open if Path(path).suffix == ".gz" else open
    with opener(path, "rb") as fh:
        head = fh.read(1 << 20)
    return max(1.0, len(head) / max(1, head.count(b"\n")))


class Partitions:
    """The run written into ``parts`` Parquet files in ``directory`` by :func:`~trecrs.ids.hash_ids` of the
    query id modulo ``parts``, so that each file holds whole queries; iterate to get them as lean frames."""

    def __init__(self, path: PathLike, directory: PathLike, parts: int, block_lines: int = BLOCK_LINES):
        self.path, self.parts = path, parts
        self.totals = _Totals(path)
        self.files = [Path(directory) / f"part-{k:05d}.parquet" for k in range(parts)]
        self._write(max(1, int(block_lines)))

    @property
    def tag(self) -> str:
        return self.totals.tag

    def warn(self) -> None:
        self.totals.warn()

    def _write(self, block_lines: int) -> None:
        writers: dict = {}  # partition -> pyarrow.parquet.ParquetWriter
        try:
            pending, n = [], 0
            for lean, tag, found in _pieces(self.path, block_lines):
                self.totals.add(lean, tag, found)
                pending.append(lean)
                n += lean.height
                if n >= block_lines:
                    self._flush(pending, writers)
                    pending, n = [], 0
            self._flush(pending, writers)
        finally:
            for w in writers.values():
                w.close()
        if self.totals.lines == 0:
            raise NotRegular(f"{self.path}: empty")

    def _flush(self, pending: list[pl.DataFrame], writers: dict) -> None:
        """Append the pending lines to their partitions' files (file order kept within each), ids as their
        categorical codes, so that no id becomes a string but the distinct query ids (to be hashed)."""
        df = pl.concat(pending).rechunk() if pending else None
        if df is None or df.height == 0:
            return
        q, d = (df.get_column(c).to_physical().to_numpy() for c in (QUERY, DOC))
        codes = _distinct(q)
        queries = pl.Series(QUERY, codes.astype(np.uint32)).cat.to(pl.Categorical).cast(pl.Utf8)
        self.totals.seen.update(queries.to_list())
        part_of = np.zeros(int(codes[-1]) + 1, dtype=np.uint16)  # PARTITIONS_MAX parts at most
        part_of[codes] = (hash_ids(queries) % np.uint64(self.parts)).astype(np.uint16)
        part = part_of[q]
        order = np.argsort(part, kind="stable")  # by partition, file order kept within each
        counts = np.bincount(part, minlength=self.parts)
        ends = np.cumsum(counts)
        pa, pq = _arrow()
        schema = _partition_schema()
        score = df.get_column(SCORE).to_numpy()
        for k in np.flatnonzero(counts):
            rows = order[ends[k] - counts[k] : ends[k]]
            if k not in writers:
                writers[k] = pq.ParquetWriter(self.files[k], schema, compression="none", use_dictionary=False)
            writers[k].write_table(pa.table([q[rows], d[rows], score[rows]], schema=schema))

    def __iter__(self) -> Iterator[pl.DataFrame]:
        ids = [pl.col(c).cat.to(pl.Categorical) for c in (QUERY, DOC)]
        for f in self.files:
            if f.exists():
                df = pl.read_parquet(f).select(*ids, SCORE)
                f.unlink()  # release the disk as the partitions are evaluated
                yield df


def _distinct(codes: np.ndarray) -> np.ndarray:
    """The distinct values of non-negative integer codes, ascending: counted in one pass when they are
    dense, else sorted."""
    top = int(codes.max())
    if top < 4 * codes.size + 1024:
        return np.flatnonzero(np.bincount(codes, minlength=top + 1))
    return np.unique(codes)
