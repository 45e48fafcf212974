"""The inputs of an evaluation as the engines take them: files, frames, dicts and trecrs's own results
read and checked (:func:`read_frames`), standard input, the ``-Z`` table, the ``-R``/``-T`` formats,
training pairs and factor matrices."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import numpy as np
import polars as pl

from ..engines.rel_info import REL_INFO_FORMATS, RESULTS_FORMATS, RelInfoFormat, kinds_for, unserved
from ..errors import InputError, SemanticError, UsageError
from ..files.lines import is_stdin, read_through_file
from ..files.trec import read_qrels, read_run, run_tag
from ..files.zscores import read_zscores
from ..measures.request import MeasureRequest, variant_passes
from ..measures.ties import DEFAULT as DEFAULT_TIES
from ..ordering import trec_order
from ..ranges import REL_MAX
from ..schema import DOC, MEASURE, QRELS_SCHEMA, QUERY, RANK, REL, RUN_SCHEMA
from .coverage import coverage, stop_uncovered, warn_coverage
from .finalize import QrelsTotals, check_judged
from .settings import EvalSettings


@dataclass
class Frames:
    """A qrels/run pair read as frames (run cut at ``depth``) and the queries trec_eval evaluates."""

    qrels: pl.DataFrame
    run: pl.DataFrame
    tag: str
    evaluated: list[str]  # in both the run and the qrels
    missing: list[str]  # -c in trec_eval 10.0: in the qrels only (evaluated on the stand-in ranking)
    totals: QrelsTotals
    empty: bool = False  # -M 0: each run query cut at its first document, which the engine cuts again to none
    depth: int | None = None  # -M not applied to ``run`` yet (a tie mode: cut after ordering the tie groups)

    def restricted(self, frame: pl.DataFrame, queries: list[str]) -> pl.DataFrame:
        return frame.filter(pl.col(QUERY).is_in(queries))


def graded(qrels: pl.DataFrame, gains: tuple | None) -> pl.DataFrame:
    """The qrels with each grade mapped by ``gains`` (a grade not in it kept), as ir_measures maps them."""
    return qrels if gains is None else qrels.with_columns(pl.col(REL).replace(dict(gains)))


def read_frames(
    qrels, run, request: MeasureRequest, settings: EvalSettings, *, max_rel: int = REL_MAX
) -> Frames:
    """The pair as frames, the run cut at ``settings.depth``, after :func:`check_pair`'s checks and warnings."""
    from ..files.frames import as_polars

    qrels = as_polars(unwrap(qrels), QRELS_SCHEMA, "qrels", max_rel=max_rel)
    run = as_polars(unwrap(run), RUN_SCHEMA, "run")
    facts = pair_facts(qrels, run)
    evaluated, missing = check_pair(facts, qrels, request, settings)
    tag = run_tag(run)
    later = settings.depth if settings.ties != DEFAULT_TIES else None  # tie groups decide what -M keeps
    if settings.depth is not None and later is None:
        # at -M 0 trec_eval still evaluates every run query, on an empty ranking: one document is kept so
        # that the query stays, and the engine cuts it (Frames.empty)
        keep = max(settings.depth, 1)
        run = trec_order(run, score_dtype=request.version.score_dtype).filter(pl.col(RANK) <= keep)
    return Frames(
        qrels,
        run,
        tag,
        evaluated,
        missing,
        facts.totals,
        empty=settings.depth == 0 and later is None,
        depth=later,
    )


@dataclass(frozen=True)
class PairFacts:
    """What the checks and warnings of a qrels/run pair read, whatever the flags (``-M`` included): per query
    of either frame, in trec_eval's (bytewise) order, whether it is in each and its counts."""

    queries: list[str]
    in_qrels: np.ndarray  # bool
    in_run: np.ndarray  # bool
    top: np.ndarray  # int64: highest relevance value in the qrels (int64's minimum when not there)
    lines: np.ndarray  # int64: lines in the run, before any -M cut (0 when not there)
    totals: QrelsTotals


