"""Warm re-evaluation: what the first evaluation of two polars frames learned, kept for the next one.

Notebook work evaluates the same qrels and run frames again and again (``trecrs.read_qrels`` /
``trecrs.read_run`` once, then :func:`~trecrs.evaluate.api.evaluate` with other measures or flags). While
both frames live and stay unchanged, the first evaluation with the vectorized engine keeps: each frame
as read and checked (:func:`~trecrs.files.frames.as_polars`), the run tag, the pair encoded and prepared once
per score type (:class:`~trecrs.engines.vectorized.rank.Prepared`: trec_eval's order and each line's
relevance; C ``float`` for trec_eval 9.0.8, ``double`` for 10.0) and the pair's facts read from it
(:class:`~trecrs.evaluate.inputs.PairFacts`: queries, lines, top grades). A later evaluation checks its
own flags, gives its warnings and errors, ranks the prepared pair under its flags (``-l``, ``-J``, ``-M``,
``-c``, the tie mode) and computes its measures and tie report: the same result, warnings and errors as
reading the frames again.

A kept frame is used only when it is unchanged (otherwise it is read again):

* the same frame object (a weak reference: an entry goes when its frame goes), with the same column names,
  each column read (by :func:`~trecrs.files.trec.frame_sources`) with the same dtype;
* a string column: the same Arrow buffers (addresses, offsets, lengths, null counts; the Arrow C stream
  interface). The entry holds its export of them, so they stay allocated (nothing else can take their
  addresses) and unwritten: polars writes a buffer in place only when nothing else holds it, and otherwise
  writes a copy (``df[i, c] = v``, ``replace_column``, ``extend``, ``vstack(in_place=True)``,
  ``shrink_to_fit(in_place=True)``... all give new buffers: ``tests/evaluate/test_warm.py``);
* a numeric column (scores, grades, integer ids): the same values, compared bit for bit with a copy the
  entry keeps (8 bytes a line), since polars takes a numpy array, or a pandas frame's column, without
  copying it and its numbers may change behind polars' back;
* ``iter``, and an integer ``rank``: the same dtype (they are only cast, which cannot fail; trec_eval
  reads neither).

Not kept (read each time, as before): paths, pandas frames and dicts (converted anew by each call),
columns of other dtypes, other engines, recommender and ``Name(params)@k`` measures, user groups. Outside
the rule: a string column over memory written outside polars (an Arrow buffer made on a writable Python
buffer). At most :data:`MAX_PAIRS` pairs (about 2.5 bytes a run line each, plus the qrels as integers) and
:data:`MAX_FRAMES` frames are kept, the least recently used dropped first; a frame changed since keeps its
old columns' memory held until it is evaluated again or gone.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field, fields, is_dataclass

import numpy as np
import polars as pl

from ..engines import Computed, vectorized
from ..engines.vectorized.ties import unsupported as tie_unsupported
from ..errors import UsageError
from ..files.frames import as_polars, frame_sources
from ..files.trec import run_tag
from ..measures.request import MeasureRequest
from ..measures.ties import DEFAULT as DEFAULT_TIES
from ..ranges import REL_MAX
from ..schema import ITER, QRELS_SCHEMA, QUERY, RANK, RUN_SCHEMA
from .compute import compute_frames as compute_cold
from .finalize import QrelsTotals
from .inputs import Frames, PairFacts, check_pair, unwrap
from .settings import FIELDS, EvalSettings

MAX_FRAMES = 6  # frames kept (a run's numeric columns are copied: 8 bytes a line each)
MAX_PAIRS = 4  # prepared pairs kept (a 6M-line run: about 15 MB per score type)
# the settings this path applies, or that do not concern it (the caller's `plain` covers opr_average; no
# recommender measure: head_share; frames: engine_options, rel_info_format, results_format). A field added
# to EvalSettings later is computed by the frames path whenever it is not at its default, until added here.
_APPLIED = frozenset(
    {
        "relevance_level",
        "judged_only",
        "average_all",
        "depth",
        "trec_eval_version",
        "engine",
        "engine_options",
        "zscores",
        "num_docs_in_coll",
        "rel_info_format",
        "results_format",
        "opr_average",
        "head_share",
        "ties",
    }
)

_LOCK = threading.RLock()
_FRAMES: OrderedDict[tuple[int, str], _Frame] = OrderedDict()  # (id(frame), "qrels" | "run"), oldest first
_PAIRS: OrderedDict[tuple[int, int], _Pair] = OrderedDict()  # (id(qrels entry), id(run entry)), oldest first

# a run's rank is cast to Int64, which cannot fail from these; trec_eval never reads it
_SAFE_RANK = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32)
_NUMPY = (
    pl.Int8,
    pl.Int16,
    pl.Int32,
    pl.Int64,
    pl.UInt8,
    pl.UInt16,
    pl.UInt32,
    pl.UInt64,
    pl.Float32,
    pl.Float64,
)


def compute_frames(
    qrels, run, eng, request: MeasureRequest, settings: EvalSettings
) -> tuple[Computed, str, QrelsTotals] | None:
    """The frames path of :func:`~trecrs.evaluate.api.evaluate_full` for two polars frames and the vectorized
    engine, from the pair kept by an earlier call (or kept now): ``(computed, tag, totals)`` as
    :func:`~trecrs.evaluate.compute.compute_files` gives them. None when the pair is not kept (see the
    module): the caller reads the frames as before.

    What :func:`~trecrs.evaluate.inputs.read_frames` and :func:`~trecrs.evaluate.compute.compute_frames`
    give: the same checks, warnings and errors (:func:`~trecrs.evaluate.inputs.check_pair` on the kept
    facts); the evaluated queries' values, relstrings and tie report from the prepared pair under the flags
    (:func:`~trecrs.engines.vectorized.compute_prepared`, as the engine computes them on the frames); 10.0's
    ``-c`` stand-in rankings by the frames path itself (one line each).
    """
    if eng is not vectorized.ENGINE or not request.params or request.variants or request.extras:
        return None
    if not all(
        _at_default(getattr(settings, name), f.default) for name, f in FIELDS.items() if name not in _APPLIED
    ):
        return None
    qrels, run = unwrap(qrels), unwrap(run)
    if not (isinstance(qrels, pl.DataFrame) and isinstance(run, pl.DataFrame)):
        return None
    pair = _pair(qrels, run)
    if pair is None:
        return None
    p = pair.prepared(request.version.score_dtype)
    if settings.ties in ("best", "worst") and tie_unsupported(request, settings.ties, p.enc.qv):
        return None  # gains checked against the grades of the evaluated queries only: the frames path decides
    facts = pair.facts
    assert facts is not None  # set by the pair's first prepared()
    evaluated, missing = check_pair(facts, pair.qrels.checked, request, settings)
    computed = Computed(pl.DataFrame({QUERY: []}, schema={QUERY: pl.Utf8}))
    if evaluated:
        computed = _evaluated(p, request, settings)
    if missing:  # only the stand-in rankings, as the frames path computes them (cheap: one line each)
        later = settings.depth if settings.ties != DEFAULT_TIES else None
        f = Frames(
            pair.qrels.checked,
            pair.run.checked.clear(),
            pair.tag,
            [],
            missing,
            facts.totals,
            empty=settings.depth == 0 and later is None,
            depth=later,
        )
        stand_ins = compute_cold(f, eng, request, settings)
        parts = [computed.per_query] if evaluated else []
        computed.per_query = pl.concat([*parts, stand_ins.per_query], how="vertical_relaxed")
        computed.stand_in = missing
        computed.relstrings.update(stand_ins.relstrings)
    return computed, pair.tag, facts.totals


def _evaluated(p: vectorized.Prepared, request: MeasureRequest, settings: EvalSettings) -> Computed:
    """The evaluated queries' values (bytewise order), relstrings and tie report, as
    :func:`~trecrs.evaluate.compute.compute_frames` gets them from the engine on the frames: the run cut at
    ``depth`` (a tie mode cuts after ordering the tie groups), the report only in trec_eval's order and
    not at ``-M 0``."""
    ties, depth, judged_only = settings.ties, settings.depth, settings.judged_only
    out = vectorized.compute_prepared(
        p,
        request,
        relevance_level=settings.relevance_level,
        judged_only=judged_only,
        depth=depth,
        ties=ties,
        report_ties=depth != 0,
    )
    out.per_query = out.per_query.sort(QUERY)
    return out


def _at_default(value, default) -> bool:
    return value is default or (type(value) is type(default) and value == default)


def forget() -> None:
    """Drop everything kept (each entry also goes by itself when its frame goes)."""
    with _LOCK:
        _FRAMES.clear()
        _PAIRS.clear()


def kept() -> tuple[int, int]:
    """How many frames and pairs are kept."""
    with _LOCK:
        return len(_FRAMES), len(_PAIRS)


# --------------------------------------------------------------------------------------------- pairs


@dataclass(eq=False)
class _Pair:
    """What a qrels/run pair of frames gave, whatever the flags."""

    qrels: _Frame
    run: _Frame
    tag: str
    facts: PairFacts | None = None  # from the first prepared pair
    by_score: dict[str, vectorized.Prepared] = field(default_factory=dict)

    def prepared(self, score_dtype) -> vectorized.Prepared:
        """The pair encoded with scores as ``score_dtype`` and prepared (read only), made on first use."""
        key = np.dtype(score_dtype).str
        p = self.by_score.get(key)
        if p is None:
            enc = vectorized.encode(self.qrels.checked, self.run.checked, score_dtype=score_dtype)
            p = _read_only(vectorized.prepare(enc))
            self.by_score[key] = p
            if self.facts is None:
                self.facts = _read_only(_facts(p))
        return p


def _facts(p: vectorized.Prepared) -> PairFacts:
    """The :class:`~trecrs.evaluate.inputs.PairFacts` of a prepared pair (what
    :func:`~trecrs.evaluate.inputs.pair_facts` gives on its frames, read from the codes: no pass over ids).

    The query vocabulary holds every query of either frame in bytewise order; each run query is one block.
    """
    enc, b = p.enc, p.blocks
    n = len(enc.qvocab)
    in_run = np.zeros(n, dtype=bool)
    in_run[b.query] = True
    lines = np.zeros(n, dtype=np.int64)
    lines[b.query] = b.lens
    top = np.full(n, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(top, enc.qq, enc.qv)
    totals = QrelsTotals(int(p.judged_q.sum()), int((enc.qv > 0).sum()))
    return PairFacts(enc.qvocab.to_list(), p.judged_q.copy(), in_run, top, lines, totals)


def _read_only(obj):
    """``obj`` with every numpy array in it (dataclass fields, recursively) made read only: a prepared pair
    serves every later call, so a computation that wrote into it would raise rather than change them."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        elif is_dataclass(value):
            _read_only(value)
    return obj


