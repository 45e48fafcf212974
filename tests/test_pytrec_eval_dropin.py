"""``from trecrs import pytrec_eval`` gives what pytrec_eval-terrier gives: the same dicts (keys, their order,
float values bit for bit, types) on random qrels and runs, the same exceptions, the same parsers.

The reference is the real pytrec_eval (trec_eval 9.0.8's C code). Cases are seeded: case ``k`` of seed
``s`` is ``make_case(s, k)``; a few hundred run in the fast suite, thousands under ``-m slow``.
"""

from __future__ import annotations

import collections
import gzip
import io
import math
import random
import subprocess
import sys

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")
from trecrs import pytrec_eval as dropin  # noqa: E402
from trecrs.files import nested  # noqa: E402 (the readers behind parse_run and parse_qrel)

FAST_CASES = 300
SLOW_CASES = 3000

# single measures and parameter spellings pytrec_eval accepts (name.p, name_p, lists, defaults)
SINGLE = [
    "map", "gm_map", "Rprec", "bpref", "gm_bpref", "recip_rank", "infAP", "num_ret", "num_rel", "num_rel_ret",
    "num_q", "runid", "relstring", "P", "P_5", "P.1,3", "P_2,10", "recall.2", "recall_1,4", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut.3,5", "ndcg_cut_10", "map_cut_2", "map_cut.1,5", "success.1", "success_2,3",
    "relative_P.4", "Rprec_mult.0.5", "Rprec_mult_1.5,2", "iprec_at_recall.0.25", "iprec_at_recall_0.5,1",
    "11pt_avg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "set_F.0.5",
    "utility", "num_nonrel_judged_ret",
    # spellings trec_eval reads its own way: parameters of a measure without any ignored, cutoffs cut by atol,
    # utility with other than four coefficients (UNDEF: 0.0), parameters of a single-valued measure
    "map.5", "binG_1", "num_ret.3", "P.7.5", "success_4.5", "utility.1,2,3,4", "utility_2,1,0,0",
    "11pt_avg.0.5,1", "set_F.0.5,2", "relstring.5", "ndcg_rel", "Rprec_mult.0",
]  # fmt: skip
NICKNAMES = ["official", "all_trec", "set"]


def make_case(seed: int, k: int) -> tuple[dict, dict, set, int, bool]:
    """Case ``k`` of ``seed``: qrels, run, measures, relevance_level, judged_docs_only_flag.

    Forced score ties (a few values, ints among floats, doubles equal as C floats), graded relevance with
    0 and -1, queries only in the qrels or only in the run, qrels queries judging nothing (dropped by
    pytrec_eval), empty rankings after a query that retrieved something (see the module's docstring).
    """
    rng = random.Random(f"trecrs-pytrec-eval:{seed}:{k}")
    queries = [f"q{i}" for i in range(rng.randint(1, 7))] + ["10", "9"]
    docs = [f"d{i}" for i in range(rng.randint(2, 16))] + ["D", "10", "9", "a b"]
    qrels = {}
    for q in rng.sample(queries, rng.randint(1, len(queries))):
        judged = rng.sample(docs, rng.randint(0, min(8, len(docs))))
        grades = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3, 4]) for d in judged}
        if grades and max(grades.values()) < 0:  # trec_eval's counters need a grade >= 0 (form_res_rels.c)
            grades[judged[0]] = 0
        qrels[q] = grades
    scale = rng.choice([[0.5, 1.0, 1.5], [1, 2, 3], [0.1, 0.1 + 1e-10, 0.2], None])
    run = {}
    for q in rng.sample(queries, rng.randint(1, len(queries))):
        # pytrec_eval ranks an empty ranking only after an evaluated query that retrieved something
        can_be_empty = any(r and p in qrels for p, r in run.items())
        ranked = rng.sample(docs, rng.randint(0 if can_be_empty else 1, min(12, len(docs))))
        run[q] = {d: (rng.choice(scale) if scale else rng.uniform(-5, 5)) for d in ranked}
    measures = set(rng.sample(SINGLE, rng.randint(1, 4)))
    if measures == {"runid"}:  # alone, pytrec_eval reads its value from an empty buffer: any number
        measures.add("num_q")
    if rng.random() < 0.3:
        measures = {rng.choice(NICKNAMES)} | (measures if rng.random() < 0.3 else set())
    return qrels, run, measures, rng.randint(1, 3), rng.random() < 0.5


