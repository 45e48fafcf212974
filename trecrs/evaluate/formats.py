"""How an evaluation becomes text or a figure, by name: the registries :class:`EvaluationResult` prints and
draws through.

``TEXT_FORMATS["trec"]`` is :func:`trecrs.report.trec.format_trec` (``to_trec()``), ``TEXT_FORMATS["html"]``
:func:`trecrs.report.notebook.evaluation_html` (``_repr_html_``, what a notebook shows) and
``FIGURES["distribution"]`` :func:`trecrs.report.notebook.plot_distribution` (``plot()``), all registered
by ``trecrs/__init__.py``: the report layer sits above this one, which cannot import it. The figures are
drawn there rather than here because the report layer owns every figure and how it is saved (atomically,
with the same bytes for the same figure: ``trecrs.report.figures``); drawing here would repeat that. A
module of its own, with no imports, so that the registration does not load the evaluation code.
"""

from __future__ import annotations

from collections.abc import Callable

TEXT_FORMATS: dict[str, Callable[..., str]] = {}
FIGURES: dict[str, Callable] = {}

__all__ = ["FIGURES", "TEXT_FORMATS"]
