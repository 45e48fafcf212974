"""Warm re-evaluation (``trecrs/evaluate/warm.py``): polars frames evaluated again give what reading them
again gives (values, warnings, errors), under every flag; a changed frame is never answered from what was
kept; nothing is kept once the frames are gone."""

from __future__ import annotations

import gc
import itertools
import threading
import weakref

import numpy as np
import polars as pl
import pytest

import trecrs
from trecrs.engines import vectorized
from trecrs.errors import TrecrsError
from trecrs.evaluate import warm
from trecrs.evaluate.api import evaluate_full
from trecrs.evaluate.compute import request_for
from trecrs.evaluate.inputs import pair_facts
from trecrs.evaluate.result import EvaluationResult
from trecrs.evaluate.settings import EvalSettings

from ..warned import recorded

MEASURES = (
    ["all_trec"],
    ["P.1,3,10", "recall.5", "ndcg_cut.3", "map", "recip_rank", "relstring.4", "num_ret", "Rprec"],
    ["runid", "relstring"],
)


def _pair(seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Qrels and run frames with what trips rankers up: tied scores, scores equal as C floats only, ids
    "9" and "10", unjudged (-1) and unpooled documents, queries in one frame only, lines out of order."""
    rng = np.random.default_rng(seed)
    queries = ["1", "2", "9", "10", "11", "q x", "é"]
    docs = [f"d{i}" for i in range(25)] + ["9", "10"]
    qrows = []
    for q in [*queries[:6], "only_qrels"]:
        for d in rng.choice(docs, size=int(rng.integers(2, 9)), replace=False):
            qrows.append((q, "0", str(d), int(rng.choice([-1, 0, 0, 1, 1, 2, 3]))))
        qrows.append((q, "0", "d0", 1))  # every qrels query has a judged document
    qrels = pl.DataFrame(qrows, schema={"query": pl.Utf8, "iter": pl.Utf8, "doc": pl.Utf8, "rel": pl.Int64},
                         orient="row").unique(["query", "doc"], keep="first", maintain_order=True)  # fmt: skip
    rrows = []
    for q in [*queries, "only_run"]:
        for d in rng.choice(docs, size=int(rng.integers(1, 15)), replace=False):
            score = float(rng.choice([1.0, 0.5, 0.5, 1.0 + 1e-10, round(float(rng.random()), 2)]))
            rrows.append((q, "Q0", str(d), 0, score, "tag"))
    rrows[-1] = (*rrows[-1][:5], "last_tag")
    order = rng.permutation(len(rrows))
    run = pl.DataFrame([rrows[i] for i in order], orient="row",
                       schema={"query": pl.Utf8, "iter": pl.Utf8, "doc": pl.Utf8, "rank": pl.Int64,
                               "score": pl.Float64, "tag": pl.Utf8})  # fmt: skip
    return qrels, run


def _outcome(qrels, run, measures, **flags):
    """(values or error, warnings) of one evaluation, comparable between calls (repr: NaN equals NaN, -0.0
    is not 0.0)."""
    with recorded() as texts:
        try:
            ev = evaluate_full(qrels, run, measures, **flags)
            out = (repr(ev.per_query.to_dicts()), ev.per_query.schema, repr(ev.summary), ev.runid, ev.relstrings,
                   ev.num_q, EvaluationResult(ev).to_trec(per_query=True))  # fmt: skip
        except TrecrsError as exc:
            out = (type(exc).__name__, str(exc))
    return out, texts


def _cold(monkeypatch, *args, **flags):
    """The outcome of the frames read again (nothing kept)."""
    with monkeypatch.context() as m:
        m.setattr(warm, "compute_frames", lambda *a, **k: None)
        return _outcome(*args, **flags)


FLAGS = [
    dict(relevance_level=level, judged_only=j, depth=depth, average_all=c, trec_eval_version=v)
    for level, j, depth, c, v in itertools.product(
        (1, 2), (False, True), (None, 0, 1, 4), (False, True), (9, 10)
    )
]


@pytest.mark.parametrize("measures", MEASURES, ids=lambda m: m[0])
def test_again_as_read_again_under_every_flag(monkeypatch, measures):
    qrels, run = _pair()
    for flags in FLAGS:
        cold = _cold(monkeypatch, qrels, run, measures, **flags)
        first = _outcome(qrels, run, measures, **flags)
        again = _outcome(qrels, run, measures, **flags)
        assert first == cold == again, flags
    assert warm.kept()[1] >= 1


TIE_FLAGS = [dict(relevance_level=level, judged_only=j, depth=depth, average_all=c, trec_eval_version=v, ties=mode)
             for mode, level, j, depth, c, v in itertools.product(("expected", "best", "worst"), (1, 2), (False, True),
                                                                  (None, 0, 2), (False, True), (9, 10))]  # fmt: skip


@pytest.mark.parametrize("measures", [MEASURES[1], [m for m in MEASURES[1] if m != "relstring.4"]],
                         ids=["relstring", "values"])  # fmt: skip
def test_again_as_read_again_under_every_tie_mode(monkeypatch, measures):
    qrels, run = _pair(15)
    for flags in TIE_FLAGS:
        cold = _cold(monkeypatch, qrels, run, measures, **flags)
        assert _outcome(qrels, run, measures, **flags) == cold == _outcome(qrels, run, measures, **flags), (
            flags
        )


def test_gains_refused_for_grades_of_queries_not_evaluated_go_to_the_frames_path(monkeypatch):
    """--ties best checks gain parameters against the grades of the evaluated queries: a grade found only
    in a qrels query missing from the run is left to the frames path."""
    qrels, run = _pair(16)
    qrels = pl.concat(
        [qrels, pl.DataFrame({"query": ["only_qrels"], "iter": ["0"], "doc": ["d99"], "rel": [7]})]
    )
    for flags in (dict(ties="best"), dict(ties="best", average_all=True, trec_eval_version=10)):
        cold = _cold(monkeypatch, qrels, run, ["ndcg.3=9", "map"], **flags)
        assert _outcome(qrels, run, ["ndcg.3=9", "map"], **flags) == cold


def test_the_prepared_pair_is_made_once_per_score_type(monkeypatch):
    qrels, run = _pair(1)
    made = []
    real = vectorized.prepare
    monkeypatch.setattr(vectorized, "prepare", lambda enc, **k: made.append(enc.qcode.size) or real(enc, **k))
    for flags in FLAGS:
        _outcome(qrels, run, MEASURES[1], **flags)
        _outcome(qrels, run, MEASURES[0], **flags)
    assert (
        made.count(run.height) == 2
    )  # C floats (9.0.8) and doubles (10.0); -c stand-in rankings are not counted


def test_the_facts_read_from_the_prepared_pair_are_the_frames_facts():
    for seed in range(4):
        qrels, run = _pair(seed)
        p = vectorized.prepare(
            vectorized.encode(qrels, run, score_dtype=np.float64 if seed % 2 else np.float32)
        )
        got, want = warm._facts(p), pair_facts(qrels, run)
        assert got.queries == want.queries and got.totals == want.totals
        for name in ("in_qrels", "in_run", "top", "lines"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))


def test_a_kept_pair_is_read_only():
    qrels, run = _pair(2)
    _outcome(qrels, run, MEASURES[1])
    pair = next(p for p in warm._PAIRS.values() if p.run.ref() is run)
    p = pair.prepared(np.float32)
    assert not p.blocks.rel.flags.writeable and not p.enc.qv.flags.writeable
    with pytest.raises(ValueError):
        p.blocks.rel[0] = 5


def _mutations():
    """Ways to change a frame in place, each (name, frame -> None)."""
    other = _pair(7)[1]
    return [
        ("cell", lambda r: r.__setitem__((0, "score"), 99.0)),
        ("doc cell", lambda r: r.__setitem__((0, "doc"), "d0")),
        ("query cell", lambda r: r.__setitem__((3, "query"), "only_run")),
        ("tag cell", lambda r: r.__setitem__((r.height - 1, "tag"), "new_tag")),
        ("replace_column", lambda r: r.replace_column(r.get_column_index("score"), -r.get_column("score"))),
        ("insert_column", lambda r: r.insert_column(0, pl.Series("qid", r.get_column("doc")))),
        ("extend", lambda r: r.extend(other)),
        ("vstack", lambda r: r.vstack(other, in_place=True)),
        ("drop_in_place", lambda r: r.drop_in_place("tag")),
        ("rename", lambda r: setattr(r, "columns", ["query", "iter", "docno", "rank", "score", "tag"])),
        ("shrink_to_fit", lambda r: r.shrink_to_fit(in_place=True)),
        ("hstack", lambda r: r.hstack([pl.Series("extra", np.zeros(r.height))], in_place=True)),
    ]


@pytest.mark.parametrize("name,change", _mutations(), ids=[m[0] for m in _mutations()])
def test_a_frame_changed_in_place_is_read_again(monkeypatch, name, change):
    qrels, run = _pair(3)
    measures = MEASURES[1]
    before = _outcome(qrels, run, measures)
    change(run)
    after = _outcome(qrels, run, measures)
    assert after == _cold(monkeypatch, qrels, run, measures)
    if name not in ("shrink_to_fit", "hstack", "rename", "insert_column"):  # the same lines: the same values
        assert after != before


def test_qrels_changed_in_place_are_read_again(monkeypatch):
    qrels, run = _pair(4)
    before = _outcome(qrels, run, MEASURES[1])
    row = qrels.with_row_index().filter(pl.col("rel") == 0).get_column("index")[0]
    qrels[row, "rel"] = 3
    after = _outcome(qrels, run, MEASURES[1])
    assert after == _cold(monkeypatch, qrels, run, MEASURES[1]) and after != before


def test_numbers_changed_behind_polars_back_are_seen(monkeypatch):
    """polars takes a numpy array without copying it: the kept copy of a numeric column catches a change."""
    qrels, run = _pair(5)
    code = {q: i for i, q in enumerate(sorted({*qrels.get_column("query"), *run.get_column("query")}))}
    scores = run.get_column("score").to_numpy().copy()
    users = np.array([code[q] for q in run.get_column("query")], dtype=np.int64)
    frame = pl.DataFrame({"user": users, "doc": run.get_column("doc"), "score": scores})
    for column, array in (("score", scores), ("user", users)):  # the premise
        assert np.shares_memory(frame.get_column(column).to_numpy(), array)
    qrels = qrels.with_columns(pl.col("query").replace_strict(code, return_dtype=pl.Int64))
    before = _outcome(qrels, frame, MEASURES[1])
    scores[:] = scores[::-1]
    after = _outcome(qrels, frame, MEASURES[1])
    assert after == _cold(monkeypatch, qrels, frame, MEASURES[1]) and after != before
    one, two = users == code["1"], users == code["2"]
    users[one], users[two] = code["2"], code["1"]
    again = _outcome(qrels, frame, MEASURES[1])
    assert again == _cold(monkeypatch, qrels, frame, MEASURES[1]) and again != after


def test_equal_frames_give_equal_results():
    qrels, run = _pair(6)
    first = _outcome(qrels, run, MEASURES[0])
    assert _outcome(qrels.clone(), run.clone(), MEASURES[0]) == first
    assert _outcome(qrels, pl.DataFrame(run.to_dict()), MEASURES[0]) == first
    assert _outcome(qrels, run.sample(fraction=1.0, shuffle=True, seed=1), MEASURES[0]) == first  # line order


def test_nothing_is_kept_once_the_frames_are_gone():
    warm.forget()
    qrels, run = _pair(8)
    _outcome(qrels, run, MEASURES[1], trec_eval_version=10)
    assert warm.kept() == (2, 1)
    pair = next(iter(warm._PAIRS.values()))
    gone = [weakref.ref(x) for x in (qrels, run, pair, pair.run.checked, pair.prepared(np.float64).blocks)]
    del run, pair
    gc.collect()
    assert warm.kept() == (1, 0)
    del qrels
    gc.collect()
    assert warm.kept() == (0, 0)
    assert all(ref() is None for ref in gone)


def test_at_most_so_many_are_kept():
    qrels = _pair(9)[0]
    runs = [_pair(9 + i)[1] for i in range(warm.MAX_FRAMES + 2)]
    for run in runs:
        _outcome(qrels, run, ["map"])
    frames, pairs = warm.kept()
    assert frames <= warm.MAX_FRAMES and pairs <= warm.MAX_PAIRS


def test_pandas_frames_and_dicts_are_not_kept():
    pandas = pytest.importorskip("pandas")
    warm.forget()
    qrels, run = _pair(10)
    _outcome(qrels.to_pandas(), run.to_pandas(), ["map"])
    nested = {q: {d: float(s)} for q, d, s in run.select("query", "doc", "score").iter_rows()}
    _outcome(qrels, nested, ["map"])
    assert warm.kept()[1] == 0 and pandas


def test_other_engines_and_recommender_measures_read_again(monkeypatch):
    qrels, run = _pair(11)
    cases = ((["map", "P.5"], dict(engine="pytrec_eval")), (["map", "P(rel=2)@5", "lenskit:NDCG@10"], {}),
             (["map", "auc"], dict(depth=3)))  # fmt: skip
    for measures, flags in cases:
        assert _outcome(qrels, run, measures, **flags) == _cold(monkeypatch, qrels, run, measures, **flags)


def test_a_setting_it_does_not_apply_goes_to_the_frames_path(monkeypatch):
    """A field added to EvalSettings is computed by the frames path unless at its default (here judged_only
    plays that field)."""
    qrels, run = _pair(14)
    monkeypatch.setattr(warm, "_APPLIED", warm._APPLIED - {"judged_only"})
    request = request_for(["map"])
    with recorded():
        assert (
            warm.compute_frames(qrels, run, vectorized.ENGINE, request, EvalSettings(judged_only=True))
            is None
        )
        assert warm.compute_frames(qrels, run, vectorized.ENGINE, request, EvalSettings()) is not None


def test_threads_share_the_kept_pair():
    qrels, run = _pair(12)
    with recorded():  # warnings are process-wide state: recorded once, around every thread
        expected = evaluate_full(qrels, run, MEASURES[0], depth=3).per_query
        out: list = []

        def work():
            out.extend(evaluate_full(qrels, run, MEASURES[0], depth=3).per_query for _ in range(3))

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(out) == 12 and all(frame.equals(expected) for frame in out)


def test_read_run_frames_are_kept(tmp_path):
    qrels, run = (f.filter(pl.col("query") != "q x") for f in _pair(13))  # no blank in a TREC file's ids
    trecrs.write_run(run, tmp_path / "r.run")
    trecrs.write_qrels(qrels, tmp_path / "q.qrels")
    q, r = trecrs.read_qrels(tmp_path / "q.qrels"), trecrs.read_run(tmp_path / "r.run")
    first = _outcome(q, r, MEASURES[1])
    assert any(p.run.ref() is r for p in warm._PAIRS.values())
    assert (
        _outcome(q, r, MEASURES[1])
        == first
        == _outcome(tmp_path / "q.qrels", tmp_path / "r.run", MEASURES[1])
    )
