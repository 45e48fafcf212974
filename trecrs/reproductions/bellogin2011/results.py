"""The Bellogín et al. (2011) results: every fold's evaluations gathered into one table, fold means.

Layout read (written by :func:`.pipeline.reproduce`): ``OUT/splits/{fold}.base|.test`` and, per
split D1 (folds u1..u5) and D2 (ua, ub), ``OUT/{split}/{fold}/`` holding ``{REC}.pred`` (predicted test
ratings) and the ``trecrs eval --format tsv`` outputs ``eval.TR_3.tsv``, ``eval.TR_4.tsv`` (runs
``{REC}.TR.run`` against the threshold-3 / threshold-4 qrels), ``eval.l{1,3,4}.tsv`` (runs
``{REC}.{TeI,TrI,AI}.run`` against all test ratings with ``-l 1, 3, 4``) and ``eval.OPR.tsv`` (runs
``{REC}.OPR.run`` against the One-Plus-Random qrels).
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from ...errors import InputError
from ...files.ratings import read_ratings
from ...files.scores import read_predictions
from ...measures.recsys.error import error_measures
from ...report.tables import read_eval
from .constants import (
    FOLD_ORDER,
    LEVEL,
    LEVELS,
    METHODOLOGY_ORDER,
    METRIC_ORDER,
    METRICS,
    NON_TR,
    RECOMMENDERS,
    RESULTS_COLUMNS,
    SPLITS,
)

PathLike = str | os.PathLike

COVERAGE_SCHEMA = {"split": pl.Utf8, "fold": pl.Utf8, "recommender": pl.Utf8, "coverage": pl.Float64}


def _eval_rows(d: Path, split: str, fold: str, level: int) -> list[dict]:
    """One fold's P@50, Recall@50, nDCG@50 of every methodology (TeI/TrI/AI at trec_eval ``-l level``)."""
    rows = []
    sources = [
        ("eval.TR_3.tsv", "TR", "TR_3"),
        ("eval.TR_4.tsv", "TR", "TR_4"),
        ("eval.OPR.tsv", "OPR", "OPR"),
    ]
    sources += [(f"eval.l{level}.tsv", m, m) for m in NON_TR]
    for fname, tag, methodology in sources:
        ev = read_eval(d / fname)
        for run, measure, value in ev.select("run", "measure", "value").iter_rows():
            parts = run.split(".")  # {REC}.{tag}.run
            if len(parts) < 3 or parts[1] != tag or measure not in METRICS:
                continue
            rows.append(
                {
                    "split": split,
                    "fold": fold,
                    "recommender": parts[0],
                    "methodology": methodology,
                    "metric": METRICS[measure],
                    "value": value,
                }
            )
    return rows


def _rmse_rows(d: Path, test: Path, split: str, fold: str) -> tuple[list[dict], list[dict]]:
    """One fold's RMSE of every recommender (methodology ``-``), and the share of test ratings predicted."""
    truth = read_ratings(test)
    rows, coverage = [], []
    for pred in sorted(d.glob("*.pred")):
        rec = pred.name[: -len(".pred")]
        m = dict(error_measures(read_predictions(pred), truth).iter_rows())
        rows.append(
            {
                "split": split,
                "fold": fold,
                "recommender": rec,
                "methodology": "-",
                "metric": "RMSE",
                "value": m["rmse"],
            }
        )
        coverage.append(
            {"split": split, "fold": fold, "recommender": rec, "coverage": m["prediction_coverage"]}
        )
    return rows, coverage


def collect_results(out_dir: PathLike, *, level: int = LEVEL) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per-fold values ``split fold recommender methodology metric value`` and RMSE coverage per fold.

    Folds absent from ``out_dir`` are skipped (a split with no fold at all is left out); a fold folder
    without its evaluation files is an error.
    """
    out = Path(out_dir)
    rows: list[dict] = []
    cover: list[dict] = []
    for split, folds in SPLITS.items():
        for fold in folds:
            d = out / split / fold
            if not d.is_dir():
                continue
            rows += _eval_rows(d, split, fold, level)
            r, c = _rmse_rows(d, out / "splits" / f"{fold}.test", split, fold)
            rows += r
            cover += c
    if not rows:
        raise InputError(out, None, "no fold results found (expected D1/u1 ... D2/ub folders)")
    schema = {c: pl.Utf8 for c in RESULTS_COLUMNS[:-1]} | {"value": pl.Float64}
    return pl.DataFrame(rows, schema=schema), pl.DataFrame(cover, schema=COVERAGE_SCHEMA)


def with_means(results: pl.DataFrame) -> pl.DataFrame:
    """Add, per split, rows with fold ``mean``: the arithmetic mean over the split's folds (as the paper)."""
    keys = ["split", "recommender", "methodology", "metric"]
    means = results.group_by(keys).agg(pl.col("value").mean()).with_columns(pl.lit("mean").alias("fold"))
    both = pl.concat([results, means.select(results.columns)])
    order = {
        "split": {s: k for k, s in enumerate(SPLITS)},
        "fold": FOLD_ORDER,
        "recommender": {r: k for k, r in enumerate(RECOMMENDERS)},
        "methodology": METHODOLOGY_ORDER,
        "metric": METRIC_ORDER,
    }
    sort_keys = [pl.col(c).replace_strict(o, default=len(o), return_dtype=pl.Int64) for c, o in order.items()]
    return both.sort([*sort_keys, "recommender"])


def value(res: pl.DataFrame, split: str, rec: str, meth: str, metric: str, fold: str = "mean") -> float:
    """One number of ``res`` (NaN when absent)."""
    v = res.filter(
        (pl.col("split") == split)
        & (pl.col("fold") == fold)
        & (pl.col("recommender") == rec)
        & (pl.col("methodology") == meth)
        & (pl.col("metric") == metric)
    ).get_column("value")
    return float(v[0]) if v.len() else float("nan")


def present(results: pl.DataFrame, column: str, names) -> list[str]:
    """The ``names`` (in their order) that occur in ``results[column]``."""
    return [n for n in names if results.filter(pl.col(column) == n).height]


def level_sensitivity(out_dir: PathLike) -> pl.DataFrame:
    """Means over folds of P@50 and Recall@50 of TeI/TrI/AI at each trec_eval -l level evaluated."""
    frames = []
    for level in LEVELS:
        try:
            res, _ = collect_results(out_dir, level=level)
        except InputError:
            continue
        res = res.filter(pl.col("methodology").is_in(list(NON_TR)))
        frames.append(
            res.group_by(["split", "recommender", "methodology", "metric"])
            .agg(pl.col("value").mean())
            .with_columns(pl.lit(level).alias("level"))
        )
    return pl.concat(frames) if frames else pl.DataFrame()
