"""Golden values of the ``ranx:`` dialect: ranx's own ``evaluate`` on the synthetic fixture.

Run from the repository root with ranx installed (``pip install ranx==0.3.21``, which brings numba):
``python tests/dialects/make_golden_ranx.py``; writes tests/data/dialects/ranx.json. ranx sees the graded
test ratings 1..5 as its qrels (``Qrels``) and the ranked lists as its run (``Run``), and every name is
asked for twice: plain, where ranx's default relevance level 1 makes every rated item relevant (and
``ndcg``, ``dcg``, ``rbp`` use the rating as gain), and with ranx's ``-l3`` suffix, the fixture's
LEVEL. Values are computed one user at a time (a ``Qrels`` and a ``Run`` of that user alone): ranx's
batch ``bpref`` stops at a user without a relevant item (a ZeroDivisionError inside its numba
``prange`` loop) and leaves 0 for the users after it in the same chunk; every other name is checked to
give the same value in the batch. ranx's NaN (``bpref`` of a user without a judged non-relevant item
who has a relevant one in the list: 0/0) is stored as null.
"""

from __future__ import annotations

import math
from importlib.metadata import version

import numpy as np
from fixture import CUTOFFS, LEVEL, fixture, write_golden
from ranx import Qrels, Run, evaluate

CUT = (
    "precision",
    "recall",
    "f1",
    "hits",
    "hit_rate",
    "mrr",
    "map",
    "ndcg",
    "ndcg_burges",
    "dcg",
    "dcg_burges",
)
WHOLE = ("r-precision", "bpref", "rbp.95")


def names() -> list[str]:
    """Every name as ranx spells it, plain and at ``-l<LEVEL>``."""
    plain = [f"{n}@{k}" for n in CUT for k in CUTOFFS] + list(WHOLE)
    return [m for n in plain for m in (n, f"{n}-l{LEVEL}")]


def main() -> None:
    test, ranked = fixture()
    run = {u: dict(lst) for u, lst in ranked.items()}
    metrics = names()
    per_user = {u: evaluate(Qrels({u: test[u]}), Run({u: run[u]}), metrics, return_mean=False) for u in test}
    batch = evaluate(Qrels(test), Run(run), metrics, return_mean=False)
    users = sorted(test)  # ranx's query order
    values: dict[str, dict[str, float | None]] = {}
    for m in metrics:
        got = {u: float(per_user[u][m][0]) for u in test}
        if not m.startswith("bpref"):
            assert np.allclose([got[u] for u in users], batch[m], rtol=0, atol=1e-12), m
        values[f"ranx:{m}"] = {u: None if math.isnan(got[u]) else got[u] for u in ranked}
    print(write_golden("ranx", version("ranx"), values))


if __name__ == "__main__":
    main()
