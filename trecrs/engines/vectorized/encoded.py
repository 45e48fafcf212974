"""Everything for an encoded qrels/run pair at once: ranking, the measures, the relstrings."""

from __future__ import annotations

import numpy as np

from ...measures.request import MeasureRequest
from ..base import Computed
from .measures import compute_ranked
from .rank import Encoded, rank_encoded, relstrings


def compute_encoded(
    enc: Encoded,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    complete: bool = False,
    check_duplicates: bool = False,
) -> Computed:
    """Everything for an encoded qrels/run pair at once: ``-M`` (``depth``), ``-J``, ``-c`` (``complete``:
    stand-in rankings for qrels queries missing from the run) and the relstrings when requested.

    The run arrays of ``enc`` are released as they are used, so a 22-million-line run needs a few hundred
    MB. Raises :class:`~.rank.DuplicateEntry` (with ``check_duplicates``) for a repeated (query, doc).
    """
    r = rank_encoded(
        enc, relevance_level=relevance_level, judged_only=judged_only, depth=depth, complete=complete,
        check_duplicates=check_duplicates,
    )  # fmt: skip
    stand_in = [r.queries[s] for s in np.flatnonzero(r.bogus)] if r.bogus is not None else []
    length = request.relstring_length()
    return Computed(compute_ranked(r, request), stand_in, {} if length is None else relstrings(r, length))
