"""Ctrl-C and SIGTERM during a write: one line, exit 130 / 143, and no temporary or partial file left."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

from ..conftest import ROOT

# Runs `trecrs eval -o out.txt` with the write slowed down: the temporary exists while it sleeps.
SLOW_WRITE = textwrap.dedent(
    """
    import sys, time
    import trecrs.files.output as output
    from trecrs.cli import main

    def slow_write(path, text):
        with output.atomic_path(path) as tmp:
            tmp.write_text("partial")
            print("writing", flush=True)
            time.sleep(60)

    output.write_text_atomic = slow_write
    sys.exit(main(["eval", "-o", "sub/out.txt", "tiny.qrels", "tiny.run"]))
    """
)


@pytest.mark.parametrize(("sig", "status", "word"), [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")])
def test_signal_during_a_write_cleans_up(tmp_path, sig, status, word):
    for name in ("tiny.qrels", "tiny.run"):
        shutil.copy(ROOT / "sample_data" / name, tmp_path / name)
    proc = subprocess.Popen([sys.executable, "-c", SLOW_WRITE], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "writing\n"
    assert any(p.name.endswith(".tmp") for p in (tmp_path / "sub").iterdir())
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == status
    assert err == f"trecrs eval: {word}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.qrels", "tiny.run"]  # no sub/, no temporary
