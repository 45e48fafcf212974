"""The Python API: every input kind of evaluate() scores alike, the result object speaks trec_eval's text,
frames come back in the library they came in, split/qrels/run map column names, coverage warnings."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import trecrs
from trecrs.errors import InputError, TrecrsWarning, UsageError
from trecrs.protocol.candidates import candidate_set
from trecrs.protocol.qrels import make_qrels
from trecrs.protocol.runs import build_run

from .conftest import run_command, run_in_process

pd = pytest.importorskip("pandas")

QRELS = "1 0 10 2\n1 0 20 1\n1 0 30 0\n2 0 10 1\n2 0 40 2\n3 0 50 1\n"
RUN = (
    "1 Q0 10 1 0.9 sys\n1 Q0 30 2 0.5 sys\n1 Q0 20 3 0.25 sys\n1 Q0 60 4 0.125 sys\n"
    "2 Q0 40 1 2 sys\n2 Q0 20 2 1.5 sys\n2 Q0 10 3 1 sys\n2 Q0 50 4 0.5 sys\n"
    "3 Q0 10 1 3 sys\n3 Q0 20 2 2 sys\n3 Q0 50 3 1 sys\n3 Q0 30 4 0 sys\n"
)
MEASURES = ["map", "P.2,4", "ndcg_cut.4", "recip_rank", "num_q", "num_rel_ret", "gm_map"]
# by hand (the CLI's text is compared below): relevant ranks 1,3 / 1,3 / 3, so AP = 5/6, 5/6, 1/3 (map 2/3),
# RR = 1, 1, 1/3; P_2 = 1/2, 1/2, 0; P_4 = 2/4, 2/4, 1/4
EXPECTED = {
    "num_q": 3.0,
    "num_rel_ret": 5.0,
    "map": 2 / 3,
    "recip_rank": 7 / 9,
    "P_2": 1 / 3,
    "P_4": 1.25 / 3,
}


def _rows(text: str, cols: int) -> list[list[str]]:
    return [line.split()[:cols] for line in text.splitlines()]


QRELS_ROWS = [(q, d, int(r)) for q, _, d, r in _rows(QRELS, 4)]
RUN_ROWS = [(q, d, float(s)) for q, _, d, _, s, _ in _rows(RUN, 6)]


@pytest.fixture
def files(tmp_path):
    q, r = tmp_path / "t.qrels", tmp_path / "t.run"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def _nested(rows) -> dict:
    out: dict = {}
    for q, d, v in rows:
        out.setdefault(int(q), {})[int(d)] = v  # integer ids, as pandas users often have them
    return out


class _Ranx:
    """Stands for ranx's Qrels/Run: an object whose to_dict() gives {query: {doc: value}}."""

    def __init__(self, rows):
        self.rows = rows

    def to_dict(self):
        return {q: dict(d) for q, d in _nested(self.rows).items()}


def _inputs():
    qp = pl.DataFrame(QRELS_ROWS, schema=["query", "doc", "rel"], orient="row")
    rp = pl.DataFrame(RUN_ROWS, schema=["query", "doc", "score"], orient="row")
    return {
        "polars": (qp, rp),
        "pandas": (qp.to_pandas(), rp.to_pandas()),
        "pandas userId/itemId": (
            qp.rename({"query": "userId", "doc": "itemId", "rel": "relevance"}).to_pandas(),
            rp.rename({"query": "userId", "doc": "itemId", "score": "prediction"}).to_pandas(),
        ),
        "polars qid/docno integer ids": (
            qp.select(
                pl.col("query").cast(pl.Int64).alias("qid"),
                pl.col("doc").cast(pl.Int64).alias("docno"),
                pl.col("rel").alias("label"),
            ),
            rp.select(
                pl.col("query").cast(pl.Int64).alias("qid"),
                pl.col("doc").cast(pl.Int64).alias("docno"),
                "score",
            ),
        ),
        "dict of dicts": (_nested(QRELS_ROWS), _nested(RUN_ROWS)),
        "to_dict objects": (_Ranx(QRELS_ROWS), _Ranx(RUN_ROWS)),
        "trecrs results": (
            make_qrels(
                qp.select(
                    pl.col("query").alias("user"),
                    pl.col("doc").alias("item"),
                    pl.col("rel").cast(pl.Float64).alias("rating"),
                ),
                threshold=1,
                nonrelevant=True,
            ),
            _run_result(rp),
        ),
    }


