"""What a notebook shows of a result: the HTML tables (``_repr_html_``, every string escaped), the plain
``repr`` as it was, and the figures ``plot()`` returns and saves (trecrs.report.notebook, compare, sensitivity)."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import warnings

import numpy as np
import polars as pl
import pytest

from trecrs import evaluate
from trecrs.errors import TrecrsWarning, UsageError
from trecrs.report.compare import compare, plot_comparison
from trecrs.report.notebook import Html, html_table
from trecrs.report.sensitivity import sensitivity

pytest.importorskip("matplotlib")

PNG = b"\x89PNG"


def _dataclass_repr(obj) -> str:
    """The repr a dataclass writes for itself: the plain repr, which ``_repr_html_`` leaves as it was."""
    fields = ", ".join(f"{f.name}={getattr(obj, f.name)!r}" for f in dataclasses.fields(obj))
    return f"{type(obj).__name__}({fields})"


def _png(path) -> bytes:
    data = path.read_bytes()
    assert data[:4] == PNG and len(data) > 1000
    return data


def test_html_table_escapes_every_string_but_html():
    text = html_table(["a<b", "c"], [["<x>&", Html("<b>1</b>")]], "n < 3")
    assert "<caption>n &lt; 3</caption>" in text and "<th>a&lt;b</th>" in text
    assert "<tr><td>&lt;x&gt;&amp;</td><td><b>1</b></td></tr>" in text


# ----------------------------------------------------------------------------------- EvaluationResult


@pytest.fixture
def result():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    ranked = [("q1", "a", 3.0), ("q1", "x", 2.0), ("q2", "x", 3.0), ("q2", "b", 2.0), ("q3", "x", 3.0)]
    run = pl.DataFrame(ranked, schema=["query", "doc", "score"], orient="row").with_columns(
        tag=pl.lit("<t>&x")
    )
    # AP of q1, q2, q3: 1, 1/2, 0 (c not retrieved); P@1: 1, 0, 0
    return evaluate(qrels, run, ["map", "P.1", "num_q"])


def test_evaluation_html_is_the_summary_with_the_run_escaped(result):
    text = result._repr_html_()
    assert text.startswith("<table>\n<caption>run &lt;t&gt;&amp;x: 3 queries</caption>")
    assert "<thead><tr><th>measure</th><th>all</th></tr></thead>" in text
    rows = ["<tr><td>num_q</td><td>3</td></tr>", "<tr><td>map</td><td>0.5000</td></tr>",
            "<tr><td>P_1</td><td>0.3333</td></tr>"]  # fmt: skip
    assert text.index(rows[0]) < text.index(rows[1]) < text.index(rows[2])  # trec_eval's order
    assert "<t>" not in text and "runid" not in text
    assert repr(result) == "EvaluationResult(runid='<t>&x', queries=3: num_q=3, map=0.5, P_1=0.3333)"


def test_histogram_of_a_measure_per_query(result, tmp_path):
    fig = result.plot("map", path=tmp_path / "map.png")
    (ax,) = fig.axes
    bars = [p.get_height() for p in ax.patches]
    assert len(bars) == len(np.histogram_bin_edges([1.0, 0.5, 0.0], "auto")) - 1 and sum(bars) == 3
    assert list(ax.lines[0].get_xdata()) == [0.5, 0.5]  # the all value, dashed
    assert ax.get_legend().get_texts()[0].get_text() == "all: 0.5000"
    assert ax.get_title() == "<t>&x: map over 3 queries"
    _png(tmp_path / "map.png")


def test_box_plot_has_a_point_per_query(result, tmp_path):
    fig = result.plot("P_1", kind="box", path=tmp_path / "p.png")
    (ax,) = fig.axes
    points = [line for line in ax.lines if line.get_marker() == "o"]
    assert len(points) == 1 and list(points[0].get_ydata()) == [1.0, 0.0, 0.0]
    assert list(ax.lines[-1].get_ydata()) == [1 / 3, 1 / 3]  # the all value, dashed across
    _png(tmp_path / "p.png")


_NO_PYPLOT = """
import sys, matplotlib
matplotlib.use("svg")  # a notebook's own backend: plot() must leave it as it is
import trecrs
result = trecrs.evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["map"])
fig = result.plot("map", path=sys.argv[1])
assert fig.canvas.manager is None  # not held by pyplot: nothing to close, shown once
print(matplotlib.get_backend(), "matplotlib.pyplot" in sys.modules)
"""


def test_plot_leaves_the_backend_and_pyplot_alone(tmp_path):
    out = subprocess.run([sys.executable, "-c", _NO_PYPLOT, str(tmp_path / "m.png")], capture_output=True,
                         text=True, check=True)  # fmt: skip
    assert out.stdout == "svg False\n"
    _png(tmp_path / "m.png")


_IN_IPYTHON = """
import sys
from IPython.core.interactiveshell import InteractiveShell
import trecrs
formatters = InteractiveShell.instance().display_formatter.formatters
result = trecrs.evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["map"])
png = formatters["image/png"](result.plot("map"))
from matplotlib.figure import Figure
formatters["image/png"].pop(Figure)
formatters["image/svg+xml"].for_type(Figure, lambda fig: "<svg/>")  # the user's choice, kept
fig = result.plot("map")
print(png[:4], formatters["image/png"](fig), formatters["image/svg+xml"](fig), "matplotlib.pyplot" in sys.modules)
"""


def test_plot_in_ipython_is_shown_as_a_png_unless_a_figure_format_is_chosen():
    """In an IPython shell a figure gets a PNG formatter (base64, as the inline backend's); one the user
    registered for Figure is left as it is; pyplot stays unimported."""
    pytest.importorskip("IPython")
    out = subprocess.run([sys.executable, "-c", _IN_IPYTHON], capture_output=True, text=True, check=True)
    assert out.stdout == "iVBO None <svg/> False\n"  # iVBO: the base64 of a PNG's first bytes


def test_plot_refuses_an_unknown_kind_or_measure(result):
    with pytest.raises(
        UsageError, match="kind 'pie' is not a figure of per-query values; choose from hist, box"
    ):
        result.plot("map", kind="pie")
    with pytest.raises(
        UsageError, match=r"measure 'num_q' has no per-query value to plot \(per-query values: map, P_1\)"
    ):
        result.plot("num_q")


@pytest.mark.parametrize("name", ["ndcg_cut.2", "nDCG@2", "ndcg_cut_2", "NDCG@2"])
def test_plot_takes_the_names_evaluate_takes(result, name):
    """Any name of the measure (as -m takes it) finds its per-query values, shown under the name the
    evaluation prints them: nDCG@2 of q1, q2, q3 is 1 (a first), 1 / log2(3) (b second), 0."""
    run = pl.DataFrame([("q1", "a", 3.0), ("q1", "x", 2.0), ("q2", "x", 3.0), ("q2", "b", 2.0),
                        ("q3", "x", 3.0), ("q3", "y", 2.0)], schema=["query", "doc", "score"], orient="row")  # fmt: skip
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    fig = evaluate(qrels, run.with_columns(tag=pl.lit("t")), ["nDCG@2", "P@1"]).plot(name, kind="box")
    (points,) = [line for line in fig.axes[0].lines if line.get_marker() == "o"]
    assert list(points.get_ydata()) == pytest.approx([1.0, 1 / np.log2(3), 0.0], abs=1e-12)
    assert fig.axes[0].get_title() == "t: nDCG@2 over 3 queries"
    for other in ("P_1", "P.1", "P@1"):  # asked for as P.1: printed P_1
        assert result.plot(other).axes[0].get_title() == "<t>&x: P_1 over 3 queries"


def test_plot_of_a_name_with_several_or_no_values_lists_the_names(result):
    with pytest.raises(UsageError, match=r"^measure 'P' has 9 per-query values \(P_5, P_10, P_15, "):
        evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["P"]).plot("P")
    with pytest.raises(UsageError, match=r"measure 'nDCG@10' has no per-query value to plot \(per-query "
                       r"values: map, P_1\)$"):  # fmt: skip
        result.plot("nDCG@10")
    with pytest.raises(UsageError, match=r"measure 'bogus' has no per-query value to plot \(per-query "
                       r"values: map, P_1\)$"):  # fmt: skip
        result.plot("bogus")


# ----------------------------------------------------------------------------------------- compare

# q1..q8 each with one relevant document r. base: r at rank 3 (odd queries) or 2 (even); good: r first
# everywhere (RR +2/3 or +1/2: significant); mixed: r first on q1-q4, fourth on q5-q8 (not significant)
_RANKS = {"base": [3, 2] * 4, "good": [1] * 8, "mixed<&>": [1] * 4 + [4] * 4}


def _run(tag: str) -> str:
    lines = []
    for q, rank in enumerate(_RANKS[tag], start=1):
        docs = ["x", "y", "z"][: rank - 1] + ["r"]
        lines += [f"q{q} Q0 {d} {i + 1} {10 - i} {tag}\n" for i, d in enumerate(docs)]
    return "".join(lines)


@pytest.fixture
def comparison(tmp_path):
    (tmp_path / "qrels").write_text("".join(f"q{q} 0 r 1\n" for q in range(1, 9)))
    for name in _RANKS:
        (tmp_path / f"{name}.run").write_text(_run(name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)  # no manifests
        return compare(
            str(tmp_path / "qrels"), [str(tmp_path / f"{n}.run") for n in _RANKS], ["RR"], pr_curves=True
        )


def test_comparison_html_marks_the_significant_differences(comparison):
    good, mixed = comparison.row("RR", "good"), comparison.row("RR", "mixed<&>")
    assert comparison.significant(good) and not comparison.significant(mixed)
    assert mixed["p_adjusted"] > 0.05
    text = comparison._repr_html_()
    assert "<thead><tr><th>system</th><th>RR</th></tr></thead>" in text
    assert "<tr><td>base (baseline)</td><td>0.4167</td></tr>" in text  # (4 / 3 + 4 / 2) / 8
    assert "<tr><td>good</td><td><b>1.0000</b>†</td></tr>" in text  # best and significant
    assert "<tr><td>mixed&lt;&amp;&gt;</td><td>0.6250</td></tr>" in text  # (4 + 4 / 4) / 8, no mark
    assert "<caption>† significantly different from the baseline base (t test, holm correction over 2" in text
    assert "mixed<&>" not in text
    assert repr(comparison) == _dataclass_repr(comparison)
    assert repr(comparison).startswith(
        "Comparison(rows=[{'measure': 'RR', 'system': 'base', 'baseline': 'base'"
    )


def test_comparison_html_has_each_user_group_after_it(tmp_path, comparison):
    groups = {f"q{q}": "<a>" if q <= 4 else "b" for q in range(1, 9)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        grouped = compare(str(tmp_path / "qrels"), [str(tmp_path / f"{n}.run") for n in _RANKS], ["RR"],
                          user_groups=groups)  # fmt: skip
    text = grouped._repr_html_()
    assert text.count("<table>") == 3 and text.startswith(comparison._repr_html_())
    assert "users: group &lt;a&gt; only (all:&lt;a&gt;); " in text and "<a>" not in text
    group_a, group_b = text.split("</table>")[1:3]
    assert "<tr><td>mixed&lt;&amp;&gt;</td><td><b>1.0000</b>†</td></tr>" in group_a  # first on q1-q4, as good
    assert "users: group b only (all:b); " in group_b
    assert "<tr><td>mixed&lt;&amp;&gt;</td><td>0.2500†</td></tr>" in group_b  # fourth on q5-q8: worse


def test_comparison_plot_is_the_compare_figure(comparison, tmp_path):
    fig = comparison.plot(tmp_path / "d.png")
    (ax,) = fig.axes  # one measure
    good, mixed = ax.containers  # one error bar per compared system
    assert good.lines[0].get_markerfacecolor() != "white" and mixed.lines[0].get_markerfacecolor() == "white"
    assert list(good.lines[0].get_xdata()) == [comparison.row("RR", "good")["delta"]]
    plot_comparison(comparison, tmp_path / "cli.png")  # what trecrs compare --plot draws
    assert _png(tmp_path / "d.png") == _png(tmp_path / "cli.png")


def test_comparison_pr_plot(comparison, tmp_path):
    fig = comparison.plot_pr(tmp_path / "pr.png")
    (ax,) = fig.axes
    assert [list(line.get_ydata()) for line in ax.lines] == [comparison.pr[s] for s in comparison.systems]
    assert [line.get_linestyle() for line in ax.lines] == ["--", "-", "-"]  # the baseline dashed
    _png(tmp_path / "pr.png")
    comparison.pr = None
    with pytest.raises(UsageError, match="compare with pr_curves=True"):
        comparison.plot_pr()


# ------------------------------------------------------------------------------------- sensitivity


@pytest.fixture
def study():
    train = pl.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["a", "b", "a", "c"], "rating": 3.0})
    test = pl.DataFrame(
        {"user": ["u1", "u1", "u2", "u2"], "item": ["c", "d", "b", "d"], "rating": [5.0, 2.0, 5.0, 1.0]}
    )

    def scores(order):  # every user's items scored in the same order, best first
        rows = [(u, i, float(len(order) - k)) for u in ("u1", "u2") for k, i in enumerate(order)]
        return pl.DataFrame(rows, schema=["user", "item", "score"], orient="row")

    return sensitivity(train, test, {"<good>": scores("bceda"), "bad": scores("edacb")}, ["P@1", "RR"],
                       items=list("abcde"), methodologies=["test-ratings", "all-items"])  # fmt: skip


def test_sensitivity_html_is_every_table_of_the_report(study):
    text = study._repr_html_()
    assert text.count("<table>") == 4  # per measure: the values, the agreement
    assert "<caption>P@1: systems x methodologies</caption>" in text
    assert "<thead><tr><th>system</th><th>test-ratings</th><th>all-items</th></tr></thead>" in text
    assert "<tr><td>&lt;good&gt;</td><td>1.0000</td><td>1.0000</td></tr>" in text
    assert "<tr><td>bad</td><td>0.0000</td><td>0.0000</td></tr>" in text
    assert "<good>" not in text
    assert repr(study) == _dataclass_repr(study)


def test_sensitivity_plot_is_the_report_figure(study, tmp_path):
    fig = study.plot(tmp_path / "s.png")
    assert [ax.get_title() for ax in fig.axes] == ["test-ratings", "all-items"]
    for ax in fig.axes:  # a bar per system and measure
        assert len(ax.patches) == 4
    assert [p.get_height() for p in fig.axes[0].patches[:2]] == [
        study.value("<good>", "test-ratings", m) for m in ("P@1", "RR")
    ]
    _png(tmp_path / "s.png")


# ------------------------------------------------------------------------------- in a running kernel

_SETUP = """
import sys, warnings
import polars as pl
import trecrs
from trecrs.errors import TrecrsWarning
warnings.simplefilter("ignore", TrecrsWarning)  # the runs have no manifests
qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
ranked = [("q1", "a", 3.0), ("q1", "x", 2.0), ("q2", "x", 3.0), ("q2", "b", 2.0), ("q3", "x", 3.0)]
run = pl.DataFrame(ranked, schema=["query", "doc", "score"], orient="row").with_columns(tag=pl.lit("t"))
result = trecrs.evaluate(qrels, run, ["map"])
comparison = trecrs.compare(QRELS, RUNS, ["RR"], pr_curves=True)
train = pl.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["a", "b", "a", "c"], "rating": 3.0})
test = pl.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["c", "d", "b", "d"],
                     "rating": [5.0, 2.0, 5.0, 1.0]})
