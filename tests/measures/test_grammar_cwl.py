"""ir_measures' RBP, Compat, Accuracy, the C/W/L family (BPM, SDCG, NERR8-11, INST, INSQ), ``ERR()@k`` and
``nDCG(dcg='exp-log2')`` without a cutoff: each equals ir_measures' value query by query (its cwl_eval,
compat, accuracy and gdeval providers) on random graded qrels and runs without score ties, with queries
without relevant documents and short runs; score ties follow trec_eval's order (docs/measures.md)."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from trecrs.errors import UsageError
from trecrs.evaluate import evaluate
from trecrs.measures.request import parse_measures

from ..conftest import write
from ..warned import warned

CWL = [
    "BPM(max_rel=3)@10", "BPM(T=2.0, min_rel=1, max_rel=3)@5", "BPM(T=0.5, max_rel=2)@20",
    "SDCG(max_rel=3)@10", "SDCG(dcg='log2', min_rel=1, max_rel=2)@5",
    "NERR8(max_rel=3)@10", "NERR8(max_rel=2)@3", "NERR9(max_rel=3)@5", "NERR9(min_rel=1, max_rel=3)@20",
    "NERR10(max_rel=3)", "NERR10(p=0.5, max_rel=2)", "NERR11(max_rel=3)", "NERR11(T=2.0, max_rel=3)",
    "INST(max_rel=3)", "INST(T=3.0, min_rel=1, max_rel=3)", "INSQ(max_rel=3)", "INSQ(T=2.0, max_rel=2)",
    "RBP(rel=1)", "RBP(p=0.5, rel=2)", "RBP(p=0.95, rel=3)",
]  # fmt: skip
OTHERS = [
    "Compat()",
    "Compat(p=0.8)",
    "Compat(p=0.5, normalize=False)",
    "Accuracy()",
    "Accuracy()@5",
    "Accuracy(rel=2)@10",
    "Accuracy(rel=3)",
]
GDEVAL = ["ERR()@10", "ERR()@3"]  # gdeval.pl prints 5 decimals


def _data(seed: int = 7):
    """Grades -1..3 (query 4 with none >= 1; numeric query ids, as gdeval.pl reads), runs of 30, 12, 3 and 1 documents, all scores distinct."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q, n in enumerate([30, 30, 12, 30, 3, 30, 1, 30, 30]):
        top = 1 if q == 3 else 4  # query 4: only grades -1 and 0
        for d in rng.permutation(40)[:25]:
            qrels.append((f"{q + 1}", f"d{d}", int(rng.integers(-1, top))))
        for d, s in zip(rng.permutation(40)[:n], rng.permutation(n) + 0.5, strict=True):
            run.append((f"{q + 1}", f"d{d}", float(s)))
    return qrels, run


def _files(tmp_path, qrels, run):
    q = write(tmp_path / "qrels", "".join(f"{a} 0 {d} {r}\n" for a, d, r in qrels))
    r = write(tmp_path / "run", "".join(f"{a} Q0 {d} 0 {s} t\n" for a, d, s in run))
    return q, r


@pytest.fixture(scope="module")
def values(tmp_path_factory):
    q, r = _files(tmp_path_factory.mktemp("cwl"), *_data())
    with warned("1 of 9 .* no relevant document"):  # query 4
        res = evaluate(str(q), str(r), [*CWL, *OTHERS, *GDEVAL, "nDCG(dcg='exp-log2')"])
    return res.to_dict()


def _gdeval(spec: str) -> dict[str, float]:
    """ir_measures' gdeval.pl values of every query in one call (gdeval.pl reads grades >= 0)."""
    import ir_measures

    qrels, run = _data()
    qr = [ir_measures.Qrel(q, d, max(g, 0)) for q, d, g in qrels]
    sr = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run]
    return {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(spec)], qr, sr)}


def _theirs(spec: str, qrels, run) -> dict[str, float | None]:
    """ir_measures' value of each run query, one query at a time; None where it raises (its Accuracy divides
    by zero when the top k holds no non-relevant document) or gives none."""
    import ir_measures

    measure = ir_measures.parse_measure(spec)
    out = {}
    for query in sorted({q for q, _, _ in run}):
        qr = [ir_measures.Qrel(q, d, g) for q, d, g in qrels if q == query]
        sr = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run if q == query]
        try:
            got = [m.value for m in ir_measures.iter_calc([measure], qr, sr)]
        except ZeroDivisionError:
            got = []
        out[query] = got[0] if got else None
    return out


@pytest.mark.parametrize("spec", CWL)
def test_cwl_measures_equal_ir_measures_cwl_eval_provider(values, spec):
    pytest.importorskip("ir_measures", reason="ir_measures not installed (the test extra)")
    pytest.importorskip(
        "cwl", reason="cwl-eval not installed (pip install cwl-eval): ir_measures' C/W/L provider"
    )
    theirs = _theirs(spec, *_data())
    assert len(theirs) == 9 and None not in theirs.values()  # every query has a value, 0 without relevance
    for query, value in theirs.items():
        assert values[query][spec] == pytest.approx(value, abs=1e-12), query


