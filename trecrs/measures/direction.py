"""Which way a measure improves: one function, :func:`better`, for every printed measure name.

The direction is declared with each measure, never guessed from its name: ``TrecMeasure.better``
(:mod:`trecrs.measures.trec_eval`) and ``ExtraMeasure.better`` (:mod:`trecrs.measures.recsys.registry`).
:data:`~trecrs.measures.trec_eval.HIGHER` (precision, AP, nDCG, coverage ...),
:data:`~trecrs.measures.trec_eval.LOWER` where the definition says lower is better (MAE, RMSE and their
variants, NDPM, fallout ``fpr``, miss rate ``fnr``, PopRSP, PopREO, miscalibration, ``item_mad``), :data:`~trecrs.measures.trec_eval.NEITHER` for counts
and descriptions that are not a quality (``num_ret``, ``num_rel``, ``ideal_dcg``, ``unj``, Gini, entropy, ARP).
``trecrs compare`` bolds the best mean and counts wins by it; ``trecrs sensitivity`` orders systems by it.
"""

from __future__ import annotations

import re

from ..errors import UsageError
from . import recsys
from .aliases import lookup as alias_lookup
from .dialects import parse_dialect
from .trec_eval import BY_NAME, HIGHER, LOWER, NEITHER, base_of

__all__ = ["HIGHER", "LOWER", "NEITHER", "better", "sign"]

_ALIAS = re.compile(r"^(?P<name>[^@]+)(?:@(?P<k>.+))?$")


def better(name: str) -> str:
    """``"higher"``, ``"lower"`` or ``"neither"`` for a measure's printed name (``P_10``, ``rmse``,
    ``nmae_1,5``, ``fpr_10``, ``P@10``, ``AP``), or an alias's bare target.

    Order of lookup: trec_eval's exact names, then recommender measures (their own name or ``name_params``,
    so ``recip_rank_cut_10`` is not read as trec_eval's ``recip_rank``), then trec_eval's ``base_params``
    names, then the aliases of :mod:`trecrs.measures.aliases` (printed under the name typed).

    >>> better("P_10"), better("rmse"), better("nmae_1,5"), better("gini_10"), better("nDCG@10")
    ('higher', 'lower', 'lower', 'neither', 'higher')
    """
    if name in BY_NAME:
        return BY_NAME[name].better
    extra = _extra(name)
    if extra is not None:
        return extra.better
    base = base_of(name)
    if base is not None:
        return BY_NAME[base].better
    m = _ALIAS.match(name)
    alias = m and alias_lookup(m.group("name"), m.group("k") is not None)
    if alias:
        return better(alias.target)
    if (
        ":" in name and (dialect := parse_dialect(name)) is not None
    ):  # lenskit:NDCG@10: its recommender measure
        return better(dialect.base)
    raise UsageError(f"unknown measure {name!r}: no declared direction")


def sign(name: str) -> int:
    """-1 when lower is better, else 1: ``sign * value`` orders systems best first, higher first
    (a measure with no direction keeps its values' order)."""
    return -1 if better(name) == LOWER else 1


def _extra(name: str):
    """The recommender measure an output name belongs to: itself, or the longest ``name_...`` prefix."""
    return recsys.registry.output_measure(name)
