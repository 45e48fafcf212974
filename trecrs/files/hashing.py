"""File checksums: the one way trecrs hashes a file's bytes (sha256 in manifests, md5 for MovieLens)."""

from __future__ import annotations

import hashlib
import os


def file_digest(path: str | os.PathLike, algorithm: str = "sha256", chunk: int = 1 << 20) -> str:
    """Hex digest of a file's bytes with a :mod:`hashlib` ``algorithm`` (``"sha256"``, ``"md5"``...),
    read in ``chunk``-byte blocks so any file size fits in memory."""
    h = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()
