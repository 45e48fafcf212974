"""``trecrs study`` at its edges: means equal up to float noise ranked as ties, a system or the baseline
missing from a data set, empty sizes at the end of a line, one data set, a zero-width interval, and warnings
that name the line they come from. Values by hand and from scipy on the tolerance-snapped table."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy import stats

from tests.warned import warned
from trecrs.errors import InputError
from trecrs.report.stats import t_interval, tolerant_ties
from trecrs.report.study import study
from trecrs.report.study_output import FORMATS, plot

RUN = "".join(f"q Q0 d{i} {i + 1} {10 - i} r\n" for i in range(10))  # ten documents, d0 first


def _write(tmp_path, hits: dict, sizes: str = "", header_sizes: bool = False):
    """A study whose line (dataset, fold, system) has P@10 = hits / 10: the qrels judge the run's first
    ``hits`` documents and one it never returns relevant (a query with no relevant document is not scored)."""
    (tmp_path / "r.run").write_text(RUN)
    lines = ["dataset\tfold\tsystem\tqrels\trun" + ("\ttest_size\ttrain_size" if header_sizes else "")]
    for (d, f, s), n in hits.items():
        (tmp_path / f"{d}{f}{s}.qrels").write_text("".join(f"q 0 d{i} 1\n" for i in range(n)) + "q 0 zz 1\n")
        lines.append(f"{d}\t{f}\t{s}\t{d}{f}{s}.qrels\tr.run{sizes}")
    (tmp_path / "study.tsv").write_text("\n".join(lines) + "\n")
    return tmp_path / "study.tsv"


# P@10 per fold: on d1, A's folds (0.1, 0.2) and B's (0.0, 0.3) both mean 0.15 on paper
NOISE = {("d1", "f1", "A"): 1, ("d1", "f2", "A"): 2, ("d1", "f1", "B"): 0, ("d1", "f2", "B"): 3,
         ("d1", "f1", "C"): 2, ("d1", "f2", "C"): 2, ("d2", "f1", "A"): 3, ("d2", "f2", "A"): 3,
         ("d2", "f1", "B"): 1, ("d2", "f2", "B"): 1, ("d2", "f1", "C"): 2, ("d2", "f2", "C"): 2}  # fmt: skip


def test_tolerant_ties_snaps_float_noise_only():
    assert np.mean([0.1, 0.2]) != np.mean([0.0, 0.3])  # 0.15000000000000002 and 0.15
    snapped = tolerant_ties([np.mean([0.1, 0.2]), np.mean([0.0, 0.3]), 0.2])
    assert snapped[0] == snapped[1] == 0.15 and snapped[2] == 0.2
    assert list(tolerant_ties([1.0, 1.0 + 1e-9, 0.0, -0.0])) == [1.0, 1.0 + 1e-9, 0.0, 0.0]


def test_means_equal_on_paper_are_tied(tmp_path):
    """d1: C 0.2 ranks 1, A and B (0.15 each) share 2.5; d2: A 0.3, C 0.2, B 0.1 rank 1, 2, 3. Average ranks
    A 1.75, B 2.75, C 1.5; Friedman on the snapped table is 2.0 (by hand: rank sums 3.5, 5.5, 3 give 1.75,
    divided by the tie correction 1 - 6 / 48), where ranking on the noise (A 2, B 3 on d1) gave 3.0."""
    result = study(_write(tmp_path, NOISE), ["P.10"])
    assert result.cell("d1", "A", "P_10").mean != result.cell("d1", "B", "P_10").mean  # the noise is there
    assert result.ranks["P_10"] == {"A": 1.75, "B": 2.75, "C": 1.5}
    snapped = np.array([[0.15, 0.15, 0.2], [0.3, 0.1, 0.2]])
    stat, p = stats.friedmanchisquare(*snapped.T)
    assert result.friedman["P_10"] == {"statistic": pytest.approx(2.0), "p": pytest.approx(p)}
    assert stat == pytest.approx(2.0) and p == pytest.approx(np.exp(-1.0))  # chi-square, 2 df: e^(-x/2)
    means = [[result.cell(d, s, "P_10").mean for s in "ABC"] for d in ("d1", "d2")]
    assert [list(tolerant_ties(np.array(row))) for row in means] == snapped.tolist()
    text = FORMATS["text"](result)
    assert "Friedman chi-square 2.0000, p = 0.3679 (3 systems, 2 data sets)" in text
    assert [line.split()[-1] for line in text.splitlines()[2:5]] == ["1.75", "2.75", "1.50"]


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("baseline", ["A", "B"])
def test_a_system_or_the_baseline_missing_from_a_data_set_is_refused(cli, tmp_path, fmt, baseline):
    """B has no line in d2 (as a system, or as the baseline): one line naming the data set and the system,
    status 3, nothing written, in every format."""
    path = _write(tmp_path, {k: v for k, v in NOISE.items() if k[0] == "d1" or k[2] != "B"})
    out = tmp_path / "out"
    code, stdout, err = cli("study", "-m", "P.10", "--baseline", baseline, "--format", fmt, "-o", out, path)
    assert (code, stdout) == (3, "") and not out.exists()
    assert err == (f"trecrs study: error: {path}: dataset 'd2' has no line for system(s) 'B'; every system must "
                   "be in every data set (run it there, or leave it out of the study)\n")  # fmt: skip


@pytest.mark.parametrize("tail", ["\t\t", "\t", ""])
def test_empty_sizes_at_the_end_of_a_line_are_absent(tmp_path, tail):
    """Trailing tabs (empty test_size and train_size) leave 5 fields once the line's end is stripped."""
    path = _write(tmp_path, NOISE, sizes=tail, header_sizes=True)
    result = study(path, ["P.10"])
    assert result.cell("d1", "B", "P_10").test == "paired t" and result.notes == []


