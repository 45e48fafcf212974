"""The coded score reader (:mod:`trecrs.files.scores_fast`) against the text one.

Every file is read twice, once as large (ids coded as UInt32 numbers where every id is a plain decimal) and
once as text: the frames are equal once the coded ids are cast to text, or both readers raise the same
error (text, file, line). The cases are the ids a cast would misread (``+5``, ``007``, beyond 2**32), the
lines the columnar parse must hand back (a missing or extra field, a doubled separator, a comment, a bad
score, a repeated pair) and the layouts (headers, CSV, CR LF).
"""

from __future__ import annotations

import polars as pl
import pytest

from trecrs.errors import InputError
from trecrs.files import ratings_fast
from trecrs.files.scores import read_score_table


def outcome(path, **options):
    """The score table's frame and format, or the error raised as (text, path, line)."""
    try:
        table = read_score_table(path, **options)
    except InputError as exc:
        return (str(exc), exc.path, exc.line)
    return table.frame, table.order, table.format


def as_text(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col("user", "item").cast(pl.Utf8))


HEADER = "user\titem\tscore\n"
# (file name, text, whether every id is a plain decimal, so the ids are read as numbers)
CASES = [
    ("plain.tsv", HEADER + "0\t1\t0.5\n2\t3\t1.25\n4294967295\t10\t-3\n", True),
    ("noheader.tsv", "1\t2\t0.5\n1\t3\t2e3\n2\t2\t-0.0\n", True),
    ("crlf.tsv", "user\titem\tscore\r\n1\t2\t0.5\r\n3\t4\t1\r\n", True),
    ("scores.csv", "user,item,score\n10,20,0.5\n11,20,0.25\n", True),
    ("scores.txt", "5 6 0.1\n5 7 0.2\n", True),
    ("plus.tsv", HEADER + "+5\t1\t0.5\n5\t2\t0.5\n", False),
    ("zero.tsv", HEADER + "007\t1\t0.5\n7\t1\t0.25\n", False),
    ("big.tsv", HEADER + "4294967296\t1\t0.5\n0\t1\t0.25\n", False),
    ("mixed.tsv", HEADER + "1\tabc\t0.5\nu2\t3\t0.25\n0\t0\t1\n", False),
    ("item0.tsv", HEADER + "1\t00\t0.5\n", False),
    ("dup.tsv", HEADER + "1\t2\t0.5\n3\t4\t1\n1\t2\t0.75\n", False),
    ("dupcoded.tsv", HEADER + "1\t2\t0.5\n01\t2\t1\n", False),
    ("nan.tsv", HEADER + "1\t2\t0.5\n3\t4\tnan\n", False),
    ("inf.tsv", HEADER + "1\t2\tinf\n", False),
    ("word.tsv", HEADER + "1\t2\t0.5\n3\t4\thigh\n", False),
    ("short.tsv", HEADER + "1\t2\t0.5\n3\t4\n", False),
    ("long.tsv", HEADER + "1\t2\t0.5\n3\t4\t1\t9\n", False),
    ("doubled.tsv", HEADER + "1\t2\t0.5\n3\t\t4\t1\n", False),
    ("comment.tsv", HEADER + "# a comment\n1\t2\t0.5\n", False),
    ("blank.tsv", HEADER + "1\t2\t0.5\n\n3\t4\t1\n", False),
    ("spaces.tsv", HEADER + "1\t2\t 0.5\n", False),
    ("ranks.tsv", "user\titem\trank\n1\t2\t1\n1\t3\t2\n", False),
    ("four.tsv", "user\titem\tscore\trank\n1\t2\t0.5\t1\n", False),
    ("badheader.tsv", "who\twhat\tscore\n1\t2\t0.5\n", False),
    ("empty.tsv", HEADER, False),
]


@pytest.mark.parametrize("name,text,numbers", CASES, ids=[c[0] for c in CASES])
def test_coded_and_text_score_readers_agree(tmp_path, monkeypatch, name, text, numbers):
    path = tmp_path / name
    path.write_text(text)
    want = outcome(path)
    monkeypatch.setattr(ratings_fast, "CODED_MIN_BYTES", 0)
    got = outcome(path, coded=True)
    if isinstance(want, tuple) and isinstance(want[0], str):
        assert got == want
        return
    frame, order, fmt = got
    assert frame.schema["user"] == (pl.UInt32 if numbers else pl.Utf8)
    assert as_text(frame).equals(want[0]) and (order, fmt) == want[1:]


def test_coded_scores_keep_each_line_number(tmp_path, monkeypatch):
    path = tmp_path / "s.tsv"
    path.write_text(HEADER + "3\t1\t0.5\n1\t7\t0.25\n")
    monkeypatch.setattr(ratings_fast, "CODED_MIN_BYTES", 0)
    frame = read_score_table(path, coded=True).frame
    assert frame.rows() == [(3, 1, 0.5, 2), (1, 7, 0.25, 3)]


def test_small_files_and_other_layouts_stay_text(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text(HEADER + "3\t1\t0.5\n")
    assert read_score_table(path, coded=True).frame.schema["user"] == pl.Utf8
