"""Golden values of the ``lenskit:`` dialect: LensKit's own ranking metrics on the synthetic fixture.

Needs LensKit (``pip install "torch==2.13.0+cpu" lenskit==2025.8.1``; not in trecrs's test extra: torch).
Run from the repository root: ``python tests/dialects/make_golden_lenskit.py``; writes
tests/data/dialects/lenskit.json. Each user's list is passed as an ordered ItemList (LensKit keeps the
order given), the test list is the user's items rated >= LEVEL; a NaN (no test item) and LensKit's
ZeroDivisionError in AveragePrecision (no test item) are stored as null. ``MeanPopRank`` and ``ListGini``
see a LensKit dataset of the fixture's training ratings (all 50 items); ``ListGini`` has only a global
value (``compute_list_data`` per list, then ``global_aggregate``).
"""

from __future__ import annotations

import math
import warnings

import lenskit
import pandas as pd
from fixture import CUTOFFS, fixture, relevant, training, write_golden
from lenskit.data import ItemList, from_interactions_df
from lenskit.metrics import DCG, NDCG, RBP, Hit, Precision, Recall, RecipRank
from lenskit.metrics.ranking import AveragePrecision, ListGini, MeanPopRank

METRICS = {"Precision": Precision, "Recall": Recall, "RecipRank": RecipRank, "Hit": Hit, "NDCG": NDCG,
           "DCG": DCG, "RBP": RBP, "AveragePrecision": AveragePrecision}  # fmt: skip


def value(metric, recs: ItemList, test: ItemList) -> float | None:
    try:
        v = float(metric.measure_list(recs, test))
    except ZeroDivisionError:  # AveragePrecision with an empty test list
        return None
    return None if math.isnan(v) else v


def main() -> None:
    warnings.simplefilter("ignore")  # NaN on an empty test list is expected here
    test, ranked = fixture()
    rel = relevant(test)
    values: dict[str, dict[str, float | None]] = {}
    for name, cls in METRICS.items():
        for k in CUTOFFS:
            metric = cls(n=k)
            values[f"lenskit:{name}@{k}"] = {
                u: value(
                    metric,
                    ItemList(item_ids=[i for i, _ in ranked[u]], ordered=True),
                    ItemList(item_ids=rel[u]),
                )
                for u in ranked
            }
    train = pd.DataFrame(
        [(u, i) for u, items in training().items() for i in items], columns=["user_id", "item_id"]
    )
    data = from_interactions_df(train)
    summaries: dict[str, float] = {}
    for k in CUTOFFS:
        pop = MeanPopRank(data, n=k)
        lists = {u: ItemList(item_ids=[i for i, _ in ranked[u]], ordered=True) for u in ranked}
        values[f"lenskit:MeanPopRank@{k}"] = {
            u: value(pop, lists[u], ItemList(item_ids=rel[u])) for u in ranked
        }
        gini = ListGini(n=k, items=data.item_count)
        summaries[f"lenskit:ListGini@{k}"] = float(
            gini.global_aggregate(
                [gini.compute_list_data(lists[u], ItemList(item_ids=rel[u])) for u in ranked]
            )
        )
    print(write_golden("LensKit", lenskit.__version__, values, summaries))


if __name__ == "__main__":
    main()
