"""The experiment of Tamm, Damdinov & Vasilev (RecSys 2021) as run here: the protocol, the metrics, and
which measure name gives each library's definition of each metric.

:data:`LIBRARIES` is the one table to edit when a dialect gains a name: library -> metric -> the trecrs
measure name (``prefix:Name@k``) that computes that library's definition, or absent when the library has
no such metric. A name whose prefix this version of trecrs does not register is reported as not available.
"""

from __future__ import annotations

from dataclasses import dataclass, field

K = 20  # the paper's cutoff (compare_metrics README: "All metrics are calculated at depth cut-off k=20")
# EASE's lambda: compare_metrics' model.ipynb fits EASE with its default lambda_=0.5 on binary X
REGULARIZATION = 0.5
# A global temporal split: the latest 20% of the ratings are the test period (the paper's test.csv is a
# window of time, 2006-06-06 to 2009-01-05); relevant = the top rating (theirs: rating >= 4.5 of 5 in
# half stars; MovieLens 100K has whole stars, so 5)
SPLIT = {"method": "temporal", "ratio": "0.2"}
RELEVANT_RATING = 5.0
# The paper's metric names, the rows of the table (AUC@20: RePlay's RocAuc(k), AUC: over the full ranking)
METRICS: tuple[str, ...] = (
    "Precision@20", "Recall@20", "HitRate@20", "MAP@20", "MRR@20", "NDCG@20", "AUC@20", "AUC",
)  # fmt: skip
RESULTS_COLUMNS = ("library", "metric", "measure", "value", "status")
FIGURE_NAME = "tamm2021_spread.png"
AVAILABLE = "computed"
UNAVAILABLE = "not available in this version"


@dataclass(frozen=True)
class Library:
    """A library as the table shows it: its column label, its trecrs prefix, its name in the paper's
    ``res_full.csv`` (None when the paper did not measure it), and its measure name per metric."""

    label: str
    prefix: str
    paper: str | None
    names: dict[str, str] = field(default_factory=dict)


def _lib(label: str, prefix: str, paper: str | None, *names: str) -> Library:
    """A :class:`Library` whose ``names`` follow :data:`METRICS`' order, "" where the library has none."""
    return Library(
        label, prefix, paper, {m: f"{prefix}:{n}" for m, n in zip(METRICS, names, strict=True) if n}
    )


# Precision, Recall, HitRate, MAP, MRR, NDCG at 20, AUC at 20, AUC over the full ranking ("" = none)
LIBRARIES: tuple[Library, ...] = (
    _lib("RecBole", "recbole", "RecBole", "precision@20", "recall@20", "hit@20", "map@20", "mrr@20", "ndcg@20", "", "auc"),
    _lib("Elliot", "elliot", "Elliot", "Precision@20", "Recall@20", "HR@20", "MAP@20", "MRR@20", "nDCG@20", "", "AUC"),
    _lib("DaisyRec", "daisyrec", "DaisyRec", "Precision@20", "Recall@20", "HR@20", "MAP@20", "MRR@20", "NDCG@20", "AUC@20", ""),
    _lib("MS Recommenders", "recommenders", "MS_Recommenders", "precision_at_k@20", "recall_at_k@20", "", "map_at_k@20", "", "ndcg_at_k@20", "", ""),
    _lib("rs_metrics", "rs_metrics", "RS_metrics", "precision@20", "recall@20", "hitrate@20", "mapr@20", "mrr@20", "ndcg@20", "", ""),
    _lib("RePlay", "replay", "RePlay", "Precision@20", "Recall@20", "HitRate@20", "MAP@20", "MRR@20", "NDCG@20", "RocAuc@20", ""),
    _lib("LensKit", "lenskit", None, "Precision@20", "Recall@20", "Hit@20", "AveragePrecision@20", "RecipRank@20", "NDCG@20", "", ""),
    _lib("ranx", "ranx", None, "precision@20", "recall@20", "hit_rate@20", "map@20", "mrr@20", "ndcg@20", "", ""),
    _lib("RecTools", "rectools", None, "Precision@20", "Recall@20", "HitRate@20", "MAP@20", "MRR@20", "NDCG@20", "PartialAUC@20", ""),
    _lib("Cornac", "cornac", None, "Precision@20", "Recall@20", "HitRatio@20", "", "", "NDCG@20", "", "AUC"),
    _lib("scikit-learn", "sklearn", None, "", "", "", "", "", "ndcg_score@20", "", "roc_auc_score"),
    _lib("torchmetrics", "torchmetrics", None, "RetrievalPrecision@20", "RetrievalRecall@20", "RetrievalHitRate@20", "RetrievalMAP@20", "RetrievalMRR@20", "RetrievalNormalizedDCG@20", "RetrievalAUROC@20", ""),
    _lib("implicit", "implicit", None, "precision_at_k@20", "", "", "mean_average_precision_at_k@20", "", "ndcg_at_k@20", "AUC_at_k@20", ""),
    _lib("LightFM", "lightfm", None, "precision_at_k@20", "recall_at_k@20", "", "", "", "", "", "auc_score"),
    _lib("evidently", "evidently", None, "PrecisionTopK@20", "RecallTopK@20", "HitRate@20", "MAP@20", "MRR@20", "NDCG@20", "", ""),
)  # fmt: skip

# The paper's libraries no measure name here reproduces, and why.
NOT_REPRODUCED: dict[str, str] = {
    "Beta-RecSys": "beta-rec 0.3.2 pins pandas 1.0.3 and ray 1.0.1, which have no build for this Python (3.10+); "
    "its metrics are Microsoft Recommenders' python_evaluation (the published values are MS Recommenders' to "
    "the last digit)",
    "NeuRec": "not a package: the paper copied its evaluator/backend/python/metric.py into a notebook; "
    "no dialect yet",
    "OpenRec": "its metrics run on TensorFlow tensors (openrec.tf1 evaluators, openrec.tf2 ranking_metrics); "
    "TensorFlow is not installed here; no dialect yet",
    "RecSys2019_DL_Eval": "not a package: the paper copied Base/Evaluation/Evaluator.py into a notebook; "
    "no dialect yet",
    "Surprise": "its precision@k/recall@k are an example script for rating predictions, not a library metric",
    "RecSys_PyTorch": "not a package (a research repository); not in the published table",
}
