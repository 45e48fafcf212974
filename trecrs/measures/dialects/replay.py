"""The ``replay:`` dialect: RePlay's metric class names, each the recommender measure that gives its value."""

from __future__ import annotations

from .base import ALL_QRELS_USERS, RUN_USERS, TRAIN_USERS, Framework
from .base import Dialect as _D

# The accuracy names take every ground-truth user (one without recommendations scores 0), Coverage, Surprisal
# and CategoricalDiversity every user of the recommendations, Novelty every training user (one without
# recommendations scores 1): replay/metrics/base_metric.py joins the recommendations to the ground truth or
# the training data, or iterates over the recommendations' users
_TRUTH = ALL_QRELS_USERS

FRAMEWORK = Framework("replay", "RePlay 0.22.0", "replay/metrics/*.py", False, (
    _D("HitRate", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)", concept="hit", users=_TRUTH),
    _D("MAP", "map_cap.{k}", "Σ_{relevant j<=k} P@j / min(k, |R|)", "map_cap.k (= map_cut.k when |R| <= k)",
       concept="map", users=_TRUTH),
    _D("MRR", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0",
       "recip_rank_cut.k", concept="mrr", users=_TRUTH),
    _D("NDCG", "ndcg_exp.{k}", "Σ_{j<=k, relevant} 1/log2(j+1) over the same of the min(|R|, k) first ranks "
       "(binary gains)", "ndcg_cut.k on binary qrels (ndcg_exp.k)", concept="ndcg", users=_TRUTH),
    _D("Precision", "precision_cut.{k}", "|L_k ∩ R| / k", "P.k (precision_cut.k)", concept="precision", users=_TRUTH),
    _D("Recall", "tpr.{k}", "|L_k ∩ R| / |R|", "recall.k (tpr.k)", concept="recall", users=_TRUTH),
    _D("RocAuc", "auc_cut.{k}", "1 − Σ_{relevant j<=k} (non-relevant above j) / (R_k·N_k) within L_k; 0 if "
       "R_k = 0, 1 if N_k = 0", "new: auc_cut.k (accuracy.k with 0 and 1 where it is undefined)", concept="auc", users=_TRUTH),
    _D("Coverage", "train_coverage.{k}", "|∪ L_k ∩ I_train| / |I_train|; needs train",
       "new: train_coverage.k (= catalog_coverage.k when every recommended item has training ratings)",
       needs_relevant=False, users=RUN_USERS, concept="coverage"),
    _D("Novelty", "unseen_share.{k}", "1 − |L_k ∩ train_u| / |L_k|: share of L_k the user has not rated in "
       "training; needs train", "new: unseen_share.k (not novelty.k)", needs_relevant=False, users=TRAIN_USERS, concept="novelty"),
    _D("Surprisal", "surprisal.{k}", "(1/k) Σ_{i in L_k} log2(|U|/n_i)/log2|U|, unrated items 1; needs train",
       "new: surprisal.k (not novelty.k: normalised, unrated items 1, / k)", needs_relevant=False, users=RUN_USERS, concept="novelty"),
    _D("CategoricalDiversity", "category_diversity.{k}", "distinct categories in L_k / k; needs item "
       "categories", "new: category_diversity.k", needs_relevant=False, users=RUN_USERS, concept="diversity"),
))  # fmt: skip
