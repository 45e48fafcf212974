"""pytrec_eval's interface on trecrs's engine: ``from trecrs import pytrec_eval`` in place of ``import pytrec_eval``.

The names of pytrec_eval-terrier 0.5.11 (``RelevanceEvaluator``, ``parse_qrel``, ``parse_run``,
``compute_aggregated_measure``, ``supported_measures``, ``supported_nicknames``) with the same arguments
and the same results: ``evaluate(run)`` returns ``{query: {name: float}}`` with the keys, values (the same
C doubles: trec_eval 9.0.8's arithmetic, reproduced by the vectorized engine) and order pytrec_eval gives,
and raises the exceptions pytrec_eval raises for the inputs it refuses. The values are computed by
:func:`trecrs.evaluate.api.evaluate_full` with the vectorized engine; pytrec_eval is not imported.

The rules reproduced (pytrec_eval's ``__init__.py`` and ``pytrec_eval.cpp``, trec_eval 9.0.8 inside):

* measures: nicknames expanded; ``P_5``, ``P.5``, ``P.5,10`` merged per measure, their parameters as a
  set of strings joined in string order (as pytrec_eval passes them to trec_eval); an unknown name is a
  ``ValueError``; an empty set gives an empty dict per query;
* ``relevance_level`` is trec_eval's ``-l`` (at least 1), ``judged_docs_only_flag`` its ``-J``; no ``-M``
  (every document counts), no ``-c`` (qrels queries without a ranking are left out);
* qrels queries judged nothing are dropped; run queries without qrels are left out; the queries come in
  the run's order, each measure's values in trec_eval's table order, cutoff measures under their printed
  names (``P_5``, ``iprec_at_recall_0.10``), the others under the measure's name (``ndcg``, ``set_F``);
  ``runid`` and ``relstring`` are 0.0 and ``num_q`` is 1.0 for each query, as pytrec_eval returns them
  (``runid`` alone, pytrec_eval reads an empty buffer: any number);
* the qrels are read once, when the evaluator is made; ``evaluate`` may be called any number of times.

One difference, deliberately: a query of the run whose ranking is empty (``{}``) gets the values trec_eval
computes for a ranking of no document (those of ``-J`` when nothing retrieved is judged); pytrec_eval's own
values for it depend on the queries evaluated before it in the same call (zeros, or a crash, when none
retrieved anything).
"""

from __future__ import annotations

import collections
import operator
import re
import warnings
from collections.abc import Iterable, Mapping
from itertools import chain

import numpy as np
import polars as pl

from .evaluate.api import evaluate_full
from .measures.trec_eval import BY_NAME, DOUBLE_CUTOFFS, LONG_CUTOFFS, NICKNAMES, ORDER, base_of
from .schema import DOC, QUERY, REL, SCORE

__version__ = "0.5.11"  # the pytrec_eval-terrier release whose interface and results this module gives

__all__ = [
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]

supported_measures: set[str] = set(NICKNAMES["all_trec"])
supported_nicknames: dict[str, set[str]] = {name: set(names) for name, names in NICKNAMES.items()}

# pytrec_eval's measure syntax: name, then "." or "_", then numbers separated by commas (re.match: a prefix)
_PARAMETERS = r"{}[\._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"

# measures whose values pytrec_eval names as trec_eval prints them (te_print_single_meas_a_cut): one per
# cutoff; every other measure is one value under its own name
_PER_CUTOFF = frozenset(m.name for m in BY_NAME.values() if m.params in (LONG_CUTOFFS, DOUBLE_CUTOFFS)) - {"11pt_avg"}
_ZERO = ("runid", "relstring")  # no value of their own: pytrec_eval returns the zeroed slot

# the messages of pytrec_eval's C extension, kept as they are: code may match them
_BAD_ARGUMENTS = "Expected object_relevance_per_qid dictionary and measures set."
_BAD_RUN = "Unable to extract query/object scores."
_C_INT = (-(2**31), 2**31 - 1)

