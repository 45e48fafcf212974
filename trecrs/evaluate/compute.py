"""The computing half of an evaluation: the engine chosen for a request, the per-query values of a pair
(frames, files an engine reads itself, ``-R`` relevance formats), the checks on the engines'
:class:`~trecrs.engines.base.QueryStats`, and the recommender measures added after trec_eval's."""

from __future__ import annotations

import os

import numpy as np
import polars as pl

from ..engines import ENGINES, Computed, vectorized
from ..engines.rel_info import RelInfoFormat
from ..errors import SemanticError, UsageError
from ..files.trec import read_run, run_tag
from ..measures.request import MeasureRequest, parse_measures, variant_passes
from ..measures.ties import DEFAULT as DEFAULT_TIES
from ..measures.ties import check_mode
from ..ordering import bytewise_sorted
from ..schema import DOC, QUERY, SCORE
from ..trec_eval_versions import TrecEvalVersion
from .coverage import coverage, stop_uncovered, warn_coverage
from .finalize import BOGUS_DOC, QrelsTotals, check_judged, finalize
from .inputs import Frames, graded
from .result import Evaluation
from .settings import EvalSettings


def compute_frames(f: Frames, eng, request: MeasureRequest, settings: EvalSettings) -> Computed:
    """Per-query values of the evaluated queries, then of the -c stand-in rankings, then relstrings."""
    kwargs = dict(
        relevance_level=settings.relevance_level, judged_only=settings.judged_only, **_ties(settings)
    )
    if f.empty:
        if not eng.empty_rankings:
            raise UsageError(
                f"the {eng.name} engine cannot rank nothing (depth=0; pytrec_eval crashes on an empty "
                "ranking): use engine=vectorized",
                arguments=["depth"],
            )
        kwargs["depth"] = 0
    if f.depth is not None:  # a tie mode: the engine cuts after ordering or counting the tie groups
        kwargs["depth"] = f.depth
    sub_qrels, sub_run = f.restricted(f.qrels, f.evaluated), f.restricted(f.run, f.evaluated)
    main = (
        _main_pass(eng, sub_qrels, sub_run, request, kwargs, settings, report=not f.empty)
        if f.evaluated
        else None
    )
    frames = [] if main is None else [_variants(eng, sub_qrels, sub_run, request, kwargs, main.per_query)]
    if f.missing:
        # trec_eval 10.0's -c: each missing query is evaluated on a one-document ranking of a document that is in
        # no qrels (trec_eval.c, "bogus_ranking"); finalize() resets its num_ret and utility
        bogus = pl.DataFrame({QUERY: f.missing, DOC: BOGUS_DOC, SCORE: 1.0})
        stand_in = _main_pass(
            eng, f.restricted(f.qrels, f.missing), bogus, request, kwargs, settings, report=False
        )
        frames.append(
            _variants(eng, f.restricted(f.qrels, f.missing), bogus, request, kwargs, stand_in.per_query)
        )
        if request.relstring_length() is not None:  # their own (finalize() empties them where 10.0 does)
            main_rs = {} if main is None else main.relstrings
            main = Computed(
                pl.DataFrame(),
                relstrings={**main_rs, **stand_in.relstrings},
                ties=None if main is None else main.ties,
            )
    per_query = pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame({QUERY: []})
    return Computed(
        per_query, f.missing, {} if main is None else main.relstrings, None if main is None else main.ties
    )


def _main_pass(
    eng,
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    request: MeasureRequest,
    kwargs,
    settings: EvalSettings,
    *,
    report: bool,
) -> Computed:
    """The request's trec_eval values of a pair, its relstrings and (in trec_eval's order, with ``report``)
    its tie report: the vectorized engine gives all three from one ranking; another engine the values, the
    vectorized engine's code the rest."""
    depth = kwargs.get("depth")
    level, judged_only = settings.relevance_level, settings.judged_only
    if eng is vectorized.ENGINE and request.params and run.height:
        enc = vectorized.encode(qrels, run, score_dtype=request.version.score_dtype)
        out = vectorized.compute_encoded(
            enc,
            request,
            depth=depth,
            ties=settings.ties,
            report_ties=report,
            relevance_level=level,
            judged_only=judged_only,
        )
        out.per_query = out.per_query.sort(QUERY)  # bytewise query order, as the engine's compute gives
        if (
            out.ties is not None and settings.depth is not None
        ):  # run cut at -M already: no range, as on files
            out.ties.parts = []
        return out
    values = (eng if request.params else NoTrecMeasures).compute(qrels, run, request, **kwargs)
    ties = None
    if report and settings.ties == DEFAULT_TIES and request.params:
        ties = vectorized.tie_report_frames(
            qrels, run, request, depth=settings.depth, relevance_level=level, judged_only=judged_only
        )
    rs: dict[str, str] = {}
    length = request.relstring_length()
    if length is not None:
        rs = _relstrings(qrels, run.clear() if depth == 0 else run, request, settings, length)
    return Computed(values, relstrings=rs, ties=ties)