def _pair(qrels: pl.DataFrame, run: pl.DataFrame) -> _Pair | None:
    """The kept pair of these frames (checked unchanged), else a new one kept; None if either is not kept."""
    plans = _plan(qrels, QRELS_SCHEMA, "qrels"), _plan(run, RUN_SCHEMA, "run")
    if plans[0] is None or plans[1] is None:
        return None
    q = _frame(qrels, QRELS_SCHEMA, "qrels", plans[0])
    r = _frame(run, RUN_SCHEMA, "run", plans[1])
    key = (id(q), id(r))
    with _LOCK:
        pair = _PAIRS.get(key)
        if pair is not None and pair.qrels is q and pair.run is r:
            _PAIRS.move_to_end(key)
            return pair
    pair = _Pair(q, r, run_tag(r.checked))
    with _LOCK:
        _PAIRS[key] = pair
        q.pairs.add(key)
        r.pairs.add(key)
        while len(_PAIRS) > MAX_PAIRS:
            old_key, old = _PAIRS.popitem(last=False)
            old.qrels.pairs.discard(old_key)
            old.run.pairs.discard(old_key)
    return pair


# --------------------------------------------------------------------------------------------- frames


@dataclass(eq=False)
class _Frame:
    """A frame as read and checked, and how to tell it is unchanged (see the module)."""

    ref: weakref.ref
    columns: tuple[str, ...]
    checks: tuple[_Column, ...]
    checked: pl.DataFrame  # as_polars's frame
    pairs: set = field(default_factory=set)  # keys of the kept pairs it is in

    def unchanged(self, frame: pl.DataFrame) -> bool:
        if self.ref() is not frame or tuple(frame.columns) != self.columns:
            return False
        return all(c.unchanged(frame.get_column(c.name)) for c in self.checks)


