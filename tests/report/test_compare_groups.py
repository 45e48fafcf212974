"""compare(user_groups=): the paired comparison again on each user group's queries alone."""

from __future__ import annotations

import csv
import io
import json
import warnings

import numpy as np
import pytest
from scipy import stats as scipy_stats

from trecrs import evaluate
from trecrs.errors import TrecrsWarning, UsageError
from trecrs.report.compare import COLUMNS, compare
from trecrs.report.compare_output import FORMATS

from ..warned import warned

QRELS = "q1 0 a 1\nq1 0 b 2\nq2 0 c 1\nq2 0 e 1\nq3 0 d 1\nq3 0 f 1\nq4 0 a 1\nq5 0 b 1\n"
BASE = (
    "q1 Q0 a 1 3 base\nq1 Q0 c 2 2 base\nq1 Q0 b 3 1 base\nq2 Q0 d 1 2 base\nq2 Q0 c 2 1 base\n"
    "q3 Q0 d 1 2 base\nq3 Q0 a 2 1 base\nq4 Q0 b 1 1 base\nq5 Q0 a 1 2 base\nq5 Q0 b 2 1 base\n"
)
SYS = (
    "q1 Q0 b 1 3 sys\nq1 Q0 a 2 2 sys\nq2 Q0 c 1 2 sys\nq2 Q0 e 2 1 sys\n"
    "q3 Q0 f 1 2 sys\nq3 Q0 a 2 1 sys\nq5 Q0 b 1 1 sys\n"
)  # no line for q4: it scores 0
# q5 has no group, qX no compared query: neither forms a group; groups print in bytewise order (M before f)
GROUPS = {"q1": "f", "q3": "f", "q5": None, "q2": "M", "q4": "M", "qX": "z"}


@pytest.fixture
def files(tmp_path):
    for name, text in [("qrels", QRELS), ("base.run", BASE), ("sys.run", SYS)]:
        (tmp_path / name).write_text(text)
    (tmp_path / "groups.tsv").write_text("".join(f"{u}\t{g}\n" for u, g in GROUPS.items() if g))
    return tmp_path


def _compare(files, qrels=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        return compare(
            qrels or str(files / "qrels"),
            [str(files / "base.run"), str(files / "sys.run")],
            ["P@2", "AP"],
            **kw,
        )


def test_each_group_is_the_comparison_on_its_users_qrels_alone(files):
    c = _compare(files, user_groups=str(files / "groups.tsv"))
    assert [(g.users, g.n_queries) for g in c.groups] == [("all:M", 2), ("all:f", 2)]
    assert c.users == "all" and c.n_queries == 5 and c.rows == _compare(files).rows  # all users unchanged
    for g, queries in zip(c.groups, (("q2", "q4"), ("q1", "q3")), strict=True):
        (files / "sub").write_text(
            "".join(line + "\n" for line in QRELS.splitlines() if line.split()[0] in queries)
        )
        alone = _compare(files, str(files / "sub"))
        assert g.rows == alone.rows and g.measures == c.measures and g.baseline == "base"
        # by hand: evaluate's per-query values, the query missing from sys scored 0, t test, Holm over 2 pairs
        with warned("1 of 5 .* qrels queries have no line in the run"):  # q4
            sys_values = evaluate(str(files / "qrels"), str(files / "sys.run"), ["AP"]).to_dict()
        a = np.array([sys_values.get(q, {}).get("AP", 0.0) for q in queries])
        b = np.array(
            [
                evaluate(str(files / "qrels"), str(files / "base.run"), ["AP"]).to_dict()[q]["AP"]
                for q in queries
            ]
        )
        row = g.row("AP", "sys")
        assert (row["mean"], row["baseline_mean"]) == pytest.approx((a.mean(), b.mean()))
        assert row["p_value"] == pytest.approx(scipy_stats.ttest_rel(a, b).pvalue)
        p = sorted(r["p_value"] for r in g.rows if r["p_value"] is not None)
        assert sorted(r["p_adjusted"] for r in g.rows if r["p_adjusted"] is not None) == pytest.approx(
            [min(1, 2 * p[0]), max(min(1, 2 * p[0]), min(1, p[1]))]
        )


def test_formats_write_every_group_after_all_users(files):
    c = _compare(files, user_groups={u: g for u, g in GROUPS.items() if g})
    text = FORMATS["text"](c)
    blocks = text.split("\nusers ")
    assert [b.split("\n", 1)[0] for b in blocks[1:]] == ["all:M", "all:f"]
    assert blocks[0] == FORMATS["text"](_compare(files))
    assert "users: group M only (all:M); queries: every qrels query" in blocks[1] and "n = 2" in blocks[1]
    rows = list(csv.DictReader(io.StringIO(FORMATS["csv"](c))))
    assert list(rows[0]) == [*COLUMNS, "users"]
    assert [r["users"] for r in rows] == ["all"] * 4 + ["all:M"] * 4 + ["all:f"] * 4
    assert float(rows[5]["mean"]) == c.groups[0].row("AP", "sys")["mean"]
    record = json.loads(FORMATS["json"](c))
    assert [(g["users"], g["n_queries"], len(g["rows"])) for g in record["groups"]] == [
        ("all:M", 2, 4),
        ("all:f", 2, 4),
    ]
    assert "groups" not in json.loads(FORMATS["json"](_compare(files)))
    assert (
        FORMATS["markdown"](c).count("**users all:") == 2
        and FORMATS["latex"](c).count(r"\begin{tabular}") == 3
    )


def test_group_by_needs_user_groups(files):
    with pytest.raises(UsageError, match="group_by must come with user_groups=") as refused:
        _compare(files, group_by="gender")
    assert refused.value.arguments == ("group_by",)


def test_group_means_are_evals_group_means(files):
    """The baseline (which answers every query) of each group has eval's ``all:GROUP`` mean."""
    groups = {u: g for u, g in GROUPS.items() if g}
    c = _compare(files, user_groups=groups)
    with warned("1 of 5 .* retrieve fewer than 2 documents"):  # q4
        got = evaluate(
            str(files / "qrels"), str(files / "base.run"), ["P@2", "AP"], user_groups=groups
        ).groups
    want = {(q, m): v for q, m, v in got.iter_rows()}
    for g in c.groups:
        for m in c.measures:
            assert g.row(m, "base")["mean"] == pytest.approx(want[(g.users, m)]), (g.users, m)
