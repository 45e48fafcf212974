"""The vectorized engine: trec_eval 9.x measures computed with numpy/polars, to the last bit.

* :mod:`.rank`: qrels and run encoded as integers and ranked as trec_eval's ``form_res_rels.c`` does
  (:class:`~.rank.Ranked`), relstrings;
* :mod:`.measures`: the ``m_*.c`` measures over a :class:`~.rank.Ranked` and their registry;
* :mod:`.matrix`: a users x items score matrix encoded as the run it stands for;
* :mod:`.cmath`: the C arithmetic (libm ``log2``/``log``, sequential sums) the last bit depends on.

Agreement with pytrec_eval on every query and measure is a property test (``tests/engines/test_agreement.py``).
"""

from __future__ import annotations

import polars as pl

from ...measures.request import MeasureRequest
from ...measures.ties import TIE_MODES
from ...schema import QUERY
from ..base import Computed, Engine, register_engine
from .encoded import compute_encoded, compute_prepared
from .files import compute_files, encoded_stats
from .matrix import encode_matrix
from .measures import HANDLED_ELSEWHERE, VECTOR_MEASURES, compute_ranked, supports
from .rank import (
    DuplicateEntry,
    Encoded,
    Prepared,
    Ranked,
    encode,
    prepare,
    rank,
    rank_encoded,
    rank_prepared,
    relstrings,
)
from .tie_report import report_frames as tie_report_frames
from .ties import check as check_ties

__all__ = [
    "ENGINE", "VECTOR_MEASURES", "Computed", "DuplicateEntry", "Encoded", "Prepared", "Ranked", "check_ties",
    "compute", "compute_encoded", "compute_files", "compute_prepared", "compute_ranked", "encode", "encoded_stats",
    "encode_matrix", "prepare", "rank", "rank_encoded", "rank_prepared", "relstrings", "supports",
    "tie_report_frames",
]  # fmt: skip


def compute(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    ties: str = "trec_eval",
) -> pl.DataFrame:
    """Engine entry point (see :class:`trecrs.engines.base.Engine`): one row per query in both run and qrels,
    each ranking cut at ``depth`` (0: empty rankings, which trec_eval still evaluates); ``ties``: the tie
    mode (:mod:`trecrs.measures.ties`)."""
    bases = [b for b in request.names if b not in HANDLED_ELSEWHERE]
    if not bases or run.height == 0:
        q = run.get_column(QUERY)
        return pl.DataFrame({QUERY: (q if q.dtype == pl.Utf8 else q.cast(pl.Utf8)).unique().sort()})
    enc = encode(qrels, run, score_dtype=request.version.score_dtype)
    values = compute_encoded(
        enc, request, relevance_level=relevance_level, judged_only=judged_only, depth=depth, ties=ties
    ).per_query
    if values.height == 0:
        return pl.DataFrame({QUERY: []}, schema={QUERY: pl.Utf8})
    return values.sort(QUERY)  # bytewise query order, as pytrec_eval's engine gives


ENGINE = register_engine(
    Engine(
        name="vectorized",
        compute=compute,
        supports=supports,
        description="numpy/polars implementation of trec_eval 9.x, bitwise equal to pytrec_eval (default)",
        compute_files=compute_files,
        empty_rankings=True,
        tie_modes=tuple(TIE_MODES),
    )
)
