"""The ``daisyrec:`` dialect: DaisyRec's metric function names, each the recommender measure that gives its value.

DaisyRec 2.3.0 (``daisy/utils/metrics.py``) scores ``pred_ur``, each test user's rank list (the model's top
k, always k long), against ``test_ur``, the user's test items (all relevant), and returns the mean over the
test users. Lines of ``metrics.py``: ``Coverage`` 98-102, ``Precision`` 148-158, ``Recall`` 160-170,
``MRR`` 172-186 (the first hit only: at most 1 since 2.0; DaisyRec 1.x summed 1/rank over every hit),
``MAP`` 188-202, ``NDCG`` 204-227, ``HR`` 229-239, ``AUC`` 241-261, ``F1`` 263-278. ``Metric.run`` (lines
66-96) compares ``kpi``, not the metric name, before ``f1`` and ``auc``, so it never reaches them (it raises
instead); the functions are called directly. ``Popularity`` reads the whole data set's popularity before
the split and ``Diversity`` the Euclidean distance of category vectors: not given.
"""

from __future__ import annotations

from .base import Dialect as _D
from .base import Framework

FRAMEWORK = Framework("daisyrec", "DaisyRec 2.3.0", "daisy/utils/metrics.py", False, (
    _D("Precision", "precision.{k}", "|L_k ∩ R| / |L_k| (= / k: DaisyRec's lists hold k items)",
       "precision.k (= P.k when the list holds k items)", concept="precision"),
    _D("Recall", "tpr.{k}", "|L_k ∩ R| / |R|", "recall.k (tpr.k)", concept="recall"),
    _D("MRR", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0", "recip_rank_cut.k",
       concept="mrr"),
    _D("MAP", "daisy_map.{k}", "Σ_{relevant j<=k} P@j / |L_k ∩ R|: over the hits, not |R|; 0 without a hit",
       "new: daisy_map.k", concept="map"),
    _D("NDCG", "daisy_ndcg.{k}", "Σ_{relevant j<=k} 1/log2(j+1) / Σ_{j<=h} 1/log2(j+1), h = |L_k ∩ R|: the "
       "ideal over the hits only; 0 without a hit", "new: daisy_ndcg.k", concept="ndcg"),
    _D("HR", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)", concept="hit"),
    _D("AUC", "accuracy.{k}", "share of the (relevant, non-relevant) pairs of L_k in order; NaN (no value) "
       "without both", "accuracy.k", concept="auc"),
    _D("F1", "daisy_f1.{k}", "2|L_k ∩ R| / (|L_k| + |R|); NaN (no value) without a hit",
       "new: daisy_f1.k (f1.k gives 0 there)", concept="f1"),
    _D("Coverage", "catalog_coverage.{k}", "|∪ L_k| / item_num over the test users' lists (the catalogue: "
       "--items)", "catalog_coverage.k", concept="coverage"),
))  # fmt: skip
