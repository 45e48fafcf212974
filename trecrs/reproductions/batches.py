"""A reproduction's pipeline as files of trecrs command lines, run batch by batch, with a progress bar.

Each paper's ``pipeline`` module writes the steps of one fold (or of the whole experiment) as trecrs
command lines to ``FOLDER/commands.txt`` (:class:`Batch`), quoted as bash's ``printf ' %q'`` quotes them
(the bytes the shell scripts wrote before they called these functions), so that any line can be rerun by
hand, and hands the file to a
``run_batch(commands, log, progress) -> status`` it receives from its caller: ``trecrs batch`` in a
process of its own, or in this one. The library never imports the command line (docs/architecture.md),
so the runner comes from above. :func:`run_batches` runs up to ``jobs`` batches at once and
:class:`ProgressBar` draws the scripts' bar from the ``progress`` files (one line per finished step).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..errors import TrecrsError
from ..files.output import deferred_writes

#: ``run_batch(commands_file, log, progress_file) -> exit status``: runs a file of trecrs command lines as
#: ``trecrs batch --log LOG --progress PROGRESS COMMANDS`` does.
RunBatch = Callable[[str, str, str], int]

SAMPLE = "synth-100k-like"  # the folder the bundled sample is generated into, in the output folder

# bash's `printf %q` escapes these with a backslash wherever they are (bash 5, sh_backslash_quote)
_SHELL_SPECIAL = frozenset(" \t\n'\"\\|&;()<>!{}*[]?^$`,")
_ANSI_C = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    "'": "\\'",
    "\x1b": "\\E",
}


def bash_quote(word: str) -> str:
    """``word`` as bash's ``printf %q`` writes it: unchanged when nothing in it is special, else with each
    special character behind a backslash (``~`` at the start or after ``=``/``:``, ``#`` at the start);
    ``''`` when empty; ``$'...'`` when it holds a control character."""
    if not word:
        return "''"
    if any(ord(c) < 32 or ord(c) == 127 for c in word):
        return "$'" + "".join(_ANSI_C.get(c) or _octal(c) for c in word) + "'"
    out = []
    for k, c in enumerate(word):
        previous = word[k - 1] if k else ""
        if c in _SHELL_SPECIAL or (c == "~" and previous in ("", "=", ":")) or (c == "#" and not k):
            out.append("\\")
        out.append(c)
    return "".join(out)


def _octal(c: str) -> str:
    return f"\\{ord(c):03o}" if ord(c) < 32 or ord(c) == 127 else c


def command_line(*args: object) -> str:
    """One line of a commands file: ``trecrs`` and each argument quoted as the scripts' ``cmd`` does."""
    return " ".join(["trecrs", *(bash_quote(str(a)) for a in args)])


@dataclass(frozen=True)
class Batch:
    """A file of trecrs command lines and the folder its log and progress go to.

    ``lines`` are the file's lines (``#`` comments included), written to ``FOLDER/commands.txt``;
    ``FOLDER/log.txt`` receives each command and what it printed, ``FOLDER/progress`` one line per finished
    command. ``name`` names the batch in messages (a fold: ``u1``).
    """

    name: str
    folder: str
    lines: tuple[str, ...]
    done_marker: bool = False  # write FOLDER/done ("ok") once the batch succeeded, as the fold scripts do

    @property
    def commands(self) -> str:
        return f"{self.folder}/commands.txt"

    @property
    def log(self) -> str:
        return f"{self.folder}/log.txt"

    @property
    def progress(self) -> str:
        return f"{self.folder}/progress"

    @property
    def steps(self) -> int:
        """The number of commands (the lines that are not comments)."""
        return sum(1 for line in self.lines if line.startswith("trecrs "))

    def text(self) -> str:
        return "".join(f"{line}\n" for line in self.lines)

    def write(self) -> None:
        """Create the folder, the commands file, and an empty log and progress file."""
        Path(self.folder).mkdir(parents=True, exist_ok=True)
        for path in (self.progress, self.log):
            Path(path).write_bytes(b"")
        Path(self.commands).write_text(self.text(), encoding="utf-8")

    def run(self, run_batch: RunBatch) -> int:
        """Write the batch, run it, mark it done when it succeeded; returns its exit status."""
        self.write()
        status = run_batch(self.commands, self.log, self.progress)
        if status == 0 and self.done_marker:
            Path(f"{self.folder}/done").write_text("ok\n")
        return status


class ReproductionError(TrecrsError):
    """A step of a reproduction failed: the batches that failed and the end of their logs.

    The exit status is that of the first failed step (``trecrs batch`` stops at it with its status).
    """

    def __init__(self, failed: Sequence[tuple[Batch, int]]):
        first = failed[0]
        self.exit_code = first[1]
        parts = [
            f"{b.name} failed (status {status}{_last_error(b.log)}; see {b.log})" for b, status in failed
        ]
        super().__init__("; ".join(parts))


def _last_error(log: str) -> str:
    """``: LINE`` with the last line of ``log`` that is neither a command nor a timing, if any."""
    try:
        lines = Path(log).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    said = [x for x in lines if x.strip() and not x.startswith(("$ trecrs ", "# "))]
    return f": {said[-1].strip()}" if said else ""


def run_batches(batches: Sequence[Batch], run_batch: RunBatch, jobs: int) -> None:
    """Run ``batches`` (each :meth:`Batch.run`), ``jobs`` at a time, each to its end (a failed one does not
    stop the others, as the scripts' folds); raise :class:`ReproductionError` naming the ones that failed.

    With one job they run in order in this thread; else in threads, each waiting for its runner (a
    process). An interruption (Ctrl-C) cancels the batches not started and is raised at once: the caller's
    runner stops the processes under way.
    """
    if jobs <= 1:
        statuses = [b.run(run_batch) for b in batches]
    else:
        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="trecrs-batch")
        futures = [pool.submit(b.run, run_batch) for b in batches]
        try:
            wait(futures, return_when=FIRST_EXCEPTION)
            statuses = [f.result() for f in futures]
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
    failed = [(b, s) for b, s in zip(batches, statuses, strict=True) if s]
    if failed:
        raise ReproductionError(failed)


