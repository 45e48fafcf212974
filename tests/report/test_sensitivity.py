"""trecrs.report.sensitivity: the random expectations against every permutation, tau-b against scipy,
the study against the runs and evaluations it stands for, and its outputs."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import polars as pl
import pytest
from scipy.stats import kendalltau

from trecrs import evaluate
from trecrs.report.random_expectation import EXPECTATIONS, expected_value, query_stats
from trecrs.report.sensitivity import FORMATS, kendall_tau, sensitivity, tau_table

# Each query: its candidates L_u and its qrels (doc -> rel); some relevant items lie outside L_u (they
# count in recall's denominator and the ideal DCG), q3 has no relevant candidate, q4 a single candidate.
TINY = {
    "q1": (["a", "b", "c", "d", "e"], {"a": 2, "c": 1, "x": 3}),
    "q2": (["f", "g", "h", "i"], {"g": 3}),
    "q3": (["j", "k", "l"], {"y": 1}),
    "q4": (["m"], {"m": 1}),
    "q5": (["n", "o", "p", "r", "s", "t"], {"n": 1, "p": 1, "s": 2, "t": 1}),
}
COLUMNS = ["P_1", "P_2", "P_10", "recall_3", "ndcg_cut_2", "ndcg_cut_10", "ndcg", "map", "recip_rank"]
MEASURES = ["P.1,2,10", "recall.3", "ndcg_cut.2,10", "ndcg", "map", "recip_rank"]


def _tiny_frames():
    cands = pl.DataFrame(
        [(q, d) for q, (docs, _) in TINY.items() for d in docs], schema=["query", "item"], orient="row"
    )
    qrels = pl.DataFrame(
        [(q, "0", d, r) for q, (_, rels) in TINY.items() for d, r in rels.items()],
        schema={"query": pl.Utf8, "iter": pl.Utf8, "doc": pl.Utf8, "rel": pl.Int64},
        orient="row",
    )
    return cands, qrels


def _every_permutation() -> dict[str, float]:
    """The mean over queries of each measure's mean over every ranking of L_u, as trec_eval scores them."""
    qrels, run = [], []
    for q, (docs, rels) in TINY.items():
        for p, perm in enumerate(itertools.permutations(docs)):
            qid = f"{q}#{p}"
            qrels += [(qid, "0", d, r) for d, r in rels.items()]
            run += [(qid, "Q0", d, i + 1, float(len(perm) - i), "t") for i, d in enumerate(perm)]
    q = pl.DataFrame(qrels, schema=["query", "iter", "doc", "rel"], orient="row")
    r = pl.DataFrame(run, schema=["query", "iter", "doc", "rank", "score", "tag"], orient="row")
    with pytest.warns(
        UserWarning, match="fewer than 10 documents"
    ):  # every list is shorter than P@10's cutoff
        result = evaluate(q, r, MEASURES)
    per_query = result.per_query.with_columns(pl.col("query").str.split("#").list.first())
    per_original = per_query.group_by("query").agg(pl.col(c).mean() for c in COLUMNS)
    return {c: float(per_original.get_column(c).mean()) for c in COLUMNS}


def test_expectations_equal_the_mean_over_every_permutation():
    cands, qrels = _tiny_frames()
    stats = query_stats(cands, qrels)
    brute = _every_permutation()
    for c in COLUMNS:
        assert expected_value(stats, c) == pytest.approx(brute[c], rel=1e-12, abs=1e-15), c


def test_expectations_of_one_query_by_hand():
    # q2 alone: n = 4, one relevant (gain 3) inside: P@2 = 1/4 * 2/2, AP = RR = H_4 / 4
    cands, qrels = _tiny_frames()
    stats = query_stats(cands.filter(pl.col("query") == "q2"), qrels.filter(pl.col("query") == "q2"))
    h4 = 1 + 1 / 2 + 1 / 3 + 1 / 4
    assert expected_value(stats, "P_2") == pytest.approx(0.25)
    assert expected_value(stats, "map") == pytest.approx(h4 / 4)
    assert expected_value(stats, "recip_rank") == pytest.approx(h4 / 4)
    assert expected_value(stats, "ndcg_cut_1") == pytest.approx(0.25)


def test_no_formula_no_expectation():
    cands, qrels = _tiny_frames()
    stats = query_stats(cands, qrels)
    assert "bpref" not in EXPECTATIONS
    assert expected_value(stats, "bpref") is None


