"""pytrec_eval's interface on trecrs's engine: ``from trecrs import pytrec_eval`` in place of ``import pytrec_eval``.

The names of pytrec_eval-terrier 0.5.11 (``RelevanceEvaluator``, ``parse_qrel``, ``parse_run``,
``compute_aggregated_measure``, ``supported_measures``, ``supported_nicknames``) with the same arguments
and the same results: ``evaluate(run)`` returns ``{query: {name: float}}`` with the keys, values (the same
C doubles: trec_eval 9.0.8's arithmetic, reproduced by the vectorized engine) and order pytrec_eval gives,
and raises the exceptions pytrec_eval raises for the inputs it refuses. The dicts are encoded for the
vectorized engine directly (:func:`trecrs.engines.vectorized.compute_encoded`); pytrec_eval is not imported.

The rules reproduced (pytrec_eval's ``__init__.py`` and ``pytrec_eval.cpp``, trec_eval 9.0.8 inside):

* measures: nicknames expanded; ``P_5``, ``P.5``, ``P.5,10`` merged per measure, their parameters as a
  set of strings joined in string order (as pytrec_eval passes them to trec_eval); parameters of a
  measure without any ignored; an unknown name is a ``ValueError``; an empty set gives an empty dict per
  query;
* ``relevance_level`` is trec_eval's ``-l`` (at least 1), ``judged_docs_only_flag`` its ``-J``; no ``-M``
  (every document counts), no ``-c`` (qrels queries without a ranking are left out);
* qrels queries judged nothing are dropped; run queries without qrels are left out; the queries come in
  the run's order, each measure's values in trec_eval's table order, cutoff measures under their printed
  names (``P_5``, ``iprec_at_recall_0.10``), the others under the measure's name (``ndcg``, ``set_F``);
  ``runid`` and ``relstring`` are 0.0 and ``num_q`` is 1.0 for each query, as pytrec_eval returns them;
* the qrels are read once, when the evaluator is made; ``evaluate`` may be called any number of times.

Where pytrec_eval's answer is undefined, trec_eval's: a query whose ranking is empty (``{}``) gets the
values trec_eval computes for a ranking of no document (those of ``-J`` when nothing retrieved is
judged), where pytrec_eval's depend on the queries evaluated before it in the same call (zeros, or a
crash, when none retrieved anything); ``runid`` alone is 0.0 (pytrec_eval reads an empty buffer).
Details and the differential test: docs/engines.md.
"""

from __future__ import annotations

import operator
import re
import warnings
from collections.abc import Container, Iterable, Mapping
from itertools import chain

import numpy as np
import polars as pl

from .engines.vectorized import Encoded, compute_encoded
from .files.nested import parse_qrel, parse_run
from .measures.request import MeasureRequest, parse_measures
from .measures.trec_eval import BY_NAME, DOUBLE_CUTOFFS, LONG_CUTOFFS, NICKNAMES, NO_PARAMS, ORDER, base_of
from .ordering import c_floats
from .schema import DOC, QUERY, SCORE

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
_PER_CUTOFF = frozenset(m.name for m in BY_NAME.values() if m.params in (LONG_CUTOFFS, DOUBLE_CUTOFFS)) - {
    "11pt_avg"
}
_ZERO = ("runid", "relstring")  # no value of their own: pytrec_eval returns the zeroed slot

# the messages of pytrec_eval's C extension, kept as they are: code may match them
_BAD_ARGUMENTS = "Expected object_relevance_per_qid dictionary and measures set."
_BAD_RUN = "Unable to extract query/object scores."
_C_INT = (-(2**31), 2**31 - 1)

# a document id no qrels line of the query judges: the one document of an empty ranking under -J
_NOTHING_RETRIEVED = "trecrs: nothing retrieved"


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
                (
                    m
                    for m in (re.match(_PARAMETERS.format(re.escape(s)), measure) for s in supported_measures)
                    if m
                ),
                None,
            )
            if match is None:
                raise ValueError(f"unsupported measure {measure}")
            base = match.group(0)[: match.start(1) - 1]
            params.setdefault(base, set()).update(match.group(1).split(","))
        else:
            params.setdefault(measure, set())
    return {f"{m}.{','.join(sorted(p))}" if p else m for m, p in params.items()}


def _engine_specs(specs: set[str]) -> tuple[list[str], set[str]]:
    """The measures of ``specs`` (:func:`trec_eval_measures`) as trecrs's request takes them, and those
    pytrec_eval answers 0.0 for: trec_eval ignores parameters given to a measure without any
    (``map.5`` is ``map``); ``utility`` with other than four coefficients returns UNDEF from
    ``m_utility.c``, leaving the zeroed value."""
    out, zeros = [], set()
    for spec in sorted(specs):
        base, _, params = spec.partition(".")
        if base == "utility" and params and len(params.split(",")) != 4:
            zeros.add(base)
        else:
            out.append(base if BY_NAME[base].params == NO_PARAMS else spec)
    return out, zeros


