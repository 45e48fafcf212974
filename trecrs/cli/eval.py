"""``trecrs eval``: a drop-in for trec_eval, plus tidy multi-run tables."""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
from collections.abc import Iterator

from ..data.popularity import HEAD_SHARE
from ..engines import ENGINES
from ..engines.rel_info import REL_INFO_FORMATS, RESULTS_FORMATS
from ..errors import UsageError, reissue_named
from ..evaluate.api import evaluate_full
from ..evaluate.result import RunWarning
from ..evaluate.settings import EvalSettings
from ..files.features import GROUP_BY
from ..measures.aliases import listing as alias_listing
from ..measures.trec_eval import NICKNAMES, TREC_MEASURES
from ..ranges import INT64_MAX
from ..report.trec import FORMATS, format_trec, render, tidy_table
from ..trec_eval_versions import ENV as VERSION_ENV
from ..trec_eval_versions import get as trec_eval_version
from .common import (
    OUTPUT_HELP,
    add_complete_option,
    add_depth_option,
    add_judged_option,
    add_level_option,
    add_measures_from_option,
    add_ties_option,
    argv,
    c_long,
    command,
    int64,
    int_range,
    measure_file_inputs,
    note,
    ties_parameters,
)

EXAMPLES = """examples:
  trecrs eval qrels.txt run.txt                        # trec_eval's 'official' measures
  trecrs eval -q -m P.10,50 -m ndcg_cut.50 -l 4 qrels.txt run.txt
  trecrs eval -m all_trec qrels.txt run.txt.gz
  trecrs eval -m P@10 -m nDCG@50 qrels.txt a.run b.run c.run        # one tidy table
  trecrs eval -m map --format parquet -o results.parquet qrels.txt *.run
  trecrs eval -m P.10 -m auc -m lauc.10 -m ndcg_exp.10 qrels.txt run.txt   # trec_eval + recommender measures
  trecrs eval -m novelty.10 -m gini.10 -m catalog_coverage.10 --train u1.base qrels.txt run.txt
  trecrs eval -m mae -m rmse -m ndpm --test u1.test --predictions pred.txt qrels.txt run.txt
  trecrs eval -m recall.10 -m opr_recall.10 --opr-average user opr.qrels opr.run  # One-Plus-Random
"""


def register(sub) -> None:
    p = command(
        sub,
        "eval",
        help="score runs against qrels exactly as trec_eval 9.x does",
        description="Score TREC runs against TREC qrels. With one run and the default format the output "
        "is byte for byte what trec_eval 9.x prints for the same flags.",
        epilog=EXAMPLES,
    )
    p.add_argument(
        "qrels",
        metavar="QRELS",
        nargs="?",
        help="TREC qrels file (qid iter docno rel), .gz allowed; - reads standard input",
    )
    p.add_argument(
        "runs",
        metavar="RUN",
        nargs="*",
        help="TREC run file(s) (qid iter docno rank score tag); - reads standard input (one of QRELS and RUN)",
    )
    add_trec_eval_options(p)
    _add_engine_options(p)
    _add_recommender_inputs(p)
    _add_other_options(p)
    p.set_defaults(func=run, outputs=("output",))


def _add_engine_options(p) -> None:
    """The engine and its dask options."""
    p.add_argument(
        "--engine",
        choices=["auto", *ENGINES],
        default="auto",
        help="computation engine (default: auto, the fastest that covers the measures)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="--engine dask: the dask.distributed scheduler, e.g. tcp://host:8786 (default: a "
        "LocalCluster on this machine; docs/scaling.md)",
    )
    p.add_argument(
        "--partitions",
        type=int64,
        default=None,
        metavar="N",
        help="--engine dask: partitions of the query ids per file (default: 2 per worker thread)",
    )