def _comparable(results: dict) -> list:
    """Results as a list that ``==`` compares exactly: key order, value types, NaN equal to NaN."""
    return [
        (q, [(m, type(v).__name__, "nan" if math.isnan(v) else v) for m, v in values.items()])
        for q, values in results.items()
    ]


def _check(seed: int, k: int) -> None:
    qrels, run, measures, level, judged = make_case(seed, k)
    want = pytrec_eval.RelevanceEvaluator(
        qrels, measures, relevance_level=level, judged_docs_only_flag=judged
    )
    got = dropin.RelevanceEvaluator(qrels, measures, relevance_level=level, judged_docs_only_flag=judged)
    expected = want.evaluate(run)
    assert _comparable(got.evaluate(run)) == _comparable(expected), (seed, k)
    if not any(math.isnan(v) for values in expected.values() for v in values.values()):
        assert got.evaluate(run) == expected  # plain dict equality too, where NaN does not stand in the way


@pytest.mark.parametrize("block", range(10))
def test_random_cases_match_pytrec_eval(block):
    for k in range(block, FAST_CASES, 10):
        _check(1, k)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3, 4])
def test_many_random_cases_match_pytrec_eval(seed):
    for k in range(SLOW_CASES):
        _check(seed, k)


def test_the_generator_covers_the_rules():
    """The fast cases hold ties, 0 and -1 grades, one-sided queries, empty rankings, every flag value."""
    seen = collections.Counter()
    for k in range(FAST_CASES):
        qrels, run, measures, level, judged = make_case(1, k)
        seen["empty ranking"] += any(not r and q in qrels for q, r in run.items())
        seen["run only"] += bool(set(run) - set(qrels))
        seen["qrels only"] += bool(set(qrels) - set(run))
        seen["judged nothing"] += any(not g for g in qrels.values())
        seen["tie"] += any(len(set(r.values())) < len(r) for r in run.values())
        seen["-1"] += any(-1 in g.values() for g in qrels.values())
        seen[f"level {level}"] += 1
        seen[f"judged {judged}"] += 1
        seen["nickname"] += bool(measures & set(NICKNAMES))
    assert min(seen.values()) >= 5 and len(seen) == 12, seen


def test_values_are_pytrec_eval_s_on_a_worked_example():
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 0}, "q3": {}}
    run = {"q1": {"d1": 0.5, "d2": 1.5, "d5": 1.0}, "q4": {"d1": 1.0}, "q2": {"d1": 1.0}}
    got = dropin.RelevanceEvaluator(qrels, {"map", "P.2", "num_ret", "runid"}).evaluate(run)
    # q1: d2 (0), d5 (unjudged), d1 (1) -> AP = (1/3) / 2 relevant; q4 has no qrels; q3 judged nothing
    assert got == {"q1": {"runid": 0.0, "num_ret": 3.0, "map": 1 / 6, "P_2": 0.0},
                   "q2": {"runid": 0.0, "num_ret": 1.0, "map": 0.0, "P_2": 0.0}}  # fmt: skip


def test_evaluator_keeps_its_qrels_and_evaluates_again():
    qrels = {"q1": {"d1": 1, "d2": 1}}
    ev = dropin.RelevanceEvaluator(qrels, {"recall.1"})
    qrels["q1"]["d1"] = 0  # read when the evaluator was made, as pytrec_eval copies it into C structures
    assert ev.evaluate({"q1": {"d1": 2.0, "d2": 1.0}}) == {"q1": {"recall_1": 0.5}}
    assert ev.evaluate({"q1": {"d1": 1.0, "d2": 2.0}}) == {"q1": {"recall_1": 0.5}}
    assert ev.evaluate({}) == {} and ev.evaluate({"q9": {"d1": 1.0}}) == {}


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1}}, {"nope"}), ValueError),
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1}}, {"P@10"}), ValueError),
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1}}, {"prefs"}), ValueError),
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1}}, {"map"}, relevance_level=0), TypeError),
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1}}, {"map"}, relevance_level=1.5), TypeError),
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1}}, {"map"}, relevance_level=2**31), TypeError),
        (lambda m: m.RelevanceEvaluator({1: {"d": 1}}, {"map"}), TypeError),
        (lambda m: m.RelevanceEvaluator({"q": {1: 1}}, {"map"}), TypeError),
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1.0}}, {"map"}), TypeError),
        (lambda m: m.RelevanceEvaluator({"q": [("d", 1)]}, {"map"}), TypeError),
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate({"q": {"d": "1"}}), TypeError),
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate({"q": {2: 1.0}}), TypeError),
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate({3: {"d": 1.0}}), TypeError),
        (lambda m: m.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate([("q", {"d": 1.0})]), TypeError),
    ],
)
def test_errors_are_pytrec_eval_s(make, error):
    with pytest.raises(error) as want:
        make(pytrec_eval)
    with pytest.raises(error) as got:
        make(dropin)
    assert str(got.value) == str(want.value)


