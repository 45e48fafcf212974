"""Ratings I/O: every MovieLens layout, generic delimited text, Parquet, validation and dedupe policies."""

from __future__ import annotations

import hashlib

import polars as pl
import pytest

from trecrs.errors import InputError, UsageError
from trecrs.files.ratings import parse_columns, ratings_format, read_ratings, write_ratings


def md5(path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def test_u_data_counts_and_first_line(ml100k):
    df = read_ratings(ml100k)
    assert df.schema == {"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64, "timestamp": pl.Int64}
    assert df.height == 100_000
    assert df["user"].n_unique() == 943
    assert df["item"].n_unique() == 1682
    # u.data's first line is "196\t242\t3\t881250949"; the last is "12\t203\t3\t879959583".
    assert df.row(0) == ("196", "242", 3.0, 881250949)
    assert df.row(-1) == ("12", "203", 3.0, 879959583)
    assert sorted(df["rating"].unique().to_list()) == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_u_data_round_trip_is_byte_identical(ml100k, tmp_path):
    fmt = ratings_format(ml100k)
    assert fmt.name == "ml100k"
    out = tmp_path / "u.data"
    write_ratings(read_ratings(ml100k), out, fmt=fmt)
    assert md5(out) == "6e47046882bad158b0efbb84cd5cb987"


@pytest.mark.parametrize(
    "name,text,fmt",
    [
        ("ratings.dat", "1::1193::5::978300760\n1::661::3::978302109\n2::1193::4.5::978300761\n", "ml1m"),
        (
            "ratings.csv",
            "userId,movieId,rating,timestamp\n1,296,5.0,1147880044\n1,306,3.5,1147868817\n2,296,0.5,1\n",
            "csv",
        ),
        ("u1.base", "1\t1\t5\t874965758\n1\t2\t3\t876893171\n2\t1\t4\t1\n", "ml100k"),
        ("plain.txt", "1 1 5\n1 2 3\n2 1 4\n", "text"),
    ],
)
def test_layouts_detected_and_written_back_identically(tmp_path, name, text, fmt):
    src = tmp_path / name
    src.write_text(text)
    spec = ratings_format(src)
    assert spec.name == fmt
    df = read_ratings(src)
    assert df.height == 3
    assert df["user"].to_list()[:2] == ["1", "1"]
    out = tmp_path / ("out_" + name)
    write_ratings(df, out, fmt=spec)
    assert out.read_text() == text


def test_ml1m_half_stars_and_csv_decimal_style(tmp_path):
    src = tmp_path / "ratings.dat"
    src.write_text("1::2::4.5::10\n")
    df = read_ratings(src)
    assert df.row(0) == ("1", "2", 4.5, 10)
    out = tmp_path / "ratings.csv"
    write_ratings(df.vstack(pl.DataFrame([("1", "3", 4.0, 11)], schema=df.schema, orient="row")), out)
    assert out.read_text() == "userId,movieId,rating,timestamp\n1,2,4.5,10\n1,3,4.0,11\n"


def test_generic_header_mapping_and_positions(tmp_path):
    src = tmp_path / "r.tsv"
    src.write_text("when\tstars\tmovie\tperson\n7\t4\tm1\tp1\n8\t2\tm2\tp1\n")
    df = read_ratings(
        src, columns={"user": "person", "item": "movie", "rating": "stars", "timestamp": "when"}
    )
    assert df.rows() == [("p1", "m1", 4.0, 7), ("p1", "m2", 2.0, 8)]
    # The same by position (0-based), header line skipped as a header because of the names given.
    pos = tmp_path / "r2.txt"
    pos.write_text("7 4 m1 p1\n8 2 m2 p1\n")
    df2 = read_ratings(pos, columns=["timestamp", "rating", "item", "user"])
    assert df2.rows() == df.rows()
    assert parse_columns("user=person,item=movie,rating=stars") == {
        "user": "person",
        "item": "movie",
        "rating": "stars",
    }
    assert parse_columns("user,item,_,rating") == {"user": 0, "item": 1, "rating": 3}


def test_header_aliases_and_ids_stay_strings(tmp_path):
    src = tmp_path / "r.csv"
    src.write_text("user_id,item_id,rating\n007,01,3\n7,1,4\n")
    df = read_ratings(src)
    assert df.rows() == [("007", "01", 3.0, None), ("7", "1", 4.0, None)]


def test_parquet_by_name_and_mapping(tmp_path):
    p = tmp_path / "r.parquet"
    pl.DataFrame(
        {"userId": [1, 2], "movieId": [10, 20], "rating": [3.5, 4], "timestamp": [5, 6]}
    ).write_parquet(p)
    assert read_ratings(p).rows() == [("1", "10", 3.5, 5), ("2", "20", 4.0, 6)]
    q = tmp_path / "q.parquet"
    pl.DataFrame({"a": ["x"], "b": ["y"], "c": [2.0]}).write_parquet(q)
    assert read_ratings(q, columns={"user": "a", "item": "b", "rating": "c"}).rows() == [
        ("x", "y", 2.0, None)
    ]
    out = tmp_path / "w.parquet"
    write_ratings(read_ratings(p), out)
    assert read_ratings(out).rows() == read_ratings(p).rows()


def test_gz_crlf_comments(tmp_path):
    import gzip

    src = tmp_path / "u.data.gz"
    src.write_bytes(gzip.compress(b"# a comment\r\n1\t2\t3\t4\r\n\r\n5\t6\t1\t8\r\n"))
    assert read_ratings(src).rows() == [("1", "2", 3.0, 4), ("5", "6", 1.0, 8)]


# ------------------------------------------------------------------------------------------ bad inputs


def test_missing_column_in_header(tmp_path):
    src = tmp_path / "r.csv"
    src.write_text("userId,movieId,timestamp\n1,2,3\n")
    with pytest.raises(InputError, match=r"r\.csv: missing column\(s\) rating"):
        read_ratings(src)


def test_missing_mapped_column_names_the_header_line(tmp_path):
    src = tmp_path / "r.csv"
    src.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(InputError, match=r"r\.csv:1: missing column\(s\) rating \('stars'\)"):
        read_ratings(src, columns={"user": "a", "item": "b", "rating": "stars"})


def test_too_few_fields_names_line(tmp_path):
    src = tmp_path / "u.data"
    src.write_text("1\t2\t3\t4\n1\t3\n")
    with pytest.raises(InputError, match=r"u\.data:2: expected 3 or 4 fields"):
        read_ratings(src)


def test_non_numeric_rating_names_line(tmp_path):
    src = tmp_path / "u.data"
    src.write_text("1\t2\t3\t4\n\n1\t3\tfive\t5\n")
    with pytest.raises(InputError, match=r"u\.data:3: rating is not a number: 'five'"):
        read_ratings(src)


def test_nan_rating_and_bad_timestamp(tmp_path):
    src = tmp_path / "u.data"
    src.write_text("1\t2\tnan\t4\n")
    with pytest.raises(InputError, match=r"u\.data:1: rating is not a finite number"):
        read_ratings(src)
    src.write_text("1\t2\t3\t4\n1\t3\t3\tyesterday\n")
    with pytest.raises(InputError, match=r"u\.data:2: timestamp must be an integer"):
        read_ratings(src)


def test_duplicates_name_both_lines(tmp_path):
    src = tmp_path / "u.data"
    src.write_text("1\t2\t3\t10\n1\t3\t4\t11\n1\t2\t5\t12\n")
    with pytest.raises(
        InputError, match=r"u\.data:3: duplicate rating for user '1', item '2': lines 1 and 3"
    ):
        read_ratings(src)


@pytest.mark.parametrize(
    "policy,expected",
    [
        ("first", [("1", "2", 3.0, 10), ("1", "3", 4.0, 11)]),
        ("last", [("1", "3", 4.0, 11), ("1", "2", 5.0, 12)]),
        ("mean", [("1", "2", 4.0, 12), ("1", "3", 4.0, 11)]),
    ],
)
def test_dedupe_policies(tmp_path, policy, expected):
    src = tmp_path / "u.data"
    src.write_text("1\t2\t3\t10\n1\t3\t4\t11\n1\t2\t5\t12\n")
    notes = []
    assert read_ratings(src, dedupe=policy, report=notes.append).rows() == expected
    assert notes and "1 duplicate rating row(s) merged into 1 (user, item) pair(s)" in notes[0]


def test_unknown_format_and_policy(tmp_path):
    src = tmp_path / "u.data"
    src.write_text("1\t2\t3\t4\n")
    with pytest.raises(UsageError):
        read_ratings(src, fmt="xml")
    with pytest.raises(UsageError):
        read_ratings(src, dedupe="max")


def test_failed_write_leaves_no_file(tmp_path):
    df = pl.DataFrame({"user": ["1", "2"], "item": ["1", "1"], "rating": [1.0, 2.0], "timestamp": [5, None]})
    out = tmp_path / "u.data"
    with pytest.raises(UsageError):
        write_ratings(df, out, fmt="ml100k")
    assert list(tmp_path.iterdir()) == []
