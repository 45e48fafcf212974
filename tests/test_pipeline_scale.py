"""The pipeline at a tenth of MovieLens 20M: each step's seconds per million ratings and peak memory, bounded.

``benchmarks/generate_pipeline.py --shape ml20m-tenth`` writes 1,942,940 ratings (13,849 users, 2,674
items: ML-20M's ratio of users to items and of ratings per user) and top-100 lists, in about 20 s. Each step
is the ``trecrs`` command benchmarks/bench_pipeline.py times (the same table of steps, so the test and the
benchmark cannot drift apart), run in a fresh Python process whose ``RUSAGE_CHILDREN`` is that step's peak
resident memory alone; a step's inputs are the outputs of the steps before it, made untimed.

Three bounds per step. Time: seconds per million ratings under :data:`BOUNDS` (2.5 times today's code at
load 11-15 on 2 cores: a guard against slowing down that a loaded CI machine meets). Ratio: trecrs's wall
within :data:`RATIO` (2.5) times the plain polars script doing the same rows' work (bench_pipeline.py's
``polars`` row), timed right after it: the target, independent of the machine's load; the steps today's code
misses are marked ``xfail`` (not strict, :data:`MISSED`) until the faster steps are in. Memory: the peak
under 2.5 times the polars script's peak on this shape.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SHAPE = "ml20m-tenth"
# a fresh interpreter runs the step: its RUSAGE_CHILDREN holds that one child's peak RSS (kB on Linux)
WRAP = """
import resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - t
print(p.returncode, wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.stderr.write(p.stderr)
"""
# step: (seconds per million ratings, peak MB). Seconds: 2.5 x the larger of two measurements of today's
# code (2026-11-29, the 2-core machine at load 11-12 and, alongside a larger benchmark, 13-15), a guard
# against slowing down. Memory: 2.5 x the polars script's peak on this shape (it hardly depends on load).
BOUNDS = {
    "split-holdout": (17.2, 1408),  # trecrs 3.80 and 6.88 s/M, 570 MB; polars 563 MB; ratio 1.5
    "split-kfold": (27.4, 1434),  # trecrs 9.36 and 10.97 s/M, 908 MB; polars 573 MB; ratio 3.3
    "split-per-user": (32.8, 1357),  # trecrs 8.13 and 13.13 s/M, 636 MB; polars 543 MB; ratio 3.0
    "split-temporal": (17.9, 1424),  # trecrs 6.06 and 7.18 s/M, 562 MB; polars 569 MB; ratio 2.6
    "split-temporal-last": (33.0, 1423),  # trecrs 9.08 and 13.21 s/M, 550 MB; polars 569 MB; ratio 3.3
    "split-loo": (31.3, 1419),  # trecrs 9.11 and 12.53 s/M, 674 MB; polars 568 MB; ratio 3.1
    "split-probe": (22.0, 1569),  # trecrs 4.83 and 8.79 s/M, 527 MB; polars 628 MB; ratio 2.3
    "qrels": (9.7, 446),  # trecrs 1.48 and 3.86 s/M, 231 MB; polars 178 MB; ratio 0.9
    "run-test-ratings": (27.8, 1025),  # trecrs 8.05 and 11.13 s/M, 501 MB; polars 410 MB; ratio 3.9
    "run-test-items": (24.6, 1075),  # trecrs 8.41 and 9.82 s/M, 507 MB; polars 430 MB; ratio 3.2
    "run-training-items": (25.8, 1080),  # trecrs 8.42 and 10.32 s/M, 492 MB; polars 432 MB; ratio 3.3
    "run-all-items": (30.4, 1070),  # trecrs 7.64 and 12.18 s/M, 495 MB; polars 428 MB; ratio 2.6
    "eval": (8.3, 602),  # trecrs 1.79 and 3.32 s/M, 182 MB; polars 241 MB; ratio 1.8
    "audit": (39.6, 1103),  # trecrs 9.66 and 15.86 s/M, 659 MB; polars 441 MB; ratio 5.1
}
RATIO = 2.5  # trecrs's wall over the polars script's, both timed in the test, one after the other
# the steps whose ratio today's code misses (measured at load 11-12, 1 run): they are being made faster
MISSED = {
    "split-kfold": "3.3x the polars script today",
    "split-per-user": "3.0x the polars script today",
    "split-temporal": "2.6x the polars script today",
    "split-temporal-last": "3.3x the polars script today",
    "split-loo": "3.1x the polars script today",
    "run-test-ratings": "3.9x the polars script today",
    "run-test-items": "3.2x the polars script today",
    "run-training-items": "3.3x the polars script today",
    "run-all-items": "2.6x the polars script today",
    "audit": "5.1x the polars script today",
    "split-probe": "2.3x the polars script today: within one run's noise of the bound",
}


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # bench_pipeline imports generate_pipeline by that name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    """The generated shape, bench_pipeline's table of steps over it and the number of ratings."""
    root = tmp_path_factory.mktemp("pipeline")
    generate, bench = _module("generate_pipeline"), _module("bench_pipeline")
    data = generate.generate(SHAPE, root=root)
    with open(data / "ratings.tsv", "rb") as f:
        millions = sum(1 for _ in f) / 1e6
    work = root / "work"
    return {
        "bench": bench,
        "steps": bench.step_table(data, work),
        "work": work,
        "millions": millions,
    }


def _param(step: str, kind: str):
    why = MISSED.get(step) if kind == "ratio" else None
    marks = [pytest.mark.xfail(strict=False, reason=why)] if why else []
    return pytest.param(step, kind, marks=marks, id=f"{step}-{kind}")


def _timed(pipeline, step: str, row: str) -> tuple[float, float]:
    """Wall seconds and peak MB of one row (``trecrs`` or ``polars``) of a step, in its own process."""
    bench, work = pipeline["bench"], pipeline["work"]
    out = work / step / row
    out.mkdir(parents=True, exist_ok=True)
    cmd, env = bench.commands(pipeline["steps"][step], row, out, None)
    p = subprocess.run([sys.executable, "-c", WRAP, *cmd], env=env, cwd=env["PYTHONPATH"],
                       capture_output=True, text=True)  # fmt: skip
    status, wall, kb = p.stdout.split()
    assert status == "0", p.stderr
    return float(wall), int(kb) / 1024


@pytest.fixture(scope="module")
def measured(pipeline):
    """Each step's trecrs seconds per million ratings, peak MB and ratio to the polars script, measured once
    and kept for the step's three tests."""
    cache: dict[str, tuple[float, float, float]] = {}

    def get(step: str) -> tuple[float, float, float]:
        if step not in cache:
            limits = argparse.Namespace(timeout=600.0, max_mb=float("inf"))
            assert pipeline["bench"].prepare(pipeline["steps"], step, pipeline["work"], limits) is None
            wall, mb = _timed(pipeline, step, "trecrs")
            floor, _ = _timed(pipeline, step, "polars")
            cache[step] = (wall / pipeline["millions"], mb, wall / floor)
            print(
                f"{step}: {cache[step][0]:.2f} s per million ratings, {mb:.0f} MB, {cache[step][2]:.1f}x polars"
            )
        return cache[step]

    return get


@pytest.mark.slow
@pytest.mark.parametrize(
    ("step", "kind"), [_param(s, k) for s in BOUNDS for k in ("time", "memory", "ratio")]
)
def test_a_step_stays_within_its_bound(measured, step, kind):
    seconds, mb, ratio = measured(step)
    bound_seconds, bound_mb = BOUNDS[step]
    if kind == "time":
        assert seconds <= bound_seconds, f"{step}: {seconds:.2f} s per million ratings > {bound_seconds}"
    elif kind == "memory":
        assert mb <= bound_mb, f"{step}: peak {mb:.0f} MB > {bound_mb} MB"
    else:
        assert ratio <= RATIO, f"{step}: {ratio:.1f} x the polars script's time > {RATIO}"


def test_the_bounds_cover_every_step_of_the_benchmark(tmp_path):
    """A step added to bench_pipeline.py gets a bound here (and a bound names a step the benchmark has)."""
    _module("generate_pipeline")
    assert list(_module("bench_pipeline").step_table(tmp_path, tmp_path)) == list(BOUNDS)
    assert set(MISSED) <= set(BOUNDS)
