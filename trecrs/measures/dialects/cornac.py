"""The ``cornac:`` dialect: Cornac's ranking metric names, each the recommender measure that gives its value."""

from __future__ import annotations

from .base import AS_IS, Framework
from .base import Dialect as _D

_FULL = "; the run, then the unlisted candidates (all items but the user's training positives), non-relevant first"

FRAMEWORK = Framework("cornac", "Cornac 3.0.1", "cornac/metrics/ranking.py, cornac/eval_methods/base_method.py", False, (
    _D("NDCG", "ndcg_exp.{k}", "Σ_{j<=k, relevant} 1/log2(j+1) over the same of the min(|R|, k) first ranks "
       "(binary gains)", "ndcg_cut.k on binary qrels (ndcg_exp.k)", concept="ndcg"),
    _D("NCRR", "ncrr.{k}", "Σ_{j<=k, relevant} 1/j over Σ_{j<=min(|R|, k)} 1/j", "new: ncrr.k"),
    _D("MRR", "recip_rank_full", "1 / rank of the first relevant item of the full ranking" + _FULL + "; needs train",
       "new: recip_rank_full (= recip_rank when L holds a relevant document)", AS_IS, cutoff=False, concept="mrr"),
    _D("AUC", "auc_full", "share of (relevant, non-relevant candidate) pairs in order in the full ranking" + _FULL +
       "; needs train", "new: auc_full (= auc when L holds every candidate)", AS_IS, cutoff=False, concept="auc"),
    _D("MAP", "map_full", "average precision of the full ranking" + _FULL + "; needs train",
       "new: map_full (= map when L holds every candidate)", AS_IS, cutoff=False, concept="map"),
    _D("Precision", "precision_cut.{k}", "|L_k ∩ R| / k", "P.k (precision_cut.k)", concept="precision"),
    _D("Recall", "tpr.{k}", "|L_k ∩ R| / |R|", "recall.k (tpr.k)", concept="recall"),
    _D("FMeasure", "f1_cut.{k}", "2PR/(P+R), P = |L_k ∩ R|/k, R = |L_k ∩ R|/|R|", "f1_cut.k", concept="f1"),
    _D("F1", "f1_cut.{k}", "FMeasure@k under the name Cornac prints (its metric's name is F1@k)", "f1_cut.k",
       concept="f1"),
    _D("HitRatio", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)", concept="hit"),
))  # fmt: skip
