"""The synthetic fixture the framework dialects are checked on, shared by the make_golden_*.py scripts.

20 users, 50 items, seeded: each user has 2 to 9 test ratings 1..5 (the qrels, rel = rating; relevant =
rating >= LEVEL, the frameworks' relevance threshold) and a ranked list of 3 to 15 items with distinct
scores, so several lists are shorter than the largest cutoff, and some users have no relevant item. No
real data. :func:`write_golden` stores it with one framework's per-user values.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np

LEVEL = (
    3  # relevant = rating >= LEVEL: LensKit's test list, RecBole's positives, Elliot's relevance_threshold
)
CUTOFFS = (1, 3, 5, 10)
SEED = 20261125
OUT = Path(__file__).resolve().parents[1] / "data" / "dialects"


def fixture() -> tuple[dict[str, dict[str, int]], dict[str, list[tuple[str, float]]]]:
    """``(test, ranked)``: ``test[user][item] = rating``; ``ranked[user]`` = [(item, score), ...] best first."""
    rng = random.Random(SEED)
    items = [f"i{j:02d}" for j in range(1, 51)]
    test: dict[str, dict[str, int]] = {}
    ranked: dict[str, list[tuple[str, float]]] = {}
    for u in range(1, 21):
        user = f"u{u:02d}"
        rated = rng.sample(items, rng.randint(2, 9))
        low = u % 6 == 0  # every sixth user rates everything below LEVEL: no relevant item
        test[user] = {i: rng.randint(1, LEVEL - 1) if low else rng.randint(1, 5) for i in rated}
        length = rng.randint(3, 15)
        # most test items are recommended, nearer the top than the other items
        pool = [i for i in rated if rng.random() < 0.8] + rng.sample([i for i in items if i not in rated], 15)
        pool.sort(key=lambda i: rng.random() - 0.4 * (i in rated))
        scores = rng.sample(range(100, 1000), length)
        ranked[user] = [
            (i, float(s)) for i, s in zip(pool[:length], sorted(scores, reverse=True), strict=False)
        ]
    return test, ranked


def training() -> dict[str, list[str]]:
    """Each user's training items (rating 1 each): 3 to 8 items neither in the user's test ratings nor in
    the user's list, every item in someone's training data (the catalogue is the 50 items)."""
    test, ranked = fixture()
    rng = random.Random(SEED + 1)
    items = [f"i{j:02d}" for j in range(1, 51)]
    train: dict[str, list[str]] = {}
    for user in test:
        seen = set(test[user]) | {i for i, _ in ranked[user]}
        train[user] = rng.sample([i for i in items if i not in seen], rng.randint(3, 8))
    for item in items:
        if not any(item in t for t in train.values()):
            user = next(
                u
                for u in rng.sample(list(test), len(test))
                if item not in test[u] and item not in {i for i, _ in ranked[u]}
            )
            train[user].append(item)
    return train


def item_categories() -> dict[str, list[str]]:
    """Each of the 50 items' categories: 1 to 3 of six (``c1``..``c6``), seeded, every item with at least one
    (the item features of the diversity names: a category is a binary feature)."""
    rng = random.Random(SEED + 2)
    names = [f"c{j}" for j in range(1, 7)]
    return {f"i{j:02d}": sorted(rng.sample(names, rng.randint(1, 3))) for j in range(1, 51)}


def predictions() -> list[tuple[str, str, float]]:
    """A predicted rating for every test rating: ``(user, item, prediction)``, the rating plus seeded noise
    within [1, 5], in the order of the test ratings (the error measures' input)."""
    test, _ = fixture()
    rng = random.Random(SEED + 2)
    return [
        (u, i, round(min(5.0, max(1.0, r + rng.uniform(-1.5, 1.5))), 3))
        for u, rated in test.items()
        for i, r in rated.items()
    ]


def relevant(test: dict[str, dict[str, int]]) -> dict[str, list[str]]:
    """Each user's items rated >= LEVEL."""
    return {u: [i for i, r in rated.items() if r >= LEVEL] for u, rated in test.items()}


def write_golden(
    framework: str,
    version: str,
    values: dict[str, dict[str, float | None]],
    summaries: dict[str, float] | None = None,
    item_features: dict[str, list[str]] | None = None,
    train: dict[str, list[str]] | None = None,
    item_categories: dict[str, str] | None = None,
    tables: dict[str, list] | None = None,
    more_run: dict[str, list[tuple[str, float]]] | None = None,
    more_qrels: dict[str, dict[str, int]] | None = None,
    ranked: dict[str, list[tuple[str, float]]] | None = None,
    tolerance: float | None = None,
) -> Path:
    """``tests/data/dialects/<framework>.json``: the fixture, the framework's per-user values (None where
    the framework gives no value), the summaries that are not the mean of per-user values (a global
    measure, a weighted mean), its name and version and the command that made the file. ``train``: the
    training items stored (default :func:`training`); ``item_features`` (item -> categories) or
    ``item_categories`` (item -> one category), stored as ``"item_features"``: [[item, category], ...] only
    when given; ``tables``: more inputs after ``train`` (``{"predictions": predictions()}``: the error
    measures'); ``more_run``: ranked lists of more users, stored after the fixture's run, ``more_qrels`` their test
    ratings (users outside the qrels have none); ``ranked``: the lists stored instead of the fixture's
    (:func:`tied`); ``tolerance``: the precision of a framework that computes in float32, stored when given
    (the test's default is 1e-9)."""
    test, fixture_ranked = fixture()
    ranked = fixture_ranked if ranked is None else ranked
    out = OUT / f"{framework.lower()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "framework": framework,
        "version": version,
        "command": f"python {Path(sys.argv[0]).resolve().relative_to(Path(__file__).resolve().parents[2])}",
        "relevance_level": LEVEL,
        "qrels": [[u, i, r] for u, rated in {**test, **(more_qrels or {})}.items() for i, r in rated.items()],
        "run": [[u, i, s] for u, lst in {**ranked, **(more_run or {})}.items() for i, s in lst],
        "train": [[u, i, 1] for u, items in (training() if train is None else train).items() for i in items],
        **(
            {"item_features": [[i, c] for i, cats in item_features.items() for c in cats]}
            if item_features
            else {}
        ),
        **({"item_features": [[i, c] for i, c in item_categories.items()]} if item_categories else {}),
        **{name: [list(row) for row in rows] for name, rows in (tables or {}).items()},
        **({"tolerance": tolerance} if tolerance is not None else {}),
        "values": values,
        "summaries": summaries or {},
    }
    # one line per fixture table and per measure: small diffs when a framework version changes a value
    lines = [
        f" {json.dumps(key)}: {json.dumps(value)}"
        for key, value in doc.items()
        if key not in ("values", "summaries")
    ]
    for key in ("values", "summaries"):
        inner = ",\n".join(f"  {json.dumps(name)}: {json.dumps(v)}" for name, v in doc[key].items())
        lines.append(f" {json.dumps(key)}: {{\n{inner}\n }}" if inner else f" {json.dumps(key)}: {{}}")
    out.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    return out


