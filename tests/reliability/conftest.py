"""The corpus's input files: small synthetic ratings, and the files trecrs makes from them."""

from __future__ import annotations

import random

import pytest


def _ratings() -> tuple[list[str], list[str]]:
    """Train and test lines ``user<TAB>item<TAB>rating<TAB>time``: 6 users, 12 items, 2 test ratings each."""
    rng = random.Random(1)
    train, test = [], []
    for u in range(1, 7):
        for k, i in enumerate(rng.sample(range(1, 13), 7)):
            (test if k < 2 else train).append(f"{u}\t{i}\t{rng.randint(1, 5)}\t{880000000 + u * 100 + k}")
    return train, test


def _factors(d) -> None:
    """``user.parquet`` and ``item.parquet``: two factors per user (1..6) and item (1..13), for eval-factors."""
    import polars as pl

    rng = random.Random(2)
    for role, n in (("user", 6), ("item", 13)):
        ids = [str(i) for i in range(1, n + 1)]
        factors = [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in ids]
        frame = pl.DataFrame(
            {role: ids, "factors": factors}, schema={role: pl.Utf8, "factors": pl.List(pl.Float32)}
        )
        frame.write_parquet(d / f"{role}.parquet")


@pytest.fixture(scope="session")
def base(tmp_path_factory) -> dict[str, bytes]:
    """The good files every case starts from, made by trecrs itself from the synthetic ratings."""
    from trecrs.cli import main

    d = tmp_path_factory.mktemp("base")
    train, test = _ratings()
    (d / "train.tsv").write_text("\n".join(train) + "\n")
    (d / "test.tsv").write_text("\n".join(test) + "\n")
    (d / "ratings.tsv").write_text("\n".join(train + test) + "\n")
    (d / "items.txt").write_text("".join(f"{i}\n" for i in range(1, 14)))
    steps = [
        ["candidates", "--methodology", "all-items", "--train", "train.tsv", "--test", "test.tsv", "-o", "pairs.txt"],
        ["recommend", "-a", "itemavg", "--train", "train.tsv", "--candidates", "pairs.txt", "-o", "scores.txt",
         "--predict", "test.tsv", "--predictions", "pred.txt"],
        ["run", "--methodology", "all-items", "--train", "train.tsv", "--test", "test.tsv", "--scores",
         "scores.txt", "--missing", "last", "-o", "run.txt"],
        ["qrels", "--test", "test.tsv", "--threshold", "3", "-o", "qrels.txt"],
        # a second system for compare: another algorithm, another tag
        ["recommend", "-a", "toppop", "--train", "train.tsv", "--candidates", "pairs.txt", "-o", "scores2.txt"],
        ["run", "--methodology", "all-items", "--train", "train.tsv", "--test", "test.tsv", "--scores",
         "scores2.txt", "--missing", "last", "--tag", "pop", "-o", "run2.txt"],
    ]  # fmt: skip
    for argv in steps:
        files = [str(d / a) if a.endswith((".txt", ".tsv")) else a for a in argv[1:]]
        assert main([argv[0], "--quiet", *files]) == 0
    (d / "batch.txt").write_text(f"eval -m P.5 {d / 'qrels.txt'} {d / 'run.txt'}\n" * 3)
    (d / "study.tsv").write_text(
        "dataset\tfold\tsystem\tqrels\trun\n"
        + "".join(
            f"d\t{f}\t{s}\tqrels.txt\t{r}\n"
            for f in ("f1", "f2")
            for s, r in (("a", "run.txt"), ("b", "run2.txt"))
        )
    )
    _factors(d)
    return {p.name: p.read_bytes() for p in d.iterdir() if not p.name.endswith(".json")}
