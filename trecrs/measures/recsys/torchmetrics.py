"""torchmetrics' retrieval metrics, per user, as a user calls them on a top-N list.

torchmetrics scores tensors ``preds, target, indexes``: here a user's items are those of
:func:`.sklearn.score_vectors` (the ranking with its scores, then the relevant documents it missed, scored
min(0, lowest listed score − 1)). torchmetrics 1.9.0 (``torchmetrics/functional/retrieval/*.py``, the
classes of ``torchmetrics/retrieval/*.py``) casts ``preds`` to float32, so scores equal in float32 tie;
tied items other than NDCG's (which averages over them) are in trecrs's order, torchmetrics' ``topk`` and
``argsort`` leaving them unspecified. Precision, Recall, MAP and MRR count an item only if its float32
score is > 0 (``torch.where(preds > 0, target, 0)``): a missed relevant document is never a hit there,
but it is in HitRate, NDCG, R-Precision, FallOut and AUROC when the list is shorter than k. Each class
scores a user without a relevant item (FallOut: without a non-relevant item) by ``empty_target_action``:
the parameter ``e`` below is that user's value (0: ``neg``, the default, and the functional forms; 1:
``pos``), −1 none (``skip``: left out of the mean). The per-user values are float32 in torchmetrics and
float64 here (agreement to 1e-6); the class's mean is the float32 mean of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...errors import UsageError
from ..trec_eval import LOWER
from .registry import VALUES, ExtraMeasure, register
from .sklearn import per_user, ranked_dcg, roc_auc, tie_averaged_dcg

TORCHMETRICS = "torchmetrics 1.9.0 torchmetrics/functional/retrieval"
Fn = Callable[[np.ndarray, np.ndarray, int], float]


def _hits(s: np.ndarray, g: np.ndarray, k: int) -> np.ndarray:
    """Whether each of the first min(k, n) items is relevant and scored > 0 in float32."""
    return (g[:k] > 0) & (s[:k].astype(np.float32) > 0)


def precision(adaptive: bool) -> Fn:
    """Σ hits among the first k / k; with ``adaptive_k`` k = min(k, n) (``precision.py``)."""
    return lambda s, g, k: float(_hits(s, g, k).sum()) / (min(k, s.size) if adaptive else k)


def recall(s: np.ndarray, g: np.ndarray, k: int) -> float:
    """Σ hits among the first k / R, R counting the missed relevant documents (``recall.py``)."""
    return float(_hits(s, g, k).sum()) / float((g > 0).sum())


def average_precision(s: np.ndarray, g: np.ndarray, k: int) -> float:
    """Mean over the hits among the first k of (hits up to it) / its rank: divided by the hits found, not
    by R or min(R, k); 0 without a hit (``average_precision.py``)."""
    ranks = np.flatnonzero(_hits(s, g, k)) + 1
    return float(np.mean(np.arange(1, ranks.size + 1) / ranks)) if ranks.size else 0.0


def reciprocal_rank(s: np.ndarray, g: np.ndarray, k: int) -> float:
    """1 / the rank of the first hit among the first k, else 0 (``reciprocal_rank.py``)."""
    ranks = np.flatnonzero(_hits(s, g, k))
    return 1.0 / (ranks[0] + 1) if ranks.size else 0.0


def hit_rate(s: np.ndarray, g: np.ndarray, k: int) -> float:
    """1 if one of the first k items is relevant, whatever its score (``hit_rate.py``)."""
    return float((g[:k] > 0).any())


def fall_out(s: np.ndarray, g: np.ndarray, k: int) -> float:
    """Non-relevant items among the first k / the non-relevant items (``fall_out.py``)."""
    non = g <= 0
    return float(non[:k].sum()) / float(non.sum())


def r_precision(s: np.ndarray, g: np.ndarray, _k: int) -> float:
    """Relevant items among the first R / R, whatever their scores (``r_precision.py``)."""
    big_r = int((g > 0).sum())
    return float((g[:big_r] > 0).sum()) / big_r


def ndcg(s: np.ndarray, g: np.ndarray, k: int) -> float:
    """DCG@k averaged over the float32 tie groups, linear gains, over the ideal DCG@k of the gains sorted
    (``ndcg.py``: scikit-learn's formula)."""
    ideal = ranked_dcg(np.sort(g)[::-1], k)
    return tie_averaged_dcg(s.astype(np.float32).astype(np.float64), g, k) / ideal if ideal > 0 else 0.0


def auroc(s: np.ndarray, g: np.ndarray, k: int) -> float:
    """ROC AUC of the first k items, ties 1/2; 0 when they are not of both kinds. Its float32 scores go
    through a sigmoid unless all of them lie in [0, 1] (``auroc.py`` → ``binary_auroc`` →
    ``normalize_logits_if_needed``), so scores above about 17 all become 1.0, a tie: 0.5."""
    top, rel = s[:k].astype(np.float32), g[:k]
    if not ((rel > 0).any() and (rel <= 0).any()):
        return 0.0
    if not ((top >= 0) & (top <= 1)).all():
        with np.errstate(over="ignore"):
            top = np.float32(1) / (np.float32(1) + np.exp(-top))
    return roc_auc(top.astype(np.float64), rel)


def _with_action(fn: Fn, empty: Callable[[np.ndarray], bool]):
    """A registry ``per_query`` of ``fn`` with parameters (k, e), or (e) for R-Precision: a user for whom
    ``empty(g)`` holds gets e (−1: no value), the class's ``empty_target_action``."""

    def value(s: np.ndarray, g: np.ndarray, param: tuple[float, ...]) -> float:
        k, e = (int(param[0]) if len(param) > 1 else 0), param[-1]
        if empty(g):
            return math.nan if e < 0 else e
        return fn(s, g, k)

    return per_user(value)


def _validate(param: tuple[float, ...]) -> None:
    """k a positive integer, e 0, 1 or −1."""
    if len(param) > 1 and (param[0] < 1 or param[0] != int(param[0])):
        raise UsageError(f"torchmetrics measures: k must be a positive integer, got {param[0]:g}")
    if param[-1] not in (-1.0, 0.0, 1.0):
        raise UsageError(f"torchmetrics measures: e must be 0 (neg), 1 (pos) or -1 (skip), got {param[-1]:g}")


def _no_relevant(g: np.ndarray) -> bool:
    return not (g > 0).any()


def _no_nonrelevant(g: np.ndarray) -> bool:
    return not (g <= 0).any()


_MEASURES: tuple[tuple[str, str, str, Fn, Callable[[np.ndarray], bool], dict], ...] = (
    ("tm_ndcg", "nDCG@k averaged over float32 ties, linear gains, list + missed (RetrievalNormalizedDCG)",
     "ndcg.py", ndcg, _no_relevant, {}),
    ("tm_precision", "hits scored > 0 in the top k / k (RetrievalPrecision)", "precision.py", precision(False),
     _no_relevant, {}),
    ("tm_precision_adaptive", "hits scored > 0 in the top k / min(k, n) (RetrievalPrecision adaptive_k)",
     "precision.py", precision(True), _no_relevant, {}),
    ("tm_recall", "hits scored > 0 in the top k / |R| (RetrievalRecall)", "recall.py", recall, _no_relevant, {}),
    ("tm_map", "mean precision at the hits scored > 0 in the top k: / the hits found (RetrievalMAP)",
     "average_precision.py", average_precision, _no_relevant, {}),
    ("tm_mrr", "1 / rank of the first hit scored > 0 in the top k (RetrievalMRR)", "reciprocal_rank.py",
     reciprocal_rank, _no_relevant, {}),
    ("tm_hit_rate", "1 if the top k of list + missed holds a relevant item (RetrievalHitRate)", "hit_rate.py",
     hit_rate, _no_relevant, {}),
    ("tm_fall_out", "non-relevant items in the top k / non-relevant items (RetrievalFallOut)", "fall_out.py",
     fall_out, _no_nonrelevant, {"better": LOWER}),
    ("tm_r_precision", "relevant items in the top |R| of list + missed / |R| (RetrievalRPrecision)",
     "r_precision.py", r_precision, _no_relevant, {}),
    ("tm_auroc", "ROC AUC of the top k, sigmoid of scores outside [0, 1], 0 unless both kinds (RetrievalAUROC)", "auroc.py", auroc,
     _no_relevant, {}),
)  # fmt: skip
for _name, _doc, _src, _fn, _empty, _kw in _MEASURES:
    _k = _name != "tm_r_precision"  # R-Precision takes no k
    register(
        ExtraMeasure(
            _name,
            "ranking",
            _doc + "; e: the value without a relevant item (-1: none)",
            f"{TORCHMETRICS}/{_src}",
            _with_action(_fn, _empty),
            params=VALUES,
            param_names=("k", "e") if _k else ("e",),
            defaults=(10.0, 0.0) if _k else (0.0,),
            validate=_validate,
            undefined_when="no relevant item and e = -1 (skip)",
            **_kw,
        )
    )
