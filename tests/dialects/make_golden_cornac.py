"""Golden values of the ``cornac:`` dialect: Cornac's own evaluation (``BaseMethod.evaluate``) on the fixture.

Needs Cornac (``pip install cornac==3.0.1``; not in trecrs's test extra). Run from the repository root:
``python tests/dialects/make_golden_cornac.py``; writes tests/data/dialects/cornac.json.

Cornac's ``ranking_eval`` (cornac/eval_methods/base_method.py) asks the model to rank every candidate of
a user: every item of the training data except the user's training positives (rating >= the
``rating_threshold``), the user's test positives always included; it skips users without a test positive.
The model here is the fixture's run: each listed item scores its run score, and the candidates the run
does not list score below it, the non-relevant ones first (distinct scores), so the full ranking Cornac
evaluates is the run followed by its unlisted candidates in the worst order — the ranking trecrs's
``cornac:`` names assume. Data: the fixture's training ratings (all 1, so with ``rating_threshold`` =
LEVEL = 3 no training item is a positive and every one of the 50 items is a candidate) and test ratings,
``BaseMethod.from_splits(..., rating_threshold=LEVEL, exclude_unknowns=True)``.

``MRR`` is evaluated in a call of its own: ``Recommender.rank`` sorts only the top max(k) of the metrics
evaluated together (``np.argpartition``), and ``MRR`` (k = −1) reads the whole list, partly unsorted when
it shares the call with ``@k`` metrics (numpy sorts an array of a few hundred items completely, so the
fixture does not show it; :func:`trap` prints it on 1000 items).
"""

from __future__ import annotations

import cornac
import numpy as np
from cornac.eval_methods import BaseMethod
from cornac.metrics import AUC, MAP, MRR, NCRR, NDCG, FMeasure, HitRatio, Precision, Recall
from cornac.models import Recommender
from fixture import CUTOFFS, LEVEL, fixture, relevant, training, write_golden

AT_K = {"NDCG": NDCG, "NCRR": NCRR, "Precision": Precision, "Recall": Recall, "FMeasure": FMeasure,
        "F1": FMeasure, "HitRatio": HitRatio}  # fmt: skip
WHOLE = {"AUC": AUC, "MAP": MAP}


class RunModel(Recommender):
    """Scores a run: listed items their run score; with s = the user's lowest run score − 1, the unlisted
    non-relevant items s − 0.001·j and the unlisted relevant ones s − 1000 − j (j = the item's index)."""

    def __init__(self, ranked, rel):
        super().__init__(name="run", trainable=False)
        self.ranked, self.rel = ranked, rel

    def score(self, user_idx, item_idx=None):
        user = next(u for u, i in self.uid_map.items() if i == user_idx)
        listed = dict(self.ranked[user])
        low = min(listed.values(), default=0.0) - 1.0
        scores = np.empty(self.total_items)
        for j, (item, idx) in enumerate(self.iid_map.items()):
            fallback = low - 1000.0 - j if item in self.rel[user] else low - 0.001 * j
            scores[idx] = listed.get(item, fallback)
        return scores if item_idx is None else scores[item_idx]


class Scores(Recommender):
    """One user's fixed scores over ``len(scores)`` items."""

    def __init__(self, scores):
        super().__init__(name="scores", trainable=False)
        self.scores, self.num_items = scores, len(scores)

    def score(self, user_idx, item_idx=None):
        return self.scores if item_idx is None else self.scores[item_idx]


def trap(n: int = 1000, first: int = 300) -> None:
    """Prints Cornac's ``MRR`` of one user whose only relevant item is at rank ``first`` of ``n`` distinct
    scores, the list ranked as ``ranking_eval`` ranks it alone (k = −1) and with an ``@10`` metric (k = 10).
    numpy sorts short arrays completely in ``argpartition``: the 50-item fixture does not show the trap."""
    scores = np.random.default_rng(1).permutation(n).astype(float)
    relevant = np.argsort(-scores)[first - 1 : first]
    for k in (-1, 10):
        pd_rank, _ = Scores(scores).rank(0, item_indices=np.arange(n), k=k)
        print(
            f"MRR, rank {first} of {n}, max(k) = {k}: {MRR().compute(gt_pos=relevant, pd_rank=pd_rank):.6f}"
        )


def example() -> None:
    """Prints Cornac's values for the worked example of docs/measures.md (tests/measures/test_recsys_cornac.py):
    u's training positive g is not a candidate, h (rated 1) is."""
    train = [("u", "g", 5.0), ("u", "h", 1.0)] + [("v", i, 1.0) for i in "abcdefh"]
    test = [("u", "a", 4.0), ("u", "b", 5.0), ("u", "c", 1.0)]
    method = BaseMethod.from_splits(train, test, rating_threshold=3, exclude_unknowns=True, seed=1)
    model = RunModel({"u": [("d", 3.0), ("a", 2.0), ("e", 1.0)]}, {"u": {"a", "b"}})
    print(
        "worked example:",
        evaluate(method, model, [AUC(), MAP(), NCRR(k=3)]) | evaluate(method, model, [MRR()]),
    )


def evaluate(method, model, metrics) -> dict[str, dict[str, float]]:
    """Cornac's per-user values, {metric name: {user: value}}."""
    result, _ = method.evaluate(model, metrics, user_based=True)
    users = {i: u for u, i in method.test_set.uid_map.items()}
    return {
        name: {users[i]: float(v) for i, v in per_user.items()}
        for name, per_user in result.metric_user_results.items()
    }


def main() -> None:
    test, ranked = fixture()
    train = [(u, i, 1.0) for u, items in training().items() for i in items]
    test_data = [(u, i, float(r)) for u, rated in test.items() for i, r in rated.items()]
    method = BaseMethod.from_splits(train, test_data, rating_threshold=LEVEL, exclude_unknowns=True, seed=1)
    model = RunModel(ranked, {u: set(items) for u, items in relevant(test).items()})
    at_k = [cls(k=k) for cls in dict.fromkeys(AT_K.values()) for k in CUTOFFS]
    got = evaluate(method, model, at_k + [cls() for cls in WHOLE.values()])
    got |= evaluate(method, model, [MRR()])  # a call of its own: the whole ranking sorted
    trap()
    example()

    def column(cornac_name: str) -> dict[str, float | None]:
        return {u: got[cornac_name].get(u) for u in ranked}

    values: dict[str, dict[str, float | None]] = {}
    for name, cls in AT_K.items():
        for k in CUTOFFS:
            values[f"cornac:{name}@{k}"] = column(cls(k=k).name)  # FMeasure's name is F1@k
    for name in (*WHOLE, "MRR"):
        values[f"cornac:{name}"] = column(name)
    print(write_golden("Cornac", cornac.__version__, values))


if __name__ == "__main__":
    main()
