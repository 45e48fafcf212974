"""The study file of ``trecrs study``: one line per (dataset, fold, system) with its qrels and run.

A tab-separated file whose first content line is the header ``dataset fold system qrels run``, optionally
followed by ``test_size train_size``; paths relative to the study file's folder. Every line is checked
here, each error naming the file and line: the field count, empty fields, sizes that are not positive
integers, a (dataset, fold, system) given twice, and a system missing from a fold of its data set.
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
        raise InputError(path, lines.item(0, LINENO), "the header must be " + "<TAB>".join(COLUMNS)
                         + f" (optionally <TAB>{'<TAB>'.join(SIZES)}), got {lines.item(0, LINE)!r}")  # fmt: skip
    rows = []
    for lineno, line in lines.slice(1).select(LINENO, LINE).iter_rows():
        rows.append(_row(path, lineno, line, header))
    if not rows:
        raise InputError(path, None, "the study lists no (dataset, fold, system) line")
    df = pl.DataFrame(rows, schema={**dict.fromkeys(COLUMNS, pl.Utf8), **dict.fromkeys(SIZES, pl.Int64),
                                    LINENO: pl.Int64}, orient="row")  # fmt: skip
    _check_complete(path, df)
    return df


def _row(path: PathLike, lineno: int, line: str, header: list[str]) -> tuple:
    fields = line.split("\t")
    if len(fields) != len(header):
        raise InputError(
            path,
            lineno,
            f"expected {len(header)} tab-separated fields ({' '.join(header)}), got {len(fields)}",
        )
    named = dict(zip(header, fields, strict=True))
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
    return (named["dataset"], named["fold"], named["system"], str(base / named["qrels"]), str(base / named["run"]),
            *sizes, lineno)  # fmt: skip


def _check_complete(path: PathLike, df: pl.DataFrame) -> None:
    """Each (dataset, fold, system) once; every system of a data set in each of its folds."""
    dup = df.filter(pl.struct("dataset", "fold", "system").is_duplicated())
    if dup.height:
        r = dup.row(1, named=True)
        raise InputError(path, r[LINENO], f"dataset {r['dataset']!r}, fold {r['fold']!r}, system {r['system']!r} "
                         "is listed twice")  # fmt: skip
    for (dataset,), part in df.group_by("dataset", maintain_order=True):
        systems = part.get_column("system").unique(maintain_order=True).to_list()
        for (fold,), rows in part.group_by("fold", maintain_order=True):
            missing = [s for s in systems if s not in set(rows.get_column("system").to_list())]
            if missing:
                raise InputError(path, None, f"dataset {dataset!r}, fold {fold!r}: no line for system(s) "
                                 f"{', '.join(map(repr, missing))}; every system must be in every fold of a data set")  # fmt: skip
