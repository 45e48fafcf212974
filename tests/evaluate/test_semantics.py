"""trec_eval semantics of `trecrs eval` / `trecrs.evaluate`: ordering and ties, -c, -l, -M, -J, query
selection, and exact output lines. Expected values are computed by hand in the comments."""

from __future__ import annotations

import math

import polars as pl
import pytest

import trecrs
from trecrs.ordering import trec_order

from ..conftest import write
from ..warned import warned


def run_df(rows):
    return pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row")


def qrels_df(rows):
    return pl.DataFrame(rows, schema=["query", "doc", "rel"], orient="row")


def value(df: pl.DataFrame, measure: str, query: str = "all") -> float:
    hit = df.filter((pl.col("query") == query) & (pl.col("measure") == measure))
    assert hit.height == 1, (measure, query, df)
    return hit.item(0, "value")


# --------------------------------------------------------------------------------------------- ordering


def _rr(qrels, run, lo: str, hi: str) -> float:
    """recip_rank of a run whose relevant document is tied with another: the tie warning gives its range."""
    with warned(
        rf"move values in 1 of 1 evaluated queries \(100.0%\): recip_rank lies between {lo} and {hi} over"
    ):
        return value(trecrs.evaluate(qrels, run, ["recip_rank"]).tidy(), "recip_rank")


def test_tie_broken_by_doc_id_descending():
    run = run_df([("u1", "i2", 0.5), ("u1", "i9", 0.5), ("u1", "i1", 0.9), ("u1", "i3", 0.1)])
    ordered = trec_order(run)
    assert ordered["doc"].to_list() == ["i1", "i9", "i2", "i3"]
    assert ordered["rank"].to_list() == [1, 2, 3, 4]
    # and the scorer agrees: i9 relevant -> found at rank 2; i2 relevant -> rank 3
    assert _rr(qrels_df([("u1", "i9", 1)]), run, "0.3333", "0.5000") == 0.5
    assert _rr(qrels_df([("u1", "i2", 1)]), run, "0.3333", "0.5000") == pytest.approx(1 / 3)


def test_tie_is_bytewise_so_9_ranks_above_10():
    run = run_df([("q", "10", 0.5), ("q", "9", 0.5)])
    assert trec_order(run)["doc"].to_list() == ["9", "10"]
    assert _rr(qrels_df([("q", "10", 1)]), run, "0.5000", "1.0000") == 0.5
    assert _rr(qrels_df([("q", "9", 1)]), run, "0.5000", "1.0000") == 1.0


def test_scores_compared_as_float32():
    # 1.000000001 rounds to 1.0f: a tie, broken by doc id descending ("b" first)
    tie = run_df([("q", "a", 1.000000001), ("q", "b", 1.0)])
    assert trec_order(tie)["doc"].to_list() == ["b", "a"]
    assert _rr(qrels_df([("q", "a", 1)]), tie, "0.5000", "1.0000") == 0.5
    # 1.0000001 is a different float32: no tie
    no_tie = run_df([("q", "a", 1.0000001), ("q", "b", 1.0)])
    assert trec_order(no_tie)["doc"].to_list() == ["a", "b"]


def test_negative_zero_ties_with_zero():
    run = run_df([("q", "a", -0.0), ("q", "b", 0.0)])
    assert trec_order(run)["doc"].to_list() == ["b", "a"]


def test_rank_column_is_ignored(tmp_path, cli):
    qrels = write(tmp_path / "q", "1 0 a 1\n")
    # ranks claim a is first, scores say b is first
    runf = write(tmp_path / "r", "1 Q0 a 1 0.1 t\n1 Q0 b 2 0.9 t\n")
    code, out, _ = cli("eval", "-m", "recip_rank", qrels, runf)
    assert code == 0
    assert out == "recip_rank            \tall\t0.5000\n"


# --------------------------------------------------------------------------------------------- selection

