"""The one safe way trecrs writes a file: a temporary beside the target, renamed over it when complete."""

from __future__ import annotations

import contextlib
import gzip
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import polars as pl

PathLike = str | os.PathLike


@contextlib.contextmanager
def atomic_path(path: PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it over ``path``, on error remove it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
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
