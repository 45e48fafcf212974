"""The vectorized engine gives pytrec_eval's (trec_eval's own C code's) numbers on every query and measure.

A property test: hypothesis generates small qrels/run pairs built to hit trec_eval's corner cases — forced
score ties, scores that differ as doubles but tie as C floats (1.0 vs 1.0000000001), -0.0 vs 0.0, numeric
and string ids of different lengths (``"9"`` vs ``"10"``, ``"007"``, non-ASCII), queries only in the run or
only in the qrels, queries with no relevant document, negative (pooled but unjudged) qrels values,
relevance levels 1-3, values above 9 (relstring's ``>``), ``-J``, ``-M`` and ``-c`` — and every per-query
value and summary value must agree. The engines are compared bit for bit (NaN where trec_eval divides 0 by 0 included), which is stronger than
the |Δ| <= 1e-9 the engine promises; the printed trec_eval text must be byte-identical too.

Excluded by construction: a qrels query whose every value is negative. trec_eval reads stale memory from
the previous query there (``form_res_rels.c`` leaves ``num_rel_levels`` unset), so there is no reference.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trecrs.engines.base import ENGINES
from trecrs.evaluate import evaluate_full
from trecrs.measures.request import parse_measures
from trecrs.report.trec import format_trec

from ..warned import recorded, warned

QIDS = ["1", "2", "9", "10", "007", "q", "Q10", "é"]
DOCS = ["1", "2", "9", "10", "11", "100", "007", "7", "a", "B", "ab", "d-3", "é", "zz"]
SCORES = [0.0, -0.0, 0.5, 1.0, 1.0000000001, 1.00000001, 2.0, 2.5, -1.0, 3.0, 1e-30, 7.25]


@st.composite
def collections(draw):
    """A (qrels, run) pair of polars frames with trec_eval's corner cases."""
    qrels_q = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True))
    run_only = draw(st.lists(st.sampled_from([q for q in QIDS if q not in qrels_q]), max_size=2, unique=True))
    run_q = (
        draw(st.lists(st.sampled_from(qrels_q), min_size=1, max_size=len(qrels_q), unique=True)) + run_only
    )
    qrows = []
    for q in qrels_q:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=9, unique=True))
        rels = draw(
            st.lists(st.one_of(st.integers(-2, 4), st.just(12)), min_size=len(docs), max_size=len(docs))
        )
        if all(r < 0 for r in rels):
            rels[0] = draw(st.integers(0, 3))  # see module docstring
        if draw(st.booleans()) and len(rels) > 1:
            rels = [min(r, 0) for r in rels]  # a query with no relevant document
        qrows += [(q, d, r) for d, r in zip(docs, rels, strict=True)]
    rrows = []
    for q in run_q:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True))
        for d in docs:
            s = draw(st.one_of(st.sampled_from(SCORES), st.floats(-5, 5, allow_nan=False, width=32)))
            rrows.append((q, d, float(s)))
    order = draw(st.permutations(range(len(rrows))))
    rrows = [rrows[i] for i in order]
    qrels = pl.DataFrame(qrows, schema={"query": pl.Utf8, "doc": pl.Utf8, "rel": pl.Int64}, orient="row")
    run = pl.DataFrame(rrows, schema={"query": pl.Utf8, "doc": pl.Utf8, "score": pl.Float64}, orient="row")
    return qrels, run


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _compare(qrels, run, measures, **kw):
    with recorded() as said:  # the generated inputs may or may not warn: both engines say the same
        ref = evaluate_full(qrels, run, measures, engine="pytrec_eval", **kw)
    with recorded() as says:
        vec = evaluate_full(qrels, run, measures, engine="vectorized", **kw)
    assert says == said
    assert vec.per_query.columns == ref.per_query.columns
    assert vec.per_query.get_column("query").to_list() == ref.per_query.get_column("query").to_list()
    for col in ref.per_query.columns[1:]:
        x = ref.per_query.get_column(col).to_numpy()
        y = vec.per_query.get_column(col).to_numpy()
        both_nan = np.isnan(x) & np.isnan(y)
        assert (both_nan | (np.abs(x - y) <= 1e-9)).all(), col
        bad = ~(both_nan | (x == y))
        assert not bad.any(), (
            col,
            ref.per_query.get_column("query").filter(pl.Series(bad)).to_list(),
            x[bad],
            y[bad],
        )
    assert list(vec.summary) == list(ref.summary)
    for k in ref.summary:
        assert _same(vec.summary[k], ref.summary[k]), k
    assert format_trec(vec, per_query=True) == format_trec(ref, per_query=True)


FLAGS = st.fixed_dictionaries(
    {
        "relevance_level": st.integers(1, 3),
        "judged_only": st.booleans(),
        "average_all": st.booleans(),
        "depth": st.one_of(st.none(), st.integers(1, 6)),
    }
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("judged_only", [False, True])  # 150 examples with -J and 150 without: no long test
@SETTINGS
@given(collections(), FLAGS)
def test_all_trec_agrees_with_pytrec_eval(judged_only, data, flags):
    qrels, run = data
    _compare(qrels, run, ["all_trec"], **{**flags, "judged_only": judged_only})


PARAMETRISED = [
    "P.1,2,3,25",
    "recall.1,4",
    "ndcg_cut.1,2,5",
    "map_cut.2,3",
    "success.1,2",
    "relative_P.2,3",
    "iprec_at_recall.0.25,0.5,0.05",
    "Rprec_mult.0.5,1.5,3",
    "set_F.0.5",
    "utility.2,-1,0.5,0.25",
    "11pt_avg",
]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), FLAGS)
def test_parametrised_measures_agree(data, flags):
    qrels, run = data
    _compare(qrels, run, PARAMETRISED, **flags)


