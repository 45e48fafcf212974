"""The study file of ``trecrs study``: one line per (dataset, fold, system) with its qrels and run.

A tab-separated file whose first content line is the header ``dataset fold system qrels run``, optionally
followed by ``test_size train_size``; paths relative to the study file's folder. Every line is checked
here, each error naming the file and line: the field count, empty fields, sizes that are not positive
integers, a (dataset, fold, system) given twice, a system missing from a fold of its data set, and a system
missing from a whole data set (ranks across data sets compare every system on every data set: Demšar,
JMLR 2006). Empty sizes are absent; content lines lose their trailing blanks (:mod:`.lines`), so a line
whose empty sizes end it has 5 or 6 fields.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from ..errors import InputError
from .lines import LINE, LINENO, read_lines

PathLike = str | os.PathLike

COLUMNS = ("dataset", "fold", "system", "qrels", "run")
SIZES = ("test_size", "train_size")


def read_study(path: PathLike) -> pl.DataFrame:
    """The study's lines: ``dataset fold system qrels run test_size train_size`` (sizes null when absent
    or empty), paths made relative to the study file's folder, in file order, with ``lineno``."""
    lines = read_lines(path)
    if lines.height == 0:
        raise InputError(path, None, "empty study file: expected the header " + "<TAB>".join(COLUMNS))
    header = lines.item(0, LINE).split("\t")
    if header not in (list(COLUMNS), [*COLUMNS, *SIZES]):
        raise InputError(
            path,
            lines.item(0, LINENO),
            "the header must be "
            + "<TAB>".join(COLUMNS)
            + f" (optionally <TAB>{'<TAB>'.join(SIZES)}), got {lines.item(0, LINE)!r}",
        )
    rows = []
    for lineno, line in lines.slice(1).select(LINENO, LINE).iter_rows():
        rows.append(_row(path, lineno, line, header))
    if not rows:
        raise InputError(path, None, "the study lists no (dataset, fold, system) line")
    df = pl.DataFrame(
        rows,
        schema={**dict.fromkeys(COLUMNS, pl.Utf8), **dict.fromkeys(SIZES, pl.Int64), LINENO: pl.Int64},
        orient="row",
    )
    _check_complete(path, df)
    return df


def _row(path: PathLike, lineno: int, line: str, header: list[str]) -> tuple:
    fields = line.split("\t")
    if not len(COLUMNS) <= len(fields) <= len(header):
        expected = (
            f"{len(COLUMNS)} tab-separated fields ({' '.join(COLUMNS)})"
            if len(header) == len(COLUMNS)
            else f"{len(COLUMNS)} to {len(header)} tab-separated fields ({' '.join(COLUMNS)}, then "
            f"{' '.join(SIZES)}, which may be empty)"
        )
        raise InputError(path, lineno, f"expected {expected}, got {len(fields)}")
    # trailing empty sizes were stripped with the line's trailing tabs: absent, as empty ones are
    named = dict(zip(header, fields, strict=False))
    for c in COLUMNS:
        if not named[c].strip():
            raise InputError(path, lineno, f"empty {c}")
    base = Path(os.fspath(path)).parent
    sizes = []
    for c in SIZES:
        text = named.get(c, "").strip()
        if text and not (text.isdigit() and int(text) > 0):
            raise InputError(path, lineno, f"{c} must be a positive integer or empty, got {text!r}")
        sizes.append(int(text) if text else None)
    return (
        named["dataset"],
        named["fold"],
        named["system"],
        str(base / named["qrels"]),
        str(base / named["run"]),
        *sizes,
        lineno,
    )


def _check_complete(path: PathLike, df: pl.DataFrame) -> None:
    """Each (dataset, fold, system) once; every system of the study in every data set, and in each of its folds."""
    dup = df.filter(pl.struct("dataset", "fold", "system").is_duplicated())
    if dup.height:
        r = dup.row(1, named=True)
        raise InputError(
            path,
            r[LINENO],
            f"dataset {r['dataset']!r}, fold {r['fold']!r}, system {r['system']!r} is listed twice",
        )
    everywhere = df.get_column("system").unique(maintain_order=True).to_list()
    for (dataset,), part in df.group_by("dataset", maintain_order=True):
        systems = part.get_column("system").unique(maintain_order=True).to_list()
        absent = [s for s in everywhere if s not in systems]
        if absent:
            raise InputError(
                path,
                None,
                f"dataset {dataset!r} has no line for system(s) {', '.join(map(repr, absent))}"
                "; every system must be in every data set (run it there, or leave it out of the study)",
            )
        for (fold,), rows in part.group_by("fold", maintain_order=True):
            missing = [s for s in systems if s not in set(rows.get_column("system").to_list())]
            if missing:
                raise InputError(
                    path,
                    None,
                    f"dataset {dataset!r}, fold {fold!r}: no line for system(s) "
                    f"{', '.join(map(repr, missing))}; every system must be in every fold of a data set",
                )
