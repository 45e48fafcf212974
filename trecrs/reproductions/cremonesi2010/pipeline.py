"""The Cremonesi et al. (2010) pipeline as trecrs command lines, and :func:`reproduce`, which runs it.

The plan is data (:func:`batch`): the command lines written to
``OUT/commands.txt`` (the probe split, One-Plus-Random's candidates, the full and long-tail qrels, each
recommender's scores and run, ``trecrs eval`` of recall(1..20)), with the protocol's constants
(:mod:`.constants`); then ``trecrs report``. Every file it leaves (manifests included) is, byte for byte,
the one ``scripts/reproduce_cremonesi2010.sh`` left when it ran these steps itself (the fingerprints of
tests/regression/); the script now calls :func:`reproduce`.

``python -m trecrs.reproductions.cremonesi2010.pipeline OUT DATA_DIR`` prints the commands file.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ...errors import FileAccessError, UsageError
from ...files.output import deferred_writes
from ..batches import Batch, ProgressBar, RunBatch, command_line, run_batches, sample_data, say
from .constants import (
    CUTOFFS,
    FIGURE_NAME,
    PROBE_RATIO,
    PROBE_THRESHOLD,
    RANDOM_ITEMS,
    RECOMMENDERS,
    SHORT_HEAD_SHARE,
)

if TYPE_CHECKING:
    from ...report.records import ReportResult

PathLike = str | os.PathLike

RATINGS_FILES = (
    "u.data",
    "ratings.dat",
    "ratings.csv",
)  # MovieLens 100K, 1M/10M, 20M and later: the first found


def ratings_file(data: str) -> str:
    """The ratings file of the MovieLens folder ``data`` (the first of :data:`RATINGS_FILES` present)."""
    for name in RATINGS_FILES:
        if Path(f"{data}/{name}").is_file():
            return f"{data}/{name}"
    raise FileAccessError(
        data, None, f"no {', '.join(RATINGS_FILES[:-1])} or {RATINGS_FILES[-1]} in the folder"
    )


def batch(out: str, ratings: str, seed: int = 1) -> Batch:
    """The commands of the experiment on ``ratings``, writing into ``OUT``."""
    name = Path(ratings).name
    ext = Path(name).suffix if name != "u.data" else ""  # the split keeps the ratings file's layout
    train, test = f"{out}/split/train{ext}", f"{out}/split/test{ext}"
    lines = [f"# Cremonesi et al. 2010 on {ratings}", *_protocol(out, ratings, train, test, seed)]
    runs = [f"{out}/{rec}.run" for rec in RECOMMENDERS]
    for rec, run in zip(RECOMMENDERS, runs, strict=True):
        lines += _recommender(out, rec, train, run, seed)
    # recall(N) = #hits / |T|: trec_eval's recall_N averaged over every test case (-c)
    recall = ["-c", "-m", "recall." + ",".join(map(str, CUTOFFS)), "--format", "tsv"]
    lines += [
        command_line("eval", *recall, "-o", f"{out}/eval.{t}.tsv", f"{out}/{t}.qrels", *runs)
        for t in ("full", "longtail")
    ]
    return Batch("the pipeline", out, tuple(lines))


def _protocol(out: str, ratings: str, train: str, test: str, seed: int) -> list[str]:
    """The probe split, One-Plus-Random's candidates, the full and the long-tail qrels."""
    opr = ["--methodology", "one-plus-random"]
    relevant = ["--relevant-threshold", str(PROBE_THRESHOLD)]
    probe = [
        "--method",
        "probe",
        "--ratio",
        PROBE_RATIO,
        "--threshold",
        str(PROBE_THRESHOLD),
        "--seed",
        str(seed),
    ]
    draw = ["--n", str(RANDOM_ITEMS), *relevant, "--seed", str(seed)]
    return [
        # probe: a random 1.4% of the ratings; test = its 5-star ratings; train = every other rating
        command_line("split", *probe, ratings, f"{out}/split"),
        # One-Plus-Random: each test rating's item with 1,000 random items the user has not rated
        command_line("candidates", *opr, "--train", train, "--test", test, *draw, "-o", f"{out}/opr.pairs"),
        command_line("qrels", *opr, "--test", test, *relevant, "-o", f"{out}/full.qrels"),
        # long tail: only test items outside the short head (the most popular items with 33% of the ratings)
        command_line(
            "qrels",
            *opr,
            "--test",
            test,
            "--train",
            train,
            *relevant,
            "--long-tail",
            str(SHORT_HEAD_SHARE),
            "-o",
            f"{out}/longtail.qrels",
        ),
    ]


