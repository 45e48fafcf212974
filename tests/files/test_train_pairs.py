"""The training-pair reader: the pairs ``read_ratings`` gives, and its errors naming the same line.

Several faults in one file: the error must be the one the whole-file checks raise first (the field count
before an id, an id before a rating...), whichever line comes first.
"""

from __future__ import annotations

import gzip

import numpy as np
import polars as pl
import pytest

from trecrs.errors import InputError
from trecrs.files.lines import first_duplicate, first_repeat
from trecrs.files.ratings import read_ratings
from trecrs.files.train_pairs import read_train_pairs
from trecrs.ids import pair_codes

GOOD = "1 10 4\n1 11 3.5\n2 10 5\n# a comment\n\n3  12\t1 881250949\n007 10 2\n7 10 2\n"


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def _pairs(path, **options) -> pl.DataFrame:
    return read_ratings(path, **options).select("user", "item")


@pytest.mark.parametrize(
    "name,text",
    [
        ("train.txt", GOOD),
        ("train.txt.gz", GOOD),
        (
            "u1.base",
            "1\t10\t4\t881250949\r\n2\t10\t5\t881250950\r\n1\t11\t3\t881250951\r\n2\t12\t1\t881250952\r\n",
        ),
        (
            "ratings.dat",
            "1::10::4::978300760\n1::11::5::978302109\n2::10::3::978301968\n3::13::4::978300275\n",
        ),
        ("ratings.csv", "userId,movieId,rating,timestamp\n1,10,4.0,1\n1,11,3.5,2\n2,10,5.0,3\n2,11,0.5,4\n"),
        ("prefs.csv", 'rating;"user_id";item\n4;u"1;i1\n 3 ; u2 ;"i2"\n5;u3;i1\n1;u1;i2\n'),
    ],
)
def test_the_pairs_of_every_layout_as_read_ratings_gives_them(tmp_path, name, text):
    path = _write(tmp_path, name, text)
    got = read_train_pairs(path)
    assert got.schema == {"user": pl.Utf8, "item": pl.Utf8}
    assert got.equals(_pairs(path))


def test_pairs_as_written(tmp_path):
    got = read_train_pairs(_write(tmp_path, "train.txt", GOOD))
    assert got.rows() == [("1", "10"), ("1", "11"), ("2", "10"), ("3", "12"), ("007", "10"), ("7", "10")]


def test_parquet_pairs_with_integer_ids_and_aliases(tmp_path):
    path = tmp_path / "train.parquet"
    frame = pl.DataFrame({"userId": [3, 1, 2, 1, 5], "movieId": [9, 9, 9, 8, 1], "rating": [1.0, 2.5, 3.0, 4.0, 5.0],
                          "timestamp": [5, 4, 3, 2, 1]})  # fmt: skip
    frame.write_parquet(path)
    got = read_train_pairs(path)
    assert got.rows() == [("3", "9"), ("1", "9"), ("2", "9"), ("1", "8"), ("5", "1")]
    assert got.equals(_pairs(path))
    pl.DataFrame({"user": [], "item": [], "rating": []}, schema={"user": pl.Utf8, "item": pl.Utf8,
                                                                "rating": pl.Float64}).write_parquet(path)  # fmt: skip
    assert read_train_pairs(path).shape == (0, 2) and _pairs(path).shape == (0, 2)


def test_a_column_mapping_and_separator(tmp_path):
    path = _write(tmp_path, "t.txt", "x|u1|i1|4\nx|u2|i1|5\nx|u1|i2|3\nx|u3|i3|1\n")
    options = dict(columns="_,user,item,rating", separator="|")
    assert read_train_pairs(path, **options).rows() == [
        ("u1", "i1"),
        ("u2", "i1"),
        ("u1", "i2"),
        ("u3", "i3"),
    ]
    assert read_train_pairs(path, **options).equals(_pairs(path, **options))


