"""``trecrs eval`` with recommender-specific measures: output layout, trec_eval output untouched, options, errors."""

from __future__ import annotations

import json

import pytest

from ..conftest import run_command, run_in_process, write
from ..warned import warned

QRELS = "u1 0 a 1\nu1 0 b 1\nu1 0 c 0\nu2 0 x 1\nu3 0 y 1\n"
RUN = "u1 Q0 a 1 3 t\nu1 Q0 c 2 2 t\nu1 Q0 b 3 1 t\nu2 Q0 x 1 1 t\nu2 Q0 z 2 0.5 t\n"
MISSING = "1 of 3 .* qrels queries have no line in the run"  # u3, as evaluate says


@pytest.fixture
def files(tmp_path):
    return write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.txt", RUN)


def test_extras_print_after_trec_eval_measures_in_its_line_format(cli, files):
    q, r = files
    code, out, err = cli("eval", "-m", "auc", "-m", "lauc.2", "-m", "P.2", q, r)
    assert code == 0, err
    # u1: a(rel) c(non) b(rel): AUC = 1/2 (a above c, b below it); u2: x above z: 1.
    # LAUC@2 u1: the top 2 (a, c) holds every non-relevant doc: the curve ends at (1, 1/2) -> 1/2; u2: 1.
    assert out == (
        "P_2                   \tall\t0.5000\n"
        "auc                   \tall\t0.7500\n"
        "lauc_2                \tall\t0.7500\n"
    )
    code, out_q, _ = cli("eval", "-q", "-m", "P.2", "-m", "auc", "-m", "lauc.2", q, r)
    assert out_q.splitlines() == [
        "P_2                   \tu1\t0.5000",
        "auc                   \tu1\t0.5000",
        "lauc_2                \tu1\t0.5000",
        "P_2                   \tu2\t0.5000",
        "auc                   \tu2\t1.0000",
        "lauc_2                \tu2\t1.0000",
        "P_2                   \tall\t0.5000",
        "auc                   \tall\t0.7500",
        "lauc_2                \tall\t0.7500",
    ]


def test_trec_eval_lines_are_unchanged_by_extras(cli, golden):
    qrels = golden / "runs_test_ratings" / "urels_th3.txt"
    run = golden / "runs_test_ratings" / "IB.txt"
    expected = (golden / "trec_eval_outputs" / "test_ratings" / "treceval_IB.txt_urels_th3.txt").read_text()
    code, out, err = cli("eval", "-m", "all_trec", "-m", "auc", "-m", "ndcg_exp.10", qrels, run)
    assert code == 0, err
    lines = out.splitlines(keepends=True)
    assert "".join(lines[:-2]) == expected
    assert lines[-2].startswith("auc                   \tall\t")
    assert lines[-1].startswith("ndcg_exp_10           \tall\t")
    # and with -q the trec_eval block of each query is followed by that query's extras
    code, out, _ = cli("eval", "-q", "-m", "P.5", "-m", "hit_rate.5", qrels, run)
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names[:4] == ["P_5", "hit_rate_5", "P_5", "hit_rate_5"]


def test_undefined_values_are_reported_not_printed(cli, tmp_path):
    q = write(tmp_path / "q.txt", "u1 0 a 1\nu1 0 b 1\nu2 0 x 1\n")
    r = write(tmp_path / "r.txt", "u1 Q0 a 1 2 t\nu1 Q0 b 2 1 t\nu2 Q0 x 1 2 t\nu2 Q0 y 2 1 t\n")
    code, out, err = cli("eval", "-q", "-m", "auc", q, r)
    assert code == 0
    assert out.splitlines() == ["auc                   \tu2\t1.0000", "auc                   \tall\t1.0000"]
    assert "auc: undefined for 1 of 2 queries (no relevant or no non-relevant document)" in err
    code, out, err = cli("eval", "-q", "-m", "auc", "--format", "json", q, r)
    rows = json.loads(out)
    assert {(d["query"], d["value"]) for d in rows} == {("u2", 1.0), ("all", 1.0)}


def test_average_all_counts_missing_queries_in_the_averages(cli, files):
    q, r = files
    code, out, _ = cli("eval", "-c", "-q", "-m", "hit_rate.2", "-m", "num_q", q, r)
    lines = out.splitlines()
    # u3 is in the qrels only: no line of its own (trec_eval 9.0.8's -c), but it counts in the average
    assert not any("\tu3\t" in line for line in lines)
    assert lines[-1] == "hit_rate_2            \tall\t0.6667"  # (1 + 1 + 0) / 3


def test_error_measures_from_files(cli, files, tmp_path):
    q, r = files
    test = write(tmp_path / "test.tsv", "u1\ta\t5\t1\nu1\tb\t3\t1\nu2\tx\t4\t1\n")
    pred = write(tmp_path / "pred.txt", "u1 a 4\nu1 b 3\nu2 x 2\nu2 w 1\n")
    code, out, err = cli("eval", "-q", "-m", "mae", "-m", "rmse", "-m", "nmae.1,5", "--test", test,
                         "--predictions", pred, q, r)  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert "mae                   \tu1\t0.5000" in lines and "mae                   \tu2\t2.0000" in lines
    assert lines[-3:] == [
        "mae                   \tall\t1.0000",  # (1 + 0 + 2) / 3 over every test rating
        "nmae_1,5              \tall\t0.2500",
        "rmse                  \tall\t1.2910",  # sqrt(5/3)
    ]
    assert "1 predictions are for pairs not in the test ratings" in err