QRELS = [
    ("q1", "a", 2),
    ("q1", "b", 1),
    ("q1", "c", 0),
    ("q2", "a", 1),  # q2 is not in the run
    ("q3", "x", 0),  # q3 has no relevant document
]
RUN = [
    ("q1", "a", 3.0),
    ("q1", "z", 2.0),  # not judged
    ("q1", "b", 1.0),
    ("q3", "x", 1.0),
    ("q9", "a", 1.0),  # q9 is not in the qrels
]
# what evaluate says of QRELS and RUN: q2 left out, q9 not evaluated, q3 has no relevant document; and, for a
# cutoff beyond q1's three documents, short rankings
MISSING = "1 of 3 .* qrels queries have no line in the run"
NO_QRELS = "1 of 3 .* run queries have no qrels"
NO_REL = "1 of 2 .* have no relevant document"
SHORT = "evaluated queries retrieve fewer than"
SELECTION = (MISSING, NO_QRELS, NO_REL)


def test_queries_evaluated_are_run_and_qrels_intersection():
    with warned(*SELECTION):
        res = trecrs.evaluate(qrels_df(QRELS), run_df(RUN), ["num_q", "map", "num_ret", "num_rel"]).tidy()
    assert value(res, "num_q") == 2  # q1 and q3; q2 (qrels only) and q9 (run only) ignored
    # q1: relevant a at 1, b at 3 -> AP = (1/1 + 2/3)/2 = 0.8333; q3: no relevant -> 0
    assert value(res, "map", "q1") == pytest.approx((1 + 2 / 3) / 2)
    assert value(res, "map", "q3") == 0.0
    assert value(res, "map") == pytest.approx((1 + 2 / 3) / 4)
    assert value(res, "num_ret") == 4  # q9's document is not counted
    assert value(res, "num_rel") == 2
    assert set(res["query"]) == {"q1", "q3", "all"}


@pytest.mark.parametrize("version", [9, 10])
def test_average_all_counts_missing_queries_as_zero(version):
    with warned(NO_QRELS, NO_REL, SHORT):  # -c counts q2
        res = trecrs.evaluate(qrels_df(QRELS), run_df(RUN), ["num_q", "map", "gm_map", "num_rel", "num_ret", "P.5"],
                              average_all=True, trec_eval_version=version).tidy()  # fmt: skip
    assert value(res, "num_q") == 3  # q1, q2 (missing from the run) and q3
    assert value(res, "map") == pytest.approx((1 + 2 / 3) / 2 / 3)
    assert value(res, "num_rel") == 3  # q2's relevant document still counts
    assert value(res, "num_ret") == 4
    ap1 = (1 + 2 / 3) / 2
    assert value(res, "gm_map") == pytest.approx(math.exp((math.log(ap1) + 2 * math.log(1e-5)) / 3))
    if version == 9:  # 9.0.8 prints no line for q2
        assert "q2" not in res.get_column("query").to_list()
    else:  # 10.0 evaluates q2 on a one-document stand-in ranking
        assert value(res, "map", "q2") == 0.0
        assert value(res, "num_ret", "q2") == 0


def test_relevance_level():
    with warned(MISSING, NO_QRELS, "1 of 2 .* no relevant document at relevance level 2", SHORT):
        res = trecrs.evaluate(
            qrels_df(QRELS), run_df(RUN), ["P.1,3", "num_rel", "ndcg"], relevance_level=2
        ).tidy()
    # only q1/a (rel 2) is relevant at level 2
    assert value(res, "P_1", "q1") == 1.0
    assert value(res, "P_3", "q1") == pytest.approx(1 / 3)
    assert value(res, "num_rel", "q1") == 1
    # nDCG ignores -l: gains are the raw values 2 (rank 1) and 1 (rank 3); ideal 2, 1
    dcg = 2 + 1 / math.log2(4)
    idcg = 2 + 1 / math.log2(3)
    assert value(res, "ndcg", "q1") == pytest.approx(dcg / idcg)


