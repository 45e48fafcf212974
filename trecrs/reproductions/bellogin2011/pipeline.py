"""The Bellogín et al. (2011) pipeline as trecrs command lines, and :func:`reproduce`, which runs it.

The plan is data: per fold, the command lines written to
``OUT/{split}/{fold}/commands.txt`` (:func:`fold_batch`: qrels, AllItems' candidates, each recommender's
scores and its runs under the five run methodologies, ``trecrs eval`` of each, ``trecrs audit``), then per
methodology a study file and its ``trecrs study`` line (:func:`study_plan`), then ``trecrs report``. Every
file it leaves (manifests included) is, byte for byte, the one ``scripts/reproduce_bellogin2011.sh`` left
when it ran these steps itself (the fingerprints of tests/regression/); the script now calls
:func:`reproduce` through ``python -m trecrs.cli.reproduce_runner``.

``python -m trecrs.reproductions.bellogin2011.pipeline OUT [FOLD...]`` prints the folds' commands files.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ...errors import FileAccessError, UsageError
from ...files.output import deferred_writes
from ..batches import Batch, ProgressBar, RunBatch, command_line, count_lines, run_batches, sample_data, say
from .constants import FIGURE_NAME, LEVEL, LEVELS, METRICS, RECOMMENDERS, SPLITS

if TYPE_CHECKING:
    from ...report.records import ReportResult

PathLike = str | os.PathLike

#: each run's label (in its file name) -> the trecrs methodology that draws its candidates
RUN_METHODOLOGIES: dict[str, str] = {
    "TR": "test-ratings",
    "TeI": "test-items",
    "TrI": "training-items",
    "AI": "all-items",
    "OPR": "one-plus-random",
}
#: the report's methodology -> (the qrels file it is scored against, the run label); TeI/TrI/AI at -l LEVEL
STUDIES: dict[str, tuple[str, str]] = {
    "TR_3": ("th3", "TR"),
    "TR_4": ("th4", "TR"),
    "TeI": ("all", "TeI"),
    "TrI": ("all", "TrI"),
    "AI": ("all", "AI"),
    "OPR": ("opr", "OPR"),
}
BASELINE = "SVD50"  # the study's paired tests are against it
FOLDS: tuple[str, ...] = tuple(f for folds in SPLITS.values() for f in folds)
SPLIT_OF: dict[str, str] = {f: s for s, folds in SPLITS.items() for f in folds}


def _measures() -> list[str]:
    """``-m P.50 -m recall.50 -m ndcg_cut.50``: the paper's metrics as trec_eval names them."""
    return [w for m in METRICS for w in ("-m", ".".join(m.rsplit("_", 1)))]


def fold_batch(out: str, fold: str, seed: int = 1) -> Batch:
    """The commands of ``fold`` (``u1``..``u5``, ``ua``, ``ub``) writing into ``OUT/{split}/{fold}``."""
    split = SPLIT_OF[fold]
    d, train, test = f"{out}/{split}/{fold}", f"{out}/splits/{fold}.base", f"{out}/splits/{fold}.test"
    lines = [f"# Bellogín et al. 2011, fold {fold} of {split}"]
    lines += [
        command_line("qrels", "--test", test, "--threshold", t, "-o", f"{d}/{name}.qrels")
        for t, name in ((3, "th3"), (4, "th4"), (1, "all"))
    ]
    lines.append(
        command_line(
            "qrels",
            "--methodology",
            "one-plus-random",
            "--test",
            test,
            "--relevant-threshold",
            5,
            "-o",
            f"{d}/opr.qrels",
        )
    )
    pairs = f"{d}/all-items.pairs"  # AllItems' candidates contain every other methodology's
    lines.append(
        command_line(
            "candidates", "--methodology", "all-items", "--train", train, "--test", test, "-o", pairs
        )
    )
    for rec in RECOMMENDERS:
        scores = f"{d}/{rec}.scores.parquet"
        lines.append(
            command_line(
                "recommend",
                "--algorithm",
                rec,
                "--seed",
                seed,
                "--train",
                train,
                "--candidates",
                pairs,
                "--unscored",
                "drop",
                "-o",
                scores,
                "--predict",
                test,
                "--predictions",
                f"{d}/{rec}.pred",
            )
        )
        lines += [
            command_line(
                "run",
                "--methodology",
                name,
                "--train",
                train,
                "--test",
                test,
                "--n",
                1000,
                "--relevant-threshold",
                5,
                "--seed",
                seed,
                "--scores",
                scores,
                "--missing",
                "drop",
                "--depth",
                50,
                "--tag",
                rec,
                "-o",
                f"{d}/{rec}.{label}.run",
            )
            for label, name in RUN_METHODOLOGIES.items()
        ]
    lines += _evaluations(d)
    lines += _audits(d, train, test, pairs, seed)
    return Batch(fold, d, tuple(lines), done_marker=True)