@dataclass(eq=False)
class _Column:
    """One column read from a frame: its dtype, and its buffers or a copy of its values (see the module)."""

    name: str
    dtype: pl.DataType
    held: _Export | None = None  # a string column's buffers, held
    values: np.ndarray | None = None  # a numeric column's values, copied

    def unchanged(self, s: pl.Series) -> bool:
        if s.dtype != self.dtype:
            return False
        if self.held is not None:
            now = _Export(s)
            same = now.key is not None and now.key == self.held.key
            now.release()
            return same
        if self.values is not None:
            return _same_values(s, self.values)
        return True


def _plan(frame: pl.DataFrame, schema: dict, what: str) -> dict[str, str] | None:
    """The column :func:`as_polars` reads for each field (:func:`frame_sources`) if the cache can tell they
    are unchanged (see the module), else None."""
    try:
        sources = frame_sources(frame.columns, schema, what)
    except UsageError:  # the frames path raises it
        return None
    for name, source in sources.items():
        dtype = frame.schema[source]
        if _cast_only(name, dtype) or dtype == pl.String:
            continue
        if dtype not in _NUMPY or frame.get_column(source).null_count():
            return None
    return sources


def _cast_only(name: str, dtype: pl.DataType) -> bool:
    """Whether a column of field ``name`` is only cast, and the cast cannot fail (``iter``; an integer rank)."""
    if name == ITER:
        return dtype == pl.String or dtype.is_numeric() or dtype == pl.Boolean
    return name == RANK and dtype in _SAFE_RANK


