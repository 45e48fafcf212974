"""trecrs compare on small files written here: tables, determinism, provenance, figures."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from scipy import stats as scipy_stats

from trecrs import evaluate
from trecrs.files.manifest import write_manifest
from trecrs.report.compare import COLUMNS

QUERIES = [f"u{i}" for i in range(1, 13)]


def _write(tmp_path):
    """12 queries with relevant items r1, r2; 'good' ranks them first; 'base' ranks r1 first at even
    positions (u1, u3, ...) and r1, r2 third and fourth at odd ones; 'weak' has no line for u12."""
    (tmp_path / "qrels").write_text("".join(f"{q} 0 r1 1\n{q} 0 r2 1\n{q} 0 n1 0\n" for q in QUERIES))

    def run(tag, order, queries=QUERIES):
        return "".join(
            f"{q} Q0 {d} {k + 1} {10 - k} {tag}\n"
            for i, q in enumerate(queries)
            for k, d in enumerate(order(i))
        )

    (tmp_path / "base.run").write_text(
        run("base", lambda i: ["n1", "n2", "r1", "r2"] if i % 2 else ["r1", "n1", "r2"])
    )
    (tmp_path / "good.run").write_text(run("good", lambda i: ["r1", "r2", "n1"]))
    (tmp_path / "weak.run").write_text(run("weak", lambda i: ["n1", "r1"], QUERIES[:-1]))
    return [str(tmp_path / "qrels"), *(str(tmp_path / f"{n}.run") for n in ("base", "good", "weak"))]


@pytest.fixture
def paths(tmp_path):
    return _write(tmp_path)


def _rows(out: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(out)))


def test_csv_columns_and_values_equal_stats_on_evaluate(cli, paths):
    code, out, err = cli("compare", "--quiet", "-m", "P@2", "-m", "RR", "--format", "csv", *paths)
    assert code == 0 and err == ""
    assert out.splitlines()[0] == ",".join(COLUMNS)
    rows = {(r["measure"], r["system"]): r for r in _rows(out)}
    assert len(rows) == 6 and rows[("RR", "base")]["p_value"] == ""
    per = {}
    for name, path in zip(("base", "good", "weak"), paths[1:], strict=True):
        values = evaluate(paths[0], path, ["RR"], average_all=True).to_dict()
        per[name] = np.array([values.get(q, {}).get("RR", 0.0) for q in sorted(QUERIES)])
    assert per["weak"][sorted(QUERIES).index("u12")] == 0.0  # missing from the run: scored 0
    for name in ("good", "weak"):
        r = rows[("RR", name)]
        assert int(r["n_queries"]) == 12
        assert float(r["mean"]) == pytest.approx(per[name].mean())
        assert float(r["delta"]) == pytest.approx((per[name] - per["base"]).mean())
        assert float(r["p_value"]) == pytest.approx(scipy_stats.ttest_rel(per[name], per["base"]).pvalue)
    # weak: RR 0.5 everywhere but u12 (0)
    assert float(rows[("RR", "weak")]["mean"]) == pytest.approx(11 * 0.5 / 12)


def test_common_queries_and_legend(cli, paths):
    code, out, _ = cli("compare", "--quiet", "-m", "P@2", "--common-queries", "--format", "csv", *paths)
    assert code == 0 and {r["n_queries"] for r in _rows(out)} == {"11"}
    code, out, _ = cli("compare", "--quiet", "-m", "P@2", "--common-queries", *paths)
    assert "only the queries every run answers" in out and "n = 11" in out


def test_output_is_byte_identical_across_invocations(cli, paths, tmp_path):
    args = [
        "compare",
        "--quiet",
        "-m",
        "P@2",
        "-m",
        "AP",
        "--test",
        "randomization",
        "--resamples",
        "2000",
        "--format",
        "json",
        *paths,
    ]
    assert cli(*args, "-o", str(tmp_path / "a.json"))[0] == 0
    assert cli(*args, "-o", str(tmp_path / "b.json"))[0] == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert (tmp_path / "a.json.manifest.json").is_file()
    code, other, _ = cli(*args, "--seed", "1")
    assert code == 0 and other != (tmp_path / "a.json").read_text()


def test_latex_has_booktabs_bold_best_and_dagger(cli, paths):
    code, out, _ = cli("compare", "--quiet", "-m", "P@2", "--format", "latex", *paths)
    assert code == 0
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert rule in out
    assert r"good & \textbf{1.0000}$^\dagger$ \\" in out  # best and significantly better than base
    assert r"base & 0.2500 \\" in out  # P@2 0.5 on the even positions (r1 first), 0 on the odd ones
    assert "t test, holm correction over 2 comparisons, alpha 0.05" in out and "n = 12" in out
    code, md, _ = cli("compare", "--quiet", "-m", "P@2", "--format", "markdown", *paths)
    assert "| good | **1.0000**† |" in md


def test_refusals(cli, paths, tmp_path):
    code, _, err = cli("compare", "-m", "num_q", *paths)
    assert code == 2 and "num_q has a value for the whole run only" in err
    (tmp_path / "again").mkdir()
    (tmp_path / "again" / "good.run").write_text((tmp_path / "good.run").read_text())
    code, _, err = cli("compare", "-m", "P@2", paths[0], paths[2], str(tmp_path / "again" / "good.run"))
    assert code == 2 and "same tag and the same file name 'good.run'" in err
    (tmp_path / "good2.run").write_text((tmp_path / "good.run").read_text())
    code, out, err = cli(
        "compare", "-m", "P@2", "--format", "csv", paths[0], paths[1], paths[2], str(tmp_path / "good2.run")
    )
    assert code == 0 and "runs share the tag 'good': systems are named by their file names" in err, err
    assert [r["system"] for r in _rows(out)] == ["base.run", "good.run", "good2.run"]
    code, _, err = cli("compare", "-m", "P@2", "--baseline", "nobody", *paths)
    assert code == 2 and err.startswith("trecrs compare: error: argument --baseline: ")


def test_mixed_runs_refused_unless_allowed(cli, paths, tmp_path):
    for i, run in enumerate(paths[1:3]):
        (tmp_path / f"test{i}").write_text(f"u1 r{i} 5\n")
        write_manifest(run, "run", inputs={"test": tmp_path / f"test{i}"}, parameters={"methodology": "TI"})
    code, _, err = cli("compare", "-m", "P@2", *paths[:3])
    assert code == 4 and "were built from different test" in err and "--allow-mixed" in err
    code, out, err = cli("compare", "-m", "P@2", "--allow-mixed", "--format", "json", *paths)
    assert code == 0 and '"methodology": "TI"' in out
    assert (
        err == f"trecrs compare: warning: 1 of 3 runs have no manifest ({paths[3]}): their provenance "
        "(split, candidates, methodology) is unknown and cannot be checked\n"
    )


@pytest.mark.parametrize("suffix", ["png", "pdf"])
def test_plot_bytes_identical_twice(cli, paths, tmp_path, suffix):
    for name in ("one", "two"):
        code, _, _ = cli(
            "compare",
            "--quiet",
            "-m",
            "P@2",
            "-m",
            "RR",
            "--resamples",
            "500",
            "--plot",
            str(tmp_path / f"{name}.{suffix}"),
            *paths,
        )
        assert code == 0
    one, two = (tmp_path / f"one.{suffix}").read_bytes(), (tmp_path / f"two.{suffix}").read_bytes()
    assert one == two and one[:4] == (b"%PDF" if suffix == "pdf" else b"\x89PNG")


@pytest.mark.parametrize("common", [False, True])
def test_pr_curves_are_eval_iprec_at_recall(paths, common):
    """The plotted values: each system's `trecrs eval -m iprec_at_recall -c` summary (every qrels query;
    weak has no line for u12, which scores 0), or the mean over the queries every run answers."""
    import warnings

    from trecrs.errors import TrecrsWarning
    from trecrs.report.compare import RECALL_LEVELS, Settings, compare

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        c = compare(paths[0], paths[1:], ["RR"], pr_curves=True,
                    settings=Settings(resamples=10, query_rule="common" if common else "all"))  # fmt: skip
        for system, run in zip(("base", "good", "weak"), paths[1:], strict=True):
            if common:
                per_query = evaluate(paths[0], run, ["iprec_at_recall"]).to_dict()
                want = [float(np.mean([per_query[q][f"iprec_at_recall_{r:3.2f}"] for q in QUERIES[:-1]]))
                        for r in RECALL_LEVELS]  # fmt: skip
                assert c.pr[system] == pytest.approx(want, abs=1e-15)
            else:
                summary = evaluate(paths[0], run, ["iprec_at_recall"], average_all=True).summary
                assert c.pr[system] == [summary[f"iprec_at_recall_{r:3.2f}"] for r in RECALL_LEVELS]
    assert c.pr["good"] == [1.0] * 11  # both relevant items first: precision 1 at every recall
    if not common:
        assert c.pr["weak"][0] == pytest.approx(0.5 * 11 / 12)  # r1 at rank 2 on 11 of 12 queries


@pytest.mark.parametrize("suffix", ["png", "pdf"])
def test_pr_plot_bytes_identical_twice(cli, paths, tmp_path, suffix):
    for name in ("one", "two"):
        code, _, err = cli(
            "compare",
            "--quiet",
            "-m",
            "RR",
            "--resamples",
            "10",
            "--pr-plot",
            str(tmp_path / f"{name}.{suffix}"),
            *paths,
        )
        assert code == 0, err
    one, two = (tmp_path / f"one.{suffix}").read_bytes(), (tmp_path / f"two.{suffix}").read_bytes()
    assert one == two and one[:4] == (b"%PDF" if suffix == "pdf" else b"\x89PNG")
    assert (tmp_path / f"one.{suffix}.manifest.json").exists()


def test_pr_plot_must_be_png_or_pdf(cli, paths, tmp_path):
    code, _, err = cli("compare", "-m", "RR", "--pr-plot", str(tmp_path / "pr.svg"), *paths)
    assert code == 2 and err.endswith(
        f"argument --pr-plot: must name a .png or .pdf file, got '{tmp_path / 'pr.svg'}'\n"
    )


@pytest.mark.parametrize("where", [0, 1])  # the qrels, then the baseline run, from standard input
def test_standard_input(cli, paths, monkeypatch, where):
    import sys

    code, expected, _ = cli("compare", "--quiet", "-m", "RR", "--format", "csv", *paths)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(open(paths[where], "rb").read())))
    args = [*paths[:where], "-", *paths[where + 1 :]]
    code, out, _ = cli("compare", "--quiet", "-m", "RR", "--format", "csv", *args)
    assert code == 0 and out == expected


def test_evaluation_warnings_name_their_run(cli, paths):
    """A warning from one run's evaluation says which run it is about, as trecrs eval does for several."""
    code, _, err = cli("compare", "-m", "RR", "--common-queries", "--resamples", "10", *paths)
    lines = err.splitlines()
    assert (
        code == 0
        and f"trecrs compare: warning: {paths[3]}: 1 of 12 (8.3%) qrels queries have no line in "
        "the run: left out of the averages, as trec_eval does (-c would count them, scoring 0)"
        in lines
    )
    assert not any(line.startswith("trecrs compare: warning: 1 of 12") for line in lines)


