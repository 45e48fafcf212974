"""The reproduction scripts and reports: trecrs batch, the findings rules, the scripts end to end on the
synthetic sample (fast) and on MovieLens 100K (slow, skipped without ../shared)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import ML100K, ROOT, SHARED, need
from tests.warned import warned
from trecrs.errors import InputError
from trecrs.reproductions import REPORTS, make_report
from trecrs.reproductions import bellogin2011 as bellogin
from trecrs.reproductions import cremonesi2010 as cremonesi

SAMPLE = ROOT / "sample_data" / "synth-100k-like"
REFERENCE = SHARED / "reference" / "bellogin2011_fig2_D1.tsv"


def run_script(name: str, data: Path, out: Path, **env) -> subprocess.CompletedProcess:
    """``scripts/NAME DATA OUT`` with this Python (``PYTHON``), whose trecrs runs the pipeline."""
    full = {**os.environ, "PYTHON": sys.executable, **env}
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / name), str(data), str(out)],
        capture_output=True,
        text=True,
        env=full,
        check=False,
    )


# --------------------------------------------------------------------------------------------- batch


def test_batch_runs_command_lines_in_one_process(cli, tmp_path):
    test = tmp_path / "t.data"
    test.write_text("1\t10\t5\t0\n1\t11\t2\t0\n2\t10\t4\t0\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 10 1 0.9 x\n1 Q0 11 2 0.5 x\n2 Q0 10 1 0.3 x\n")
    cmds = tmp_path / "c.txt"
    cmds.write_text(
        f"# a comment\n\ntrecrs qrels --test {test} --threshold 4 -o {tmp_path / 'q.qrels'}\n"
        f"eval -m P.1 --format tsv -o '{tmp_path / 'e v.tsv'}' {tmp_path / 'q.qrels'} {run}\n"
    )
    log, progress = tmp_path / "log.txt", tmp_path / "progress"
    code, out, err = cli("batch", "--log", log, "--progress", progress, cmds)
    assert code == 0, err
    assert progress.read_text().split() == ["3", "4"]  # the line numbers of the finished commands
    text = (tmp_path / "e v.tsv").read_text().splitlines()
    assert text[0] == "run\tquery\tmeasure\tvalue" and text[1].endswith("\tall\tP_1\t1.0")
    assert "$ trecrs qrels --test" in log.read_text() and "status 0" in log.read_text()
    manifest = json.loads((tmp_path / "q.qrels.manifest.json").read_text())
    assert manifest["command"][:2] == ["trecrs", "qrels"]  # each command records its own line


def test_batch_stops_at_the_first_failure(cli, tmp_path):
    cmds = tmp_path / "c.txt"
    cmds.write_text(
        f"qrels --test {tmp_path / 'missing.data'} --threshold 4 -o {tmp_path / 'a.qrels'}\n"
        f"qrels --test {tmp_path / 'missing.data'} --threshold 4 -o {tmp_path / 'b.qrels'}\n"
    )
    code, _, err = cli("batch", cmds)
    assert code == 5  # the failed command's own status: the file is missing
    assert f"{cmds}:1:" in err and "missing.data: no such file" in err
    assert not (tmp_path / "a.qrels").exists() and not (tmp_path / "b.qrels").exists()
    bad = tmp_path / "bad.txt"
    bad.write_text("qrels --test 'unclosed\n")
    code, _, err = cli("batch", bad)
    assert code == 3 and f"{bad}:1: cannot parse" in err
    nested = tmp_path / "nested.txt"
    nested.write_text("eval --list-measures\nbatch other.txt\n")
    code, _, err = cli("batch", nested)
    assert code == 3 and f"{nested}:2: a batch cannot run another batch" in err


# --------------------------------------------------------------------------------------------- findings rules


def frame(values: dict, split: str = "D1") -> pl.DataFrame:
    rows = [
        {"split": split, "fold": "mean", "recommender": r, "methodology": m, "metric": k, "value": v}
        for (r, m, k), v in values.items()
    ]
    return pl.DataFrame(rows)


def paper_like() -> dict:
    """Made-up numbers with the shape the paper reports (every finding holds)."""
    base = {"SVD50": 1.0, "IB": 0.05, "UB50": 0.6}
    vals = {}
    for rec, f in base.items():
        vals[(rec, "TR_3", "P@50")] = 0.37
        vals[(rec, "TR_4", "P@50")] = 0.27
        vals[(rec, "TR_3", "Recall@50")] = 0.94
        vals[(rec, "TR_4", "Recall@50")] = 0.95
        vals[(rec, "TR_3", "nDCG@50")] = 0.95
        vals[(rec, "TR_4", "nDCG@50")] = 0.84
        for meth, p, r, n in (
            ("TeI", 0.06, 0.11, 0.10),
            ("TrI", 0.05, 0.10, 0.09),
            ("AI", 0.05, 0.10, 0.09),
            ("OPR", 0.007, 0.30, 0.09),
        ):
            vals[(rec, meth, "P@50")] = p * f
            vals[(rec, meth, "Recall@50")] = r * f
            vals[(rec, meth, "nDCG@50")] = n * f
    vals[("SVD50", "-", "RMSE")], vals[("IB", "-", "RMSE")], vals[("UB50", "-", "RMSE")] = 0.92, 1.0, 1.05
    return vals


def test_bellogin_findings_hold_on_paper_like_numbers():
    found = bellogin.check_findings(frame(paper_like()))
    assert len(found) == 7 and all(f.holds for f in found), [f for f in found if not f.holds]


def test_bellogin_findings_detect_each_violation():
    def verdicts(change: dict) -> dict[str, bool]:
        vals = paper_like() | change
        return {f.claim: f.holds for f in bellogin.check_findings(frame(vals))}

    v = verdicts({("UB50", "AI", "P@50"): 0.031})
    assert not v["TrI equals AI (CF recommenders cannot score items without training ratings)"]
    assert not verdicts({("SVD50", "TeI", "Recall@50"): 0.09})["TeI >= TrI for every recommender and metric"]
    v = verdicts({("IB", "-", "RMSE"): 1.1})
    assert not v["IB has lower RMSE than UB50 yet is the worst recommender under TeI, TrI, AI and OPR"]
    v = verdicts({("UB50", "OPR", "nDCG@50"): 0.1})  # UB50 now above SVD50 under OPR
    assert not v["the ordering of the recommenders is the same under TeI, TrI, AI and OPR"]
    v = verdicts({("IB", "TR_4", "Recall@50"): 0.93})
    assert not v["P@50 falls and Recall@50 rises from TR_3 to TR_4"]
    v = verdicts({("SVD50", "OPR", "Recall@50"): 0.6})  # TR_3 recall 0.94 < 2 x 0.6
    assert not v["TR values are far above every other methodology"]
    v = verdicts({("SVD50", "OPR", "nDCG@50"): 0.005})  # 0.005 / 0.093 < 0.1: not the same order
    assert not v["OPR gives the lowest P@50 but an nDCG@50 of the same order as TeI/TrI/AI"]


def test_ib_finding_needs_ib_and_ub50():
    vals = {k: v for k, v in paper_like().items() if k[0] != "UB50"}
    claims = [f.claim for f in bellogin.check_findings(frame(vals))]
    assert len(claims) == 6 and not any(c.startswith("IB has lower RMSE") for c in claims)


def test_bellogin_findings_in_the_papers_order():
    found = bellogin.check_findings(frame(paper_like()))
    assert [f.claim.split()[0] for f in found] == ["TR", "P@50", "TrI", "TeI", "IB", "OPR", "the"]
    assert found[0].evidence.endswith("rule: >= 2")
    assert "IB below the others in 12 of 12 (methodology, metric)" in found[4].evidence
    assert found[6].evidence == "orders seen: SVD50 > UB50 > IB (12 of 12)"
    assert bellogin.check_findings(frame(paper_like(), split="D2"), "D2") == found  # any split


def test_comparison_with_reference(tmp_path):
    ref = tmp_path / "ref.tsv"
    ref.write_text(
        "split\tmetric\tmethodology\tSVD50\tIB\tUB50\nD1\tP@50\tTR_3\t0.4\t0.3\t0.2\nD1\tRMSE\t-\t0.9\t1\t1.1\n"
    )
    cmp = bellogin.comparison(frame(paper_like()), bellogin.read_reference(ref))
    row = cmp.filter((pl.col("recommender") == "SVD50") & (pl.col("metric") == "P@50")).row(0, named=True)
    assert row["ours"] == 0.37 and row["published"] == 0.4 and row["diff"] == pytest.approx(-0.03)
    rm = cmp.filter((pl.col("recommender") == "IB") & (pl.col("metric") == "RMSE")).row(0, named=True)
    assert rm["diff"] == pytest.approx(0.0)
    with pytest.raises(InputError, match="missing column"):
        (tmp_path / "bad.tsv").write_text("split\tmetric\tSVD50\n")
        bellogin.read_reference(tmp_path / "bad.tsv")


def test_packaged_published_values_equal_shared_reference():
    """The package's copy of Figure 2 (D1) holds exactly the values of ../shared's reference table."""
    need(REFERENCE)
    packaged = bellogin.PUBLISHED
    assert packaged.parent == Path(bellogin.__file__).parent
    assert bellogin.read_reference(packaged).equals(bellogin.read_reference(REFERENCE))
    lines = [x for x in packaged.read_text().splitlines() if not x.startswith("#")]
    assert lines == REFERENCE.read_text().splitlines()


def test_packaged_published_values_and_their_source():
    ref = bellogin.read_reference(bellogin.PUBLISHED)
    assert ref.height == 19 * 3  # 3 metrics x 6 methodologies + RMSE, for each of 3 recommenders
    svd = ref.filter(
        (pl.col("recommender") == "SVD50") & (pl.col("metric") == "P@50") & (pl.col("methodology") == "TR_4")
    )
    assert svd["published"][0] == 0.272
    head = bellogin.PUBLISHED.read_text().split("\nsplit\t")[0]
    assert "RecSys 2011, Figure 2, split D1" in " ".join(head.replace("# ", "").split())
    assert "+-0.003" in head and "+-0.006" in head


def test_published_values_are_compared_only_on_movielens_100k(tmp_path):
    """The reason a report gives for not comparing is the data's, not a missing file."""
    from trecrs.reproductions.bellogin2011.reference import reference_to_compare

    ref, why = reference_to_compare(None, SAMPLE)
    assert ref is None and why.startswith(
        f"the data `{SAMPLE}` is not MovieLens 100K (`trecrs datasets verify`: "
        "mismatch in u.data md5, u.data count)"
    )
    ref, why = reference_to_compare(tmp_path / "mine.tsv", SAMPLE)  # an explicit table changes nothing
    assert ref is None and "is not MovieLens 100K" in why
    assert reference_to_compare(tmp_path / "mine.tsv", None) == (tmp_path / "mine.tsv", None)
    ref, why = reference_to_compare(None, None)
    assert ref is None and why.startswith("no data folder was named (`--data`)")
    if (ML100K / "u.data").exists():
        assert reference_to_compare(None, ML100K) == (bellogin.PUBLISHED, None)