def _ties(settings: EvalSettings) -> dict:
    """The engines' ``ties`` keyword: given only for a mode other than trec_eval's order, which every engine takes."""
    return {} if settings.ties == DEFAULT_TIES else {"ties": settings.ties}


def _variants(
    eng, qrels: pl.DataFrame, run: pl.DataFrame, request: MeasureRequest, kwargs, out: pl.DataFrame
) -> pl.DataFrame:
    """The request's values ``out``, then one column per ``Name(params)@k`` variant named as typed, computed
    in the engine passes of :func:`~trecrs.measures.request.variant_passes` (each with its relevance level,
    judged-only flag and gains: each qrels grade mapped, an unmapped one kept), as ir_measures'
    pytrec_eval provider groups them."""
    for p in variant_passes(request):
        sub = MeasureRequest(
            p.params, trec_eval_version=request.trec_eval_version, num_docs_in_coll=request.num_docs_in_coll
        )
        values = eng.compute(
            graded(qrels, p.gains),
            run,
            sub,
            relevance_level=p.relevance_level,
            judged_only=p.judged_only,
            **{k: v for k, v in kwargs.items() if k in ("depth", "ties")},
        )
        values = values.select(QUERY, *[pl.col(column).alias(spec) for spec, column in p.columns])
        out = out.join(values, on=QUERY, how="left", maintain_order="left")
    return out


def _relstrings(
    qrels: pl.DataFrame, run: pl.DataFrame, request: MeasureRequest, settings: EvalSettings, length: int
) -> dict[str, str]:
    """The relstrings, in the order the tie mode ranks (trec_eval's, or best/worst's reordered groups: the
    run is cut at ``-M`` after reordering them, as the measures see it)."""
    if run.height == 0:
        return {}
    order = None if settings.ties == DEFAULT_TIES else settings.ties
    ranked = vectorized.rank(
        qrels,
        run,
        judged_only=settings.judged_only,
        score_dtype=request.version.score_dtype,
        tie_order=order,
        depth=None if order is None else settings.depth,
    )
    return vectorized.relstrings(ranked, length)


def compute_files(
    eng, qrels, run, request: MeasureRequest, settings: EvalSettings
) -> tuple[Computed, str, QrelsTotals]:
    """An engine that reads the files itself (:attr:`~trecrs.engines.base.Engine.compute_files`), then the
    checks :func:`~trecrs.evaluate.inputs.read_frames` makes on frames: the coverage warnings and
    :func:`~trecrs.evaluate.finalize.check_judged`."""
    stand_ins = settings.average_all and request.version.number == 10
    flags = dict(
        relevance_level=settings.relevance_level,
        judged_only=settings.judged_only,
        depth=settings.depth,
        **_ties(settings),
    )
    out = eng.compute_files(
        qrels, run, request, complete=stand_ins, **flags, **(settings.engine_options or {})
    )
    totals = check_stats(out.stats, request, settings, stand_ins=stand_ins)
    return out.computed, out.tag, totals


def check_stats(
    stats, request: MeasureRequest, settings: EvalSettings, *, stand_ins: bool, warn: bool = True
) -> QrelsTotals:
    """The qrels totals of a pair given by its :class:`~trecrs.engines.base.QueryStats`, after the coverage
    warnings (with ``warn``) and :func:`check_judged` (on the queries trec_eval evaluates, in its order)."""
    both = stats.qrels.join(stats.run, on=QUERY, how="full", coalesce=True)
    both = both.sort(QUERY)  # polars sorts strings bytewise: trec_eval's query order
    in_qrels = both.get_column("top").is_not_null().to_numpy()
    in_run = both.get_column("retrieved").is_not_null().to_numpy()
    top = both.get_column("top").fill_null(np.iinfo(np.int64).min).to_numpy()
    retrieved = both.get_column("retrieved").fill_null(0).to_numpy()
    if warn:
        cov = coverage(in_qrels, in_run, top, retrieved, request, relevance_level=settings.relevance_level)
        warn_coverage(cov, average_all=settings.average_all, relevance_level=settings.relevance_level)
    codes = np.flatnonzero(in_qrels if stand_ins else in_qrels & in_run)
    check_judged(
        list(zip(both.get_column(QUERY).gather(codes).to_list(), top[codes].tolist(), strict=True)), request
    )
    return QrelsTotals(stats.qrels.height, int(stats.qrels.get_column("relevant").sum()))


