"""Score files and top-N lists in the layouts recommenders write: the format registry, detection, headers.

Each layout is a :class:`ScoreFormat` in :data:`FORMATS`; its reader turns a file into the *raw table*
of a score file: ``lineno`` (null for Parquet) and the text of each role found, ``user``, ``item`` and
``score`` and/or ``rank`` (strings, exactly as written). :mod:`trecrs.files.scores` checks the values.

=========  ================================================  ================================================
name       layout                                            written by
=========  ================================================  ================================================
whitespace ``user item score``, runs of blanks                trecrs, many scripts (``.txt``, anything else)
csv        ``user,item,score[,rank]``, a header or not        LensKit, MS Recommenders (``.csv``)
tsv        ``user<TAB>item<TAB>score``, a header or not       RecBole ``user_id:token  item_id:token ...``
jsonl      one JSON object a line: ``{"user": .., "item": .., "score": ..}`` or a top-N list
           ``{"user": ID, "items": [ID, ...]}`` (best first)
trec       a TREC run ``query iter doc rank score tag``      trec_eval's input (user=query, item=doc; the
                                                             rank field is ignored, as trec_eval ignores it)
parquet    columns by name                                   pandas, polars, Spark
=========  ================================================  ================================================

Detection (:func:`detect_format`): the extension first (``.csv``, ``.tsv``, ``.txt``, ``.jsonl``/
``.ndjson``, ``.parquet``, and ``.gz`` of the text ones); else the first content line: ``{`` -> jsonl, a
tab -> tsv, a comma -> csv, six blank-separated fields whose 4th is an integer and 5th a number -> trec,
else whitespace.

Headers: a first line is a header when a field where a number is expected (the score or rank column) is
not a number. Its names take roles by the one table :data:`trecrs.files.columns.HEADER_NAMES` (so
``userID,itemID,prediction`` and ``user_id:token`` are recognised); ``columns=`` maps them otherwise
(``{"user": "uid", "item": 2, "score": "p"}``, positions counted from 1). CSV fields lose their
surrounding double quotes; a quoted field holding the separator (``"a,b"``) is refused, not parsed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import polars as pl

from ..errors import InputError, UsageError
from ..schema import ITEM, RANK, SCORE, USER
from .columns import HEADER_NAMES, find_roles, header_key, normalise_columns
from .lines import LINE, LINENO, describe, read_lines, split_fields
from .parquet import parquet_columns, read_parquet
from .ratings_format import first_content_line, is_number

PathLike = str | os.PathLike

ROLES: tuple[str, ...] = (USER, ITEM, SCORE, RANK)
REQUIRED: tuple[str, ...] = (USER, ITEM)
VALUE_ROLES: tuple[str, ...] = (SCORE, RANK)
#: How to map columns by hand; ``user=COL`` names no command-line option, so the text reads the same in
#: Python and on the command line (where the mapping is ``--score-columns``).
MAPPING_HINT = (
    "map the columns with --score-columns (Python: the columns argument) user=COL,item=COL,score=COL "
    "or rank=COL, COL a header name or a position from 1"
)

_FIELDS = "fields"
_SKIP = "_"


@dataclass(frozen=True)
class ScoreFormat:
    """A score-file layout: how to split a line (``separator``: None = runs of blanks), the role of each
    position when there is no header (``positional``; ``_`` skips a field; ``positional_ranks`` with
    ``kind="rank"``, empty when the layout has no rank to take), and how to read the file."""

    name: str
    extensions: tuple[str, ...]
    separator: str | None
    read: Callable[..., pl.DataFrame]
    positional: tuple[str, ...] = ()
    positional_ranks: tuple[str, ...] = ()
    layout: str = ""


FORMATS: dict[str, ScoreFormat] = {}


def register(fmt: ScoreFormat) -> ScoreFormat:
    """Add ``fmt`` to :data:`FORMATS` (a name may be registered once)."""
    if fmt.name in FORMATS or fmt.name == "auto":
        raise ValueError(f"score format {fmt.name!r} registered twice")
    FORMATS[fmt.name] = fmt
    return fmt


# --------------------------------------------------------------------------------------------- mapping


def normalise_score_columns(columns) -> dict[str, str | int] | None:
    """A column mapping for score files (role -> header name or 0-based index), or None.

    Roles: ``user``, ``item``, ``score``, ``rank``; user and item are required (and, but for JSON top-N
    lists, score or rank: checked by the reader)."""
    try:
        return normalise_columns(columns, ROLES, REQUIRED, what="score column")
    except UsageError as exc:
        raise UsageError(str(exc), arguments=["columns"]) from None


def value_role(present, kind: str | None, path=None, line=None) -> str:
    """The role that ranks: ``kind`` if given (``score``/``rank``), else score if present, else rank."""
    present = [r for r in VALUE_ROLES if r in present]
    if kind is None:
        if not present:
            raise InputError(path, line, f"no score or rank column; {MAPPING_HINT}")
        return present[0]
    if kind not in present:
        raise InputError(path, line, f"no {kind} column; {MAPPING_HINT}")
    return kind


def roles_of_names(names, mapping, *, path=None, line=None, what="the header", lists=False) -> dict[str, int]:
    """Role -> 0-based index into ``names`` (a header, a frame's or a Parquet file's columns).

    ``mapping`` (normalised) names columns by name or position; without one, :data:`HEADER_NAMES` decide.
    ``lists``: a top-N list (JSON ``items``) needs no score or rank.
    """
    names = list(names)
    if mapping is None:
        found = find_roles(names, ROLES, (), path=path, what=what)
        missing = [r for r in REQUIRED if r not in found]
        if not missing and not lists and not any(r in found for r in VALUE_ROLES):
            missing = [SCORE]
        if missing:
            extra = " (or 'rank')" if missing == [SCORE] else ""
            raise InputError(
                path, line, f"{what} lacks column(s) {missing}{extra} (it has {names}); {MAPPING_HINT}"
            )
        return {role: names.index(col) for role, col in found.items()}
    keys = [header_key(n) for n in names]
    out: dict[str, int] = {}
    for role, col in mapping.items():
        if isinstance(col, int):
            if col >= len(names):
                raise InputError(
                    path,
                    line,
                    f"column {role}={col + 1} is beyond the {len(names)} columns of {what} {names}",
                )
            out[role] = col
        elif header_key(col) in keys:
            out[role] = keys.index(header_key(col))
        else:
            raise InputError(path, line, f"column {role}={col!r} is not in {what} {names}")
    return out


# --------------------------------------------------------------------------------------------- detection


def _suffix(path: PathLike) -> str:
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return Path(name).suffix


def _looks_trec(line: str) -> bool:
    f = line.split()
    return len(f) == 6 and f[3].lstrip("+-").isdigit() and is_number(f[4])


def detect_format(path: PathLike) -> ScoreFormat:
    """The :class:`ScoreFormat` of ``path``: by extension, else by its first content line."""
    ext = _suffix(path)
    if str(path).lower().endswith(".parquet"):
        return FORMATS["parquet"]
    for fmt in FORMATS.values():
        if ext and ext in fmt.extensions:
            return fmt
    line = first_content_line(path)
    if line is None:
        raise InputError(path, None, "no content lines (only blank or # comment lines)")
    if line.startswith("{"):
        return FORMATS["jsonl"]
    if "\t" in line:
        return FORMATS["tsv"]
    if "," in line:
        return FORMATS["csv"]
    return FORMATS["trec"] if _looks_trec(line) else FORMATS["whitespace"]


def score_format(path: PathLike, fmt: str | ScoreFormat = "auto") -> ScoreFormat:
    """``fmt`` by name (a :data:`FORMATS` key), or detected for ``"auto"``."""
    if isinstance(fmt, ScoreFormat):
        return fmt
    if fmt == "auto":
        return detect_format(path)
    if fmt not in FORMATS:
        raise UsageError(
            f"unknown score file format {fmt!r}; choose from auto, {', '.join(FORMATS)}", arguments=["fmt"]
        )
    return FORMATS[fmt]


def read_raw(
    path: PathLike,
    *,
    fmt: str | ScoreFormat = "auto",
    kind: str | None = None,
    columns=None,
    extra_fields: bool = False,
) -> tuple[pl.DataFrame, ScoreFormat]:
    """The raw table of a score file (``lineno`` and the text of each role found) and its format.

    ``extra_fields``: a headerless line may have more fields than its layout's (prediction files)."""
    spec = score_format(path, fmt)
    mapping = normalise_score_columns(columns)
    return spec.read(path, spec, kind=kind, mapping=mapping, extra_fields=extra_fields), spec


