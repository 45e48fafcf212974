"""ir_measures' parameterised names (trecrs.measures.grammar): each ``Name(params)@k`` equals ir_measures'
value query by query (random qrels and runs without score ties), and trec_eval 9.0.8's value for the same
measure under the equivalent ``-l``/``-J`` (gains: on the qrels with each grade mapped); the plain names
keep their values; bad parameters are refused in one line."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from trecrs.errors import TrecrsWarning, UsageError
from trecrs.evaluate import evaluate
from trecrs.measures.grammar import parse_call
from trecrs.measures.request import parse_measures

from ..conftest import write

# (spec, trec_eval's -m, its flags, the grade mapping applied to the qrels first)
CASES = [
    ("P(rel=2)@10", "P.10", ["-l2"], None),
    ("Precision(rel=3)@5", "P.5", ["-l3"], None),
    ("R(rel=3)@20", "recall.20", ["-l3"], None),
    ("AP(rel=2)", "map", ["-l2"], None),
    ("MAP(rel=2)@10", "map_cut.10", ["-l2"], None),
    ("RR(rel=3)", "recip_rank", ["-l3"], None),
    ("NumRelRet(rel=2)", "num_rel_ret", ["-l2"], None),
    ("NumRet(rel=2)", "num_rel_ret", ["-l2"], None),
    ("Rprec(rel=2)", "Rprec", ["-l2"], None),
    ("Success(rel=3)@5", "success.5", ["-l3"], None),
    ("SetP(rel=2)", "set_P", ["-l2"], None),
    ("SetP(rel=2, relative=True)", "set_relative_P", ["-l2"], None),
    ("SetR(rel=2)", "set_recall", ["-l2"], None),
    ("SetAP(rel=2)", "set_map", ["-l2"], None),
    ("SetAP()", "set_map", [], None),
    ("NumRel(rel=2)", "num_rel", ["-l2"], None),
    ("NumQ()", "num_q", [], None),
    ("SetF(rel=2, beta=0.5)", "set_F.0.5", ["-l2"], None),
    ("IPrec(rel=2)@0.2", "iprec_at_recall.0.2", ["-l2"], None),
    ("Bpref(rel=2)", "bpref", ["-l2"], None),
    ("infAP(rel=2)", "infAP", ["-l2"], None),
    ("nDCG(gains={0: 0, 1: 1, 2: 5, 3: 10})@10", "ndcg_cut.10", [], {0: 0, 1: 1, 2: 5, 3: 10}),
    ("nDCG(judged_only=True)@10", "ndcg_cut.10", ["-J"], None),
    ("P(judged_only=True, rel=2)@10", "P.10", ["-J", "-l2"], None),
    ("nDCG(dcg='log2')", "ndcg", [], None),
    ("RR(rel=3)@5", "recip_rank", ["-l3", "-M5"], None),  # trec_eval's recip_rank of the top 5
    ("nDCG(dcg='exp-log2')@10", None, [], None),  # gain 2^rel - 1: trec_eval has no such measure
    ("nDCG(dcg='exp-log2')@5", None, [], None),
]

# plain names (trecrs.measures.aliases) that ir_measures defines and trec_eval lacks or names otherwise
PLAIN = ["Judged@10", "Judged@50", "Judged", "SetAP", "ERR@10", "ERR@5"]


def _data(seed: int = 3):
    """Qrels with grades 0..3 on 25 of 40 documents and a 30-document run per query, all scores distinct."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(8):
        for d in rng.permutation(40)[:25]:
            qrels.append((f"{q + 1}", f"d{d}", int(rng.integers(0, 4))))  # numeric: gdeval.pl reads no other
        scores = rng.permutation(30) + 0.5
        for i, d in enumerate(rng.permutation(40)[:30]):
            run.append((f"{q + 1}", f"d{d}", float(scores[i])))
    return qrels, run


def _files(tmp_path, qrels, run, gains=None):
    g = gains or {}
    q = "".join(f"{a} 0 {d} {g.get(r, r)}\n" for a, d, r in qrels)
    r = "".join(f"{a} Q0 {d} 0 {s} t\n" for a, d, s in run)
    return write(tmp_path / "qrels", q), write(tmp_path / "run", r)


@pytest.fixture(scope="module")
def values(tmp_path_factory):
    """trecrs's per-query values of every case, asked for in one request with the plain P@10 and map."""
    qrels, run = _data()
    q, r = _files(tmp_path_factory.mktemp("g"), qrels, run)
    res = evaluate(str(q), str(r), ["P@10", "map", *PLAIN, *(c[0] for c in CASES)])
    return {**res.to_dict(), "all": res.summary}


