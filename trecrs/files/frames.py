"""In-memory inputs as TREC frames: a path, a polars or pandas DataFrame, or a dict of dicts (pytrec_eval's and
ranx's layout) becomes the qrels or run frame of :mod:`.trec`'s readers, checked the same way."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import polars as pl

from ..errors import InputError, UsageError
from ..ranges import REL_MAX
from ..schema import DOC, ITER, QUERY, RANK, REL, SCORE, TAG
from .columns import find_roles
from .trec import _check_duplicates as check_duplicates
from .trec import check_relevance, read_qrels, read_run

if TYPE_CHECKING:
    from polars._typing import PolarsDataType


def as_polars(
    data: object, schema: Mapping[str, PolarsDataType], what: str, *, max_rel: int = REL_MAX
) -> pl.DataFrame:
    """Accept a path, a polars or pandas DataFrame, or a dict of dicts; return a polars frame with ``schema``.

    * a path is read by :func:`read_qrels` / :func:`read_run`;
    * a frame's columns take their roles by name (:func:`~trecrs.files.columns.find_roles`: ``qid``,
      ``user``, ``userId`` are the query; ``docno``, ``item``, ``movieId`` the document; ``relevance``,
      ``label`` the qrels value; ``prediction`` the run score);
    * ``{query: {doc: rel}}`` / ``{query: {doc: score}}`` (pytrec_eval's input, ranx's ``to_dict()``), or any
      object whose ``to_dict()`` returns that.

    Ids become strings (``7`` -> ``"7"``). Missing optional columns are filled (``iter`` "0"/"Q0",
    ``rank`` by order, ``tag`` "trecrs"). Qrels relevance must be at most ``max_rel`` (see :func:`read_qrels`).

    >>> from trecrs.schema import QRELS_SCHEMA
    >>> as_polars({"u1": {"i1": 1, 2: 0}}, QRELS_SCHEMA, "qrels").rows()
    [('u1', '0', 'i1', 1), ('u1', '0', '2', 0)]
    """
    if isinstance(data, str | os.PathLike):
        return read_qrels(data, max_rel=max_rel) if what == "qrels" else read_run(data)
    value = REL if what == "qrels" else SCORE
    data = _as_frame(data, what, value)
    sources = frame_sources(data.columns, schema, what)
    fill = {ITER: pl.lit("0" if what == "qrels" else "Q0"), RANK: pl.lit(0), TAG: pl.lit("trecrs")}
    cols = [
        (pl.col(sources[name]) if name in sources else fill[name]).cast(dtype).alias(name)
        for name, dtype in schema.items()
    ]
    _check_values(data, sources[value], what)
    try:
        out = data.select(cols)
    except pl.exceptions.PolarsError as exc:
        raise InputError(
            None,
            None,
            f"{what} DataFrame: a column does not hold the values of its role ({str(exc).splitlines()[0]})",
        ) from None
    if what == "qrels" and out.select(pl.col(REL).is_null().any()).item():
        raise InputError(None, None, "qrels DataFrame has missing relevance values")
    if what == "qrels":
        check_relevance(out, None, max_rel=max_rel)
    check_duplicates(out, None, what)
    return out


def frame_sources(columns: list[str], schema: Mapping[str, PolarsDataType], what: str) -> dict[str, str]:
    """The column of a frame (with ``columns``) that each field of ``schema`` is read from by
    :func:`as_polars`: query, document, value (and a run's rank) by role, the others by their own name;
    a field without one is filled. :class:`UsageError` when a role is missing or ambiguous."""
    value = REL if what == "qrels" else SCORE
    roles = (QUERY, DOC, value) if what == "qrels" else (QUERY, DOC, value, RANK)
    found = find_roles(
        columns,
        roles,
        (QUERY, DOC, value),
        what=f"the {what} DataFrame",
        mapping_hint=f"name them {QUERY}, {DOC}, {value} (or qid, docno, ...)",
    )
    return {name: found.get(name, name) for name in schema if found.get(name, name) in columns}


def _as_frame(data: Any, what: str, value: str) -> pl.DataFrame:
    """A polars frame of a polars/pandas frame, a dict of dicts or an object with ``to_dict()``."""
    if isinstance(data, pl.DataFrame):
        return data
    if not isinstance(data, Mapping) and callable(getattr(data, "to_dict", None)) and not _is_pandas(data):
        data = data.to_dict()
    if isinstance(data, Mapping):
        return _from_nested(data, what, value)
    if _is_pandas(data):
        return pl.from_pandas(data)
    raise UsageError(
        f"{what}: expected a path, a polars/pandas DataFrame or a dict {{query: {{doc: {value}}}}}, "
        f"got {type(data).__name__}"
    )


def _is_pandas(data: object) -> bool:
    return type(data).__module__.split(".")[0] == "pandas"


def _from_nested(data: Mapping, what: str, value: str) -> pl.DataFrame:
    """``{query: {doc: value}}`` as rows ``query, doc, value`` (ids as strings, in the dict's order)."""
    queries, docs, values = [], [], []
    for q, ranking in data.items():
        if not isinstance(ranking, Mapping):
            raise UsageError(
                f"{what} dict: query {q!r} maps to {type(ranking).__name__}, expected a dict {{doc: {value}}}"
            )
        for d, v in ranking.items():
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise InputError(
                    None, None, f"{what} dict: query {q!r}, doc {d!r}: {value} {v!r} is not a number"
                )
            queries.append(str(q))
            docs.append(str(d))
            values.append(v)
    dtype = pl.Int64 if what == "qrels" and all(float(v).is_integer() for v in values) else pl.Float64
    return pl.DataFrame(
        {QUERY: queries, DOC: docs, value: values},
        schema={QUERY: pl.Utf8, DOC: pl.Utf8, value: dtype},
        strict=False,
    )


def _check_values(data: pl.DataFrame, column: str, what: str) -> None:
    """NaN or missing scores, and fractional or missing relevance values, are errors naming the column."""
    col = data.get_column(column)
    if col.dtype.is_float() and (col.is_nan().any() or col.is_null().any()):
        raise InputError(None, None, f"{what} DataFrame has NaN or missing values in column {column!r}")
    if what == "run" and col.is_null().any():
        raise InputError(None, None, f"run DataFrame has NaN or missing scores in column {column!r}")
    if what == "qrels" and col.dtype.is_float() and not (col == col.round(0)).all():
        raise InputError(
            None, None, f"qrels DataFrame: relevance values in column {column!r} must be integers"
        )
