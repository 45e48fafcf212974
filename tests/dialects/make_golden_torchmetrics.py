"""Golden values of the ``torchmetrics:`` dialect: torchmetrics' own retrieval classes and functions on the
synthetic fixture.

Needs torch and torchmetrics (``pip install torch --index-url https://download.pytorch.org/whl/cpu``,
``pip install torchmetrics==1.9.0``; not in trecrs's test extra). Run from the repository root:
``python tests/dialects/make_golden_torchmetrics.py``; writes tests/data/dialects/torchmetrics.json.
Every user's ``preds`` are the list's scores, then the items rated >= LEVEL that the list missed, scored
min(0, lowest listed score − 1); ``target`` is the rating of an item rated >= LEVEL, else 0
(``RetrievalNormalizedDCG``), or 1 / 0; ``indexes`` the user's number. Each class is updated with every
user at once and computed with ``aggregation`` returning the per-user values (in user order, a user
``skip`` leaves out absent: stored as null); each function is called on one user. torchmetrics computes in
float32: the test compares to 1e-6. :data:`SIGNED_RUN` adds a user with zero and negative scores (counted
as not retrieved by Precision, Recall, MAP and MRR). torch's ``topk`` leaves tied items in no fixed order
(``[5, 5, 4, 4, 4]`` comes out as indices 1, 0, 4, 2, 3), so the fixture has no ties; ``--tied`` prints
``RetrievalNormalizedDCG`` (which averages over ties) on the users of :data:`make_golden_sklearn.TIED_RUN`,
the values tests/measures/test_dialects.py holds.

``--ml100k QRELS RUN LEVEL`` instead compares trecrs with torchmetrics on a qrels/run pair (with trecrs
importable: ``PYTHONPATH=.``) and prints, per name, the users compared and the largest difference.
"""

from __future__ import annotations

import sys

import torch
import torchmetrics
from fixture import CUTOFFS, LEVEL, fixture, write_golden
from make_golden_sklearn import TIED_QRELS, TIED_RUN, vectors
from torchmetrics import retrieval as R
from torchmetrics.functional import retrieval as F

SIGNED_RUN = {"t4": [("a", 2.0), ("b", 0.0), ("c", -1.0), ("d", -2.0)]}
SIGNED_QRELS = {"t4": {"b": 5, "c": 4, "x1": 3}}
ACTIONS = {"": "neg", "(empty_target_action=pos)": "pos", "(empty_target_action=skip)": "skip"}
# class name, class, function, whether it takes top_k, its keyword arguments, graded target
CLASSES = (
    ("RetrievalNormalizedDCG", R.RetrievalNormalizedDCG, F.retrieval_normalized_dcg, True, {}, True),
    ("RetrievalPrecision", R.RetrievalPrecision, F.retrieval_precision, True, {}, False),
    ("RetrievalPrecision(adaptive_k=True)", R.RetrievalPrecision, F.retrieval_precision, True,
     {"adaptive_k": True}, False),
    ("RetrievalRecall", R.RetrievalRecall, F.retrieval_recall, True, {}, False),
    ("RetrievalMAP", R.RetrievalMAP, F.retrieval_average_precision, True, {}, False),
    ("RetrievalMRR", R.RetrievalMRR, F.retrieval_reciprocal_rank, True, {}, False),
    ("RetrievalHitRate", R.RetrievalHitRate, F.retrieval_hit_rate, True, {}, False),
    ("RetrievalFallOut", R.RetrievalFallOut, F.retrieval_fall_out, True, {}, False),
    ("RetrievalRPrecision", R.RetrievalRPrecision, F.retrieval_r_precision, False, {}, False),
    ("RetrievalAUROC", R.RetrievalAUROC, F.retrieval_auroc, True, {}, False),
)  # fmt: skip


def _tensors(users, ranked, test, level, graded):
    """``preds, target, indexes`` of every user, and each user's (preds, target)."""
    each = []
    for u in users:
        gains, scores = vectors(ranked[u], test.get(u, {}), level)
        target = gains if graded else [int(g > 0) for g in gains]
        each.append((torch.tensor(scores), torch.tensor(target)))
    index = torch.cat([torch.full((p.numel(),), n) for n, (p, _) in enumerate(each)])
    return torch.cat([p for p, _ in each]), torch.cat([t for _, t in each]), index, each