@pytest.mark.parametrize("spec", OTHERS)
def test_compat_and_accuracy_equal_ir_measures(values, spec):
    pytest.importorskip("ir_measures", reason="ir_measures not installed (the test extra)")
    theirs = _theirs(spec, *_data())
    for query, value in theirs.items():
        if value is None:  # Accuracy: no relevant or no non-relevant document in the top k
            assert spec not in values.get(query, {}), query
        else:
            assert values[query][spec] == pytest.approx(value, abs=1e-12), query
    if spec.startswith("Accuracy"):
        assert None in theirs.values()  # the undefined case is exercised


@pytest.mark.parametrize("spec", GDEVAL)
def test_err_call_form_equals_gdeval(values, spec):
    pytest.importorskip("ir_measures", reason="ir_measures not installed (the test extra)")
    theirs = _gdeval(spec)
    assert len(theirs) == 9 and theirs["4"] == 0.0  # 4: no relevant document, no gdeval.pl line, 0
    for query, value in theirs.items():
        assert values[query][spec] == pytest.approx(value, abs=5e-6), query


def test_ndcg_exp_log2_without_cutoff_is_gdevals_at_the_whole_ranking(values):
    """ir_measures computes ``nDCG(dcg='exp-log2')`` without cutoff only with ranx; gdeval.pl's at a cutoff
    beyond every ranking and every query's relevant documents is the same number."""
    pytest.importorskip("ir_measures", reason="ir_measures not installed (the test extra)")
    theirs = _gdeval("nDCG(dcg='exp-log2')@1000")
    assert len(theirs) == 9 and theirs["4"] == 0.0  # 4: no relevant document, no gdeval.pl line, 0
    for query, value in theirs.items():
        assert values[query]["nDCG(dcg='exp-log2')"] == pytest.approx(value, abs=5e-6), query


def test_graded_rbp_by_hand(tmp_path):
    """RBP without ``rel`` (trectools' graded RBP): sum (1 - p) p^(i-1) grade_i over documents with grade > 0,
    to rank k; ``rel`` makes it cwl_eval's binary RBP, normalised over cwl_eval's 1000 ranks."""
    q = write(tmp_path / "q", "1 0 a 2\n1 0 b 0\n1 0 c 3\n1 0 d -1\n")
    r = write(tmp_path / "r", "1 Q0 a 1 4 t\n1 Q0 b 2 3 t\n1 Q0 c 3 2 t\n1 Q0 d 4 1 t\n")
    got = evaluate(
        str(q), str(r), ["RBP(p=0.5)", "RBP(p=0.5)@2", "RBP(p=0.5, rel=2)@2", "RBP(rel=3)"]
    ).summary
    assert got["RBP(p=0.5)"] == pytest.approx(0.5 * 2 + 0.5 * 0.25 * 3, abs=1e-15)
    assert got["RBP(p=0.5)@2"] == pytest.approx(0.5 * 2, abs=1e-15)
    assert got["RBP(p=0.5, rel=2)@2"] == pytest.approx(0.5 / (1 - 0.5**1000), abs=1e-15)
    assert got["RBP(rel=3)"] == pytest.approx(0.2 * 0.8**2 / (1 - 0.8**1000), abs=1e-15)


def test_plain_names_equal_the_call_forms(tmp_path, values):
    q, r = _files(tmp_path, *_data())
    with warned("1 of 9 .* no relevant document at relevance level 2"):
        plain = evaluate(
            str(q),
            str(r),
            ["cwl_bpm.1,10,0,3", "cwl_inst.1,0,3", "compat", "accuracy.5", "cwl_rbp.0.5", "cwl_nerr9.20,1,3"],
            relevance_level=2,
        ).to_dict()
    pairs = [
        ("cwl_bpm_1,10,0,3", "BPM(max_rel=3)@10"),
        ("cwl_inst_1,0,3", "INST(max_rel=3)"),
        ("cwl_rbp_0.5", "RBP(p=0.5, rel=2)"),
        ("cwl_nerr9_20,1,3", "NERR9(min_rel=1, max_rel=3)@20"),
    ]
    for query, row in plain.items():
        for name, spec in pairs:
            assert row[name] == pytest.approx(values[query][spec], abs=1e-15)


def test_score_ties_keep_trec_evals_order(tmp_path):
    """a (relevant) and b tie: trec_eval's order (docno descending) ranks b first; ir_measures' cwl_eval
    provider keeps the run's order (a first) and its compat provider sorts ties by docno ascending (a first),
    so they differ here (docs/measures.md)."""
    q = write(tmp_path / "q", "1 0 a 1\n1 0 b 0\n")
    r = write(tmp_path / "r", "1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n")
    specs = ["RBP(p=0.5, rel=1)", "Compat(p=0.5, normalize=False)"]
    ours = evaluate(str(q), str(r), specs).summary
    assert ours["RBP(p=0.5, rel=1)"] == pytest.approx(0.25 / (1 - 0.5**1000), abs=1e-15)
    assert ours["Compat(p=0.5, normalize=False)"] == pytest.approx((0 + 0.5 * 1 / 2) / 1.5, abs=1e-15)
    ir_measures = pytest.importorskip("ir_measures", reason="ir_measures not installed (the test extra)")
    pytest.importorskip("cwl", reason="cwl-eval not installed: ir_measures' C/W/L provider")
    qr = [ir_measures.Qrel("1", "a", 1), ir_measures.Qrel("1", "b", 0)]
    sr = [ir_measures.ScoredDoc("1", "a", 1.0), ir_measures.ScoredDoc("1", "b", 1.0)]
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(s) for s in specs], qr, sr)
    assert [theirs[ir_measures.parse_measure(s)] for s in specs] == pytest.approx(
        [0.5, 1.25 / 1.5], abs=1e-15
    )


