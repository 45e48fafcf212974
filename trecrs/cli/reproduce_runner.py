"""The ``run_batch`` a reproduction's pipeline receives from the command line (the library never imports
it): ``trecrs batch`` in a process of its own per call, so that folds run at once, or in this process.

:func:`batch_runner` chooses: with one job the batches run in this process (no start-up per fold), else
each in ``python -m trecrs batch``, with BLAS and OpenMP held at one thread unless the environment says
otherwise (as the shell scripts did with ``JOBS`` > 1). Leaving the block stops the
processes still running, so an interruption (Ctrl-C, SIGTERM) ends every fold.

``python -m trecrs.cli.reproduce_runner NAME OUT [--data DIR] [--jobs N] ...`` runs a reproduction with
it and prints the findings as ``trecrs report`` does (the scripts and the tests use it).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence

from ..errors import EXIT_INTERRUPTED, EXIT_TERMINATED, TrecrsError

# the scripts' defaults for parallel folds: one BLAS / OpenMP thread per process
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def in_process_batch(commands: str, log: str, progress: str) -> int:
    """``trecrs batch --log LOG --progress PROGRESS COMMANDS`` in this process; its exit status.

    An interrupted batch interrupts the caller too (:class:`KeyboardInterrupt`).
    """
    from . import main

    status = main(["batch", "--log", log, "--progress", progress, commands])
    if status == EXIT_INTERRUPTED:
        raise KeyboardInterrupt
    return status


class ProcessBatches:
    """``run_batch`` as ``python -m trecrs batch ...`` in a process of its own per call (callable from several
    threads at once); :meth:`stop` ends the processes still running and refuses new ones."""

    def __init__(self, env: dict[str, str] | None = None):
        self.env = env
        self._live: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._stopped = False

    def __call__(self, commands: str, log: str, progress: str) -> int:
        argv = [sys.executable, "-m", "trecrs", "batch", "--log", log, "--progress", progress, commands]
        with self._lock:
            if self._stopped:
                return EXIT_TERMINATED
            proc = subprocess.Popen(argv, env=self.env)
            self._live.add(proc)
        try:
            status = proc.wait()
        finally:
            with self._lock:
                self._live.discard(proc)
        return 128 - status if status < 0 else status  # killed by signal N: 128 + N, as a shell says

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            live = list(self._live)
        for proc in live:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
        for proc in live:
            proc.wait()

    def __enter__(self) -> ProcessBatches:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def thread_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of parallel batches: one BLAS / OpenMP thread each unless already set."""
    env = dict(os.environ if environ is None else environ)
    for name in THREAD_VARIABLES:
        env.setdefault(name, "1")
    return env


@contextlib.contextmanager
def batch_runner(jobs: int) -> Iterator:
    """The ``run_batch`` for ``jobs`` batches at once: :func:`in_process_batch` for one, else
    :class:`ProcessBatches` (stopped when the block ends)."""
    if jobs <= 1:
        yield in_process_batch
        return
    with ProcessBatches(thread_env()) as run:
        yield run


def reproduce(name: str, out: str, *, data: str | None = None, jobs: int = 2, quiet: bool = False, **options):
    """Run the reproduction ``name`` (``trecrs.reproductions.NAME.pipeline``) with :func:`batch_runner`."""
    import importlib

    pipeline = importlib.import_module(f"trecrs.reproductions.{name}.pipeline")
    with batch_runner(jobs) as run_batch:
        return pipeline.reproduce(
            out, data, jobs=jobs, run_batch=run_batch, progress=None if quiet else sys.stderr, **options
        )


def _terminate(signum, frame) -> None:
    raise SystemExit(EXIT_TERMINATED)  # unwinds through batch_runner, which stops the batches


def main(argv: Sequence[str] | None = None) -> int:
    """``NAME OUT [--data DIR] [--jobs N] [--seed S] [--folds F...] [--reference TSV] [--quiet]``."""
    from .common import warnings_as_lines
    from .report import print_findings

    p = argparse.ArgumentParser(prog="python -m trecrs.cli.reproduce_runner")
    p.add_argument("name", choices=["bellogin2011", "cremonesi2010"])
    p.add_argument("out")
    p.add_argument("--data")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--folds", nargs="+")
    p.add_argument("--reference")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    options = {k: v for k, v in (("folds", args.folds), ("reference", args.reference)) if v}
    try:
        with warnings_as_lines("reproduce", quiet=args.quiet):  # --quiet: no bar, no note, no warning
            result = reproduce(
                args.name,
                args.out,
                data=args.data,
                jobs=args.jobs,
                quiet=args.quiet,
                seed=args.seed,
                **options,
            )
            print_findings(result)
    except TrecrsError as exc:
        print(f"trecrs reproduce: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("trecrs reproduce: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
