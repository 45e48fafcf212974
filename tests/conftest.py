"""Shared fixtures: where ../shared is, and running the CLI in-process or as a real command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
GOLDEN = SHARED / "data" / "bellogin2011_fold1"
ML100K = SHARED / "data" / "ml-100k"


def need(path: Path) -> Path:
    """Skip the calling test, saying why, when a ../shared file is absent."""
    if not path.exists():
        pytest.skip(f"needs {path} (the shared data folder beside the repository), which is absent")
    return path


@pytest.fixture
def golden() -> Path:
    return need(GOLDEN)


@pytest.fixture
def ml100k() -> Path:
    return need(ML100K / "u.data")


@pytest.fixture
def cli(capsys):
    """Run ``trecrs ARGS`` in-process; returns (exit code, stdout, stderr)."""
    from trecrs.cli import main

    def _run(*args: str):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse
            code = exc.code
        out = capsys.readouterr()
        return code, out.out, out.err

    return _run


def run_command(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m trecrs ARGS`` as a separate process (exit codes, stderr as a shell sees them)."""
    return subprocess.run(
        [sys.executable, "-m", "trecrs", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


@pytest.fixture
def own_measures():
    """The measure registry restored after the test: the measures it registers (``register_measure``,
    ``--measures-from``, entry points) are gone for the next one; ``custom`` is the module that loads them."""
    from trecrs.measures.recsys import custom, registry

    saved = (
        dict(registry.REGISTRY),
        dict(registry.ALIASES),
        dict(custom._LOADED_FILES),
        dict(custom._ENTRY_POINTS),
    )
    yield custom
    for live, kept in zip((registry.REGISTRY, registry.ALIASES, custom._LOADED_FILES, custom._ENTRY_POINTS), saved,
                          strict=True):  # fmt: skip
        live.clear()
        live.update(kept)


def run_in_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """:func:`run_command`'s result for ``trecrs ARGS`` run by :func:`trecrs.cli.main` in this process.

    The same entry point, statuses and lines without starting an interpreter (about half a second each): a
    behaviour checked for many inputs keeps one :func:`run_command` round trip and runs the others here.
    """
    from tests.fuzz.run import run_in_process as run

    previous = os.getcwd()
    os.chdir(cwd or previous)
    try:
        outcome = run([str(a) for a in args])
    finally:
        os.chdir(previous)
    stdout = outcome.stdout.decode("utf-8", "surrogateescape")
    return subprocess.CompletedProcess(list(args), outcome.status, stdout, outcome.stderr)


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def trecrs_on_path(tmp_path: Path, **env: str) -> dict[str, str]:
    """An environment whose ``trecrs`` is this checkout's (scripts call the command by name), plus ``env``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "trecrs"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m trecrs "$@"\n')
    shim.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PATH=path, PYTHONPATH=pythonpath, **env)
