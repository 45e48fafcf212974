"""``trecrs definitions``: the names mapped to their concept, each definition's value equal to ``trecrs eval -m``
of its name and of its trecrs spelling (at any ``-l``: every concept, every framework, graded qrels at levels 1
and 4), a hand-computed spread, the JSON document, text within 110 columns and CLI round trips."""

from __future__ import annotations

import json
import random
import shlex

import polars as pl
import pytest

import trecrs
from tests.conftest import run_command
from tests.warned import recorded
from trecrs.errors import TrecrsError, UsageError
from trecrs.measures.dialects.base import CONCEPTS
from trecrs.report.definitions import WIDTH, concept_of, definitions, format_json, format_text, spellings

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
    assert d["LensKit"].value == pytest.approx(0.5) and d["LensKit"].trecrs == "lenskit:Recall@2-l1"
    assert d["trec_eval"].trecrs == d["ir_measures"].trecrs == "R(rel=1)@2"
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
    assert set(doc) == {"measure", "relevance_level", "definitions", "spread"} and doc["measure"] == "NDCG@3"
    assert all(set(d) == {"framework", "name", "trecrs", "value", "definition"} for d in doc["definitions"])
    assert doc["spread"] == pytest.approx(
        max(d["value"] for d in doc["definitions"]) - min(d["value"] for d in doc["definitions"])
    )
    head = f"NDCG@3: {len(doc['definitions'])} definitions go by this name (relevant: rel >= 1)\n"
    assert format_text(result).startswith(head)


def test_the_command(cli, tmp_path):
    (tmp_path / "q").write_text("u 0 a 2\nu 0 b 1\nu 0 c 1\nu 0 d 1\nu 0 x 0\n")
    (tmp_path / "r").write_text("u Q0 a 1 0.9 t\nu Q0 x 2 0.8 t\nu Q0 b 3 0.7 t\nu Q0 y 4 0.6 t\n")
    code, out, err = cli("definitions", "-m", "Recall@2", "--format", "json", tmp_path / "q", tmp_path / "r")
    assert code == 0 and err == ""
    assert json.loads(out)["spread"] == pytest.approx(0.25)


