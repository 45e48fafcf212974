"""The audit's checks on the measures' values: ``power`` and ``baselines`` (registered in :data:`.audit_registry.CHECKS`).

Both evaluate each run as ``trecrs eval -m ... [-l N]`` does (warnings silenced: the audit reports ties and
missing users itself) and look at the per-user values of each measure asked for.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl

from ..errors import TrecrsWarning
from ..evaluate.api import evaluate_full
from ..evaluate.result import Evaluation
from ..evaluate.settings import EvalSettings
from ..measures.direction import NEITHER, better, sign
from ..schema import DOC, ITEM, QUERY, SCORE, USER
from .audit_checks import AuditInputs, qrels_queries, query_users
from .audit_codes import training_counts
from .audit_registry import Outcome, check
from .stats import detectable_dz

ALPHA = 0.05
POWER = 0.8
#: The baselines every run is set beside: label -> trecrs recommender (trecrs.recommenders).
BASELINES = {"TopPop": "toppop", "Random": "random"}


def evaluation(a: AuditInputs, run: pl.DataFrame) -> Evaluation:
    """``run`` evaluated on the audit's qrels and measures, as ``trecrs eval`` evaluates it."""
    settings = EvalSettings(relevance_level=a.relevance_level, trec_eval_version=a.trec_eval_version)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        return evaluate_full(a.qrels, run, a.measures, settings=settings)


def _evaluated(a: AuditInputs, name: str, run: pl.DataFrame) -> Evaluation:
    key = ("evaluation", name)
    if key not in a.cache:
        a.cache[key] = evaluation(a, run)
    return a.cache[key]


def _qrels_queries(a: AuditInputs) -> int:
    """The queries of the qrels: the users with a value are among them (trec_eval evaluates a run's queries
    that the qrels hold, with or without a relevant document at -l)."""
    return qrels_queries(a).height


@check(
    "power",
    "info",
    ("qrels", "runs"),
    per_run=True,
    count="users with a value of the measure (sd of their values, and the smallest difference a paired t test "
    "at alpha 0.05 detects with power 0.8 against another run of the same variance)",
    of="qrels queries",
    source="Cohen, 'Statistical power analysis for the behavioral sciences', 1988 (noncentral t); "
    "Sakai, 'Statistical significance, power, and sample sizes', SIGIR 2014",
    advice="a difference between two runs smaller than the detectable one is not evidence either way: "
    "add users (more folds, a larger split) or compare fewer systems",
)
def power(a: AuditInputs, run: pl.DataFrame, name: str) -> list[Outcome]:
    """Per measure: n users, the sd of their values and the detectable difference delta = dz * sd_d with
    sd_d = sqrt(2) * sd (the other run independent, with the same sd: the conservative case; a correlation
    rho between the two runs' values shrinks sd_d by sqrt(1 - rho)) and dz from :func:`.stats.detectable_dz`."""
    ev = _evaluated(a, name, run)
    dz = None
    out = []
    for col in ev.columns():
        v = ev.per_query.get_column(col).drop_nulls().to_numpy().astype(np.float64)
        n = v.size
        sd = float(v.std(ddof=1)) if n > 1 else math.nan
        if dz is None or dz[0] != n:
            dz = (n, detectable_dz(n, ALPHA, POWER))
        delta = dz[1] * math.sqrt(2.0) * sd
        label = ev.printed_names(col)[0]
        ex = (
            (
                f"{label}: mean {v.mean():.4f}, sd {sd:.4f} over {n} users: a paired t test detects a difference of "
                f"{delta:.4f} (alpha {ALPHA}, power {POWER})"
            )
            if n > 1
            else f"{label}: {n} users, no test possible"
        )
        out.append(
            Outcome(
                n,
                _qrels_queries(a),
                ex,
                measure=label,
                values={
                    "mean": float(v.mean()) if n else None,
                    "sd": _num(sd),
                    "detectable_difference": _num(delta),
                    "alpha": ALPHA,
                    "power": POWER,
                },
            )
        )
    return out


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


def _baseline_pairs(a: AuditInputs, run: pl.DataFrame) -> pl.DataFrame:
    """``query, user, item``: the candidates of the run's queries (--candidates), else the run's own lines."""
    if a.candidates is not None:
        return a.candidates.join(run.select(QUERY).unique(), on=QUERY, how="semi")
    return query_users(a, run).select(QUERY, USER, pl.col(DOC).alias(ITEM))


def baseline_run(a: AuditInputs, label: str, pairs: pl.DataFrame) -> pl.DataFrame:
    """The run of baseline ``label`` (:data:`BASELINES`, from --train, seeded) over ``pairs``: each row
    scored as the recommender scores it, with no model fitted (neither score needs one)."""
    score = BASELINE_SCORES[BASELINES[label]](a, pairs)
    return pairs.select(QUERY, pl.col(ITEM).alias(DOC), pl.Series(SCORE, score, dtype=pl.Float64))


def _toppop_scores(a: AuditInputs, pairs: pl.DataFrame) -> np.ndarray:
    """TopPop's score (:class:`trecrs.recommenders.baselines.TopPop`): the item's number of training
    ratings, 0 for an item nobody rated."""
    return training_counts(a, pairs.get_column(ITEM)).cast(pl.Float64).to_numpy()


