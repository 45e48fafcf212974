"""Generate the benchmark inputs: a TREC qrels file and a TREC run (text and Parquet), seeded.

Shape: ``--users`` queries, each ranking ``--per-user`` distinct items drawn from a catalogue of
``--items`` items, scores with six decimals and a fraction ``--ties`` of lines forced to repeat the score
of the line ranked just above them (so about that fraction of lines are tied, which trec_eval breaks by
document id). Each user has between 1 and ``--max-rel`` judged test items, graded 1..5 like ratings,
about half of them among the user's ranked items. Ids are decimal strings (``"1"`` .. ``"N"``), so
``"9"`` vs ``"10"`` tie-breaking is exercised. The run is written in trec_eval order (queries ascending
numerically, ranks 1..n); ``--shuffle`` writes the lines in random order.

``--tie-order`` orders the lines of equal score within a user: ``trec_eval`` (the default) by document id
descending bytewise, trec_eval's own tie-break, so the run needs no reordering; ``ascending`` by item id
ascending *as a number*, as a recommender writes them (a stable sort of its score vector by item index).
Numeric ascending is not simply the reverse of trec_eval's order: ``"9"`` comes before ``"10"`` in both
(bytewise, ``"9" > "10"``), while two ids of the same length (``"1234"``, ``"1235"``) come in the reverse
of trec_eval's order; with a 3,706-item catalogue most tied pairs are of the second kind. Both orders
hold the same lines (same draws), ranks renumbered 1..n in file order.

Same arguments and seed give byte-identical files. The files go under ``benchmarks/data/`` (git-ignored).

    python benchmarks/generate.py --name a --users 6040 --items 3706 --per-user 1000
    python benchmarks/generate.py --name b --users 6040 --items 3706 --per-user 3700
    python benchmarks/generate.py --name c --users 480000 --items 17770 --per-user 100
    python benchmarks/generate.py --name t-asc --users 6040 --items 3706 --per-user 3706 --ties 0.01 --tie-order ascending
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


def draw_items(rng: np.random.Generator, users: int, items: int, per_user: int) -> np.ndarray:
    """``users x per_user`` matrix of distinct item indices per row, uniformly drawn from ``items``."""
    if per_user * 2 > items:
        # dense: a random permutation of the catalogue per row, first per_user kept
        out = np.empty((users, per_user), dtype=np.int32)
        block = max(1, 2_000_000 // items)
        for a in range(0, users, block):
            b = min(users, a + block)
            keys = rng.random((b - a, items), dtype=np.float32)
            out[a:b] = np.argsort(keys, axis=1)[:, :per_user]
        return out
    # sparse: draw with replacement, drop duplicates within a row, keep the first per_user
    extra = per_user + max(16, per_user // 4)
    out = np.empty((users, per_user), dtype=np.int32)
    block = 50_000
    for a in range(0, users, block):
        b = min(users, a + block)
        draws = rng.integers(0, items, size=(b - a, extra), dtype=np.int32)
        s = np.sort(draws, axis=1)
        dup = np.zeros_like(s, dtype=bool)
        dup[:, 1:] = s[:, 1:] == s[:, :-1]
        s = np.where(dup, np.int32(items), s)
        s.sort(axis=1)
        if (s[:, per_user - 1] >= items).any():
            raise RuntimeError("too many duplicate draws; raise the oversampling")
        rows = s[:, :per_user]
        # random order within the row, so that the kept items are not the smallest ids
        perm = np.argsort(rng.random(rows.shape, dtype=np.float32), axis=1)
        out[a:b] = np.take_along_axis(rows, perm, axis=1)
    return out


def generate(args) -> None:
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    U, C, L = args.users, args.items, args.per_user
    ranked = draw_items(rng, U, C, L)  # users x L item indices; column j = rank j+1 before scoring
    n = U * L
    # scores: descending per user by construction; ties copy the score of the previous rank
    raw = np.round(rng.random((U, L)) * 5.0, 6)
    raw = -np.sort(-raw, axis=1)
    tie = rng.random((U, L)) < args.ties
    tie[:, 0] = False
    idx = np.where(tie, 0, np.arange(L)[None, :])
    np.maximum.accumulate(idx, axis=1, out=idx)
    scores = np.take_along_axis(raw, idx, axis=1)
    users = np.repeat(np.arange(1, U + 1, dtype=np.int64), L)
    items = ranked.reshape(-1).astype(np.int64) + 1
    run = pl.DataFrame({"query": users, "doc": items, "score": scores.reshape(-1)})
    if args.tie_order == "ascending":
        # as a recommender writes ties: item ids ascending as numbers (so "9" before "10"), then as strings
        run = run.sort(["query", "score", "doc"], descending=[False, True, False])
        run = run.with_columns(pl.col("doc").cast(pl.Utf8))
    else:
        # trec_eval order within a user: score desc, then doc id desc compared as strings
        run = run.with_columns(pl.col("doc").cast(pl.Utf8))
        run = run.sort(["query", "score", "doc"], descending=[False, True, True])
    run = run.with_columns(
        pl.col("query").cast(pl.Utf8),
        pl.lit("Q0").alias("iter"),
        (pl.int_range(pl.len()).over("query") + 1).alias("rank"),
        pl.lit("bench").alias("tag"),
    ).select("query", "iter", "doc", "rank", "score", "tag")
    if args.shuffle:
        run = run.sample(fraction=1.0, shuffle=True, seed=args.seed)

    # qrels: 1..max_rel judged items per user, graded 1..5; about half drawn from the ranked items
    k = rng.integers(1, args.max_rel + 1, size=U)
    kin = np.minimum((k + 1) // 2, L)
    kmax = int(kin.max())
    # judged items among the ranked ones: kin[u] distinct random rank positions of the row
    pos = draw_items(rng, U, L, kmax)
    mask_in = np.arange(kmax)[None, :] < kin[:, None]
    q_users = [np.broadcast_to(np.arange(U)[:, None], mask_in.shape)[mask_in]]
    q_items = [np.take_along_axis(ranked, pos, axis=1)[mask_in]]
    # the rest anywhere in the catalogue (duplicates removed below)
    kout = k - kin
    q_users.append(np.repeat(np.arange(U), kout))
    q_items.append(rng.integers(0, C, size=int(kout.sum())))
    qu = np.concatenate(q_users).astype(np.int64) + 1
    qi = np.concatenate(q_items).astype(np.int64) + 1
    qrels = pl.DataFrame({"query": qu, "doc": qi}).unique(maintain_order=True)
    qrels = qrels.with_columns(pl.Series("rel", rng.integers(1, 6, size=qrels.height)))
    qrels = qrels.sort(["query", "doc"]).select(
        pl.col("query").cast(pl.Utf8), pl.lit("0").alias("iter"), pl.col("doc").cast(pl.Utf8), pl.col("rel")
    )

    DATA.mkdir(parents=True, exist_ok=True)
    stem = DATA / args.name
    qrels.write_csv(f"{stem}.qrels", include_header=False, separator=" ")
    run.write_csv(f"{stem}.run", include_header=False, separator=" ", float_precision=6)
    run.write_parquet(f"{stem}.run.parquet", statistics=False)
    print(
        f"{args.name}: {U} users x {L} items (catalogue {C}): {n} run lines, {qrels.height} qrels lines, "
        f"{(tie.sum() / n):.2%} tied lines, {time.perf_counter() - t0:.1f} s -> {stem}.*",
        file=sys.stderr,
    )


def replicate(qrels: Path, run: Path, name: str, times: int, users: int) -> None:
    """``name``.qrels/.run: ``times`` copies of a generated case one after another, copy ``k`` with user
    ``u`` renamed ``u + k * users`` (so the run stays grouped by query); written 64 MB at a time."""
    DATA.mkdir(parents=True, exist_ok=True)
    for src, suffix in ((qrels, "qrels"), (run, "run")):
        with open(DATA / f"{name}.{suffix}", "wb") as out:
            for k in range(times):
                with open(src, "rb") as fh:
                    while buf := fh.read(1 << 26) + fh.readline():
                        head = (line.partition(b" ") for line in buf.splitlines())
                        out.write(b"".join(b"%d %s\n" % (int(u) + k * users, r) for u, _, r in head))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--name", required=True, help="file stem under benchmarks/data/")
    p.add_argument("--users", type=int, required=True)
    p.add_argument("--items", type=int, required=True, help="catalogue size")
    p.add_argument("--per-user", type=int, required=True, help="ranked items per user")
    p.add_argument("--ties", type=float, default=0.02, help="fraction of lines tied with the line above")
    p.add_argument("--max-rel", type=int, default=60, help="max judged items per user")
    p.add_argument("--tie-order", choices=["trec_eval", "ascending"], default="trec_eval",
                   help="order of the lines of equal score within a user: trec_eval's (doc id descending "
                   "bytewise) or item id ascending as a number, as recommenders write them")  # fmt: skip
    p.add_argument("--shuffle", action="store_true", help="write the run lines in random order")
    p.add_argument("--seed", type=int, default=20110923)
    generate(p.parse_args(argv))


if __name__ == "__main__":
    main()
