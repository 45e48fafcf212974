"""The ``implicit:`` dialect: implicit's evaluation functions, each the recommender measure that gives its value.

implicit's ``ranking_metrics_at_k`` (and ``precision_at_k``, ``mean_average_precision_at_k``, ``ndcg_at_k``,
``AUC_at_k``, which return one of its keys) asks a model for each user's top K and compares it with the
user's test items; the names give its per-user values, a model returning the run's list in trec_eval's order.
It leaves out a user without test items. The number it prints for ``precision`` is pooled: Σ_u |L_k ∩ R_u| /
Σ_u min(k, |R_u|), not the mean of the per-user values; ``map``, ``ndcg`` and ``auc`` are means over users.
"""

from __future__ import annotations

from .base import Dialect as _D
from .base import Framework

FRAMEWORK = Framework("implicit", "implicit 0.7.3", "implicit/evaluation.pyx", False, (
    _D("precision_at_k", "recall_cap.{k}", "|L_k ∩ R| / min(k, |R|) per user (the printed value pools: Σ hits / "
       "Σ min(k, |R|))", "recall_cap.k (= rectools:Precision(r_precision=True)@k)", concept="precision"),
    _D("mean_average_precision_at_k", "map_cap.{k}", "Σ_{relevant j<=k} P@j / min(k, |R|)",
       "map_cap.k (= replay:MAP@k)", concept="map"),
    _D("ndcg_at_k", "ndcg_exp.{k}", "Σ_{relevant j<=k} 1/log2(j+1) over the same of the min(|R|, k) first ranks",
       "ndcg_cut.k on binary qrels (ndcg_exp.k)", concept="ndcg"),
    _D("AUC_at_k", "auc_topk_catalog.{k}", "(Σ_{misses j<=k} hits above j + (h + |R|)/2 · (n − |R| − (k − h))) / "
       "(|R|(n − |R|)), h = |L_k ∩ R|, n = the data set's items; needs train or items", "new: auc_topk_catalog.k",
       concept="auc"),
))  # fmt: skip
