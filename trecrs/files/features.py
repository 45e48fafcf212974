"""Item categories and user groups: the readers of ``--item-features`` and ``--user-groups``.

:func:`read_item_features` gives ``item, category`` (:data:`~trecrs.schema.ITEM_FEATURES_SCHEMA`), one row
per pair, in the file's order; an item may have several categories, and an item without any has no row.
Layouts (:data:`ITEM_FEATURE_LAYOUTS`), detected from the file name, then from the first content line:

==========  =====================================================  =========================================
name        layout                                                 files
==========  =====================================================  =========================================
ml100k      ``item|title|date|video date|url|f1|...|f19``          MovieLens 100K ``u.item`` (19 genre flags,
                                                                   named as in ``u.genre``)
ml1m        ``item::title::Genre|Genre``                           MovieLens 1M / 10M ``movies.dat``
mlcsv       header ``movieId,title,genres``, ``Genre|Genre``       MovieLens 20M / 25M / 32M ``movies.csv``
text        ``item<TAB>cat|cat|...`` or ``item,cat`` (long form)   anything else; an optional header line
parquet     columns ``item`` and ``category`` (one row per pair)   ``*.parquet``
==========  =====================================================  =========================================

In the ``text`` layout the separator is a tab when the first content line holds one, else a comma; the
second field holds one category or several joined by ``|``, and an item may be on several lines (the long
form). MovieLens' ``(no genres listed)`` means no category. MovieLens 100K and 1M are Latin-1: their titles
are never read, so a title that is not UTF-8 is accepted; ids and categories must be UTF-8.

:func:`read_user_groups` gives ``user, group`` (:data:`~trecrs.schema.USER_GROUPS_SCHEMA`), one row per user:
``user<TAB>group`` or ``user,group`` (optional header), Parquet ``user, group``, or MovieLens' ``u.user``
(``user|age|gender|occupation|zip``) and ``users.dat`` (``user::gender::age::occupation::zip``) grouped by
``group_by`` (``gender``, ``age`` or ``occupation``; the values as the file writes them: 100K's ages in
years, 1M's age and occupation codes).

Strict, as every reader: a line with the wrong number of fields, an empty id or category, a genre flag other
than 0 or 1, an (item, category) pair or a user listed twice raises :class:`~trecrs.errors.InputError`
naming the file, the line (the row of a Parquet file) and the reason.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import polars as pl

from ..errors import InputError, UsageError
from ..schema import CATEGORY, GROUP, ITEM, ITEM_FEATURES_SCHEMA, USER, USER_GROUPS_SCHEMA
from .columns import HEADER_NAMES, header_key
from .lines import (
    LINE,
    LINENO,
    Check,
    _open_bytes,
    content_lines,
    describe,
    first_duplicate,
    raise_first,
    utf8_or_each_line,
)
from .parquet import is_parquet, parquet_columns, read_parquet

PathLike = str | os.PathLike

#: MovieLens 100K's genres, in the order of ``u.item``'s 19 flags (``u.genre``).
ML100K_GENRES: tuple[str, ...] = (
    "unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime", "Documentary", "Drama",
    "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi", "Thriller", "War", "Western",
)  # fmt: skip
NO_GENRES = "(no genres listed)"
CATEGORY_HEADERS = ("category", "categories", "genre", "genres", "cat", "feature", "features", "tag", "tags")
GROUP_HEADERS = ("group", "groups", "label", "class", "segment")
GROUP_BY = ("gender", "age", "occupation")
# the field of each group_by in MovieLens' user files
_USER_FIELDS = {
    "ml100k": {"age": 1, "gender": 2, "occupation": 3},
    "ml1m": {"gender": 1, "age": 2, "occupation": 3},
}
_FIELDS = "fields"
_CATS = "_cats"


def _base_name(path: PathLike) -> str:
    name = Path(path).name
    return name[:-3] if name.endswith(".gz") else name


def _masked(data: bytes, sep: bytes, read: Callable[[int, int], bool]) -> bytes:
    """``data`` with every field that is not read (``read(index, count)`` false) and is not UTF-8 replaced
    by ``x``: MovieLens' Latin-1 titles pass, a bad byte in an id or a category is still an error."""

    def fix(line: bytes) -> bytes:
        fields = line.split(sep)
        return sep.join(f if read(k, len(fields)) or _utf8(f) else b"x" for k, f in enumerate(fields))

    return utf8_or_each_line(data, fix)


