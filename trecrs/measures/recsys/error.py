"""Error measures on predicted vs test ratings: MAE, RMSE, range-normalised, per-user and per-item means.

Definitions (Herlocker, Konstan, Terveen, Riedl, "Evaluating collaborative filtering recommender
systems", ACM TOIS 22(1), 2004, section 4.1; Shani & Gunawardana, "Evaluating recommendation systems",
Recommender Systems Handbook, 2011, section 8.3.2.1), over the set T of test (user, item) pairs that have
a prediction p_ui and a true rating r_ui:

* MAE  = (1/|T|) * sum |p_ui - r_ui|
* RMSE = sqrt((1/|T|) * sum (p_ui - r_ui)^2)
* NMAE = MAE / (r_max - r_min), NRMSE = RMSE / (r_max - r_min) (Goldberg et al., "Eigentaste", 2001)
* user-averaged: the mean over users of each user's MAE (RMSE); item-averaged likewise over items, so a
  heavy rater (a popular item) weighs as much as any other (Shani & Gunawardana 2011).

Test pairs without a prediction are left out of every error and counted (``n_test - n_predicted``);
the fraction covered is Herlocker's prediction coverage. Predictions for pairs that are not in the test
set are ignored (counted as ``n_extra``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import numpy as np
import polars as pl

from ...errors import InputError, SemanticError, UsageError
from ...ranges import RATING_ABS_MAX
from ...schema import ITEM, RATING, SCORE, USER

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

PREDICTION = "prediction"  # column of the joined frame holding p_ui


def _arrays(pred: ArrayLike, truth: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(pred, dtype=np.float64).ravel()
    t = np.asarray(truth, dtype=np.float64).ravel()
    if p.shape != t.shape:
        raise UsageError(f"predictions and truth differ in length: {p.size} vs {t.size}")
    if p.size == 0:
        raise SemanticError("no (prediction, rating) pairs: the error is undefined")
    if np.isnan(p).any() or np.isnan(t).any():
        raise UsageError("NaN among predictions or ratings; drop unpredicted pairs first")
    # beyond the ratings' range the squares overflow and RMSE would print inf
    if max(np.abs(p).max(), np.abs(t).max()) > RATING_ABS_MAX:
        raise UsageError(
            f"predictions and ratings must be within [-{RATING_ABS_MAX:.0f}, {RATING_ABS_MAX:.0f}]"
        )
    return p, t


def mae(pred: ArrayLike, truth: ArrayLike) -> float:
    """Mean absolute error: (1/n) * sum |p_i - r_i| (Herlocker et al. 2004, eq. in section 4.1.1).

    ``pred`` and ``truth``: equal-length sequences of numbers (lists, numpy arrays, polars/pandas series).
    """
    p, t = _arrays(pred, truth)
    return float(np.mean(np.abs(p - t)))


def rmse(pred: ArrayLike, truth: ArrayLike) -> float:
    """Root mean squared error: sqrt((1/n) * sum (p_i - r_i)^2) (Herlocker et al. 2004, section 4.1.1)."""
    p, t = _arrays(pred, truth)
    return float(math.sqrt(np.mean((p - t) ** 2)))


def mse(pred: ArrayLike, truth: ArrayLike) -> float:
    """Mean squared error: (1/n) * sum (p_i - r_i)^2."""
    p, t = _arrays(pred, truth)
    return float(np.mean((p - t) ** 2))


def nmae(pred: ArrayLike, truth: ArrayLike, r_min: float, r_max: float) -> float:
    """Normalised MAE: MAE / (r_max - r_min) (Goldberg, Roeder, Gupta, Perkins, "Eigentaste", 2001)."""
    return mae(pred, truth) / _span(r_min, r_max)


def nrmse(pred: ArrayLike, truth: ArrayLike, r_min: float, r_max: float) -> float:
    """Normalised RMSE: RMSE / (r_max - r_min)."""
    return rmse(pred, truth) / _span(r_min, r_max)


def _span(r_min: float, r_max: float) -> float:
    span = float(r_max) - float(r_min)
    if not span > 0:
        raise UsageError(
            f"rating range must have r_max > r_min, got [{r_min}, {r_max}]", arguments=["rating_range"]
        )
    return span


# --------------------------------------------------------------------------------------------- frames


def _frame(
    data: object, needed: tuple[str, ...], what: str, value_aliases: tuple[str, ...] = ()
) -> pl.DataFrame:
    if not isinstance(data, pl.DataFrame):
        try:
            data = pl.from_pandas(data)
        except Exception as exc:  # noqa: BLE001 - say what was given
            raise TypeError(f"{what}: expected a polars or pandas DataFrame, got {type(data)!r}") from exc
    value = needed[-1]
    if value not in data.columns:
        for alias in value_aliases:
            if alias in data.columns:
                data = data.rename({alias: value})
                break
    missing = [c for c in needed if c not in data.columns]
    if missing:
        raise InputError(None, None, f"{what} DataFrame lacks column(s) {missing}; has {data.columns}")
    return data.select(pl.col(USER).cast(pl.Utf8), pl.col(ITEM).cast(pl.Utf8), pl.col(value).cast(pl.Float64))


def join_predictions(predictions: object, test: object) -> tuple[pl.DataFrame, dict[str, int]]:
    """Pair each test rating with its prediction: ``(user, item, rating, prediction)`` plus counts.

    ``predictions``: columns ``user, item, score`` (``prediction`` or ``rating`` accepted as the value
    column); ``test``: ``user, item, rating``. A NaN/null prediction counts as no prediction. Duplicate
    (user, item) pairs in either frame are an error. Counts: ``n_test`` test pairs, ``n_predicted`` of
    them with a prediction, ``n_extra`` predictions for pairs outside the test set.
    """
    pred = _frame(predictions, (USER, ITEM, SCORE), "predictions", (PREDICTION, RATING))
    truth = _frame(test, (USER, ITEM, RATING), "test ratings")
    for df, what in ((pred, "predictions"), (truth, "test ratings")):
        if df.select(pl.struct(USER, ITEM).is_duplicated().any()).item():
            row = df.filter(pl.struct(USER, ITEM).is_duplicated()).row(0, named=True)
            raise InputError(None, None, f"{what}: duplicate pair user {row[USER]!r}, item {row[ITEM]!r}")
    if truth.select(pl.col(RATING).is_null().any() | pl.col(RATING).is_nan().any()).item():
        raise InputError(None, None, "test ratings: missing or NaN rating")
    pred = pred.filter(pl.col(SCORE).is_not_null() & pl.col(SCORE).is_not_nan())
    joined = truth.join(pred.rename({SCORE: PREDICTION}), on=[USER, ITEM], how="left", maintain_order="left")
    n_test = joined.height
    joined = joined.filter(pl.col(PREDICTION).is_not_null())
    n_extra = pred.height - joined.height
    return joined, {"n_test": n_test, "n_predicted": joined.height, "n_extra": n_extra}


def per_group_errors(joined: pl.DataFrame, by: str) -> pl.DataFrame:
    """Each user's (``by="user"``) or item's MAE and RMSE: columns ``by, n, mae, rmse``, natural id order."""
    e = pl.col(PREDICTION) - pl.col(RATING)
    out = joined.group_by(by).agg(
        pl.len().alias("n"), e.abs().mean().alias("mae"), (e * e).mean().sqrt().alias("rmse")
    )
    return out.sort(by)


def rating_range(*frames: pl.DataFrame) -> tuple[float, float]:
    """(min, max) of the ``rating`` column over the given frames: the observed rating scale."""
    lo = min(_number(f.get_column(RATING).min()) for f in frames if f.height)
    hi = max(_number(f.get_column(RATING).max()) for f in frames if f.height)
    return lo, hi


def _number(value: object) -> float:
    """A numeric column's min, max or mean as a float (polars types them as any Python value)."""
    return float(cast(float, value))


