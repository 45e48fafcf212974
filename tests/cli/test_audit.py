"""``trecrs audit``: --strict's status, the JSON document, -o with its manifest, errors in the inputs, and (slow)
an ML-20M-sized split within memory and seconds."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

import numpy as np
import polars as pl
import pytest

from ..conftest import ROOT, run_command

TRAIN = "u1\ta\t4\t10\nu1\tb\t3\t11\nu2\ta\t5\t12\nu2\tc\t2\t13\n"
TEST_CLEAN = "u1\tc\t5\t20\nu2\tb\t4\t21\n"
TEST_OVERLAP = "u1\ta\t5\t20\nu2\tb\t4\t21\n"  # (u1, a) is also a training pair
QRELS = "u1 0 c 1\nu2 0 b 1\n"
RUN = "u1 Q0 c 1 0.9 r\nu1 Q0 a 2 0.5 r\nu2 Q0 b 1 0.7 r\nu2 Q0 d 2 0.6 r\n"  # (u1, a) rated in training


@pytest.fixture
def files(tmp_path):
    for name, text in {
        "train": TRAIN,
        "clean": TEST_CLEAN,
        "overlap": TEST_OVERLAP,
        "q": QRELS,
        "r": RUN,
    }.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_strict_exits_1_on_an_error_finding_only(cli, files):
    clean = ["audit", "--strict", "--train", files / "train", "--test", files / "clean"]
    assert cli(*clean)[0] == 0
    code, out, err = cli("audit", "--strict", "--train", files / "train", "--test", files / "overlap")
    assert code == 1 and err == ""
    assert "ERROR   overlap: 1 of 2 test pairs (50.0%)" in out
    assert cli("audit", "--train", files / "train", "--test", files / "overlap")[0] == 0  # without --strict


def test_json_with_a_run_and_output_with_its_manifest(cli, files):
    out_file = files / "audit.json"
    code, out, err = cli("audit", "--format", "json", "-o", out_file, "--train", files / "train", "--test",
                         files / "clean", "--qrels", files / "q", "-m", "P.1", files / "r")  # fmt: skip
    assert code == 0 and out == "" and "wrote" in err
    doc = json.loads(out_file.read_text())
    seen = [f for f in doc["findings"] if f["id"] == "seen-items"]
    assert seen == [{"id": "seen-items", "severity": "error", "count": 1, "of": 4, "example": "query u1, doc a",
                     "source": seen[0]["source"], "advice": seen[0]["advice"], "run": str(files / "r")}]  # fmt: skip
    power = [f for f in doc["findings"] if f["id"] == "power"]
    assert [(f["measure"], f["count"], f["of"]) for f in power] == [("P_1", 2, 2)]
    manifest = json.loads((files / "audit.json.manifest.json").read_text())
    assert manifest["kind"] == "audit" and manifest["failed"] is True
    assert set(manifest["inputs"]) == {"train", "test", "qrels", f"run:{files / 'r'}"}


def test_a_bad_input_is_one_error_line(files):
    (files / "badq").write_text("u1 0 c x\n")
    p = run_command("audit", "--strict", "--qrels", files / "badq", files / "r")
    assert p.returncode == 3 and p.stdout == ""
    assert (
        p.stderr
        == f"trecrs audit: error: {files / 'badq'}:1: relevance must be an integer, found 'x': 'u1 0 c x'\n"
    )


@pytest.mark.slow
def test_an_ml20m_sized_split_within_memory_and_seconds(tmp_path):
    """20M ratings (138,493 users x 26,744 items, ML-20M's shape) split 80/20 by time, and a 100-item run
    per user: the audit in a separate process, timed and its peak memory measured."""
    rng = np.random.default_rng(7)
    n, users, items = 20_000_263, 138_493, 26_744
    df = pl.DataFrame({"user": rng.integers(1, users + 1, n, dtype=np.int32),
                       "item": rng.integers(1, items + 1, n, dtype=np.int32),
                       "rating": rng.integers(1, 6, n, dtype=np.int8), "timestamp": rng.integers(8 * 10**8, 14 * 10**8, n)})  # fmt: skip
    df = df.unique(["user", "item"], keep="first").sort("timestamp")
    cut = df.height * 4 // 5
    df.slice(0, cut).write_csv(tmp_path / "train.tsv", separator="\t", include_header=False)
    df.slice(cut).write_csv(tmp_path / "test.tsv", separator="\t", include_header=False)
    test_users = df.slice(cut).get_column("user").unique().sort()
    run = pl.DataFrame({"q": test_users.to_numpy().repeat(100), "i": np.tile(np.arange(1, 101), test_users.len()),
                        "s": np.tile(np.linspace(1, 0, 100), test_users.len())})  # fmt: skip
    run.select(pl.col("q"), pl.lit("Q0").alias("it"), pl.col("i"), pl.lit(1).alias("rank"), pl.col("s"),
               pl.lit("r").alias("tag")).write_csv(
        tmp_path / "run", separator=" ", include_header=False)  # fmt: skip
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "trecrs", "audit", "--format", "json", "--train", tmp_path / "train.tsv",
                        "--test", tmp_path / "test.tsv", tmp_path / "run"], capture_output=True, text=True)  # fmt: skip
    wall = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert p.returncode == 0, p.stderr
    found = {f["id"]: f for f in json.loads(p.stdout)["findings"]}
    assert found["overlap"]["count"] == 0 and found["future-training"]["count"] == 0
    assert found["seen-items"]["of"] == run.height
    print(f"audit of {df.height:,} ratings and {run.height:,} run lines: {wall:.1f} s, {peak_mb:.0f} MB")
    assert wall < 4 * (df.height + run.height) / 1e6  # a few seconds per million lines read
    assert peak_mb < 8_000


# --------------------------------------------------------------------------------------------- a whole protocol


@pytest.fixture(scope="module")
def protocol(tmp_path_factory):
    """A small protocol from the synthetic sample: users 1-40, every fifth of their ratings to test; qrels at
    threshold 4 (and with --nonrelevant: users with no relevant test rating judged too); AllItems
    candidates; TopPop and item kNN runs cut at 10, as the commands write them."""
    from trecrs.cli import main

    d = tmp_path_factory.mktemp("protocol")
    lines = [x for x in (ROOT / "sample_data/synth-100k-like/u.data").read_text().splitlines()
             if int(x.split()[0]) <= 40]  # fmt: skip
    (d / "train").write_text("".join(x + "\n" for n, x in enumerate(lines) if n % 5))
    (d / "test").write_text("".join(x + "\n" for n, x in enumerate(lines) if n % 5 == 0))
    commands = [
        ["qrels", "--test", d / "test", "--threshold", "4", "-o", d / "q4"],
        ["qrels", "--test", d / "test", "--threshold", "4", "--nonrelevant", "-o", d / "qnr"],
        ["candidates", "--methodology", "all-items", "--train", d / "train", "--test", d / "test", "-o", d / "pairs"],
    ]  # fmt: skip
    for a in ("toppop", "itemknn"):
        commands += [
            ["recommend", "-a", a, "--train", d / "train", "--candidates", d / "pairs", "-o", d / f"{a}.scores"],
            ["run", "--candidates", d / "pairs", "--scores", d / f"{a}.scores", "--depth", "10", "-o", d / f"{a}.run"],
        ]  # fmt: skip
    for c in commands:
        assert main([c[0], "--quiet", *map(str, c[1:])]) == 0
    return d


def _rows(path, names) -> pl.DataFrame:
    """A TREC file's whitespace-separated fields as strings (ranks and grades as integers, scores as floats)."""
    rows = [line.split() for line in path.read_text().splitlines()]
    df = pl.DataFrame(rows, schema=names, orient="row")
    casts = {"k": pl.Int64, "r": pl.Int64, "s": pl.Float64}
    return df.with_columns(pl.col(c).cast(t) for c, t in casts.items() if c in names)


def _audit_json(cli, *args) -> dict:
    code, out, err = cli("audit", "--format", "json", *args)
    assert code == 0, err
    return json.loads(out)


def test_every_count_is_a_subset_of_its_base(cli, protocol):
    """Over every finding of several audits (qrels with judged non-relevant lines, -l 5, candidates, both
    runs): count <= of; power's users are the run's queries the qrels hold (trec_eval evaluates those, a
    relevant document or not), out of the qrels' queries."""
    d = protocol
    split = ["--train", d / "train", "--test", d / "test"]
    runs = [d / "toppop.run", d / "itemknn.run"]
    audits = {
        "nonrelevant": [*split, "--qrels", d / "qnr", *runs],
        "level 5": [*split, "--qrels", d / "q4", "-l", "5", *runs],
        "nonrelevant, level 5, candidates": [*split, "--qrels", d / "qnr", "-l", "5", "--candidates", d / "pairs", *runs],
    }  # fmt: skip
    qrels = {q: _rows(d / q, ["q", "i", "d", "r"]) for q in ("q4", "qnr")}
    run_queries = _rows(d / "toppop.run", ["column_1", "x", "i", "k", "s", "t"])
    for name, args in audits.items():
        doc = _audit_json(cli, *args)
        assert len(doc["findings"]) > 15, name
        for f in doc["findings"]:
            assert 0 <= f["count"] <= f["of"], (name, f)
        q = qrels["qnr" if "--qrels" in args and args[args.index("--qrels") + 1] == d / "qnr" else "q4"]
        judged = set(q.get_column("q"))
        for f in (f for f in doc["findings"] if f["id"] == "power"):
            assert f["of"] == len(judged), name
            assert f["count"] == len(judged & set(run_queries.get_column("column_1"))), name
    # the base of missing-users: the queries with a relevant document at -l (rel >= 5 here)
    doc = _audit_json(cli, *audits["level 5"])
    missing = next(f for f in doc["findings"] if f["id"] == "missing-users")
    assert missing["of"] == qrels["q4"].filter(pl.col("r") >= 5).get_column("q").n_unique()


def test_a_toppop_run_is_the_popularity_baseline(cli, protocol):
    """`trecrs recommend -a toppop` ranks by training popularity: its baselines finding is a note saying so;
    the item kNN run is compared as a model."""
    d = protocol
    doc = _audit_json(cli, "--train", d / "train", "--test", d / "test", "--qrels", d / "q4", "--candidates",
                      d / "pairs", "-m", "P.10", d / "toppop.run", d / "itemknn.run")  # fmt: skip
    base = {f["run"]: f for f in doc["findings"] if f["id"] == "baselines"}
    pop = base[str(d / "toppop.run")]
    assert pop["severity"] == "info" and pop["values"]["popularity_baseline"] is True
    assert pop["values"]["run"] == pop["values"]["TopPop"] and "popularity baseline" in pop["detail"]
    assert "popularity_baseline" not in base[str(d / "itemknn.run")]["values"]
    # the TopPop lists cut at 10 end inside tie groups of equal counts: counted
    ties = next(
        f for f in doc["findings"] if f["id"] == "ties-at-cutoff" and f["run"] == str(d / "toppop.run")
    )
    run = pl.read_csv(
        d / "toppop.run", separator=" ", has_header=False, new_columns=["q", "x", "i", "k", "s", "t"]
    )
    last_two = (
        run.filter(pl.col("k") >= 9).group_by("q").agg(pl.col("s").n_unique() == 1).get_column("s").sum()
    )
    assert ties["values"]["truncated"] == last_two > 0


def test_ids_in_another_form_are_an_error_and_a_run_matching_nothing_stops_no_other(cli, protocol):
    d = protocol
    text = (d / "toppop.run").read_text().splitlines()
    (d / "floats.run").write_text(
        "".join(f"{q} Q0 {i}.0 {k} {s} t\n" for q, _, i, k, s, _ in map(str.split, text))
    )
    (d / "prefixed.run").write_text("".join(f"u{x}\n" for x in text))
    code, out, err = cli("audit", "--strict", "--train", d / "train", "--test", d / "test", "--qrels", d / "q4",
                         d / "floats.run", d / "prefixed.run", d / "itemknn.run")  # fmt: skip
    assert code == 1 and err == ""
    assert f"ERROR   id-form [{d / 'floats.run'}]: {len(text)} of {len(text)} run lines (100.0%)" in out
    assert f"ERROR   id-form [{d / 'prefixed.run'}]: {len(text)} of {len(text)} run lines (100.0%)" in out
    assert f"e.g. query u1 of {d / 'prefixed.run'} is query 1 of --qrels" in out
    doc = min((x.split()[2] + ".0" for x in text), key=str.encode)  # the smallest, bytewise
    assert f"e.g. document {doc} of {d / 'floats.run'} is item {doc[:-2]} of --t" in out  # --train or --test
    assert (
        f"power [{d / 'prefixed.run'}], baselines [{d / 'prefixed.run'}] ({d / 'prefixed.run'}: no queries"
        in out
    )
    assert f"INFO    power [{d / 'itemknn.run'}] [P_10]" in out


def test_a_rating_without_a_timestamp_is_named_by_file_and_line(cli, files):
    (files / "untimed").write_text("u1\ta\t4\t10\nu1\tb\t3\t11\nu2\ta\t5\nu2\tc\t2\t13\n")
    code, out, err = cli("audit", "--train", files / "untimed", "--test", files / "clean")
    assert code == 0
    assert (f"not run: test-before-train-user, future-training (need timestamps on every rating of --train and "
            f"--test: {files / 'untimed'}:3: a rating without a timestamp)") in out  # fmt: skip
    doc = _audit_json(cli, "--train", files / "untimed", "--test", files / "clean")
    skipped = [s for s in doc["skipped"] if s["id"] == "future-training"]
    assert skipped[0]["reason"] == f"{files / 'untimed'}:3: a rating without a timestamp"