@pytest.mark.parametrize(("spec", "measure", "flags", "gains"), CASES, ids=[c[0] for c in CASES])
def test_equals_trec_eval_with_the_equivalent_flags(tmp_path, values, spec, measure, flags, gains):
    from tests.fuzz.binaries import Unavailable, binary

    try:
        exe = binary("9")
    except Unavailable as exc:
        pytest.skip(f"trec_eval 9.0.8 unavailable: {exc}")
    if measure is None:
        pytest.skip(f"trec_eval has no measure equal to {spec}")
    q, r = _files(tmp_path, *_data(), gains=gains)
    out = subprocess.run(
        [str(exe), "-q", *flags, "-m", measure, str(q), str(r)], capture_output=True, check=True
    )
    seen = 0
    for line in out.stdout.decode().splitlines():
        _, query, value = line.split()
        assert values[query][spec] == pytest.approx(float(value), abs=5e-5), (query, line)
        seen += 1
    assert seen == (1 if measure == "num_q" else 9)  # 8 queries and the summary; num_q: the summary only


@pytest.mark.parametrize("spec", [*PLAIN, *(c[0] for c in CASES)])
def test_equals_ir_measures_query_by_query(values, spec):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = _data()
    qr = [ir_measures.Qrel(q, d, r) for q, d, r in qrels]
    sr = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run]
    measure = ir_measures.parse_measure(spec)
    try:
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qr, sr)}
    except ValueError as exc:  # NumRel(rel=2): no installed ir_measures provider computes it
        pytest.skip(f"ir_measures: {exc}")
    if spec == "NumQ()":  # 1 per query, as ir_measures gives it; the summary counts them
        assert values["all"][spec] == ir_measures.calc_aggregate([measure], qr, sr)[measure] == 8
    assert len(theirs) == 8
    for query, value in theirs.items():
        # gdeval.pl (ir_measures' exp-log2 nDCG and ERR) prints 5 decimals
        assert values[query][spec] == pytest.approx(
            value, abs=5e-6 if "exp-log2" in spec or "ERR" in spec else 1e-12
        ), query


def test_plain_names_keep_their_values_beside_parameterised_ones(tmp_path, values):
    q, r = _files(tmp_path, *_data())
    plain = evaluate(str(q), str(r), ["P@10", "map"]).to_dict()
    for query, row in plain.items():
        assert values[query]["P@10"] == row["P@10"]
        assert values[query]["map"] == row["map"]


def test_parsed_settings():
    v = parse_call("nDCG(gains={2: 5, 0: 0}, judged_only=True)@10")
    assert (v.base, v.param, v.relevance_level, v.judged_only, v.gains) == (
        "ndcg_cut",
        "10",
        1,
        True,
        ((0, 0), (2, 5)),
    )
    assert parse_call("P@10") is None  # the plain alias grammar
    assert parse_call("SetF(beta=1.0)").param is None  # beta 1 is trec_eval's set_F


