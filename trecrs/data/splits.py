"""Splitting a ratings table into training and test sets: a registry of seeded, deterministic splitters.

Every splitter takes a ratings table (:data:`trecrs.schema.RATINGS_SCHEMA`, rows in file order) and returns
one or more :class:`Split` (``k`` for k-fold). Train and test keep the input's row order. Randomness comes
only from ``numpy.random.default_rng(seed)`` drawn over the rows in file order, so the same file and seed
give byte-identical splits (and a different seed different ones); timestamp ties are broken by file order
(a later line counts as later).

A split is decided as a mask over the table's rows (:class:`~trecrs.data.split_rows.Rows`): its frames
are built only when read, and its files are written straight from the table and the mask.

Counts derived from a ratio round half up, exactly, on the ratio as written (``0.014 * 100000 = 1400``).

=============  ===========================================================================================
``holdout``    random hold-out: ``round(ratio * N)`` ratings drawn uniformly to test, the rest to train.
``kfold``      k-fold cross-validation: a random permutation dealt into k folds (sizes differ by at most 1);
               fold i = test, the other folds = train. Folds are disjoint and cover every rating.
``per-user``   per-user hold-out: ``given`` n random ratings of each user to train (Breese et al. 1998,
               "Given-n"), or ``all_but`` n to test ("All-but-n"), or ``ratio`` r of each user's ratings
               (``round(r * n_u)``, at least one left in train) to test.
``temporal``   time-aware: a global cut (``cut`` timestamp: test = ratings at or after it; or ``ratio``: the
               latest ``round(r * N)`` ratings), or per user (``last`` n / ``last_ratio`` r latest ratings).
``loo``        leave-one-out: one rating per user to test, chosen at random or the latest.
``probe``      Cremonesi, Koren & Turrin (RecSys 2010): a random ``ratio`` of all ratings (1.4% as Netflix's
               probe) is the probe set; test = probe ratings >= ``threshold`` (5 stars); train = every rating
               not in the probe. Probe ratings below the threshold are in neither set (counted).
=============  ===========================================================================================

Users whose ratings cannot be divided as asked (e.g. fewer than ``given + 1`` ratings) keep all their
ratings in train; :attr:`Split.report` counts them, and every rating dropped, so nothing goes silently.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar, overload

import numpy as np
import polars as pl

from ..errors import SemanticError, UsageError
from ..files.ratings import as_ratings
from ..ranges import FOLDS_MAX, check_seed
from ..schema import RATING, TIMESTAMP
from .split_rows import Rows, Table, per_user_rank, stable_order

PathLike = str | os.PathLike
Columns = str | Mapping[str, str | int]  # role -> column name or position from 1, or "user=userId,..."


class Split:
    """One train/test split: the two ratings tables (input row order), its name (``"fold3"``; ``""`` for a
    single split), the method's parameters (method, seed, options), and counts worth reporting.

    ``train`` and ``test`` are frames or :class:`Rows` of one table (built into frames when read)."""

    def __init__(
        self,
        train: pl.DataFrame | Rows,
        test: pl.DataFrame | Rows,
        name: str,
        parameters: dict[str, Any] | None = None,
        report: dict[str, int] | None = None,
    ):
        self.rows = {
            "train": train if isinstance(train, Rows) else Rows(train),
            "test": test if isinstance(test, Rows) else Rows(test),
        }
        self.name = name
        self.parameters = dict(parameters or {})
        self.report = dict(report or {})

    @property
    def train(self) -> pl.DataFrame:
        return self.rows["train"].frame()

    @property
    def test(self) -> pl.DataFrame:
        return self.rows["test"].frame()

    def summary(self) -> str:
        label = f"{self.name}: " if self.name else ""
        train, test = self.rows["train"], self.rows["test"]
        return f"{label}{train.height} train / {test.height} test ratings ({test.users()} test users)"


@dataclass(frozen=True)
class Splitter:
    """A registered split method: its function, the options it takes, and whether it draws at random."""

    name: str
    func: Callable[..., list[Split]]
    options: tuple[str, ...]
    random: bool
    doc: str


SPLITTERS: dict[str, Splitter] = {}

_F = TypeVar("_F", bound=Callable[..., list[Split]])


def register(name: str, options: tuple[str, ...], *, random: bool, doc: str) -> Callable[[_F], _F]:
    """Decorator adding a splitter to :data:`SPLITTERS` (the CLI's ``--method`` choices come from it)."""

    def deco(func: _F) -> _F:
        SPLITTERS[name] = Splitter(name, func, options, random, doc)
        return func

    return deco


#: The method name in the manifests of MovieLens 100K's predefined splits (:func:`trecrs.data.datasets.ml100k_splits`):
#: u1..u5 are consecutive parts of u.data and ua/ub each user's first ratings in its line order, which is
#: not chronological, so they count as random splits.
ML100K_PREDEFINED = "ml100k-predefined"


def declared_random(parameters: dict | None) -> bool:
    """Whether a split file's manifest parameters declare a split that ignores time: a method that draws
    at random (:data:`SPLITTERS`; leave-one-out only with ``pick`` random) or ML-100K's predefined splits."""
    given = parameters or {}
    method = given.get("method")
    if method == ML100K_PREDEFINED:
        return True
    return method in SPLITTERS and SPLITTERS[method].random and given.get("pick", "random") == "random"


# --------------------------------------------------------------------------------------------- helpers


@overload
def round_half_up(ratio: float | str | Fraction, n: int) -> int: ...
@overload
def round_half_up(ratio: float | str | Fraction, n: np.ndarray) -> np.ndarray: ...
def round_half_up(ratio: float | str | Fraction, n: int | np.ndarray) -> int | np.ndarray:
    """``round(ratio * n)`` with halves rounded up, computed exactly on the decimal ratio as written.

    ``ratio`` 0.014 is 14/1000 (not the nearest binary float), so 0.014 * 100000 is exactly 1400.
    """
    frac = ratio if isinstance(ratio, Fraction) else Fraction(str(ratio))
    p, q = frac.numerator, frac.denominator
    if isinstance(n, np.ndarray):
        return (2 * p * n.astype(object) + q) // (2 * q)
    return (2 * p * int(n) + q) // (2 * q)


def _ratio(value: object, name: str, *, upper_open: bool = True) -> Fraction:
    try:
        frac = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise UsageError(
            f"{name} must be a number between 0 and 1, got {value!r}", arguments=[name]
        ) from None
    if not (0 < frac < 1 if upper_open else 0 < frac <= 1):
        raise UsageError(f"{name} must be strictly between 0 and 1, got {value}", arguments=[name])
    return frac


def _positive_int(value: float | None, name: str) -> int:
    if value is None or int(value) != value or int(value) < 1:
        raise UsageError(f"{name} must be a positive integer, got {value!r}", arguments=[name])
    return int(value)


def check_folds(folds: int) -> int:
    """A k-fold count: an integer from 2 to :data:`~trecrs.ranges.FOLDS_MAX` (every fold is two files,
    named before the ratings are read)."""
    k = _positive_int(folds, "folds")
    if k < 2:
        raise UsageError(f"k-fold needs at least 2 folds, got {k}", arguments=["folds"])
    if k > FOLDS_MAX:
        raise UsageError(
            f"k-fold takes at most {FOLDS_MAX} folds (each is a train and a test file), got {k}",
            arguments=["folds"],
        )
    return k


def _rng(seed: int | None, method: str) -> np.random.Generator:
    if seed is None:
        raise UsageError(f"the {method} split draws at random: give a seed", arguments=["seed"])
    return np.random.default_rng(check_seed(seed))


def _per_user_count(
    nth: np.ndarray, counts: np.ndarray, codes: np.ndarray, name: str, value: int, *, to_test: bool = True
) -> tuple[np.ndarray, dict[str, Any], dict[str, int]]:
    """Each user's first ``value`` ratings (``nth`` order) to test (``to_test``) or to train, the rest to
    the other side; a user with at most ``value`` ratings keeps them all in train.

    Returns the test mask, the parameters for the manifest and the report of short users.
    """
    k = _positive_int(value, name)
    in_test = (counts[codes] > k) & ((nth <= k) if to_test else (nth > k))
    short = int(np.count_nonzero((counts > 0) & (counts <= k)))
    return in_test, {name: k}, _short_users(f"users with <= {k} ratings (all kept in train)", short)


def _per_user_ratio(
    nth: np.ndarray, counts: np.ndarray, codes: np.ndarray, name: str, value: object
) -> tuple[np.ndarray, dict[str, Any], dict[str, int]]:
    """Each user's first t_u = round_half_up(``value`` * n_u) ratings (``nth`` order) to test, at most
    n_u - 1; users whose share rounds to 0 keep all in train."""
    frac = _ratio(value, name)
    users = np.flatnonzero(counts)  # codes in use
    t = np.zeros_like(counts)
    t[users] = np.minimum(round_half_up(frac, counts[users]).astype(np.int64), counts[users] - 1)
    short = int(np.count_nonzero(t[users] == 0))
    return (
        nth <= t[codes],
        {name: str(value)},
        _short_users("users whose share rounds to 0 test ratings (all kept in train)", short),
    )


def _short_users(why: str, count: int) -> dict[str, int]:
    return {why: count} if count else {}


def _random_share(n: int, frac: Fraction, rng: np.random.Generator) -> np.ndarray:
    """A mask of round_half_up(frac * n) of ``n`` rows drawn uniformly: the first rows of a permutation."""
    chosen = np.zeros(n, dtype=bool)
    chosen[rng.permutation(n)[: round_half_up(frac, n)]] = True
    return chosen


def _parts(table: Table, in_test: np.ndarray) -> tuple[Rows, Rows]:
    """Train (the rows not in test) and test, each in file order."""
    return Rows(table, ~in_test), Rows(table, in_test)


def _need_timestamps(ratings: pl.DataFrame, method: str) -> np.ndarray:
    """The timestamps (int64) of a method that orders ratings by time; an error if any is missing."""
    missing = ratings.get_column(TIMESTAMP).null_count()
    if missing:
        raise UsageError(
            f"the {method} split orders ratings by time, but {missing} of {ratings.height} ratings have no timestamp"
        )
    return ratings.get_column(TIMESTAMP).to_numpy()


# --------------------------------------------------------------------------------------------- splitters


@register("holdout", ("ratio",), random=True, doc="random hold-out of round(ratio*N) ratings (default 0.2)")
def holdout(ratings: pl.DataFrame, *, seed: int | None, ratio: float | str = 0.2) -> list[Split]:
    chosen = _random_share(ratings.height, _ratio(ratio, "ratio"), _rng(seed, "holdout"))
    train, test = _parts(Table(ratings), chosen)
    return [Split(train, test, "", {"method": "holdout", "seed": seed, "ratio": str(ratio)})]


@register("kfold", ("folds",), random=True, doc="k-fold cross-validation over ratings (default 5 folds)")
def kfold(ratings: pl.DataFrame, *, seed: int | None, folds: int = 5) -> list[Split]:
    k = check_folds(folds)
    if k > ratings.height:
        raise UsageError(f"{k} folds but only {ratings.height} ratings", arguments=["folds"])
    rng = _rng(seed, "kfold")
    n = ratings.height
    # Deal a random permutation round-robin: fold sizes differ by at most one.
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[rng.permutation(n)] = np.arange(n) % k
    table = Table(ratings)
    out = []
    for i in range(k):
        train, test = _parts(table, fold_of == i)
        out.append(
            Split(train, test, f"fold{i + 1}", {"method": "kfold", "seed": seed, "folds": k, "fold": i + 1})
        )
    return out


@register(
    "per-user",
    ("given", "all_but", "ratio"),
    random=True,
    doc="per-user hold-out: --given N to train, --all-but N to test, or --ratio R of each user to test",
)
def per_user(
    ratings: pl.DataFrame,
    *,
    seed: int | None,
    given: int | None = None,
    all_but: int | None = None,
    ratio: float | str | None = None,
) -> list[Split]:
    chosen = [name for name, v in (("given", given), ("all_but", all_but), ("ratio", ratio)) if v is not None]
    if len(chosen) != 1:
        raise UsageError(
            "per-user split: give exactly one of given, all_but, ratio",
            arguments=["given", "all_but", "ratio"],
        )
    rng = _rng(seed, "per-user")
    table = Table(ratings)
    nth, counts = per_user_rank(table, rng.random(ratings.height))
    if given is not None:  # the first g in random order train, the rest test
        in_test, params, report = _per_user_count(nth, counts, table.codes, "given", given, to_test=False)
    elif all_but is not None:
        in_test, params, report = _per_user_count(nth, counts, table.codes, "all_but", all_but)
    else:
        in_test, params, report = _per_user_ratio(nth, counts, table.codes, "ratio", ratio)
    train, test = _parts(table, in_test)
    return [Split(train, test, "", {"method": "per-user", "seed": seed, **params}, report)]


@register(
    "temporal",
    ("cut", "ratio", "last", "last_ratio"),
    random=False,
    doc="time-aware: global --cut TIMESTAMP or --ratio R (latest share); per user --last N or --last-ratio R",
)
def temporal(
    ratings: pl.DataFrame,
    *,
    seed: int | None = None,
    cut: int | None = None,
    ratio: float | str | None = None,
    last: int | None = None,
    last_ratio: float | str | None = None,
) -> list[Split]:
    chosen = [
        k
        for k, v in (("cut", cut), ("ratio", ratio), ("last", last), ("last_ratio", last_ratio))
        if v is not None
    ]
    if len(chosen) != 1:
        raise UsageError(
            "temporal split: give exactly one of cut, ratio, last, last_ratio",
            arguments=["cut", "ratio", "last", "last_ratio"],
        )
    ts = _need_timestamps(ratings, "temporal")
    table = Table(ratings)
    report: dict[str, int] = {}
    params: dict[str, Any]
    if cut is not None:
        in_test = ts >= int(cut)
        params = {"cut": int(cut)}
    elif ratio is not None:
        in_test, report = _latest_share(ts, _ratio(ratio, "ratio"))
        params = {"ratio": str(ratio)}
    else:
        nth, counts = per_user_rank(table, ts, descending=True)  # nth 1 = the user's latest
        if last is not None:
            in_test, params, report = _per_user_count(nth, counts, table.codes, "last", last)
        else:
            in_test, params, report = _per_user_ratio(nth, counts, table.codes, "last_ratio", last_ratio)
    train, test = _parts(table, in_test)
    return [Split(train, test, "", {"method": "temporal", **params}, report)]


def _latest_share(ts: np.ndarray, frac: Fraction) -> tuple[np.ndarray, dict[str, int]]:
    """The latest round_half_up(frac * N) ratings (by timestamp, ties by file order: a later line is
    later) as a test mask, and the count of train ratings that share the cut timestamp with test."""
    n = ts.size
    n_test = round_half_up(frac, n)
    in_test = np.zeros(n, dtype=bool)
    in_test[stable_order(ts)[n - n_test :]] = True
    report: dict[str, int] = {}
    if 0 < n_test < n:
        cut = ts[in_test].min()
        tied = int(np.count_nonzero(ts[~in_test] == cut))
        if tied:
            report["train ratings sharing the cut timestamp with test (ties split by file order)"] = tied
    return in_test, report


@register(
    "loo", ("pick",), random=True, doc="leave-one-out: one rating per user to test (--pick random|latest)"
)
def leave_one_out(ratings: pl.DataFrame, *, seed: int | None, pick: str = "random") -> list[Split]:
    if pick not in ("random", "latest"):
        raise UsageError(f"leave-one-out pick must be random or latest, got {pick!r}", arguments=["pick"])
    table = Table(ratings)
    if pick == "latest":
        ts = _need_timestamps(ratings, "leave-one-out (latest)")
        nth, counts = per_user_rank(table, ts, descending=True)
    else:
        rng = _rng(seed, "leave-one-out")
        nth, counts = per_user_rank(table, rng.random(ratings.height))
    in_test = (nth == 1) & (counts[table.codes] > 1)
    single = int(np.count_nonzero(counts == 1))
    train, test = _parts(table, in_test)
    report = {"users with a single rating (kept in train)": single} if single else {}
    params = {"method": "loo", "pick": pick} | ({"seed": seed} if pick == "random" else {})
    return [Split(train, test, "", params, report)]


@register(
    "probe",
    ("ratio", "threshold"),
    random=True,
    doc="Cremonesi et al. 2010: a random --ratio of ratings (0.014) is the probe; test = probe >= --threshold (5)",
)
def probe(
    ratings: pl.DataFrame, *, seed: int | None, ratio: float | str = "0.014", threshold: float = 5.0
) -> list[Split]:
    """A random ``ratio`` of all ratings is the probe; test = probe ratings >= ``threshold``; train = every
    rating outside the probe.

    The defaults are the protocol of Cremonesi, Koren & Turrin (RecSys 2010, section 3: a 1.4% probe, as
    Netflix's, and its 5-star ratings), documented as ``trecrs split --method probe``'s defaults; the
    reproduction declares them in ``trecrs.reproductions.cremonesi2010.constants`` and passes them
    explicitly.
    """
    in_probe = _random_share(ratings.height, _ratio(ratio, "ratio"), _rng(seed, "probe"))
    n_probe = int(in_probe.sum())
    table = Table(ratings)
    test = Rows(table, in_probe & (ratings.get_column(RATING).to_numpy() >= float(threshold)))
    dropped = n_probe - test.height
    report = {"probe size": n_probe}
    if dropped:
        report[f"probe ratings below {threshold:g} (in neither train nor test)"] = dropped
    params = {"method": "probe", "seed": seed, "ratio": str(ratio), "threshold": float(threshold)}
    return [Split(Rows(table, ~in_probe), test, "", params, report)]


# --------------------------------------------------------------------------------------------- entry points


def split(
    ratings: Any, method: str, *, seed: int | None = None, columns: Columns | None = None, **options: Any
) -> list[Split]:
    """Split ``ratings`` (a DataFrame or a path) with the registered ``method``; returns the splits.

    A frame's columns are recognised by name (``userId``, ``movieId``, ``rating``...); ``columns`` maps
    them otherwise, as the command line's ``--columns`` does (``"user=userId,item=movieId,rating=rating"``
    or ``{"user": "userId", ...}``; positions count from 1), and is passed on when ``ratings`` is a path
    (:func:`~trecrs.files.ratings.as_ratings`). ``options`` are the method's (see :data:`SPLITTERS`);
    ``None`` values are ignored. A split whose test or train set comes out empty is an error (nothing to
    evaluate / nothing to learn from).

    >>> import polars as pl
    >>> ratings = pl.DataFrame({"userId": [1, 1, 1, 2, 2], "movieId": [10, 20, 30, 10, 40],
    ...                         "rating": [4.0, 3.0, 5.0, 2.0, 4.5], "timestamp": [1, 2, 3, 1, 2]})
    >>> (s,) = split(ratings, "temporal", last=1)
    >>> s.test.select("user", "item").rows()
    [('1', '30'), ('2', '40')]
    """
    splitter, given = chosen_method(method, options)
    return split_table(as_ratings(ratings, columns=columns), splitter, seed, given)


def chosen_method(method: str, options: Mapping[str, Any]) -> tuple[Splitter, dict[str, Any]]:
    """The registered splitter ``method`` and the options it is given (``None`` values left out)."""
    if method not in SPLITTERS:
        raise UsageError(f"unknown split method {method!r}; known: {', '.join(SPLITTERS)}")
    spec = SPLITTERS[method]
    given = {k: v for k, v in options.items() if v is not None}
    unknown = sorted(set(given) - set(spec.options))
    if unknown:
        opts = ", ".join("--" + o.replace("_", "-") for o in unknown)
        raise UsageError(
            f"the {method} split does not take {opts}; it takes {', '.join(spec.options)}", arguments=unknown
        )
    return spec, given


def split_table(
    ratings: pl.DataFrame, spec: Splitter, seed: int | None, given: dict[str, Any]
) -> list[Split]:
    """The splits of a ratings table (ids as text, or coded) by ``spec``; an error when one is empty."""
    method = spec.name
    if ratings.height == 0:
        raise SemanticError("no ratings to split")
    result = spec.func(ratings, seed=seed, **given)
    for s in result:
        where = f" ({s.name})" if s.name else ""
        if s.rows["test"].height == 0:
            raise SemanticError(f"the {method} split{where} leaves the test set empty; change its options")
        if s.rows["train"].height == 0:
            raise SemanticError(
                f"the {method} split{where} leaves the training set empty; change its options"
            )
    return result


__all__ = [
    "SPLITTERS",
    "Split",
    "Splitter",
    "round_half_up",
    "split",
]
