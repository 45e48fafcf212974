"""The pieces the engines share: trec_eval's order keys (ordering.py), the -m request, finalize()."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import trecrs
from tests.warned import warned
from trecrs.engines import Computed
from trecrs.errors import UsageError
from trecrs.evaluate import finalize
from trecrs.measures.request import parse_measures
from trecrs.ordering import bytewise_sorted, descending_key, order_rows, trec_order


def test_descending_key_is_c_float_order():
    s = np.array([3.0, -0.0, 0.0, 1.0, 1.0000000001, -2.5, np.inf, -np.inf, 1e-30], dtype=np.float64)
    s32 = s.astype(np.float32)
    key = descending_key(s32)
    # ascending keys = descending floats; -0.0 and 0.0 one key, 1.0 and 1.0000000001 one key (as C floats)
    assert [float(s32[i]) for i in np.argsort(key, kind="stable")] == sorted(s32.tolist(), reverse=True)
    assert key[1] == key[2] and key[3] == key[4]


def test_trec_order_and_order_rows_agree():
    rng = np.random.default_rng(3)
    n = 400
    docs = [str(d) for d in rng.permutation(n)]
    queries = [str(q) for q in rng.integers(0, 12, n)]
    scores = rng.choice([0.0, -0.0, 0.5, 1.0, 1.0000000001, 2.0], n)
    run = pl.DataFrame({"query": queries, "doc": docs, "score": scores})
    expected = trec_order(run, rank=False).select("query", "doc").rows()
    qv, dv = sorted(set(queries), key=str.encode), sorted(set(docs), key=str.encode)
    qcode = np.array([qv.index(q) for q in queries])
    dcode = np.array([dv.index(d) for d in docs])
    perm = order_rows(qcode, scores.astype(np.float32), dcode)
    assert [(queries[i], docs[i]) for i in perm] == expected
    assert order_rows(qcode[perm], scores.astype(np.float32)[perm], dcode[perm]) is None  # already ordered


def test_bytewise_query_order():
    assert bytewise_sorted(["9", "10", "é", "Q", "a"]) == ["10", "9", "Q", "a", "é"]


def test_relstring_length():
    assert parse_measures(["P.5"]).relstring_length() is None
    assert parse_measures(["relstring"]).relstring_length() == 10
    assert parse_measures(["relstring.3"]).relstring_length() == 3


def test_parse_measures_stays_public():
    assert trecrs.parse_measures is parse_measures
    req = parse_measures(["P@5", "P.10", "P@20", "auc"])
    # trec_eval's form first (P.10), then the @k cutoffs in the order given
    assert req.params["P"] == "10,5,20" and req.extras == ("auc",)


def test_finalize_orders_resets_and_summarizes():
    request = parse_measures(["runid", "num_ret", "P.1", "relstring"])
    per_query = pl.DataFrame({"query": ["b", "10", "9"], "num_ret": [3.0, 1.0, 2.0], "P_1": [1.0, 0.0, 0.5]})
    ev = finalize(request, Computed(per_query, ["10"], {"b": "1-", "9": "0"}), "tag")
    assert ev.per_query.get_column("query").to_list() == ["10", "9", "b"]
    assert ev.per_query.get_column("num_ret").to_list() == [0.0, 2.0, 3.0]  # stand-in: num_ret reset
    assert list(ev.summary) == ["runid", "num_ret", "P_1"]
    assert ev.summary["num_ret"] == 5.0 and ev.summary["P_1"] == 0.5
    assert ev.relstrings == {"b": "1-", "9": "0", "10": ""}
    assert ev.runid == "tag" and ev.num_q == 3


def test_finalize_refuses_an_evaluation_without_queries():
    request = parse_measures(["P.1"])
    stand_ins_only = Computed(pl.DataFrame({"query": ["q"], "P_1": [0.0]}), ["q"])
    with pytest.raises(UsageError, match="no queries"):
        finalize(request, stand_ins_only, "t")
    with pytest.raises(UsageError, match="no queries"):  # trec_eval 9.0.8 exits with status 7 under -c too
        finalize(request, stand_ins_only, "t", average_all=True)
    assert finalize(request, stand_ins_only, "t", average_all=True, trec_eval_version=10).num_q == 1


def test_depth_message_names_the_argument():
    """depth 0 retrieves nothing (trec_eval's -M 0); a negative depth crashes trec_eval and is refused."""
    qrels = pl.DataFrame({"query": ["q"], "doc": ["a"], "rel": [1]})
    run = pl.DataFrame({"query": ["q"], "doc": ["a"], "score": [1.0]})
    with warned("1 of 1 .* evaluated queries retrieve fewer than 1 documents"):
        nothing = trecrs.evaluate(qrels, run, ["P.1", "num_ret", "num_rel"], depth=0)
    assert (nothing.summary["P_1"], nothing.summary["num_ret"], nothing.summary["num_rel"]) == (0.0, 0, 1)
    with pytest.raises(
        UsageError,
        match=r"^depth must be 0 or more documents, got -1 \(trec_eval crashes on a negative -M\)$",
    ):
        trecrs.evaluate(qrels, run, ["P.1"], depth=-1)


@pytest.mark.parametrize(
    "judged_docs", [2, 200]
)  # few cells: marks counted; many: each row's number read back
def test_a_repeated_query_doc_pair_is_found_whatever_the_catalogue(judged_docs):
    from trecrs.engines.vectorized.rank import DuplicateEntry, rank

    qrels = pl.DataFrame(
        {
            "query": ["q1"] * judged_docs,
            "doc": [f"d{k}" for k in range(judged_docs)],
            "rel": [1] * judged_docs,
        }
    )
    run = pl.DataFrame(
        {"query": ["q1", "q1", "q1", "q2"], "doc": ["d0", "d1", "x", "d0"], "score": [3.0, 2.0, 1.0, 1.0]}
    )
    assert rank(qrels, run, check_duplicates=True).rel.tolist() == [1, 1, -1]  # q2 has no qrels
    twice = run.with_columns(pl.Series("doc", ["d0", "d1", "d0", "d0"]))  # (q1, d0) on rows 1 and 3
    with pytest.raises(DuplicateEntry):
        rank(qrels, twice, check_duplicates=True)
    assert rank(qrels, twice).rel.tolist() == [1, 1, 1]  # not checked unless asked
