"""``trecrs qrels``: test ratings -> TREC qrels (user = query, item = document)."""

from __future__ import annotations

from ..errors import UsageError
from .candidates import add_dedupe_option, fmt, methodology, methodology_help
from .common import STDOUT_HELP, argv, command, finite_float, int64, note

EXAMPLES = """examples:
  trecrs qrels --test u1.test --threshold 3 -o u1.th3.qrels        # = Bellogín et al.'s urels_th3.txt
  trecrs qrels --test u1.test --threshold 4 --nonrelevant -o u1.th4.judged.qrels   # rel 0 lines too
  trecrs qrels --test u1.test --threshold 4 --grade shifted -o q   # 4 -> 1, 5 -> 2
  trecrs qrels --test test.csv --threshold 3.5 -o q                # half stars: values x2, map in manifest
  trecrs qrels --test u1.test --per-user mean -o q                 # rating >= the user's mean (test ratings)
  trecrs qrels --test u1.test --train u1.base --per-user mean --per-user-from all --offset 0.5 -o q
  trecrs qrels --test u1.test --train u1.base --threshold 4 --long-tail 0.33 -o q
  trecrs qrels --methodology one-plus-random --test u1.test --relevant-threshold 5 -o u1.opr.qrels

Relevant: rating >= T (--threshold) and/or rating >= b_u + D (--per-user mean|max, --offset D).
Without --nonrelevant, below-threshold test ratings are not written: for trec_eval they are unjudged,
users with no relevant test rating are not queries (num_q), bpref has no judged non-relevant items and
-J removes those items from the rankings. With --nonrelevant they are judged non-relevant (rel 0).
"""


def register(sub) -> None:
    from ..protocol.qrels import USER_BASES, USER_STATS_FROM

    p = command(
        sub,
        "qrels",
        help="turn test ratings into TREC qrels",
        description="Write TREC qrels (user 0 item rel) from test ratings: the ratings a relevance rule "
        "accepts, graded by the rating (default), 1 (binary) or rating - threshold + 1 (shifted).",
        epilog=EXAMPLES,
    )
    p.add_argument("--test", metavar="TEST", required=True, help="test ratings file")
    p.add_argument("--threshold", type=finite_float, metavar="T", help="relevant iff rating >= T")
    p.add_argument(
        "--per-user",
        choices=list(USER_BASES),
        help="relevant iff rating >= the user's mean / highest rating + --offset",
    )
    p.add_argument(
        "--offset", type=finite_float, default=0.0, metavar="D", help="offset of --per-user (default 0)"
    )
    p.add_argument(
        "--per-user-from",
        choices=USER_STATS_FROM,
        default="test",
        help="which of the user's ratings --per-user uses: test (default), train, all (train+test)",
    )
    p.add_argument(
        "--train", metavar="TRAIN", help="training ratings (for --long-tail, --per-user-from train|all)"
    )
    _add_output_options(p)
    add_dedupe_option(p)
    p.add_argument("-o", "--output", metavar="QRELS", required=True, help="output qrels file" + STDOUT_HELP)
    p.set_defaults(func=run, outputs=("output",))


def _add_output_options(p) -> None:
    """The relevance value, the items kept, the methodology and the output layout."""
    from ..files.ratings import FORMATS
    from ..protocol.candidates import METHODOLOGIES
    from ..protocol.qrels import GRADES

    p.add_argument(
        "--grade",
        choices=list(GRADES),
        default="rating",
        help="relevance value: rating (default), binary (1), shifted (lowest relevant rating = 1)",
    )
    p.add_argument(
        "--nonrelevant",
        action="store_true",
        help="also write below-threshold test ratings as judged non-relevant lines (rel 0)",
    )
    p.add_argument(
        "--scale",
        type=int64,
        metavar="F",
        help="multiply ratings by F to make them integers (default: 1, 2 for half stars, ...)",
    )
    p.add_argument(
        "--long-tail",
        type=finite_float,
        metavar="SHARE",
        help="drop test items of the short head: the most popular items holding SHARE of the "
        "training ratings (Cremonesi et al. 2010 use 0.33); needs --train",
    )
    p.add_argument(
        "--methodology",
        type=methodology,
        choices=list(METHODOLOGIES),
        default="test-ratings",
        metavar="M",
        help=methodology_help() + "; one-plus-random writes one line (user:item, item) per test rating >= "
        "--relevant-threshold; the other methodologies share the same qrels (default)",
    )
    p.add_argument(
        "--relevant-threshold",
        type=finite_float,
        default=5.0,
        metavar="R",
        help="one-plus-random: its queries are the test ratings >= R (default 5)",
    )
    p.add_argument(
        "--separator",
        choices=["tab", "space"],
        default="tab",
        help="field separator of the output (default tab, as in Bellogín et al.'s files)",
    )
    p.add_argument(
        "--ratings-format",
        default="auto",
        choices=["auto", *FORMATS],
        help="layout of TEST/TRAIN (default: detected)",
    )


