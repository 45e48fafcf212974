"""evaluate_factors: a factor model at ML-100K size (943 x 1,682, rank 16) scores exactly like the full
AllItems run written with ``%.9g`` scores and scored by ``trecrs.evaluate`` (and by trec_eval's own code,
the pytrec_eval engine), per query with ``-q``; and like evaluate_matrix on the dense score matrix."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from trecrs import evaluate, evaluate_factors, evaluate_matrix
from trecrs.engines.vectorized.factors import factor_scores
from trecrs.errors import InputError, UsageError
from trecrs.files.trec import write_qrels

from ..warned import warned

N_USERS, N_ITEMS, RANK = 943, 1682, 16


def ml100k_like(seed: int = 14):
    """Synthetic ML-100K-shaped factors, train and qrels with forced exact ties and awkward ids.

    Ids are decimal numbers (bytewise order != numeric: "10" < "9"); items 0-99 copy the factors of items
    100-199 (exact score ties, broken by id); one user has zero factors (every score ties); qrels hold
    grades 0-5 and -1 (unjudged), items absent from the catalogue and trained items; some qrels users
    have no factors and some factor users no qrels.
    """
    rng = np.random.default_rng(seed)
    users = [str(u) for u in rng.permutation(N_USERS) + 1]
    items = [str(i) for i in rng.permutation(N_ITEMS) + 1]
    p = rng.standard_normal((N_USERS, RANK)).astype(np.float32)
    q = rng.standard_normal((N_ITEMS, RANK)).astype(np.float32)
    q[:100] = q[100:200]
    p[5] = 0.0
    pairs = rng.random((N_USERS, N_ITEMS)) < 0.063  # ~100K ratings
    u, i = np.nonzero(pairs)
    test = rng.random(u.size) < 0.2
    train = pl.DataFrame({"user": [users[k] for k in u[~test]], "item": [items[k] for k in i[~test]]})
    grades = rng.integers(-1, 6, size=int(test.sum()))
    qrels = pl.DataFrame(
        {"query": [users[k] for k in u[test]], "doc": [items[k] for k in i[test]], "rel": grades.tolist()}
    )
    extra = pl.DataFrame({"query": ["ghost", users[0], users[1]], "doc": [items[0], "not-an-item", items[2]],
                          "rel": [2, 3, 1]})  # fmt: skip
    trained = train.row(0)  # a judged training item: no candidate, still in num_rel
    extra = pl.concat([extra, pl.DataFrame({"query": [trained[0]], "doc": [trained[1]], "rel": [4]})])
    qrels = pl.concat([qrels, extra]).unique(["query", "doc"], keep="first", maintain_order=True)
    keep_users = np.ones(N_USERS, bool)
    keep_users[[7, 8]] = False  # qrels users without factors
    return qrels, train, p[keep_users], q, [u for u, k in zip(users, keep_users, strict=True) if k], items


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    qrels, train, p, q, users, items = ml100k_like()
    tmp = tmp_path_factory.mktemp("factors")
    write_qrels(qrels, tmp / "qrels")
    scores = factor_scores(p, q)
    exclude = _excluded(train, users, items)
    u, i = np.nonzero(~exclude)
    text = np.char.mod("%.9g", scores[u, i].astype(np.float64))
    run = pl.DataFrame({"u": np.array(users)[u], "i": np.array(items)[i], "s": text})
    run.select(pl.format("{} Q0 {} 0 {} f", "u", "i", "s")).write_csv(tmp / "run", include_header=False,
                                                                       quote_style="never")  # fmt: skip
    return dict(qrels=qrels, train=train, p=p, q=q, users=users, items=items, scores=scores, exclude=exclude,
                qrels_path=str(tmp / "qrels"), run_path=str(tmp / "run"))  # fmt: skip


def _excluded(train: pl.DataFrame, users, items) -> np.ndarray:
    upos = {u: k for k, u in enumerate(users)}
    ipos = {i: k for k, i in enumerate(items)}
    out = np.zeros((len(users), len(items)), bool)
    for u, i in train.iter_rows():
        if u in upos and i in ipos:
            out[upos[u], ipos[i]] = True
    return out


FLAGS = [
    (["official"], {}),
    (["P.10", "recall.50", "ndcg_cut.50", "map"], {}),
    (["bpref", "Rprec", "num_rel", "num_ret", "num_rel_ret"], {}),
    (["P.10", "map", "ndcg_cut.50", "relstring"], {"depth": 40}),
    (["official", "ndcg"], {"judged_only": True}),
    (["P.10", "recall.50", "map", "Rprec"], {"average_all": True}),
    (["official"], {"relevance_level": 2}),
    (["map", "bpref", "P.5"], {"relevance_level": 3, "judged_only": True, "depth": 100, "average_all": True}),
]


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
@pytest.mark.parametrize(("measures", "flags"), FLAGS)
def test_equals_the_written_run(case, measures, flags):
    got = evaluate_factors(case["qrels"], case["train"], case["p"], case["q"], case["users"], case["items"],
                           measures=measures, block_users=100, tag="f", **flags)  # fmt: skip
    want = evaluate(case["qrels_path"], case["run_path"], measures, **flags)
    assert got.to_trec(per_query=True) == want.to_trec(per_query=True)
    assert got.per_query.height > 900


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_equals_trec_eval_code(case):
    """The reference is trec_eval's own C code (pytrec_eval) on the written run."""
    got = evaluate_factors(case["qrels"], case["train"], case["p"], case["q"], case["users"], case["items"],
                           measures=["official"], tag="f", threads=1)  # fmt: skip
    want = evaluate(case["qrels_path"], case["run_path"], ["official"], engine="pytrec_eval")
    assert got.to_trec(per_query=True) == want.to_trec(per_query=True)


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_equals_evaluate_matrix(case):
    measures = ["P.10", "recall.50", "ndcg_cut.50", "map", "bpref"]
    got = evaluate_factors(case["qrels"], case["train"], case["p"], case["q"], case["users"], case["items"],
                           measures=measures, block_users=333)  # fmt: skip
    want = evaluate_matrix(case["qrels"], case["scores"], case["users"], case["items"], exclude=case["exclude"],
                           measures=measures)  # fmt: skip
    assert got.to_trec(per_query=True) == want.to_trec(per_query=True)