def test_vectorized_is_the_default_when_it_covers_the_request():
    from trecrs.evaluate import _choose_engine

    for spec in (["all_trec"], ["official"], ["set"], PARAMETRISED, ["P@10", "nDCG@50", "AP", "RR"]):
        assert _choose_engine("auto", parse_measures(spec)).name == "vectorized", spec
    for spec in (["ndcg.1=3,2=9"], ["11pt_avg.0.2,0.5,0.8"], ["G.1=0.5"], ["set_F.0.5,2"]):
        assert _choose_engine("auto", parse_measures(spec)).name == "vectorized", spec
    # utility with other than four coefficients is an error of m_utility.c, reported by the reference engine
    assert not ENGINES["vectorized"].supports(parse_measures(["utility.1,2"]))
    assert _choose_engine("auto", parse_measures(["utility.1,2"])).name == "pytrec_eval"


def test_hand_computed_example():
    """Ties broken by doc id descending (``"9"`` above ``"10"``), float32 collisions, -J and -l."""
    qrels = pl.DataFrame({"query": ["u1"] * 4, "doc": ["i1", "i2", "i9", "10"], "rel": [0, 2, 1, -1]})
    run = pl.DataFrame(
        {
            "query": ["u1"] * 5,
            "doc": ["i2", "i9", "i1", "i3", "10"],
            "score": [0.5, 0.5, 0.9, 0.1, 1.0000000001],
        }
    )
    # trec order: 10 (1.0), i1 (0.9), i9 (0.5, "i9" > "i2"), i2 (0.5), i3 (0.1)
    # rel list: -2 (unjudged), 0, 1, 2, -1 ; relevant (>=1) at ranks 3 and 4; num_rel = 2
    # i9 (1) and i2 (2) tied: ndcg_cut_5 at best (2 / log2(4) + 1 / log2(5)) / idcg = 0.5438, here 0.5174
    with warned(r"tied documents of different relevance move values in 1 of 1 evaluated queries \(100.0%\): "
                r"ndcg_cut_5 lies between 0.5174 and 0.5438 over tie orders"):  # fmt: skip
        ev = evaluate_full(
            qrels, run, ["map", "P.2,4", "recip_rank", "ndcg_cut.5", "bpref"], engine="vectorized"
        )
    row = ev.per_query.row(0, named=True)
    assert row["map"] == pytest.approx((1 / 3 + 2 / 4) / 2)
    assert row["P_2"] == 0.0 and row["P_4"] == 0.5
    assert row["recip_rank"] == pytest.approx(1 / 3)
    dcg = 1 / math.log2(4) + 2 / math.log2(5)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert row["ndcg_cut_5"] == pytest.approx(dcg / idcg)
    # bpref: one judged non-relevant (i1) above both relevant docs: 2 * (1 - 1/1) / 2 = 0
    assert row["bpref"] == 0.0
    # -J: i1, i9, i2 ; relevant (>=2): i2 at rank 3, tied with i9 at rank 2 (AP 1/3, or 1/2 with i2 first)
    with warned(r"tied documents of different relevance straddle cutoff 2 in 1 of 1 evaluated queries \(100.0%\); ties anywhere in the lists move the other measures in 1 of 1 evaluated "
                r"queries \(100.0%\): P_2 lies between 0.0000 and 0.5000, map lies between 0.3333 and 0.5000 over"):  # fmt: skip
        ev = evaluate_full(
            qrels, run, ["map", "P.2"], engine="vectorized", judged_only=True, relevance_level=2
        )
    row = ev.per_query.row(0, named=True)
    assert row["map"] == pytest.approx(1 / 3) and row["P_2"] == 0.0


LAYOUTS = [" ", "\t", "  "]  # the last one is irregular: read line by line


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(collections(), FLAGS, st.sampled_from(LAYOUTS))
def test_files_take_the_lean_path_and_agree(tmp_path, data, flags, sep):
    """``trecrs eval QRELS RUN``'s path: files read lean and ranked by the vectorized engine."""
    qrels, run = data
    qpath, rpath = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qpath.write_text("".join(f"{q}{sep}0{sep}{d}{sep}{r}\n" for q, d, r in qrels.iter_rows()))
    rpath.write_text("".join(f"{q}{sep}Q0{sep}{d}{sep}0{sep}{s!r}{sep}tag\n" for q, d, s in run.iter_rows()))
    with recorded() as said:  # the generated inputs may or may not warn: frames and files say the same
        ref = evaluate_full(
            qrels, run.with_columns(pl.lit("tag").alias("tag")), ["all_trec"], engine="pytrec_eval", **flags
        )
    with recorded() as says:
        fast = evaluate_full(qpath, rpath, ["all_trec"], **flags)
    assert says == said
    assert fast.per_query.columns == ref.per_query.columns
    assert format_trec(fast, per_query=True) == format_trec(ref, per_query=True)
    assert fast.relstrings == ref.relstrings


@pytest.mark.parametrize("qscale", [1, 1 << 30])  # small codes: one 64-bit key; huge codes: multi-key sort
def test_order_sorts_by_query_score_desc_doc_desc(qscale):
    from trecrs.ordering import order_rows as _order

    rng = np.random.default_rng(7)
    n = 5000
    q = (rng.integers(0, 40, n) * qscale).astype(np.int64)
    d = rng.permutation(np.arange(n, dtype=np.int64) * 3)  # unique docs
    s = rng.choice(np.array([0.0, -0.0, 1.0, 1.5, -2.0, 3.25], dtype=np.float32), n)
    perm = _order(q, np.where(s == 0, np.float32(0), s), d)
    expected = np.lexsort((-d, -s.astype(np.float64), q))
    assert (perm == expected).all()