def run(args) -> int:
    from ..files.manifest import write_manifest
    from ..files.output import write_table
    from ..files.ratings import read_ratings
    from ..protocol.candidates import METHODOLOGIES, methodology_qrels

    opr = METHODOLOGIES[args.methodology].per_case
    if opr and (args.threshold is not None or args.per_user or args.nonrelevant):
        raise UsageError(
            "one-plus-random qrels judge the case items only (test ratings >= --relevant-threshold);"
            " --threshold, --per-user and --nonrelevant do not apply"
        )
    test = read_ratings(args.test, fmt=args.ratings_format, dedupe=args.dedupe, report=note)
    train = (
        read_ratings(args.train, fmt=args.ratings_format, dedupe=args.dedupe, report=note)
        if args.train
        else None
    )
    if opr:
        result = methodology_qrels(
            args.methodology,
            train,
            test,
            relevant_threshold=args.relevant_threshold,
            long_tail=args.long_tail,
            grade=args.grade,
            scale=args.scale,
        )
    else:
        result = methodology_qrels(
            args.methodology,
            train,
            test,
            threshold=args.threshold,
            per_user=args.per_user,
            offset=args.offset,
            per_user_from=args.per_user_from,
            grade=args.grade,
            nonrelevant=args.nonrelevant,
            scale=args.scale,
            long_tail=args.long_tail,
        )
    write_table(result.qrels, args.output, separator="\t" if args.separator == "tab" else " ")
    params = {
        k: getattr(args, k)
        for k in (
            "methodology",
            "threshold",
            "per_user",
            "offset",
            "per_user_from",
            "grade",
            "nonrelevant",
            "scale",
            "long_tail",
        )
    }
    if opr:
        params["relevant_threshold"] = args.relevant_threshold
        params["query_id"] = "user:item"
    inputs = {"test": args.test}
    if args.train:
        inputs["train"] = args.train
    info = result.info
    write_manifest(
        args.output,
        "qrels",
        inputs=inputs,
        parameters=params,
        command=argv(),
        extra={
            "rating_scale": {"factor": info.get("scale_factor"), "map": info.get("rating_map")},
            "counts": {k: v for k, v in info.items() if k not in ("scale_factor", "rating_map")},
        },
    )
    _report(info, args)
    return 0


def _report(info: dict, args) -> None:
    note(
        f"qrels: {fmt(info['relevant'])} relevant of {fmt(info['test_ratings'])} test ratings, "
        f"{fmt(info['queries'])} queries"
    )
    if info.get("scale_factor", 1) != 1:
        note(
            f"ratings multiplied by {info['scale_factor']} to make integer relevance values (map in the manifest)"
        )
    if info.get("dropped_short_head"):
        note(
            f"long tail: dropped {fmt(info['dropped_short_head'])} test ratings of the "
            f"{fmt(info['short_head_items'])} short-head items"
        )
    if info.get("dropped_no_user_statistics"):
        note(
            f"dropped {fmt(info['dropped_no_user_statistics'])} test ratings of users without ratings in "
            f"'{args.per_user_from}' (no per-user base)"
        )
    below = info.get("below_threshold", 0)
    if below:
        if info.get("nonrelevant_written"):
            note(f"{fmt(below)} below-threshold test ratings written as judged non-relevant (rel 0)")
        else:
            note(
                f"{fmt(below)} below-threshold test ratings not written (unjudged; --nonrelevant writes them)"
            )
    if info.get("users_without_qrels"):
        note(f"{fmt(info['users_without_qrels'])} test users have no relevant rating: not in the qrels")
