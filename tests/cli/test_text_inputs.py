"""Text and file errors at the command line: strict UTF-8, NUL bytes, Parquet files that are missing or
corrupt, duplicate lines. Each is one line ``FILE:LINE: reason`` with its status; nothing is written and
an existing output is left byte-identical."""

from __future__ import annotations

import gzip
import os

import polars as pl
import pytest

from trecrs.errors import EXIT_INPUT, EXIT_IO

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n"
TRAIN = "1\t10\t5\t1\n1\t11\t3\t2\n2\t10\t4\t3\n2\t12\t2\t4\n3\t11\t5\t5\n3\t12\t1\t6\n"
TEST = "1\t12\t4\t7\n2\t11\t5\t8\n3\t10\t3\t9\n"
SCORES = "1 12 0.5\n2 11 0.4\n3 10 0.3\n1 10 0.2\n"
OLD = b"an existing output\n"


def one_error(result, status: int, message: str) -> None:
    code, out, err = result
    assert (code, err.count("\n"), out) == (status, 1, ""), err
    assert err.endswith(f": error: {message}\n"), err


def assert_untouched(tmp_path, out, before: set) -> None:
    """The existing output is byte-identical and no other file (nor a temporary) appeared."""
    assert out.read_bytes() == OLD
    assert set(os.listdir(tmp_path)) == before


@pytest.fixture
def files(tmp_path):
    for name, text in {"q": QRELS, "r": RUN, "train.tsv": TRAIN, "test.tsv": TEST, "s.txt": SCORES}.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "out").write_bytes(OLD)
    return tmp_path


# --------------------------------------------------------------------------------------------- text


BAD_TEXT = [
    (b"\xff", "not valid UTF-8 (byte 0xff at column {col})"),
    (b"\xc3(", "not valid UTF-8 (byte 0xc3 at column {col})"),
    (b"\xed\xa0\x80", "not valid UTF-8 (byte 0xed at column {col})"),  # a UTF-16 surrogate
    (b"\x00", "NUL byte in the line (column {col})"),
]


def corrupt(text: str, line: int, bad: bytes, field: int = 0) -> tuple[bytes, int]:
    """``text`` with ``bad`` appended to the ``field``-th field of 1-based ``line``, and its byte column."""
    lines = text.encode().split(b"\n")
    fields = lines[line - 1].split(b" " if b" " in lines[line - 1] else b"\t")
    fields[field] += bad
    sep = b" " if b" " in lines[line - 1] else b"\t"
    lines[line - 1] = sep.join(fields)
    col = len(sep.join(fields[: field + 1])) - len(bad) + 1
    return b"\n".join(lines), col


@pytest.mark.parametrize("bad, reason", BAD_TEXT)
@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("which", ["qrels", "run"])
def test_eval_refuses_text_that_is_not_utf8(cli, files, bad, reason, gz, which):
    t = files
    body = ("# comment\n\n" + (QRELS if which == "qrels" else RUN)).replace("\n", "\r\n")
    data, col = corrupt(body, 5, bad, field=2)
    path = t / ("bad.gz" if gz else "bad")
    path.write_bytes(gzip.compress(data) if gz else data)
    before = set(os.listdir(t))
    args = (path, t / "r") if which == "qrels" else (t / "q", path)
    one_error(cli("eval", "-o", t / "out", *args), EXIT_INPUT, f"{path}:5: {reason.format(col=col)}")
    assert_untouched(t, t / "out", before)


def test_two_ids_that_differ_in_invalid_bytes_never_match(cli, files):
    t = files
    (t / "q2").write_bytes(b"1 0 a\xff 1\n")
    (t / "r2").write_bytes(b"1 Q0 a\xfe 1 1.0 t\n")
    code, out, err = cli("eval", t / "q2", t / "r2")  # lossy decoding would make both 'a\ufffd'
    assert (code, out) == (EXIT_INPUT, "")
    assert err in (
        f"trecrs eval: error: {t / 'q2'}:1: not valid UTF-8 (byte 0xff at column 6)\n",
        f"trecrs eval: error: {t / 'r2'}:1: not valid UTF-8 (byte 0xfe at column 7)\n",
    )