def class_values(cls, kwargs, action, k, preds, target, index, each) -> list[float | None]:
    """The class's per-user values (``aggregation`` returning them), None where ``skip`` leaves a user out."""
    top = {"top_k": k} if k is not None else {}
    metric = cls(empty_target_action=action, aggregation=lambda v, dim=None: v, **top, **kwargs)
    metric.update(preds, target, indexes=index)
    got = metric.compute().tolist()
    fall_out = cls is R.RetrievalFallOut
    empty = [bool(((1 - t) if fall_out else t).sum() == 0) for _, t in each]
    if action != "skip":
        return got
    assert len(got) == empty.count(False)
    values = iter(got)
    return [None if e else next(values) for e in empty]


def all_values(users, ranked, test, level, cutoffs) -> dict[str, dict[str, float | None]]:
    """Every name's per-user values on these users."""
    values: dict[str, dict[str, float | None]] = {}
    for name, cls, fn, has_k, kwargs, graded in CLASSES:
        preds, target, index, each = _tensors(users, ranked, test, level, graded)
        for k in cutoffs if has_k else [None]:
            at = f"@{k}" if k is not None else ""
            for suffix, action in ACTIONS.items() if "(" not in name else [("", "neg")]:
                got = class_values(cls, kwargs, action, k, preds, target, index, each)
                values[f"torchmetrics:{name}{suffix}{at}"] = dict(zip(users, got, strict=True))
            top = {"top_k": k} if k is not None else {}
            spelled = fn.__name__ + ("(adaptive_k=True)" if kwargs else "")
            values[f"torchmetrics:{spelled}{at}"] = {
                u: float(fn(p, t, **top, **kwargs)) for u, (p, t) in zip(users, each, strict=True)
            }
    return values


def main() -> None:
    test, ranked = fixture()
    test, ranked = {**test, **SIGNED_QRELS}, {**ranked, **SIGNED_RUN}
    values = all_values(list(ranked), ranked, test, LEVEL, CUTOFFS)
    print(write_golden("torchmetrics", torchmetrics.__version__, values, more_run=SIGNED_RUN,
                       more_qrels=SIGNED_QRELS))  # fmt: skip


def tied() -> None:
    """``RetrievalNormalizedDCG`` on the users with tied scores, per user and cutoff."""
    values = all_values(list(TIED_RUN), TIED_RUN, TIED_QRELS, LEVEL, CUTOFFS)
    for k in CUTOFFS:
        print(k, values[f"torchmetrics:RetrievalNormalizedDCG@{k}"])


def ml100k(qrels_path: str, run_path: str, level: int) -> None:
    """trecrs against torchmetrics on a qrels/run pair: per name, users compared and max abs difference."""
    import trecrs

    test: dict[str, dict[str, int]] = {}
    ranked: dict[str, list[tuple[str, float]]] = {}
    for line in open(qrels_path):
        u, _, i, r = line.split()
        test.setdefault(u, {})[i] = int(r)
    for line in open(run_path):
        u, _, i, _, s, _ = line.split()
        ranked.setdefault(u, []).append((i, float(s)))
    users = sorted(u for u in ranked if u in test)
    values = all_values(users, ranked, test, level, (5, 10, 20))
    res = trecrs.evaluate(qrels_path, run_path, list(values), relevance_level=level)
    rows = {r["query"]: r for r in res.per_query.to_dicts()}
    for name, want in values.items():
        diffs = []
        for u in users:
            got = rows[u][name]
            assert (want[u] is None) == (got is None), (name, u, want[u], got)
            diffs.append(0.0 if got is None else abs(want[u] - got))
        print(f"{name}: {len(users)} users, max abs diff {max(diffs):.3g}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--ml100k"]:
        ml100k(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1:2] == ["--tied"]:
        tied()
    else:
        main()
