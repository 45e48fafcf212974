"""Benchmark of ``--engine dask``: Netflix-shaped top-1000 runs as partitioned Parquet, on a LocalCluster.

Shape: 480,189 users (queries), a catalogue of 17,770 items, each user's top 1,000 items (480M lines);
``--fraction 0.1`` keeps the first 10% of the users (48,019 users, 48M lines) and the figures are projected
linearly (every query costs the same: same length, same judgement counts). Generation (seeded; same
arguments => same bytes) writes the layout of ``docs/scaling.md`` directly, part by part, so no process
ever holds the whole run: ``benchmarks/data/dask_<lines>/{qrels,run}/part-NNNNN.parquet``. Items of a
user: ``(start + k * step) mod 17770`` for k < 1000 with ``step`` coprime to 17770 (distinct), scores six
decimals, descending, about 2% repeating the score above (ties); 1..20 judged items graded 1..5, half of
them among the ranked ones.

Each run: a fresh LocalCluster (``--workers`` single-threaded worker processes), the 1-minute load average
before it, then ``trecrs.evaluate_full(..., engine="dask")`` timed (wall), the task stream (time of each
partition's task), each worker's peak resident memory (``ru_maxrss`` read on the worker) and the driver's.
Projection to N machines of the same speed: ``overhead + sum(task times) / N`` with ``overhead = wall -
sum(task times) / workers``, scaled by ``1 / fraction`` for the full shape.

    python benchmarks/bench_dask.py --fraction 0.1 --partitions 32 --repeat 3 --workers 2 1
    python benchmarks/bench_dask.py --fraction 1 --partitions 320 --repeat 1 --clean   # 480M lines, then deleted

Results: ``benchmarks/results/dask.json``, one entry per shape (``lines_48019000``, ``lines_480189000``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from trecrs.engines.dask import PART, partition_of  # noqa: E402
from trecrs.evaluate import evaluate_full  # noqa: E402

USERS, ITEMS, PER_USER, MAX_REL = 480_189, 17_770, 1_000, 20
MEASURES = ["P.10,50", "recall.50", "ndcg_cut.50", "map", "recip_rank"]
TIES = 0.02


def _steps(rng: np.random.Generator, n: int) -> np.ndarray:
    """Strides coprime to 17770 = 2 * 5 * 1777, so that 1,000 multiples are distinct modulo 17770."""
    s = rng.integers(1, ITEMS, n * 4 + 16)  # 40% qualify: enough but for a vanishing chance
    s = s[(s % 2 != 0) & (s % 5 != 0) & (s % 1777 != 0)]
    return s[:n]


def generate_part(users: np.ndarray, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run and qrels rows of ``users`` (ints), seeded by the partition."""
    rng = np.random.default_rng(seed)
    n = users.size
    start, step = rng.integers(0, ITEMS, n), _steps(rng, n)
    items = (start[:, None] + np.arange(PER_USER)[None, :] * step[:, None]) % ITEMS + 1
    scores = -np.sort(-np.round(rng.random((n, PER_USER)), 6), axis=1)
    tie = rng.random((n, PER_USER)) < TIES
    tie[:, 0] = False
    scores = np.where(tie, np.roll(scores, 1, axis=1), scores)  # repeat the score ranked just above
    scores = np.maximum.accumulate(scores[:, ::-1], axis=1)[:, ::-1]  # keep them non-increasing
    q = np.repeat(users, PER_USER)
    run = pl.DataFrame({"query": q, "doc": items.ravel(), "score": scores.ravel()})
    nrel = rng.integers(1, MAX_REL + 1, n)
    qq = np.repeat(users, nrel)
    inside = rng.random(qq.size) < 0.5
    pick = rng.integers(0, PER_USER, qq.size)
    row = np.repeat(np.arange(n), nrel)
    docs = np.where(inside, items[row, pick], rng.integers(1, ITEMS + 1, qq.size))
    qrels = pl.DataFrame({"query": qq, "doc": docs, "rel": rng.integers(1, 6, qq.size)})
    qrels = qrels.unique(["query", "doc"], keep="first", maintain_order=True)
    ids = [pl.col("query").cast(pl.Utf8), pl.col("doc").cast(pl.Utf8)]
    return run.with_columns(ids), qrels.with_columns(ids)