def error_measures(
    predictions: object, test: object, *, rating_range: tuple[float, float] | None = None
) -> pl.DataFrame:
    """All error measures of a prediction frame against test ratings, as ``(measure, value)`` rows.

    Rows, in this order: ``mae``, ``rmse``, ``nmae``, ``nrmse`` (over all predicted test pairs),
    ``mae_user``, ``rmse_user`` (mean over users of the user's value), ``mae_item``, ``rmse_item`` (mean
    over items), ``prediction_coverage`` (n_predicted / n_test), ``n_test``, ``n_predicted``, ``n_extra``.
    ``rating_range`` = (r_min, r_max) for the normalised errors; default the min and max of the test
    ratings (pass the declared scale, e.g. ``(1, 5)``, when the test set may not use all of it).
    Raises :class:`~trecrs.errors.UsageError` if no test pair has a prediction.
    """
    joined, counts = join_predictions(predictions, test)
    if joined.height == 0:
        raise SemanticError(f"none of the {counts['n_test']} test pairs has a prediction")
    p = joined.get_column(PREDICTION).to_numpy()
    t = joined.get_column(RATING).to_numpy()
    lo, hi = rating_range if rating_range is not None else _observed_range(test)
    by_user = per_group_errors(joined, USER)
    by_item = per_group_errors(joined, ITEM)
    values = {
        "mae": mae(p, t),
        "rmse": rmse(p, t),
        "nmae": nmae(p, t, lo, hi),
        "nrmse": nrmse(p, t, lo, hi),
        "mae_user": _number(by_user.get_column("mae").mean()),
        "rmse_user": _number(by_user.get_column("rmse").mean()),
        "mae_item": _number(by_item.get_column("mae").mean()),
        "rmse_item": _number(by_item.get_column("rmse").mean()),
        "prediction_coverage": counts["n_predicted"] / counts["n_test"],
        **{k: float(v) for k, v in counts.items()},
    }
    return pl.DataFrame({"measure": list(values), "value": list(values.values())})


