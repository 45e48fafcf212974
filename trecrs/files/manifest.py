"""Sidecar manifests: every file trecrs writes gets ``<file>.manifest.json`` saying where it came from.

A manifest records the trecrs version, what the file is, its sha256, the sha256 of every input file, and
the parameters that produced it (split, threshold, methodology, seed, ...). It holds no timestamps or
host names, so the same inputs and parameters give byte-identical manifests too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .._version import __version__
from .hashing import file_digest
from .output import write_text_atomic

MANIFEST_SUFFIX = ".manifest.json"


def manifest_path(path: str | os.PathLike) -> Path:
    """Where the manifest of ``path`` lives."""
    path = Path(path)
    return path.with_name(path.name + MANIFEST_SUFFIX)


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, float) and value != value:  # NaN
        return None
    return value


def write_manifest(
    path: str | os.PathLike,
    kind: str,
    *,
    inputs: dict[str, str | os.PathLike] | None = None,
    parameters: dict | None = None,
    command: list[str] | None = None,
    extra: dict | None = None,
) -> Path:
    """Write the sidecar manifest of the (already written) file ``path``; returns the manifest's path.

    ``inputs`` maps a role (``"ratings"``, ``"train"``, ``"scores"``...) to an input file, recorded with its
    sha256 (and the provenance its own manifest holds, if any, under ``upstream``).
    """
    path = Path(path)
    record: dict = {
        "file": path.name,
        "kind": kind,
        "sha256": file_digest(path),
        "bytes": path.stat().st_size,
        "trecrs_version": __version__,
    }
    if inputs:
        ins = {}
        for role, p in inputs.items():
            entry: dict = {"path": os.fspath(p)}
            if Path(p).is_file():
                entry["sha256"] = file_digest(p)
                up = manifest_path(p)
                if up.is_file():
                    try:
                        entry["upstream"] = json.loads(up.read_text())
                    except json.JSONDecodeError:
                        pass
            ins[role] = entry
        record["inputs"] = ins
    if parameters:
        record["parameters"] = parameters
    if command is not None:
        record["command"] = list(command)
    if extra:
        record.update(extra)
    out = manifest_path(path)
    write_text_atomic(out, json.dumps(_jsonable(record), indent=2, sort_keys=False) + "\n")
    return out


def read_manifest(path: str | os.PathLike) -> dict | None:
    """The manifest of ``path`` as a dict, or None if it has none."""
    m = manifest_path(path)
    return json.loads(m.read_text()) if m.is_file() else None