def _utf8(field: bytes) -> bool:
    try:
        field.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _split(sep: str) -> pl.Expr:
    return pl.col(LINE).str.split(sep).list.eval(pl.element().str.strip_chars()).alias(_FIELDS)


def _field_count(path: PathLike, n: int, layout: str, *, at_least: bool = False) -> Check:
    count = pl.col(_FIELDS).list.len()
    word = "at least " if at_least else ""

    def error(r: dict) -> InputError:
        return InputError(
            path,
            r[LINENO],
            f"expected {word}{n} fields ({layout}), found {len(r[_FIELDS])}: {describe(r[LINE])!r}",
        )

    return (count < n) if at_least else (count != n), error


def _is_header(fields: list[str], first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    return len(fields) >= 2 and header_key(fields[0]) in first and header_key(fields[1]) in second


# --------------------------------------------------------------------------------------------- item features


def _ml100k_items(path: PathLike) -> pl.DataFrame:
    n = 5 + len(ML100K_GENRES)
    lines = content_lines(_masked(_open_bytes(path), b"|", lambda k, c: k == 0 or k >= 5), path)
    lines = lines.with_columns(_split("|"))
    flags = [pl.col(_FIELDS).list.get(5 + j, null_on_oob=True) for j in range(len(ML100K_GENRES))]
    bad_flag = pl.any_horizontal([~f.is_in(["0", "1"]) for f in flags])

    def flag_error(r: dict) -> InputError:
        return InputError(path, r[LINENO], f"genre flags must be 0 or 1: {describe(r[LINE])!r}")

    raise_first(
        lines,
        [
            _field_count(path, n, "u.item: item|title|date|video date|url and 19 genre flags"),
            (bad_flag, flag_error),
        ],
    )
    cats = pl.concat_list(
        [pl.when(f == "1").then(pl.lit(g)) for f, g in zip(flags, ML100K_GENRES, strict=True)]
    )
    return lines.select(
        LINENO, LINE, pl.col(_FIELDS).list.first().alias(ITEM), cats.list.drop_nulls().alias(_CATS)
    )


def _genre_list(text: pl.Expr) -> pl.Expr:
    """``Genre|Genre`` as a list; MovieLens' ``(no genres listed)`` as none."""
    return pl.when(text == NO_GENRES).then(pl.lit([], dtype=pl.List(pl.Utf8))).otherwise(text.str.split("|"))


def _ml1m_items(path: PathLike) -> pl.DataFrame:
    lines = content_lines(_masked(_open_bytes(path), b"::", lambda k, c: k in (0, c - 1)), path)
    lines = lines.with_columns(_split("::"))
    raise_first(lines, [_field_count(path, 3, "movies.dat: item::title::Genre|Genre")])
    return lines.select(
        LINENO,
        LINE,
        pl.col(_FIELDS).list.first().alias(ITEM),
        _genre_list(pl.col(_FIELDS).list.last()).alias(_CATS),
    )


def _mlcsv_items(path: PathLike) -> pl.DataFrame:
    """``movieId,title,genres``: the title may hold commas (quoted), the genres never do."""
    lines = content_lines(_open_bytes(path), path).slice(1)  # the header line, checked by the detection
    parts = pl.col(LINE).str.extract_groups(r"^([^,]*),(.*),([^,]*)$")
    lines = lines.with_columns(parts.alias("_p"))
    no_parts = pl.col("_p").struct.field("1").is_null()

    def error(r: dict) -> InputError:
        return InputError(
            path, r[LINENO], f"expected 3 fields (movies.csv: movieId,title,genres): {describe(r[LINE])!r}"
        )

    raise_first(lines, [(no_parts, error)])
    return lines.select(
        LINENO,
        LINE,
        pl.col("_p").struct.field("1").str.strip_chars('" ').alias(ITEM),
        _genre_list(pl.col("_p").struct.field("3").str.strip_chars('" ')).alias(_CATS),
    )


def _text_items(path: PathLike) -> pl.DataFrame:
    lines = content_lines(_open_bytes(path), path)
    sep = "\t" if "\t" in lines.item(0, LINE) else ","
    lines = lines.with_columns(_split(sep).list.eval(pl.element().str.strip_chars('"')))
    if _is_header(lines.item(0, _FIELDS).to_list(), HEADER_NAMES[ITEM], CATEGORY_HEADERS):
        lines = lines.slice(1)
    layout = "item<TAB>category|category" if sep == "\t" else "item,category"
    raise_first(lines, [_field_count(path, 2, layout)])
    return lines.select(
        LINENO,
        LINE,
        pl.col(_FIELDS).list.first().alias(ITEM),
        pl.col(_FIELDS).list.last().str.split("|").alias(_CATS),
    )


def _parquet_items(path: PathLike) -> pl.DataFrame:
    item, cat = _parquet_roles(path, HEADER_NAMES[ITEM], CATEGORY_HEADERS, "item features", CATEGORY)
    df = read_parquet(path, {item: pl.Utf8, cat: pl.Utf8}, what="item features")
    return df.select(pl.col(item).alias(ITEM), pl.col(cat).alias(CATEGORY))


def _parquet_roles(path: PathLike, first: tuple[str, ...], second: tuple[str, ...], what: str, role: str):
    names = parquet_columns(path)
    by_key = {header_key(n): n for n in reversed(names)}
    a = next((by_key[k] for k in first if k in by_key), None)
    b = next((by_key[k] for k in second if k in by_key and by_key[k] != a), None)
    if a is None or b is None:
        raise InputError(
            path, None, f"{what} Parquet file needs columns {first[0]!r} and {role!r}; has {names}"
        )
    return a, b


#: Item-feature layouts: name -> reader of content lines as ``lineno, line, item, _cats`` (Parquet: the pairs).
ITEM_FEATURE_LAYOUTS: dict[str, Callable[[PathLike], pl.DataFrame]] = {
    "ml100k": _ml100k_items, "ml1m": _ml1m_items, "mlcsv": _mlcsv_items, "text": _text_items,
    "parquet": _parquet_items,
}  # fmt: skip


def item_features_layout(path: PathLike) -> str:
    """The :data:`ITEM_FEATURE_LAYOUTS` name of ``path``: by file name (``u.item``, ``movies.dat``,
    ``movies.csv``, ``*.parquet``), else by its first content line (``::``, a ``movieId,title,genres`` header)."""
    name = _base_name(path)
    if is_parquet(path):
        return "parquet"
    if name == "u.item":
        return "ml100k"
    if name == "movies.dat":
        return "ml1m"
    first = content_lines(_masked(_open_bytes(path), b"::", lambda k, c: k in (0, c - 1)), path).item(0, LINE)
    if [header_key(f) for f in first.split(",")] == ["movieid", "title", "genres"]:
        return "mlcsv"
    return "ml1m" if "::" in first else "text"


def read_item_features(path: PathLike) -> pl.DataFrame:
    """Read an item -> categories file into ``item, category`` rows (see the module for the layouts).

    Ids and categories are strings as written. Raises :class:`~trecrs.errors.InputError` naming the line
    of an empty item id or category, or of an (item, category) pair given twice (and the first line).
    """
    layout = item_features_layout(path)
    if layout == "parquet":
        df = _parquet_items(path)
        _check_pairs(df.with_row_index(LINENO, offset=1).with_columns(pl.lit("").alias(LINE)), path, row=True)
        return df
    raw = ITEM_FEATURE_LAYOUTS[layout](path)
    df = raw.explode(_CATS).rename({_CATS: CATEGORY})
    empty_item = pl.col(ITEM).is_null() | (pl.col(ITEM) == "")
    # an item of no category explodes to a null category: dropped after the id check
    empty_cat = pl.col(CATEGORY) == ""
    raise_first(
        df,
        [
            (empty_item, lambda r: InputError(path, r[LINENO], f"empty item id: {describe(r[LINE])!r}")),
            (empty_cat, lambda r: InputError(path, r[LINENO], f"empty category: {describe(r[LINE])!r}")),
        ],
    )
    df = df.filter(pl.col(CATEGORY).is_not_null())
    _check_pairs(df, path, row=False)
    return df.select(list(ITEM_FEATURES_SCHEMA))


def _check_pairs(df: pl.DataFrame, path: PathLike, *, row: bool) -> None:
    dup = first_duplicate(df, [ITEM, CATEGORY])
    if dup is None:
        return
    first, second = dup
    unit = "row" if row else "line"
    reason = (
        f"item {second[ITEM]!r} has category {second[CATEGORY]!r} twice (first on {unit} {first[LINENO]})"
    )
    if row:
        raise InputError(path, None, f"row {second[LINENO]}: {reason}")
    raise InputError(path, second[LINENO], reason)


# --------------------------------------------------------------------------------------------- user groups


def user_groups_layout(path: PathLike) -> str:
    """``parquet``, ``ml100k`` (``u.user``), ``ml1m`` (``users.dat`` or ``::`` lines) or ``text``."""
    if is_parquet(path):
        return "parquet"
    name = _base_name(path)
    if name == "u.user":
        return "ml100k"
    if name == "users.dat":
        return "ml1m"
    return "ml1m" if "::" in content_lines(_open_bytes(path), path).item(0, LINE) else "text"


def read_user_groups(path: PathLike, group_by: str | None = None) -> pl.DataFrame:
    """Read a user -> group file into ``user, group`` rows, one per user, in the file's order.

    ``group_by`` (``gender``, ``age``, ``occupation``) picks the field of MovieLens' ``u.user`` /
    ``users.dat``, and only of those. Raises :class:`~trecrs.errors.InputError` naming the line of an empty
    user or group, or of a user listed twice (and the first line); :class:`~trecrs.errors.UsageError` for a
    ``group_by`` that does not fit the file.
    """
    layout = user_groups_layout(path)
    ml = layout in _USER_FIELDS
    if group_by is not None and group_by not in GROUP_BY:
        raise UsageError(
            f"group_by must be one of {', '.join(GROUP_BY)}, got {group_by!r}", arguments=["group_by"]
        )
    if ml and group_by is None:
        raise UsageError(
            f"{path} is a MovieLens user file: give group_by ({', '.join(GROUP_BY)})", arguments=["group_by"]
        )
    if not ml and group_by is not None:
        raise UsageError(
            f"group_by reads MovieLens' u.user / users.dat; {path} is a user<TAB>group file",
            arguments=["group_by"],
        )
    # a MovieLens file has a group_by, any other none (both checked above)
    return _read_groups(path, USER, layout, 1 if group_by is None else _USER_FIELDS[layout][group_by])


def read_item_groups(path: PathLike) -> pl.DataFrame:
    """Read an item -> group file (``item<TAB>group``, ``item,group``, Parquet ``item, group``) into
    ``item, group`` rows, one per item, checked as :func:`read_user_groups` checks users."""
    return _read_groups(path, ITEM, "parquet" if is_parquet(path) else "text", 1)


def _read_groups(path: PathLike, key: str, layout: str, at: int) -> pl.DataFrame:
    """``key, group`` from a groups file of ``layout``; the group is field ``at`` (0-based) of a line."""
    if layout == "parquet":
        ident, group = _parquet_roles(path, HEADER_NAMES[key], GROUP_HEADERS, f"{key} groups", GROUP)
        df = read_parquet(path, {ident: pl.Utf8, group: pl.Utf8}, what=f"{key} groups", unique=[ident])
        return df.select(pl.col(ident).alias(key), pl.col(group).alias(GROUP))
    ml = layout in _USER_FIELDS
    sep = {"ml100k": "|", "ml1m": "::"}.get(layout)
    lines = content_lines(_open_bytes(path), path)
    if sep is None:
        sep = "\t" if "\t" in lines.item(0, LINE) else ","
    lines = lines.with_columns(_split(sep).list.eval(pl.element().str.strip_chars('"')))
    if not ml and _is_header(lines.item(0, _FIELDS).to_list(), HEADER_NAMES[key], GROUP_HEADERS):
        lines = lines.slice(1)
    n, layout_text = (5, "user, age, gender, occupation, zip") if ml else (2, f"{key}<TAB>group")
    raise_first(lines, [_field_count(path, n, layout_text)])
    df = lines.select(
        LINENO, LINE, pl.col(_FIELDS).list.first().alias(key), pl.col(_FIELDS).list.get(at).alias(GROUP)
    )
    raise_first(df, [(pl.col(c) == "", _empty(path, c)) for c in (key, GROUP)])
    dup = first_duplicate(df, [key])
    if dup is not None:
        raise InputError(
            path, dup[1][LINENO], f"{key} {dup[1][key]!r} listed twice (first on line {dup[0][LINENO]})"
        )
    return df.select(key, GROUP)


def _empty(path: PathLike, what: str) -> Callable[[dict], InputError]:
    return lambda r: InputError(path, r[LINENO], f"empty {what}: {describe(r[LINE])!r}")


# --------------------------------------------------------------------------------------------- frames


def _as_frame(data, schema: dict, what: str) -> pl.DataFrame:
    """``data`` (a polars or pandas frame with the schema's columns, or a dict key -> value or list of
    values) as a frame of ``schema``, ids as strings; a null or empty value is an error."""
    key, value = schema
    if isinstance(data, dict):
        pairs = [(str(k), str(v)) for k, vs in data.items() for v in ([vs] if isinstance(vs, str) else vs)]
        data = pl.DataFrame(pairs, schema=list(schema), orient="row")
    elif not isinstance(data, pl.DataFrame):
        try:
            data = pl.from_pandas(data)
        except Exception as exc:  # noqa: BLE001 - say what was given
            raise UsageError(
                f"{what} must be a file, a DataFrame or a dict, got {type(data).__name__}", arguments=[what]
            ) from exc
    missing = [c for c in schema if c not in data.columns]
    if missing:
        raise InputError(None, None, f"{what} DataFrame lacks column(s) {missing}; has {data.columns}")
    df = data.select(pl.col(c).cast(pl.Utf8) for c in schema)
    bad = df.filter(pl.any_horizontal(pl.col(c).is_null() | (pl.col(c) == "") for c in schema))
    if bad.height:
        raise InputError(None, None, f"{what}: empty {key} or {value} in {bad.row(0)}")
    return df


def as_item_features(data) -> pl.DataFrame:
    """An ``item, category`` frame from a file (:func:`read_item_features`), a frame with those columns or a
    dict item -> category or list of categories; (item, category) pairs once each."""
    if isinstance(data, str | os.PathLike):
        return read_item_features(data)
    return _as_frame(data, ITEM_FEATURES_SCHEMA, "item_features").unique(maintain_order=True)


def as_user_groups(data, group_by: str | None = None) -> pl.DataFrame:
    """A ``user, group`` frame from a file (:func:`read_user_groups`), a frame with those columns or a dict
    user -> group; a user in two groups is an error."""
    if isinstance(data, str | os.PathLike):
        return read_user_groups(data, group_by)
    if group_by is not None:
        raise UsageError(
            "group_by reads MovieLens' u.user / users.dat: give the file", arguments=["group_by"]
        )
    return _one_group_each(_as_frame(data, USER_GROUPS_SCHEMA, "user_groups"), USER, "user_groups")


def as_item_groups(data) -> pl.DataFrame:
    """An ``item, group`` frame from a file (:func:`read_item_groups`), a frame with those columns or a dict
    item -> group; an item in two groups is an error."""
    if isinstance(data, str | os.PathLike):
        return read_item_groups(data)
    return _one_group_each(
        _as_frame(data, {ITEM: pl.Utf8, GROUP: pl.Utf8}, "item_groups"), ITEM, "item_groups"
    )


def _one_group_each(df: pl.DataFrame, key: str, what: str) -> pl.DataFrame:
    df = df.unique(maintain_order=True)
    dup = df.filter(pl.col(key).is_duplicated())
    if dup.height:
        raise InputError(None, None, f"{what}: {key} {dup.item(0, key)!r} is in more than one group")
    return df