def test_report_text_names_the_ticks_only_when_drawn():
    from trecrs.reproductions.bellogin2011 import text

    without = "\n".join(text._files(with_published=False))
    assert "bellogin2011_fig2.png`: the figure (bars: ours)." in without and "tick" not in without
    assert "(bars: ours; black ticks: published D1 values)" in "\n".join(text._files(with_published=True))
    assert text._not_compared("the data `d` is not MovieLens 100K (...)")[2] == (
        "Not compared: the data `d` is not MovieLens 100K (...). The findings above are checked on this "
        "data and say nothing about the paper's numbers."
    )


def test_cremonesi_findings_rules():
    rows = []
    for testset, recall10 in (
        (
            "full",
            {
                "TopPop": 0.3,
                "MovieAvg": 0.01,
                "CorNgbr": 0.2,
                "NNCosNgbr": 0.3,
                "PureSVD50": 0.4,
                "PureSVD150": 0.25,
            },
        ),
        (
            "longtail",
            {
                "TopPop": 0.01,
                "MovieAvg": 0.01,
                "CorNgbr": 0.1,
                "NNCosNgbr": 0.1,
                "PureSVD50": 0.3,
                "PureSVD150": 0.3,
            },
        ),
    ):
        for rec, r in recall10.items():
            rows.append({"testset": testset, "recommender": rec, "N": 10, "recall": r, "precision": r / 10})
    found = {f.claim: f for f in cremonesi.check_findings(pl.DataFrame(rows), {"full": 100, "longtail": 50})}
    assert found["PureSVD50 beats TopPop, MovieAvg and CorNgbr at recall@10 on the full test set"].holds
    f150 = found["PureSVD150 beats TopPop, MovieAvg and CorNgbr at recall@10 on the full test set"]
    assert not f150.holds and "not above: TopPop" in f150.evidence
    top = found["TopPop drops sharply on the long tail"]
    assert top.holds and "0.300 ± 0.046" in top.evidence  # sqrt(0.3 * 0.7 / 100)
    assert "it ranks 2 of 6 on the full test set, 5 of 6 on the long tail" in top.evidence
    # without PureSVD150 its claim is left out; without the case counts, no standard errors
    no150 = pl.DataFrame(rows).filter(pl.col("recommender") != "PureSVD150")
    found = cremonesi.check_findings(no150)
    assert [f.claim.split()[0] for f in found] == ["PureSVD50", "TopPop"]
    assert "±" not in found[0].evidence and "PureSVD50 0.400, TopPop 0.300" in found[0].evidence


