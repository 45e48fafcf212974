"""trec_eval's order on integer-coded rows (``trecrs.ordering.order_rows``, ``in_trec_order``): the tie-group reorder against
the full sort, and evaluations that do not depend on the order the run writes its ties in.

A run grouped by query with scores non-increasing (what recommenders write) is brought into trec_eval's
order by sorting its tie groups alone; every such run, whatever the order of its ties, must give the rows
the full sort by (query, score, doc) gives, for trec_eval 9.0.8's C floats and 10.0's doubles.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.warned import recorded
from trecrs import evaluate
from trecrs.ordering import c_floats, in_trec_order, order_rows, tied_with_previous, trec_order

# 1.0 and 1.0000000001 are one C float and two doubles; -0.0 and 0.0 compare equal in C
SCORES = [2.5, 1.0000000001, 1.0, 0.5, 0.0, -0.0, -1.5]
DOCS = [str(d) for d in range(1, 31)] + ["a", "B", "é"]  # "9" vs "10": bytewise, not numeric
DTYPES = [np.float32, np.float64]


def _codes(values: list[str]) -> np.ndarray:
    vocab = sorted(set(values), key=str.encode)
    at = {v: i for i, v in enumerate(vocab)}
    return np.array([at[v] for v in values], dtype=np.int32)


def _arrays(rows: list[tuple[str, str, float]], dtype):
    q, d, s = zip(*rows, strict=True)
    return _codes(list(q)), c_floats(pl.Series(s, dtype=pl.Float64), dtype), _codes(list(d))


def _expected(rows: list[tuple[str, str, float]], dtype) -> dict[str, list[str]]:
    """Each query's docs in trec_eval's order, by the polars sort of :func:`trec_order` (another path)."""
    frame = pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row")
    ranked = trec_order(frame, rank=False, score_dtype=dtype)
    return {q: g.get_column("doc").to_list() for (q,), g in ranked.group_by("query", maintain_order=True)}


def _applied(rows: list[tuple[str, str, float]], dtype) -> tuple[np.ndarray | None, dict[str, list[str]]]:
    qcode, s, dcode = _arrays(rows, dtype)
    perm = order_rows(qcode, s, dcode)
    # in_trec_order: the same rows in the same order, without a permutation (dcode moved in place)
    got = in_trec_order(qcode.copy(), s.copy(), dcode.copy())
    for a, b in zip(
        got, (qcode, s, dcode) if perm is None else (qcode[perm], s[perm], dcode[perm]), strict=True
    ):
        assert a.tobytes() == b.tobytes()
    ordered = rows if perm is None else [rows[i] for i in perm]
    out: dict[str, list[str]] = {}
    for q, d, _ in ordered:
        out.setdefault(q, []).append(d)
    # each query's rows contiguous: a query met again after another is a failure
    changes = sum(1 for a, b in zip(ordered, ordered[1:], strict=False) if a[0] != b[0])
    assert changes == len(out) - 1
    return perm, out


def _grouped(
    queries: dict[str, list[tuple[str, float]]], dtype, tie_order, permute=None
) -> list[tuple[str, str, float]]:
    """Rows grouped by query, scores non-increasing (as ``dtype`` compares them), each tie group in
    ``tie_order``: "asc"/"desc" by doc id bytewise, or "random" (the list ``permute`` returns)."""
    rows = []
    for q, docs in queries.items():
        by_score: dict[float, list[str]] = {}
        for d, s in docs:
            by_score.setdefault(float(c_floats(pl.Series([s]), dtype)[0]), []).append((d, s))
        for key in sorted(by_score, reverse=True):
            group = by_score[key]
            if tie_order == "asc":
                group = sorted(group, key=lambda x: x[0].encode())
            elif tie_order == "desc":
                group = sorted(group, key=lambda x: x[0].encode(), reverse=True)
            else:
                group = permute(group)
            rows += [(q, d, s) for d, s in group]
    return rows


@st.composite
def runs(draw):
    n_queries = draw(st.integers(1, 4))
    queries = {}
    for q in draw(st.lists(st.sampled_from(["1", "2", "10", "9", "q"]), min_size=n_queries, max_size=n_queries,
                           unique=True)):  # fmt: skip
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=25, unique=True))
        queries[q] = [(d, draw(st.sampled_from(SCORES))) for d in docs]
    return queries


@settings(max_examples=300, deadline=None)
@given(queries=runs(), dtype=st.sampled_from(DTYPES), tie_order=st.sampled_from(["asc", "desc", "random"]),
       data=st.data())  # fmt: skip
def test_tie_groups_reordered_as_the_full_sort(queries, dtype, tie_order, data):
    rows = _grouped(queries, dtype, tie_order, lambda g: data.draw(st.permutations(g)))
    perm, got = _applied(rows, dtype)
    assert got == _expected(rows, dtype)
    if perm is not None:  # only rows of equal scores move: the others stay where they are
        qcode, s, _ = _arrays(rows, dtype)
        tied = tied_with_previous(qcode, s)
        in_group = tied | np.append(tied[1:], False)
        assert (perm[~in_group] == np.flatnonzero(~in_group)).all()
    if tie_order == "desc":  # doc ids descending bytewise: trec_eval's order already
        assert perm is None


@settings(max_examples=200, deadline=None)
@given(queries=runs(), dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1))
def test_rows_in_no_order_are_fully_sorted(queries, dtype, seed):
    rows = _grouped(queries, dtype, "asc")
    rows = [rows[i] for i in np.random.default_rng(seed).permutation(len(rows))]  # queries interleaved
    assert _applied(rows, dtype)[1] == _expected(rows, dtype)


def test_rising_score_or_split_query_takes_the_full_sort():
    rising = [("1", "a", 1.0), ("1", "b", 2.0), ("1", "c", 2.0)]
    split = [("1", "a", 2.0), ("2", "b", 1.0), ("1", "c", 1.0), ("1", "d", 1.0)]
    for rows in (rising, split):
        for dtype in DTYPES:
            assert _applied(rows, dtype)[1] == _expected(rows, dtype)


def test_c_float_ties_that_are_distinct_doubles():
    # one tie group for trec_eval 9.0.8 (float32), two scores for 10.0 (double)
    rows = [("1", "a", 1.0000000001), ("1", "b", 1.0), ("1", "c", 1.0), ("2", "x", -0.0), ("2", "y", 0.0)]
    assert _applied(rows, np.float32)[1] == {"1": ["c", "b", "a"], "2": ["y", "x"]}
    assert _applied(rows, np.float64)[1] == {"1": ["a", "c", "b"], "2": ["y", "x"]}


def test_tied_with_previous():
    qcode = np.array([0, 0, 0, 1, 1, 1, 2])
    s = np.array([2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0], dtype=np.float32)
    assert tied_with_previous(qcode, s).tolist() == [False, True, False, False, True, True, False]
    assert tied_with_previous(qcode[:0], s[:0]).tolist() == []
    assert tied_with_previous(qcode[:1], s[:1]).tolist() == [False]


def _ranked(rows: list[tuple[str, str, float]]) -> list[tuple[str, str, float, int]]:
    """Rows numbered 1..n within each query in the order given, as a recommender numbers them."""
    rank: dict[str, int] = {}
    out = []
    for q, d, s in rows:
        rank[q] = rank.get(q, 0) + 1
        out.append((q, d, s, rank[q]))
    return out


def _write(path, rows, relevant):
    """A TREC run of ``(query, doc, score, rank)`` rows, in their order, and its qrels."""
    (path / "run").write_text("".join(f"{q} Q0 {d} {r} {s!r} tag\n" for q, d, s, r in rows))
    (path / "qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in relevant))
    return path / "qrels", path / "run"


@pytest.mark.parametrize("version", [9, 10])
def test_evaluation_does_not_depend_on_the_order_of_ties(tmp_path, version):
    rng = np.random.default_rng(7)
    dtype = np.float32 if version == 9 else np.float64
    queries = {}
    for q in map(str, range(1, 13)):
        docs = rng.choice(
            DOCS[:-1], size=int(rng.integers(10, 30)), replace=False
        )  # ASCII: the streamed reader
        queries[q] = [(str(d), float(rng.choice(SCORES))) for d in docs]
    relevant = [
        (q, d, int(rng.integers(0, 3)) if k else 1)  # a relevant document in every query
        for q, docs in queries.items()
        for k, (d, _) in enumerate(docs)
        if not k or rng.random() < 0.4
    ]
    measures = ["P.5", "map", "ndcg_cut.10", "recip_rank", "relstring", "num_ret"]
    texts = {}
    for name in ("desc", "asc", "random", "shuffled"):
        order = "asc" if name == "shuffled" else name
        rows = _ranked(_grouped(queries, dtype, order, lambda g: [g[i] for i in rng.permutation(len(g))]))
        if name == "shuffled":
            rows = [rows[i] for i in rng.permutation(len(rows))]
        folder = tmp_path / name
        folder.mkdir()
        qrels, run = _write(folder, rows, relevant)
        options = {"block_lines": 40}  # several blocks of whole queries
        with recorded() as said:  # the tie report (ties straddling a cutoff): the same whatever the order
            result = evaluate(qrels, run, measures, trec_eval_version=version, engine_options=options)
        # trec_eval 9.0.8's float32 scores are streamed, and a run not grouped by query is partitioned first
        partitioned = [w for w in said if "not grouped by query" in w]
        assert len(partitioned) == (name == "shuffled" and version == 9)
        texts[name] = (result.to_trec(per_query=True), [w for w in said if w not in partitioned])
        frame = pl.DataFrame(rows, schema=["query", "doc", "score", "rank"], orient="row").drop("rank")
        with recorded() as said:
            frames = evaluate(pl.DataFrame(relevant, schema=["query", "doc", "rel"], orient="row"), frame, measures,
                              trec_eval_version=version)  # fmt: skip
        texts[name + " (frames)"] = (frames.to_trec(per_query=True), said)
    assert all(v == texts["desc"] for v in texts.values()), texts


def test_in_trec_order_leaves_a_read_only_column_alone():
    qcode, s, dcode = _arrays([("1", "a", 1.0), ("1", "b", 1.0), ("1", "c", 0.5)], np.float32)
    dcode.setflags(write=False)  # as a zero-copy view of a polars column comes
    q2, s2, d2 = in_trec_order(qcode, s, dcode)
    assert d2.tolist() == [1, 0, 2] and dcode.tolist() == [0, 1, 2]
    assert q2 is qcode and s2 is s
