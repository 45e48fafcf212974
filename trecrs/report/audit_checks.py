"""The checks of ``trecrs audit``, each registered with its finding's definition, severity, source and advice.

A check is a function of the audit's inputs (:class:`AuditInputs`), and of one run when it looks at runs,
returning an :class:`Outcome`: a count, what it is out of, and one concrete example. The registry
(:data:`CHECKS`) holds what the report prints beside the count; the definitions, sources and advice are
also in docs/audit.md. The measures' checks (``power``, ``baselines``) are in :mod:`.audit_measures`;
the examples are chosen, and ids compared by form, by :mod:`.audit_ids`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar, cast

import numpy as np
import polars as pl

from ..protocol.one_plus_random import CASE_SEPARATOR
from ..schema import DOC, ITEM, QUERY, RATING, REL, SCORE, TIMESTAMP, USER
from . import audit_codes as codes
from .audit_codes import training_pair
from .audit_ids import distinct_pairs, form_matches, least, pair_example, smallest, unique_pairs
from .audit_registry import Outcome, check

T = TypeVar("T")


@dataclass
class AuditInputs:
    """Everything an audit may look at; each check runs when the inputs it needs are here."""

    train: pl.DataFrame | None = None  # ratings: user, item, timestamp (and rating when given as a frame)
    test: pl.DataFrame | None = None
    qrels: pl.DataFrame | None = None
    candidates: pl.DataFrame | None = None  # query, user, item
    items: pl.Series | None = None  # the catalogue
    runs: dict[str, pl.DataFrame] = field(default_factory=dict)  # name -> run (query, doc, score, ...)
    measures: list[str] = field(default_factory=list)
    cutoff: int = 10  # ties-at-cutoff's k
    relevance_level: int = 1  # trec_eval's -l
    threshold: float = 4.0  # a test rating >= threshold is relevant (negative-is-positive)
    random_split: bool = False  # the split is declared random (future-training is then info)
    seed: int = 0  # the Random baseline's
    trec_eval_version: int = 9
    paths: dict[str, str] = field(default_factory=dict)  # input -> the file it was read from (for messages)
    ratings_options: dict = field(
        default_factory=dict
    )  # how train and test were read (read_ratings' keywords)
    cache: dict = field(default_factory=dict, repr=False)

    def has(self, need: str) -> bool:
        if need == "runs":
            return bool(self.runs)
        if need == "timestamps":
            return all(
                df is not None and df.height and df.get_column(TIMESTAMP).null_count() == 0
                for df in (self.train, self.test)
            )
        if need == "opr":
            return self.candidates is not None and _opr(self.candidates).height > 0
        if need == "ids":
            return any(
                getattr(self, n) is not None for n in ("train", "test", "qrels", "candidates", "items")
            )
        return getattr(self, need) is not None


# --------------------------------------------------------------------------------------------- helpers


def given(value: T | None) -> T:
    """An input a check needs: :func:`~.audit.audit` runs a check only when its ``needs`` are given."""
    if value is None:
        raise ValueError("an audit check ran without an input it needs")
    return value


def query_users(a: AuditInputs, run: pl.DataFrame) -> pl.DataFrame:
    """``query, doc, user`` of a run: a query's user is its user in the candidates file, else the query id."""
    out = run.select(QUERY, DOC)
    if a.candidates is None:
        return out.with_columns(pl.col(QUERY).alias(USER))
    users = a.candidates.select(QUERY, USER).unique(QUERY, keep="any")
    return out.join(users, on=QUERY, how="left").with_columns(pl.col(USER).fill_null(pl.col(QUERY)))


def run_queries(a: AuditInputs, name: str, run: pl.DataFrame) -> pl.DataFrame:
    """``query``: the distinct queries of run ``name``."""
    return _distinct(a, f"run {name}", run, QUERY).to_frame(QUERY)


def qrels_queries(a: AuditInputs) -> pl.DataFrame:
    """``query``: the distinct queries of the qrels."""
    return _distinct(a, "--qrels", given(a.qrels), QUERY).to_frame(QUERY)