class ProgressBar:
    """The scripts' progress bar on ``stream``, redrawn every second from the batches' progress files.

    ``[####    ]  NN%  DONE/TOTAL steps  Ns``: redrawn in place on a terminal, one line per 10% otherwise
    (a log file or a pipe), and once more, with a newline, when it stops. ``stream=None`` draws nothing.
    Used as a context manager around the run; ``started`` is the pipeline's start (``time.monotonic()``).
    """

    def __init__(self, batches: Sequence[Batch], stream: TextIO | None, started: float):
        self.files = [b.progress for b in batches]
        self.total = max(sum(b.steps for b in batches), 1)
        self.stream = stream
        self.started = started
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, name="trecrs-progress", daemon=True)

    def done(self) -> int:
        """The steps finished so far: the lines of the progress files."""
        n = 0
        for path in self.files:
            try:
                n += Path(path).read_bytes().count(b"\n")
            except OSError:  # not written yet
                pass
        return n

    def draw(self, done: int) -> None:
        assert self.stream is not None
        bar = "#" * (done * 40 // self.total)
        seconds = int(time.monotonic() - self.started)
        self.stream.write(
            f"\r[{bar:<40}] {done * 100 // self.total:3d}%  {done}/{self.total} steps  {seconds}s "
        )
        self.stream.flush()

    def _tick(self) -> None:
        assert self.stream is not None
        terminal = _isatty(self.stream)
        last = -1
        while True:
            done = self.done()
            if terminal:
                self.draw(done)
            elif done * 10 // self.total != last:
                last = done * 10 // self.total
                self.draw(done)
                self.stream.write("\n")
            if self._stop.wait(1.0):
                return

    def __enter__(self) -> ProgressBar:
        if self.stream is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.stream is None:
            return
        self._stop.set()
        self._thread.join()
        self.draw(self.done())
        self.stream.write("\n")
        self.stream.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed, or not a real stream
        return False


def say(stream: TextIO | None, text: str) -> None:
    """A line on the progress stream (nothing when it is None)."""
    if stream is not None:
        stream.write(text + "\n")
        stream.flush()


def count_lines(path: str | os.PathLike) -> int:
    """The number of newline characters in ``path`` (``wc -l``)."""
    with open(path, "rb") as fh:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))


def sample_data(out: str) -> str:
    """Generate the bundled sample (``trecrs datasets synthetic --users 300 --items 600 --seed 42``, the
    bytes of sample_data/synth-100k-like/u.data) into ``OUT/synth-100k-like``; returns that folder."""
    from ..data.synthetic import write_synthetic

    folder = f"{out}/{SAMPLE}"
    command = ["trecrs", "datasets", "synthetic", "--users", "300", "--items", "600", "--seed", "42", folder]
    with deferred_writes():  # in place now, whatever block the caller runs in: the next steps read it
        write_synthetic(folder, 300, 600, seed=42, min_ratings=20, command=command)
    return folder
