"""``trecrs sensitivity``: do the systems rank the same under every evaluation methodology?"""

from __future__ import annotations

import argparse
import sys

from .candidates import (
    add_one_plus_random_options,
    add_ratings_options,
    methodology,
    methodology_help,
    read_split_ratings,
)
from .common import (
    OUTPUT_HELP,
    add_measures_from_option,
    add_ties_option,
    argv,
    command,
    finite_float,
    measure_file_inputs,
    note,
    ties_parameters,
    wrote,
)

EXAMPLES = """examples:
  trecrs sensitivity --train u1.base --test u1.test --scores svd=svd.scores --scores knn=knn.scores \\
      --scores pop=pop.scores -m P@10 -m nDCG@10 -m AP --seed 1
  trecrs sensitivity --train u1.base --test u1.test --scores svd=svd.parquet --scores ib=ib.parquet \\
      --predictions svd=svd.pred --predictions ib=ib.pred -m P.50 -m recall.50 -m ndcg_cut.50 \\
      --methodologies TR,TeI,TrI,AI,1R --threshold 4 --n 1000 --seed 1 --plot fig2.pdf
  trecrs sensitivity ... --format csv -o sensitivity.csv      # every number at full precision

For each methodology (default: all) every system's run is built from its score file as 'trecrs run'
builds it (the same candidates for every system; unscored candidates: --missing drop, the default,
leaves them out) and scored against the qrels 'trecrs qrels --threshold T' writes (One-Plus-Random:
its own, one query per test rating >= --relevant-threshold) as 'trecrs eval' scores them. Printed:
each measure's systems x methodologies table with the value a random ranking of the candidates gets
in expectation, and Kendall's tau-b (discordant pairs) between the system orders of every two
methodologies, and against RMSE when --predictions are given for every system (docs/sensitivity.md).
"""


class _NamedFiles(argparse.Action):
    """``NAME=FILE``, repeatable: ``dest`` gets ``[(NAME, FILE), ...]``, ``dest_files`` the files (which
    the output check then knows as inputs)."""

    def __call__(self, parser, namespace, value, option_string=None):
        name, sep, path = value.partition("=")
        if not sep or not name or not path or any(ch.isspace() for ch in name):
            parser.error(
                f"argument {option_string}: expected NAME=FILE (a name without blanks), got {value!r}"
            )
        pairs = list(getattr(namespace, self.dest) or [])
        if name in dict(pairs):
            parser.error(f"argument {option_string}: the name {name!r} is given twice")
        setattr(namespace, self.dest, [*pairs, (name, path)])
        setattr(namespace, f"{self.dest}_files", [*getattr(namespace, f"{self.dest}_files", []), path])


def methodology_list(text: str) -> list[str]:
    """argparse type of ``--methodologies``: comma-separated names or abbreviations -> registry names."""
    names = [methodology(t) for t in text.split(",") if t.strip()]
    if not names or len(set(names)) < len(names):
        raise argparse.ArgumentTypeError(f"give each methodology once, separated by commas, got {text!r}")
    return names


def register(sub) -> None:
    from ..protocol.runs import MISSING_POLICIES
    from ..report.sensitivity import FORMATS

    p = command(
        sub,
        "sensitivity",
        help="compare the systems' order under every evaluation methodology (Bellogín et al. 2011)",
        description="Evaluate every system under every methodology (TestRatings, TestItems, TrainingItems, "
        "AllItems, One-Plus-Random) and show how the system order changes: the tables, the value of a "
        "random ranking, Kendall's tau-b between the orders.",
        epilog=EXAMPLES,
    )
    p.add_argument("--train", metavar="TRAIN", required=True, help="training ratings file")
    p.add_argument("--test", metavar="TEST", required=True, help="test ratings file")
    p.add_argument(
        "--items", metavar="CATALOGUE", help="item catalogue I (default: the items of train and test)"
    )
    p.add_argument(
        "--scores",
        action=_NamedFiles,
        metavar="NAME=FILE",
        required=True,
        help="a system's score file (any layout 'trecrs run --scores' reads); repeat per system",
    )
    p.add_argument(
        "--predictions",
        action=_NamedFiles,
        metavar="NAME=FILE",
        help="a system's predicted ratings, for the order by RMSE; give one for every system",
    )
    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        required=True,
        metavar="MEASURE",
        help="a measure as 'trecrs eval -m' takes it (P.10, P@10, ndcg_cut.10, map, ...); repeatable",
    )
    p.add_argument(
        "--methodologies",
        type=methodology_list,
        metavar="M,M,...",
        help="the methodologies, comma-separated (default: all); " + methodology_help(),
    )
    p.add_argument(
        "--threshold",
        type=finite_float,
        default=4.0,
        metavar="T",
        help="relevant iff the test rating >= T (default 4), graded by the rating",
    )
    add_one_plus_random_options(p)
    p.add_argument(
        "--missing",
        choices=MISSING_POLICIES,
        default="drop",
        help="candidates a system did not score: drop (default: left out of its run), last, fail",
    )
    add_ratings_options(p)
    add_ties_option(p)
    add_measures_from_option(p)
    p.add_argument("--format", choices=list(FORMATS), default="text", help="output format (default text)")
    p.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    p.add_argument(
        "--plot", metavar="FIG", help="also draw the figure (.png or .pdf) of the paper's Figure 2"
    )
    p.set_defaults(func=run, outputs=("output", "plot"), scores_files=[], predictions_files=[])


def _parameters(args) -> dict:
    return {
        **{
            k: getattr(args, k)
            for k in (
                "measures",
                "methodologies",
                "threshold",
                "relevant_threshold",
                "n",
                "seed",
                "missing",
                "format",
            )
        },
        **ties_parameters(args),
    }


def _inputs(args) -> dict:
    ins = {"train": args.train, "test": args.test, **({"items": args.items} if args.items else {})}
    ins.update({f"scores:{n}": p for n, p in args.scores})
    ins.update({f"predictions:{n}": p for n, p in args.predictions or []})
    ins.update(measure_file_inputs(args))
    return ins


def run(args) -> int:
    from ..errors import UsageError
    from ..evaluate.settings import EvalSettings
    from ..files.manifest import write_manifest
    from ..files.output import write_text_atomic
    from ..report.sensitivity import FORMATS, plot, sensitivity

    if args.plot and not args.plot.lower().endswith((".png", ".pdf")):
        raise UsageError(f"must name a .png or .pdf file, got {args.plot!r}", arguments=["plot"])
    result = sensitivity(
        read_split_ratings(args, "train"),
        read_split_ratings(args, "test"),
        dict(args.scores),
        args.measures,
        predictions=dict(args.predictions) if args.predictions else None,
        methodologies=args.methodologies,
        items=args.items,
        threshold=args.threshold,
        relevant_threshold=args.relevant_threshold,
        n=args.n,
        seed=args.seed,
        missing=args.missing,
        paths={"train": args.train, "test": args.test, "items": args.items},
        evaluation=EvalSettings(ties=args.ties),
    )
    text = FORMATS[args.format](result)
    if args.output:
        write_text_atomic(args.output, text)
        write_manifest(
            args.output,
            "sensitivity",
            inputs=_inputs(args),
            parameters=_parameters(args),
            command=argv(),
            extra={"counts": result.info},
        )
        wrote(args.output)
    else:
        sys.stdout.write(text)
    if args.plot:
        plot(result, args.plot)
        write_manifest(
            args.plot, "figure", inputs=_inputs(args), parameters=_parameters(args), command=argv()
        )
        note(f"wrote {args.plot}")
    return 0
