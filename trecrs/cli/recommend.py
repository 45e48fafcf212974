"""``trecrs recommend``: fit a reference recommender on training ratings and score candidate pairs."""

from __future__ import annotations

import sys

from ..errors import UsageError
from .common import STDOUT_HELP, argv, command, note, option_errors, seed

EXAMPLES = """examples:
  trecrs candidates --methodology all-items --train u1.base --test u1.test -o u1.pairs
  trecrs recommend --algorithm SVD50 --train u1.base --candidates u1.pairs -o u1.SVD50.scores
  trecrs recommend -a UB50 --train u1.base --predict u1.test -o u1.UB50.predictions
  trecrs recommend -a IB --train u1.base --candidates u1.pairs -o s.parquet --predict u1.test --predictions p.txt
  trecrs recommend -a userknn -p k=30 -p similarity=cosine --train u1.base --candidates u1.pairs -o s.txt
  trecrs recommend --list

PAIRS: lines "query<TAB>user<TAB>item" (as trecrs candidates writes them) or "user item"; Parquet with
columns user, item. SCORES: one line "user item score" per distinct (user, item) pair (Parquet for
*.parquet). A pair the model cannot score (unknown user or item, no neighbour rated the item) gets the
fallback score: below every score the model gave, most popular training item first; a warning counts
them (--unscored drop leaves them out instead). --predict writes the same layout for the pairs of a test
ratings file, predictions only (a fallback rank is not a rating).
"""


def register(sub) -> None:
    p = command(
        sub,
        "recommend",
        help="score candidate (user, item) pairs with a reference recommender",
        description="Fit one of the reference recommenders (the baselines of Bellogín et al. 2011 and "
        "Cremonesi et al. 2010) on training ratings and score exactly the given pairs.",
        epilog=EXAMPLES,
    )
    from ..recommenders.registry import algorithm_names

    p.add_argument(
        "-a",
        "--algorithm",
        metavar="NAME",
        help="algorithm or preset, case-insensitive: " + ", ".join(algorithm_names()) + " (see --list)",
    )
    p.add_argument("--train", metavar="RATINGS", help="training ratings (any layout trecrs reads)")
    p.add_argument("--candidates", metavar="PAIRS", help="the (user, item) pairs to score")
    p.add_argument(
        "-o",
        "--output",
        metavar="SCORES",
        help="scores of the candidates (or, with only --predict, the predictions)" + STDOUT_HELP,
    )
    p.add_argument("--predict", metavar="TEST", help="also predict the ratings of this test file's pairs")
    p.add_argument(
        "--predictions",
        metavar="FILE",
        help="where --predict writes when -o holds candidate scores" + STDOUT_HELP,
    )
    p.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a parameter of the algorithm (repeatable)",
    )
    from ..recommenders.base import UNSCORED

    p.add_argument(
        "--unscored",
        choices=list(UNSCORED),
        default="fallback",
        help="candidate pairs the model cannot score: "
        + "; ".join(f"{k}: {v[0]}" for k, v in UNSCORED.items())
        + " (default fallback)",
    )
    p.add_argument("--seed", type=seed, default=0, help="random seed (random, mf, puresvd); default 0")
    p.add_argument("--list", action="store_true", help="list algorithms, presets and parameters, then exit")
    p.set_defaults(func=run, outputs=("output", "predictions"))


def _listing() -> str:
    from ..recommenders.knn import WEIGHTINGS
    from ..recommenders.registry import ALGORITHMS, PRESETS

    lines = ["algorithms (parameters with defaults):"]
    for a in ALGORITHMS.values():
        params = ", ".join(f"{k}={v}" for k, v in a.defaults.items()) or "-"
        lines.append(f"  {a.name:<10} {a.summary}  [{params}]  ({a.source})")
    lines.append("presets (the configurations the reproduced papers name):")
    for name, (algo, preset) in PRESETS.items():
        shown = ", ".join(f"{k}={v}" for k, v in preset.items())
        lines.append(f"  {name:<10} = {algo}" + (f" {shown}" if shown else ""))
    lines.append("kNN weightings: " + "; ".join(f"{k}: {w.rule}" for k, w in WEIGHTINGS.items()))
    return "\n".join(lines) + "\n"


def run(args) -> int:
    if args.list:
        sys.stdout.write(_listing())
        return 0
    from ..files.scores import read_pairs
    from ..recommenders.registry import make_recommender, parse_param

    if not args.algorithm or not args.train:
        raise UsageError("give --algorithm and --train (or --list)")
    if not args.candidates and not args.predict:
        raise UsageError("give --candidates PAIRS and/or --predict TEST")
    if not args.output:
        raise UsageError("give -o FILE")
    if args.candidates and args.predict and not args.predictions:
        raise UsageError("with both --candidates and --predict, give --predictions FILE for the predictions")
    from ..files.ratings import read_ratings
    from ..recommenders.registry import resolve

    with option_errors("algorithm"):
        resolve(args.algorithm)
    with option_errors("param"):  # refused before anything is read
        params = dict(parse_param(text, args.algorithm) for text in args.param)
        model = make_recommender(args.algorithm, seed=args.seed, **params)
    train = read_ratings(args.train, report=note)
    pairs = read_pairs(args.candidates) if args.candidates else None
    test = read_ratings(args.predict, report=note) if args.predict else None
    with option_errors("param"):  # an algorithm checks its parameters as it fits
        model.fit(train)
    jobs = []
    if pairs is not None:
        jobs.append(("candidates", pairs, args.candidates, args.output))
    if test is not None:
        jobs.append(("test", test, args.predict, args.predictions or args.output))
    for role, frame, source, out in jobs:
        _score_and_write(model, role, frame, source, out, args)
    return 0


def _score_and_write(model, role: str, frame, source: str, out: str, args) -> None:
    """Score one input's pairs and write them; candidates follow ``--unscored``, predictions never fall
    back (a rank below the model's is not a rating)."""
    from ..files.output import target_name
    from ..files.scores import write_scores

    unscored = args.unscored if role == "candidates" else "drop"
    scores = model.score(frame, unscored=unscored)
    parameters = {**model.describe(), "scored": role}
    if role == "candidates":  # the policy and how many pairs it scored (counts.unscored: the model could not)
        parameters.update(unscored=unscored, fallbacks=scores.n_fallback)
    write_scores(
        scores, out, inputs={"train": args.train, role: source}, parameters=parameters, command=argv()
    )
    what = "candidate pairs" if role == "candidates" else "test pairs"
    fate = "fallback score" if scores.n_fallback else "left out"
    note(
        f"{model.name}: scored {scores.frame.height} of {scores.n_pairs} distinct {what}; "
        f"{scores.n_unscored} could not be scored by the model ({fate}) -> {target_name(out)}"
    )
