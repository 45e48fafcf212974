"""Engines: how trec_eval measures are computed (:mod:`.base`); importing this package registers them all."""

from . import pytrec_eval, vectorized

# isort: split
# after vectorized: auto picks the first registered engine that covers a request
from . import dask
from .base import ENGINES, Computed, Engine, register_engine

__all__ = ["ENGINES", "Computed", "Engine", "pytrec_eval", "dask", "register_engine", "vectorized"]
