"""``--ties`` in eval, compare, sensitivity and eval-factors, and the tie report of trec_eval's order."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from ..conftest import run_command

# q1: e 0.9 (not judged), then a, b, c tied at 0.5 (a: 1, b: 0, c: 2), d 0.2 (1); q2: x, y, z tied, x relevant
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 d 1\nq2 0 x 1\n"
RUN = ("q1 Q0 e 1 0.9 r\nq1 Q0 a 2 0.5 r\nq1 Q0 b 3 0.5 r\nq1 Q0 c 4 0.5 r\nq1 Q0 d 5 0.2 r\n"
       "q2 Q0 x 1 0.1 r\nq2 Q0 y 2 0.1 r\nq2 Q0 z 3 0.1 r\n")  # fmt: skip
# map by hand, best / worst: q1 (a, c) at 2, 3 and d at 5: (1/2 + 2/3 + 3/5) / 3 = 0.5889, or (1/3 + 2/4 + 3/5) / 3
# = 0.4778; q2 x at 1 or 3: 1 or 1/3. Means 0.7944 and 0.4056
REPORT = ("trecrs eval: warning: tied documents of different relevance straddle cutoff 2 in 2 of 2 evaluated queries "
          "(100.0%); ties anywhere in the lists move the other measures in 2 of 2 evaluated queries (100.0%): P_2 lies between 0.0000 and 0.5000, map lies between 0.4056 and 0.7944 over tie orders "
          "(--ties best/worst)\n")  # fmt: skip


@pytest.fixture
def t(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    return tmp_path


def test_modes_by_hand(cli, t):
    """P_2: q1's rank 2 holds a relevant document with probability 2/3, q2's ranks 1-2 hold x with 2/3."""
    values = {}
    for mode in ("trec_eval", "expected", "best", "worst"):
        code, out, err = cli("eval", "--quiet", "--ties", mode, "-m", "P.2", t / "q", t / "r")
        assert code == 0 and err == ""
        values[mode] = out
    assert values["trec_eval"] == "P_2                   \tall\t0.2500\n"
    assert values["expected"] == "P_2                   \tall\t0.3333\n"  # (1/3 + 1/3) / 2
    assert values["best"] == "P_2                   \tall\t0.5000\n"
    assert values["worst"] == "P_2                   \tall\t0.0000\n"


def test_the_report_is_one_warning_and_quiet_silences_it(t):
    """One round trip through a real process: the line on stderr, stdout trec_eval's bytes."""
    done = run_command("eval", "-m", "P.2", "-m", "map", t / "q", t / "r")
    assert done.returncode == 0
    assert done.stdout == "map                   \tall\t0.4333\nP_2                   \tall\t0.2500\n"
    assert done.stderr == REPORT


def test_no_report_without_a_tie_that_moves_a_value(cli, t):
    code, out, err = cli("eval", "-m", "P.1", "-m", "map", t / "q", t / "r")  # q2's tie starts at rank 1 ...
    assert "straddle cutoff 1 in 1 of 2 evaluated queries (50.0%)" in err
    # ties between documents of one relevance value (b and f; a and d) change nothing
    (t / "quiet").write_text("q1 Q0 e 1 0.9 r\nq1 Q0 c 2 0.8 r\nq1 Q0 b 3 0.5 r\nq1 Q0 f 4 0.5 r\nq1 Q0 a 5 0.1 r\n"
                             "q1 Q0 d 6 0.1 r\nq2 Q0 x 1 0.1 r\nq2 Q0 y 2 0.05 r\nq2 Q0 z 3 0.01 r\n")  # fmt: skip
    code, out, err = cli("eval", "-m", "P.2,3", "-m", "map", "-m", "ndcg", t / "q", t / "quiet")
    assert code == 0 and err == ""


def test_a_tie_below_every_cutoff_is_reported_by_the_measures_it_moves(cli, t):
    """q2 untied (x first), q1's tie of a (1), b (0) and c (2) at ranks 2-4 below cutoff 1: no cutoff is
    straddled and P_1 is the same in every order, num_rel_ret too; map and recip_rank move (by hand)."""
    (t / "below").write_text(
        RUN.replace("q2 Q0 y 2 0.1", "q2 Q0 y 2 0.05").replace("q2 Q0 z 3 0.1", "q2 Q0 z 3 0.01")
    )
    code, out, err = cli("eval", "-m", "P.1", "-m", "map", "-m", "recip_rank", "-m", "num_rel_ret", t / "q",
                         t / "below")  # fmt: skip
    # q2 untied now (x first): map (0.5889 + 1) / 2 or (0.4778 + 1) / 2; recip_rank (1/2 + 1) / 2 or (1/3 + 1) / 2
    assert code == 0 and out.split()[-3:] == ["P_1", "all", "0.5000"]
    assert err == ("trecrs eval: warning: tied documents of different relevance move values in 1 of 2 evaluated "
                   "queries (50.0%): map lies between 0.7389 and 0.7944, recip_rank lies between 0.6667 and 0.7500 "
                   "over tie orders (--ties best/worst)\n")  # fmt: skip