def _frame(frame: pl.DataFrame, schema: dict, what: str, sources: dict[str, str]) -> _Frame:
    """The kept entry of ``frame`` if it is unchanged, else a new one (read by :func:`as_polars`), kept."""
    key = (id(frame), what)
    with _LOCK:
        entry = _FRAMES.get(key)
    if entry is not None and entry.unchanged(frame):
        with _LOCK:
            if _FRAMES.get(key) is entry:
                _FRAMES.move_to_end(key)
        return entry
    checks = tuple(_column(name, frame.get_column(source)) for name, source in sources.items())
    checked = as_polars(frame, schema, what, max_rel=REL_MAX)  # errors as the frames path gives them
    entry = _Frame(weakref.ref(frame, functools.partial(_drop, key)), tuple(frame.columns), checks, checked)
    with _LOCK:
        old = _FRAMES.pop(key, None)
        if old is not None:
            _drop_pairs(old)
        _FRAMES[key] = entry
        while len(_FRAMES) > MAX_FRAMES:
            _drop_pairs(_FRAMES.popitem(last=False)[1])
    return entry


def _column(name: str, s: pl.Series) -> _Column:
    """What tells that column ``s`` (field ``name``) is unchanged: its dtype alone (:func:`_cast_only`), its
    buffers (strings) or its values (numbers)."""
    if _cast_only(name, s.dtype):
        return _Column(s.name, s.dtype)
    if s.dtype == pl.String:
        return _Column(s.name, s.dtype, held=_Export(s))
    return _Column(s.name, s.dtype, values=s.to_numpy().copy())


def _same_values(s: pl.Series, values: np.ndarray) -> bool:
    """Whether ``s`` holds ``values`` bit for bit (no nulls), compared chunk by chunk (no copy of ``s``)."""
    if values is None or s.len() != values.size or s.null_count():
        return False
    at = 0
    for chunk in s.get_chunks():
        v = chunk.to_numpy()
        kept = values[at : at + v.size]
        if v.dtype != kept.dtype or not np.array_equal(v.view(f"u{v.itemsize}"), kept.view(f"u{v.itemsize}")):
            return False
        at += v.size
    return True


def _drop(key: tuple[int, str], ref: weakref.ref) -> None:
    """A frame is gone: its entry and the pairs it is in go too."""
    with _LOCK:
        entry = _FRAMES.get(key)
        if entry is not None and entry.ref is ref:
            del _FRAMES[key]
            _drop_pairs(entry)