@pytest.mark.parametrize("seed", range(6))
def test_kendall_tau_b_and_discordant_pairs(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, size=7).astype(float)  # ties on both sides
    y = rng.integers(0, 4, size=7).astype(float)
    tau, disc = kendall_tau(x, y)
    expected = kendalltau(x, y).statistic
    assert (math.isnan(tau) and math.isnan(expected)) or tau == pytest.approx(expected, abs=1e-12)
    assert disc == sum((x[i] - x[j]) * (y[i] - y[j]) < 0 for i, j in itertools.combinations(range(7), 2))


def test_kendall_tau_of_reversed_orders():
    assert kendall_tau(np.array([3.0, 2.0, 1.0]), np.array([1.0, 2.0, 3.0])) == (-1.0, 3)
    tau, disc = kendall_tau(np.array([1.0, 1.0]), np.array([1.0, 2.0]))
    assert math.isnan(tau) and disc == 0


# --------------------------------------------------------------------------------------------- the study


def write_split(folder, users: int = 14, items: int = 22, seed: int = 3) -> dict:
    """A small split (tab-separated user item rating time) and three systems' scores and predictions;
    system c leaves every 7th item unscored."""
    rng = np.random.default_rng(seed)
    train, test = [], []
    for u in range(1, users + 1):
        for j, i in enumerate(rng.choice(items, size=11, replace=False) + 1):
            (test if j < 4 else train).append((u, i, int(rng.integers(1, 6))))
    (folder / "train.txt").write_text("".join(f"{u}\t{i}\t{r}\t0\n" for u, i, r in train))
    (folder / "test.txt").write_text("".join(f"{u}\t{i}\t{r}\t0\n" for u, i, r in test))
    files = {}
    for k, name in enumerate("abc"):
        g = np.random.default_rng(10 + k)
        lines = [
            f"{u}\t{i}\t{g.random():.6f}\n"
            for u in range(1, users + 1)
            for i in range(1, items + 1)
            if not (name == "c" and i % 7 == 0)
        ]
        (folder / f"{name}.scores").write_text("".join(lines))
        (folder / f"{name}.pred").write_text(
            "".join(f"{u}\t{i}\t{g.uniform(1, 5):.3f}\n" for u, i, _ in test)
        )
        files[name] = (str(folder / f"{name}.scores"), str(folder / f"{name}.pred"))
    return files


@pytest.fixture
def study(tmp_path):
    files = write_split(tmp_path)
    with pytest.warns(UserWarning):
        result = sensitivity(
            tmp_path / "train.txt",
            tmp_path / "test.txt",
            {s: f[0] for s, f in files.items()},
            ["P@5", "AP", "ndcg_cut.10"],
            predictions={s: f[1] for s, f in files.items()},
            n=8,
            seed=2,
        )
    return result


def _order(study, methodology: str, measure: str) -> list[float]:
    if methodology == "RMSE":  # ascending RMSE: the smallest error first
        return [-study.rmse[s] for s in study.systems]
    return [study.value(s, methodology, measure) for s in study.systems]


def test_agreement_is_tau_of_the_table(study):
    for m in study.measures:
        for a, b in itertools.combinations([*study.methodologies, "RMSE"], 2):
            row = study.agreement.filter((pl.col("measure") == m) & (pl.col("a") == a) & (pl.col("b") == b))
            expected = kendalltau(_order(study, a, m), _order(study, b, m)).statistic
            assert row.get_column("tau")[0] == pytest.approx(expected, abs=1e-12) or math.isnan(expected)


def test_rmse_is_the_pooled_error(study, tmp_path):
    test = pl.read_csv(
        tmp_path / "test.txt", separator="\t", has_header=False, new_columns=["u", "i", "r", "t"]
    )
    pred = pl.read_csv(tmp_path / "a.pred", separator="\t", has_header=False, new_columns=["u", "i", "p"])
    joined = test.join(pred, on=["u", "i"])
    assert study.rmse["a"] == pytest.approx(math.sqrt(((joined["p"] - joined["r"]) ** 2).mean()), rel=1e-12)


def test_every_format_renders_and_json_keeps_every_value(study):
    for fmt in FORMATS:
        assert FORMATS[fmt](study)
    doc = json.loads(FORMATS["json"](study))
    assert doc["values"]["AP"]["all-items"]["b"] == study.value("b", "all-items", "AP")
    assert doc["methodologies"] == [
        "test-ratings",
        "test-items",
        "training-items",
        "all-items",
        "one-plus-random",
    ]
    lines = FORMATS["csv"](study).splitlines()
    assert lines[0] == "section,measure,row,column,value"
    value = study.value("c", "one-plus-random", "P@5")
    assert f"value,P@5,c,one-plus-random,{value!r}" in lines


