"""``trecrs reproduce``: run a paper's reproduction whole, from the data to its report and figure."""

from __future__ import annotations

import sys

from .common import argv, command, note

EXAMPLES = """examples:
  trecrs reproduce tamm2021 out/tamm --data ~/data/ml-100k

Writes OUT_DIR/results.tsv, OUT_DIR/report.md and a PNG figure (each with a manifest); nothing when it
fails. Prints one line per published finding (holds / does not hold); on a terminal, one progress line
per step on stderr. Exit status 0 even when a finding does not hold: the report says so and why.
"""


def register(sub) -> None:
    from ..reproductions import END_TO_END

    p = command(
        sub,
        "reproduce",
        help="run a paper reproduction end to end: results, findings and figure",
        description="Run a published experiment from the data: split, recommender, evaluation, the paper's "
        "findings checked, a Markdown report and a figure. Reproductions: "
        + "; ".join(f"{r.name}: {r.summary}" for r in END_TO_END.values()),
        epilog=EXAMPLES,
    )
    p.add_argument("name", metavar="NAME", choices=list(END_TO_END), help="one of: " + ", ".join(END_TO_END))
    p.add_argument("out_dir", metavar="OUT_DIR", help="the folder the results, report and figure go to")
    p.add_argument("--data", metavar="DIR", help="the data the experiment reads (tamm2021: MovieLens 100K)")
    p.set_defaults(func=run, folder_outputs={"out_dir": _file_names})


def _file_names(args) -> list[str]:
    """The files the reproduction writes in OUT_DIR (for the output check)."""
    from ..reproductions import END_TO_END

    return END_TO_END[args.name].files()


def run(args) -> int:
    from ..reproductions import reproduce

    result = reproduce(
        args.name,
        args.out_dir,
        data=args.data,
        command=argv(),
        progress=note if sys.stderr.isatty() else None,
    )
    for f in result.findings:
        verdict = "holds" if f.holds else "DOES NOT HOLD"
        sys.stdout.write(f"{f.claim}: {verdict} ({f.evidence})\n")
    note("wrote " + ", ".join(str(p) for p in result.files))
    return 0
