"""The registry of reference recommenders: algorithm names, the papers' presets, construction by name.

:data:`ALGORITHMS` maps each algorithm name to its class (whose ``defaults`` are its parameters);
:data:`PRESETS` names the configurations the reproduced papers used. ``trecrs recommend`` takes its
choices and its ``--list`` from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import polars as pl

from ..errors import UsageError
from .base import Recommender, Scores
from .baselines import ItemAvg, RandomScores, TopPop
from .ease import EASE
from .knn import CorNgbr, ItemKNN, NNCosNgbr, UserKNN
from .mf import BiasedMF, PureSVD


@dataclass(frozen=True)
class Algorithm:
    """A registered algorithm: its class, a one-line summary, and the paper it follows."""

    factory: type[Recommender]
    summary: str
    source: str

    @property
    def name(self) -> str:
        return self.factory.name

    @property
    def defaults(self) -> dict[str, Any]:
        """The parameters the algorithm accepts, with their defaults."""
        return self.factory.defaults


ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm(RandomScores, "uniform random scores (seeded hash of user, item)", "-"),
        Algorithm(TopPop, "number of training ratings of the item", "Cremonesi et al. 2010"),
        Algorithm(ItemAvg, "mean training rating of the item (MovieAvg)", "Cremonesi et al. 2010"),
        Algorithm(UserKNN, "Mahout user-based kNN (k nearest users, Pearson/cosine)", "Mahout 0.x"),
        Algorithm(ItemKNN, "Mahout item-based kNN, adjusted cosine, all rated items", "Mahout 0.x"),
        Algorithm(BiasedMF, "biased matrix factorisation, ALS-WR", "Zhou et al. 2008; Koren et al. 2009"),
        Algorithm(PureSVD, "PureSVD: r_u Q q_i^T from a truncated SVD", "Cremonesi et al. 2010, eq. 6"),
        Algorithm(CorNgbr, "baseline + normalised shrunk-Pearson kNN", "Cremonesi et al. 2010, eq. 1"),
        Algorithm(NNCosNgbr, "baseline + non-normalised shrunk-cosine kNN", "Cremonesi et al. 2010, eq. 2"),
        Algorithm(EASE, "EASE: x_u B, closed-form item-item weights, diag(B) = 0", "Steck 2019, eq. 8"),
    )
}

# The configurations the reproduced papers name, as (algorithm, parameters).
PRESETS: dict[str, tuple[str, dict]] = {
    "Random": ("random", {}),
    "TopPop": ("toppop", {}),
    "MovieAvg": ("itemavg", {}),
    "UB50": ("userknn", {"k": 50, "similarity": "pearson"}),
    "IB": ("itemknn", {"similarity": "adjusted-cosine"}),
    "SVD50": ("mf", {"factors": 50}),
    "PureSVD50": ("puresvd", {"factors": 50}),
    "PureSVD150": ("puresvd", {"factors": 150}),
    "CorNgbr": ("corngbr", {}),
    "NNCosNgbr": ("nncosngbr", {}),
}


def algorithm_names() -> list[str]:
    """Every name ``make_recommender`` accepts: algorithms, then presets (case-insensitive duplicates once)."""
    return [*ALGORITHMS, *(p for p in PRESETS if p.lower() not in ALGORITHMS)]


def resolve(name: str) -> tuple[str, dict]:
    """(algorithm, preset parameters) for an algorithm or preset name (case-insensitive)."""
    lowered = {k.lower(): k for k in PRESETS}
    if name in ALGORITHMS:
        return name, {}
    if name.lower() in ALGORITHMS:
        return name.lower(), {}
    if name.lower() in lowered:
        algo, params = PRESETS[lowered[name.lower()]]
        return algo, dict(params)
    raise UsageError(f"unknown algorithm {name!r}; known: {', '.join(algorithm_names())}")


def make_recommender(name: str, *, seed: int = 0, **params: Any) -> Recommender:
    """A recommender by algorithm or preset name; ``params`` override the preset's / defaults."""
    algo, preset = resolve(name)
    return ALGORITHMS[algo].factory(seed=seed, **{**preset, **params})


def parse_param(text: str, algorithm: str) -> tuple[str, Any]:
    """``KEY=VALUE`` typed like the algorithm's default for KEY (int, float or str)."""
    if "=" not in text:
        raise UsageError(f"a parameter is KEY=VALUE, not {text!r}")
    key, raw = text.split("=", 1)
    key = key.strip().replace("-", "_")
    algo, _ = resolve(algorithm)
    defaults = ALGORITHMS[algo].defaults
    if key not in defaults:
        known = ", ".join(defaults) or "none"
        raise UsageError(f"{algo}: unknown parameter {key!r}; known: {known}")
    kind = type(defaults[key])
    try:
        value = kind(float(raw)) if kind is int and float(raw).is_integer() else kind(raw)
    except ValueError:
        raise UsageError(f"{algo}: parameter {key} expects {kind.__name__}, got {raw!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"{algo}: parameter {key} must be finite")
    return key, value


def recommend(
    train: pl.DataFrame,
    pairs: pl.DataFrame,
    algorithm: str,
    *,
    seed: int = 0,
    unscored: str = "fallback",
    **params: Any,
) -> Scores:
    """Fit ``algorithm`` on ``train`` and score the distinct (user, item) pairs of ``pairs``; as
    ``trecrs recommend``, every pair by default (``unscored``: :data:`~.base.UNSCORED`)."""
    return make_recommender(algorithm, seed=seed, **params).fit(train).score(pairs, unscored=unscored)