def test_user_groups_compare_each_group_separately(cli, paths, tmp_path):
    """``--user-groups``: after every user's table, the same comparison on each group's users alone: the
    rows of the library's comparison on the group's qrels, in text and csv; --group-by alone is refused."""
    import warnings

    from trecrs.report.compare import compare
    from trecrs.report.compare_output import FORMATS

    odd = set(QUERIES[::2])  # u1, u3, ...: base ranks r1 first there
    (tmp_path / "groups.tsv").write_text("".join(f"{q}\t{'odd' if q in odd else 'even'}\n" for q in QUERIES))
    code, out, err = cli("compare", "--quiet", "-m", "P@2", "--user-groups", tmp_path / "groups.tsv", *paths)
    assert (code, err) == (0, "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = compare(paths[0], paths[1:], ["P@2"], user_groups=str(tmp_path / "groups.tsv"))
    assert out == FORMATS["text"](want) and [g.users for g in want.groups] == ["all:even", "all:odd"]
    odd_good = want.groups[1].row("P@2", "good")
    assert (odd_good["mean"], odd_good["baseline_mean"], odd_good["n_queries"]) == (
        1.0,
        0.5,
        6,
    )  # base: r1, n1
    code, out, _ = cli(
        "compare", "--quiet", "-m", "P@2", "--format", "csv", "--user-groups", tmp_path / "groups.tsv", *paths
    )
    rows = _rows(out)
    assert code == 0 and [r["users"] for r in rows] == ["all"] * 3 + ["all:even"] * 3 + ["all:odd"] * 3
    assert {r["n_queries"] for r in rows if r["users"] != "all"} == {"6"}
    code, out, err = cli("compare", "--quiet", "-m", "P@2", "--group-by", "gender", *paths)
    assert (
        (code, out) == (2, "")
        and err
        == "trecrs compare: error: argument --group-by: must come with --user-groups: it picks the field of a MovieLens users file\n"
    )


TYPED = [
    "recip_rank",
    "P_10",
    "map",
]  # -m recip_rank -m P.10 -m map; trec_eval's table order: map, recip_rank, P_10


def _typed(cli, paths, fmt: str) -> str:
    code, out, err = cli(
        "compare", "--quiet", "-m", "recip_rank", "-m", "P.10", "-m", "map", "--format", fmt, *paths
    )
    assert code == 0, err
    return out


def test_measures_in_the_order_typed_in_every_format(cli, paths, monkeypatch, tmp_path):
    import json

    rows = [line.split()[0] for line in _typed(cli, paths, "text").splitlines()[1:10]]
    assert rows == [m for m in TYPED for _ in range(3)]
    assert _typed(cli, paths, "markdown").splitlines()[0] == "| system | recip_rank | P_10 | map |"
    assert r"System & recip\_rank & P\_10 & map \\" in _typed(cli, paths, "latex").splitlines()
    assert [r["measure"] for r in _rows(_typed(cli, paths, "csv"))] == [m for m in TYPED for _ in range(3)]
    doc = json.loads(_typed(cli, paths, "json"))
    assert doc["measures"] == TYPED and [r["measure"] for r in doc["rows"][::3]] == TYPED
    # the figure: one panel per measure, left to right
    import trecrs.report.figures as report  # every figure is saved through figures.save_figure

    titles = []

    def save(fig, path):
        titles.extend(ax.get_title() for ax in fig.axes)
        path.write_bytes(b"")

    monkeypatch.setattr(report, "save_figure", save)
    code, _, err = cli(
        "compare",
        "--quiet",
        "-m",
        "recip_rank",
        "-m",
        "P.10",
        "-m",
        "map",
        "--plot",
        tmp_path / "x.png",
        *paths,
    )
    assert code == 0, err
    assert titles == TYPED


def test_small_p_values_print_as_below_the_floor(cli, paths):
    """map, good against base: t test p = 9.32e-05 (< 0.0001), Holm-adjusted 0.0004; csv and json keep the
    full value."""
    import json

    text = _typed(cli, paths, "text")
    line = next(x for x in text.splitlines() if x.startswith("map") and " good " in x)
    assert "  < 0.0001    0.0004  " in line
    weak = next(x for x in text.splitlines() if x.startswith("P_10") and " weak " in x)
    assert "  < 0.0001  < 0.0001  " in weak
    csv_rows = {(r["measure"], r["system"]): r for r in _rows(_typed(cli, paths, "csv"))}
    p = float(csv_rows[("map", "good")]["p_value"])
    values = [evaluate(paths[0], path, ["map"], average_all=True).to_dict() for path in paths[1:3]]
    base, good = (np.array([v[q]["map"] for q in sorted(QUERIES)]) for v in values)
    assert p == pytest.approx(scipy_stats.ttest_rel(good, base).pvalue) and p == pytest.approx(
        9.32e-05, rel=0.001
    )
    doc = json.loads(_typed(cli, paths, "json"))
    assert next(r for r in doc["rows"] if (r["measure"], r["system"]) == ("map", "good"))["p_value"] == p
