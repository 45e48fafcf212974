"""``trecrs study``: every number against scipy (t intervals, ttest_rel, friedmanchisquare, rankdata), a hand-computed
Nadeau & Bengio example, Demšar's critical differences, a missing fold refused, the figure and one CLI round trip."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from scipy import stats

import trecrs
from trecrs.errors import InputError
from trecrs.report.stats import corrected_resampled_t, nemenyi_cd
from trecrs.report.study import study
from trecrs.report.study_output import FORMATS, cliques, plot

SYSTEMS = ("base", "good", "noisy", "weak")


def _write_study(tmp_path, datasets=("d1", "d2", "d3"), folds=5, sizes=None, skip=None):
    """Per (dataset, fold): qrels of 12 users, a run per system whose quality differs; the study file."""
    rng = random.Random(7)
    lines = ["dataset\tfold\tsystem\tqrels\trun" + ("\ttest_size\ttrain_size" if sizes else "")]
    for d in datasets:
        for f in range(1, folds + 1):
            q = tmp_path / f"{d}_{f}.qrels"
            rel = {u: rng.sample(range(30), 4) for u in range(12)}
            q.write_text("".join(f"u{u} 0 i{i} 1\n" for u, items in rel.items() for i in items))
            for s, skill in zip(SYSTEMS, (0.5, 0.8, 0.5, 0.2), strict=True):
                if skip == (d, f, s):
                    continue
                r = tmp_path / f"{d}_{f}_{s}.run"
                r.write_text("".join(f"u{u} Q0 i{i} 0 {(skill if i in rel[u] else 0) + rng.random():.6f} {s}\n"
                                     for u in range(12) for i in range(30)))  # fmt: skip
                extra = f"\t{sizes[0]}\t{sizes[1]}" if sizes else ""
                lines.append(f"{d}\tf{f}\t{s}\t{q.name}\t{r.name}{extra}")
    (tmp_path / "study.tsv").write_text("\n".join(lines) + "\n")
    return tmp_path / "study.tsv"


def _fold_values(tmp_path, d, s, folds=5):
    return np.array([trecrs.evaluate(tmp_path / f"{d}_{f}.qrels", tmp_path / f"{d}_{f}_{s}.run", ["P.5"]).summary["P_5"]
                     for f in range(1, folds + 1)])  # fmt: skip


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("study")
    return tmp, study(_write_study(tmp), ["P.5"])


def test_cells_equal_scipy(generated):
    tmp, result = generated
    base = _fold_values(tmp, "d2", "base")
    good = _fold_values(tmp, "d2", "good")
    c = result.cell("d2", "good", "P_5")
    low, high = stats.t.interval(0.95, 4, loc=good.mean(), scale=stats.sem(good))
    assert (c.folds, c.mean, c.sd) == (5, pytest.approx(good.mean()), pytest.approx(good.std(ddof=1)))
    assert (c.ci_low, c.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert c.delta == pytest.approx((good - base).mean())
    assert c.p == pytest.approx(stats.ttest_rel(good, base).pvalue) and c.test == "paired t"
    b = result.cell("d2", "base", "P_5")
    assert (b.delta, b.p, b.test) == (None, None, None)


def test_ranks_friedman_and_cd_equal_scipy_and_demsar(generated):
    tmp, result = generated
    table = np.array([[result.cell(d, s, "P_5").mean for s in SYSTEMS] for d in result.datasets])
    ranks = np.vstack([stats.rankdata(-row) for row in table]).mean(axis=0)
    assert result.ranks["P_5"] == {s: pytest.approx(r) for s, r in zip(SYSTEMS, ranks, strict=True)}
    stat, p = stats.friedmanchisquare(*table.T)
    assert result.friedman["P_5"] == {"statistic": pytest.approx(stat), "p": pytest.approx(p)}
    assert result.cd["P_5"] == pytest.approx(
        2.569 * math.sqrt(4 * 5 / (6 * 3)), abs=1e-3
    )  # Demšar's q for k = 4


def test_nemenyi_q_is_demsars_table():
    for k, q in ((2, 1.960), (3, 2.343), (4, 2.569), (5, 2.728), (10, 3.164)):
        assert nemenyi_cd(k, 6) / math.sqrt(k * (k + 1) / 36) == pytest.approx(
            q, abs=1e-3
        )  # the table gives 3 decimals


def test_corrected_resampled_t_by_hand():
    """d = .02 .04 .03 .05 .01 (k = 5), n_test / n_train = 0.25: var(d) = 0.00025, t = 0.03 / sqrt((1/5 + 0.25)
    0.00025) = 2.828427, 4 degrees of freedom."""
    d = np.array([0.02, 0.04, 0.03, 0.05, 0.01])
    assert corrected_resampled_t(d, 0.25) == pytest.approx(2 * stats.t.sf(2.8284271, 4), rel=1e-6)
    assert corrected_resampled_t(d, None) == pytest.approx(stats.ttest_1samp(d, 0).pvalue)


def test_sizes_select_the_corrected_test(tmp_path):
    result = study(_write_study(tmp_path, datasets=("d1",), sizes=(20, 80)), ["P.5"])
    c = result.cell("d1", "good", "P_5")
    d = _fold_values(tmp_path, "d1", "good") - _fold_values(tmp_path, "d1", "base")
    assert c.test == "corrected resampled t" and c.p == pytest.approx(corrected_resampled_t(d, 0.25))
    assert "d1" not in result.friedman  # one data set: no Friedman test


def test_a_missing_fold_is_refused(tmp_path):
    path = _write_study(tmp_path, datasets=("d1",), skip=("d1", 3, "noisy"))
    with pytest.raises(InputError, match="dataset 'd1', fold 'f3': no line for system\\(s\\) 'noisy'"):
        study(path, ["P.5"])


def test_formats_and_figure(generated, tmp_path):
    _, result = generated
    doc = json.loads(FORMATS["json"](result))
    assert {"measures", "systems", "datasets", "cells", "ranks", "friedman", "cd"} <= set(doc)
    assert doc["measures"] == ["P_5"] and len(doc["cells"]) == 3 * 4
    assert (
        FORMATS["csv"](result).splitlines()[0]
        == "dataset,system,measure,folds,mean,sd,ci_low,ci_high,delta,p,test"
    )
    assert "\\begin{tabular}" in FORMATS["latex"](result) and "avg rank" in FORMATS["markdown"](result)
    plot(result, tmp_path / "cd.png")
    assert (tmp_path / "cd.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cliques({"a": 1.0, "b": 1.5, "c": 3.5}, 1.0) == [(1.0, 1.5)]


def test_the_command(cli, tmp_path):
    path = _write_study(tmp_path, datasets=("d1", "d2"), folds=3)
    code, out, err = cli("study", "--quiet", "-m", "P.5", "--baseline", "good", "--format", "json", path)
    assert code == 0 and err == ""
    assert json.loads(out)["baseline"] == "good"


def test_every_system_tied_prints_a_nan_friedman(tmp_path):
    """Systems with the same run on every fold tie everywhere: there is no Friedman statistic (scipy's would
    be 0/0, null in the result), a note says why and every format prints nan instead of failing."""
    lines = ["dataset\tfold\tsystem\tqrels\trun"]
    (tmp_path / "q").write_text("u1 0 a 1\nu2 0 b 1\n")
    (tmp_path / "r").write_text("u1 Q0 a 1 2.0 t\nu1 Q0 b 2 1.0 t\nu2 Q0 a 1 2.0 t\nu2 Q0 b 2 1.0 t\n")
    lines += [f"{d}\tf{f}\t{s}\tq\tr" for d in ("d1", "d2") for f in (1, 2) for s in ("x", "y", "z")]
    (tmp_path / "study.tsv").write_text("\n".join(lines) + "\n")
    result = study(tmp_path / "study.tsv", ["P.1"])
    assert result.friedman["P_1"] == {"statistic": None, "p": None}
    assert result.notes == ["P_1: every system ties on every data set, so there is no Friedman statistic"]
    for name in ("text", "markdown", "latex"):
        assert "Friedman chi-square nan, p = nan (3 systems, 2 data sets)" in FORMATS[name](result)
