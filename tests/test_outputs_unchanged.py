"""Every output of the main commands is byte-identical to the recorded fingerprints (tests/regression/).

The fingerprint script runs the pipeline, both reproductions, ``trecrs eval`` in every format and with
-q/-c/-l/-M/-J, and ``trecrs split`` on the bundled sample data (and on MovieLens 100K from ../shared),
then lists the sha256 of every file written. Any difference names the files that changed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ML100K, ROOT, SHARED, need

SCRIPT = ROOT / "scripts" / "fingerprint_outputs.sh"
RECORDED = ROOT / "tests" / "regression"


def _fingerprint(tmp_path: Path, which: str) -> dict[str, str]:
    env = {
        **os.environ,
        "SHARED": str(SHARED),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    subprocess.run(["bash", str(SCRIPT), str(tmp_path), which], check=True, env=env, capture_output=True)
    return _read(tmp_path / f"{which}.sha256")


def _read(path: Path) -> dict[str, str]:
    return {name: digest for digest, name in (line.split("  ", 1) for line in path.read_text().splitlines())}


def _compare(got: dict[str, str], want: dict[str, str]) -> None:
    changed = sorted(n for n in want.keys() & got.keys() if want[n] != got[n])
    assert not changed, f"{len(changed)} outputs changed, e.g. {changed[:10]}"
    assert got.keys() == want.keys(), (
        f"missing {sorted(want.keys() - got.keys())[:10]}, new {sorted(got.keys() - want.keys())[:10]}"
    )


@pytest.mark.slow
def test_sample_outputs_unchanged(tmp_path):
    _compare(_fingerprint(tmp_path, "sample"), _read(RECORDED / "sample.sha256"))


@pytest.mark.slow
def test_ml100k_outputs_unchanged(tmp_path):
    need(ML100K / "u.data")
    _compare(_fingerprint(tmp_path, "ml100k"), _read(RECORDED / "ml100k.sha256"))
