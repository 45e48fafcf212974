"""The fast readers (polars' CSV reader on regularly laid-out files, Parquet, the lean scoring reader) give
exactly what the line-by-line readers give, and fall back to them — with the same error messages — on
anything irregular.
"""

from __future__ import annotations

import gzip

import polars as pl
import pytest

from trecrs.errors import InputError
from trecrs.files import trec as io

from ..warned import warned

RUN_LINES = [
    ("1", "Q0", "10", "1", "2.5", "tagA"),
    ("1", "Q0", "9", "2", "2.5", "tagA"),
    ("1", "Q0", "a-b", "3", "-0", "tagA"),
    ("10", "Q0", "007", "1", "1e-5", "tagA"),
    ("10", "Q0", "7", "2", ".5", "tagA"),
    ("2", "Q0", "x", "x1", "inf", "tagB"),  # non-integer rank: kept as null
]
# read_run's warning on RUN_LINES: query 10's rank 2 has a higher score than its rank 1, and query 2's rank
# "x1" is not an integer
RANKS = "the rank column contradicts the scores on {lines} lines \\({queries} queries\\)"
QRELS_LINES = [("1", "0", "10", "2"), ("1", "0", "9", "0"), ("10", "0", "007", "-1"), ("2", "0", "x", "+3")]


def _write(path, rows, sep=" ", end="\n"):
    path.write_text("".join(sep.join(r) + end for r in rows))
    return path