def _add_recommender_inputs(p) -> None:
    """The recommender inputs: ratings, predictions, catalogue, features, groups."""
    p.add_argument(
        "--train",
        metavar="TRAIN",
        help="training ratings (user item rating ...), for popularity, novelty and coverage measures",
    )
    p.add_argument(
        "--test",
        metavar="TEST",
        help="test ratings, for rank correlations with the ratings (ndpm, ...) and error measures",
    )
    p.add_argument(
        "--predictions",
        metavar="FILE",
        help="predicted ratings 'user item prediction', for error measures (mae, rmse, ...)",
    )
    p.add_argument(
        "--items",
        metavar="CATALOGUE",
        help="the item catalogue of every coverage- and Gini-like measure (catalog_coverage, gini, "
        "recbole:itemcoverage...): an id list, MovieLens u.item, movies.dat, movies.csv or Parquet "
        "(default: the training items plus the run's; RecBole's names add the test items)",
    )
    p.add_argument(
        "--item-features",
        dest="item_features",
        metavar="FILE",
        help="item categories, for diversity and calibration measures (ild, srecall, miscalibration, "
        "...): 'item<TAB>cat|cat', long CSV/TSV/Parquet 'item,category', MovieLens u.item, movies.dat, "
        "movies.csv",
    )
    p.add_argument(
        "--item-groups",
        dest="item_groups",
        metavar="FILE",
        help="item groups ('item<TAB>group', CSV/Parquet 'item,group') for item_mad, instead of the "
        "short head and the long tail",
    )
    p.add_argument(
        "--user-groups",
        dest="user_groups",
        metavar="FILE",
        help="user groups ('user<TAB>group', CSV/Parquet 'user,group', MovieLens u.user or users.dat "
        "with --group-by): each averaged measure's mean per group (query all:GROUP) and NAME_mad, the "
        "mean absolute difference between the group means",
    )
    p.add_argument(
        "--group-by",
        dest="group_by",
        choices=list(GROUP_BY),
        default=None,
        help="the field of MovieLens' u.user / users.dat that --user-groups groups by",
    )
    p.add_argument(
        "--head-share",
        dest="head_share",
        type=float,
        default=HEAD_SHARE,
        metavar="S",
        help="the short head: the most popular training items holding share S of the training "
        "ratings, for every head/tail measure (default 0.33)",
    )
    p.add_argument(
        "--opr-average",
        choices=["case", "user"],
        default=None,
        help="One-Plus-Random (queries user:item): average over test cases (trec_eval's mean, "
        "the default) or per user first, then over users",
    )


def _add_other_options(p) -> None:
    """The trec_eval version, block reading, measure listing and trec_eval's remaining flags."""
    p.add_argument(
        "--trec-eval-version",
        dest="trec_eval_version",
        default=None,
        metavar="{9,10}",
        help="the trec_eval to reproduce: 9 (9.0.8, the default) or 10 (10.0); the default is "
        f"${VERSION_ENV} when set. Only the vectorized engine implements 10",
    )
    p.add_argument(
        "--block-lines",
        dest="block_lines",
        type=int_range(1, INT64_MAX),
        default=None,
        metavar="N",
        help="read the run in blocks of whole queries of about N lines (default 3,000,000): peak "
        "memory follows N, not the file; the output does not depend on N",
    )
    p.add_argument("--list-measures", action="store_true", help="list measure names and nicknames, then exit")
    add_measures_from_option(p)
    p.add_argument(
        "-Z",
        "--Zscore",
        dest="zscores",
        metavar="ZMEAN_FILE",
        help="print z-scores instead of values: (value - mean) / stddev with the mean and standard "
        "deviation of each query and measure in ZMEAN_FILE (lines 'qid measure mean stddev'); "
        "names are prefixed Z, as trec_eval prints them",
    )
    p.add_argument(
        "-N",
        "--Number_docs_in_coll",
        dest="num_docs",
        type=c_long,
        default=0,
        metavar="N",
        help="number of documents in the collection, read by utility's fourth coefficient (default 0)",
    )
    p.add_argument(
        "-D",
        "--Debug_level",
        dest="debug",
        default="0",
        metavar="N[.QID]",
        help="trec_eval's debug level: only 0 is accepted (its debugging output is not reproduced)",
    )
    p.add_argument(
        "-v",
        "--version",
        dest="show_version",
        action="store_true",
        help="print on stderr the version line of the trec_eval reproduced (as its -v does), then exit",
    )
    p.add_argument(
        "--Output_old_results_format",
        dest="old_results_format",
        metavar="ARG",
        default=None,
        help="accepted and ignored, as trec_eval ignores it (obsolete); trecrs's -o is --output",
    )


def add_trec_eval_options(p) -> None:
    """trec_eval's flags and the output options, shared by the commands that print as ``eval`` does."""
    p.add_argument(
        "-q",
        "--query_eval_wanted",
        dest="per_query",
        action="store_true",
        help="also print the values of each query",
    )
    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure[.params] or nickname (official, set, all_trec); aliases such as P@10, nDCG@50, "
        "R@50, AP, RR@10, HR@10 (any case) are accepted too and printed as typed. Repeatable.",
    )
    add_complete_option(p)
    p.add_argument("-n", "--nosummary", dest="no_summary", action="store_true", help="no summary lines")
    add_level_option(p)
    add_depth_option(p)
    add_judged_option(p)
    p.add_argument(
        "-R",
        "--Rel_info_format",
        dest="rel_info_format",
        choices=list(REL_INFO_FORMATS),
        default="qrels",
        metavar="FORMAT",
        help=f"format of QRELS: {', '.join(REL_INFO_FORMATS)} (default qrels; trec_eval's -R)",
    )
    p.add_argument(
        "-T",
        "--Results_format",
        dest="results_format",
        choices=list(RESULTS_FORMATS),
        default="trec_results",
        metavar="FORMAT",
        help=f"format of RUN: {', '.join(RESULTS_FORMATS)} (the default; trec_eval's -T)",
    )
    add_ties_option(p)
    p.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="output format (default: trec for one run, tsv for several; json and parquet add a "
        "'ties' field when --ties is not trec_eval)",
    )
    p.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)