def _recommender(out: str, rec: str, train: str, run: str, seed: int) -> list[str]:
    """A recommender's scores of the candidates and its run: what it cannot score (MovieAvg: items nobody
    rated) is dropped from the scores and ranked last by ``run --missing last``."""
    pairs, scores = f"{out}/opr.pairs", f"{out}/{rec}.scores.parquet"
    fit = ["--algorithm", rec, "--seed", str(seed), "--train", train, "--candidates", pairs]
    rank = ["--candidates", pairs, "--scores", scores, "--missing", "last", "--depth", str(max(CUTOFFS))]
    return [
        command_line("recommend", *fit, "--unscored", "drop", "-o", scores),
        command_line("run", *rank, "--tag", rec, "-o", run),
    ]


def reproduce(
    out_dir: PathLike,
    data_dir: PathLike | None = None,
    *,
    jobs: int = 2,
    seed: int = 1,
    folds: Iterable[str] | None = None,
    reference: PathLike | None = None,
    run_batch: RunBatch,
    progress: TextIO | None = None,
) -> ReportResult:
    """Run the MovieLens experiment of Cremonesi, Koren & Turrin (RecSys 2010) into ``out_dir`` and write
    its report (what ``scripts/reproduce_cremonesi2010.sh DATA_DIR OUT_DIR`` runs).

    ``data_dir``: a MovieLens folder (``u.data``, ``ratings.dat`` or ``ratings.csv``; default: the bundled
    synthetic sample, generated into ``OUT/synth-100k-like``); ``seed``: of the probe split and the random
    items; ``run_batch(commands, log, progress) -> status``: runs the commands file as ``trecrs batch``
    does; ``progress``: where the bar and the start and end lines go (None: nowhere). The pipeline is one
    batch: ``jobs`` changes nothing, and there are no ``folds`` and no published values to compare with
    (``reference``); naming either is refused. A failed step raises
    :class:`~trecrs.reproductions.batches.ReproductionError`.
    """
    from .. import make_report

    if folds is not None or reference is not None:
        raise UsageError(
            "cremonesi2010 has no folds and no reference values", arguments=["folds", "reference"]
        )
    out = os.fspath(out_dir)
    ratings = ratings_file(os.fspath(data_dir)) if data_dir is not None else ""
    Path(out).mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    data = os.fspath(data_dir) if data_dir is not None else sample_data(out)
    ratings = ratings or ratings_file(data)
    pipeline = batch(out, ratings, seed)
    say(progress, f"Reproducing Cremonesi et al. 2010 on {ratings} -> {out}")
    with ProgressBar([pipeline], progress, started):
        run_batches([pipeline], run_batch, 1)
    elapsed = int(time.monotonic() - started)  # whole seconds, as the script's $SECONDS
    command = ["trecrs", "report", "cremonesi2010", out, "--runtime", str(elapsed), "--data", data]
    with deferred_writes():
        result = make_report("cremonesi2010", out, runtime=float(elapsed), data=data, command=command)
    elapsed = int(time.monotonic() - started)
    say(progress, f"Done in {elapsed}s: {out}/report.md, {out}/results.tsv, {out}/{FIGURE_NAME}")
    return result


def main(argv: Sequence[str]) -> int:
    """Print the commands file (``OUT DATA_DIR``)."""
    if len(argv) != 2:
        print("usage: python -m trecrs.reproductions.cremonesi2010.pipeline OUT DATA_DIR", file=sys.stderr)
        return 2
    sys.stdout.write(batch(argv[0], ratings_file(argv[1])).text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
