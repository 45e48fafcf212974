"""Splitters: real counts and invariants on MovieLens 100K and the synthetic sample, hand-computed cases,
determinism, file layouts, and bad inputs (exit 2, no partial files)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl
import pytest

from trecrs.data.split_files import output_extension
from trecrs.data.splits import SPLITTERS, round_half_up, split
from trecrs.errors import UsageError
from trecrs.files.ratings import read_ratings

from ..conftest import ROOT, run_command, run_in_process

SAMPLE = ROOT / "sample_data" / "synth-100k-like" / "u.data"
KEY = ["user", "item"]


@pytest.fixture(scope="module")
def sample() -> pl.DataFrame:
    return read_ratings(SAMPLE)


@pytest.fixture(scope="module")
def udata() -> pl.DataFrame:
    from ..conftest import ML100K, need

    return read_ratings(need(ML100K / "u.data"))


def pairs(df: pl.DataFrame) -> set[tuple[str, str]]:
    return set(df.select(KEY).iter_rows())


def small() -> pl.DataFrame:
    """Hand-made ratings: user a has 7, b has 2, c has 1 (timestamps with a tie for a)."""
    rows = [
        ("a", "1", 5.0, 10), ("a", "2", 3.0, 30), ("b", "1", 4.0, 5), ("a", "3", 4.0, 20),
        ("a", "4", 1.0, 70), ("a", "5", 2.0, 70), ("c", "9", 5.0, 1), ("a", "6", 5.0, 40),
        ("b", "2", 2.0, 6), ("a", "7", 4.0, 50),
    ]  # fmt: skip
    return pl.DataFrame(
        rows,
        schema={"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64, "timestamp": pl.Int64},
        orient="row",
    )


# the least each method needs besides a seed
MINIMAL_OPTIONS = {"per-user": {"given": 1}, "temporal": {"ratio": 0.2},
                   "probe": {"ratio": 0.5, "threshold": 1}}  # fmt: skip


@pytest.mark.parametrize("method", list(SPLITTERS))
def test_every_registered_method_splits_and_is_a_cli_choice(method, cli):
    everything = pairs(small())
    for fold in split(small(), method, seed=1, **MINIMAL_OPTIONS.get(method, {})):
        train, test = pairs(fold.train), pairs(fold.test)
        assert test and not (train & test) and train | test == everything
    code, out, _ = cli("split", "--method", method, "--help")  # argparse checks the choice, then prints help
    assert code == 0 and SPLITTERS[method].doc in out


def test_an_unregistered_method_is_refused(cli):
    with pytest.raises(UsageError, match="unknown split method"):
        split(small(), "nope", seed=1)
    code, _, err = cli("split", "--method", "nope", "--help")
    assert code == 2 and "invalid choice" in err


def test_round_half_up_is_exact():
    assert round_half_up("0.014", 100_000) == 1400
    assert round_half_up(0.014, 22_093) == 309  # 309.302
    assert round_half_up(0.25, 2) == 1  # 0.5 rounds up
    assert round_half_up(0.25, 6) == 2  # 1.5 rounds up
    assert round_half_up(Fraction(1, 3), 4) == 1
    assert list(round_half_up(0.2, np.array([7, 2, 1]))) == [1, 0, 0]


# ------------------------------------------------------------------------------------------ kfold, holdout


def test_kfold_on_u_data_disjoint_covering(udata):
    folds = split(udata, "kfold", seed=1, folds=5)
    assert [f.name for f in folds] == ["fold1", "fold2", "fold3", "fold4", "fold5"]
    everything = pairs(udata)
    seen: set = set()
    for f in folds:
        assert f.test.height == 20_000 and f.train.height == 80_000
        t = pairs(f.test)
        assert not (t & seen)  # disjoint test folds
        seen |= t
        assert pairs(f.train) == everything - t  # train = all other folds
    assert seen == everything


def test_kfold_uneven_sizes_and_row_order(sample):
    folds = split(sample, "kfold", seed=5, folds=7)
    sizes = sorted(f.test.height for f in folds)
    assert sum(sizes) == sample.height == 22_093
    assert sizes[-1] - sizes[0] == 1  # 22093 = 7 * 3156 + 1
    # Each part keeps the input's row order.
    pos = {p: i for i, p in enumerate(sample.select(KEY).iter_rows())}
    for part in (folds[0].train, folds[0].test):
        idx = [pos[p] for p in part.select(KEY).iter_rows()]
        assert idx == sorted(idx)


def test_holdout_exact_size(sample):
    (s,) = split(sample, "holdout", seed=3, ratio=0.2)
    assert s.test.height == round_half_up("0.2", 22_093) == 4419  # 4418.6
    assert s.train.height == 22_093 - 4419
    assert not (pairs(s.train) & pairs(s.test))
    assert pairs(s.train) | pairs(s.test) == pairs(sample)


def test_seed_determinism_and_sensitivity(sample):
    a = split(sample, "holdout", seed=11)[0]
    b = split(sample, "holdout", seed=11)[0]
    c = split(sample, "holdout", seed=12)[0]
    assert a.test.equals(b.test) and a.train.equals(b.train)
    assert not a.test.equals(c.test)
    assert len(pairs(a.test) & pairs(c.test)) < 0.4 * a.test.height  # independent draws overlap ~20%


# ------------------------------------------------------------------------------------------ per-user


def test_per_user_given_n_counts(udata):
    (s,) = split(udata, "per-user", seed=2, given=10)
    per_user = s.train.group_by("user").len()
    assert per_user.height == 943 and per_user["len"].unique().to_list() == [10]
    assert s.train.height == 9430 and s.test.height == 100_000 - 9430
    # The test part of each user is all the user's other ratings.
    n_u = udata.group_by("user").len().rename({"len": "n"})
    t_u = s.test.group_by("user").len().join(n_u, on="user")
    assert (t_u["len"] == t_u["n"] - 10).all()


def test_per_user_all_but_n_and_short_users():
    (s,) = split(small(), "per-user", seed=0, all_but=2)
    counts = dict(s.test.group_by("user").len().iter_rows())
    assert counts == {"a": 2}  # b has 2 ratings and c has 1: both kept whole in train
    assert s.report == {"users with <= 2 ratings (all kept in train)": 2}
    (g,) = split(small(), "per-user", seed=0, given=1)
    assert dict(g.train.group_by("user").len().iter_rows()) == {"a": 1, "b": 1, "c": 1}
    assert g.test.height == 6 + 1


def test_per_user_ratio_rounding():
    # a: 7 ratings * 0.25 = 1.75 -> 2; b: 2 * 0.25 = 0.5 -> 1 (half up); c: 1 * 0.25 -> 0 (kept in train).
    (s,) = split(small(), "per-user", seed=4, ratio=0.25)
    assert dict(s.test.group_by("user").len().iter_rows()) == {"a": 2, "b": 1}
    assert s.report == {"users whose share rounds to 0 test ratings (all kept in train)": 1}


# ------------------------------------------------------------------------------------------ temporal, loo


def test_temporal_global_ratio_and_cut(udata):
    (s,) = split(udata, "temporal", ratio=0.2)
    assert s.test.height == 20_000
    assert s.train["timestamp"].max() <= s.test["timestamp"].min()
    (c,) = split(udata, "temporal", cut=890_000_000)
    assert c.train["timestamp"].max() < 890_000_000 <= c.test["timestamp"].min()
    assert c.train.height + c.test.height == 100_000


def test_temporal_per_user_last_n(udata):
    (s,) = split(udata, "temporal", last=5)
    assert s.test.group_by("user").len()["len"].unique().to_list() == [5]
    bounds = (
        s.train.group_by("user")
        .agg(pl.col("timestamp").max().alias("tr"))
        .join(s.test.group_by("user").agg(pl.col("timestamp").min().alias("te")), on="user")
    )
    assert (bounds["tr"] <= bounds["te"]).all()


def test_temporal_ties_by_file_order():
    # User a's two latest ratings tie at ts 70 (items 4, 5; item 5 is the later line): last=1 takes item 5.
    (s,) = split(small(), "temporal", last=1)
    assert sorted(s.test.select(KEY).iter_rows()) == [("a", "5"), ("b", "2")]
    (g,) = split(small(), "temporal", ratio=0.2)  # 2 of 10: the two ratings at ts 70
    assert sorted(g.test.select(KEY).iter_rows()) == [("a", "4"), ("a", "5")]
    (g,) = split(small(), "temporal", ratio=0.1)  # 1 of 10: of the tie, the later line
    assert g.test.select(KEY).rows() == [("a", "5")]


def test_loo_latest_and_random():
    (s,) = split(small(), "loo", pick="latest")
    assert sorted(s.test.select(KEY).iter_rows()) == [("a", "5"), ("b", "2")]
    assert s.report == {"users with a single rating (kept in train)": 1}
    (r,) = split(small(), "loo", seed=9)
    assert sorted(r.test["user"].to_list()) == ["a", "b"]
    assert r.train.height == 8


def test_loo_on_sample_one_per_user(sample):
    (s,) = split(sample, "loo", seed=1)
    assert s.test.height == 300 and s.test["user"].n_unique() == 300


# ------------------------------------------------------------------------------------------ probe


def test_probe_cremonesi_on_u_data(udata):
    (s,) = split(udata, "probe", seed=7, ratio="0.014", threshold=5)
    assert s.report["probe size"] == 1400  # round(1.4% of 100,000)
    assert s.train.height == 100_000 - 1400  # train = every rating not in the probe
    assert (s.test["rating"] >= 5).all()
    assert s.test.height + s.report["probe ratings below 5 (in neither train nor test)"] == 1400
    assert not (pairs(s.train) & pairs(s.test))
    # About a fifth of ML-100K's ratings are 5 stars, so the test set is about 0.212 * 1400.
    assert 230 < s.test.height < 360


def test_probe_defaults_on_sample(sample):
    (s,) = split(sample, "probe", seed=1)
    assert s.report["probe size"] == 309
    assert s.train.height == sample.height - 309


# ------------------------------------------------------------------------------------------ CLI


def test_cli_kfold_files_layout_and_determinism(tmp_path):
    for name in ("a", "b"):
        proc = run_command("split", "--method", "kfold", "--folds", 3, "--seed", 4, SAMPLE, tmp_path / name)
        assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in (tmp_path / "a").iterdir() if not p.name.endswith(".json"))
    assert names == ["fold1.test", "fold1.train", "fold2.test", "fold2.train", "fold3.test", "fold3.train"]
    for n in names:
        assert (tmp_path / "a" / n).read_bytes() == (tmp_path / "b" / n).read_bytes()
        assert (tmp_path / "a" / (n + ".manifest.json")).is_file()
    # u.data layout: user TAB item TAB rating TAB timestamp, integral stars.
    first = (tmp_path / "a" / "fold1.test").read_text().split("\n")[0].split("\t")
    assert len(first) == 4 and first[2] in {"1", "2", "3", "4", "5"}
    import json

    m = json.loads((tmp_path / "a" / "fold2.train.manifest.json").read_text())
    assert (
        m["parameters"]["method"] == "kfold" and m["parameters"]["seed"] == 4 and m["parameters"]["fold"] == 2
    )
    assert len(m["inputs"]["ratings"]["sha256"]) == 64


def test_cli_seed_changes_files(tmp_path):
    for seed in (1, 2):
        assert (
            run_in_process(
                "split", "--method", "holdout", "--seed", seed, SAMPLE, tmp_path / str(seed)
            ).returncode
            == 0
        )
    assert (tmp_path / "1" / "test").read_bytes() != (tmp_path / "2" / "test").read_bytes()


@pytest.mark.parametrize(
    "name,text,out_name,first_line",
    [
        (
            "ratings.csv",
            "userId,movieId,rating,timestamp\n1,2,3.5,10\n1,3,4.0,11\n2,2,5.0,12\n2,4,1.5,13\n",
            "train.csv",
            "userId,movieId,rating,timestamp",
        ),
        ("ratings.dat", "1::2::3::10\n1::3::4::11\n2::2::5::12\n2::4::1::13\n", "train.dat", None),
    ],
)
def test_cli_keeps_input_layout(tmp_path, cli, name, text, out_name, first_line):
    src = tmp_path / name
    src.write_text(text)
    code, _, err = cli("split", "--method", "loo", "--pick", "latest", src, tmp_path / "out")
    assert code == 0, err
    out = (tmp_path / "out" / out_name).read_text().split("\n")
    if first_line:
        assert out[0] == first_line and out[1] == "1,2,3.5,10"
    else:
        assert out[0] == "1::2::3::10"
    assert output_extension("ratings.csv.gz") == ".csv.gz" and output_extension("u.data") == ""


def test_cli_report_notes_dropped(tmp_path, cli):
    code, _, err = cli("split", "--method", "probe", "--seed", 1, SAMPLE, tmp_path / "o")
    assert code == 0
    assert "probe size: 309" in err and "in neither train nor test" in err


# ------------------------------------------------------------------------------------------ bad inputs


def assert_failed_without_files(proc, out_dir, message):
    assert proc.returncode == 3, proc.stderr
    assert message in proc.stderr
    assert not out_dir.exists() or not any(out_dir.iterdir())


def test_bad_missing_column(tmp_path):
    src = tmp_path / "r.csv"
    src.write_text("userId,movieId,timestamp\n1,2,3\n")
    proc = run_command("split", "--method", "holdout", "--seed", 1, src, tmp_path / "out")
    assert_failed_without_files(proc, tmp_path / "out", "r.csv: missing column(s) rating")


def test_bad_non_numeric_rating(tmp_path):
    src = tmp_path / "u.data"
    src.write_text("1\t2\t3\t4\n1\t3\tx\t5\n")
    proc = run_in_process("split", "--method", "holdout", "--seed", 1, src, tmp_path / "out")
    assert_failed_without_files(proc, tmp_path / "out", "u.data:2: rating is not a number: 'x'")


def test_bad_duplicates_then_dedupe(tmp_path):
    src = tmp_path / "u.data"
    src.write_text("1\t2\t3\t4\n1\t3\t4\t5\n2\t2\t1\t6\n1\t2\t5\t7\n2\t3\t2\t8\n")
    proc = run_in_process("split", "--method", "loo", "--pick", "latest", src, tmp_path / "out")
    assert_failed_without_files(
        proc, tmp_path / "out", "u.data:4: duplicate rating for user '1', item '2': lines 1 and 4"
    )
    proc = run_in_process(
        "split", "--method", "loo", "--pick", "latest", "--dedupe", "last", src, tmp_path / "out"
    )
    assert proc.returncode == 0, proc.stderr
    assert "1 duplicate rating row(s) merged" in proc.stderr
    assert (tmp_path / "out" / "test").read_text() == "1\t2\t5\t7\n2\t3\t2\t8\n"


def test_bad_options(tmp_path, cli):
    out = tmp_path / "out"
    code, _, err = cli("split", "--method", "holdout", SAMPLE, out)
    assert code == 2 and "give a seed" in err
    code, _, err = cli("split", "--method", "holdout", "--seed", 1, "--given", 3, SAMPLE, out)
    assert code == 2 and "does not take --given" in err
    code, _, err = cli("split", "--method", "probe", "--seed", 1, "--threshold", 6, SAMPLE, out)
    assert code == 4 and "leaves the test set empty" in err
    code, _, err = cli("split", "--method", "holdout", "--seed", 1, "--ratio", "1.5", SAMPLE, out)
    assert code == 2 and "strictly between 0 and 1" in err
    assert not out.exists()


def test_temporal_needs_timestamps(tmp_path):
    src = tmp_path / "r.txt"
    src.write_text("1 2 3\n1 3 4\n")
    with pytest.raises(UsageError, match="orders ratings by time"):
        split(read_ratings(src), "temporal", last=1)


def test_cli_parquet_in_parquet_out_keeps_column_names(tmp_path, sample):
    src = tmp_path / "r.parquet"
    sample.rename({"user": "userId", "item": "movieId"}).write_parquet(src)
    proc = run_in_process("split", "--method", "holdout", "--seed", 1, src, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    test = pl.read_parquet(tmp_path / "out" / "test.parquet")
    assert test.columns == ["userId", "movieId", "rating", "timestamp"]
    assert test.height == 4419
    assert read_ratings(tmp_path / "out" / "train.parquet").height == 22_093 - 4419


# every method and option the command line offers, each against the straightforward reference
REFERENCE_CASES = [
    ("holdout", {"ratio": "0.2"}), ("kfold", {"folds": 3}), ("per-user", {"ratio": "0.3"}),
    ("per-user", {"given": 3}), ("per-user", {"all_but": 2}), ("temporal", {"cut": 6}),
    ("temporal", {"ratio": "0.25"}), ("temporal", {"last": 2}), ("temporal", {"last_ratio": "0.4"}),
    ("loo", {"pick": "random"}), ("loo", {"pick": "latest"}), ("probe", {"ratio": "0.3", "threshold": 4}),
]  # fmt: skip


def tied_ratings(seed: int, numeric: bool) -> pl.DataFrame:
    """Random ratings of 40 users (1 to 25 each, so some too few to split) with half-star ratings and
    only 12 distinct timestamps, so users' ratings tie in time everywhere. ``numeric``: user ids are plain
    numbers (the splitter codes them by value), else names (coded by polars' categoricals)."""
    rng = np.random.default_rng(seed)
    rows = []
    for u in rng.permutation(40):
        name = str(u) if numeric else f"u{u}"
        for i in rng.choice(60, size=int(rng.integers(1, 26)), replace=False):
            rows.append((name, str(i), float(rng.integers(1, 11)) / 2, int(rng.integers(0, 12))))
    order = rng.permutation(len(rows))  # users interleaved in file order
    return pl.DataFrame(
        [rows[k] for k in order], schema=["user", "item", "rating", "timestamp"], orient="row"
    )


@pytest.mark.parametrize(("method", "options"), REFERENCE_CASES)
@pytest.mark.parametrize(("seed", "name"), [(3, "u.data"), (11, "ratings.dat")])
@pytest.mark.parametrize("coded", [False, True], ids=["small", "coded"])
def test_split_files_match_the_straightforward_reference(
    method, options, seed, name, coded, tmp_path, monkeypatch
):
    """``coded``: the file is read as a large one, its ids coded as numbers (ratings.dat's plain
    decimals) or, when they are names (u.data here), as text after the coded parse refuses them."""
    from trecrs.data.split_files import split_file
    from trecrs.files import ratings_fast
    from trecrs.files.ratings_format import ratings_format

    if coded:
        monkeypatch.setattr(ratings_fast, "CODED_MIN_BYTES", 0)

    from .split_reference import reference_split, reference_text

    ratings = tied_ratings(seed, numeric=name == "ratings.dat")
    src = tmp_path / name
    fmt = ratings_format(src, "ml100k" if name == "u.data" else "ml1m")
    src.write_bytes(reference_text(ratings, fmt))
    splits, paths = split_file(src, tmp_path / "out", method, seed=seed, **options)
    want = reference_split(read_ratings(src), method, seed, **options)
    assert len(paths) == 2 * len(want)
    for (train, test), s, (p_train, p_test) in zip(
        want, splits, zip(paths[::2], paths[1::2], strict=True), strict=True
    ):
        assert 0 < test.height < ratings.height
        assert p_train.read_bytes() == reference_text(train, fmt)
        assert p_test.read_bytes() == reference_text(test, fmt)
        assert s.train.equals(train) and s.test.equals(test)
        assert s.summary().endswith(f"({test.get_column('user').n_unique()} test users)")


def test_id_codes_are_numbers_only_for_plain_decimals():
    from trecrs.ids import id_codes

    assert id_codes(pl.Series(["9", "10", "99", "100", "10"])).tolist() == [9, 10, 99, 100, 10]
    for ids in (
        ["7", "007", "7"],
        ["+7", "7", "+7"],
        ["-1", "1", "-1"],
        ["a", "b", "a"],
        ["1", "99999", "1"],
    ):
        codes = id_codes(pl.Series(ids)).tolist()  # categorical codes: equal exactly for equal ids
        assert codes[0] == codes[2] != codes[1], ids


def test_id_codes_of_coded_ids_are_their_numbers_or_their_dense_ranks():
    from trecrs.ids import id_codes

    small = pl.Series([9, 10, 99, 9], dtype=pl.UInt32)
    assert id_codes(small).tolist() == [9, 10, 99, 9]
    large = pl.Series([4_000_000_000, 10, 3_000_000_000, 10], dtype=pl.UInt32)  # beyond a count per code
    assert id_codes(large).tolist() == [2, 0, 1, 0]