def test_measure_spellings_reach_trec_eval_as_pytrec_eval_passes_them():
    # parameters as a set of strings sorted as strings; a prefix match ("utility.1,-1" is "utility.1")
    assert dropin.trec_eval_measures({"P_5", "P.10", "P"}) == {"P.10,5"}
    assert dropin.trec_eval_measures({"ndcg_cut.5,5", "map"}) == {"ndcg_cut.5", "map"}
    assert dropin.trec_eval_measures({"utility.1,-1,0,0"}) == {"utility.1"}
    assert dropin.trec_eval_measures({"official"}) == set(pytrec_eval.supported_nicknames["official"])


def test_module_constants_and_aggregation_are_pytrec_eval_s():
    assert dropin.supported_measures == pytrec_eval.supported_measures
    assert dropin.supported_nicknames == pytrec_eval.supported_nicknames
    for name, values in [("map", [0.1, 0.25, 0.3]), ("num_ret", [3.0, 4.0]), ("gm_map", [-1.2, -0.3, -11.5])]:
        assert dropin.compute_aggregated_measure(name, values) == pytrec_eval.compute_aggregated_measure(
            name, values
        )


def _run_lines(rng: random.Random, n: int) -> list[str]:
    """Run lines with scores in every spelling float() reads, queries interleaved, ids like numbers."""
    spellings = [
        lambda: f"{rng.uniform(-1e3, 1e3):.{rng.randint(0, 22)}f}", lambda: f"{rng.uniform(0, 1):.{rng.randint(1, 19)}e}",
        lambda: str(rng.randint(-5, 5)), lambda: rng.choice(["1.", ".5", "+.5", "-0", "007", "1E+05", "1e400", "2.5e-310"]),
    ]  # fmt: skip
    return [
        f"{rng.choice(['1', '10', '2', 'q'])} Q0 d{i} {i} {rng.choice(spellings)()} run" for i in range(n)
    ]


@pytest.mark.parametrize("seed", range(8))
def test_parsers_match_pytrec_eval_on_regular_files(seed, tmp_path):
    """A regular file (parsed by polars) gives pytrec_eval's dicts: same keys in the same order, same values."""
    rng = random.Random(seed)
    run_text = "\n".join(_run_lines(rng, rng.randint(1, 300))) + rng.choice(["", "\n"])
    qrels_text = "".join(f"{rng.choice('123')} 0 d{i} {rng.choice(['0', '1', '-1', '+2', '03', str(2**70)])}\n"
                         for i in range(rng.randint(1, 100)))  # fmt: skip
    for parse, text, fields in [("parse_run", run_text, 6), ("parse_qrel", qrels_text, 4)]:
        path = tmp_path / parse
        path.write_text(text)
        assert nested._split_regular(text.encode(), fields) is not None  # the polars path is the one tested
        with open(path) as f:
            got = getattr(dropin, parse)(f)
        want = getattr(pytrec_eval, parse)(io.StringIO(text))
        assert type(got) is type(want) and _nested_items(got) == _nested_items(want)