# Each case: the file, and the error read_ratings raises (path:line: reason), which the lean reader must
# raise too. The whole-file order of the checks decides which fault is named.
BAD = [
    ("short", "1 10 4\n2 10\n3 10 4\n", "2: expected at least 3 fields separated by blanks, found 2: '2 10'"),
    ("short after a bad rating", "1 10 4\n2 10 x\n3 10 4\n4 10 4\n5 10\n",
     "5: expected at least 3 fields separated by blanks, found 2: '5 10'"),
    ("rating", "1 10 4\n2 10 4\n3 10 4\n4 10 x\n", "4: rating is not a number: 'x' in '4 10 x'"),
    ("nan", "1 10 4\n2 10 nan\n", "2: rating is not a finite number: 'nan' in '2 10 nan'"),
    ("inf before huge", "1 10 1e20\n2 10 4\n3 10 4\n4 10 inf\n",
     "4: rating is not a finite number: 'inf' in '4 10 inf'"),
    ("huge", "1 10 4\n2 10 4\n3 10 4\n4 10 -1e10\n",
     "4: rating -1e10 is outside the supported range [-1000000000, 1000000000]: '4 10 -1e10'"),
    ("timestamp", "1 10 4 5\n2 10 4 x\n", "2: timestamp must be an integer, found 'x' in '2 10 4 x'"),
    ("empty item", "1,10,4\n2,10,4\n3,10,4\n4,,4\n5,\"\",4\n", "4: empty item id: '4,,4'"),
    ("empty user after an empty item", "1,10,4\n2,,4\n3,10,4\n,11,4\n", "4: empty user id: ',11,4'"),
    ("ml100k fields", "1\t10\t4\t1\t9\n", "1: expected 3 or 4 fields (user item rating [timestamp]) separated by "
                                          "tabs, found 5: '1\\t10\\t4\\t1\\t9'"),
    ("duplicate", "1 10 4\n2 10 4\n1 11 4\n# c\n2 10 5\n1 10 1\n",
     "5: duplicate rating for user '2', item '10': lines 2 and 5 (choose a policy: dedupe='first'|'last'|'mean')"),
    ("utf-8", "1 10 4\n2 \xff 4\n", None),
    ("header only", "user,item,rating\n", "no ratings after the header line"),
    ("missing header column", "user,thing,rating\n1,2,3\n", None),
    ("comments only", "# nothing\n\n", None),
]  # fmt: skip


@pytest.mark.parametrize("case,text,want", BAD, ids=[c[0] for c in BAD])
def test_bad_input_raises_what_read_ratings_raises(tmp_path, case, text, want):
    name = "u.data" if case == "ml100k fields" else "train.txt"
    path = tmp_path / name
    path.write_bytes(text.encode("latin-1"))  # "\xff": a byte that is not UTF-8
    with pytest.raises(InputError) as expected:
        read_ratings(path)
    with pytest.raises(InputError) as got:
        read_train_pairs(path)
    assert str(got.value) == str(expected.value)
    assert (got.value.path, got.value.line) == (expected.value.path, expected.value.line)
    if want is not None:
        assert str(got.value) == f"{path}:{want}" or str(got.value) == f"{path}: {want}"


def test_parquet_duplicate_and_bad_rows_name_the_rows(tmp_path):
    path = tmp_path / "train.parquet"
    pl.DataFrame({"user": ["a", "b", "c", "d", "b"], "item": ["x", "x", "x", "x", "x"],
                  "rating": ["1", "2", "3", "4", "5"]}).write_parquet(path)  # fmt: skip
    with pytest.raises(InputError) as got:
        read_train_pairs(path)
    assert str(got.value) == (f"{path}: duplicate rating for user 'b', item 'x': rows 2 and 5 "
                              "(choose a policy: dedupe='first'|'last'|'mean')")  # fmt: skip
    pl.DataFrame({"user": ["a", "b", "c", "d"], "item": ["x", "x", "x", "x"],
                  "rating": ["1", "2", "3", "NaN"]}).write_parquet(path)  # fmt: skip
    with pytest.raises(InputError) as got:
        read_train_pairs(path)
    assert str(got.value) == f"{path}: rating is not a finite number: 'NaN' in 'row 4'"
    with pytest.raises(InputError) as expected:
        read_ratings(path)
    assert str(got.value) == str(expected.value)


def test_first_repeat_is_first_duplicates_rule():
    rng = np.random.default_rng(5)
    for _ in range(200):
        keys = rng.integers(0, rng.integers(1, 30), rng.integers(0, 25)).astype(np.uint64)
        want = first_duplicate(pl.DataFrame({"k": keys}), ["k"])
        got = first_repeat(keys)
        assert got == (None if want is None else (want[0]["_row"] - 1, want[1]["_row"] - 1))


def test_pair_codes_are_equal_exactly_when_both_ids_are():
    rng = np.random.default_rng(6)
    ids = ["1", "01", "10", "a", "A", "é", "", "x y"]
    a = pl.Series([ids[k] for k in rng.integers(0, len(ids), 400)])
    b = pl.Series([ids[k] for k in rng.integers(0, len(ids), 400)])
    codes = pair_codes(a, b)
    same = codes[:, None] == codes[None, :]
    want = (a.to_numpy()[:, None] == a.to_numpy()[None, :]) & (b.to_numpy()[:, None] == b.to_numpy()[None, :])
    assert (same == want).all()