# --------------------------------------------------------------------------------------------- delimited text


def _split(lines: pl.DataFrame, sep: str | None, path: PathLike) -> tuple[pl.DataFrame, bool]:
    """``fields`` of each line: runs of blanks, or ``sep`` with blanks and double quotes around a field
    removed. A field opening a quote it does not close held the separator: refused, not guessed.

    The second value says whether the blanks around each field are still to be stripped: when no line
    holds a double quote, only the fields taken are stripped (:func:`_taken`), not every field of every
    line, which costs several times the split on a long file; the values are the same.
    """
    if sep is None:
        single = ~pl.col(LINE).str.contains(r"\s\s|[^\S ]").any()  # one space between fields everywhere
        if lines.select(single).item():
            return lines.with_columns(pl.col(LINE).str.split(" ").alias(_FIELDS)), False
        return split_fields(lines), False
    if not lines.select(pl.col(LINE).str.contains('"', literal=True).any()).item():
        return lines.with_columns(pl.col(LINE).str.split(sep).alias(_FIELDS)), True
    fields = pl.col(LINE).str.split(sep).list.eval(pl.element().str.strip_chars())
    lines = lines.with_columns(fields.alias(_FIELDS))
    el = pl.element()
    torn = el.str.starts_with('"') & ~(el.str.ends_with('"') & (el.str.len_chars() >= 2))
    torn = torn | (el.str.ends_with('"') & ~el.str.starts_with('"'))
    bad = lines.filter(pl.col(_FIELDS).list.eval(torn).list.any())
    if bad.height:
        row = bad.row(0, named=True)
        raise InputError(
            path,
            row[LINENO],
            f"a quoted field holding the separator {sep!r} is not supported "
            f"(remove the separator from ids, or write the file with another one): "
            f"{describe(row[LINE])!r}",
        )
    return lines.with_columns(pl.col(_FIELDS).list.eval(el.str.strip_chars('"'))), False


