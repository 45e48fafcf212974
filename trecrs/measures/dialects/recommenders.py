"""The ``recommenders:`` dialect: Microsoft Recommenders' ``python_evaluation`` functions, each the recommender
measure that gives its value.

Called with ``relevancy_method="top_k"`` (the default; ``"by_threshold"`` takes the top ``threshold`` items,
so is the same cut under another number) on ``rating_true`` = the relevant test items and ``rating_pred`` =
the run; the ranking metrics average over the users present in both (a user without relevant items is not
in ``rating_true``), each user's value as below; ``r_precision_at_k`` leaves out a user without a hit in the
first min(k, |R|) places. ``ndcg_at_k(score_type=raw)`` and ``(score_type=exp)`` take the rating of a
relevant test item as its gain (rating and 2^rating − 1); the discount's base (``discfun_type``) cancels out.
The beyond-accuracy names take the top k lists as ``reco_df`` and the training ratings as ``train_df``;
``diversity`` and ``serendipity`` use the default item co-occurrence similarity, and ``serendipity`` no
``col_relevance`` (every recommendation relevant).
"""

from __future__ import annotations

from .base import GRADED, Framework
from .base import Dialect as _D

FRAMEWORK = Framework("recommenders", "Microsoft Recommenders 1.2.1", "recommenders/evaluation/python_evaluation.py",
                      False, (
    _D("precision_at_k", "precision_cut.{k}", "|L_k ∩ R| / k", "P.k (precision_cut.k)", concept="precision"),
    _D("recall_at_k", "tpr.{k}", "|L_k ∩ R| / |R|", "recall.k (tpr.k)", concept="recall"),
    _D("r_precision_at_k", "r_prec_hit.{k}", "|L_min(k,|R|) ∩ R| / |R|; a user with none is left out",
       "new: r_prec_hit.k (= Rprec when |R| <= k and a hit)", concept="precision"),
    _D("ndcg_at_k", "ndcg_exp.{k}", "Σ_{relevant j<=k} 1/ln(1+j) over the same of the min(|R|, k) first ranks",
       "ndcg_cut.k on binary qrels (ndcg_exp.k)", concept="ndcg"),
    _D("ndcg_at_k(score_type=raw)", "ndcg_lin.{k}", "Σ_{j<=k} r_j/ln(1+j) over the same of the k best, r = the "
       "rating if relevant else 0", "ndcg_cut.k with grades below l as 0 (= ranx:ndcg@k)", GRADED, concept="ndcg"),
    _D("ndcg_at_k(score_type=exp)", "ndcg_exp.{k}", "Σ_{j<=k} (2^r_j − 1)/ln(1+j) over the same of the k best",
       "ndcg_exp.k with grades below l as 0 (= ranx:ndcg_burges@k)", GRADED, concept="ndcg"),
    _D("map", "map_over_r.{k}", "Σ_{relevant j<=k} P@j / |R|", "map_cut.k (= rectools:MAP@k)", concept="map"),
    _D("map_at_k", "map_cap.{k}", "Σ_{relevant j<=k} P@j / min(k, |R|)", "map_cap.k (= replay:MAP@k)",
       concept="map"),
    _D("catalog_coverage", "catalog_coverage_train.{k}", "|∪ L_k| / |I_train|, recommended items outside the "
       "training items counted; needs train", "new: catalog_coverage_train.k", needs_relevant=False,
       concept="coverage"),
    _D("distributional_coverage", "entropy.{k}", "−Σ_i p_i log2 p_i, p_i = the share of the top k "
       "recommendations that are i", "entropy.k", needs_relevant=False, concept="entropy"),
    _D("novelty", "novelty_pooled.{k}", "Σ over every recommendation of −log2(c_i/|train|) / the number of "
       "recommendations, c_i = training ratings of i (0 for an item without); needs train",
       "new: novelty_pooled.k (novelty.k: per user, training users)", needs_relevant=False, concept="novelty"),
    _D("diversity", "ild_cooccurrence.{k}", "1 − the mean over the pairs of L_k of co(i, j)/sqrt(n_i n_j), co = "
       "training users of both, n = of each; needs train", "new: ild_cooccurrence.k (ild.k: categories)",
       needs_relevant=False, concept="diversity"),
    _D("serendipity", "unexpectedness_cooccurrence.{k}", "mean over L_k of 1 − the mean co-occurrence cosine of "
       "the item with the user's training items (every item relevant); needs train",
       "new: unexpectedness_cooccurrence.k", needs_relevant=False),
))  # fmt: skip
