"""Fixtures of the differential tests: trec_eval 9.0.8 built once per session, one trecrs worker."""

from __future__ import annotations

import pytest

from .binaries import Unavailable, binary


@pytest.fixture(scope="session")
def trec_eval_9():
    """The trec_eval 9.0.8 binary, built from ../shared/tools on first use; skips, saying why, without it."""
    try:
        return binary("9")
    except Unavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def differ(trec_eval_9):
    """trec_eval 9.0.8 against every trecrs engine (:class:`.harness.Differ`)."""
    from .harness import Differ

    d = Differ("9")
    yield d
    d.close()
