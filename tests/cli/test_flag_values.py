"""Every flag value trec_eval accepts is answered as trec_eval answers it (docs/trec_eval_compatibility.md).

``-l 0`` (every judged document relevant), ``-l -1`` and below (unjudged retrieved documents pass the
level test too, though num_rel counts judged ones only), ``-M 0`` (every run query evaluated on an empty
ranking) and ``-l``/``-M``/``-N`` text read with C's ``atol`` give the bytes of trec_eval 9.0.8 and 10.0, on
small files with every kind of judgment and on the golden data; ``-M -1``, on which both binaries crash, is
one clear error. The binaries are built from ../shared/tools (tests/fuzz/binaries.py); tests needing them
skip, saying why, without them.
"""

from __future__ import annotations

import subprocess

import pytest

import trecrs
from tests.conftest import GOLDEN
from tests.fuzz.binaries import Unavailable, binary
from tests.warned import warned

# judged 2, 1, 0, -1 (pooled but unjudged) and unjudged documents, ties, a query judged 0 only
QRELS = "1 0 d1 0\n1 0 d2 1\n1 0 d3 -1\n1 0 d4 2\n1 0 d6 1\n2 0 d1 0\n2 0 d7 3\n3 0 d2 0\n"
RUN = ("1 Q0 d1 1 3 t\n1 Q0 d2 2 2 t\n1 Q0 d3 3 1 t\n1 Q0 d5 4 0.5 t\n1 Q0 d8 5 0.5 t\n1 Q0 d4 6 0.1 t\n"
       "2 Q0 d1 1 1 t\n2 Q0 d9 2 0.7 t\n2 Q0 d7 3 0.2 t\n3 Q0 d2 1 1 t\n3 Q0 d3 2 1 t\n")  # fmt: skip
FLAGS = [["-l", "0"], ["-l", "-1"], ["-l", "-2"], ["-l", "-3"], ["-M", "0"], ["-M", "0", "-c"], ["-l", "-1", "-J"],
         ["-l", "0", "-M", "2"], ["-l", "2x"], ["-l", "x"], ["-M", "1e3"], ["-N", "-1"]]  # fmt: skip


def reference(version: str, *args) -> str:
    try:
        path = binary(version)
    except Unavailable as exc:
        pytest.skip(str(exc))
    return subprocess.run([path, *map(str, args)], capture_output=True, text=True, check=True).stdout


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.parametrize("version", ["9", "10"])
@pytest.mark.parametrize("flags", FLAGS, ids=" ".join)
def test_flag_values_give_the_binary_bytes(cli, files, version, flags):
    args = ["-q", *flags, "-m", "all_trec", *files]
    code, out, err = cli("eval", "--trec-eval-version", version, *args)
    assert code == 0, err
    assert out == reference(version, *args)


def test_text_read_as_atol_reads_it_is_said_once(cli, files):
    code, out, err = cli("eval", "-l", "x", "-M", "2x", "-m", "P.5", *files)
    assert code == 0
    assert "trecrs eval: warning: 'x' read as 0, as trec_eval reads its number options (C's atol)\n" in err
    assert "trecrs eval: warning: '2x' read as 2, as trec_eval reads its number options (C's atol)\n" in err
    assert out == cli("eval", "-l", "0", "-M", "2", "-m", "P.5", *files)[1]


def test_a_negative_depth_is_one_error(cli, files, tmp_path):
    """Both binaries die of a segmentation fault on -M -1; trecrs says why and writes nothing."""
    code, out, err = cli("eval", "-M", "-1", *files, "-o", tmp_path / "out")
    assert (code, out) == (2, "")
    assert err == (
        "trecrs eval: error: argument -M/--Max_retrieved_per_topic: must be 0 or more documents, got -1 "
        "(trec_eval crashes on a negative -M)\n"
    )
    assert not (tmp_path / "out").exists()


def test_the_library_and_every_engine_answer_level_0_and_depth_0(files):
    qrels, run = files
    expected = reference("9", "-q", "-l", "-1", "-M", "0", "-m", "all_trec", qrels, run)
    for engine in ("vectorized", "auto"):
        result = trecrs.evaluate(trecrs.read_qrels(qrels), trecrs.read_run(run), ["all_trec"], relevance_level=-1,
                                 depth=0, engine=engine)  # fmt: skip
        assert result.to_trec(per_query=True) == expected
    with (
        pytest.raises(trecrs.errors.UsageError, match="pytrec_eval refuses it"),
        warned("2 of 3 .* retrieve fewer than 5 documents"),
    ):
        trecrs.evaluate(qrels, run, ["P.5"], relevance_level=0, engine="pytrec_eval")
    with (
        pytest.raises(trecrs.errors.UsageError, match="cannot rank nothing"),
        warned("1 of 3 .* no relevant document at relevance level 1", "3 of 3 .* retrieve fewer than 5"),
    ):
        trecrs.evaluate(
            trecrs.read_qrels(qrels), trecrs.read_run(run), ["P.5"], depth=0, engine="pytrec_eval"
        )


def test_compare_takes_level_0_and_depth_0(cli, files, tmp_path):
    qrels, run = files
    (tmp_path / "run2").write_text(RUN.replace(" t\n", " u\n").replace("d5", "d6"))
    for flags in (["-l", "0"], ["-l", "-1", "-M", "0"]):
        code, out, err = cli("compare", *flags, "-m", "P.5", qrels, run, tmp_path / "run2")
        assert code == 0, err


@pytest.mark.skipif(
    not GOLDEN.exists(), reason="the golden data (../shared/data/bellogin2011_fold1) is absent"
)
@pytest.mark.parametrize("flags", [["-l", "0"], ["-l", "-1"], ["-M", "0"]], ids=" ".join)
def test_golden_runs_at_the_flag_edges(cli, flags):
    """The paper's own runs and qrels (graded 1-5): the edges answered as both binaries answer them."""
    qrels, run = GOLDEN / "runs_test_ratings" / "urels_th4.txt", GOLDEN / "runs_test_ratings" / "SVD_50.txt"
    for version in ("9", "10"):
        args = [*flags, "-m", "official", qrels, run]
        code, out, err = cli("eval", "--trec-eval-version", version, *args)
        assert code == 0, err
        assert out == reference(version, *args)


def test_depth_0_with_recommender_measures_only(cli, files, tmp_path):
    """Found by the memory sweep: -M 0 with recommender measures alone (no engine ranking) was an internal
    error; the recommender measures see the empty rankings (gini of no list is undefined)."""
    qrels, run = files
    (tmp_path / "train").write_text("1\td1\t4\t1\n2\td7\t3\t2\n")
    for version in ("9", "10"):
        code, out, err = cli("eval", "--trec-eval-version", version, "-M", "0", "-m", "gini.1", "--train",
                             tmp_path / "train", qrels, run)  # fmt: skip
        assert (code, out) == (0, ""), err
        assert "gini_1: undefined for every query; no summary value" in err


@pytest.mark.parametrize("measure", ["relstring.5", "all_trec"])
def test_depth_0_cuts_the_stand_in_rankings_of_10(cli, files, measure):
    """10.0's -c ranks a query missing from the run on one stand-in document; -M 0 cuts it too (relstring
    '' rather than '-')."""
    qrels, run = files
    qrels.write_text(QRELS + "4 0 d1 1\n")
    args = ["-q", "-c", "-M", "0", "-m", measure, qrels, run]
    code, out, err = cli("eval", "--trec-eval-version", "10", *args)
    assert code == 0, err
    assert out == reference("10", *args)
