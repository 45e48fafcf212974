"""scripts/pipeline.sh end to end on the synthetic sample, with one number recomputed independently."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import ROOT

SAMPLE = ROOT / "sample_data" / "synth-100k-like" / "u.data"
METHODOLOGIES = ["test-ratings", "test-items", "training-items", "all-items", "one-plus-random"]


def _values(path: Path) -> dict[str, float]:
    out = {}
    for line in path.read_text().splitlines():
        name, _, value = line.split()
        out[name] = float(value)
    return out


@pytest.mark.slow
def test_pipeline_on_sample_data(tmp_path):
    if not SAMPLE.exists():
        pytest.skip(f"needs {SAMPLE}")
    env = dict(os.environ, N="100", PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    out = tmp_path / "out"
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "pipeline.sh"), str(SAMPLE), str(out)],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for m in METHODOLOGIES:
        for f in (out / "candidates" / f"{m}.pairs", out / "runs" / f"{m}.run", out / "eval" / f"{m}.txt"):
            assert f.exists() and Path(f"{f}.manifest.json").exists(), f
        # toppop scores every candidate: the run holds exactly the candidate pairs
        pairs = (out / "candidates" / f"{m}.pairs").read_text().count("\n")
        assert (out / "runs" / f"{m}.run").read_text().count("\n") == pairs

    # P@10 of TestRatings recomputed with pandas: each test user's test items ranked by training
    # popularity (ties: item id descending as text), relevant = rating >= 4, mean over users with one
    cols = ["user", "item", "rating", "ts"]
    train = pd.read_csv(out / "split" / "train", sep="\t", names=cols, dtype=str)
    test = pd.read_csv(out / "split" / "test", sep="\t", names=cols, dtype={"user": str, "item": str})
    pop = train.groupby("item").size()
    test["pop"] = test["item"].map(pop).fillna(0)
    precisions = []
    for _, g in test.groupby("user"):
        if (g.rating >= 4).sum() == 0:
            continue
        top = g.sort_values(["pop", "item"], ascending=[False, False]).head(10)
        precisions.append((top.rating >= 4).sum() / 10)
    got = _values(out / "eval" / "test-ratings.txt")
    assert got["P_10"] == pytest.approx(sum(precisions) / len(precisions), abs=5e-5)
    # One-Plus-Random: one query per five-star test rating, each ranking 1 + 100 items
    opr = (out / "runs" / "one-plus-random.run").read_text().splitlines()
    queries = {line.split()[0] for line in opr}
    assert len(queries) == int((test.rating >= 5).sum())
    assert len(opr) == 101 * len(queries)
