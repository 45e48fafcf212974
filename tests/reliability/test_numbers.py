"""Every number read from a file or a flag has a valid range (trecrs/ranges.py, docs/errors.md "Numbers").

For each kind: a value at the edge of the range works and gives the real result (trec_eval 9.0.8's own
output where it applies), and a value just outside fails with its status and one exact line, writing
nothing to ``-o`` and leaving an existing output as it was.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import polars as pl
import pytest

from tests.fuzz.binaries import Unavailable, binary
from trecrs.data.splits import holdout
from trecrs.errors import UsageError

RUN = "1 Q0 d1 1 3.0 t\n1 Q0 d2 2 2.0 t\n1 Q0 d3 3 1.0 t\n"
OLD = "an earlier output\n"


def qrels_with(rel: str) -> str:
    """A qrels whose line 1 carries ``rel``; d2 is relevant (1), d4 judged non-relevant."""
    return f"1 0 d1 {rel}\n1 0 d2 1\n1 0 d4 0\n"


@pytest.fixture
def files(tmp_path):
    """Write named files into tmp_path; an existing ``out`` holds OLD."""
    (tmp_path / "out").write_text(OLD)
    (tmp_path / "run").write_text(RUN)

    def make(**texts: str) -> Path:
        for name, text in texts.items():
            (tmp_path / name).write_text(text)
        return tmp_path

    return make


def refused(cli, tmp_path: Path, args, code: int, line: str) -> None:
    """The command fails with ``code`` and ``line`` as its last stderr line; ``out`` is unchanged."""
    got, out, err = cli(*args, "-o", tmp_path / "out")
    assert (got, err.strip().splitlines()[-1]) == (code, line)
    assert out == ""
    assert (tmp_path / "out").read_text() == OLD
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out")) == ["out"]


def trec_eval(*args) -> str:
    """trec_eval 9.0.8's stdout (the binary built from ../shared/tools); skips, saying why, without it."""
    try:
        path = binary("9")
    except Unavailable as exc:
        pytest.skip(str(exc))
    return subprocess.run([path, *map(str, args)], capture_output=True, text=True, check=True).stdout


# --------------------------------------------------------------------------------------------- relevance


def test_large_grade_gives_trec_eval_output_byte_for_byte(cli, files):
    d = files(
        qrels=qrels_with("10000") + "2 0 d1 -5\n2 0 d3 7\n", run=RUN + "2 Q0 d1 1 3.0 t\n2 Q0 d3 2 2.0 t\n"
    )
    code, out, _ = cli("eval", "-q", "-m", "all_trec", d / "qrels", d / "run")
    assert code == 0
    assert out == trec_eval("-q", "-m", "all_trec", d / "qrels", d / "run")


@pytest.mark.parametrize("rel", ["2147483647", "-9223372036854775808"])
def test_grades_at_the_ends_of_the_range_are_evaluated_at_once(cli, files, rel):
    d = files(qrels=qrels_with(rel))
    start = time.monotonic()
    code, out, _ = cli("eval", "-m", "ndcg", "-m", "P.2", "-m", "num_rel", d / "qrels", d / "run")
    assert time.monotonic() - start < 5
    # 2147483647: both relevant documents on top; negative: d1 unjudged, one relevant at rank 2
    expected = ("2", "1.0000", "1.0000") if rel[0] != "-" else ("1", "0.5000", "0.6309")
    assert out == (
        f"num_rel               \tall\t{expected[0]}\nP_2                   \tall\t{expected[1]}\n"
        f"ndcg                  \tall\t{expected[2]}\n"
    )


@pytest.mark.parametrize("rel", ["2147483648", "-9223372036854775809", "99999999999999999999"])
def test_grades_outside_the_range_are_refused_naming_the_line(cli, files, rel):
    d = files(qrels=qrels_with(rel))
    line = (
        f"trecrs eval: error: {d / 'qrels'}:1: relevance {rel} is outside the supported range "
        "[-9223372036854775808, 2147483647]"
    )
    refused(cli, d, ["eval", "-m", "P.2", d / "qrels", d / "run"], 3, line)


def test_pytrec_eval_engine_takes_grades_up_to_1000(cli, files):
    d = files(qrels=qrels_with("1000"))
    code, out, _ = cli("eval", "--engine", "pytrec_eval", "-m", "ndcg", d / "qrels", d / "run")
    assert (code, out) == (0, "ndcg                  \tall\t1.0000\n")


