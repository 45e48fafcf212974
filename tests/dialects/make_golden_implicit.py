"""Golden values of the ``implicit:`` dialect: implicit's own ``ranking_metrics_at_k`` on the synthetic fixture.

Needs implicit (``pip install implicit==0.7.3``; not in trecrs's test extra). Run from the repository root:
``python tests/dialects/make_golden_implicit.py``; writes tests/data/dialects/implicit.json.
``ranking_metrics_at_k(model, train_user_items, test_user_items, K)`` asks ``model.recommend(users, ...,
N=K)`` for each user's top K: here a stub returning the fixture's list (padded with -1, an id that is no
item, when the list is shorter than K). The test matrix holds each user's items rated >= LEVEL (implicit
has no relevance threshold), its columns every item of the data (the 50 items), the training matrix is
empty. Per-user values come from one call per user (a test matrix holding that user's row only);
``precision_at_k``, ``mean_average_precision_at_k``, ``ndcg_at_k`` and ``AUC_at_k`` return the
``precision``, ``map``, ``ndcg`` and ``auc`` of that call. The summaries are the all-users call's ``map``,
``ndcg`` and ``auc`` (means over users); its ``precision`` pools hits over users, which the dialect does not
give, and is printed only.

``--ml100k QRELS RUN TRAIN LEVEL OUT`` computes the same on a TREC qrels and run (relevant = rating >=
LEVEL) and writes the per-user values to OUT, for a comparison by hand.
"""

from __future__ import annotations

import json
import sys

import implicit
import numpy as np
from fixture import CUTOFFS, LEVEL, fixture, read_trec, training, write_golden
from implicit.evaluation import ranking_metrics_at_k
from scipy.sparse import csr_matrix

NAMES = {
    "precision": "precision_at_k",
    "map": "mean_average_precision_at_k",
    "ndcg": "ndcg_at_k",
    "auc": "AUC_at_k",
}


class ListModel:
    """A model whose ``recommend`` returns given lists (item indices, best first), padded with -1."""

    def __init__(self, lists: dict[int, list[int]]) -> None:
        self.lists = lists

    def recommend(self, userid, user_items, N=10, **_):
        ids = np.full((len(userid), N), -1, dtype=np.int32)
        for row, u in enumerate(np.asarray(userid)):
            head = self.lists.get(int(u), [])[:N]
            ids[row, : len(head)] = head
        return ids, np.zeros((len(userid), N), dtype=np.float32)


def compute(test, ranked, train, level):
    """``(values, summaries)``: implicit's per-user values of every name at every cutoff, and its all-users
    ``map``, ``ndcg``, ``auc``."""
    rel = {u: [i for i, r in rated.items() if r >= level] for u, rated in test.items()}
    users = sorted(set(test) | set(ranked))
    items = sorted({i for r in test.values() for i in r} | {i for lst in ranked.values() for i, _ in lst}
                   | {i for lst in train.values() for i in lst})  # fmt: skip
    uix, iix = {u: n for n, u in enumerate(users)}, {i: n for n, i in enumerate(items)}
    model = ListModel({uix[u]: [iix[i] for i, _ in lst] for u, lst in ranked.items()})
    empty = csr_matrix((len(users), len(items)), dtype=np.float32)

    def matrix(who):
        pairs = [(uix[u], iix[i]) for u in who for i in rel.get(u, [])]
        rows, cols = zip(*pairs, strict=True) if pairs else ((), ())
        return csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=empty.shape)

    values: dict[str, dict[str, float | None]] = {}
    summaries: dict[str, float] = {}
    for k in CUTOFFS:
        got = {u: ranking_metrics_at_k(model, empty, matrix([u]), K=k, show_progress=False)
               for u in ranked if rel.get(u)}  # fmt: skip
        for key, name in NAMES.items():
            values[f"implicit:{name}@{k}"] = {u: (float(got[u][key]) if u in got else None) for u in ranked}
        pooled = ranking_metrics_at_k(model, empty, matrix(list(ranked)), K=k, show_progress=False)
        for key in ("map", "ndcg", "auc"):
            summaries[f"implicit:{NAMES[key]}@{k}"] = float(pooled[key])
        print(f"@{k}: all users' precision (pooled) {pooled['precision']:.6f}")
    values = {n: values[n] for n in sorted(values, key=_order)}
    return values, {n: summaries[n] for n in sorted(summaries, key=_order)}


def _order(spec: str) -> tuple[int, int]:
    name, k = spec.split(":")[1].split("@")
    return list(NAMES.values()).index(name), int(k)


def main() -> None:
    if sys.argv[1:2] == ["--ml100k"]:
        qrels, run, train, level, out = sys.argv[2:7]
        values, _ = compute(*read_trec(qrels, run, train), int(level))
        with open(out, "w") as f:
            json.dump(values, f)
        return
    test, ranked = fixture()
    values, summaries = compute(test, ranked, training(), LEVEL)
    print(write_golden("implicit", implicit.__version__, values, summaries))


if __name__ == "__main__":
    main()
