"""Every trecrs warning names the caller's line (``trecrs.errors.warn``): the first frame outside the trecrs
package, here this file, whichever entry point and however deep the warning was found."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import polars as pl

import trecrs
from trecrs.errors import TrecrsWarning, warn
from trecrs.files.ratings import read_ratings

ROOT = Path(__file__).resolve().parent.parent


def _origins(call) -> list[tuple[str, int, str]]:
    """(file, line, text) of each warning ``call`` gives; ``call`` is a lambda written on one line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert caught, "no warning"
    assert all(issubclass(w.category, TrecrsWarning) for w in caught)
    return [(w.filename, w.lineno, str(w.message)) for w in caught]


def _from_here(call, line: int | None = None) -> list[str]:
    """The texts of ``call``'s warnings, each checked to name this file at ``line`` (by default the
    lambda's own line)."""
    origins = _origins(call)
    assert {(f, n) for f, n, _ in origins} == {(__file__, line or call.__code__.co_firstlineno)}, origins
    return [text for _, _, text in origins]


QRELS = {"q1": {"a": 1}, "q2": {"b": 1}}


def test_a_warning_of_evaluate_names_the_callers_line():
    (text,) = _from_here(lambda: trecrs.evaluate(QRELS, {"q1": {"a": 1.0}}, ["map"]))
    assert text.startswith("1 of 2 (50.0%) qrels queries have no line in the run")
    # a cutoff C's atol reads as 1, and ties that straddle it (a and x tied at rank 1 of q1)
    texts = _from_here(
        lambda: trecrs.evaluate(QRELS, {"q1": {"a": 1.0, "x": 1.0}, "q2": {"b": 1.0}}, ["P.1.5"])
    )
    assert "cutoff '1.5' read as 1, as trec_eval reads it (C atol)" in texts
    assert any(
        t.startswith(
            "tied documents of different relevance straddle cutoff 1 in 1 of 2 evaluated queries (50.0%)"
        )
        for t in texts
    )


def _files(tmp_path: Path) -> tuple[str, str, str]:
    """qrels and two runs with the same tag and no manifest; the first run's ranks contradict its scores."""
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 a 2 2.0 t\nq1 Q0 x 1 1.0 t\nq2 Q0 b 1 1.0 t\n")
    (tmp_path / "b.run").write_text("q1 Q0 a 1 2.0 t\nq2 Q0 b 1 1.0 t\n")
    return str(tmp_path / "qrels"), str(tmp_path / "a.run"), str(tmp_path / "b.run")


def test_a_warning_of_a_file_read_names_the_callers_line(tmp_path):
    qrels, run, _ = _files(tmp_path)
    (text,) = _from_here(lambda: trecrs.evaluate(qrels, run, ["map"]))
    assert text == f"{run}: the rank column contradicts the scores on 1 of 3 lines (1 of 2 queries); " \
        "ranking by score as trec_eval does (are the rank and score columns swapped?)"  # fmt: skip
    (tmp_path / "r.tsv").write_text("u1\ti1\t3\nu1\ti1\t4\nu2\ti2\t5\n")
    (text,) = _from_here(lambda: read_ratings(tmp_path / "r.tsv", dedupe="mean"))
    assert (
        "1 duplicate rating row(s) merged into 1 (user, item) pair(s) (dedupe=mean); 2 ratings kept" in text
    )


def test_the_warnings_of_compare_name_the_callers_line(tmp_path):
    qrels, a, b = _files(tmp_path)
    texts = _from_here(lambda: trecrs.compare(qrels, [a, b], ["map"]))
    assert len(texts) == 3  # a's contradicting ranks (passed on, prefixed), the shared tag, no manifests
    assert texts[0].startswith(f"{a}: ") and "the rank column contradicts the scores" in texts[0]
    assert texts[1] == "runs share the tag 't': systems are named by their file names"
    assert texts[2].startswith("2 of 2 runs have no manifest")


def test_the_warnings_of_sensitivity_name_the_callers_line():
    train = pl.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["a", "b", "a", "c"], "rating": 3.0})
    test = pl.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["c", "d", "b", "d"],
                         "rating": [5.0, 2.0, 5.0, 1.0]})  # fmt: skip
    # every item but e scored: e is a candidate of both users under all-items (2 of 6 candidates)
    scores = pl.DataFrame([(u, i, 4.0 - k) for u in ("u1", "u2") for k, i in enumerate("bcda")],
                          schema=["user", "item", "score"], orient="row")  # fmt: skip

    def study():
        return trecrs.sensitivity(train, test, {"s": scores, "t": scores}, ["P@1"], items=list("abcde"),
                                  methodologies=["all-items"])  # fmt: skip

    texts = _from_here(study, study.__code__.co_firstlineno + 1)
    assert texts == ["s, t under all-items: 2 of 6 candidates (33.3%) have no score: left out"]


def test_warn_names_the_first_frame_outside_the_package():
    """Called from outside trecrs, the caller is the line itself."""
    call = lambda: warn("a note")  # noqa: E731
    assert _origins(call) == [(__file__, call.__code__.co_firstlineno, "a note")]


def test_every_warning_of_the_package_goes_through_warn():
    """No ``warnings.warn`` call in trecrs but the one in errors.warn (``warn_explicit`` passes on a
    warning recorded with its origin already)."""
    calls = []
    for path in sorted((ROOT / "trecrs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            func = node.func if isinstance(node, ast.Call) else None
            if func is not None and ast.unparse(func) == "warnings.warn":
                calls.append(f"{path.relative_to(ROOT)}:{ast.unparse(func)}")
    assert calls == ["trecrs/errors.py:warnings.warn"]