def add_recsys(ev: Evaluation, f: Frames, request: MeasureRequest, settings: EvalSettings, **data) -> None:
    """Recommender measures and the One-Plus-Random per-user summary (:mod:`trecrs.measures.recsys`);
    ``data``: ``train``, ``test``, ``predictions``, ``item_features``, ``item_groups``, ``items``.

    Under trec_eval 9.0.8's ``-c`` (no stand-in rankings) they are averaged, like trec_eval's measures, over
    every qrels query, a query missing from the run counting as one with an empty ranking; per-query rows
    remain those of the evaluated queries.
    """
    if settings.opr_average == "user":
        from ..measures.recsys.opr import summarize_trec_by_user

        ev.summary.update(summarize_trec_by_user(ev.per_query, ev.num_q, f.qrels))
    variants = [v for v in request.variants if v.recsys]
    if not request.extras and not variants:
        return
    # imported here: an evaluation of trec_eval's measures alone loads no recommender measure module
    from ..measures.dialects import DialectVariant
    from ..measures.dialects.base import QRELS_USERS
    from ..measures.recsys.evaluation import evaluate_extras
    from ..measures.recsys.registry import parse_spec

    queries = ev.per_query.get_column(QUERY).to_list()
    if settings.average_all and not f.missing:
        queries = bytewise_sorted(f.qrels.get_column(QUERY).unique().to_list())
    common = dict(
        queries=queries,
        all_qrels_queries=f.totals.queries,
        opr_average=settings.opr_average,
        head_share=settings.head_share,
        run=f.restricted(f.run.clear() if f.empty else f.run, f.evaluated),
        ties=settings.ties,
        depth=f.depth,
        qrels_items=f.qrels.get_column(DOC).unique(),
        **data,
    )
    qrels = f.restricted(f.qrels, f.evaluated)
    if request.extras:
        res = evaluate_extras(
            request.extras,
            qrels=qrels,
            level=settings.relevance_level,
            judged_only=settings.judged_only,
            **common,
        )
        _merge_extras(ev, res.per_query, [c for c in res.per_query.columns if c != QUERY], res.summary)
        ev.notes = res.notes
    for v in variants:  # each with its own level, judged-only flag and gains, named as typed
        if isinstance(v, DialectVariant):  # the global -l and -J, on the qrels as the framework sees them
            q, run, level, queries = v.inputs(
                qrels,
                common["run"],
                settings.relevance_level,
                common["queries"],
                full_run=f.run.clear() if f.empty else f.run,
                train=_train(data),
                full_qrels=f.qrels,
            )
            res = evaluate_extras(
                [v.target()],
                qrels=q,
                level=level,
                judged_only=settings.judged_only,
                **{**common, "queries": queries, "run": run},
            )
        else:
            res = evaluate_extras(
                [v.target()],
                qrels=graded(qrels, v.gains),
                level=v.relevance_level,
                judged_only=v.judged_only,
                **common,
            )
        outputs = parse_spec(v.target())
        assert outputs is not None  # a recommender variant's target is a registered measure
        column = outputs[0].name
        summary = {v.spec: res.summary[column]} if column in res.summary else {}  # none: undefined everywhere
        per_query = [v.spec] if column in res.per_query.columns else []  # a global measure has none
        # a dialect over users outside the qrels (the run's, the training users) gives them rows of their own
        own = isinstance(v, DialectVariant) and v.users != QRELS_USERS
        rows = res.per_query.rename({column: v.spec}, strict=False)
        _merge_extras(ev, rows, per_query, summary, own_rows=own)


