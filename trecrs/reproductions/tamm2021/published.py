"""The values Tamm, Damdinov & Vasilev (RecSys 2021) published: EASE's top-20 list on MovieLens 20M scored
by each library, as their repository holds them.

Source: github.com/Darel13712/compare_metrics, ``res_full.csv`` (last changed in commit deb2ca8,
2021-07-09; published as ``res.csv`` from commit a37c693 on, the same bytes), the paper's Table 1; RePlay's
row from the output of ``RePlay.ipynb`` (RePlay 0.4.0; printed to six digits). ``*`` in DaisyRec's MAP@20
is the authors' mark (DaisyRec divides by the hits, see docs/frameworks.md); DaisyRec's AUC@20 raised an
error ("FAILED", two values printed), kept as text. Facts, not code: the values are as published, the
paper's names mapped to the rows of :data:`~.constants.METRICS` (``RocAuc@20`` -> ``AUC@20``,
``RocAuc`` -> ``AUC``).
"""

from __future__ import annotations

SOURCE = "github.com/Darel13712/compare_metrics res_full.csv (commit deb2ca8), RePlay.ipynb"

# paper library -> metric -> the value as written in res_full.csv ("-" = not computed)
PUBLISHED: dict[str, dict[str, str]] = {
    "DaisyRec": {"HitRate@20": "0.47457006952067327", "MAP@20": "0.022970972145948697*", "MRR@20": "0.2748816881385201", "NDCG@20": "0.09326437896736813", "Precision@20": "0.0575192096597146", "Recall@20": "0.09632131280310641", "AUC@20": "FAILED (0.19139559641952136 | 0.4033031341669637)", "AUC": "-"},
    "RecBole": {"HitRate@20": "0.47457006952067327", "MAP@20": "0.03927176078866248", "MRR@20": "0.18632413351027097", "NDCG@20": "0.09326437896736814", "Precision@20": "0.057519209659714604", "Recall@20": "0.09632131280310642", "AUC@20": "-", "AUC": "0.686625474152309"},
    "Elliot": {"HitRate@20": "0.47457006952067327", "MAP@20": "0.07298532565140084", "MRR@20": "0.18632413351027094", "NDCG@20": "0.08984914516171721", "Precision@20": "0.0575192096597146", "Recall@20": "0.09632131280310641", "AUC@20": "-", "AUC": "0.6881719788628613"},
    "Beta_recsys": {"HitRate@20": "-", "MAP@20": "0.031690245847362415", "MRR@20": "-", "NDCG@20": "0.09326437896736813", "Precision@20": "0.0575192096597146", "Recall@20": "0.09632131280310642", "AUC@20": "-", "AUC": "0.686625474152309"},
    "MS_Recommenders": {"HitRate@20": "-", "MAP@20": "0.031690245847362415", "MRR@20": "-", "NDCG@20": "0.09326437896736813", "Precision@20": "0.0575192096597146", "Recall@20": "0.09632131280310642", "AUC@20": "-", "AUC": "0.686625474152309"},
    "OpenRec": {"HitRate@20": "-", "MAP@20": "-", "MRR@20": "-", "NDCG@20": "0.4626283", "Precision@20": "0.0575192096597146", "Recall@20": "0.096321315", "AUC@20": "-", "AUC": "0.7048781"},
    "NeuRec": {"HitRate@20": "0.47457007", "MAP@20": "0.0028783712115732244", "MRR@20": "0.18632413", "NDCG@20": "0.09326437896736813", "Precision@20": "0.0575192096597146", "Recall@20": "0.096321315", "AUC@20": "-", "AUC": "-"},
    "RecSys2019_DL_Eval": {"HitRate@20": "1.150384193194292", "MAP@20": "0.03927176078866242", "MRR@20": "0.18632413351027025", "NDCG@20": "0.07981995730519437", "Precision@20": "0.057519209659714604", "Recall@20": "0.09632131280310642", "AUC@20": "0.28317447310115185", "AUC": "-"},
    "RS_metrics": {"HitRate@20": "0.47457006952067327", "MAP@20": "0.031690245847362415", "MRR@20": "0.18632413351027097", "NDCG@20": "0.09326437896736813", "Precision@20": "0.057519209659714604", "Recall@20": "0.09632131280310642", "AUC@20": "-", "AUC": "-"},
    "RePlay": {"HitRate@20": "0.474570", "MAP@20": "0.039272", "MRR@20": "0.186324", "NDCG@20": "0.093264", "Precision@20": "0.057519", "Recall@20": "0.096321", "AUC@20": "0.283174", "AUC": "-"},
}  # fmt: skip


def published_value(library: str, metric: str) -> float | None:
    """The published number of ``library`` (a paper name) for ``metric``; None when not computed or failed."""
    text = PUBLISHED.get(library, {}).get(metric, "-").rstrip("*")
    try:
        return float(text)
    except ValueError:
        return None
