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

from ..warned import warned

DATA = Path(__file__).resolve().parents[1] / "data" / "dialects"
GOLDEN = {p.stem: json.loads(p.read_text()) for p in sorted(DATA.glob("*.json"))}
TOL = 1e-9
TOLERANCE = {"torchmetrics": 1e-6}  # torchmetrics computes in float32: its values agree to its precision


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
    # a float32 framework's precision: stated in the test, or in its golden file
    tol = TOLERANCE.get(framework, golden.get("tolerance", TOL))
    names = list(golden["values"]) + [n for n in golden["summaries"] if n not in golden["values"]]
    res = _evaluate(golden, names)
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
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


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")  # c has no qrels, e no ranking
def test_replay_names_average_over_the_users_replay_takes():
    """a, b in the qrels and the run; c ranked outside the qrels; d a training user without a list; e in the
    qrels without a list. Novelty takes the training users a, b, d (d: no list, 1), Surprisal and Coverage
    the run's a, b, c, Precision the ground-truth users a, b, e (e: no list, 0); P.2 a and b only. 3 training
    users; z rated by 2 of them: weight log2(3/2)/log2 3, every other item 1."""
    qrels = {"a": {"x": 1}, "b": {"y": 1}, "e": {"x": 1}}
    run = {"a": {"x": 2.0, "z": 1.0}, "b": {"y": 1.0, "w": 0.5}, "c": {"q": 1.0, "y": 0.5}}
    train = pl.DataFrame(
        {"user": ["a", "b", "d", "d", "d"], "item": ["z", "q", "x", "y", "z"], "rating": [1] * 5}
    )
    names = ["P.2", "replay:Precision@2", "replay:Novelty@2", "replay:Surprisal@2", "replay:Coverage@2"]
    res = trecrs.evaluate(qrels, run, names, train=train)
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    assert list(rows) == ["a", "b", "c", "d", "e"]
    z = math.log2(1.5) / math.log2(3)
    assert [rows[u]["replay:Novelty@2"] for u in "abcde"] == [0.5, 1.0, None, 1.0, None]  # a rated z before
    assert [rows[u]["replay:Surprisal@2"] for u in "abcde"] == pytest.approx([(1 + z) / 2, 1, 1, None, None])
    assert [rows[u]["replay:Precision@2"] for u in "abcde"] == [0.5, 0.5, None, None, 0.0]
    assert [rows[u]["P_2"] for u in "abcde"] == [0.5, 0.5, None, None, None]
    assert res.summary["replay:Novelty@2"] == pytest.approx(2.5 / 3)
    assert res.summary["replay:Surprisal@2"] == pytest.approx((2 + (1 + z) / 2) / 3)
    assert res.summary["replay:Coverage@2"] == 1.0  # c's q: every training item; a and b alone 3/4
    assert res.summary["replay:Precision@2"] == pytest.approx(1 / 3) and res.summary["P_2"] == 0.5


# torchmetrics 1.9.0's RetrievalNormalizedDCG on users whose scores tie (tests/dialects/make_golden_torchmetrics.py
# --tied prints them; the golden fixture has no ties, torch's topk ordering tied items in no fixed order): it
# averages DCG over the orders of each tie group, as scikit-learn's ndcg_score does (rating >= 3 relevant)
TM_TIED_RUN = {
    "t1": {"a": 5.0, "b": 5.0, "c": 4.0, "d": 4.0, "e": 4.0, "f": 1.0},
    "t2": {"a": 3.0, "b": 3.0, "c": 3.0},
    "t3": {"a": 2.0, "b": 0.0, "c": -1.0, "d": -1.0},
}
TM_TIED_QRELS = {"t1": {"b": 4, "d": 3, "e": 5, "g1": 4, "h": 1}, "t2": {"a": 3, "c": 5},
                 "t3": {"b": 5, "c": 4, "x1": 3}}  # fmt: skip
TM_TIED_NDCG = {
    1: (0.4000000059604645, 0.5333333611488342, 0.0),
    3: (0.4824998378753662, 0.8244092464447021, 0.46041426062583923),
    5: (0.6264265179634094, 0.8244092464447021, 0.6844805479049683),
    10: (0.749703586101532, 0.8244092464447021, 0.6844805479049683),
}


