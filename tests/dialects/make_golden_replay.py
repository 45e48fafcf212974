"""Golden values of the ``replay:`` dialect: RePlay's own metric classes on the synthetic fixture.

Needs RePlay without Spark (``pip install replay-rec==0.22.0``; not in trecrs's test extra). Run from the
repository root: ``python tests/dialects/make_golden_replay.py``; writes tests/data/dialects/replay.json.
Each metric is called as a RePlay user calls it, on pandas frames (``query_id, item_id, rating``): the
recommendations are the fixture's ranked lists, the ground truth the items rated >= LEVEL, the training
data :func:`fixture.training_seen` (recommended items some users rated before, four items nobody rated),
and CategoricalDiversity's recommendations carry each item's category of :func:`fixture.categories`.
``mode=PerUser()`` gives the per-user values; RePlay evaluates the ground-truth users (users without a
relevant item are stored as null), Novelty the training users, Surprisal and CategoricalDiversity every
user with recommendations. Coverage has only a global value. Three more users show which users each name
averages over: :data:`RECS_ONLY` has recommendations and no training data or ground truth, :data:`TRAIN_ONLY`
training data only, :data:`TRUTH_ONLY` ground truth only (no recommendations: RePlay scores it 0). The polars path of every metric is checked
to give the same values.
"""

from __future__ import annotations

import math

import pandas as pd
import polars as pl
import replay
from fixture import CUTOFFS, categories, fixture, relevant, training_seen, write_golden
from replay.metrics import (
    MAP,
    MRR,
    NDCG,
    CategoricalDiversity,
    Coverage,
    HitRate,
    Novelty,
    PerUser,
    Precision,
    Recall,
    RocAuc,
    Surprisal,
)

RECS_ONLY = {"u21": [("i01", 900.0), ("i47", 800.0), ("i02", 700.0)]}  # i47: an item nobody rated
TRAIN_ONLY = {"u22": ["i01", "i03", "i05"]}
TRUTH_ONLY = {"u23": {"i02": 5, "i04": 1}}
ACCURACY = (HitRate, MAP, MRR, NDCG, Precision, Recall, RocAuc)  # called with the ground truth
WITH_TRAIN = (Novelty, Surprisal)  # called with the training data


def main() -> None:
    test, ranked = fixture()
    test = {**test, **TRUTH_ONLY}
    cats = categories()
    ranked = {**ranked, **RECS_ONLY}
    trained = {**training_seen(), **TRAIN_ONLY}
    recs = pd.DataFrame([(u, i, s) for u, lst in ranked.items() for i, s in lst],
                        columns=["query_id", "item_id", "rating"])  # fmt: skip
    truth = pd.DataFrame(
        [(u, i) for u, items in relevant(test).items() for i in items], columns=["query_id", "item_id"]
    )
    train = pd.DataFrame(
        [(u, i) for u, items in trained.items() for i in items], columns=["query_id", "item_id"]
    )
    by_category = recs.assign(category_id=recs["item_id"].map(cats)).drop(columns="item_id")
    calls = [(m, (recs, truth)) for m in ACCURACY] + [(m, (recs, train)) for m in WITH_TRAIN]
    calls.append((CategoricalDiversity, (by_category,)))
    values: dict[str, dict[str, float | None]] = {}
    for metric, args in calls:
        per_user = _checked(metric(list(CUTOFFS), mode=PerUser()), args)
        for k in CUTOFFS:
            got = per_user[f"{metric.__name__}-PerUser@{k}"]
            values[f"replay:{metric.__name__}@{k}"] = {
                u: (float(got[u]) if u in got else None) for u in [*ranked, *TRAIN_ONLY, *TRUTH_ONLY]
            }
    coverage = _checked(Coverage(list(CUTOFFS)), (recs, train))
    summaries = {f"replay:Coverage@{k}": float(coverage[f"Coverage@{k}"]) for k in CUTOFFS}
    print(
        write_golden(
            "RePlay",
            replay.__version__,
            values,
            summaries,
            train=trained,
            item_categories=cats,
            more_run=RECS_ONLY,
            more_qrels=TRUTH_ONLY,
        )
    )


def _checked(metric, args: tuple) -> dict:
    """``metric(*args)`` on the pandas frames, after checking that the polars path gives the same values."""
    got = metric(*args)
    other = metric(*(pl.from_pandas(a) for a in args))
    for name, value in got.items():
        pairs = (
            [(v, other[name][u]) for u, v in value.items()]
            if isinstance(value, dict)
            else [(value, other[name])]
        )
        assert all(math.isclose(a, b, abs_tol=1e-12) for a, b in pairs), (name, value, other[name])
    return got


if __name__ == "__main__":
    main()
