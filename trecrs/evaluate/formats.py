"""How an evaluation becomes text, by format name: the registry :meth:`EvaluationResult.to_trec` prints through.

``"trec"`` is :func:`trecrs.report.trec.format_trec`, registered by ``trecrs/__init__.py``: the report
layer sits above this one, which cannot import it. A module of its own, with no imports, so that the
registration does not load the evaluation code.
"""

from __future__ import annotations

from collections.abc import Callable

TEXT_FORMATS: dict[str, Callable[..., str]] = {}

__all__ = ["TEXT_FORMATS"]
