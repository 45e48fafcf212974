"""MovieLens datasets: where they come from, their known checksums, verification and ML-100K's splits.

GroupLens (University of Minnesota) distributes the MovieLens datasets under a licence that forbids
redistribution, so trecrs ships none of them; ``scripts/fetch_movielens.sh`` downloads an official archive
and :func:`verify` checks what a user has against the checksums in :data:`DATASETS`:

* the md5 of each official archive (``ml-1m.zip``..., the values GroupLens publishes as ``<archive>.md5``);
* the md5 of every file of the MovieLens 100K release (``u.data``, the 14 predefined split files, ...);
* the ``checksums.txt`` that the newer archives (ML-32M) carry inside;
* the number of ratings of each release's ratings file (a cheaper check that also catches truncation).

:func:`ml100k_splits` regenerates ML-100K's predefined splits from ``u.data`` byte for byte, following the
release's own ``mku.sh`` and ``allbut.pl``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ..errors import FileAccessError, InputError, UsageError
from ..files.hashing import file_digest
from ..files.lines import read_text
from ..files.ratings import FORMATS, read_ratings, write_ratings
from ..ids import natural_sort
from ..schema import USER

PathLike = str | os.PathLike

BASE_URL = "https://files.grouplens.org/datasets/movielens/"


@dataclass(frozen=True)
class Dataset:
    """A MovieLens release: its archive, the folder the archive unpacks to, its ratings file and checksums."""

    name: str
    archive: str
    archive_md5: str | None
    folder: str
    ratings_file: str
    ratings_format: str
    n_ratings: int
    files_md5: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return BASE_URL + self.archive


# md5s of the 14 split files of MovieLens 100K (the files mku.sh writes), as released by GroupLens.
ML100K_SPLITS_MD5: dict[str, str] = {
    "u1.base": "4325f44281c9f8c119a3694662d63fc2",
    "u1.test": "62d5d837e7c8e36550cc956b09c2ecc8",
    "u2.base": "79541afecccbd5365bb2c09b123a01c7",
    "u2.test": "1951a71b7e1f4ed254508007fa2f6b70",
    "u3.base": "55c67a63f516fa9e593d68c3be779970",
    "u3.test": "cb3e4d0a9152041772285232ca002d4f",
    "u4.base": "66f64a75eeeffd20ff09533bcd31adcf",
    "u4.test": "328acfca94e85d01b1d7e92c7d73df3b",
    "u5.base": "0becb3392339231c08ba316944c79095",
    "u5.test": "bec898f7091dba3b7bdf793d1998d2d6",
    "ua.base": "346eb46a756be3b382bdef4f7dcf3a01",
    "ua.test": "52e5d0355092dc1596899855b220508f",
    "ub.base": "e4ce94f6e01e45f65b91a70bb9e8da2f",
    "ub.test": "5292d1e388d156aa0c19c384cdf35aca",
}

# md5 of every file of the official ml-100k.zip (23 files).
ML100K_MD5: dict[str, str] = {
    "README": "364aae5a5037ed015864d55c04f1f476",
    "allbut.pl": "7111b21765584d73b2c0c446f3213013",
    "mku.sh": "65560d0b2f71ce70d1fadd266d9afcce",
    "u.data": "6e47046882bad158b0efbb84cd5cb987",
    "u.genre": "a7578bdb37758741ae9429d2c736af18",
    "u.info": "6cae0afd8c0341aff31b631a192e57e6",
    "u.item": "c9e7f390115d79079537301d5204f3f7",
    "u.occupation": "035abaa2165f35cebce4b91e03481e0a",
    "u.user": "1b53539edc13caad0282c8500608a319",
    **ML100K_SPLITS_MD5,
}

#: Registry of the MovieLens releases trecrs knows (counts from each release's README).
DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in (
        Dataset(
            "ml-100k",
            "ml-100k.zip",
            "0e33842e24a9c977be4e0107933c0723",
            "ml-100k",
            "u.data",
            "ml100k",
            100_000,
            ML100K_MD5,
        ),
        Dataset(
            "ml-1m",
            "ml-1m.zip",
            "c4d9eecfca2ab87c1945afe126590906",
            "ml-1m",
            "ratings.dat",
            "ml1m",
            1_000_209,
        ),
        Dataset(
            "ml-10m",
            "ml-10m.zip",
            "ce571fd55effeba0271552578f2648bd",
            "ml-10M100K",
            "ratings.dat",
            "ml1m",
            10_000_054,
        ),
        Dataset(
            "ml-20m",
            "ml-20m.zip",
            "cd245b17a1ae2cc31bb14903e1204af3",
            "ml-20m",
            "ratings.csv",
            "csv",
            20_000_263,
        ),
        Dataset(
            "ml-25m",
            "ml-25m.zip",
            "6b51fb2759a8657d3bfcbfc42b592ada",
            "ml-25m",
            "ratings.csv",
            "csv",
            25_000_095,
        ),
        Dataset(
            "ml-32m",
            "ml-32m.zip",
            "d472be332d4daa821edc399621853b57",
            "ml-32m",
            "ratings.csv",
            "csv",
            32_000_204,
        ),
    )
}


def _count_lines(path: Path) -> int:
    n = 0
    last = b"\n"
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            n += block.count(b"\n")
            last = block[-1:]
    return n + (last != b"\n")


# --------------------------------------------------------------------------------------------- verify


@dataclass(frozen=True)
class FileCheck:
    """One verification result: ``status`` is ``OK``, ``MISMATCH`` or ``missing``."""

    dataset: str
    file: str
    check: str  # "md5" or "ratings"
    status: str
    expected: str
    actual: str | None

    def line(self) -> str:
        got = "" if self.actual is None or self.status == "OK" else f" (got {self.actual})"
        return f"{self.status:<8} {self.file}  {self.check} {self.expected}{got}"


def identify(directory: PathLike) -> list[Dataset]:
    """The MovieLens releases ``directory`` holds: an unpacked folder (by its name or its ratings file)
    and/or official archives ``ml-*.zip``."""
    d = Path(directory)
    found = [ds for ds in DATASETS.values() if (d / ds.archive).is_file()]
    by_name = [ds for ds in DATASETS.values() if d.name in (ds.folder, ds.name)]
    if by_name:
        found += [ds for ds in by_name if ds not in found]
    elif (d / "u.data").is_file() or (d / "u1.base").is_file():
        found.append(DATASETS["ml-100k"])
    else:
        for fname in ("ratings.dat", "ratings.csv"):
            if (d / fname).is_file():
                # Which release: the one whose rating count the file has (a header line for .csv).
                n = _count_lines(d / fname) - (fname.endswith(".csv"))
                hit = [ds for ds in DATASETS.values() if ds.ratings_file == fname and ds.n_ratings == n]
                found += hit or [ds for ds in DATASETS.values() if ds.ratings_file == fname][:1]
    for ds in DATASETS.values():  # unpacked sub-folders, as `unzip ml-1m.zip` leaves them
        if (d / ds.folder).is_dir() and ds not in found:
            found.append(ds)
    return found


def verify(directory: PathLike, dataset: str | None = None) -> list[FileCheck]:
    """Check a MovieLens folder against the known checksums; one :class:`FileCheck` per known file.

    ``dataset`` names the release (a :data:`DATASETS` key); by default it is identified from the folder
    (see :func:`identify`). Checks: archive md5s, every known file's md5 (ML-100K), the files listed in a
    bundled ``checksums.txt`` (ML-32M), and the ratings file's number of ratings.
    """
    d = Path(directory)
    if not d.is_dir():
        raise FileAccessError(d, None, "not a directory")
    if dataset is not None:
        if dataset not in DATASETS:
            raise UsageError(f"unknown dataset {dataset!r}; known: {', '.join(DATASETS)}")
        datasets = [DATASETS[dataset]]
    else:
        datasets = identify(d)
        if not datasets:
            raise InputError(
                d,
                None,
                "no known MovieLens file here (u.data, ratings.dat, ratings.csv or ml-*.zip); "
                f"name the release with --dataset ({', '.join(DATASETS)})",
            )
    checks: list[FileCheck] = []
    for ds in datasets:
        archive = d / ds.archive
        if archive.is_file() and ds.archive_md5:
            checks.append(_md5_check(ds, archive, ds.archive, ds.archive_md5))
        root = d / ds.folder if (d / ds.folder).is_dir() and d.name != ds.folder else d
        if root == d and archive.is_file() and dataset is None and not (d / ds.ratings_file).is_file():
            continue  # only the archive is here
        prefix = "" if root == d else ds.folder + "/"
        for fname, md5 in ds.files_md5.items():
            checks.append(_md5_check(ds, root / fname, prefix + fname, md5))
        listed = root / "checksums.txt"
        if listed.is_file():
            for fname, md5 in _read_checksums(listed).items():
                if fname not in ds.files_md5:
                    checks.append(_md5_check(ds, root / fname, prefix + fname, md5))
        checks.append(_count_check(ds, root / ds.ratings_file, prefix + ds.ratings_file))
    return checks


def _md5_check(ds: Dataset, path: Path, shown: str, expected: str) -> FileCheck:
    if not path.is_file():
        return FileCheck(ds.name, shown, "md5", "missing", expected, None)
    got = file_digest(path, "md5")
    return FileCheck(ds.name, shown, "md5", "OK" if got == expected else "MISMATCH", expected, got)


def _count_check(ds: Dataset, path: Path, shown: str) -> FileCheck:
    want = f"{ds.n_ratings} ratings"
    if not path.is_file():
        return FileCheck(ds.name, shown, "count", "missing", want, None)
    n = _count_lines(path) - (1 if FORMATS[ds.ratings_format].header else 0)
    return FileCheck(ds.name, shown, "count", "OK" if n == ds.n_ratings else "MISMATCH", want, f"{n} ratings")


def _read_checksums(path: Path) -> dict[str, str]:
    """``md5sum``-style lines ``<md5>  <file>`` (also ``MD5 (file) = md5``); other lines are ignored."""
    out = {}
    for raw in read_text(path).split("\n"):
        m = re.match(r"^([0-9a-fA-F]{32})\s+\*?(.+?)\s*$", raw)
        if m:
            out[m.group(2)] = m.group(1).lower()
            continue
        m = re.match(r"^MD5 \((.+)\) = ([0-9a-fA-F]{32})\s*$", raw)
        if m:
            out[m.group(1)] = m.group(2).lower()
    return out


def verify_ok(checks: list[FileCheck]) -> bool:
    """True when nothing mismatches and every checked dataset's ratings file is present."""
    if any(c.status == "MISMATCH" for c in checks):
        return False
    return not any(c.check == "count" and c.status == "missing" for c in checks)


