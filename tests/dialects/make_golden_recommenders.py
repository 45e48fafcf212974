"""Golden values of the ``recommenders:`` dialect: Microsoft Recommenders' own ``python_evaluation`` functions on
the fixture's lists with tied scores (:func:`fixture.tied`).

Needs Microsoft Recommenders (``pip install --no-deps recommenders==1.2.1`` with ``pandas<3``, numpy, scipy and
scikit-learn: ``python_evaluation`` imports nothing else; not in trecrs's test extra). Run from the
repository root: ``python tests/dialects/make_golden_recommenders.py``; writes
tests/data/dialects/recommenders.json. The functions take pandas frames: ``rating_true`` = the items rated
>= LEVEL with their rating (the library has no relevance threshold; ``score_type="raw"``/``"exp"`` take the
rating as the gain), ``rating_pred`` = the run with its scores, rows in trec_eval's order (score descending,
item id descending: the library numbers tied scores in row order), ``relevancy_method="top_k"``; the
beyond-accuracy functions take ``train_df`` = the fixture's training items and ``reco_df`` = the top k of
every list (``diversity`` and ``serendipity`` per user from ``user_diversity`` and ``user_serendipity``). Per-user values come from one call per user (both frames restricted to the user; null for a
user without relevant items, whom the library's all-users call leaves out as absent from ``rating_true``);
``r_precision_at_k`` of a user without a hit in the first min(k, |R|) places is stored as null, since the
all-users call leaves that user out of its mean. The summaries are the all-users calls' values.

``--ml100k QRELS RUN TRAIN LEVEL OUT`` computes the same on a TREC qrels and run (relevant = rating >=
LEVEL) and writes the per-user values and the all-users values to OUT, for a comparison by hand.
"""

from __future__ import annotations

import json
import math
import sys

import pandas as pd
import recommenders
from fixture import CUTOFFS, LEVEL, fixture, read_trec, tied, training, write_golden
from recommenders.evaluation import python_evaluation as pe

RANKING = {
    "precision_at_k": lambda t, p, k: pe.precision_at_k(t, p, k=k),
    "recall_at_k": lambda t, p, k: pe.recall_at_k(t, p, k=k),
    "r_precision_at_k": lambda t, p, k: pe.r_precision_at_k(t, p, k=k),
    "ndcg_at_k": lambda t, p, k: pe.ndcg_at_k(t, p, k=k),
    "ndcg_at_k(score_type=raw)": lambda t, p, k: pe.ndcg_at_k(t, p, k=k, score_type="raw"),
    "ndcg_at_k(score_type=exp)": lambda t, p, k: pe.ndcg_at_k(t, p, k=k, score_type="exp"),
    "map": lambda t, p, k: pe.map(t, p, k=k),
    "map_at_k": lambda t, p, k: pe.map_at_k(t, p, k=k),
}
BEYOND = {
    "catalog_coverage": pe.catalog_coverage,
    "distributional_coverage": pe.distributional_coverage,
    "novelty": pe.novelty,
}
# the co-occurrence similarity (the default item_sim_measure), no col_relevance: per user and over users
PER_USER_BEYOND = {
    "diversity": (pe.diversity, pe.user_diversity, "user_diversity"),
    "serendipity": (pe.serendipity, pe.user_serendipity, "user_serendipity"),
}


def compute(test, ranked, train, level):
    """``(values, summaries)``: per-user values of the ranking names, the all-users value of every name."""
    u, i, r, p = "userID", "itemID", "rating", "prediction"
    true = pd.DataFrame([(a, b, c) for a, rated in test.items() for b, c in rated.items() if c >= level],
                        columns=[u, i, r])  # fmt: skip
    pred = pd.DataFrame([(a, b, s) for a, lst in ranked.items() for b, s in lst], columns=[u, i, p])
    train_df = pd.DataFrame([(a, b) for a, items in train.items() for b in items], columns=[u, i])
    users = set(true[u])
    values: dict[str, dict[str, float | None]] = {}
    summaries: dict[str, float] = {}
    for name, fn in RANKING.items():
        for k in CUTOFFS:
            spec = f"recommenders:{name}@{k}"
            values[spec] = {}
            for a in ranked:
                got = fn(true[true[u] == a], pred[pred[u] == a], k) if a in users else None
                left_out = got is not None and name == "r_precision_at_k" and (math.isnan(got) or got == 0)
                values[spec][a] = None if got is None or left_out else float(got)
            summaries[spec] = float(fn(true, pred, k))
    for name, fn in BEYOND.items():
        for k in CUTOFFS:
            reco = pred.groupby(u, sort=False).head(k)[[u, i]].reset_index(drop=True)
            summaries[f"recommenders:{name}@{k}"] = float(fn(train_df, reco))
    for name, (fn, per_user, column) in PER_USER_BEYOND.items():
        for k in CUTOFFS:
            reco = pred.groupby(u, sort=False).head(k)[[u, i]].reset_index(drop=True)
            got = per_user(train_df, reco).set_index(u)[column].to_dict()
            values[f"recommenders:{name}@{k}"] = {a: (float(got[a]) if a in got else None) for a in ranked}
            mean = float(fn(train_df, reco))  # NaN at k = 1 for diversity: no list has a pair
            if not math.isnan(mean):
                summaries[f"recommenders:{name}@{k}"] = mean
    return values, summaries


def main() -> None:
    if sys.argv[1:2] == ["--ml100k"]:
        qrels, run, train, level, out = sys.argv[2:7]
        values, summaries = compute(*read_trec(qrels, run, train), int(level))
        with open(out, "w") as f:
            json.dump({"values": values, "summaries": summaries}, f)
        return
    test, _ = fixture()
    values, summaries = compute(test, tied(), training(), LEVEL)
    print(write_golden("recommenders", recommenders.__version__, values, summaries, ranked=tied()))


if __name__ == "__main__":
    main()
