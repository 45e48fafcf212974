"""Generate an ML-20M-shaped factor model benchmark, seeded: factors, training ratings and test qrels.

Shape (defaults): 138,493 users x 26,744 items, rank 64; about 20M (user, item) pairs drawn with a
popularity skew (item weight proportional to 1 / (rank + 50)), 80% training ratings, 20% test qrels
graded 1..5. Factors are Gaussian with a popularity term, float32. Ids are decimal strings ("1".."N").
Same arguments give byte-identical files, under ``benchmarks/data/factors-<name>/`` (git-ignored):
``user.parquet``, ``item.parquet`` (``user``/``item`` + ``factors``: list of float32), ``train.tsv`` and
``train.parquet`` (the same ratings: user item rating) and ``test.qrels`` (TREC qrels).

    python benchmarks/generate_factors.py --name ml20m
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


def generate(
    out: Path, *, users: int, items: int, rank: int, pairs: int, test_share: float, seed: int
) -> None:
    """Write the four files of one case to ``out``."""
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    weight = 1.0 / (np.arange(items) + 50.0)
    pop = rng.permutation(items)  # item at popularity rank r
    draws = int(pairs * 1.08)  # duplicates are dropped below
    u = rng.integers(0, users, draws, dtype=np.int64)
    i = pop[rng.choice(items, draws, p=weight / weight.sum())]
    key = np.unique(u * items + i)[:pairs]
    key = key[rng.permutation(key.size)][:pairs]
    key.sort()
    u, i = key // items, key % items
    test = rng.random(u.size) < test_share
    rating = rng.integers(1, 6, u.size)
    ids = lambda a: (a + 1).astype(str)  # noqa: E731
    tr = pl.DataFrame({"user": ids(u[~test]), "item": ids(i[~test]), "rating": rating[~test]})
    tr.write_csv(out / "train.tsv", separator="\t", include_header=False)
    tr.write_parquet(out / "train.parquet")
    qr = pl.DataFrame({"query": ids(u[test]), "iter": "0", "doc": ids(i[test]), "rel": rating[test]})
    qr.write_csv(out / "test.qrels", separator=" ", include_header=False)
    bias = np.zeros(items, np.float32)
    bias[pop] = -np.log1p(np.arange(items)).astype(np.float32) / 4
    p = rng.standard_normal((users, rank), dtype=np.float32) / np.sqrt(rank)
    p[:, 0] = 1.0
    q = rng.standard_normal((items, rank), dtype=np.float32) / np.sqrt(rank)
    q[:, 0] = bias
    for name, col, f in (("user", "user", p), ("item", "item", q)):
        series = pl.Series("factors", f).cast(pl.List(pl.Float32))
        pl.DataFrame({col: ids(np.arange(f.shape[0])), "factors": series}).write_parquet(
            out / f"{name}.parquet"
        )
    print(
        f"{out}: {users} users x {items} items, rank {rank}; {int((~test).sum())} train, {int(test.sum())} test"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--name", default="ml20m")
    ap.add_argument("--users", type=int, default=138_493)
    ap.add_argument("--items", type=int, default=26_744)
    ap.add_argument("--rank", type=int, default=64)
    ap.add_argument("--pairs", type=int, default=20_000_000)
    ap.add_argument("--test-share", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=20)
    a = ap.parse_args()
    t = time.perf_counter()
    generate(DATA / f"factors-{a.name}", users=a.users, items=a.items, rank=a.rank, pairs=a.pairs,
             test_share=a.test_share, seed=a.seed)  # fmt: skip
    print(f"generated in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
