"""The ``sklearn:`` dialect: scikit-learn's ranking metric functions, each the recommender measure giving its
value for one user.

Each function is called as a user calls it on a top-N list: ``y_score`` = the list's scores, then the
user's relevant documents the list missed, scored below every listed item; ``y_true`` = the qrels value of
a relevant document (``ndcg_score``, ``dcg_score``: linear gains; rel >= the level, the rest 0) or 1 (the
binary metrics). The value is the one-user call (``ndcg_score([y_true], [y_score], k=k)``); the printed
mean is the mean of those over the qrels users the run ranks, a user without relevant documents counted
as scikit-learn scores it (0; 1 for label ranking AP; none for ``roc_auc_score``, which warns and gives
NaN). ``ignore_ties=True`` is spelled in the name, as the keyword is.
"""

from __future__ import annotations

from .base import GRADED, Framework
from .base import Dialect as _D

_TIED = "; tied scores: the mean over their orders"
FRAMEWORK = Framework("sklearn", "scikit-learn 1.9.1", "sklearn/metrics/_ranking.py", False, (
    _D("ndcg_score", "sk_ndcg.{k}", "Σ_{j<=k} g_j/log2(j+1) over the same of the gains sorted, over the list and "
       "the missed relevant (scored below it)" + _TIED + "; 0 without relevant documents",
       "new: sk_ndcg.k (= ndcg_lin.k when no tie and |L| >= k)", GRADED, needs_relevant=False, concept="ndcg"),
    _D("ndcg_score(ignore_ties=True)", "sk_ndcg_nt.{k}", "the same in trecrs's order (scikit-learn's argsort "
       "leaves ties unspecified)", "new: sk_ndcg_nt.k (= ndcg_lin.k when |L| >= k)", GRADED, needs_relevant=False,
       concept="ndcg"),
    _D("dcg_score", "sk_dcg.{k}", "Σ_{j<=k} g_j/log2(j+1) over the list, then the missed relevant" + _TIED,
       "new: sk_dcg.k (= dcg_lin.k when no tie and |L| >= k)", GRADED, needs_relevant=False, concept="dcg"),
    _D("dcg_score(ignore_ties=True)", "sk_dcg_nt.{k}", "the same in trecrs's order",
       "new: sk_dcg_nt.k (= dcg_lin.k when |L| >= k)", GRADED, needs_relevant=False, concept="dcg"),
    _D("average_precision_score", "sk_ap", "Σ over the distinct scores t of ΔR_t · P_t (a tie group is one step; "
       "the missed relevant the last); 0 without relevant documents", "new: sk_ap (= map when no tie)",
       needs_relevant=False, cutoff=False, concept="map"),
    _D("roc_auc_score", "sk_auc", "share of (relevant, non-relevant) pairs in order, ties 1/2, the missed "
       "relevant last; none without relevant or non-relevant documents", "new: sk_auc (= auc when no tie)",
       needs_relevant=False, cutoff=False, concept="auc"),
    _D("label_ranking_average_precision_score", "sk_lrap", "mean over relevant i of |relevant scoring >= s_i| / "
       "|items scoring >= s_i|; 1 without relevant documents or without non-relevant ones",
       "new: sk_lrap (= map when no tie and R > 0, some document non-relevant)", needs_relevant=False, cutoff=False,
       concept="map"),
    _D("coverage_error", "sk_coverage_error", "items scoring at least the lowest-scored relevant one (the list's "
       "length plus the missed when one is missed); 0 without relevant documents", "new: sk_coverage_error",
       needs_relevant=False, cutoff=False),
    _D("label_ranking_loss", "sk_ranking_loss", "share of (relevant, non-relevant) pairs with the non-relevant "
       "scoring at least as high; 0 without relevant or non-relevant documents",
       "new: sk_ranking_loss (= 1 − auc when no tie)", needs_relevant=False, cutoff=False),
))  # fmt: skip
