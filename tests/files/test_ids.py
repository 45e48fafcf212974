"""Id helpers (natural order, integer codes, hashes) and file digests: one implementation each, values pinned."""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl
import pytest

from trecrs.files.hashing import file_digest
from trecrs.ids import (
    IdCodes,
    codes,
    hash_ids,
    mix64,
    natural_key,
    natural_sort,
    natural_unique,
    positions,
)
from trecrs.protocol.one_plus_random import case_keys
from trecrs.recommenders.baselines import RandomScores


def test_natural_unique_numeric_then_bytewise_ties():
    assert natural_unique(pl.Series(["10", "9", "007", "7", "9"])).to_list() == ["007", "7", "9", "10"]
    assert natural_unique(pl.Series(["b", "a10", "a9"])).to_list() == ["a10", "a9", "b"]
    assert natural_unique(pl.Series([], dtype=pl.Utf8)).to_list() == []


@pytest.mark.parametrize(
    "pool",
    [
        ["1", "2", "9", "10", "11", "100"],  # numeric, one id per number: sorted on one integer
        ["1", "01", "007", "7", "0", "00", "10"],  # leading zeros: the ids break ties
        ["1", "a", "10", "9", "b"],  # not numeric: bytewise
        [str(2**40), "3", "0"],  # a product beyond 63 bits: sorted on two columns
    ],
)
def test_natural_sort_is_keys_then_ids_stably(pool):
    """The rule: by each column's natural key, ties by the ids bytewise, then file order (stable)."""
    rng = np.random.default_rng(11)
    for n in (0, 1, 5, 40):
        df = pl.DataFrame({
            "q": [pool[k] for k in rng.integers(0, len(pool), n)],
            "d": [pool[k] for k in rng.integers(0, len(pool), n)],
            "row": range(n),
        }, schema={"q": pl.Utf8, "d": pl.Utf8, "row": pl.Int64})  # fmt: skip
        keys = [natural_key(df.get_column(c)) for c in ("q", "d")]
        want = sorted(df.rows(), key=lambda r: (keys[0][r[2]], keys[1][r[2]], r[0], r[1], r[2]))
        assert natural_sort(df, ["q", "d"]).rows() == want


def test_codes_positions_and_nulls():
    index = pl.Series(["x", "y", "z"])
    got = codes(pl.Series(["z", "q", "x", "z"]), index)
    assert got.dtype == pl.Int64 and got.to_list() == [2, None, 0, 2]


@pytest.mark.parametrize("dtype", [pl.Utf8, pl.Categorical])
def test_id_codes_in_a_vocabulary(dtype):
    col = pl.Series(["b", "c", "a", "b"]).cast(dtype)
    vocab = pl.Series(["a", "b"])
    assert IdCodes(col).encode(vocab).tolist() == [1, -1, 0, 1]


def test_hash_ids_pinned_and_order_free():
    # blake2b-64 of the UTF-8 bytes, little-endian: these values fix every One-Plus-Random draw
    assert hash_ids(["1", "a", "007"], b"trecrs.item").tolist() == [
        8855755880309344113,
        5173057114635819058,
        9778070637040664298,
    ]
    assert hash_ids(pl.Series(["1", "a", "1"])).tolist() == [8518482412311870710, 3405396810240292928] + [
        8518482412311870710
    ]
    direct = int.from_bytes(hashlib.blake2b(b"a", digest_size=8).digest(), "little")
    assert hash_ids(["a"])[0] == direct
    assert hash_ids(["x", "y"]).tolist() == hash_ids(["y", "x"]).tolist()[::-1]


def test_mix64_pinned_with_and_without_gamma():
    x = np.array([0, 1, 2**64 - 1], dtype=np.uint64)
    assert mix64(x, add_gamma=True).tolist() == [
        16294208416658607535,
        10451216379200822465,
        16490336266968443936,
    ]
    h = hash_ids(["1", "a", "007"], b"trecrs.item")
    assert mix64(h, add_gamma=False).tolist() == [
        17884024086438588199,
        11445593855958627011,
        18080954414311307591,
    ]
    assert mix64(np.uint64(0), add_gamma=False) == 0  # the bare finaliser fixes 0
    assert h.tolist() == hash_ids(["1", "a", "007"], b"trecrs.item").tolist()  # input untouched


def test_draws_that_depend_on_the_hashes_are_pinned():
    assert case_keys(3, ["1", "2"], ["10", "20"]).tolist() == [5411310993037516296, 1248148412655479567]
    train = pl.DataFrame({"user": ["1", "2"], "item": ["10", "20"], "rating": [1.0, 2.0]})
    pairs = pl.DataFrame({"user": ["1", "2", "1"], "item": ["20", "10", "10"]})
    rows = RandomScores(seed=5).fit(train).score(pairs).frame.rows()
    assert rows == [
        ("1", "10", 0.715442618138816),
        ("1", "20", 0.8189238384221226),
        ("2", "10", 0.5036201662351405),
    ]


@pytest.mark.parametrize("algorithm", ["sha256", "md5", "blake2b"])
def test_file_digest_matches_hashlib(tmp_path, algorithm):
    data = bytes(range(256)) * 5000  # more than one read block with a small chunk
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    assert file_digest(path, algorithm, chunk=4096) == hashlib.new(algorithm, data).hexdigest()
    assert file_digest(path) == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("top", [50, 10**9])  # a table indexed by number; a binary search
def test_positions_are_indexes_in_the_keys(top):
    rng = np.random.default_rng(7)
    keys = np.unique(rng.integers(0, top, 40)).astype(np.int64)
    values = np.concatenate([rng.choice(keys, 30), rng.integers(0, top, 30), [top, 2**32 - 1]]).astype(
        np.uint32
    )
    want = [int(np.flatnonzero(keys == v)[0]) if v in keys else -1 for v in values]
    assert positions(values, keys).tolist() == want
    assert positions(values, keys[:0]).tolist() == [-1] * values.size
