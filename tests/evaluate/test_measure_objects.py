"""ir_measures measure objects in ``measures``: each gives ir_measures' own per-query value (random graded
qrels, a run without score ties), printed under ``str(measure)``, with ir_measures' defaults for the
parameters it leaves out whatever the global flags; strings and objects mix; anything else is refused."""

from __future__ import annotations

import numpy as np
import pytest

from trecrs.errors import UsageError
from trecrs.evaluate import evaluate, evaluate_matrix
from trecrs.measures.grammar import from_object, is_measure_object
from trecrs.measures.request import parse_measures

im = pytest.importorskip("ir_measures")

OBJECTS = [
    im.P @ 5,
    im.nDCG @ 10,
    im.AP(rel=2),
    im.R(rel=2) @ 10,
    im.Judged @ 10,
    im.ERR @ 10,
    im.nDCG(gains={0: 0, 1: 1, 2: 5, 3: 9}) @ 5,
    im.IPrec @ 0.2,
    im.SetF(beta=0.5),
    im.RR(rel=2),
]


def _data(seed: int = 5):
    """``{query: {doc: grade}}`` (grades 0..3, numeric queries: gdeval reads no other) and a run whose
    scores are distinct within each query."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(1, 8):
        qrels[str(q)] = {f"d{d}": int(rng.integers(0, 4)) for d in rng.permutation(30)[:18]}
        scores = rng.permutation(25) + 0.5
        run[str(q)] = {f"d{d}": float(s) for d, s in zip(rng.permutation(30)[:25], scores, strict=True)}
    return qrels, run


@pytest.fixture(scope="module")
def ours():
    qrels, run = _data()
    return evaluate(qrels, run, [*OBJECTS, "P(rel=2)@5", "P@10"], relevance_level=2)


@pytest.mark.parametrize("measure", OBJECTS, ids=str)
def test_object_equals_ir_measures_query_by_query(ours, measure):
    qrels, run = _data()
    theirs = {m.query_id: m.value for m in im.iter_calc([measure], qrels, run)}
    rows = ours.to_dict()
    assert sorted(theirs) == sorted(rows)
    tol = 5e-6 if im.ERR @ 10 == measure else 1e-12  # gdeval.pl (ERR) prints 5 decimals
    for query, value in theirs.items():
        assert rows[query][str(measure)] == pytest.approx(value, abs=tol), query
    assert ours.summary[measure] == pytest.approx(im.calc_aggregate([measure], qrels, run)[measure], abs=tol)


def test_strings_beside_objects_keep_their_meaning(ours):
    """``"P@10"`` takes the global relevance level (2 here); the object ``P@5`` takes ir_measures' rel=1."""
    qrels, run = _data()
    plain = evaluate(qrels, run, ["P@10", "P@5"], relevance_level=2).summary
    assert ours.summary["P@10"] == plain["P@10"]
    assert ours.summary["P(rel=2)@5"] == plain["P@5"] != ours.summary["P@5"]
    assert ours.summary["P@5"] == pytest.approx(
        im.calc_aggregate([im.P @ 5], qrels, run)[im.P @ 5], abs=1e-12
    )


def test_keys_are_ir_measures_spelling():
    assert [from_object(m).spec for m in (im.nDCG @ 10, im.AP(rel=2), im.nDCG(gains={0: 0, 1: 3}) @ 5)] == [
        "nDCG@10",
        "AP(rel=2)",
        "nDCG(gains={1:3})@5",
    ]
    assert from_object(im.Judged @ 10).target() == "judgment_rate.10"
    v = from_object(im.P(rel=1, judged_only=True) @ 5)
    assert (v.spec, v.target(), v.relevance_level, v.judged_only) == ("P(judged_only=True)@5", "P.5", 1, True)
    assert parse_measures(im.nDCG @ 10).variants[0].spec == "nDCG@10"  # one object alone
    assert not is_measure_object("nDCG@10") and not is_measure_object(3)


def test_summary_lookup_by_object(ours):
    assert im.P @ 5 in ours.summary and im.P @ 20 not in ours.summary
    assert ours.summary.get(im.P @ 20) is None
    with pytest.raises(KeyError):
        ours.summary[im.P @ 20]


@pytest.mark.parametrize(("measures", "message"), [
    ([im.nDCG @ 10, "nDCG@10"], "asked for both as a name"),
    ([3], "a measure must be a name or an ir_measures measure object, got 3"),
    ([im.alpha_nDCG @ 10], "unknown measure 'alpha_nDCG@10'"),  # diversity: not computed
])  # fmt: skip
def test_refusals(measures, message):
    qrels, run = _data()
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evaluate(qrels, run, measures)


def test_matrix_refuses_objects():
    with pytest.raises(UsageError, match="Name\\(params\\)@k"):
        evaluate_matrix({"u": {"a": 1}}, np.ones((1, 1)), ["u"], ["a"], measures=[im.P @ 5])


# ir_measures' test_pytrec_eval.TestPytrecEval.test_NumQ's data (test/test_pytrec_eval.py)
NUMQ_QRELS = "0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 0 D5 2\n"
NUMQ_RUN = (
    "0 0 D0 1 0.8 run\n0 0 D2 2 0.7 run\n0 0 D1 3 0.3 run\n0 0 D3 4 0.4 run\n0 0 D4 5 0.1 run\n"
    "1 0 D1 1 0.8 run\n1 0 D3 2 0.7 run\n1 0 D4 3 0.3 run\n1 0 D2 4 0.4 run\n"
)


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")  # the run's ranks contradict its scores
def test_numq_is_one_per_query_as_ir_measures_gives_it(tmp_path):
    """ir_measures' pytrec_eval provider: NumQ 1 for each query, 2 in the aggregate; trec_eval's text keeps
    num_q in the summary only, and the plain name num_q keeps trec_eval's rows."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(NUMQ_QRELS)
    run.write_text(NUMQ_RUN)
    theirs = im.providers.PytrecEvalProvider()
    qr, sr = list(im.read_trec_qrels(str(qrels))), list(im.read_trec_run(str(run)))
    want = {m.query_id: m.value for m in theirs.iter_calc([im.NumQ], qr, sr)}
    res = evaluate(str(qrels), str(run), [im.NumQ, "num_q"])
    assert want == {"0": 1, "1": 1}
    assert {q: v["NumQ"] for q, v in res.to_dict().items()} == want
    assert (
        res.summary[im.NumQ] == theirs.calc_aggregate([im.NumQ], qr, sr)[im.NumQ] == res.summary["num_q"] == 2
    )
    assert all("num_q" not in v for v in res.to_dict().values())
    assert res.to_trec(per_query=True) == "num_q                 \tall\t2\nNumQ                  \tall\t2\n"
    called = evaluate(str(qrels), str(run), ["NumQ()"])  # the parameterised name: the same
    assert called.to_dict() == {"0": {"NumQ()": 1.0}, "1": {"NumQ()": 1.0}} and called.summary == {
        "NumQ()": 2
    }
    plain = evaluate(str(qrels), str(run), ["NumQ"])  # the alias of num_q: trec_eval's rows
    assert plain.to_dict() == {} and plain.summary == {"NumQ": 2}
