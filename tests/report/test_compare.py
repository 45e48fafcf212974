"""trecrs.report.compare: the values it compares are evaluate()'s per-query values, its statistics stats'."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy import stats as scipy_stats

from trecrs import evaluate
from trecrs.errors import SemanticError, TrecrsWarning, UsageError
from trecrs.files.manifest import write_manifest
from trecrs.report import stats
from trecrs.report.compare import COLUMNS, Settings, compare, pair_rngs, per_query_values
from trecrs.report.compare_output import FORMATS

from ..warned import warned

QRELS = "q1 0 a 1\nq1 0 b 2\nq2 0 c 1\nq2 0 e 1\nq3 0 d 1\nq3 0 f 1\nq4 0 a 1\n"
BASE = (
    "q1 Q0 a 1 3 base\nq1 Q0 c 2 2 base\nq1 Q0 b 3 1 base\nq2 Q0 d 1 2 base\nq2 Q0 c 2 1 base\n"
    "q3 Q0 d 1 2 base\nq3 Q0 a 2 1 base\nq4 Q0 b 1 1 base\n"
)
SYS = (
    "q1 Q0 b 1 3 sys\nq1 Q0 a 2 2 sys\nq2 Q0 c 1 2 sys\nq2 Q0 e 2 1 sys\n"
    "q3 Q0 f 1 2 sys\nq3 Q0 a 2 1 sys\n"
)  # no line for q4: it scores 0 unless --common-queries


# what evaluate and compare say of these files: q4 is not in sys.run; no run has a manifest
SYS_MISSING = "1 of 4 .* qrels queries have no line in the run"
NO_MANIFEST = "2 of 2 runs have no manifest"


@pytest.fixture
def files(tmp_path):
    for name, text in [("qrels", QRELS), ("base.run", BASE), ("sys.run", SYS)]:
        (tmp_path / name).write_text(text)
    return tmp_path


def _compare(files, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        return compare(
            str(files / "qrels"), [str(files / "base.run"), str(files / "sys.run")], ["P@2", "AP"], **kw
        )


def test_values_are_evaluate_per_query_values_with_missing_queries_zero(files):
    c = _compare(files)
    assert c.n_queries == 4 and c.measures == [
        "P@2",
        "AP",
    ]  # the order asked for (eval prints AP first) and c.systems == ["base", "sys"]
    base = evaluate(str(files / "qrels"), str(files / "base.run"), ["AP"]).to_dict()
    with warned(SYS_MISSING):
        sys_ = evaluate(str(files / "qrels"), str(files / "sys.run"), ["AP"]).to_dict()
    a = np.array([sys_.get(q, {}).get("AP", 0.0) for q in ("q1", "q2", "q3", "q4")])
    b = np.array([base[q]["AP"] for q in ("q1", "q2", "q3", "q4")])
    assert a[3] == 0.0  # q4 is missing from sys: scored 0
    row = c.row("AP", "sys")
    assert row["mean"] == pytest.approx(a.mean()) and row["baseline_mean"] == pytest.approx(b.mean())
    assert row["p_value"] == pytest.approx(scipy_stats.ttest_rel(a, b).pvalue)
    assert row["effect_size"] == pytest.approx((a - b).mean() / (a - b).std(ddof=1))
    assert (row["wins"], row["ties"], row["losses"]) == stats.wins_ties_losses(a, b)
    # trec_eval -c: the mean over every qrels query
    assert (
        row["mean"]
        == evaluate(str(files / "qrels"), str(files / "sys.run"), ["AP"], average_all=True).summary["AP"]
    )
    # the by-hand per-query values: P@2 of sys = 1, 1, 0.5, 0
    with warned(SYS_MISSING):
        assert [per_query_values(_ev(files, "sys.run"))["P@2"][q] for q in ("q1", "q2", "q3")] == [
            1.0,
            1.0,
            0.5,
        ]


def _ev(files, run):
    from trecrs.evaluate import evaluate_full

    return evaluate_full(str(files / "qrels"), str(files / run), ["P@2"])


def test_common_queries_leave_out_unanswered(files):
    c = _compare(files, settings=Settings(query_rule="common"))
    assert c.n_queries == 3
    assert c.row("P@2", "sys")["mean"] == pytest.approx(2.5 / 3)


def test_corrections_over_every_pair_and_baseline_row(files):
    c = _compare(files, settings=Settings(correction="bonferroni"))
    base, pairs = c.row("AP", "base"), [c.row(m, "sys") for m in c.measures]
    assert base["p_value"] is None and base["delta"] is None and base["wins"] is None
    for r in pairs:
        assert r["p_adjusted"] == pytest.approx(min(1.0, 2 * r["p_value"]))


def test_bootstrap_and_randomization_depend_on_the_pair_only(files):
    s = Settings(test="randomization", resamples=500, seed=3)
    one, two = _compare(files, settings=s), _compare(files, settings=s)
    assert FORMATS["csv"](one) == FORMATS["csv"](two)
    r = one.row("AP", "sys")
    with warned(SYS_MISSING):
        rows = evaluate(str(files / "qrels"), str(files / "sys.run"), ["AP"]).to_dict()
    base = evaluate(str(files / "qrels"), str(files / "base.run"), ["AP"]).to_dict()
    diff = np.array([rows.get(q, {}).get("AP", 0.0) - base[q]["AP"] for q in ("q1", "q2", "q3", "q4")])
    test_rng, boot_rng = pair_rngs(3, "AP", "sys", "base")
    assert r["p_value"] == stats.randomization(diff, rng=test_rng, resamples=500)
    assert (r["ci_low"], r["ci_high"]) == stats.bootstrap_ci(diff, rng=boot_rng, resamples=500)


def test_baseline_by_tag_and_same_tags_refused(files):
    c = _compare(files, baseline="sys")
    assert c.baseline == "sys" and c.row("AP", "base")["baseline"] == "sys"
    (files / "copy.run").write_text(SYS)
    with warned("runs share the tag 'sys': systems are named by their file names", NO_MANIFEST):
        c = compare(str(files / "qrels"), [str(files / "sys.run"), str(files / "copy.run")], ["AP"])
    assert c.systems == ["sys.run", "copy.run"] and c.row("AP", "copy.run")["ties"] == 4
    (files / "again").mkdir()
    (files / "again" / "sys.run").write_text(SYS)
    with pytest.raises(UsageError, match="same tag and the same file name 'sys.run': re-tag one"):
        compare(str(files / "qrels"), [str(files / "sys.run"), str(files / "again" / "sys.run")], ["AP"])
    with pytest.raises(UsageError, match="baseline 'nope'"):
        _compare(files, baseline="nope")


def test_summary_only_measures_refused(files):
    with pytest.raises(UsageError, match="gm_map has a value for the whole run only"), warned(NO_MANIFEST):
        compare(str(files / "qrels"), [str(files / "base.run"), str(files / "sys.run")], ["gm_map"])
    with pytest.raises(UsageError, match="relstring is a string"), warned(NO_MANIFEST):
        compare(str(files / "qrels"), [str(files / "base.run"), str(files / "sys.run")], ["relstring.3"])


def test_csv_columns_and_json_settings(files):
    c = _compare(files)
    head = FORMATS["csv"](c).splitlines()[0]
    assert head.split(",") == list(COLUMNS)
    record = json.loads(FORMATS["json"](c))
    assert record["settings"]["seed"] == 0 and record["settings"]["resamples"] == 10000
    assert record["n_queries"] == 4 and [r["system"] for r in record["runs"]] == ["base", "sys"]


def _manifest(files, run, test_text):
    (files / f"{run}.test").write_text(test_text)
    write_manifest(
        files / run, "run", inputs={"test": files / f"{run}.test"}, parameters={"methodology": "TI"}
    )


def test_mixed_provenance_refused_unless_allowed(files):
    _manifest(files, "base.run", "1 1 5\n")
    _manifest(files, "sys.run", "1 2 5\n")
    with pytest.raises(SemanticError, match="different test"):
        _compare(files)
    assert _compare(files, allow_mixed=True).n_queries == 4
    with pytest.warns(TrecrsWarning, match="no manifest"):
        (files / "sys.run.manifest.json").unlink()
        compare(str(files / "qrels"), [str(files / "base.run"), str(files / "sys.run")], ["AP"])


def test_lower_is_better_bolds_the_lowest_and_wins_are_lower_values(files):
    """fpr (fallout) is lower-is-better: a win is a query where the system's fallout is below the baseline's;
    num_ret has no direction: no best, no wins; P@2 keeps higher-is-better."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        c = compare(str(files / "qrels"), [str(files / "base.run"), str(files / "sys.run")],
                    ["fpr.2", "num_ret", "P@2"])  # fmt: skip
    qs = ("q1", "q2", "q3", "q4")
    with warned(SYS_MISSING):
        fpr = {
            run: per_query_values(evaluate_full_(files, run, "fpr.2"))["fpr_2"]
            for run in ("base.run", "sys.run")
        }
    a = np.array([fpr["sys.run"].get(q, 0.0) for q in qs])
    b = np.array([fpr["base.run"][q] for q in qs])
    row = c.row("fpr_2", "sys")
    assert (row["wins"], row["ties"], row["losses"]) == (
        int((a < b).sum()),
        int((a == b).sum()),
        int((a > b).sum()),
    )
    assert row["wins"] >= 1  # base retrieves non-relevant documents in its top 2 where sys does not
    assert c.row("num_ret", "sys")["wins"] is None and c.row("num_ret", "sys")["losses"] is None
    p2 = c.row("P@2", "sys")
    assert p2["wins"] == 2  # higher precision on q2 and q3, as the by-hand values above
    table = FORMATS["markdown"](c)
    low = min(c.row("fpr_2", s)["mean"] for s in c.systems)
    high = max(c.row("P@2", s)["mean"] for s in c.systems)
    cells = {line.split("|")[1].split()[0]: dict(zip(c.measures, line.split("|")[2:], strict=False))
             for line in table.splitlines()[2:4]}  # fmt: skip
    winner = next(s for s in c.systems if c.row("fpr_2", s)["mean"] == low)
    assert cells[winner]["fpr_2"].strip().startswith(f"**{low:.4f}**")
    assert not any("**" in row["num_ret"] for row in cells.values())  # num_ret: no best
    assert any(row["P@2"].strip().startswith(f"**{high:.4f}**") for row in cells.values())
    assert "lower is better: fpr_2; no better direction (no best, no W/T/L): num_ret; " in table


def evaluate_full_(files, run, measure):
    from trecrs.evaluate import evaluate_full

    return evaluate_full(str(files / "qrels"), str(files / run), [measure])


def test_evaluation_settings_score_every_run(files):
    """``evaluation=EvalSettings(relevance_level=2)``, or the keyword: only q1's b is relevant. P@2 of sys is
    1/2 on q1 (b first) and 0 elsewhere (q4 missing), base's 0 everywhere (b third): means 1/8 and 0."""
    from trecrs.evaluate import EvalSettings

    by_record = _compare(files, evaluation=EvalSettings(relevance_level=2))
    by_keyword = _compare(files, relevance_level=2)
    assert by_record.rows == by_keyword.rows
    row = by_record.row("P@2", "sys")
    assert (row["mean"], row["baseline_mean"]) == (0.125, 0.0)
