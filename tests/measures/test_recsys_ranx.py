"""The ``ranx:`` dialect and the recommender measures of trecrs.measures.recsys.ranx on worked examples.

The example (docs/measures.md, "ranx"): qrels a = 2, b = 1, x = 0; run a, x, y (unjudged), b. The expected
values are ranx 0.3.21's own (``ranx.evaluate`` on the same Qrels and Run).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import trecrs
from trecrs.measures.dialects import parse_dialect

QRELS = {"u": {"a": 2, "b": 1, "x": 0}}
RUN = {"u": {"a": 4.0, "x": 3.0, "y": 2.0, "b": 1.0}}
GOLDEN = json.loads((Path(__file__).resolve().parents[1] / "data" / "dialects" / "ranx.json").read_text())

RANX = {  # ranx.evaluate(Qrels(QRELS), Run(RUN), name)
    "hits@2": 1.0, "hits@4": 2.0, "map@2": 0.5, "map@4": 0.75, "ndcg@2": 0.7601875334318685, "ndcg@2-l2": 1.0,
    "ndcg_burges@2": 0.8262346571285599, "dcg@4": 2.430676558073393, "dcg@4-l2": 2.0,
    "dcg_burges@4": 3.430676558073393, "r-precision": 0.5, "bpref": 0.5, "bpref-l2": 1.0, "rbp.5": 1.0625,
    "rbp.5-l2": 1.0, "precision@2-l2": 0.5, "recall@4-l2": 1.0, "mrr@4-l2": 1.0, "f1@4": 2 / 3,
}  # fmt: skip


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")  # level 3: no relevant document
@pytest.mark.parametrize("level", [1, 2, 3])
def test_the_example_gives_ranx_values_whatever_the_global_level(level):
    """A ranx name carries its level (``-lN``, default 1): trecrs's ``-l`` does not change it."""
    res = trecrs.evaluate(QRELS, RUN, [f"ranx:{n}" for n in RANX], relevance_level=level).summary
    assert {n: res[f"ranx:{n}"] for n in RANX} == pytest.approx(RANX, abs=1e-12)


def test_the_new_measures_on_the_example():
    res = trecrs.evaluate(
        QRELS,
        RUN,
        [
            "hits.2,4",
            "ap_cut.2,4",
            "ndcg_lin.2",
            "dcg_lin.4",
            "dcg_exp.4",
            "r_prec",
            "bpref_strict",
            "bpref",
            "map_cut.2,4",
            "Rprec",
        ],
    ).summary
    assert (res["hits_2"], res["hits_4"]) == (1.0, 2.0)
    assert (
        (res["ap_cut_2"], res["ap_cut_4"]) == (res["map_cut_2"], res["map_cut_4"]) == (0.5, 0.75)
    )  # 1/2, (1 + 2/4)/2
    assert res["ndcg_lin_2"] == pytest.approx(2 / (2 + 1 / 1.584962500721156))  # ideal a, b; the run a, x
    assert res["dcg_lin_4"] == pytest.approx(2 + 1 / 2.321928094887362)  # rank 4: log2 5
    assert res["dcg_exp_4"] == pytest.approx(3 + 1 / 2.321928094887362)  # 2^2 - 1
    assert res["r_prec"] == res["Rprec"] == 0.5
    assert res["bpref_strict"] == res["bpref"] == 0.5  # a: 1 - 0; b below x: 1 - min(1, 2)/min(2, 1)


def test_bpref_without_judged_non_relevant_documents_is_undefined():
    """ranx divides by min(|R|, N) = 0 (NaN); trec_eval counts 1 per retrieved relevant document."""
    qrels = {"u": {"a": 2, "b": 1}, "v": {"c": 1, "z": 0}}
    run = {"u": RUN["u"], "v": {"z": 2.0, "c": 1.0}}
    res = trecrs.evaluate(qrels, run, ["bpref_strict", "bpref", "ranx:bpref"])
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    assert rows["u"]["bpref_strict"] is None and rows["u"]["bpref"] == 1.0
    assert rows["v"]["bpref_strict"] == rows["v"]["bpref"] == rows["v"]["ranx:bpref"] == 0.0
    assert res.summary["bpref_strict"] == 0.0  # v only


def test_ranx_names_parse_as_ranx_reads_them():
    assert parse_dialect("ranx:ndcg@10-l2").level == 2 and parse_dialect("ranx:ndcg@10").level == 1
    assert parse_dialect("lenskit:NDCG@10").level is None  # the global -l
    assert parse_dialect("ranx:rbp.95").target() == parse_dialect("ranx:rbp@95").target() == "rbp_graded.0.95"
    assert parse_dialect("ranx:rbp.8-l3").target() == "rbp_graded.0.8"
    assert parse_dialect("ranx:r-precision-l3").target() == "r_prec"


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_the_new_measures_equal_trec_eval_where_documented():
    """On the fixture: ap_cut = map_cut, r_prec = Rprec, ndcg_lin = ndcg_cut (grades as gains, level 1),
    hits.k = num_rel_ret of the run cut at k, bpref_strict = bpref where a judged non-relevant item exists."""
    qrels = pl.DataFrame(GOLDEN["qrels"], schema=["query", "doc", "rel"], orient="row")
    run = pl.DataFrame(GOLDEN["run"], schema=["query", "doc", "score"], orient="row")
    for level in (1, 3):
        res = trecrs.evaluate(
            qrels,
            run,
            [
                "ap_cut.3,10",
                "map_cut.3,10",
                "r_prec",
                "Rprec",
                "ndcg_lin.5",
                "ndcg_cut.5",
                "bpref_strict",
                "bpref",
            ],
            relevance_level=level,
        )
        rows = res.per_query.to_dicts()
        for r in rows:
            assert r["ap_cut_3"] == pytest.approx(r["map_cut_3"], abs=1e-12)
            assert r["ap_cut_10"] == pytest.approx(r["map_cut_10"], abs=1e-12)
            assert r["r_prec"] == pytest.approx(r["Rprec"], abs=1e-12)
            if level == 1:
                assert r["ndcg_lin_5"] == pytest.approx(r["ndcg_cut_5"], abs=1e-12)
        defined = [r for r in rows if r.get("bpref_strict") is not None]  # no column: undefined everywhere
        assert len(defined) == (0 if level == 1 else 19)  # level 1: every rated item is relevant
        assert all(r["bpref_strict"] == pytest.approx(r["bpref"], abs=1e-12) for r in defined)
    cut = trecrs.evaluate(
        qrels, run, ["hits.5", "num_rel_ret"], relevance_level=3, depth=5
    ).per_query.to_dicts()
    assert all(r["hits_5"] == r["num_rel_ret"] for r in cut)