def _opr(candidates: pl.DataFrame) -> pl.DataFrame:
    """One-Plus-Random candidates (query ``USER:ITEM``) with their case's target item."""
    head = pl.col(USER) + CASE_SEPARATOR
    return candidates.filter(pl.col(QUERY).str.starts_with(head)).with_columns(
        pl.col(QUERY).str.slice(pl.col(USER).str.len_chars() + 1).alias("_target")
    )


# --------------------------------------------------------------------------------------------- the split

LEAKAGE = (
    "Ji, Sun, Zhang & Li, 'A critical study on data leakage in recommender system offline evaluation', "
    "TOIS 2023; Hidasi & Czapp, 'Widespread flaws in offline evaluation of recommender systems', RecSys 2023"
)


@check(
    "overlap",
    "error",
    ("train", "test"),
    count="distinct (user, item) pairs in both train and test",
    of="test pairs",
    source="a test rating the model was trained on (" + LEAKAGE + ")",
    advice="split again so that each (user, item) pair is in one part only (trecrs split)",
)
def overlap(a: AuditInputs) -> Outcome:
    test, keys = given(a.test), codes.rows(a, "test")
    both = unique_pairs(test.filter(pl.Series(codes.in_training(a, keys))))
    # a pair code stands for one (user, item): its distinct codes are the distinct test pairs
    return Outcome(both.height, pl.Series(keys).n_unique() if keys.size else 0, pair_example(both))


