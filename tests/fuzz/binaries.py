"""trec_eval binaries built once from the official source archives in ``../shared/tools``.

The archives are never copied into the repository: each version is unpacked and built with ``make`` in a
cache folder (``$TRECRS_FUZZ_CACHE``, else ``~/.cache/trecrs-fuzz``), once per machine; a lock file keeps
two processes from building the same version at the same time.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT.parent / "shared" / "tools"
VERSIONS = {"9": "9.0.8", "10": "10.0"}


class Unavailable(RuntimeError):
    """A trec_eval binary cannot be had here (no source archive, no compiler, a failed build)."""


def cache_dir() -> Path:
    """Where built binaries are kept (``$TRECRS_FUZZ_CACHE`` or ``~/.cache/trecrs-fuzz``)."""
    env = os.environ.get("TRECRS_FUZZ_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "trecrs-fuzz"


def archive(version: str) -> Path:
    """The official source archive of ``version`` ("9" or "10", or the full number)."""
    full = VERSIONS.get(version, version)
    return TOOLS / f"trec_eval-{full}.tar.gz"


def binary(version: str = "9") -> Path:
    """The path of a built trec_eval ``version``, building it first if needed; raises :class:`Unavailable`."""
    full = VERSIONS.get(version, version)
    src = archive(full)
    target = cache_dir() / f"trec_eval-{full}" / "trec_eval"
    if target.exists():
        return target
    if not src.exists():
        raise Unavailable(f"needs {src} (the shared tools folder beside the repository), which is absent")
    if shutil.which("make") is None or shutil.which("gcc") is None and shutil.which("cc") is None:
        raise Unavailable("needs make and a C compiler to build trec_eval")
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / f".lock-{full}", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building the same version
        if not target.exists():
            _build(src, target.parent)
    return target


def _build(src: Path, folder: Path) -> None:
    """Unpack ``src`` next to ``folder`` and run ``make`` there; a failed build leaves nothing behind."""
    tmp = folder.with_name(folder.name + ".building")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with tarfile.open(src) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.12 (and the security releases): no links out
            tar.extractall(tmp, filter="data")
        else:
            tar.extractall(tmp)
    (top,) = list(tmp.iterdir())
    done = subprocess.run(["make", "-s"], cwd=top, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not (top / "trec_eval").exists():
        shutil.rmtree(tmp, ignore_errors=True)
        raise Unavailable(f"building {src.name} failed: {done.stderr.strip()[-500:]}")
    shutil.rmtree(folder, ignore_errors=True)
    top.rename(folder)
    shutil.rmtree(tmp, ignore_errors=True)
