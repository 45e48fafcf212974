"""The reproductions as library functions (trecrs.reproductions.*.pipeline) against their shell scripts: the
plan is the scripts' command lines (fast: the scripts run with a `trecrs` that does nothing), the runner of
the command line (trecrs.cli.reproduce_runner), and end to end the same files, byte for byte (slow)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ML100K, ROOT, need
from trecrs.cli.reproduce_runner import ProcessBatches, in_process_batch, thread_env
from trecrs.errors import FileAccessError, UsageError
from trecrs.reproductions.batches import Batch, ReproductionError, bash_quote, command_line, run_batches
from trecrs.reproductions.bellogin2011 import pipeline as bellogin
from trecrs.reproductions.cremonesi2010 import pipeline as cremonesi

SAMPLE = ROOT / "sample_data" / "synth-100k-like"


def script(name: str, data: str, out: str, cwd: Path, **env) -> subprocess.CompletedProcess:
    """``scripts/reproduce_NAME.sh DATA OUT`` run in ``cwd`` (``TRECRS`` from ``env``: `true` for the plan)."""
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / f"reproduce_{name}.sh"), data, out],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )


# --------------------------------------------------------------------------------------------- the plan

ODD = "o u t,#~x'$"  # spaces, a comma, a quote, a dollar, '#' and '~' inside: printf %q escapes them


def test_bash_quote_is_printf_q():
    words = [
        "a b",
        "it's",
        "x~y",
        "~x",
        "a=~b",
        "#a",
        "a#b",
        "é",
        "a,b",
        "",
        "a:~b",
        "a\tb",
        "a\nb",
        "a%b",
        "a+b@c",
        "a/b.c-d_e",
        "!x",
        "{a}",
        "*?[]",
        "a\\b",
        '"q"',
        "a;b|c&d",
        "<>()",
        "^`",
        "\x01z",
    ]
    bash = subprocess.run(
        ["bash", "-c", 'for w in "$@"; do printf "%q\\n" "$w"; done', "bash", *words],
        capture_output=True,
        text=True,
        check=True,
    )
    assert [bash_quote(w) for w in words] == bash.stdout.split("\n")[:-1]
    assert command_line("eval", "-m", "P.5", "a b") == "trecrs eval -m P.5 a\\ b"


@pytest.mark.parametrize("out", ["out", ODD])
def test_bellogin_plan_is_the_scripts(tmp_path, monkeypatch, out):
    """Every fold's commands.txt and the study files, as the script writes them (its trecrs: `true`)."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "u.data").write_text("")
    (tmp_path / out / "splits").mkdir(parents=True)
    for fold, lines in (("u1", 3), ("ua", 2)):  # the study files count the split files' lines
        (tmp_path / out / "splits" / f"{fold}.test").write_text("x\n" * lines)
        (tmp_path / out / "splits" / f"{fold}.base").write_text("x\n" * (lines + 4))
    proc = script("bellogin2011", "data", out, tmp_path, TRECRS="true", FOLDS="D1:u1 D2:ua", SEED="7")
    assert proc.returncode == 0, proc.stderr
    monkeypatch.chdir(tmp_path)
    for split, fold in (("D1", "u1"), ("D2", "ua")):
        written = (tmp_path / out / split / fold / "commands.txt").read_text()
        assert bellogin.fold_batch(out, fold, seed=7).text() == written
    plan = bellogin.study_plan(out, ["u1", "ua"])
    assert [Path(p).name for p, _, _ in plan] == [f"{m}.tsv" for m in bellogin.STUDIES]
    for path, text, _ in plan:
        assert (tmp_path / path).read_text() == text
    # the study lines, as the script calls trecrs study (TeI/TrI/AI at -l 4)
    assert plan[2][2] == [
        "study",
        f"{out}/study/TeI.tsv",
        "-m",
        "P.50",
        "-m",
        "recall.50",
        "-m",
        "ndcg_cut.50",
        "-l",
        "4",
        "--baseline",
        "SVD50",
        "--quiet",
        "--format",
        "json",
        "-o",
        f"{out}/study/TeI.json",
    ]
    assert plan[0][1].splitlines()[1] == "D1\tu1\tSVD50\t../D1/u1/th3.qrels\t../D1/u1/SVD50.TR.run\t3\t7"


def test_bellogin_fold_has_the_scripts_31_steps():
    batch = bellogin.fold_batch("out", "u1")
    assert batch.steps == 5 + 3 * (1 + 5) + 6 + 2 == 31
    assert batch.lines[0] == "# Bellogín et al. 2011, fold u1 of D1"
    assert batch.lines[7] == (
        "trecrs run --methodology test-ratings --train out/splits/u1.base --test out/splits/u1.test --n 1000 "
        "--relevant-threshold 5 --seed 1 --scores out/D1/u1/SVD50.scores.parquet --missing drop --depth 50 "
        "--tag SVD50 -o out/D1/u1/SVD50.TR.run"
    )


