"""The vectorized engine on a qrels file and a run file, read the lean way (:attr:`Engine.compute_files`).

The run is read with :func:`trecrs.files.trec.read_run_for_scoring` (categorical ids, C-float scores;
iter, rank and tag dropped as it is parsed) and encoded as integers at once, so a 22-million-line run
needs a few hundred MB and no string frame is built.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ...files.trec import read_qrels, read_run, read_run_for_scoring
from ...measures.request import MeasureRequest
from ...schema import QUERY
from ..base import FileComputed, QueryStats
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
    retrieved = np.bincount(enc.qcode, minlength=n)
    if depth is not None:
        retrieved = np.minimum(retrieved, depth)
    q = np.flatnonzero(in_qrels)
    r = np.flatnonzero(retrieved > 0)
    qrels = pl.DataFrame({QUERY: enc.qvocab.gather(q), "top": top[q], "relevant": relevant[q].astype(np.int64)})
    run = pl.DataFrame({QUERY: enc.qvocab.gather(r), "retrieved": retrieved[r].astype(np.int64)})
    return QueryStats(qrels, run)


def compute_files(
    qrels, run, request: MeasureRequest, *, relevance_level: int = 1, judged_only: bool = False,
    depth: int | None = None, complete: bool = False,
) -> FileComputed:  # fmt: skip
    """The whole run at once: read, encode, rank, compute (a repeated (query, doc) names both lines)."""
    run_df, tag = read_run_for_scoring(run, check_duplicates=False)  # checked while ranking, below
    enc = encode(read_qrels(qrels), run_df)
    del run_df  # from here on only integer arrays
    stats = encoded_stats(enc, depth=depth)
    try:
        computed = compute_encoded(
            enc, request, relevance_level=relevance_level, judged_only=judged_only, depth=depth, complete=complete,
            check_duplicates=True,
        )  # fmt: skip
    except DuplicateEntry:
        read_run(run)  # raises the error naming both lines
        raise
    return FileComputed(computed, tag, stats)