def test_valid_utf8_ids_are_read_as_they_are(cli, files):
    t = files
    (t / "q2").write_text("1 0 é 1\n1 0 e 0\n", encoding="utf-8")
    (t / "r2").write_text("1 Q0 é 1 2.0 t\n1 Q0 e 2 1.0 t\n", encoding="utf-8")
    code, out, err = cli("eval", "-m", "P.1", t / "q2", t / "r2")
    assert (code, err) == (0, "") and "P_1                   \tall\t1.0000" in out


@pytest.mark.parametrize("bad, reason", BAD_TEXT)
@pytest.mark.parametrize(
    "role, text, line, args",
    [
        (
            "train",
            TRAIN,
            4,
            ["candidates", "--methodology", "test-items", "--train", "{bad}", "--test", "{test}"],
        ),
        ("test", TEST, 2, ["qrels", "--test", "{bad}", "--threshold", "4"]),
        (
            "scores",
            SCORES,
            3,
            [
                "run",
                "--methodology",
                "test-items",
                "--train",
                "{train}",
                "--test",
                "{test}",
                "--scores",
                "{bad}",
            ],
        ),
        (
            "predictions",
            SCORES,
            2,
            ["eval", "--test", "{test}", "--predictions", "{bad}", "-m", "mae", "{q}", "{r}"],
        ),
        (
            "items",
            "10\n11\n12\n",
            2,
            [
                "candidates",
                "--methodology",
                "all-items",
                "--train",
                "{train}",
                "--test",
                "{test}",
                "--items",
                "{bad}",
            ],
        ),
        (
            "pairs",
            "1 12\n2 11\n",
            2,
            ["recommend", "-a", "itemavg", "--train", "{train}", "--candidates", "{bad}"],
        ),
    ],
)
def test_every_text_input_refuses_bad_bytes(cli, files, bad, reason, role, text, line, args):
    t = files
    data, col = corrupt(text, line, bad)
    path = t / f"bad-{role}.txt"
    path.write_bytes(data)
    argv = [
        a.format(bad=path, train=t / "train.tsv", test=t / "test.tsv", q=t / "q", r=t / "r") for a in args
    ]
    if argv[0] != "eval":
        argv += ["-o", str(t / "out")]
    before = set(os.listdir(t))
    one_error(cli(*argv), EXIT_INPUT, f"{path}:{line}: {reason.format(col=col)}")
    assert_untouched(t, t / "out", before)


@pytest.mark.parametrize("fmt", ["u.data", "ratings.dat", "ratings.csv", "r.tsv", "r.txt"])
def test_every_ratings_format_refuses_bad_bytes(cli, files, fmt):
    t = files
    sep = {"u.data": "\t", "ratings.dat": "::", "ratings.csv": ",", "r.tsv": "\t", "r.txt": " "}[fmt]
    head = "userId,movieId,rating,timestamp\n" if fmt == "ratings.csv" else ""
    body = head + "".join(sep.join(x.split("\t")) + "\n" for x in TEST.splitlines())
    n = body.count("\n")
    path = t / fmt
    path.write_bytes(body.encode() + b"\n#\n9" + sep.encode() + b"1\xff" + sep.encode() + b"5\n")
    before = set(os.listdir(t))
    col = 1 + len(sep) + 2
    one_error(
        cli("qrels", "--test", path, "--threshold", "4", "-o", t / "out"),
        EXIT_INPUT,
        f"{path}:{n + 3}: not valid UTF-8 (byte 0xff at column {col})",
    )
    assert_untouched(t, t / "out", before)


def test_a_bad_byte_after_the_first_64k_of_ratings_names_its_line(cli, files):
    t = files
    lines = [f"{u}\t{i}\t3\t{u}" for u in range(1, 100) for i in range(1, 100)]
    path = t / "big.tsv"
    path.write_bytes(("\n".join(lines) + "\n").encode() + b"7\t7\xff\t3\t1\n")
    assert path.stat().st_size > 1 << 16
    one_error(
        cli("qrels", "--test", path, "--threshold", "4", "-o", t / "out"),
        EXIT_INPUT,
        f"{path}:{len(lines) + 1}: not valid UTF-8 (byte 0xff at column 4)",
    )


