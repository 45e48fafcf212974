"""The ``torchmetrics:`` dialect: torchmetrics' retrieval metric classes and functions, each the recommender
measure giving its per-query value.

A class argument that changes the definition is spelled in the name as its constructor takes it:
``torchmetrics:RetrievalPrecision(adaptive_k=True)@10``, ``torchmetrics:RetrievalMAP(empty_target_action=skip)@10``
(one argument per name); ``@k`` is ``top_k``. ``empty_target_action`` says what a user without a relevant
item (FallOut: without a non-relevant one) scores: ``neg`` (the default) 0, ``pos`` 1, ``skip`` no value
(left out of the mean); ``error`` (raise) is not offered. The functions of
``torchmetrics.functional.retrieval`` (``retrieval_precision``...) score such a user 0, as ``neg``. The
preds are the list's scores and the missed relevant documents, scored min(0, lowest listed score − 1)
(:mod:`trecrs.measures.recsys.torchmetrics`), the target the qrels value at or above the level (NDCG) or 1.
"""

from __future__ import annotations

from .base import BINARY, GRADED, Framework
from .base import Dialect as _D

_ACTIONS = (("", "0"), ("(empty_target_action=pos)", "1"), ("(empty_target_action=skip)", "-1"))
_EMPTY = {
    "0": "; 0 without relevant items",
    "1": "; 1 without relevant items",
    "-1": "; none without relevant items",
}
_RETRIEVED = "hits: relevant items scored > 0 (float32)"
# class, function, target, definition, equals, concept, cutoff, qrels
_CLASSES = (
    ("RetrievalNormalizedDCG", "retrieval_normalized_dcg", "tm_ndcg", "Σ_{j<=k} g_j/log2(j+1) averaged over float32 "
     "ties, over the same of the gains sorted; the list, then the missed relevant", "new: tm_ndcg.k,e (= sk_ndcg.k)",
     "ndcg", True, GRADED),
    ("RetrievalPrecision", "retrieval_precision", "tm_precision", f"{_RETRIEVED} in the top k / k",
     "new: tm_precision.k,e (= P.k when every score > 0)", "precision", True, ""),
    ("RetrievalPrecision(adaptive_k=True)", "retrieval_precision(adaptive_k=True)", "tm_precision_adaptive",
     f"{_RETRIEVED} in the top k / min(k, |L| + missed)", "new: tm_precision_adaptive.k,e", "precision", True, ""),
    ("RetrievalRecall", "retrieval_recall", "tm_recall", f"{_RETRIEVED} in the top k / |R|",
     "new: tm_recall.k,e (= recall.k when every score > 0)", "recall", True, ""),
    ("RetrievalMAP", "retrieval_average_precision", "tm_map", f"mean of P@j over the {_RETRIEVED} in the top k "
     "(divides by the hits found)", "new: tm_map.k,e", "map", True, ""),
    ("RetrievalMRR", "retrieval_reciprocal_rank", "tm_mrr", f"1 / rank of the first of the {_RETRIEVED} in the "
     "top k", "new: tm_mrr.k,e (= recip_rank_cut.k when every score > 0)", "mrr", True, ""),
    ("RetrievalHitRate", "retrieval_hit_rate", "tm_hit_rate", "1 if the top k of the list, then the missed "
     "relevant, holds a relevant item", "new: tm_hit_rate.k,e (= success.k when |L| >= k)", "hit", True, ""),
    ("RetrievalFallOut", "retrieval_fall_out", "tm_fall_out", "non-relevant items in the top k / non-relevant "
     "items (empty_target_action: for users without non-relevant ones)", "new: tm_fall_out.k,e", "", True, ""),
    ("RetrievalRPrecision", "retrieval_r_precision", "tm_r_precision", "relevant items in the top |R| of the "
     "list, then the missed relevant / |R|", "new: tm_r_precision.e (= Rprec when |L| >= |R|)", "", False, ""),
    ("RetrievalAUROC", "retrieval_auroc", "tm_auroc", "ROC AUC of the top k (float32 scores, through a sigmoid "
     "unless all in [0, 1]: scores above ~17 all tie; ties 1/2); 0 unless it holds both kinds", "new: tm_auroc.k,e", "auc", True, ""),
)  # fmt: skip


def _names() -> tuple[_D, ...]:
    """Every class under each ``empty_target_action``, then every function (``neg``'s values)."""
    out = []
    for cls, _fn, target, text, equals, concept, cutoff, qrels in _CLASSES:
        k = "{k}," if cutoff else ""
        actions = _ACTIONS[:1] if "(" in cls else _ACTIONS  # one argument per name: adaptive_k under neg
        for suffix, e in actions:  # trecrs definitions lists the default (neg) of each class
            out.append(
                _D(
                    cls + suffix,
                    f"{target}.{k}{e}",
                    text + _EMPTY[e],
                    equals,
                    qrels or BINARY,
                    needs_relevant=False,
                    cutoff=cutoff,
                    concept="" if suffix else concept,
                )
            )
    for cls, fn, target, text, equals, _, cutoff, qrels in _CLASSES:
        out.append(
            _D(
                fn,
                f"{target}.{'{k},' if cutoff else ''}0",
                f"= {cls}: {text}" + _EMPTY["0"],
                equals,
                qrels or BINARY,
                needs_relevant=False,
                cutoff=cutoff,
            )
        )
    return tuple(out)


FRAMEWORK = Framework(
    "torchmetrics", "torchmetrics 1.9.0", "torchmetrics/functional/retrieval/*.py, torchmetrics/retrieval/*.py",
    False, _names(),
)  # fmt: skip
