"""``trecrs run``: a recommender's score file -> the TREC run of a methodology."""

from __future__ import annotations

from ..errors import UsageError
from .candidates import (
    add_split_options,
    fmt,
    load_candidates,
    report_candidates,
    split_inputs,
    split_parameters,
)
from .common import STDOUT_HELP, argv, command, int64, note, option_errors, wrote

EXAMPLES = """examples:
  trecrs run --methodology all-items --train u1.base --test u1.test --scores svd.scores -o svd.all-items.run
  trecrs run --methodology test-ratings --train u1.base --test u1.test --scores svd.parquet \\
      --depth 100 --tag svd -o svd.tr.run
  trecrs run --methodology all-items --train u1.base --test u1.test --scores lenskit.csv -o als.run
                                                      # LensKit: user,item,score,rank
  trecrs run --methodology test-items --train u1.base --test u1.test --scores top10.jsonl \\
      --missing drop -o top10.run                     # top-N lists: {"user": "1", "items": ["50", ...]}
  trecrs run --methodology all-items --train u1.base --test u1.test --scores top50.txt --ranks \\
      --missing drop -o top50.run                     # top-N lists: user item rank
  trecrs run --methodology all-items --train u1.base --test u1.test --scores out.tsv \\
      --score-columns user=uid,item=iid,score=3 -o out.run   # a header trecrs does not know
  trecrs run --candidates u1.opr.pairs --scores knn.scores -o knn.opr.run

SCORES: whitespace user item score, CSV, TSV, JSON lines, a TREC run or Parquet (--scores-format, by
default from the extension, else the first line). Headers are recognised by name (user/userID/user_id,
item/itemID/item_id, score/prediction, rank; RecBole's name:type too); --score-columns maps others.
A rank column without scores (or JSON top-N lists) ranks each user in the list's order; with both,
the scores rank, as trec_eval ranks. Candidates without a score: --missing fail (default) | last | drop
(a warning counts them). Scores of pairs that are not candidates are dropped and counted on stderr.
"""


def register(sub) -> None:
    from ..files.score_formats import FORMATS
    from ..protocol.runs import MISSING_POLICIES

    p = command(
        sub,
        "run",
        help="turn a score file into the TREC run of a methodology",
        description="Build the TREC run of a methodology from a recommender's scores: each query's "
        "candidates, ranked the way trec_eval ranks (score as float32 descending, then item id descending), "
        "numbered 1..n, optionally cut at --depth, tagged.",
        epilog=EXAMPLES,
    )
    add_split_options(p, required=False)
    p.add_argument(
        "--candidates",
        metavar="PAIRS",
        help="take the candidates from a file written by 'trecrs candidates' instead of "
        "--methodology/--train/--test",
    )
    p.add_argument(
        "--scores",
        metavar="SCORES",
        required=True,
        help="score file or top-N lists: whitespace, CSV, TSV, JSON lines, TREC run or .parquet",
    )
    p.add_argument(
        "--scores-format",
        dest="fmt",
        choices=("auto", *FORMATS),
        default="auto",
        help="the layout of SCORES (default auto: by extension, else by the first content line)",
    )
    p.add_argument(
        "--score-columns",
        metavar="MAP",
        help="the columns of SCORES when the header is not recognised or there is none: "
        "user=COL,item=COL,score=COL (or rank=COL), COL a header name or a position from 1; "
        "or the role of each column in order (user,item,_,score)",
    )
    p.add_argument(
        "--ranks",
        action="store_true",
        help="rank by the rank column (top-N lists; rank 1 is best): a 3-field SCORES is user item rank",
    )
    p.add_argument(
        "--missing",
        choices=MISSING_POLICIES,
        default="fail",
        help="candidates without a score: fail (default), last (rank them after every scored "
        "candidate), drop (leave them out)",
    )
    p.add_argument("--depth", type=int64, metavar="N", help="keep the first N documents of each query")
    p.add_argument(
        "--tag",
        metavar="T",
        help="run tag (default: the score file's name without its last extension, and without .gz: "
        "fold1.SVD50.scores and fold1.SVD50.scores.gz are tagged fold1.SVD50; blanks become _; stdin for -)",
    )
    p.add_argument("-o", "--output", metavar="RUN", required=True, help="output TREC run file" + STDOUT_HELP)
    p.set_defaults(func=run, outputs=("output",))


def run(args) -> int:
    from ..files.candidates import read_candidates
    from ..files.manifest import write_manifest
    from ..files.score_formats import normalise_score_columns
    from ..files.scores import read_score_table
    from ..protocol.runs import default_tag, iter_run, write_run_stream

    if args.candidates:
        given = [o for o in ("methodology", "train", "test", "items") if getattr(args, o)]
        if given:
            raise UsageError(f"--candidates replaces --{', --'.join(given)}; give one or the other")
        cands = read_candidates(args.candidates)
        inputs = {"candidates": args.candidates}
        params: dict = {"candidates": "file"}
    else:
        missing = [o for o in ("methodology", "train", "test") if not getattr(args, o)]
        if missing:
            raise UsageError(f"give --{', --'.join(missing)} (or --candidates PAIRS)")
        cands = load_candidates(args)
        inputs = split_inputs(args)
        params = split_parameters(args)
    tag = args.tag or default_tag(args.scores)
    info: dict = {}
    with option_errors(columns="score_columns"):  # the score reader's columns= is --score-columns here
        normalise_score_columns(args.score_columns)  # a bad mapping is refused before the scores are read
        table = read_score_table(
            args.scores,
            kind="rank" if args.ranks else None,
            fmt=args.fmt,
            columns=args.score_columns,
            coded=True,
        )
    order = table.order
    chunks = iter_run(
        cands, table, missing=args.missing, depth=args.depth, tag=tag, scores_path=args.scores, info=info
    )
    del table  # the run holds the scores until it has coded them
    write_run_stream(chunks, args.output)
    inputs["scores"] = args.scores
    params.update(
        scores="ranks" if args.ranks else "scores",
        missing=args.missing,
        depth=args.depth,
        tag=tag,
        order=order,
    )
    write_manifest(
        args.output, "run", inputs=inputs, parameters=params, command=argv(), extra={"counts": info}
    )
    report_candidates(info, args.methodology or "candidates")
    if order == "list":
        note(f"ranked in the order of the top-N lists of {args.scores} (rank 1 first), not by score")
    if info["scores_outside_candidates"]:
        note(
            f"{fmt(info['scores_outside_candidates'])} of {fmt(info['scores'])} scores are not candidates: dropped"
        )
    if info["cut_by_depth"]:
        note(f"{fmt(info['cut_by_depth'])} ranked candidates beyond depth {args.depth}: cut")
    wrote(args.output, f"{fmt(info['lines'])} lines")
    return 0
