"""The reference for ``ties=expected|best|worst``: every order of every tie group, enumerated and scored.

For each query of a (small) run, each tie group (documents with the score trec_eval compares equal) is
permuted in every way; each combination becomes a ranking with distinct scores in that order and is scored
by the default mode (trec_eval's order, which the engines reproduce exactly). Per query the mean, the best
and the worst value over the combinations are what ``expected``, ``best`` and ``worst`` must give; best is
the largest value (the smallest for a measure where lower is better), worst the other end.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

import trecrs
from trecrs.errors import TrecrsWarning, UsageError
from trecrs.measures.direction import better

ORDERS_MAX = 720  # combinations per query
SKIP = object()  # no reference value: a count's best/worst is its value on the extreme order, not an extreme


def groups(scores: dict[str, float], score_dtype=np.float32) -> list[list[str]]:
    """A query's documents in trec_eval's order (C score descending, doc id descending bytewise), grouped
    by equal C score."""
    key = {d: float(np.asarray(s, dtype=score_dtype)) + 0.0 for d, s in scores.items()}
    docs = sorted(scores, key=lambda d: d.encode("utf-8"), reverse=True)
    docs.sort(key=lambda d: -key[d])
    out: list[list[str]] = []
    for d in docs:
        if out and key[out[-1][-1]] == key[d]:
            out[-1].append(d)
        else:
            out.append([d])
    return out


def orderings(scores: dict[str, float], score_dtype=np.float32) -> list[list[str]]:
    """Every order of the query's documents that permutes only within tie groups."""
    perms = [list(itertools.permutations(g)) for g in groups(scores, score_dtype)]
    return [[d for part in combo for d in part] for combo in itertools.product(*perms)]


def count(run: dict, score_dtype=np.float32) -> int:
    """The largest number of combinations of a query of ``run``."""
    return max(
        (math.prod(math.factorial(len(g)) for g in groups(s, score_dtype)) for s in run.values()), default=1
    )


def enumerate_modes(qrels: dict, run: dict, measures: list[str], *, score_dtype=np.float32, **flags) -> dict:
    """``{mode: {query: {name: value}}}`` for expected, best and worst, by enumeration."""
    qrels2, run2, owner = {}, {}, {}
    for q, scores in run.items():
        for i, order in enumerate(orderings(scores, score_dtype)):
            vid = f"{q}~{i}"
            run2[vid] = {d: float(len(order) - j) for j, d in enumerate(order)}
            owner[vid] = q
            if q in qrels:
                qrels2[vid] = qrels[q]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        values = trecrs.evaluate(qrels2, run2, measures, **flags).to_dict()
    per: dict[str, dict[str, list[float]]] = {}
    for vid, row in values.items():
        for name, v in row.items():
            per.setdefault(owner[vid], {}).setdefault(name, []).append(v)
    out: dict[str, dict] = {"expected": {}, "best": {}, "worst": {}}
    for q, cols in per.items():
        for name, vs in cols.items():
            if any(v is None or math.isnan(v) for v in vs):  # undefined: for every order, or the test says so
                for mode in out:
                    out[mode].setdefault(q, {})[name] = None if all(v is None for v in vs) else math.nan
                continue
            out["expected"].setdefault(q, {})[name] = math.fsum(vs) / len(vs)
            if _direction(name) == "neither":  # a count, not a quality: best/worst take the extreme order's
                out["best"].setdefault(q, {})[name] = out["worst"].setdefault(q, {})[name] = SKIP
                continue
            lower = _direction(name) == "lower"
            out["best"].setdefault(q, {})[name] = min(vs) if lower else max(vs)
            out["worst"].setdefault(q, {})[name] = max(vs) if lower else min(vs)
    return out


def _direction(name: str) -> str:
    """Which way ``name`` improves (ir_measures' names, which have no declared direction, are all
    higher-is-better)."""
    try:
        return better(name)
    except UsageError:
        return "higher"


def assert_close(got: dict, want: dict, *, rel: float = 1e-9, abs_: float = 1e-12, context: str = "") -> None:
    """Every query and value of ``want`` equal in ``got`` within the tolerance."""
    assert set(got) == set(want), (context, sorted(got), sorted(want))
    for q, row in want.items():
        for name, v in row.items():
            g = got[q][name]
            if v is SKIP:
                continue
            if v is None or g is None or math.isnan(v):
                assert g is v or (g is not None and math.isnan(g) and v is not None and math.isnan(v)), (
                    context,
                    q,
                    name,
                    g,
                    v,
                )
                continue
            assert math.isclose(g, v, rel_tol=rel, abs_tol=abs_), (context, q, name, g, v)
