"""Cost of holding BLAS / OpenMP at one thread (``trecrs.threads.one_thread``) in recommenders and eval-factors.

Two workloads, each timed with the pinning (as trecrs runs) and without it (``one_thread`` replaced by a
no-op in the process, BLAS at its default thread count: what trecrs did before):

* ``trecrs recommend``'s work on MovieLens 100K u1, TestItems candidates (615,104 pairs), ``--seed 1``:
  fit + score of each preset of the papers (in-process wall time; reading the files is not timed);
* ``trecrs.evaluate_factors`` on a seeded synthetic factor model, 6,040 users x 3,706 items (ML-1M's
  shape), rank 50, 2% of the pairs judged, default ``threads=2`` (wall time of the call).

Every (mode, workload) runs ``--runs`` times, each in a fresh process with the default thread settings
(OPENBLAS_NUM_THREADS etc. removed from the environment), the two modes in turn, which goes first
alternating from run to run, so load drifts hit both;
medians are reported, raw figures in ``benchmarks/results/threads.json``. Each run also records a digest
of its output, to show which outputs the pinning changes (and that the pinned ones agree across runs).

    python benchmarks/bench_threads.py --runs 5      # about 3 minutes on 2 cores
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PRESETS = ["PureSVD50", "CorNgbr", "NNCosNgbr", "SVD50", "UB50", "IB", "TopPop"]

WORKER = r"""
import contextlib, hashlib, json, sys, time
import numpy as np
import polars as pl
mode, train_path, pairs_path, *presets = sys.argv[1:]
import trecrs.engines.vectorized.factors as factors
import trecrs.recommenders.base as base
if mode == "unpinned":  # what trecrs did before: BLAS on its default number of threads
    base.one_thread = factors.one_thread = lambda *a: contextlib.nullcontext()
import trecrs
from trecrs.files.ratings import read_ratings
from trecrs.files.scores import read_pairs
from trecrs.recommenders.registry import make_recommender

out = {}
train, pairs = read_ratings(train_path), read_pairs(pairs_path)
for name in presets:
    t = time.perf_counter()
    scores = make_recommender(name, seed=1).fit(train).score(pairs, unscored="fallback").frame
    out[name] = [time.perf_counter() - t, hashlib.sha256(scores.write_csv().encode()).hexdigest()[:16]]

rng = np.random.default_rng(11)
n_users, n_items, k = 6040, 3706, 50
p = rng.normal(size=(n_users, k)).astype(np.float32)
q = rng.normal(size=(n_items, k)).astype(np.float32)
users = pl.Series([str(u) for u in range(n_users)])
items = pl.Series([str(i) for i in range(n_items)])
u, i = np.nonzero(rng.random((n_users, n_items)) < 0.02)
qrels = pl.DataFrame({"query": users.gather(u), "doc": items.gather(i), "rel": rng.integers(0, 5, u.size)})
tu, ti = np.nonzero(rng.random((n_users, n_items)) < 0.04)
train_pairs = pl.DataFrame({"user": users.gather(tu), "item": items.gather(ti)})
t = time.perf_counter()
ev = trecrs.evaluate_factors(qrels, train_pairs, p, q, users, items, measures=["map", "ndcg_cut.10", "P.10"])
out["eval-factors"] = [time.perf_counter() - t, hashlib.sha256(ev.to_trec(per_query=True).encode()).hexdigest()[:16]]
print(json.dumps(out))
"""


def _inputs(ml100k: Path) -> tuple[Path, Path]:
    """ML-100K's u1 split and its TestItems candidate pairs under benchmarks/data/threads (made once)."""
    d = HERE / "data" / "threads"
    train, test, pairs = d / "u1.base", d / "u1.test", d / "u1.tei.pairs"
    if not pairs.exists():
        trecrs = [sys.executable, "-m", "trecrs"]
        subprocess.run([*trecrs, "datasets", "ml100k-splits", str(ml100k / "u.data"), str(d)], check=True)
        subprocess.run([*trecrs, "candidates", "--methodology", "test-items", "--train", str(train), "--test",
                        str(test), "-o", str(pairs)], check=True)  # fmt: skip
    return train, pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ml100k", type=Path, default=ROOT.parent / "shared" / "data" / "ml-100k")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    train, pairs = _inputs(a.ml100k)
    env = {k: v for k, v in os.environ.items() if not k.endswith(("NUM_THREADS", "MAX_THREADS"))}
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )  # this checkout
    runs: dict[str, list[dict]] = {"pinned": [], "unpinned": []}
    for i in range(a.runs):
        for mode in ["pinned", "unpinned"] if i % 2 == 0 else ["unpinned", "pinned"]:
            load = os.getloadavg()[0]
            proc = subprocess.run([sys.executable, "-c", WORKER, mode, str(train), str(pairs), *PRESETS], env=env,
                                  capture_output=True, text=True, check=True)  # fmt: skip
            runs[mode].append({"load1_before": round(load, 2), **json.loads(proc.stdout)})
            print(f"run {i + 1} {mode}: load {load:.2f}", flush=True)
    rows = []
    for work in [*PRESETS, "eval-factors"]:
        med = {m: statistics.median(r[work][0] for r in runs[m]) for m in runs}
        digests = {m: sorted({r[work][1] for r in runs[m]}) for m in runs}
        rows.append({"work": work, "pinned_s": round(med["pinned"], 3), "unpinned_s": round(med["unpinned"], 3),
                     "ratio": round(med["pinned"] / med["unpinned"], 2), "digests": digests})  # fmt: skip
    result = {"command": f"python benchmarks/bench_threads.py --runs {a.runs}", "cpus": os.cpu_count(),
              "rows": rows, "runs": runs}  # fmt: skip
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "threads.json").write_text(json.dumps(result, indent=1) + "\n")
    print("| work | pinned (s) | unpinned (s) | pinned / unpinned | output digests pinned / unpinned |")
    print("|---|---:|---:|---:|---|")
    for r in rows:
        d = r["digests"]
        print(f"| {r['work']} | {r['pinned_s']:.2f} | {r['unpinned_s']:.2f} | {r['ratio']:.2f} | "
              f"{', '.join(d['pinned'])} / {', '.join(d['unpinned'])} |")  # fmt: skip


if __name__ == "__main__":
    main()
