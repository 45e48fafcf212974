"""The ``elliot:`` dialect: Elliot's metric names, each the recommender measure that gives its value."""

from __future__ import annotations

from .base import SHIFTED, Framework
from .base import Dialect as _D

FRAMEWORK = Framework("elliot", "Elliot 0.3.1", "elliot/evaluation/metrics/accuracy/*/*.py", False, (
    _D("nDCG", "ndcg_exp.{k}", "Σ_{j<=k} (2^(r_j−l+1) − 1)/log2(j+1) over the ideal of the min(|R|, k) best "
       "(r = rel, l = -l: Elliot's relevance_threshold)", "ndcg_exp.k on qrels rel − l + 1", SHIFTED, concept="ndcg"),
    _D("nDCGRendle2020", "ndcg_exp.{k}", "Σ_{j<=k, relevant} 1/log2(j+1) over the same of the min(|R|, k) "
       "first ranks (binary gains)", "ndcg_cut.k on binary qrels (ndcg_exp.k)", concept="ndcg"),
    _D("Precision", "precision_cut.{k}", "|L_k ∩ R| / k", "P.k (precision_cut.k)", concept="precision"),
    _D("Recall", "tpr.{k}", "|L_k ∩ R| / |R|", "recall.k (tpr.k)", concept="recall"),
    _D("HR", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)", concept="hit"),
    _D("MRR", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0",
       "recip_rank_cut.k", concept="mrr"),
    _D("MAP", "mean_p_cut.{k}", "(1/k) Σ_{n=1}^{k} P@n, every cutoff counted", "new: mean_p_cut.k", concept="map"),
    _D("MAR", "mean_r_cut.{k}", "(1/k) Σ_{n=1}^{k} |L_n ∩ R| / |R|", "new: mean_r_cut.k"),
    _D("F1", "f1_cut.{k}", "2PR/(P+R), P = |L_k ∩ R|/k, R = |L_k ∩ R|/|R|", "f1_cut.k", concept="f1"),
    _D("GAUC", "gauc_n1", "(1/|R|) Σ_{relevant retrieved} (N + 1 − above)/(N + 1), N = |I| − |train_u| − |R|; "
       "needs train", "new: gauc_n1 (= (N·auc + 1)/(N + 1) when all of R is retrieved)", cutoff=False, concept="auc"),
    _D("AUC", "auc_n1", "(N + 1 − above)/(N + 1) averaged over every retrieved relevant document of every "
       "user; needs train", "new: auc_n1", cutoff=False, concept="auc"),
    _D("LAUC", "lauc_n1.{k}", "Σ_{relevant j<=k} (N + 1 − above)/(N + 1) / min(k, |R|); needs train",
       "new: lauc_n1.k (not lauc.k)"),
))  # fmt: skip
