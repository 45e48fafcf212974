"""Column roles and the header names recognised for them: the one table every reader and frame uses.

A table read by trecrs (ratings, scores, top-N lists, qrels or runs given as frames) has columns with
*roles*: ``user``, ``item``, ``rating``, ``timestamp``, ``score``, ``rank``, ``query``, ``doc``, ``rel``.
Without a mapping, a header name (or a frame's column name) takes the role whose :data:`HEADER_NAMES`
list holds it, compared by :func:`header_key`: without regard to case, surrounding quotes or a RecBole
type suffix (``user_id:token`` is ``user_id``, ``score:float`` is ``score``). Each role lists its names
best first; the first name present wins.

A column mapping names the column of each role explicitly: ``{"user": "userId", "item": 2}`` or, as
typed on the command line, ``user=userId,item=2``; or the role of each column in order,
``user,item,_,rating`` (``_`` skips a column). **Positions count from 1** everywhere, in Python as on
the command line (as ``cut -f`` and awk's ``$1``); internally they become 0-based indices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import InputError, UsageError
from ..schema import DOC, ITEM, QUERY, RANK, RATING, REL, SCORE, TIMESTAMP, USER

#: Header names per role, best first, as :func:`header_key` gives them (lower case, no type suffix).
HEADER_NAMES: dict[str, tuple[str, ...]] = {
    USER: ("user", "userid", "user_id", "uid", "u", "users"),
    ITEM: ("item", "itemid", "item_id", "movieid", "movie_id", "iid", "i", "items"),
    RATING: ("rating", "ratings", "score", "stars", "value", "r"),
    TIMESTAMP: ("timestamp", "time", "ts", "datetime", "date", "t"),
    SCORE: (
        "score",
        "prediction",
        "predictions",
        "pred",
        "predicted",
        "predicted_rating",
        "rating",
        "value",
        "scores",
    ),
    RANK: ("rank", "ranking", "position", "pos"),
    QUERY: ("query", "qid", "query_id", "queryid", "topic", "user", "userid", "user_id", "uid"),
    DOC: (
        "doc",
        "docno",
        "doc_id",
        "docid",
        "did",
        "item",
        "itemid",
        "item_id",
        "movieid",
        "movie_id",
        "iid",
    ),
    REL: ("rel", "relevance", "label", "judgment", "judgement", "grade", "rating"),
}

SKIP = ("_", "-", "")  # the role of a column a positional mapping leaves out

#: A column mapping as given (see :func:`normalise_columns`); None: the header names decide.
ColumnsArg = str | Mapping[str, str | int | None] | Sequence[str | None] | None


def header_key(name: str) -> str:
    """The form header names are compared in: stripped, unquoted, lower case, without a ``:type`` suffix."""
    key = str(name).strip().strip('"').strip()
    if ":" in key:  # RecBole atomic files name columns "field:type" (user_id:token, rating:float)
        key = key.split(":", 1)[0]
    return key.lower()


def find_roles(
    names: Sequence[str],
    roles: Sequence[str],
    required: Sequence[str],
    *,
    path=None,
    what: str = "the header",
    mapping_hint: str = "",
) -> dict[str, str]:
    """Role -> column name of ``names`` (a header or a frame's columns) by :data:`HEADER_NAMES`.

    Each column serves one role at most (roles are matched in ``roles`` order). A required role no name
    matches is an :class:`~trecrs.errors.InputError` that lists the names and says how to map them.
    """
    by_key: dict[str, str] = {}
    for n in names:
        by_key.setdefault(header_key(n), n)
    found: dict[str, str] = {}
    for role in roles:
        hit = next(
            (by_key[k] for k in HEADER_NAMES[role] if k in by_key and by_key[k] not in found.values()), None
        )
        if hit is not None:
            found[role] = hit
    missing = [r for r in required if r not in found]
    if missing:
        hint = mapping_hint or "give a column mapping (" + ",".join(f"{r}=COLUMN" for r in required) + ")"
        raise InputError(
            path, None, f"missing column(s) {', '.join(missing)}: {what} has {list(names)}; {hint}"
        )
    return found


def normalise_columns(
    columns: ColumnsArg, roles: Sequence[str], required: Sequence[str], *, what: str = "column"
) -> dict[str, str | int] | None:
    """A user's column mapping as role -> header name or 0-based index; None for None.

    ``columns``: a mapping role -> name or 1-based position (an int, or digits as typed), a sequence giving
    the role of each column in order (``_`` skips one), or the command-line text of either
    (:func:`parse_columns`).
    """
    if columns is None:
        return None
    return _mapping(columns, roles, required, what)


def _mapping(
    columns: object, roles: Sequence[str], required: Sequence[str], what: str
) -> dict[str, str | int]:
    """:func:`normalise_columns` of ``columns`` other than None."""
    if isinstance(columns, str):
        return parse_columns(columns, roles, required, what=what)
    out: dict[str, str | int] = {}
    if isinstance(columns, Mapping):
        for role, col in columns.items():
            _check_role(role, roles, what)
            if col is None or col == "":
                continue
            out[role] = _position(role, col) if isinstance(col, int) or str(col).isdigit() else col
    elif isinstance(columns, Sequence):
        for pos, role in enumerate(columns):
            if role in SKIP or role is None:
                continue
            _check_role(role, roles, what)
            if role in out:
                raise UsageError(f"{what} role {role!r} given twice")
            out[role] = pos
    else:
        raise UsageError(f"columns must be a mapping role -> column or a list of roles, got {columns!r}")
    missing = [r for r in required if r not in out]
    if missing:
        raise UsageError(
            f"the column mapping lacks {', '.join(missing)} ({', '.join(required)} are required)"
        )
    return out


def parse_columns(
    spec: str, roles: Sequence[str], required: Sequence[str], *, what: str = "column"
) -> dict[str, str | int]:
    """Parse a command-line column mapping: ``user=userId,item=movieId,score=3`` (header names, or
    positions counted from 1), or the role of each column in order, ``user,item,_,score``."""
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if parts and all("=" in p for p in parts):
        return _mapping(dict(p.split("=", 1) for p in parts), roles, required, what)
    if any("=" in p for p in parts):
        raise UsageError(f"columns {spec!r}: use either role=column pairs or a list of roles, not both")
    return _mapping(parts, roles, required, what)


def _check_role(role, roles: Sequence[str], what: str) -> None:
    if role not in roles:
        raise UsageError(
            f"unknown {what} role {role!r}; roles are {', '.join(roles)} (or _ to skip a column)"
        )


def _position(role: str, col) -> int:
    """A 1-based position as typed -> the 0-based index."""
    pos = int(col)
    if pos < 1:
        raise UsageError(f"column {role}={col}: positions count from 1 (the first column is 1)")
    return pos - 1
