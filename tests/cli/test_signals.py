"""Ctrl-C and SIGTERM during a write: one line, exit 130 / 143, and no temporary or partial file left."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

from ..conftest import ROOT


def _default_sigint() -> None:
    """In the child: SIGINT at its default, so that Python turns it into KeyboardInterrupt even when the
    suite was started in the background of a non-interactive shell (which starts it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# Runs `trecrs eval -o out.txt` with the write slowed down: the temporary exists while it sleeps.
# Python runs signal handlers in the main thread between bytecodes; a signal delivered to one of polars'
# threads is seen when the main thread next runs Python code, hence the short sleeps.
SLOW_WRITE = textwrap.dedent(
    """
    import sys, time
    import trecrs.files.output as output
    from trecrs.cli import main

    def slow_write(path, text):
        with output.atomic_path(path) as tmp:
            tmp.write_text("partial")
            print("writing", flush=True)
            for _ in range(600):  # short sleeps: a signal that lands on another thread is handled at the next one
                time.sleep(0.1)

    output.write_text_atomic = slow_write
    sys.exit(main(["eval", "-o", "sub/out.txt", "tiny.qrels", "tiny.run"]))
    """
)


@pytest.mark.parametrize(
    ("sig", "status", "word"), [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")]
)
def test_signal_during_a_write_cleans_up(tmp_path, sig, status, word):
    for name in ("tiny.qrels", "tiny.run"):
        shutil.copy(ROOT / "sample_data" / name, tmp_path / name)
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITE],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    assert proc.stdout.readline() == "writing\n"
    assert any(p.name.endswith(".tmp") for p in (tmp_path / "sub").iterdir())
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == status
    assert err == f"trecrs eval: {word}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.qrels", "tiny.run"]  # no sub/, no temporary


# The steps of `trecrs eval -o out.txt` with the test hook TRECRS_TEST_STEPS=1 (trecrs.files.output): the
# child prints each step on stderr and waits for a line on stdin, so the signal lands at a known point.
STEPS = [
    "temporary out.txt",
    "written out.txt",
    "temporary out.txt.manifest.json",
    "written out.txt.manifest.json",
    "unlinked out.txt.manifest.json",
    "renamed out.txt",
    "renamed out.txt.manifest.json",
]
FIRST_RENAME = STEPS.index(
    "unlinked out.txt.manifest.json"
)  # from here on SIGINT/SIGTERM wait for the renames
EVAL = [sys.executable, "-m", "trecrs", "eval", "-o", "out.txt", "tiny.qrels", "tiny.run"]


def _consistent(folder) -> None:
    """No manifest in ``folder`` describes a file it does not match."""
    import hashlib
    import json

    for manifest in folder.glob("*.manifest.json"):
        record = json.loads(manifest.read_text())
        data = folder / record["file"]
        assert data.is_file(), f"{manifest.name} beside no file"
        assert hashlib.sha256(data.read_bytes()).hexdigest() == record["sha256"], f"{manifest.name} is stale"


def _signal_at(folder, step: int, sig) -> subprocess.Popen:
    env = {**os.environ, "TRECRS_TEST_STEPS": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        EVAL,
        cwd=folder,
        env=env,
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        preexec_fn=_default_sigint,
    )
    for expected in STEPS[: step + 1]:
        assert proc.stderr.readline() == f"trecrs-test-step: {expected}\n"
        if expected != STEPS[step]:
            proc.stdin.write("\n")
            proc.stdin.flush()
    proc.send_signal(sig)
    proc.stdin.close()  # every later step goes on at once
    proc.wait(timeout=60)
    return proc


def _eval_in_process(folder, *options: str) -> int:
    from trecrs.cli import main

    return main(
        [
            "eval",
            "-o",
            str(folder / "out.txt"),
            *options,
            str(folder / "tiny.qrels"),
            str(folder / "tiny.run"),
        ]
    )


@pytest.fixture
def old_output(tmp_path):
    """A folder with an earlier `eval -o out.txt` (other measures): (old file, old manifest)."""
    for name in ("tiny.qrels", "tiny.run"):
        shutil.copy(ROOT / "sample_data" / name, tmp_path / name)
    assert _eval_in_process(tmp_path, "-m", "P.5") == 0
    return (tmp_path / "out.txt").read_bytes(), (tmp_path / "out.txt.manifest.json").read_bytes()


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("step", [0, 3, 4, 5])
def test_interrupted_write_keeps_the_old_pair_or_puts_the_new_one(tmp_path, old_output, sig, status, step):
    proc = _signal_at(tmp_path, step, sig)
    assert proc.returncode == status
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no temporary left
    data, manifest = (tmp_path / "out.txt").read_bytes(), (tmp_path / "out.txt.manifest.json").read_bytes()
    if step < FIRST_RENAME:  # before the renames: nothing changed
        assert (data, manifest) == old_output
    else:  # the renames were under way: they finish first, then the signal takes effect
        assert data != old_output[0]
    _consistent(tmp_path)


@pytest.mark.parametrize("step", range(len(STEPS)))
def test_killed_write_never_leaves_a_stale_manifest(tmp_path, old_output, step):
    proc = _signal_at(tmp_path, step, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    _consistent(tmp_path)
    if step < FIRST_RENAME:
        assert (tmp_path / "out.txt").read_bytes() == old_output[0]
    # the temporaries a kill leaves are hidden, and removed by the next write of the same file
    assert _eval_in_process(tmp_path) == 0
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    _consistent(tmp_path)
