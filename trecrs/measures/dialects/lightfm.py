"""The ``lightfm:`` dialect: LightFM's ``lightfm.evaluation`` functions, each the recommender measure that gives
its value.

LightFM ranks each test item of a user against every item of its interaction matrix by the model's
prediction, a tied prediction counted above the item; the run is read as that matrix (its scores as float32,
every unlisted item one value below the list), without ``train_interactions``. Each function returns one
value per user with test items (``preserve_rows=False``), the user without any left out.
"""

from __future__ import annotations

from .base import Dialect as _D
from .base import Framework

_TIES = "ρ_i = the other items scored >= i (a tie counts against i; unlisted items tie below the list)"

FRAMEWORK = Framework("lightfm", "LightFM 1.17", "lightfm/evaluation.py, lightfm/_lightfm_fast.pyx.template", False, (
    _D("precision_at_k", "precision_tied.{k}", f"|{{i ∈ R: ρ_i < k}}| / k, {_TIES}; needs train or items",
       "new: precision_tied.k (= P.k without tied scores)", concept="precision"),
    _D("recall_at_k", "recall_tied.{k}", "|{i ∈ R: ρ_i < k}| / |R|; needs train or items",
       "new: recall_tied.k (= recall.k without tied scores)", concept="recall"),
    _D("reciprocal_rank", "recip_rank_tied", "1 / (min_{i ∈ R} ρ_i + 1) over the whole catalogue, no cutoff (1/n "
       "when no relevant item is listed); needs train or items", "new: recip_rank_tied (= recip_rank when L holds a "
       "relevant item and no tie)", cutoff=False, concept="mrr"),
    _D("auc_score", "auc_tied", "(1/|R|) Σ_i (1 − max(ρ_(i) − i, 0)/(n − |R|)), ρ sorted, a missed item ρ = n − 1; "
       "needs train or items", "new: auc_tied", cutoff=False, concept="auc"),
))  # fmt: skip