def _observed_range(test: object) -> tuple[float, float]:
    truth = _frame(test, (USER, ITEM, RATING), "test ratings")
    return rating_range(truth)


# --------------------------------------------------------------------------------------------- registry
# In ``trecrs eval`` the error measures need ``--predictions`` and ``--test``. Their summary is computed on
# the whole test file (every test pair, not only those of the evaluated queries), so ``mae`` is the MAE
# of the prediction file; the per-query lines give each query's user's own value.

from ..trec_eval import LOWER  # noqa: E402
from .registry import GLOBAL, VALUE, VALUES, Context, ExtraMeasure, register  # noqa: E402
from .ties import FREE  # noqa: E402


def _joined(ctx: Context) -> tuple[pl.DataFrame, dict[str, int]]:
    def make() -> tuple[pl.DataFrame, dict[str, int]]:
        joined, counts = join_predictions(ctx.require("predictions", "error"), ctx.require("test", "error"))
        if counts["n_predicted"] < counts["n_test"]:
            ctx.note(
                f"error measures: {counts['n_test'] - counts['n_predicted']} of {counts['n_test']} test ratings "
                "have no prediction and are left out"
            )
        if counts["n_extra"]:
            ctx.note(
                f"error measures: {counts['n_extra']} predictions are for pairs not in the test ratings (ignored)"
            )
        if joined.height == 0:
            raise SemanticError(
                "error measures: none of the test ratings has a prediction (do the ids match?)"
            )
        return joined, counts

    return ctx.cached("errors_joined", make)


def _range(ctx: Context, param: tuple[float, ...]) -> tuple[float, float]:
    if param:
        return float(param[0]), float(param[1])
    return rating_range(ctx.require("test", "error"))


