"""Framework dialects (``lenskit:``, ``recbole:``, ``elliot:``, ``rectools:``, ``cornac:``, ``replay:``) against
each framework's values.

The golden files tests/data/dialects/<framework>.json hold a synthetic fixture (qrels = test ratings,
run = ranked lists with distinct scores), the framework's own per-user values on it and the framework's
version; tests/dialects/make_golden_<framework>.py made them with the framework installed. Here trecrs
computes the same names on the same fixture at ``-l`` = the framework's relevance threshold.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import polars as pl
import pytest

import trecrs
from trecrs.errors import UsageError
from trecrs.measures.dialects import FRAMEWORKS, parse_dialect
from trecrs.measures.dialects.base import CONCEPTS
from trecrs.measures.request import parse_measures

DATA = Path(__file__).resolve().parents[1] / "data" / "dialects"
GOLDEN = {p.stem: json.loads(p.read_text()) for p in sorted(DATA.glob("*.json"))}
TOL = 1e-9


def _evaluate(golden: dict, names: list[str]):
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for u, i, r in golden["qrels"]:
        qrels.setdefault(u, {})[i] = r
    for u, i, s in golden["run"]:
        run.setdefault(u, {})[i] = s
    train = pl.DataFrame(golden["train"], schema=["user", "item", "rating"], orient="row")
    features = golden.get("item_features")  # item categories, in the golden files of diversity names only
    more = (
        {}
        if features is None
        else {"item_features": pl.DataFrame(features, schema=["item", "category"], orient="row")}
    )
    if "predictions" in golden:  # the error measures: the qrels are the test ratings
        more["test"] = pl.DataFrame(golden["qrels"], schema=["user", "item", "rating"], orient="row")
        more["predictions"] = pl.DataFrame(
            golden["predictions"], schema=["user", "item", "score"], orient="row"
        )
    return trecrs.evaluate(qrels, run, names, relevance_level=golden["relevance_level"], train=train, **more)


@pytest.mark.parametrize("framework", sorted(GOLDEN))
@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_per_user_values_equal_the_frameworks(framework):
    golden = GOLDEN[framework]
    names = list(golden["values"]) + [n for n in golden["summaries"] if n not in golden["values"]]
    res = _evaluate(golden, names)
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    tol = golden.get("tolerance", TOL)  # a float32 framework's precision, stated in its golden file
    for name in names:
        if name in golden["summaries"]:  # a global measure or a weighted mean
            assert math.isclose(res.summary[name], golden["summaries"][name], abs_tol=tol), name
        for user, want in golden["values"].get(name, {}).items():
            got = rows[user].get(name)  # no column: undefined for every user
            if want is None:
                assert got is None, f"{name} {user}: {framework} gives no value, trecrs {got}"
            else:
                assert got is not None and abs(got - want) <= tol, (
                    f"{name} {user}: {framework} {want}, trecrs {got}"
                )
        defined = [v for v in golden["values"].get(name, {}).values() if v is not None]
        if name not in golden["summaries"] and not defined:  # ranx's bpref without judged non-relevant items
            assert name not in res.summary, name
        elif name not in golden["summaries"]:
            assert math.isclose(res.summary[name], sum(defined) / len(defined), abs_tol=tol), name


def test_golden_files_name_their_framework_version_and_command():
    assert set(GOLDEN) >= {"lenskit"}
    for golden in GOLDEN.values():
        assert golden["version"] and golden["command"].startswith("python tests/dialects/make_golden_")
        prefix = golden["framework"].lower()
        # every name of the prefix is checked against the framework's own values at some cutoff (a name with a
        # {param}, as F1Beta(beta={beta}), at some value of it; ranx's -lN and rbp.95 stripped)
        specs = [re.sub(r"-l[0-9]+$", "", n) for n in [*golden["values"], *golden["summaries"]]]
        spelled = {re.sub(r"\.[0-9]+$", "", n.split(":")[1].split("@")[0]) for n in specs}
        checked = {FRAMEWORKS[prefix].find(n).name.lower() for n in spelled}
        assert checked == {d.name.lower() for d in FRAMEWORKS[prefix].names}


def test_every_concept_is_a_known_one():
    for framework in FRAMEWORKS.values():
        for d in framework.names:
            assert d.concept in ("", *CONCEPTS), (framework.prefix, d.name)


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_dialects_equal_the_trecrs_measures_documented():
    """The documented equalities (docs/measures.md, "Framework dialects") on the fixture's binary qrels
    (rel 1 for ratings >= 3, else 0), on the users with a relevant item (the others have no dialect value)."""
    level = GOLDEN["lenskit"]["relevance_level"]
    golden = {
        "qrels": [[u, i, int(r >= level)] for u, i, r in GOLDEN["lenskit"]["qrels"]],
        "run": GOLDEN["lenskit"]["run"],
        "train": GOLDEN["lenskit"]["train"],
        "relevance_level": 1,
    }
    res = _evaluate(
        golden,
        [
            "recbole:precision@5",
            "P.5",
            "recbole:recall@5",
            "recall.5",
            "recbole:ndcg@5",
            "ndcg_cut.5",
            "elliot:HR@5",
            "success.5",
            "elliot:MRR@3",
            "recip_rank_cut.3",
        ],
    )
    rows = [r for r in res.per_query.to_dicts() if r["recbole:precision@5"] is not None]
    assert len(rows) == 17  # u06, u12, u18 rate nothing >= 3
    for dialect, trec in (
        ("recbole:precision@5", "P_5"),
        ("recbole:recall@5", "recall_5"),
        ("recbole:ndcg@5", "ndcg_cut_5"),
        ("elliot:HR@5", "success_5"),
        ("elliot:MRR@3", "recip_rank_cut_3"),
    ):
        for r in rows:
            assert abs(r[dialect] - r[trec]) <= 1e-12, (dialect, r["query"])


def test_recbole_names_match_in_any_case_and_print_as_typed():
    req = parse_measures(["recbole:NDCG@10", "recbole:ndcg@5", "lenskit:NDCG@10"])
    assert [(v.spec, v.target()) for v in req.variants] == [
        ("recbole:NDCG@10", "ndcg_exp.10"),
        ("recbole:ndcg@5", "ndcg_exp.5"),
        ("lenskit:NDCG@10", "ndcg_jk.10,2"),
    ]


@pytest.mark.parametrize(("spec", "message"), [
    ("lenskit:ndcg@10", "no LensKit 2025.8.1 measure 'ndcg' (known: lenskit:Precision@k, "),
    ("nosuch:NDCG@10", "unknown framework prefix 'nosuch' (known: lenskit, recbole, elliot, ranx"),
    ("ranx:NDCG@10", "no ranx 0.3.21 measure 'NDCG' (known: ranx:precision@k, "),
    ("ranx:bpref@10-l2", "ranx:bpref takes no cutoff"),
    ("ranx:rbp", "ranx:rbp needs its persistence as digits after the name (ranx:rbp.95)"),
    ("ranx:rbp.9x-l2", "ranx:rbp needs its persistence as digits after the name"),
    ("ranx:ndcg-l2", "ranx:ndcg needs a positive integer cutoff @k"),
    ("ranx:ndcg@10-l", "ranx:ndcg needs a positive integer cutoff @k"),
    ("elliot:MAP", "elliot:MAP needs a positive integer cutoff @k"),
    ("recbole:GAUC@10", "recbole:gauc takes no cutoff"),
    ("recbole:map@0", "recbole:map needs a positive integer cutoff @k"),
])  # fmt: skip
def test_unknown_names_are_one_line_usage_errors(spec, message):
    with pytest.raises(UsageError) as err:
        parse_measures([spec])
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_level_after_any_name_replaces_the_global_one():
    """a (grade 4), b (2), c (5) in the list a, b, x, c; ``-l4``: a and c relevant. Elliot's nDCG@3 at level 4:
    gains 2^(g - 4 + 1) - 1 = 1 (a), 3 (c); DCG@3 = 1/log2 2, ideal over min(|R|, 3) = 2 ranks 3 + 1/log2 3."""
    qrels, run = {"u": {"a": 4, "b": 2, "c": 5}}, {"u": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6}}
    want = 1 / (3 + 1 / math.log2(3))
    for level in (1, 2, 4):
        summary = trecrs.evaluate(
            qrels, run, ["elliot:nDCG@3-l4", "elliot:nDCG@3"], relevance_level=level
        ).summary
        assert summary["elliot:nDCG@3-l4"] == pytest.approx(want, rel=1e-15)
        assert (summary["elliot:nDCG@3"] == pytest.approx(want, rel=1e-15)) == (level == 4)
    assert [parse_dialect(s).level for s in ("recbole:ndcg@10", "recbole:ndcg@10-l4", "cornac:MRR-l0",
                                             "lenskit:NDCG@5-l-1", "ranx:ndcg@10")] == [None, 4, 0, -1, 1]  # fmt: skip


def test_cli_prints_the_names_as_typed_and_refuses_unknown_ones(cli, tmp_path):
    golden = GOLDEN["lenskit"]
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{u} 0 {i} {r}\n" for u, i, r in golden["qrels"]))
    run.write_text("".join(f"{u} Q0 {i} {n} {s} t\n" for n, (u, i, s) in enumerate(golden["run"])))
    code, out, err = cli(
        "eval", "-l", "3", "-m", "lenskit:NDCG@5", "-m", "recbole:NDCG@5", str(qrels), str(run)
    )
    assert code == 0, err
    values = golden["values"]["lenskit:NDCG@5"]
    want = sum(v for v in values.values() if v is not None) / sum(v is not None for v in values.values())
    assert out.splitlines()[0] == f"lenskit:NDCG@5        \tall\t{want:.4f}"
    assert out.splitlines()[1].startswith("recbole:NDCG@5        \tall\t")
    code, out, err = cli("eval", "-m", "elliot:ndcg@5", str(qrels), str(run))
    assert (code, out) == (2, "")
    assert err == (
        "trecrs eval: error: argument -m/--measure: measure 'elliot:ndcg@5': no Elliot 0.3.1 measure 'ndcg' (known: "
        "elliot:nDCG@k, elliot:nDCGRendle2020@k, elliot:Precision@k, elliot:Recall@k, elliot:HR@k, "
        "elliot:MRR@k, elliot:MAP@k, elliot:MAR@k, elliot:F1@k, elliot:GAUC, elliot:AUC, elliot:LAUC@k)\n"
    )


def test_list_measures_shows_every_prefixed_name(cli):
    _, out, _ = cli("eval", "--list-measures")
    for framework in FRAMEWORKS.values():
        for d in framework.names:
            assert f"    {framework.prefix}:{d.spelling()} " in out


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_lenskit_rbp_is_trec_eval_10_rbp_on_the_run_cut_at_k():
    golden = GOLDEN["lenskit"]
    run = [(u, i, s) for u, i, s in golden["run"]]
    qrels = [(u, i, int(r >= golden["relevance_level"])) for u, i, r in golden["qrels"]]
    for k in (1, 5):
        cut = trecrs.evaluate(
            pl.DataFrame(qrels, schema=["query", "doc", "rel"], orient="row"),
            pl.DataFrame(run, schema=["query", "doc", "score"], orient="row"),
            ["rbp.p=0.85"],
            trec_eval_version=10,
            depth=k,
        )
        want = {
            r["query"]: r["rbp"] for r in cut.per_query.to_dicts()
        }  # the value column is the measure's name
        got = golden["values"][f"lenskit:RBP@{k}"]
        assert {u: v for u, v in got.items() if v is not None} == pytest.approx(
            {u: v for u, v in want.items() if got[u] is not None}, abs=1e-12
        )


def test_the_frameworks_denominators_on_the_documented_example():
    """docs/frameworks.md's example: 3 relevant documents, one at rank 2, a ranking of 3 documents."""
    qrels = {"u": {"a": 1, "b": 1, "c": 1, "x": 0}}
    run = {"u": {"x": 3.0, "a": 2.0, "y": 1.0}}
    res = trecrs.evaluate(
        qrels,
        run,
        [
            "recall.2",
            "recall_cap.2",
            "map_cut.2",
            "map_cap.2",
            "map_cap_ret.2",
            "mean_p_cut.2",
            "mean_p_cut.5",
            "mean_r_cut.5",
            "precision_cut.5",
            "dcg_jk.2",
            "rbp_cut.2,0.5",
        ],
    ).summary
    assert res["recall_2"] == pytest.approx(1 / 3) and res["recall_cap_2"] == 0.5
    assert res["map_cut_2"] == pytest.approx(1 / 6) and res["map_cap_2"] == res["map_cap_ret_2"] == 0.25
    assert res["mean_p_cut_2"] == 0.25  # (P@1 + P@2)/2 = (0 + 1/2)/2
    assert res["mean_p_cut_5"] == pytest.approx(
        (0 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 5
    )  # ranks 4, 5 keep 1 hit
    assert res["mean_r_cut_5"] == pytest.approx((0 + 1 + 1 + 1 + 1) / 3 / 5)
    assert res["precision_cut_5"] == 0.2 and res["dcg_jk_2"] == 1.0  # 1/max(1, log2 2)
    assert res["rbp_cut_2,0.5"] == 0.25  # (1 - 0.5) · 0.5^(2-1)


@pytest.mark.parametrize("spec", ["rbp_cut.5,1", "rbp_cut.5,0", "rbp_cut.2.5"])
def test_rbp_cut_refuses_bad_parameters(spec):
    with pytest.raises(UsageError, match="measure rbp_cut: the"):
        parse_measures([spec])


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
@pytest.mark.parametrize("version", [9, 10])
def test_users_without_a_ranking_have_no_value_even_under_c(version):
    """b has a relevant document and no ranking; c has a ranking and no relevant document."""
    qrels = {"a": {"x": 1, "y": 0}, "b": {"z": 1}, "c": {"w": 0}}
    run = {"a": {"x": 2.0, "q": 1.0}, "c": {"w": 1.0}}
    res = trecrs.evaluate(
        qrels,
        run,
        ["lenskit:Recall@2", "lenskit:Precision@2", "P.2"],
        average_all=True,
        trec_eval_version=version,
    )
    assert res.summary["P_2"] == pytest.approx(0.5 / 3)  # trec_eval's -c counts b
    assert res.summary["lenskit:Recall@2"] == 1.0  # a only
    assert res.summary["lenskit:Precision@2"] == 0.25  # a and c


# RecTools 0.19.0's calc_per_user on a small case the fixture lacks: items without training ratings (x, z),
# an item without features (x), a one-item list (u2), a list with no categorised pair (u3), and a relevant
# item the run does not retrieve (b). Values printed by RecTools itself (rectools/metrics/*.py).
RT_RUN = {"u1": {"a": 3.0, "x": 2.0, "y": 1.0}, "u2": {"a": 1.0}, "u3": {"x": 2.0, "z": 1.0}}
RT_QRELS = {"u1": {"x": 1, "b": 1}, "u2": {"a": 1}, "u3": {"z": 1}}
RT_TRAIN = pl.DataFrame({"user": ["u1", "u2", "u2", "u3"], "item": ["a", "a", "b", "y"], "rating": [1] * 4})
RT_FEATURES = {"a": ["c1", "c3"], "b": ["c2", "c3"], "y": ["c1", "c2"]}
RT_WANT = {
    "rectools:MeanInvUserFreq@3": (
        1.251629167387823,
        0.5849625007211563,
        1.5849625007211563,
    ),  # x, y, z: n_i = 1
    "rectools:Serendipity@3": (
        0.26666666666666666,
        0.0,
        0.4,
    ),  # x at rank 2: (5 + 1 - 2)/5 - 0 (untrained), / 3
    "rectools:AvgRecPopularity(normalize=True)@3": (0.25, 0.5, 0.0),
    "rectools:IntraListDiversity@3": (2.0, 0.0, None),  # RecTools: NaN for u3 (no pair with features)
    "rectools:PartialAUC@1": (0.0, 1.0, 0.0),
    "rectools:PartialAUC@2": (0.25, 1.0, 0.5),  # u1: x after 1 negative, (2 - 1)/(2·2); b not retrieved
    "rectools:PAP@2": (0.25, 1.0, 0.5),
    "rectools:F1Beta(beta=2)@2": (0.5, 0.8333333333333334, 0.8333333333333334),
    "rectools:NDCG@3": (0.2960819109658652, 0.46927872602275644, 0.2960819109658652),
    "rectools:MAP(divide_by_k=True)@3": (0.16666666666666666, 0.3333333333333333, 0.16666666666666666),
}


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_rectools_names_on_untrained_and_featureless_items_equal_rectools():
    res = trecrs.evaluate(RT_QRELS, RT_RUN, list(RT_WANT), train=RT_TRAIN, item_features=RT_FEATURES)
    rows = res.per_query.to_dicts()
    for name, want in RT_WANT.items():
        got = tuple(r[name] for r in rows)
        assert got == pytest.approx(want, abs=1e-12), name


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_rectools_docstring_examples():
    """The examples of RecTools' docstrings (IntraListDiversity, PartialAUC/PAP, MAP, NDCG), as RecTools prints them."""
    # its features (0, 0), (0, 1), (1, 1), (0, 0) as one category per (feature, value): a differing feature
    # is two differing indicators, so ild_hamming is twice RecTools' [1, 0] at k = 2 and [4/3, 0] at k = 3
    feats = {"1": ["f1=0", "f2=0"], "2": ["f1=0", "f2=1"], "3": ["f1=1", "f2=1"], "4": ["f1=0", "f2=0"]}
    run = {"1": {"1": 3.0, "2": 2.0, "3": 1.0}, "2": {"1": 2.0, "4": 1.0}}
    res = trecrs.evaluate({"1": {"1": 1}, "2": {"1": 1}}, run, ["ild_hamming.1,2,3"], item_features=feats)
    assert res.per_query.get_column("ild_hamming_1").to_list() == [0.0, 0.0]  # one item: 0
    assert res.per_query.get_column("ild_hamming_2").to_list() == pytest.approx([2 * 1.0, 0.0])
    assert res.per_query.get_column("ild_hamming_3").to_list() == pytest.approx([2 * 4 / 3, 0.0])
    reco = {"1": {"1": 2.0, "2": 1.0}, "2": {"3": 3.0, "1": 2.0, "2": 1.0}, "3": {"3": 2.0, "2": 1.0}}
    inter = {"1": {"1": 1, "2": 1}, "2": {"1": 1, "3": 1}, "3": {"1": 1, "2": 1}}
    res = trecrs.evaluate(inter, reco, ["rectools:PartialAUC@3", "rectools:PAP@3", "pauc.1"])
    assert res.per_query.get_column("rectools:PartialAUC@3").to_list() == pytest.approx([1, 1, 1 / 3])
    assert res.per_query.get_column("rectools:PAP@3").to_list() == pytest.approx([1, 1, 1 / 3])
    assert res.per_query.get_column("pauc_1").to_list() == [1.0, 1.0, 0.0]
    reco = {"1": {"7": 2, "8": 1}, "2": {"1": 2, "2": 1}, "3": {"1": 4, "2": 3, "3": 2, "4": 1},
            "4": {"1": 3, "2": 2, "3": 1}}  # fmt: skip
    inter = {
        "1": {"1": 1, "2": 1},
        "2": {"1": 1},
        "3": {"1": 1, "3": 1, "4": 1},
        "4": {"1": 1, "2": 1, "3": 1},
    }
    res = trecrs.evaluate(
        inter, reco, ["rectools:MAP@3", "rectools:MAP(divide_by_k=True)@3", "rectools:NDCG@3"]
    )
    assert res.per_query.get_column("rectools:MAP@3").to_list() == pytest.approx([0, 1, 5 / 9, 1])
    assert res.per_query.get_column("rectools:MAP(divide_by_k=True)@3").to_list() == pytest.approx(
        [0, 1 / 3, 5 / 9, 1]
    )
    assert res.per_query.get_column("rectools:NDCG@3").to_list() == pytest.approx(
        [0, 0.46927873, 0.70391809, 1]
    )


@pytest.mark.parametrize(("spec", "target"), [
    ("rectools:F1Beta(beta=0.5)@5", "f_beta_cut.5,0.5"), ("rectools:F1Beta(beta=2)@10", "f_beta_cut.10,2"),
    ("rectools:F1Beta@5", "f1_cut.5"), ("rectools:MAP(divide_by_k=True)@5", "map_over_k.5"),
    ("rectools:NDCG@5", "cwl_sdcg.5,0,1"), ("rectools:NDCG(divide_by_achievable=True)@5", "ndcg_exp.5"),
])  # fmt: skip
def test_rectools_arguments_are_spelled_as_its_constructors(spec, target):
    assert parse_measures([spec]).variants[0].target() == target


@pytest.mark.parametrize(("spec", "message"), [
    ("rectools:F1Beta(beta=x)@5", "no RecTools 0.19.0 measure 'F1Beta(beta=x)' (known: rectools:Precision@k, "),
    ("rectools:map@5", "no RecTools 0.19.0 measure 'map'"),  # class names: case counts
    ("rectools:MAP(divide_by_k=False)@5", "no RecTools 0.19.0 measure 'MAP(divide_by_k=False)'"),
    ("rectools:F1Beta(beta=0)@5", "measure f_beta_cut: beta must be positive, got 0"),
])  # fmt: skip
def test_rectools_bad_arguments_are_usage_errors(spec, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_measures([spec]) if "beta=0" not in spec else trecrs.evaluate(
            {"u": {"a": 1}}, {"u": {"a": 1.0}}, [spec]
        )


def test_f_beta_cut_and_the_ap_denominators_on_the_documented_example():
    """docs/measures.md: 3 relevant documents, one at rank 2 of 3 retrieved."""
    qrels = {"u": {"a": 1, "b": 1, "c": 1, "x": 0}}
    run = {"u": {"x": 3.0, "a": 2.0, "y": 1.0}}
    res = trecrs.evaluate(
        qrels,
        run,
        [
            "f_beta_cut.5,2",
            "f_beta_cut.5,1",
            "f1_cut.5",
            "map_over_k.2",
            "map_over_r.2",
            "map_cut.2",
            "pauc.2",
            "pap.2",
            "pauc",
        ],
    ).summary
    assert res["f_beta_cut_5,2"] == pytest.approx(5 / (4 * 3 + 5))  # (1 + 4)·1 / (4·3 + 5)
    assert res["f_beta_cut_5,1"] == res["f1_cut_5"] == 0.25
    assert res["map_over_k_2"] == 0.25 and res["map_over_r_2"] == pytest.approx(1 / 6) == res["map_cut_2"]
    assert res["pauc_2"] == pytest.approx(1 / 6)  # a after 1 negative: (2 - 1)/(2·3)
    assert res["pap_2"] == 0.25  # (2 - 1)/(2·min(3, 2))
    assert res["pauc"] == pytest.approx(1 / 6)  # k = the 2 negatives retrieved


def test_rectools_ndcg_assumes_k_relevant_documents_in_its_ideal_list():
    """docs/measures.md: 2 relevant documents at ranks 1 and 2 score 0.5531 at k = 5 (ideal: 5 relevant)."""
    res = trecrs.evaluate(
        {"u": {"a": 1, "b": 1}},
        {"u": {"a": 3.0, "b": 2.0, "c": 1.0}},
        ["rectools:NDCG@5", "rectools:NDCG(divide_by_achievable=True)@5"],
    ).summary
    assert res["rectools:NDCG@5"] == pytest.approx(
        (1 + 1 / math.log2(3)) / sum(1 / math.log2(j + 1) for j in range(1, 6))
    )
    assert (
        round(res["rectools:NDCG@5"], 4) == 0.5531
        and res["rectools:NDCG(divide_by_achievable=True)@5"] == 1.0
    )