def _random_scores(a: AuditInputs, pairs: pl.DataFrame) -> np.ndarray:
    """Random's score (:class:`trecrs.recommenders.baselines.RandomScores`) with the audit's seed."""
    from ..ranges import check_seed
    from ..recommenders.baselines import random_scores

    check_seed(a.seed)  # the recommender's own check
    return random_scores(pairs.get_column(USER), pairs.get_column(ITEM), a.seed)


#: Each baseline's score of the rows of a frame of (query, user, item) pairs, by recommender name.
BASELINE_SCORES = {"toppop": _toppop_scores, "random": _random_scores}


@check(
    "baselines",
    "info",
    ("qrels", "train", "runs"),
    per_run=True,
    count="baselines (TopPop, a seeded Random) whose mean the run does not beat; a warning when TopPop is one",
    of="baselines",
    source="Cremonesi, Koren & Turrin, RecSys 2010 (TopPop beats many models on top-N); "
    "Ferrari Dacrema, Cremonesi & Jannach, 'Are we really making much progress?', RecSys 2019",
    advice="a run that does not beat the most popular items learns nothing the counts do not give: check the model, "
    "its training data and the candidates it scores",
)
def baselines(a: AuditInputs, run: pl.DataFrame, name: str) -> list[Outcome]:
    """Per measure: the run's mean beside TopPop's and Random's over the same candidates (the candidates of
    the run's queries when --candidates is given, else the run's own items), evaluated the same way. Over
    the run's own items, a measure every order of them gives the same value (P@k of a k-item list) has
    nothing to compare: count 0, ``same_items`` in the values."""
    ev = _evaluated(a, name, run)
    base = _baseline_summaries(a, run)
    out = []
    for col in ev.columns():
        label = ev.printed_names(col)[0]
        mine = ev.summary.get(col)
        if mine is None or better(col) == NEITHER:
            continue
        s = sign(col)
        theirs = {b: base[b].get(col, 0.0) for b in BASELINES}
        ex = f"{label}: this run {mine:.4f}, " + ", ".join(f"{b} {v:.4f}" for b, v in theirs.items())
        if a.candidates is None and all(v == mine for v in theirs.values()):
            # every order of the run's own items gives this value (P@k over a list of k): nothing to compare
            out.append(
                Outcome(
                    0, len(BASELINES), ex, measure=label, values={"run": mine, **theirs, "same_items": True}
                )
            )
            continue
        beaten = [b for b in BASELINES if not s * mine > s * theirs[b]]
        values = {"run": mine, **theirs, "not_beaten": beaten}
        if "TopPop" in beaten and _ranks_by_popularity(a, name, run):
            out.append(
                Outcome(
                    len(beaten),
                    len(BASELINES),
                    ex,
                    severity="info",
                    measure=label,
                    values=values | {"popularity_baseline": True},
                    detail=POPULARITY_NOTE,
                    advice=POPULARITY_ADVICE,
                )
            )
            continue
        out.append(
            Outcome(
                len(beaten),
                len(BASELINES),
                ex,
                severity="warning" if "TopPop" in beaten else "info",
                measure=label,
                values=values,
            )
        )
    return out


POPULARITY_NOTE = (
    "this run ranks every list in the order of training popularity (up to ties): it is the "
    "popularity baseline (TopPop ranks the same way), not a model that fails to beat it"
)
POPULARITY_ADVICE = "nothing to fix: compare the other runs with this one"


def _ranks_by_popularity(a: AuditInputs, name: str, run: pl.DataFrame) -> bool:
    """True when, in trec_eval's order, each query's documents have non-increasing training counts (TopPop's
    score, :func:`trecrs.data.popularity.item_popularity`) and some list falls: the run orders items as
    TopPop does, up to TopPop's ties (items of equal count may come in any order). A run whose items all
    have one count (none in the training file: ids that match nothing) shows no order to recognise."""
    from ..ordering import trec_order
    from ..trec_eval_versions import get

    key = ("popularity order", name)
    if key not in a.cache:
        ranked = trec_order(
            run.select(QUERY, DOC, SCORE), rank=False, score_dtype=get(a.trec_eval_version).score_dtype
        )
        # a query's rows are consecutive in trec_eval's order: a step within one follows a row of its query
        counts = training_counts(a, ranked.get_column(DOC))
        steps = counts.diff().filter(
            ranked.get_column(QUERY).ne_missing(ranked.get_column(QUERY).shift()).not_()
        )
        rises, falls = bool((steps > 0).any()), bool((steps < 0).any())
        a.cache[key] = falls and not rises
    return a.cache[key]


def _baseline_summaries(a: AuditInputs, run: pl.DataFrame) -> dict[str, dict[str, float]]:
    """Each baseline's summary over the run's candidates; runs answering the same queries of one
    candidates file share them (computed once)."""
    key = ("baselines", tuple(run.get_column(QUERY).unique().sort()) if a.candidates is not None else id(run))
    if key not in a.cache:
        pairs = _baseline_pairs(a, run)
        a.cache[key] = {label: evaluation(a, baseline_run(a, label, pairs)).summary for label in BASELINES}
    return a.cache[key]
