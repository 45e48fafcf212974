"""The Cremonesi et al. (2010) results: recall(N) and precision(N) of every recommender on both test sets.

Layout read (written by :func:`.pipeline.reproduce`): ``OUT/eval.full.tsv`` and
``OUT/eval.longtail.tsv``, recall.1..20 of the runs ``{REC}.run`` against the One-Plus-Random qrels
``OUT/full.qrels`` / ``OUT/longtail.qrels`` of all / long-tail test ratings.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from ...errors import InputError
from ...files.trec import read_qrels
from ...report.tables import read_eval
from .constants import RECOMMENDERS, RESULTS_COLUMNS, TESTSETS

PathLike = str | os.PathLike


def collect_results(out_dir: PathLike) -> pl.DataFrame:
    """``testset recommender N recall precision`` from ``eval.{full,longtail}.tsv``.

    recall(N) = #hits / |T| (the mean over test cases of trec_eval's recall_N, each case having one
    relevant item); precision(N) = recall(N) / N, as defined by Cremonesi et al. (2010, section 2).
    """
    out = Path(out_dir)
    rows = []
    for testset in TESTSETS:
        ev = read_eval(out / f"eval.{testset}.tsv")
        for run, measure, value in ev.select("run", "measure", "value").iter_rows():
            if not measure.startswith("recall_"):
                continue
            n = int(measure.split("_")[1])
            rec = run.split(".")[0]
            rows.append(
                {"testset": testset, "recommender": rec, "N": n, "recall": value, "precision": value / n}
            )
    if not rows:
        raise InputError(out, None, "no recall_N values in eval.full.tsv / eval.longtail.tsv")
    order = {r: k for k, r in enumerate(RECOMMENDERS)}
    return (
        pl.DataFrame(rows)
        .sort(
            pl.col("testset").replace_strict({t: k for k, t in enumerate(TESTSETS)}, return_dtype=pl.Int64),
            pl.col("recommender").replace_strict(order, default=len(order), return_dtype=pl.Int64),
            "recommender",
            "N",
        )
        .select(RESULTS_COLUMNS)
    )


def recall(res: pl.DataFrame, testset: str, rec: str, n: int) -> float:
    """recall(``n``) of ``rec`` on ``testset`` (NaN when absent)."""
    v = res.filter((pl.col("testset") == testset) & (pl.col("recommender") == rec) & (pl.col("N") == n))
    return float(v.get_column("recall")[0]) if v.height else float("nan")


def count_cases(out: Path) -> dict[str, int]:
    """Test set -> number of test cases (its qrels lines: One-Plus-Random judges one item per case), for
    the test sets whose qrels exist."""
    return {t: read_qrels(out / f"{t}.qrels").height for t in TESTSETS if (out / f"{t}.qrels").is_file()}
