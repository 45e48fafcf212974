"""One-Plus-Random: Cremonesi's per-case recall/precision and per-user averaging, by hand.

Cases (query user:item, target ranked among random items):
  u1:a target at rank 1, u1:b at rank 3, u1:c at rank 12, u2:d at rank 2.
recall(N=2): hits 1, 0, 0, 1 -> per case 2/4 = 0.5; per user: u1 1/3, u2 1 -> (1/3 + 1)/2 = 2/3.
"""

from __future__ import annotations

import polars as pl
import pytest

from trecrs.evaluate import evaluate_full

from .test_recsys_ranking import values

CASES = {"u1:a": 1, "u1:b": 3, "u1:c": 12, "u2:d": 2}


def opr_data():
    qrels, run = [], []
    for q, pos in CASES.items():
        target = q.split(":")[1]
        qrels.append((q, target, 5))
        for j in range(1, 16):
            doc = target if j == pos else f"r{j}"
            run.append((q, doc, float(100 - j)))
    return (
        pl.DataFrame(qrels, schema=["query", "doc", "rel"], orient="row"),
        pl.DataFrame(run, schema=["query", "doc", "score"], orient="row"),
    )


def test_cremonesi_recall_and_precision_per_case():
    qrels, run = opr_data()
    got = values(qrels, run, ["opr_recall.2,10", "opr_precision.2", "recall.2,10", "P.2"])
    assert got[("all", "opr_recall_2")] == pytest.approx(2 / 4)  # #hits / |T|
    assert got[("all", "opr_recall_10")] == pytest.approx(3 / 4)
    assert got[("all", "opr_precision_2")] == pytest.approx(2 / 4 / 2)  # recall(N) / N
    # with one relevant document per case these are trec_eval's recall.N and P.N
    assert got[("all", "opr_recall_2")] == got[("all", "recall_2")]
    assert got[("all", "opr_precision_2")] == pytest.approx(got[("all", "P_2")])
    assert got[("u1:b", "opr_recall_10")] == 1.0 and got[("u1:c", "opr_recall_10")] == 0.0


def test_per_user_averaging_of_trec_eval_and_extra_measures():
    qrels, run = opr_data()
    got = values(
        qrels, run, ["opr_recall.2", "recall.2", "P.2", "recip_rank", "num_rel", "num_q"], opr_average="user"
    )
    assert got[("all", "opr_recall_2")] == pytest.approx((1 / 3 + 1) / 2)
    assert got[("all", "recall_2")] == pytest.approx((1 / 3 + 1) / 2)
    assert got[("all", "P_2")] == pytest.approx((1 / 6 + 1 / 2) / 2)
    assert got[("all", "recip_rank")] == pytest.approx(((1 + 1 / 3 + 1 / 12) / 3 + 1 / 2) / 2)
    # sums and counts are not averages: unchanged
    assert got[("all", "num_rel")] == 4 and got[("all", "num_q")] == 4
    # per-case lines are the same either way
    case = values(qrels, run, ["recall.2"], opr_average="case")
    assert case[("all", "recall_2")] == pytest.approx(0.5)
    assert case[("u1:c", "recall_2")] == got[("u1:c", "recall_2")] == 0.0


def test_opr_measures_need_user_item_queries():
    qrels = pl.DataFrame({"query": ["u1"], "doc": ["a"], "rel": [1]})
    run = pl.DataFrame({"query": ["u1"], "doc": ["a"], "score": [1.0]})
    ev = evaluate_full(qrels, run, ["opr_recall.1"])
    assert "opr_recall_1" not in ev.summary
    assert any("not named user:item" in n for n in ev.notes)


def test_bad_average_is_rejected():
    from trecrs.errors import UsageError

    qrels, run = opr_data()
    with pytest.raises(UsageError, match="opr_average"):
        evaluate_full(qrels, run, ["P.2"], opr_average="users")


def test_ids_holding_colons_split_where_the_qrels_item_ends_the_case_id():
    from trecrs.protocol.one_plus_random import case_ids

    qrels = pl.DataFrame(
        {"query": ["a:b:c", "u1:x:y", "v:w", "plain"], "doc": ["c", "x:y", "zz", "d"], "rel": [1] * 4}
    )
    ids = case_ids(["a:b:c", "u1:x:y", "v:w", "plain"], qrels)
    assert ids.rows() == [
        ("a:b:c", "a:b", "c"),  # user id with a colon
        ("u1:x:y", "u1", "x:y"),  # item id with a colon
        ("v:w", "v", "w"),  # qrels item does not end the id: first colon
        ("plain", "plain", None),  # an ordinary user query
    ]
    # per-user averaging groups the cases of user "a:b" together
    run = pl.DataFrame(
        {"query": ["a:b:c", "a:b:d", "a:c:e"], "doc": ["c", "x", "e"], "score": [1.0, 1.0, 1.0]}
    )
    qrels = pl.DataFrame({"query": ["a:b:c", "a:b:d", "a:c:e"], "doc": ["c", "d", "e"], "rel": [1, 1, 1]})
    got = values(qrels, run, ["success.1", "opr_recall.1"], opr_average="user")
    assert got[("all", "success_1")] == pytest.approx((1 / 2 + 1) / 2)  # users a:b (1 of 2), a:c (1 of 1)
    assert got[("all", "opr_recall_1")] == pytest.approx((1 / 2 + 1) / 2)