def _run_result(rp: pl.DataFrame):
    """build_run's result ranking the run's own pairs (the test-ratings methodology on the run's pairs)."""
    pairs = rp.select(pl.col("query").alias("user"), pl.col("doc").alias("item"), pl.lit(1.0).alias("rating"))
    cands = candidate_set("test-ratings", pairs.head(0), pairs)
    return build_run(cands, rp.rename({"query": "user", "doc": "item"}), tag="sys")


@pytest.mark.parametrize("kind", list(_inputs()))
def test_every_input_kind_gives_the_summary_of_the_files(files, kind):
    expected = trecrs.evaluate(*files, MEASURES).summary
    assert {k: expected[k] for k in EXPECTED} == pytest.approx(EXPECTED, abs=1e-15)
    qrels, run = _inputs()[kind]
    if kind == "trecrs results":  # the judged non-relevant line (rel 0) is kept, as in the file
        assert qrels.qrels.height == len(QRELS_ROWS)
    got = trecrs.evaluate(qrels, run, MEASURES)
    assert got.summary == expected
    assert got.to_dict() == trecrs.evaluate(*files, MEASURES).to_dict()


def test_pandas_in_pandas_out_polars_otherwise(files):
    qp, rp = _inputs()["polars"]
    for qrels, run in [(qp.to_pandas(), rp), (qp, rp.to_pandas())]:
        res = trecrs.evaluate(qrels, run, ["P.2", "map"])
        assert isinstance(res.per_query, pd.DataFrame) and isinstance(res.tidy(), pd.DataFrame)
        assert list(res.per_query.columns) == ["query", "map", "P_2"]
        assert res.per_query["query"].tolist() == ["1", "2", "3"]
        assert res.per_query["P_2"].tolist() == [0.5, 0.5, 0.0]
    for given in [files, (qp, rp), _inputs()["dict of dicts"]]:
        res = trecrs.evaluate(*given, ["P.2", "map"])
        assert isinstance(res.per_query, pl.DataFrame)
        assert res.per_query["query"].to_list() == ["1", "2", "3"]
        assert res.per_query["map"].to_list() == pytest.approx([5 / 6, 5 / 6, 1 / 3], abs=1e-15)
        assert res.per_query["P_2"].to_list() == [0.5, 0.5, 0.0]