@pytest.mark.parametrize("ratings", ["u.data", "ratings.dat", "ratings.csv"])
def test_cremonesi_plan_is_the_scripts(tmp_path, monkeypatch, ratings):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / ratings).write_text("")
    proc = script("cremonesi2010", "data", ODD, tmp_path, TRECRS="true", SEED="3")
    assert proc.returncode == 0, proc.stderr
    monkeypatch.chdir(tmp_path)
    assert cremonesi.ratings_file("data") == f"data/{ratings}"
    batch = cremonesi.batch(ODD, f"data/{ratings}", seed=3)
    assert batch.text() == (tmp_path / ODD / "commands.txt").read_text()
    assert batch.steps == 4 + 2 * 6 + 2


def test_plans_refuse_what_they_cannot_run(tmp_path):
    with pytest.raises(UsageError, match="unknown fold 'u9'; choose among u1, u2, u3, u4, u5, ua, ub"):
        bellogin.check_folds(["u1", "u9"])
    with pytest.raises(UsageError, match="a fold named twice"):
        bellogin.check_folds(["u1", "u1"])
    assert bellogin.check_folds(["ua", "u2"]) == ("ua", "u2")  # in the order given, as FOLDS
    never = pytest.fail  # no batch may run
    with pytest.raises(FileAccessError, match="u.data: not found"):
        bellogin.reproduce(tmp_path / "out", tmp_path, run_batch=never)
    with pytest.raises(FileAccessError, match="no u.data, ratings.dat or ratings.csv in the folder"):
        cremonesi.reproduce(tmp_path / "out", tmp_path, run_batch=never)
    with pytest.raises(UsageError, match="no folds and no reference"):
        cremonesi.reproduce(tmp_path / "out", tmp_path, folds=["u1"], run_batch=never)
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------------- the runner


def _batch_file(tmp_path: Path, *lines: str) -> tuple[str, str, str]:
    (tmp_path / "commands.txt").write_text("".join(f"{x}\n" for x in lines))
    return str(tmp_path / "commands.txt"), str(tmp_path / "log.txt"), str(tmp_path / "progress")


def test_in_process_and_process_batches_run_a_commands_file(tmp_path):
    """Both runners give `trecrs batch`'s status and files; the process one its own process."""
    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.0 t\n")
    ok = f"trecrs eval -m P.1 -o {tmp_path}/e1 {tmp_path}/q {tmp_path}/r"
    assert in_process_batch(*_batch_file(tmp_path, ok)) == 0
    assert (tmp_path / "e1").read_text() == "P_1                   \tall\t1.0000\n"
    assert (tmp_path / "progress").read_text() == "1\n"
    bad = f"trecrs eval -m P.1 {tmp_path}/absent {tmp_path}/r"
    with ProcessBatches(thread_env()) as run:
        assert run(*_batch_file(tmp_path, ok.replace("e1", "e2"), bad)) == 5  # the failed step's status
    assert (tmp_path / "e2").read_text() == "P_1                   \tall\t1.0000\n"
    assert "absent: no such file" in (tmp_path / "log.txt").read_text()
    assert thread_env({"OMP_NUM_THREADS": "4"}) == {
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "4",
        "MKL_NUM_THREADS": "1",
    }


def test_process_batches_stop_ends_the_running_processes(tmp_path):
    """Leaving the runner's block (Ctrl-C, SIGTERM) ends the batches under way: status 143, no wait."""
    slow = f"trecrs datasets synthetic --users 200000 --items 20000 --seed 1 {tmp_path}/big"
    run = ProcessBatches(thread_env())
    got: list[int] = []
    worker = threading.Thread(target=lambda: got.append(run(*_batch_file(tmp_path, slow))))
    worker.start()
    while not run._live:
        time.sleep(0.01)
    started = time.monotonic()
    time.sleep(0.5)
    run.stop()
    worker.join()
    assert got == [143] and time.monotonic() - started < 10
    assert run(*_batch_file(tmp_path, slow)) == 143  # stopped: starts nothing more


def test_run_batches_lets_the_other_folds_finish(tmp_path):
    """A failed batch does not stop the others; the error names it, its last error line and its log."""
    batches = [Batch(name, str(tmp_path / name), (f"trecrs {name}",)) for name in ("u1", "u2", "u3")]
    ran = []

    def fake(commands, log, progress):
        ran.append(Path(commands).parent.name)
        if "u2" in commands:
            Path(log).write_text("$ trecrs x\ntrecrs x: error: f:3: bad line\n# 0.01 s, status 3\n")
            return 3
        return 0

    with pytest.raises(ReproductionError) as err:
        run_batches(batches, fake, jobs=2)
    assert sorted(ran) == ["u1", "u2", "u3"] and err.value.exit_code == 3
    assert (
        str(err.value) == f"u2 failed (status 3: trecrs x: error: f:3: bad line; see {tmp_path}/u2/log.txt)"
    )


