"""The ``rectools:`` dialect: RecTools' metric class names, each the recommender measure that gives its value.

A class argument that changes the definition is spelled as RecTools' constructor takes it, in the name:
``rectools:MAP(divide_by_k=True)@10`` is ``MAP(k=10, divide_by_k=True)``; ``F1Beta(beta=B)`` takes any
number B.
"""

from __future__ import annotations

from .base import Dialect as _D
from .base import Framework

FRAMEWORK = Framework("rectools", "RecTools 0.19.0", "rectools/metrics/*.py", False, (
    _D("Precision", "precision_cut.{k}", "|L_k ∩ R| / k", "P.k (precision_cut.k)", concept="precision"),
    _D("Precision(r_precision=True)", "recall_cap.{k}", "|L_k ∩ R| / min(k, |R|) (R-precision at k)",
       "recall_cap.k (= lenskit:Recall@k)", concept="precision"),
    _D("Recall", "tpr.{k}", "|L_k ∩ R| / |R|", "recall.k (tpr.k)", concept="recall"),
    _D("F1Beta", "f1_cut.{k}", "2PR/(P + R), P = |L_k ∩ R|/k, R = |L_k ∩ R|/|R| (beta 1)", "f1_cut.k", concept="f1"),
    _D("F1Beta(beta={beta})", "f_beta_cut.{k},{beta}", "(1 + β²)PR/(β²P + R) = (1 + β²)|L_k ∩ R| / (β²|R| + k)",
       "new: f_beta_cut.k,β", concept="f1"),
    _D("HitRate", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)", concept="hit"),
    _D("MRR", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0",
       "recip_rank_cut.k", concept="mrr"),
    _D("MAP", "map_over_r.{k}", "Σ_{relevant j<=k} P@j / |R|", "map_cut.k (map_over_r.k)", concept="map"),
    _D("MAP(divide_by_k=True)", "map_over_k.{k}", "Σ_{relevant j<=k} P@j / k", "new: map_over_k.k", concept="map"),
    _D("NDCG", "cwl_sdcg.{k},0,1", "Σ_{relevant j<=k} 1/log2(j+1) / Σ_{j<=k} 1/log2(j+1): the ideal list has k "
       "relevant documents, whatever |R|", "cwl_sdcg.k,0,1 on binary qrels (SDCG(max_rel=1)@k)", concept="ndcg"),
    _D("NDCG(divide_by_achievable=True)", "ndcg_exp.{k}", "Σ_{relevant j<=k} 1/log2(j+1) over the same of the "
       "min(|R|, k) first ranks", "ndcg_cut.k on binary qrels (ndcg_exp.k)", concept="ndcg"),
    _D("PartialAUC", "pauc.{k}", "Σ_{relevant retrieved j} max(k − above_j, 0) / (k|R|), above_j = non-relevant "
       "documents ranked above j", "new: pauc.k", concept="auc"),
    _D("PAP", "pap.{k}", "the same over the first k relevant documents, / (k·min(|R|, k))", "new: pap.k", concept="auc"),
    _D("MeanInvUserFreq", "miuf.{k}", "mean over L_k of −log2(max(n_i, 1)/|U|), n_i = training users of i; "
       "needs train", "new: miuf.k (efd.k, novelty.k leave untrained items out)", needs_relevant=False),
    _D("AvgRecPopularity", "arp.{k}", "mean over L_k of the item's training ratings; needs train", "arp.k",
       needs_relevant=False, concept="popularity"),
    _D("AvgRecPopularity(normalize=True)", "arp_share.{k}", "the same / the number of training ratings; needs "
       "train", "new: arp_share.k", needs_relevant=False, concept="popularity"),
    _D("Serendipity", "serendipity_pop.{k}", "mean over L_k of max((|I|+1−j)/|I| − (|I|+1−poprank)/|I|, 0)·rel; "
       "needs train", "new: serendipity_pop.k", needs_relevant=False),
    _D("IntraListDiversity", "ild_hamming.{k}", "mean over the pairs of L_k of the Hamming distance of the "
       "category indicator vectors; needs item features", "new: ild_hamming.k (ild.k: Jaccard)", needs_relevant=False),
))  # fmt: skip
