"""Golden values of the ``evidently:`` dialect: evidently's own reports, new API and legacy, on the synthetic fixture.

Needs evidently (``pip install evidently==0.7.23 "pandas<3"``; not in trecrs's test extra). Run from the
repository root: ``python tests/dialects/make_golden_evidently.py``; writes tests/data/dialects/evidently.json.
evidently takes one row per (user, item): ``prediction`` (a score, ``recommendations_type="score"``) and
``target``. Each user's rows are the list's items with their scores (target 1 for an item rated >= LEVEL,
else 0), then the user's items rated >= LEVEL the list missed (target 1), scored below every listed item in
item id descending order, the rows in that (rank) order. Every metric returns only a mean over users (a
table of (rank, value) in the new API), so each user's value comes from a report on two users: the user and
a padding user whose 10 rows (target 1 at rank 1 only; k rows past 10) make every cutoff exist; the user's value is twice
the mean less the padding user's own value (a user without a relevant item is left out by default: None).
``FBetaTopK``, the F-beta of the mean precision and recall, is a summary of a report on every user, which
also checks each per-user name's mean.

``--ml100k RUN QRELS TRAIN OUT`` writes evidently's values at k = 20 on a real run instead (relevant = rel >=
1, ``recommendations_type="rank"``: the run's ranks, evidently averaging tied scores' ranks; tests/dialects/
ml100k.py compares them with trecrs).
"""

from __future__ import annotations

import math
import sys
import warnings

import evidently
import pandas as pd
from evidently import DataDefinition, Dataset, Recsys, Report
from evidently import metrics as new
from evidently.legacy import metrics as legacy
from evidently.legacy.pipeline.column_mapping import ColumnMapping
from evidently.legacy.report import Report as LegacyReport
from fixture import CUTOFFS, LEVEL, fixture, write_golden
from ml100k import read as ml100k_read
from ml100k import write as ml100k_write

warnings.simplefilter("ignore")  # pandas FutureWarnings from evidently's own code
NOFB = "(no_feedback_users=True)"
NEW = {"PrecisionTopK": new.PrecisionTopK, "RecallTopK": new.RecallTopK, "MAP": new.MAP, "NDCG": new.NDCG,
       "MRR": new.MRR, "HitRate": new.HitRate}  # fmt: skip
LEGACY = {"PrecisionTopKMetric": legacy.PrecisionTopKMetric, "RecallTopKMetric": legacy.RecallTopKMetric,
          "MAPKMetric": legacy.MAPKMetric, "MARKMetric": legacy.MARKMetric, "NDCGKMetric": legacy.NDCGKMetric,
          "MRRKMetric": legacy.MRRKMetric, "HitRateKMetric": legacy.HitRateKMetric}  # fmt: skip
PAD = "~pad"  # the padding user


def rows(user: str, listed: list[tuple[str, float]], relevant: set[str]) -> list[tuple[str, str, float, int]]:
    """``(user, item, prediction, target)``: the list, then its missed relevant items scored below it."""
    low = min((s for _, s in listed), default=0.0)
    missed = sorted(relevant - {i for i, _ in listed}, reverse=True)
    return [(user, i, s, int(i in relevant)) for i, s in listed] + [
        (user, i, low - 1 - n, 1) for n, i in enumerate(missed)
    ]


def padding(k: int) -> list[tuple[str, str, float, int]]:
    """The padding user's max(10, k) rows, target 1 at rank 1 only: evidently raises (KeyError) for a cutoff
    beyond every user's rows."""
    n = max(10, k)
    return rows(PAD, [(f"p{j:02d}", float(2 * n - j)) for j in range(n)], {"p00"})


def new_report(frame: pd.DataFrame, k: int, kind: str = "score") -> dict[str, float | None]:
    """The new API's values at label k: ``{name: value}`` (None: no row labelled k)."""
    definition = DataDefinition(numerical_columns=["prediction", "target"], categorical_columns=["user_id", "item_id"],
                                ranking=[Recsys(recommendations_type=kind)])  # fmt: skip
    made = {
        name + nofb: cls(k=k, no_feedback_users=bool(nofb))
        for name, cls in NEW.items()
        for nofb in ("", NOFB)
    }
    made.update({f"FBetaTopK{nofb}": new.FBetaTopK(k=k, no_feedback_users=bool(nofb)) for nofb in ("", NOFB)})
    made["FBetaTopK(beta=2)"] = new.FBetaTopK(k=k, beta=2.0)
    report = Report(list(made.values()))
    snapshot = report.run(Dataset.from_pandas(frame, data_definition=definition), None)
    out: dict[str, float | None] = {}
    for name, metric in made.items():
        table = snapshot._context.get_metric_result(metric).value
        at = table[table["rank"] == k]["value"]
        out[name] = float(at.iloc[0]) if len(at) else None
    return out


