"""Time ``trecrs run --methodology all-items --missing drop`` on an ML-20M-shaped split with top-100 lists.

The split (seeded, same arguments => same bytes, under ``benchmarks/data/rundrop-<users>/``): ``users`` x
``items`` with ``pairs`` (user, item) ratings drawn with a popularity skew (item weight 1 / (rank + 50)),
80% ``train.tsv``, 20% ``test.tsv`` (``user item rating``, decimal ids ``"1"``..``"N"``); ``scores.tsv``
(``user item score``): 100 distinct items per user drawn with the same skew, so some are training pairs,
with four-decimal scores (ties). Each command is a separate process under ``/usr/bin/time -v``: wall time
and peak resident memory, medians over ``--runs``; the 1-minute load average is recorded before each run
(the machine is shared). Rows:

* trecrs: ``python -m trecrs run --methodology all-items --missing drop --train --test --scores -o``;
* ``--baseline DIR``: the same command with ``PYTHONPATH=DIR`` (an older checkout's ``trecrs``), killed
  after ``--timeout`` seconds;
* polars: the same rows' work in plain polars (:data:`POLARS`): read the scores, keep the query users'
  pairs of the catalogue, anti-join the training pairs, sort (user, score desc, item desc), rank, write.

    python benchmarks/bench_rundrop.py --runs 3 --baseline /tmp/base    # results/rundrop-138493.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
POLARS = """
import sys, polars as pl
d, out = sys.argv[1], sys.argv[2]
schema = {"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64}
train = pl.read_csv(d + "/train.tsv", separator="\\t", schema=schema)
test = pl.read_csv(d + "/test.tsv", separator="\\t", schema=schema)
scores = pl.read_csv(d + "/scores.tsv", separator="\\t", schema_overrides={"user": pl.Utf8, "item": pl.Utf8})
catalogue = pl.concat([train.get_column("item"), test.get_column("item")]).unique()
run = (
    scores.filter(pl.col("user").is_in(test.get_column("user").unique().implode())
                  & pl.col("item").is_in(catalogue.implode()))
    .join(train.select("user", "item"), on=["user", "item"], how="anti")
    .sort(["user", "score", "item"], descending=[False, True, True])
    .with_columns(pl.int_range(pl.len()).over("user").add(1).alias("rank"))
    .select("user", pl.lit("Q0").alias("iter"), "item", "rank", "score", pl.lit("polars").alias("tag"))
)
run.write_csv(out, separator=" ", include_header=False)
"""


def generate(out: Path, *, users: int, items: int, pairs: int, per_user: int, seed: int) -> None:
    """Write ``train.tsv``, ``test.tsv`` and ``scores.tsv`` of one case to ``out``."""
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    weight = 1.0 / (np.arange(items) + 50.0)
    pop = rng.permutation(items)  # item at popularity rank r
    u = rng.integers(0, users, int(pairs * 1.08), dtype=np.int64)
    i = pop[rng.choice(items, u.size, p=weight / weight.sum())]
    key = np.unique(u * items + i)
    key = np.sort(key[rng.permutation(key.size)][:pairs])
    test = rng.random(key.size) < 0.2
    rating = rng.integers(1, 6, key.size).astype(float)
    for name, rows in (("train", ~test), ("test", test)):
        frame = pl.DataFrame(
            {"user": key[rows] // items + 1, "item": key[rows] % items + 1, "rating": rating[rows]}
        )
        frame.write_csv(out / f"{name}.tsv", separator="\t")
    # top-N lists: per_user distinct items per user, drawn with the popularity skew, 1.5 draws per slot
    su = np.repeat(np.arange(users, dtype=np.int64), per_user * 3 // 2)
    si = pop[rng.choice(items, su.size, p=weight / weight.sum())]
    skey = np.unique(su * items + si)
    skey = skey[rng.permutation(skey.size)]
    frame = pl.DataFrame({"user": skey // items + 1, "item": skey % items + 1})
    frame = frame.filter(pl.int_range(pl.len()).over("user") < per_user).sort("user")
    score = np.round(rng.random(frame.height), 4)
    frame.with_columns(score=pl.Series(score)).write_csv(out / "scores.tsv", separator="\t")


def one_run(cmd: list[str], env: dict, timeout: float) -> dict:
    """Wall time and peak RSS of ``cmd`` under /usr/bin/time -v; ``wall: None`` when killed at ``timeout``."""
    load = os.getloadavg()[0]
    t = time.perf_counter()
    proc = subprocess.Popen(
        ["/usr/bin/time", "-v", *cmd],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=env["PYTHONPATH"],  # python -m imports the working directory's package first
        start_new_session=True,  # on timeout the whole group goes, not /usr/bin/time alone
    )
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"wall": None, "rss_mb": None, "load": load}
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{err}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
    return {"wall": wall, "rss_mb": rss / 1024, "load": load}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=138_493)
    ap.add_argument("--items", type=int, default=26_744)
    ap.add_argument("--pairs", type=int, default=20_000_263)
    ap.add_argument("--per-user", type=int, default=100)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline", help="a directory holding an older trecrs package, timed once")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--rows", default="trecrs,polars,baseline", help="the rows to time (comma-separated)")
    a = ap.parse_args()
    d = HERE / "data" / f"rundrop-{a.users}"
    if not (d / "scores.tsv").exists():
        generate(d, users=a.users, items=a.items, pairs=a.pairs, per_user=a.per_user, seed=a.seed)
    run = [sys.executable, "-m", "trecrs", "run", "--methodology", "all-items", "--missing", "drop"]
    run += ["--train", str(d / "train.tsv"), "--test", str(d / "test.tsv"), "--scores", str(d / "scores.tsv")]
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    rows = {
        "trecrs": ([*run, "-o", str(d / "trecrs.run")], env, a.runs),
        "polars": ([sys.executable, "-c", POLARS, str(d), str(d / "polars.run")], env, a.runs),
    }
    if a.baseline:
        rows["baseline"] = ([*run, "-o", str(d / "baseline.run")], {**env, "PYTHONPATH": a.baseline}, 1)
    out = HERE / "results" / f"rundrop-{a.users}.json"
    results = json.loads(out.read_text())["runs"] if out.exists() else {}
    for name, (cmd, e, n) in rows.items():
        if name not in a.rows.split(","):
            continue
        results[name] = [one_run(cmd, e, a.timeout) for _ in range(n)]
        walls = [r["wall"] for r in results[name] if r["wall"] is not None]
        rss = [r["rss_mb"] for r in results[name] if r["rss_mb"] is not None]
        wall = f"{statistics.median(walls):.1f} s" if len(walls) == n else f"> {a.timeout:.0f} s"
        mem = f"{statistics.median(rss):,.0f} MB" if rss else "-"
        print(f"{name}: median {wall}, peak {mem} ({results[name]})", flush=True)
    (HERE / "results").mkdir(exist_ok=True)
    out.write_text(json.dumps({"args": vars(a), "runs": results}, indent=1))


if __name__ == "__main__":
    main()