@pytest.mark.parametrize(("spec", "message"), [
    ("BPM@10", None),  # no call: the plain-name grammar, where BPM is unknown
    ("BPM(T=1.0)@10", "BPM needs max_rel="),
    ("INST(T=1.0)", "INST needs max_rel="),
    ("BPM(max_rel=2)", "BPM needs a cutoff"),
    ("NERR10(max_rel=2)@5", "NERR10 takes no cutoff"),
    ("SDCG(dcg='exp-log2', max_rel=2)@5", "SDCG takes only dcg='log2'"),
    ("NERR8(max_rel=2)@2.5", "the cutoff must be a positive integer"),
    ("INSQ(min_rel=2, max_rel=2)", "min_rel must be less than max_rel"),
    ("INSQ(max_rel=2.5)", "max_rel must be an integer"),
    ("Compat(p=1.5)", "p must be in [0, 1]"),
    ("Compat(rel=2)", "Compat takes no parameter 'rel'"),
    ("RBP(p=-0.5)", "p must be in [0, 1]"),
    ("ERR()", "ERR needs a cutoff"),
])  # fmt: skip
def test_bad_forms_are_refused(spec, message):
    match = None if message is None else f"measure {re.escape(repr(spec))}: " + re.escape(message)
    with pytest.raises(UsageError, match=match):
        parse_measures([spec])


def test_cli_prints_the_names_as_typed_and_lists_them(tmp_path):
    q, r = _files(tmp_path, *_data())
    run = [sys.executable, "-m", "trecrs", "eval"]
    out = subprocess.run(
        [*run, "-m", "INST(max_rel=3)", "-m", "Compat()", str(q), str(r)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert [line.split()[0] for line in out.splitlines()] == ["INST(max_rel=3)", "Compat()"]
    listed = subprocess.run([*run, "--list-measures"], capture_output=True, text=True, check=True).stdout
    for form in (
        "  BPM(T=, max_rel=, min_rel=)@k  [needs max_rel=]",
        "  RBP(p=, rel=)[@k]",
        "  Compat(normalize=, p=)",
        "  Accuracy(rel=)[@k]",
        "  INSQ(T=, max_rel=, min_rel=)  [needs max_rel=]",
        "  ERR()@k",
    ):
        assert form + "\n" in listed
    for name in (
        "cwl_bpm",
        "cwl_sdcg",
        "cwl_nerr8",
        "cwl_nerr11",
        "cwl_inst",
        "cwl_insq",
        "cwl_rbp",
        "rbp_graded",
        "compat",
        "accuracy",
    ):
        assert f"\n  {name}[." in listed


def test_a_form_undefined_for_every_query_has_no_summary(tmp_path):
    """Accuracy@1 needs a relevant and a non-relevant document in the top 1: never defined, so no value and
    no summary line (ir_measures' accuracy provider divides by zero here)."""
    q = write(tmp_path / "q", "1 0 a 1\n1 0 b 0\n2 0 c 0\n")
    r = write(tmp_path / "r", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n")
    with warned("1 of 2 .* no relevant document"):
        res = evaluate(str(q), str(r), ["Accuracy()@1", "Accuracy()"])
    assert res.summary == {"Accuracy()": 1.0}
    assert res.to_trec() == "Accuracy()            \tall\t1.0000\n"


def test_names_without_parentheses_as_ir_measures_spells_them():
    """``Compat`` and ``Accuracy@5`` (no parentheses) are ``Compat()`` and ``Accuracy()@5``, printed as typed;
    a name spelled otherwise is not one."""
    import pytest as _pytest

    import trecrs
    from trecrs.errors import UsageError

    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}}
    bare = trecrs.evaluate(qrels, run, ["Compat", "Accuracy@5"]).summary
    called = trecrs.evaluate(qrels, run, ["Compat()", "Accuracy()@5"]).summary
    assert (bare["Compat"], bare["Accuracy@5"]) == (called["Compat()"], called["Accuracy()@5"])
    assert (
        bare["Accuracy@5"] == 0.75
    )  # pairs (a, b), (a, d), (c, d) in order, (c, b) not; d unjudged: non-relevant
    with _pytest.raises(UsageError, match="unknown measure 'compat@5'"):
        trecrs.evaluate(qrels, run, ["compat@5"])
