"""The ``lenskit:`` dialect: LensKit's metric names, each the recommender measure that gives its value."""

from __future__ import annotations

from .base import Dialect as _D
from .base import Framework

FRAMEWORK = Framework("lenskit", "LensKit 2025.8.1", "src/lenskit/metrics/ranking/*.py", False, (
    _D("Precision", "precision.{k}", "|L_k ∩ R| / min(k, |L|); 0 without relevant documents",
       "precision.k", needs_relevant=False, concept="precision"),
    _D("Recall", "recall_cap.{k}", "|L_k ∩ R| / min(|R|, k)", "new: recall_cap.k (= recall.k when |R| <= k)", concept="recall"),
    _D("RecipRank", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0",
       "recip_rank_cut.k", concept="mrr"),
    _D("Hit", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)", concept="hit"),
    _D("NDCG", "ndcg_jk.{k},2", "Σ_{j<=k, relevant} 1/max(1, log2 j) over the same of the min(|R|, k) first "
       "ranks (binary gains)", "ndcg_jk.k,2 on binary qrels", concept="ndcg"),
    _D("DCG", "dcg_jk.{k}", "Σ_{j<=k, relevant} 1/max(1, log2 j); 0 without relevant documents",
       "new: dcg_jk.k (numerator of ndcg_jk.k,2)", needs_relevant=False, concept="dcg"),
    _D("RBP", "rbp_cut.{k},0.85", "(1 − p) Σ_{j<=k, relevant} p^(j−1), p = 0.85",
       "rbp_cut.k,0.85 = trec_eval 10.0 rbp.p=0.85 with -M k", concept="rbp"),
    _D("AveragePrecision", "map_cap_ret.{k}", "Σ_{relevant j<=k} P@j / min(|R|, |L_k|)",
       "new: map_cap_ret.k (= map_cut.k when |R| <= |L_k|)", concept="map"),
    _D("ListGini", "gini.{k}", "Gini index of how often each catalogue item is in a top k; needs train or --items",
       "gini.k (LensKit's items = the catalogue)", needs_relevant=False, concept="gini"),
    _D("MeanPopRank", "pop_quantile.{k}", "mean over L_k of the item's popularity quantile (training users); "
       "needs train", "new: pop_quantile.k", needs_relevant=False, concept="popularity"),
))  # fmt: skip
