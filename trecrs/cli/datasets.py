"""``trecrs datasets``: verify MovieLens folders, regenerate ML-100K's splits, write synthetic sample data."""

from __future__ import annotations

import sys

from ..errors import EXIT_CHECK_FAILED, EXIT_OK
from ..ranges import SYNTHETIC_MAX
from .common import argv, command, int_range, note, seed

EXAMPLES = """examples:
  trecrs datasets verify ~/data/ml-100k                # each known file: OK / MISMATCH / missing
  trecrs datasets verify --dataset ml-1m ~/data/ml-1m
  trecrs datasets ml100k-splits ~/data/ml-100k/u.data splits/   # u1..u5, ua, ub .base/.test
  trecrs datasets synthetic --users 300 --items 600 --seed 42 sample/

exit status of verify: 0 all present files match, 1 a mismatch (or the ratings file is missing),
3 no MovieLens file found (name the release with --dataset), 5 not a folder.
"""


def register(sub) -> None:
    from ..data.datasets import DATASETS

    p = command(
        sub,
        "datasets",
        help="verify MovieLens files, regenerate ML-100K's predefined splits, generate synthetic data",
        description="MovieLens datasets: checksums, ML-100K's predefined splits, synthetic sample data.",
        epilog=EXAMPLES,
    )
    dsub = p.add_subparsers(dest="datasets_command", metavar="ACTION")
    dsub.required = True

    v = command(
        dsub,
        "verify",
        help="check a MovieLens folder against the known checksums",
        description="Check each known file of a MovieLens folder (md5, number of ratings) and any official "
        "archive (ml-*.zip) in it. Prints one line per file: OK, MISMATCH or missing.",
        epilog=EXAMPLES,
    )
    v.add_argument("directory", metavar="DIR", help="the unpacked folder (e.g. ml-100k/) or where the zip is")
    v.add_argument("--dataset", choices=list(DATASETS), help="the release (default: identified from DIR)")
    v.set_defaults(func=run_verify)

    s = command(
        dsub,
        "ml100k-splits",
        help="regenerate u1..u5/ua/ub .base/.test from u.data, byte for byte",
        description="Write MovieLens 100K's 14 predefined split files from u.data, exactly as GroupLens' "
        "mku.sh did: u{i}.test = lines (i-1)*20000+1..i*20000, ua/ub.test = each user's 1st-10th / "
        "11th-20th rating; all sorted by (user, item). Each file gets a manifest.",
        epilog=EXAMPLES,
    )
    s.add_argument("u_data", metavar="U_DATA", help="MovieLens 100K u.data (original line order)")
    s.add_argument("out_dir", metavar="OUT_DIR", help="folder for the 14 files (created if needed)")
    s.set_defaults(func=run_ml100k_splits, folder_outputs={"out_dir": _ml100k_split_names})

    g = command(
        dsub,
        "synthetic",
        help="write a seeded, synthetic MovieLens-like u.data",
        description="Generate synthetic MovieLens-100K-like ratings (latent factors, popularity long tail, "
        "1..5 stars with ML-100K's histogram, >= 20 ratings per user, timestamps) as OUT_DIR/u.data.",
        epilog=EXAMPLES,
    )
    g.add_argument("out_dir", metavar="OUT_DIR")
    g.add_argument(
        "--users",
        type=int_range(1, SYNTHETIC_MAX),
        default=300,
        metavar="N",
        help="number of users (default 300)",
    )
    g.add_argument(
        "--items",
        type=int_range(1, SYNTHETIC_MAX),
        default=600,
        metavar="M",
        help="number of items (default 600)",
    )
    g.add_argument("--seed", type=seed, default=42, metavar="S", help="random seed (default 42)")
    g.add_argument(
        "--min-ratings",
        type=int_range(1, SYNTHETIC_MAX),
        default=20,
        metavar="K",
        help="ratings per user at least (20)",
    )
    g.set_defaults(func=run_synthetic, folder_outputs={"out_dir": lambda args: ["u.data"]})


def _ml100k_split_names(args) -> list[str]:
    from ..data.datasets import ML100K_SPLITS_MD5

    return list(ML100K_SPLITS_MD5)


def run_verify(args) -> int:
    from ..data.datasets import verify, verify_ok

    checks = verify(args.directory, args.dataset)
    for c in checks:
        sys.stdout.write(f"{c.dataset}\t{c.line()}\n")
    ok = verify_ok(checks)
    counts = {s: sum(c.status == s for c in checks) for s in ("OK", "MISMATCH", "missing")}
    note(f"{counts['OK']} OK, {counts['MISMATCH']} mismatch, {counts['missing']} missing")
    return EXIT_OK if ok else EXIT_CHECK_FAILED


def run_ml100k_splits(args) -> int:
    from ..data.datasets import ml100k_splits

    paths = ml100k_splits(args.u_data, args.out_dir)
    note(f"wrote {len(paths)} files to {args.out_dir}: {' '.join(paths)}")
    return 0


def run_synthetic(args) -> int:
    from ..data.synthetic import write_synthetic

    path = write_synthetic(
        args.out_dir, args.users, args.items, seed=args.seed, min_ratings=args.min_ratings, command=argv()
    )
    note(f"wrote {path} (synthetic: {args.users} users, {args.items} items, seed {args.seed})")
    return 0