@pytest.mark.parametrize("flags", [[], ["-q"], ["-q", "-l", "2"], ["-c", "-M", "2"]])
def test_to_trec_is_the_cli_output_byte_for_byte(files, flags):
    measures = ["official", "relstring", "ndcg_cut.4"]
    via = run_command if flags == [] else run_in_process  # one round trip through a process
    cli = via("eval", *[x for m in measures for x in ("-m", m)], *flags, *files)
    assert cli.returncode == 0
    kw = {
        "relevance_level": 2 if "-l" in flags else 1,
        "average_all": "-c" in flags,
        "depth": 2 if "-M" in flags else None,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        res = trecrs.evaluate(*files, measures, **kw)
    assert res.to_trec(per_query="-q" in flags) == cli.stdout
    assert res.runid == "sys"


def test_summary_and_per_query_are_the_printed_lines(files):
    res = trecrs.evaluate(*files, MEASURES)
    lines = [line.split("\t") for line in res.to_trec(per_query=True).splitlines()]
    printed = {name.strip(): float(v) for name, q, v in lines if q == "all" and name.strip() != "runid"}
    assert printed == {
        k: round(v, 4) if k not in ("num_q", "num_rel_ret") else v for k, v in res.summary.items()
    }
    assert list(res.summary) == [
        "num_q",
        "num_rel_ret",
        "map",
        "gm_map",
        "recip_rank",
        "P_2",
        "P_4",
        "ndcg_cut_4",
    ]
    per_query = {(q, name.strip()): float(v) for name, q, v in lines if q != "all"}
    wide = res.per_query
    assert wide.columns == ["query", "num_rel_ret", "map", "recip_rank", "P_2", "P_4", "ndcg_cut_4"]
    for row in wide.iter_rows(named=True):
        for col in wide.columns[1:]:
            assert round(row[col], 4) == per_query[(row["query"], col)]
    tidy = res.tidy()
    assert tidy.filter(pl.col("query") == "all").height == len(res.summary)
    assert "EvaluationResult(runid='sys', queries=3: num_q=3, num_rel_ret=5, map=0.6667" in repr(res)


def test_evaluate_matrix_returns_the_same_result_type():
    import numpy as np

    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    res = trecrs.evaluate_matrix(
        qrels, np.array([[0.9, 0.1], [0.9, 0.1]]), ["u1", "u2"], ["a", "b"], measures=["P.1"]
    )
    assert isinstance(res, trecrs.EvaluationResult) and res.summary == {"P_1": 0.5}
    assert res.to_trec() == "P_1                   \tall\t0.5000\n"


def test_bad_inputs_are_clear_errors():
    good = {"q": {"d": 1}}
    with pytest.raises(
        UsageError, match=r"run: expected a path, a polars/pandas DataFrame or a dict .* got list"
    ):
        trecrs.evaluate(good, [("q", "d", 1.0)])
    with pytest.raises(UsageError, match=r"qrels dict: query 'q' maps to int, expected a dict \{doc: rel\}"):
        trecrs.evaluate({"q": 1}, {"q": {"d": 1.0}})
    with pytest.raises(InputError, match=r"run dict: query 'q', doc 'd': score 'x' is not a number"):
        trecrs.evaluate(good, {"q": {"d": "x"}})
    with pytest.raises(InputError, match=r"run DataFrame has NaN or missing values in column 'score'"):
        trecrs.evaluate(good, pd.DataFrame({"query": ["q"], "doc": ["d"], "score": [float("nan")]}))
    with pytest.raises(
        InputError, match=r"missing column\(s\) doc: the run DataFrame has \['query', 'score'\]"
    ):
        trecrs.evaluate(good, pl.DataFrame({"query": ["q"], "score": [1.0]}))
    with pytest.raises(InputError, match="relevance values in column 'rel' must be integers"):
        trecrs.evaluate(pl.DataFrame({"query": ["q"], "doc": ["d"], "rel": [0.5]}), {"q": {"d": 1.0}})


# --------------------------------------------------------------------------------------------- warnings

WARN_QRELS = "".join(f"{q} 0 d{q} {1 if q < 9 else 0}\n" for q in range(1, 11))  # q10: nothing relevant
# q1..q3 have no ranking; q11, q12 have no qrels; q4..q10 are evaluated with 2 documents each
WARN_RUN = "".join(f"{q} Q0 d{q} 1 1 s\n{q} Q0 x 2 0.5 s\n" for q in range(4, 13))
WARNINGS = [
    "3 of 10 (30.0%) qrels queries have no line in the run: left out of the averages, as trec_eval does "
    "(-c would count them, scoring 0)",
    "2 of 9 (22.2%) run queries have no qrels: not evaluated, as trec_eval does",
    "2 of 7 (28.6%) evaluated queries have no relevant document at relevance level 1: they score 0 on most "
    "measures",
    "7 of 7 (100.0%) evaluated queries retrieve fewer than 1,000 documents, the deepest cutoff asked for: the "
    "missing ranks are counted as non-relevant",
]


@pytest.fixture
def warn_files(tmp_path):
    q, r = tmp_path / "w.qrels", tmp_path / "w.run"
    q.write_text(WARN_QRELS)
    r.write_text(WARN_RUN)
    return q, r


@pytest.mark.parametrize("engine", ["vectorized", "pytrec_eval"])  # the lean file path, the frame path
def test_coverage_warnings_on_both_paths(warn_files, engine):
    with pytest.warns(TrecrsWarning) as caught:
        res = trecrs.evaluate(*warn_files, ["P.5,1000", "map"], engine=engine)
    assert [str(w.message) for w in caught] == WARNINGS
    assert res.summary["P_5"] == pytest.approx(5 / 7 / 5)
    qrels = pl.DataFrame(
        [(q, d, int(r)) for q, _, d, r in _rows(WARN_QRELS, 4)], schema=["qid", "docno", "rel"], orient="row"
    )
    run = pl.DataFrame(
        [(q, d, float(s)) for q, _, d, _, s, _ in _rows(WARN_RUN, 6)],
        schema=["user", "item", "score"],
        orient="row",
    )
    with pytest.warns(TrecrsWarning) as caught:
        trecrs.evaluate(qrels, run, ["P.5,1000", "map"])
    assert [str(w.message) for w in caught] == WARNINGS


def test_default_cutoffs_and_covered_runs_do_not_warn(files):
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrecrsWarning)
        trecrs.evaluate(*files, ["official", "P.4"])  # official's P goes to 1000: a default, not asked for


