"""The ``--ml100k`` check of a make_golden_<framework>.py script: a framework's per-user values on a real run.

In the framework's scratch venv, ``python tests/dialects/make_golden_<framework>.py --ml100k RUN QRELS TRAIN
OUT`` reads a TREC run, TREC qrels and the training ratings (``user item rating ...``) with :func:`read`,
computes the framework's values and writes them with :func:`write` to OUT (a JSON file outside the
repository: values derived from MovieLens are never committed). Then, with trecrs importable,
``python tests/dialects/ml100k.py OUT`` evaluates the same names with :func:`trecrs.evaluate` on the same
files and prints the number of users compared and the largest absolute difference.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def read(run_file: str, qrels_file: str, train_file: str, level: int):
    """``(true, pred, scores, train)``: each user's items with rel >= ``level`` (users with a list only),
    each user's list in trec_eval's order (score as a C float descending, then item id descending), each
    user's scores in that order, and the training (user, item) pairs, all as plain Python data."""
    import numpy as np

    rows = [line.split() for line in Path(run_file).read_text().splitlines() if line.strip()]
    by_user: dict[str, list[tuple[str, float]]] = {}
    for u, _, i, _, s, *_ in rows:
        by_user.setdefault(u, []).append((i, float(s)))
    pred, scores = {}, {}
    for u, lst in by_user.items():
        lst.sort(key=lambda p: p[0].encode(), reverse=True)
        lst.sort(key=lambda p: float(np.float32(p[1])), reverse=True)  # stable: ids descending within a tie
        pred[u] = [i for i, _ in lst]
        scores[u] = [s for _, s in lst]
    true: dict[str, list[str]] = {}
    for line in Path(qrels_file).read_text().splitlines():
        if line.strip():
            u, _, i, r = line.split()[:4]
            if int(r) >= level and u in pred:
                true.setdefault(u, []).append(i)
    train = [tuple(line.split()[:2]) for line in Path(train_file).read_text().splitlines() if line.strip()]
    return true, pred, scores, train


def write(
    out: str, framework: str, files: list[str], level: int, values: dict, summaries: dict | None = None
) -> None:
    """Store a framework's values on the ML-100K files (``{name: {user: value or None}}``) and the inputs."""
    doc = {"framework": framework, "run": files[0], "qrels": files[1], "train": files[2], "level": level,
           "values": values, "summaries": summaries or {}}  # fmt: skip
    Path(out).write_text(json.dumps(doc))
    print(f"{out}: {framework}, {len(values)} names")


def compare(out: str) -> None:
    """Print, per name and over all, the users compared and the largest |framework − trecrs|."""
    import polars as pl

    import trecrs

    doc = json.loads(Path(out).read_text())
    train = pl.read_csv(doc["train"], separator="\t", has_header=False, columns=[0, 1],
                        new_columns=["user", "item"], schema_overrides=[pl.Utf8, pl.Utf8])  # fmt: skip
    train = train.with_columns(pl.lit(1).alias("rating"))
    names = [*doc["values"], *[n for n in doc["summaries"] if n not in doc["values"]]]
    res = trecrs.evaluate(doc["qrels"], doc["run"], names, relevance_level=doc["level"], train=train)
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    worst, users = 0.0, set()
    for name, want in doc["values"].items():
        diff, n = 0.0, 0
        for u, v in want.items():
            got = rows.get(u, {}).get(name)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                assert got is None, f"{name} {u}: framework gives no value, trecrs {got}"
                continue
            diff, n = max(diff, abs(got - v)), n + 1
            users.add(u)
        worst = max(worst, diff)
        print(f"  {name}: {n} users, max abs difference {diff:.3g}")
    for name, v in doc["summaries"].items():
        worst = max(worst, abs(res.summary[name] - v))
        print(f"  {name}: summary {v:.6f}, trecrs {res.summary[name]:.6f}")
    print(f"{doc['framework']}: {len(users)} users, max abs difference {worst:.3g}")


if __name__ == "__main__":
    compare(sys.argv[1])
