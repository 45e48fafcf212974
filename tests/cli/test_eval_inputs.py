"""Bad inputs to `trecrs eval`: one clear line on stderr naming file and line, non-zero exit, no output
file left behind; and the tolerant side of the readers (whitespace, CRLF, .gz, comments)."""

from __future__ import annotations

import gzip
import json

import polars as pl
import pytest

import trecrs
from trecrs.files.trec import run_tag

from ..conftest import run_command, run_in_process, write
from ..warned import warned

GOOD_QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"
GOOD_RUN = "1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n2 Q0 c 1 0.3 t\n"


BAD_INPUTS = [
    ("qrels", "1 0 a 1\n1 0 b 0 extra\n", 2, "expected 4 fields"),
    ("qrels", "1 0 a 1\n1 0 b\n", 2, "expected 4 fields"),
    ("qrels", "1 0 a 1\n\n1 0 b 0.5\n", 3, "relevance must be an integer"),
    ("qrels", "1 0 a 1\n1 0 b 0\n1 0 a 2\n", 3, "duplicate qrels entry"),
    ("qrels", "", None, "empty file"),
    ("run", "1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5\n", 2, "expected at least 6 fields"),
    ("run", "1 Q0 a 1 0.9 t\n1 Q0 b 2 nan t\n", 2, "score is NaN"),
    ("run", "1 Q0 a 1 0.9 t\n1 Q0 b 2 high t\n", 2, "score is not a number"),
    ("run", "# header comment\n1 Q0 a 1 0.9 t\n1 Q0 a 2 0.5 t\n", 3, "duplicate run entry"),
    ("run", "\n\n", None, "empty file"),
]


@pytest.mark.parametrize("which,text,line,reason", BAD_INPUTS)
def test_bad_input_is_one_clear_line(tmp_path, which, text, line, reason):
    qrels = write(tmp_path / "qrels.txt", text if which == "qrels" else GOOD_QRELS)
    runf = write(tmp_path / "run.txt", text if which == "run" else GOOD_RUN)
    out = tmp_path / "out.tsv"
    via = run_command if (which, text) == BAD_INPUTS[0][:2] else run_in_process  # one round trip is enough
    proc = via("eval", "-o", out, qrels, runf)
    assert proc.returncode != 0
    assert proc.stdout == ""
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1, proc.stderr
    bad = qrels if which == "qrels" else runf
    where = f"{bad}:{line}:" if line else f"{bad}:"
    assert where in err[0]
    assert reason in err[0]
    assert not out.exists()
    assert list(tmp_path.glob("*.tmp")) == []


def test_missing_file(tmp_path):
    proc = run_command("eval", tmp_path / "nope", tmp_path / "nope2")
    assert proc.returncode == 5
    assert "no such file" in proc.stderr


def test_unknown_measure_exit_code(tmp_path):
    qrels = write(tmp_path / "q", GOOD_QRELS)
    runf = write(tmp_path / "r", GOOD_RUN)
    proc = run_in_process("eval", "-m", "P@ten", qrels, runf)
    assert proc.returncode == 2
    assert "unknown measure 'P@ten'" in proc.stderr


def test_tolerant_layout(tmp_path):
    # tabs, repeated blanks, CRLF, leading blanks, comments, blank lines, extra run fields, gzip
    qrels = write(tmp_path / "q", "1\t0  a\t1\r\n  1 0 b 0\r\n\r\n# comment\n2 0 c 2")
    raw = "1 Q0 a 1 0.9 t extra fields\n1\tQ0\tb\t2\t0.5\tt\r\n2 Q0 c x 3e-1 last\n"
    runf = tmp_path / "r.gz"
    with gzip.open(runf, "wt") as fh:
        fh.write(raw)
    q = trecrs.read_qrels(qrels)
    assert q.rows() == [("1", "0", "a", 1), ("1", "0", "b", 0), ("2", "0", "c", 2)]
    with warned("r.gz: the rank column contradicts the scores on 1 of 3 lines"):  # the rank "x"
        r = trecrs.read_run(runf)
    assert r["doc"].to_list() == ["a", "b", "c"]
    assert r["score"].to_list() == [0.9, 0.5, 0.3]
    assert r["rank"].to_list() == [1, 2, None]  # the rank column is ignored; "x" is not an error
    assert run_tag(r) == "last"


def test_ids_stay_strings(tmp_path):
    q = trecrs.read_qrels(write(tmp_path / "q", "007 0 0010 1\n7 0 10 1\n"))
    assert q["query"].to_list() == ["007", "7"]
    assert q["doc"].to_list() == ["0010", "10"]


