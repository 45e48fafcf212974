"""``missing="drop"`` by each methodology's membership rule against the enumeration of every candidate.

On generated splits and score files (ties forced, users without test ratings, items outside the
catalogue, training pairs scored, empty lists), the run, its counts, warnings and errors are the ones the
enumerating path gives (``runs._MEMBERSHIP = False``), through build_run, iter_run and ``trecrs run``; the
candidate count is also checked against the methodology's definition computed with Python sets.
"""

from __future__ import annotations

import json

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_in_process
from tests.warned import recorded, warned
from trecrs.errors import InputError
from trecrs.protocol import runs
from trecrs.protocol.candidates import METHODOLOGIES, candidate_set
from trecrs.protocol.runs import build_run, iter_run

WITH_RULE = [name for name, m in METHODOLOGIES.items() if m.members is not None]
USERS = [f"u{k}" for k in range(6)]
ITEMS = [str(k) for k in range(1, 9)]  # "9" and "10" are scored but in no rating and no catalogue


def test_every_methodology_but_one_plus_random_has_a_membership_rule():
    assert WITH_RULE == ["test-ratings", "test-items", "training-items", "all-items"]


@st.composite
def cases(draw):
    """(train, test, catalogue or None, scores): test non-empty, disjoint from train; scores on few values."""
    pairs = [(u, i) for u in USERS for i in ITEMS]
    where = draw(st.lists(st.sampled_from(["train", "test", "-"]), min_size=len(pairs), max_size=len(pairs)))
    if "test" not in where:
        where[draw(st.integers(0, len(pairs) - 1))] = "test"
    split = {
        part: pl.DataFrame(
            [(u, i, 4.0) for (u, i), w in zip(pairs, where, strict=True) if w == part],
            schema={"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64},
            orient="row",
        )
        for part in ("train", "test")
    }
    rated = set(split["train"]["user"]) | set(split["test"]["user"])
    catalogue = ITEMS + ["11"] if draw(st.booleans()) else None
    scorable = [(u, i) for u in sorted(rated) for i in [*ITEMS, "9", "10", "11"]]
    chosen = draw(st.lists(st.sampled_from(scorable), unique=True, max_size=30))
    values = draw(
        st.lists(st.sampled_from([0.5, 0.25, 1.0, -2.0]), min_size=len(chosen), max_size=len(chosen))
    )
    scores = pl.DataFrame(
        [(u, i, s) for (u, i), s in zip(chosen, values, strict=True)],
        schema={"user": pl.Utf8, "item": pl.Utf8, "score": pl.Float64},
        orient="row",
    )
    return split["train"], split["test"], catalogue, scores


def _outcome(methodology, train, test, catalogue, scores, *, membership: bool, depth=None):
    """(run rows, info, warnings, error) of build_run with missing="drop" by one path or the other."""
    cands = candidate_set(methodology, train, test, catalogue, chunk_rows=7)  # several chunks when enumerated
    previous, runs._MEMBERSHIP = runs._MEMBERSHIP, membership
    try:
        with recorded() as texts:
            result = build_run(cands, scores, missing="drop", depth=depth)
        return result.run.rows(), list(result.info.items()), texts, None  # keys in order: the manifest's
    except InputError as exc:
        return None, None, texts, str(exc)
    finally:
        runs._MEMBERSHIP = previous


def _defined_count(methodology, train, test, catalogue) -> int:
    """|L| from the definitions of Bellogín et al. 2011 (candidates.py's table), with Python sets."""
    tr = set(train.select("user", "item").iter_rows())
    te = set(test.select("user", "item").iter_rows())
    if methodology == "test-ratings":
        return len(te)
    pool = {
        "test-items": {i for _, i in te},
        "training-items": {i for _, i in tr},
        "all-items": set(catalogue or []) | {i for _, i in tr | te},
    }[methodology]
    return sum(len(pool - {i for v, i in tr if v == u}) for u in {u for u, _ in te})


@pytest.mark.parametrize("methodology", WITH_RULE)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), depth=st.sampled_from([None, 1, 2]))
def test_membership_gives_the_run_counts_warnings_and_errors_of_the_enumeration(methodology, case, depth):
    train, test, catalogue, scores = case
    fast = _outcome(methodology, train, test, catalogue, scores, membership=True, depth=depth)
    slow = _outcome(methodology, train, test, catalogue, scores, membership=False, depth=depth)
    assert fast == slow
    if slow[1] is not None:
        assert dict(slow[1])["candidates"] == _defined_count(methodology, train, test, catalogue)


