"""``trecrs study``: conclusions across folds and data sets (corrected resampled t, Friedman, Nemenyi, CD diagram)."""

from __future__ import annotations

import sys

from .common import (
    OUTPUT_HELP,
    add_measures_from_option,
    add_scoring_options,
    argv,
    command,
    measure_file_inputs,
    note,
    scoring_settings,
    ties_parameters,
    wrote,
)

EXAMPLES = """examples:
  trecrs study study.tsv -m P.10 -m ndcg_cut.10                       # baseline: the first system listed
  trecrs study study.tsv -m nDCG@10 --baseline pop --format latex -o table.tex --plot cd.pdf
  trecrs study study.tsv -m map -l 4 --format json

study.tsv: a header line dataset<TAB>fold<TAB>system<TAB>qrels<TAB>run (optionally <TAB>test_size<TAB>train_size,
which select Nadeau & Bengio's corrected resampled t test), then one line per (dataset, fold, system); paths
relative to the study file (docs/study.md).
"""


def register(sub) -> None:
    from ..report.study_output import FORMATS

    p = command(
        sub,
        "study",
        help="conclusions across folds and data sets: intervals, corrected tests, ranks, CD",
        description="Evaluate every (dataset, fold, system) of a study file as 'trecrs eval' does, then per "
        "data set and system the mean over folds with its t interval and the paired test against the "
        "baseline (Nadeau & Bengio's corrected resampled t when sizes are given), and across data sets the "
        "average ranks, Friedman's test and Nemenyi's critical difference (docs/study.md).",
        epilog=EXAMPLES,
    )
    p.add_argument("study", metavar="STUDY", help="the study file (TSV with a header line)")
    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        required=True,
        metavar="MEASURE",
        help="a measure as 'trecrs eval -m' takes it; repeatable",
    )
    p.add_argument(
        "--baseline",
        metavar="SYSTEM",
        help="the system the others are tested against (default: the first listed)",
    )
    p.add_argument(
        "--alpha",
        type=_alpha,
        default=0.05,
        help="significance level, also 1 - interval level (default 0.05)",
    )
    p.add_argument("--format", choices=list(FORMATS), default="text", help="output format (default text)")
    p.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    p.add_argument(
        "--plot", metavar="FILE", help="draw the critical-difference diagram of each measure (.png or .pdf)"
    )
    add_scoring_options(p, complete=True)
    add_measures_from_option(p)
    p.set_defaults(func=run, outputs=("output", "plot"))


def _alpha(text: str) -> float:
    from .compare import _alpha as alpha

    return alpha(text)


def run(args) -> int:
    from ..errors import SemanticError, UsageError
    from ..files.manifest import write_manifest
    from ..files.output import write_text_atomic
    from ..report.study import study
    from ..report.study_output import FORMATS, WITHOUT_NOTES, plot

    if args.plot and not args.plot.lower().endswith((".png", ".pdf")):
        raise UsageError(f"must name a .png or .pdf file, got {args.plot!r}", arguments=["plot"])
    evaluation = scoring_settings(args)
    result = study(args.study, args.measures, baseline=args.baseline, alpha=args.alpha, evaluation=evaluation)
    text = FORMATS[args.format](result)
    for n in result.notes if args.format in WITHOUT_NOTES else []:
        note(n)  # the other formats print them below each table
    params = {
        k: getattr(args, k)
        for k in (
            "measures",
            "baseline",
            "alpha",
            "format",
            "level",
            "average_all",
            "depth",
            "judged_only",
            "engine",
            "trec_eval_version",
        )
    } | ties_parameters(args)
    inputs = {"study": args.study, **measure_file_inputs(args)}
    if args.plot:
        try:
            plot(result, args.plot)
        except SemanticError as exc:
            raise exc.about("plot") from None
        write_manifest(args.plot, "study-figure", inputs=inputs, parameters=params, command=argv())
    if args.output:
        write_text_atomic(args.output, text)
        write_manifest(args.output, "study", inputs=inputs, parameters=params, command=argv())
        wrote(args.output)
    else:
        sys.stdout.write(text)
    return 0
