"""MovieLens datasets: ML-100K's predefined splits byte for byte, verify, and the synthetic generator."""

from __future__ import annotations

import hashlib
import shutil

import polars as pl
import pytest

from trecrs.data.datasets import (
    ML100K_SPLITS_MD5,
    ml100k_split_frames,
    ml100k_splits,
    verify,
    verify_ok,
)
from trecrs.data.synthetic import ML100K_STAR_SHARES, generate
from trecrs.files.hashing import file_digest
from trecrs.files.ratings import read_ratings

from ..conftest import ML100K, ROOT, need, run_command, run_in_process


def shared_md5s() -> dict[str, str]:
    lines = need(ML100K.parent / "ml-100k.md5").read_text().split("\n")
    return {name: md5 for md5, name in (line.split() for line in lines if line.strip())}


def test_known_split_md5s_equal_the_shared_list():
    expected = shared_md5s()
    assert {k: v for k, v in expected.items() if k != "u.data"} == ML100K_SPLITS_MD5
    assert expected["u.data"] == "6e47046882bad158b0efbb84cd5cb987"


def test_ml100k_splits_are_byte_identical(ml100k, tmp_path):
    paths = ml100k_splits(ml100k, tmp_path)
    expected = shared_md5s()
    assert sorted(paths) == sorted(ML100K_SPLITS_MD5)
    got = {name: file_digest(p, "md5") for name, p in paths.items()}
    assert got == {k: expected[k] for k in got}
    assert (tmp_path / "u1.base.manifest.json").is_file()


def test_ml100k_split_rules_spot_checks(ml100k):
    ratings = read_ratings(ml100k)
    frames = ml100k_split_frames(ratings)
    for i in range(1, 6):
        test, base = frames[f"u{i}.test"], frames[f"u{i}.base"]
        assert test.height == 20_000 and base.height == 80_000
        # u1.test holds lines 1..20000 of u.data, so u.data's first line (196 242 3) is in u1.test.
    assert frames["u1.test"].filter((pl.col("user") == "196") & (pl.col("item") == "242")).height == 1
    # ua.test: exactly 10 ratings of each of the 943 users (every user has >= 20).
    ua = frames["ua.test"]
    assert ua.height == 9430 and ua.group_by("user").len()["len"].unique().to_list() == [10]
    assert frames["ub.test"].height == 9430
    # Sorted by (user, item) numerically: the first line of every file is user 1.
    assert frames["u1.base"].row(0)[:3] == ("1", "1", 5.0)


