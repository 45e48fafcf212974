"""The vectorized engine on a qrels file and a run file, read the lean way (:attr:`Engine.compute_files`).

The run is streamed in blocks of whole queries (:class:`trecrs.files.stream.RunBlocks`: categorical ids,
C-float scores; iter, rank and tag dropped as it is parsed); each block is encoded with the qrels of its
queries and computed, and the answers are joined (:meth:`Computed.concat`), so peak memory follows the
block size (``block_lines``), not the file. A run not grouped by query is first partitioned by query
hash into temporary Parquet files (:class:`trecrs.files.stream.Partitions`), with one warning. A run the
fast reader cannot take (comments, irregular whitespace, a bad line) is read whole, as before, so that
errors name their file-global line.
"""

from __future__ import annotations

import tempfile
from typing import TypedDict

import numpy as np
import polars as pl

from ...errors import UsageError, warn
from ...files.stream import (
    BLOCK_LINES,
    NotGrouped,
    NotRegular,
    Partitions,
    RunBlocks,
    partition_count,
    query_lines,
)
from ...files.trec import read_qrels, read_run, read_run_for_scoring
from ...measures.request import MeasureRequest
from ...schema import DOC, QUERY, REL, SCORE
from ..base import Computed, FileComputed, QueryStats
from .encoded import compute_encoded
from .rank import DuplicateEntry, Encoded, encode