def test_torchmetrics_ndcg_averages_over_tied_scores_as_torchmetrics_and_sklearn_do():
    names = [
        f"{p}@{k}"
        for k in TM_TIED_NDCG
        for p in ("torchmetrics:RetrievalNormalizedDCG", "sklearn:ndcg_score")
    ]
    rows = trecrs.evaluate(TM_TIED_QRELS, TM_TIED_RUN, names, relevance_level=3).per_query.to_dicts()
    for k, want in TM_TIED_NDCG.items():
        for prefix in ("torchmetrics:RetrievalNormalizedDCG", "sklearn:ndcg_score"):
            assert tuple(r[f"{prefix}@{k}"] for r in rows) == pytest.approx(want, abs=1e-6), (prefix, k)
    # t2 at k = 1: a (gain 3), b (0), c (5) tie: the mean gain 8/3 over the ideal 5
    assert rows[1]["sklearn:ndcg_score@1"] == pytest.approx(8 / 15, abs=1e-15)


def test_torchmetrics_rules_on_a_short_list_with_signed_scores():
    """x relevant and missed; b (score 0) and c (−1) relevant: not retrieved for Precision, Recall, MAP and
    MRR (score <= 0), retrieved for HitRate and R-Precision; the missed x fills rank 5 of a 4-item list. AUROC
    of the top 4 (a, b, c, d) = (non, rel, rel, non), its scores through a sigmoid (not all in [0, 1]), order
    kept: (b, d) and (c, d) in order, (b, a) and (c, a) not: 1/2. FallOut@2: a of the non-relevant a, d."""
    qrels, run = {"u": {"b": 5, "c": 4, "x": 3}}, {"u": {"a": 2.0, "b": 0.0, "c": -1.0, "d": -2.0}}
    names = ["torchmetrics:RetrievalPrecision@5", "torchmetrics:RetrievalRecall@5", "torchmetrics:RetrievalMAP@5",
             "torchmetrics:RetrievalMRR@5", "torchmetrics:RetrievalHitRate@1", "torchmetrics:RetrievalHitRate@5",
             "torchmetrics:RetrievalRPrecision", "torchmetrics:RetrievalAUROC@4",
             "torchmetrics:RetrievalPrecision(adaptive_k=True)@10", "torchmetrics:RetrievalFallOut@2"]  # fmt: skip
    got = trecrs.evaluate(qrels, run, names, relevance_level=3).summary
    assert [got[n] for n in names] == pytest.approx([0, 0, 0, 0, 0, 1, 2 / 3, 0.5, 0, 0.5])


def test_torchmetrics_empty_target_action_and_sklearn_without_relevant_items():
    """v has no relevant item: neg 0, pos 1, skip no value; FallOut's empty target is no non-relevant item
    (w); scikit-learn: AP 0, ROC AUC none, label ranking AP 1, nDCG 0."""
    qrels = {"u": {"a": 1}, "v": {"b": 0}, "w": {"c": 1}}
    run = {"u": {"a": 2.0, "z": 1.0}, "v": {"b": 2.0, "y": 1.0}, "w": {"c": 1.0}}
    tm = "torchmetrics:RetrievalMRR"
    names = [f"{tm}@2", f"{tm}(empty_target_action=pos)@2", f"{tm}(empty_target_action=skip)@2",
             "torchmetrics:RetrievalFallOut(empty_target_action=pos)@1", "torchmetrics:retrieval_reciprocal_rank@2",
             "sklearn:average_precision_score", "sklearn:roc_auc_score",
             "sklearn:label_ranking_average_precision_score", "sklearn:ndcg_score@2"]  # fmt: skip
    with warned("evaluated queries have no relevant document"):
        res = trecrs.evaluate(qrels, run, names)
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    assert [rows[u][names[0]] for u in "uvw"] == [1.0, 0.0, 1.0]
    assert [rows[u][names[1]] for u in "uvw"] == [1.0, 1.0, 1.0]
    assert [rows[u][names[2]] for u in "uvw"] == [1.0, None, 1.0] and res.summary[names[2]] == 1.0
    assert [rows[u][names[3]] for u in "uvw"] == [0.0, 0.5, 1.0]  # w: only relevant items, pos gives 1
    assert [rows[u][names[4]] for u in "uvw"] == [1.0, 0.0, 1.0]
    assert [rows["v"][n] for n in names[5:]] == [0.0, None, 1.0, 0.0]
    assert rows["u"]["sklearn:roc_auc_score"] == 1.0 and rows["w"]["sklearn:roc_auc_score"] is None
