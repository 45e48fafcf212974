"""User groups: each averaged measure's mean per group, the MAD between the group means, and how they print.

The data of tests/measures/test_beyond_accuracy.py: P_1 is 0 for u1 (c), 1 for u2 (b), 0 for u3 (c judged
0); aplt_3 (head {a, b}) is 1, 2/3, 1; ild_3 is 2/3, 1, 1/2. Groups: u1 A, u2 B, u3 A, u4 (not evaluated) C.
"""

from __future__ import annotations

import polars as pl
import pytest

from tests.measures.test_beyond_accuracy import FEATURES, QRELS, RUN, TRAIN
from trecrs import evaluate
from trecrs.errors import UsageError
from trecrs.files.trec import write_qrels, write_run

GROUPS = {"u1": "A", "u2": "B", "u3": "A", "u4": "C"}
MEASURES = ["P.1", "num_ret", "aplt.3", "ild.3", "gini.3"]


def _result(**kw):
    return evaluate(
        QRELS, RUN, MEASURES, train=TRAIN, item_features=FEATURES, head_share=0.5, user_groups=GROUPS, **kw
    )


def test_group_means_and_mad():
    rows = {(q, m): v for q, m, v in _result().groups.iter_rows()}
    want = {
        ("all:A", "P_1"): 0.0, ("all:B", "P_1"): 1.0, ("all", "P_1_mad"): 1.0,
        ("all:A", "aplt_3"): 1.0, ("all:B", "aplt_3"): 2 / 3, ("all", "aplt_3_mad"): 1 / 3,
        ("all:A", "ild_3"): (2 / 3 + 1 / 2) / 2, ("all:B", "ild_3"): 1.0, ("all", "ild_3_mad"): 1 - 7 / 12,
    }  # fmt: skip
    assert rows == pytest.approx(want)  # no num_ret (a sum), no gini (global), no group C (no evaluated user)


def test_printed_after_the_summary_and_absent_from_summary_and_per_query():
    result = _result()
    assert "P_1_mad" not in result.summary and set(result.to_dict()) == {"u1", "u2", "u3"}
    text = result.to_trec()
    tail = text.splitlines()[-9:]
    assert tail[:3] == ["P_1                   \tall:A\t0.0000", "P_1                   \tall:B\t1.0000",
                        "P_1_mad               \tall\t1.0000"]  # fmt: skip
    assert text.splitlines()[0] == "num_ret               \tall\t9"  # the summary first


def test_command_line_with_u_user(cli, tmp_path):
    (tmp_path / "u.user").write_text("1|24|M|technician|85711\n2|53|F|other|94043\n3|23|M|writer|32067\n")
    qrels = QRELS.with_columns(pl.col("query").str.slice(1))
    write_qrels(qrels, tmp_path / "q.txt")
    write_run(RUN.with_columns(pl.col("query").str.slice(1)), tmp_path / "r.txt")
    code, out, err = cli("eval", "-m", "P.1", "--user-groups", tmp_path / "u.user", "--group-by", "gender",
                         tmp_path / "q.txt", tmp_path / "r.txt")  # fmt: skip
    assert code == 0, err
    assert out.splitlines()[-3:] == ["P_1                   \tall:F\t1.0000", "P_1                   \tall:M\t0.0000",
                                     "P_1_mad               \tall\t1.0000"]  # fmt: skip
    code, out, err = cli(
        "eval", "-m", "P.1", "--user-groups", tmp_path / "u.user", tmp_path / "q.txt", tmp_path / "r.txt"
    )
    assert code == 2 and err.startswith("trecrs eval: error: argument --group-by:"), err


def test_group_by_needs_user_groups():
    with pytest.raises(UsageError, match="give user_groups"):
        evaluate(QRELS, RUN, ["P.1"], group_by="gender")
