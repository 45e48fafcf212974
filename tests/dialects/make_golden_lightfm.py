"""Golden values of the ``lightfm:`` dialect: LightFM's own ``lightfm.evaluation`` functions on the fixture's lists
with tied scores (:func:`fixture.tied`).

Needs LightFM (``pip install cython numpy setuptools`` then ``pip install --no-build-isolation lightfm==1.17``;
not in trecrs's test extra). Run from the repository root: ``python tests/dialects/make_golden_lightfm.py``;
writes tests/data/dialects/lightfm.json. LightFM scores every (user, item) pair with its model: here a
``LightFM`` whose prediction is the run read as a score matrix (n = every item of the data as components,
the identity as item embeddings, a user's row of scores as its embedding, zero biases): a listed item's
score, every other item one float32 step below the user's lowest listed score. The test matrix holds each
user's items rated >= LEVEL (LightFM has no relevance threshold); no ``train_interactions`` (the default).
``precision_at_k``, ``recall_at_k``, ``reciprocal_rank`` and ``auc_score`` give one value per user
(``preserve_rows=True``, users without test items stored as null, as ``preserve_rows=False`` drops them).
LightFM computes in float32: the values hold to 1e-6.

``--ml100k QRELS RUN TRAIN LEVEL OUT`` computes the same on a TREC qrels and run (relevant = rating >=
LEVEL) and writes the per-user values to OUT, for a comparison by hand.
"""

from __future__ import annotations

import json
import sys

import lightfm
import numpy as np
from fixture import CUTOFFS, LEVEL, fixture, read_trec, tied, training, write_golden
from lightfm import LightFM
from lightfm.evaluation import auc_score, precision_at_k, recall_at_k, reciprocal_rank
from scipy.sparse import csr_matrix

AT_K = {"precision_at_k": precision_at_k, "recall_at_k": recall_at_k}
WHOLE = {"reciprocal_rank": reciprocal_rank, "auc_score": auc_score}


def score_model(ranked, users, items) -> LightFM:
    """A LightFM model predicting the lists' scores (float32), every unlisted item just below the list."""
    uix, iix = {u: n for n, u in enumerate(users)}, {i: n for n, i in enumerate(items)}
    scores = np.zeros((len(users), len(items)), dtype=np.float32)
    for u, lst in ranked.items():
        listed = np.array([s for _, s in lst], dtype=np.float32)
        scores[uix[u], :] = np.nextafter(listed.min(), np.float32(-np.inf))
        scores[uix[u], [iix[i] for i, _ in lst]] = listed
    model = LightFM(no_components=len(items))
    model._initialize(len(items), len(items), len(users))
    model.item_embeddings[:] = np.eye(len(items), dtype=np.float32)
    model.user_embeddings[:] = scores
    model.item_biases[:] = 0.0
    model.user_biases[:] = 0.0
    return model


def compute(test, ranked, train, level):
    """LightFM's per-user values of every name (at every cutoff for precision and recall)."""
    rel = {u: [i for i, r in rated.items() if r >= level] for u, rated in test.items()}
    users = sorted(set(test) | set(ranked))
    items = sorted({i for r in test.values() for i in r} | {i for lst in ranked.values() for i, _ in lst}
                   | {i for lst in train.values() for i in lst})  # fmt: skip
    uix, iix = {u: n for n, u in enumerate(users)}, {i: n for n, i in enumerate(items)}
    model = score_model(ranked, users, items)
    pairs = [(uix[u], iix[i]) for u in ranked for i in rel.get(u, [])]
    rows, cols = zip(*pairs, strict=True)
    interactions = csr_matrix(
        (np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(users), len(items))
    )

    def per_user(array):
        return {u: (float(array[uix[u]]) if rel.get(u) else None) for u in ranked}

    values: dict[str, dict[str, float | None]] = {}
    for name, fn in AT_K.items():
        for k in CUTOFFS:
            values[f"lightfm:{name}@{k}"] = per_user(fn(model, interactions, k=k, preserve_rows=True))
    for name, fn in WHOLE.items():
        values[f"lightfm:{name}"] = per_user(fn(model, interactions, preserve_rows=True))
    return values


def main() -> None:
    if sys.argv[1:2] == ["--ml100k"]:
        qrels, run, train, level, out = sys.argv[2:7]
        with open(out, "w") as f:
            json.dump(compute(*read_trec(qrels, run, train), int(level)), f)
        return
    test, _ = fixture()
    values = compute(test, tied(), training(), LEVEL)
    print(write_golden("LightFM", lightfm.__version__, values, ranked=tied(), tolerance=1e-6))


if __name__ == "__main__":
    main()