def _drop_pairs(entry: _Frame) -> None:
    for key in list(entry.pairs):
        _PAIRS.pop(key, None)
    entry.pairs.clear()


# --------------------------------------------------------------------------------------------- buffers


class _Export:
    """A string column's chunks exported through the Arrow C stream interface, and where their buffers are.

    ``key``: per chunk, the length, offset, null count and buffer addresses (None: a layout not known here,
    never equal). The export is held until :meth:`release` (or until it is collected), so its buffers stay
    allocated: an address in ``key`` cannot be taken by other data meanwhile, and an export that copied the
    column would give new addresses next time, never the same ones.
    """

    def __init__(self, s: pl.Series) -> None:
        self.arrays: list = []
        self.key = None
        try:
            self.key = _export(s, self.arrays)
        except (AttributeError, OSError, ValueError):  # no C stream interface: the column is not kept
            self.key = None

    def release(self) -> None:
        while self.arrays:
            array = self.arrays.pop()
            if array.release:
                array.release(array)  # ctypes passes a structure by reference where a pointer is expected

    def __del__(self) -> None:
        self.release()


def _export(s: pl.Series, arrays: list) -> tuple | None:
    """:class:`_Export`'s key of ``s``; each exported chunk appended to ``arrays`` (to be released)."""
    import ctypes

    c = _c_structs()
    capsule = s.__arrow_c_stream__()
    stream = c.Stream.from_address(c.capsule_pointer(capsule, b"arrow_array_stream"))
    schema = c.Schema()
    if stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) != 0:
        return None
    fmt = schema.format
    schema.release(ctypes.byref(schema))
    # a view array's last buffer (the sizes of its data buffers) is made for each export: not the data
    extra = {b"vu": 1, b"u": 0, b"U": 0}.get(fmt)
    chunks = []
    while True:
        array = c.Array()
        if stream.get_next(ctypes.byref(stream), ctypes.byref(array)) != 0:
            return None
        if not array.release:
            break
        arrays.append(array)
        if extra is None or array.n_children or array.dictionary:
            return None
        buffers = tuple(array.buffers[i] for i in range(array.n_buffers - extra))
        chunks.append((array.length, array.offset, array.null_count, buffers))
    del capsule  # releases the stream (not the arrays taken from it)
    return fmt, tuple(chunks)


def _c_structs():
    """The Arrow C data interface structs (arrow.apache.org/docs/format/CDataInterface.html), made once."""
    global _C
    if _C is None:
        import ctypes

        class Schema(ctypes.Structure):
            pass

        Schema._fields_ = [
            ("format", ctypes.c_char_p),
            ("name", ctypes.c_char_p),
            ("metadata", ctypes.c_void_p),
            ("flags", ctypes.c_int64),
            ("n_children", ctypes.c_int64),
            ("children", ctypes.POINTER(ctypes.POINTER(Schema))),
            ("dictionary", ctypes.POINTER(Schema)),
            ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(Schema))),
            ("private_data", ctypes.c_void_p),
        ]

        class Array(ctypes.Structure):
            pass

        Array._fields_ = [
            ("length", ctypes.c_int64),
            ("null_count", ctypes.c_int64),
            ("offset", ctypes.c_int64),
            ("n_buffers", ctypes.c_int64),
            ("n_children", ctypes.c_int64),
            ("buffers", ctypes.POINTER(ctypes.c_void_p)),
            ("children", ctypes.POINTER(ctypes.POINTER(Array))),
            ("dictionary", ctypes.POINTER(Array)),
            ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(Array))),
            ("private_data", ctypes.c_void_p),
        ]

        class Stream(ctypes.Structure):
            pass

        Stream._fields_ = [
            ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Stream), ctypes.POINTER(Schema))),
            ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Stream), ctypes.POINTER(Array))),
            ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(Stream))),
            ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(Stream))),
            ("private_data", ctypes.c_void_p),
        ]

        capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        capsule_pointer.restype = ctypes.c_void_p
        capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        _C = _CStructs(Schema, Array, Stream, capsule_pointer)
    return _C


@dataclass(frozen=True)
class _CStructs:
    Schema: type
    Array: type
    Stream: type
    capsule_pointer: object


_C: _CStructs | None = None
