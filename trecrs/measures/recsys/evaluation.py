"""The extras of one evaluation: requested recommender measures computed on a run, its qrels and ratings.

:func:`evaluate_extras` is what :func:`trecrs.evaluate.evaluate_full` calls for names trec_eval lacks; it
reads the ratings and predictions it is given, builds the :class:`~.registry.Context` and computes every
requested output (:func:`~.registry.compute`).
"""

from __future__ import annotations

import os

import polars as pl

from ...data.popularity import HEAD_SHARE
from ...files.candidates import as_items
from ...files.features import as_item_features, as_item_groups
from ...files.ratings import as_ratings
from ...files.scores import read_predictions
from ...protocol.one_plus_random import check_average
from ...schema import ITEM, SCORE, USER
from .error import _frame
from .registry import Context, ExtrasResult, compute, resolve
from .ties import check as check_ties


def _predictions_frame(data) -> pl.DataFrame:
    if isinstance(data, str | os.PathLike):
        return read_predictions(data)
    return _frame(data, (USER, ITEM, SCORE), "predictions", ("prediction", "rating"))


def evaluate_extras(
    specs,
    *,
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    queries: list[str],
    all_qrels_queries: int,
    level: int = 1,
    judged_only: bool = False,
    train=None,
    test=None,
    predictions=None,
    opr_average: str | None = None,
    head_share: float = HEAD_SHARE,
    item_features=None,
    item_groups=None,
    ties: str = "trec_eval",
    depth: int | None = None,
    items=None,
    qrels_items=None,
) -> ExtrasResult:
    """Compute the requested extras for one run (the hook :func:`trecrs.evaluate.evaluate_full` calls).

    ``qrels``/``run``: already restricted to the evaluated queries (and cut at the evaluation depth); ``queries``: the
    evaluated queries in bytewise order. ``train``/``test``: ratings frames or paths (read with
    :func:`trecrs.files.ratings.read_ratings`); ``predictions``: a ``user, item, score`` frame or a prediction file;
    ``item_features``: an ``item, category`` frame or a file (:func:`trecrs.files.features.read_item_features`);
    ``item_groups``: an ``item, group`` frame or a file (``item_mad``'s groups instead of head and tail).
    ``ties``: the tie mode (:mod:`.ties`); ``depth``: a ``-M`` the run is not cut at yet (tie modes cut after
    ordering the tie groups). ``items``: the item catalogue (a file :func:`trecrs.files.candidates.read_items`
    reads, or a sequence of ids) of every coverage- and Gini-like measure, instead of the training items
    plus the run's; ``qrels_items``: the documents of the whole qrels (the test items of
    ``catalog_coverage_pad``'s catalogue; default the documents of ``qrels``).
    """
    check_average(opr_average)
    outputs = resolve(specs)
    check_ties(outputs, ties, depth)
    ctx = Context(
        qrels=qrels,
        run=run,
        queries=list(queries),
        level=level,
        judged_only=judged_only,
        all_qrels_queries=all_qrels_queries,
        train=None if train is None else as_ratings(train),
        test=None if test is None else as_ratings(test),
        predictions=None if predictions is None else _predictions_frame(predictions),
        head_share=head_share,
        item_features=None if item_features is None else as_item_features(item_features),
        item_groups=None if item_groups is None else as_item_groups(item_groups),
        ties=ties,
        depth=depth,
        items=None if items is None else as_items(items),
        qrels_items=qrels_items,
    )
    return compute(outputs, ctx, opr_average=opr_average)


def check_extras_ties(request, mode: str, depth: int | None = None) -> None:
    """A :class:`~trecrs.errors.UsageError` naming the first recommender measure of ``request`` (its extras
    and recommender ``Name(params)@k`` names) without a form for tie mode ``mode``."""
    specs = [*request.extras, *(v.target() for v in request.variants if v.recsys)]
    if specs:
        check_ties(resolve(specs), mode, depth)
