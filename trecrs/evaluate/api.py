"""The entry points: :func:`evaluate`, :func:`evaluate_full`, :func:`evaluate_matrix`, :func:`evaluate_factors`.

Each takes one :class:`~trecrs.evaluate.settings.EvalSettings` (``settings=``, or its fields as keyword
arguments), picks the engine and the input path, computes, and ends in
:func:`~trecrs.evaluate.finalize.finalize`. The rules reproduced are trec_eval 9.x's (``trec_eval.c``,
``form_res_rels.c``, ``meas_avg.c``), or 10.0's with ``trec_eval_version=10``:

* queries evaluated = queries of the run that are also in the qrels (a qrels query whose judgements are
  all non-relevant still counts, and scores 0); ``average_all`` (``-c``) averages over every qrels query;
* ``depth`` (``-M``) keeps the first N documents of each query after trec_eval's ordering;
* the summary is :func:`~trecrs.evaluate.finalize.summarize`'s.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import polars as pl

from ..data.popularity import check_share
from ..engines import vectorized
from ..errors import UsageError
from ..measures.request import MeasureRequest
from ..ranges import REL_MAX, REL_MAX_PYTREC_EVAL
from ..schema import QRELS_SCHEMA
from ..trec_eval_versions import TrecEvalVersion
from ..trec_eval_versions import get as trec_eval_version_entry
from .compute import (
    NoTrecMeasures,
    add_recsys,
    check_depth,
    check_stats,
    check_ties,
    choose_engine,
    compute_files,
    compute_frames,
    evaluate_rel_info,
    request_for,
)
from .finalize import finalize
from .inputs import (
    factor_inputs,
    is_pandas,
    read_frames,
    rel_info_format,
    stdin_inputs,
    train_pairs,
    unwrap,
    zscore_table,
)
from .result import Evaluation, EvaluationResult
from .settings import ALL_FIELDS, RANKING_FIELDS, EvalSettings, takes_settings
from .ties import warn_ties

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


class _Ends(TypedDict):
    """The keywords of :func:`finalize` that every path of :func:`evaluate_full` gives alike."""

    average_all: bool
    trec_eval_version: int
    zscores: pl.DataFrame | None


# The inputs (qrels, run, ratings, features...) are paths, dicts or polars or pandas frames, read by the
# functions they are given to (pandas ships no type information: Any).
@takes_settings(*ALL_FIELDS)
def evaluate_full(
    qrels: Any,
    run: Any,
    measures: object = None,
    *,
    settings: EvalSettings,
    train: Any = None,
    test: Any = None,
    predictions: Any = None,
    item_features: Any = None,
    item_groups: Any = None,
    user_groups: Any = None,
    group_by: str | None = None,
    items: Any = None,
) -> Evaluation:
    """Evaluate one run as trec_eval would and return every printable piece (see :class:`Evaluation`).

    ``settings`` (:class:`~trecrs.evaluate.settings.EvalSettings`, or its fields as keyword arguments):
    trec_eval's flags and trecrs's choices. Recommender-specific measures (:mod:`trecrs.measures.recsys`)
    named in ``measures`` are computed on the same queries and printed after the trec_eval ones;
    ``train``/``test``/``predictions`` (frames or paths) and ``item_features`` (item categories: a file of
    :mod:`trecrs.files.features`, an ``item, category`` frame or a dict) and ``item_groups`` (``item_mad``'s
    groups instead of head and tail) feed those that need them. ``items``: the item catalogue of every
    coverage- and Gini-like measure (a file :func:`trecrs.files.candidates.read_items` reads: an id list,
    MovieLens ``u.item``, ``movies.dat``, ``movies.csv``, Parquet; or a sequence of ids), instead of the
    training items plus the run's items (RecBole's names: plus the test items; docs/frameworks.md).
    ``user_groups`` (a file, a ``user, group`` frame or a dict; ``group_by`` picks the field of MovieLens'
    ``u.user``/``users.dat``) adds each averaged measure's mean per group and their mean absolute difference
    (:mod:`trecrs.evaluate.groups`). Two paths end in
    :func:`finalize`: files the vectorized engine covers are read lean; anything else is read as frames
    and computed by the chosen engine. ``rel_info_format`` other than ``qrels`` (trec_eval's ``-R``) goes
    to that format's computation (:mod:`trecrs.engines.rel_info`).
    """
    s = settings
    version = trec_eval_version_entry(s.trec_eval_version)
    request = request_for(measures, version)
    if s.num_docs_in_coll:
        request = dataclasses.replace(request, num_docs_in_coll=int(s.num_docs_in_coll))
    z = zscore_table(s.zscores, request)
    fmt = rel_info_format(s.rel_info_format, s.results_format, request)
    qrels, run = stdin_inputs(qrels, run, fmt)
    if fmt.compute is not None:
        if user_groups is not None:
            raise UsageError(
                f"rel_info_format {fmt.name!r} is not scored per user group: give qrels",
                arguments=["user_groups"],
            )
        return evaluate_rel_info(fmt, qrels, run, request, s, zscores=z)
    if s.opr_average not in (None, "case", "user"):
        raise UsageError(
            f"opr_average must be 'case' or 'user', got {s.opr_average!r}", arguments=["opr_average"]
        )
    check_depth(s.depth)
    check_share(s.head_share, "head_share")
    eng = choose_engine(s.engine, request)
    check_ties(eng, request, s)
    ends = _Ends(average_all=s.average_all, trec_eval_version=version.number, zscores=z)
    paths = all(isinstance(x, str | os.PathLike) for x in (qrels, run))
    lean = (
        paths and eng.compute_files is not None and np.dtype(version.score_dtype) == np.float32
    )  # float32 reader
    groups = None if user_groups is None else _user_groups(user_groups, group_by)
    if group_by is not None and user_groups is None:
        raise UsageError(
            "group_by picks the field of a user_groups file: give user_groups", arguments=["group_by"]
        )
    plain = not request.extras and not request.variants and s.opr_average != "user" and groups is None
    if lean and plain and s.relevance_level >= 1:
        computed, tag, totals = compute_files(eng, qrels, run, request, s)
        ev = finalize(request, computed, tag, totals=totals, **ends)
        warn_ties(ev, computed.ties)
        return ev
    from . import warm  # frames in memory (the files' path above needs none of it)

    kept = (
        warm.compute_frames(qrels, run, eng, request, s) if plain else None
    )  # polars frames, kept for next time
    if kept is not None:
        computed, tag, totals = kept
        ev = finalize(request, computed, tag, totals=totals, **ends)
        warn_ties(ev, computed.ties)
        return ev
    # trec_eval's own code takes fewer grades: checked while reading, so that the error names the line
    max_rel = REL_MAX_PYTREC_EVAL if eng.name == "pytrec_eval" else REL_MAX
    f = read_frames(qrels, run, request, s, max_rel=max_rel)
    if not request.params and not request.variants:  # only extras asked for: no trec_eval measure to compute
        eng = NoTrecMeasures
    computed = compute_frames(f, eng, request, s)
    ev = finalize(request, computed, f.tag, totals=f.totals, **ends)
    warn_ties(ev, computed.ties)
    add_recsys(
        ev,
        f,
        request,
        s,
        train=train,
        test=test,
        predictions=predictions,
        item_features=item_features,
        item_groups=item_groups,
        items=_catalogue(items),
    )
    if groups is not None:
        from .groups import add_groups  # recommender measures' registry: only for user groups

        add_groups(ev, groups, f.restricted(f.qrels, f.evaluated))
    return ev


def _user_groups(user_groups: Any, group_by: str | None) -> pl.DataFrame:
    """:func:`~trecrs.files.features.as_user_groups`, whose readers load only when groups are given."""
    from ..files.features import as_user_groups

    return as_user_groups(user_groups, group_by)


def _catalogue(items: Any) -> pl.Series | None:
    """The item catalogue given to :func:`evaluate_full`, read once for every measure (None: not given)."""
    if items is None:
        return None
    from ..files.candidates import as_items

    return as_items(items)


@takes_settings(*ALL_FIELDS)
def evaluate(
    qrels: Any,
    run: Any,
    measures: object = None,
    *,
    settings: EvalSettings,
    train: Any = None,
    test: Any = None,
    predictions: Any = None,
    item_features: Any = None,
    item_groups: Any = None,
    user_groups: Any = None,
    group_by: str | None = None,
    items: Any = None,
) -> EvaluationResult:
    """Score a run against qrels exactly as trec_eval 9.x does; an :class:`EvaluationResult`.

    ``qrels`` / ``run``: paths of TREC files; polars or pandas DataFrames whose columns are recognised by
    name (``query``/``qid``/``user``/``userId``, ``doc``/``docno``/``item``/``movieId``, ``rel``/``relevance``/
    ``label`` / ``score``/``prediction``; :mod:`trecrs.files.columns`); dicts ``{query: {doc: rel}}`` /
    ``{query: {doc: score}}`` as pytrec_eval takes them (or objects whose ``to_dict()`` returns one, as
    ranx's ``Qrels``/``Run``); trecrs's own results (:func:`~trecrs.protocol.runs.build_run`,
    :func:`~trecrs.protocol.qrels.make_qrels`). Ids become strings. ``measures``: trec_eval names (``"P.5,10"``, ``"ndcg_cut.50"``, ``"map"``,
    nicknames ``"official"``/``"all_trec"``) or aliases (``"P@10"``, ``"nDCG@50"``, ``"AP"``, ``"MRR@10"``).
    ``settings`` (:class:`~trecrs.evaluate.settings.EvalSettings`), or its fields as keyword arguments:
    ``relevance_level`` is trec_eval's ``-l``, ``judged_only`` its ``-J``, ``average_all`` its ``-c`` and
    ``depth`` its ``-M``; ``trec_eval_version=10`` gives ``-c`` as trec_eval 10.0 does. The result's
    ``per_query`` frame and ``tidy()`` rows are pandas when ``qrels`` or ``run`` is a pandas frame, else
    polars; value names are trec_eval's output names (``P_10``, ``ndcg_cut_50``), and an alias prints under
    the name as given (``"nDCG@10"``; docs/measures.md, Aliases). ``measures`` may also hold ir_measures
    measure objects (``ir_measures.nDCG@10``, ``AP(rel=2)``; ir_measures stays optional): each is computed as
    its parameterised name, with ir_measures' defaults for the parameters it leaves out (not
    ``relevance_level``/``judged_only``), under the name ir_measures prints (``str(measure)``), and
    ``summary[measure]`` finds its value. Coverage problems
    (queries without a ranking or without qrels, nothing relevant, rankings shorter than a cutoff) are
    :class:`~trecrs.errors.TrecrsWarning` warnings.

    >>> result = evaluate({"u1": {"i1": 1}, "u2": {"i3": 1}},
    ...                   {"u1": {"i1": 0.9, "i2": 0.5}, "u2": {"i3": 0.1, "i4": 0.7}}, ["P.1", "recip_rank"])
    >>> result.summary
    {'recip_rank': 0.75, 'P_1': 0.5}
    >>> result.to_dict()["u2"]
    {'recip_rank': 0.5, 'P_1': 0.0}

    ``measures`` may also name recommender-specific measures (``"auc"``, ``"lauc.10"``, ``"ndpm"``,
    ``"novelty.10"``, ``"mae"``...; see ``docs/measures.md``), whose rows follow the trec_eval ones;
    ``train``, ``test`` (ratings frames or files) and ``predictions`` (``user, item, score``) feed those that
    need them, ``item_features`` (item categories) those of diversity and calibration (``ild.10``,
    ``miscalibration.10``...), ``items`` (an item catalogue: a file or a sequence of ids) those that divide
    by or spread over the catalogue (``catalog_coverage.10``, ``gini.10``...); ``head_share`` sets the short head; ``user_groups`` (and ``group_by``) add
    the per-group means and their MAD, in the result's :attr:`~EvaluationResult.groups`; ``opr_average="user"`` averages One-Plus-Random cases (queries ``user:item``) per user first.

    Reproduces trec_eval 9.x (Buckley; the C code inside pytrec_eval, Van Gysel & de Rijke, SIGIR 2018),
    or trec_eval 10.0 with ``trec_eval_version=10`` (docs/trec_eval_compatibility.md). ``rel_info_format``
    and ``results_format`` are trec_eval's ``-R`` and ``-T`` (see :func:`evaluate_full`).
    """
    ev = evaluate_full(
        qrels,
        run,
        measures,
        settings=settings,
        train=train,
        test=test,
        predictions=predictions,
        item_features=item_features,
        item_groups=item_groups,
        user_groups=user_groups,
        group_by=group_by,
        items=items,
    )
    return EvaluationResult(ev, pandas=is_pandas(qrels, run))


def _vectorized_request(
    caller: str, measures: object, settings: EvalSettings, version: TrecEvalVersion | None = None
) -> MeasureRequest:
    """The request of an entry point that computes the vectorized engine's measures only, with its flags
    checked (``depth`` 0 or more)."""
    request = request_for(measures, version)
    if request.extras or not vectorized.supports(request):
        raise UsageError(f"{caller} computes the vectorized engine's measures only; got {measures!r}")
    if request.variants:  # each needs its own pass over the encoded rankings: not wired here yet
        raise UsageError(
            f"{caller} does not compute Name(params)@k measures yet; got "
            f"{', '.join(v.spec for v in request.variants)}: use evaluate()",
            arguments=["measures"],
        )
    check_depth(settings.depth)
    return request


@takes_settings(*RANKING_FIELDS, "trec_eval_version")
def evaluate_matrix(
    qrels: Any,
    scores: ArrayLike,
    user_ids: Iterable[object],
    item_ids: Iterable[object],
    *,
    exclude: ArrayLike | None = None,
    measures: object = None,
    tag: str = "trecrs",
    settings: EvalSettings,
) -> EvaluationResult:
    """Score a users x items score matrix as the AllItems run it stands for, without writing that run.

    ``scores[u, i]`` is the score of item ``item_ids[i]`` for user ``user_ids[u]`` (numpy, float32 or
    float64); ``exclude`` (same shape, bool) marks the pairs that are not candidates — for AllItems
    (Bellogín, Castells & Cantador 2011) the user's training items (L_u = I \\ Tr_u). The result is
    exactly what writing the run ``user Q0 item rank score tag`` (one line per candidate pair) and scoring
    it with ``trecrs eval`` / :func:`trecrs.evaluate` gives: same ranking rule (score as a C float, ties
    by item id descending bytewise), same trec_eval measures and flags (``settings`` or keyword arguments:
    ``relevance_level`` = ``-l``, ``judged_only`` = ``-J``, ``average_all`` = ``-c``, ``depth`` = ``-M``).
    The same :class:`EvaluationResult` as :func:`trecrs.evaluate` returns (pandas frames when ``qrels``
    is one).

    A 6,040 x 3,706 matrix needs a few hundred MB and no string is created per pair
    (:mod:`trecrs.engines.vectorized.matrix`). Only measures of the vectorized engine are available here
    (everything in ``all_trec``).

    >>> scores = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.4]])
    >>> exclude = np.array([[False, False, True], [False, False, False]])  # u1 trained on i3
    >>> evaluate_matrix({"u1": {"i2": 1}, "u2": {"i2": 1}}, scores, ["u1", "u2"], ["i1", "i2", "i3"],
    ...                 exclude=exclude, measures=["recip_rank"]).to_dict()
    {'u1': {'recip_rank': 0.5}, 'u2': {'recip_rank': 1.0}}
    """
    s = settings
    version = trec_eval_version_entry(s.trec_eval_version)
    if np.dtype(version.score_dtype) != np.float32:  # the matrix path encodes scores as C floats
        raise UsageError(
            f"evaluate_matrix ranks scores as C floats (trec_eval 9.0.8); trec_eval {version.label} ranks them "
            "as doubles: write the run and use evaluate(..., trec_eval_version=10)",
            arguments=["trec_eval_version"],
        )
    request = _vectorized_request("evaluate_matrix", measures, s, version)
    check_ties(vectorized.ENGINE, request, s)
    pandas = is_pandas(qrels)
    from ..files.frames import as_polars

    qrels = as_polars(unwrap(qrels), QRELS_SCHEMA, "qrels")
    enc = vectorized.encode_matrix(qrels, scores, user_ids, item_ids, exclude=exclude)
    stand_ins = s.average_all and version.number == 10
    totals = check_stats(
        vectorized.encoded_stats(enc, depth=s.depth), request, s, stand_ins=stand_ins, warn=False
    )
    computed = vectorized.compute_encoded(
        enc,
        request,
        relevance_level=s.relevance_level,
        judged_only=s.judged_only,
        depth=s.depth,
        complete=stand_ins,
        ties=s.ties,
    )
    ev = finalize(
        request, computed, tag, average_all=s.average_all, totals=totals, trec_eval_version=version.number
    )
    warn_ties(ev, computed.ties)
    return EvaluationResult(ev, pandas=pandas)


@takes_settings(*RANKING_FIELDS)
def evaluate_factors(
    qrels: Any,
    train: Any,
    user_factors: ArrayLike,
    item_factors: ArrayLike,
    user_ids: Iterable[object],
    item_ids: Iterable[object],
    *,
    measures: object = None,
    block_users: int = 512,
    threads: int = 2,
    tag: str = "trecrs",
    settings: EvalSettings,
) -> EvaluationResult:
    """Score a factor model as the AllItems run it stands for, exactly, in blocks of users.

    ``user_factors`` (users x k) and ``item_factors`` (items x k) hold the factors of ``user_ids`` /
    ``item_ids``; the score of an item for a user is ``float32(sum_k p_uk q_ik)`` with the sum taken in
    float64 (:func:`trecrs.engines.vectorized.factors.factor_scores`). Each user's candidates are the
    items of the item factors minus the user's training items in ``train`` (ratings frame or file; AllItems,
    Bellogín, Castells & Cantador 2011). The result is what writing that run (``%.9g`` scores) and scoring
    it with :func:`trecrs.evaluate` gives: trec_eval's ranking (C float descending, ties by item id
    descending bytewise), full ranks of every judged item, the same flags (``settings`` or keyword
    arguments: ``relevance_level`` = ``-l``, ``judged_only`` = ``-J``, ``average_all`` = ``-c``, ``depth`` =
    ``-M``) and coverage warnings. A qrels
    user without factors (or whose training covers the catalogue) is a query missing from the run: left
    out, or counted as 0 under ``average_all``; a factor user without qrels is ignored, as trec_eval
    ignores such a ranking. Only the vectorized engine's measures; trec_eval 9.0.8.
    Memory: about ``block_users x items x 14`` bytes per thread besides the inputs.

    >>> evaluate_factors({"u1": {"i2": 1}}, {"user": ["u1"], "item": ["i3"]}, [[1.0], [-1.0]],
    ...                  [[3.0], [2.0], [9.0]], ["u1", "u2"], ["i1", "i2", "i3"], measures=["recip_rank"]).to_dict()
    {'u1': {'recip_rank': 0.5}}
    """
    from ..engines.vectorized import factors

    s = settings
    request = _vectorized_request("evaluate_factors", measures, s)
    check_ties(vectorized.ENGINE, request, s)
    if block_users < 1:
        raise UsageError(f"block_users must be at least 1, got {block_users}", arguments=["block_users"])
    pandas = is_pandas(qrels)
    from ..files.frames import as_polars

    qrels = as_polars(unwrap(qrels), QRELS_SCHEMA, "qrels")
    train = train_pairs(train)
    users, items, p, q = factor_inputs(user_factors, item_factors, user_ids, item_ids)
    pairs = factors.encode_pairs(qrels, train, users, items)
    totals = check_stats(factors.factor_stats(pairs, s.depth), request, s, stand_ins=False)
    computed = factors.compute_factors(
        pairs,
        p,
        q,
        users,
        items,
        request,
        relevance_level=s.relevance_level,
        judged_only=s.judged_only,
        depth=s.depth,
        block_users=block_users,
        threads=threads,
        ties=s.ties,
    )
    ev = finalize(request, computed, tag, average_all=s.average_all, totals=totals)
    warn_ties(ev, computed.ties)
    return EvaluationResult(ev, pandas=pandas)