def _nested_items(d: dict) -> list:
    return [(q, type(v).__name__, list(v.items()), [type(x) for x in v.values()]) for q, v in d.items()]


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 1e-3 tag\n2\tQ0 d1 1 -0 tag\n 1 Q0 d3 3 7 tag \n",  # tab, spaces at the ends
        "1 Q0 d1 1 2.5 tag\r\n1  Q0 d2 2 1_000 tag\n\x0c2 Q0 d1 1 inf tag\n",  # CR, two spaces, float("1_000")
        "1 Q0 d1 1 nan tag\n1 Q0 d\u00e9 1 +Infinity tag\n1\u2003Q0 d2 1 1 tag\n",  # words, non-ASCII
        "1 Q0 d1 1 2.5 tag\n 1 Q0 d2 1 2.5 tag\n",
        "1 Q0 d1 1 2.5 tag \n",
        "1 Q0 d1 1 2.5 tag\n\n",  # spaces, blank
        "1 Q0 d1 1 2.5 tag\n\n1 Q0 d2 1 2.5 tag",
        "1 Q0 d1 1 2.5\n",
        "1 Q0 d1 1 2.5 tag x\n",
        "1 Q0 d1 1 2.5  tag\n",
        "1 Q0 d1 1 inf tag\n1 Q0 d2 1 -nan tag\n1 Q0 d3 1 1e tag\n",
        "\n",
        " ",
        "1 Q0 d1 1 0x1 tag",
    ],
)
def test_parsers_match_pytrec_eval_on_irregular_text(text, tmp_path):
    path = tmp_path / "run"
    path.write_text(text, encoding="utf-8", newline="")
    for newline in (None, ""):
        with (
            open(path, encoding="utf-8", newline=newline) as f,
            open(path, encoding="utf-8", newline=newline) as g,
        ):
            want, got = _outcome(pytrec_eval.parse_run, f), _outcome(dropin.parse_run, g)
        assert got == want


def _outcome(parse, f) -> str:
    """What a parser gives, as text (repr: NaN equal to NaN), or the class of the exception it raises."""
    try:
        return repr(_nested_items(parse(f)))
    except (AssertionError, ValueError) as exc:
        return type(exc).__name__


def test_parsers_raise_pytrec_eval_s_errors():
    for bad, error in [("1 Q0 d1 1 2.5 t\n1 Q0 d1 2 2.5 t\n", AssertionError), ("1 Q0 d1 1 2.5\n", ValueError),
                       ("1 Q0 d1 1 x t\n", ValueError), ("1 Q0 d1 1 2.5 t\n\n", ValueError)]:  # fmt: skip
        with pytest.raises(error):
            pytrec_eval.parse_run(io.StringIO(bad))
        with pytest.raises(error):
            dropin.parse_run(io.StringIO(bad))
    with pytest.raises(AssertionError):
        dropin.parse_qrel(io.StringIO("1 0 d1 1\n2 0 d1 1\n1 0 d1 0\n"))
    assert dropin.parse_run(["1 Q0 d1 1 2.5 t\n"]) == {"1": {"d1": 2.5}}  # any iterable of lines
    assert dropin.parse_run(io.StringIO("")) == {}


def test_importing_it_does_not_import_pytrec_eval():
    code = "import sys; from trecrs import pytrec_eval; print('pytrec_eval' in sys.modules, 'pytrec_eval_ext' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1", "ascii", "utf-16", "utf-8-sig"])
def test_parsers_read_from_where_the_file_is(tmp_path, encoding):
    """After a header line read with next() (the file cannot tell its position) or readline(), in any
    encoding (ASCII-reading ones are read as bytes), plain or gzipped; the file is left at its end."""
    text = "# h\u00e9ader\n1 Q0 d1 1 2.5 t\n1 Q0 d2 1 3.5 t\n2 Q0 d1 1 1e-3 t\n"
    if encoding == "ascii":
        text = text.replace("\u00e9", "e")
    (tmp_path / "run").write_text(text, encoding=encoding)
    with gzip.open(tmp_path / "run.gz", "wt", encoding=encoding) as f:
        f.write(text)
    for opener in (open, gzip.open):
        path = tmp_path / ("run" if opener is open else "run.gz")
        for skip in (next, lambda f: f.readline()):
            with opener(path, "rt", encoding=encoding) as f, opener(path, "rt", encoding=encoding) as g:
                skip(f)
                skip(g)
                assert (
                    dropin.parse_run(g)
                    == pytrec_eval.parse_run(f)
                    == {"1": {"d1": 2.5, "d2": 3.5}, "2": {"d1": 1e-3}}
                )
                assert g.read() == ""
