"""``trecrs audit``: can the evaluation behind a number be trusted? Leakage, protocol flaws, ties, power, baselines."""

from __future__ import annotations

import sys

from .candidates import add_ratings_options
from .common import (
    OUTPUT_HELP,
    add_level_option,
    add_measures_from_option,
    argv,
    command,
    finite_float,
    measure_file_inputs,
    note,
    seed,
    wrote,
)

EXAMPLES = """examples:
  trecrs audit --train u1.base --test u1.test                         # the split alone: leakage, cold users
  trecrs audit --train u1.base --test u1.test --qrels u1.qrels -m P.10 -m ndcg_cut.10 svd.run pop.run
  trecrs audit --train u1.base --test u1.test --candidates opr.pairs --qrels opr.qrels svd.opr.run
  trecrs audit --strict --format json -o audit.json --train u1.base --test u1.test --qrels q run  # for CI

Every input is optional: each check runs when its inputs are given, and the report says which did not
run and what they need. --strict exits 1 when an error finding has a count above 0 (docs/audit.md).
"""


def register(sub) -> None:
    from ..report.audit import FORMATS

    p = command(
        sub,
        "audit",
        help="check an evaluation for leakage, protocol flaws, ties, power and baselines",
        description="Check a split, its qrels, candidates and runs for the flaws offline evaluations keep "
        "showing: test pairs in training, training data from the future, seen items left in rankings, "
        "users dropped from the mean, negatives that are positives, ties at the cutoff, too few users to "
        "detect a difference, runs that do not beat TopPop (docs/audit.md).",
        epilog=EXAMPLES,
    )
    p.add_argument("runs", metavar="RUN", nargs="*", help="TREC runs to check (each by its path)")
    p.add_argument("--train", metavar="TRAIN", help="training ratings file")
    p.add_argument("--test", metavar="TEST", help="test ratings file")
    p.add_argument("--qrels", metavar="QRELS", help="TREC qrels file the runs are scored against")
    p.add_argument(
        "--candidates", metavar="PAIRS", help="candidates file (query user item) the runs were made from"
    )
    p.add_argument("--items", metavar="CATALOGUE", help="item catalogue (an id list, u.item, movies.dat ...)")
    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="a measure as 'trecrs eval -m' takes it, for power and baselines (default: P.10 and "
        "ndcg_cut.10); the deepest cutoff is ties-at-cutoff's k (default 10); repeatable",
    )
    add_measures_from_option(p)
    add_level_option(p)
    p.add_argument(
        "--threshold",
        type=finite_float,
        default=4.0,
        metavar="T",
        help="a test rating >= T is relevant, for negative-is-positive (default 4)",
    )
    p.add_argument(
        "--random-split",
        action="store_true",
        help="the split ignores time on purpose (default: read from the split files' manifests): "
        "future-training is then a note, not a warning",
    )
    p.add_argument("--seed", type=seed, default=0, help="seed of the Random baseline (default 0)")
    add_ratings_options(p)
    p.add_argument("--format", choices=list(FORMATS), default="text", help="output format (default text)")
    p.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    p.add_argument("--strict", action="store_true", help="exit 1 when an error finding has a count above 0")
    p.set_defaults(func=run, outputs=("output",))


def _inputs(args) -> dict:
    ins = {k: getattr(args, k) for k in ("train", "test", "qrels", "candidates", "items") if getattr(args, k)}
    return ins | {f"run:{r}": r for r in args.runs} | measure_file_inputs(args)


def _ratings_options(args) -> dict:
    """How --train and --test are read: the keywords of read_ratings, as read_split_ratings passes them."""
    from ..files.ratings import parse_columns

    columns = parse_columns(args.columns) if args.columns else None
    return {"fmt": args.ratings_format, "columns": columns, "dedupe": args.dedupe, "report": note}


def run(args) -> int:
    from ..errors import EXIT_CHECK_FAILED, EXIT_OK
    from ..files.manifest import write_manifest
    from ..files.output import write_text_atomic
    from ..report.audit import FORMATS, audit, declared_random_split

    result = audit(
        train=args.train,
        test=args.test,
        ratings_options=_ratings_options(args),
        qrels=args.qrels,
        runs=args.runs,
        candidates=args.candidates,
        items=args.items,
        measures=args.measures,
        relevance_level=args.level,
        threshold=args.threshold,
        seed=args.seed,
        random_split=args.random_split or declared_random_split(args.train, args.test),
    )
    text = FORMATS[args.format](result)
    if args.output:
        write_text_atomic(args.output, text)
        params = {
            k: getattr(args, k) for k in ("measures", "level", "threshold", "random_split", "seed", "format")
        }
        write_manifest(
            args.output,
            "audit",
            inputs=_inputs(args),
            parameters=params,
            command=argv(),
            extra={"failed": result.failed},
        )
        wrote(args.output)
    else:
        sys.stdout.write(text)
    return EXIT_CHECK_FAILED if args.strict and result.failed else EXIT_OK
