"""``trecrs sampled``: One-Plus-Random's sampled metrics against the exact ones and the corrected estimators."""

from __future__ import annotations

import sys

from ..errors import UsageError
from ..protocol.runs import default_tag
from .candidates import add_dedupe_option, read_split_ratings
from .common import OUTPUT_HELP, argv, command, finite_float, int64, note, seed, wrote

EXAMPLES = """examples:
  trecrs sampled --train u1.base --test u1.test --scores SVD=svd.scores --scores TopPop=pop.scores \\
      --n 100 --seed 7 -k 5 -k 10
  trecrs sampled --train u1.base --test u1.test --scores SVD=svd.scores --seed 7 --format csv -o s.csv \\
      --plot recall.pdf

Each test rating >= --relevant-threshold is a One-Plus-Random case (the draws of 'trecrs candidates
--methodology one-plus-random' with the same --n and --seed). Per case: r, the target's rank among the
target and its N drawn items, and R, its rank among all the items the user did not rate in training
(all-items). Estimators: exact (from R), exact-pool (the rank among the sampled population), sampled
(from r), rescaled, minimal-bias and bias-variance (Krichene & Rendle 2020, with --lambda). SCORES must
score every all-items candidate (trecrs candidates --methodology all-items).
"""


def named_file(text: str) -> tuple[str, str]:
    """``NAME=FILE``, or a bare FILE named as ``trecrs run`` tags it (:func:`~trecrs.protocol.runs.default_tag`:
    the file name without its last extension, so ``fold1.SVD50.scores`` and ``fold1.pop.scores`` differ)."""
    name, sep, path = text.partition("=")
    if not sep:
        path = text
        name = default_tag(path)
    if not name or not path:
        raise UsageError(f"expected NAME=FILE, got {text!r}", arguments=["scores"])
    return name, path


def register(sub) -> None:
    from ..files.ratings import FORMATS
    from ..measures.recsys.sampled import RANK_MISSING
    from ..report.sampled import TEXT_FORMATS

    p = command(
        sub,
        "sampled",
        help="sampled One-Plus-Random metrics against the exact ones, corrected",
        description="Compare One-Plus-Random's sampled recall/HR@k and nDCG@k with the exact metrics of "
        "the full ranking, and with the corrected estimators of Krichene & Rendle (KDD 2020); report "
        "whether each orders the systems as the exact metric does (Kendall tau).",
        epilog=EXAMPLES,
    )
    p.add_argument("--train", metavar="TRAIN", required=True, help="training ratings file")
    p.add_argument("--test", metavar="TEST", required=True, help="test ratings file")
    p.add_argument(
        "--items", metavar="CATALOGUE", help="item catalogue (default: the items of train and test)"
    )
    p.add_argument(
        "--scores",
        metavar="NAME=FILE",
        action="append",
        required=True,
        help="a system's score file (every all-items candidate scored); repeat for several systems; a bare FILE "
        "is named as trecrs run tags it (fold1.SVD50.scores: fold1.SVD50)",
    )
    p.add_argument(
        "--n", type=int64, default=100, metavar="N", help="random unrated items per case (default 100)"
    )
    p.add_argument(
        "--relevant-threshold",
        type=finite_float,
        default=5.0,
        metavar="R",
        help="one case per test rating >= R (default 5)",
    )
    p.add_argument("--seed", type=seed, metavar="S", help="random seed of the draws (required)")
    p.add_argument(
        "-k",
        dest="ks",
        type=int64,
        action="append",
        metavar="K",
        help="cutoff of recall@k and nDCG@k; repeat (default 1, 5, 10)",
    )
    p.add_argument(
        "--lambda",
        dest="lam",
        type=finite_float,
        default=0.1,
        metavar="L",
        help="bias-variance trade-off of the corrected metric, 0..1 (default 0.1)",
    )
    p.add_argument(
        "--missing",
        choices=RANK_MISSING,
        default="fail",
        help="candidates without a score: fail (default) or rank them last",
    )
    p.add_argument("--format", choices=TEXT_FORMATS, default="text", help="output format (default text)")
    p.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    p.add_argument("--plot", metavar="FIGURE", help="recall(N) curves, sampled vs exact (.png or .pdf)")
    p.add_argument(
        "--ratings-format", default="auto", choices=["auto", *FORMATS], help="layout of TRAIN/TEST"
    )
    p.add_argument(
        "--columns", metavar="SPEC", help="column mapping of TRAIN/TEST, e.g. user=userId,item=movieId"
    )
    add_dedupe_option(p)
    p.set_defaults(func=run, outputs=("output", "plot"))


def _check(args) -> list[tuple[str, str]]:
    systems = [named_file(s) for s in args.scores]
    names = [n for n, _ in systems]
    if len(set(names)) != len(names):
        raise UsageError("two --scores share a name; give NAME=FILE", arguments=["scores"])
    if args.ks and min(args.ks) < 1:
        raise UsageError(f"a cutoff must be positive, got {min(args.ks)}", arguments=["ks"])
    if not 0.0 <= args.lam <= 1.0:
        raise UsageError(f"must be from 0 to 1, got {args.lam}", arguments=["lam"])
    if args.plot and not args.plot.lower().endswith((".png", ".pdf")):
        raise UsageError("the figure must be a .png or .pdf file", arguments=["plot"])
    return systems


def _parameters(args, systems) -> dict:
    return {
        "methodology": "one-plus-random",
        "n": args.n,
        "relevant_threshold": args.relevant_threshold,
        "seed": args.seed,
        "pool": "all",
        "ks": args.ks or [1, 5, 10],
        "lambda": args.lam,
        "missing": args.missing,
        "systems": [n for n, _ in systems],
        "hypergeometric": True,
    }


def run(args) -> int:
    from ..files.manifest import write_manifest
    from ..files.output import write_text_atomic
    from ..report.sampled import format_report, recall_curves, sampled

    systems = _check(args)
    report = sampled(
        read_split_ratings(args, "train"),
        read_split_ratings(args, "test"),
        dict(systems),
        args.ks or [1, 5, 10],
        n=args.n,
        relevant_threshold=args.relevant_threshold,
        seed=args.seed,
        items=args.items,
        lam=args.lam,
        missing=args.missing,
        paths={"train": args.train, "test": args.test, "items": args.items},
    )
    text = format_report(report, args.format)
    inputs = {"train": args.train, "test": args.test, **{f"scores:{n}": p for n, p in systems}}
    if args.items:
        inputs["items"] = args.items
    params = _parameters(args, systems)
    if args.output:
        write_text_atomic(args.output, text)
        write_manifest(args.output, "sampled", inputs=inputs, parameters=params, command=argv())
        wrote(args.output)
    else:
        sys.stdout.write(text)
    if args.plot:
        assert report.cases is not None  # sampled() keeps the ranks of every case
        recall_curves(report.cases, args.plot)
        write_manifest(args.plot, "sampled-figure", inputs=inputs, parameters=params, command=argv())
        note(f"wrote {args.plot}")
    return 0