def test_cremonesi_plan_passes_the_papers_constants():
    """The commands the pipeline runs pass the constants trecrs.reproductions.cremonesi2010 declares."""
    from trecrs.reproductions.cremonesi2010.pipeline import batch

    # the words of each line as `trecrs batch` reads them (the file escapes commas as printf %q does)
    text = "\n".join(" ".join(shlex.split(x)) + " " for x in batch("out", "data/u.data").lines[1:])
    assert f"--ratio {cremonesi.PROBE_RATIO} --threshold {cremonesi.PROBE_THRESHOLD} " in text
    assert f"--n {cremonesi.RANDOM_ITEMS} " in text and f"--long-tail {cremonesi.SHORT_HEAD_SHARE} " in text
    assert (
        "--relevant-threshold 5 " in text
        and " -m recall.1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20 " in text
    )
    assert cremonesi.CUTOFFS == tuple(range(1, 21)) and cremonesi.PROBE_THRESHOLD == 5


def test_bellogin_plan_matches_the_constants():
    from trecrs.reproductions.bellogin2011.pipeline import fold_batch

    lines = fold_batch("out", "u1").lines
    assert [x.split("--algorithm ")[1].split()[0] for x in lines if " recommend " in f" {x}"] == list(
        bellogin.RECOMMENDERS
    )
    assert [x.split(" -l ")[1].split()[0] for x in lines if x.startswith("trecrs eval ") and " -l " in x] == [
        str(level) for level in bellogin.LEVELS
    ] and bellogin.LEVEL in bellogin.LEVELS
    measures = " ".join(f"-m {'.'.join(m.rsplit('_', 1))}" for m in bellogin.METRICS)  # P_50 -> P.50
    assert all(measures in x for x in lines if x.startswith("trecrs eval "))