def _runs(d: str, *labels: str) -> list[str]:
    return [f"{d}/{rec}.{label}.run" for rec in RECOMMENDERS for label in labels]


def _evaluations(d: str) -> list[str]:
    """``trecrs eval`` of the runs against the qrels each methodology uses (TeI/TrI/AI at each of LEVELS)."""
    m = [*_measures(), "--format", "tsv"]
    lines = [
        command_line("eval", *m, "-o", f"{d}/eval.TR_{t}.tsv", f"{d}/th{t}.qrels", *_runs(d, "TR"))
        for t in (3, 4)
    ]
    lines += [
        command_line(
            "eval",
            *_measures(),
            "-l",
            level,
            "--format",
            "tsv",
            "-o",
            f"{d}/eval.l{level}.tsv",
            f"{d}/all.qrels",
            *_runs(d, "TeI", "TrI", "AI"),
        )
        for level in LEVELS
    ]
    lines.append(command_line("eval", *m, "-o", f"{d}/eval.OPR.tsv", f"{d}/opr.qrels", *_runs(d, "OPR")))
    return lines


def _audits(d: str, train: str, test: str, pairs: str, seed: int) -> list[str]:
    """``trecrs audit`` (docs/audit.md): the TestRatings runs against TR_4's qrels, the AllItems runs against
    every test rating at ``-l 4`` with the AllItems candidates."""
    common = ["--train", train, "--test", test]
    m = ["-m", "P.50", "-m", "ndcg_cut.50", "--seed", seed]
    return [
        command_line(
            "audit",
            *common,
            "--qrels",
            f"{d}/th4.qrels",
            *m,
            "--format",
            "json",
            "-o",
            f"{d}/audit.TR.json",
            *_runs(d, "TR"),
        ),
        command_line(
            "audit",
            *common,
            "--qrels",
            f"{d}/all.qrels",
            "-l",
            LEVEL,
            *m,
            "--candidates",
            pairs,
            "--format",
            "json",
            "-o",
            f"{d}/audit.AI.json",
            *_runs(d, "AI"),
        ),
    ]


def study_plan(out: str, folds: Sequence[str]) -> list[tuple[str, str, list[str]]]:
    """Per methodology: the study file's path, its text, and the ``trecrs study`` arguments that read it.

    The study file lists each (split, fold, recommender) with the fold's test and training sizes, which
    select Nadeau & Bengio's corrected resampled t test (the folds' training sets overlap); paths are
    relative to the study file. Needs the split files (their line counts).
    """
    sizes = {f: (count_lines(f"{out}/splits/{f}.test"), count_lines(f"{out}/splits/{f}.base")) for f in folds}
    plans = []
    for label, (qrels, tag) in STUDIES.items():
        rows = ["dataset\tfold\tsystem\tqrels\trun\ttest_size\ttrain_size"]
        for f in folds:
            d = f"../{SPLIT_OF[f]}/{f}"
            rows += [
                f"{SPLIT_OF[f]}\t{f}\t{rec}\t{d}/{qrels}.qrels\t{d}/{rec}.{tag}.run\t{sizes[f][0]}\t{sizes[f][1]}"
                for rec in RECOMMENDERS
            ]
        path = f"{out}/study/{label}.tsv"
        level = ["-l", str(LEVEL)] if qrels == "all" else []
        args = [
            "study",
            path,
            *_measures(),
            *level,
            "--baseline",
            BASELINE,
            "--quiet",
            "--format",
            "json",
            "-o",
            f"{out}/study/{label}.json",
        ]
        plans.append((path, "".join(r + "\n" for r in rows), args))
    return plans


def check_folds(folds: Iterable[str] | None) -> tuple[str, ...]:
    """The folds to run, in the order given (default: all seven); an unknown or repeated one is refused."""
    chosen = FOLDS if folds is None else tuple(folds)
    unknown = [f for f in chosen if f not in SPLIT_OF]
    if unknown or not chosen or len(set(chosen)) < len(chosen):
        why = f"unknown fold {unknown[0]!r}" if unknown else "no fold" if not chosen else "a fold named twice"
        raise UsageError(f"{why}; choose among {', '.join(FOLDS)}", arguments=["folds"])
    return chosen


