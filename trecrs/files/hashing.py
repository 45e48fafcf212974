"""File checksums: the one way trecrs hashes a file's bytes (sha256 in manifests, md5 for MovieLens)."""

from __future__ import annotations

import hashlib
import os

from .lines import is_stdin, stdin_bytes


def file_digest(path: str | os.PathLike, algorithm: str = "sha256", chunk: int = 1 << 20) -> str:
    """Hex digest of a file's bytes with a :mod:`hashlib` ``algorithm`` (``"sha256"``, ``"md5"``...),
    read in ``chunk``-byte blocks so any file size fits in memory; ``-`` is standard input, as read."""
    h = hashlib.new(algorithm)
    if is_stdin(path):
        h.update(stdin_bytes())
        return h.hexdigest()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()