def _taken(k: int, strip: bool) -> pl.Expr:
    """Field ``k`` of each line, its blanks stripped when :func:`_split` left them."""
    field = pl.col(_FIELDS).list.get(k)
    return field.str.strip_chars() if strip else field


_KNOWN_NAMES = frozenset(n for names in HEADER_NAMES.values() for n in names)


def has_header(first: list[str], spec: ScoreFormat, kind: str | None, mapping) -> bool:
    """A first line is a header when a field where a number is expected is not a number (with a mapping
    by names, always). ``1 2 high`` is a bad score, not a header: a header has a known name, or some
    other field that is not a number either."""
    if mapping is not None and any(isinstance(c, str) for c in mapping.values()):
        return True
    if mapping is not None:
        where = [mapping[r] for r in VALUE_ROLES if r in mapping]
    else:
        roles = _positional(spec, kind)
        where = [k for k, r in enumerate(roles) if r in VALUE_ROLES]
    fields = [f.strip('"') for f in first]
    if not any(k < len(fields) for k in where):
        return not any(is_number(f) for f in fields)
    if all(k >= len(fields) or is_number(fields[k]) for k in where):
        return False
    named = any(header_key(f) in _KNOWN_NAMES for f in fields)
    return named or not all(is_number(f) for k, f in enumerate(fields) if k not in where)


def _positional(spec: ScoreFormat, kind: str | None) -> tuple[str, ...]:
    """The roles of a headerless file's fields: ``user item score`` (``rank`` with ``kind="rank"``)."""
    return spec.positional_ranks if kind == RANK else spec.positional


