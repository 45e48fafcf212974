"""``trecrs report``: gather a reproduction's per-fold evaluations into results, findings and a figure."""

from __future__ import annotations

import sys

from ..ranges import INT64_MAX
from .common import argv, command, finite_float, int_range, note

EXAMPLES = """examples:
  trecrs report bellogin2011 out/bellogin --data ~/data/ml-100k
  trecrs report bellogin2011 out/bellogin --reference my_reading_of_fig2.tsv
  trecrs report cremonesi2010 out/cremonesi --runtime 95

Reads the files scripts/reproduce_bellogin2011.sh / reproduce_cremonesi2010.sh leave in OUT_DIR and
writes OUT_DIR/results.tsv, OUT_DIR/report.md and a PNG figure (each with a manifest). Prints one line
per published finding (holds / does not hold). Exit status 0 even when a finding does not hold: the
report says so and why.
"""


def register(sub) -> None:
    from ..reproductions import REPORTS

    p = command(
        sub,
        "report",
        help="results table, findings and figure of a paper reproduction",
        description="Aggregate the evaluations a reproduction script wrote into results.tsv, a Markdown report "
        "with the published findings checked, and the paper's figure. Reports: "
        + "; ".join(f"{r.name}: {r.summary}" for r in REPORTS.values()),
        epilog=EXAMPLES,
    )
    p.add_argument("name", metavar="NAME", choices=list(REPORTS), help="one of: " + ", ".join(REPORTS))
    p.add_argument("out_dir", metavar="OUT_DIR", help="the reproduction's output folder")
    p.add_argument(
        "--reference",
        metavar="TSV",
        help="published values to compare with (bellogin2011; default: the packaged Figure 2 D1 "
        "values). With --data, compared only when DIR is MovieLens 100K (trecrs datasets verify)",
    )
    p.add_argument(
        "--runtime",
        type=finite_float,
        metavar="SECONDS",
        help="the pipeline's wall-clock time, for the report",
    )
    p.add_argument(
        "--jobs",
        type=int_range(1, INT64_MAX),
        metavar="N",
        help="how many folds ran in parallel, for the report",
    )
    p.add_argument(
        "--data",
        metavar="DIR",
        help="the data folder the pipeline read, for the report (and to check it is MovieLens 100K)",
    )
    p.set_defaults(func=run, folder_outputs={"out_dir": _file_names})


def _file_names(args) -> list[str]:
    """The files a report writes in OUT_DIR (for the output check)."""
    from ..reproductions import REPORTS

    return REPORTS[args.name].files()


def run(args) -> int:
    from ..reproductions import make_report

    result = make_report(
        args.name,
        args.out_dir,
        reference=args.reference,
        runtime=args.runtime,
        jobs=args.jobs,
        data=args.data,
        command=argv(),
    )
    print_findings(result)
    return 0


def print_findings(result) -> None:
    """One line per published finding on stdout (``[split] claim: holds (evidence)``), then the files written."""
    by_split = result.extra.get("findings_by_split") or {"": result.findings}
    for split, findings in by_split.items():
        for f in findings:
            where = f"[{split}] " if split else ""
            verdict = "holds" if f.holds else "DOES NOT HOLD"
            sys.stdout.write(f"{where}{f.claim}: {verdict} ({f.evidence})\n")
    note("wrote " + ", ".join(str(p) for p in result.files))
