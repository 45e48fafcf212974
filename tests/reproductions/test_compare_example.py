"""scripts/compare_ml100k.sh end to end on fold u1; compare's means checked against `trecrs eval -c`."""

from __future__ import annotations

import csv
import subprocess

import pytest

from tests.conftest import ROOT, trecrs_on_path

DATA = ROOT.parent / "shared" / "data" / "ml-100k"
SYSTEMS = ["TopPop", "IB", "UB50", "PureSVD50"]
MEASURES = ["P@10", "nDCG@10", "R@50", "MAP"]


@pytest.mark.slow
def test_compare_example_on_fold_u1(tmp_path):
    if not (DATA / "u1.base").exists():
        pytest.skip(f"needs MovieLens 100K's u1.base/u1.test in {DATA} (scripts/fetch_movielens.sh)")
    env = trecrs_on_path(tmp_path, FOLDS="u1")
    out = tmp_path / "out"
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "compare_ml100k.sh"), str(DATA), str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    fold = out / "u1"
    for name in [
        "compare.randomization.md",
        "compare.randomization.tex",
        "compare.randomization.csv",
        "compare.randomization.png",
        "compare.t.csv",
        "sensitivity.md",
        "sensitivity.png",
        "sampled.txt",
        "sampled.csv",
        "sampled.png",
    ]:
        assert (fold / name).stat().st_size > 0, name

    rows = list(csv.DictReader((fold / "compare.randomization.csv").open()))
    assert {r["system"] for r in rows} == set(SYSTEMS)
    assert {r["measure"] for r in rows} == set(MEASURES)
    assert {r["n_queries"] for r in rows} == {"456"}  # u1's test users with a rating >= 4
    # compare's mean of PureSVD50 is trec_eval's -c mean of its run, measure by measure
    proc = subprocess.run(
        [
            "trecrs",
            "eval",
            "-c",
            "--quiet",
            "--format",
            "tsv",
            *[a for m in MEASURES for a in ("-m", m)],
            str(fold / "th4.qrels"),
            str(fold / "PureSVD50.AI.run"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    expected = {line.split("\t")[2]: float(line.split("\t")[3]) for line in proc.stdout.splitlines()[1:]}
    got = {r["measure"]: float(r["mean"]) for r in rows if r["system"] == "PureSVD50"}
    assert got == pytest.approx(expected, rel=1e-12)
    # the t test's table has the same means and the same baseline
    t_rows = list(csv.DictReader((fold / "compare.t.csv").open()))
    assert {(r["measure"], r["system"]): r["mean"] for r in t_rows} == {
        (r["measure"], r["system"]): r["mean"] for r in rows
    }
    assert {r["baseline"] for r in rows} == {"TopPop"}
