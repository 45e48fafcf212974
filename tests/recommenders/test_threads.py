"""Every registered recommender writes the same bytes whatever the thread counts of BLAS, OpenMP, MKL and
polars; factor scoring (``trecrs eval-factors``) prints the same values too.

Thread counts are read by the libraries when they load (``POLARS_MAX_THREADS`` must be set before polars
is imported), so each setting runs in its own process: ``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``,
``MKL_NUM_THREADS`` and ``POLARS_MAX_THREADS`` all 1, then all 2. The score files and their manifests must
be byte-identical. Without pinning, PureSVD's SVD (LAPACK) and CorNgbr/NNCosNgbr's matrix-vector
products (OpenBLAS splits the rows among its threads, and the rows left over at a split are summed by
another kernel) change the last digits of the scores.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ML100K, ROOT, need
from trecrs.recommenders.registry import ALGORITHMS, resolve

THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "POLARS_MAX_THREADS")

# Runs `trecrs recommend` once per algorithm in one process (one interpreter start per thread setting);
# sys.argv is the command line each manifest records.
DRIVER = """
import sys
from trecrs.cli import main
train, pairs, seed, *algorithms = sys.argv[1:]
for name in algorithms:
    sys.argv = ["trecrs", "recommend", "-a", name, "--seed", seed, "--train", train, "--candidates", pairs,
                "-o", name + ".scores", "--quiet"]
    code = main(sys.argv[1:])
    if code:
        sys.exit(code)
"""


def _env(threads: int) -> dict[str, str]:
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": pythonpath, **{v: str(threads) for v in THREAD_VARS}}


def _run_both(script: str, args: list[str], folder: Path) -> tuple[str, str]:
    """``script`` with 1 thread in ``folder/t1`` and with 2 in ``folder/t2``, side by side: both stdouts."""
    procs = []
    for threads in (1, 2):
        cwd = folder / f"t{threads}"
        cwd.mkdir(parents=True, exist_ok=True)
        procs.append(subprocess.Popen([sys.executable, "-c", script, *args], cwd=cwd, env=_env(threads),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))  # fmt: skip
    outs = [proc.communicate() for proc in procs]
    for proc, (_, err) in zip(procs, outs, strict=True):
        assert proc.returncode == 0, err
    return outs[0][0], outs[1][0]


def _recommend_both(tmp_path: Path, train: Path, pairs: Path, algorithms: list[str], seed: str = "1") -> None:
    """Run ``algorithms`` with 1 and with 2 threads; every score file and manifest byte-identical."""
    _run_both(DRIVER, [str(train), str(pairs), seed, *algorithms], tmp_path)
    one, two = tmp_path / "t1", tmp_path / "t2"
    names = sorted(p.name for p in one.iterdir())
    assert names == sorted(p.name for p in two.iterdir())
    assert len(names) == 2 * len(algorithms)  # a score file and its manifest each
    differ = [n for n in names if (one / n).read_bytes() != (two / n).read_bytes()]
    assert not differ, f"differ between 1 and 2 threads: {differ}"


@pytest.fixture
def synthetic_split(tmp_path) -> tuple[Path, Path]:
    """A seeded synthetic training set (250 users x 500 items) and AllItems-like candidate pairs."""
    import polars as pl

    from trecrs.data.synthetic import generate

    d = tmp_path
    ratings = generate(250, 500, seed=7)
    train = ratings.filter(pl.col("user").cast(pl.Int64) % 5 != 0).select("user", "item", "rating")
    train.write_csv(d / "train.tsv", separator="\t", include_header=False)
    users = ratings.get_column("user").unique().sort()
    items = ratings.get_column("item").unique().sort()
    pairs = pl.DataFrame({"user": users}).join(pl.DataFrame({"item": items}), how="cross")
    pairs.write_csv(d / "pairs.txt", separator=" ", include_header=False)
    return d / "train.tsv", d / "pairs.txt"


@pytest.mark.parametrize("half", [0, 1])
def test_recommender_bytes_do_not_depend_on_threads(tmp_path, synthetic_split, half):
    """Every algorithm of the registry (a new one is covered as soon as it is registered), one process per
    thread setting; every other algorithm in each half (a test of each under 10 s)."""
    train, pairs = synthetic_split
    _recommend_both(tmp_path, train, pairs, list(ALGORITHMS)[half::2])


@pytest.mark.slow
def test_ml100k_u1_testitems_bytes_do_not_depend_on_threads(tmp_path):
    """The reported case: ML-100K u1, TestItems candidates, ``--seed 1``: the presets PureSVD50, CorNgbr and
    NNCosNgbr (whose scores moved with the thread count) and every other registered algorithm."""
    need(ML100K / "u.data")
    splits = tmp_path / "splits"
    train, test, pairs = splits / "u1.base", splits / "u1.test", tmp_path / "u1.tei.pairs"
    for args in (
        ["datasets", "ml100k-splits", ML100K / "u.data", splits],
        ["candidates", "--methodology", "test-items", "--train", train, "--test", test, "-o", pairs],
    ):
        proc = subprocess.run([sys.executable, "-m", "trecrs", *map(str, args)], env=_env(2), capture_output=True,
                              text=True, check=False)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    reported = ["PureSVD50", "CorNgbr", "NNCosNgbr"]
    others = [a for a in ALGORITHMS if a not in {resolve(p)[0] for p in reported}]
    _recommend_both(tmp_path / "runs", train, pairs, [*reported, *others])


# Factor scores and eval-factors' values, printed with every digit: the same with 1 and 2 threads, and
# whatever the number of blocks run side by side (``threads=``).
FACTORS = """
import hashlib
import sys
import numpy as np
import polars as pl
import trecrs
from trecrs.engines.vectorized.factors import factor_scores
rng = np.random.default_rng(1)
n_users, n_items, k = 600, 1500, 50
# Powers of two whose products sum to a float32 midpoint (1 + 2^-24) give or take 2^-53: the float32 score
# then depends on the order of the float64 sum, as a near-tie does
values = np.array([0, 1, -1, 2.0**-12, 2.0**-26, 2.0**-27, -2.0**-27], dtype=np.float32)
weights = [0.5, 0.1, 0.1, 0.1, 0.1, 0.05, 0.05]
p = rng.choice(values, size=(n_users, k), p=weights).astype(np.float32)
q = rng.choice(values, size=(n_items, k), p=weights).astype(np.float32)
print(hashlib.sha256(factor_scores(p, q).tobytes()).hexdigest())
users = pl.Series([str(u) for u in range(n_users)])
items = pl.Series([str(i) for i in range(n_items)])
judged = rng.random((n_users, n_items)) < 0.02
u, i = np.nonzero(judged)
qrels = pl.DataFrame({"query": users.gather(u), "doc": items.gather(i), "rel": rng.integers(0, 3, u.size)})
train = pl.DataFrame({"user": users.gather(u[::7]), "item": items.gather((i[::7] + 1) % n_items)})
for threads in (1, 2):
    ev = trecrs.evaluate_factors(qrels, train, p, q, users, items, measures=["map", "ndcg_cut.10", "P.5"],
                                 block_users=128, threads=threads)
    print(ev.to_trec(per_query=True))
"""


def test_factor_scores_do_not_depend_on_threads(tmp_path):
    one, two = _run_both(FACTORS, [], tmp_path)
    assert one == two
    lines = one.splitlines()
    assert len(lines[0]) == 64  # the sha256 of the scores
    half = (len(lines) - 1) // 2
    assert lines[1 : 1 + half] == lines[1 + half :]  # threads=1 and threads=2 print the same values
