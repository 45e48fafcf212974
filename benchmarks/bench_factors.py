"""Time ``trecrs eval-factors`` on the ML-20M-shaped factor model of ``generate_factors.py``.

Each run is a separate process (interpreter start, imports, reading, evaluation, output); wall time from
start to exit and peak resident memory (``wait4``'s ``ru_maxrss``), the 1-minute load average recorded
before each run (the machine is shared). Medians over ``--runs``; raw figures in
``benchmarks/results/factors.json`` (``--mode api``: ``factors-api.json``).

    python benchmarks/generate_factors.py --name ml20m      # once, ~2 minutes, ~330 MB
    python benchmarks/bench_factors.py --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEASURES = ["P.10", "recall.50", "ndcg_cut.50", "map"]
# --mode api: the same evaluation from Python, the training pairs read as two Parquet columns, unchecked:
# the evaluation's own time and memory, against which the CLI's reading of --train is measured
API = """
import sys, polars as pl, trecrs
from trecrs.files.factors import read_factors
d = sys.argv[1]
users, p = read_factors(d + "/user.parquet", "user")
items, q = read_factors(d + "/item.parquet", "item")
train = pl.read_parquet(d + "/train.parquet", columns=["user", "item"])
ev = trecrs.evaluate_factors(d + "/test.qrels", train, p, q, users, items, measures=sys.argv[2].split(","),
                             block_users=int(sys.argv[3]))
sys.stdout.write(ev.to_trec())
"""


def one_run(cmd: list[str]) -> dict:
    load = os.getloadavg()[0]
    t = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=HERE.parent
    )  # this checkout
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{err}")
    return {"load1_before": round(load, 2), "wall_s": round(wall, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024),
            "user_s": round(usage.ru_utime, 1), "sys_s": round(usage.ru_stime, 1), "output": out}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--name", default="ml20m")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--train", choices=["parquet", "tsv"], default="parquet")
    ap.add_argument("--block-users", default="512")
    ap.add_argument("--mode", choices=["cli", "api"], default="cli")
    a = ap.parse_args()
    data = HERE / "data" / f"factors-{a.name}"
    if not (data / "user.parquet").exists():
        subprocess.run([sys.executable, str(HERE / "generate_factors.py"), "--name", a.name], check=True)
    cmd = [sys.executable, "-m", "trecrs", "eval-factors", *(x for m in MEASURES for x in ("-m", m)),
           str(data / "test.qrels"), "--train", str(data / f"train.{a.train}"), "--user-factors",
           str(data / "user.parquet"), "--item-factors", str(data / "item.parquet"), "--block-users", a.block_users]  # fmt: skip
    if a.mode == "api":
        cmd = [sys.executable, "-c", API, str(data), ",".join(MEASURES), a.block_users]
    runs = []
    for i in range(a.runs):
        r = one_run(cmd)
        print(
            f"run {i + 1}: {r['wall_s']} s, {r['peak_rss_mb']} MB, load before {r['load1_before']}",
            flush=True,
        )
        runs.append(r)
    result = {
        "command": " ".join(["trecrs", *cmd[3:]]).replace(str(HERE.parent) + "/", "")
        if a.mode == "cli"
        else API,
        "shape": "138,493 users x 26,744 items, rank 64; 16.0M train ratings, 4.0M test qrels (generate_factors.py)",
        "runs": [{k: v for k, v in r.items() if k != "output"} for r in runs],
        "median_wall_s": statistics.median(r["wall_s"] for r in runs),
        "median_peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in runs),
        "output": runs[-1]["output"],
    }
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / ("factors.json" if a.mode == "cli" else "factors-api.json")).write_text(
        json.dumps(result, indent=1) + "\n"
    )
    print(json.dumps({k: v for k, v in result.items() if k != "runs"}, indent=1))


if __name__ == "__main__":
    main()
