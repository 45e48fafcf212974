"""Golden values of the ``daisyrec:`` dialect: DaisyRec's own metric functions on the synthetic fixture.

Needs DaisyRec's metrics module (``pip install --no-deps daisyrec==2.3.0 "numpy<2" pandas``: the metric
functions import only numpy and pandas and use ``np.asfarray``, gone in numpy 2; the package's other
requirements, torch among them, are for its models). Run from the repository root:
``python tests/dialects/make_golden_daisyrec.py``; writes tests/data/dialects/daisyrec.json.
DaisyRec's functions take ``test_ur`` (user -> the set of test items: here the items rated >= LEVEL, DaisyRec
having no relevance threshold at this point, so a user without a relevant item is not a test user), ``pred_ur``
(one rank list per test user, cut at k: here each list's first k items, best first) and ``test_u`` (the test
users in the order of ``pred_ur``) and return the mean over the test users; each user's value is the
function called on that user alone (``test_u`` of one user). ``Coverage`` is one number (a summary) over the
test users' lists and the 50 items (``item_num``). The script also shows two traps of ``Metric.run`` (see docs/frameworks.md).

``--ml100k RUN QRELS TRAIN OUT`` writes DaisyRec's values at k = 20 on a real run instead (relevant = rel >= 1;
tests/dialects/ml100k.py compares them with trecrs).
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
from daisy import __version__
from daisy.utils.metrics import AUC, F1, HR, MAP, MRR, NDCG, Coverage, Metric, Precision, Recall
from fixture import CUTOFFS, fixture, relevant, write_golden
from ml100k import read as ml100k_read
from ml100k import write as ml100k_write

FUNCTIONS = {"Precision": Precision, "Recall": Recall, "MRR": MRR, "MAP": MAP, "NDCG": NDCG, "HR": HR, "AUC": AUC,
             "F1": F1}  # fmt: skip


def per_user(
    true: dict[str, list[str]], pred: dict[str, list[str]], k: int
) -> dict[str, dict[str, float | None]]:
    """Every per-user name at cutoff ``k``: ``{spec: {user: value}}`` (None: NaN, or not a test user)."""
    values: dict[str, dict[str, float | None]] = {}
    test_ur = {u: set(items) for u, items in true.items()}
    for name, fn in FUNCTIONS.items():
        got: dict[str, float | None] = {}
        for u in pred:
            if u not in test_ur:
                got[u] = None
                continue
            with warnings.catch_warnings():  # AUC and F1 divide 0 by 0 (NaN) for a list without a hit
                warnings.simplefilter("ignore", RuntimeWarning)
                v = float(fn(test_ur, [np.array(pred[u][:k])], [u]))
            got[u] = None if math.isnan(v) else v
        values[f"daisyrec:{name}@{k}"] = got
    return values


def traps() -> None:
    """``Metric.run`` never reaches ``f1`` and ``auc``, and ``calc_ranking_results`` has no label for ``map``."""
    for metrics in (["f1"], ["ndcg", "auc"]):
        try:
            Metric({"metrics": metrics, "item_num": 1}).run({"u": {1}}, np.array([[1, 2]]), ["u"])
        except (UnboundLocalError, NameError, ValueError) as e:
            print(f"Metric.run with {metrics}: {type(e).__name__}: {e}")


def main() -> None:
    test, ranked = fixture()
    true = {u: items for u, items in relevant(test).items() if items}
    pred = {u: [i for i, _ in lst] for u, lst in ranked.items()}
    values: dict[str, dict[str, float | None]] = {}
    summaries: dict[str, float] = {}
    for k in CUTOFFS:
        values.update(per_user(true, pred, k))
        # the test users' lists (DaisyRec ranks for them only), as one array: the fixture's lists differ in length
        summaries[f"daisyrec:Coverage@{k}"] = float(
            Coverage(np.concatenate([np.array(pred[u][:k]) for u in true]), 50)
        )
    order = list(FUNCTIONS)
    values = {
        n: values[n]
        for n in sorted(values, key=lambda s: (order.index(s[9:].split("@")[0]), int(s.split("@")[1])))
    }
    traps()
    print(write_golden("DaisyRec", __version__.lstrip("v"), values, summaries=summaries))


def ml100k(run_file: str, qrels_file: str, train_file: str, out: str, k: int = 20) -> None:
    """DaisyRec's values of every name at ``k`` on a real run, relevant = rel >= 1 (for ml100k.py)."""
    true, pred, _, train = ml100k_read(run_file, qrels_file, train_file, 1)
    items = {i for _, i in train} | {i for lst in pred.values() for i in lst}
    summaries = {f"daisyrec:Coverage@{k}": float(Coverage(np.array([pred[u][:k] for u in true]), len(items)))}
    ml100k_write(
        out,
        f"DaisyRec {__version__}",
        [run_file, qrels_file, train_file],
        1,
        per_user(true, pred, k),
        summaries,
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--ml100k"]:
        ml100k(*sys.argv[2:6])
    else:
        main()
