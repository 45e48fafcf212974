"""The reproductions as library functions (trecrs.reproductions.*.pipeline): the plan is the command lines
the shell scripts wrote (their sha256 recorded in tests/regression/ before the scripts became thin
examples over these functions), the runner of the command line (trecrs.cli.reproduce_runner), and end to
end the files recorded there, byte for byte, wall times masked (slow)."""

from __future__ import annotations

import hashlib
import json
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


RECORDED = ROOT / "tests" / "regression"


def recorded(name: str) -> dict[str, str]:
    """path -> sha256 of scripts/fingerprint_outputs.sh's listing NAME (outputs under sample/ or ml100k/)."""
    lines = (RECORDED / f"{name}.sha256").read_text().splitlines()
    return {path: digest for digest, path in (x.split("  ", 1) for x in lines)}


def listed(path: Path) -> str:
    """sha256 of a file as scripts/fingerprint_outputs.sh lists it: manifests without the wall time a report
    was given, report.md with its times masked."""
    data = path.read_bytes()
    if path.name.endswith(".manifest.json"):
        record = json.loads(data)
        record.get("parameters", {}).pop("runtime_seconds", None)
        if record.get("file") == "report.md":
            record.pop("sha256", None), record.pop("bytes", None)
        command = record.get("command", [])
        if "--runtime" in command:
            del command[command.index("--runtime") : command.index("--runtime") + 2]
        data = json.dumps(record, indent=2).encode()
    elif path.name == "report.md":
        data = re.sub(rb"[0-9]+(\.[0-9]+)? ?s\b", b"<time>", data)
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------------------------- the plan


def test_bash_quote_is_printf_q():
    words = ["a b", "it's", "x~y", "~x", "a=~b", "#a", "a#b", "é", "a,b", "", "a:~b", "a\tb", "a\nb", "a%b"]
    words += [
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
        "o u t,#~x'$",
    ]
    bash = subprocess.run(
        ["bash", "-c", 'for w in "$@"; do printf "%q\\n" "$w"; done', "bash", *words],
        capture_output=True,
        text=True,
        check=True,
    )
    assert [bash_quote(w) for w in words] == bash.stdout.split("\n")[:-1]
    assert command_line("eval", "-m", "P.5", "a b") == "trecrs eval -m P.5 a\\ b"


@pytest.mark.parametrize("listing", ["sample", "ml100k"])
def test_bellogin_plan_is_the_scripts(listing):
    """Every fold's commands.txt: the bytes the script wrote (`bash reproduce_bellogin2011.sh data bellogin`)."""
    want = {
        p: d
        for p, d in recorded(listing).items()
        if p.startswith("bellogin/") and p.endswith("/commands.txt")
    }
    assert len(want) == (7 if listing == "sample" else 2)
    for path, digest in want.items():
        fold = path.split("/")[2]
        assert hashlib.sha256(bellogin.fold_batch("bellogin", fold).text().encode()).hexdigest() == digest, (
            fold
        )


def test_bellogin_study_files_are_the_scripts(tmp_path, monkeypatch):
    """The six study files on the sample's splits (their sizes counted from the split files)."""
    from trecrs.data.datasets import ml100k_splits

    monkeypatch.chdir(tmp_path)
    ml100k_splits(SAMPLE / "u.data", "bellogin/splits")
    plan = bellogin.study_plan("bellogin", bellogin.FOLDS)
    want = recorded("sample")
    assert [path for path, _, _ in plan] == [f"bellogin/study/{m}.tsv" for m in bellogin.STUDIES]
    for path, text, _ in plan:
        assert hashlib.sha256(text.encode()).hexdigest() == want[path], path
    # the study lines, as the script called trecrs study (TeI/TrI/AI at -l 4)
    assert plan[2][2] == [
        "study",
        "bellogin/study/TeI.tsv",
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
        "bellogin/study/TeI.json",
    ]


def test_bellogin_fold_has_the_scripts_31_steps():
    batch = bellogin.fold_batch("out", "u1")
    assert batch.steps == 5 + 3 * (1 + 5) + 6 + 2 == 31
    assert batch.lines[0] == "# Bellogín et al. 2011, fold u1 of D1"
    assert batch.lines[7] == (
        "trecrs run --methodology test-ratings --train out/splits/u1.base --test out/splits/u1.test --n 1000 "
        "--relevant-threshold 5 --seed 1 --scores out/D1/u1/SVD50.scores.parquet --missing drop --depth 50 "
        "--tag SVD50 -o out/D1/u1/SVD50.TR.run"
    )


def test_cremonesi_plan_is_the_scripts(tmp_path):
    want = recorded("sample")["cremonesi/commands.txt"]
    batch = cremonesi.batch("cremonesi", "data/u.data")
    assert (
        hashlib.sha256(batch.text().encode()).hexdigest()
        == want
        == recorded("ml100k")["cremonesi/commands.txt"]
    )
    assert batch.steps == 4 + 2 * 6 + 2
    for name, ext in (("u.data", ""), ("ratings.dat", ".dat"), ("ratings.csv", ".csv")):
        (tmp_path / name).write_text("")
        assert cremonesi.ratings_file(str(tmp_path)) == f"{tmp_path}/u.data"  # the first found
        lines = cremonesi.batch("o", f"d/{name}").lines
        assert (
            lines[0] == f"# Cremonesi et al. 2010 on d/{name}" and f" --train o/split/train{ext} " in lines[2]
        )


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