def test_report_registry_and_errors(tmp_path):
    from trecrs.errors import UsageError

    assert list(REPORTS) == ["bellogin2011", "cremonesi2010"]
    with pytest.raises(UsageError, match="unknown report 'x'; choose from bellogin2011, cremonesi2010"):
        make_report("x", tmp_path)
    with pytest.raises(InputError, match="no such folder"):
        make_report("bellogin2011", tmp_path / "absent")
    with pytest.raises(UsageError, match="no reference file"):
        make_report("cremonesi2010", tmp_path, reference="ref.tsv")
    with pytest.raises(InputError, match="no fold results found"):
        make_report("bellogin2011", tmp_path)
    with pytest.raises(InputError, match="missing evaluation file"):
        make_report("cremonesi2010", tmp_path)


def test_markdown_helpers():
    from trecrs.report.markdown import findings_table, fmt, md_table, signed
    from trecrs.report.records import Finding

    assert (fmt(0.12345), fmt(float("nan")), fmt(None), signed(-0.01), signed(0.5, 1)) == (
        "0.123",
        "–",
        "–",
        "-0.010",
        "+0.5",
    )
    assert md_table(["a", "b"], [["x", "1"]]) == "| a | b |\n| --- | --: |\n| x | 1 |\n"
    table = findings_table([Finding("c", False, "e")])
    assert table.splitlines()[-1] == "| c | **does not hold** | e |"


# --------------------------------------------------------------------------------------------- scripts, sample


# The pipeline on the synthetic sample takes 20-45 s per script: slow.


@pytest.fixture(scope="module")
def bellogin_sample(tmp_path_factory):
    out = tmp_path_factory.mktemp("bellogin") / "out"
    proc = run_script("reproduce_bellogin2011.sh", SAMPLE, out, FOLDS="D1:u1 D2:ua", JOBS="2", REFERENCE="")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