def _per_user(kind: str, normalised: bool) -> Callable[[Context, tuple[float, ...]], pl.DataFrame]:
    def per_query(ctx: Context, param: tuple[float, ...]) -> pl.DataFrame:
        joined, _ = _joined(ctx)
        by_user = per_group_errors(joined, USER).select(USER, pl.col(kind).alias(VALUE))
        if normalised:
            lo, hi = _range(ctx, param)
            by_user = by_user.with_columns(pl.col(VALUE) / _span(lo, hi))
        return ctx.query_users.join(by_user, on=USER, how="left", maintain_order="left").select(
            "query", VALUE
        )

    return per_query


def _pooled(
    kind: str, normalised: bool
) -> Callable[[Context, tuple[float, ...], pl.DataFrame | None], float]:
    def summary(ctx: Context, param: tuple[float, ...], frame: pl.DataFrame | None) -> float:
        joined, _ = _joined(ctx)
        p, t = joined.get_column(PREDICTION).to_numpy(), joined.get_column(RATING).to_numpy()
        value = mae(p, t) if kind == "mae" else rmse(p, t)
        if normalised:
            value /= _span(*_range(ctx, param))
        return value

    return summary


def _grouped(kind: str, by: str) -> Callable[[Context, None, pl.DataFrame | None], float]:
    def summary(ctx: Context, param: None, frame: pl.DataFrame | None) -> float:
        joined, _ = _joined(ctx)
        return _number(per_group_errors(joined, by).get_column(kind).mean())

    return summary


def _range_validate(param: tuple[float, ...]) -> None:
    if len(param) not in (0, 2):
        raise UsageError(
            "normalised errors take both ends of the rating scale: nmae.R_MIN,R_MAX (e.g. nmae.1,5)"
        )
    if param and not param[1] > param[0]:
        raise UsageError(f"rating range must have R_MAX > R_MIN, got {param[0]:g},{param[1]:g}")
    if param and max(abs(param[0]), abs(param[1])) > RATING_ABS_MAX:  # ratings' own range (ranges.py)
        raise UsageError(
            f"rating range must be within [-{RATING_ABS_MAX:.0f}, {RATING_ABS_MAX:.0f}], got {param[0]:g},{param[1]:g}"
        )


_HERLOCKER = (
    "Herlocker, Konstan, Terveen, Riedl 2004 (Evaluating collaborative filtering recommender systems)"
)
for _kind in ("mae", "rmse"):
    _what = "mean absolute error" if _kind == "mae" else "root mean squared error"
    register(
        ExtraMeasure(
            _kind,
            "error",
            f"{_what} of the predictions over all test ratings (per query: the user's)",
            _HERLOCKER,
            _per_user(_kind, False),
            summary=GLOBAL,
            global_summary=_pooled(_kind, False),
            needs=("predictions", "test"),
            aggregate="pooled over every test rating with a prediction",
            undefined_when="the user has no predicted test rating",
            better=LOWER,
            ties=FREE,
        )
    )
    register(
        ExtraMeasure(
            f"n{_kind}",
            "error",
            f"{_what} / (r_max - r_min); n{_kind}.R_MIN,R_MAX (default: the test ratings' min and max)",
            f"Goldberg et al. 2001 (Eigentaste); {_HERLOCKER}",
            _per_user(_kind, True),
            summary=GLOBAL,
            global_summary=_pooled(_kind, True),
            params=VALUES,
            param_names=("r_min", "r_max"),
            needs=("predictions", "test"),
            validate=_range_validate,
            aggregate="pooled over every test rating with a prediction",
            undefined_when="the user has no predicted test rating",
            better=LOWER,
            ties=FREE,
        )
    )
for _kind in ("mae", "rmse"):
    for _by, _word in ((USER, "users"), (ITEM, "items")):
        register(
            ExtraMeasure(
                f"{_kind}_{_by}",
                "error",
                f"mean over {_word} of each one's {_kind.upper()}",
                f"Shani & Gunawardana 2011; {_HERLOCKER}",
                None,
                summary=GLOBAL,
                global_summary=_grouped(_kind, _by),
                needs=("predictions", "test"),
                aggregate=f"mean over {_word}",
                better=LOWER,
                ties=FREE,
            )
        )
