"""trecrs.measures.direction: the declared direction of every measure, found from any printed name."""

from __future__ import annotations

import pytest

from trecrs.errors import UsageError
from trecrs.measures.direction import better, sign
from trecrs.measures.recsys.registry import REGISTRY
from trecrs.measures.trec_eval import TREC_MEASURES

LOWER = {
    "sk_coverage_error",
    "sk_ranking_loss",
    "tm_fall_out",
    "fpr",
    "fnr",
    "ndpm",
    "mae",
    "rmse",
    "nmae",
    "nrmse",
    "mae_user",
    "mae_item",
    "rmse_user",
    "rmse_item",
    "pop_rsp",
    "pop_reo",
    "miscalibration",
    "item_mad",
    "logloss",
}
NEITHER_TREC = {"runid", "relstring", "num_q", "num_ret", "num_rel", "num_nonrel_judged_ret", "ideal_dcg",
                "rbp_resid", "unj", "prefs_num_prefs_poss"}  # fmt: skip
NEITHER_EXTRA = {
    "gini",
    "entropy",
    "arp",
    "average_popularity",
    "gini_pad",
    "entropy_per_item",
    "least_rated_share",
    "pop_quantile",
    "arp_share",
    "pop_share",
}


def test_declared_directions():
    """Lower only where the definition says so (errors, NDPM, fallout, miss rate, popularity-bias disparity,
    miscalibration, item MAD, log loss); counts and descriptions
    have none; everything else (precision, AP, nDCG, coverage, novelty ...) is higher-is-better."""
    assert {m.name for m in REGISTRY.values() if m.better == "lower"} == LOWER
    assert {m.name for m in REGISTRY.values() if m.better == "neither"} == NEITHER_EXTRA
    assert {m.name for m in TREC_MEASURES if m.better == "neither"} == NEITHER_TREC
    assert not any(m.better == "lower" for m in TREC_MEASURES)


@pytest.mark.parametrize(("name", "want"), [
    ("P_10", "higher"), ("map", "higher"), ("num_rel_ret", "higher"), ("num_ret", "neither"),
    ("iprec_at_recall_0.10", "higher"), ("recip_rank_cut_10", "higher"),  # not read as trec_eval's recip_rank
    ("ndcg_exp_10", "higher"), ("rmse", "lower"), ("nrmse_1,5", "lower"), ("mae_item", "lower"),
    ("fpr_10", "lower"), ("fallout_10", "lower"), ("miss_rate", "lower"), ("ndpm", "lower"),
    ("gini_10", "neither"), ("arp_5", "neither"), ("f_beta_10,2", "higher"),
    ("P@10", "higher"), ("nDCG@5", "higher"), ("AP", "higher"), ("NumRet", "neither"), ("RR@10", "higher"),
    ("lenskit:NDCG@10", "higher"), ("recbole:giniindex@10", "neither"), ("elliot:GAUC", "higher"),
    ("recbole:logloss", "lower"), ("recbole:auc", "higher"),
])  # fmt: skip
def test_better_from_printed_names(name, want):
    assert better(name) == want
    assert sign(name) == (-1 if want == "lower" else 1)


def test_unknown_name_refused():
    with pytest.raises(UsageError, match="unknown measure 'nope'"):
        better("nope")
