"""The experiment of Bellogín, Castells & Cantador (RecSys 2011, Figure 2): splits, recommenders,
methodologies, metrics, and the relevance level of the methodologies the paper leaves open."""

from __future__ import annotations

SPLITS: dict[str, tuple[str, ...]] = {"D1": ("u1", "u2", "u3", "u4", "u5"), "D2": ("ua", "ub")}
RECOMMENDERS: tuple[str, ...] = ("SVD50", "IB", "UB50")
METHODOLOGIES: tuple[str, ...] = ("TR_3", "TR_4", "TeI", "TrI", "AI", "OPR")
# trec_eval measure -> the paper's name
METRICS: dict[str, str] = {"P_50": "P@50", "recall_50": "Recall@50", "ndcg_cut_50": "nDCG@50"}
LEVEL = 4  # relevance threshold of TeI, TrI, AI (trec_eval -l), see docs/reproductions.md
LEVELS: tuple[int, ...] = (1, 3, 4)  # evaluated too, for the sensitivity table
NON_TR = ("TeI", "TrI", "AI")  # the methodologies scored against every test rating with -l
RESULTS_COLUMNS = ("split", "fold", "recommender", "methodology", "metric", "value")
FOLD_ORDER = {f: k for k, f in enumerate([*SPLITS["D1"], *SPLITS["D2"], "mean"])}
# the row order of results and tables: RMSE (methodology "-") after the ranking metrics
METHODOLOGY_ORDER = {m: k for k, m in enumerate([*METHODOLOGIES, "-"])}
METRIC_ORDER = {m: k for k, m in enumerate([*METRICS.values(), "RMSE"])}
FIGURE_NAME = "bellogin2011_fig2.png"
