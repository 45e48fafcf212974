"""build_run against a straightforward construction of the run in Python, for every methodology and policy.

The reference builds each query's candidates from the definitions (Bellogín et al. 2011; One-Plus-Random's
from the candidate set itself), looks each one's score up in a dict, fills or drops the unscored ones,
orders each query by float32 score descending then document id descending bytewise (trec_eval's order),
numbers and cuts the lines. On generated splits (ties forced, items no rating names, training pairs
scored), build_run gives the same lines for several chunk sizes (``chunk_rows``: one query per chunk up to
all of them in one), so the integer sort, the per-chunk score lookup and the membership rules change no line.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.protocol.test_runs_membership import cases
from tests.warned import recorded
from trecrs.errors import InputError
from trecrs.protocol.candidates import METHODOLOGIES, candidate_set
from trecrs.protocol.runs import build_run

CHUNK_ROWS = [1, 5, 4_000_000]


def _candidates(methodology, train, test, catalogue, cset) -> dict[str, list[tuple[str, str]]]:
    """Query -> its (user, item) candidates, by the table of candidates.py (One-Plus-Random: the set's)."""
    if methodology == "one-plus-random":
        out: dict[str, list[tuple[str, str]]] = {}
        for q, u, i in cset.frame().iter_rows():
            out.setdefault(q, []).append((u, i))
        return out
    tr = set(train.select("user", "item").iter_rows())
    te = set(test.select("user", "item").iter_rows())
    pools = {
        "test-items": {i for _, i in te},
        "training-items": {i for _, i in tr},
        "all-items": set(catalogue or []) | {i for _, i in tr | te},
    }
    out = {}
    for u in {u for u, _ in te}:
        rated = {i for v, i in tr if v == u}
        items = {i for v, i in te if v == u} if methodology == "test-ratings" else pools[methodology] - rated
        if items:
            out[u] = [(u, i) for i in items]
    return out


def _reference(methodology, train, test, catalogue, scores, cset, missing, depth):
    """The run's rows (query, Q0, doc, rank, score, tag), or the text an InputError must hold."""
    score = {(u, i): s for u, i, s in scores.select("user", "item", "score").iter_rows()}
    low = min(score.values())
    fill = low - max(1.0, abs(low))
    cands = _candidates(methodology, train, test, catalogue, cset)
    if not any(p in score for ps in cands.values() for p in ps):
        return "is a candidate pair of this methodology"
    if missing == "fail" and any(p not in score for ps in cands.values() for p in ps):
        return "candidates have no score"
    rows = []
    for q in sorted(cands, key=lambda q: q.encode()):  # users u0..u5 and u0:1.. cases: bytewise is natural
        lines = [(i, score.get((u, i), fill)) for u, i in cands[q] if (u, i) in score or missing == "last"]
        lines.sort(key=lambda line: line[0].encode(), reverse=True)
        lines.sort(key=lambda line: -float(np.float32(line[1])))  # stable: ties keep doc id descending
        rows += [(q, "Q0", i, r, s, "trecrs") for r, (i, s) in enumerate(lines[:depth], start=1)]
    return rows


def _built(cset, scores, missing, depth):
    try:
        with recorded():
            return build_run(cset, scores, missing=missing, depth=depth).run.rows()
    except InputError as exc:
        return str(exc)


@pytest.mark.parametrize("methodology", list(METHODOLOGIES))
@pytest.mark.parametrize("missing", ["drop", "last", "fail"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), depth=st.sampled_from([None, 1, 2]))
def test_build_run_is_the_straightforward_run_for_every_chunk_size(methodology, missing, case, depth):
    train, test, catalogue, scores = case
    if scores.height == 0:
        return  # an empty score file is refused by the reader, before any methodology
    if methodology == "one-plus-random":
        test = test.with_columns(pl.lit(5.0).alias("rating"))  # every test rating is a case
    options = {"n": 2, "seed": 3} if methodology == "one-plus-random" else {}
    expected = None
    for chunk_rows in CHUNK_ROWS:
        cset = candidate_set(methodology, train, test, catalogue, chunk_rows=chunk_rows, **options)
        if expected is None:
            expected = _reference(methodology, train, test, catalogue, scores, cset, missing, depth)
        got = _built(cset, scores, missing, depth)
        if isinstance(expected, str):
            assert isinstance(got, str) and expected in got, (chunk_rows, got)
        else:
            assert got == expected, chunk_rows


def test_a_score_of_a_user_outside_the_split_is_an_error_naming_it():
    train = pl.DataFrame({"user": ["a"], "item": ["1"], "rating": [4.0]})
    test = pl.DataFrame({"user": ["b"], "item": ["2"], "rating": [5.0]})
    scores = pl.DataFrame({"user": ["b", "zz"], "item": ["2", "1"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"1 user\(s\) of the score file .* \(first: 'zz'; 1 score\(s\)\)"):
        build_run(candidate_set("all-items", train, test), scores, missing="drop")


@pytest.mark.parametrize("methodology", list(METHODOLOGIES))
def test_candidates_are_the_same_for_every_chunk_size(methodology):
    rng = np.random.default_rng(4)
    pairs = [(f"u{u}", str(i)) for u in range(9) for i in range(1, 30) if rng.random() < 0.4]
    part = rng.random(len(pairs)) < 0.3
    frames = [
        pl.DataFrame(
            [(u, i, 5.0) for (u, i), t in zip(pairs, part, strict=True) if t == is_test],
            schema={"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64},
            orient="row",
        )
        for is_test in (False, True)
    ]
    frames = [
        candidate_set(methodology, *frames, n=5, seed=1, chunk_rows=rows).frame() for rows in (1, 30, 10**6)
    ]
    assert frames[0].height > 0
    assert frames[0].equals(frames[1]) and frames[0].equals(frames[2])


@pytest.mark.parametrize("methodology", list(METHODOLOGIES))
@pytest.mark.parametrize("catalogue", [None, ["2", "10", "11", "100", "7", "1000"]])
def test_coded_ids_give_the_run_of_their_text(methodology, catalogue):
    """A split read with coded ids (UInt32 numbers of plain decimals) gives the lines the same split of
    ids as text gives: users and items numbered in natural order (2 before 10 before 100, where bytewise
    order would put 10 first), the overlap check and the catalogue alike."""
    rng = np.random.default_rng(8)
    users, items = [2, 10, 3, 100, 25, 7], [2, 10, 11, 100, 7]
    pairs = [(u, i) for u in users for i in items if rng.random() < 0.6]
    part = rng.random(len(pairs)) < 0.35
    coded = [
        pl.DataFrame(
            {
                "user": pl.Series(
                    [u for (u, _), t in zip(pairs, part, strict=True) if t == is_test], dtype=pl.UInt32
                ),
                "item": pl.Series(
                    [i for (_, i), t in zip(pairs, part, strict=True) if t == is_test], dtype=pl.UInt32
                ),
                "rating": [5.0] * int(np.count_nonzero(part == is_test)),
            }
        )
        for is_test in (False, True)
    ]
    text = [f.with_columns(pl.col("user", "item").cast(pl.Utf8)) for f in coded]
    scored = [(str(u), str(i)) for u in users for i in [*items, 1000] if rng.random() < 0.7]
    scores = pl.DataFrame(
        [(u, i, float(rng.integers(0, 4))) for u, i in scored],
        schema={"user": pl.Utf8, "item": pl.Utf8, "score": pl.Float64},
        orient="row",
    )
    options = {"n": 2, "seed": 3} if methodology == "one-plus-random" else {}
    for missing in ("drop", "last"):
        got, want = (
            _built(
                candidate_set(methodology, *frames, catalogue, chunk_rows=5, **options), scores, missing, None
            )
            for frames in (coded, text)
        )
        assert isinstance(want, list) and len(want) > 0
        assert got == want
    queries = [q for q, *_ in want]
    assert queries == sorted(queries, key=lambda q: [int(x) for x in q.split(":")])  # natural, not bytewise


def test_a_coded_pair_in_train_and_test_is_named_as_text():
    train = pl.DataFrame({"user": pl.Series([2, 10], dtype=pl.UInt32), "item": pl.Series([7, 7], dtype=pl.UInt32),
                          "rating": [4.0, 3.0]})  # fmt: skip
    test = train.slice(1, 1)
    with pytest.raises(InputError, match=r"1 \(user, item\) pair\(s\) .* \(first: user '10', item '7'\)"):
        candidate_set("all-items", train, test)


@pytest.mark.parametrize("methodology", ["test-ratings", "all-items"])
def test_trecrs_run_of_a_large_split_reads_coded_ids_and_writes_the_same_run(
    tmp_path, monkeypatch, methodology
):
    """``trecrs run`` reads a split as large (ids coded as numbers) or small (ids as text): the same file."""
    from tests.conftest import ML100K, need, run_in_process
    from trecrs.files import ratings_fast

    train, test = need(ML100K / "u1.base"), need(ML100K / "u1.test")
    rng = np.random.default_rng(2)
    lines = ["user\titem\tscore"] + [
        f"{u}\t{i}\t{rng.integers(0, 9) / 4}"
        for u in range(1, 460, 3)
        for i in rng.choice(1682, 40, replace=False) + 1
    ]
    (tmp_path / "s.tsv").write_text("\n".join(lines) + "\n")
    outputs = []
    for least in (ratings_fast.CODED_MIN_BYTES, 0):
        monkeypatch.setattr(ratings_fast, "CODED_MIN_BYTES", least)
        out = tmp_path / f"{least}.run"
        args = ["run", "--methodology", methodology, "--missing", "drop", "--train", train, "--test", test]
        proc = run_in_process(*args, "--scores", tmp_path / "s.tsv", "-o", out)
        assert proc.returncode == 0, proc.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0].count(b"\n") > 100


def test_coded_scores_rank_text_ids_of_the_split_as_text_scores_do(tmp_path, monkeypatch):
    """A score file read with coded ids (numbers) on a split whose ids are text: each number finds the id
    that is its own text (7 is "7", never "007"), and the run, counts and errors are the text reader's."""
    from trecrs.files import ratings_fast
    from trecrs.files.scores import read_score_table
    from trecrs.protocol.candidates import candidate_set
    from trecrs.protocol.runs import build_run

    train = pl.DataFrame(
        {"user": ["7", "007", "0", "x"], "item": ["1", "1", "01", "2"], "rating": [4.0, 3.0, 5.0, 1.0]}
    )
    test = pl.DataFrame({"user": ["7", "007", "0"], "item": ["2", "01", "1"], "rating": [5.0, 4.0, 2.0]})
    scores = tmp_path / "s.tsv"
    scores.write_text("user\titem\tscore\n7\t2\t0.5\n7\t1\t0.9\n0\t1\t0.25\n0\t2\t0.75\n4294967295\t2\t1\n")
    monkeypatch.setattr(ratings_fast, "CODED_MIN_BYTES", 0)
    coded = read_score_table(scores, coded=True)
    assert coded.frame.schema["user"] == pl.UInt32
    text = read_score_table(scores)
    runs = []
    for table in (coded, text):
        cands = candidate_set("all-items", train, test)
        with pytest.raises(InputError) as err:
            build_run(cands, table, missing="drop")
        runs.append(str(err.value))
    assert runs[0] == runs[1] and "(first: '4294967295'; 1 score(s))" in runs[0]
    scores.write_text("user\titem\tscore\n7\t2\t0.5\n7\t1\t0.9\n0\t1\t0.25\n0\t2\t0.75\n")
    coded, text = read_score_table(scores, coded=True), read_score_table(scores)
    assert coded.frame.schema["user"] == pl.UInt32
    from tests.warned import warned

    built = []
    for table in (coded, text):
        with warned(r"^3 of 6 candidates \(50.0%\) have no score: left out$"):
            built.append(build_run(candidate_set("all-items", train, test), table, missing="drop"))
    # candidates: 7 {01, 2} (1 is trained), 007 {01, 2}, 0 {1, 2}; scored: 7's 2 (its 1 is trained), 0's 1
    # and 2; nothing scores 007's (the number 7 is the id "7") nor 7's 01
    want = [("0", "2", 1, 0.75), ("0", "1", 2, 0.25), ("7", "2", 1, 0.5)]
    for result in built:
        assert result.run.select("query", "doc", "rank", "score").rows() == want
    assert built[0].info == built[1].info and built[0].info["scores_outside_candidates"] == 1