def test_depth_and_level_enter_the_warnings(warn_files):
    with pytest.warns(TrecrsWarning) as caught:
        trecrs.evaluate(*warn_files, ["P.2"], depth=1, relevance_level=2, average_all=True)
    assert [str(w.message) for w in caught] == [
        WARNINGS[1],
        "7 of 7 (100.0%) evaluated queries have no relevant document at relevance level 2: they score 0 on most "
        "measures",
        "7 of 7 (100.0%) evaluated queries retrieve fewer than 2 documents, the deepest cutoff asked for: the "
        "missing ranks are counted as non-relevant",
    ]


def test_the_cli_prints_each_warning_once_and_quiet_silences_them(cli, warn_files):
    code, out, err = cli("eval", "-m", "P.5,1000", "-m", "map", *warn_files)
    assert code == 0 and err == "".join(f"trecrs eval: warning: {w}\n" for w in WARNINGS)
    code, quiet_out, err = cli("eval", "--quiet", "-m", "P.5,1000", "-m", "map", *warn_files)
    assert code == 0 and err == "" and quiet_out == out


# --------------------------------------------------------------------------------------------- split, qrels, run

MOVIELENS = pl.DataFrame({
    "userId": [1, 1, 1, 2, 2, 2], "movieId": [10, 20, 30, 10, 40, 50],
    "rating": [4.0, 3.0, 5.0, 2.0, 4.5, 5.0], "timestamp": [1, 2, 3, 1, 2, 3],
})  # fmt: skip


def test_split_maps_userid_and_movieid_of_a_frame():
    (auto,) = trecrs.split(MOVIELENS.to_pandas(), "temporal", last=1)
    assert auto.test.select("user", "item", "rating").rows() == [("1", "30", 5.0), ("2", "50", 5.0)]
    renamed = MOVIELENS.rename({"userId": "who", "movieId": "what", "rating": "stars"})
    (mapped,) = trecrs.split(
        renamed, "temporal", last=1, columns="user=who,item=what,rating=stars,timestamp=timestamp"
    )
    assert mapped.test.equals(auto.test) and mapped.train.equals(auto.train)
    (by_position,) = trecrs.split(
        renamed, "temporal", last=1, columns={"user": 1, "item": 2, "rating": 3, "timestamp": 4}
    )
    assert by_position.test.equals(auto.test)


def test_split_passes_columns_to_a_path(tmp_path):
    path = tmp_path / "r.csv"
    MOVIELENS.rename({"userId": "a", "movieId": "b", "rating": "c", "timestamp": "d"}).write_csv(path)
    (s,) = trecrs.split(path, "temporal", last=1, columns="user=a,item=b,rating=c,timestamp=d")
    assert s.test.select("user", "item").rows() == [("1", "30"), ("2", "50")]


def test_qrels_and_run_from_frames_with_movielens_names():
    (s,) = trecrs.split(MOVIELENS, "temporal", last=1)
    q = trecrs.qrels(s.test.to_pandas().rename(columns={"user": "userId", "item": "movieId"}), threshold=4)
    assert q.rows() == [("1", "0", "30", 5), ("2", "0", "50", 5)]
    scores = pl.DataFrame({"user": ["1", "2"], "item": ["30", "50"], "score": [0.5, 0.25]})
    run = trecrs.run(scores, methodology="test-ratings", train=s.train, test=s.test, tag="t")
    assert run.select("query", "doc", "rank", "tag").rows() == [("1", "30", 1, "t"), ("2", "50", 1, "t")]
    assert trecrs.evaluate(q, run, ["P.1"]).summary == {"P_1": 1.0}


def test_run_recognises_score_columns_of_a_pandas_frame():
    (s,) = trecrs.split(MOVIELENS, "temporal", last=1)
    scores = pd.DataFrame({"userID": ["1", "2"], "itemID": ["30", "50"], "prediction": [0.5, 0.25]})
    run = trecrs.run(
        scores,
        methodology="test-ratings",
        train=s.train,
        test=s.test,
        columns="user=userID,item=itemID,score=prediction",
    )
    assert run.select("query", "doc").rows() == [("1", "30"), ("2", "50")]
