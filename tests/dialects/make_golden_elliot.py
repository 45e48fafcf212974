"""Golden values of the ``elliot:`` dialect: Elliot's own accuracy metric classes on the synthetic fixture.

Elliot is not on PyPI and its pinned requirements have no Python 3.11 wheels, but its metric modules need
only numpy and PyYAML: put a source tree of sisinflab/elliot (``git archive HEAD elliot | tar -x -C DIR``)
on the path with ``ELLIOT_SRC=DIR`` (default /tmp/elliot-src) and run from the repository root:
``python tests/dialects/make_golden_elliot.py``; writes tests/data/dialects/elliot.json. Each metric is
built as Elliot's evaluator builds it (recommendations {user: [(item, score), ...]} best first, a
``Relevance`` of the test ratings with ``relevance_threshold`` = LEVEL) and ``eval_user_metric()`` gives
the per-user values; the users it leaves out (no relevant item) are stored as null.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

from fixture import CUTOFFS, LEVEL, fixture, write_golden

sys.path.insert(0, os.environ.get("ELLIOT_SRC", "/tmp/elliot-src"))

import elliot.evaluation.metrics as metrics  # noqa: E402
from elliot.evaluation.metrics.accuracy.map import map as elliot_map  # noqa: E402
from elliot.evaluation.relevance.relevance import Relevance  # noqa: E402

NAMES = ("nDCG", "nDCGRendle2020", "Precision", "Recall", "HR", "MRR", "MAP", "MAR", "F1")


def main() -> None:
    test, ranked = fixture()
    values: dict[str, dict[str, float | None]] = {}
    for name in NAMES:
        for k in CUTOFFS:
            objects = SimpleNamespace(cutoff=k, relevance=Relevance(test, LEVEL), num_items=50,
                                      data=SimpleNamespace(train_dict={u: {} for u in test}))
            per_user = metrics._metric_dictionary[name](ranked, SimpleNamespace(), None, objects).eval_user_metric()
            values[f"elliot:{name}@{k}"] = {u: (None if u not in per_user else float(per_user[u])) for u in ranked}
    print(write_golden("Elliot", elliot_map.__version__, values))


if __name__ == "__main__":
    main()
