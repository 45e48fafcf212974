"""``trecrs study --plot``: Demšar's critical-difference diagram laid out as in his paper (one rank axis, best at
the left, the CD above it, names on elbow lines to both sides, clique bars below it), no label over another
with ten long names, the cliques of autorank's diagram on the same ranks, and the same bytes twice."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from trecrs.report.stats import nemenyi_cd
from trecrs.report.study import StudyResult
from trecrs.report.study_output import cliques, plot

NAMES = ["SVD++ with implicit feedback", "ItemKNN cosine k=50", "UserKNN k=100", "PureSVD 50 factors", "TopPopular",
         "Random baseline", "BPR-MF", "WRMF alpha=40", "SLIM ElasticNet", "EASE^R lambda=500"]  # fmt: skip


@pytest.fixture(scope="module")
def ten():
    """Ten systems of decreasing skill over 12 data sets (seeded): average ranks by scipy, CD by Demšar's rule."""
    rng = np.random.default_rng(3)
    table = np.linspace(1, 0, 10)[None, :] + rng.normal(0, 0.35, (12, 10))
    ranks = np.vstack([stats.rankdata(-row) for row in table]).mean(axis=0)
    p = float(stats.friedmanchisquare(*table.T).pvalue)
    return StudyResult(["P_10"], NAMES, [f"d{i}" for i in range(12)], NAMES[0], 0.05, [],
                       {"P_10": dict(zip(NAMES, map(float, ranks), strict=True))},
                       {"P_10": {"statistic": 0.0, "p": p}}, {"P_10": nemenyi_cd(10, 12)}, pl.DataFrame())  # fmt: skip


def test_the_cliques_are_autoranks(ten):
    """The groups autorank 1.3.0 (``get_sorted_rank_groups``) and Demšar's rule give for these ranks (CD 3.910): the maximal runs within CD."""
    r = ten.ranks["P_10"]
    assert ten.cd["P_10"] == pytest.approx(3.9104619, abs=1e-4)  # autorank's cd on the same table
    assert cliques(r, ten.cd["P_10"]) == [(2.5, 6.333333333333333), (2.9166666666666665, 6.75),
                                          (3.4166666666666665, 6.833333333333333), (4.083333333333333, 7.916666666666667),
                                          (6.25, 8.0)]  # fmt: skip


def _boxes(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    return {t.get_text(): t.get_window_extent(renderer) for t in fig.axes[0].texts}


def test_demsars_layout_with_ten_long_names(ten, tmp_path):
    fig = plot(ten, tmp_path / "cd.png")
    ax, boxes = fig.axes[0], _boxes(fig)
    labels = {t: b for t, b in boxes.items() if " (" in t and not t.startswith("P_10")}
    assert len(labels) == 10
    overlaps = [(a, b) for a in labels for b in labels if a < b and labels[a].overlaps(labels[b])]
    assert overlaps == []
    assert all(0 <= b.x0 and b.x1 <= fig.bbox.width for b in boxes.values())  # nothing cut off at the edges
    axis_y = boxes["1"].y0  # the tick labels sit on the axis
    one, ten_ = boxes["1"].x0, boxes["10"].x0
    assert one < ten_  # best at the left
    best = labels["SVD++ with implicit feedback (2.50)"]
    worst = labels["SLIM ElasticNet (8.00)"]
    assert best.x1 < one and worst.x0 > ten_  # the best half on the left, the rest on the right
    half = sorted(labels.items(), key=lambda kv: kv[1].x0)
    assert {t.split(" (")[0] for t, _ in half[:5]} == set(NAMES[:4]) | {"BPR-MF"}  # the five best ranks
    cd = boxes["CD = 3.910"]
    assert cd.y0 > axis_y
    bars = [ln for ln in ax.lines if ln.get_linewidth() == 3]
    to_pixels = ax.transData.transform
    assert len(bars) == 5 and all(to_pixels((0, ln.get_ydata()[0]))[1] < axis_y for ln in bars)
    rows = sorted({round(float(to_pixels((0, ln.get_ydata()[0]))[1]), 3) for ln in bars})
    assert len(rows) == 5 and min(np.diff(rows)) > 8  # one row each, apart
    assert max(b.y1 for b in labels.values()) < min(rows) - 4  # the names below the bars


def test_the_figure_has_the_same_bytes_twice(ten, tmp_path):
    plot(ten, tmp_path / "a.png")
    plot(ten, tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


def test_one_system_has_no_diagram(cli, tmp_path):
    """Nothing is ranked with one system: status 4, one line naming --plot, nothing written."""
    (tmp_path / "q").write_text("q 0 d0 1\n")
    (tmp_path / "r").write_text("q Q0 d0 1 1.0 r\n")
    (tmp_path / "s.tsv").write_text("dataset\tfold\tsystem\tqrels\trun\nd\tf\tA\tq\tr\n")
    code, out, err = cli(
        "study", "-m", "P.1", "--plot", tmp_path / "cd.png", "-o", tmp_path / "t.txt", tmp_path / "s.tsv"
    )
    assert (code, out) == (4, "") and not (tmp_path / "cd.png").exists() and not (tmp_path / "t.txt").exists()
    assert err == ("trecrs study: error: argument --plot: a critical-difference diagram needs at least two systems, "
                   "the study has 1 (A)\n")  # fmt: skip
