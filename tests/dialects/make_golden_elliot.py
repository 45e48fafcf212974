"""Golden values of the ``elliot:`` dialect: Elliot's own accuracy metric classes on the synthetic fixture.

Elliot is not on PyPI and its pinned requirements have no Python 3.11 wheels, but its metric modules need
only numpy and PyYAML: put a source tree of sisinflab/elliot (``git archive HEAD elliot | tar -x -C DIR``)
on the path with ``ELLIOT_SRC=DIR`` (default /tmp/elliot-src) and run from the repository root:
``python tests/dialects/make_golden_elliot.py``; writes tests/data/dialects/elliot.json. Each metric is
built as Elliot's evaluator builds it (recommendations {user: [(item, score), ...]} best first, a
``Relevance`` of the test ratings with ``relevance_threshold`` = LEVEL) and ``eval_user_metric()`` gives
the per-user values; the users it leaves out (no relevant item) are stored as null. ``GAUC``, ``LAUC`` and
``AUC`` see ``num_items`` = the 50 items (every item has a training rating) and each user's training items;
``AUC`` has only a global value (``eval()``). The stored values were made from sisinflab/elliot at commit
fc27efed (v0.3.1 and 12 commits outside ``elliot/evaluation``).
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

from fixture import CUTOFFS, LEVEL, fixture, training, write_golden

sys.path.insert(0, os.environ.get("ELLIOT_SRC", "/tmp/elliot-src"))

import elliot.evaluation.metrics as metrics  # noqa: E402
from elliot.evaluation.metrics.accuracy.map import map as elliot_map  # noqa: E402
from elliot.evaluation.relevance.relevance import Relevance  # noqa: E402

NAMES = ("nDCG", "nDCGRendle2020", "Precision", "Recall", "HR", "MRR", "MAP", "MAR", "F1", "LAUC")


def main() -> None:
    test, ranked = fixture()
    train = {u: dict.fromkeys(items, 1) for u, items in training().items()}
    config = SimpleNamespace(config_test=True)  # LAUC reads it
    values: dict[str, dict[str, float | None]] = {}
    summaries: dict[str, float] = {}
    for name in (*NAMES, "GAUC", "AUC"):
        for k in CUTOFFS if name in NAMES else (max(CUTOFFS),):
            objects = SimpleNamespace(
                cutoff=k,
                relevance=Relevance(test, LEVEL),
                num_items=50,
                data=SimpleNamespace(train_dict=train),
            )
            metric = metrics._metric_dictionary[name](ranked, config, None, objects)
            spec = f"elliot:{name}@{k}" if name in NAMES else f"elliot:{name}"
            if name == "AUC":
                summaries[spec] = float(metric.eval())
                continue
            per_user = metric.eval_user_metric()
            values[spec] = {u: (None if u not in per_user else float(per_user[u])) for u in ranked}
    print(write_golden("Elliot", elliot_map.__version__, values, summaries))


if __name__ == "__main__":
    main()
