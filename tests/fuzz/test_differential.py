"""trecrs eval against trec_eval 9.0.8 on seeded random cases, and on the shrunk golden cases.

A random case passes when every engine agrees with the binary (same bytes, or both fail) or refuses a
measure it does not cover; a difference of a known class (:data:`.classify.KNOWN`, not fixed yet) makes
it xfail with that class's reason; any other difference fails, naming the command that replays it.
The golden cases in ``cases/`` (one shrunk example per class, with the binary's stdout and status) are
strict xfails while their class is known, so fixing a class turns them into failures to un-mark.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .classify import KNOWN_BY_NAME, REFERENCE_CRASHED
from .generate import Case
from .run import ENGINES, Outcome, case_files, trecrs_argv

SEED = 20261123
FAST = 150  # cases in the fast suite (under a minute); the slow suite runs SLOW more
SLOW = 2000
CASES = Path(__file__).resolve().parent / "cases"


def _known(sig: str) -> list[str] | None:
    """The known classes making up ``sig``, or None when some part of it is not known."""
    parts = sig.split("+")
    return parts if all(p in KNOWN_BY_NAME for p in parts) else None


def _check(differ, k: int) -> None:
    from .generate import make_case

    reasons, unexplained = set(), []
    for engine, sig in differ.signatures(make_case(SEED, k)).items():
        if sig is None or sig.startswith("unsupported:") or sig == REFERENCE_CRASHED:
            continue
        known = _known(sig)
        if known is None:
            unexplained.append(f"--engine {engine}: {sig}")
        else:
            reasons.update(f"{n}: {KNOWN_BY_NAME[n].reason}" for n in known)
    replay = f"python3 -m tests.fuzz.harness --seed {SEED} --only {k}"
    assert not unexplained, f"trecrs differs from trec_eval 9.0.8 ({replay}):\n" + "\n".join(unexplained)
    if reasons:
        pytest.xfail("; ".join(sorted(reasons)))


@pytest.mark.parametrize("k", range(FAST))
def test_random_case(differ, k):
    _check(differ, k)


@pytest.mark.slow
@pytest.mark.parametrize("k", range(FAST, FAST + SLOW))
def test_random_case_more(differ, k):
    _check(differ, k)


def _golden() -> list:
    params = []
    for folder in sorted(p for p in CASES.iterdir() if (p / "case.json").exists()) if CASES.exists() else []:
        meta = json.loads((folder / "case.json").read_text())
        for engine in ENGINES:
            sig = meta["classes"].get(engine)
            known = _known(sig) if sig else None
            marks = ()
            if known:
                reason = "; ".join(f"{n}: {KNOWN_BY_NAME[n].reason}" for n in known)
                marks = pytest.mark.xfail(strict=True, reason=reason)
            params.append(pytest.param(folder, engine, marks=marks, id=f"{folder.name}-{engine}"))
    return params


@pytest.mark.parametrize(("folder", "engine"), _golden())
def test_golden_case(differ, folder, engine):
    """trecrs prints the binary's bytes (status 0 both), or fails where the binary failed."""
    meta = json.loads((folder / "case.json").read_text())
    case = Case(
        (folder / "qrels").read_text().splitlines(), (folder / "run").read_text().splitlines(), meta["flags"]
    )
    expected = Outcome(meta["status"], (folder / "expected.out").read_bytes())
    with case_files(case) as (qrels, run):
        got = differ.worker.run(trecrs_argv(case, qrels, run, engine))
    if got.status == 2 and "cannot compute" in got.stderr:
        pytest.skip(f"engine {engine} does not cover these measures")
    assert got.status >= 0 and got.status != 70, f"trecrs crashed: {got.stderr}"
    if expected.ok:
        assert (got.status, got.stdout.decode()) == (0, expected.stdout.decode())
    else:
        assert got.status != 0, (
            f"trec_eval 9.0.8 fails here (status {expected.status}); trecrs printed:\n" + got.stdout.decode()
        )
