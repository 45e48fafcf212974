"""Recommender-specific measures beyond trec_eval's table, one module per family, and their registry.

* :mod:`.classification`: precision, tpr, fpr, fnr, npv, tnr, F1, F-beta, informedness, markedness, MCC
  at a cutoff over L_u (the run's documents for the query);
* :mod:`.ranking`: ROC AUC, LAUC, boolean Kendall tau, NDPM, Spearman/Kendall vs test ratings, half-life
  utility, reciprocal rank and hit rate at k, nDCG with exponential gain or log_b discount, GMAP/HMAP/QMAP;
* :mod:`.cascade`: expected reciprocal rank (ERR@k, gdeval.pl's);
* :mod:`.cwl`: the C/W/L measures of cwl_eval (BPM, SDCG, NERR8-11, INST, INSQ, RBP) and graded RBP;
* :mod:`.compat`: compatibility with the ideal ranking (Compat), pairwise accuracy and ROC AUC of the top k;
* :mod:`.frameworks`: the denominators recommender frameworks use (capped recall, AP over min(|R|, k), Elliot's
  mean of P@1..k, P@k over k, DCG, RBP at k);
* :mod:`.cornac`: Cornac's NCRR, and MRR, MAP and AUC over the full ranking of a user's candidates;
* :mod:`.ranx`: the measures of ranx that trecrs had under no name (hits, AP@k over |R|, nDCG and DCG with
  linear gain, DCG with exponential gain, R-precision, bpref undefined without judged non-relevant documents);
* :mod:`.error`: MAE, RMSE and their normalised, per-user and per-item forms (prediction files);
* :mod:`.pooled`: ROC AUC and log loss over every (query, document) pair pooled (RecBole's auc, logloss);
* :mod:`.beyond`: user/catalogue/prediction coverage, Gini, entropy, novelty, popularity, head/tail;
* :mod:`.popularity_bias`: APLT, ACLT, PopRSP, PopREO, EPC, EFD (plain and rank/relevance-aware), ItemMAD;
* :mod:`.diversity`: intra-list diversity, subtopic recall, category coverage and diversity (item categories);
* :mod:`.replay`: RePlay's training-item coverage, unseen share (its Novelty) and normalised surprisal;
* :mod:`.calibration`: miscalibration (Steck's KL between training and top-k category shares);
* :mod:`.rectools`: RecTools' AP@k over k or |R|, partial AUC and pAp@k, mean inverse user frequency,
  normalised average popularity and popularity-relative serendipity;
* :mod:`.sklearn`, :mod:`.torchmetrics`: scikit-learn's ranking metrics and torchmetrics' retrieval metrics
  per user on a top-N list and the relevant documents it missed (tie-averaged DCG, AP per distinct score,
  label ranking AP and loss, coverage error; float32 scores, the score > 0 rule, ``empty_target_action``);
* :mod:`.rs_metrics`: rs_metrics' popularity (mean share of the training users who rated each item);
* :mod:`.daisyrec`: DaisyRec's AP and nDCG over the hits of the list and its F1 undefined without a hit;
* :mod:`.evidently`: evidently's top-k values over the list and its missed relevant items (its MAP's
  last-row relevance, its new API's NDCG and MRR a rank late, F-beta of the mean precision and recall);
* :mod:`.opr`: One-Plus-Random per-case measures and per-case / per-user averaging;
* :mod:`.custom`: measures of the user's own (:func:`register_measure`, ``--measures-from``, the entry points
  of group ``trecrs.measures``).

:mod:`.registry` holds :data:`~.registry.REGISTRY` (name -> measure), the ``name.params`` syntax and the
data conventions; ``trecrs eval -m`` and :func:`trecrs.evaluate` look names up there. The registry imports
no family: importing this package imports every family module, and each registers its measures.
:mod:`.evaluation` computes the requested measures of one evaluation (:func:`evaluate_extras`).
"""

from ...files.scores import read_predictions  # noqa: I001 - the families import in registration order
from . import (  # noqa: F401 - each module registers its measures
    beyond,
    calibration,
    cascade,
    classification,
    compat,
    cornac,
    custom,
    cwl,
    diversity,
    error,
    frameworks,
    opr,
    pooled,
    popularity_bias,
    ranking,
    rectools,
    replay,
    ranx,  # after rectools and replay: registration order is the order measures print in
    rs_metrics,
    daisyrec,
    evidently,
    sklearn,
    torchmetrics,
    implicit,
    lightfm,
    recommenders,
)
from .beyond import gini_index, popularity_strata, shannon_entropy
from .custom import load_entry_points, load_measures_file, register_measure
from .error import error_measures, mae, mse, nmae, nrmse, rmse
from .evaluation import evaluate_extras
from .opr import OPR_AVERAGES
from .popularity_bias import mean_absolute_difference
from .registry import REGISTRY, ExtraMeasure, register

__all__ = [
    "OPR_AVERAGES",
    "REGISTRY",
    "ExtraMeasure",
    "error_measures",
    "evaluate_extras",
    "gini_index",
    "load_entry_points",
    "load_measures_file",
    "mae",
    "mean_absolute_difference",
    "mse",
    "nmae",
    "nrmse",
    "popularity_strata",
    "read_predictions",
    "register",
    "register_measure",
    "rmse",
    "shannon_entropy",
]