# a document id no qrels line of the query judges: the one document of an empty ranking under -J
_NOTHING_RETRIEVED = "trecrs: nothing retrieved"


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """``{query: {doc: score}}`` (a ``defaultdict``) of the lines ``query Q0 doc rank score tag`` (pytrec_eval's
    ``parse_run``: six fields split at white space, else ``ValueError``; a doc twice in a query is an
    ``AssertionError``)."""
    run: dict[str, dict[str, float]] = collections.defaultdict(dict)
    for line in f_run:
        query_id, _, object_id, _, score, _ = line.strip().split()
        assert object_id not in run[query_id]
        run[query_id][object_id] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """``{query: {doc: rel}}`` (a ``defaultdict``) of the lines ``query 0 doc rel`` (pytrec_eval's ``parse_qrel``:
    four fields split at white space, else ``ValueError``; a doc twice in a query is an ``AssertionError``)."""
    qrel: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for line in f_qrel:
        query_id, _, object_id, relevance = line.strip().split()
        assert object_id not in qrel[query_id]
        qrel[query_id][object_id] = int(relevance)
    return qrel


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """The summary of per-query ``values`` as pytrec_eval computes it: the sum for ``num_*``,
    ``exp(mean)`` for ``gm_*`` (the values are logs), the mean otherwise (numpy's sum and mean)."""
    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


def trec_eval_measures(measures: Iterable[str]) -> set[str]:
    """The ``name`` / ``name.params`` strings pytrec_eval hands trec_eval for ``measures``.

    Nicknames are expanded; ``name.p`` and ``name_p`` (``p``: numbers separated by commas, matched as a
    prefix, so ``utility.1,-1`` is ``utility.1``) add their numbers to the measure's set, written back
    sorted as strings (``P.10,5``); a bare name alone keeps trec_eval's defaults. ``ValueError``: a name
    pytrec_eval does not support.
    """
    expanded: set[str] = set()
    for measure in measures:
        expanded.update(supported_nicknames.get(measure, {measure}))
    params: dict[str, set[str]] = {}
    for measure in expanded:
        if measure not in supported_measures and measure not in supported_nicknames:
            match = next(
                (m for m in (re.match(_PARAMETERS.format(re.escape(s)), measure) for s in supported_measures) if m), None
            )
            if match is None:
                raise ValueError(f"unsupported measure {measure}")
            base = match.group(0)[: match.start(1) - 1]
            params.setdefault(base, set()).update(match.group(1).split(","))
        else:
            params.setdefault(measure, set())
    return {f"{m}.{','.join(sorted(p))}" if p else m for m, p in params.items()}


def _c_int(value) -> int:
    """An argument as pytrec_eval's C code reads it (``PyArg_ParseTuple`` ``"i"``): an int in a C int's range."""
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(_BAD_ARGUMENTS) from None
    if not _C_INT[0] <= number <= _C_INT[1]:
        raise TypeError(_BAD_ARGUMENTS)
    return number


class RelevanceEvaluator:
    """pytrec_eval's ``RelevanceEvaluator``: the qrels and measures fixed once, ``evaluate(run)`` per run.

    ``query_relevance``: ``{query: {doc: int}}``; ``measures``: names, ``name.params``/``name_params``
    and nicknames (``{"map", "ndcg_cut.10", "P_5"}``, ``{"official"}``); ``relevance_level``: trec_eval's
    ``-l``; ``judged_docs_only_flag``: its ``-J``. Raises what pytrec_eval raises: ``ValueError`` for an
    unsupported measure, ``TypeError`` for ids that are not strings, grades that are not ints, a level
    below 1.
    """

    def __init__(self, query_relevance: Mapping[str, Mapping[str, int]], measures: Iterable[str],
                 relevance_level: int = 1, judged_docs_only_flag: bool = False) -> None:  # fmt: skip
        specs = trec_eval_measures(measures)
        query_relevance = {q: docs for q, docs in query_relevance.items() if len(docs) > 0}
        level, judged = _c_int(relevance_level), _c_int(judged_docs_only_flag)
        if level < 1:
            raise TypeError("Argument relevance_level should be positive.")
        self._specs = sorted(specs)
        self._settings = {"relevance_level": level, "judged_only": bool(judged)}
        self._qrels = _qrels_frame(query_relevance)
        self._queries = frozenset(query_relevance)
        self._judged = {q: docs.keys() for q, docs in query_relevance.items()}  # for the empty rankings' stand-in

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """``{query: {name: value}}`` for each query of ``scores`` (``{query: {doc: score}}``) that has qrels,
        in the order of ``scores``; ``{}`` for an empty run. ``TypeError``: not a dict, or ids that are not
        strings, scores that are not numbers."""
        if not scores:
            return {}
        if not isinstance(scores, dict):
            raise TypeError("Argument object scores should be of type dictionary.")
        run, empty = _run_frame(scores, self._queries)
        order = [q for q in scores if q in self._queries]
        if not order:
            return {}
        if not self._specs:
            return {q: {} for q in order}
        run = run.filter(pl.col(QUERY).is_in(list(self._queries)))
        values = self._values(run, False) if run.height else {}
        if empty:
            stand_in = [_stand_in(self._judged[q]) for q in empty]
            extra = pl.DataFrame({QUERY: empty, DOC: stand_in, SCORE: [0.0] * len(empty)},
                                 schema={QUERY: pl.String, DOC: pl.String, SCORE: pl.Float64})  # fmt: skip
            values.update(self._values(extra, True))
        return {q: values[q] for q in order}

    def _values(self, run: pl.DataFrame, judged_only: bool) -> dict[str, dict[str, float]]:
        """``{query: {name: value}}`` of ``run`` by :func:`evaluate_full` (``judged_only`` forces ``-J``)."""
        settings = dict(self._settings, judged_only=self._settings["judged_only"] or judged_only)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # coverage warnings: pytrec_eval says nothing
            ev = evaluate_full(self._qrels, run, self._specs, engine="vectorized", **settings)
        return _as_dicts(ev.per_query, sorted(ev.request.params, key=ORDER.__getitem__))


