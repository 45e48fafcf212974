"""Reference recommenders against hand-computed examples, an independent loop implementation of
Cremonesi's neighbourhood models, and the scores the authors of Bellogín et al. (2011) released."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from tests.conftest import GOLDEN, ML100K, need
from tests.warned import warned
from trecrs.errors import InputError, UsageError
from trecrs.files.scores import read_pairs
from trecrs.recommenders.base import RatingData, baseline_estimates
from trecrs.recommenders.knn import mahout_top_n
from trecrs.recommenders.mf import BiasedMF, PureSVD, _als_side
from trecrs.recommenders.registry import make_recommender, parse_param, resolve

# Matrix A (4 users x 5 items, '-' = not rated):
#        i1 i2 i3 i4 i5
#   u1:   5  3  4  -  -
#   u2:   4  2  -  5  1
#   u3:   1  5  2  2  -
#   u4:   3  -  5  1  4
A = {
    "u1": {"i1": 5, "i2": 3, "i3": 4},
    "u2": {"i1": 4, "i2": 2, "i4": 5, "i5": 1},
    "u3": {"i1": 1, "i2": 5, "i3": 2, "i4": 2},
    "u4": {"i1": 3, "i3": 5, "i4": 1, "i5": 4},
}


def frame(matrix: dict) -> pl.DataFrame:
    rows = [(u, i, float(r)) for u, items in matrix.items() for i, r in items.items()]
    return pl.DataFrame(rows, schema={"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64}, orient="row")


def pairs(*uis: tuple[str, str]) -> pl.DataFrame:
    return pl.DataFrame({"user": [u for u, _ in uis], "item": [i for _, i in uis]})


def scores_of(model, *uis) -> dict:
    out = model.score(pairs(*uis)).frame
    return {(u, i): s for u, i, s in out.iter_rows()}


# Pearson over co-rated items (by hand):
#   u1,u2 co-rate i1,i2: (5,3) vs (4,2) -> centred (1,-1),(1,-1) -> 1
#   u1,u3 co-rate i1..i3: Sxy=28, Sx=12, Sy=8, Sxx=50, Syy=30, n=3 -> (28-32)/sqrt((50-48)(30-64/3))
#   u1,u4 co-rate i1,i3: (5,4) vs (3,5) -> -1
S12, S13, S14 = 1.0, -4 / math.sqrt(2 * 26 / 3), -1.0


def test_userknn_neighbourhood_is_global_and_weights_are_mahout_03():
    # k=2: N(u1) = {u2, u3} (u4, similarity -1, is out), whatever the item
    model = make_recommender("userknn", k=2).fit(frame(A))
    got = scores_of(model, ("u1", "i4"), ("u1", "i5"), ("u1", "i1"))
    # i4 rated by u2 (5) and u3 (2); weights sim + 1
    assert got[("u1", "i4")] == pytest.approx((2 * 5 + (1 + S13) * 2) / (2 + 1 + S13), abs=1e-12)
    # i5: only u2 among the neighbours rated it (u4 did too, but is not a neighbour): its rating
    assert got[("u1", "i5")] == pytest.approx(1.0, abs=1e-12)
    assert got[("u1", "i1")] == 5.0  # a rated item returns the user's own rating, as Mahout does


def test_userknn_signed_and_absolute_weightings():
    signed = make_recommender("userknn", k=2, weighting="signed").fit(frame(A))
    got = scores_of(signed, ("u1", "i4"), ("u1", "i5"))
    # (5 + 2*S13) / (1 + S13) = 78.5 -> clamped to the rating range by Mahout's capper
    assert (5 + 2 * S13) / (1 + S13) > 5 and got[("u1", "i4")] == 5.0
    assert ("u1", "i5") not in got  # one neighbour only: Mahout >= 0.4 gives no estimate
    absolute = make_recommender("userknn", k=2, weighting="absolute").fit(frame(A))
    got = scores_of(absolute, ("u1", "i4"))
    assert got[("u1", "i4")] == pytest.approx((5 + 2 * S13) / (1 + abs(S13)), abs=1e-12)


def test_userknn_cosine_and_k():
    # cosine over co-rated items, k=1: N(u1) = the single most similar user
    cos12 = (5 * 4 + 3 * 2) / math.sqrt((25 + 9) * (16 + 4))
    cos13 = (5 + 15 + 8) / math.sqrt(50 * 30)
    cos14 = (15 + 20) / math.sqrt((25 + 16) * (9 + 25))
    best = max((cos12, "u2"), (cos13, "u3"), (cos14, "u4"))
    assert best[1] == "u2"
    model = make_recommender("userknn", k=1, similarity="cosine").fit(frame(A))
    got = scores_of(model, ("u1", "i4"), ("u1", "i5"))
    assert got == {("u1", "i4"): pytest.approx(5.0), ("u1", "i5"): pytest.approx(1.0)}  # u2's ratings


def test_mahout_heap_tie_order():
    # Java's PriorityQueue on [1, 1, 1] with n = 2 (traced by hand through siftUp/siftDown): the third
    # value is appended, the root (index 0) polled, and the last element (index 2) sifted to the root.
    assert mahout_top_n(np.array([1.0, 1.0, 1.0]), 2).tolist() == [1, 2]
    assert mahout_top_n(np.array([0.5, 1.0, 1.0, 1.0, 0.2]), 2).tolist() == [1, 2]
    assert mahout_top_n(np.array([np.nan, 0.3, -0.2]), 5).tolist() == [1, 2]


# Adjusted cosine, user means u1 4, u2 3, u3 2.5, u4 3.25; centred values:
#   u1: i1 1, i2 -1, i3 0;  u2: i1 1, i2 -1, i4 2, i5 -2;  u3: i1 -1.5, i2 2.5, i3 -0.5, i4 -0.5
#   u4: i1 -0.25, i3 1.75, i4 -2.25, i5 0.75
SIM41 = (2 * 1 + 0.75 + 0.5625) / (math.sqrt(4 + 0.25 + 5.0625) * math.sqrt(1 + 2.25 + 0.0625))  # u2,u3,u4
SIM42 = (2 * -1 + -0.5 * 2.5) / (math.sqrt(4 + 0.25) * math.sqrt(1 + 6.25))  # u2,u3
SIM43 = (0.25 - 2.25 * 1.75) / (math.sqrt(0.25 + 5.0625) * math.sqrt(0.25 + 3.0625))  # u3,u4


def test_itemknn_adjusted_cosine_by_hand():
    model = make_recommender("IB").fit(frame(A))
    got = scores_of(model, ("u1", "i4"))
    w = [1 + SIM41, 1 + SIM42, 1 + SIM43]  # u1 rated i1 (5), i2 (3), i3 (4)
    assert got[("u1", "i4")] == pytest.approx((w[0] * 5 + w[1] * 3 + w[2] * 4) / sum(w), abs=1e-12)
    assert got[("u1", "i4")] == pytest.approx(4.5544, abs=1e-4)
    signed = make_recommender("itemknn", weighting="signed").fit(frame(A))
    expect = (SIM41 * 5 + SIM42 * 3 + SIM43 * 4) / (SIM41 + SIM42 + SIM43)
    assert scores_of(signed, ("u1", "i4"))[("u1", "i4")] == pytest.approx(
        min(5.0, max(1.0, expect)), abs=1e-12
    )


# Matrix P for PureSVD: items 1-3 form a block whose R^T R = 16 [[2,1,1],[1,2,1],[1,1,2]] has the
# eigenvalues 64 (vector (1,1,1)/sqrt 3), 16, 16; items 4-5: 8 (vector (1,1)/sqrt 2) and 0.
P = {
    "u1": {"1": 4, "2": 4},
    "u2": {"1": 4, "3": 4},
    "u3": {"2": 4, "3": 4},
    "u4": {"4": 2, "5": 2},
}


def test_puresvd_by_hand():
    one = make_recommender("puresvd", factors=1).fit(frame(P))
    got = scores_of(one, ("u1", "3"), ("u1", "4"), ("u4", "1"), ("u2", "2"))
    # r_u1 . q = (4 + 4) / sqrt 3, times q_3 = 1 / sqrt 3
    assert got[("u1", "3")] == pytest.approx(8 / 3, abs=1e-12)
    assert got[("u2", "2")] == pytest.approx(8 / 3, abs=1e-12)
    assert got[("u1", "4")] == pytest.approx(0.0, abs=1e-12)
    assert got[("u4", "1")] == pytest.approx(0.0, abs=1e-12)
    # f = 4 spans items 1-3 and (1,1,0...) of 4-5: each user's own row comes back
    four = make_recommender("puresvd", factors=4).fit(frame(P))
    got = scores_of(four, ("u1", "3"), ("u1", "1"), ("u4", "4"))
    assert got[("u1", "3")] == pytest.approx(0.0, abs=1e-12)
    assert got[("u1", "1")] == pytest.approx(4.0, abs=1e-12)
    assert got[("u4", "4")] == pytest.approx(2.0, abs=1e-12)


def test_puresvd_arpack_path_agrees_with_exact_svd(monkeypatch):
    """The ``svds`` branch (matrices over ``PureSVD.dense_cells``) gives the exact SVD's scores."""
    rng = np.random.default_rng(3)
    dense = (rng.random((60, 40)) < 0.3) * rng.integers(1, 6, (60, 40))
    rows = [(f"u{u}", f"i{i}", float(dense[u, i])) for u, i in zip(*np.nonzero(dense), strict=True)]
    train = pl.DataFrame(rows, schema={"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64}, orient="row")
    exact = make_recommender("puresvd", factors=5).fit(train)
    import scipy.sparse.linalg

    calls = []
    real_svds = scipy.sparse.linalg.svds

    def counting_svds(*args, **kwargs):
        calls.append(kwargs)
        return real_svds(*args, **kwargs)

    monkeypatch.setattr(scipy.sparse.linalg, "svds", counting_svds)
    monkeypatch.setattr(PureSVD, "dense_cells", 0)
    sparse = make_recommender("puresvd", factors=5).fit(train)
    assert len(calls) == 1 and calls[0]["k"] == 5  # the ARPACK branch ran, once
    again = make_recommender("puresvd", factors=5).fit(train)  # seeded start vector: same bytes
    ask = train.select("user").unique().join(train.select("item").unique(), how="cross")
    a = exact.score(ask).frame.sort("user", "item")
    b = sparse.score(ask).frame.sort("user", "item")
    assert a.height == b.height == ask.height
    np.testing.assert_allclose(a["score"].to_numpy(), b["score"].to_numpy(), atol=1e-8)
    assert again.score(ask).frame.sort("user", "item").equals(b)


def test_toppop_itemavg_random():
    top = make_recommender("TopPop").fit(frame(A))
    got = scores_of(top, ("u1", "i1"), ("u1", "i5"), ("nobody", "i4"), ("u1", "new"))
    assert got == {("u1", "i1"): 4.0, ("u1", "i5"): 2.0, ("nobody", "i4"): 3.0, ("u1", "new"): 0.0}
    avg = make_recommender("MovieAvg").fit(frame(A))
    res = avg.score(pairs(("u1", "i1"), ("u9", "i3"), ("u1", "new")))
    got = {(u, i): s for u, i, s in res.frame.iter_rows()}
    assert got == {("u1", "i1"): 3.25, ("u9", "i3"): pytest.approx(11 / 3)}
    assert res.n_unscored == 1  # an item nobody rated has no mean
    rnd = make_recommender("random", seed=7).fit(frame(A))
    many = pairs(*[(u, i) for u in A for i in ("i1", "i2", "i3", "i4", "i5", "x")])
    s1 = rnd.score(many).frame
    assert s1.height == many.height and s1["score"].min() >= 0 and s1["score"].max() < 1
    alone = rnd.score(pairs(("u3", "i4"))).frame["score"][0]
    assert alone == s1.filter((pl.col("user") == "u3") & (pl.col("item") == "i4"))["score"][0]
    other = make_recommender("random", seed=8).fit(frame(A)).score(many).frame
    assert not np.allclose(other["score"].to_numpy(), s1["score"].to_numpy())


def test_mf_als_step_solves_normal_equations_and_is_seeded():
    import scipy.sparse as sp

    R = sp.csr_matrix(np.array([[5.0, 3.0, 0.0], [4.0, 0.0, 1.0]]))
    Q = np.array([[0.1, -0.2], [0.3, 0.0], [-0.1, 0.4]])
    bi = np.array([0.2, -0.1, 0.0])
    X, b = _als_side(R, Q, bi, 3.0, 0.5)
    # user 0 rated items 0, 1: solve (Y^T Y + 0.5 * 2 I) x = Y^T (r - mu - b_i), Y = [Q | 1]
    Y = np.hstack([Q[[0, 1]], np.ones((2, 1))])
    x = np.linalg.solve(Y.T @ Y + 0.5 * 2 * np.eye(3), Y.T @ (np.array([5.0, 3.0]) - 3.0 - bi[[0, 1]]))
    np.testing.assert_allclose(np.r_[X[0], b[0]], x, atol=1e-12)
    m1 = BiasedMF(seed=1, factors=2, regularization=0.01, iterations=30).fit(frame(A))
    m2 = BiasedMF(seed=1, factors=2, regularization=0.01, iterations=30).fit(frame(A))
    ask = pairs(*[(u, i) for u in A for i in A[u]], ("u1", "i4"), ("ghost", "i1"))
    s1, s2 = m1.score(ask), m2.score(ask)
    assert s1.frame.equals(s2.frame) and s1.n_unscored == 1  # unknown user: no score
    fit = s1.frame.join(frame(A), on=["user", "item"])
    assert float(((fit["score"] - fit["rating"]) ** 2).mean()) < 0.05  # 2 factors fit 14 ratings closely


# ---- Cremonesi's neighbourhood models against a direct loop implementation of eqs. 1 and 2


def _reference_cremonesi(R: np.ndarray, k: int, lam: float, kind: str):
    n_u, n_i = R.shape
    rated = R > 0
    mu = R[rated].mean()
    bi = np.array([(R[rated[:, i], i] - mu).sum() / (25 + rated[:, i].sum()) for i in range(n_i)])
    bu = np.array([(R[u, rated[u]] - mu - bi[rated[u]]).sum() / (10 + rated[u].sum()) for u in range(n_u)])
    d = np.zeros((n_i, n_i))
    for i in range(n_i):
        for j in range(n_i):
            if i == j:
                continue
            common = rated[:, i] & rated[:, j]
            n = common.sum()
            if kind == "cor":
                if n == 0:
                    continue
                x, y = R[common, i], R[common, j]
                den = math.sqrt(((x - x.mean()) ** 2).sum() * ((y - y.mean()) ** 2).sum())
                s = ((x - x.mean()) * (y - y.mean())).sum() / den if den > 0 else 0.0
            else:
                s = (R[:, i] @ R[:, j]) / math.sqrt((R[:, i] @ R[:, i]) * (R[:, j] @ R[:, j]))
            d[i, j] = n / (n + lam) * s
    out = np.zeros((n_u, n_i))
    for u in range(n_u):
        for i in range(n_i):
            js = [j for j in np.flatnonzero(rated[u]) if d[i, j] > 0]
            js = sorted(js, key=lambda j: (-d[i, j], j))[:k]
            z = sum(d[i, j] * (R[u, j] - mu - bu[u] - bi[j]) for j in js)
            if kind == "cor":
                den = sum(d[i, j] for j in js)
                z = z / den if den > 0 else 0.0
            out[u, i] = mu + bu[u] + bi[i] + z
    return out


@pytest.mark.parametrize("name,kind", [("corngbr", "cor"), ("nncosngbr", "cos")])
def test_cremonesi_neighbourhoods_match_the_equations(name, kind):
    rng = np.random.default_rng(11)
    dense = (rng.random((9, 8)) < 0.6) * rng.integers(1, 6, (9, 8))
    dense[:, 0] = np.maximum(dense[:, 0], 1)  # every user rated something
    users = [f"{u}" for u in range(9)]
    items = [f"{i}" for i in range(8)]
    rows = [(users[u], items[i], float(dense[u, i])) for u, i in zip(*np.nonzero(dense), strict=True)]
    train = pl.DataFrame(rows, schema={"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64}, orient="row")
    model = make_recommender(name, k=2, shrinkage=3.0).fit(train)
    ask = pl.DataFrame({"user": users}).join(pl.DataFrame({"item": items}), how="cross")
    got = model.score(ask).frame
    expect = _reference_cremonesi(dense.astype(float), 2, 3.0, kind)
    for u, i, s in got.iter_rows():
        assert s == pytest.approx(expect[int(u), int(i)], abs=1e-10), (u, i)
    assert got.height == 72


def test_baselines_by_hand():
    d = RatingData.from_frame(frame(A))
    mu, bu, bi = baseline_estimates(d, lambda_item=0.0, lambda_user=0.0)
    assert mu == pytest.approx(47 / 15)
    assert bi[0] == pytest.approx((5 + 4 + 1 + 3) / 4 - 47 / 15)  # item i1 (index 0)


# ---- registry, parameters, files


def test_registry_and_parameters():
    assert resolve("ub50") == ("userknn", {"k": 50, "similarity": "pearson"})
    assert resolve("MovieAvg") == ("itemavg", {})
    assert parse_param("k=30", "UB50") == ("k", 30)
    assert parse_param("shrinkage=50", "CorNgbr") == ("shrinkage", 50.0)
    with pytest.raises(UsageError, match="unknown algorithm"):
        resolve("nope")
    with pytest.raises(UsageError, match="unknown parameter"):
        parse_param("depth=3", "UB50")
    with pytest.raises(UsageError, match="expects int"):
        parse_param("k=many", "UB50")
    with pytest.raises(UsageError, match="similarity"):
        make_recommender("userknn", similarity="jaccard").fit(frame(A))
    with pytest.raises(InputError, match="twice"):
        make_recommender("toppop").fit(pl.concat([frame(A), frame(A).head(1)]))


def test_read_pairs(tmp_path):
    p = tmp_path / "c.pairs"
    p.write_text("1\t1\t10\n1\t1\t11\n1:5\t1\t10\n")
    assert read_pairs(p).rows() == [("1", "10"), ("1", "11"), ("1", "10")]
    p2 = tmp_path / "two.txt"
    p2.write_text("7 8\n7 9\n")
    assert read_pairs(p2).rows() == [("7", "8"), ("7", "9")]
    bad = tmp_path / "bad.pairs"
    bad.write_text("1\t1\t10\n1\t1\n1 2 3 4\n")
    with pytest.raises(InputError, match=r"bad.pairs:2"):
        read_pairs(bad)


def test_cli_recommend(cli, tmp_path):
    train = tmp_path / "train.data"
    train.write_text("".join(f"{u}\t{i}\t{r}\t0\n" for u, items in A.items() for i, r in items.items()))
    cands = tmp_path / "c.pairs"
    cands.write_text("u1\tu1\ti4\nu1\tu1\ti5\nu1:i4\tu1\ti4\nu9\tu9\ti1\n")
    test = tmp_path / "test.data"
    test.write_text("u1\ti4\t4\t0\nu3\ti5\t2\t0\n")
    out = tmp_path / "s.txt"
    pred = tmp_path / "p.txt"
    code, _, err = cli(
        "recommend",
        "-a",
        "userknn",
        "-p",
        "k=2",
        "--train",
        train,
        "--candidates",
        cands,
        "-o",
        out,
        "--predict",
        test,
        "--predictions",
        pred,
    )
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert lines[0].split()[:2] == ["u1", "i4"] and float(lines[0].split()[2]) == pytest.approx(
        (2 * 5 + (1 + S13) * 2) / (2 + 1 + S13)
    )
    # u9 is unknown: the fallback, 1 below the lowest model score (1.0), counted
    assert lines[1:] == ["u1 i5 1.0", "u9 i1 0.0"]
    assert (
        "scored 3 of 3 distinct candidate pairs; 1 could not be scored by the model (fallback score)" in err
    )
    assert "warning: userknn: 1 of 3 distinct pairs (33.3%) could not be scored by the model" in err
    manifest = json.loads((tmp_path / "s.txt.manifest.json").read_text())
    assert manifest["parameters"]["parameters"]["k"] == 2 and manifest["counts"]["unscored"] == 1
    assert manifest["parameters"]["fallbacks"] == 1
    assert pred.read_text().startswith("u1 i4 ")
    code, _, err = cli("recommend", "-a", "nope", "--train", train, "--candidates", cands, "-o", out)
    assert code == 2 and "unknown algorithm" in err
    code, _, err = cli("recommend", "-a", "UB50", "--train", train, "-o", tmp_path / "x.txt")
    assert code == 2 and "--candidates" in err and not (tmp_path / "x.txt").exists()


# ---- the authors' released runs (Bellogín et al. 2011, ML-100K fold u1)


def _theirs(name: str) -> pl.DataFrame:
    from trecrs.files.trec import read_run

    run = read_run(need(GOLDEN / "runs_test_ratings" / f"{name}.txt"))
    return run.select(
        pl.col("query").alias("user"), pl.col("doc").alias("item"), pl.col("score").alias("theirs")
    )


@pytest.fixture(scope="module")
def u1():
    from trecrs.files.ratings import read_ratings

    need(ML100K / "u1.base")
    return read_ratings(ML100K / "u1.base"), read_ratings(ML100K / "u1.test")


@pytest.mark.parametrize(
    "run,algorithm,params", [("IB", "itemknn", {"similarity": "pearson"}), ("IB_AdjCos", "IB", {})]
)
def test_itembased_reproduces_released_runs_exactly(u1, run, algorithm, params):
    train, test = u1
    theirs = _theirs(run)
    ours = make_recommender(algorithm, **params).fit(train).score(test).frame
    joined = theirs.join(ours, on=["user", "item"], how="full", coalesce=True)
    assert joined.height == theirs.height == ours.height  # the same pairs scored
    same = joined.select((pl.col("score").cast(pl.Float32) == pl.col("theirs").cast(pl.Float32)).all()).item()
    assert same  # every score equal as the float Mahout printed


def test_userbased_reproduces_released_run(u1):
    train, test = u1
    theirs = _theirs("UB50")
    ours = make_recommender("UB50").fit(train).score(test).frame
    both = theirs.join(ours, on=["user", "item"], how="inner")
    assert both.height >= 0.999 * theirs.height and abs(ours.height - theirs.height) <= 5
    same = both.select((pl.col("score").cast(pl.Float32) == pl.col("theirs").cast(pl.Float32)).sum()).item()
    # the rest differ only in which of several equally similar users fill the 50th place
    assert same / theirs.height > 0.985


# ---- candidate pairs the model cannot score: the fallback (trecrs recommend --unscored)
# Training popularity in A: i1 4 ratings, i2 3, i3 3, i4 3, i5 2.


def test_fallback_ranks_below_the_model_most_popular_first():
    """MovieAvg cannot score 'new' (nobody rated it); mf cannot score the unknown user 'ghost'."""
    import warnings

    from trecrs.errors import TrecrsWarning

    avg = make_recommender("MovieAvg").fit(frame(A))
    ask = pairs(("u1", "i1"), ("u9", "i3"), ("u1", "new"), ("u2", "new2"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = avg.score(ask, unscored="fallback")
    got = {(u, i): s for u, i, s in res.frame.iter_rows()}
    # model scores 3.25 and 11/3; lowest 3.25; both unrated items count 0 ratings: one rank, 3.25 - 1
    assert got == {
        ("u1", "i1"): 3.25,
        ("u9", "i3"): pytest.approx(11 / 3),
        ("u1", "new"): 2.25,
        ("u2", "new2"): 2.25,
    }
    assert (res.n_pairs, res.n_unscored, res.n_fallback) == (4, 2, 2)
    assert [str(w.message) for w in caught if w.category is TrecrsWarning] == [
        "itemavg: 2 of 4 distinct pairs (50.0%) could not be scored by the model and got the fallback score "
        "(below every model score, most popular item first; --unscored drop, unscored='drop' in Python, "
        "leaves them out)"
    ]
    dropped = avg.score(ask, unscored="drop")
    assert (dropped.frame.height, dropped.n_unscored, dropped.n_fallback) == (2, 2, 0)
    assert dropped.frame.equals(avg.score(ask).frame)  # drop is the model's own scores, the default here

    mf = BiasedMF(seed=1, factors=2, regularization=0.01, iterations=30).fit(frame(A))
    ask = pairs(("u1", "i4"), ("ghost", "i1"), ("ghost", "i5"), ("ghost", "i2"), ("ghost", "zzz"))
    with warned("mf: 4 of 5 distinct pairs .* could not be scored by the model and got the fallback score"):
        res = mf.score(ask, unscored="fallback")
    s = {(u, i): v for u, i, v in res.frame.iter_rows()}
    lo = s[("u1", "i4")]  # the only pair mf scores
    # popularity ranks among the fallback pairs: i1 (4) 0, i2 (3) 1, i5 (2) 2, zzz (0) 3
    assert [s[("ghost", i)] for i in ("i1", "i2", "i5", "zzz")] == [lo - 1, lo - 2, lo - 3, lo - 4]
    assert (res.n_unscored, res.n_fallback) == (4, 4)


def test_fallback_with_nothing_scored_starts_below_zero_and_random_needs_none():
    knn = make_recommender("UB50").fit(frame(A))
    with warned(
        "userknn: 2 of 2 distinct pairs .* could not be scored by the model and got the fallback score"
    ):
        res = knn.score(pairs(("ghost", "i1"), ("ghost", "i5")), unscored="fallback")
    assert dict(((u, i), v) for u, i, v in res.frame.iter_rows()) == {
        ("ghost", "i1"): -1.0,
        ("ghost", "i5"): -2.0,
    }
    rnd = make_recommender("random", seed=7).fit(frame(A))
    many = pairs(("u1", "x"), ("ghost", "i1"))
    assert rnd.score(many, unscored="fallback").frame.equals(rnd.score(many).frame)
    with pytest.raises(UsageError, match="random: unscored must be fallback or drop, not 'keep'"):
        rnd.score(many, unscored="keep")


def test_recommend_command_scores_every_candidate_and_counts_fallbacks(tmp_path):
    """The default --unscored fallback: every candidate in the file, the manifest counts the fallbacks,
    one warning with count and percentage; --unscored drop leaves them out as before."""
    from tests.conftest import run_command, run_in_process

    train = tmp_path / "train.tsv"
    train.write_text("".join(f"{u}\t{i}\t{r}\n" for u, items in A.items() for i, r in items.items()))
    cands = tmp_path / "c.pairs"
    cands.write_text(
        "".join(f"{u}\t{i}\n" for u in (*A, "ghost") for i in ("i1", "i2", "i3", "i4", "i5", "new"))
    )
    proc = run_command(
        "recommend", "-a", "UB50", "--train", train, "--candidates", cands, "-o", tmp_path / "s.txt"
    )
    assert proc.returncode == 0, proc.stderr
    lines = (tmp_path / "s.txt").read_text().splitlines()
    assert len(lines) == 30  # 5 users x 6 items, every one
    manifest = json.loads((tmp_path / "s.txt.manifest.json").read_text())
    n = manifest["counts"]["unscored"]
    assert manifest["parameters"]["unscored"] == "fallback" and manifest["parameters"]["fallbacks"] == n
    assert manifest["counts"]["scored"] == 30 and n >= 6 + 4  # ghost's 6, and 'new' for each user
    warning = [x for x in proc.stderr.splitlines() if ": warning: " in x]
    assert warning == [
        f"trecrs recommend: warning: userknn: {n} of 30 distinct pairs ({100 * n / 30:.1f}%) could "
        "not be scored by the model and got the fallback score (below every model score, most "
        "popular item first; --unscored drop, unscored='drop' in Python, leaves them out)"
    ]
    scores = {tuple(x.split()[:2]): float(x.split()[2]) for x in lines}
    model = make_recommender("UB50").fit(frame(A)).score(read_pairs(cands))
    own = {(u, i): v for u, i, v in model.frame.iter_rows()}
    assert all(scores[k] == v for k, v in own.items())  # the model's own scores unchanged
    assert max(v for k, v in scores.items() if k not in own) < min(own.values())
    proc = run_in_process(
        "recommend",
        "-a",
        "UB50",
        "--train",
        train,
        "--candidates",
        cands,
        "--unscored",
        "drop",
        "-o",
        tmp_path / "d.txt",
    )
    assert proc.returncode == 0 and ": warning: " not in proc.stderr
    assert len((tmp_path / "d.txt").read_text().splitlines()) == 30 - n
    manifest = json.loads((tmp_path / "d.txt.manifest.json").read_text())
    assert (manifest["parameters"]["unscored"], manifest["parameters"]["fallbacks"]) == ("drop", 0)
    # recommend | run: the default `run --missing fail` takes the complete scores, not the dropped ones
    test = tmp_path / "test.tsv"
    test.write_text("u1\ti4\t4\nu3\ti5\t5\nghost\ti1\t3\n")
    split = ["run", "--methodology", "all-items", "--train", train, "--test", test]
    proc = run_in_process(*split, "--scores", tmp_path / "s.txt", "-o", tmp_path / "s.run")
    assert proc.returncode == 0, proc.stderr
    proc = run_in_process(*split, "--scores", tmp_path / "d.txt", "-o", tmp_path / "d.run")
    assert proc.returncode != 0 and "--missing" in proc.stderr
