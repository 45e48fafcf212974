"""``-Z``, ``-N``, ``-D`` and cutoffs read with C's ``atol``, against the trec_eval binaries of both releases.

Random qrels, runs and z-score files (seeded) cover what ``convert_zscores.c`` distinguishes: a query or
a measure missing from the z-score file (-1000000), a zero standard deviation with the value equal to the
mean (0) or not (-1000000), NaN means and deviations, and ``-c``, ``-n``, ``-J``, ``-M`` around them.
"""

from __future__ import annotations

import random
import subprocess

import pytest

from tests.conftest import run_command, run_in_process
from tests.fuzz.binaries import Unavailable, binary

MODES = {"9": [], "10": ["--trec-eval-version", "10"]}


@pytest.fixture(scope="module", params=list(MODES))
def trec_eval(request):
    try:
        return request.param, binary(request.param)
    except Unavailable as exc:
        pytest.skip(str(exc))


def _files(rng: random.Random, folder) -> tuple:
    queries = [str(q) for q in rng.sample(range(1, 30), 6)]
    docs = [f"d{i}" for i in range(25)]
    qrels, run = [], []
    for q in queries:
        for d in rng.sample(docs, rng.randint(2, 10)):
            qrels.append(f"{q} 0 {d} {rng.choice([0, 0, 1, 2, -1])}")
        if rng.random() < 0.8:  # some qrels queries have no ranking (-c)
            for d in rng.sample(docs, rng.randint(1, 12)):
                run.append(f"{q} Q0 {d} 0 {rng.choice([1.5, 2.0, 0.25, rng.random()])} tag")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run or [f"{queries[0]} Q0 d1 0 1 tag"]) + "\n")
    return queries


def _zscores(rng: random.Random, queries: list[str], folder, measures: list[str]):
    lines = []
    for q in queries[:-1]:  # the last query is missing altogether
        for m in measures:
            roll = rng.random()
            if roll < 0.15:
                continue  # measure missing for this query
            if roll < 0.25:
                lines.append(f"{q}\t{m}\t0.0000\t0.0000")  # equal to the value when it is 0, else missing
            elif roll < 0.3:
                lines.append(f"{q}\t{m}\t{rng.choice(['nan', '-nan'])}\t{rng.choice(['nan', '0.5'])}")
            else:
                lines.append(f"{q}\t{m}\t{rng.uniform(-1, 5):.4f}\t{rng.uniform(0.01, 3):.4f}")
    # trec_eval's binary searches (convert_zscores.c) start one past the end of their table: a query or a
    # measure sorting after every entry reads beyond it (a crash, or garbage). Sentinels that sort last keep
    # the reference defined; trecrs needs none (such a value is simply missing: -1000000).
    lines += [f"{q}\tzzz\t0\t1" for q in queries[:-1]] + ["zzz\tzzz\t0\t1"]
    rng.shuffle(lines)
    path = folder / "z"
    path.write_text("\n".join(lines) + "\n")
    return path


def _same(binary_path, mode, args, folder) -> None:
    te = subprocess.run([str(binary_path), *args], cwd=folder, capture_output=True, check=False)
    rs = run_in_process("eval", *mode, *args, cwd=folder)
    assert (rs.returncode == 0) == (te.returncode == 0), (args, te.stderr, rs.stderr)
    assert rs.stdout == te.stdout.decode(), args


MEASURES = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "P_5", "P_10", "recip_rank", "ndcg", "bpref",
            "set_F", "num_q", "Rprec", "utility"]  # fmt: skip


