"""The ``evidently:`` dialect: evidently's recsys metric class names, new API and legacy, each the recommender
measure that gives its value.

evidently 0.7.23 has two APIs over the same code: the classes of ``evidently.metrics`` (``NDCG``, ``MRR``,
``MAP``, ``HitRate``, ``PrecisionTopK``, ``RecallTopK``, ``FBetaTopK``; ``metrics/recsys.py``) wrap the legacy
classes of ``evidently.legacy.metrics`` (``NDCGKMetric``, ``MRRKMetric``, ``MAPKMetric``, ``MARKMetric``,
``HitRateKMetric``, ``PrecisionTopKMetric``, ``RecallTopKMetric``, ``FBetaTopKMetric``;
``legacy/metrics/recsys/``) and return a table of (rank, value). The new API labels NDCG's and MRR's rows one
rank late (the value at k − 1 under the label k, none under 1); the other tables agree. A legacy name is
spelled with its class name, so ``evidently:NDCG@5`` is the new API's row labelled 5 and
``evidently:NDCGKMetric@5`` the legacy value at 5. ``(no_feedback_users=True)`` keeps the users without a
relevant item (0 each; by default they are dropped). Each is computed on the list followed by the relevant
items it missed (:mod:`trecrs.measures.recsys.evidently`); ``FBetaTopK`` is one number per run, the F-beta
of the mean precision and the mean recall.
"""

from __future__ import annotations

from .base import Dialect as _D
from .base import Framework

_ROWS = " over the list, then its missed relevant items"
_NEW = "; the new API's row labelled k holds the value at k − 1 (none at k = 1)"
_NOFB = "(no_feedback_users=True)"


def _names(name: str, target: str, definition: str, concept: str) -> tuple[_D, _D]:
    """A new-API name and its ``no_feedback_users=True`` spelling (every user with a list, 0 without a relevant item)."""
    return (
        _D(name, target, definition, f"new: {target.split('.')[0]}", concept=concept),
        _D(
            name + _NOFB,
            target,
            definition + "; users without a relevant item count 0",
            f"new: {target.split('.')[0]}",
            needs_relevant=False,
            concept=concept,
        ),
    )


_PRECISION = "tp_k / min(k, |E|), E = the list and its missed relevant items (ranked after it)"
_RECALL = "tp_k / |R|" + _ROWS
_MAP = "Σ_{j<=k} P_j·rel_j / |R|, rel_j of the last row ranked <= j in row order (rows in rank order)" + _ROWS
_MAR = "Σ_{j<=k} R_j·rel_j / |R|, rel_j of the last row ranked <= j in row order (rows in rank order)" + _ROWS
_NDCG = "Σ_{j<=k, relevant} 1/log2(j+1) / Σ_{j<=min(k, |R|)} 1/log2(j+1) (binary gains)" + _ROWS
_MRR = "1 / rank of the first relevant item if <= k, else 0" + _ROWS
_HIT = "1 if a relevant item is ranked <= k" + _ROWS
_FBETA = "(1 + β²)·P̄·R̄ / (β²P̄ + R̄) of the mean PrecisionTopK and RecallTopK: one value, no per-user one"

FRAMEWORK = Framework("evidently", "evidently 0.7.23", "evidently/metrics/recsys.py, evidently/legacy/metrics/recsys/*.py", False, (
    *_names("PrecisionTopK", "ev_precision.{k}", _PRECISION, "precision"),
    *_names("RecallTopK", "ev_recall.{k}", _RECALL, "recall"),
    *_names("MAP", "ev_map.{k}", _MAP, "map"),
    *_names("NDCG", "ev_ndcg.{k},1", _NDCG + _NEW, "ndcg"),
    *_names("MRR", "ev_mrr.{k},1", _MRR + _NEW, "mrr"),
    *_names("HitRate", "ev_hit_rate.{k}", _HIT, "hit"),
    *_names("FBetaTopK", "ev_fbeta.{k},1", _FBETA + " (β = 1)", "f1"),
    _D("FBetaTopK(beta={beta})", "ev_fbeta.{k},{beta}", _FBETA, "new: ev_fbeta.k,β", concept="f1"),
    _D("PrecisionTopKMetric", "ev_precision.{k}", _PRECISION + " (legacy)", "new: ev_precision.k", concept="precision"),
    _D("RecallTopKMetric", "ev_recall.{k}", _RECALL + " (legacy)", "new: ev_recall.k", concept="recall"),
    _D("MAPKMetric", "ev_map.{k}", _MAP + " (legacy)", "new: ev_map.k", concept="map"),
    _D("MARKMetric", "ev_mar.{k}", _MAR + " (legacy only)", "new: ev_mar.k"),
    _D("NDCGKMetric", "ev_ndcg.{k},0", _NDCG + " (legacy)", "new: ev_ndcg.k,0", concept="ndcg"),
    _D("MRRKMetric", "ev_mrr.{k},0", _MRR + " (legacy)", "new: ev_mrr.k,0", concept="mrr"),
    _D("HitRateKMetric", "ev_hit_rate.{k}", _HIT + " (legacy)", "new: ev_hit_rate.k", concept="hit"),
    _D("FBetaTopKMetric", "ev_fbeta.{k},1", _FBETA + " (β = 1, legacy)", "new: ev_fbeta.k,1", concept="f1"),
))  # fmt: skip
