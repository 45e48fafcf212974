"""The one safe way trecrs writes a file: a temporary beside the target, renamed over it when complete.

Before anything is read, :func:`check_outputs` refuses an output path (a file, or a folder the command
writes into) that cannot be written or that would overwrite one of the inputs. :func:`atomic_path`
creates missing parent folders only for the write itself and removes them again if the write fails, so
a failed command leaves the file system as it was. Inside :func:`deferred_writes` (the CLI runs every
command in one) the complete temporaries are held until the command succeeds and then put in place
together; a failure or a signal before that leaves every output, and every folder, as it was.

A file and its sidecar manifest (``FILE.manifest.json``) are put in place in this order: the new data
and the new manifest are complete and fsynced as temporaries, the old manifest is removed, the data is
renamed, the manifest is renamed, the folder is fsynced. At every instant (a SIGKILL included) the
sidecar is absent or describes the file beside it. SIGINT and SIGTERM are held during the renames and
take effect just after them. A SIGKILL can leave hidden temporaries ``.FILE.PID-XXXX.tmp``: trecrs never
reads them, and the next write of FILE removes those whose process is gone.

The output path ``-`` is standard output (a file literally named ``-`` is ``./-``): its bytes go to a
temporary and are copied to standard output when the write ends (inside :func:`deferred_writes`, once the
command has succeeded, after the files are in place), so a failed command prints none of them. It has no
manifest, and Parquet or a figure (``binary=``) is refused there (:class:`~trecrs.errors.UsageError`).
"""

from __future__ import annotations

import codecs
import contextlib
import glob
import gzip
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

import polars as pl

from ..errors import FileAccessError, UsageError
from .lines import is_stdin
from .parquet import is_parquet

PathLike = str | os.PathLike

MANIFEST_SUFFIX = ".manifest.json"

# The test hook: with TRECRS_TEST_STEPS=1 every writing step prints `trecrs-test-step: STEP NAME` on
# stderr and waits for a line on stdin, so a test can signal the process at an exact point.
_TEST_STEPS = "TRECRS_TEST_STEPS"

_HELD = (signal.SIGINT, signal.SIGTERM)


def sidecar(path: PathLike) -> Path:
    """Where the manifest of ``path`` lives: ``FILE.manifest.json`` beside it."""
    path = Path(path)
    return path.with_name(path.name + MANIFEST_SUFFIX)


def is_stdout(path: object) -> bool:
    """Whether the output ``path`` is ``-``, standard output (a file literally named ``-`` is ``./-``)."""
    return is_stdin(path)


def target_name(path: PathLike) -> str:
    """``path`` as notes name an output: ``<stdout>`` for ``-``."""
    return "<stdout>" if is_stdout(path) else os.fspath(path)


def _is_sidecar(path: Path) -> bool:
    return path.name.endswith(MANIFEST_SUFFIX)


def check_outputs(
    outputs: Iterable[PathLike],
    inputs: Iterable[PathLike] = (),
    folders: Iterable[tuple[PathLike, Iterable[str]]] = (),
) -> None:
    """Refuse, before any work, an output that cannot be written or would destroy an input; raises
    :class:`~trecrs.errors.FileAccessError`.

    ``outputs`` are files; ``folders`` are (folder, names of the files the command writes in it). A file
    is refused when it is a folder, lies under a file, sits in a folder that cannot be written, is named
    twice, or is (or links to) one of ``inputs``; so is its manifest. A folder is refused when it is a
    file, lies under a file, or cannot be created or written. ``-`` (standard output) is no path: it is
    only refused when two outputs name it (:class:`~trecrs.errors.UsageError`).
    """
    outputs = list(outputs)
    if sum(map(is_stdout, outputs)) > 1:
        raise UsageError("'-' (standard output) is named for two outputs; give a file name for one of them")
    files = [Path(p) for p in outputs if not is_stdout(p)]
    for folder, names in folders:
        _check_folder(Path(folder))
        files += [Path(folder) / name for name in names]
    seen: set[Path] = set()
    existing_inputs = [Path(p) for p in inputs if not is_stdin(p) and Path(p).is_file()]
    for out in files:
        _check_file(out, seen, existing_inputs)
    for out in files:  # the sidecars once every output is known to be a file name (``.`` has no sidecar)
        _check_file(sidecar(out), seen, existing_inputs)