# --------------------------------------------------------------------------------------------- loaders


def load(name_or_path: PathLike, *, dataset: str | None = None) -> pl.DataFrame:
    """The ratings of a MovieLens release: a folder (its ratings file is found by the release's name or
    contents) or a ratings file. Returns the ratings table (file order)."""
    p = Path(name_or_path)
    if p.is_dir():
        candidates = [DATASETS[dataset]] if dataset else identify(p)
        for ds in candidates:
            for root in (p, p / ds.folder):
                if (root / ds.ratings_file).is_file():
                    return read_ratings(root / ds.ratings_file, fmt=ds.ratings_format)
        raise InputError(
            p, None, "no MovieLens ratings file (u.data, ratings.dat, ratings.csv) in this folder"
        )
    return read_ratings(p)


# --------------------------------------------------------------------------------------------- ML-100K splits


ML100K_FOLDS = 5
ML100K_FOLD_SIZE = 20_000


def ml100k_split_frames(ratings: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """The 14 predefined MovieLens 100K split files as DataFrames (name -> rows in file order).

    Rules of the release's ``mku.sh``/``allbut.pl``, applied to ``u.data`` in its original line order:
    ``u{i}.test`` = lines ``(i-1)*20000+1 .. i*20000`` and ``u{i}.base`` = all other lines (i = 1..5;
    for a file that is not 100,000 lines long, five consecutive parts of ceil(n/5) lines);
    ``ua.test`` = each user's 1st..10th rating in file order, ``ub.test`` = the 11th..20th, ``ua/ub.base``
    = the rest. Every file is sorted by (user, item) numerically (``sort -k1,1n -k2,2n``).
    """
    n = ratings.height
    out: dict[str, pl.DataFrame] = {}
    pos = pl.int_range(pl.len())
    # 20,000 lines for u.data's 100,000; a file of another length (such as sample data) is cut into five
    # consecutive parts the same way, rather than into 20,000-line parts that leave later folds empty.
    size = ML100K_FOLD_SIZE if n == ML100K_FOLDS * ML100K_FOLD_SIZE else -(-n // ML100K_FOLDS)
    for i in range(1, ML100K_FOLDS + 1):
        lo, hi = (i - 1) * size, min(i * size, n)
        in_test = (pos >= lo) & (pos < hi)
        out[f"u{i}.test"] = natural_sort(ratings.filter(in_test), [USER, "item"])
        out[f"u{i}.base"] = natural_sort(ratings.filter(~in_test), [USER, "item"])
    # allbut.pl: a per-user running count in file order; maxtest (100000) never binds on u.data.
    nth = pl.int_range(pl.len()).over(USER) + 1
    for name, start, stop in (("ua", 1, 10), ("ub", 11, 20)):
        in_test = (nth >= start) & (nth <= stop)
        out[f"{name}.test"] = natural_sort(ratings.filter(in_test), [USER, "item"])
        out[f"{name}.base"] = natural_sort(ratings.filter(~in_test), [USER, "item"])
    return {k: out[k] for k in ML100K_SPLITS_MD5}


def ml100k_splits(u_data: PathLike, out_dir: PathLike) -> dict[str, Path]:
    """Write ML-100K's 14 predefined split files (``u1..u5``, ``ua``, ``ub`` ``.base``/``.test``) from
    ``u_data`` into ``out_dir``, byte for byte as GroupLens released them (see :func:`ml100k_split_frames`).

    Each file gets a manifest (input sha256, the rule). Returns name -> path. Files are written only
    after all 14 are computed, each atomically.
    """
    from ..files.manifest import write_manifest
    from .splits import ML100K_PREDEFINED

    ratings = read_ratings(u_data, fmt="ml100k")
    frames = ml100k_split_frames(ratings)
    out = Path(out_dir)
    paths = {}
    for name, df in frames.items():
        path = out / name
        write_ratings(df, path, fmt="ml100k")
        write_manifest(
            path,
            "ratings-split",
            inputs={"ratings": u_data},
            parameters={"method": ML100K_PREDEFINED, "file": name, "rule": "mku.sh/allbut.pl of ML-100K"},
        )
        paths[name] = path
    return paths


__all__ = [
    "DATASETS",
    "Dataset",
    "FileCheck",
    "identify",
    "load",
    "ml100k_split_frames",
    "ml100k_splits",
    "verify",
    "verify_ok",
]
