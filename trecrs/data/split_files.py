"""Splits written to files: a ratings file read, split (:mod:`.splits`) and written in its own layout.

Each part is written atomically with a manifest (the input's sha256, the method, its parameters, the seed
and the counts); everything is computed before the first file is written, so a bad input or option leaves
no file. File names: ``train``/``test`` for one split, ``fold1.train``... for several, with the input's
extension (:func:`output_extension`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..files.hashing import file_digest
from ..files.lines import is_stdin
from ..files.output import current_path
from ..files.ratings import RatingsFormat, ratings_format, read_ratings, write_ratings
from ..files.ratings_fast import large
from ..files.ratings_write import write_rows
from .split_rows import Rows
from .splits import Columns, Split, chosen_method, split_table

PathLike = str | os.PathLike


def split_file_names(split_: Split, ext: str = "") -> tuple[str, str]:
    """File names of a split in its output folder: ``train<ext>``/``test<ext>`` for a single split,
    ``<name>.train<ext>``/``<name>.test<ext>`` (``fold1.train``...) for one of several."""
    prefix = f"{split_.name}." if split_.name else ""
    return f"{prefix}train{ext}", f"{prefix}test{ext}"


_KEEP_EXT = (".csv", ".dat", ".tsv", ".txt", ".parquet")


def output_extension(path: PathLike) -> str:
    """The extension split files take from their input: ``.csv``/``.dat``/``.tsv``/``.txt``/``.parquet``
    (plus ``.gz`` when compressed); none for names like ``u.data`` whose suffix is not a format."""
    name = Path(path).name
    gz = name.endswith(".gz")
    stem = name[:-3] if gz else name
    suffix = Path(stem).suffix
    ext = suffix if suffix in _KEEP_EXT else ""
    return ext + (".gz" if gz else "")


def write_split(
    splits: list[Split],
    out_dir: PathLike,
    *,
    source: PathLike | None = None,
    fmt: str | RatingsFormat = "ml100k",
    sort: bool = False,
    command: list[str] | None = None,
) -> list[Path]:
    """Write every split's train and test files into ``out_dir`` (see :func:`split_file_names`) in layout
    ``fmt`` (the input's), each atomically with a manifest (input sha256, method, parameters, seed, counts).
    ``sort`` writes rows in natural (user, item) order instead of the input's order. Returns the paths."""
    from ..files.manifest import write_manifest

    out = Path(out_dir)
    ext = output_extension(source) if source is not None else ""
    if isinstance(fmt, RatingsFormat) and fmt.name == "parquet":
        ext = ".parquet"
    written: list[Path] = []
    digests = (
        {"ratings": file_digest(current_path(source))} if source is not None and _is_file(source) else {}
    )
    for s in splits:
        for role, fname in zip(("train", "test"), split_file_names(s, ext), strict=True):
            path = out / fname
            rows = s.rows[role]
            _write_rows(rows, path, fmt, sort)
            layout = fmt.name if isinstance(fmt, RatingsFormat) else fmt
            params = dict(s.parameters) | {"role": role, "format": layout, "sorted": sort}
            extra: dict[str, Any] = {"ratings": rows.height, "users": rows.users()}
            if s.report:
                extra["report"] = s.report
            write_manifest(
                path,
                f"ratings-{role}",
                inputs={"ratings": source} if source is not None else None,
                parameters=params,
                command=command,
                extra=extra,
                digests=digests,
            )
            written.append(path)
    return written


def _is_file(path: PathLike) -> bool:
    return not is_stdin(path) and current_path(path).is_file()


def _write_rows(rows: Rows, path: Path, fmt: str | RatingsFormat, sort: bool) -> None:
    """Write a split's rows: text streamed from the table and the mask; sorted or Parquet from the frame."""
    if sort or isinstance(fmt, str) or fmt.name == "parquet":
        write_ratings(rows.frame(), path, fmt=fmt, sort=sort)
    else:
        write_rows(rows.ratings, rows.keep, path, fmt)


def split_file(
    path: PathLike,
    out_dir: PathLike,
    method: str,
    *,
    seed: int | None = None,
    fmt: str | RatingsFormat = "auto",
    columns: Columns | None = None,
    separator: str | None = None,
    dedupe: str | None = None,
    report: Callable[[str], None] | None = None,
    sort: bool = False,
    command: list[str] | None = None,
    **options: Any,
) -> tuple[list[Split], list[Path]]:
    """Read a ratings file, split it, and write the parts in the file's own layout (see :func:`write_split`).

    Everything is computed before the first file is written, so a bad input or option leaves no file.
    """
    spec = ratings_format(path, fmt, columns=columns, separator=separator)
    # ids are coded as read, so the table holds numbers, not their text (a split only compares ids)
    ratings = read_ratings(path, fmt=spec, dedupe=dedupe, report=report, coded=large(path))
    splitter, given = chosen_method(method, options)
    splits = split_table(ratings, splitter, seed, given)
    paths = write_split(splits, out_dir, source=path, fmt=spec, sort=sort, command=command)
    return splits, paths


__all__ = ["output_extension", "split_file", "split_file_names", "write_split"]