def _list_measures() -> str:
    lines = ["trec_eval measures (table order):"]
    for m in TREC_MEASURES:
        lines.append(f"  {m.name:<22} {m.doc}")
    lines.append("nicknames: " + ", ".join(NICKNAMES))
    lines.append("aliases (any case; printed under the name as typed; docs/measures.md):")
    lines.extend(alias_listing())
    from ..measures.grammar import listing as grammar_listing  # used by --list-measures only

    lines.append("ir_measures' parameterised names, each with its own settings (docs/measures.md):")
    lines.extend(grammar_listing())
    from ..measures.dialects import listing as dialect_listing  # used by --list-measures only

    lines.append("framework dialects, prefix:Name@k as the framework defines Name (docs/measures.md):")
    lines.extend(dialect_listing())
    from ..measures.recsys.registry import listing as extras_listing  # every family module: listing only

    lines.append("recommender measures (printed after the trec_eval ones; docs/measures.md):")
    lines.extend(extras_listing())
    return "\n".join(lines) + "\n"


def run(args) -> int:
    if args.list_measures:
        sys.stdout.write(_list_measures())
        return 0
    if args.show_version:
        sys.stderr.write(f"trec_eval version {trec_eval_version(args.trec_eval_version).version_id}\n")
        return 0
    if not args.qrels or not args.runs:
        raise UsageError("give at least one RUN file")
    if [args.qrels, *args.runs].count("-") > 1:
        raise UsageError("only one of the qrels and the runs can be '-' (standard input)")
    args.trec_eval_version = trec_eval_version(args.trec_eval_version).number  # validated, env applied
    _check_debug(args.debug)
    fmt = args.format or ("trec" if len(args.runs) == 1 else "tsv")
    check_format(fmt, args.output)
    evaluations = {}
    settings = _settings(args)
    with _engine_context(args):
        for path in args.runs:
            with _naming(path) if len(args.runs) > 1 else contextlib.nullcontext():
                evaluations[path] = _evaluate(args, path, settings)
            for message in evaluations[path].notes:
                note(f"{path}: {message}" if len(args.runs) > 1 else message)
    return print_evaluations(args, evaluations, fmt, _inputs(args), _params(args))


@contextlib.contextmanager
def _naming(path: str) -> Iterator[None]:
    """Each :class:`~trecrs.evaluate.result.RunWarning` of a run's evaluation, re-issued as ``PATH: ...``
    (the run's notes' form): with several runs, every line about a run says which. A warning naming its
    run already (the rank column's) and the warnings about other inputs (``-m``, ``--train``) pass as they
    are."""
    with warnings.catch_warnings(record=True) as caught:
        yield
    reissue_named(caught, path, RunWarning)


def check_format(fmt: str, output: str | None) -> None:
    """``--format parquet`` needs ``-o FILE``, a file: Parquet is not written to standard output."""
    if fmt == "parquet" and (not output or output == "-"):
        raise UsageError("--format parquet needs -o FILE (a file: Parquet is not written to standard output)")


def print_evaluations(args, evaluations: dict, fmt: str, inputs: dict, params: dict) -> int:
    """Print or write (``-o``, with a manifest of ``inputs`` and ``params``) the evaluations in ``fmt``."""
    if fmt == "trec":
        text = "".join(
            format_trec(ev, per_query=args.per_query, summary=not args.no_summary)
            for ev in evaluations.values()
        )
        return _emit_text(args, text, inputs, params)
    table = tidy_table(evaluations, per_query=args.per_query or args.no_summary, groups=not args.no_summary)
    if args.no_summary:
        table = table.filter(table["query"] != "all")
    if fmt in ("json", "parquet") and ties_parameters(args):  # structured outputs say how ties were valued
        import polars as pl

        table = table.with_columns(pl.lit(args.ties).alias("ties"))
    if fmt == "parquet":
        from ..files.manifest import write_manifest
        from ..files.output import atomic_path

        with atomic_path(args.output, binary="Parquet") as tmp:
            table.write_parquet(tmp, statistics=False)
        write_manifest(args.output, "evaluation", inputs=inputs, parameters=params, command=argv())
        return 0
    return _emit_text(args, render(table, fmt), inputs, params)