@pytest.mark.parametrize("seed", range(12))
def test_zscores_match_trec_eval(trec_eval, tmp_path, seed):
    version, binary_path = trec_eval
    rng = random.Random(seed)
    queries = _files(rng, tmp_path)
    _zscores(rng, queries, tmp_path, MEASURES)
    flags = [f for f, p in (("-q", 0.8), ("-c", 0.4), ("-n", 0.1), ("-J", 0.2)) if rng.random() < p]
    if rng.random() < 0.3:
        flags += ["-M", "3"]
    measures = ["-m", "P.5,10", "-m", "map", "-m", "gm_map", "-m", "num_rel_ret", "-m", "set_F", "-m", "ndcg"]
    measures += ["-m", "all_trec"] if seed % 3 == 0 else []
    if version == "10" and "-c" not in flags:
        flags.append("-c")  # 10.0 stops at a qrels query without a ranking
    _same(binary_path, MODES[version], [*flags, *measures, "-Z", "z", "qrels", "run"], tmp_path)


@pytest.mark.parametrize("args", [
    ["-N", "1000", "-m", "utility.1,1,1,1"],
    ["-N", "17", "-q", "-m", "utility.2,-1,0.5,0.25"],
    ["-D", "0", "-m", "P.5"],
    ["-m", "ndcg_cut.10,20,23.4", "-q"],
    ["-m", "P.3,1,2", "-q"],
    ["--Number_docs_in_coll", "5", "-m", "utility.0,0,0,1"],
    ["-q", "-c", "-M1000"],  # trec_eval's README: "Official TREC usage might be something like" this
    ["-mndcg_cut.10"],  # the README's "-m measure[.params]", attached as its quicktest writes it
])  # fmt: skip
def test_options_match_trec_eval(trec_eval, tmp_path, args):
    version, binary_path = trec_eval
    _files(random.Random(99), tmp_path)
    _same(binary_path, MODES[version], ["-c", *args, "qrels", "run"], tmp_path)


def test_debug_levels_above_zero_are_refused(tmp_path):
    _files(random.Random(1), tmp_path)
    res = run_in_process("eval", "-D", "2", "qrels", "run", cwd=tmp_path)
    assert (
        res.returncode == 2
        and "argument -D/--Debug_level: trec_eval's debugging output is not reproduced; only 0 is accepted"
        in res.stderr
        and res.stdout == ""
    )


def test_cutoff_read_as_atol_warns(tmp_path):
    _files(random.Random(1), tmp_path)
    res = run_in_process("eval", "-c", "-m", "P.5.9", "qrels", "run", cwd=tmp_path)
    assert res.stdout.startswith("P_5 ") and "cutoff '5.9' read as 5" in res.stderr


def test_zscore_file_errors_name_the_line(tmp_path):
    _files(random.Random(1), tmp_path)
    (tmp_path / "z").write_text("1 map 0.5 0.1\n1 map x 0.1\n")
    res = run_in_process("eval", "-c", "-Z", "z", "qrels", "run", cwd=tmp_path)
    assert res.returncode == 3 and "z:2: mean 'x' is not a number" in res.stderr
    (tmp_path / "z").write_text("1 map 0.5 0.1\n1 map 0.5 0.2\n")
    res = run_in_process("eval", "-c", "-Z", "z", "qrels", "run", cwd=tmp_path)
    assert res.returncode == 3 and "z:2:" in res.stderr and "repeats line 1" in res.stderr


def test_version_line_is_the_binarys(trec_eval, tmp_path):
    version, binary_path = trec_eval
    te = subprocess.run([str(binary_path), "-v"], capture_output=True, text=True, check=False)
    via = run_command if version == "9" else run_in_process  # one round trip through a process is enough
    rs = via("eval", *MODES[version], "--version")
    assert (rs.returncode, rs.stdout, rs.stderr) == (te.returncode, te.stdout, te.stderr)


def test_obsolete_output_old_results_format_is_ignored(trec_eval, tmp_path):
    version, binary_path = trec_eval
    _files(random.Random(5), tmp_path)
    _same(binary_path, MODES[version], ["-c", "--Output_old_results_format", "x", "-m", "map", "qrels", "run"],
          tmp_path)  # fmt: skip
