"""The ``rs_metrics:`` dialect: rs_metrics' function names, each the recommender measure that gives its value.

rs_metrics 0.6.0 (``rs_metrics/metrics.py``; by one of the authors of Tamm, Damdinov & Vasilev 2021) takes
``true`` (user -> test items, all relevant) and ``pred`` (user -> the list in the order given: it never sorts
by score) and cuts each list at k. Its accuracy functions see the users of ``true`` (a user without a
relevant item is no key: no value; a key without a list scores 0, its ``precision`` NaN); ``popularity`` and
``surprisal`` the users of ``pred``; ``coverage`` is one number over the items the caller passes (here the
catalogue). Source lines of ``metrics.py``: ``ndcg`` 11-29, ``hitrate`` 31-39, ``precision`` 42-51,
``recall`` 54-62, ``mrr`` 65-77, ``mapr`` 80-91, ``coverage`` 94-107, ``popularity`` 110-129, ``surprisal``
132-137 (``item_pop``: ``statistics.py`` 1-3). ``a_ndcg`` needs per-user aspect lists trecrs has no input for.
"""

from __future__ import annotations

from .base import Dialect as _D
from .base import Framework

FRAMEWORK = Framework("rs_metrics", "rs_metrics 0.6.0", "rs_metrics/metrics.py, rs_metrics/statistics.py", False, (
    _D("ndcg", "ndcg_exp.{k}", "Σ_{j<=k, relevant} 1/log2(j+1) over the same of the min(|R|, k) first ranks "
       "(binary gains)", "ndcg_cut.k on binary qrels (ndcg_exp.k)", concept="ndcg"),
    _D("hitrate", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)", concept="hit"),
    _D("precision", "precision.{k}", "|L_k ∩ R| / |L_k|: over the list's length when shorter than k",
       "precision.k (= P.k when the list holds k items)", concept="precision"),
    _D("recall", "tpr.{k}", "|L_k ∩ R| / |R|", "recall.k (tpr.k)", concept="recall"),
    _D("mrr", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0", "recip_rank_cut.k",
       concept="mrr"),
    _D("mapr", "map_over_r.{k}", "Σ_{relevant j<=k} P@j / |R|", "map_cut.k (map_over_r.k)", concept="map"),
    _D("coverage", "catalog_coverage.{k}", "|∪ L_k ∩ I| / |I|, I = the items passed: the catalogue",
       "catalog_coverage.k", needs_relevant=False, concept="coverage"),
    _D("popularity", "pop_share.{k}", "mean over L_k of n_i/|U|, n_i = training users of i (0 if none); needs "
       "train", "new: pop_share.k (= 1 − epc.k)", needs_relevant=False, concept="popularity"),
    _D("surprisal", "miuf.{k}", "mean over L_k of −log2(max(n_i, 1)/|U|); needs train",
       "miuf.k (= rectools:MeanInvUserFreq@k)", needs_relevant=False, concept="novelty"),
))  # fmt: skip
