"""The pipeline at a tenth of MovieLens 20M: each step's seconds per million ratings and peak memory, bounded.

``benchmarks/generate_pipeline.py --shape ml20m-tenth`` writes 1,942,940 ratings (13,849 users, 2,674
items: ML-20M's ratio of users to items and of ratings per user) and top-100 lists, in about 20 s. Each step
is the ``trecrs`` command benchmarks/bench_pipeline.py times (the same table of steps, so the test and the
benchmark cannot drift apart), run in a fresh Python process whose ``RUSAGE_CHILDREN`` is that step's peak
resident memory alone; a step's inputs are the outputs of the steps before it, made untimed.

Three bounds per step, on CPU time (user + system, ``RUSAGE_CHILDREN``), which a loaded machine changes far
less than wall time. Time: CPU seconds per million ratings under :data:`BOUNDS` (2.5 times today's code: a
guard against slowing down). Ratio: trecrs's CPU time within :data:`RATIO` (2.5) times the plain polars
script's doing the same rows' work (bench_pipeline.py's ``polars`` row), timed right after it: the target;
the steps today's code misses are marked ``xfail`` (not strict, :data:`MISSED`) until the faster steps are
in. Memory: the peak under 2.5 times the polars script's peak on this shape.
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
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(p.returncode, wall, use.ru_utime + use.ru_stime, use.ru_maxrss)
sys.stderr.write(p.stderr)
"""
# step: (CPU seconds per million ratings, peak MB): 2.5 x today's code (measured 2026-11-29 on the 2-core
# machine at load 15-25, one run) and 2.5 x the polars script's peak on this shape; the comment gives the
# measurement (trecrs CPU s/M, peak, CPU time over the polars script's; the polars script's CPU s/M, peak)
BOUNDS = {
    "split-holdout": (3.98, 1488),  # trecrs 1.59 CPU s/M, 498 MB, 1.60x; polars 0.99 CPU s/M, 595 MB
    "split-kfold": (8.73, 1242),  # trecrs 3.49 CPU s/M, 898 MB, 2.57x; polars 1.36 CPU s/M, 497 MB
    "split-per-user": (7.45, 1350),  # trecrs 2.98 CPU s/M, 633 MB, 3.39x; polars 0.88 CPU s/M, 540 MB
    "split-temporal": (4.28, 1350),  # trecrs 1.71 CPU s/M, 510 MB, 2.24x; polars 0.77 CPU s/M, 540 MB
    "split-temporal-last": (7.38, 1312),  # trecrs 2.95 CPU s/M, 557 MB, 3.12x; polars 0.95 CPU s/M, 525 MB
    "split-loo": (7.20, 1350),  # trecrs 2.88 CPU s/M, 613 MB, 3.15x; polars 0.91 CPU s/M, 540 MB
    "split-probe": (3.75, 1282),  # trecrs 1.50 CPU s/M, 512 MB, 1.85x; polars 0.81 CPU s/M, 513 MB
    "qrels": (1.10, 478),  # trecrs 0.44 CPU s/M, 236 MB, 1.31x; polars 0.34 CPU s/M, 191 MB
    "run-test-ratings": (6.55, 928),  # trecrs 2.62 CPU s/M, 492 MB, 3.73x; polars 0.70 CPU s/M, 371 MB
    "run-test-items": (6.80, 1125),  # trecrs 2.72 CPU s/M, 443 MB, 2.97x; polars 0.91 CPU s/M, 450 MB
    "run-training-items": (6.30, 1122),  # trecrs 2.52 CPU s/M, 457 MB, 3.02x; polars 0.83 CPU s/M, 449 MB
    "run-all-items": (6.12, 1045),  # trecrs 2.45 CPU s/M, 471 MB, 2.86x; polars 0.86 CPU s/M, 418 MB
    "eval": (1.12, 592),  # trecrs 0.45 CPU s/M, 176 MB, 1.50x; polars 0.30 CPU s/M, 237 MB
    "audit": (9.07, 1012),  # trecrs 3.63 CPU s/M, 604 MB, 4.80x; polars 0.76 CPU s/M, 405 MB
}
RATIO = 2.5  # trecrs's CPU time over the polars script's, both timed in the test, one after the other
# the steps whose ratio today's code misses or nearly misses (over 2.2 in the measurement above)
MISSED = {
    "split-kfold": "2.57x the polars script's CPU time today",
    "split-per-user": "3.39x the polars script's CPU time today",
    "split-temporal": "2.24x the polars script's CPU time today",
    "split-temporal-last": "3.12x the polars script's CPU time today",
    "split-loo": "3.15x the polars script's CPU time today",
    "run-test-ratings": "3.73x the polars script's CPU time today",
    "run-test-items": "2.97x the polars script's CPU time today",
    "run-training-items": "3.02x the polars script's CPU time today",
    "run-all-items": "2.86x the polars script's CPU time today",
    "audit": "4.80x the polars script's CPU time today",
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


def _timed(pipeline, step: str, row: str) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak MB of one row (``trecrs`` or ``polars``) of a step, in its own
    process."""
    bench, work = pipeline["bench"], pipeline["work"]
    out = work / step / row
    out.mkdir(parents=True, exist_ok=True)
    cmd, env = bench.commands(pipeline["steps"][step], row, out, None)
    p = subprocess.run([sys.executable, "-c", WRAP, *cmd], env=env, cwd=env["PYTHONPATH"],
                       capture_output=True, text=True)  # fmt: skip
    status, wall, cpu, kb = p.stdout.split()
    assert status == "0", p.stderr
    return float(wall), float(cpu), int(kb) / 1024


@pytest.fixture(scope="module")
def measured(pipeline):
    """Each step's trecrs CPU seconds per million ratings, peak MB and CPU time over the polars script's,
    measured once and kept for the step's three tests (the wall times are printed beside them)."""
    cache: dict[str, tuple[float, float, float]] = {}

    def get(step: str) -> tuple[float, float, float]:
        if step not in cache:
            limits = argparse.Namespace(timeout=600.0, max_mb=float("inf"))
            assert pipeline["bench"].prepare(pipeline["steps"], step, pipeline["work"], limits) is None
            wall, cpu, mb = _timed(pipeline, step, "trecrs")
            floor_wall, floor_cpu, floor_mb = _timed(pipeline, step, "polars")
            cache[step] = (cpu / pipeline["millions"], mb, cpu / floor_cpu)
            print(
                f"{step}: {cache[step][0]:.2f} CPU s per million ratings, {mb:.0f} MB, {cache[step][2]:.2f}x polars's CPU;"
                f" wall {wall:.1f} s, {wall / floor_wall:.2f}x polars's; polars {floor_cpu / pipeline['millions']:.2f} CPU s/M, {floor_mb:.0f} MB"
            )
        return cache[step]

    return get


@pytest.mark.slow
@pytest.mark.parametrize(
    ("step", "kind"), [_param(s, k) for s in BOUNDS for k in ("time", "memory", "ratio")]
)
def test_a_step_stays_within_its_bound(measured, step, kind):
    """CPU seconds per million ratings, peak MB, and the CPU time over the polars script's, under bounds."""
    seconds, mb, ratio = measured(step)
    bound_seconds, bound_mb = BOUNDS[step]
    if kind == "time":
        assert seconds <= bound_seconds, f"{step}: {seconds:.2f} CPU s per million ratings > {bound_seconds}"
    elif kind == "memory":
        assert mb <= bound_mb, f"{step}: peak {mb:.0f} MB > {bound_mb} MB"
    else:
        assert ratio <= RATIO, f"{step}: {ratio:.2f} x the polars script's CPU time > {RATIO}"


def test_the_bounds_cover_every_step_of_the_benchmark(tmp_path):
    """A step added to bench_pipeline.py gets a bound here (and a bound names a step the benchmark has)."""
    _module("generate_pipeline")
    assert list(_module("bench_pipeline").step_table(tmp_path, tmp_path)) == list(BOUNDS)
    assert set(MISSED) <= set(BOUNDS)
