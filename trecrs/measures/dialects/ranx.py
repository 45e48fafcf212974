"""The ``ranx:`` dialect: ranx's metric names, each the recommender measure that gives its value."""

from __future__ import annotations

from .base import GRADED, Framework
from .base import Dialect as _D

# ranx gives every user of the run a value, 0 without relevant documents (needs_relevant=False); the level is
# the name's -lN (default 1), and ndcg, dcg, rbp take the qrels value of the documents at or above it as gain
FRAMEWORK = Framework("ranx", "ranx 0.3.21", "ranx/metrics/*.py, ranx/meta/evaluate.py", False, (
    _D("precision", "precision_cut.{k}", "|L_k ∩ R| / k", "P.k (precision_cut.k)", needs_relevant=False,
       concept="precision"),
    _D("recall", "tpr.{k}", "|L_k ∩ R| / |R|; 0 without relevant documents", "recall.k (tpr.k)",
       needs_relevant=False, concept="recall"),
    _D("f1", "f1_cut.{k}", "2PR/(P+R) = 2|L_k ∩ R| / (k + |R|)", "f1_cut.k", needs_relevant=False, concept="f1"),
    _D("hits", "hits.{k}", "|L_k ∩ R|", "new: hits.k (= num_rel_ret with -M k)", needs_relevant=False),
    _D("hit_rate", "hit_rate.{k}", "1 if L_k ∩ R is not empty", "success.k (hit_rate.k)", needs_relevant=False,
       concept="hit"),
    _D("mrr", "recip_rank_cut.{k}", "1 / rank of the first relevant document in L_k, else 0", "recip_rank_cut.k",
       needs_relevant=False, concept="mrr"),
    _D("map", "ap_cut.{k}", "Σ_{relevant j<=k} P@j / |R|", "map_cut.k (new: ap_cut.k)", needs_relevant=False,
       concept="map"),
    _D("ndcg", "ndcg_lin.{k}", "Σ_{j<=k} r_j/log2(j+1) over the same of the k best, r = rel if rel >= l else 0",
       "ndcg_cut.k with grades below l as 0 (new: ndcg_lin.k)", GRADED, needs_relevant=False, concept="ndcg"),
    _D("ndcg_burges", "ndcg_exp.{k}", "Σ_{j<=k} (2^r_j − 1)/log2(j+1) over the same of the k best, r = rel if "
       "rel >= l else 0", "ndcg_exp.k with grades below l as 0", GRADED, needs_relevant=False, concept="ndcg"),
    _D("dcg", "dcg_lin.{k}", "Σ_{j<=k} r_j/log2(j+1), r = rel if rel >= l else 0", "new: dcg_lin.k", GRADED,
       needs_relevant=False, concept="dcg"),
    _D("dcg_burges", "dcg_exp.{k}", "Σ_{j<=k} (2^r_j − 1)/log2(j+1), r = rel if rel >= l else 0",
       "new: dcg_exp.k", GRADED, needs_relevant=False, concept="dcg"),
    _D("r-precision", "r_prec", "|L_|R| ∩ R| / |R|", "Rprec (new: r_prec)", needs_relevant=False, cutoff=False),
    _D("bpref", "bpref_strict", "(1/|R|) Σ_{relevant retrieved r} (1 − min(n_r, |R|)/min(|R|, N)); NaN when N = 0 "
       "and a relevant document is retrieved", "bpref where N > 0 (new: bpref_strict)", needs_relevant=False,
       cutoff=False),
    _D("rbp", "rbp_graded.{p}", "(1 − p) Σ_j r_j p^(j−1) over the whole list, r = rel if rel >= l else 0; "
       "rbp.95: p = 0.95", "rbp_graded.p with grades below l as 0", GRADED, needs_relevant=False, cutoff=False,
       concept="rbp", persistence=True),
), levels=True)  # fmt: skip