def test_ndcg_with_its_own_gains_has_no_expectation(tmp_path):
    files = write_split(tmp_path)
    with pytest.warns(UserWarning):
        result = sensitivity(
            tmp_path / "train.txt",
            tmp_path / "test.txt",
            {s: f[0] for s, f in files.items()},
            ["ndcg.4=1,5=3", "ndcg_cut.5"],
            methodologies=["TR"],
        )
    expected = dict(zip(result.expected["measure"], result.expected["value"], strict=True))
    assert set(expected) == set(result.measures) == {"ndcg", "ndcg_cut_5"}  # named as the values are
    assert expected["ndcg"] is None and expected["ndcg_cut_5"] is not None


def test_lower_is_better_measures_are_ordered_ascending(tmp_path):
    """fpr (fallout): lower is better, so its order is ascending like RMSE's; tau against RMSE is then
    the tau of the two ascending orders (the same systems lead when both are low)."""
    files = write_split(tmp_path)
    with pytest.warns(UserWarning):
        result = sensitivity(tmp_path / "train.txt", tmp_path / "test.txt", {s: f[0] for s, f in files.items()},
                             ["fpr.5"], predictions={s: f[1] for s, f in files.items()},
                             methodologies=["test-ratings", "all-items"])  # fmt: skip
    fpr = {m: [result.value(s, m, "fpr_5") for s in result.systems] for m in result.methodologies}
    errors = [result.rmse[s] for s in result.systems]
    for m in result.methodologies:
        row = result.agreement.filter((pl.col("a") == m) & (pl.col("b") == "RMSE"))
        expected = kendalltau([-v for v in fpr[m]], [-e for e in errors]).statistic
        assert row.get_column("tau")[0] == pytest.approx(expected, abs=1e-12) and expected != 0


def test_every_run_is_scored_with_the_evaluation_settings(tmp_path):
    """``evaluation=EvalSettings(depth=1)`` (-M 1): every ranking keeps one document, so num_ret is num_q and
    P@1 is as without it; the random expectations assume the defaults and are left empty."""
    from trecrs.evaluate import EvalSettings

    files = write_split(tmp_path)
    args = (tmp_path / "train.txt", tmp_path / "test.txt", {s: f[0] for s, f in files.items()},
            ["P@1", "num_ret", "num_q"])  # fmt: skip
    with pytest.warns(UserWarning):
        plain = sensitivity(*args, methodologies=["TR", "AI"])
        cut = sensitivity(*args, methodologies=["TR", "AI"], evaluation=EvalSettings(depth=1))
    for s in cut.systems:
        for m in cut.methodologies:
            assert cut.value(s, m, "num_ret") == cut.value(s, m, "num_q") < plain.value(s, m, "num_ret")
            assert cut.value(s, m, "P@1") == plain.value(s, m, "P@1")
    assert cut.expected.filter(pl.col("measure") == "P@1")["value"].null_count() == 2
    assert plain.expected.filter(pl.col("measure") == "P@1")["value"].null_count() == 0


def test_a_measure_undefined_under_a_methodology_has_no_value_and_no_agreement(tmp_path):
    """opr_recall is defined under One-Plus-Random only: under the other methodologies it has no value, and
    no system order to agree with ("–" in the tables, null in JSON, empty in CSV), instead of an internal
    error."""
    files = write_split(tmp_path)
    with pytest.warns(UserWarning):
        result = sensitivity(
            tmp_path / "train.txt",
            tmp_path / "test.txt",
            {s: f[0] for s, f in files.items()},
            ["opr_recall.5", "P.5"],
            methodologies=["test-items", "one-plus-random"],
            n=8,
            seed=2,
        )
    assert math.isnan(result.value("a", "test-items", "opr_recall_5"))
    assert 0 <= result.value("a", "one-plus-random", "opr_recall_5") <= 1
    rows = result.agreement.filter(pl.col("measure") == "opr_recall_5")
    assert rows.height == 1 and rows["tau"].is_nan().all() and rows["discordant"].is_null().all()
    p5 = result.agreement.filter(pl.col("measure") == "P_5")
    assert p5["discordant"].is_not_null().all()
    doc = json.loads(FORMATS["json"](result))
    assert doc["values"]["opr_recall_5"]["test-items"] == {"a": None, "b": None, "c": None}
    (opr,) = [a for a in doc["agreement"] if a["measure"] == "opr_recall_5"]
    assert opr["tau"] is None and opr["discordant"] is None
    assert "discordant,opr_recall_5,test-items,one-plus-random," in FORMATS["csv"](result).splitlines()
    header, rows = tau_table(result, "opr_recall_5")
    assert rows == [["test-items", "–", "–"], ["one-plus-random", "–", "–"]]
