"""Classification extras: a hand-computed confusion matrix, the confusion-matrix identities, trec_eval agreement.

Hand example (query u): the run ranks 10 documents, relevance by rank 1 1 0 1 0 0 1 0 0 0, and one more
relevant document is judged but not retrieved (R = 5, n = |L_u| = 10, 4 relevant retrieved, 6 not).
At k = 3: TP = 2, FP = 1, FN = 5 - 2 = 3, TN = 6 - 1 = 5.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from trecrs import evaluate

from ..warned import warned
from .test_recsys_ranking import make, values

PATTERN = [1, 1, 0, 1, 0, 0, 1, 0, 0, 0]
ALL = ["precision", "tpr", "fpr", "fnr", "npv", "tnr", "f1", "informedness", "markedness", "mcc"]


def test_hand_confusion_matrix_at_3():
    qrels, run = make({"u": PATTERN}, extra_rel=[("u", "u_unretrieved", 1)])
    got = values(qrels, run, [f"{m}.3" for m in ALL] + ["f_beta.3,2", "f_beta.3,0.5"])
    tp, fp, fn, tn = 2, 1, 3, 5
    want = {
        "precision": 2 / 3,
        "tpr": 2 / 5,
        "fpr": 1 / 6,
        "fnr": 3 / 5,
        "npv": 5 / 8,
        "tnr": 5 / 6,
        "f1": 2 * tp / (2 * tp + fp + fn),
        "informedness": 2 / 5 + 5 / 6 - 1,
        "markedness": 2 / 3 + 5 / 8 - 1,
        "mcc": (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)),
    }
    for m, v in want.items():
        assert got[("u", f"{m}_3")] == pytest.approx(v, abs=1e-12), m
    assert got[("u", "f_beta_3,2")] == pytest.approx(5 * 2 / (5 * 2 + 4 * 3 + 1))
    assert got[("u", "f_beta_3,0.5")] == pytest.approx(1.25 * 2 / (1.25 * 2 + 0.25 * 3 + 1))
    assert got[("u", "mcc_3")] == pytest.approx(7 / math.sqrt(720))


def test_aliases_print_under_the_canonical_name():
    qrels, run = make({"u": PATTERN})
    got = values(
        qrels, run, ["fallout.3", "miss_rate.3", "specificity.3", "inv_precision.3", "sensitivity.3"]
    )
    assert {m for _, m in got} == {"fpr_3", "fnr_3", "tnr_3", "npv_3", "tpr_3"}


def test_confusion_identities_on_random_rankings():
    """informedness = TPR + TNR - 1, markedness = PPV + NPV - 1, MCC² = informedness × markedness, and the
    rates add up (TPR + FNR = 1, FPR + TNR = 1) whenever the marginals are non-zero."""
    rng = np.random.default_rng(11)
    patterns = {f"q{i}": list(rng.integers(0, 2, size=int(rng.integers(3, 25)))) for i in range(60)}
    qrels, run = make(patterns)
    ks = [1, 2, 5, 10]
    got = values(qrels, run, [f"{m}.{','.join(map(str, ks))}" for m in ALL],
                 said=["2 of 60 .* no relevant document"])  # fmt: skip
    checked = 0
    for q, pat in patterns.items():
        for k in ks:
            v = {m: got[(q, f"{m}_{k}")] for m in ALL}
            top = pat[:k]
            tp, fp = sum(top), len(top) - sum(top)
            fn, tn = sum(pat) - tp, (len(pat) - sum(pat)) - fp
            if min(tp + fp, tp + fn, tn + fp, tn + fn) == 0:
                continue
            checked += 1
            assert v["informedness"] == pytest.approx(v["tpr"] + v["tnr"] - 1, abs=1e-12)
            assert v["markedness"] == pytest.approx(v["precision"] + v["npv"] - 1, abs=1e-12)
            assert v["mcc"] ** 2 == pytest.approx(v["informedness"] * v["markedness"], abs=1e-12)
            assert math.copysign(1, v["mcc"]) == math.copysign(1, v["informedness"]) or v["mcc"] == 0
            assert v["tpr"] + v["fnr"] == pytest.approx(1) and v["fpr"] + v["tnr"] == pytest.approx(1)
            assert v["precision"] == pytest.approx(tp / (tp + fp))
    assert checked > 100


def test_zero_denominators_give_zero():
    # no relevant document at all: every ratio with TP+FN or TP+FP... in the denominator is 0, MCC 0
    qrels = pl.DataFrame({"query": ["u"], "doc": ["x"], "rel": [0]})
    run = pl.DataFrame({"query": ["u", "u"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    got = values(
        qrels,
        run,
        ["tpr.1", "precision.1", "mcc.1", "f1.1", "fnr.1"],
        said=["1 of 1 .* no relevant document"],
    )
    assert got[("u", "tpr_1")] == 0 and got[("u", "precision_1")] == 0 and got[("u", "mcc_1")] == 0
    assert got[("u", "f1_1")] == 0 and got[("u", "fnr_1")] == 0


def test_agreement_with_trec_eval_on_the_authors_runs(golden):
    """On Bellogín et al.'s released TestRatings runs: tpr.k = recall.k, hit_rate.k = success.k,
    recip_rank_cut = recip_rank, gmap = gm_map, and precision.k = P.k * k / min(k, n)."""
    qrels = golden / "runs_test_ratings" / "urels_th4.txt"
    run = golden / "runs_test_ratings" / "UB50.txt"
    ms = ["recall.5,10", "tpr.5,10", "success.1,10", "hit_rate.1,10", "recip_rank", "recip_rank_cut", "gm_map", "gmap",
          "P.10", "precision.10", "num_ret"]  # fmt: skip
    # the authors' runs tie often (ratings predicted as 5.0): which tied item trec_eval puts first decides
    # success_1 in 187 queries
    with warned("1 of 456 .* qrels queries have no line in the run", "1 of 456 .* run queries have no qrels",
                "88 of 455 .* retrieve fewer than 10 documents",
                r"tied documents of different relevance straddle cutoff 1 in 187 of 455 evaluated queries \(41.1%\); cutoff 5 in 125 .* success_1 lies between "
                "0.4901 and 0.8132"):  # fmt: skip
        out = evaluate(qrels, run, ms, relevance_level=4, engine="pytrec_eval").tidy()
    got = {(q, m): v for q, m, v in out.iter_rows()}
    queries = {q for q, _ in got if q != "all"}
    assert len(queries) > 400
    for q in queries:
        for k in (5, 10):
            assert got[(q, f"tpr_{k}")] == pytest.approx(got[(q, f"recall_{k}")], abs=1e-12)
        for k in (1, 10):
            assert got[(q, f"hit_rate_{k}")] == got[(q, f"success_{k}")]
        assert got[(q, "recip_rank_cut")] == pytest.approx(got[(q, "recip_rank")], abs=1e-12)
        n = got[(q, "num_ret")]
        assert got[(q, "precision_10")] == pytest.approx(got[(q, "P_10")] * 10 / min(10, n), abs=1e-12)
    assert got[("all", "gmap")] == pytest.approx(got[("all", "gm_map")], abs=1e-12)
    assert got[("all", "tpr_10")] == pytest.approx(got[("all", "recall_10")], abs=1e-12)