def tied() -> dict[str, list[tuple[str, float]]]:
    """The fixture's lists with each score rounded down to a multiple of 200, so that most lists hold tied
    scores, in trec_eval's order (score descending, ties by item id descending): the lists a framework that
    ranks ties its own way is checked on."""
    _, ranked = fixture()
    return {
        u: sorted(((i, float(int(s) // 200 * 200)) for i, s in lst), key=lambda t: (t[1], t[0]), reverse=True)
        for u, lst in ranked.items()
    }


COLD = ("i47", "i48", "i49", "i50")  # in no training data of training_seen(), yet recommended


def training_seen() -> dict[str, list[str]]:
    """:func:`training` with items the users were recommended and items nobody rated: the four :data:`COLD`
    items leave every training list (they stay in rankings), and every third user (u03, u06, ...) also
    rated the second and the last item of their list before (training items that get recommended again)."""
    _, ranked = fixture()
    train = {u: [i for i in items if i not in COLD] for u, items in training().items()}
    for n, user in enumerate(train, start=1):
        if n % 3 == 0:
            listed = [i for i, _ in ranked[user]]
            train[user] += [i for i in (listed[1], listed[-1]) if i not in COLD and i not in train[user]]
    return train


def categories() -> dict[str, str]:
    """One category per item, ``g1`` to ``g6``, seeded: the item categories of the diversity names."""
    rng = random.Random(SEED + 2)
    return {f"i{j:02d}": f"g{rng.randint(1, 6)}" for j in range(1, 51)}


def read_trec(
    qrels: str, run: str, train: str
) -> tuple[dict[str, dict[str, int]], dict[str, list[tuple[str, float]]], dict[str, list[str]]]:
    """``(test, ranked, train)`` as :func:`fixture` and :func:`training` give them, read from a TREC qrels file
    (``user 0 item rating``), a TREC run (its lists in trec_eval's order: score descending, item id
    descending) and a ratings file (``user item rating ...``): the ``--ml100k`` check of the make_golden
    scripts, whose per-user values are compared with trecrs's by hand and never stored."""
    test: dict[str, dict[str, int]] = {}
    for line in Path(qrels).read_text().splitlines():
        u, _, i, r = line.split()
        test.setdefault(u, {})[i] = int(r)
    ranked: dict[str, list[tuple[str, float]]] = {}
    for line in Path(run).read_text().splitlines():
        u, _, i, _, s, _ = line.split()
        ranked.setdefault(u, []).append((i, float(s)))
    order = {
        u: sorted(lst, key=lambda t: (float(np.float32(t[1])), t[0]), reverse=True)
        for u, lst in ranked.items()
    }
    seen: dict[str, list[str]] = {}
    for line in Path(train).read_text().splitlines():
        u, i = line.split()[:2]
        seen.setdefault(u, []).append(i)
    return test, order, seen