@pytest.mark.parametrize(("spec", "message"), [
    ("P(rel=2)", "P needs a cutoff (@k)"),
    ("P(foo=1)@5", "P takes no parameter 'foo' (it takes judged_only, rel)"),
    ("P(rel=True)@5", "rel must be an integer"),
    ("Rprec(rel=2)@5", "Rprec takes no cutoff"),
    ("P(2)@5", "parameters must be named"),
    ("nDCG(dcg='exp')@10", "dcg must be 'log2' or 'exp-log2'"),
    ("Foo(x=1)", "no parameterised measure 'Foo'"),
    ("P(rel=x)@5", "parameter values must be literals"),
])  # fmt: skip
def test_bad_forms_are_refused(spec, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_measures([spec])


@pytest.mark.parametrize(
    "engine", ["pytrec_eval", "vectorized", pytest.param("dask", marks=pytest.mark.slow)]
)
def test_each_engine_computes_the_same_values(tmp_path, values, engine):
    q, r = _files(tmp_path, *_data())
    specs = ["P(rel=2)@10", "nDCG(gains={0: 0, 1: 1, 2: 5, 3: 10})@10", "NumRelRet(rel=2)"]
    res = evaluate(str(q), str(r), specs, engine=engine)
    for spec in specs:
        assert res.summary[spec] == pytest.approx(values["all"][spec], abs=1e-12)


def test_entry_points_without_a_pass_per_variant_refuse_them():
    from trecrs.evaluate import evaluate_matrix

    with pytest.raises(UsageError, match=r"does not compute Name\(params\)@k measures yet"):
        evaluate_matrix(np.zeros((1, 2)), np.zeros((1, 2)), ["u"], ["a", "b"], measures=["P(rel=2)@1"])


def test_text_output_follows_the_measures_rules(tmp_path):
    """Counts print as ``%ld``, num_q in the summary only, each under the name as typed (trec_eval's rules
    for ``num_rel_ret`` and ``num_q``)."""
    q = write(tmp_path / "q", "q1 0 a 2\nq1 0 b 1\nq2 0 x 3\nq2 0 y 1\n")
    r = write(tmp_path / "r", "q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq2 Q0 y 1 2 t\nq2 Q0 x 2 1 t\n")
    text = evaluate(str(q), str(r), ["NumRelRet(rel=2)", "NumQ()", "P(rel=3)@2"]).to_trec(per_query=True)
    assert text == (
        "NumRelRet(rel=2)      \tq1\t1\nP(rel=3)@2            \tq1\t0.0000\n"
        "NumRelRet(rel=2)      \tq2\t1\nP(rel=3)@2            \tq2\t0.5000\n"
        "NumRelRet(rel=2)      \tall\t2\nNumQ()                \tall\t2\nP(rel=3)@2            \tall\t0.2500\n"
    )


def test_parameterised_forms_ignore_the_global_flags(tmp_path, values):
    """A left-out parameter is ir_measures' default, whatever -l and -J say; plain names follow the flags."""
    q, r = _files(tmp_path, *_data())
    specs = [
        "P(rel=2)@10",
        "nDCG(dcg='exp-log2')@10",
        "RR(rel=3)@5",
        "nDCG(gains={0: 0, 1: 1, 2: 5, 3: 10})@10",
    ]
    flagged = evaluate(str(q), str(r), ["P@10", *specs], relevance_level=3, judged_only=True).summary
    for spec in specs:
        assert flagged[spec] == pytest.approx(values["all"][spec], abs=1e-12)
    assert flagged["P@10"] != values["all"]["P@10"]


def test_err_by_hand_and_zero_without_relevant_documents(tmp_path):
    """ERR@2 of grades 2, 1 at ranks 1, 2: 3/16 + (1/16)(1 - 3/16)/2; a query with nothing relevant scores 0
    (the formula's value; ir_measures gives its default, 0, where gdeval.pl prints no line) and counts in
    the mean."""
    q = write(tmp_path / "q", "q1 0 a 2\nq1 0 b 1\nq2 0 x 3\nq3 0 m 0\n")
    r = write(tmp_path / "r", "q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq2 Q0 y 1 2 t\nq2 Q0 x 2 1 t\nq3 Q0 m 1 1 t\n")
    with pytest.warns(TrecrsWarning, match="no relevant document"):
        res = evaluate(str(q), str(r), ["ERR@2"])
    q1, q2 = 3 / 16 + (1 / 16) * (1 - 3 / 16) / 2, (7 / 16) / 2
    per_query = res.to_dict()
    assert per_query["q1"]["ERR@2"] == pytest.approx(q1, abs=1e-15)
    assert per_query["q2"]["ERR@2"] == pytest.approx(q2, abs=1e-15)
    assert per_query["q3"]["ERR@2"] == 0
    assert res.summary["ERR@2"] == pytest.approx((q1 + q2) / 3, abs=1e-15)


def test_variants_share_engine_passes_by_settings():
    from trecrs.measures.request import variant_passes

    request = parse_measures(
        [
            "P(rel=2)@5",
            "P(rel=2)@10",
            "AP(rel=2)",
            "SetF(beta=0.5)",
            "SetF(beta=2)",
            "P(rel=3)@5",
            "Precision(rel=2)@10",
            "nDCG(dcg='exp-log2')@5",
        ]
    )
    got = [(p.relevance_level, p.params, p.columns) for p in variant_passes(request)]
    assert got == [
        (
            2,
            {"P": "5,10", "map": None},
            [
                ("P(rel=2)@5", "P_5"),
                ("P(rel=2)@10", "P_10"),
                ("AP(rel=2)", "map"),
                ("Precision(rel=2)@10", "P_10"),
            ],
        ),
        (1, {"set_F": "0.5"}, [("SetF(beta=0.5)", "set_F")]),
        (1, {"set_F": "2.0"}, [("SetF(beta=2)", "set_F")]),
        (3, {"P": "5"}, [("P(rel=3)@5", "P_5")]),
    ]


def test_judged_keeps_trec_evals_tie_order(tmp_path):
    """Tied a (unjudged) and b (judged): trec_eval's order (docno descending) ranks b first, so Judged@1 is 1
    (ir_measures' judged provider sorts ties by docno ascending and gives 0: docs/measures.md)."""
    q = write(tmp_path / "q", "1 0 b 0\n1 0 c 1\n")
    r = write(tmp_path / "r", "1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n")
    assert evaluate(str(q), str(r), ["Judged@1", "Judged@2"]).summary == {"Judged@1": 1.0, "Judged@2": 0.5}
    ir_measures = pytest.importorskip("ir_measures")
    theirs = ir_measures.calc_aggregate(
        [ir_measures.parse_measure("Judged@1")],
        [ir_measures.Qrel("1", "b", 0), ir_measures.Qrel("1", "c", 1)],
        [ir_measures.ScoredDoc("1", "a", 1.0), ir_measures.ScoredDoc("1", "b", 1.0)],
    )
    assert list(theirs.values()) == [0.0]


def test_list_measures_shows_every_parameterised_name():
    from trecrs.cli.eval import _list_measures
    from trecrs.measures.grammar import FORMS

    text = _list_measures()
    assert "  P/Precision(judged_only=, rel=)@k\n" in text
    assert "  nDCG/NDCG(dcg=, gains=, judged_only=)[@k]\n" in text
    for form in FORMS:
        assert f"  {'/'.join(form.spellings)}(" in text
        for spelling in form.spellings:  # every listed spelling parses, given its required parameters
            given = ", ".join(f"{r}=3" for r in sorted(form.required))
            assert parse_call(f"{spelling}({given}){'@1' if form.cutoff == 'required' else ''}") is not None