@pytest.mark.parametrize("stdin", [False, True])
def test_a_batch_script_that_is_not_utf8(cli, files, stdin, monkeypatch):
    t = files
    script = t / "steps"
    script.write_bytes(
        b"# steps\n\neval " + str(t / "q").encode() + b" " + str(t / "r").encode() + b"\neval -m P.\xe9 x y\n"
    )
    before = set(os.listdir(t))
    if stdin:
        import io
        import sys

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(script.read_bytes())))
        result, name = cli("batch", "-"), "<stdin>"
    else:
        result, name = cli("batch", script), str(script)
    code, out, err = result
    assert (code, out) == (EXIT_INPUT, "")
    assert err == f"trecrs batch: error: {name}:4: not valid UTF-8 (byte 0xe9 at column 11)\n"
    assert set(os.listdir(t)) == before  # no command ran


def test_batch_lines_are_counted_by_newlines_only(cli, files):
    t = files
    script = t / "steps"
    script.write_text("# a form feed \x0c and a line separator \u2028 stay inside their line\r\nnope\n")
    code, _, err = cli("batch", script)
    assert code == 2 and f"{script}:2: `trecrs nope` failed" in err


# --------------------------------------------------------------------------------------------- Parquet


def _parquet(tmp_path):
    """Valid Parquet inputs for every option that reads one."""
    train = pl.read_csv(
        TRAIN.encode(),
        separator="\t",
        has_header=False,
        new_columns=["user", "item", "rating", "timestamp"],
        schema_overrides={"user": pl.Utf8, "item": pl.Utf8},
    )
    test = pl.read_csv(
        TEST.encode(),
        separator="\t",
        has_header=False,
        new_columns=["user", "item", "rating", "timestamp"],
        schema_overrides={"user": pl.Utf8, "item": pl.Utf8},
    )
    train.write_parquet(tmp_path / "train.parquet")
    test.write_parquet(tmp_path / "test.parquet")
    pl.DataFrame({"item": ["10", "11", "12"]}).write_parquet(tmp_path / "items.parquet")
    scores = {"user": ["1", "2", "3"], "item": ["12", "11", "10"], "score": [0.5, 0.4, 0.3]}
    pl.DataFrame(scores).write_parquet(tmp_path / "s.parquet")
    pl.DataFrame({"user": ["1", "2"], "item": ["12", "11"]}).write_parquet(tmp_path / "pairs.parquet")
    pl.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "rel": [1, 0]}).write_parquet(
        tmp_path / "q.parquet"
    )
    pl.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "score": [2.0, 1.0]}).write_parquet(
        tmp_path / "r.parquet"
    )


COMMANDS = {
    "split": ["split", "{train}", "{dir}", "--method", "holdout", "--ratio", "0.5", "--seed", "1"],
    "qrels --test": ["qrels", "--test", "{test}", "--threshold", "4", "-o", "{out}"],
    "qrels --train": ["qrels", "--test", "{test}", "--train", "{train}", "--per-user", "mean", "-o", "{out}"],
    "candidates --train": [
        "candidates",
        "--methodology",
        "test-items",
        "--train",
        "{train}",
        "--test",
        "{test}",
        "-o",
        "{out}",
    ],
    "candidates --items": [
        "candidates",
        "--methodology",
        "all-items",
        "--train",
        "{train}",
        "--test",
        "{test}",
        "--items",
        "{items}",
        "-o",
        "{out}",
    ],
    "run --scores": [
        "run",
        "--methodology",
        "test-items",
        "--train",
        "{train}",
        "--test",
        "{test}",
        "--scores",
        "{scores}",
        "-o",
        "{out}",
    ],
    "recommend --train": [
        "recommend",
        "-a",
        "itemavg",
        "--train",
        "{train}",
        "--candidates",
        "{pairs}",
        "-o",
        "{out}",
    ],
    "recommend --predict": [
        "recommend",
        "-a",
        "itemavg",
        "--train",
        "{train}",
        "--predict",
        "{test}",
        "-o",
        "{out}",
    ],
    "eval qrels": ["eval", "-o", "{out}", "{qrels}", "{run}"],
    "eval run": ["eval", "-o", "{out}", "{qrels}", "{run}"],
    "eval --train": ["eval", "-m", "novelty", "--train", "{train}", "-o", "{out}", "{qrels}", "{run}"],
    "eval --test": [
        "eval",
        "-m",
        "prediction_coverage",
        "--test",
        "{test}",
        "-o",
        "{out}",
        "{qrels}",
        "{run}",
    ],
}
# which file each case replaces by a bad one
ROLE = {
    "split": "train",
    "qrels --test": "test",
    "qrels --train": "train",
    "candidates --train": "train",
    "candidates --items": "items",
    "run --scores": "scores",
    "recommend --train": "train",
    "recommend --predict": "test",
    "eval qrels": "qrels",
    "eval run": "run",
    "eval --train": "train",
    "eval --test": "test",
}
NAMES = {
    "train": "train.parquet",
    "test": "test.parquet",
    "items": "items.parquet",
    "scores": "s.parquet",
    "pairs": "pairs.parquet",
    "qrels": "q.parquet",
    "run": "r.parquet",
}