def scores(order):
    rows = [(u, i, float(len(order) - k)) for u in ("u1", "u2") for k, i in enumerate(order)]
    return pl.DataFrame(rows, schema=["user", "item", "score"], orient="row")
study = trecrs.sensitivity(train, test, {"good": scores("bceda"), "bad": scores("edacb")}, ["P@1"],
                           items=list("abcde"), methodologies=["test-ratings", "all-items"])
"""

#: The cells after the setup, each ending in a figure the notebook shows by itself (no %matplotlib).
_PLOTS = {
    "evaluate": 'result.plot("map")',
    "compare": "comparison.plot()",
    "compare_pr": "comparison.plot_pr()",
    "sensitivity": "study.plot()",
}


@pytest.mark.slow
def test_a_notebook_shows_every_plot_as_an_image(tmp_path):
    """Executed in a real kernel (nbclient + ipykernel), a cell ending in a plot has a PNG output, the
    image IPython's inline backend would draw of that figure; saving gives the bytes it gives outside a
    notebook; pyplot is never imported, so no figure is held."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from base64 import b64decode

    from IPython.core.pylabtools import print_figure

    (tmp_path / "qrels").write_text("".join(f"q{q} 0 r 1\n" for q in range(1, 9)))
    runs = []
    for name in _RANKS:
        runs.append(str(tmp_path / f"{name}.run"))
        (tmp_path / f"{name}.run").write_text(_run(name))
    files = f"{str(tmp_path / 'qrels')!r}, {runs!r}"
    setup = _SETUP.replace("QRELS, RUNS", files)
    saved = f'_ = result.plot("map", path={str(tmp_path / "nb.png")!r})'
    warns = (f'warnings.simplefilter("always", TrecrsWarning)\n'
             f'short = trecrs.evaluate(qrels, {{"q1": {{"a": 1.0}}}}, ["map"])\n_ = trecrs.compare({files}, ["RR"])')  # fmt: skip
    cells = [setup, *_PLOTS.values(), saved, warns, '"matplotlib.pyplot" in sys.modules']
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip

    shown = {}
    for name, cell in zip(_PLOTS, nb.cells[1:], strict=False):
        (out,) = [o for o in cell.outputs if o.output_type == "execute_result"]
        assert out.data["text/plain"].startswith("<Figure size ")
        shown[name] = b64decode(out.data["image/png"])
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        exec(setup, namespace)  # the same objects, here
    for name, code in _PLOTS.items():
        assert shown[name] == print_figure(eval(code, namespace), "png"), name
    namespace["result"].plot("map", path=tmp_path / "here.png")
    assert _png(tmp_path / "nb.png") == _png(tmp_path / "here.png")
    assert nb.cells[-1].outputs[0].data["text/plain"] == "False"
    # each warning names the cell's own line (ipykernel's file of the cell), not a line of trecrs
    text = "".join(o.text for o in nb.cells[-2].outputs if o.get("name") == "stderr")
    # a warning about one run is a RunWarning (a TrecrsWarning), the others TrecrsWarnings
    shown = [
        re.split(r": (?:Trecrs|Run)Warning: ", line) for line in text.splitlines() if "Warning: " in line
    ]
    assert [(where.rpartition(":")[2], "trecrs" in where) for where, _ in shown] == [
        ("2", False),
        ("3", False),
    ]
    assert shown[0][1].startswith(
        "2 of 3 (66.7%) qrels queries have no line in the run: left out of the averages"
    )
    assert shown[1][1].startswith("3 of 3 runs have no manifest")