def test_an_empty_train_size_alone_is_absent(tmp_path):
    path = _write(tmp_path, NOISE, sizes="\t20\t", header_sizes=True)
    assert study(path, ["P.10"]).notes == [
        "d1: test_size/train_size missing on some lines: plain paired t test",
        "d2: test_size/train_size missing on some lines: plain paired t test",
    ]


@pytest.mark.parametrize(
    "header_sizes,expected",
    [(True, "5 to 7 tab-separated fields (dataset fold system qrels run, then test_size train_size, which may be "
            "empty)"), (False, "5 tab-separated fields (dataset fold system qrels run)")],
)  # fmt: skip
def test_a_short_line_is_named_with_the_fields_expected(tmp_path, header_sizes, expected):
    path = _write(tmp_path, NOISE, header_sizes=header_sizes)
    path.write_text(path.read_text() + "d1\tf3\tA\tq\n")
    with pytest.raises(InputError, match=f"study.tsv:14: expected {expected}, got 4$".replace("(", r"\(")
                       .replace(")", r"\)")):  # fmt: skip
        study(path, ["P.10"])


ONE = "one data set (d1): Friedman's test and Nemenyi's critical difference need at least two"


def test_one_data_set_says_so_in_every_format_and_on_the_figure(cli, tmp_path):
    path = _write(tmp_path, {k: v for k, v in NOISE.items() if k[0] == "d1"})
    result = study(path, ["P.10"])
    assert result.friedman == {} and result.cd == {}
    assert result.ranks["P_10"] == {"A": 2.5, "B": 2.5, "C": 1.0}
    for fmt in ("text", "markdown", "latex"):
        assert ONE in FORMATS[fmt](result)
    assert json.loads(FORMATS["json"](result))["notes"][0].startswith(ONE)
    code, out, err = cli("study", "-m", "P.10", "--format", "csv", path)
    assert code == 0 and out.startswith("dataset,system,measure") and err.startswith(f"trecrs: {ONE}")
    fig = plot(result, tmp_path / "cd.png")
    assert any(t.get_text().startswith("note: one data set (d1): Friedman's test") for t in fig.axes[0].texts)


def test_an_interval_with_no_spread_has_width_zero():
    """scipy gives NaN for a scale of 0; trecrs gives the mean itself, (mean, mean)."""
    with np.errstate(invalid="ignore"):  # scipy's 0 * inf
        assert np.isnan(stats.t.interval(0.95, 1, loc=0.2, scale=0.0)).all()
    assert t_interval(np.array([0.2, 0.2]), 0.05) == (0.2, 0.2)


def test_a_fold_value_without_spread_prints_plus_minus_zero(tmp_path):
    result = study(_write(tmp_path, NOISE), ["P.10"])
    c = result.cell("d1", "C", "P_10")
    assert (c.mean, c.sd, c.ci_low, c.ci_high) == (0.2, 0.0, 0.2, 0.2)


def test_warnings_name_the_data_set_fold_system_and_files(cli, tmp_path):
    """A run missing a qrels query warns once per line, each warning naming the line it is about."""
    path = _write(tmp_path, {k: v for k, v in NOISE.items() if k[0] == "d1"})
    q = tmp_path / "d1f2B.qrels"
    q.write_text(q.read_text() + "other 0 x 1\n")
    pattern = r"^dataset d1, fold f2, system B \(qrels .*d1f2B\.qrels, run .*r\.run\): 1 of 2 \(50\.0%\) qrels queries"
    with warned(pattern):
        study(path, ["P.10"])
    code, out, err = cli("study", "-m", "P.10", path)
    assert code == 0 and err == (f"trecrs study: warning: dataset d1, fold f2, system B (qrels {q}, run "
                                 f"{tmp_path / 'r.run'}): 1 of 2 (50.0%) qrels queries have no line in the run: "
                                 "left out of the averages, as trec_eval does (-c would count them, scoring 0)\n")  # fmt: skip


def test_another_librarys_warning_names_the_line_too(tmp_path, monkeypatch):
    import trecrs.report.study as module

    def evaluate_full(qrels, run, measures, settings):
        warnings.warn("invalid value encountered", RuntimeWarning, stacklevel=2)
        return real(qrels, run, measures, settings=settings)

    real = module.evaluate_full
    monkeypatch.setattr(module, "evaluate_full", evaluate_full)
    path = _write(tmp_path, {k: v for k, v in NOISE.items() if k[:2] == ("d1", "f1")})
    with pytest.warns(RuntimeWarning) as caught:
        study(path, ["P.10"])
    assert [str(w.message).split(": ")[0] for w in caught] == [
        f"dataset d1, fold f1, system {s} (qrels {tmp_path / f'd1f1{s}.qrels'}, run {tmp_path / 'r.run'})"
        for s in "ABC"
    ]
    assert all(str(w.message).endswith("): invalid value encountered") for w in caught)
