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
list reaches (1, 3): the item ids, ``num_items`` and the training counts are those of RecBole's own
``Dataset`` built from the fixture written as atomic files (``benchmark_filename`` train, test): internal
ids in order of first appearance (training rows first), ``num_items`` = the 50 items of train and test +
its ``[PAD]``, ``item_counter`` of the training part.

Value-based (``auc``, ``mae``, ``rmse``, ``logloss``; summaries only, RecBole has no per-user value): ``auc``
and ``logloss`` on every listed (user, item) pair of every user, its score (``float32``) and label (rated
>= LEVEL), the positives a user's list lacks scored below every pair (``auc``; ``logloss`` leaves them
out); ``mae``/``rmse`` on the fixture's predictions of every test rating.
"""

from __future__ import annotations

import numpy as np

if not hasattr(np, "float"):  # recbole 1.2.1 uses np.float, removed in numpy 1.24
    np.float = float
if not hasattr(np, "bool"):
    np.bool = np.bool_
for _old, _new in (("float_", np.float64), ("complex_", np.complex128), ("unicode_", np.str_)):  # numpy 2
    if not hasattr(np, _old):
        setattr(np, _old, _new)

import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import recbole  # noqa: E402
from fixture import (  # noqa: E402
    CUTOFFS,
    fixture,
    predictions,
    relevant,
    training,  # noqa: E402
    write_golden,
)
from recbole.config import Config  # noqa: E402
from recbole.data import create_dataset  # noqa: E402
from recbole.evaluator.metrics import (  # noqa: E402
    AUC,
    GAUC,
    MAE,
    MAP,
    MRR,
    NDCG,
    RMSE,
    AveragePopularity,
    GiniIndex,
    Hit,
    ItemCoverage,
    LogLoss,
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
        matrix = (
            metric.metric_info(pos_index, pos_len) if name in WITH_POS_LEN else metric.metric_info(pos_index)
        )
        for k in CUTOFFS:
            per_user = dict(zip(users, matrix[:, k - 1].tolist(), strict=True))
            values[f"recbole:{name}@{k}"] = {u: per_user.get(u) for u in ranked}
    summaries = {"recbole:gauc": _gauc(ranked, rel, users, values)}
    _beyond(ranked, users, values, summaries)
    _value_based(test, ranked, rel, summaries)
    print(write_golden("RecBole", recbole.__version__, values, summaries, {"predictions": predictions()}))


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
            per_user[u] = float(
                gauc.metric_info(pos_rank_sum[n : n + 1], user_len[n : n + 1], pos_len[n : n + 1])
            )
    values["recbole:gauc"] = {u: per_user.get(u) for u in ranked}
    return float(gauc.metric_info(pos_rank_sum, user_len, pos_len))


def _dataset(test):
    """RecBole's ``Dataset`` of the fixture (training ratings, then the test ratings, as benchmark files):
    its item ids (``[PAD]`` = 0), ``num_items`` and the training part's item counts."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "fixture"
        folder.mkdir()
        head = "user_id:token\titem_id:token\trating:float\n"
        rows = {
            "train": [(u, i, 1) for u, items in training().items() for i in items],
            "test": [(u, i, r) for u, rated in test.items() for i, r in rated.items()],
        }
        for part, lines in rows.items():
            (folder / f"fixture.{part}.inter").write_text(
                head + "".join(f"{u}\t{i}\t{r}\n" for u, i, r in lines)
            )
        config = Config(
            model="Pop",
            dataset="fixture",
            config_dict={
                "data_path": tmp,
                "benchmark_filename": ["train", "test"],
                "state": "ERROR",
                "show_progress": False,
                "load_col": {"inter": ["user_id", "item_id", "rating"]},
                "checkpoint_dir": tmp,
            },
        )
        dataset = create_dataset(config)
        train_part, _ = dataset.build()
    code = {str(t): int(i) for t, i in dataset.field2token_id["item_id"].items()}
    return code, dataset.num("item_id"), {int(i): n for i, n in train_part.item_counter.items()}


def _beyond(ranked, users, values, summaries) -> None:
    config = {"topk": list(BEYOND_CUTOFFS), "metric_decimal_place": 4}
    maxk = max(BEYOND_CUTOFFS)
    code, num_items, counts = _dataset(fixture()[0])
    assert num_items == 51  # the 50 items of train and test + [PAD]
    matrix = np.array([[code[i] for i, _ in ranked[u][:maxk]] for u in users])
    popularity = AveragePopularity(config)
    per_user = popularity.metric_info(popularity.get_pop(matrix, counts))
    tail = TailPercentage(config | {"tail_ratio": 0.1})  # RecBole's default; ties by internal id
    tail_share = tail.metric_info(tail.get_tail(matrix, counts))
    for k in BEYOND_CUTOFFS:
        values[f"recbole:averagepopularity@{k}"] = dict.fromkeys(ranked) | dict(
            zip(users, per_user[:, k - 1].tolist(), strict=True)
        )
        values[f"recbole:tailpercentage@{k}"] = dict.fromkeys(ranked) | dict(
            zip(users, tail_share[:, k - 1].tolist(), strict=True)
        )
        summaries[f"recbole:itemcoverage@{k}"] = float(
            ItemCoverage(config).get_coverage(matrix[:, :k], num_items)
        )
        summaries[f"recbole:giniindex@{k}"] = float(GiniIndex(config).get_gini(matrix[:, :k], num_items))
        summaries[f"recbole:shannonentropy@{k}"] = float(ShannonEntropy(config).get_entropy(matrix[:, :k]))


def _value_based(test, ranked, rel, summaries) -> None:
    """RecBole's AUC, MAE, RMSE and LogLoss ``metric_info(preds, trues)`` on the pairs of the docstring."""
    config = {"metric_decimal_place": 4}
    scored = [(s, i in rel[u]) for u in ranked for i, s in ranked[u]]
    preds = np.array([s for s, _ in scored], dtype=np.float32)
    trues = np.array([float(t) for _, t in scored])
    missing = sum(1 for u in ranked for i in rel[u] if i not in {j for j, _ in ranked[u]})
    below = np.full(missing, preds.min() - 1, dtype=np.float32)
    summaries["recbole:auc"] = float(
        AUC(config).metric_info(np.r_[preds, below], np.r_[trues, np.ones(missing)])
    )
    summaries["recbole:logloss"] = float(LogLoss(config).metric_info(preds, trues))
    predicted = {(u, i): p for u, i, p in predictions()}
    pairs = [(predicted[u, i], r) for u, rated in test.items() for i, r in rated.items()]
    p, r = np.array([a for a, _ in pairs]), np.array([b for _, b in pairs], dtype=float)
    summaries["recbole:mae"] = float(MAE(config).metric_info(p, r))
    summaries["recbole:rmse"] = float(RMSE(config).metric_info(p, r))


if __name__ == "__main__":
    main()
