"""Write a seeded ratings file and top-100 score lists in the shape of MovieLens 20M or the Netflix prize.

Shapes (users, items, ratings before de-duplication):

* ``ml20m``: 138,493 users, 26,744 items, ~20.0M ratings, half-star ratings 0.5-5 (MovieLens 20M);
* ``netflix``: 480,189 users, 17,770 items, ~100.5M ratings, whole-star ratings 1-5 (Netflix prize);
* ``ml20m-tenth``: 13,849 users, 2,674 items, ~1.94M ratings: a tenth of ``ml20m`` with its ratio of users
  to items and of ratings per user (the slow test tests/test_pipeline_scale.py, a few seconds to write);
* ``small``: 6,040 users, 3,700 items, ~1M ratings (a quick check of the scripts).

Files under ``benchmarks/data/pipeline-<shape>/`` (``--data-root`` replaces ``benchmarks/data``) (the same arguments give the same bytes):

* ``ratings.tsv``: ``user<TAB>item<TAB>rating<TAB>timestamp``, no header, decimal ids ``1``..``N``, lines in
  random order. Items are drawn with a popularity skew (the item at popularity rank r has weight
  1 / (r + 50)); a user's timestamps lie in a span of up to four years starting anywhere in 2000-2010, in
  whole seconds, so some ratings share a second with others (ties a temporal split breaks by file order).
* ``top100.tsv``: ``user<TAB>item<TAB>score``, 100 distinct items per user drawn with the same skew (some
  of them the user's rated items), four-decimal scores (ties), with a header ``user item score``.

    python benchmarks/generate_pipeline.py --shape ml20m
    python benchmarks/generate_pipeline.py --shape ml20m-tenth --data-root /tmp/data
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
SHAPES = {
    "small": {"users": 6_040, "items": 3_700, "ratings": 1_000_209, "half_stars": True},
    "ml20m-tenth": {"users": 13_849, "items": 2_674, "ratings": 2_000_026, "half_stars": True},
    "ml20m": {"users": 138_493, "items": 26_744, "ratings": 20_000_263, "half_stars": True},
    "netflix": {"users": 480_189, "items": 17_770, "ratings": 100_480_507, "half_stars": False},
}
PER_USER = 100
YEAR = 365 * 24 * 3600
CHUNK = 10_000_000  # draws and rows per step: the Netflix shape stays within a few GB while it is written


def data_dir(shape: str, root: Path = HERE / "data") -> Path:
    """The folder of one shape's files under ``root``."""
    return Path(root) / f"pipeline-{shape}"


def _chunks(n: int) -> list[slice]:
    return [slice(i, min(i + CHUNK, n)) for i in range(0, n, CHUNK)]


def _items(rng: np.random.Generator, n_items: int, size: int, pop: np.ndarray, p: np.ndarray) -> np.ndarray:
    return pop[rng.choice(n_items, size, p=p)]


def _distinct(key: np.ndarray) -> np.ndarray:
    """``np.unique(key)``, sorting ``key`` in place (one copy fewer)."""
    key.sort()
    return key[np.concatenate(([True], key[1:] != key[:-1]))]


def _pairs(rng: np.random.Generator, shape: dict, pop: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Distinct (user, item) keys ``user * items + item``, about ``ratings`` of them, in random order."""
    users, items, want = shape["users"], shape["items"], shape["ratings"]
    key = np.empty(int(want * 1.06), dtype=np.int64)
    for s in _chunks(key.size):  # per chunk the users, then their items
        key[s] = rng.integers(0, users, s.stop - s.start, dtype=np.int64) * items
        key[s] += _items(rng, items, s.stop - s.start, pop, p)
    key = _distinct(key)
    return key[rng.permutation(key.size)[:want]]


def _ratings(rng: np.random.Generator, n: int, half_stars: bool) -> np.ndarray:
    # a chunked draw is the whole draw's values: each uniform takes one step of the generator
    stars = np.array([1, 2, 3, 4, 5], dtype=float)
    rating = np.empty(n)
    for s in _chunks(n):
        rating[s] = rng.choice(stars, s.stop - s.start, p=[0.06, 0.1, 0.27, 0.34, 0.23])
    for s in _chunks(n) if half_stars else []:
        rating[s] = np.clip(rating[s] - 0.5 * (rng.random(s.stop - s.start) < 0.3), 0.5, 5.0)
    return rating


def write_ratings(out: Path, shape: dict, rng: np.random.Generator, pop: np.ndarray, p: np.ndarray) -> None:
    key = _pairs(rng, shape, pop, p)
    items = shape["items"]
    start = 946_684_800 + rng.integers(0, 10 * YEAR, shape["users"])  # 2000-01-01 + up to ten years
    span = rng.integers(3600, 4 * YEAR, shape["users"])
    offset = rng.random(key.size)
    ts = np.empty(key.size, dtype=np.int64)
    for s in _chunks(key.size):
        user = key[s] // items
        ts[s] = start[user] + (offset[s] * span[user]).astype(np.int64)
    del offset
    rating = _ratings(rng, key.size, shape["half_stars"])
    with open(out / "ratings.tsv", "wb") as f:  # written a chunk at a time: memory stays with the arrays
        for s in _chunks(key.size):
            frame = pl.DataFrame(
                {
                    "user": key[s] // items + 1,
                    "item": key[s] % items + 1,
                    "rating": rating[s],
                    "timestamp": ts[s],
                }
            )
            frame.write_csv(f, separator="\t", include_header=False)


def write_scores(out: Path, shape: dict, rng: np.random.Generator, pop: np.ndarray, p: np.ndarray) -> None:
    users, items, per = shape["users"], shape["items"], PER_USER * 3 // 2
    skey = np.empty(users * per, dtype=np.int64)
    for s in _chunks(skey.size):  # each user's 1.5 x PER_USER draws
        skey[s] = np.arange(s.start, s.stop, dtype=np.int64) // per * items
        skey[s] += _items(rng, items, s.stop - s.start, pop, p)
    skey = _distinct(skey)
    skey = skey[rng.permutation(skey.size)]
    frame = pl.DataFrame({"user": skey // items + 1, "item": skey % items + 1})
    del skey
    frame = frame.filter(pl.int_range(pl.len()).over("user") < PER_USER).sort("user", maintain_order=True)
    score = np.round(rng.random(frame.height), 4)
    frame.with_columns(score=pl.Series(score)).write_csv(out / "top100.tsv", separator="\t")


def generate(shape_name: str, seed: int = 20, root: Path = HERE / "data") -> Path:
    """Write the shape's files under ``root`` unless they exist; return their folder."""
    out = data_dir(shape_name, root)
    if (out / "top100.tsv").exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    shape = SHAPES[shape_name]
    rng = np.random.default_rng(seed)
    weight = 1.0 / (np.arange(shape["items"]) + 50.0)
    pop = rng.permutation(shape["items"])  # the item at popularity rank r
    p = weight / weight.sum()
    write_ratings(out, shape, rng, pop, p)
    write_scores(out, shape, rng, pop, p)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", choices=sorted(SHAPES), default="ml20m")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--data-root", type=Path, default=HERE / "data", help="the folder of pipeline-<shape>/")
    a = ap.parse_args()
    print(generate(a.shape, a.seed, a.data_root))


if __name__ == "__main__":
    main()
