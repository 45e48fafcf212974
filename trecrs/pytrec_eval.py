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

import codecs
import collections
import io
import operator
import re
import warnings
from collections.abc import Iterable, Mapping
from itertools import chain

import numpy as np
import polars as pl

from .engines.vectorized import Encoded, compute_encoded
from .measures.request import parse_measures
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
    ``parse_run``: six fields split at white space, else ``ValueError``; ``float(score)``; a doc twice in a
    query is an ``AssertionError``). A regular text file is parsed by polars (:func:`_regular_columns`)."""
    fast = _regular_columns(f_run, 6, 4, _DECIMAL, pl.Float64)
    if fast is not None:
        return fast
    run: dict[str, dict[str, float]] = collections.defaultdict(dict)
    for line in f_run:
        query_id, _, object_id, _, score, _ = line.strip().split()
        assert object_id not in run[query_id]
        run[query_id][object_id] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """``{query: {doc: rel}}`` (a ``defaultdict``) of the lines ``query 0 doc rel`` (pytrec_eval's ``parse_qrel``:
    four fields split at white space, else ``ValueError``; ``int(rel)``; a doc twice in a query is an
    ``AssertionError``). A regular text file is parsed by polars (:func:`_regular_columns`)."""
    fast = _regular_columns(f_qrel, 4, 3, _INTEGER, pl.Int64)
    if fast is not None:
        return fast
    qrel: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for line in f_qrel:
        query_id, _, object_id, relevance = line.strip().split()
        assert object_id not in qrel[query_id]
        qrel[query_id][object_id] = int(relevance)
    return qrel


# what float() / int() read exactly as polars' casts do (both round a decimal correctly)
_DECIMAL = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"
_INTEGER = r"^[+-]?[0-9]+$"
# characters str.split() splits at besides the space and the line end (ASCII): a text holding one is left
# to the line-by-line parser
_OTHER_WHITESPACE = b"\t\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _regular_columns(lines, fields: int, value: int, pattern: str, dtype) -> dict | None:
    """pytrec_eval's parse of a seekable text file, by polars, when the rest of the file is regular: ASCII,
    single spaces between fields and no other white space but line ends, ``fields`` fields a line, values
    that ``pattern`` matches, no (query, doc) twice, at least one line. Else None, with the file where it was,
    for the line-by-line parser (which raises pytrec_eval's errors where it would).

    On such a text ``line.strip().split()`` is the split at single spaces, and ``float``/``int`` read
    what polars' casts read; the dict is built query by query, queries in order of first appearance and
    each query's docs in file order, as the line-by-line parser inserts them.
    """
    if not isinstance(lines, io.TextIOBase) or not lines.seekable():
        return None
    try:
        start = lines.tell()
    except OSError:  # a text file being iterated (next()) cannot tell where it is
        return None
    data = _rest(lines, start)
    df = None if data is None else _split_regular(data, fields)
    out = None if df is None else _nested(df.get_column("c0"), df.get_column("c2"), df.get_column(f"c{value}"),
                                          pattern, dtype)  # fmt: skip
    if out is None:
        lines.seek(start)  # for the line-by-line parser
    else:
        lines.seek(0, io.SEEK_END)  # where the line-by-line parser leaves it
    return out


# encodings that read ASCII bytes as the same characters, one byte each: an ASCII file opened with one
# is read as bytes, not decoded to be encoded again
_ASCII_READERS = frozenset({"ascii", "utf-8", "iso8859-1", "cp1252"})


def _rest(lines: io.TextIOBase, start) -> bytes | None:
    """The rest of a text file from ``start`` (its position) as bytes, or None if it is not ASCII."""
    if isinstance(lines, io.TextIOWrapper) and codecs.lookup(lines.encoding).name in _ASCII_READERS:
        lines.buffer.seek(start)  # these decoders hold no state between lines: the position is a byte offset
        data = lines.buffer.read()
        return data if data.isascii() else None
    text = lines.read()
    return text.encode("ascii") if text.isascii() else None


def _split_regular(data: bytes, fields: int) -> pl.DataFrame | None:
    """The lines of ``data`` (ASCII) split at single spaces (``fields`` string columns ``c0``...), or None
    when the text is not regular (:func:`_regular_columns`).

    White space other than spaces and line ends is looked for first; polars then refuses a line with more
    fields (two spaces in a row, a space at either end of a line make an empty one), reads an empty or
    missing field as null, and skips a blank line, which the count of lines reveals.
    """
    if not data or any(c in data for c in _OTHER_WHITESPACE):
        return None
    schema = {f"c{i}": pl.String for i in range(fields)}
    try:
        df = pl.read_csv(data, has_header=False, separator=" ", quote_char=None, schema=schema)
    except pl.exceptions.PolarsError:
        return None
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    return None if df.height != lines or df.null_count().sum_horizontal().item() else df


def _shared_strings(ids: pl.Series) -> list[str]:
    """``ids.to_list()`` with one string object per distinct id: a catalogue's items repeat in every
    ranking, and each object is made, and hashed when inserted in a dict, once instead of once a line."""
    vocab = ids.unique()
    objects = np.array(vocab.to_list(), dtype=object)
    return objects[ids.cast(pl.Enum(vocab)).to_physical().to_numpy()].tolist()


def _nested(queries: pl.Series, docs: pl.Series, values: pl.Series, pattern: str, dtype) -> dict | None:
    """``defaultdict`` ``{query: {doc: value}}`` of three columns, or None when a value does not match
    ``pattern`` or does not fit ``dtype``, or a (query, doc) repeats."""
    if not values.str.contains(pattern).all():
        return None
    try:
        values = values.cast(dtype)
    except pl.exceptions.PolarsError:
        return None
    frame = pl.DataFrame({"q": queries, "d": docs, "v": values})
    runs = queries.rle()
    if runs.len() != queries.n_unique():  # a query in several runs of lines: grouped, first appearance first
        frame = frame.with_row_index("i").with_columns(pl.col("i").min().over("q").alias("f"))
        frame = frame.sort("f", maintain_order=True)
        runs = frame.get_column("q").rle()
    lens = runs.struct.field("len").to_numpy()
    ends = np.cumsum(lens)
    starts = ends - lens
    names = runs.struct.field("value").to_list()
    d, v = _shared_strings(frame.get_column("d")), frame.get_column("v").to_list()
    out = collections.defaultdict(dict)
    for q, a, b in zip(names, starts.tolist(), ends.tolist(), strict=True):
        out[q] = dict(zip(d[a:b], v[a:b], strict=True))
    return out if sum(map(len, out.values())) == frame.height else None


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
        values = self._values(ranked, self._judged_only) if ranked else {}
        # an empty ranking: trec_eval's values for no document, those of -J when nothing retrieved is judged
        empty = {q: {_stand_in(judged[q]): 0.0} for q in order if not scores[q]}
        if empty:
            values.update(self._values(empty, True))
        return {q: values[q] for q in order}

    def _values(self, run: dict, judged_only: bool) -> dict[str, dict[str, float]]:
        """``{query: {name: value}}`` of ``run`` (queries with qrels, rankings not empty) by the vectorized engine."""
        enc = self._qrels.encoded(run)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # trecrs's notes (cutoffs read as C's atol reads them): pytrec_eval has none
            computed = compute_encoded(enc, self._request, relevance_level=self._level, judged_only=judged_only)
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
        self.rels = np.fromiter(chain.from_iterable(d.values() for d in qrels.values()), dtype=np.int64,
                                count=len(self.docs))  # fmt: skip

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
            scores = pl.Series(SCORE, list(chain.from_iterable(r.values() for r in run.values())), dtype=pl.Float64)
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
            dcode=np.fromiter(map(dcode.__getitem__, chain.from_iterable(run.values())), dtype=np.int32,
                              count=scores.len()),  # fmt: skip
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
        if q not in judged and not all(isinstance(d, str) and isinstance(v, int | float) for d, v in r.items()):
            raise TypeError(_BAD_RUN)


def _stand_in(judged) -> str:
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