def _check_file(out: Path, seen: set[Path], inputs: list[Path]) -> None:
    if out.resolve() in seen:
        raise FileAccessError(out, None, "named twice as an output")
    seen.add(out.resolve())
    if out.is_dir() or out.name in ("", ".", ".."):
        raise FileAccessError(out, None, "is a folder; give a file name for the output")
    _check_writable(out, out.parent)
    _refuse_input(out, inputs)


def _check_folder(folder: Path) -> None:
    """A folder output must be a folder, or creatable where it is named, and writable."""
    if folder.exists() and not folder.is_dir():
        raise FileAccessError(folder, None, "is a file, not a folder; give a folder for the output")
    _check_writable(folder, folder)


def _check_writable(out: Path, folder: Path) -> None:
    """``folder`` (which holds ``out``) exists as a writable folder, or can be created in one."""
    ancestor = next(a for a in [folder, *folder.parents] if a.exists() or a == a.parent)
    if not ancestor.is_dir():
        raise FileAccessError(out, None, f"cannot create it: {ancestor} is a file, not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise FileAccessError(out, None, f"cannot write in {ancestor}: permission denied")


def _refuse_input(out: Path, inputs: Iterable[Path]) -> None:
    for inp in inputs:
        if out.exists() and inp.exists() and os.path.samefile(out, inp):
            raise FileAccessError(out, None, f"is also an input ({inp}); writing it would destroy that input")


def _test_step(step: str, path: Path) -> None:
    """The test hook (see ``TRECRS_TEST_STEPS``): announce ``step`` and wait to be let go."""
    if os.environ.get(_TEST_STEPS, "") not in ("", "0"):
        print(f"trecrs-test-step: {step} {path.name}", file=sys.stderr, flush=True)
        sys.stdin.readline()


class _Writes:
    """The writes of one :func:`deferred_writes` block: complete temporaries waiting to be put in place."""

    def __init__(self, inputs: Iterable[PathLike]):
        self.inputs = [Path(p) for p in inputs if not is_stdin(p) and Path(p).is_file()]
        self.pending: dict[Path, Path] = {}  # target -> its complete, fsynced temporary
        self.stdout: list[Path] = []  # complete temporaries for standard output, in the order written
        self.created: list[Path] = []  # folders made for the writes, deepest first
        self.lock = threading.Lock()

    def hold(self, path: Path, tmp: Path) -> None:
        with self.lock:
            old = self.pending.pop(path, None)
            self.pending[path] = tmp
        if old is not None:  # the same file written twice: the last write wins
            _unlink(old)

    def discard(self) -> None:
        """Remove every temporary, then the folders made for them."""
        for tmp in [*self.pending.values(), *self.stdout]:
            _unlink(tmp)
        self.pending.clear()
        self.stdout.clear()
        _remove_folders(self.created)


_ACTIVE: list[_Writes] = []  # the open deferred_writes blocks, innermost last


def current_path(path: PathLike) -> Path:
    """Where the bytes written to ``path`` are now: its held temporary inside :func:`deferred_writes`
    (the file is not in place yet), else ``path`` itself."""
    path = Path(path)
    for writes in reversed(_ACTIVE):
        if path in writes.pending:
            return writes.pending[path]
    return path


@contextlib.contextmanager
def deferred_writes(inputs: Iterable[PathLike] = ()) -> Iterator[None]:
    """Hold every file written in the block and put them all in place when it ends without error; on an
    error (or a signal) remove them and the folders made for them, so nothing changes.

    A write to one of ``inputs`` (or a link to one) is refused with
    :class:`~trecrs.errors.FileAccessError`.
    """
    writes = _Writes(inputs)
    _ACTIVE.append(writes)
    try:
        yield
    except BaseException:
        with _signals_held():
            writes.discard()
        raise
    finally:
        _ACTIVE.remove(writes)
    try:
        with _signals_held():
            _put_in_place(writes.pending)
        _to_stdout(writes.stdout)  # signals not held: a reader that stops reading must not block them
    except BaseException:
        writes.discard()
        raise


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM (main thread only) so that a sequence of renames is never cut short; a
    signal that arrives meanwhile is raised again when the block ends, and takes effect then.

    The Python handlers are swapped rather than the signal mask changed: a signal sent to the process
    may be delivered to any thread (polars has many), and only the handler runs in the main thread.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, frame: received.append(signum)) for sig in _HELD}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for signum in received:
            signal.raise_signal(signum)


