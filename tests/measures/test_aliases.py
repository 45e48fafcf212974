"""Measure aliases (trecrs.measures.aliases): each equals its target, prints under the name as typed,
is matched in any case; unknown names get the closest valid ones; docs/measures.md lists the registry."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import trecrs
from trecrs.errors import UsageError
from trecrs.evaluate import evaluate_full
from trecrs.measures.aliases import ALIASES, RECSYS, REQUIRED, TREC_EVAL, markdown_table
from trecrs.measures.recsys.registry import REGISTRY, ExtraMeasure, register
from trecrs.measures.request import parse_measures
from trecrs.measures.trec_eval import BY_NAME

from ..conftest import write
from ..warned import recorded, warned

# q1: relevant a (2), b, d (d not retrieved); ranks a c e b f. q2: x relevant at rank 2 of 2 (fewer than 3
# retrieved). q3: nothing relevant retrieved.
QRELS = "q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq1 0 d 1\nq2 0 x 1\nq2 0 y 0\nq3 0 m 1\n"
RUN = (
    "q1 Q0 a 1 5 t\nq1 Q0 c 2 4 t\nq1 Q0 e 3 3 t\nq1 Q0 b 4 2 t\nq1 Q0 f 5 1 t\n"
    "q2 Q0 y 1 2 t\nq2 Q0 x 2 1 t\nq3 Q0 n 1 2 t\nq3 Q0 o 2 1 t\n"
)


# q2 and q3 retrieve 2 documents: a trec_eval measure cut at 3 says so, the only warning these files give
SHORT = "2 of 3 .* evaluated queries retrieve fewer than 3 documents"


def _evaluate(files, specs, **options):
    """``trecrs.evaluate`` of ``files``, and the warnings it gave, each :data:`SHORT`."""
    with recorded() as said:
        res = trecrs.evaluate(*files, specs, **options)
    assert all(re.search(SHORT, text) for text in said), said
    return res, said


@pytest.fixture
def files(tmp_path):
    return str(write(tmp_path / "qrels.txt", QRELS)), str(write(tmp_path / "run.txt", RUN))


def _k(alias) -> str:
    return "0.5" if alias.target == "iprec_at_recall" else "3"


def _cases():
    for alias in ALIASES:
        for spelling in alias.spellings:
            yield pytest.param(alias, spelling, id=alias.forms(_k(alias))[alias.spellings.index(spelling)])


@pytest.mark.parametrize("alias,spelling", list(_cases()))
def test_each_alias_gives_its_targets_values_under_its_own_name(files, alias, spelling):
    k = _k(alias) if alias.k == REQUIRED else None
    spec = spelling + (f"@{k}" if k else "")
    (got, says), (ref, said) = _evaluate(files, [spec]), _evaluate(files, [alias.resolves_to(k)])
    got, ref = got.tidy(), ref.tidy()
    assert says == said  # the alias warns as its target does
    assert set(got["measure"].to_list()) == {spec}
    assert got["query"].to_list() == ref["query"].to_list()
    assert got["value"].to_list() == ref["value"].to_list()
    assert got.height >= 1


def test_every_target_exists_in_its_family():
    for alias in ALIASES:
        assert alias.family in (TREC_EVAL, RECSYS)
        assert alias.target in (BY_NAME if alias.family == TREC_EVAL else REGISTRY), alias
        assert alias.definition and (alias.family == TREC_EVAL or alias.difference), alias


def _values(files, spec: str) -> dict[str, float]:
    res = _evaluate(files, [spec])[0].tidy()
    return dict(zip(res["query"].to_list(), res["value"].to_list(), strict=True))


def test_rr_at_k_hand_computed_and_unlike_recip_rank(files):
    # first relevant document: q1 rank 1, q2 rank 2, q3 none
    assert _values(files, "RR@3") == pytest.approx({"q1": 1.0, "q2": 0.5, "q3": 0.0, "all": 0.5})
    assert _values(files, "MRR@1") == pytest.approx({"q1": 1.0, "q2": 0.0, "q3": 0.0, "all": 1 / 3})
    assert _values(files, "recip_rank")["q2"] == 0.5  # recip_rank counts the first relevant at any rank


def test_f1_at_k_is_the_harmonic_mean_of_trec_eval_p_and_recall(files):
    # 2 TP/(k + num_rel): q1 TP=1 (a), num_rel=3 -> 2/6; q2 TP=1, num_rel=1 -> 2/4; q3 0
    assert _values(files, "F1@3") == pytest.approx({"q1": 1 / 3, "q2": 0.5, "q3": 0.0, "all": 5 / 18})
    p, r = _values(files, "P.3"), _values(files, "recall.3")
    for q in ("q1", "q2"):
        assert _values(files, "F1@3")[q] == pytest.approx(2 * p[q] * r[q] / (p[q] + r[q]))
    # the recommender f1.3 divides by min(k, retrieved) + num_rel: q2 retrieved 2 < 3 -> 2/3
    assert _values(files, "f1.3")["q2"] == pytest.approx(2 / 3)


def test_hit_rate_aliases_are_success(files):
    assert _values(files, "HR@1") == pytest.approx({"q1": 1.0, "q2": 0.0, "q3": 0.0, "all": 1 / 3})
    assert _values(files, "Hit@2") == _values(files, "success.2") == _values(files, "hit_rate.2")


def test_aliases_match_in_any_case(files):
    for spec in (
        "precision@3",
        "PRECISION@3",
        "ndcg@3",
        "Ndcg@3",
        "map",
        "ap",
        "mrr@3",
        "hitrate@3",
        "numret",
    ):
        got = _evaluate(files, [spec])[0].tidy()
        assert set(got["measure"].to_list()) == {spec}
    # trec_eval's own names stay exact: map is trec_eval's map, P alone its default cutoffs
    assert parse_measures(["map"]).labels == {}
    assert parse_measures(["P"]).params == {"P": None} and parse_measures(["P"]).labels == {}


def test_labels_of_a_request():
    assert parse_measures(["P@10"]).labels == {"P_10": ("P@10",)}
    assert parse_measures(["P.10", "P@10"]).labels == {"P_10": ("P_10", "P@10")}
    assert parse_measures(["P@10", "P_10"]).labels == {"P_10": ("P_10", "P@10")}
    assert parse_measures(["official", "P@10"]).labels == {"P_10": ("P_10", "P@10")}
    assert parse_measures(["P@5", "P@10"]).labels == {"P_5": ("P@5",), "P_10": ("P@10",)}
    assert parse_measures(["RR@10", "recip_rank_cut.10"]).labels == {
        "recip_rank_cut_10": ("recip_rank_cut_10", "RR@10")
    }
    assert parse_measures(["IPrec@0.5"]).labels == {"iprec_at_recall_0.50": ("IPrec@0.5",)}


def test_a_bare_alias_cannot_share_its_measure_with_other_parameters():
    with pytest.raises(UsageError, match="'SetF' is set_F with its default parameters"):
        parse_measures(["set_F.0.5", "SetF"])


@pytest.mark.parametrize(
    "typo,suggested",
    [
        ("ndgc@10", "nDCG@10, Judged@10, ndcg_cut.10"),
        ("Precison@10", "Precision@10, precision, IPrec@10"),
        ("hitrat@10", "HitRate@10, Hit@10, HR@10"),
        ("mapp", "map, gmap, hmap"),
        ("offical", "official"),
    ],
)
def test_unknown_names_get_the_closest_valid_ones(typo, suggested):
    with pytest.raises(UsageError) as exc:
        parse_measures([typo])
    assert str(exc.value) == f"unknown measure {typo!r}; did you mean: {suggested}?"


def test_nothing_close_keeps_the_plain_message():
    with pytest.raises(UsageError, match=r"^unknown measure 'xyzzy' \(see 'trecrs eval --list-measures'\)$"):
        parse_measures(["xyzzy"])


def test_a_recommender_measure_cannot_take_a_bare_alias_spelling():
    with pytest.raises(UsageError, match="would shadow"):
        register(ExtraMeasure("mrr", "ranking", "", "", None))
    assert "mrr" not in REGISTRY


def test_tidy_rows_carry_every_printed_name_in_place(files):
    with warned(SHORT):
        ev = evaluate_full(*files, ["num_ret", "P.3", "NumRet", "P@3", "P@2", "RR@1"])
    assert ev.printed_names("P_3") == ["P_3", "P@3"] and ev.printed_names("map") == ["map"]
    tidy = ev.tidy()
    q1 = tidy.filter(pl.col("query") == "q1")["measure"].to_list()
    assert q1 == ["num_ret", "NumRet", "P@2", "P_3", "P@3", "RR@1"]
    summary = tidy.filter(pl.col("query") == "all")
    assert summary["measure"].to_list() == q1
    assert summary["value"].to_list() == pytest.approx([9, 9, 1 / 3, 2 / 9, 2 / 9, 1 / 3])


def test_docs_list_the_registry_exactly():
    text = (Path(__file__).parents[2] / "docs" / "measures.md").read_text()
    section = text.split("## Aliases\n", 1)[1].split("\n## ", 1)[0]
    table = "\n".join(line for line in section.splitlines() if line.startswith("|")) + "\n"
    assert table == markdown_table()


def test_hit_rate_on_one_plus_random_cases_is_opr_recall(tmp_path):
    # One-Plus-Random: a query per test case user:item with one relevant item; HR@k per case = opr_recall.k
    qrels = write(tmp_path / "opr.qrels", "u1:a 0 a 1\nu1:b 0 b 1\nu2:c 0 c 1\n")
    run = write(
        tmp_path / "opr.run",
        "u1:a Q0 x 1 3 t\nu1:a Q0 a 2 2 t\nu1:a Q0 y 3 1 t\nu1:b Q0 b 1 3 t\nu1:b Q0 z 2 2 t\n"
        "u2:c Q0 w 1 3 t\nu2:c Q0 v 2 2 t\nu2:c Q0 c 3 1 t\n",
    )
    for average in ("case", "user"):
        res = trecrs.evaluate(str(qrels), str(run), ["HR@2", "opr_recall.2"], opr_average=average).tidy()
        hr = res.filter(pl.col("measure") == "HR@2")
        opr = res.filter(pl.col("measure") == "opr_recall_2")
        assert hr["query"].to_list() == opr["query"].to_list()
        assert hr["value"].to_list() == opr["value"].to_list()
    assert opr["value"].to_list() == [1.0, 1.0, 0.0, 0.5]  # per user: (1 + 1)/2 for u1, 0 for u2


def test_a_request_reparsed_for_another_version_keeps_its_names(files):
    request = parse_measures(["P@3", "RR@1"])
    with warned(SHORT):
        res = trecrs.evaluate(*files, request, trec_eval_version=10).tidy()
    assert res.filter(pl.col("query") == "all")["measure"].to_list() == ["P@3", "RR@1"]
