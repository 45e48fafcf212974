"""scripts/pipeline.sh end to end on the synthetic sample, with one number recomputed independently."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.command_server import commands_in_one_process
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
    env = dict(
        os.environ, N="100", PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    )
    out = tmp_path / "out"
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "pipeline.sh"), str(SAMPLE), str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
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


# MovieLens-20M-style CSV with its header, and MovieLens-1M-style "::" lines
_LAYOUTS = {
    "ratings.csv": ("userId,movieId,rating,timestamp\n", ","),
    "ratings.dat": ("", "::"),
}


@pytest.mark.parametrize("name", sorted(_LAYOUTS))
def test_pipeline_on_any_ratings_file_name(tmp_path, name):
    """The split keeps the layout and extension (train.csv, train.dat): the script finds those files.

    The script's 19 ``trecrs`` calls run in one process (:mod:`tests.command_server`): an interpreter start
    each would be most of the time; test_pipeline_on_sample_data (slow) runs it with the real command."""
    if not SAMPLE.exists():
        pytest.skip(f"needs {SAMPLE}")
    header, sep = _LAYOUTS[name]
    rows = [line.split("\t") for line in SAMPLE.read_text().splitlines()[:2000]]
    ratings = tmp_path / name
    ratings.write_text(header + "".join(sep.join(r) + "\n" for r in rows))
    out = tmp_path / "out"
    with commands_in_one_process(tmp_path) as env:
        proc = subprocess.run(
            ["bash", str(ROOT / "scripts" / "pipeline.sh"), str(ratings), str(out)],
            capture_output=True,
            text=True,
            env=dict(env, N="20"),
            check=False,
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    ext = Path(name).suffix
    assert sorted(p.name for p in (out / "split").iterdir() if not p.name.endswith(".json")) == [
        f"test{ext}",
        f"train{ext}",
    ]
    # the test file keeps the layout: 400 of the 2000 ratings, with the CSV header
    test_lines = (out / "split" / f"test{ext}").read_text().splitlines()
    assert len(test_lines) == 400 + bool(header)
    assert test_lines[0] == header.strip() if header else test_lines[0].count("::") == 3
    for m in METHODOLOGIES:
        pairs = (out / "candidates" / f"{m}.pairs").read_text().count("\n")
        assert (out / "runs" / f"{m}.run").read_text().count("\n") == pairs
        assert "P_10" in (out / "eval" / f"{m}.txt").read_text()