def test_in_process_batch_runs_a_commands_file(tmp_path):
    """The runners give `trecrs batch`'s status and files."""
    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.0 t\n")
    ok = f"trecrs eval -m P.1 -o {tmp_path}/e1 {tmp_path}/q {tmp_path}/r"
    assert in_process_batch(*_batch_file(tmp_path, ok)) == 0
    assert (tmp_path / "e1").read_text() == "P_1                   \tall\t1.0000\n"
    assert (tmp_path / "progress").read_text() == "1\n"


@pytest.mark.slow  # a process of its own: a few seconds to start on a busy machine
def test_process_batches_run_a_commands_file(tmp_path):
    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.0 t\n")
    ok = f"trecrs eval -m P.1 -o {tmp_path}/e2 {tmp_path}/q {tmp_path}/r"
    bad = f"trecrs eval -m P.1 {tmp_path}/absent {tmp_path}/r"
    with ProcessBatches(thread_env()) as run:
        assert run(*_batch_file(tmp_path, ok, bad)) == 5  # the failed step's status
    assert (tmp_path / "e2").read_text() == "P_1                   \tall\t1.0000\n"
    assert "absent: no such file" in (tmp_path / "log.txt").read_text()
    assert thread_env({"OMP_NUM_THREADS": "4"}) == {
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "4",
        "MKL_NUM_THREADS": "1",
    }


def test_process_batches_stop_ends_the_running_processes(tmp_path):
    """Leaving the runner's block (Ctrl-C, SIGTERM) ends the batches under way: status 143, no wait."""
    # a minute of valid steps (about a second each): still running when stopped, on any machine
    slow = [
        f"trecrs datasets synthetic --users 2000 --items 2000 --seed 1 {tmp_path}/big{n}" for n in range(60)
    ]
    run = ProcessBatches(thread_env())
    got: list[int] = []
    worker = threading.Thread(target=lambda: got.append(run(*_batch_file(tmp_path, *slow))))
    worker.start()
    while not run._live:
        time.sleep(0.01)
    started = time.monotonic()
    time.sleep(0.5)
    run.stop()
    worker.join()
    assert got == [143] and time.monotonic() - started < 10
    assert run(*_batch_file(tmp_path, *slow)) == 143  # stopped: starts nothing more


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


def runner(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m trecrs.cli.reproduce_runner ARGS`` (what the scripts run) in ``cwd``."""
    return subprocess.run(
        [sys.executable, "-m", "trecrs.cli.reproduce_runner", *args], cwd=cwd, capture_output=True, text=True
    )


def assert_recorded(root: Path, folders: tuple[str, ...]) -> None:
    """Every file under ``root/FOLDER`` (figures, logs and progress files aside, as in the listing) has the
    sha256 recorded in tests/regression/sample.sha256, and every file recorded there is written."""
    want = {p: d for p, d in recorded("sample").items() if p.startswith(folders)}
    skip = ("progress", "log.txt")
    got = {
        p.relative_to(root).as_posix(): listed(p)
        for p in root.rglob("*")
        if p.is_file()
        and p.relative_to(root).as_posix().startswith(folders)
        and p.suffix not in (".png", ".log")
        and p.name not in skip
    }
    assert sorted(got) == sorted(want)
    assert [p for p in want if got[p] != want[p]] == []
    assert len(want) > 40


@pytest.mark.slow
def test_bellogin_function_writes_the_recorded_files(tmp_path):
    """Two folds in parallel processes on the sample, as `bash scripts/reproduce_bellogin2011.sh data bellogin`
    wrote them: the splits and every file of the folds, byte for byte; the bar one line per 10% in a pipe."""
    shutil.copytree(SAMPLE, tmp_path / "data")
    ours = runner("bellogin2011", "bellogin", "--data", "data", "--folds", "u1", "ua", cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr[-2000:]
    assert_recorded(tmp_path, ("bellogin/splits/", "bellogin/D1/u1/", "bellogin/D2/ua/"))
    assert (
        "[D1] TrI equals AI (CF recommenders cannot score items without training ratings): holds"
        in ours.stdout
    )
    assert ours.stderr.startswith(
        "Reproducing Bellogín et al. 2011 on data -> bellogin (2 folds, 2 at a time)\n"
    )
    bar = [x for x in ours.stderr.split("\n") if x.startswith("[")]  # text mode: each "\r" read as "\n"
    assert bar[-1].startswith("[########################################] 100%  62/62 steps  ")
    assert len(bar) <= 12 and bar[0].startswith("[                                        ]   0%  0/62 steps")


@pytest.mark.slow
def test_cremonesi_function_writes_the_recorded_files(tmp_path):
    """The whole Cremonesi pipeline on the sample: every file the script wrote, report and manifests too."""
    shutil.copytree(SAMPLE, tmp_path / "data")
    ours = runner("cremonesi2010", "cremonesi", "--data", "data", "--quiet", cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr[-2000:]
    assert_recorded(tmp_path, ("cremonesi/",))
    assert "TopPop drops sharply on the long tail: holds" in ours.stdout
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