TIE_FLAGS = [
    {},
    *(
        pytest.param(f, marks=pytest.mark.slow)
        for f in ({"depth": 40}, {"judged_only": True}, {"relevance_level": 2, "average_all": True})
    ),
]


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
@pytest.mark.parametrize("mode", ["expected", "best", "worst"])
@pytest.mark.parametrize("flags", TIE_FLAGS)
def test_tie_modes_equal_the_written_run(case, mode, flags):
    """Items 0-99 tie with items 100-199 and user 5 ties every item: each tie mode gives what it gives on the
    written run (the expected values to rounding: the closed forms add in another order)."""
    measures = ["P.10", "recall.50", "ndcg_cut.50", "map", "recip_rank", "Rprec", "success.5"]
    got = evaluate_factors(case["qrels"], case["train"], case["p"], case["q"], case["users"], case["items"],
                           measures=measures, block_users=100, tag="f", ties=mode, **flags)  # fmt: skip
    want = evaluate(case["qrels_path"], case["run_path"], measures, ties=mode, **flags)
    a, b = got.per_query.sort("query"), want.per_query.sort("query")
    assert a.get_column("query").to_list() == b.get_column("query").to_list()
    for column in a.columns[1:]:
        np.testing.assert_allclose(a.get_column(column).to_numpy(), b.get_column(column).to_numpy(), rtol=1e-12,
                                   atol=1e-15, err_msg=column)  # fmt: skip
    matrix = evaluate_matrix(case["qrels"], case["scores"], case["users"], case["items"], exclude=case["exclude"],
                             measures=measures, ties=mode, **flags)  # fmt: skip
    c = matrix.per_query.sort("query")
    for column in a.columns[1:]:
        np.testing.assert_allclose(c.get_column(column).to_numpy(), b.get_column(column).to_numpy(), rtol=1e-12,
                                   atol=1e-15, err_msg=column)  # fmt: skip
    if mode != "expected":
        assert got.summary != evaluate(case["qrels_path"], case["run_path"], measures, **flags).summary


def test_scores_do_not_depend_on_the_block(case):
    whole = factor_scores(case["p"], case["q"])
    for lo, hi in ((0, 1), (5, 300), (900, 941)):
        assert np.array_equal(factor_scores(case["p"][lo:hi], case["q"]), whole[lo:hi])


def test_ties_break_by_item_id_bytewise():
    """Four items with one score: trec_eval ranks them by id descending bytewise ("9" > "10" > "1")."""
    q = np.ones((4, 2), np.float32)
    ev = evaluate_factors({"u": {"9": 1, "10": 1, "100": 1, "1": 1}}, {"user": [], "item": []},
                          np.ones((1, 2)), q, ["u"], ["1", "10", "100", "9"], measures=["relstring"])  # fmt: skip
    assert ev.per_query.height == 1
    qr = {"u": {"10": 1}}
    # the relevant item first or last of the four: recip_rank 1 or 1/4
    with warned(r"tied documents of different relevance move values in 1 of 1 evaluated queries \(100.0%\): "
                r"recip_rank lies between 0.2500 and 1.0000 over tie orders"):  # fmt: skip
        rr = evaluate_factors(qr, {"user": [], "item": []}, np.ones((1, 2)), q, ["u"], ["1", "10", "100", "9"],
                              measures=["recip_rank"]).to_dict()  # fmt: skip
    assert rr == {"u": {"recip_rank": 1 / 3}}  # order 9, 100, 10, 1


def test_errors():
    with pytest.raises(UsageError, match="rank 2, item factors 3"):
        evaluate_factors(
            {"u": {"i": 1}}, {"user": [], "item": []}, np.ones((1, 2)), np.ones((1, 3)), ["u"], ["i"]
        )
    with pytest.raises(InputError, match="item id 'i' occurs twice"):
        evaluate_factors({"u": {"i": 1}}, {"user": [], "item": []}, np.ones((1, 2)), np.ones((2, 2)), ["u"],
                         ["i", "i"])  # fmt: skip
    with pytest.raises(InputError, match="NaN"):
        inf = np.array([[np.inf, -np.inf]], np.float32)
        evaluate_factors({"u": {"i": 1}}, {"user": [], "item": []}, np.ones((1, 2)), inf, ["u"], ["i"])