def legacy_report(frame: pd.DataFrame, k: int, kind: str = "score") -> dict[str, float | None]:
    """The legacy classes' values at k (the value their renderer shows: ``current[k]``, or ``current[k - 1]``
    for a table indexed from 0)."""
    made = {name: cls(k=k) for name, cls in LEGACY.items()}
    made["FBetaTopKMetric"] = legacy.FBetaTopKMetric(k=k)
    mapping = ColumnMapping(user_id="user_id", item_id="item_id", target="target", prediction="prediction",
                            recommendations_type=kind)  # fmt: skip
    LegacyReport(metrics=list(made.values())).run(
        reference_data=None, current_data=frame, column_mapping=mapping
    )
    out: dict[str, float | None] = {}
    for name, metric in made.items():
        series = metric.get_result().current
        out[name] = float(series[k - 1 if min(series.index) == 0 else k])
    return out


def frame(data: list[tuple[str, str, float, int]]) -> pd.DataFrame:
    return pd.DataFrame(data, columns=["user_id", "item_id", "prediction", "target"])


def per_user(users: dict[str, list[tuple[str, str, float, int]]], k: int, kind: str = "score") -> dict:
    """Every per-user name at ``k``: ``{spec: {user: value}}`` from two-user reports (see the module doc)."""
    pad_rows = padding(k)
    if kind == "rank":
        pad_rows = [(u, i, n + 1, t) for n, (u, i, _, t) in enumerate(pad_rows)]  # type: ignore[misc]
    pad = {**new_report(frame(pad_rows), k, kind), **legacy_report(frame(pad_rows), k, kind)}
    values: dict[str, dict[str, float | None]] = {}
    for user, data in users.items():
        both = frame(data + pad_rows)
        got = {**new_report(both, k, kind), **legacy_report(both, k, kind)}
        has_relevant = any(t for *_, t in data)
        for name, v in got.items():
            if name.startswith("FBetaTopK"):
                continue
            keep = has_relevant or name.endswith(NOFB)
            values.setdefault(f"evidently:{name}@{k}", {})[user] = (
                None if v is None or not keep else 2 * v - pad[name]  # type: ignore[operator]
            )
    return values


def main() -> None:
    test, ranked = fixture()
    users = {u: rows(u, ranked[u], {i for i, r in test[u].items() if r >= LEVEL}) for u in ranked}
    values: dict[str, dict[str, float | None]] = {}
    summaries: dict[str, float] = {}
    for k in CUTOFFS:
        per = per_user(users, k)
        whole = {**new_report(frame([r for d in users.values() for r in d]), k),
                 **legacy_report(frame([r for d in users.values() for r in d]), k)}  # fmt: skip
        for name, v in whole.items():
            spec = f"evidently:{name}@{k}"
            if name.startswith("FBetaTopK"):
                summaries[spec] = float(v)  # type: ignore[arg-type]
                continue
            mine = [x for x in per[spec].values() if x is not None]
            mean = sum(mine) / len(mine) if mine else None
            assert (v is None and mean is None) or math.isclose(v, mean, abs_tol=1e-12), (spec, v, mean)  # type: ignore[arg-type]
        values.update(per)
    names = [n for name in NEW for n in (name, name + NOFB)] + list(LEGACY)
    values = {
        s: values[s]
        for s in sorted(values, key=lambda s: (names.index(s[10:].split("@")[0]), int(s.split("@")[1])))
    }
    print(write_golden("evidently", evidently.__version__, values, summaries=summaries))


def ml100k(run_file: str, qrels_file: str, train_file: str, out: str, k: int = 20) -> None:
    """evidently's values of every name at ``k`` on a real run, relevant = rel >= 1 (for ml100k.py)."""
    true, pred, _, _ = ml100k_read(run_file, qrels_file, train_file, 1)
    users = {}
    for u, lst in pred.items():  # rows in rank order, numbered 1..n+m as the prediction
        data = rows(u, [(i, float(-n)) for n, i in enumerate(lst)], set(true.get(u, [])))
        users[u] = [
            (u, i, n + 1, t) for n, (_, i, _, t) in enumerate(data)
        ]  # integer ranks: MRR and HitRate take range(max rank)
    whole = frame([r for d in users.values() for r in d])
    values = per_user(users, k, "rank")
    summaries = {f"evidently:{n}@{k}": float(v) for n, v in {**new_report(whole, k, "rank"),  # type: ignore[arg-type]
                 **legacy_report(whole, k, "rank")}.items() if n.startswith("FBetaTopK")}  # fmt: skip
    ml100k_write(
        out, f"evidently {evidently.__version__}", [run_file, qrels_file, train_file], 1, values, summaries
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--ml100k"]:
        ml100k(*sys.argv[2:6])
    else:
        main()