@pytest.mark.slow
def test_bellogin_script_writes_results_report_figure(bellogin_sample):
    out, proc = bellogin_sample
    res = pl.read_csv(out / "results.tsv", separator="\t", schema_overrides={"fold": pl.Utf8})
    assert res.columns == ["split", "fold", "recommender", "methodology", "metric", "value"]
    # per fold and per split mean: 3 recommenders x (6 methodologies x 3 metrics + RMSE)
    assert res.group_by("split", "fold").len().sort("split", "fold").rows() == [
        ("D1", "mean", 57),
        ("D1", "u1", 57),
        ("D2", "mean", 57),
        ("D2", "ua", 57),
    ]
    assert set(res["recommender"]) == set(bellogin.RECOMMENDERS)
    assert set(res["methodology"]) == {*bellogin.METHODOLOGIES, "-"}
    assert res.filter(pl.col("metric") == "RMSE")["methodology"].unique().to_list() == ["-"]
    assert res.filter(pl.col("value").is_null() | pl.col("value").is_nan()).height == 0
    md = (out / "report.md").read_text()
    assert "## Findings of the paper, checked on D1" in md and "**Runtime:**" in md
    assert f"Not compared: the data `{SAMPLE}` is not MovieLens 100K" in md and "black ticks" not in md
    assert (out / "bellogin2011_fig2.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "results.tsv.manifest.json").is_file()
    assert "[D1] TrI equals AI" in proc.stdout
    lines = [x for x in (out / "D1" / "u1" / "commands.txt").read_text().splitlines() if x and x[0] != "#"]
    assert len(lines) == 31 and all(x.startswith("trecrs ") for x in lines)
    # the audit of each fold, in the report: the split files' manifests declare ML-100K's predefined
    # (random) splits, so future-training is a note; the AllItems runs keep no training item
    assert "## Audit of every fold (`trecrs audit`, docs/audit.md)" in md
    audit = json.loads((out / "D1" / "u1" / "audit.AI.json").read_text())
    found = {(f["id"], f.get("run", "")): f for f in audit["findings"]}
    assert found[("future-training", "")]["severity"] == "info"
    assert all(
        found[("seen-items", str(out / "D1" / "u1" / f"{r}.AI.run"))]["count"] == 0
        for r in bellogin.RECOMMENDERS
    )
    # the five-fold table through trecrs study: its means are results.tsv's fold means
    assert "## Five-fold table (`trecrs study`, docs/study.md)" in md
    for meth, metric in (("TR_4", "P@50"), ("AI", "nDCG@50"), ("OPR", "Recall@50")):
        cells = json.loads((out / "study" / f"{meth}.json").read_text())["cells"]
        column = {v: k for k, v in bellogin.METRICS.items()}[metric]
        for c in (c for c in cells if c["measure"] == column):
            mean = res.filter((pl.col("split") == c["dataset"]) & (pl.col("fold") == "mean") & (pl.col("methodology") == meth)
                              & (pl.col("recommender") == c["system"]) & (pl.col("metric") == metric))["value"][0]  # fmt: skip
            assert c["mean"] == pytest.approx(mean, abs=1e-6)  # results.tsv has 6 decimals


@pytest.mark.slow
def test_bellogin_numbers_are_the_pipeline_numbers(bellogin_sample):
    """Recompute two entries of results.tsv with the library, from the fold's own files."""
    from trecrs import evaluate
    from trecrs.files.ratings import read_ratings
    from trecrs.files.scores import read_predictions, read_scores
    from trecrs.measures.recsys.error import error_measures
    from trecrs.protocol.candidates import candidate_set
    from trecrs.protocol.runs import build_run

    out, _ = bellogin_sample
    res = pl.read_csv(out / "results.tsv", separator="\t", schema_overrides={"fold": pl.Utf8})

    def ours(meth, metric, rec="SVD50"):
        return res.filter(
            (pl.col("fold") == "u1")
            & (pl.col("recommender") == rec)
            & (pl.col("methodology") == meth)
            & (pl.col("metric") == metric)
        )["value"][0]

    d = out / "D1" / "u1"
    train, test = read_ratings(out / "splits" / "u1.base"), read_ratings(out / "splits" / "u1.test")
    scores = read_scores(d / "SVD50.scores.parquet")
    # TR_3 with the full (uncut) run: the depth-50 cut changes no @50 measure
    run = build_run(candidate_set("test-ratings", train, test), scores, missing="drop").run
    with warned("289 of 300 .* retrieve fewer than 50 documents"):  # a user's test ratings, not 50 items
        ev = evaluate(d / "th3.qrels", run, ["P.50", "recall.50", "ndcg_cut.50"]).tidy()
    got = dict(ev.filter(pl.col("query") == "all").select("measure", "value").iter_rows())
    assert got["P_50"] == pytest.approx(ours("TR_3", "P@50"), abs=1e-6)
    assert got["ndcg_cut_50"] == pytest.approx(ours("TR_3", "nDCG@50"), abs=1e-6)
    run = build_run(candidate_set("all-items", train, test), scores, missing="drop").run
    ev = evaluate(d / "all.qrels", run, ["recall.50"], relevance_level=4).tidy()
    assert ev.filter(pl.col("query") == "all")["value"][0] == pytest.approx(ours("AI", "Recall@50"), abs=1e-6)
    rmse = dict(error_measures(read_predictions(d / "UB50.pred"), test).iter_rows())["rmse"]
    assert rmse == pytest.approx(ours("-", "RMSE", "UB50"), abs=1e-6)


@pytest.mark.slow
def test_cremonesi_script_on_sample(tmp_path):
    out = tmp_path / "out"
    proc = run_script("reproduce_cremonesi2010.sh", SAMPLE, out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = pl.read_csv(out / "results.tsv", separator="\t")
    assert res.columns == ["testset", "recommender", "N", "recall", "precision"]
    assert res.height == 2 * 6 * 20
    assert sorted(res["testset"].unique()) == ["full", "longtail"]
    assert (res["precision"] - res["recall"] / res["N"]).abs().max() < 1e-6  # precision(N) = recall(N) / N
    steps = res.sort("testset", "recommender", "N").group_by("testset", "recommender", maintain_order=True)
    assert all((g["recall"].diff().drop_nulls() >= 0).all() for _, g in steps)  # recall grows with N
    assert "TopPop drops sharply on the long tail" in proc.stdout
    assert (out / "cremonesi2010.png").read_bytes()[:4] == b"\x89PNG"


def test_scripts_refuse_bad_arguments(tmp_path):
    proc = run_script("reproduce_bellogin2011.sh", tmp_path, tmp_path / "out")
    assert proc.returncode == 2 and "u.data not found" in proc.stderr
    proc = run_script("reproduce_cremonesi2010.sh", tmp_path, tmp_path / "out")
    assert proc.returncode == 2 and "no u.data" in proc.stderr


# --------------------------------------------------------------------------------------------- ML-100K (slow)


@pytest.mark.slow
def test_bellogin_findings_on_ml100k(tmp_path):
    need(ML100K / "u.data")
    need(REFERENCE)
    out = tmp_path / "out"
    folds = "D1:u1 D1:u2 D1:u3 D1:u4 D1:u5"
    proc = run_script("reproduce_bellogin2011.sh", ML100K, out, FOLDS=folds, REFERENCE=str(REFERENCE))
    assert proc.returncode == 0, proc.stderr[-3000:]
    for line in proc.stdout.splitlines():  # every finding of the paper holds on D1
        assert ": holds (" in line, line
    res = pl.read_csv(out / "results.tsv", separator="\t", schema_overrides={"fold": pl.Utf8})
    cmp = bellogin.comparison(res, bellogin.read_reference(REFERENCE))
    # SVD50 and IB under TestRatings, and IB's RMSE, land on the published bars
    close = cmp.filter(
        pl.col("recommender").is_in(["SVD50", "IB"])
        & pl.col("methodology").is_in(["TR_3", "TR_4"])
        & pl.col("metric").is_in(["P@50", "Recall@50"])
    )
    assert close.height == 8 and close["diff"].abs().max() < 0.005
    ib = cmp.filter((pl.col("recommender") == "IB") & (pl.col("metric") == "RMSE"))["diff"][0]
    assert abs(ib) < 0.005


@pytest.mark.slow
def test_cremonesi_findings_on_ml100k(tmp_path):
    need(ML100K / "u.data")
    out = tmp_path / "out"
    proc = run_script("reproduce_cremonesi2010.sh", ML100K, out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    verdicts = dict(line.split(": ", 1) for line in proc.stdout.splitlines())
    assert verdicts[
        "PureSVD50 beats TopPop, MovieAvg and CorNgbr at recall@10 on the full test set"
    ].startswith("holds")
    assert verdicts["TopPop drops sharply on the long tail"].startswith("holds")
