"""``trecrs compare``: is system A better than the baseline? Paired tests, corrections, paper-ready tables."""

from __future__ import annotations

import sys

from ..errors import UsageError
from ..files.features import GROUP_BY
from ..report.compare import Settings, compare, plot_comparison, plot_precision_recall
from ..report.compare_output import FORMATS
from ..report.stats import CORRECTIONS, TESTS
from .common import (
    OUTPUT_HELP,
    add_measures_from_option,
    add_scoring_options,
    argv,
    command,
    int_range,
    measure_file_inputs,
    scoring_settings,
    seed,
    ties_parameters,
    wrote,
)

EXAMPLES = """examples:
  trecrs compare -m P@10 -m nDCG@10 qrels.txt bm25.run pop.run knn.run       # paired t, Holm, vs bm25
  trecrs compare -m AP --baseline pop --test randomization --seed 1 qrels.txt *.run
  trecrs compare -m P.10 -m map --format latex -o table.tex --plot deltas.pdf qrels.txt a.run b.run
  trecrs compare -m RR --common-queries --correction bh --format csv qrels.txt a.run b.run c.run
  trecrs compare -m P.10 --user-groups u.user --group-by gender qrels.txt a.run b.run   # also per gender
"""


def register(sub) -> None:
    p = command(
        sub,
        "compare",
        help="compare runs with a baseline: paired tests, corrections, tables",
        description="Evaluate every run with the same flags, then compare each with the baseline query "
        "by query on every measure: mean difference, bootstrap CI, paired test, p-values corrected "
        "over all comparisons, effect size, wins/ties/losses (docs/compare.md).",
        epilog=EXAMPLES,
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    p.add_argument(
        "runs", metavar="RUN", nargs="+", help="two or more TREC runs; each run's tag names its system"
    )
    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE",
        required=True,
        help="a measure with per-query values (P.10, map, P@10, nDCG@50 ...); repeatable",
    )
    _add_test_options(p)
    _add_output_options(p)
    p.set_defaults(func=run, outputs=("output", "plot", "pr_plot"))


def _add_test_options(p) -> None:
    """The baseline, the paired test, its correction, level and resampling, the queries compared."""
    p.add_argument(
        "--baseline", metavar="RUN", help="the baseline run, by path or tag (default: the first run)"
    )
    p.add_argument("--test", choices=list(TESTS), default="t", help="paired test (default: t)")
    p.add_argument(
        "--correction",
        choices=list(CORRECTIONS),
        default="holm",
        help="multiple-comparison correction over every (system, measure) pair (default: holm)",
    )
    p.add_argument(
        "--alpha", type=_alpha, default=0.05, help="significance level, also 1 - CI level (default 0.05)"
    )
    p.add_argument(
        "--seed", type=seed, default=0, help="seed of the randomization test and bootstrap (default 0)"
    )
    p.add_argument(
        "--resamples",
        type=int_range(1, 10_000_000),
        default=10000,
        metavar="B",
        help="resamples of the randomization test and bootstrap (default 10000)",
    )
    p.add_argument(
        "--common-queries",
        action="store_true",
        help="compare on the queries every run answers only (default: every qrels query, "
        "a query missing from a run scoring 0)",
    )
    p.add_argument(
        "--allow-mixed",
        action="store_true",
        help="compare runs whose manifests show different splits, candidates or methodologies",
    )


def _add_output_options(p) -> None:
    """Groups of users, the output and the figures; the scoring options and measures of one's own."""
    p.add_argument(
        "--user-groups",
        dest="user_groups",
        metavar="FILE",
        help="user groups ('user<TAB>group', CSV/Parquet 'user,group', MovieLens u.user or users.dat "
        "with --group-by): the comparison again on each group's users alone, after every user's",
    )
    p.add_argument(
        "--group-by",
        dest="group_by",
        choices=list(GROUP_BY),
        default=None,
        help="the field of MovieLens' u.user / users.dat that --user-groups groups by",
    )
    p.add_argument("--format", choices=list(FORMATS), default="text", help="output format (default: text)")
    p.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    p.add_argument("--plot", metavar="FILE", help="draw the differences with their CIs (.png or .pdf)")
    p.add_argument(
        "--pr-plot",
        dest="pr_plot",
        metavar="FILE",
        help="draw each system's interpolated precision at the 11 standard recall levels "
        "(iprec_at_recall, mean over the compared queries; .png or .pdf)",
    )
    add_scoring_options(p)
    add_measures_from_option(p)


def _alpha(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"alpha must be a number between 0 and 1, got {text!r}")
    return value


def run(args) -> int:
    for dest in ("plot", "pr_plot"):
        path = getattr(args, dest)
        if path and not path.lower().endswith((".png", ".pdf")):
            raise UsageError(f"must name a .png or .pdf file, got {path!r}", arguments=[dest])
    if [args.qrels, *args.runs].count("-") > 1:
        raise UsageError("only one of the qrels and the runs can be '-' (standard input)")
    settings = Settings(
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        seed=args.seed,
        resamples=args.resamples,
        query_rule="common" if args.common_queries else "all",
    )
    evaluation = scoring_settings(args)
    result = compare(
        args.qrels,
        args.runs,
        args.measures,
        baseline=args.baseline,
        settings=settings,
        allow_mixed=args.allow_mixed,
        pr_curves=bool(args.pr_plot),
        evaluation=evaluation,
        user_groups=args.user_groups,
        group_by=args.group_by,
    )
    text = FORMATS[args.format](result)
    if args.plot:
        plot_comparison(result, args.plot)
        _manifest(args, args.plot, "comparison-figure")
    if args.pr_plot:
        plot_precision_recall(result, args.pr_plot)
        _manifest(args, args.pr_plot, "precision-recall-figure")
    if args.output:
        from ..files.output import write_text_atomic

        write_text_atomic(args.output, text)
        _manifest(args, args.output, "comparison")
        wrote(args.output)
    else:
        sys.stdout.write(text)
    return 0


def _manifest(args, path: str, kind: str) -> None:
    from ..files.manifest import write_manifest

    inputs = {"qrels": args.qrels, **{f"run{i}": r for i, r in enumerate(args.runs)}}
    if args.user_groups:
        inputs["user_groups"] = args.user_groups
    inputs.update(measure_file_inputs(args))
    params = {
        k: getattr(args, k)
        for k in (
            "measures",
            "baseline",
            "test",
            "correction",
            "alpha",
            "seed",
            "resamples",
            "common_queries",
            "allow_mixed",
            "level",
            "depth",
            "judged_only",
            "engine",
            "trec_eval_version",
            "group_by",
        )
    }
    params.update(ties_parameters(args))
    write_manifest(path, kind, inputs=inputs, parameters=params, command=argv())
