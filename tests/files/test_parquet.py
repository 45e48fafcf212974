"""The one Parquet reader: missing columns, strict types, null/NaN rows and repeated keys, for every reader."""

from __future__ import annotations

import polars as pl
import pytest

from trecrs.errors import InputError
from trecrs.files.candidates import read_candidates, read_items
from trecrs.files.parquet import read_parquet
from trecrs.files.ratings import read_ratings
from trecrs.files.scores import read_pairs, read_scores
from trecrs.files.trec import read_qrels, read_run, read_run_for_scoring


def _pq(tmp_path, **columns) -> str:
    path = tmp_path / "t.parquet"
    pl.DataFrame(columns).write_parquet(path)
    return str(path)


def test_reads_columns_in_order_with_fills(tmp_path):
    p = _pq(tmp_path, b=[1, 2], a=["x", "y"], extra=[0.5, 0.5])
    df = read_parquet(p, {"a": pl.Utf8, "b": pl.Utf8, "c": pl.Int64}, what="t", fill={"c": 0})
    assert df.columns == ["a", "b", "c"] and df.rows() == [("x", "1", 0), ("y", "2", 0)]


def test_missing_column(tmp_path):
    p = _pq(tmp_path, a=["x"])
    with pytest.raises(InputError, match=r"t Parquet file lacks column\(s\) \['b'\]; has \['a'\]"):
        read_parquet(p, {"a": pl.Utf8, "b": pl.Utf8}, what="t")


def test_bad_type_is_strict(tmp_path):
    p = _pq(tmp_path, a=["1.5", "x"])
    with pytest.raises(InputError, match="t Parquet column has the wrong type:.*'a'"):
        read_parquet(p, {"a": pl.Float64}, what="t")


def test_null_row(tmp_path):
    p = _pq(tmp_path, a=["x", "y", None], b=[1.0, None, 2.0])
    with pytest.raises(InputError, match=r"t.parquet: row 2: missing value in \['b'\]"):
        read_parquet(p, {"a": pl.Utf8, "b": pl.Float64}, what="t")
    assert read_parquet(p, {"a": pl.Utf8}, what="t", not_null=()).get_column("a").null_count() == 1


def test_nan_row(tmp_path):
    p = _pq(tmp_path, a=["x", "y", "z"], b=[1.0, 2.0, float("nan")])
    with pytest.raises(InputError, match="row 3: b is NaN"):
        read_parquet(p, {"a": pl.Utf8, "b": pl.Float64}, what="t", not_nan=["b"])


def test_unique_key(tmp_path):
    p = _pq(tmp_path, a=["x", "y", "x"], b=["1", "1", "1"])
    with pytest.raises(InputError, match="row 3: duplicate t entry for a 'x', b '1'"):
        read_parquet(p, {"a": pl.Utf8, "b": pl.Utf8}, what="t", unique=["a", "b"])
    assert read_parquet(p, {"a": pl.Utf8, "b": pl.Utf8}, what="t").height == 3


def test_not_a_parquet_file_and_no_file(tmp_path):
    bad = tmp_path / "x.parquet"
    bad.write_text("not parquet\n")
    with pytest.raises(InputError, match="cannot read as Parquet"):
        read_parquet(bad, {"a": pl.Utf8}, what="t")
    with pytest.raises(InputError, match="no such file"):
        read_parquet(tmp_path / "none.parquet", {"a": pl.Utf8}, what="t")


# every Parquet reader goes through read_parquet: its messages, the reader's table name
READERS = [
    (read_qrels, "qrels", {"query": ["1"], "doc": ["d"], "rel": [1]}, "rel", "x"),
    (read_run, "run", {"query": ["1"], "doc": ["d"], "score": [1.0]}, "score", "x"),
    (read_run_for_scoring, "run", {"query": ["1"], "doc": ["d"], "score": [1.0]}, "score", "x"),
    (read_scores, "scores", {"user": ["1"], "item": ["i"], "score": [1.0]}, "item", None),
    (read_pairs, "pairs", {"user": ["1"], "item": ["i"]}, "item", None),
    (read_items, "item catalogue", {"item": ["i"]}, "item", None),
    (read_candidates, "candidates", {"query": ["1"], "user": ["1"], "item": ["i"]}, "query", None),
    (read_ratings, "ratings", {"user": ["1"], "item": ["i"], "rating": [4.0]}, "rating", None),
]


@pytest.mark.parametrize("reader,what,columns,drop,bad_value", READERS, ids=[r[0].__name__ for r in READERS])
def test_each_reader_uses_it(tmp_path, reader, what, columns, drop, bad_value):
    p = _pq(tmp_path, **columns)
    assert reader(p) is not None
    if reader is read_ratings:  # the ratings mapping finds columns by alias first
        p = _pq(tmp_path, user=["1"], item=["i"], x=["4"])
        with pytest.raises(InputError, match=r"missing column\(s\) rating"):
            reader(p)
        mapping = {"user": "user", "item": "item", "rating": "r"}
        with pytest.raises(InputError, match=r"ratings Parquet file lacks column\(s\) \['r'\]"):
            reader(p, columns=mapping)
        p = _pq(tmp_path, user=["1"], item=["i"], rating=["4"], timestamp=["x"])
        with pytest.raises(InputError, match="timestamp must be an integer, found 'x' in 'row 1'"):
            reader(p)  # ratings are parsed as text, then checked row by row
        return
    p = _pq(tmp_path, **{k: v for k, v in columns.items() if k != drop})
    with pytest.raises(InputError, match=rf"{what} Parquet file lacks column\(s\) \['{drop}'\]"):
        reader(p)
    if bad_value is not None:
        p = _pq(tmp_path, **{**columns, drop: [bad_value]})
        with pytest.raises(InputError, match=f"{what} Parquet column has the wrong type"):
            reader(p)


def test_trec_readers_rows(tmp_path):
    p = _pq(tmp_path, query=["1", "1", None], doc=["a", "b", "c"], score=[1.0, 2.0, 3.0])
    for reader in (read_run, read_run_for_scoring):
        with pytest.raises(InputError, match=r"row 3: missing value in \['query'\]"):
            reader(p)
    p = _pq(tmp_path, query=["1", "1"], doc=["a", "a"], score=[1.0, 2.0])
    with pytest.raises(InputError, match="row 2: duplicate run entry for query '1', doc 'a'"):
        read_run_for_scoring(p)
    lean, tag = read_run_for_scoring(p, check_duplicates=False)  # left to the caller
    assert lean.height == 2 and tag == "trecrs"
    p = _pq(tmp_path, query=[1, 2], doc=["a", "b"], score=[1.0, 2.0], tag=["t1", "t2"])
    lean, tag = read_run_for_scoring(p)
    assert tag == "t2" and lean.get_column("query").cast(pl.Utf8).to_list() == ["1", "2"]
    assert lean.schema["score"] == pl.Float32
