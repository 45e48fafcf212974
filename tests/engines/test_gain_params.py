"""The vectorized engine agrees with pytrec_eval on gain parameters and typed parameter lists.

``ndcg``, ``ndcg_rel``, ``Rndcg`` and ``G`` with ``rel=gain`` pairs (``setup_gains`` in their ``m_*.c``:
non-integer gains that the truncating comparator leaves out of order, negative and zero gains, gains for
level 0 and for unjudged (-1) and unpooled (-2) documents, repeated levels, levels no query has),
``11pt_avg`` with recall points in typed order, ``set_F`` with several parameters: every per-query and
summary value bit for bit, and the printed text byte for byte, on the random collections of
:mod:`tests.engines.test_agreement` (forced ties included).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings

from trecrs.engines.base import ENGINES
from trecrs.measures.request import parse_measures

from .test_agreement import FLAGS, _compare, collections

GAIN_REQUESTS = [
    ["ndcg.1=2,2=3", "ndcg_rel.1=2", "Rndcg.2=1", "G.1=0,2=1", "11pt_avg.0.1,0.5", "set_F.0.5,3"],
    ["ndcg.0=1,1=0.5,3=-2", "ndcg_rel.0=0.4,2=1.6,4=2.2", "Rndcg.1=0.5,2=0.7,3=-0.6", "G.1=1.5,2=0.25,12=3",
     "11pt_avg.0.5,0.2,0.8"],
    ["ndcg.-1=1,-2=0.5", "ndcg_rel.-1=2,1=-1", "Rndcg.0=3,1=3,2=3", "G.-1=0.7,0=2.5,1=-1", "11pt_avg.1.0,0.0,0.3"],
    ["ndcg.1=1,1=4", "ndcg_rel.2=0,1=0", "Rndcg.9=2,1=-0.3", "G.2=1e9,1=0.999", "11pt_avg.-0.5,2,0.7"],
    ["ndcg.4=0.1,3=0.2,2=0.3,1=0.4", "ndcg_rel.12=-5,0=0.5", "Rndcg.2=2.5,1=1.5,0=0.5", "G.3=0.5,4=0.6",
     "11pt_avg.0.3"],
]  # fmt: skip


@pytest.mark.parametrize("measures", GAIN_REQUESTS, ids=lambda m: m[0])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), flags=FLAGS)
def test_gain_parameters_agree(measures, data, flags):
    qrels, run = data
    _compare(qrels, run, measures, **flags)


def test_every_form_is_covered():
    for measures in GAIN_REQUESTS:
        assert ENGINES["vectorized"].supports(parse_measures(measures)), measures


def test_compact_entries_match_the_full_sort():
    """The shortcut for integer gains walks the entries qsort's full list would give, and starts alike."""
    import random

    import numpy as np

    from trecrs.engines.vectorized.gains import sorted_entries, walked_entries

    rng = random.Random(5)
    for _ in range(400):
        n_levels = rng.randint(0, 9)
        pairs = [(rng.randint(-2, 10), float(rng.randint(-3, 8))) for _ in range(rng.randint(0, 4))]
        present = np.array(sorted(rng.sample(range(n_levels), rng.randint(0, n_levels))), dtype=np.int64)
        full = sorted_entries(n_levels, pairs)
        walk = [e for e in full if e[2] >= 0 and (e[2] in present)]
        got, starts, _ = walked_entries(n_levels, pairs, present)
        assert [e for e in got if e[2] in present] == walk, (n_levels, pairs, present)
        assert starts == (bool(full) and full[-1][1] > 0.0)


def test_a_huge_grade_with_gain_parameters_is_quick():
    import time

    import polars as pl

    from trecrs.evaluate import evaluate_full

    qrels = pl.DataFrame({"query": ["1", "1", "1"], "doc": ["a", "b", "c"], "rel": [10**9, 1, 0]})
    run = pl.DataFrame({"query": ["1", "1"], "doc": ["b", "a"], "score": [2.0, 1.0]})
    t = time.perf_counter()
    res = evaluate_full(qrels, run, ["ndcg.1=3", "G.1=2", "ndcg_rel.0=1", "Rndcg.2=5"], engine="vectorized")
    assert time.perf_counter() - t < 5
    assert res.per_query.height == 1


def test_the_run_merge_matches_the_full_sort():
    """With a comparator that does not order the gains (non-integer, NaN, infinite or far-apart gains),
    sorting runs of default levels symbolically gives the order qsort builds one entry per level."""
    import math
    import random

    from trecrs.engines.vectorized.gains import _entries_fast, _expand, sorted_entries

    odd = [
        0.0,
        0.5,
        -0.5,
        0.999,
        1.5,
        -1.0,
        3e9,
        -3e9,
        2147483647.0,
        2147483648.0,
        math.inf,
        -math.inf,
        math.nan,
    ]
    rng = random.Random(11)
    for _ in range(300):
        n = rng.choice([0, 1, 2, 5, 30, 100, rng.randint(1, 600)])
        pairs = [(rng.randint(-2, n + 1), rng.choice([*odd, rng.uniform(-n, 2 * n), float(rng.randint(-5, n + 5)) + 0.5]))
                 for _ in range(rng.randint(0, 5))]  # fmt: skip
        full = sorted_entries(n, pairs)
        seq, level = _entries_fast(n, pairs)
        names = {lvl for lvl, _ in pairs}
        got = _expand(seq, level, [v for v in range(n) if v not in names])
        key = lambda es: [(a, "nan" if g != g else g, c) for a, g, c in es]  # noqa: E731
        assert key(got) == key(full), (n, pairs)


def test_a_grade_of_two_to_the_31_with_disordered_gains_is_quick():
    """The largest grade with gains the comparator cannot order: no table of 2^31 entries, an answer."""
    import time

    import polars as pl

    from trecrs.evaluate import evaluate_full

    qrels = pl.DataFrame({"query": ["1", "1", "1"], "doc": ["a", "b", "c"], "rel": [2**31 - 1, 1, 0]})
    run = pl.DataFrame({"query": ["1", "1"], "doc": ["b", "a"], "score": [2.0, 1.0]})
    t = time.perf_counter()
    got = {m: evaluate_full(qrels, run, [m], engine="vectorized").per_query.row(0)[1]
           for m in ("ndcg.1=0.5,3=-1", "G.2=nan", "ndcg.1=0,4=4", "G")}  # fmt: skip
    assert time.perf_counter() - t < 5
    # gains b 0 (the pair 1=0), a 2^31 - 1 (its own level): DCG (2^31 - 1) / log2(3), IDCG 2^31 - 1
    assert got["ndcg.1=0,4=4"] == pytest.approx(1 / math.log2(3))
    assert got["ndcg.1=0.5,3=-1"] == pytest.approx(
        (0.5 + (2**31 - 1) / math.log2(3)) / (2**31 - 1 + 0.5 / math.log2(3))
    )
