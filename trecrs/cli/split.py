"""``trecrs split``: train/test files from a ratings file, in the file's own layout, with manifests."""

from __future__ import annotations

from .common import argv, command, finite_float, int64, note, seed

EXAMPLES = """examples:
  trecrs split --method holdout --ratio 0.2 --seed 1 u.data out/            # out/train, out/test
  trecrs split --method kfold --folds 5 --seed 1 u.data out/                # out/fold1.train ... fold5.test
  trecrs split --method per-user --given 10 --seed 1 ratings.dat out/       # out/train.dat, out/test.dat
  trecrs split --method per-user --ratio 0.2 --seed 1 u.data out/
  trecrs split --method temporal --ratio 0.2 u.data out/                    # the latest 20% to test
  trecrs split --method temporal --last 5 u.data out/                       # each user's 5 latest
  trecrs split --method loo --pick latest u.data out/
  trecrs split --method probe --ratio 0.014 --threshold 5 --seed 1 ratings.csv out/   # Cremonesi 2010
  trecrs split --method holdout --seed 1 --columns user=uid,item=iid,rating=stars data.tsv out/

Output files keep the input's layout and extension (.csv/.dat/.tsv/.txt/.parquet[.gz]); each has a
<file>.manifest.json with the input's sha256, the method, its parameters and the seed.
"""


def register(sub) -> None:
    from ..data.splits import SPLITTERS

    methods = "\n".join(f"  {s.name:<9} {s.doc}" for s in SPLITTERS.values())
    p = command(
        sub,
        "split",
        help="split a ratings file into train/test files (hold-out, k-fold, per-user, temporal, loo, probe)",
        description="Split RATINGS into training and test files in OUT_DIR, seeded and deterministic "
        "(same input and seed => byte-identical files).\n\nmethods:\n" + methods,
        epilog=EXAMPLES,
    )
    p.add_argument(
        "ratings", metavar="RATINGS", help="ratings file (u.data, ratings.dat, ratings.csv, text, Parquet)"
    )
    p.add_argument("out_dir", metavar="OUT_DIR", help="output folder (created if needed)")
    p.add_argument("--method", required=True, choices=list(SPLITTERS), help="split method")
    p.add_argument(
        "--seed", type=seed, default=None, metavar="S", help="random seed (required by random methods)"
    )
    _add_method_options(p)
    _add_io_options(p)
    p.set_defaults(func=run, folder_outputs={"out_dir": _file_names})


def _add_method_options(p) -> None:
    """The options of each split method."""
    g = p.add_argument_group("method options")
    g.add_argument(
        "--ratio",
        default=None,
        metavar="R",
        help="holdout: test share (0.2); per-user: each user's test share; temporal: the latest "
        "share of all ratings; probe: probe share (0.014)",
    )
    g.add_argument(
        "--folds",
        "-k",
        "--k",
        dest="folds",
        type=int64,
        default=None,
        metavar="K",
        help="kfold: number of folds (5)",
    )
    g.add_argument(
        "--given", type=int64, default=None, metavar="N", help="per-user: N ratings per user to train"
    )
    g.add_argument(
        "--all-but",
        dest="all_but",
        type=int64,
        default=None,
        metavar="N",
        help="per-user: N ratings per user to test",
    )
    g.add_argument(
        "--cut",
        type=int64,
        default=None,
        metavar="TIMESTAMP",
        help="temporal: ratings at or after TIMESTAMP go to test",
    )
    g.add_argument(
        "--last", type=int64, default=None, metavar="N", help="temporal: each user's N latest to test"
    )
    g.add_argument(
        "--last-ratio",
        dest="last_ratio",
        default=None,
        metavar="R",
        help="temporal: each user's latest share R to test",
    )
    g.add_argument(
        "--pick", choices=["random", "latest"], default=None, help="loo: which rating leaves (random)"
    )
    g.add_argument(
        "--threshold",
        type=finite_float,
        default=None,
        metavar="T",
        help="probe: probe ratings >= T form the test set (5)",
    )


def _add_io_options(p) -> None:
    """The input layout and the output order."""
    from ..files.ratings import DEDUPE_POLICIES, FORMATS

    r = p.add_argument_group("input and output")
    r.add_argument(
        "--format",
        dest="fmt",
        default="auto",
        choices=["auto", *FORMATS],
        help="ratings layout (default: detected from name and content)",
    )
    r.add_argument(
        "--columns",
        default=None,
        metavar="MAP",
        help="column mapping: user=NAME,item=NAME,rating=NAME[,timestamp=NAME] (names or "
        "positions counted from 1), or roles in order: user,item,_,rating",
    )
    r.add_argument(
        "--separator", default=None, metavar="SEP", help="field delimiter of generic text (tab: \\t)"
    )
    r.add_argument(
        "--dedupe",
        choices=list(DEDUPE_POLICIES),
        default=None,
        help="merge a (user, item) rated twice (default: an error naming both lines)",
    )
    r.add_argument("--sort", action="store_true", help="write rows by (user, item) instead of input order")


def _file_names(args) -> list[str]:
    """The files ``split`` writes in OUT_DIR, known before the input is read (for the output check)."""
    from ..data.split_files import output_extension
    from ..data.splits import check_folds

    ext = ".parquet" if args.fmt == "parquet" else output_extension(args.ratings)
    folds = check_folds(5 if args.folds is None else args.folds) if args.method == "kfold" else 0
    prefixes = [f"fold{i}." for i in range(1, folds + 1)] if args.method == "kfold" else [""]
    return [f"{prefix}{role}{ext}" for prefix in prefixes for role in ("train", "test")]


OPTIONS = ("ratio", "folds", "given", "all_but", "cut", "last", "last_ratio", "pick", "threshold")


def run(args) -> int:
    from ..data.split_files import split_file
    from ..files.ratings import parse_columns

    columns = parse_columns(args.columns) if args.columns else None
    options = {k: getattr(args, k) for k in OPTIONS if getattr(args, k) is not None}
    splits, paths = split_file(
        args.ratings,
        args.out_dir,
        args.method,
        seed=args.seed,
        fmt=args.fmt,
        columns=columns,
        separator=args.separator,
        dedupe=args.dedupe,
        report=note,
        sort=args.sort,
        command=argv(),
        **options,
    )
    for s in splits:
        note(s.summary())
        for what, count in s.report.items():
            note(f"{s.name + ': ' if s.name else ''}{what}: {count}")
    note(f"wrote {len(paths)} files to {args.out_dir}")
    return 0
