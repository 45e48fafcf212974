"""``trecrs definitions``: every definition that goes by one measure name, the run's mean under each, the spread."""

from __future__ import annotations

import sys

from .common import OUTPUT_HELP, add_level_option, argv, command, wrote

EXAMPLES = """examples:
  trecrs definitions -m NDCG@10 u1.qrels svd.run           # trec_eval, ir_measures, LensKit, RecBole, ...
  trecrs definitions -m MAP@10 -l 4 --format json u1.qrels svd.run
  trecrs definitions -m recall@20 --train u1.base u1.qrels svd.run   # the definitions needing training data too

Each value is what 'trecrs eval -m NAME' prints for that name on the same files with the same -l, and
what the 'trecrs eval -m' spelling under it prints at any -l, as it carries the level (P(rel=4)@10,
recbole:ndcg@10-l4; docs/frameworks.md).
"""


def register(sub) -> None:
    from ..report.definitions import FORMATS

    p = command(
        sub,
        "definitions",
        help="every definition that goes by a measure name, and their spread",
        description="For a measure name (NDCG@10, MAP@10, Recall@20, HitRate@5, MRR ...), evaluate the run "
        "under every definition that goes by it: trec_eval's, ir_measures', and each framework's (LensKit, "
        "RecBole, Elliot, ...): the spelling, the mean, the 'trecrs eval -m' spelling that gives it at any -l, "
        "what differs, and the spread (max - min).",
        epilog=EXAMPLES,
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    p.add_argument("run", metavar="RUN", help="TREC run")
    p.add_argument(
        "-m",
        "--measure",
        dest="measure",
        required=True,
        metavar="MEASURE",
        help="the name, as any framework spells it (NDCG@10, ndcg_cut.10, MAP@10, HitRate@5, MRR)",
    )
    p.add_argument("--train", metavar="TRAIN", help="training ratings, for the definitions that need them")
    add_level_option(p)
    p.add_argument("--format", choices=list(FORMATS), default="text", help="output format (default text)")
    p.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    p.set_defaults(func=run, outputs=("output",))


def run(args) -> int:
    from ..files.manifest import write_manifest
    from ..files.output import write_text_atomic
    from ..report.definitions import FORMATS, definitions

    result = definitions(args.measure, args.qrels, args.run, train=args.train, relevance_level=args.level)
    text = FORMATS[args.format](result)
    if args.output:
        write_text_atomic(args.output, text)
        inputs = {"qrels": args.qrels, "run": args.run, **({"train": args.train} if args.train else {})}
        write_manifest(
            args.output,
            "definitions",
            inputs=inputs,
            command=argv(),
            parameters={"measure": args.measure, "level": args.level, "format": args.format},
        )
        wrote(args.output)
    else:
        sys.stdout.write(text)
    return 0