def _argv(tmp_path, case: str, replace: str | None = None, by=None):
    paths = {k: tmp_path / v for k, v in NAMES.items()}
    if replace is not None:
        paths[replace] = by
    return [a.format(dir=tmp_path / "split", out=tmp_path / "out", **paths) for a in COMMANDS[case]]


@pytest.mark.parametrize("case", list(COMMANDS))
def test_valid_parquet_inputs_work(cli, tmp_path, case):
    _parquet(tmp_path)
    code, _, err = cli(*_argv(tmp_path, case))
    assert code == 0, err


def _bad_parquet(kind: str, good: bytes) -> bytes:
    return {
        "random": bytes(range(256)) * 3,
        "truncated": good[: len(good) // 2],
        "no footer": good[:-9],
        "cut head": good[16:],
        "text": b"1 2 3\n",
        "empty": b"",
    }[kind]


@pytest.mark.parametrize(
    "kind", ["missing", "folder", "random", "truncated", "no footer", "cut head", "text", "empty"]
)
@pytest.mark.parametrize("case", list(COMMANDS))
def test_a_bad_parquet_input_is_one_line(cli, tmp_path, case, kind):
    _parquet(tmp_path)
    role = ROLE[case]
    bad = tmp_path / ("bad-" + NAMES[role])
    if kind == "folder":
        bad.mkdir()
    elif kind != "missing":
        bad.write_bytes(_bad_parquet(kind, (tmp_path / NAMES[role]).read_bytes()))
    (tmp_path / "out").write_bytes(OLD)
    before = set(os.listdir(tmp_path))
    code, out, err = cli(*_argv(tmp_path, case, role, bad))
    want = EXIT_IO if kind in ("missing", "folder") else EXIT_INPUT
    assert (code, out, err.count("\n")) == (want, "", 1), err
    assert err.startswith(f"trecrs {case.split()[0]}: error: {bad}: "), err
    if kind == "missing":
        assert err.endswith(": no such file\n")
    assert_untouched(tmp_path, tmp_path / "out", before)
    assert not (tmp_path / "split").exists()


def test_a_nul_in_a_parquet_id_names_the_row(cli, tmp_path):
    _parquet(tmp_path)
    pl.DataFrame(
        {"query": ["1", "1", "1"], "doc": ["a", "b", "c\x00d"], "score": [2.0, 1.0, 0.5]}
    ).write_parquet(tmp_path / "r.parquet")
    (tmp_path / "out").write_bytes(OLD)
    code, out, err = cli("eval", "-o", tmp_path / "out", tmp_path / "q.parquet", tmp_path / "r.parquet")
    assert (code, out) == (EXIT_INPUT, "")
    assert err == f"trecrs eval: error: {tmp_path / 'r.parquet'}: row 3: NUL byte in column 'doc'\n"
    assert (tmp_path / "out").read_bytes() == OLD


# --------------------------------------------------------------------------------------------- duplicates


def test_duplicate_candidates_name_both_lines(cli, files):
    t = files
    (t / "c").write_text("# pairs\n\n1 1 10\n1 1 11\n2 2 11\n# more\n\n2 2 12\n1 1 11\n2 2 10\n")
    before = set(os.listdir(t))
    one_error(
        cli("run", "--candidates", t / "c", "--scores", t / "s.txt", "-o", t / "out"),
        EXIT_INPUT,
        f"{t / 'c'}:9: candidate item '11' listed twice for query '1' (first seen on line 4)",
    )
    assert_untouched(t, t / "out", before)


@pytest.mark.parametrize(
    "role, text, message",
    [
        (
            "qrels",
            "# q\n1 0 a 1\n1 0 b 0\n\n1 0 c 1\n1 0 b 1\n1 0 a 0\n",
            "6: duplicate qrels entry for query '1', doc 'b' (first seen on line 3)",
        ),
        (
            "run",
            "# r\n1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n\n1 Q0 c 3 1 t\n1 Q0 b 4 0 t\n1 Q0 a 5 0 t\n",
            "6: duplicate run entry for query '1', doc 'b' (first seen on line 3)",
        ),
    ],
)
def test_duplicate_trec_lines_name_both_lines(cli, files, role, text, message):
    t = files
    (t / "dup").write_text(text)
    args = (t / "dup", t / "r") if role == "qrels" else (t / "q", t / "dup")
    one_error(cli("eval", *args), EXIT_INPUT, f"{t / 'dup'}:{message}")


def test_duplicate_scores_and_predictions_name_both_lines(cli, files):
    t = files
    (t / "dup").write_text("# s\n1 10 0.5\n2 11 0.4\n\n2 12 0.3\n2 11 0.2\n1 10 0.1\n")
    one_error(
        cli(
            "run",
            "--methodology",
            "test-items",
            "--train",
            t / "train.tsv",
            "--test",
            t / "test.tsv",
            "--scores",
            t / "dup",
            "-o",
            t / "out",
        ),
        EXIT_INPUT,
        f"{t / 'dup'}:6: user '2', item '11' has more than one score (first seen on line 3)",
    )
    one_error(
        cli("eval", "--test", t / "test.tsv", "--predictions", t / "dup", "-m", "mae", t / "q", t / "r"),
        EXIT_INPUT,
        f"{t / 'dup'}:6: duplicate prediction for user '2', item '11' (first seen on line 3)",
    )


def test_duplicate_ratings_name_both_lines(cli, files):
    t = files
    (t / "dup.tsv").write_text("# r\n1\t10\t5\t1\n2\t11\t4\t2\n\n2\t12\t3\t3\n2\t11\t2\t4\n1\t10\t1\t5\n")
    one_error(
        cli("qrels", "--test", t / "dup.tsv", "--threshold", "4", "-o", t / "out"),
        EXIT_INPUT,
        f"{t / 'dup.tsv'}:6: duplicate rating for user '2', item '11': lines 3 and 6 "
        "(choose a policy: --dedupe 'first'|'last'|'mean')",
    )


def test_duplicate_parquet_rows_name_both_rows(cli, tmp_path):
    _parquet(tmp_path)
    pl.DataFrame(
        {
            "user": ["1", "2", "3", "2", "1"],
            "item": ["10", "11", "12", "11", "10"],
            "score": [0.5, 0.4, 0.3, 0.2, 0.1],
        }
    ).write_parquet(tmp_path / "s.parquet")
    code, _, err = cli(*_argv(tmp_path, "run --scores"))
    assert code == EXIT_INPUT
    assert err.endswith(
        f"{tmp_path / 's.parquet'}: row 4: user '2', item '11' has more than one score "
        "(first seen on row 2)\n"
    )


def test_a_latin1_catalogue_reads_its_ids_only(cli, files):
    """MovieLens 100K u.item and 1M movies.dat are Latin-1: only their ids (the first field) are text."""
    t = files
    (t / "u.item").write_bytes(b"10|Les Mis\xe9rables (1995)|01-Jan-1995\n11|x\n12|Cin\xe9ma\n")
    code, _, err = cli(
        "candidates",
        "--methodology",
        "all-items",
        "--train",
        t / "train.tsv",
        "--test",
        t / "test.tsv",
        "--items",
        t / "u.item",
        "-o",
        t / "c",
    )
    assert code == 0, err
    (t / "bad.item").write_bytes(b"# ids\n10|x\n1\xe91|Cin\xe9ma\n")
    one_error(
        cli(
            "candidates",
            "--methodology",
            "all-items",
            "--train",
            t / "train.tsv",
            "--test",
            t / "test.tsv",
            "--items",
            t / "bad.item",
            "-o",
            t / "out",
        ),
        EXIT_INPUT,
        f"{t / 'bad.item'}:3: not valid UTF-8 (byte 0xe9 at column 2)",
    )


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "not gzip"])
@pytest.mark.parametrize("which", ["run", "ratings"])
def test_a_damaged_gzip_file_is_a_bad_input(cli, files, damage, which):
    t = files
    good = gzip.compress((RUN if which == "run" else TEST).encode() * 50, mtime=0)
    bad = {
        "truncated": good[:-20],
        "corrupt": good[:30] + bytes(b ^ 0x55 for b in good[30:60]) + good[60:],
        "not gzip": b"\x1f\x8b" + bytes(range(40)),
    }[damage]
    path = t / ("bad.gz" if which == "run" else "bad.tsv.gz")
    path.write_bytes(bad)
    reason = (
        "the compressed file is truncated"
        if damage == "truncated"
        else "not a valid gzip file (cannot decompress it)"
    )
    before = set(os.listdir(t))
    argv = (
        ("eval", "-o", t / "out", t / "q", path)
        if which == "run"
        else ("qrels", "--test", path, "--threshold", "4", "-o", t / "out")
    )
    one_error(cli(*argv), EXIT_INPUT, f"{path}: {reason}")
    assert_untouched(t, t / "out", before)


