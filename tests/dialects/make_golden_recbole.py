"""Golden values of the ``recbole:`` dialect: RecBole's own metric classes on the synthetic fixture.

Needs RecBole (``pip install "torch==2.13.0+cpu" recbole==1.2.1``; not in trecrs's test extra: torch).
Run from the repository root: ``python tests/dialects/make_golden_recbole.py``; writes
tests/data/dialects/recbole.json. RecBole's evaluator builds ``pos_index`` (users × max(topk): is the
j-th ranked item a positive) and ``pos_len`` (|positives|) and each metric's ``metric_info`` returns the
per-user values, column k−1 = @k; here the positives are the items rated >= LEVEL, and a list shorter
than max(topk) is padded with non-positives (RecBole's full-sort lists are never short). Users without a
positive are not in RecBole's evaluation (stored as null).

``gauc``: each user's candidates are the list, then the unretrieved positives tied below it (RecBole's
average ranks), as trecrs ranks them; per user ``GAUC.metric_info`` on that user alone, the summary on
all users. Beyond accuracy, on the top-k item matrix of the users with a positive, at the cutoffs every
list reaches (1, 3): ``num_items`` = the 50 items + RecBole's ``[PAD]``, item counts = the fixture's
training ratings.
"""

from __future__ import annotations

import numpy as np

if not hasattr(np, "float"):  # recbole 1.2.1 uses np.float, removed in numpy 1.24
    np.float = float
if not hasattr(np, "bool"):
    np.bool = np.bool_

import recbole  # noqa: E402
from fixture import (  # noqa: E402
    CUTOFFS,
    fixture,
    relevant,
    training,  # noqa: E402
    write_golden,
)
from recbole.evaluator.metrics import (  # noqa: E402
    GAUC,
    MAP,
    MRR,
    NDCG,
    AveragePopularity,
    GiniIndex,
    Hit,
    ItemCoverage,
    Precision,
    Recall,
    ShannonEntropy,
    TailPercentage,
)

BEYOND_CUTOFFS = (1, 3)  # every list has at least 3 items: RecBole's item matrix has no short rows
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
    summaries = {"recbole:gauc": _gauc(ranked, rel, users, values)}
    _beyond(ranked, users, values, summaries)
    print(write_golden("RecBole", recbole.__version__, values, summaries))


def _gauc(ranked, rel, users, values) -> float:
    """Per-user AUC into ``values``; the GAUC of every user."""
    sums, lengths = [], []
    for u in users:
        listed = [i for i, _ in ranked[u]]
        missing = len([i for i in rel[u] if i not in listed])  # tied below the list: their average rank
        tied = (2 * len(listed) + missing + 1) / 2
        sums.append(sum(n + 1 for n, i in enumerate(listed) if i in rel[u]) + missing * tied)
        lengths.append(len(listed) + missing)
    pos_rank_sum, user_len = np.array(sums)[:, None], np.array(lengths)
    pos_len = np.array([len(rel[u]) for u in users])
    gauc = GAUC({"topk": [1], "metric_decimal_place": 4})
    per_user = {}
    for n, u in enumerate(users):
        if user_len[n] > pos_len[n]:  # RecBole drops a user without negatives
            per_user[u] = float(gauc.metric_info(pos_rank_sum[n : n + 1], user_len[n : n + 1], pos_len[n : n + 1]))
    values["recbole:gauc"] = {u: per_user.get(u) for u in ranked}
    return float(gauc.metric_info(pos_rank_sum, user_len, pos_len))


def _beyond(ranked, users, values, summaries) -> None:
    config = {"topk": list(BEYOND_CUTOFFS), "metric_decimal_place": 4}
    maxk = max(BEYOND_CUTOFFS)
    code = {f"i{j:02d}": j for j in range(1, 51)}  # RecBole's internal ids; 0 is its [PAD]
    matrix = np.array([[code[i] for i, _ in ranked[u][:maxk]] for u in users])
    counts: dict[int, int] = {}
    for items in training().values():
        for i in items:
            counts[code[i]] = counts.get(code[i], 0) + 1
    popularity = AveragePopularity(config)
    per_user = popularity.metric_info(popularity.get_pop(matrix, counts))
    tail = TailPercentage(config | {"tail_ratio": 0.1})  # RecBole's default; internal ids in natural item order
    tail_share = tail.metric_info(tail.get_tail(matrix, counts))
    for k in BEYOND_CUTOFFS:
        values[f"recbole:averagepopularity@{k}"] = dict.fromkeys(ranked) | dict(zip(users, per_user[:, k - 1].tolist(), strict=True))
        values[f"recbole:tailpercentage@{k}"] = dict.fromkeys(ranked) | dict(zip(users, tail_share[:, k - 1].tolist(), strict=True))
        summaries[f"recbole:itemcoverage@{k}"] = float(ItemCoverage(config).get_coverage(matrix[:, :k], len(code) + 1))
        summaries[f"recbole:giniindex@{k}"] = float(GiniIndex(config).get_gini(matrix[:, :k], len(code) + 1))
        summaries[f"recbole:shannonentropy@{k}"] = float(ShannonEntropy(config).get_entropy(matrix[:, :k]))


if __name__ == "__main__":
    main()
