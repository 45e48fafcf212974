"""``trecrs eval-factors``: a factor model scored exactly as its AllItems run, without writing that run."""

from __future__ import annotations

from ..evaluate.api import evaluate_factors
from .common import command, int64, note, ties_parameters
from .eval import add_trec_eval_options, check_format, print_evaluations, trec_eval_settings

EXAMPLES = """examples:
  trecrs eval-factors u1.test.qrels --train u1.base --user-factors user.parquet --item-factors item.parquet
  trecrs eval-factors -q -m P.10 -m recall.50 -m ndcg_cut.50 -m map test.qrels --train train.tsv \\
      --user-factors user.parquet --item-factors item.parquet
"""


def register(sub) -> None:
    p = command(
        sub,
        "eval-factors",
        help="score a factor model (user and item factors) exactly as its AllItems run",
        description="Score a factorization model as the AllItems run it stands for (every item of the item "
        "factors but the user's training items, score = the dot product as a C float, trec_eval's ranking), "
        "without writing that run: the output is what 'trecrs eval' prints for that run.",
        epilog=EXAMPLES,
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file (qid iter docno rel), .gz allowed")
    p.add_argument(
        "--train",
        metavar="TRAIN",
        required=True,
        help="training ratings (user item rating ...): each user's items left out of the ranking",
    )
    p.add_argument(
        "--user-factors",
        metavar="U.parquet",
        required=True,
        help="Parquet file with columns 'user' and 'factors' (list of float32)",
    )
    p.add_argument(
        "--item-factors",
        metavar="V.parquet",
        required=True,
        help="Parquet file with columns 'item' and 'factors'; its items are the catalogue",
    )
    add_trec_eval_options(p)
    p.add_argument(
        "--block-users",
        type=int64,
        default=512,
        metavar="N",
        help="users scored at once per thread (memory about N x items x 14 bytes; default 512)",
    )
    p.set_defaults(func=run, outputs=("output",))


def run(args) -> int:
    from ..files.factors import read_factors
    from ..files.train_pairs import read_train_pairs

    fmt = args.format or "trec"
    check_format(fmt, args.output)
    users, p = read_factors(args.user_factors, "user")
    items, q = read_factors(args.item_factors, "item")
    train = read_train_pairs(args.train)
    ev = evaluate_factors(
        args.qrels,
        train,
        p,
        q,
        users,
        items,
        measures=args.measures,
        block_users=args.block_users,
        settings=trec_eval_settings(args),
    )
    for message in ev.evaluation.notes:
        note(message)
    inputs = {
        "qrels": args.qrels,
        "train": args.train,
        "user_factors": args.user_factors,
        "item_factors": args.item_factors,
    }
    params = {
        "measures": args.measures or ["official"],
        "relevance_level": args.level,
        "judged_only": args.judged_only,
        "average_all": args.average_all,
        "depth": args.depth,
        "per_query": args.per_query,
        **ties_parameters(args),
    }
    return print_evaluations(args, {args.user_factors: ev.evaluation}, fmt, inputs, params)
