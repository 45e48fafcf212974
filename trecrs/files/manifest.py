"""Sidecar manifests: every file trecrs writes gets ``<file>.manifest.json`` saying where it came from.

A manifest records the trecrs version, what the file is, its sha256, the sha256 of every input file, and
the parameters that produced it (split, threshold, methodology, seed, ...). It holds no timestamps or
host names, so the same inputs and parameters give byte-identical manifests too.

A manifest is written with its file (see :mod:`trecrs.files.output`): the old one is removed before the
file is replaced and the new one put in place after it, so a manifest never describes another file.
One that does (a file changed by hand, or by another tool) is stale: :func:`read_manifest` refuses it,
and an input's stale manifest is not copied as its ``upstream`` provenance. A file written to standard
output (``-``) has no manifest.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .._version import __version__
from ..errors import InputError, warn
from .hashing import file_digest
from .lines import is_stdin, read_text
from .output import MANIFEST_SUFFIX, current_path, is_stdout, sidecar, write_text_atomic

__all__ = ["MANIFEST_SUFFIX", "manifest_path", "read_manifest", "write_manifest"]


def manifest_path(path: str | os.PathLike) -> Path:
    """Where the manifest of ``path`` lives."""
    return sidecar(path)


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
    digests: dict[str, str] | None = None,
) -> Path | None:
    """Write the sidecar manifest of the (already written) file ``path``; returns the manifest's path
    (None for ``-``, standard output, which has no manifest).

    ``inputs`` maps a role (``"ratings"``, ``"train"``, ``"scores"``...) to an input file, recorded with its
    sha256 (and the provenance its own manifest holds, if any, under ``upstream``). ``digests`` maps a
    role to its input's sha256 when the caller has it already (one input of many written files is
    hashed once).
    """
    if is_stdout(path):
        return None
    path = Path(path)
    data = current_path(path)  # not yet in place while the command runs (see deferred_writes)
    record: dict = {
        "file": path.name,
        "kind": kind,
        "sha256": file_digest(data),
        "bytes": data.stat().st_size,
        "trecrs_version": __version__,
    }
    if inputs:
        ins = {}
        for role, p in inputs.items():
            entry: dict = {"path": os.fspath(p)}
            if is_stdin(p):  # what was read, not a file: no provenance to copy
                entry["sha256"] = file_digest(p)
            elif current_path(p).is_file():
                entry["sha256"] = (digests or {}).get(role) or file_digest(current_path(p))
                upstream = _upstream(p, entry["sha256"])
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


def _upstream(path: str | os.PathLike, digest: str) -> dict | None:
    """The manifest of the input ``path`` (whose sha256 is ``digest``) to record as its provenance: None
    when it has none, it is not JSON, or it is stale (a warning says so: it describes another file)."""
    up = current_path(manifest_path(path))
    if not up.is_file():
        return None
    try:  # provenance is a courtesy: an unreadable upstream manifest is left out
        record = _parse(up)
    except InputError:
        return None
    if record.get("sha256", digest) != digest:
        warn(f"{manifest_path(path)}: {_stale(path, record)}; not recorded as provenance")
        return None
    return record


def _stale(path: str | os.PathLike, record: dict) -> str:
    return f"describes another file (sha256 {record.get('sha256')}); rerun the command that wrote {path}"


def _parse(m: Path) -> dict:
    """A manifest file's JSON object; anything else is an :class:`~trecrs.errors.InputError`."""
    try:
        record = json.loads(read_text(m))
    except json.JSONDecodeError as exc:
        raise InputError(m, exc.lineno, f"not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(m, None, "not valid JSON: nested too deeply") from None
    if not isinstance(record, dict):
        raise InputError(m, None, "not a manifest: expected a JSON object")
    return record


def read_manifest(path: str | os.PathLike) -> dict | None:
    """The manifest of ``path`` as a dict, or None if it has none. One that is not a JSON object (or not
    UTF-8 text) is an :class:`~trecrs.errors.InputError` naming its line; so is one whose sha256 is not
    ``path``'s (``FILE.manifest.json: describes another file ...``)."""
    m = manifest_path(path)
    if not m.is_file():
        return None
    record = _parse(m)
    if "sha256" in record and record["sha256"] != file_digest(path):
        raise InputError(m, None, _stale(path, record))
    return record
