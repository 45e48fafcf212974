"""``trecrs audit``: --strict's status, the JSON document, -o with its manifest, errors in the inputs, and (slow)
an ML-20M-sized split within memory and seconds."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

import numpy as np
import polars as pl
import pytest

from ..conftest import run_command

TRAIN = "u1\ta\t4\t10\nu1\tb\t3\t11\nu2\ta\t5\t12\nu2\tc\t2\t13\n"
TEST_CLEAN = "u1\tc\t5\t20\nu2\tb\t4\t21\n"
TEST_OVERLAP = "u1\ta\t5\t20\nu2\tb\t4\t21\n"  # (u1, a) is also a training pair
QRELS = "u1 0 c 1\nu2 0 b 1\n"
RUN = "u1 Q0 c 1 0.9 r\nu1 Q0 a 2 0.5 r\nu2 Q0 b 1 0.7 r\nu2 Q0 d 2 0.6 r\n"  # (u1, a) rated in training


@pytest.fixture
def files(tmp_path):
    for name, text in {
        "train": TRAIN,
        "clean": TEST_CLEAN,
        "overlap": TEST_OVERLAP,
        "q": QRELS,
        "r": RUN,
    }.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_strict_exits_1_on_an_error_finding_only(cli, files):
    clean = ["audit", "--strict", "--train", files / "train", "--test", files / "clean"]
    assert cli(*clean)[0] == 0
    code, out, err = cli("audit", "--strict", "--train", files / "train", "--test", files / "overlap")
    assert code == 1 and err == ""
    assert "ERROR   overlap: 1 of 2 test pairs (50.0%)" in out
    assert cli("audit", "--train", files / "train", "--test", files / "overlap")[0] == 0  # without --strict


def test_json_with_a_run_and_output_with_its_manifest(cli, files):
    out_file = files / "audit.json"
    code, out, err = cli("audit", "--format", "json", "-o", out_file, "--train", files / "train", "--test",
                         files / "clean", "--qrels", files / "q", "-m", "P.1", files / "r")  # fmt: skip
    assert code == 0 and out == "" and "wrote" in err
    doc = json.loads(out_file.read_text())
    seen = [f for f in doc["findings"] if f["id"] == "seen-items"]
    assert seen == [{"id": "seen-items", "severity": "error", "count": 1, "of": 4, "example": "query u1, doc a",
                     "source": seen[0]["source"], "advice": seen[0]["advice"], "run": str(files / "r")}]  # fmt: skip
    power = [f for f in doc["findings"] if f["id"] == "power"]
    assert [(f["measure"], f["count"], f["of"]) for f in power] == [("P_1", 2, 2)]
    manifest = json.loads((files / "audit.json.manifest.json").read_text())
    assert manifest["kind"] == "audit" and manifest["failed"] is True
    assert set(manifest["inputs"]) == {"train", "test", "qrels", f"run:{files / 'r'}"}


def test_a_bad_input_is_one_error_line(files):
    (files / "badq").write_text("u1 0 c x\n")
    p = run_command("audit", "--strict", "--qrels", files / "badq", files / "r")
    assert p.returncode == 3 and p.stdout == ""
    assert (
        p.stderr
        == f"trecrs audit: error: {files / 'badq'}:1: relevance must be an integer, found 'x': 'u1 0 c x'\n"
    )


@pytest.mark.slow
def test_an_ml20m_sized_split_within_memory_and_seconds(tmp_path):
    """20M ratings (138,493 users x 26,744 items, ML-20M's shape) split 80/20 by time, and a 100-item run
    per user: the audit in a separate process, timed and its peak memory measured."""
    rng = np.random.default_rng(7)
    n, users, items = 20_000_263, 138_493, 26_744
    df = pl.DataFrame({"user": rng.integers(1, users + 1, n, dtype=np.int32),
                       "item": rng.integers(1, items + 1, n, dtype=np.int32),
                       "rating": rng.integers(1, 6, n, dtype=np.int8), "timestamp": rng.integers(8 * 10**8, 14 * 10**8, n)})  # fmt: skip
    df = df.unique(["user", "item"], keep="first").sort("timestamp")
    cut = df.height * 4 // 5
    df.slice(0, cut).write_csv(tmp_path / "train.tsv", separator="\t", include_header=False)
    df.slice(cut).write_csv(tmp_path / "test.tsv", separator="\t", include_header=False)
    test_users = df.slice(cut).get_column("user").unique().sort()
    run = pl.DataFrame({"q": test_users.to_numpy().repeat(100), "i": np.tile(np.arange(1, 101), test_users.len()),
                        "s": np.tile(np.linspace(1, 0, 100), test_users.len())})  # fmt: skip
    run.select(pl.col("q"), pl.lit("Q0").alias("it"), pl.col("i"), pl.lit(1).alias("rank"), pl.col("s"),
               pl.lit("r").alias("tag")).write_csv(
        tmp_path / "run", separator=" ", include_header=False)  # fmt: skip
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "trecrs", "audit", "--format", "json", "--train", tmp_path / "train.tsv",
                        "--test", tmp_path / "test.tsv", tmp_path / "run"], capture_output=True, text=True)  # fmt: skip
    wall = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert p.returncode == 0, p.stderr
    found = {f["id"]: f for f in json.loads(p.stdout)["findings"]}
    assert found["overlap"]["count"] == 0 and found["future-training"]["count"] == 0
    assert found["seen-items"]["of"] == run.height
    print(f"audit of {df.height:,} ratings and {run.height:,} run lines: {wall:.1f} s, {peak_mb:.0f} MB")
    assert wall < 4 * (df.height + run.height) / 1e6  # a few seconds per million lines read
    assert peak_mb < 8_000
