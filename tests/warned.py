"""``warned(*patterns)``: a test's expected trecrs warnings, each asserted by its text.

The suite runs with trecrs's warnings as errors (pyproject.toml): a call whose input is meant to warn says
which warnings it gives. Each pattern is a :func:`pytest.warns` (a regex of the warning's stable text); a
warning no pattern matches passes through the nested contexts and fails the test.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest

from trecrs.errors import TrecrsWarning


def warned(*patterns: str) -> ExitStack:
    """One ``pytest.warns(TrecrsWarning, match=p)`` per pattern, nested: each must match a warning, and a
    warning matching none of them is re-raised by the outermost (pytest re-emits unmatched warnings)."""
    stack = ExitStack()
    for pattern in patterns:
        stack.enter_context(pytest.warns(TrecrsWarning, match=pattern))
    return stack


@contextmanager
def recorded() -> Iterator[list[str]]:
    """The texts of the trecrs warnings raised inside, in order, none escaping: for a call whose generated
    input may or may not warn, so that a test compares them between two paths instead."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TrecrsWarning)
        texts: list[str] = []
        yield texts
    texts.extend(str(w.message) for w in caught if issubclass(w.category, TrecrsWarning))
    for other in (w for w in caught if not issubclass(w.category, TrecrsWarning)):
        warnings.warn_explicit(other.message, other.category, other.filename, other.lineno)
