"""``trecrs definitions``: the names mapped to their concept, each definition's value equal to ``trecrs eval -m``
of its spelling, a hand-computed spread, the JSON document and one CLI round trip."""

from __future__ import annotations

import json

import pytest

import trecrs
from trecrs.errors import UsageError
from trecrs.report.definitions import concept_of, definitions, format_json, format_text

# one user: relevant a (grade 2), b (1), c (1), d (1); the list: a, x, b, y
QRELS = {"u": {"a": 2, "b": 1, "c": 1, "d": 1, "x": 0}}
RUN = {"u": {"a": 0.9, "x": 0.8, "b": 0.7, "y": 0.6}}


@pytest.mark.parametrize("name,want", [("NDCG@10", ("ndcg", 10)), ("ndcg_cut.10", ("ndcg", 10)), ("nDCG@5", ("ndcg", 5)),
                                       ("MAP@10", ("map", 10)), ("AP@3", ("map", 3)), ("HitRate@5", ("hit", 5)),
                                       ("recall@20", ("recall", 20)), ("MRR", ("mrr", None)), ("P@10", ("precision", 10))])  # fmt: skip
def test_a_name_is_read_as_its_concept(name, want):
    assert concept_of(name) == want


def test_an_unknown_name_is_refused():
    with pytest.raises(UsageError, match="no known definitions go by this name"):
        concept_of("foo@3")


def test_recall_at_2_by_hand():
    """|L_2 ∩ R| = 1 (a); trec_eval divides by |R| = 4, LensKit by min(|R|, 2) = 2."""
    d = {row.framework.split()[0]: row for row in definitions("Recall@2", QRELS, RUN).definitions}
    assert d["trec_eval"].value == pytest.approx(0.25) and d["ir_measures"].value == pytest.approx(0.25)
    assert d["LensKit"].value == pytest.approx(0.5) and d["LensKit"].trecrs == "recall_cap.2"
    assert definitions("Recall@2", QRELS, RUN).spread == pytest.approx(0.25)


def test_every_value_is_what_eval_gives_for_its_spelling():
    result = definitions("MAP@3", QRELS, RUN)
    assert {r.framework.split()[0] for r in result.definitions} >= {"trec_eval", "ir_measures", "LensKit", "RecBole",
                                                                    "Elliot"}  # fmt: skip
    for row in result.definitions:
        (value,) = trecrs.evaluate(QRELS, RUN, [row.name]).summary.values()
        assert row.value == pytest.approx(value, abs=1e-12)
    # trec_eval: (1/1 + 2/3) / 4; RecBole: the same sum over min(|R|, 3) = 3
    values = {r.name: r.value for r in result.definitions}
    assert values["map_cut.3"] == pytest.approx((1 + 2 / 3) / 4) and values["recbole:map@3"] == pytest.approx(
        (1 + 2 / 3) / 3
    )


def test_a_definition_that_needs_training_data_says_so():
    rows = {r.name: r for r in definitions("Gini@2", QRELS, RUN).definitions}
    assert all(r.value is None and "not computed" in r.definition for r in rows.values())


def test_json_and_text():
    result = definitions("NDCG@3", QRELS, RUN)
    doc = json.loads(format_json(result))
    assert set(doc) == {"measure", "definitions", "spread"} and doc["measure"] == "NDCG@3"
    assert all(set(d) == {"framework", "name", "trecrs", "value", "definition"} for d in doc["definitions"])
    assert doc["spread"] == pytest.approx(
        max(d["value"] for d in doc["definitions"]) - min(d["value"] for d in doc["definitions"])
    )
    assert format_text(result).startswith(f"NDCG@3: {len(doc['definitions'])} definitions go by this name\n")


def test_the_command(cli, tmp_path):
    (tmp_path / "q").write_text("u 0 a 2\nu 0 b 1\nu 0 c 1\nu 0 d 1\nu 0 x 0\n")
    (tmp_path / "r").write_text("u Q0 a 1 0.9 t\nu Q0 x 2 0.8 t\nu Q0 b 3 0.7 t\nu Q0 y 4 0.6 t\n")
    code, out, err = cli("definitions", "-m", "Recall@2", "--format", "json", tmp_path / "q", tmp_path / "r")
    assert code == 0 and err == ""
    assert json.loads(out)["spread"] == pytest.approx(0.25)
