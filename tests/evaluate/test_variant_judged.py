"""A ``Name(params)@k`` measure on a query judged only negatively fails where trec_eval fails with the
equivalent flags (the first query evaluated: "Can't calculate measure", status 4), and is computed where
its gains make the query judged (trec_eval on the mapped qrels)."""

from __future__ import annotations

import subprocess

import pytest

from ..conftest import write

QRELS = "12 0 d52 -2\n36 0 d71 0\n36 0 d52 -1\n"
RUN = "12 Q0 d31 1 155.5 t\n12 Q0 d52 1 667.5 t\n36 Q0 d52 1 289.5 t\n36 Q0 d71 1 849.5 t\n"


def _binary():
    from tests.fuzz.binaries import Unavailable, binary

    try:
        return binary("9")
    except Unavailable as exc:
        pytest.skip(f"trec_eval 9.0.8 unavailable: {exc}")


@pytest.mark.parametrize(("spec", "flags"), [
    ("IPrec(judged_only=True, rel=3)@1.0", ["-J", "-l3", "-m", "iprec_at_recall.1.0"]),
    ("P(rel=2)@5", ["-l2", "-m", "P.5"]),
    ("nDCG(gains={-2: 0})@5", None),  # the mapped qrels judge d52: trec_eval computes it
])  # fmt: skip
def test_like_trec_eval(tmp_path, cli, spec, flags):
    q, r = write(tmp_path / "q", QRELS), write(tmp_path / "r", RUN)
    if flags is None:
        flags = ["-m", "ndcg_cut.5"]
        q = write(tmp_path / "mapped", QRELS.replace(" -2\n", " 0\n"))
    te = subprocess.run([str(_binary()), "-q", *flags, str(q), str(r)], capture_output=True, check=False)
    code, out, err = cli("eval", "-q", "-m", spec, str(tmp_path / "q"), str(r))
    if te.returncode != 0:
        assert (code, out) == (te.returncode, "")
        assert "first query evaluated: trec_eval cannot calculate measure" in err
    else:
        expected = [line.split("\t")[1:] for line in te.stdout.decode().splitlines()]
        assert code == 0 and [line.split("\t")[1:] for line in out.splitlines()] == expected
