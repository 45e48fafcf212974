"""Running one case: ``trecrs eval`` in-process (per engine) and a trec_eval binary as a process."""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .generate import Case

ENGINES = ("vectorized", "pytrec_eval", "auto")


@dataclass(frozen=True)
class Outcome:
    """What a program did: its exit status and its stdout bytes (stderr kept for reports only)."""

    status: int
    stdout: bytes
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 0


@contextlib.contextmanager
def case_files(case: Case):
    """The case's qrels and run written to a temporary folder: yields (qrels path, run path)."""
    with tempfile.TemporaryDirectory(prefix="trecrs-fuzz-") as tmp:
        qrels, run = Path(tmp) / "qrels", Path(tmp) / "run"
        qrels.write_text(case.qrels_text())
        run.write_text(case.run_text())
        yield qrels, run


def run_in_process(argv: list[str]) -> Outcome:
    """``trecrs ARGV`` in this process, its stdout and stderr captured."""
    from trecrs.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse
            status = exc.code if isinstance(exc.code, int) else 2
    return Outcome(int(status or 0), out.getvalue().encode("utf-8", "surrogateescape"), err.getvalue())


def trecrs_argv(case: Case, qrels: Path, run: Path, engine: str, version: str = "9") -> list[str]:
    """``trecrs eval`` with the case's flags, ``engine`` and, for trec_eval 10, ``--trec-eval-version 10``."""
    pinned = [] if version == "9" else ["--trec-eval-version", version]
    return ["eval", *case.flags, *pinned, "--engine", engine, "--quiet", str(qrels), str(run)]


class Worker:
    """A Python process running ``trecrs`` commands in-process, one JSON line per command.

    In-process runs are fast (no interpreter start per command), and the separate process survives what
    would kill the harness: a crash in a C extension is reported as the negative signal number, as
    :mod:`subprocess` does, and the next command starts a fresh worker.
    """

    def __init__(self, timeout: float = 20.0, memory: int | None = None) -> None:
        self.timeout = timeout
        self.memory = memory  # bytes of RLIMIT_DATA (heap and private mappings), None: no limit
        self.proc: subprocess.Popen | None = None

    def _limit(self) -> None:
        """In the worker before it starts: the memory limit. RLIMIT_DATA bounds what malloc, mmap and
        polars' allocator take without counting the address space that thread stacks and shared
        libraries reserve (RLIMIT_AS at 1 GB already fails imports and thread starts)."""
        import resource

        resource.setrlimit(resource.RLIMIT_DATA, (self.memory, self.memory))

    def _start(self) -> subprocess.Popen:
        root = Path(__file__).resolve().parents[2]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
        return subprocess.Popen([sys.executable, "-m", "tests.fuzz.run", str(self.timeout + 5)], cwd=root, env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                preexec_fn=None if self.memory is None else self._limit)  # fmt: skip

    def run(self, argv: list[str]) -> Outcome:
        """``trecrs ARGV`` in the worker (started if needed)."""
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        self.proc.stdin.write((json.dumps(argv) + "\n").encode())
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        line = self.proc.stdout.readline() if ready else b""
        if not line:  # died (a signal) or hung
            if ready:
                status = self.proc.wait()
            else:
                self.proc.kill()
                status = self.proc.wait()
                return Outcome(-9, b"", f"no answer in {self.timeout:.0f} s")
            self.proc = None
            return Outcome(status, b"", f"killed by signal {-status}")
        reply = json.loads(line)
        return Outcome(reply["status"], reply["stdout"].encode("latin-1"), reply["stderr"])

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # stuck in a command
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def _serve(limit: float) -> None:
    """The worker's loop: argv in, outcome out; fd 1 is pointed at stderr so that stray C output cannot
    corrupt the replies. A command running longer than ``limit`` seconds ends the worker (SIGALRM's
    default action works even inside C code), so a hung worker never outlives its harness."""
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        signal.alarm(max(1, int(limit)))
        outcome = run_in_process(json.loads(line))
        signal.alarm(0)
        reply = {
            "status": outcome.status,
            "stdout": outcome.stdout.decode("latin-1"),
            "stderr": outcome.stderr,
        }
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def run_binary(binary: Path, case: Case, qrels: Path, run: Path) -> Outcome:
    """``trec_eval FLAGS QRELS RUN``; a crash is a negative status (the signal)."""
    done = subprocess.run([str(binary), *case.flags, str(qrels), str(run)], capture_output=True, timeout=60,
                          check=False)  # fmt: skip
    return Outcome(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"))


if __name__ == "__main__":
    _serve(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
