"""The experiment end to end: a temporal split of the ratings, EASE's full ranking of each test user's
unseen training items, and that one ranking scored under every library's definition of each metric.

Protocol (compare_metrics' ``model.ipynb``, as far as MovieLens 100K allows; :mod:`.constants`): the
latest 20% of the ratings are the test period; a test user must have training ratings (their EASE scores
only users it was fitted on); relevant = a test rating of :data:`~.constants.RELEVANT_RATING`, and only
users with a relevant test item are evaluated (their ``test.csv`` holds only such ratings); EASE with
lambda = :data:`~.constants.REGULARIZATION` on the binary training matrix ranks every training item the
user has not rated (their ``predict``: ``train.item_id.unique()`` minus the user's items). Every measure
reads the same run: @20 names cut it, the AUC over the full ranking reads it whole.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from ...data.datasets import load
from ...data.splits import split
from ...errors import SemanticError
from ...evaluate.api import evaluate
from ...measures.dialects import FRAMEWORKS, parse_dialect
from ...protocol.candidates import candidate_set
from ...protocol.qrels import qrels_from_ratings
from ...protocol.runs import build_run
from ...recommenders.registry import make_recommender
from ...schema import ITEM, RATING, USER
from .constants import (
    AVAILABLE,
    LIBRARIES,
    REGULARIZATION,
    RELEVANT_RATING,
    RESULTS_COLUMNS,
    SPLIT,
    UNAVAILABLE,
)

PathLike = str | os.PathLike
Progress = Callable[[str], None]


@dataclass
class Experiment:
    """The split's counts and the run and qrels every measure read."""

    counts: dict[str, int] = field(default_factory=dict)
    run: pl.DataFrame | None = None
    qrels: pl.DataFrame | None = None


def measure_status(name: str) -> str:
    """:data:`~.constants.AVAILABLE` when this version of trecrs knows ``name``'s prefix, else
    :data:`~.constants.UNAVAILABLE` (a known prefix with an unknown name is a UsageError: the table is wrong)."""
    prefix = name.partition(":")[0]
    if prefix.lower() not in FRAMEWORKS:
        return UNAVAILABLE
    parse_dialect(name)
    return AVAILABLE


def prepare(data: PathLike, progress: Progress | None = None) -> tuple[Experiment, pl.DataFrame]:
    """Split ``data`` (a MovieLens folder or a ratings file), fit EASE, rank; returns the experiment and the
    training ratings (for the measures that read them)."""
    say = progress or (lambda _msg: None)
    ratings = load(data)
    (s,) = split(ratings, SPLIT["method"], ratio=SPLIT["ratio"])
    train, test = s.train, s.test
    warm = test.filter(pl.col(USER).is_in(train.get_column(USER).implode()))
    relevant = warm.filter(pl.col(RATING) >= RELEVANT_RATING)
    if relevant.height == 0:
        raise SemanticError(f"no test user with training ratings rated an item {RELEVANT_RATING:g} in {data}")
    counts = {
        "ratings": ratings.height,
        "train": train.height,
        "test": test.height,
        "test_users": test.get_column(USER).n_unique(),
        "warm_test_users": warm.get_column(USER).n_unique(),
        "users": relevant.get_column(USER).n_unique(),
        "relevant": relevant.height,
        "relevant_unseen_items": relevant.filter(
            ~pl.col(ITEM).is_in(train.get_column(ITEM).implode())
        ).height,
    }
    say(
        f"split: {train.height:,} training and {test.height:,} test ratings; {counts['users']} users evaluated"
    )
    model = make_recommender("ease", regularization=REGULARIZATION).fit(train)
    cands = candidate_set("training-items", train, relevant)
    scores = model.score(cands.frame()).frame
    run = build_run(cands, scores).run
    counts["ranked"] = run.height
    say(f"EASE (lambda {REGULARIZATION}): ranked {run.height:,} (user, item) pairs")
    qrels = qrels_from_ratings(relevant, grade="binary", threshold=RELEVANT_RATING)
    return Experiment(counts, run, qrels), train


def score_libraries(exp: Experiment, train: pl.DataFrame, progress: Progress | None = None) -> pl.DataFrame:
    """Every library's value of every metric on the experiment's run (:data:`~.constants.RESULTS_COLUMNS`;
    value null where the name is not available in this version)."""
    rows = []
    for lib in LIBRARIES:
        names = {m: n for m, n in lib.names.items() if measure_status(n) == AVAILABLE}
        summary = evaluate(exp.qrels, exp.run, list(names.values()), train=train).summary if names else {}
        for metric, name in lib.names.items():
            value = summary.get(name)
            rows.append((lib.label, metric, name, value, AVAILABLE if metric in names else UNAVAILABLE))
        if progress:
            rest = len(lib.names) - len(names)
            progress(
                f"{lib.label}: {len(names)} measures computed" + (f", {rest} {UNAVAILABLE}" if rest else "")
            )
    schema = dict(zip(RESULTS_COLUMNS, (pl.Utf8, pl.Utf8, pl.Utf8, pl.Float64, pl.Utf8), strict=True))
    return pl.DataFrame(rows, schema=schema, orient="row")