def test_cli_ml100k_splits(ml100k, tmp_path):
    proc = run_in_process("datasets", "ml100k-splits", ml100k, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert file_digest(tmp_path / "out" / "ua.test", "md5") == ML100K_SPLITS_MD5["ua.test"]


def test_verify_shared_folder_all_ok(ml100k, cli):
    checks = verify(ml100k.parent)
    assert verify_ok(checks)
    assert {c.status for c in checks} == {"OK"}
    assert len(checks) == 24  # 23 files' md5 + the ratings count of u.data
    code, out, err = cli("datasets", "verify", ml100k.parent)
    assert code == 0, err
    assert "OK       u.data  md5 6e47046882bad158b0efbb84cd5cb987" in out


def test_verify_reports_mismatch_and_missing(ml100k, tmp_path, cli):
    folder = tmp_path / "ml-100k"
    folder.mkdir()
    data = ml100k.read_bytes()
    (folder / "u.data").write_bytes(data.replace(b"196\t242\t3", b"196\t242\t4", 1))
    shutil.copy(ml100k.parent / "u1.test", folder / "u1.test")
    checks = {c.file + ":" + c.check: c.status for c in verify(folder)}
    assert checks["u.data:md5"] == "MISMATCH"
    assert checks["u.data:count"] == "OK"
    assert checks["u1.test:md5"] == "OK"
    assert checks["u1.base:md5"] == "missing"
    code, out, _ = cli("datasets", "verify", folder)
    assert code == 1
    assert "MISMATCH u.data  md5 6e47046882bad158b0efbb84cd5cb987 (got " in out


def test_verify_other_releases_by_count_archive_and_checksums(tmp_path):
    one = tmp_path / "ml-1m"
    one.mkdir()
    (one / "ratings.dat").write_text("1::1193::5::978300760\n")
    (one / "ml-1m.zip").write_bytes(b"not the archive")
    checks = {(c.file, c.check): c for c in verify(one)}
    assert checks[("ml-1m.zip", "md5")].status == "MISMATCH"
    assert checks[("ratings.dat", "count")].status == "MISMATCH"
    assert checks[("ratings.dat", "count")].actual == "1 ratings"
    # A bundled checksums.txt (as ML-32M ships) is checked file by file.
    big = tmp_path / "ml-32m"
    big.mkdir()
    (big / "movies.csv").write_text("movieId,title,genres\n")
    good = hashlib.md5(b"movieId,title,genres\n").hexdigest()
    (big / "checksums.txt").write_text(f"{good}  movies.csv\n{'0' * 32}  links.csv\n")
    checks = {(c.file, c.check): c.status for c in verify(big)}
    assert checks[("movies.csv", "md5")] == "OK"
    assert checks[("links.csv", "md5")] == "missing"
    assert checks[("ratings.csv", "count")] == "missing"
    assert not verify_ok(verify(big))


def test_verify_unknown_folder_is_an_input_error(tmp_path):
    proc = run_in_process("datasets", "verify", tmp_path)
    assert proc.returncode == 3
    assert "no known MovieLens file here" in proc.stderr


# ------------------------------------------------------------------------------------------ synthetic


def test_synthetic_shape_and_ml100k_like_properties():
    df = generate(300, 600, seed=42)
    assert df["user"].n_unique() == 300
    assert df["item"].n_unique() == 600  # every item rated at least once
    assert 20_000 <= df.height <= 25_000
    per_user = df.group_by("user").len()["len"]
    assert per_user.min() >= 20
    assert df.select(pl.struct("user", "item").is_duplicated().any()).item() is False
    shares = df.group_by("rating").len().sort("rating")["len"] / df.height
    assert df["rating"].unique().sort().to_list() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert max(abs(a - b) for a, b in zip(shares.to_list(), ML100K_STAR_SHARES, strict=True)) < 0.001
    # Long tail: the 10% most popular items hold far more than 10% of the ratings.
    pop = df.group_by("item").len().sort("len", descending=True)["len"]
    assert pop.head(60).sum() / df.height > 0.3
    assert df["timestamp"].min() >= 874_724_710 and df["timestamp"].max() <= 874_724_710 + 18_000_000


def test_synthetic_is_seeded():
    a, b, c = generate(50, 100, seed=7), generate(50, 100, seed=7), generate(50, 100, seed=8)
    assert a.equals(b)
    assert not a.equals(c)


def test_cli_synthetic_byte_identical(tmp_path):
    for name in ("a", "b"):
        proc = run_command(
            "datasets", "synthetic", "--users", 40, "--items", 80, "--seed", 3, tmp_path / name
        )
        assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "a" / "u.data").read_bytes() == (tmp_path / "b" / "u.data").read_bytes()
    assert read_ratings(tmp_path / "a" / "u.data")["user"].n_unique() == 40


def test_committed_sample_is_the_documented_command(tmp_path):
    sample = ROOT / "sample_data" / "synth-100k-like" / "u.data"
    if not sample.exists():
        pytest.skip("sample_data/synth-100k-like/u.data not generated")
    generated = tmp_path / "u.data"
    from trecrs.data.synthetic import write_synthetic

    write_synthetic(tmp_path, 300, 600, seed=42)
    assert generated.read_bytes() == sample.read_bytes()


def test_ml100k_splits_bad_input_writes_nothing(tmp_path):
    src = tmp_path / "u.data"
    src.write_text("1\t2\t3\t4\n1\t2\t5\t5\n")
    proc = run_command("datasets", "ml100k-splits", src, tmp_path / "out")
    assert proc.returncode == 3
    assert "u.data:2: duplicate rating for user '1', item '2': lines 1 and 2" in proc.stderr
    assert not (tmp_path / "out").exists()