@check(
    "test-before-train-user",
    "warning",
    ("train", "test", "timestamps"),
    count="test ratings older than the same user's latest training rating",
    of="test ratings",
    source=LEAKAGE,
    advice="split each user's ratings by time (trecrs split --method temporal, or --method loo --pick latest)",
)
def test_before_train_user(a: AuditInputs) -> Outcome:
    train, test = given(a.train), given(a.test)
    # each user's latest training timestamp in a table indexed by user code; a test rating of a user
    # without training ratings is compared with nothing
    tu, su = codes.users(codes.rows(a, "train")), codes.users(codes.rows(a, "test"))
    size = codes.span(tu, su)
    last = np.full(size, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(last, tu, train.get_column(TIMESTAMP).to_numpy())
    mine = last[su]
    known = codes.present(tu, size)[su]
    when = test.get_column(TIMESTAMP).to_numpy()
    older = known & (when < mine)
    same = int(np.count_nonzero(known & (when == mine)))
    bad = test.filter(pl.Series(older)).with_columns(pl.Series("_last", mine[older]))
    r = smallest(bad, [USER, ITEM])
    ex = (
        r
        and f"user {r[USER]}, item {r[ITEM]}: rated at {r[TIMESTAMP]}, the user's latest training rating at {r['_last']}"
    )
    return Outcome(
        bad.height,
        test.height,
        ex or "",
        values={"same_second": same},
        detail=_same_second(same, "test ratings", "the same second as the user's latest training rating"),
    )


def _same_second(n: int, what: str, when: str) -> str:
    """The sentence on ratings at the same second as the one compared with: not counted, as the order of
    two ratings within one second is unknown (timestamps are whole seconds)."""
    return f"{n} more {what} at {when} are not counted (within one second the order is unknown)" if n else ""


@check(
    "future-training",
    "warning",
    ("train", "test", "timestamps"),
    count="training ratings newer than the oldest test rating",
    of="training ratings",
    source=LEAKAGE,
    advice="cut train and test at one point in time (trecrs split --method temporal --cut T); a random split "
    "is declared with --random-split (or by its manifest) and makes this a note",
)
def future_training(a: AuditInputs) -> Outcome:
    train, test = given(a.train), given(a.test)
    oldest = cast(int, test.get_column(TIMESTAMP).min())  # every rating has one ("timestamps")
    when = train.get_column(TIMESTAMP).to_numpy()
    newer = when > oldest
    same = int(np.count_nonzero(when == oldest))
    r = codes.smallest_pair(a, "train", newer)
    ex = (
        f"user {r[0]}, item {r[1]}: rated at {when[r[2]]}, after the oldest test rating ({oldest})"
        if r
        else ""
    )
    return Outcome(
        int(np.count_nonzero(newer)),
        train.height,
        ex,
        severity="info" if a.random_split else None,
        values={"random_split": a.random_split, "same_second": same},
        detail=_same_second(same, "training ratings", "the second of the oldest test rating"),
    )


@check(
    "cold-users",
    "warning",
    ("train", "test"),
    count="test users without a training rating",
    of="test users",
    source="a user the model knows nothing of can only get a non-personalised list (Hidasi & Czapp, RecSys 2023)",
    advice="report cold users apart (trecrs eval --user-groups) or leave them out of the test set",
)
def cold_users(a: AuditInputs) -> Outcome:
    tu, su = codes.users(codes.rows(a, "train")), codes.users(codes.rows(a, "test"))
    size = codes.span(tu, su)
    known, tested = codes.present(tu, size), codes.present(su, size)
    cold = int(np.count_nonzero(tested & ~known))
    ex = f"user {least(given(a.test).filter(pl.Series(~known[su])), USER)}" if cold else ""
    return Outcome(cold, int(np.count_nonzero(tested)), ex)


@check(
    "cold-items",
    "info",
    ("train", "test"),
    count="test ratings on items without a training rating",
    of="test ratings",
    source="an item no training rating mentions cannot be scored by collaborative models",
    advice="expect collaborative models to miss these items; count them in the report or filter them",
)
def cold_items(a: AuditInputs) -> Outcome:
    test = given(a.test)
    ti, si = codes.items(codes.rows(a, "train")), codes.items(codes.rows(a, "test"))
    cold = test.filter(pl.Series(~codes.present(ti, codes.span(ti, si))[si]))
    return Outcome(cold.height, test.height, pair_example(cold))


# --------------------------------------------------------------------------------------------- runs


@check(
    "id-form",
    "error",
    ("runs", "ids"),
    per_run=True,
    count="run lines whose query or document id matches an id of the other inputs only in another form "
    "(a leading prefix such as u, a number written otherwise: 1.0, 001)",
    of="run lines",
    source="trec_eval and every check compare ids as strings: '242.0' is not '242', so such lines are "
    "judged non-relevant and escape every check",
    advice="write the run's ids exactly as the other files write them (242, not 242.0; 1, not u1)",
)
def id_form(a: AuditInputs, run: pl.DataFrame, name: str) -> Outcome:
    """Per id column, the run's ids that match no id of the other inputs as written but match one after
    :func:`id_key`; the run lines holding such a query or document id are counted."""
    found = {
        col: form_matches(_distinct(a, f"run {name}", run, col), _references(a, col)) for col in (QUERY, DOC)
    }
    if not (found[QUERY].height or found[DOC].height):
        return Outcome(0, run.height)
    a.cache[("id-form", name)] = found  # seen-items then also compares the ids by form
    bad = run.filter(
        pl.col(QUERY).is_in(found[QUERY].get_column("id").implode())
        | pl.col(DOC).is_in(found[DOC].get_column("id").implode())
    )
    col = QUERY if found[QUERY].height else DOC
    r = smallest(found[col], ["id"])
    ref = "query" if r["source"] in ("--qrels", "--candidates") else "user" if col == QUERY else "item"
    ex = f"{'query' if col == QUERY else 'document'} {r['id']} of {name} is {ref} {r['ref']} of {r['source']}"
    detail = (
        f"{found[QUERY].height} query ids and {found[DOC].height} document ids of {name} match only in "
        "another form; seen-items compares them by form, the other checks as written"
    )
    values = {"query_ids": found[QUERY].height, "doc_ids": found[DOC].height}
    return Outcome(bad.height, run.height, ex, values=values, detail=detail)


def _references(a: AuditInputs, col: str) -> list[tuple[str, pl.Series]]:
    """The ids a run's ``col`` (query or doc) should match, per option they come from, in the order an
    example names them."""
    if col == QUERY:
        sources = [("--qrels", a.qrels, QUERY), ("--candidates", a.candidates, QUERY)]
        if a.candidates is None:  # a query is then its user
            sources += [("--train", a.train, USER), ("--test", a.test, USER)]
    else:
        items = None if a.items is None else a.items.to_frame(ITEM)
        sources = [
            ("--train", a.train, ITEM),
            ("--test", a.test, ITEM),
            ("--qrels", a.qrels, DOC),
            ("--candidates", a.candidates, ITEM),
            ("--items", items, ITEM),
        ]
    return [(s, _distinct(a, s, df, c)) for s, df, c in sources if df is not None]


def _distinct(a: AuditInputs, source: str, df: pl.DataFrame, col: str) -> pl.Series:
    """The distinct ids of ``col`` of an input (``source``: its option, or ``run NAME``), found once per
    audit (every run compares with them, and several checks look at a run's queries)."""
    key = ("distinct ids", source, col)
    if key not in a.cache:
        part = {"--train": "train", "--test": "test"}.get(source)
        a.cache[key] = df.get_column(col).unique() if part is None else codes.distinct(a, part, col)
    return a.cache[key]


@check(
    "missing-users",
    "warning",
    ("qrels", "runs"),
    per_run=True,
    count="qrels queries with a relevant document that the run does not rank",
    of="queries with a relevant document",
    source="trec_eval averages over the queries a run answers unless -c (trec_eval's README, -c)",
    advice="evaluate with -c (every qrels query counts, a missing one scores 0), or say how many users were dropped",
)
def missing_users(a: AuditInputs, run: pl.DataFrame, name: str) -> Outcome:
    if "relevant queries" not in a.cache:
        a.cache["relevant queries"] = (
            given(a.qrels).filter(pl.col(REL) >= a.relevance_level).select(QUERY).unique()
        )
    relevant = a.cache["relevant queries"]
    missing = relevant.join(run_queries(a, name, run), on=QUERY, how="anti")
    return Outcome(
        missing.height, relevant.height, f"query {least(missing, QUERY)}" if missing.height else ""
    )


@check(
    "extra-users",
    "info",
    ("qrels", "runs"),
    per_run=True,
    count="run queries absent from the qrels",
    of="run queries",
    source="trec_eval ignores the queries the qrels do not judge",
    advice="check that the run and the qrels come from the same split (ids, One-Plus-Random case names)",
)
def extra_users(a: AuditInputs, run: pl.DataFrame, name: str) -> Outcome:
    """With --test, the extra queries are told apart: users of --test with no qrels line (no relevant test
    rating: trec_eval rightly leaves them out) and queries whose user is no test user (ids that match nothing)."""
    queries = run_queries(a, name, run)
    extra = queries.join(qrels_queries(a), on=QUERY, how="anti")
    ex = f"query {least(extra, QUERY)}" if extra.height else ""
    if a.test is None or not extra.height:
        detail = "without --test, users with no relevant test rating are not told apart from ids that match nothing"
        return Outcome(extra.height, queries.height, ex, detail=detail if extra.height else "")
    users = query_users(a, extra.with_columns(pl.lit("").alias(DOC))).select(QUERY, USER)
    unmatched = users.join(a.test.select(USER).unique(), on=USER, how="anti").height
    quiet = extra.height - unmatched
    detail = (
        f"{quiet} users of --test with no qrels line (no relevant test rating: trec_eval leaves them "
        f"out); {unmatched} queries whose user is not in --test (ids that match nothing)"
    )
    advice = (
        None
        if unmatched
        else (
            "nothing to fix: the qrels hold no relevant rating of these users (trecrs "
            "qrels --nonrelevant writes their ratings as judged non-relevant, and "
            "trec_eval then evaluates them)"
        )
    )
    return Outcome(
        extra.height,
        queries.height,
        ex,
        values={"no_relevant_test_rating": quiet, "unmatched": unmatched},
        detail=detail,
        advice=advice,
    )


@check(
    "seen-items",
    "error",
    ("train", "runs"),
    per_run=True,
    count="run lines whose (user, item) is a training pair (a query's user: its user in --candidates, else the query id)",
    of="run lines",
    source="items the user already rated, left in the ranking (Bellogín, Castells & Cantador, "
    "RecSys 2011: every methodology but TestRatings removes Tr_u from L_u)",
    advice="remove each user's training items from the run (trecrs run does; trecrs candidates lists L_u)",
)
def seen_items(a: AuditInputs, run: pl.DataFrame, name: str) -> Outcome:
    """Run lines on a training pair, ids as written; when id-form found ids of this run written in another
    form, the lines matching a training pair once those ids are written as the other inputs write them
    count too (the detail says how many), so that a run of ``242.0`` items does not pass."""
    lines = query_users(a, run)
    seen = lines.filter(training_pair(a, lines.get_column(USER), lines.get_column(DOC)))
    found = a.cache.get(("id-form", name))
    if found is None:
        return Outcome(seen.height, run.height, _seen_example(seen))
    rewritten = query_users(
        a,
        run.with_columns(
            pl.col(c).replace(found[c].get_column("id"), found[c].get_column("ref")) for c in (QUERY, DOC)
        ),
    )
    seen_by_form = rewritten.filter(training_pair(a, rewritten.get_column(USER), rewritten.get_column(DOC)))
    more = seen_by_form.height - seen.height
    detail = f"{more} of them only once ids are compared by form (see id-form)" if more else ""
    if not seen.height:  # the example as the run writes it
        r = smallest(seen_by_form, [QUERY, DOC])
        seen = (
            pl.DataFrame(
                [{QUERY: _written(found[QUERY], r[QUERY]), DOC: _written(found[DOC], r[DOC]), USER: r[USER]}]
            )
            if r
            else seen
        )
    return Outcome(
        seen_by_form.height, run.height, _seen_example(seen), values={"by_form": more}, detail=detail
    )


def _written(found: pl.DataFrame, ref: str) -> str:
    """The run's own spelling of id ``ref`` (its smallest, bytewise), or ``ref`` when the run writes it so."""
    ids = found.filter(pl.col("ref") == ref).get_column("id")
    return cast(str, ids.min()) if ids.len() else ref


def _seen_example(seen: pl.DataFrame) -> str:
    r = smallest(seen, [QUERY, DOC])
    return (
        f"query {r[QUERY]}, doc {r[DOC]}" + ("" if r[USER] == r[QUERY] else f" (user {r[USER]})") if r else ""
    )


@check(
    "ties-at-cutoff",
    "warning",
    ("runs",),
    per_run=True,
    count="run queries where the tie group holding the document at rank k continues below rank k, or where a "
    "list cut at exactly k documents ends inside a tie group (trec_eval's order; k the deepest cutoff among -m, "
    "default 10)",
    of="run queries",
    source="the order of tied documents decides the value (McSherry & Najork, ECIR 2008); trec_eval breaks "
    "ties by document id, other tools by file order",
    advice="break ties in the recommender and write lists past the cutoff, or report trecrs eval --ties expected "
    "(and best/worst for the range)",
)
def ties_at_cutoff(a: AuditInputs, run: pl.DataFrame, name: str) -> Outcome:
    """Queries with a tie group across rank k (``straddled``), and lists of exactly k documents whose last
    two are tied (``truncated``): whether the next candidate ties with the last line is unknowable from the
    file, but a tie group that reaches the last line at rank k is the sign of a list cut inside one. The
    detail sets beside them the count ``trecrs eval``'s tie warning gives: the evaluated queries whose
    straddling group holds documents of different relevance (``Straddles.mixed``)."""
    from ..engines.vectorized.ties import straddles
    from ..trec_eval_versions import get

    dtype = get(a.trec_eval_version).score_dtype
    s = straddles(run, a.cutoff, qrels=a.qrels, relevance_level=a.relevance_level, score_dtype=dtype)
    cut = _cut_in_a_tie(run, a.cutoff, pl.Float32 if dtype == np.float32 else pl.Float64)
    k = a.cutoff
    if s.straddled:
        q = s.straddled[0]
        top, size = s.group[q]
        ex = f"query {q}: {size} documents tied at ranks {top} to {top + size - 1}, across rank {k}"
    else:
        r = smallest(cut, [QUERY])
        ex = (
            f"query {r[QUERY]}: its {k} documents end with {r['_size']} tied at ranks {k - r['_size'] + 1} to {k}"
            if r
            else ""
        )
    values = {"cutoff": k, "straddled": len(s.straddled), "truncated": cut.height}
    detail = f"{len(s.straddled)} of {s.queries} run queries have a tie group across rank {k}"
    if a.qrels is not None:
        evaluated = run_queries(a, name, run).join(qrels_queries(a), on=QUERY, how="semi").height
        values |= {"values_move": s.mixed, "evaluated": evaluated}
        detail += (
            f"; in {s.mixed} of them the tied documents differ in relevance (what trecrs eval's tie "
            f"warning counts, of {evaluated} evaluated queries)"
        )
    detail += f"; {cut.height} more lists end inside a tie group at rank {k}"
    return Outcome(len(s.straddled) + cut.height, s.queries, ex, values=values, detail=detail)


def _cut_in_a_tie(run: pl.DataFrame, k: int, dtype: type[pl.DataType]) -> pl.DataFrame:
    """``query, _size``: the queries with exactly ``k`` documents whose lowest score (as trec_eval compares
    scores: ``dtype``) is held by two or more of them, and how many hold it."""
    low = pl.col(SCORE).cast(dtype)
    sizes = run.group_by(QUERY).agg(pl.len().alias("_n"), (low == low.min()).sum().alias("_size"))
    return sizes.filter((pl.col("_n") == k) & (pl.col("_size") > 1)).select(QUERY, "_size")


@check(
    "unknown-items",
    "warning",
    ("items", "runs"),
    per_run=True,
    count="run lines whose item is not in the catalogue",
    of="run lines",
    source="coverage and novelty measures divide by the catalogue; an item outside it is a wrong id",
    advice="check the item ids (leading zeros, a prefix) or give the catalogue the run was made from",
)
def unknown_items(a: AuditInputs, run: pl.DataFrame, name: str) -> Outcome:
    items = given(a.items).to_frame(DOC).unique()
    bad = run.select(QUERY, DOC).join(items, on=DOC, how="anti")
    r = smallest(bad, [QUERY, DOC])
    return Outcome(bad.height, run.height, f"query {r[QUERY]}, doc {r[DOC]}" if r else "")


# --------------------------------------------------------------------------------------------- candidates


@check(
    "candidate-in-train",
    "error",
    ("candidates", "train"),
    count="candidate lines whose (user, item) is a training pair (one pair may be a candidate of several queries)",
    of="candidate lines",
    source="L_u excludes Tr_u (Bellogín, Castells & Cantador, RecSys 2011)",
    advice="write the candidates from this training file (trecrs candidates --train)",
)
def candidate_in_train(a: AuditInputs) -> Outcome:
    candidates = given(a.candidates)
    bad = candidates.filter(training_pair(a, candidates.get_column(USER), candidates.get_column(ITEM)))
    r = smallest(bad, [QUERY, ITEM])
    pairs, of_pairs = distinct_pairs(bad), distinct_pairs(candidates)
    return Outcome(
        bad.height,
        candidates.height,
        f"query {r[QUERY]}, item {r[ITEM]} (user {r[USER]})" if r else "",
        values={"distinct_pairs": pairs, "of_distinct_pairs": of_pairs},
        detail=f"{pairs} of {of_pairs} distinct (user, item) pairs" if bad.height else "",
    )


@check(
    "negative-is-positive",
    "error",
    ("candidates", "test", "opr"),
    count="One-Plus-Random candidates that are a relevant test item (rating >= --threshold) of the user other "
    "than the query's own",
    of="One-Plus-Random candidates besides the targets",
    source="the N random items are assumed not relevant (Cremonesi, Koren & Turrin, RecSys 2010)",
    advice="draw the random items among the items the user did not rate (trecrs candidates --methodology one-plus-random)",
)
def negative_is_positive(a: AuditInputs) -> Outcome:
    negatives = _opr(given(a.candidates)).filter(pl.col(ITEM) != pl.col("_target"))
    # one row per pair, so that the join counts candidate lines (a frame given in Python may repeat a pair)
    relevant = (
        given(a.test).filter(pl.col(RATING) >= a.threshold).select(USER, ITEM, RATING).unique([USER, ITEM])
    )
    bad = negatives.join(relevant, on=[USER, ITEM], how="inner")
    r = smallest(bad, [QUERY, ITEM])
    ex = f"query {r[QUERY]}: item {r[ITEM]}, rated {r[RATING]:g} in the test set" if r else ""
    return Outcome(bad.height, negatives.height, ex, values={"threshold": a.threshold})