def pair_facts(qrels: pl.DataFrame, run: pl.DataFrame) -> PairFacts:
    """:class:`PairFacts` of a pair read as frames (:func:`~trecrs.files.frames.as_polars`)."""
    tops = qrels.group_by(QUERY).agg(pl.col(REL).max().alias("top"))
    both = tops.join(run.group_by(QUERY).len("lines"), on=QUERY, how="full", coalesce=True)
    both = both.sort(QUERY)  # polars sorts strings bytewise: trec_eval's query order
    in_qrels = both.get_column("top").is_not_null().to_numpy()
    totals = QrelsTotals(int(in_qrels.sum()), int((qrels.get_column(REL) > 0).sum()))
    return PairFacts(
        both.get_column(QUERY).to_list(),
        in_qrels,
        both.get_column("lines").is_not_null().to_numpy(),
        both.get_column("top").fill_null(np.iinfo(np.int64).min).cast(pl.Int64).to_numpy(),
        both.get_column("lines").fill_null(0).cast(pl.Int64).to_numpy(),
        totals,
    )


def check_pair(
    facts: PairFacts, qrels: pl.DataFrame, request: MeasureRequest, settings: EvalSettings
) -> tuple[list[str], list[str]]:
    """The queries evaluated (in both) and missing (-c in 10.0: qrels only, scored on the stand-in ranking),
    after trec_eval's checks and trecrs's warnings: no query evaluated (trec_eval exits), 10.0's stop on an
    uncovered query (:func:`stop_uncovered`), the coverage warnings (each run query retrieving its lines, at
    most ``depth``), :func:`~trecrs.evaluate.finalize.check_judged` (also for each ``Name(params)@k`` pass,
    on ``qrels``). Both lists in bytewise order."""
    queries = facts.queries
    both = facts.in_qrels & facts.in_run
    uncovered = facts.in_qrels & ~facts.in_run
    stand_ins = settings.average_all and request.version.number == 10
    if not both.any() and not stand_ins:
        raise SemanticError("no queries with both results and relevance info (trec_eval exits here too)")
    if not both.any() and not facts.in_run.any():
        raise SemanticError("the run is empty")
    missing = [queries[i] for i in np.flatnonzero(uncovered)] if stand_ins else []
    if request.version.uncovered_query_fatal and not settings.average_all:
        stop_uncovered([queries[i] for i in np.flatnonzero(uncovered)], request.version)
    retrieved = facts.lines if settings.depth is None else np.minimum(facts.lines, settings.depth)
    cov = coverage(
        facts.in_qrels, facts.in_run, facts.top, retrieved, request, relevance_level=settings.relevance_level
    )
    warn_coverage(cov, average_all=settings.average_all, relevance_level=settings.relevance_level)
    judged = facts.in_qrels if stand_ins else both  # the evaluated queries and the missing ones
    order = [queries[i] for i in np.flatnonzero(judged)]
    top = dict(zip(order, facts.top[judged].tolist(), strict=True))
    check_judged(list(top.items()), request)
    for p in variant_passes(request):  # each pass is trec_eval run on the qrels with its gains applied
        tops = (
            top
            if p.gains is None
            else dict(graded(qrels, p.gains).group_by(QUERY).agg(pl.col(REL).max()).iter_rows())
        )
        check_judged([(q, tops[q]) for q in order], MeasureRequest(p.params))
    return [queries[i] for i in np.flatnonzero(both)], missing


def unwrap(data):
    """trecrs's own results as the frame they hold: :func:`~trecrs.protocol.runs.build_run`'s ``.run``,
    :func:`~trecrs.protocol.qrels.make_qrels`'s ``.qrels``; anything else unchanged."""
    # a module not loaded yet has made no result: the protocol modules stay unloaded for files and frames
    runs, qrels = sys.modules.get("trecrs.protocol.runs"), sys.modules.get("trecrs.protocol.qrels")
    if runs is not None and isinstance(data, runs.RunResult):
        return data.run
    if qrels is not None and isinstance(data, qrels.QrelsResult):
        return data.qrels
    return data


def zscore_table(zscores, request: MeasureRequest) -> pl.DataFrame | None:
    """The ``-Z`` table as a frame (read from a path); recommender measures have no z-scores in trec_eval
    (nor do the ``Name(params)@k`` names computed as one, ``ERR()@10``); the other ``Name(params)@k``
    values are looked up under the name they print as (``P(rel=2)@10``)."""
    if zscores is None:
        return None
    recsys = [*request.extras, *(v.spec for v in request.variants if v.recsys)]
    if recsys:
        raise UsageError(f"z-scores (-Z) apply to trec_eval's measures only, not to {', '.join(recsys)}")
    if isinstance(zscores, str | os.PathLike):
        return read_zscores(zscores)
    frame = zscores if isinstance(zscores, pl.DataFrame) else pl.from_pandas(zscores)
    return frame.select(
        pl.col(QUERY).cast(pl.Utf8),
        pl.col(MEASURE).cast(pl.Utf8),
        pl.col("mean").cast(pl.Float64),
        pl.col("stddev").cast(pl.Float64),
    )