def test_depth_keeps_first_n_after_ordering():
    with warned(*SELECTION, SHORT):
        res = trecrs.evaluate(
            qrels_df(QRELS), run_df(RUN), ["num_ret", "num_rel_ret", "recall.5"], depth=2
        ).tidy()
    assert value(res, "num_ret", "q1") == 2  # a, z
    assert value(res, "num_rel_ret", "q1") == 1
    assert value(res, "recall_5", "q1") == 0.5


def test_judged_only_removes_unjudged_documents():
    with warned(*SELECTION, SHORT):
        res = trecrs.evaluate(qrels_df(QRELS), run_df(RUN), ["P.2", "num_ret"], judged_only=True).tidy()
    # q1 without z: a, b -> P_2 = 1
    assert value(res, "P_2", "q1") == 1.0
    assert value(res, "num_ret", "q1") == 2
    with warned(*SELECTION, SHORT):
        plain = trecrs.evaluate(qrels_df(QRELS), run_df(RUN), ["P.2"]).tidy()
    assert value(plain, "P_2", "q1") == 0.5


def test_no_common_query_is_an_error():
    with pytest.raises(trecrs.UsageError, match="no queries"):
        trecrs.evaluate(qrels_df([("q1", "a", 1)]), run_df([("q2", "a", 1.0)]), ["map"])


def test_pandas_frames_are_accepted():
    pd = pytest.importorskip("pandas")
    q = pd.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "rel": [1, 0]})
    r = pd.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "score": [0.1, 0.2]})
    rows = trecrs.evaluate(q, r, ["recip_rank"]).tidy()  # pandas in, pandas out
    assert isinstance(rows, pd.DataFrame)
    assert value(pl.from_pandas(rows), "recip_rank") == 0.5


# --------------------------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    "ir,trec",
    [
        ("P@10", "P.10"),
        ("nDCG@50", "ndcg_cut.50"),
        ("R@50", "recall.50"),
        ("AP", "map"),
        ("RR", "recip_rank"),
        ("Success@10", "success.10"),
        ("nDCG", "ndcg"),
    ],
)
def test_ir_measures_names(ir, trec):
    # an alias gives its target's values under the name as typed (docs/measures.md, Aliases)
    expected = (*SELECTION, SHORT) if "@" in ir else SELECTION  # a cutoff beyond q1's three documents
    with warned(*expected):
        res = trecrs.evaluate(qrels_df(QRELS), run_df(RUN), [ir]).tidy()
    with warned(*expected):
        ref = trecrs.evaluate(qrels_df(QRELS), run_df(RUN), [trec]).tidy()
    assert res.filter(pl.col("query") == "all")["measure"].to_list() == [ir]
    assert res["value"].to_list() == ref["value"].to_list()


@pytest.mark.parametrize("spec,trec", [("P_10", "P_10"), ("ndcg_cut.50", "ndcg_cut_50")])
def test_trec_eval_names(spec, trec):
    with warned(*SELECTION, SHORT):
        res = trecrs.evaluate(qrels_df(QRELS), run_df(RUN), [spec]).tidy()
    assert res.filter(pl.col("query") == "all")["measure"].to_list() == [trec]


def test_ir_measures_cutoffs_accumulate_and_trec_first_params_win():
    with warned(*SELECTION, SHORT):
        res = trecrs.evaluate(qrels_df(QRELS), run_df(RUN), ["P@10", "P@5"]).tidy()
    assert res.filter(pl.col("query") == "all")["measure"].to_list() == ["P@5", "P@10"]
    # trec_eval keeps the first parameter list given for a measure
    with warned(*SELECTION, SHORT):
        res = trecrs.evaluate(qrels_df(QRELS), run_df(RUN), ["P.5", "P.10"]).tidy()
    assert res.filter(pl.col("query") == "all")["measure"].to_list() == ["P_5"]