def _c_int(value: int) -> int:
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

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        specs = trec_eval_measures(measures)
        query_relevance = {q: docs for q, docs in query_relevance.items() if len(docs) > 0}
        level, judged = _c_int(relevance_level), _c_int(judged_docs_only_flag)
        if level < 1:
            raise TypeError("Argument relevance_level should be positive.")
        engine_specs, zeros = _engine_specs(specs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # trecrs's notes on cutoffs read as C's atol reads them
            self._request = parse_measures(engine_specs) if engine_specs else None
        self._names = sorted({*zeros, *(self._request.names if self._request else ())}, key=ORDER.__getitem__)
        self._zeros = zeros | set(_ZERO)
        self._level, self._judged_only = level, bool(judged)
        self._qrels = _Qrels(query_relevance)

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """``{query: {name: value}}`` for each query of ``scores`` (``{query: {doc: score}}``) that has qrels,
        in the order of ``scores``; ``{}`` for an empty run. ``TypeError``: not a dict, or ids that are not
        strings, scores that are not numbers."""
        if not scores:
            return {}
        if not isinstance(scores, dict):
            raise TypeError("Argument object scores should be of type dictionary.")
        judged = self._qrels.judged
        _check_run(scores, judged)
        order = [q for q in scores if q in judged]
        if not order or self._request is None:
            return {q: dict.fromkeys(self._names, 0.0) for q in order}
        ranked = {q: scores[q] for q in order if scores[q]}
        values = self._values(self._request, ranked, self._judged_only) if ranked else {}
        # an empty ranking: trec_eval's values for no document, those of -J when nothing retrieved is judged
        empty = {q: {_stand_in(judged[q]): 0.0} for q in order if not scores[q]}
        if empty:
            values.update(self._values(self._request, empty, True))
        return {q: values[q] for q in order}

    def _values(self, request: MeasureRequest, run: dict, judged_only: bool) -> dict[str, dict[str, float]]:
        """``{query: {name: value}}`` of ``run`` (queries with qrels, rankings not empty) by the vectorized engine."""
        enc = self._qrels.encoded(run)
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # trecrs's notes (cutoffs read as C's atol reads them): pytrec_eval has none
            computed = compute_encoded(enc, request, relevance_level=self._level, judged_only=judged_only)
        return _as_dicts(computed.per_query, self._names, self._zeros)


class _Qrels:
    """The qrels as pytrec_eval holds them: checked and copied once (``TypeError``, its messages)."""

    def __init__(self, qrels: dict) -> None:
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
        self.judged = {q: frozenset(docs) for q, docs in qrels.items()}
        self.queries = list(chain.from_iterable([q] * len(docs) for q, docs in qrels.items()))
        self.docs = list(chain.from_iterable(qrels.values()))
        self.doc_set = frozenset(self.docs)
        self.rels = np.fromiter(
            chain.from_iterable(d.values() for d in qrels.values()), dtype=np.int64, count=len(self.docs)
        )

    def encoded(self, run: dict) -> Encoded:
        """The qrels and ``run`` (``{query: {doc: score}}``, queries with qrels) as the engine's integers
        (:class:`~trecrs.engines.vectorized.Encoded`: ids as their ranks in the bytewise-sorted
        vocabularies, scores as C floats); ``TypeError`` for doc ids that are not strings, scores that are
        not numbers.

        The doc ids are coded through a dict: they are keys of the run's dicts, so their hashes are
        computed already, and no string column a line long is made.
        """
        docs = self.doc_set.union(*run.values())
        if not all(isinstance(d, str) for d in docs):
            raise TypeError(_BAD_RUN)
        try:
            scores = pl.Series(
                SCORE, list(chain.from_iterable(r.values() for r in run.values())), dtype=pl.Float64
            )
        except TypeError:
            raise TypeError(_BAD_RUN) from None
        if scores.null_count():
            raise TypeError(_BAD_RUN)
        qvocab = pl.Series(QUERY, list(self.judged.keys() | run.keys()), dtype=pl.String).sort()
        dvocab = pl.Series(DOC, list(docs), dtype=pl.String).sort()
        qcode, dcode = _codes(qvocab), _codes(dvocab)
        lens = np.fromiter(map(len, run.values()), dtype=np.int64, count=len(run))
        return Encoded(
            qvocab=qvocab,
            dvocab=dvocab,
            qq=np.fromiter(map(qcode.__getitem__, self.queries), dtype=np.int32, count=len(self.queries)),
            qd=np.fromiter(map(dcode.__getitem__, self.docs), dtype=np.int32, count=len(self.docs)),
            qv=self.rels,
            qcode=np.repeat(np.fromiter(map(qcode.__getitem__, run), dtype=np.int32, count=len(run)), lens),
            dcode=np.fromiter(
                map(dcode.__getitem__, chain.from_iterable(run.values())), dtype=np.int32, count=scores.len()
            ),
            s32=c_floats(scores),
        )


def _codes(vocab: pl.Series) -> dict[str, int]:
    """Each id of a sorted vocabulary and its rank there (its code)."""
    return dict(zip(vocab.to_list(), range(vocab.len()), strict=True))


def _check_run(scores: dict, judged: dict) -> None:
    """``TypeError`` (pytrec_eval's message) for what pytrec_eval refuses: ids that are not strings,
    rankings that are not dicts, scores that are neither ints nor floats (those of queries with qrels are
    checked as they are encoded)."""
    if not all(isinstance(q, str) and isinstance(r, dict) for q, r in scores.items()):
        raise TypeError(_BAD_RUN)
    for q, r in scores.items():
        if q not in judged and not all(
            isinstance(d, str) and isinstance(v, int | float) for d, v in r.items()
        ):
            raise TypeError(_BAD_RUN)


def _stand_in(judged: Container[str]) -> str:
    """A document id ``judged`` (a query's judged documents) does not hold."""
    doc = _NOTHING_RETRIEVED
    while doc in judged:
        doc += "_"
    return doc


def _as_dicts(per_query: pl.DataFrame, bases: list[str], zeros: set[str]) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query dicts of an evaluation's per-query frame (``bases``: the measures, in
    trec_eval's table order; ``zeros``: those pytrec_eval answers 0.0 for)."""
    columns = [c for c in per_query.columns if c != QUERY]
    names: list[tuple[str, str | None]] = []  # (key, column or None for a zero)
    for base in bases:
        if base in zeros:
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