@pytest.mark.parametrize(
    "engine_args",
    [["--engine", "pytrec_eval", "-m", "ndcg"], ["--engine", "pytrec_eval", "-m", "ndcg.1=0,2=3"]],
)
def test_pytrec_eval_engine_refuses_larger_grades_at_once(cli, files, engine_args):
    """1e8 would run for minutes in trec_eval's nDCG (and 2**31-1 crashed pytrec_eval)."""
    d = files(qrels=qrels_with("100000000"))
    start = time.monotonic()
    line = (
        f"trecrs eval: error: {d / 'qrels'}:1: relevance 100000000 is outside the range "
        "[-9223372036854775808, 1000] of the pytrec_eval engine (trec_eval's nDCG code takes minutes on "
        "larger grades); the vectorized engine takes up to 2147483647"
    )
    refused(cli, d, ["eval", *engine_args, d / "qrels", d / "run"], 3, line)
    assert time.monotonic() - start < 5


def test_parquet_grade_outside_the_range_names_the_row(cli, files):
    d = files()
    pl.DataFrame({"query": ["1", "1"], "doc": ["d1", "d2"], "rel": [1, 2**31]}).write_parquet(d / "q.parquet")
    line = (
        f"trecrs eval: error: {d / 'q.parquet'}: row 2: relevance 2147483648 is outside the supported range "
        "[-9223372036854775808, 2147483647]"
    )
    refused(cli, d, ["eval", "-m", "P.2", d / "q.parquet", d / "run"], 3, line)


# --------------------------------------------------------------------------------------------- ratings


def test_rating_at_the_bound_makes_qrels(cli, files):
    d = files(test="1\t1\t1000000000\n1\t2\t3\n")
    code, _, _ = cli("qrels", "--test", d / "test", "--threshold", "3", "-o", d / "q")
    assert code == 0
    assert (d / "q").read_text() == "1\t0\t1\t1000000000\n1\t0\t2\t3\n"


@pytest.mark.parametrize(("value", "reason"), [
    ("1e20", "rating 1e20 is outside the supported range [-1000000000, 1000000000]: '1\\t1\\t1e20'"),
    ("inf", "rating is not a finite number: 'inf' in '1\\t1\\tinf'"),
])  # fmt: skip
def test_rating_outside_the_range_is_refused_naming_the_line(cli, files, value, reason):
    d = files(test=f"1\t1\t{value}\n1\t2\t3\n")
    line = f"trecrs qrels: error: {d / 'test'}:1: {reason}"
    refused(cli, d, ["qrels", "--test", d / "test", "--threshold", "3"], 3, line)


def test_scaled_grades_beyond_the_largest_relevance_are_refused(cli, files):
    d = files(test="1\t1\t1000000000\n1\t2\t3\n")
    line = "trecrs qrels: error: ratings times the scale factor 4 reach 4e+09, beyond the largest relevance 2147483647"
    refused(cli, d, ["qrels", "--test", d / "test", "--threshold", "3", "--scale", "4"], 2, line)


def test_predictions_at_the_bound_and_beyond(cli, files):
    d = files(
        test="1\td1\t5\n1\td2\t3\n",
        q="1 0 d1 1\n",
        pok="1 d1 1000000000\n1 d2 3\n",
        pinf="1 d1 4\n1 d2 inf\n",
    )
    code, out, _ = cli(
        "eval", "-m", "mae", "--test", d / "test", "--predictions", d / "pok", d / "q", d / "run"
    )
    assert (code, out) == (0, "mae                   \tall\t499999997.5000\n")  # (1e9 - 5 + 0) / 2
    line = f"trecrs eval: error: {d / 'pinf'}:2: predicted rating inf is outside the supported range [-1000000000, 1000000000]"
    args = ["eval", "-m", "rmse", "--test", d / "test", "--predictions", d / "pinf", d / "q", d / "run"]
    refused(cli, d, args, 3, line)


# --------------------------------------------------------------------------------------------- -m parameters


def test_largest_cutoff_is_what_trec_eval_prints(cli, files):
    d = files(qrels=qrels_with("1"))
    code, out, _ = cli("eval", "-m", "P.9223372036854775807", d / "qrels", d / "run")
    assert (code, out) == (0, "P_9223372036854775807 \tall\t0.0000\n")


def test_cutoffs_are_read_as_c_atol_reads_them(cli, files):
    """trec_eval reads cutoffs with atol: ``1e20`` is 1 and ``23.4`` is 23; trecrs too, saying so."""
    d = files(qrels=qrels_with("1"))
    code, out, err = cli("eval", "-m", "P.1e20,23.4", d / "qrels", d / "run")
    assert (code, out.splitlines()[0].split()[0]) == (0, "P_1")
    assert "cutoff '1e20' read as 1" in err and "cutoff '23.4' read as 23" in err


