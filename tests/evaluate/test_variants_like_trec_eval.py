"""``Name(params)@k`` measures where trec_eval's rules bite, against trec_eval 9.0.8 with the equivalent
flags: on a query judged only negatively it fails where trec_eval fails (the first query evaluated:
"Can't calculate measure", status 4), and is computed where its gains make the query judged (trec_eval on
the mapped qrels); under ``-Z`` its values become z-scores with the mean and deviation the file gives
under the name it prints as; one computed as a recommender measure (``ERR()@k``) is refused there, as
the plain names of recommender measures are."""

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


def test_zscores_by_printed_name(tmp_path, cli):
    q = write(tmp_path / "q", "1 0 a 2\n1 0 b 1\n2 0 a 1\n2 0 c 3\n")
    r = write(tmp_path / "r", "1 Q0 a 1 3 t\n1 Q0 b 1 2 t\n1 Q0 c 1 1 t\n2 Q0 c 1 3 t\n2 Q0 a 1 2 t\n")
    stats = [("1", "0.25", "0.5"), ("2", "0.5", "0.25")]
    z_te = write(tmp_path / "z_te", "".join(f"{query} P_2 {m} {sd}\n" for query, m, sd in stats))
    z = write(tmp_path / "z", "".join(f"{query} P(rel=2)@2 {m} {sd}\n" for query, m, sd in stats))
    te = subprocess.run(
        [str(_binary()), "-q", "-l2", "-Z", str(z_te), "-m", "P.2", str(q), str(r)],
        capture_output=True,
        check=True,
    )
    code, out, _ = cli("eval", "-q", "-Z", str(z), "-m", "P(rel=2)@2", str(q), str(r))
    expected = [line.split("\t")[1:] for line in te.stdout.decode().splitlines()]
    assert code == 0 and [line.split("\t")[1:] for line in out.splitlines()] == expected
    assert out.startswith("ZP(rel=2)@2")
    code, out, err = cli("eval", "-q", "-Z", str(z), "-m", "P(rel=2)@2", "-m", "ERR()@2", str(q), str(r))
    assert (code, out) == (
        2,
        "",
    ) and "z-scores (-Z) apply to trec_eval's measures only, not to ERR()@2" in err
