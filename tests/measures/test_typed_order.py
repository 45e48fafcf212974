"""typed_order: the measures of an evaluation in the order they were asked for, and value_names, which it
reads, equal to the names an evaluation prints."""

from __future__ import annotations

import warnings

import pytest

from trecrs.evaluate import evaluate_full
from trecrs.measures.request import parse_measures, typed_order
from trecrs.report.compare import per_query_values

from ..conftest import ROOT

TABLE = ["map", "recip_rank", "P_10"]  # trec_eval's table order


@pytest.mark.parametrize(
    ("specs", "order"),
    [
        (["recip_rank", "P.10", "map"], ["recip_rank", "P_10", "map"]),
        (["P.10", "map", "recip_rank"], ["P_10", "map", "recip_rank"]),
        (["map", "recip_rank", "P.10"], TABLE),
    ],
)
def test_the_order_typed(specs, order):
    assert typed_order(TABLE, specs) == order


def test_one_spec_keeps_its_names_in_their_order():
    names = ["map", "P_5", "P_10", "P_15"]
    assert typed_order(names, ["P.5,10,15", "map"]) == ["P_5", "P_10", "P_15", "map"]
    assert typed_order(names, None) == names  # official: one request
    # a name no spec gives alone (P.10 after P.5: trec_eval keeps the first list, P_5) goes last
    assert typed_order(["map", "P_5"], ["P.10", "map", "P.5"]) == ["map", "P_5"]


@pytest.mark.parametrize("spec", ["P.10", "map", "set_F.0.5", "P@10", "RR@10", "ndcg_cut.5,10", "P", "AP", "nDCG@5",
                                  "lenskit:Recall@10", "P(rel=2)@5", "P_7", "utility.2,1,-1,1", "iprec_at_recall",
                                  "SetF", "recall@5", "mrr@10", "ERR@5", "success.1", "11pt_avg"])  # fmt: skip
def test_value_names_are_the_names_an_evaluation_prints(spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate_full(ROOT / "sample_data" / "tiny.qrels", ROOT / "sample_data" / "tiny.run", [spec])
    assert parse_measures([spec]).value_names() == list(per_query_values(ev))