def _check_debug(level: str) -> None:
    """``-D N[.QID]``: trec_eval reads N with ``atol``; its debugging output is not reproduced, so only 0."""
    m = re.match(r"\s*([+-]?[0-9]+)", level.split(".", 1)[0])
    if m and int(m.group(1)) != 0:
        raise UsageError(
            f"trec_eval's debugging output is not reproduced; only 0 is accepted, got {level!r}",
            arguments=["debug"],
        )


def _engine_context(args):
    """For ``--engine dask``: one cluster connection (or LocalCluster) shared by every run; else nothing.

    ``--scheduler`` and ``--partitions`` belong to that engine: an error with any other.
    """
    if args.engine != "dask":
        given = [dest for dest in ("scheduler", "partitions") if getattr(args, dest)]
        if given:
            raise UsageError(f"{'go' if len(given) > 1 else 'goes'} with --engine dask", arguments=given)
        return contextlib.nullcontext()
    if args.partitions is not None and args.partitions < 1:
        raise UsageError(
            f"partitions must be a positive number, got {args.partitions}", arguments=["partitions"]
        )
    if args.block_lines is not None:
        raise UsageError(
            "--block-lines goes with the vectorized engine (the dask engine cuts the run by --partitions)"
        )
    from ..engines import dask as dask_engine

    return dask_engine.connected(args.scheduler)


def trec_eval_settings(args, **choices) -> EvalSettings:
    """The settings of trec_eval's flags as :func:`add_trec_eval_options` reads them (``-l``, ``-J``, ``-c``,
    ``-M``), with ``choices`` (the other fields of :class:`~trecrs.evaluate.EvalSettings`)."""
    return EvalSettings(
        relevance_level=args.level,
        judged_only=args.judged_only,
        average_all=args.average_all,
        depth=args.depth,
        ties=args.ties,
        **choices,
    )


def _settings(args) -> EvalSettings:
    """The settings every run of the command is scored with, built once."""
    options = {"partitions": args.partitions} if args.engine == "dask" and args.partitions else {}
    if args.block_lines is not None:
        options["block_lines"] = args.block_lines
    return trec_eval_settings(
        args,
        engine=args.engine,
        trec_eval_version=args.trec_eval_version,
        engine_options=options,
        zscores=args.zscores,
        num_docs_in_coll=args.num_docs,
        rel_info_format=args.rel_info_format,
        results_format=args.results_format,
        opr_average=args.opr_average,
        head_share=args.head_share,
    )


def _evaluate(args, path, settings: EvalSettings):
    return evaluate_full(
        args.qrels,
        path,
        args.measures,
        settings=settings,
        train=args.train,
        test=args.test,
        predictions=args.predictions,
        item_features=args.item_features,
        item_groups=args.item_groups,
        user_groups=args.user_groups,
        group_by=args.group_by,
        items=args.items,
    )


def _inputs(args) -> dict:
    ins = {"qrels": args.qrels}
    ins.update({f"run{i}": r for i, r in enumerate(args.runs)})
    ins.update(
        {
            k: getattr(args, k)
            for k in (
                "train",
                "test",
                "predictions",
                "items",
                "item_features",
                "item_groups",
                "user_groups",
                "zscores",
            )
            if getattr(args, k)
        }
    )
    ins.update(measure_file_inputs(args))
    return ins


def _params(args) -> dict:
    # the trec_eval version is recorded when it is not 9.0.8, so that 9.0.8 manifests stay as they were
    pinned = {} if args.trec_eval_version == 9 else {"trec_eval_version": args.trec_eval_version}
    # likewise the -R/-T formats, recorded when they are not the defaults
    pinned.update(
        {
            k: getattr(args, k)
            for k, default in (("rel_info_format", "qrels"), ("results_format", "trec_results"))
            if getattr(args, k) != default
        }
    )
    return {
        "measures": args.measures or ["official"],
        "relevance_level": args.level,
        "judged_only": args.judged_only,
        "average_all": args.average_all,
        "depth": args.depth,
        "per_query": args.per_query,
        "opr_average": args.opr_average,
        **pinned,
        **({"zscores": args.zscores} if args.zscores else {}),
        **({"num_docs_in_coll": args.num_docs} if args.num_docs else {}),
        **({"head_share": args.head_share} if args.head_share != HEAD_SHARE else {}),
        **({"group_by": args.group_by} if args.group_by else {}),
        **ties_parameters(args),
    }


def _emit_text(args, text: str, inputs: dict, params: dict) -> int:
    if args.output:
        from ..files.manifest import write_manifest
        from ..files.output import write_text_atomic

        write_text_atomic(args.output, text)
        write_manifest(args.output, "evaluation", inputs=inputs, parameters=params, command=argv())
    else:
        sys.stdout.write(text)
    return 0
