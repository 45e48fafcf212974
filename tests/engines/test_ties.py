"""``ties=expected|best|worst`` against the enumeration of every tie order (tests/ties_reference.py).

Hypothesis draws small qrels and runs with forced ties (scores from a short list, float32-equal doubles
among them), graded and negative qrels values, documents outside the qrels, ``-l``, ``-J`` and ``-M``; for every
measure with a tie-aware form, ``expected`` must equal the mean over the enumerated orders (within 1e-9) and
``best`` / ``worst`` their largest / smallest value, each order scored by the default mode, which is
trec_eval's exactly (tests/engines/test_agreement.py, tests/fuzz).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trecrs
from trecrs.errors import UsageError

from ..ties_reference import ORDERS_MAX, assert_close, count, enumerate_modes, groups
from ..warned import recorded, warned

DOCS = ["1", "2", "9", "10", "11", "a", "B", "é"]
SCORES = [0.0, -0.0, 0.5, 1.0, 1.0000000001, 2.0]
MEASURES = ["P.1,2,5", "recall.1,3", "success.1,2", "relative_P.2", "Rprec", "map", "map_cut.2,5", "recip_rank",
            "ndcg", "ndcg_cut.2,5", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
            "utility", "num_rel_ret", "num_nonrel_judged_ret", "num_ret", "num_rel", "num_q"]  # fmt: skip


@st.composite
def pairs(draw):
    """``(qrels, run)`` as dicts: 1-3 queries, up to 6 ranked documents, ties forced."""
    qrels, run = {}, {}
    for q in draw(st.lists(st.sampled_from(["q1", "q2", "10", "9"]), min_size=1, max_size=3, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
        run[q] = {d: draw(st.sampled_from(SCORES)) for d in docs}
        judged = draw(st.lists(st.sampled_from(DOCS + ["x", "y"]), min_size=1, max_size=6, unique=True))
        qrels[q] = {d: draw(st.integers(-1, 3)) for d in judged}
        if all(v < 0 for v in qrels[q].values()):
            qrels[q][judged[0]] = draw(st.integers(0, 3))  # trec_eval reads stale memory otherwise
    return qrels, run


@st.composite
def flags(draw):
    judged_only = draw(st.booleans())
    depth = None if judged_only else draw(st.sampled_from([None, 1, 3]))
    return {"relevance_level": draw(st.integers(1, 2)), "judged_only": judged_only, "depth": depth}


def _check(qrels, run, measures, f, mode):
    dtype = np.float64 if f.get("trec_eval_version") == 10 else np.float32
    want = enumerate_modes(qrels, run, measures, score_dtype=dtype, **f)[mode]
    with recorded():
        got = trecrs.evaluate(qrels, run, measures, ties=mode, **f).to_dict()
    assert_close(got, want, context=(mode, f, qrels, run))


@pytest.mark.parametrize("mode", ["expected", "best", "worst"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs(), f=flags())
def test_every_measure_equals_the_enumeration(mode, data, f):
    qrels, run = data
    if count(run) > ORDERS_MAX:
        return
    _check(qrels, run, MEASURES, f, mode)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["expected", "best", "worst"])
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs(), f=flags())
def test_every_measure_equals_the_enumeration_at_length(mode, data, f):
    qrels, run = data
    if count(run) > ORDERS_MAX:
        return
    _check(qrels, run, MEASURES, f, mode)


@pytest.mark.parametrize("mode", ["expected", "best", "worst"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs(), f=flags())
def test_trec_eval_10(mode, data, f):
    """10.0 compares scores as doubles (1.0 and 1.0000000001 no longer tie) and has dcg and ideal_dcg."""
    qrels, run = data
    if count(run, np.float64) > ORDERS_MAX:
        return
    _check(qrels, run, [*MEASURES, "dcg", "ideal_dcg"], {**f, "trec_eval_version": 10}, mode)


@pytest.mark.parametrize("mode", ["expected", "best", "worst"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs())
def test_gain_parameters(mode, data):
    qrels, run = data
    if count(run) > ORDERS_MAX:
        return
    measures = ["ndcg.1=1,2=3,3=7"] + (["ndcg.0=2,1=0,2=1"] if mode == "expected" else [])
    _check(qrels, run, measures, {}, mode)


def test_worked_example():
    """Three documents tied at rank 2-4, two of them relevant (McSherry & Najork's setting): P@2's mean over
    the 6 orders is (1 + 2/3·... ) computed by hand: the document at rank 2 is relevant with probability 2/3."""
    qrels = {"q": {"a": 1, "c": 1, "d": 1}}
    run = {"q": {"e": 0.9, "a": 0.5, "b": 0.5, "c": 0.5, "d": 0.2}}
    got = trecrs.evaluate(qrels, run, ["P.2", "recip_rank", "map"], ties="expected").to_dict()["q"]
    assert got["P_2"] == pytest.approx((0 + 2 / 3) / 2)
    # first relevant at rank 2 with probability 2/3, at rank 3 with 1/3
    assert got["recip_rank"] == pytest.approx(2 / 3 / 2 + 1 / 3 / 3)
    # the tied positions 2..4 each add (2/3)(1 + (j-1)/2)/(1+j) = 1/3; d at 5 adds 3/5
    assert got["map"] == pytest.approx((1 + 3 / 5) / 3)
    best = trecrs.evaluate(qrels, run, ["P.2", "recip_rank"], ties="best").to_dict()["q"]
    worst = trecrs.evaluate(qrels, run, ["P.2", "recip_rank"], ties="worst").to_dict()["q"]
    assert (best["P_2"], best["recip_rank"], worst["P_2"], worst["recip_rank"]) == (0.5, 0.5, 0.0, 1 / 3)


def test_groups_follow_c_floats():
    """1.0 and 1.0000000001 are one C float (trec_eval 9.x) but two doubles (10.0)."""
    assert groups({"a": 1.0, "b": 1.0000000001}) == [["b", "a"]]
    assert groups({"a": 1.0, "b": 1.0000000001}, np.float64) == [["b"], ["a"]]


def test_large_groups_stay_finite():
    """A group of 5,000 tied documents with 2,500 relevant: the closed forms neither overflow nor lose the mean."""
    docs = [str(i) for i in range(5000)]
    qrels = {"q": {d: 1 for d in docs[::2]}}
    run = {"q": dict.fromkeys(docs, 1.0)}
    got = trecrs.evaluate(qrels, run, ["P.10,1000", "recip_rank", "map", "ndcg_cut.10", "success.1"],
                          ties="expected").to_dict()["q"]  # fmt: skip
    assert got["P_10"] == pytest.approx(0.5) and got["P_1000"] == pytest.approx(0.5)
    assert got["success_1"] == pytest.approx(0.5)
    assert got["map"] == pytest.approx(0.5, abs=1e-3)  # AP of a random order: about the share relevant
    assert 0.5 < got["recip_rank"] < 1


@pytest.mark.parametrize("measure", ["bpref", "infAP", "iprec_at_recall", "gm_map", "Rndcg"])
def test_measures_without_a_form_are_refused(measure):
    with pytest.raises(UsageError, match=f"measure {measure}.* no tie-aware form for --ties expected"):
        trecrs.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [measure], ties="expected")


def test_refusals():
    q, r = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    with pytest.raises(UsageError, match="ties must be one of trec_eval, expected, best, worst"):
        trecrs.evaluate(q, r, ["map"], ties="random")
    with pytest.raises(UsageError, match="judged_only .-J. and depth .-M."):
        trecrs.evaluate(q, r, ["map"], ties="best", judged_only=True, depth=3)
    with pytest.raises(UsageError, match="engine 'pytrec_eval' ranks ties in trec_eval's order only"):
        trecrs.evaluate(q, r, ["map"], ties="worst", engine="pytrec_eval")
    with pytest.raises(UsageError, match="ndcg.0=3 has no tie-aware form for --ties best"):
        trecrs.evaluate(q, r, ["ndcg.0=3"], ties="best")


def test_default_mode_is_trec_eval():
    """trec_eval's order ("b" first) and the tie report, which no other mode gives."""
    q, r = {"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}
    report = r"tied documents of different relevance straddle cutoff 1 in 1 of 1 evaluated queries \(100.0%\): P_1 lies between 0.0000 and 1.0000"
    with warned(report):
        default = trecrs.evaluate(q, r, ["P.1"]).to_dict()
    with warned(report):
        assert trecrs.evaluate(q, r, ["P.1"], ties="trec_eval").to_dict() == default == {"q": {"P_1": 0.0}}
    assert trecrs.evaluate(q, r, ["P.1"], ties="best").to_dict() == {"q": {"P_1": 1.0}}


RANGE = re.compile(r"(\S+) lies between (-?\d+\.\d{4}) and (-?\d+\.\d{4})")


def _check_report(qrels, run, f):
    """The tie warning's ranges are the summaries of ``ties="worst"`` and ``ties="best"``: every measure whose
    printed mean differs between them is named with those two means, and no other; without one, a warning
    only for a straddled cutoff, saying that no mean moves."""
    with recorded() as texts:
        trecrs.evaluate(qrels, run, MEASURES, **f)
    sides = {}
    for mode in ("best", "worst"):
        with recorded():
            sides[mode] = trecrs.evaluate(qrels, run, MEASURES, ties=mode, **f).summary
    want = {name: (f"{sides['worst'][name]:.4f}", f"{sides['best'][name]:.4f}") for name in sides["best"]
            if f"{sides['worst'][name]:.4f}" != f"{sides['best'][name]:.4f}"}  # fmt: skip
    reports = [t for t in texts if t.startswith("tied documents of different relevance")]
    assert len(reports) <= 1
    assert {name: (lo, hi) for name, lo, hi in RANGE.findall("".join(reports))} == want
    if reports and not want:
        assert " straddle cutoff " in reports[0]
        assert reports[0].endswith(
            ": no mean moves in its fourth decimal over tie orders (--ties best/worst)"
        )
    assert bool(reports) >= bool(want)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs(), level=st.integers(1, 2), judged_only=st.booleans())
def test_the_report_names_every_mean_the_orders_move(data, level, judged_only):
    _check_report(*data, {"relevance_level": level, "judged_only": judged_only})


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs(), level=st.integers(1, 2), judged_only=st.booleans(), version=st.sampled_from([9, 10]))
def test_the_report_names_every_mean_the_orders_move_at_length(data, level, judged_only, version):
    _check_report(*data, {"relevance_level": level, "judged_only": judged_only, "trec_eval_version": version})
