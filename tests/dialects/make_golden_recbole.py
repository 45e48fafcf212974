"""Golden values of the ``recbole:`` dialect: RecBole's own metric classes on the synthetic fixture.

Needs RecBole (``pip install "torch==2.13.0+cpu" recbole==1.2.1``; not in trecrs's test extra: torch).
Run from the repository root: ``python tests/dialects/make_golden_recbole.py``; writes
tests/data/dialects/recbole.json. RecBole's evaluator builds ``pos_index`` (users × max(topk): is the
j-th ranked item a positive) and ``pos_len`` (|positives|) and each metric's ``metric_info`` returns the
per-user values, column k−1 = @k; here the positives are the items rated >= LEVEL, and a list shorter
than max(topk) is padded with non-positives (RecBole's full-sort lists are never short). Users without a
positive are not in RecBole's evaluation (stored as null).
"""

from __future__ import annotations

import numpy as np

if not hasattr(np, "float"):  # recbole 1.2.1 uses np.float, removed in numpy 1.24
    np.float = float
if not hasattr(np, "bool"):
    np.bool = np.bool_

import recbole  # noqa: E402
from fixture import CUTOFFS, fixture, relevant, write_golden  # noqa: E402
from recbole.evaluator.metrics import MAP, MRR, NDCG, Hit, Precision, Recall  # noqa: E402

WITH_POS_LEN = {"recall": Recall, "ndcg": NDCG, "map": MAP}
POS_ONLY = {"hit": Hit, "mrr": MRR, "precision": Precision}


def main() -> None:
    test, ranked = fixture()
    rel = relevant(test)
    users = [u for u in ranked if rel[u]]
    maxk = max(CUTOFFS)
    config = {"topk": list(CUTOFFS), "metric_decimal_place": 4}
    pos_index = np.array([[i in rel[u] for i, _ in ranked[u][:maxk]] + [False] * (maxk - len(ranked[u][:maxk]))
                          for u in users], dtype=bool)  # fmt: skip
    pos_len = np.array([len(rel[u]) for u in users])
    values: dict[str, dict[str, float | None]] = {}
    for name in ("hit", "mrr", "precision", "recall", "ndcg", "map"):
        metric = (WITH_POS_LEN | POS_ONLY)[name](config)
        matrix = metric.metric_info(pos_index, pos_len) if name in WITH_POS_LEN else metric.metric_info(pos_index)
        for k in CUTOFFS:
            per_user = dict(zip(users, matrix[:, k - 1].tolist(), strict=True))
            values[f"recbole:{name}@{k}"] = {u: per_user.get(u) for u in ranked}
    print(write_golden("RecBole", recbole.__version__, values))


if __name__ == "__main__":
    main()