# ---------------------------------------------------------------- "-": standard input


@pytest.fixture
def stdin(monkeypatch):
    """``stdin(text)`` makes the next command read ``text`` as its standard input."""
    import io
    import sys

    def feed(text: str) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))

    return feed


@pytest.mark.parametrize("version", ["9", "10"])
def test_eval_reads_the_run_or_the_qrels_from_stdin(cli, files, stdin, version):
    """In both trec_eval modes, `-` as RUN or as QRELS gives the same bytes as the file."""
    t = files
    flags = ["eval", "--trec-eval-version", version, "-q", "-m", "all_trec"]
    code, want, err = cli(*flags, t / "q", t / "r")
    assert code == 0, err
    assert "P_5                   \t1\t0.2000" in want  # query 1: a relevant among 2 retrieved
    stdin(RUN)
    assert cli(*flags, t / "q", "-") == (0, want, err)
    stdin(QRELS)
    assert cli(*flags, "-", t / "r") == (0, want, err)


@pytest.mark.parametrize("version", ["9", "10"])
def test_stdin_errors_name_stdin_and_its_line(cli, files, stdin, version):
    t = files
    stdin(RUN.replace("1 Q0 b 2 1.0 t", "1 Q0 b 2 x t"))
    one_error(
        cli("eval", "--trec-eval-version", version, t / "q", "-"),
        EXIT_INPUT,
        "<stdin>:2: score is not a number: 'x' in '1 Q0 b 2 x t'",
    )
    stdin(QRELS + "2 0 d\n")
    one_error(
        cli("eval", "--trec-eval-version", version, "-", t / "r"),
        EXIT_INPUT,
        "<stdin>:4: expected 4 fields (qid iter docno rel), found 3: '2 0 d'",
    )


