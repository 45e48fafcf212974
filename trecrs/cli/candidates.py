"""``trecrs candidates``: the (query, user, item) pairs a recommender must score for a methodology."""

from __future__ import annotations

import argparse

from .common import STDOUT_HELP, argv, command, finite_float, int64, note, seed

EXAMPLES = """examples:
  trecrs candidates --methodology all-items --train u1.base --test u1.test -o u1.all-items.pairs
  trecrs candidates --methodology test-items --train u1.base --test u1.test --items u.item -o pairs.tsv
  trecrs candidates --methodology one-plus-random --train u1.base --test u1.test \\
      --n 1000 --relevant-threshold 5 --seed 7 -o u1.opr.pairs

output: one line per pair, query<TAB>user<TAB>item; query = the user id, or user:item for
one-plus-random (one query per test rating >= --relevant-threshold). Counts go to stderr.
"""


def fmt(n: int) -> str:
    return f"{n:,}"


def methodology(text: str) -> str:
    """argparse type of ``--methodology``: a registry name or abbreviation, case-insensitive -> the name."""
    from ..errors import UsageError
    from ..protocol.candidates import methodology_name

    try:
        return methodology_name(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def methodology_help() -> str:
    """The methodologies with their abbreviations, as every ``--methodology`` help lists them."""
    from ..protocol.candidates import methodology_choices

    return "one of (abbreviations case-insensitive): " + ", ".join(methodology_choices())


def add_split_options(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    """The options that define a methodology's candidates (shared by candidates, run and qrels)."""
    from ..protocol.candidates import METHODOLOGIES, OPR_POOLS

    p.add_argument(
        "--methodology",
        type=methodology,
        choices=list(METHODOLOGIES),
        required=required,
        metavar="M",
        help=methodology_help(),
    )
    p.add_argument("--train", metavar="TRAIN", required=required, help="training ratings file")
    p.add_argument("--test", metavar="TEST", required=required, help="test ratings file")
    p.add_argument(
        "--items",
        metavar="CATALOGUE",
        help="item catalogue I (ids in the first field: a list, u.item, movies.dat, movies.csv); "
        "default: the items of train and test",
    )
    add_one_plus_random_options(p)
    p.add_argument(
        "--pool",
        choices=OPR_POOLS,
        default="all",
        help="one-plus-random: draw from all unrated items of the catalogue (all, default) or "
        "from the unrated items that appear in the test set (test)",
    )
    p.add_argument(
        "--long-tail",
        type=finite_float,
        metavar="SHARE",
        help="one-plus-random: only test items outside the short head (the most popular items "
        "holding SHARE of the training ratings, e.g. 0.33)",
    )
    add_ratings_options(p)


def add_one_plus_random_options(p: argparse.ArgumentParser) -> None:
    """The options of One-Plus-Random's draws, as :func:`load_candidates` and ``sensitivity`` pass them on."""
    p.add_argument(
        "--n",
        type=int64,
        default=1000,
        metavar="N",
        help="one-plus-random: random unrated items per query (default 1000)",
    )
    p.add_argument(
        "--relevant-threshold",
        type=finite_float,
        default=5.0,
        metavar="R",
        help="one-plus-random: one query per test rating >= R (default 5)",
    )
    p.add_argument("--seed", type=seed, metavar="S", help="one-plus-random: random seed (required there)")


def add_ratings_options(p: argparse.ArgumentParser) -> None:
    """How TRAIN and TEST are read: the options :func:`read_split_ratings` reads."""
    from ..files.ratings import FORMATS

    p.add_argument(
        "--ratings-format",
        default="auto",
        choices=["auto", *FORMATS],
        help="layout of TRAIN/TEST (default: detected)",
    )
    p.add_argument(
        "--columns",
        metavar="SPEC",
        help="column mapping of TRAIN/TEST, e.g. user=userId,item=movieId,rating=rating",
    )
    add_dedupe_option(p)


def add_dedupe_option(p: argparse.ArgumentParser) -> None:
    from ..files.ratings import DEDUPE_POLICIES

    p.add_argument(
        "--dedupe",
        choices=DEDUPE_POLICIES,
        help="a (user, item) rated twice in a ratings file: keep the first, the last, or the mean "
        "(default: an error naming both lines)",
    )


def read_split_ratings(args, which: str, *, coded: bool = False, roles: tuple[str, ...] | None = None):
    """The ratings of ``--train`` or ``--test`` (``which``); ``coded``: ids read as numbers where they
    are plain decimals; ``roles``: the columns kept (:func:`~trecrs.files.ratings.read_ratings`)."""
    from ..files.ratings import parse_columns, read_ratings
    from ..files.ratings_format import ROLES

    path = getattr(args, which)
    columns = parse_columns(args.columns) if args.columns else None
    return read_ratings(
        path,
        fmt=args.ratings_format,
        columns=columns,
        dedupe=args.dedupe,
        report=note,
        coded=coded,
        roles=ROLES if roles is None else roles,
    )


def load_candidates(args):
    """The CandidateSet the options describe."""
    from ..files.ratings_fast import large
    from ..protocol.candidates import candidate_set

    # coded ids: a large split is numbered on numbers; only its distinct users and items become text again
    # (the test ratings are coded with the training ones, or the two would be compared as text)
    coded = large(args.train)
    roles = ("user", "item", "rating")  # candidates need no timestamps
    train = read_split_ratings(args, "train", coded=coded, roles=roles)
    test = read_split_ratings(args, "test", coded=coded, roles=roles)
    return candidate_set(
        args.methodology,
        train,
        test,
        args.items,
        n=args.n,
        relevant_threshold=args.relevant_threshold,
        seed=args.seed,
        pool=args.pool,
        long_tail=args.long_tail,
        paths={"train": args.train, "test": args.test, "items": args.items},
    )


def split_inputs(args) -> dict:
    ins = {"train": args.train, "test": args.test}
    if args.items:
        ins["items"] = args.items
    return ins


def split_parameters(args) -> dict:
    params = {"methodology": args.methodology}
    if args.methodology == "one-plus-random":
        params.update(
            n=args.n,
            relevant_threshold=args.relevant_threshold,
            seed=args.seed,
            pool=args.pool,
            long_tail=args.long_tail,
            query_id="user:item",
        )
    params["catalogue"] = "items file" if args.items else "items of train and test"
    return params


def report_candidates(info: dict, methodology: str) -> None:
    note(f"{methodology}: {fmt(info.get('queries', 0))} queries, {fmt(info.get('pairs', 0))} candidate pairs")
    short = info.get("cases_short_of_n")
    if short:
        note(
            f"{fmt(short)} of {fmt(info['cases'])} one-plus-random queries have fewer than {info['n']} "
            f"unrated items in the '{info['pool']}' pool: they rank all of them"
        )


def register(sub) -> None:
    p = command(
        sub,
        "candidates",
        help="write the (query, user, item) pairs to score under a methodology",
        description="Write the candidate items L_u of every query under an evaluation methodology "
        "(Bellogín et al. 2011: test-ratings, test-items, training-items, all-items; Cremonesi et al. "
        "2010: one-plus-random), for a recommender to score.",
        epilog=EXAMPLES,
    )
    add_split_options(p)
    p.add_argument(
        "-o", "--output", metavar="PAIRS", required=True, help="output file (query user item)" + STDOUT_HELP
    )
    p.set_defaults(func=run, outputs=("output",))


def run(args) -> int:
    from ..files.candidates import write_candidates
    from ..files.manifest import write_manifest

    cands = load_candidates(args)
    info = write_candidates(cands, args.output)
    write_manifest(
        args.output,
        "candidates",
        inputs=split_inputs(args),
        parameters=split_parameters(args),
        command=argv(),
        extra={"counts": info},
    )
    report_candidates(info, args.methodology)
    return 0
