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
from ..errors import InputError
from .hashing import file_digest
from .lines import read_text
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
                try:  # provenance is a courtesy: an unreadable upstream manifest is left out
                    upstream = read_manifest(p)
                except InputError:
                    upstream = None
                if upstream is not None:
                    entry["upstream"] = upstream
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
    """The manifest of ``path`` as a dict, or None if it has none; one that is not a JSON object (or not
    UTF-8 text) is an :class:`~trecrs.errors.InputError` naming its line."""
    m = manifest_path(path)
    if not m.is_file():
        return None
    try:
        record = json.loads(read_text(m))
    except json.JSONDecodeError as exc:
        raise InputError(m, exc.lineno, f"not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(m, None, "not valid JSON: nested too deeply") from None
    if not isinstance(record, dict):
        raise InputError(m, None, "not a manifest: expected a JSON object")
    return record
