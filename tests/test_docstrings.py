"""The runnable examples in the docstrings of the public API are right: ``doctest`` on every module
whose public functions carry one."""

from __future__ import annotations

import doctest
import importlib

import pytest

from tests.warned import warned

MODULES = [
    "trecrs.evaluate.api",
    "trecrs.files.frames",
    "trecrs.files.ratings",
    "trecrs.data.splits",
    "trecrs.protocol.candidates",
    "trecrs.protocol.runs",
    "trecrs.measures.direction",
    "trecrs.report.compare",
    "trecrs.report.sampled",
    "trecrs.report.sensitivity",
]


# the warnings an example's inputs give: a session prints them on stderr, which doctest does not compare
SAID = {
    "trecrs.evaluate.api": ["1 of 2 .* run queries have no qrels"],
    "trecrs.report.compare": ["2 of 2 runs have no manifest"],
}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    with warned(*SAID.get(name, ())):
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no example"
    assert result.failed == 0
