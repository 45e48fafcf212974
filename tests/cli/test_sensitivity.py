"""trecrs sensitivity: its table equals trecrs eval on the runs trecrs run writes; byte-identical outputs."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.report.test_sensitivity import write_split

MEASURES = ("P@5", "AP", "ndcg_cut.10", "recip_rank")
QRELS_OPTIONS = {  # as trecrs qrels writes them for each methodology
    "test-ratings": ["--threshold", "4"],
    "test-items": ["--threshold", "4"],
    "training-items": ["--threshold", "4"],
    "all-items": ["--threshold", "4"],
    "one-plus-random": ["--methodology", "one-plus-random", "--relevant-threshold", "5"],
}


def _study(cli, folder, files, *extra):
    args = [
        "sensitivity",
        "--train",
        folder / "train.txt",
        "--test",
        folder / "test.txt",
        "--n",
        "8",
        "--seed",
        "2",
    ]
    for name, (scores, _) in files.items():
        args += ["--scores", f"{name}={scores}"]
    for m in MEASURES:
        args += ["-m", m]
    return cli(*args, *extra)


def _eval_tsv(cli, folder, methodology: str, system: str, scores: str, *extra) -> dict[str, float]:
    qrels, run = folder / f"{methodology}.qrels", folder / f"{system}.{methodology}.run"
    code, _, err = cli(
        "qrels", "--quiet", "--test", folder / "test.txt", *QRELS_OPTIONS[methodology], "-o", qrels
    )
    assert code == 0, err
    code, _, err = cli(
        "run",
        "--quiet",
        "--methodology",
        methodology,
        "--train",
        folder / "train.txt",
        "--test",
        folder / "test.txt",
        "--n",
        "8",
        "--seed",
        "2",
        "--scores",
        scores,
        "--missing",
        "drop",
        "-o",
        run,
    )
    assert code == 0, err
    args = [a for m in MEASURES for a in ("-m", m)]
    code, out, err = cli("eval", "--quiet", *args, *extra, "--format", "tsv", qrels, run)
    assert code == 0, err
    rows = csv.DictReader(io.StringIO(out), delimiter="\t")
    return {r["measure"]: float(r["value"]) for r in rows if r["query"] == "all"}


@pytest.mark.parametrize("ties", [[], ["--ties", "expected"]], ids=["trec_eval", "expected"])
def test_table_equals_eval_of_the_runs_run_writes(cli, tmp_path, ties):
    files = write_split(tmp_path)
    code, out, err = _study(cli, tmp_path, files, "--format", "csv", *ties)
    assert code == 0, err
    values = {
        (r["measure"], r["row"], r["column"]): float(r["value"])
        for r in csv.DictReader(io.StringIO(out))
        if r["section"] == "value"
    }
    assert len(values) == 3 * 5 * len(MEASURES)
    for methodology in QRELS_OPTIONS:
        for system, (scores, _) in files.items():
            for measure, v in _eval_tsv(cli, tmp_path, methodology, system, scores, *ties).items():
                assert values[measure, system, methodology] == v, (measure, system, methodology)


def test_unscored_candidates_are_dropped_and_named(cli, tmp_path):
    files = write_split(tmp_path)
    code, _, err = _study(cli, tmp_path, files, "--methodologies", "AI")
    assert code == 0
    assert "trecrs sensitivity: warning: c under all-items: " in err and "have no score: left out" in err
    assert "warning: a, b, c under all-items: " in err  # the same note for every system: one line
    code, _, err = _study(cli, tmp_path, files, "--methodologies", "AI", "--missing", "fail")
    assert code == 3 and "have no score" in err


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "csv", "json"])
def test_same_inputs_same_bytes(cli, tmp_path, fmt):
    files = write_split(tmp_path)
    pred = [a for s, (_, p) in files.items() for a in ("--predictions", f"{s}={p}")]
    outs = []
    for i in range(2):
        out = tmp_path / f"out{i}.{fmt}"
        plot = tmp_path / f"fig{i}.{'pdf' if fmt == 'latex' else 'png'}"
        code, _, err = _study(
            cli, tmp_path, files, *pred, "--format", fmt, "-o", out, "--plot", plot, "--quiet"
        )
        assert code == 0, err
        outs.append((out.read_bytes(), plot.read_bytes()))
        assert json.loads((tmp_path / f"out{i}.{fmt}.manifest.json").read_text())["kind"] == "sensitivity"
    assert outs[0] == outs[1]
    if fmt == "latex":
        assert outs[0][1].startswith(b"%PDF") and b"CreationDate" not in outs[0][1]
    if fmt == "json":
        doc = json.loads(outs[0][0])
        assert set(doc["rmse"]) == {"a", "b", "c"}
        assert {(r["a"], r["b"]) for r in doc["agreement"]} >= {
            ("all-items", "RMSE"),
            ("test-ratings", "test-items"),
        }


def test_text_shows_the_random_row_and_the_tau_matrix(cli, tmp_path):
    files = write_split(tmp_path)
    code, out, _ = _study(cli, tmp_path, files, "--methodologies", "TR,TeI", "--quiet")
    assert code == 0
    assert "random (expected)" in out and "Kendall's tau-b" in out
    assert out.splitlines()[0] == "AP: systems x methodologies"


def test_usage_errors(cli, tmp_path):
    files = write_split(tmp_path)
    code, _, err = _study(cli, tmp_path, files, "--scores", "a=x.scores")
    assert code == 2 and "the name 'a' is given twice" in err
    code, _, err = _study(cli, tmp_path, files, "--methodologies", "TR,XX")
    assert code == 2 and "unknown methodology 'XX'" in err
    code, _, err = _study(cli, tmp_path, files, "--predictions", f"a={files['a'][1]}")
    assert code == 2 and "argument --predictions: must name the same systems" in err
    code, _, err = _study(cli, tmp_path, {"a": files["a"]})
    assert code == 2 and "give the scores of two systems or more" in err
    code, _, err = _study(cli, tmp_path, files, "--plot", tmp_path / "fig.svg")
    assert code == 2 and "argument --plot: must name a .png or .pdf file" in err


def test_an_output_that_is_a_score_file_is_refused(cli, tmp_path):
    files = write_split(tmp_path)
    before = (tmp_path / "a.scores").read_bytes()
    code, _, err = _study(cli, tmp_path, files, "-o", files["a"][0])
    assert code == 5 and "is also an input" in err
    assert (tmp_path / "a.scores").read_bytes() == before


def test_one_plus_random_without_a_seed_fails_before_any_run(cli, tmp_path):
    files = write_split(tmp_path)
    args = ["sensitivity", "--train", tmp_path / "train.txt", "--test", tmp_path / "test.txt", "-m", "P@5"]
    args += [a for s, (f, _) in files.items() for a in ("--scores", f"{s}={f}")]
    code, out, err = cli(*args)
    assert (code, out) == (2, "")
    assert err == "trecrs sensitivity: error: one-plus-random draws random items: give a seed (--seed S)\n"


def test_a_measure_of_your_own_is_valued_in_every_cell(cli, tmp_path, own_measures):
    """--measures-from: precision at 5 written by hand equals trec_eval's P_5 for every system and methodology."""
    files = write_split(tmp_path)
    mine = tmp_path / "mine.py"
    mine.write_text("import polars as pl\nimport trecrs\n\n\ndef p5(ranked):\n"
                    "    top = ranked.filter(pl.col('rank') <= 5)\n"
                    "    return top.group_by('query').agg((pl.col('rel') >= 1).sum().truediv(5).alias('value'))\n\n\n"
                    "trecrs.register_measure('my_p5', p5, description='P@5 by hand')\n")  # fmt: skip
    code, out, err = _study(cli, tmp_path, files, "--format", "csv", "--measures-from", mine, "-m", "my_p5")
    assert code == 0, err
    values = {
        (r["measure"], r["row"], r["column"]): float(r["value"])
        for r in csv.DictReader(io.StringIO(out))
        if r["section"] == "value"
    }
    mine_cells = {k[1:]: v for k, v in values.items() if k[0] == "my_p5"}
    assert len(mine_cells) == 3 * 5
    assert mine_cells == {k[1:]: v for k, v in values.items() if k[0] == "P@5"}
