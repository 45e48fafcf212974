"""trecrs's ir_measures names against ir_measures on seeded random cases (:mod:`.irmeasures`).

Every string drawn from ``trecrs.measures.grammar.FORMS`` must give ir_measures' per-query and summary
values, or differ only by the documented tie order of ir_measures' judged and msmarco providers; a string
ir_measures cannot compute here is counted, not failed. A failure names the command that replays it.
"""

from __future__ import annotations

import pytest

from trecrs.measures.grammar import FORMS

from .irmeasures import TIES_OTHERWISE, Reference, Values, check_case, explore, make_case, trec_ordered

SEED = 20261126
FAST = 300  # cases in the fast suite (about 10 s); the slow suite runs SLOW more
SLOW = 4000
CLI_FAST, CLI_SLOW = 40, 600  # the same through `trecrs eval -q` (printed to 4 decimals)


@pytest.fixture(scope="module")
def reference():
    pytest.importorskip("ir_measures")
    ref = Reference()
    yield ref
    ref.close()


@pytest.fixture(scope="module")
def fast_report(reference):
    return explore(SEED, range(FAST), reference)


def _assert_agrees(report, cli: bool = False) -> None:
    flag = " --cli" if cli else ""
    bad = [
        f"{o.outcome} {spec!r} [{o.provider}]: {o.detail} (python3 -m tests.fuzz.irmeasures --seed {SEED} "
        f"--only {k}{flag})"
        for k, spec, o in report.failures()
    ]
    assert not bad, f"{len(bad)} strings differ from ir_measures:\n" + "\n".join(bad[:20])
    assert all(o.provider in TIES_OTHERWISE for _, _, o in report.examples if o.outcome == "ties")


def test_agrees_with_ir_measures(fast_report):
    _assert_agrees(fast_report)


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.spellings[0])
def test_every_form_is_compared(fast_report, form):
    """Each form is drawn, and agrees with ir_measures at least once unless ir_measures never computes it."""
    name = form.spellings[0]
    mine = {(p, o): c for (n, p, o), c in fast_report.counts.items() if n == name}
    assert sum(mine.values()) > 0, f"{name} never drawn in {FAST} cases"
    if any(o != "no-ref" for _, o in mine):
        assert sum(c for (_, o), c in mine.items() if o == "agree") > 0, mine


def test_cli_agrees_with_ir_measures(reference):
    _assert_agrees(explore(SEED, range(CLI_FAST), reference, cli=True), cli=True)


@pytest.mark.slow
def test_agrees_with_ir_measures_more(reference):
    _assert_agrees(explore(SEED, range(FAST, FAST + SLOW), reference))


@pytest.mark.slow
def test_cli_agrees_with_ir_measures_more(reference):
    _assert_agrees(explore(SEED, range(CLI_FAST, CLI_FAST + CLI_SLOW), reference, cli=True), cli=True)


def test_a_wrong_value_is_a_mismatch(reference, monkeypatch):
    """The comparison is not vacuous: trecrs's value of one string moved by 1e-4 is reported."""
    from . import irmeasures

    case = make_case(SEED, 3)
    real = irmeasures.trecrs_values

    def moved(c, cli=False):
        out = real(c, cli)
        spec = next(s for s, v in out.items() if v.refused is None and v.per_query)
        q = next(iter(out[spec].per_query))
        out[spec] = Values({**out[spec].per_query, q: out[spec].per_query[q] + 1e-4}, out[spec].summary)
        return out

    monkeypatch.setattr(irmeasures, "trecrs_values", moved)
    outcomes = check_case(case, reference)
    assert sum(o.outcome == "mismatch" for o in outcomes.values()) == 1, outcomes


def test_trec_order():
    """Score as a C float descending, then document id descending bytewise: 0.1 and 0.1000000001 tie."""
    run = {"q": {"a": 1.0, "b": 1.0, "B": 1.0, "c": 0.1000000001, "d": 0.1, "e": 2.0}}
    ordered = trec_ordered(run)["q"]
    assert sorted(ordered, key=ordered.get, reverse=True) == ["e", "b", "a", "B", "d", "c"]