def _no_fallback(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("line-by-line path used")

    monkeypatch.setattr(io, "_read_run_lines", boom)
    monkeypatch.setattr(io, "read_lines", boom)


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_regular_files_take_the_fast_path_and_match(tmp_path, monkeypatch, sep):
    run = _write(tmp_path / "r.txt", [r for r in RUN_LINES if r[3] != "x1"], sep)
    qrels = _write(tmp_path / "q.txt", QRELS_LINES, sep)
    slow_run = io._read_run_lines(run)
    slow_qrels = io.read_qrels(_write(tmp_path / "q2.txt", QRELS_LINES, "  "))  # irregular: slow path
    _no_fallback(monkeypatch)
    with warned(RANKS.format(lines="1 of 5", queries="1 of 2")):
        fast_run = io.read_run(run)
    assert fast_run.equals(slow_run)
    assert io.read_qrels(qrels).equals(slow_qrels)
    assert slow_qrels.get_column("rel").to_list() == [2, 0, -1, 3]


IRREGULAR = {
    "double spaces": lambda rows: "".join("  ".join(r) + "\n" for r in rows),
    "leading and trailing blanks": lambda rows: "".join(" " + " ".join(r) + " \n" for r in rows),
    "mixed tabs and spaces": lambda rows: "".join(
        " ".join(r[:3]) + "\t" + "\t".join(r[3:]) + "\n" for r in rows
    ),
    "CRLF": lambda rows: "".join(" ".join(r) + "\r\n" for r in rows),
    "comments and blank lines": lambda rows: "# header\n\n" + "".join(" ".join(r) + "\n\n" for r in rows),
    "extra fields": lambda rows: "".join(" ".join(r) + " extra 1\n" for r in rows),
    "non-ASCII ids": lambda rows: "".join(" ".join((r[0] + "é",) + r[1:]) + "\n" for r in rows),
    "no final newline": lambda rows: "\n".join(" ".join(r) for r in rows),
}


@pytest.mark.parametrize("kind", sorted(IRREGULAR))
def test_irregular_files_read_like_the_line_by_line_path(tmp_path, kind):
    path = tmp_path / "run.txt"
    path.write_text(IRREGULAR[kind](RUN_LINES))
    expected = io._read_run_lines(path)
    with warned(RANKS.format(lines="2 of 6", queries="2 of 3")):
        assert io.read_run(path).equals(expected)
    with warned(RANKS.format(lines="2 of 6", queries="2 of 3")):
        lean, tag = io.read_run_for_scoring(path)
    assert lean.get_column("query").cast(pl.Utf8).to_list() == expected.get_column("query").to_list()
    assert lean.get_column("doc").cast(pl.Utf8).to_list() == expected.get_column("doc").to_list()
    assert lean.get_column("score").to_list() == expected.get_column("score").cast(pl.Float32).to_list()
    assert tag == io.run_tag(expected) == "tagB"


@pytest.mark.parametrize(
    "text,message",
    [
        ("1 Q0 d 1 0.5 t\n1 Q0 e 2 nan t\n", "2: score is NaN"),
        (
            "1 Q0 d 1 0.5 t\n1 Q0 d 2 0.4 t\n",
            "2: duplicate run entry for query '1', doc 'd' (first seen on line 1)",
        ),
        ("1 Q0 d 1 0.5 t\n1 Q0 e 2 0.4\n", "2: expected at least 6 fields"),
        ("1 Q0 d 1 0.5 t\n1 Q0 e 2 zero t\n", "2: score is not a number"),
    ],
)
def test_bad_runs_fail_the_same_way(tmp_path, text, message):
    path = tmp_path / "run.txt"
    path.write_text(text)
    for reader in (io.read_run, lambda p: io.read_run_for_scoring(p), io._read_run_lines):
        with pytest.raises(InputError) as err:
            reader(path)
        assert message in str(err.value)


@pytest.mark.parametrize(
    "text,message",
    [
        ("1 0 d 1\n1 0 e 1.0\n", "2: relevance must be an integer"),
        ("1 0 d 1\n1 0 d 2\n", "2: duplicate qrels entry"),
        ("1 0 d 1\n1 0 e 1 5\n", "2: expected 4 fields"),
    ],
)
def test_bad_qrels_fail_the_same_way(tmp_path, text, message):
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        io.read_qrels(path)
    assert message in str(err.value)


def test_gzip_and_parquet_runs(tmp_path):
    text = tmp_path / "r.txt"
    _write(text, RUN_LINES)
    with warned(RANKS.format(lines="2 of 6", queries="2 of 3")):
        expected = io.read_run(text)
    gz = tmp_path / "r.txt.gz"
    gz.write_bytes(gzip.compress(text.read_bytes()))
    with warned(RANKS.format(lines="2 of 6", queries="2 of 3")):
        assert io.read_run(gz).equals(expected)
    pq = tmp_path / "r.parquet"
    expected.write_parquet(pq)
    assert io.read_run(pq).equals(expected)
    lean, tag = io.read_run_for_scoring(pq)
    assert (
        tag == "tagB"
        and lean.get_column("doc").cast(pl.Utf8).to_list() == expected.get_column("doc").to_list()
    )
    # only the required columns: the others are filled as for in-memory frames
    expected.select("query", "doc", "score").write_parquet(pq)
    assert io.read_run(pq).get_column("tag").to_list() == ["trecrs"] * len(RUN_LINES)


def test_bad_parquet_runs(tmp_path):
    pq = tmp_path / "r.parquet"
    pl.DataFrame({"query": ["1", "1"], "doc": ["a", "a"], "score": [1.0, 2.0]}).write_parquet(pq)
    with pytest.raises(InputError, match="row 2: duplicate run entry for query '1', doc 'a'"):
        io.read_run(pq)
    pl.DataFrame({"query": ["1"], "doc": ["a"], "score": [float("nan")]}).write_parquet(pq)
    with pytest.raises(InputError, match="row 1: score is NaN"):
        io.read_run(pq)
    pl.DataFrame({"query": ["1"], "score": [1.0]}).write_parquet(pq)
    with pytest.raises(InputError, match=r"lacks column\(s\) \['doc'\]"):
        io.read_run(pq)


def test_many_chunks_keep_file_order_and_the_last_tag(tmp_path, monkeypatch):
    """Chunks are parsed two at a time: pieces must still come back in file order."""
    monkeypatch.setattr(io, "_CHUNK_BYTES", 300)
    rows = [
        (str(q), "Q0", f"d{i}", str(i), f"{1 / (i + 1):.6f}", f"t{q}_{i}")
        for q in range(40)
        for i in range(7)
    ]
    path = _write(tmp_path / "r.txt", rows)
    expected = io._read_run_lines(path)
    assert io.read_run(path).equals(expected)
    lean, tag = io.read_run_for_scoring(path)
    assert lean.get_column("doc").cast(pl.Utf8).to_list() == expected.get_column("doc").to_list()
    assert lean.get_column("query").cast(pl.Utf8).to_list() == expected.get_column("query").to_list()
    assert tag == "t39_6"
    # an irregular line in a later chunk sends the whole file down the line-by-line path
    text = path.read_text().splitlines(keepends=True)
    text[200] = text[200].replace(" ", "  ", 1)
    path.write_text("".join(text))
    assert io.read_run(path).equals(expected)


def test_trecrs_eval_reports_a_duplicate_found_while_ranking(tmp_path, cli):
    """The lean scoring path finds repeated (query, doc) pairs while ranking; the error names both lines."""
    qrels = _write(tmp_path / "q.txt", QRELS_LINES)
    run = _write(tmp_path / "r.txt", [("1", "Q0", "a", "1", "3", "t"), ("1", "Q0", "b", "2", "2", "t"),
                                      ("1", "Q0", "a", "3", "1", "t")])  # fmt: skip
    code, out, err = cli("eval", qrels, run)
    assert code == 3 and out == ""
    assert f"{run}:3: duplicate run entry for query '1', doc 'a' (first seen on line 1)" in err