def test_usage_errors_exit_2_with_one_line(files, tmp_path):
    q, r = files
    res = run_command("eval", "-m", "novelty.10", q, r)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.strip() == (
        "trecrs eval: error: measure novelty_10 needs the training ratings (--train)"
    )
    res = run_in_process("eval", "-m", "lauc.x", q, r)
    assert res.returncode == 2 and "lauc.x: cutoffs must be integers" in res.stderr
    res = run_in_process("eval", "-m", "halflife.1", q, r)
    assert res.returncode == 2 and "alpha must be > 1" in res.stderr
    res = run_in_process("eval", "-m", "no_such_measure", q, r)
    assert res.returncode == 2 and "unknown measure 'no_such_measure'" in res.stderr
    bad = write(tmp_path / "pred.txt", "u1 a 4\nu1 b four\n")
    test = write(tmp_path / "test.tsv", "u1\ta\t5\t1\n")
    res = run_in_process("eval", "-m", "mae", "--test", test, "--predictions", bad, q, r)
    assert res.returncode == 3 and f"{bad}:2: predicted rating is not a number" in res.stderr


def test_manifest_records_the_extra_inputs(cli, files, tmp_path):
    q, r = files
    train = write(tmp_path / "train.tsv", "u1\ta\t5\t1\nu2\tb\t3\t1\n")
    out = tmp_path / "res.txt"
    code, _, err = cli("eval", "-m", "arp.2", "--train", train, "-o", out, q, r)
    assert code == 0, err
    manifest = json.loads((tmp_path / "res.txt.manifest.json").read_text())
    assert set(manifest["inputs"]) >= {"qrels", "run0", "train"}
    assert "arp_2                 \tall\t" in out.read_text()


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_items_name_the_catalogue_and_the_manifest_records_them(cli, files, tmp_path):
    """Six items (a movies.csv): the top 1 holds a and x; RecBole's catalogue adds its [PAD]."""
    q, r = files
    movies = write(tmp_path / "movies.csv", "movieId,title,genres\na,A,Drama\nb,B,Drama\nc,C,Drama\n"
                   "x,X,Comedy\ny,Y,Comedy\nz,Z,Comedy\n")  # fmt: skip
    out = tmp_path / "res.json"
    code, _, err = cli("eval", "-m", "catalog_coverage.1", "-m", "recbole:itemcoverage@1", "--items", movies,
                       "--format", "json", "-o", out, q, r)  # fmt: skip
    assert code == 0, err
    rows = {row["measure"]: row["value"] for row in json.loads(out.read_text())}
    assert rows == {"catalog_coverage_1": 2 / 6, "recbole:itemcoverage@1": 2 / 7}
    manifest = json.loads((tmp_path / "res.json.manifest.json").read_text())
    assert set(manifest["inputs"]) >= {"qrels", "run0", "items"}
    code, _, err = cli("eval", "-m", "gini.1", "--items", write(tmp_path / "few", "a\nx\n"), q, r)
    assert code == 2 and "catalogue (--items) lacks 3 item(s) of the run (first: 'b')" in err
    code, _, err = cli("eval", "-m", "gini.1", q, r)
    assert (
        code == 2
        and "measure gini_1 needs the item catalogue (--items) or the training ratings (--train)" in err
    )


def test_python_api_accepts_extras(files):
    import polars as pl

    from trecrs import evaluate

    q, r = files
    with warned(MISSING):
        df = evaluate(str(q), str(r), ["P.2", "auc", "gmap"]).tidy(per_query=False)
    assert df.columns == ["query", "measure", "value"]
    assert df.get_column("measure").to_list() == ["P_2", "auc", "gmap"]
    assert df.filter(pl.col("measure") == "auc").get_column("value").item() == pytest.approx(0.75)


def test_depth_and_judged_only_apply_to_extras(files):
    from trecrs import evaluate

    q, r = files
    # u1 ranks a (rel), c (judged non-relevant), b (rel); u2 ranks x (rel), z (unjudged)
    with warned(MISSING):
        got = {
            (a, m): v
            for a, m, v in evaluate(str(q), str(r), ["precision.2", "auc"], engine="pytrec_eval")
            .tidy()
            .iter_rows()
        }
    assert got[("u2", "precision_2")] == 0.5 and got[("u2", "auc")] == 1.0
    with warned(MISSING):
        got = {
            (a, m): v
            for a, m, v in evaluate(str(q), str(r), ["precision.2", "auc"], judged_only=True)
            .tidy()
            .iter_rows()
        }
    assert got[("u2", "precision_2")] == 1.0  # z removed: x alone
    assert ("u2", "auc") not in got  # no non-relevant document left
    with warned(MISSING):
        got = {(a, m): v for a, m, v in evaluate(str(q), str(r), ["tpr", "auc"], depth=1).tidy().iter_rows()}
    assert got[("u1", "tpr")] == 0.5  # only a is kept of a, c, b
    assert ("u1", "auc") not in got  # -M 1 leaves L_u = {a}: no non-relevant document, AUC undefined
