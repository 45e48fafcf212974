"""A corpus of bad inputs, generated here, given to every command that reads them.

Each case breaks one input file in one way (or names a bad path, or a bad option value) and runs one
command on it. Every case must end the same way: the documented exit status, exactly one line on stderr
``trecrs CMD: error: FILE[:LINE]: reason`` naming the file (and the line, when the fault is on a line),
nothing on stdout, no file created or changed anywhere (an existing output is byte-identical afterwards),
no temporary left. The inputs are small synthetic ratings made up below; no dataset is copied.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from trecrs.errors import EXIT_INPUT, EXIT_IO, EXIT_SEMANTIC, EXIT_USAGE

OUT = "out.txt"  # an existing output the failed command must leave as it was
OUT_DIR = "outdir"  # a folder output the failed command must not create


# --------------------------------------------------------------------------------------------- the faults


@dataclass(frozen=True)
class Fault:
    """One way to break a file: ``make(lines)`` -> bytes; the status and the line the error must name."""

    name: str
    status: int
    line: int | None  # None: the message names the file only (or the line is not fixed)
    needs: str = ""  # a Role attribute that must be set for the fault to apply


def _fields(line: bytes) -> list[bytes]:
    return line.split()


def _join(fields: list[bytes], tabs: bool) -> bytes:
    return (b"\t" if tabs else b" ").join(fields)


def apply(fault: str, data: bytes, role: Role) -> bytes | None:
    """The broken content, or None for faults that are not a content (missing file, folder)."""
    if fault in ("missing", "folder"):
        return None
    lines = data.splitlines()
    tabs = b"\t" in lines[0]
    if fault == "empty":
        return b""
    if fault == "comments":
        return b"# nothing but a comment\n\n#\n"
    if fault == "binary":
        return b"\x00\x01\x02" + random.Random(7).randbytes(300)
    if fault == "utf8":  # the first id of line 3 is not UTF-8
        lines[2] = b"\xff\xfe" + lines[2]
    elif fault == "nul":
        f = _fields(lines[1])
        f[0] = f[0] + b"\x00" + f[0]
        lines[1] = _join(f, tabs)
    elif fault == "short":
        lines[1] = _join(_fields(lines[1])[: role.min_fields - 1], tabs)
    elif fault in ("text", "nan", "inf", "huge"):
        f = _fields(lines[1])
        f[role.number] = {"text": b"x1", "nan": b"nan", "inf": b"inf", "huge": role.huge}[fault]
        lines[1] = _join(f, tabs)
    elif fault == "dup":
        lines.append(lines[0])
    return b"\n".join(lines) + b"\n"


@dataclass(frozen=True)
class Role:
    """An input file, the commands that read it, and where its numbers are."""

    name: str
    file: str
    commands: tuple[tuple[str, ...], ...]  # "{f}": the broken file, "{out}"/"{dir}": the outputs
    min_fields: int = 0  # fewer fields on a line is an error (0: not applicable)
    number: int | None = None  # index of a number field that must be a number
    finite: bool = False  # inf is an error too
    huge: bytes = b""  # a value outside the documented range ("" : no such case)
    nan: bool = True  # nan is an error (predictions: nan means "no prediction", docs/measures.md)
    dup: bool = True  # a repeated line is an error (a catalogue may list an item twice: the same catalogue)


TEST_CMDS = (
    ("qrels", "--test", "{f}", "--threshold", "3", "-o", "{out}"),
    ("candidates", "--methodology", "all-items", "--train", "train.tsv", "--test", "{f}", "-o", "{out}"),
    ("run", "--methodology", "test-items", "--train", "train.tsv", "--test", "{f}", "--scores", "scores.txt",
     "--missing", "last", "-o", "{out}"),
    ("eval", "-m", "rmse", "--test", "{f}", "--predictions", "pred.txt", "qrels.txt", "run.txt", "-o", "{out}"),
)  # fmt: skip
TRAIN_CMDS = (
    ("candidates", "--methodology", "training-items", "--train", "{f}", "--test", "test.tsv", "-o", "{out}"),
    ("recommend", "-a", "toppop", "--train", "{f}", "--candidates", "pairs.txt", "-o", "{out}"),
    ("run", "--methodology", "all-items", "--train", "{f}", "--test", "test.tsv", "--scores", "scores.txt",
     "--missing", "last", "-o", "{out}"),
    ("eval-factors", "--train", "{f}", "--user-factors", "user.parquet", "--item-factors", "item.parquet", "-o",
     "{out}", "qrels.txt"),
)  # fmt: skip
ROLES = (
    Role("qrels", "qrels.txt", (("eval", "-o", "{out}", "{f}", "run.txt"),), min_fields=4, number=3,
         huge=b"99999999999999999999"),
    Role("run", "run.txt", (("eval", "-o", "{out}", "qrels.txt", "{f}"),), min_fields=6, number=4),
    Role("test", "test.tsv", TEST_CMDS, min_fields=3, number=2, finite=True, huge=b"1e20"),
    Role("train", "train.tsv", TRAIN_CMDS, min_fields=3, number=2, finite=True, huge=b"1e20"),
    Role("ratings", "ratings.tsv", (("split", "--method", "holdout", "--seed", "1", "--ratio", "0.2", "{f}", "{dir}"),
                                    ("datasets", "ml100k-splits", "{f}", "{dir}")),
         min_fields=3, number=2, finite=True, huge=b"1e20"),
    Role("scores", "scores.txt", (("run", "--methodology", "all-items", "--train", "train.tsv", "--test", "test.tsv",
                                   "--scores", "{f}", "--missing", "last", "-o", "{out}"),),
         min_fields=3, number=2, finite=True),
    Role("pairs", "pairs.txt", (("recommend", "-a", "toppop", "--train", "train.tsv", "--candidates", "{f}",
                                 "-o", "{out}"),
                                ("run", "--candidates", "{f}", "--scores", "scores.txt", "--missing", "last",
                                 "-o", "{out}"))),
    Role("items", "items.txt", (("candidates", "--methodology", "all-items", "--train", "train.tsv", "--test",
                                 "test.tsv", "--items", "{f}", "-o", "{out}"),), dup=False),
    Role("predictions", "pred.txt", (("eval", "-m", "rmse", "--test", "test.tsv", "--predictions", "{f}",
                                      "qrels.txt", "run.txt", "-o", "{out}"),),
         min_fields=3, number=2, finite=True, nan=False),
    Role("batch", "batch.txt", (("batch", "{f}"),), dup=False),
)  # fmt: skip

FAULTS = (
    Fault("missing", EXIT_IO, None),
    Fault("folder", EXIT_IO, None),
    Fault("empty", EXIT_INPUT, None),
    Fault("comments", EXIT_INPUT, None),
    Fault("binary", EXIT_INPUT, None),
    Fault("utf8", EXIT_INPUT, 3),
    Fault("nul", EXIT_INPUT, 2),
    Fault("short", EXIT_INPUT, 2, needs="min_fields"),
    Fault("text", EXIT_INPUT, 2, needs="number"),
    Fault("nan", EXIT_INPUT, 2, needs="nan"),
    Fault("inf", EXIT_INPUT, 2, needs="finite"),
    Fault("huge", EXIT_INPUT, 2, needs="huge"),
    Fault("dup", EXIT_INPUT, -1, needs="dup"),  # -1: the appended last line
)


def _file_cases():
    for role in ROLES:
        for fault in FAULTS:
            if fault.needs and not getattr(role, fault.needs):
                continue
            if role.number is None and fault.name in ("text", "nan", "inf", "huge"):
                continue
            for argv in role.commands:
                if (role.name, fault.name, argv[0]) == ("pairs", "dup", "recommend"):
                    continue  # recommend scores the distinct pairs and says so; a run's candidates must be unique
                yield pytest.param(role, fault, argv, id=f"{role.name}-{fault.name}-{argv[0]}")


# --------------------------------------------------------------------------------------------- the checks


def snapshot(folder: Path) -> dict[str, str]:
    """Every path under ``folder`` with the sha256 of its bytes (folders as ``/``)."""
    return {
        str(p.relative_to(folder)): "/" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
    }


def run_case(cli, work: Path, argv: tuple[str, ...], broken: str, *, monkeypatch) -> tuple[int, str, str]:
    """Run ``argv`` in ``work`` with placeholders filled; assert the file system did not change."""
    (work / OUT).write_bytes(b"an earlier output\n")
    before = snapshot(work)
    monkeypatch.chdir(work)
    args = [a.format(f=broken, out=OUT, dir=OUT_DIR) for a in argv]
    code, out, err = cli(*args)
    after = snapshot(work)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, (
        f"status {code}, {err.strip()!r}: the failed command changed, created or left {changed}"
    )
    assert out == "", f"status {code}, {err.strip()!r}: a failed command printed results"
    return code, out, err


def assert_one_line(err: str, command: str, path: str, line: int | None) -> None:
    where = re.escape(path) + (f":{line}:" if line is not None else r"(:\d+)?:")
    assert re.fullmatch(rf"trecrs {command}: error: ({where}|.*{where}) [^\n]+\n", err), err


@pytest.mark.parametrize("role,fault,argv", list(_file_cases()))
def test_a_broken_input_file(cli, base, tmp_path, monkeypatch, role, fault, argv):
    for name, data in base.items():
        (tmp_path / name).write_bytes(data)
    target = tmp_path / role.file
    content = apply(fault.name, base[role.file], role)
    target.unlink()
    if fault.name == "folder":
        target.mkdir()
    elif content is not None:
        target.write_bytes(content)
    code, _, err = run_case(cli, tmp_path, argv, role.file, monkeypatch=monkeypatch)
    assert code == fault.status, err
    line = len(content.splitlines()) if fault.line == -1 else fault.line
    assert_one_line(err, argv[0], role.file, line)


# --------------------------------------------------------------------------------------------- options and paths

OPTION_CASES = [
    # (argv, status, the start of the message after "error: ")
    (("eval", "-m", "no_such_measure", "qrels.txt", "run.txt"), EXIT_USAGE, "unknown measure"),
    (("eval", "-M", "-1", "qrels.txt", "run.txt"), EXIT_USAGE, "argument -M/--Max_retrieved_per_topic: must be 0 or more"),
    (("eval", "--engine", "nope", "qrels.txt", "run.txt"), EXIT_USAGE, ""),
    (("eval", "-m", "P.x", "qrels.txt", "run.txt"), EXIT_USAGE, "measure P.x"),
    (("eval", "-m", "P.0", "qrels.txt", "run.txt"), EXIT_USAGE, "measure P.0"),
    (("eval", "-m", "nmae.5,1", "--test", "test.tsv", "--predictions", "pred.txt", "qrels.txt", "run.txt"),
     EXIT_USAGE, ""),
    (("qrels", "--test", "test.tsv", "-o", "{out}"), EXIT_USAGE, ""),
    (("qrels", "--test", "test.tsv", "--threshold", "9", "-o", "{out}"), EXIT_SEMANTIC, "no test rating is relevant"),
    (("qrels", "--test", "test.tsv", "--threshold", "abc", "-o", "{out}"), EXIT_USAGE, "argument --threshold"),
    (("candidates", "--methodology", "nope", "--train", "train.tsv", "--test", "test.tsv", "-o", "{out}"),
     EXIT_USAGE, ""),
    (("candidates", "--methodology", "one-plus-random", "--train", "train.tsv", "--test", "test.tsv", "-o",
      "{out}"), EXIT_USAGE, "give a seed (--seed S)"),
    (("candidates", "--methodology", "one-plus-random", "--seed", "1", "--relevant-threshold", "9",
      "--train", "train.tsv", "--test", "test.tsv", "-o", "{out}"), EXIT_SEMANTIC, ""),
    (("run", "--scores", "scores.txt", "-o", "{out}"), EXIT_USAGE, ""),
    (("run", "--methodology", "all-items", "--train", "train.tsv", "--test", "test.tsv", "--scores", "scores.txt",
      "--depth", "0", "-o", "{out}"), EXIT_USAGE, ""),
    (("run", "--methodology", "all-items", "--train", "train.tsv", "--test", "test.tsv", "--scores", "scores.txt",
      "--tag", "two words", "-o", "{out}"), EXIT_USAGE, ""),
    (("recommend", "-a", "nope", "--train", "train.tsv", "--candidates", "pairs.txt", "-o", "{out}"), EXIT_USAGE, ""),
    (("recommend", "-a", "userknn", "-p", "k=x", "--train", "train.tsv", "--candidates", "pairs.txt", "-o", "{out}"),
     EXIT_USAGE, ""),
    (("split", "--method", "holdout", "ratings.tsv", "{dir}"), EXIT_USAGE, "argument --seed"),
    (("split", "--method", "holdout", "--seed", "1", "--ratio", "2", "ratings.tsv", "{dir}"), EXIT_USAGE, ""),
    (("split", "--method", "nope", "ratings.tsv", "{dir}"), EXIT_USAGE, ""),
    (("split", "--method", "holdout", "--seed", "1", "--ratio", "0.0001", "ratings.tsv", "{dir}"),
     EXIT_SEMANTIC, ""),
    (("report", "nope", "{dir}"), EXIT_USAGE, ""),
    (("reproduce", "nope", "{dir}"), EXIT_USAGE, ""),
    (("reproduce", "tamm2021", "{dir}"), EXIT_USAGE, "argument --data"),
    (("datasets", "synthetic", "--users", "0", "{dir}"), EXIT_USAGE, ""),
    # output paths: refused before anything is read (status 5)
    (("eval", "-o", "run.txt", "qrels.txt", "run.txt"), EXIT_IO, "run.txt: is also an input"),
    (("qrels", "--test", "test.tsv", "--threshold", "3", "-o", "test.tsv"), EXIT_IO, "test.tsv: is also an input"),
    (("run", "--methodology", "all-items", "--train", "train.tsv", "--test", "test.tsv", "--scores", "scores.txt",
      "-o", "scores.txt"), EXIT_IO, "scores.txt: is also an input"),
    (("recommend", "-a", "toppop", "--train", "train.tsv", "--candidates", "pairs.txt", "-o", "pairs.txt"),
     EXIT_IO, "pairs.txt: is also an input"),
    (("candidates", "--methodology", "all-items", "--train", "train.tsv", "--test", "test.tsv", "-o", "train.tsv"),
     EXIT_IO, "train.tsv: is also an input"),
    (("eval", "-o", "run.txt/x", "qrels.txt", "run.txt"), EXIT_IO, "run.txt/x: cannot create it"),
    (("eval", "-o", ".", "qrels.txt", "run.txt"), EXIT_IO, ".: is a folder"),
]  # fmt: skip


@pytest.mark.parametrize(
    "argv,status,message", OPTION_CASES, ids=lambda v: "-".join(v)[:60] if isinstance(v, tuple) else None
)
def test_a_bad_option_or_path(cli, base, tmp_path, monkeypatch, argv, status, message):
    for name, data in base.items():
        (tmp_path / name).write_bytes(data)
    code, _, err = run_case(cli, tmp_path, argv, "", monkeypatch=monkeypatch)
    assert code == status, err
    assert re.fullmatch(rf"trecrs {argv[0]}( [\w-]+)?: error: [^\n]*{re.escape(message)}[^\n]*\n", err), err


def test_the_corpus_is_large(base):
    assert len(list(_file_cases())) + len(OPTION_CASES) >= 100