def test_only_one_input_may_be_stdin(cli, files, stdin):
    t = files
    stdin(RUN)
    one_error(cli("eval", "-", "-"), 2, "only one of the qrels and the runs can be '-' (standard input)")
    one_error(
        cli("eval", t / "q", "-", "-"), 2, "only one of the qrels and the runs can be '-' (standard input)"
    )
    from trecrs import evaluate
    from trecrs.errors import UsageError

    with pytest.raises(UsageError, match=r"only one of the qrels and the run can be '-' \(standard input\)"):
        evaluate("-", "-", ["map"])


def test_other_readers_take_stdin_too(cli, files, stdin):
    """`run --scores -` and `qrels --test -` read standard input; the manifest records its sha256."""
    import hashlib
    import json

    t = files
    split = ["--methodology", "AI", "--train", t / "train.tsv", "--test", t / "test.tsv"]
    assert cli("run", *split, "--scores", t / "s.txt", "-o", t / "file.run")[0] == 0
    stdin(SCORES)
    code, _, err = cli("run", *split, "--scores", "-", "--tag", "s", "-o", t / "stdin.run")
    assert code == 0, err
    assert (t / "stdin.run").read_bytes() == (t / "file.run").read_bytes()
    entry = json.loads((t / "stdin.run.manifest.json").read_text())["inputs"]["scores"]
    assert entry == {"path": "-", "sha256": hashlib.sha256(SCORES.encode()).hexdigest()}
    stdin("1 12\n")
    one_error(
        cli("run", *split, "--scores", "-", "-o", t / "bad.run"),
        EXIT_INPUT,
        "<stdin>:1: expected 3 fields (user item score), found 2: '1 12'",
    )
    stdin(TEST)
    assert cli("qrels", "--test", "-", "--threshold", "4", "-o", t / "q2")[0] == 0
    assert (t / "q2").read_text() == "1\t0\t12\t4\n2\t0\t11\t5\n"
