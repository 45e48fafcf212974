"""The one settings record (``trecrs.evaluate.EvalSettings``): taken as ``settings=`` or as keyword
arguments by every entry point, the same numbers either way; fields an entry point does not read refused."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import trecrs
from trecrs.errors import TrecrsWarning, UsageError
from trecrs.evaluate import EvalSettings, evaluate_full, evaluate_matrix

QRELS = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"c": 3, "d": 1}}
RUN = {"q1": {"b": 0.9, "a": 0.8, "x": 0.7}, "q2": {"d": 0.9, "x": 0.5, "c": 0.1}}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        yield


def test_keywords_and_settings_give_the_same_values():
    """-l 2: q1 has one relevant doc (a, rank 2): RR 1/2, P@2 1/2; q2 one (c, rank 3): RR 1/3, P@2 0."""
    by_keyword = trecrs.evaluate(QRELS, RUN, ["recip_rank", "P@2"], relevance_level=2).summary
    by_record = trecrs.evaluate(
        QRELS, RUN, ["recip_rank", "P@2"], settings=EvalSettings(relevance_level=2)
    ).summary
    assert (
        by_keyword == by_record == pytest.approx({"recip_rank": (1 / 2 + 1 / 3) / 2, "P@2": 0.25}, abs=1e-15)
    )


def test_keywords_override_the_record():
    """``settings=`` with ``depth=1`` and the keyword ``relevance_level=2``: both apply (q1: b at rank 1 is
    not relevant at level 2; q2: d is not either): RR 0."""
    s = EvalSettings(depth=1)
    res = evaluate_full(QRELS, RUN, ["recip_rank"], settings=s, relevance_level=2)
    assert res.summary["recip_rank"] == 0.0
    assert (
        evaluate_full(QRELS, RUN, ["recip_rank"], settings=s).summary["recip_rank"] == 1.0
    )  # b, d at level 1


def test_signatures_list_the_fields_each_entry_point_reads():
    fields = [f for f in inspect.signature(EvalSettings).parameters]
    assert [p for p in inspect.signature(trecrs.evaluate).parameters][-len(fields) :] == fields
    matrix = inspect.signature(evaluate_matrix).parameters
    assert "relevance_level" in matrix and "trec_eval_version" in matrix and "engine" not in matrix
    assert "trec_eval_version" not in inspect.signature(trecrs.evaluate_factors).parameters


def test_a_field_an_entry_point_does_not_read_is_refused():
    scores = np.array([[0.9, 0.1]])
    with pytest.raises(UsageError, match="evaluate_matrix does not take engine"):
        evaluate_matrix(
            {"u": {"i": 1}}, scores, ["u"], ["i", "j"], settings=EvalSettings(engine="pytrec_eval")
        )
    with pytest.raises(TypeError, match="engine"):
        evaluate_matrix({"u": {"i": 1}}, scores, ["u"], ["i", "j"], engine="pytrec_eval")
    with pytest.raises(UsageError, match="settings must be an EvalSettings"):
        trecrs.evaluate(QRELS, RUN, ["map"], settings={"relevance_level": 2})
    got = evaluate_matrix({"u": {"i": 1}}, scores, ["u"], ["i", "j"], measures=["recip_rank"],
                          settings=EvalSettings(relevance_level=1, depth=1))  # fmt: skip
    assert got.summary == {"recip_rank": 1.0}


def test_the_record_is_frozen():
    s = EvalSettings()
    with pytest.raises(AttributeError):
        s.depth = 3  # type: ignore[misc]
    assert s.replace(depth=3).depth == 3 and s.depth is None
