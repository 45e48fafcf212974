"""Engines: how trec_eval measures are computed (:mod:`.base`); importing this package registers them all."""

from . import pytrec_eval, vectorized
from .base import ENGINES, Computed, Engine, register_engine

__all__ = ["ENGINES", "Computed", "Engine", "pytrec_eval", "register_engine", "vectorized"]