def rel_info_format(name: str, results_format: str, request: MeasureRequest) -> RelInfoFormat:
    """The registered ``-R`` format ``name``, checked against ``results_format`` and the request.

    A measure whose data the format does not give stops trec_eval at the first query ("Can't calculate
    measure", status 4, nothing printed): a :class:`SemanticError` here, before anything is read.
    """
    if name not in REL_INFO_FORMATS:
        raise UsageError(
            f"rel_info_format {name!r} is not supported: use one of {', '.join(REL_INFO_FORMATS)}",
            arguments=["rel_info_format"],
        )
    if results_format not in RESULTS_FORMATS:
        raise UsageError(
            f"results_format {results_format!r} is not supported: use one of {', '.join(RESULTS_FORMATS)}",
            arguments=["results_format"],
        )
    fmt = REL_INFO_FORMATS[name]
    missing = unserved(fmt, request)
    if missing:
        raise SemanticError(
            f"measure {missing[0]!r} cannot be calculated from {name} relevance info (it needs "
            f"{' or '.join(kinds_for(missing[0]))}): trec_eval cannot calculate it either (it exits here too)"
        )
    if fmt.compute is not None and request.extras:
        raise UsageError(f"recommender measures ({', '.join(request.extras)}) need qrels, not {name}")
    return fmt


def stdin_inputs(qrels, run, fmt: RelInfoFormat | None = None):
    """``"-"`` for the qrels or the run (not both): standard input, read as that file (errors name
    ``<stdin>:LINE``), in both trec_eval modes. trec_eval 10.0 reads a run from ``-``
    (``get_trec_results.c``); 9.0.8 reads neither: a trecrs extension, as the qrels from ``-``."""
    if is_stdin(qrels) and is_stdin(run):
        raise UsageError("only one of the qrels and the run can be '-' (standard input)")
    if is_stdin(qrels):
        qrels = read_through_file(read_qrels if fmt is None else fmt.read, qrels)
    if is_stdin(run):
        run = read_through_file(read_run, run)
    return qrels, run


def is_pandas(*data) -> bool:
    """Whether any of ``data`` is a pandas frame (the results then come back as pandas)."""
    return any(type(d).__module__.split(".")[0] == "pandas" for d in data)


def train_pairs(train) -> pl.DataFrame:
    """The (user, item) training pairs: a ratings file (:func:`~trecrs.files.train_pairs.read_train_pairs`,
    which reads only the pairs), a ratings frame (:func:`~trecrs.files.ratings.as_ratings`), or a frame /
    dict of columns with just ``user`` and ``item``."""
    from ..files.ratings import as_ratings
    from ..files.train_pairs import read_train_pairs

    if isinstance(train, str | os.PathLike):
        return read_train_pairs(train)
    if isinstance(train, dict) or is_pandas(train):
        train = pl.DataFrame(train)
    if isinstance(train, pl.DataFrame) and {"user", "item"} <= set(train.columns):
        return train.select(pl.col("user").cast(pl.Utf8), pl.col("item").cast(pl.Utf8))
    return as_ratings(train).select("user", "item")


def factor_inputs(user_factors, item_factors, user_ids, item_ids):
    """Ids as string Series (each once) and factors as float32 matrices of one rank, checked."""
    users = pl.Series(QUERY, [str(u) for u in user_ids], dtype=pl.Utf8)
    items = pl.Series(DOC, [str(i) for i in item_ids], dtype=pl.Utf8)
    p = np.asarray(user_factors, dtype=np.float32)
    q = np.asarray(item_factors, dtype=np.float32)
    for what, ids, f in (("user", users, p), ("item", items, q)):
        if f.ndim != 2 or f.shape[0] != ids.len():
            raise UsageError(f"{what} factors must be a {ids.len()} x k matrix, got shape {f.shape}")
        if ids.n_unique() != ids.len():
            raise InputError(None, None, f"{what} id {ids.filter(ids.is_duplicated())[0]!r} occurs twice")
    if p.shape[1] != q.shape[1]:
        raise UsageError(f"user factors have rank {p.shape[1]}, item factors {q.shape[1]}")
    return users, items, p, q
