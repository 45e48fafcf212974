"""Golden values of the ``rs_metrics:`` dialect: rs_metrics' own functions on the synthetic fixture.

Needs rs_metrics (``pip install rs_metrics==0.6.0``; not in trecrs's test extra). Run from the repository
root: ``python tests/dialects/make_golden_rs_metrics.py``; writes tests/data/dialects/rs_metrics.json.
rs_metrics takes dicts (or frames it turns into dicts): ``true`` (user -> the test items: here the items
rated >= LEVEL, rs_metrics having no relevance threshold, so a user without a relevant item is not a key)
and ``pred`` (user -> the list in the order given: here best first, rs_metrics never sorting by score).
``apply_mean=False`` gives the accuracy functions' per-user values, in the order of ``true``;
``popularity`` and ``surprisal`` (on :func:`fixture.training_seen`: recommended items no training user
rated) return only a mean over the users of ``pred``, so each user's value is
the function called on that user's list alone; ``coverage`` is one number (a summary), over the 50 items.

``--ml100k RUN QRELS TRAIN OUT`` writes rs_metrics' values at k = 20 on a real run instead (relevant =
rel >= 1; tests/dialects/ml100k.py compares them with trecrs).
"""

from __future__ import annotations

import sys

import pandas as pd
from fixture import CUTOFFS, fixture, relevant, training_seen, write_golden
from ml100k import read as ml100k_read
from ml100k import write as ml100k_write
from rs_metrics.metrics import coverage, hitrate, mapr, mrr, ndcg, popularity, precision, recall, surprisal

VERSION = "0.6.0"  # rs_metrics has no __version__
ACCURACY = {"ndcg": ndcg, "hitrate": hitrate, "precision": precision, "recall": recall, "mrr": mrr,
            "mapr": mapr}  # fmt: skip
TRAINED = {"popularity": popularity, "surprisal": surprisal}


def per_user(true: dict, pred: dict, log: pd.DataFrame, k: int) -> dict[str, dict[str, float | None]]:
    """Every per-user name at cutoff ``k``: ``{spec: {user: value}}`` (None: rs_metrics gives no value)."""
    values: dict[str, dict[str, float | None]] = {}
    for name, fn in ACCURACY.items():
        got = dict(zip(true, fn(true, pred, k=k, apply_mean=False), strict=True))
        values[f"rs_metrics:{name}@{k}"] = {u: (float(got[u]) if u in got else None) for u in pred}
    for name, fn in TRAINED.items():
        values[f"rs_metrics:{name}@{k}"] = {u: float(fn(log, {u: lst}, k=k)) for u, lst in pred.items()}
    return values


def main() -> None:
    test, ranked = fixture()
    true = {u: items for u, items in relevant(test).items() if items}
    pred = {u: [i for i, _ in lst] for u, lst in ranked.items()}
    log = pd.DataFrame(
        [(u, i) for u, items in training_seen().items() for i in items], columns=["user_id", "item_id"]
    )
    items = [f"i{j:02d}" for j in range(1, 51)]
    values: dict[str, dict[str, float | None]] = {}
    summaries: dict[str, float] = {}
    for k in CUTOFFS:
        values.update(per_user(true, pred, log, k))
        summaries[f"rs_metrics:coverage@{k}"] = float(coverage(items, pred, k=k))
    order = [*ACCURACY, *TRAINED]
    values = {
        n: values[n]
        for n in sorted(values, key=lambda s: (order.index(s[11:].split("@")[0]), int(s.split("@")[1])))
    }
    print(write_golden("rs_metrics", VERSION, values, summaries=summaries, train=training_seen()))


def ml100k(run_file: str, qrels_file: str, train_file: str, out: str, k: int = 20) -> None:
    """rs_metrics' values of every name at ``k`` on a real run, relevant = rel >= 1 (for ml100k.py)."""
    true, pred, _, train = ml100k_read(run_file, qrels_file, train_file, 1)
    log = pd.DataFrame(train, columns=["user_id", "item_id"])
    items = sorted({i for _, i in train} | {i for lst in pred.values() for i in lst})
    summaries = {f"rs_metrics:coverage@{k}": float(coverage(items, pred, k=k))}
    ml100k_write(
        out,
        f"rs_metrics {VERSION}",
        [run_file, qrels_file, train_file],
        1,
        per_user(true, pred, log, k),
        summaries,
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--ml100k"]:
        ml100k(*sys.argv[2:6])
    else:
        main()
