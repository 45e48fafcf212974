"""Engines: how trec_eval measures are computed (:mod:`.base`). :data:`ENGINES` names every built-in engine;
the vectorized one (the default) is imported with this package, the reference (``pytrec_eval``) and
``dask`` when first looked up or imported."""

from ..lazy import exports
from . import vectorized
from .base import ENGINES, Computed, Engine, register_engine

__getattr__, __dir__ = exports(__name__, {"pytrec_eval": ".pytrec_eval", "dask": ".dask"})

__all__ = ["ENGINES", "Computed", "Engine", "pytrec_eval", "dask", "register_engine", "vectorized"]