def _qrels_frame(qrels: dict) -> pl.DataFrame:
    """The qrels as a frame, refused as pytrec_eval refuses them (``TypeError``, its messages)."""
    for q, docs in qrels.items():
        if not isinstance(q, str):
            raise TypeError("Expected string as key.")
        if not isinstance(docs, dict):
            raise TypeError("Expected dictionary as value.")
        for d, rel in docs.items():
            if not isinstance(d, str):
                raise TypeError("Expected mapping of document id to query relevance or matching score.")
            if not isinstance(rel, int):
                raise TypeError("Expected relevance to be integer.")
    queries = list(chain.from_iterable([q] * len(docs) for q, docs in qrels.items()))
    docs = list(chain.from_iterable(qrels.values()))
    rels = list(chain.from_iterable(d.values() for d in qrels.values()))
    return pl.DataFrame({QUERY: queries, DOC: docs, REL: np.array(rels, dtype=np.int64)},
                        schema={QUERY: pl.String, DOC: pl.String, REL: pl.Int64})  # fmt: skip


def _run_frame(scores: dict, queries: frozenset) -> tuple[pl.DataFrame, list[str]]:
    """The run as a frame (``query, doc, score``) and the queries with qrels whose ranking is empty;
    ``TypeError`` (pytrec_eval's message) for what pytrec_eval refuses: keys that are not strings, rankings
    that are not dicts, scores that are not ints or floats."""
    if not all(isinstance(q, str) and isinstance(r, dict) for q, r in scores.items()):
        raise TypeError(_BAD_RUN)
    lens = [len(r) for r in scores.values()]
    empty = [q for q, n in zip(scores, lens, strict=True) if n == 0 and q in queries]
    try:
        docs = pl.Series(DOC, list(chain.from_iterable(scores.values())), dtype=pl.String, strict=True)
    except TypeError:
        raise TypeError(_BAD_RUN) from None
    values = np.array(list(chain.from_iterable(r.values() for r in scores.values())))
    if values.dtype.kind not in "biuf":
        values = _checked_scores(values)
    query = pl.Series(QUERY, list(scores), dtype=pl.String).gather(np.repeat(np.arange(len(lens)), lens))
    return pl.DataFrame([query, docs, pl.Series(SCORE, values.astype(np.float64, copy=False))]), empty


def _checked_scores(values: np.ndarray) -> np.ndarray:
    """Scores numpy could not type at once (huge ints, strings): ints and floats as doubles, else ``TypeError``."""
    out = np.empty(values.size, dtype=np.float64)
    for i, v in enumerate(values.tolist()):
        if not isinstance(v, int | float):
            raise TypeError(_BAD_RUN)
        out[i] = float(v)
    return out


def _stand_in(judged) -> str:
    """A document id ``judged`` (a query's judged documents) does not hold."""
    doc = _NOTHING_RETRIEVED
    while doc in judged:
        doc += "_"
    return doc


def _as_dicts(per_query: pl.DataFrame, bases: list[str]) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query dicts of an evaluation's per-query frame (``bases``: the request's measures,
    in trec_eval's table order)."""
    columns = [c for c in per_query.columns if c != QUERY]
    names: list[tuple[str, str | None]] = []  # (key, column or None for a zero)
    for base in bases:
        if base in _ZERO:
            names.append((base, None))
        elif base in _PER_CUTOFF:
            names.extend((c, c) for c in columns if base_of(c) == base)
        else:
            names.append((base, base))
    data = {c: per_query.get_column(c).to_list() for _, c in names if c is not None}
    out = {}
    for i, q in enumerate(per_query.get_column(QUERY).to_list()):
        out[q] = {key: (0.0 if c is None else data[c][i]) for key, c in names}
    return out

