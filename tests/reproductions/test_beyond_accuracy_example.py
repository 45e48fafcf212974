"""scripts/beyond_accuracy_ml100k.py on fold u1: the table it prints is docs/measures.md's, and its values
are those of `trecrs eval` on the runs it made."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT, trecrs_on_path

DATA = ROOT.parent / "shared" / "data" / "ml-100k"
HEADING = "### Beyond accuracy on MovieLens 100K"


def docs_table() -> str:
    """The Markdown table of docs/measures.md's section on the example: its lines starting with ``|``."""
    text = (ROOT / "docs" / "measures.md").read_text()
    section = text.split(HEADING, 1)[1].split("\n#", 1)[0]
    return "".join(line + "\n" for line in section.splitlines() if line.startswith("|"))


@pytest.mark.slow
def test_beyond_accuracy_example_on_fold_u1(tmp_path):
    if not all((DATA / n).exists() for n in ("u1.base", "u1.test", "u.item", "u.user")):
        pytest.skip(
            f"needs MovieLens 100K's u1.base, u1.test, u.item and u.user in {DATA} (scripts/fetch_movielens.sh)"
        )
    env = trecrs_on_path(tmp_path)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "beyond_accuracy_ml100k.py"), str(DATA), str(out)],
                          capture_output=True, text=True, env=env, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout == docs_table() == (out / "beyond_accuracy.md").read_text()
    assert (out / "beyond_accuracy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # PureSVD50's row from the command line: the same values
    proc = subprocess.run(["trecrs", "eval", "--quiet", "-m", "P.10", "-m", "aplt.10", "-m", "miscalibration.10",
                           "--train", str(DATA / "u1.base"), "--item-features", str(DATA / "u.item"),
                           "--user-groups", str(DATA / "u.user"), "--group-by", "gender",
                           str(out / "th4.qrels"), str(out / "PureSVD50.AI.run")],
                          capture_output=True, text=True, env=env, check=True)  # fmt: skip
    got = {(f[0], f[1]): f[2] for f in (line.split() for line in proc.stdout.splitlines())}
    row = next(line for line in docs_table().splitlines() if line.startswith("| PureSVD50 |")).split("|")
    mad = docs_table().splitlines()[2 + 4 * 3 + 3].split("|")  # PureSVD50's MAD line
    assert (got[("P_10", "all")], got[("aplt_10", "all")], got[("miscalibration_10", "all")]) == \
        (row[3].strip(), row[6].strip(), row[11].strip())  # fmt: skip
    assert got[("P_10_mad", "all")] == mad[3].strip() and got[("P_10", "all:F")] == "0.2915"
