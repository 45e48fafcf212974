"""trec_eval 10.0 mode (``--trec-eval-version 10``): each 10.0 difference against the 10.0 binary's bytes.

The expected outputs come from trec_eval 10.0 built from ``../shared/tools`` (:mod:`tests.fuzz.binaries`);
without it those tests skip, saying why. The 9.0.8 default is checked to stay as it was.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import polars as pl
import pytest

from tests.fuzz.run import Outcome, run_in_process
from trecrs import evaluate
from trecrs.errors import TrecrsWarning, UsageError

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 1\n2 0 c 1\n2 0 e 0\n"
RUN = (
    "1 Q0 a 1 1.000000001 r\n1 Q0 z 2 1.0 r\n1 Q0 b 3 0.5 r\n1 Q0 d 4 0.25 r\n"
    "2 Q0 y 1 2.0 r\n2 Q0 c 2 1.0 r\n2 Q0 e 3 -1.0 r\n"
)


def _binary() -> Path:
    from tests.fuzz.binaries import Unavailable, binary

    try:
        return binary("10")
    except Unavailable as exc:
        pytest.skip(f"trec_eval 10.0 unavailable: {exc}")


def _files(tmp_path: Path, qrels: str, run: str) -> tuple[Path, Path]:
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(qrels)
    r.write_text(run)
    return q, r


def _both(tmp_path, flags: list[str], qrels: str = QRELS, run: str = RUN, engine: str = "vectorized"):
    """(trec_eval 10.0's outcome, trecrs's with --trec-eval-version 10) for the same files and flags."""
    q, r = _files(tmp_path, qrels, run)
    done = subprocess.run([str(_binary()), *flags, str(q), str(r)], capture_output=True, check=False)
    te = Outcome(done.returncode, done.stdout)
    rs = run_in_process(
        ["eval", *flags, "--trec-eval-version", "10", "--engine", engine, "--quiet", str(q), str(r)]
    )
    return te, rs


@pytest.mark.parametrize(
    "flags",
    [
        ["-q", "-m", "P.1,2", "-m", "map"],  # 1.000000001 and 1.0 no longer tie (double ordering)
        ["-q", "-m", "rbp", "-m", "rbp_resid", "-m", "unj", "-m", "unj.1,3,7"],
        ["-q", "-m", "dcg", "-m", "ideal_dcg", "-m", "ndcg"],
        ["-q", "-m", "iprec_at_recall", "-m", "11pt_avg"],  # lround(0.1 * 3) == 0, not 1
        ["-q", "-m", "all_trec"],
        ["-m", "official"],
        ["-q", "-c", "-m", "all_trec"],
        ["-q", "-m", "rbp.p=0.8", "-m", "rbp_resid.p=0.5"],  # the persistence as a parameter
        ["-q", "-m", "rbp.p=0.5,p=0.95", "-m", "rbp_resid.1=2,p=0.6"],  # the last p= wins; levels ignored
        ["-J", "-m", "rbp.x=1,p=0.7"],  # a name that is not an integer is ignored
    ],
)
def test_matches_trec_eval_10(tmp_path, flags):
    te, rs = _both(tmp_path, flags)
    assert (rs.status, rs.stdout) == (te.status, te.stdout)


def test_auto_engine_picks_vectorized(tmp_path):
    te, rs = _both(tmp_path, ["-q", "-m", "all_trec"], engine="auto")
    assert (rs.status, rs.stdout) == (te.status, te.stdout)


def test_comment_lines(tmp_path):
    te, rs = _both(tmp_path, ["-q", "-m", "map"], "# judged\n" + QRELS, "# run r\n" + RUN + "# end\n")
    assert te.status == 0 and (rs.status, rs.stdout) == (te.status, te.stdout)


def test_qrels_query_missing_from_the_run_stops_with_status_4(tmp_path):
    te, rs = _both(tmp_path, ["-m", "map"], QRELS + "3 0 x 1\n")
    assert te.status == rs.status == 4 and te.stdout == rs.stdout == b""
    assert "qrels query '3' has no line in the run" in rs.stderr and "-c" in rs.stderr


def test_with_q_10_prints_the_queries_before_the_missing_one_trecrs_nothing(tmp_path):
    """10.0 evaluates the qrels' queries in bytewise order and stops at the first missing from the run: with
    -q the lines of the queries before it are already printed. trecrs, failing, writes nothing (by design)."""
    te, rs = _both(tmp_path, ["-q", "-m", "P.1", "-m", "map"], QRELS + "10 0 x 1\n")  # 1 < 10 < 2
    assert te.status == rs.status == 4
    whole, _ = _both(tmp_path, ["-q", "-m", "P.1", "-m", "map"])  # the same without query 10
    first = b"".join(line for line in whole.stdout.splitlines(keepends=True) if line.split(b"\t")[1] == b"1")
    assert te.stdout == first and first.count(b"\n") == 2 and rs.stdout == b""
    assert "qrels query '10' has no line in the run" in rs.stderr


def test_run_from_stdin(tmp_path):
    q, r = _files(tmp_path, QRELS, RUN)
    te = subprocess.run(
        [str(_binary()), "-q", "-m", "map", str(q), "-"], input=RUN.encode(), capture_output=True
    )
    import sys

    rs = subprocess.run(
        [sys.executable, "-m", "trecrs", "eval", "--trec-eval-version", "10", "-q", "-m", "map", str(q), "-"],
        input=RUN.encode(), capture_output=True, check=False,
    )  # fmt: skip
    assert (rs.returncode, rs.stdout) == (te.returncode, te.stdout)


def test_version_from_environment_and_invalid_value(tmp_path, monkeypatch):
    q, r = _files(tmp_path, QRELS, RUN)
    nine = run_in_process(["eval", "-m", "P.1", str(q), str(r)])
    monkeypatch.setenv("TRECRS_TREC_EVAL_VERSION", "10")
    ten = run_in_process(["eval", "-m", "P.1", str(q), str(r)])
    assert nine.stdout != ten.stdout  # 1.000000001 ranks above 1.0 only as doubles
    bad = run_in_process(["eval", "--trec-eval-version", "8", "-m", "P.1", str(q), str(r)])
    assert bad.status == 2 and "not supported" in bad.stderr


def test_library_keyword_and_9_default(tmp_path):
    q, r = _files(tmp_path, QRELS, RUN)
    p1 = lambda v: evaluate(str(q), str(r), "P.1", trec_eval_version=v).tidy().filter(query="1")["value"][0]  # noqa: E731
    with pytest.warns(
        TrecrsWarning,
        match=r"tied documents of different relevance straddle cutoff 1 in 1 of 2 evaluated queries .*: P_1 lies between 0.0000 and 0.5000",
    ):
        nine = p1(9)
    assert (nine, p1(10)) == (
        0.0,
        1.0,
    )  # 9.x: float tie, doc id "z" first (the tie report says so); 10.0: a first
    with pytest.raises(UsageError, match="10.0 measure"):
        evaluate(str(q), str(r), "rbp")
    with pytest.raises(UsageError, match="pytrec_eval"):
        evaluate(str(q), str(r), "map", engine="pytrec_eval", trec_eval_version=10)


@pytest.mark.parametrize("flags", [["-m", "relstring"], ["-m", "relstring.5"], ["-J", "-m", "relstring.5"]])
def test_stand_in_relstring_as_10(cli, tmp_path, flags):
    """10.0's -c: the bare `relstring` of a stand-in is emptied, `relstring_5` shows the stand-in ranking's."""
    (tmp_path / "q").write_text("13 Q0 9 1\n06 0 50 10\n13 Q0 50 2\n")
    (tmp_path / "r").write_text("13 Q0 14 0 4.4 run\n")
    code, out, _ = cli(
        "eval", "--trec-eval-version", "10", "-q", "-c", *flags, tmp_path / "q", tmp_path / "r"
    )
    name = "relstring" if flags[-1] == "relstring" else "relstring_5"
    stand_in = "''" if name == "relstring" or "-J" in flags else "'-'"
    assert (
        code == 0 and out == f"{name:<22}\t06\t{stand_in}\n{name:<22}\t13\t'{'' if '-J' in flags else '-'}'\n"
    )


def test_rbp_with_level_gains_is_declined_with_its_reason():
    """m_rbp.c normalises level=gain gains with uninitialised min/max: the value is leftover memory."""
    with pytest.raises(UsageError, match="docs/trec_eval_compatibility.md"):
        qrels = pl.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "rel": [2, 1]})
        run = pl.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
        evaluate(qrels, run, ["rbp.1=2"], trec_eval_version=10)


GRADED_RBP = (
    "1 of 2 (50.0%) evaluated queries have relevance values above 1: trec_eval 10.0's rbp normalises their gains "
    "with min and max it never initialises (m_rbp.c), so its values there are undefined; trecrs takes min and max "
    "over the query's gains"
)


@pytest.mark.parametrize("engine", ["vectorized", "auto"])
def test_rbp_on_graded_qrels_warns_that_10_reads_uninitialised_min_max(tmp_path, engine):
    """Query 1 has a grade above 1, query 2 only 0/1: one warning counting query 1, whatever the input path
    (files read by the engine, frames); the value is trecrs's rule, gains / the query's largest grade:
    (1 - 0.9) * (2/2 + 1/2 * 0.9) = 0.145 on query 1, (1 - 0.9) * 0.9 on query 2."""
    q, r = _files(tmp_path, "1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 c 1\n", "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n2 Q0 z 1 2 r\n"
                  "2 Q0 c 2 1 r\n")  # fmt: skip
    frames = (pl.read_csv(q, separator=" ", has_header=False, new_columns=["query", "iter", "doc", "rel"],
                          schema_overrides={"query": pl.Utf8}),
              pl.read_csv(r, separator=" ", has_header=False, new_columns=["query", "q0", "doc", "rank", "score", "tag"],
                          schema_overrides={"query": pl.Utf8}))  # fmt: skip
    for given in ((str(q), str(r)), frames):
        with pytest.warns(TrecrsWarning) as caught:
            res = evaluate(*given, ["rbp"], trec_eval_version=10, engine=engine)
        assert [str(w.message) for w in caught] == [GRADED_RBP]
        assert res.to_dict()["1"]["rbp"] == pytest.approx(0.1 * (1.0 + 0.5 * 0.9), abs=1e-15)
        assert res.to_dict()["2"]["rbp"] == pytest.approx(0.1 * 0.9, abs=1e-15)


def test_rbp_graded_warning_only_when_it_applies(tmp_path, cli):
    """No warning with grades 0/1, nor for other graded measures; all_trec asks for rbp (10.0); the command
    prints the warning as one line and the values unchanged."""
    import warnings

    q, r = _files(tmp_path, "1 0 a 1\n1 0 b 0\n2 0 c 3\n", "1 Q0 a 1 3 r\n2 Q0 c 1 1 r\n")
    binary_q = tmp_path / "binary"
    binary_q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrecrsWarning)
        evaluate(str(binary_q), str(r), ["rbp", "ndcg"], trec_eval_version=10)
        evaluate(str(q), str(r), ["ndcg", "rbp_resid"], trec_eval_version=10)
    with pytest.warns(TrecrsWarning, match=r"^1 of 2 \(50.0%\) evaluated queries have relevance values above 1: "
                      "trec_eval 10.0's rbp normalises"):  # fmt: skip
        evaluate(str(q), str(r), ["all_trec"], trec_eval_version=10)
    code, out, err = cli("eval", "--trec-eval-version", "10", "-m", "rbp", q, r)
    assert code == 0 and out == "rbp                   \tall\t0.1000\n"
    assert err == f"trecrs eval: warning: {GRADED_RBP}\n"