def encoded_stats(enc: Encoded, *, depth: int | None = None) -> QueryStats:
    """:class:`~trecrs.engines.base.QueryStats` of an encoded pair (the run's counts cut at ``depth``)."""
    n = len(enc.qvocab)
    in_qrels = np.zeros(n, bool)
    in_qrels[enc.qq] = True
    top = np.full(n, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(top, enc.qq, enc.qv)
    relevant = np.bincount(enc.qq[enc.qv > 0], minlength=n)
    assert enc.qcode is not None  # counted before prepare releases the run arrays
    retrieved = np.bincount(enc.qcode, minlength=n)
    if depth is not None:
        retrieved = np.minimum(retrieved, depth)
    q = np.flatnonzero(in_qrels)
    r = np.flatnonzero(retrieved > 0)
    qrels = pl.DataFrame(
        {QUERY: enc.qvocab.gather(q), "top": top[q], "relevant": relevant[q].astype(np.int64)}
    )
    run = pl.DataFrame({QUERY: enc.qvocab.gather(r), "retrieved": retrieved[r].astype(np.int64)})
    return QueryStats(qrels, run)


class _Flags(TypedDict):
    """trec_eval's ranking flags and the tie mode, passed on to each block."""

    relevance_level: int
    judged_only: bool
    depth: int | None
    ties: str


def compute_files(
    qrels,
    run,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    complete: bool = False,
    block_lines: int = BLOCK_LINES,
    ties: str = "trec_eval",
) -> FileComputed:
    """The run in blocks of whole queries of about ``block_lines`` lines (module docstring); the same
    answer, tag and counts as reading it whole (a repeated (query, doc) names both lines)."""
    _check_block_lines(block_lines)
    flags = _Flags(relevance_level=relevance_level, judged_only=judged_only, depth=depth, ties=ties)
    qrels_df = _lean_qrels(read_qrels(qrels))
    stream: RunBlocks | Partitions
    try:
        try:
            stream = RunBlocks(run, block_lines)
            parts = [_block(qrels_df, block, run, request, **flags) for block in stream]
        except NotGrouped:
            with tempfile.TemporaryDirectory(prefix="trecrs-partitions-") as tmp:
                stream = Partitions(run, tmp, partition_count(run, block_lines), block_lines)
                _warn_partitioned(run, stream.parts)
                parts = [_block(qrels_df, block, run, request, **flags) for block in stream]
    except NotRegular:
        return _whole(qrels_df, run, request, complete=complete, **flags)
    stream.warn()
    computed, stats = (Computed.concat([p[0] for p in parts]), _merge_stats(qrels_df, [p[1] for p in parts]))
    if complete:
        computed = Computed.concat([computed, _stand_ins(qrels_df, stats, request, **flags)])
    return FileComputed(computed, stream.tag, stats)


def _lean_qrels(qrels_df: pl.DataFrame) -> pl.DataFrame:
    """query, doc (categorical) and rel: the qrels grow with the users, so they are kept small too."""
    return qrels_df.select(pl.col(QUERY).cast(pl.Categorical), pl.col(DOC).cast(pl.Categorical), REL)


def _check_block_lines(block_lines) -> None:
    if isinstance(block_lines, bool) or not isinstance(block_lines, int) or block_lines < 1:
        raise UsageError(f"block_lines must be a positive integer, got {block_lines!r}")


def _warn_partitioned(run, parts: int) -> None:
    warn(
        f"{run}: the run is not grouped by query: partitioned into {parts:,} temporary files by query hash "
        "to evaluate it in bounded memory (group the run by query to avoid this pass)"
    )


def _block(
    qrels_df: pl.DataFrame,
    block: pl.DataFrame,
    run,
    request: MeasureRequest,
    *,
    relevance_level: int,
    judged_only: bool,
    depth: int | None,
    ties: str = "trec_eval",
) -> tuple[Computed, pl.DataFrame]:
    """One block of whole queries with the qrels of its queries: its answer and its run counts."""
    counts = query_lines(block).rename({"lines": "retrieved"})
    queries = counts.get_column(QUERY).cast(pl.Categorical)
    if depth is not None:
        counts = counts.with_columns(pl.col("retrieved").clip(upper_bound=depth))
    enc = encode(qrels_df.filter(pl.col(QUERY).is_in(queries.implode())), block)
    del block  # from here on only integer arrays
    try:
        computed = compute_encoded(
            enc,
            request,
            relevance_level=relevance_level,
            judged_only=judged_only,
            depth=depth,
            check_duplicates=True,
            ties=ties,
        )
    except DuplicateEntry:
        read_run(run)  # raises the error naming both lines
        raise
    return computed, counts


def _merge_stats(qrels_df: pl.DataFrame, counts: list[pl.DataFrame]) -> QueryStats:
    """:func:`encoded_stats` of the whole pair: qrels counts from the whole qrels, run counts summed."""
    qstats = (
        qrels_df.group_by(QUERY)
        .agg(
            pl.col(REL).max().cast(pl.Int64).alias("top"),
            (pl.col(REL) > 0).sum().cast(pl.Int64).alias("relevant"),
        )
        .with_columns(pl.col(QUERY).cast(pl.Utf8))
    )
    run = pl.concat(counts) if counts else pl.DataFrame(schema={QUERY: pl.Utf8, "retrieved": pl.Int64})
    return QueryStats(qstats, run)


def _stand_ins(
    qrels_df: pl.DataFrame,
    stats: QueryStats,
    request: MeasureRequest,
    *,
    relevance_level: int,
    judged_only: bool,
    depth: int | None,
    ties: str = "trec_eval",
) -> Computed:
    """-c (10.0): the qrels queries the run never names, on trec_eval's stand-in ranking."""
    missing = qrels_df.filter(~pl.col(QUERY).cast(pl.Utf8).is_in(stats.run.get_column(QUERY).implode()))
    if missing.height == 0:
        return Computed(pl.DataFrame(schema={QUERY: pl.Utf8}))
    empty = pl.DataFrame(schema={QUERY: pl.Utf8, DOC: pl.Utf8, SCORE: pl.Float32})
    return compute_encoded(
        encode(missing, empty),
        request,
        relevance_level=relevance_level,
        judged_only=judged_only,
        depth=depth,
        complete=True,
        ties=ties,
    )


def _whole(
    qrels_df: pl.DataFrame,
    run,
    request: MeasureRequest,
    *,
    relevance_level: int,
    judged_only: bool,
    depth: int | None,
    complete: bool,
    ties: str = "trec_eval",
) -> FileComputed:
    """The whole run at once: read, encode, rank, compute (a repeated (query, doc) names both lines)."""
    run_df, tag = read_run_for_scoring(run, check_duplicates=False)  # checked while ranking, below
    enc = encode(qrels_df, run_df)
    del run_df
    stats = encoded_stats(enc, depth=depth)
    try:
        computed = compute_encoded(
            enc,
            request,
            relevance_level=relevance_level,
            judged_only=judged_only,
            depth=depth,
            complete=complete,
            check_duplicates=True,
            ties=ties,
        )
    except DuplicateEntry:
        read_run(run)  # raises the error naming both lines
        raise
    return FileComputed(computed, tag, stats)
