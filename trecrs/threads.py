"""BLAS / LAPACK / OpenMP thread pools held at one thread, so a computed number does not depend on them.

A threaded BLAS splits a product among its threads, and the split decides the order of the floating-point
sums: OpenBLAS's matrix-vector product gives each thread a band of rows and sums the rows left over at a
band's end with another kernel, LAPACK's SVD calls such products at every step. The last digits of a
result then depend on ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS`` (or the number
of cores), and a near-tie of two scores can swap. Inside :func:`one_thread` every such pool the process
has loaded runs one thread, so the result is what one thread computes, whatever those settings say.
Source: threadpoolctl (``threadpool_limits``), which finds the pools of OpenBLAS, MKL, BLIS and the
OpenMP runtimes among the loaded libraries and sets their sizes through their own APIs.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_limiters: list = []  # threadpoolctl limiters in force, restored together when the last block is left
_depth = 0


@contextlib.contextmanager
def one_thread(*preload: str) -> Iterator[None]:
    """Run the block with every loaded BLAS / OpenMP thread pool at one thread; restore them afterwards.

    ``preload``: modules to import first (``"scipy.sparse.linalg"`` loads scipy's own OpenBLAS), because a
    library first loaded inside the block would run on its default number of threads. The limit is
    process-wide (the libraries have one setting each): blocks may nest and may be entered from several
    threads at once; the original sizes come back when the last block open in the process ends.
    """
    global _depth
    for name in preload:
        importlib.import_module(name)
    from threadpoolctl import threadpool_limits

    with _lock:
        _limiters.append(threadpool_limits(limits=1))  # pins too any pool loaded since the outer block
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                while _limiters:  # newest first: each restores what it found, the first the originals
                    _limiters.pop().restore_original_limits()