def test_report_names_aliases_and_every_cutoff(cli, t):
    code, out, err = cli("eval", "-m", "P@2", "-m", "nDCG@3", t / "q", t / "r")
    assert err == ("trecrs eval: warning: tied documents of different relevance straddle cutoff 2 in 2 of 2 evaluated "
                   "queries (100.0%); cutoff 3 in 1 of 2 evaluated queries (50.0%): P@2 lies between 0.0000 and 0.5000, "
                   "nDCG@3 lies between 0.3298 and 0.7814 over tie orders (--ties best/worst)\n")  # fmt: skip


def test_under_depth_the_report_leaves_the_range(cli, t):
    code, out, err = cli("eval", "-M", "4", "-m", "P.2", t / "q", t / "r")
    assert err == ("trecrs eval: warning: tied documents of different relevance straddle cutoff 2 in 2 of 2 evaluated "
                   "queries (100.0%): the values depend on trec_eval's order of the tied documents (--ties best/worst "
                   "give their range)\n")  # fmt: skip


def test_refusal_names_the_measure_and_the_option(cli, t):
    code, out, err = cli("eval", "--ties", "expected", "-m", "bpref", t / "q", t / "r")
    assert code == 2 and out == ""
    assert err == ("trecrs eval: error: argument --ties: measure bpref has no tie-aware form for --ties expected "
                   "(docs/measures.md, Score ties)\n")  # fmt: skip
    code, out, err = cli("eval", "--ties", "random", t / "q", t / "r")
    assert code == 2 and "argument --ties: invalid choice: 'random'" in err


def test_the_mode_is_recorded(cli, t):
    out_file = t / "res.json"
    code, _, _ = cli("eval", "--quiet", "--ties", "best", "-m", "P.2", "--format", "json", "-o", out_file,
                     t / "q", t / "r")  # fmt: skip
    assert code == 0
    rows = json.loads(out_file.read_text())
    assert rows == [{"run": str(t / "r"), "query": "all", "measure": "P_2", "value": 0.5, "ties": "best"}]
    manifest = json.loads((t / "res.json.manifest.json").read_text())
    assert manifest["parameters"]["ties"] == "best"
    code, _, _ = cli("eval", "--quiet", "-m", "P.2", "-o", t / "plain", t / "q", t / "r")
    assert "ties" not in json.loads((t / "plain.manifest.json").read_text())["parameters"]


def test_compare(cli, t):
    (t / "r2").write_text(RUN.replace(" r\n", " s\n"))
    code, out, err = cli(
        "compare", "--ties", "expected", "-m", "P.2", "--format", "csv", t / "q", t / "r", t / "r2"
    )
    assert code == 0 and "tied documents" not in err
    assert "0.333333" in out
    code, out, err = cli("compare", "-m", "P.2", "--format", "csv", t / "q", t / "r", t / "r2")
    assert code == 0 and err.count("straddle cutoff 2 in 2 of 2 evaluated queries") == 2  # one line per run


def test_eval_factors(cli, tmp_path):
    """Every score ties (zero user factors): expected P@1 is the share of relevant candidates."""
    users = pl.DataFrame({"user": ["u1"], "factors": [[0.0, 0.0]]}, schema={"user": pl.Utf8,
                         "factors": pl.List(pl.Float32)})  # fmt: skip
    items = pl.DataFrame({"item": ["i1", "i2", "i3", "i4"], "factors": [[1.0, 0.0]] * 4},
                         schema={"item": pl.Utf8, "factors": pl.List(pl.Float32)})  # fmt: skip
    users.write_parquet(tmp_path / "u.parquet")
    items.write_parquet(tmp_path / "i.parquet")
    (tmp_path / "train").write_text("u1\ti4\t5\n")
    (tmp_path / "qrels").write_text("u1 0 i1 1\n")
    code, out, err = cli("eval-factors", "--ties", "expected", "-m", "P.1", "-m", "recip_rank", tmp_path / "qrels",
                         "--train", tmp_path / "train", "--user-factors", tmp_path / "u.parquet", "--item-factors",
                         tmp_path / "i.parquet")  # fmt: skip
    assert code == 0, err
    values = dict(line.split()[::2] for line in out.splitlines())
    assert np.isclose(float(values["P_1"]), 1 / 3, atol=5e-5)
    assert np.isclose(float(values["recip_rank"]), (1 + 1 / 2 + 1 / 3) / 3, atol=5e-5)