def _train(data: dict) -> pl.DataFrame | None:
    """The training ratings given (a frame or a file, read once: ``data`` keeps the frame), or None."""
    if data.get("train") is not None and not isinstance(data["train"], pl.DataFrame):
        from ..files.ratings import as_ratings  # the ratings readers load only when training data is given

        data["train"] = as_ratings(data["train"])
    return data.get("train")


def _merge_extras(
    ev: Evaluation,
    rows: pl.DataFrame,
    columns: list[str],
    summary: dict[str, float],
    *,
    own_rows: bool = False,
) -> None:
    """Recommender measures' per-query ``columns`` of ``rows`` added to ``ev`` (printed last), and their
    summary; with ``own_rows``, a query of ``rows`` that ``ev`` lacks gets a row of its own."""
    ev.extra_columns = [*ev.extra_columns, *columns]
    others = rows.select(QUERY).join(ev.per_query.select(QUERY), on=QUERY, how="anti")
    if own_rows and others.height:
        ev.per_query = pl.concat([ev.per_query, others], how="diagonal_relaxed").sort(QUERY)
    if rows.height != ev.per_query.height:
        rows = ev.per_query.select(QUERY).join(rows, on=QUERY, how="left", maintain_order="left")
    if columns:
        ev.per_query = ev.per_query.with_columns([rows.get_column(c) for c in columns])
    ev.summary.update(summary)


def request_for(measures, version: TrecEvalVersion | None = None) -> MeasureRequest:
    """``measures`` (names, or a request made for any version) as a request of ``version`` (None: 9.0.8)."""
    number = 9 if version is None else version.number
    if isinstance(measures, MeasureRequest):
        if measures.trec_eval_version == number:
            return measures
        request = parse_measures(measures.engine_specs() + list(measures.extras), trec_eval_version=number)
        request.labels = dict(measures.labels)  # the same value columns, printed under the same names
        request.variants = measures.variants
        return request
    return parse_measures(measures, trec_eval_version=number)


def evaluate_rel_info(
    fmt: RelInfoFormat,
    rel_path,
    run_path,
    request: MeasureRequest,
    settings: EvalSettings,
    zscores: pl.DataFrame | None = None,
) -> Evaluation:
    """A run scored against a preference or judgment-group file (``fmt.compute``), ended in :func:`finalize`.

    Queries as trec_eval takes them: those of the run with relevance info; 10.0 stops at a relevance query
    missing from the run, or with ``-c`` scores it on its one-document stand-in ranking (no judged doc).
    """
    if settings.engine not in ("auto", "vectorized"):
        raise UsageError(
            f"engine {settings.engine!r} cannot read rel_info_format {fmt.name!r} (pytrec_eval reads "
            "qrels only): use engine auto"
        )
    if not all(isinstance(x, str | os.PathLike | pl.DataFrame) for x in (rel_path, run_path)):
        raise UsageError(
            f"rel_info_format {fmt.name!r} reads files: give the relevance info and the run as paths"
        )
    check_depth(settings.depth)
    if request.variants:
        raise UsageError(
            f"rel_info_format {fmt.name!r} does not compute Name(params)@k measures (they are "
            f"defined on qrels): {', '.join(v.spec for v in request.variants)}",
            arguments=["measures"],
        )
    rel = rel_path if isinstance(rel_path, pl.DataFrame) else fmt.read(rel_path)  # a frame: read from stdin
    run = run_path if isinstance(run_path, pl.DataFrame) else read_run(run_path)
    rel_queries = set(rel.get_column(QUERY).to_list())
    run_queries = set(run.get_column(QUERY).to_list())
    version = request.version
    if version.uncovered_query_fatal and not settings.average_all:
        stop_uncovered(bytewise_sorted(rel_queries - run_queries), version)
    missing = sorted(rel_queries - run_queries) if settings.average_all and version.number == 10 else []
    queries = bytewise_sorted((rel_queries & run_queries) | set(missing))
    if not queries:
        raise SemanticError("no queries with both results and relevance info (trec_eval exits here too)")
    compute = fmt.compute
    assert compute is not None  # evaluate_full sends here only the formats that compute their own measures
    per_query = compute(
        rel,
        run,
        queries,
        request,
        depth=settings.depth,
        relevance_level=settings.relevance_level,
        judged_only=settings.judged_only,
    )
    return finalize(
        request,
        Computed(per_query, missing),
        run_tag(run),
        average_all=settings.average_all,
        totals=QrelsTotals(len(rel_queries), 0),
        trec_eval_version=version.number,
        zscores=zscores,
    )


