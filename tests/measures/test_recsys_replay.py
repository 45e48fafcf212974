"""The ``replay:`` names on RePlay 0.22.0's own docstring example, and the measures they introduced
(``auc_cut``, ``train_coverage``, ``unseen_share``, ``surprisal``, ``category_diversity``) on hand-made cases.

RePlay's example (``replay/metrics/*.py`` docstrings; items 1-11 here ``i1``..``i11``): recommendations
u1: 3 7 10 11 2, u2: 5 8 11 1 3, u3: 4 9 2 (scores descending); ground truth u1: 5 6 7 8 9 10,
u2: 6 7 4 10 11, u3: 1 2 3 4 5; training u1: 5 6 8 9 2, u2: 5 8 11 1 3, u3: 4 9 2; CategoricalDiversity's
categories are the item numbers. The expected values are those the docstrings print (``mode=PerUser()``).
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from trecrs import evaluate

RECS = {"u1": [3, 7, 10, 11, 2], "u2": [5, 8, 11, 1, 3], "u3": [4, 9, 2]}
TRUTH = {"u1": [5, 6, 7, 8, 9, 10], "u2": [6, 7, 4, 10, 11], "u3": [1, 2, 3, 4, 5]}
HISTORY = {"u1": [5, 6, 8, 9, 2], "u2": [5, 8, 11, 1, 3], "u3": [4, 9, 2]}
# per user at k = 2, as RePlay's docstrings print them
DOCUMENTED = {
    "HitRate@2": (1.0, 0.0, 1.0),
    "MAP@2": (0.25, 0.0, 0.5),
    "MRR@2": (0.5, 0.0, 1.0),
    "NDCG@2": (0.38685280723454163, 0.0, 0.6131471927654584),
    "Precision@2": (0.5, 0.0, 0.5),
    "Recall@2": (1 / 6, 0.0, 0.2),
    "RocAuc@2": (0.0, 0.0, 1.0),
    "Novelty@2": (1.0, 0.0, 0.0),
    "Surprisal@2": (1.0, 0.3690702464285426, 0.6845351232142713),
    "CategoricalDiversity@3": (1.0, 1.0, 1.0),
    "CategoricalDiversity@5": (1.0, 1.0, 0.6),
}


def _frames(recs, truth, train):
    scored = [(u, f"i{i}", float(len(items) - n)) for u, items in recs.items() for n, i in enumerate(items)]
    run = pl.DataFrame(scored, schema=["query", "doc", "score"], orient="row")
    qrels = pl.DataFrame([(u, f"i{i}", 1) for u, items in truth.items() for i in items],
                         schema=["query", "doc", "rel"], orient="row")  # fmt: skip
    ratings = pl.DataFrame([(u, f"i{i}", 1.0) for u, items in train.items() for i in items],
                           schema=["user", "item", "rating"], orient="row")  # fmt: skip
    return qrels, run, ratings


def test_the_names_give_replays_documented_values():
    qrels, run, train = _frames(RECS, TRUTH, HISTORY)
    features = {f"i{i}": [f"c{i}"] for i in range(1, 12)}
    names = [f"replay:{n}" for n in DOCUMENTED] + ["replay:Coverage@2"]
    res = evaluate(qrels, run, names, train=train, item_features=features)
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    for name, want in DOCUMENTED.items():
        got = tuple(rows[u][f"replay:{name}"] for u in ("u1", "u2", "u3"))
        assert got == pytest.approx(want, abs=1e-12), name
        assert res.summary[f"replay:{name}"] == pytest.approx(sum(want) / 3, abs=1e-12), name
    assert res.summary["replay:Coverage@2"] == pytest.approx(5 / 9)  # RePlay prints 0.5555555555555556


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")  # u3 has no relevant document
def test_auc_cut_is_accuracy_with_a_value_for_every_list():
    """u1 [n r r] at 3: 1 - 2/(1·2) = 0; u2 [r r n]: 1; u3 [n n] no relevant: 0 (accuracy: undefined);
    u4 [r r] no non-relevant: 1 (accuracy: undefined); u5 [r n r n]: 1 - 1/(2·2) at 4, 1 at 2."""
    lists = {"u1": "nrr", "u2": "rrn", "u3": "nn", "u4": "rr", "u5": "rnrn"}
    run = pl.DataFrame([(u, f"{u}{j}", 10.0 - j) for u, s in lists.items() for j in range(len(s))],
                       schema=["query", "doc", "score"], orient="row")  # fmt: skip
    qrels = pl.DataFrame([(u, f"{u}{j}", int(c == "r")) for u, s in lists.items() for j, c in enumerate(s)],
                         schema=["query", "doc", "rel"], orient="row")  # fmt: skip
    res = evaluate(qrels, run, ["auc_cut.2,4", "accuracy.4", "auc_cut"])
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    assert [rows[u]["auc_cut_4"] for u in lists] == [0.0, 1.0, 0.0, 1.0, 0.75]
    assert [rows[u]["auc_cut_2"] for u in lists] == [0.0, 1.0, 0.0, 1.0, 1.0]
    assert [rows[u]["accuracy_4"] for u in lists] == [0.0, 1.0, None, None, 0.75]
    assert [rows[u]["auc_cut"] for u in lists] == [rows[u]["auc_cut_4"] for u in lists]  # no list is longer


QRELS = pl.DataFrame({"query": ["u1", "u2"], "doc": ["a", "b"], "rel": [1, 1]})
# training: u1 a b, u2 a c, u3 a, u4 d -> |U| = 4, n_a 3, n_b 1, n_c 1, n_d 1; x and y nobody rated
TRAIN = pl.DataFrame(
    {"user": ["u1", "u1", "u2", "u2", "u3", "u4"], "item": list("abacad"), "rating": [1.0] * 6}
)
RUN = pl.DataFrame(
    {"query": ["u1"] * 4 + ["u2"] * 2, "doc": list("abxcay"), "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0]}
)


def _values(measures, **kw):
    res = evaluate(QRELS, RUN, measures, **{"train": TRAIN, **kw})
    return {r["query"]: r for r in res.per_query.to_dicts()}, res.summary


def test_train_coverage_counts_training_items_only():
    """Top 2s: u1 a b, u2 a y; training items a b c d: {a, b} = 2/4. Whole lists a b x c, a y: {a, b, c} of
    4, where catalog_coverage counts {a, b, c, x, y} of the catalogue {a, b, c, d, x, y}."""
    _, summary = _values(["train_coverage.2", "train_coverage", "catalog_coverage"])
    assert summary["train_coverage_2"] == 0.5 and summary["train_coverage"] == 0.75
    assert summary["catalog_coverage"] == pytest.approx(5 / 6)


def test_unseen_share_is_the_share_of_the_list_the_user_never_rated():
    """u1 (rated a b) top 3 a b x: 1 - 2/3; u2 (rated a c) a y at k = 3: 1 - 1/2 (of the 2 it has)."""
    rows, summary = _values(["unseen_share.1,3"])
    assert rows["u1"]["unseen_share_3"] == pytest.approx(1 / 3) and rows["u2"]["unseen_share_3"] == 0.5
    assert rows["u1"]["unseen_share_1"] == 0.0 and rows["u2"]["unseen_share_1"] == 0.0
    assert summary["unseen_share_3"] == pytest.approx((1 / 3 + 1 / 2) / 2)


def test_surprisal_normalises_self_information_and_counts_unrated_items_one():
    """s(a) = log2(4/3)/2, s(b) = s(c) = log2 4/2 = 1, s(x) = s(y) = 1 (nobody rated them); / k even when
    the list is shorter; without k / the list's length."""
    s_a = math.log2(4 / 3) / 2
    rows, _ = _values(["surprisal.2,3", "surprisal"])
    assert rows["u1"]["surprisal_2"] == pytest.approx((s_a + 1) / 2)
    assert rows["u1"]["surprisal_3"] == pytest.approx((s_a + 2) / 3)
    assert rows["u2"]["surprisal_3"] == pytest.approx((s_a + 1) / 3)  # 2 items, divided by 3
    assert rows["u1"]["surprisal"] == pytest.approx((s_a + 3) / 4) and rows["u2"][
        "surprisal"
    ] == pytest.approx((s_a + 1) / 2)


def test_surprisal_is_undefined_with_one_training_user():
    rows, summary = _values(["surprisal.2"], train=TRAIN.filter(pl.col("user") == "u1"))
    assert rows["u1"].get("surprisal_2") is None and "surprisal_2" not in summary


def test_category_diversity_counts_distinct_categories_per_slot():
    """Categories a {g}, b {g, h}, c {h}, x none, y {g}: u1 top 3 a b x -> {g, h} / 3; u2 a y -> {g} / 3 at
    k = 3 (a list of 2); without k / the list's length: u1 {g, h} / 4, u2 {g} / 2."""
    features = {"a": ["g"], "b": ["g", "h"], "c": ["h"], "y": ["g"]}
    rows, _ = _values(["category_diversity.1,3", "category_diversity"], item_features=features)
    assert rows["u1"]["category_diversity_3"] == pytest.approx(2 / 3) and rows["u2"][
        "category_diversity_3"
    ] == pytest.approx(1 / 3)
    assert rows["u1"]["category_diversity_1"] == 1.0
    assert rows["u1"]["category_diversity"] == 0.5 and rows["u2"]["category_diversity"] == 0.5