def test_negative_relevance_is_unjudged(tmp_path):
    qrels = write(tmp_path / "q", "1 0 a -1\n1 0 b 1\n")
    runf = write(tmp_path / "r", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    res = trecrs.evaluate(qrels, runf, ["relstring", "num_rel", "P.2"], judged_only=True).tidy()
    assert res.filter(pl.col("measure") == "num_rel")["value"].to_list() == [1, 1]
    # -J drops the unjudged a: b is first
    assert res.filter((pl.col("measure") == "P_2") & (pl.col("query") == "1"))["value"].item() == 0.5


# --------------------------------------------------------------------------------------------- formats


def test_several_runs_make_one_tidy_table(tmp_path, cli):
    qrels = write(tmp_path / "q", GOOD_QRELS)
    r1 = write(tmp_path / "r1", GOOD_RUN)
    r2 = write(tmp_path / "r2", "1 Q0 b 1 0.9 u\n1 Q0 a 2 0.5 u\n2 Q0 c 1 0.3 u\n")
    code, out, err = cli("eval", "-m", "recip_rank", qrels, r1, r2)
    assert code == 0, err
    assert out.splitlines() == [
        "run\tquery\tmeasure\tvalue",
        f"{r1}\tall\trecip_rank\t1.0",
        f"{r2}\tall\trecip_rank\t0.75",
    ]
    code, out, _ = cli("eval", "-q", "-m", "recip_rank", "--format", "json", qrels, r1, r2)
    rows = json.loads(out)
    assert {"run": str(r2), "query": "1", "measure": "recip_rank", "value": 0.5} in rows
    assert len(rows) == 6


def test_parquet_output_with_manifest(tmp_path, cli):
    qrels = write(tmp_path / "q", GOOD_QRELS)
    r1 = write(tmp_path / "r1", GOOD_RUN)
    out = tmp_path / "res.parquet"
    code, _, err = cli("eval", "-m", "P.1", "--format", "parquet", "-o", out, qrels, r1)
    assert code == 0, err
    df = pl.read_parquet(out)
    assert df.columns == ["run", "query", "measure", "value"]
    assert df.filter(pl.col("query") == "all")["value"].item() == 1.0
    manifest = json.loads((tmp_path / "res.parquet.manifest.json").read_text())
    assert manifest["kind"] == "evaluation"
    assert manifest["parameters"]["measures"] == ["P.1"]
    assert len(manifest["inputs"]["qrels"]["sha256"]) == 64


def test_trec_output_to_file_equals_stdout(tmp_path, cli):
    qrels = write(tmp_path / "q", GOOD_QRELS)
    r1 = write(tmp_path / "r1", GOOD_RUN)
    code, stdout, _ = cli("eval", "-q", qrels, r1)
    out = tmp_path / "res.txt"
    code2, nothing, _ = cli("eval", "-q", "-o", out, qrels, r1)
    assert code == code2 == 0 and nothing == ""
    assert out.read_text() == stdout


def test_written_run_reads_back_identically(tmp_path):
    run = pl.DataFrame({"query": ["2", "10", "10"], "doc": ["x", "9", "10"], "score": [1 / 3, 0.5, 0.5]})
    written = trecrs.write_run(run, tmp_path / "r.txt", tag="t1")
    text = (tmp_path / "r.txt").read_text()
    assert text == "2 Q0 x 1 0.3333333333333333 t1\n10 Q0 9 1 0.5 t1\n10 Q0 10 2 0.5 t1\n"
    back = trecrs.read_run(tmp_path / "r.txt")
    assert back.rows() == written.rows()


def test_relevance_level_below_one_is_refused_by_the_pytrec_eval_engine_only(tmp_path):
    """pytrec_eval's extension refuses a level below 1 ("should be positive"); the other engines answer it
    as trec_eval does (tests/cli/test_flag_values.py)."""
    qrels = write(tmp_path / "q", GOOD_QRELS)
    runf = write(tmp_path / "r", GOOD_RUN)
    proc = run_in_process("eval", "--engine", "pytrec_eval", "-l", "0", qrels, runf)
    assert proc.returncode == 2
    assert proc.stderr == (
        "trecrs eval: error: argument -l/--level_for_rel: must be at least 1 for the pytrec_eval "
        "engine (pytrec_eval refuses it), got 0: use --engine vectorized\n"
    )
    assert run_in_process("eval", "-l", "0", qrels, runf).returncode == 0