def check_depth(depth: int | None) -> None:
    """``-M 0`` is answered as trec_eval answers it (nothing retrieved); a negative depth is refused: both
    trec_eval versions crash on it (segmentation fault)."""
    if depth is not None and depth < 0:
        raise UsageError(
            f"depth must be 0 or more documents, got {depth} (trec_eval crashes on a negative -M)",
            arguments=["depth"],
        )


class NoTrecMeasures:
    """Stand-in engine when a request holds only extras: one row per query, no trec_eval columns."""

    name = "extras-only"
    empty_rankings = True  # it ranks nothing: -M 0 changes only the recommender measures' run (emptied)

    @staticmethod
    def compute(qrels, run, request, **kwargs) -> pl.DataFrame:
        return pl.DataFrame({QUERY: run.get_column(QUERY).unique()}, schema={QUERY: pl.Utf8})


def check_ties(eng, request: MeasureRequest, settings: EvalSettings) -> None:
    """A tie mode other than trec_eval's order: the engine must take it, every measure must have a form for
    it (:mod:`trecrs.engines.vectorized.ties`, the recommender measures' ``ties``), and ``-J`` with ``-M`` is
    refused (which documents ``-M`` keeps from a tie group it cuts decides which ``-J`` removes)."""
    mode = check_mode(settings.ties)
    if mode == DEFAULT_TIES:
        return
    if mode not in eng.tie_modes:
        raise UsageError(
            f"engine {eng.name!r} ranks ties in trec_eval's order only: use engine auto or vectorized "
            f"for ties={mode!r}",
            arguments=["engine", "ties"],
        )
    if settings.judged_only and settings.depth is not None:
        raise UsageError(
            f"ties={mode!r} with both judged_only (-J) and depth (-M): the documents -M keeps from a tie "
            "group it cuts decide which -J removes; use one of them",
            arguments=["ties"],
        )
    vectorized.check_ties(request, mode)
    for p in variant_passes(request):
        vectorized.check_ties(MeasureRequest(p.params), mode)
        if p.judged_only and settings.depth is not None:
            raise UsageError(
                f"ties={mode!r}: {', '.join(s for s, _ in p.columns)} judges only judged documents "
                "and depth (-M) cuts: the documents -M keeps from a tie group it cuts decide which "
                "are judged; drop one of them",
                arguments=["ties"],
            )
    judged = [v.spec for v in request.variants if v.recsys and getattr(v, "judged_only", False)]
    if judged and settings.depth is not None:
        raise UsageError(
            f"ties={mode!r}: {judged[0]} judges only judged documents and depth (-M) cuts: the "
            "documents -M keeps from a tie group it cuts decide which are judged; drop one of them",
            arguments=["ties"],
        )
    if request.extras or any(v.recsys for v in request.variants):
        from ..measures.recsys.evaluation import check_extras_ties

        check_extras_ties(request, mode, settings.depth)


def choose_engine(name: str, request: MeasureRequest):
    """``auto``: the first registered engine other than the reference that covers the request, else
    pytrec_eval; a named engine must exist and cover the request. pytrec_eval embeds trec_eval 9.x's C
    code, so it serves only 9.x requests."""
    version = request.version
    if name == "pytrec_eval" and version.number != 9:
        raise UsageError(
            f"engine 'pytrec_eval' embeds trec_eval 9.x and cannot reproduce trec_eval {version.label}: "
            "use --engine vectorized (or auto)"
        )
    if name == "auto":
        for candidate in ENGINES:  # by name: the reference's module is imported only if it is chosen
            if candidate != "pytrec_eval" and ENGINES[candidate].supports(request):
                return ENGINES[candidate]
        if version.number != 9:
            raise UsageError(
                f"engine 'vectorized' cannot compute {', '.join(request.engine_specs())} as trec_eval "
                f"{version.label}, and pytrec_eval embeds trec_eval 9.x (docs/trec_eval_compatibility.md)"
            )
        return ENGINES["pytrec_eval"]
    if name not in ENGINES:
        raise UsageError(f"unknown engine {name!r}; choose from {sorted(ENGINES)}", arguments=["engine"])
    eng = ENGINES[name]
    if not eng.supports(request):
        raise UsageError(
            f"engine {name!r} cannot compute {', '.join(request.engine_specs())}", arguments=["engine"]
        )
    return eng