# graded qrels (grades 1..5) of 8 users over 24 items, u5 without a grade above 3 (nothing relevant at -l 4);
# lists of 10 with tied pairs of scores; training ratings on items the user has no grade for
def _graded(seed: int = 7) -> tuple[dict, dict, pl.DataFrame]:
    rng = random.Random(seed)
    items = [f"i{n}" for n in range(24)]
    qrels, run, train = {}, {}, []
    for u in range(8):
        judged = rng.sample(items, 6)
        qrels[f"u{u}"] = {d: rng.randint(1, 3 if u == 5 else 5) for d in judged}
        run[f"u{u}"] = {d: float(10 - n // 2) for n, d in enumerate(rng.sample(items, 10))}
        unjudged = [i for i in items if i not in judged]
        train += [(f"u{u}", d, rng.randint(1, 5)) for d in rng.sample(unjudged, 5)]
    return qrels, run, pl.DataFrame(train, schema=["user", "item", "rating"], orient="row")


GRADED_QRELS, GRADED_RUN, TRAIN = _graded()
#: every name definitions takes: each concept at cutoff 3 and without one, where it has definitions
FORMS = [f"{c}@3" if k else c for c in CONCEPTS for k in (3, None) if spellings(c, k)]


def _eval(spelling: str, level: int) -> float | None:
    """What ``trecrs eval -m SPELLING -l LEVEL`` gives on the graded pair (its one summary value)."""
    with recorded():
        summary = trecrs.evaluate(
            GRADED_QRELS, GRADED_RUN, [spelling], relevance_level=level, train=TRAIN
        ).summary
    return next(iter(summary.values()), None)


@pytest.mark.parametrize("level", [1, 4])
@pytest.mark.parametrize("measure", FORMS)
def test_each_row_spelling_gives_the_row_value_at_any_level(measure, level):
    """The trecrs spelling of each row, evaluated with the row's -l and with another, gives the row's mean; a
    row that cannot be computed (item categories) names a spelling that fails the same way."""
    result = definitions(measure, GRADED_QRELS, GRADED_RUN, train=TRAIN, relevance_level=level)
    assert result.definitions and result.relevance_level == level
    for row in result.definitions:
        for at in (level, 2):
            if row.value is None:
                assert "not computed" in row.definition
                with pytest.raises(TrecrsError), recorded():
                    _eval(row.trecrs, at)
                continue
            assert _eval(row.trecrs, at) == pytest.approx(row.value, abs=1e-12, rel=0), (row, at)
        if row.value is not None:  # and the framework's own name at -l gives the same
            assert _eval(row.name, level) == pytest.approx(row.value, abs=1e-12, rel=0), row


def test_the_spelling_carries_the_level_and_the_gains_by_hand():
    """-l 2: only a (grade 2) is relevant in a, x, b, y. RecBole's binary nDCG@3 is 1/log2(2) over the same = 1
    (the grades as 2^g - 1 gains would give (3 + 1/log2 4)/(3 + 1/log2 3 + 1/log2 4) instead); P@3 = 1/3."""
    rows = {r.name: r for r in definitions("NDCG@3", QRELS, RUN, relevance_level=2).definitions}
    assert rows["recbole:ndcg@3"].trecrs == "recbole:ndcg@3-l2" and rows["recbole:ndcg@3"].value == 1.0
    assert trecrs.evaluate(QRELS, RUN, ["recbole:ndcg@3-l2"]).summary["recbole:ndcg@3-l2"] == 1.0
    assert rows["ranx:ndcg@3-l2"].trecrs == "ranx:ndcg@3-l2"  # ranx's own spelling names the level
    rows = {r.framework: r for r in definitions("P@3", QRELS, RUN, relevance_level=2).definitions}
    assert rows["trec_eval"].trecrs == rows["ir_measures"].name == "P(rel=2)@3"
    assert rows["trec_eval"].value == pytest.approx(1 / 3, abs=1e-15)


def test_a_concept_without_definitions_in_that_form_is_refused():
    with pytest.raises(
        UsageError, match=r"no definition of precision goes without a cutoff: give one \(NAME@k\)"
    ):
        definitions("P", QRELS, RUN)
    with pytest.raises(UsageError, match="no definition of rbp goes without a cutoff"):
        definitions("RBP", QRELS, RUN)  # ranx's rbp.PP is a family of persistences, not one definition


@pytest.mark.parametrize("level", [4, 2147483647])
def test_text_lines_fit_in_110_columns_and_keep_every_word(level):
    for measure in FORMS:
        result = definitions(measure, GRADED_QRELS, GRADED_RUN, train=TRAIN, relevance_level=level)
        text = format_text(result)
        assert max(len(line) for line in text.splitlines()) <= WIDTH == 110, measure
        words, lines = " ".join(text.split()), {line.strip() for line in text.splitlines()}
        for row in result.definitions:  # the definition wrapped, not cut; the spelling whole on its line
            assert " ".join(row.definition.split()) in words
            assert f"trecrs eval -m {shlex.quote(row.trecrs)}" in lines


def test_the_printed_spelling_prints_the_printed_value(cli, tmp_path):
    """definitions -l 4 prints RecBole's row and its spelling; 'python -m trecrs eval -m SPELLING' (a process,
    default -l 1) prints the same value."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in GRADED_QRELS.items() for d, g in docs.items()))
    run.write_text(
        "".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in GRADED_RUN.items() for d, s in docs.items())
    )
    code, out, err = cli("definitions", "-m", "NDCG@3", "-l", "4", qrels, run)
    assert code == 0 and err == ""
    lines = out.splitlines()
    row = next(n for n, line in enumerate(lines) if line.startswith("RecBole 1.2.1 "))
    value = lines[row].split()[-1]
    assert shlex.split(lines[row + 1]) == ["trecrs", "eval", "-m", "recbole:ndcg@3-l4"]
    done = run_command("eval", "-m", "recbole:ndcg@3-l4", qrels, run)
    assert done.returncode == 0 and done.stdout == f"recbole:ndcg@3-l4     \tall\t{value}\n"