def positional_roles(spec: ScoreFormat, kind: str | None) -> dict[str, int]:
    """Role -> position of the fields of a headerless line (:func:`_positional`, the skipped ones left out)."""
    names = _positional(spec, kind) or spec.positional
    return {r: k for k, r in enumerate(names) if r != _SKIP}


def read_delimited(
    path: PathLike, spec: ScoreFormat, *, kind: str | None, mapping, extra_fields: bool = False
) -> pl.DataFrame:
    """The raw table of a delimited text file (whitespace, csv, tsv, trec)."""
    lines, strip = _split(read_lines(path), spec.separator, path)
    first = lines.head(1).with_columns(pl.col(_FIELDS).list.eval(pl.element().str.strip_chars()))
    head = (first if strip else lines).row(0, named=True)
    if has_header(head[_FIELDS], spec, kind, mapping):
        roles = roles_of_names(head[_FIELDS], mapping, path=path, line=head[LINENO])
        lines = lines.slice(1)
        if lines.height == 0:
            raise InputError(path, None, "no scores after the header line")
        count, layout = len(head[_FIELDS]), f"as the header: {' '.join(head[_FIELDS])}"
        exact = True
    elif mapping is not None:
        roles = dict(mapping)
        count, layout, exact = max(roles.values()) + 1, "the column mapping's", False
    else:
        names = _positional(spec, kind) or spec.positional
        roles = positional_roles(spec, kind)
        layout = spec.layout if spec.positional_ranks != names else " ".join(names)
        count, exact = len(names), not extra_fields
    _check_counts(lines, path, count, layout, exact)
    value_role(roles, kind, path, head[LINENO])
    return lines.select(pl.col(LINENO), *[_taken(k, strip).alias(r) for r, k in roles.items()])


def _check_counts(lines: pl.DataFrame, path: PathLike, count: int, layout: str, exact: bool) -> None:
    n = pl.col(_FIELDS).list.len()
    bad = lines.filter(n != count if exact else n < count)
    if bad.height:
        row = bad.row(0, named=True)
        raise InputError(
            path,
            row[LINENO],
            f"expected {'' if exact else 'at least '}{count} fields ({layout}), "
            f"found {len(row[_FIELDS])}: {describe(row[LINE])!r}",
        )


# --------------------------------------------------------------------------------------------- JSON lines


class _JsonNumber(str):
    """A JSON number kept as the text written: a score keeps its digits, an id is refused unless integer."""


class _JsonFloat(_JsonNumber):
    pass


def _json_id(value, path, lineno: int, role: str) -> str:
    if isinstance(value, str) and not isinstance(value, _JsonFloat) and value != "":
        return str(value)
    shown = str(value) if isinstance(value, _JsonNumber) else json.dumps(value)
    raise InputError(path, lineno, f"the {role} id must be a JSON string or integer, found {shown}")