def test_unknown_measure_is_a_usage_error():
    with pytest.raises(trecrs.UsageError, match="unknown measure"):
        trecrs.parse_measures(["P@ten"])
    with pytest.raises(trecrs.UsageError, match="duplicate cutoffs"):
        trecrs.parse_measures(["P.5,5"])


# --------------------------------------------------------------------------------------------- printing


def test_per_query_output_lines(tmp_path, cli):
    qrels = write(tmp_path / "qrels", "1 0 10 5\n1 0 20 3\n1 0 30 1\n2 0 10 4\n2 0 40 2\n3 0 50 1\n")
    runf = write(
        tmp_path / "run",
        "1 Q0 10 1 0.9 demo\n1 Q0 30 2 0.5 demo\n1 Q0 9 3 0.5 demo\n1 Q0 20 4 0.1 demo\n"
        "2 Q0 40 1 2.0 demo\n2 Q0 10 2 1.0 demo\n2 Q0 60 3 1.0 demo\n4 Q0 10 1 1.0 demo\n",
    )
    code, out, err = cli(
        "eval",
        "-q",
        "-m",
        "num_q",
        "-m",
        "num_ret",
        "-m",
        "P.2",
        "-m",
        "relstring",
        "-m",
        "ndcg_cut.3",
        "-m",
        "gm_map",
        "-m",
        "runid",
        qrels,
        runf,
    )
    assert code == 0, err
    # q1 ranking: 10 (rel 5), 9 (unjudged; ties 30 and wins bytewise), 30 (rel 1), 20 (rel 3)
    # ndcg_cut_3(q1) = (5 + 1/log2 4) / (5 + 3/log2 3 + 1/log2 4) = 0.7440
    # q2 ranking: 40 (rel 2), 60 (unjudged), 10 (rel 4); ndcg_cut_3 = (2 + 4/2)/(4 + 2/log2 3) = 0.7602
    expected = (
        "num_ret               \t1\t4\n"
        "P_2                   \t1\t0.5000\n"
        "relstring             \t1\t'5-13'\n"
        "ndcg_cut_3            \t1\t0.7440\n"
        "num_ret               \t2\t3\n"
        "P_2                   \t2\t0.5000\n"
        "relstring             \t2\t'2-4'\n"
        "ndcg_cut_3            \t2\t0.7602\n"
        "runid                 \tall\tdemo\n"
        "num_q                 \tall\t2\n"
        "num_ret               \tall\t7\n"
        "gm_map                \tall\t0.8193\n"
        "P_2                   \tall\t0.5000\n"
        "ndcg_cut_3            \tall\t0.7521\n"
    )
    # gm_map: AP(q1) = (1/1 + 2/3 + 3/4)/3, AP(q2) = (1/1 + 2/3)/2 -> exp(mean(log)) = 0.8193
    ap1 = (1 + 2 / 3 + 3 / 4) / 3
    ap2 = (1 + 2 / 3) / 2
    assert "%6.4f" % math.sqrt(ap1 * ap2) == "0.8193"
    assert out == expected


def test_nosummary(tmp_path, cli):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n")
    runf = write(tmp_path / "run", "1 Q0 a 1 1 t\n")
    code, out, _ = cli("eval", "-n", "-q", "-m", "P.1", qrels, runf)
    assert (code, out) == (0, "P_1                   \t1\t1.0000\n")
    code, out, _ = cli("eval", "-n", "-m", "P.1", qrels, runf)
    assert (code, out) == (0, "")


def test_default_measures_are_official(tmp_path, cli):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n")
    runf = write(tmp_path / "run", "1 Q0 a 1 1 tagx\n")
    code, out, _ = cli("eval", qrels, runf)
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names[:12] == [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall_0.00",
        "iprec_at_recall_0.10",
    ]
    assert names[-9:] == ["P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000"]
    assert out.splitlines()[0] == "runid                 \tall\ttagx"