def generate(folder: Path, users: int, partitions: int) -> None:
    """The partitioned qrels and run of the first ``users`` users."""
    ids = np.arange(1, users + 1)
    part = partition_of(pl.Series([str(u) for u in ids]), partitions)
    for sub in ("run", "qrels"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for i in range(partitions):
        run, qrels = generate_part(ids[part == i], seed=1000 + i)
        run.with_columns(pl.lit("netflix").alias("tag")).write_parquet(folder / "run" / PART.format(i))
        qrels.write_parquet(folder / "qrels" / PART.format(i))
    (folder / "done").touch()


def one_run(folder: Path, workers: int) -> dict:
    """One evaluation on a fresh LocalCluster: wall, task times, peak memory of each worker and the driver."""
    from distributed import Client, LocalCluster, get_task_stream

    load = os.getloadavg()[0]
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cl,
        Client(cl) as client,
    ):
        with get_task_stream(client) as ts:
            t0 = time.perf_counter()
            ev = evaluate_full(
                folder / "qrels",
                folder / "run",
                MEASURES,
                engine="dask",
                engine_options={"scheduler": client},
            )
            wall = time.perf_counter() - t0
        tasks = [
            sum(s["stop"] - s["start"] for s in t["startstops"] if s["action"] == "compute") for t in ts.data
        ]
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return {
        "load_before": load, "wall_s": wall, "tasks": len(tasks), "task_sum_s": sum(tasks),
        "task_max_s": max(tasks), "worker_peak_mb": sorted(peaks.values()),
        "driver_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "queries": ev.per_query.height, "map": ev.summary["map"],
    }  # fmt: skip


def projection(runs: list[dict], workers: int, fraction: float, machines=(1, 2, 4, 8, 16, 32)) -> dict:
    """Wall time at the full shape on N machines, from the median run's task times (see module docstring)."""
    med = sorted(runs, key=lambda r: r["wall_s"])[len(runs) // 2]
    overhead = max(0.0, med["wall_s"] - med["task_sum_s"] / workers)
    scale = 1 / fraction
    return {
        "overhead_s": overhead, "task_sum_s": med["task_sum_s"],
        "full_shape_s": {n: scale * (overhead + med["task_sum_s"] / n) for n in machines},
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fraction", type=float, default=0.1, help="share of the 480,189 users (default 0.1)")
    ap.add_argument("--partitions", type=int, default=32)
    ap.add_argument("--workers", type=int, nargs="+", default=[2], help="LocalCluster sizes to time")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--clean", action="store_true", help="delete the generated data afterwards")
    args = ap.parse_args()
    users = round(USERS * args.fraction)
    folder = HERE / "data" / f"dask_{users * PER_USER}"
    if not (folder / "done").exists():
        t0 = time.perf_counter()
        generate(folder, users, args.partitions)
        print(f"generated {users * PER_USER:,} lines in {time.perf_counter() - t0:.0f} s", flush=True)
    out = {
        "shape": {"users": users, "items": ITEMS, "per_user": PER_USER, "max_rel": MAX_REL,
                  "fraction_of_480189_users": args.fraction},
        "run_lines": users * PER_USER, "partitions": args.partitions, "measures": MEASURES,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "data_mb": sum(p.stat().st_size for p in folder.rglob("*.parquet")) / 2**20,
    }  # fmt: skip
    for workers in args.workers:
        runs = []
        for _ in range(args.repeat):
            runs.append(one_run(folder, workers))
            print(json.dumps(runs[-1]), flush=True)
        out[f"workers_{workers}"] = {
            "median_wall_s": statistics.median(r["wall_s"] for r in runs),
            "median_worker_peak_mb": statistics.median(max(r["worker_peak_mb"]) for r in runs),
            "runs": runs, "projection": projection(runs, workers, args.fraction),
        }  # fmt: skip
    result = HERE / "results" / "dask.json"  # one entry per shape, others kept
    every = json.loads(result.read_text()) if result.exists() else {}
    every[f"lines_{users * PER_USER}"] = out
    result.parent.mkdir(exist_ok=True)
    result.write_text(json.dumps(every, indent=1) + "\n")
    if args.clean:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