@pytest.mark.parametrize(("measure", "reason"), [
    ("P.0", "cutoffs must be integers from 1 to 9223372036854775807"),
    ("P.-3", "cutoffs must be integers from 1 to 9223372036854775807"),
    ("relstring.1e20", "the length must be a number from -9223372036854775807 to 9223372036854775807"),
    ("relstring.nan", "the length must be a number from -9223372036854775807 to 9223372036854775807"),
])  # fmt: skip
def test_cutoffs_outside_the_range_are_refused(cli, files, measure, reason):
    d = files(qrels=qrels_with("1"))
    refused(
        cli,
        d,
        ["eval", "-q", "-m", measure, d / "qrels", d / "run"],
        2,
        f"trecrs eval: error: argument -m/--measure: measure {measure}: {reason}",
    )


@pytest.mark.parametrize(("measure", "reason"), [
    ("nmae.1,inf", "measure nmae.1,inf: parameters must be finite numbers"),
    ("nmae.-1e308,1e308", "rating range must be within [-1000000000, 1000000000], got -1e+308,1e+308"),
])  # fmt: skip
def test_recsys_parameters_must_be_finite_and_in_the_ratings_range(cli, files, measure, reason):
    d = files(qrels=qrels_with("1"), test="1\td1\t5\n", pred="1 d1 4\n")
    args = ["eval", "-m", measure, "--test", d / "test", "--predictions", d / "pred", d / "qrels", d / "run"]
    refused(cli, d, args, 2, f"trecrs eval: error: argument -m/--measure: {reason}")


# --------------------------------------------------------------------------------------------- flags


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_threshold_must_be_finite(cli, files, value):
    d = files(test="1\t1\t5\n")
    line = f"trecrs qrels: error: argument --threshold: must be a finite number, got '{value}'"
    refused(cli, d, ["qrels", "--test", d / "test", f"--threshold={value}"], 2, line)


@pytest.mark.parametrize("value", ["-1", "9223372036854775808"])
def test_seed_outside_the_range_is_a_usage_error(cli, files, value, tmp_path):
    d = files(r="1\t1\t5\t1\n1\t2\t3\t2\n")
    code, _, err = cli("split", d / "r", d / "sp", "--method", "holdout", "--ratio", "0.5", "--seed", value)
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        f"trecrs split: error: argument --seed: a seed must be an integer from 0 to 9223372036854775807, got '{value}'"
    )
    assert not (d / "sp").exists()


def test_largest_seed_splits(cli, files):
    d = files(r="1\t1\t5\t1\n1\t2\t3\t2\n")
    code, _, _ = cli(
        "split", d / "r", d / "sp", "--method", "holdout", "--ratio", "0.5", "--seed", "9223372036854775807"
    )
    assert code == 0 and (d / "sp" / "train").exists()


def test_library_seed_range():
    ratings = pl.DataFrame({"user": ["1"], "item": ["a"], "rating": [1.0], "timestamp": [1]})
    with pytest.raises(UsageError, match=r"^seed must be an integer from 0 to 9223372036854775807, got -1$"):
        holdout(ratings, seed=-1)


@pytest.mark.parametrize(("args", "said"), [
    (("-l", "99999999999999999999"), "'99999999999999999999' read as 9223372036854775807"),
    (("-M", "9223372036854775808"), "'9223372036854775808' read as 9223372036854775807"),
    (("-m", "P.99999999999999999999"), "cutoff '99999999999999999999' read as 9223372036854775807"),
])  # fmt: skip
def test_numbers_beyond_a_c_long_saturate_as_atol_does(cli, files, args, said):
    """trec_eval reads -l, -M and cutoffs with atol, which saturates to a C long: the same answer, one warning."""
    d = files(qrels=qrels_with("1"))
    argv = [*args, *(() if "-m" in args else ("-m", "P.2")), d / "qrels", d / "run"]
    code, out, err = cli("eval", *argv)
    assert code == 0 and said in err
    assert out == trec_eval(*argv)


def test_largest_depth_keeps_everything(cli, files):
    d = files(qrels=qrels_with("1"))
    code, out, _ = cli("eval", "-M", "9223372036854775807", "-m", "P.2", d / "qrels", d / "run")
    assert (code, out) == (0, "P_2                   \tall\t1.0000\n")


def test_synthetic_sizes_are_bounded(cli, tmp_path):
    code, _, err = cli("datasets", "synthetic", tmp_path / "syn", "--users", "1000001")
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        "trecrs datasets synthetic: error: argument --users: must be an integer from 1 to 1000000, got '1000001'"
    )
    assert not (tmp_path / "syn").exists()


def test_synthetic_pairs_are_bounded(cli, tmp_path):
    """Users and items each within range, but their product beyond the dense matrices' bound."""
    code, _, err = cli("datasets", "synthetic", tmp_path / "syn", "--users", "1000000", "--items", "1000000")
    assert (code, err.strip().splitlines()[-1]) == (2, (
        "trecrs datasets: error: arguments --users, --items: 1000000 users x 1000000 items is 1,000,000,000,000 pairs; the generator "
        "draws a dense users x items matrix and takes at most 4,000,000"))  # fmt: skip
    assert not (tmp_path / "syn").exists()


