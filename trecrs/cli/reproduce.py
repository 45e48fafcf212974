"""``trecrs reproduce``: run a paper's reproduction whole, from the data to its report and figure."""

from __future__ import annotations

import sys

from .common import INT64_MAX, argv, command, int_range, note, seed

EXAMPLES = """examples:
  trecrs reproduce bellogin2011 out/sample                  # on the bundled synthetic sample
  trecrs reproduce bellogin2011 out/ml100k --data ~/data/ml-100k --jobs 2
  trecrs reproduce bellogin2011 out/quick --folds u1 ua     # a subset of the folds
  trecrs reproduce cremonesi2010 out/cremonesi --data ~/data/ml-100k
  trecrs reproduce tamm2021 out/tamm --data ~/data/ml-100k

Writes OUT_DIR/results.tsv, OUT_DIR/report.md and the figure (each with a manifest), and every
intermediate file beside them (bellogin2011, cremonesi2010: each fold's qrels, runs, evaluations and the
trecrs command lines that made them, in commands.txt). Prints one line per published finding (holds /
does not hold); progress on stderr (a bar on a terminal, a line per 10% in a pipe; nothing under
--quiet). Exit status 0 even when a finding does not hold: the report says so and why. Without --data,
bellogin2011 and cremonesi2010 run on the synthetic MovieLens-like sample, generated into OUT_DIR from its
seed (tamm2021 needs MovieLens 100K).
"""


#: MovieLens 100K's predefined folds (bellogin2011's), in its order
FOLDS = ("u1", "u2", "u3", "u4", "u5", "ua", "ub")


def register(sub) -> None:
    from ..reproductions import END_TO_END

    p = command(
        sub,
        "reproduce",
        help="run a paper reproduction end to end: results, findings and figure",
        description="Run a published experiment from the data: split, recommenders, evaluation, the paper's "
        "findings checked, a Markdown report and a figure. Reproductions: "
        + "; ".join(f"{r.name}: {r.summary}" for r in END_TO_END.values()),
        epilog=EXAMPLES,
    )
    p.add_argument("name", metavar="NAME", choices=list(END_TO_END), help="one of: " + ", ".join(END_TO_END))
    p.add_argument("out_dir", metavar="OUT_DIR", help="the folder the results, report and figure go to")
    p.add_argument(
        "--data", metavar="DIR", help="the MovieLens folder the experiment reads (default: the sample)"
    )
    p.add_argument(
        "--jobs",
        type=int_range(1, INT64_MAX),
        metavar="N",
        help="folds run at once (bellogin2011; default 2)",
    )
    p.add_argument("--seed", type=seed, metavar="S", help="seed of the random draws (default 1)")
    p.add_argument(
        "--folds", nargs="+", metavar="FOLD", choices=FOLDS, help="bellogin2011: a subset of the folds"
    )
    p.add_argument("--reference", metavar="TSV", help="bellogin2011: the published values to compare")
    p.set_defaults(func=run, folder_outputs={"out_dir": _file_names})


def _file_names(args) -> list[str]:
    """The files the reproduction writes in OUT_DIR (for the output check)."""
    from ..reproductions import END_TO_END

    return END_TO_END[args.name].files()


def run(args) -> int:
    from ..reproductions import END_TO_END, reproduce
    from .report import print_findings
    from .reproduce_runner import batch_runner

    given = {
        k: getattr(args, k) for k in ("jobs", "seed", "folds", "reference") if getattr(args, k) is not None
    }
    if not END_TO_END[args.name].batches:
        progress = note if sys.stderr.isatty() and not args.quiet else None
        result = reproduce(
            args.name, args.out_dir, data=args.data, command=argv(), progress=progress, **given
        )
    else:
        with batch_runner(given.get("jobs", 2)) as run_batch:
            stream = None if args.quiet else sys.stderr
            result = reproduce(
                args.name, args.out_dir, data=args.data, progress=stream, run_batch=run_batch, **given
            )
    print_findings(result)
    return 0