@pytest.mark.parametrize("membership", [True, False])
def test_iter_run_streams_the_same_lines_and_counts(membership, monkeypatch):
    train = pl.DataFrame({"user": ["a", "a", "b"], "item": ["1", "2", "2"], "rating": [4.0, 3.0, 5.0]})
    test = pl.DataFrame({"user": ["a", "b", "c"], "item": ["3", "1", "2"], "rating": [5.0, 5.0, 4.0]})
    # all-items: a {3}, b {1, 3}, c {1, 2, 3}: 6 candidates; scored: a 3, c 2 (tied with a 3), c 1
    scores = pl.DataFrame(
        {
            "user": ["a", "c", "c", "a", "b"],
            "item": ["3", "2", "1", "1", "9"],
            "score": [0.5, 0.5, 0.7, 9.0, 1.0],
        }
    )
    monkeypatch.setattr(runs, "_MEMBERSHIP", membership)
    info: dict = {}
    with warned(r"^3 of 6 candidates \(50(\.0)?%\) have no score: left out$"):
        parts = list(iter_run(candidate_set("all-items", train, test), scores, missing="drop", info=info))
    assert pl.concat(parts).select("query", "doc", "rank").rows() == [
        ("a", "3", 1),
        ("c", "1", 1),
        ("c", "2", 2),
    ]
    assert (info["candidates"], info["scored_candidates"], info["missing"]) == (6, 3, 3)
    assert (info["queries"], info["pairs"], info["pool_items"]) == (3, 6, 3)  # catalogue {1, 2, 3}
    assert (
        info["scores_outside_candidates"] == 2
    )  # a's training pair (a, 1) and item 9, outside the catalogue


def test_a_user_outside_the_split_is_the_same_error(monkeypatch):
    train = pl.DataFrame({"user": ["a"], "item": ["1"], "rating": [4.0]})
    test = pl.DataFrame({"user": ["b"], "item": ["1"], "rating": [4.0]})
    scores = pl.DataFrame({"user": ["b", "z"], "item": ["1", "1"], "score": [1.0, 2.0]})
    messages = []
    for membership in (True, False):
        monkeypatch.setattr(runs, "_MEMBERSHIP", membership)
        with pytest.raises(InputError) as exc:
            build_run(candidate_set("all-items", train, test), scores, missing="drop")
        messages.append(str(exc.value))
    assert messages[0] == messages[1]
    assert "1 user(s) of the score file are in neither the training nor the test ratings" in messages[0]


def test_the_command_writes_the_same_bytes_manifest_and_lines(tmp_path, monkeypatch):
    (tmp_path / "train.tsv").write_text("user\titem\trating\na\t1\t4\na\t2\t3\nb\t2\t5\nd\t4\t1\n")
    (tmp_path / "test.tsv").write_text("user\titem\trating\na\t3\t5\nb\t1\t5\nc\t2\t4\n")
    (tmp_path / "s.tsv").write_text("user\titem\tscore\na\t3\t0.5\nc\t2\t0.5\nc\t1\t0.7\na\t1\t9\nd\t3\t1\n")
    outcomes = []
    for membership in (True, False):
        monkeypatch.setattr(runs, "_MEMBERSHIP", membership)
        out = tmp_path / str(membership) / "run.txt"
        out.parent.mkdir()
        done = run_in_process(
            "run", "--methodology", "all-items", "--missing", "drop", "--train", tmp_path / "train.tsv",
            "--test", tmp_path / "test.tsv", "--scores", tmp_path / "s.tsv", "--tag", "t", "-o", out,
        )  # fmt: skip
        manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text())
        manifest.pop("command")  # names the output's directory, which differs
        manifest = list(manifest.items())  # keys in the order written
        outcomes.append((done.returncode, out.read_bytes(), manifest, done.stderr.replace(str(out), "RUN")))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1] == b"a Q0 3 1 0.5 t\nc Q0 1 1 0.7 t\nc Q0 2 2 0.5 t\n"
    # candidates (catalogue {1, 2, 3, 4}): a {3, 4}, b {1, 3, 4}, c {1, 2, 3, 4}; d has no test rating
    assert outcomes[0][3].splitlines() == [
        "trecrs: all-items: 3 queries, 9 candidate pairs",
        "trecrs: 2 of 5 scores are not candidates: dropped",
        "trecrs: wrote 3 lines to RUN",
        "trecrs run: warning: 6 of 9 candidates (66.7%) have no score: left out",
    ]
