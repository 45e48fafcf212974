"""Golden values of the ``sklearn:`` dialect: scikit-learn's own ranking functions on the synthetic fixture.

Needs scikit-learn (``pip install scikit-learn==1.9.1``; not in trecrs's test extra). Run from the
repository root: ``python tests/dialects/make_golden_sklearn.py``; writes tests/data/dialects/sklearn.json.
Each function is called as a user calls it on one user's top-N list: ``y_score`` = the list's scores, then
the user's items rated >= LEVEL that the list missed, scored min(0, lowest listed score − 1); ``y_true`` =
the rating of an item rated >= LEVEL, else 0 (``ndcg_score``, ``dcg_score``), or 1 / 0 (the binary
functions); the arrays are passed as one sample (``[y_true], [y_score]``). A call that raises (``ndcg_score``
on one item) or gives NaN (``roc_auc_score`` without both classes) is stored as null. :data:`TIED` adds
users whose scores tie (the functions average over tied scores); their items are passed lowest score
first, so that ``ignore_ties=True``'s stable ``argsort``, reversed, orders tied items by item id descending,
as trecrs does.

``--ml100k QRELS RUN LEVEL`` instead compares trecrs with scikit-learn on a qrels/run pair (with trecrs
importable: ``PYTHONPATH=.``) and prints, per name, the users compared and the largest difference.
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import sklearn
from fixture import CUTOFFS, LEVEL, fixture, write_golden
from sklearn.metrics import (
    average_precision_score,
    coverage_error,
    dcg_score,
    label_ranking_average_precision_score,
    label_ranking_loss,
    ndcg_score,
    roc_auc_score,
)

# users whose lists tie: mixed tie groups, a missed relevant item (g1, x1), a non-relevant item tied with
# relevant ones, a list shorter than the cutoffs, zero and negative scores
TIED_RUN = {
    "t1": [("a", 5.0), ("b", 5.0), ("c", 4.0), ("d", 4.0), ("e", 4.0), ("f", 1.0)],
    "t2": [("a", 3.0), ("b", 3.0), ("c", 3.0)],
    "t3": [("a", 2.0), ("b", 0.0), ("c", -1.0), ("d", -1.0)],
}
TIED_QRELS = {"t1": {"b": 4, "d": 3, "e": 5, "g1": 4, "h": 1}, "t2": {"a": 3, "c": 5},
              "t3": {"b": 5, "c": 4, "x1": 3}}  # fmt: skip
WITH_K = {
    "ndcg_score": lambda t, s, k: ndcg_score([t], [s], k=k),
    "ndcg_score(ignore_ties=True)": lambda t, s, k: ndcg_score([t], [s], k=k, ignore_ties=True),
    "dcg_score": lambda t, s, k: dcg_score([t], [s], k=k),
    "dcg_score(ignore_ties=True)": lambda t, s, k: dcg_score([t], [s], k=k, ignore_ties=True),
}
BINARY = {
    "average_precision_score": lambda b, s: average_precision_score(b, s),
    "roc_auc_score": lambda b, s: roc_auc_score(b, s),
    "label_ranking_average_precision_score": lambda b, s: label_ranking_average_precision_score([b], [s]),
    "coverage_error": lambda b, s: coverage_error([b], [s]),
    "label_ranking_loss": lambda b, s: label_ranking_loss([b], [s]),
}


def vectors(ranked: list[tuple[str, float]], rated: dict[str, int], level: int) -> tuple[list, list]:
    """``y_true`` (gains) and ``y_score``: the list best first (ties by item id descending), then the
    missed items rated >= ``level``."""
    listed = sorted(ranked, key=lambda p: (-p[1], _desc(p[0])))
    low = min(0.0, min(s for _, s in listed) - 1) if listed else 0.0
    missed = sorted(i for i, r in rated.items() if r >= level and i not in dict(listed))
    gain = [float(rated.get(i, 0)) if rated.get(i, 0) >= level else 0.0 for i, _ in listed]
    return gain + [float(rated[i]) for i in missed], [s for _, s in listed] + [low] * len(missed)


def _desc(item: str) -> tuple[int, ...]:
    return tuple(-b for b in item.encode())


def _call(fn, *args) -> float | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns where it gives 0 or NaN: the value is stored
        try:
            v = float(fn(*args))
        except ValueError:  # ndcg_score on a single item
            return None
    return None if math.isnan(v) else v


def user_values(ranked, rated, level) -> dict[str, float | None]:
    """Every name's value for one user (``name@k`` for the names with k)."""
    gains, scores = vectors(ranked, rated, level)
    gains, scores = gains[::-1], scores[::-1]  # lowest first: argsort's reversal keeps trecrs's tie order
    binary = [int(g > 0) for g in gains]
    out = {f"{n}@{k}": _call(f, gains, scores, k) for n, f in WITH_K.items() for k in CUTOFFS}
    out.update({n: _call(f, binary, scores) for n, f in BINARY.items()})
    return out


def main() -> None:
    test, ranked = fixture()
    test, ranked = {**test, **TIED_QRELS}, {**ranked, **TIED_RUN}
    per_user = {u: user_values(ranked[u], test[u], LEVEL) for u in ranked}
    names = [f"{n}@{k}" for n in WITH_K for k in CUTOFFS] + list(BINARY)
    values = {f"sklearn:{n}": {u: per_user[u][n] for u in ranked} for n in names}
    print(write_golden("sklearn", sklearn.__version__, values, more_run=TIED_RUN, more_qrels=TIED_QRELS))


def ml100k(qrels_path: str, run_path: str, level: int) -> None:
    """trecrs against scikit-learn on a qrels/run pair: per name, users compared and max abs difference."""
    import trecrs

    test: dict[str, dict[str, int]] = {}
    ranked: dict[str, list[tuple[str, float]]] = {}
    for line in open(qrels_path):
        u, _, i, r = line.split()
        test.setdefault(u, {})[i] = int(r)
    for line in open(run_path):
        u, _, i, _, s, _ = line.split()
        ranked.setdefault(u, []).append((i, float(s)))
    users = [u for u in ranked if u in test]
    names = [f"{n}@{k}" for n in WITH_K for k in (5, 10, 20)] + list(BINARY)
    res = trecrs.evaluate(qrels_path, run_path, [f"sklearn:{n}" for n in names], relevance_level=level)
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    for n in names:
        k = int(n.split("@")[1]) if "@" in n else None
        diffs = []
        for u in users:
            gains, scores = vectors(ranked[u], test[u], level)
            gains, scores = gains[::-1], scores[::-1]
            want = (_call(WITH_K[n.split("@")[0]], gains, scores, k) if k is not None
                    else _call(BINARY[n], [int(g > 0) for g in gains], scores))  # fmt: skip
            got = rows[u][f"sklearn:{n}"]
            assert (want is None) == (got is None), (n, u, want, got)
            diffs.append(0.0 if want is None else abs(want - got))
        print(f"sklearn:{n}: {len(users)} users, max abs diff {max(diffs):.3g}, mean {np.mean(diffs):.3g}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--ml100k"]:
        ml100k(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
