"""Golden values of the ``rectools:`` dialect: RecTools' own metric classes on the synthetic fixture.

Needs RecTools (``pip install rectools==0.19.0``; not in trecrs's test extra). Run from the repository
root: ``python tests/dialects/make_golden_rectools.py``; writes tests/data/dialects/rectools.json.
RecTools takes frames: ``reco`` (user_id, item_id, rank: here each list's position, 1 = best, the fixture's
scores being distinct), ``interactions`` (the test items: here the items rated >= LEVEL, RecTools having
no relevance threshold), ``prev_interactions`` (the fixture's training ratings), ``catalog`` (the 50
items) and, for ``IntraListDiversity``, a ``PairwiseHammingDistanceCalculator`` over the item features
(one binary column per category of :func:`fixture.item_categories`). ``calc_per_user`` gives every
value: the accuracy names see the users of ``interactions`` (a user without a relevant item is stored as
null), the beyond-accuracy names and ``Serendipity`` the users of ``reco``. Parameterised spellings
(``MAP(divide_by_k=True)``) are the class built with that argument.
"""

from __future__ import annotations

import pandas as pd
import rectools
from fixture import CUTOFFS, fixture, item_categories, relevant, training, write_golden
from rectools import Columns
from rectools.metrics import (
    MAP,
    MRR,
    NDCG,
    PAP,
    AvgRecPopularity,
    F1Beta,
    HitRate,
    IntraListDiversity,
    MeanInvUserFreq,
    PairwiseHammingDistanceCalculator,
    PartialAUC,
    Precision,
    Recall,
    Serendipity,
)

ACCURACY = {
    "Precision": lambda k: Precision(k),
    "Precision(r_precision=True)": lambda k: Precision(k, r_precision=True),
    "Recall": lambda k: Recall(k),
    "F1Beta": lambda k: F1Beta(k),
    "F1Beta(beta=2)": lambda k: F1Beta(k, beta=2.0),
    "HitRate": lambda k: HitRate(k),
    "MRR": lambda k: MRR(k),
    "MAP": lambda k: MAP(k),
    "MAP(divide_by_k=True)": lambda k: MAP(k, divide_by_k=True),
    "NDCG": lambda k: NDCG(k),
    "NDCG(divide_by_achievable=True)": lambda k: NDCG(k, divide_by_achievable=True),
    "PartialAUC": lambda k: PartialAUC(k),
    "PAP": lambda k: PAP(k),
}
TRAINED = {
    "MeanInvUserFreq": lambda k: MeanInvUserFreq(k),
    "AvgRecPopularity": lambda k: AvgRecPopularity(k),
    "AvgRecPopularity(normalize=True)": lambda k: AvgRecPopularity(k, normalize=True),
}


def frames():
    """``reco``, ``interactions``, ``prev_interactions``, ``catalog``, the Hamming distance calculator."""
    test, ranked = fixture()
    rel = relevant(test)
    reco = pd.DataFrame([(u, i, n + 1) for u, lst in ranked.items() for n, (i, _) in enumerate(lst)],
                        columns=[Columns.User, Columns.Item, Columns.Rank])  # fmt: skip
    interactions = pd.DataFrame([(u, i) for u, items in rel.items() for i in items], columns=Columns.UserItem)
    prev = pd.DataFrame([(u, i) for u, items in training().items() for i in items], columns=Columns.UserItem)
    cats = item_categories()
    names = sorted({c for cs in cats.values() for c in cs})
    features = pd.DataFrame(
        [[int(c in cats[i]) for c in names] for i in cats], index=list(cats), columns=names
    )
    return ranked, reco, interactions, prev, list(cats), PairwiseHammingDistanceCalculator(features)


def main() -> None:
    ranked, reco, interactions, prev, catalog, hamming = frames()
    values: dict[str, dict[str, float | None]] = {}

    def store(name: str, k: int, series: pd.Series) -> None:
        got = {u: float(v) for u, v in series.items() if not pd.isna(v)}
        values[f"rectools:{name}@{k}"] = {u: got.get(u) for u in ranked}

    for k in CUTOFFS:
        for name, make in ACCURACY.items():
            store(name, k, make(k).calc_per_user(reco, interactions))
        for name, make in TRAINED.items():
            store(name, k, make(k).calc_per_user(reco, prev))
        store("Serendipity", k, Serendipity(k).calc_per_user(reco, interactions, prev, catalog))
        store("IntraListDiversity", k, IntraListDiversity(k, hamming).calc_per_user(reco))
    values = {name: values[name] for name in sorted(values, key=_order)}
    print(write_golden("RecTools", rectools.__version__, values, item_features=item_categories()))


def _order(spec: str) -> tuple[int, int]:
    name, k = spec.split(":")[1].split("@")
    names = [*ACCURACY, *TRAINED, "Serendipity", "IntraListDiversity"]
    return names.index(name), int(k)


if __name__ == "__main__":
    main()
