"""Golden values of the ``lenskit:`` dialect: LensKit's own ranking metrics on the synthetic fixture.

Needs LensKit (``pip install "torch==2.13.0+cpu" lenskit==2025.8.1``; not in trecrs's test extra: torch).
Run from the repository root: ``python tests/dialects/make_golden_lenskit.py``; writes
tests/data/dialects/lenskit.json. Each user's list is passed as an ordered ItemList (LensKit keeps the
order given), the test list is the user's items rated >= LEVEL; a NaN (no test item) and LensKit's
ZeroDivisionError in AveragePrecision (no test item) are stored as null.
"""

from __future__ import annotations

import math
import warnings

import lenskit
from fixture import CUTOFFS, fixture, relevant, write_golden
from lenskit.data import ItemList
from lenskit.metrics import DCG, NDCG, RBP, Hit, Precision, Recall, RecipRank
from lenskit.metrics.ranking import AveragePrecision

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
                u: value(metric, ItemList(item_ids=[i for i, _ in ranked[u]], ordered=True), ItemList(item_ids=rel[u]))
                for u in ranked
            }
    print(write_golden("LensKit", lenskit.__version__, values))


if __name__ == "__main__":
    main()
