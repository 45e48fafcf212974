"""evaluate_matrix: an in-memory users x items score matrix scores exactly like the AllItems run it stands
for, written to a file and scored by trec_eval's own code (the pytrec_eval engine)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trecrs import evaluate, evaluate_matrix
from trecrs.errors import InputError, UsageError
from trecrs.files.trec import write_qrels, write_run

from ..warned import recorded, warned


def _case(seed: int, n_users: int = 7, n_items: int = 23):
    rng = np.random.default_rng(seed)
    users = [str(u) for u in rng.choice(200, n_users, replace=False)]  # "9" vs "10"-style ids
    items = [str(i) for i in rng.choice(1000, n_items, replace=False)]
    scores = np.round(rng.normal(size=(n_users, n_items)), 1)  # many ties
    scores[0, :3] = [1.0, 1.0000000001, -0.0]  # float32 collisions, signed zero
    scores[1] = 0.0
    exclude = rng.random((n_users, n_items)) < 0.3
    exclude[2] = True  # a user with no candidate item
    qrels = []
    for u in users[:-1]:  # the last user is not in the qrels
        for i in rng.choice(items, 6, replace=False):
            qrels.append((u, str(i), int(rng.integers(-1, 5))))
    qrels.append(("ghost", items[0], 3))  # a qrels-only query
    qrels = pl.DataFrame(qrels, schema={"query": pl.Utf8, "doc": pl.Utf8, "rel": pl.Int64}, orient="row")
    return qrels, scores, users, items, exclude


def _as_run(scores, users, items, exclude) -> pl.DataFrame:
    u, i = np.nonzero(~exclude)
    return pl.DataFrame(
        {
            "query": [users[k] for k in u],
            "doc": [items[k] for k in i],
            "score": scores[u, i].astype(np.float64),
        }
    )


FLAGS = st.fixed_dictionaries(
    {
        "relevance_level": st.integers(1, 3),
        "judged_only": st.booleans(),
        "average_all": st.booleans(),
        "depth": st.one_of(st.none(), st.integers(1, 8)),
    }
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10_000), FLAGS)
def test_matrix_equals_the_written_run_scored_by_trec_eval(tmp_path, seed, flags):
    qrels, scores, users, items, exclude = _case(seed)
    qpath, rpath = tmp_path / "qrels.txt", tmp_path / "run.txt"
    write_qrels(qrels, qpath)
    write_run(_as_run(scores, users, items, exclude), rpath)
    with (
        recorded() as file_warnings
    ):  # whether the generated case warns (users without scores, short rankings) varies
        expected = evaluate(qpath, rpath, ["all_trec"], engine="pytrec_eval", **flags).tidy()
    with recorded() as matrix_warnings:  # the tie report only: the matrix path checks no coverage
        got = evaluate_matrix(
            qrels, scores, users, items, exclude=exclude, measures=["all_trec"], **flags
        ).tidy()
    assert matrix_warnings == [
        w for w in file_warnings if w.startswith("tied documents of different relevance")
    ]
    assert got.get_column("query").to_list() == expected.get_column("query").to_list()
    assert got.get_column("measure").to_list() == expected.get_column("measure").to_list()
    x, y = expected.get_column("value").to_numpy(), got.get_column("value").to_numpy()
    assert ((x == y) | (np.isnan(x) & np.isnan(y))).all()


TIES = r"tied documents of different relevance straddle cutoff 5 in 1 of 6 evaluated queries \(16.7%\); ties anywhere in the lists move the other measures in 6 of 6 evaluated queries \(100.0%\): P_5 lies between 0.1667 and 0.2667"


def test_float32_matrix_and_no_exclusions():
    qrels, scores, users, items, _ = _case(3)
    with warned(TIES):
        got = evaluate_matrix(qrels, scores.astype(np.float32), users, items, measures=["P.5", "map"]).tidy()
    # users and the qrels' queries differ by one each way
    with warned(
        "1 of 7 .* qrels queries have no line in the run", "1 of 7 .* run queries have no qrels", TIES
    ):
        expected = evaluate(qrels, _as_run(scores.astype(np.float32), users, items, np.zeros(scores.shape, bool)),
                            ["P.5", "map"], engine="pytrec_eval").tidy()  # fmt: skip
    assert got.equals(expected)


def test_bad_inputs():
    qrels, scores, users, items, exclude = _case(5)
    with pytest.raises(UsageError, match="scores shape"):
        evaluate_matrix(qrels, scores[:, :-1], users, items)
    with pytest.raises(InputError, match="item id .* occurs twice"):
        evaluate_matrix(qrels, scores, users, [items[0]] + items[:-1])
    bad = scores.copy()
    bad[3, 4] = np.nan
    with pytest.raises(InputError, match="is NaN"):
        evaluate_matrix(qrels, bad, users, items)
    ex = np.zeros(scores.shape, bool)
    ex[3, 4] = True  # an excluded NaN is not a candidate: fine
    with warned(
        "tied documents of different relevance straddle cutoff 5 in 1 of 6 evaluated queries .*: P_5 lies between 0.1333 and 0.2333"
    ):
        evaluate_matrix(qrels, bad, users, items, exclude=ex, measures=["P.5"])
    with pytest.raises(UsageError, match="vectorized engine"):
        evaluate_matrix(qrels, scores, users, items, measures=["utility.1,2"])


def test_trec_eval_10_ordering_is_not_offered_on_a_matrix():
    """The matrix path ranks C floats (9.0.8); 10.0's double ordering needs the run itself."""
    qrels = pl.DataFrame({"query": ["u1"], "doc": ["i1"], "rel": [1]})
    with pytest.raises(UsageError, match="ranks scores as C floats"):
        evaluate_matrix(qrels, np.ones((1, 1)), ["u1"], ["i1"], trec_eval_version=10)
