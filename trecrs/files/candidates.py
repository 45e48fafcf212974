"""Reading and writing candidate files (``query user item``) and item catalogues."""

from __future__ import annotations

import itertools
import os
import re

import polars as pl

from ..errors import InputError, UsageError
from ..schema import CANDIDATES_SCHEMA, ITEM, QUERY, USER
from .lines import (
    LINE,
    LINENO,
    _open_bytes,
    content_lines,
    first_duplicate,
    read_lines,
    split_fields,
    take_fields,
    utf8_or_each_line,
)
from .output import write_chunks
from .parquet import is_parquet, read_parquet

PathLike = str | os.PathLike

# First fields of a catalogue's header line (compared in lower case).
_ITEM_HEADERS = {"item", "itemid", "item_id", "movieid", "movie_id", "id"}
# A catalogue line up to its first separator, included (and its leading blanks: columns stay right).
_FIRST_FIELD = re.compile(rb"[ \t\x0b\x0c\r]*.*?(?:\t|\||::|,| |\r?$)", re.S)


def _ids_only(data: bytes) -> bytes:
    """``data`` with the text after the first field of each line that is not UTF-8 replaced by ``x``.

    Only ids are read from a catalogue: titles are never used, so MovieLens 100K ``u.item`` and 1M
    ``movies.dat``, which are Latin-1, read as they are, while an id must be UTF-8 like any other text.
    Lines that are UTF-8 are kept as they are.
    """

    def fix(line: bytes) -> bytes:
        try:
            line.decode("utf-8")
            return line
        except UnicodeDecodeError:
            found = _FIRST_FIELD.match(line)
            assert found is not None  # the pattern matches every line: its field may end at the line's end
            head = found.group()
            return head if head == line else head + b"x"

    return utf8_or_each_line(data, fix)


def read_items(path: PathLike) -> pl.Series:
    """Read an item catalogue: the first field of each line (tab, ``|``, ``::``, ``,`` or space separated).

    Covers a plain id list, MovieLens ``u.item`` (``|``), ``movies.dat`` (``::``) and ``movies.csv``
    (``,``). A first line whose first field is a column name (``item``, ``itemId``, ``movieId``,
    ``item_id``, ``movie_id``, ``id``; any case) is a header and skipped. Parquet: column ``item`` (nulls
    skipped). Repeated ids count once; the order is the file's. Ids must be UTF-8 without NUL; the rest
    of each line is not read.
    """
    if is_parquet(path):
        df = read_parquet(path, {ITEM: pl.Utf8}, what="item catalogue", not_null=())
        return df.get_column(ITEM).drop_nulls().unique(maintain_order=True)
    lines = content_lines(_ids_only(_open_bytes(path)), path)
    first = pl.col(LINE).str.extract(r"^(.*?)(?:\t|\||::|,| |$)", 1)
    df = lines.with_columns(first.alias(ITEM))
    bad = df.filter(pl.col(ITEM).is_null() | (pl.col(ITEM) == ""))
    if bad.height:
        raise InputError(path, bad.item(0, LINENO), f"no item id at the start of {bad.item(0, LINE)!r}")
    if df.item(0, ITEM).lower() in _ITEM_HEADERS:
        df = df.slice(1)
    return df.get_column(ITEM).unique(maintain_order=True)


def as_items(data) -> pl.Series:
    """An item catalogue given as a path (:func:`read_items`) or a sequence of ids (a list, a numpy array, a
    polars or pandas Series): the ids as strings, each once, in the order given. An empty one is an error."""
    if isinstance(data, str | os.PathLike):
        items = read_items(data)
    elif isinstance(data, pl.Series):
        items = data.cast(pl.Utf8).drop_nulls().unique(maintain_order=True)
    else:
        items = pl.Series(ITEM, [str(i) for i in data], dtype=pl.Utf8).unique(maintain_order=True)
    if items.len() == 0:
        raise UsageError("the item catalogue is empty", arguments=["items"])
    return items.alias(ITEM)


def write_candidates(cands, path: PathLike) -> dict:
    """Write ``query<TAB>user<TAB>item`` lines chunk by chunk, atomically (Parquet with those columns for
    ``*.parquet``); returns the counts.

    ``cands``: a candidate set (its ``chunks()`` frames ``query, user, item``; ``info`` filled as they go).
    """
    empty = pl.DataFrame(schema=CANDIDATES_SCHEMA)  # the columns of a Parquet file, even without a row
    write_chunks(itertools.chain([empty], cands.chunks()), path, separator="\t")
    return cands.info


def read_candidates(path: PathLike) -> pl.DataFrame:
    """Read a candidates file ``query user item`` (whitespace separated; Parquet with columns ``query``,
    ``user``, ``item`` for ``*.parquet``, ids read as strings) into ``schema.CANDIDATES_SCHEMA``.

    An item listed twice for one query is an error naming the second line or row (and the first).
    """
    if is_parquet(path):
        return read_parquet(path, CANDIDATES_SCHEMA, what="candidates", unique=[QUERY, ITEM])
    df = take_fields(split_fields(read_lines(path)), path, [QUERY, USER, ITEM], "query user item")
    dup = first_duplicate(df, [QUERY, ITEM])
    if dup is not None:
        first, second = dup
        raise InputError(
            path,
            second[LINENO],
            f"candidate item {second[ITEM]!r} listed twice for query "
            f"{second[QUERY]!r} (first seen on line {first[LINENO]})",
        )
    return df.select(list(CANDIDATES_SCHEMA))