@pytest.mark.parametrize("folds", ["1001", "2147483647"])
def test_kfold_folds_are_bounded(cli, tmp_path, folds):
    """Every fold is two files named before the ratings are read: 2^31 folds would exhaust memory."""
    (tmp_path / "r.tsv").write_text("1\t1\t5\t1\n")
    code, _, err = cli(
        "split", "--method", "kfold", "--seed", "1", "--folds", folds, tmp_path / "r.tsv", tmp_path / "o"
    )
    assert (code, err.strip().splitlines()[-1]) == (2, (
        f"trecrs split: error: argument --folds/-k/--k: k-fold takes at most 1000 folds (each is a train and a test "
        f"file), got {folds}"))  # fmt: skip
    assert not (tmp_path / "o").exists()


def test_mf_factors_are_bounded(cli, files):
    d = files(train="1\t1\t5\n2\t1\t3\n", test="1\t2\t4\n")
    line = "trecrs recommend: error: argument -p/--param: mf: factors must be at most 4096 and iterations at most 1000"
    refused(
        cli,
        d,
        ["recommend", "-a", "mf", "-p", "factors=4097", "--train", d / "train", "--predict", d / "test"],
        2,
        line,
    )


def test_mf_work_is_bounded(cli, files):
    """Within the factor range, ALS's solves grow with (users + items) x factors^3 x iterations; its memory
    does not grow with the data (blocks), so the work is what is bounded."""
    d = files(train="1\t1\t5\n2\t1\t3\n", test="1\t2\t4\n")
    line = ("trecrs recommend: error: argument -p/--param: mf: 4096 factors and 1000 iterations on 3 users and items need 2.1e+14 "
            "operations; at most 1e+13: use fewer factors or iterations")  # fmt: skip
    argv = [
        "recommend",
        "-a",
        "mf",
        "-p",
        "factors=4096",
        "-p",
        "iterations=1000",
        "--train",
        d / "train",
        "--predict",
        d / "test",
    ]
    refused(cli, d, argv, 2, line)


def test_mf_blocks_do_not_change_a_bit(monkeypatch):
    """The ALS half-step in blocks of one row and one outer-product row gives the bytes of one block."""
    import numpy as np
    import scipy.sparse as sp

    from trecrs.recommenders import mf

    rng = np.random.default_rng(1)
    R = sp.random(60, 40, density=0.2, random_state=2, format="csr")
    R.data = rng.integers(1, 6, R.data.size).astype(float)
    other, bias = rng.normal(size=(40, 7)), rng.normal(size=40)
    whole = mf._als_side(R, other, bias, 3.5, 0.065)
    monkeypatch.setattr(mf, "MF_BLOCK_BYTES", 1)
    blocks = mf._als_side(R, other, bias, 3.5, 0.065)
    assert all(np.array_equal(a, b) for a, b in zip(whole, blocks, strict=True))


@pytest.mark.parametrize("level", ["2147483648", "9223372036854775807"])
def test_a_level_beyond_a_c_int_on_the_pytrec_eval_engine(cli, files, level):
    """trec_eval's extension takes the level as a C int; any level above the largest grade means nothing
    is relevant, so the pytrec_eval engine answers as the vectorized one (9.0.8 itself crashes there)."""
    d = files(qrels=qrels_with("3"))
    outs = [cli("eval", "--engine", e, "-q", "-l", level, "-m", "P.2", "-m", "map", "-m", "num_rel", d / "qrels", d / "run")[:2]
            for e in ("pytrec_eval", "vectorized")]  # fmt: skip
    assert outs[0] == outs[1] and outs[0][0] == 0
    assert "num_rel               \tall\t0\n" in outs[0][1]


def test_dask_partitions_are_bounded(cli, files):
    """Every partition is a file written and a task: refused before a cluster starts."""
    d = files(qrels=qrels_with("1"))
    line = "trecrs eval: error: argument --partitions: must be at most 4096, got 9223372036854775807"
    refused(
        cli,
        d,
        [
            "eval",
            "--engine",
            "dask",
            "--partitions",
            "9223372036854775807",
            "-m",
            "P.2",
            d / "qrels",
            d / "run",
        ],
        2,
        line,
    )


def test_f_beta_cutoff_is_a_c_long(cli, files):
    """f_beta's cutoff is read as a number: 1e308 is an integer, but no C long (polars overflowed, status 70)."""
    d = files(qrels=qrels_with("1"))
    line = ("trecrs eval: error: argument -m/--measure: measure f_beta: the cutoff must be a positive integer up to 9223372036854775807, "
            "got 1e+308")  # fmt: skip
    refused(cli, d, ["eval", "-m", "f_beta.1e308", d / "qrels", d / "run"], 2, line)