def _put_in_place(pending: dict[Path, Path]) -> None:
    """Rename the temporaries over their targets: for each file, its old manifest is removed first and
    its new manifest renamed after it, so no manifest ever sits beside a file it does not describe."""
    order: list[Path] = []
    for target in pending:
        if not _is_sidecar(target):
            order += [target] + ([sidecar(target)] if sidecar(target) in pending else [])
    order += [t for t in pending if t not in order]
    folders: dict[Path, None] = {}
    for target in order:
        if not _is_sidecar(target) and os.path.lexists(sidecar(target)):
            sidecar(target).unlink()
            _test_step("unlinked", sidecar(target))
        os.replace(pending[target], target)
        del pending[target]
        _test_step("renamed", target)
        folders[target.parent] = None
        _remove_stale_temporaries(target)
    for folder in folders:
        _fsync_folder(folder)


def _fsync_folder(folder: Path) -> None:
    """Make the renames in ``folder`` durable (a folder cannot be opened for this on some systems)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _remove_stale_temporaries(target: Path) -> None:
    """Remove the temporaries of ``target`` left by a killed trecrs process (``.NAME.PID-XXXX.tmp``)."""
    for name in glob.glob(glob.escape(f".{target.name}.") + "*-*.tmp", root_dir=target.parent):
        pid = name[len(target.name) + 2 :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)):
            _unlink(target.parent / name)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _remove_folders(folders: Iterable[Path]) -> None:
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing ancestors; returns the ones created, deepest first."""
    missing = [f for f in [folder, *folder.parents] if not f.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    return missing


@contextlib.contextmanager
def atomic_path(path: PathLike, *, binary: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends, fsync it and rename it over ``path``
    (held until the end of :func:`deferred_writes` inside one); on error remove it and the parent folders
    created for it.

    ``path`` ``-`` is standard output: the bytes are copied there instead (see the module); ``binary``
    names what the file holds when it is not text (``"Parquet"``), which standard output refuses.
    """
    if is_stdout(path):
        if binary is not None:
            raise UsageError(f"{binary} is not written to standard output ('-'); give a file name")
        with _stdout_path() as tmp:
            yield tmp
        return
    path = Path(path)
    writes = _ACTIVE[-1] if _ACTIVE else None
    if writes is not None:
        _refuse_input(path, writes.inputs)
    created = _make_parents(path.parent)
    if writes is not None:
        writes.created[:0] = created  # deepest first, and before any folder made earlier
    try:
        tmp = _new_temporary(path)
        try:
            _test_step("temporary", path)
            yield tmp
            _fsync_file(tmp)
            _test_step("written", path)
        except BaseException:
            _unlink(tmp)
            raise
        if writes is not None:
            writes.hold(path, tmp)
        else:
            _put_now(path, tmp)
    except BaseException:
        _remove_folders(created)
        raise


@contextlib.contextmanager
def _stdout_path() -> Iterator[Path]:
    """Yield a temporary for bytes bound for standard output; when the block ends, copy them there (at
    the end of :func:`deferred_writes` inside one); on error remove it."""
    fd, name = tempfile.mkstemp(prefix=f".trecrs-stdout.{os.getpid()}-", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
    except BaseException:
        _unlink(tmp)
        raise
    if _ACTIVE:
        _ACTIVE[-1].stdout.append(tmp)
    else:
        try:
            _to_stdout([tmp])
        finally:
            _unlink(tmp)


def _to_stdout(temporaries: list[Path]) -> None:
    """Copy each temporary to standard output, in order, removing each once copied. Through the binary
    buffer when there is one (the bytes as written); else (a text stream) decoded as UTF-8."""
    out = sys.stdout
    out.flush()
    buffer = getattr(out, "buffer", None)
    while temporaries:
        with open(temporaries[0], "rb") as fh:
            if buffer is not None:
                shutil.copyfileobj(fh, buffer)
            else:
                decoder = codecs.getincrementaldecoder("utf-8")()
                for block in iter(lambda: fh.read(1 << 20), b""):
                    out.write(decoder.decode(block))
                out.write(decoder.decode(b"", final=True))
        _unlink(temporaries.pop(0))
    (buffer or out).flush()


def _put_now(path: Path, tmp: Path) -> None:
    """Put one file in place at once (outside :func:`deferred_writes`); its temporary goes if that fails."""
    pending = {path: tmp}
    try:
        with _signals_held():
            _put_in_place(pending)
    finally:
        for left in pending.values():
            _unlink(left)


def _new_temporary(path: Path) -> Path:
    """An empty temporary ``.NAME.PID-XXXX.tmp`` beside ``path``, with an ordinary file's permissions."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp", dir=path.parent)
    os.close(fd)
    # mkstemp creates 0600; give the file the permissions an ordinary open() would (0666 & ~umask)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    return Path(tmp)


def _fsync_file(path: Path) -> None:
    """Flush ``path``'s bytes to the disk before it is renamed into place (durability after a crash)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_text_atomic(path: PathLike, text: str | bytes) -> None:
    """Write ``text`` to ``path`` atomically (gzip-compressed, reproducibly, when ``path`` ends in .gz)."""
    data = text.encode() if isinstance(text, str) else text
    with atomic_path(path) as tmp:
        if str(path).endswith(".gz"):
            with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                gz.write(data)
        else:
            tmp.write_bytes(data)


def write_chunks(chunks: Iterable[pl.DataFrame], path: PathLike, *, separator: str = " ") -> None:
    """Write frames one after another as headerless delimited text (Parquet for ``*.parquet``: one row
    group per frame, with the first frame's columns and types), atomically (nothing left on error), so a
    table larger than memory can be written as it is produced."""
    if is_parquet(path):
        _write_parquet_chunks(chunks, path)
        return
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        for chunk in chunks:
            fh.write(chunk.write_csv(include_header=False, separator=separator, quote_style="never").encode())


def _write_parquet_chunks(chunks: Iterable[pl.DataFrame], path: PathLike) -> None:
    import pyarrow.parquet as pq

    with atomic_path(path) as tmp:
        writer, schema = None, pl.Schema()  # schema: set with the writer, from the first frame
        try:
            for chunk in chunks:
                if writer is None:  # the first frame (empty or not) gives the file its schema
                    schema = chunk.schema
                    writer = pq.ParquetWriter(tmp, chunk.to_arrow().schema, write_statistics=False)
                if chunk.height:
                    writer.write_table(chunk.cast(schema).to_arrow())
        finally:
            if writer is not None:
                writer.close()
        if writer is None:
            pl.DataFrame().write_parquet(tmp, statistics=False)


def write_table(df: pl.DataFrame, path: PathLike, *, separator: str = " ") -> None:
    """Write ``df`` as headerless delimited text (or Parquet for ``*.parquet``), atomically."""
    if is_parquet(path):
        with atomic_path(path) as tmp:
            df.write_parquet(tmp, statistics=False)
        return
    text = df.write_csv(include_header=False, separator=separator, quote_style="never")
    write_text_atomic(path, text)