def check_data(data: str) -> None:
    """The data folder holds a ``u.data``; else :class:`FileAccessError`."""
    if not Path(f"{data}/u.data").is_file():
        raise FileAccessError(
            f"{data}/u.data", None, "not found (the data folder must hold a MovieLens 100K u.data)"
        )


def make_splits(data: str, out: str) -> None:
    """``trecrs datasets ml100k-splits DATA/u.data OUT/splits``, its note in ``OUT/splits.log``."""
    from ...data.datasets import ml100k_splits

    u_data = f"{data}/u.data"
    with deferred_writes():
        paths = ml100k_splits(u_data, f"{out}/splits")
    # what `trecrs datasets ml100k-splits` prints on stderr, kept as the script keeps it
    Path(f"{out}/splits.log").write_text(
        f"trecrs: wrote {len(paths)} files to {out}/splits: {' '.join(paths)}\n"
    )


def run_studies(out: str, folds: Sequence[str], run_batch: RunBatch) -> None:
    """The five-fold table of each methodology through ``trecrs study`` (docs/study.md): the study files in
    ``OUT/study/``, their lines run as one batch whose log and progress stay outside ``OUT``."""
    plans = study_plan(out, folds)
    Path(f"{out}/study").mkdir(parents=True, exist_ok=True)
    for path, text, _ in plans:
        Path(path).write_text(text)
    with tempfile.TemporaryDirectory(prefix="trecrs-study-") as tmp:
        lines = ("# Bellogín et al. 2011, five-fold tables", *(command_line(*args) for *_, args in plans))
        run_batches([Batch("the five-fold tables (trecrs study)", tmp, lines)], run_batch, 1)


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
    """Run the whole reproduction of Bellogín, Castells & Cantador (RecSys 2011, Figure 2) into ``out_dir``
    and write its report (what ``scripts/reproduce_bellogin2011.sh DATA_DIR OUT_DIR`` runs).

    ``data_dir``: a folder with MovieLens 100K's ``u.data`` (default: the bundled synthetic sample,
    generated into ``OUT/synth-100k-like``); ``jobs``: folds run at once (each a ``run_batch`` call);
    ``seed``: of the One-Plus-Random draws, SVD50's factors and the audits; ``folds``: a subset of
    ``u1..u5, ua, ub``; ``reference``: the published values (default: Figure 2's D1 bars, compared only on
    MovieLens 100K); ``run_batch(commands, log, progress) -> status``: runs one commands file as
    ``trecrs batch`` does; ``progress``: where the bar and the start and end lines go (None: nowhere).
    A failed fold lets the others finish, then raises :class:`~trecrs.reproductions.batches.ReproductionError`.
    """
    from .. import make_report

    chosen = check_folds(folds)
    if jobs < 1:
        raise UsageError(f"must be at least 1, got {jobs}", arguments=["jobs"])
    out = os.fspath(out_dir)
    if data_dir is not None:
        check_data(os.fspath(data_dir))
    Path(out).mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    data = os.fspath(data_dir) if data_dir is not None else sample_data(out)
    say(
        progress,
        f"Reproducing Bellogín et al. 2011 on {data} -> {out} ({len(chosen)} folds, {jobs} at a time)",
    )
    make_splits(data, out)
    batches = [fold_batch(out, f, seed) for f in chosen]
    with ProgressBar(batches, progress, started):
        run_batches(batches, run_batch, jobs)
    run_studies(out, chosen, run_batch)
    elapsed = int(time.monotonic() - started)  # whole seconds, as the script's $SECONDS
    ref = ["--reference", os.fspath(reference)] if reference else []
    command = [
        "trecrs",
        "report",
        "bellogin2011",
        out,
        *ref,
        "--runtime",
        str(elapsed),
        "--jobs",
        str(jobs),
        "--data",
        data,
    ]
    with deferred_writes():
        result = make_report(
            "bellogin2011",
            out,
            reference=reference or None,
            runtime=float(elapsed),
            jobs=jobs,
            data=data,
            command=command,
        )
    elapsed = int(time.monotonic() - started)
    say(progress, f"Done in {elapsed}s: {out}/report.md, {out}/results.tsv, {out}/{FIGURE_NAME}")
    return result


def main(argv: Sequence[str]) -> int:
    """Print the commands files of the folds (``OUT [FOLD...]``; default: all seven)."""
    if not argv:
        print("usage: python -m trecrs.reproductions.bellogin2011.pipeline OUT [FOLD...]", file=sys.stderr)
        return 2
    out, folds = argv[0], check_folds(argv[1:] or None)
    for f in folds:
        sys.stdout.write(fold_batch(out, f).text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