# --------------------------------------------------------------------------------------------- end to end


def masked(path: Path) -> bytes:
    """A file's bytes with the wall times masked (scripts/fingerprint_outputs.sh's rule, and the step times
    of the batch logs)."""
    data = path.read_bytes()
    if path.name.endswith(".manifest.json"):
        record = json.loads(data)
        record.get("parameters", {}).pop("runtime_seconds", None)
        if record.get("file") == "report.md":
            record.pop("sha256", None), record.pop("bytes", None)
        command = record.get("command", [])
        if "--runtime" in command:
            del command[command.index("--runtime") : command.index("--runtime") + 2]
        return json.dumps(record).encode()
    if path.name == "report.md":
        return re.sub(rb"[0-9]+(\.[0-9]+)? ?s\b", b"<time>", data)
    if path.name == "log.txt":
        return re.sub(rb"(?m)^# [0-9.]+ s, status", b"# <time> s, status", data)
    return data


def assert_same_files(want: Path, got: Path) -> None:
    files = sorted(p.relative_to(want) for p in want.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(got) for p in got.rglob("*") if p.is_file())
    differ = [str(p) for p in files if masked(want / p) != masked(got / p)]
    assert not differ, differ
    assert len(files) > 20


def runner(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "trecrs.cli.reproduce_runner", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
def test_bellogin_function_writes_the_scripts_files(tmp_path):
    """Two folds in parallel on the sample: the script's files and the function's, byte for byte."""
    shutil.copytree(SAMPLE, tmp_path / "data")
    (tmp_path / "s").mkdir()
    (tmp_path / "f").mkdir()
    python = Path(sys.executable).parent / "trecrs"
    proc = script("bellogin2011", "../data", "out", tmp_path / "s", FOLDS="D1:u1 D2:ua", TRECRS=str(python))
    assert proc.returncode == 0, proc.stderr[-2000:]
    ours = runner("bellogin2011", "out", "--data", "../data", "--folds", "u1", "ua", cwd=tmp_path / "f")
    assert ours.returncode == 0, ours.stderr[-2000:]
    assert_same_files(tmp_path / "s" / "out", tmp_path / "f" / "out")
    assert ours.stdout == proc.stdout and "[D1] TrI equals AI" in ours.stdout
    bar = [x for x in ours.stderr.split("\n") if x.startswith("\r[")]  # a pipe: one line per 10%
    assert bar[-1].startswith("\r[########################################] 100%  62/62 steps  ")
    assert 10 <= len(bar) <= 12


@pytest.mark.slow
def test_cremonesi_function_writes_the_scripts_files(tmp_path):
    shutil.copytree(SAMPLE, tmp_path / "data")
    (tmp_path / "s").mkdir()
    (tmp_path / "f").mkdir()
    proc = script(
        "cremonesi2010", "../data", "out", tmp_path / "s", TRECRS=str(Path(sys.executable).parent / "trecrs")
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    ours = runner("cremonesi2010", "out", "--data", "../data", "--quiet", cwd=tmp_path / "f")
    assert ours.returncode == 0, ours.stderr[-2000:]
    assert_same_files(tmp_path / "s" / "out", tmp_path / "f" / "out")
    assert ours.stdout == proc.stdout and "TopPop drops sharply on the long tail" in ours.stdout
    assert ours.stderr == ""  # --quiet: no bar


@pytest.mark.slow
def test_bellogin_on_the_generated_sample_in_one_process(tmp_path):
    """Without data: the bundled sample generated into OUT (its bytes), one fold run in this process."""
    result = bellogin.reproduce(tmp_path / "out", folds=["ub"], jobs=1, run_batch=in_process_batch)
    sample = tmp_path / "out" / "synth-100k-like"
    assert (sample / "u.data").read_bytes() == (SAMPLE / "u.data").read_bytes()
    report = (tmp_path / "out" / "report.md").read_text()
    assert (
        f"Data: `{sample}`" in report and f"Not compared: the data `{sample}` is not MovieLens 100K" in report
    )
    assert (tmp_path / "out" / "D2" / "ub" / "done").read_text() == "ok\n"
    assert {f.name for f in result.files} == {"results.tsv", "report.md", "bellogin2011_fig2.png"}


@pytest.mark.slow
def test_bellogin_function_on_ml100k(tmp_path):
    """The whole reproduction on MovieLens 100K, seven folds: every finding of the paper holds on D1."""
    need(ML100K / "u.data")
    result = bellogin.reproduce(tmp_path / "out", ML100K, run_batch=ProcessBatches(thread_env()))
    by_split = result.extra["findings_by_split"]
    assert sorted(by_split) == ["D1", "D2"] and all(f.holds for f in by_split["D1"])
    assert "## D1: ours beside the published bars" in (tmp_path / "out" / "report.md").read_text()
