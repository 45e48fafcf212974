"""The ``recbole:`` dialect: RecBole's metric names, each the recommender measure that gives its value."""

from __future__ import annotations

from .base import Dialect as _D
from .base import Framework

FRAMEWORK = Framework("recbole", "RecBole 1.2.1", "recbole/evaluator/metrics.py", True, (
    _D("hit", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)", concept="hit"),
    _D("mrr", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0",
       "recip_rank_cut.k", concept="mrr"),
    _D("precision", "precision_cut.{k}", "|L_k ∩ R| / k", "P.k (precision_cut.k)", concept="precision"),
    _D("recall", "tpr.{k}", "|L_k ∩ R| / |R|", "recall.k (tpr.k)", concept="recall"),
    _D("ndcg", "ndcg_exp.{k}", "Σ_{j<=k, relevant} 1/log2(j+1) over the same of the min(|R|, k) first ranks "
       "(binary gains)", "ndcg_cut.k on binary qrels (ndcg_exp.k)", concept="ndcg"),
    _D("map", "map_cap.{k}", "Σ_{relevant j<=k} P@j / min(|R|, k)", "new: map_cap.k (= map_cut.k when |R| <= k)", concept="map"),
    _D("gauc", "auc_weighted", "per-user ROC AUC over L ∪ R; mean weighted by |R|",
       "new: gauc = auc_weighted (per user: auc)", cutoff=False, concept="auc"),
    _D("auc", "auc_pooled", "ROC AUC of every (user, item) pair pooled, scores compared across users (a tie "
       "counts 1/2); unretrieved positives below every pair", "new: auc_pooled (not gauc: no per-user AUC)",
       needs_relevant=False, cutoff=False, concept="auc"),
    _D("itemcoverage", "catalog_coverage_pad.{k}", "|∪ L_k| / (|I| + 1), I = every item of train, test and the run "
       "(or --items), + 1 for RecBole's padding id", "new: catalog_coverage_pad.k", concept="coverage"),
    _D("averagepopularity", "arp.{k}", "mean over L_k of the item's training ratings; needs train", "arp.k", concept="popularity"),
    _D("giniindex", "gini_pad.{k}", "Gini index of the top-k counts over |I| + 1 items, I as itemcoverage",
       "new: gini_pad.k (gini.k over the test items too and one more item)", concept="gini"),
    _D("tailpercentage", "least_rated_share.{k},0.1", "|L_k ∩ T| / k, T = the 10% least-rated training items "
       "(count, then first appearance in the training data); needs train",
       "new: least_rated_share.k,0.1 (not tail_percentage.k = aplt.k)", concept="tail"),
    _D("shannonentropy", "entropy_per_item.{k}", "(−Σ p ln p) / number of distinct items in the top k",
       "new: entropy_per_item.k (= entropy.k · ln 2 / m)", concept="entropy"),
    _D("mae", "mae", "(1/|S|) Σ |p_ui − r_ui| over the test ratings S with a prediction; needs predictions, test",
       "mae", needs_relevant=False, cutoff=False),
    _D("rmse", "rmse", "sqrt((1/|S|) Σ (p_ui − r_ui)²) over the test ratings S with a prediction; needs predictions, "
       "test", "rmse", needs_relevant=False, cutoff=False),
    _D("logloss", "logloss", "(1/|S|) Σ −(y log p + (1 − y) log(1 − p)), S = every retrieved pair, p = its score "
       "clipped to [1e-15, 1 − 1e-15], y = relevant", "new: logloss", needs_relevant=False, cutoff=False),
))  # fmt: skip