def _json_object(line: str, path, lineno: int) -> dict:
    try:
        obj = json.loads(line, parse_int=_JsonNumber, parse_float=_JsonFloat, parse_constant=_JsonFloat)
    except json.JSONDecodeError as exc:
        raise InputError(path, lineno, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise InputError(
            path,
            lineno,
            'expected a JSON object {"user": ..., "items": [...]} or '
            '{"user": ..., "item": ..., "score": ...}',
        )
    return obj


def read_jsonl(
    path: PathLike, spec: ScoreFormat, *, kind: str | None, mapping, extra_fields: bool = False
) -> pl.DataFrame:
    """The raw table of JSON lines: records ``{"user", "item", "score"|"rank"}``, or top-N lists
    ``{"user": ID, "items": [ID, ...]}`` best first (each item's rank is its position, from 1)."""
    if mapping is not None and any(isinstance(c, int) for c in mapping.values()):
        raise UsageError(
            "JSON lines name their fields: map them by name (user=KEY,...), not by position",
            arguments=["columns"],
        )
    lines = read_lines(path)
    out: dict[str, list] = {LINENO: [], USER: [], ITEM: [], SCORE: [], RANK: []}
    known: dict[tuple, dict[str, str]] = {}
    for lineno, line in lines.select(LINENO, LINE).iter_rows():
        obj = _json_object(line, path, lineno)
        keys = tuple(obj)
        if keys not in known:  # the roles of each distinct key set, looked up once
            found = roles_of_names(keys, mapping, path=path, line=lineno, what="the object", lists=True)
            known[keys] = {r: keys[k] for r, k in found.items()}
        roles = known[keys]
        user, items = _json_id(obj[roles[USER]], path, lineno, USER), obj[roles[ITEM]]
        if isinstance(items, list):
            _add_list(out, items, user, path, lineno)
        else:
            score, rank = (obj[roles[r]] if r in roles else None for r in VALUE_ROLES)
            _add_record(out, lineno, user, _json_id(items, path, lineno, ITEM), score, rank, path)
    present = [r for r in VALUE_ROLES if any(v is not None for v in out[r])]
    frame = pl.DataFrame(
        out, schema={LINENO: pl.UInt32, USER: pl.Utf8, ITEM: pl.Utf8, SCORE: pl.Utf8, RANK: pl.Utf8}
    )
    value_role(present, kind, path)
    return frame.select(LINENO, USER, ITEM, *present)


def _add_list(out: dict, items: list, user: str, path, lineno: int) -> None:
    for pos, item in enumerate(items, start=1):
        out[LINENO].append(lineno)
        out[USER].append(user)
        out[ITEM].append(_json_id(item, path, lineno, ITEM))
        out[SCORE].append(None)
        out[RANK].append(str(pos))


def _add_record(out: dict, lineno: int, user: str, item: str, score, rank, path) -> None:
    for name, value in ((SCORE, score), (RANK, rank)):
        if value is not None and not isinstance(value, str):
            raise InputError(path, lineno, f"the {name} must be a JSON number, found {json.dumps(value)}")
    out[LINENO].append(lineno)
    out[USER].append(user)
    out[ITEM].append(item)
    out[SCORE].append(None if score is None else str(score))
    out[RANK].append(None if rank is None else str(rank))


# --------------------------------------------------------------------------------------------- Parquet


def read_parquet_scores(
    path: PathLike, spec: ScoreFormat, *, kind: str | None, mapping, extra_fields: bool = False
) -> pl.DataFrame:
    """The raw table of a Parquet file: columns by name (:data:`HEADER_NAMES`) or by ``columns=``."""
    names = parquet_columns(path)
    roles = roles_of_names(names, mapping, path=path, what="scores Parquet file")
    value_role(roles, kind, path)
    raw = read_parquet(path, {names[k]: pl.Utf8 for k in roles.values()}, what="scores")
    return raw.select(
        pl.lit(None, dtype=pl.UInt32).alias(LINENO), *[pl.col(names[k]).alias(r) for r, k in roles.items()]
    )


# --------------------------------------------------------------------------------------------- the registry


class _Positions(TypedDict):
    """The fields of a :class:`ScoreFormat` that say what each position of a headerless line holds."""

    positional: tuple[str, ...]
    positional_ranks: tuple[str, ...]
    layout: str


_TRIPLE: _Positions = {
    "positional": (USER, ITEM, SCORE),
    "positional_ranks": (USER, ITEM, RANK),
    "layout": "user item score",
}
register(ScoreFormat("whitespace", (".txt",), None, read_delimited, **_TRIPLE))
register(ScoreFormat("csv", (".csv",), ",", read_delimited, **_TRIPLE))
register(ScoreFormat("tsv", (".tsv",), "\t", read_delimited, **_TRIPLE))
register(ScoreFormat("jsonl", (".jsonl", ".ndjson"), None, read_jsonl))
# trec_eval ignores a run's rank field, and so does a score file in this layout
register(
    ScoreFormat(
        "trec",
        (),
        None,
        read_delimited,
        positional=(USER, _SKIP, ITEM, _SKIP, SCORE, _SKIP),
        layout="query iter doc rank score tag",
    )
)
register(ScoreFormat("parquet", (".parquet",), None, read_parquet_scores))
