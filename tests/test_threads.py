"""trecrs.threads.one_thread: every loaded BLAS / OpenMP pool at one thread inside, the sizes restored after,
also when blocks nest, overlap from several threads, or a library is loaded inside an outer block."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy  # noqa: F401  (loads numpy's OpenBLAS, the pool the checks look at)
from threadpoolctl import threadpool_info

from tests.conftest import ROOT
from trecrs.threads import one_thread


def _sizes() -> dict[str, int]:
    return {p["filepath"]: p["num_threads"] for p in threadpool_info()}


def test_one_thread_pins_and_restores():
    before = _sizes()
    assert before, "no BLAS pool found to check"
    with one_thread():
        assert set(_sizes().values()) == {1}
        with one_thread():
            assert set(_sizes().values()) == {1}
        assert set(_sizes().values()) == {1}  # the inner block's end does not release the outer one
    assert _sizes() == before


def test_one_thread_overlapping_blocks_from_threads():
    """Blocks of two threads that end in the other order than they began: pinned until the last ends."""
    before = _sizes()
    entered, release_first = threading.Event(), threading.Event()
    seen = []

    def first():
        with one_thread():
            entered.set()
            release_first.wait()
        seen.append(set(_sizes().values()))  # the second block is still open

    t = threading.Thread(target=first)
    t.start()
    entered.wait()
    with one_thread():
        release_first.set()
        t.join()
    assert seen == [{1}]
    assert _sizes() == before


SUBPROCESS = """
import importlib.util, sys
import numpy
from threadpoolctl import threadpool_info
spec = importlib.util.spec_from_file_location("threads", sys.argv[1])  # not through trecrs/__init__.py,
threads = importlib.util.module_from_spec(spec)                         # whose imports may load scipy
spec.loader.exec_module(threads)
one_thread = threads.one_thread
sizes = lambda: {p["filepath"]: p["num_threads"] for p in threadpool_info()}
before = sizes()
with one_thread():
    with one_thread("scipy.sparse.linalg"):  # scipy's own OpenBLAS, loaded inside the outer block
        inner = sizes()
after = sizes()
assert len(inner) == len(before) + 1, (before, inner)
assert set(inner.values()) == {1}, inner
assert all(after[k] == 2 for k in after), after
print("ok")
"""


def test_one_thread_pins_a_library_loaded_inside_an_outer_block():
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    module = ROOT / "trecrs" / "threads.py"
    proc = subprocess.run(
        [sys.executable, "-c", SUBPROCESS, str(module)], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stderr
