"""pytrec_eval's readers of TREC files: ``parse_run`` and ``parse_qrel`` as ``{query: {doc: value}}`` dicts.

The semantics are pytrec_eval-terrier 0.5.11's (``pytrec_eval/__init__.py``): each line split at white
space with ``str.split()``, ``float(score)`` / ``int(rel)``, a document twice in a query an
``AssertionError``, a line of the wrong length a ``ValueError``; the dict is a ``defaultdict``, queries in
order of first appearance. A regular text file (ASCII, single spaces) is read by polars and gives the same
dict; anything else goes through the same line-by-line loop as pytrec_eval's. Used by
:mod:`trecrs.pytrec_eval`, the drop-in for pytrec_eval's interface.
"""

from __future__ import annotations

import codecs
import collections
import io
from collections.abc import Iterable

import numpy as np
import polars as pl


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
    out = (
        None
        if df is None
        else _nested(df.get_column("c0"), df.get_column("c2"), df.get_column(f"c{value}"), pattern, dtype)
    )
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
    out: collections.defaultdict[str, dict] = collections.defaultdict(dict)
    for q, a, b in zip(names, starts.tolist(), ends.tolist(), strict=True):
        out[q] = dict(zip(d[a:b], v[a:b], strict=True))
    return out if sum(map(len, out.values())) == frame.height else None


__all__ = ["parse_qrel", "parse_run"]
