"""The vectorized engine prints trec_eval 9.0.8's bytes for gain parameters and typed parameter lists.

Random collections of :mod:`.generate` (ties, float32 collisions, graded, zero and negative relevance),
their flags without ``-m`` and ``-c`` (``-c`` has a known class of its own), and ``-m`` set to each request
of :data:`tests.engines.test_gain_params.GAIN_REQUESTS`: the binary and ``trecrs eval --engine
vectorized`` must print the same bytes (or both fail). Cases with a query whose qrels are all negative
are left out (class ``all-negative-query``: there trec_eval's gains come from the previous query's
``num_rel_levels``, stale memory). Skips, saying why, without the binary.
"""

from __future__ import annotations

import pytest

from tests.engines.test_gain_params import GAIN_REQUESTS

from .classify import REFERENCE_CRASHED, for_engine, negative_only_query, signature
from .generate import Case, make_case
from .test_differential import _known

SEED = 7077
CASES = 60


def _with_measures(case: Case, measures: list[str]) -> Case:
    flags, skip = [], False
    for f in case.flags:
        if skip:
            skip = False
        elif f == "-m":
            skip = True
        elif f != "-c":
            flags.append(f)
    for m in measures:
        flags += ["-m", m]
    return Case(case.qrels, case.run, flags)


@pytest.mark.parametrize("measures", GAIN_REQUESTS, ids=lambda m: m[0])
def test_gain_parameters_match_the_binary(differ, measures):
    unexplained = []
    for k in range(CASES):
        case = _with_measures(make_case(SEED, k), measures)
        if negative_only_query(case):
            continue  # trec_eval reads num_rel_levels left over from the query before: known class
        te, rs = differ.outcomes(case, ("vectorized",))
        sig = signature(case, te, rs["vectorized"], for_engine(differ.known, "vectorized"))
        if sig is not None and sig != REFERENCE_CRASHED and _known(sig) is None:  # -M -1, -l 2^31-1 crash it
            unexplained.append(f"case {k} of seed {SEED}: {sig}")
    assert not unexplained, "\n".join(unexplained)


@pytest.mark.parametrize("top", [5000, 20000])
def test_disordered_gains_above_the_full_sort_match_the_binary(differ, top):
    """Grades above 4096 with gains the comparator cannot order: the entries are merged from runs of
    default levels (``gains._entries_fast``), never built one per level; the binary builds them all."""
    qrels = [f"1 0 d1 {top}", "1 0 d2 1", "1 0 d3 0", "1 0 d4 3", "2 0 d1 7", f"2 0 d5 {top // 2}"]
    run = ["1 Q0 d1 1 1.0 r", "1 Q0 d2 2 0.5 r", "1 Q0 d3 3 0.2 r", "2 Q0 d1 1 1 r", "2 Q0 d5 1 3 r"]
    measures = [
        "ndcg.1=0.5,3=-1",
        "G.2=nan",
        "Rndcg.1=-1,7=2.5",
        "ndcg_rel.0=3e9,1=0.5",
        "ndcg.2=-1e308,9=inf",
    ]
    case = Case(qrels, run, ["-q"] + [f for m in measures for f in ("-m", m)])
    te, rs = differ.outcomes(case, ("vectorized",))
    assert te.ok and rs["vectorized"].stdout == te.stdout
