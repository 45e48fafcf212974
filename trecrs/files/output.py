"""The one safe way trecrs writes a file: a temporary beside the target, renamed over it when complete.

Before anything is read, :func:`check_outputs` refuses an output path that cannot be written or that
would overwrite one of the inputs; :func:`atomic_path` creates missing parent folders only for the write
itself and removes them again if the write fails, so a failed command leaves the file system as it was.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import polars as pl

from ..errors import FileAccessError

PathLike = str | os.PathLike


def check_outputs(outputs: Iterable[PathLike], inputs: Iterable[PathLike] = ()) -> None:
    """Refuse, before any work, an output path that is a folder, lies under a file, sits in a folder that
    cannot be written, is named twice, or is (or links to) one of ``inputs``; raises :class:`~trecrs.errors.FileAccessError`.
    """
    seen: set[Path] = set()
    existing_inputs = [Path(p) for p in inputs if Path(p).is_file()]
    for out in map(Path, outputs):
        if out.resolve() in seen:
            raise FileAccessError(out, None, "named twice as an output")
        seen.add(out.resolve())
        if out.is_dir():
            raise FileAccessError(out, None, "is a folder; give a file name for the output")
        ancestor = next(a for a in [out.parent, *out.parent.parents] if a.exists() or a == a.parent)
        if not ancestor.is_dir():
            raise FileAccessError(out, None, f"cannot create it: {ancestor} is a file, not a folder")
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise FileAccessError(out, None, f"cannot write in {ancestor}: permission denied")
        for inp in existing_inputs:
            if out.exists() and os.path.samefile(out, inp):
                raise FileAccessError(out, None, f"is also an input ({inp}); writing it would destroy that input")


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing ancestors; returns the ones created, deepest first."""
    missing = [f for f in [folder, *folder.parents] if not f.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    return missing


@contextlib.contextmanager
def atomic_path(path: PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it over ``path``, on error remove it
    (and the parent folders created for it)."""
    path = Path(path)
    created = _make_parents(path.parent)
    try:
        with _renamed_on_success(path) as tmp:
            yield tmp
    except BaseException:
        for folder in created:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


@contextlib.contextmanager
def _renamed_on_success(path: Path) -> Iterator[Path]:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    # mkstemp creates 0600; give the file the permissions an ordinary open() would (0666 & ~umask)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp_path, 0o666 & ~umask)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


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
    """Write frames one after another as headerless delimited text, atomically (nothing left on error),
    so a table larger than memory can be written as it is produced."""
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        for chunk in chunks:
            fh.write(chunk.write_csv(include_header=False, separator=separator, quote_style="never").encode())


def write_table(df: pl.DataFrame, path: PathLike, *, separator: str = " ") -> None:
    """Write ``df`` as headerless delimited text (or Parquet for ``*.parquet``), atomically."""
    if str(path).endswith(".parquet"):
        with atomic_path(path) as tmp:
            df.write_parquet(tmp, statistics=False)
        return
    text = df.write_csv(include_header=False, separator=separator, quote_style="never")
    write_text_atomic(path, text)
