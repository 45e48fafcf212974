"""The five methodologies' candidates: hand examples, ML-100K u1 against independent set computations,
One-Plus-Random's scale, reproducibility and independence of other users, and bad splits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from tests.conftest import run_command, run_in_process
from trecrs.errors import InputError, UsageError
from trecrs.files.candidates import read_items
from trecrs.protocol.candidates import METHODOLOGIES, candidates, methodology_qrels

# ---------------------------------------------------------------- a hand-made split
#   items 1..6; catalogue adds 7
#   train: a {1, 2}, b {2, 3}, c {5}       test: a {3: 5, 4: 2}, b {1: 5}, d {2: 4}
TRAIN = pl.DataFrame(
    {
        "user": ["a", "a", "b", "b", "c"],
        "item": ["1", "2", "2", "3", "5"],
        "rating": [4.0, 3.0, 5.0, 1.0, 2.0],
    }
)
TEST = pl.DataFrame(
    {"user": ["a", "a", "b", "d"], "item": ["3", "4", "1", "2"], "rating": [5.0, 2.0, 5.0, 4.0]}
)


def pairs(df: pl.DataFrame) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for q, _, i in df.rows():
        out.setdefault(q, []).append(i)
    return out


def test_hand_example_every_methodology():
    assert pairs(candidates("test-ratings", TRAIN, TEST)) == {"a": ["3", "4"], "b": ["1"], "d": ["2"]}
    # test items {1, 2, 3, 4} minus Tr_u
    assert pairs(candidates("test-items", TRAIN, TEST)) == {
        "a": ["3", "4"],
        "b": ["1", "4"],
        "d": ["1", "2", "3", "4"],
    }
    # items rated in train by another user: a: {2,3,5} \ {1,2}; b: {1,2,5} \ {2,3}; d: {1,2,3,5}
    assert pairs(candidates("training-items", TRAIN, TEST)) == {
        "a": ["3", "5"],
        "b": ["1", "5"],
        "d": ["1", "2", "3", "5"],
    }
    assert pairs(candidates("all-items", TRAIN, TEST)) == {
        "a": ["3", "4", "5"],
        "b": ["1", "4", "5"],
        "d": ["1", "2", "3", "4", "5"],
    }
    assert pairs(candidates("all-items", TRAIN, TEST, items=list("1234567")))["a"] == [
        "3",
        "4",
        "5",
        "6",
        "7",
    ]
    # One-Plus-Random, N=2 from I minus everything u rated: cases (a,3) and (b,1)
    opr = candidates("one-plus-random", TRAIN, TEST, n=2, seed=1)
    got = pairs(opr)
    assert list(got) == ["a:3", "b:1"]
    assert set(got["a:3"]) - {"3"} == {"5"}  # a rated 1,2,3,4: only 5 is left, fewer than N
    assert "1" in got["b:1"] and len(got["b:1"]) == 3 and set(got["b:1"]) <= {"1", "4", "5"}
    assert opr.get_column("user").to_list() == ["a", "a", "b", "b", "b"]


def test_trained_only_item_of_the_user_is_not_a_training_item():
    """TrainingItems = ∪_{v≠u} Tr_v \\ Tr_u: an item only c rated in train is a candidate for others only."""
    got = pairs(candidates("training-items", TRAIN, TEST))
    assert "5" in got["a"] and "5" in got["d"]


def test_id_order_is_natural_and_numbering_stable():
    train = pl.DataFrame({"user": ["10", "9"], "item": ["100", "20"], "rating": [1.0, 1.0]})
    test = pl.DataFrame({"user": ["10", "9", "9"], "item": ["3", "100", "3"], "rating": [1.0, 1.0, 1.0]})
    got = candidates("all-items", train, test)
    assert got.rows() == [("9", "9", "3"), ("9", "9", "100"), ("10", "10", "3"), ("10", "10", "20")]


@pytest.mark.parametrize("name", list(METHODOLOGIES))
def test_chunking_does_not_change_candidates(name):
    whole = candidates(name, TRAIN, TEST, n=2, seed=0)
    tiny = candidates(name, TRAIN, TEST, n=2, seed=0, chunk_rows=1)
    assert whole.equals(tiny)


def test_bad_splits():
    with pytest.raises(InputError, match="in both the training and the test"):
        candidates("all-items", TRAIN, pl.concat([TEST, TRAIN.head(1)]))
    with pytest.raises(InputError, match="test set is empty"):
        candidates("all-items", TRAIN, TEST.head(0))
    with pytest.raises(InputError, match="catalogue lacks 1 item"):
        candidates("all-items", TRAIN, TEST, items=["1", "2", "3", "4"])
    with pytest.raises(InputError, match="duplicate rating"):
        candidates("all-items", pl.concat([TRAIN, TRAIN.head(1)]), TEST)
    with pytest.raises(InputError, match="lacks column"):
        candidates("all-items", TRAIN.drop("item"), TEST)
    with pytest.raises(UsageError, match="unknown methodology 'random'"):
        candidates("random", TRAIN, TEST)
    with pytest.raises(UsageError, match="highly-relevant threshold 6"):
        candidates("one-plus-random", TRAIN, TEST, relevant_threshold=6, seed=0)
    with pytest.raises(UsageError, match="give a seed"):
        candidates("one-plus-random", TRAIN, TEST)


def test_one_plus_random_long_tail():
    # training popularity: 2 (a, b) holds 2 of 5 ratings = 40% >= 33%: the short head is {2}
    cs = candidates(
        "one-plus-random",
        TRAIN,
        pl.concat([TEST, pl.DataFrame({"user": ["c"], "item": ["2"], "rating": [5.0]})]),
        n=2,
        seed=0,
        long_tail=0.33,
    )
    assert cs.get_column("query").unique(maintain_order=True).to_list() == ["a:3", "b:1"]  # not c:2
    q = methodology_qrels("one-plus-random", TRAIN, TEST, long_tail=0.33, relevant_threshold=4)
    assert q.qrels.get_column("query").to_list() == ["a:3", "b:1"]  # d:2 (rated 4) is short head
    with pytest.raises(UsageError, match="long-tail filter needs the training"):
        methodology_qrels("one-plus-random", None, TEST, long_tail=0.33)


def test_read_items_formats(tmp_path):
    (tmp_path / "u.item").write_text("1|Toy Story (1995)|01-Jan-1995\n2|GoldenEye (1995)|x\n")
    (tmp_path / "movies.csv").write_text('movieId,title,genres\n1,"Toy Story, The",Comedy\n7,X,Y\n')
    (tmp_path / "movies.dat").write_text("1::Toy Story (1995)::Animation\n3::Z::W\n")
    (tmp_path / "list").write_text("a\nb\na\nx:y\n")  # a single colon is part of an id
    assert read_items(tmp_path / "u.item").to_list() == ["1", "2"]
    assert read_items(tmp_path / "movies.csv").to_list() == ["1", "7"]
    assert read_items(tmp_path / "movies.dat").to_list() == ["1", "3"]
    assert read_items(tmp_path / "list").to_list() == ["a", "b", "x:y"]


# ---------------------------------------------------------------- ML-100K u1 against plain Python sets


@pytest.fixture(scope="module")
def u1():
    from tests.conftest import ML100K, need

    need(ML100K / "u1.base")
    cols = ["user", "item", "rating", "timestamp"]
    read = lambda f: pd.read_csv(ML100K / f, sep="\t", names=cols, dtype={"user": str, "item": str})  # noqa: E731
    return read("u1.base"), read("u1.test"), read("u.data")


def expected_sets(train: pd.DataFrame, test: pd.DataFrame) -> dict[str, dict[str, set]]:
    tr = train.groupby("user")["item"].apply(set).to_dict()
    te = test.groupby("user")["item"].apply(set).to_dict()
    test_items, train_items = set(test["item"]), set(train["item"])
    all_items = test_items | train_items
    out = {"test-ratings": {}, "test-items": {}, "training-items": {}, "all-items": {}}
    for u in te:
        mine = tr.get(u, set())
        others = set().union(*(s for v, s in tr.items() if v != u))
        out["test-ratings"][u] = te[u]
        out["test-items"][u] = test_items - mine
        out["training-items"][u] = others - mine
        out["all-items"][u] = all_items - mine
    return out


def as_sets(df: pl.DataFrame) -> dict[str, set]:
    g = df.group_by("query").agg(pl.col("item"))
    return {q: set(items) for q, items in g.rows()}


def test_u1_candidates_match_set_definitions(u1):
    train, test, _ = u1
    expected = expected_sets(train, test)
    counts = {}
    for name, exp in expected.items():
        got = candidates(name, pl.from_pandas(train), pl.from_pandas(test))
        assert got.get_column("query").equals(got.get_column("user"))
        assert as_sets(got) == exp, name
        counts[name] = got.height
    # user 1: u1.test items not in user 1's training ratings
    user1 = set(test[test.user == "1"].item)
    assert len(user1) == 137 and expected["test-ratings"]["1"] == user1
    assert counts == {
        "test-ratings": 20000,
        "test-items": 615104,
        "training-items": 724883,
        "all-items": 739571,
    }


def test_u1_one_plus_random(u1, tmp_path):
    """4,457 five-star test ratings -> 4,457 queries of 1,001 candidates (fewer where u rated > 682 items)."""
    train, test, _ = u1
    got = candidates("one-plus-random", pl.from_pandas(train), pl.from_pandas(test), n=1000, seed=42)
    rated = pd.concat([train, test]).groupby("user")["item"].apply(set).to_dict()
    catalogue = set(train.item) | set(test.item)
    cases = test[test.rating >= 5]
    assert len(cases) == 4457
    per_query = as_sets(got)
    assert len(per_query) == 4457
    full = 0
    for u, i in zip(cases.user, cases.item, strict=True):
        items = per_query[f"{u}:{i}"]
        drawn = items - {i}
        assert i in items and not drawn & rated[u] and drawn <= catalogue
        assert len(drawn) == min(1000, len(catalogue - rated[u]))
        full += len(items) == 1001
    assert full == 4457 - 12  # 12 cases belong to users who rated more than 682 of the 1,682 items
    assert got.height == 4460797
    # qrels: one line (u:i, i, 5) per case
    q = methodology_qrels("one-plus-random", pl.from_pandas(train), pl.from_pandas(test)).qrels
    assert q.height == 4457 and set(q.get_column("rel").to_list()) == {5}
    assert set(zip(q.get_column("query").to_list(), q.get_column("doc").to_list(), strict=True)) == {
        (f"{u}:{i}", i) for u, i in zip(cases.user, cases.item, strict=True)
    }


def test_u1_one_plus_random_test_pool(u1):
    train, test, _ = u1
    got = candidates(
        "one-plus-random", pl.from_pandas(train), pl.from_pandas(test), pool="test", n=1000, seed=1
    )
    assert set(got.get_column("item").to_list()) <= set(test.item)
    assert got.get_column("query").n_unique() == 4457


def test_u1_one_plus_random_draws_are_seeded_and_per_case(u1):
    train, test, data = u1
    catalogue = sorted(set(data.item))
    full = candidates(
        "one-plus-random", pl.from_pandas(train), pl.from_pandas(test), catalogue, n=100, seed=7
    )
    again = candidates(
        "one-plus-random",
        pl.from_pandas(train.sample(frac=1, random_state=0)),
        pl.from_pandas(test.sample(frac=1, random_state=1)),
        catalogue,
        n=100,
        seed=7,
    )
    assert full.equals(again)  # input order is irrelevant
    other = candidates(
        "one-plus-random", pl.from_pandas(train), pl.from_pandas(test), catalogue, n=100, seed=8
    )
    a, b = as_sets(full), as_sets(other)
    assert a.keys() == b.keys()
    assert sum(a[q] == b[q] for q in a) == 0  # another seed: every draw differs
    # drop two thirds of the users: the remaining users' draws are unchanged
    keep = {u for u in test.user.unique() if int(u) % 3 == 0}
    sub = candidates(
        "one-plus-random",
        pl.from_pandas(train[train.user.isin(keep)]),
        pl.from_pandas(test[test.user.isin(keep)]),
        catalogue,
        n=100,
        seed=7,
    )
    s = as_sets(sub)
    assert s and all(a[q] == s[q] for q in s)
    # without a catalogue the pool shrinks to the remaining users' items; draws change only where a
    # drawn item left the pool
    sub2 = as_sets(
        candidates(
            "one-plus-random",
            pl.from_pandas(train[train.user.isin(keep)]),
            pl.from_pandas(test[test.user.isin(keep)]),
            n=100,
            seed=7,
        )
    )
    pool = set(train[train.user.isin(keep)].item) | set(test[test.user.isin(keep)].item)
    assert all(sub2[q] == a[q] for q in sub2 if a[q] <= pool)


def test_draws_are_roughly_uniform():
    """Every unrated item is equally likely: 2,000 cases drawing 10 of 50 items -> each item ~400 times."""
    users = [f"u{k}" for k in range(2000)]
    test = pl.DataFrame({"user": users, "item": ["0"] * 2000, "rating": [5.0] * 2000})
    train = pl.DataFrame({"user": ["z"] * 50, "item": [str(k) for k in range(50)], "rating": [1.0] * 50})
    got = candidates("one-plus-random", train, test, n=10, seed=3).filter(pl.col("item") != "0")
    counts = got.group_by("item").len().get_column("len").to_numpy()
    assert counts.size == 49 and counts.sum() == 20000
    expected = 20000 / 49
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 90  # 48 degrees of freedom: p ~ 2e-4


def test_cli_candidates_reproducible_files(tmp_path):
    rng = np.random.default_rng(5)
    lines = {
        (int(u), int(i)): int(r)
        for u, i, r in zip(
            rng.integers(1, 30, 600), rng.integers(1, 80, 600), rng.integers(1, 6, 600), strict=True
        )
    }
    rows = [f"{u}\t{i}\t{r}\t0" for (u, i), r in sorted(lines.items())]
    (tmp_path / "tr").write_text("\n".join(rows[::2]) + "\n")
    (tmp_path / "te").write_text("\n".join(rows[1::2]) + "\n")
    outs = []
    for k, seed in enumerate([4, 4, 5]):
        out = tmp_path / f"p{k}"
        proc = run_command(
            "candidates",
            "--methodology",
            "one-plus-random",
            "--train",
            tmp_path / "tr",
            "--test",
            tmp_path / "te",
            "--n",
            "20",
            "--seed",
            seed,
            "-o",
            out,
        )
        assert proc.returncode == 0, proc.stderr
        assert "one-plus-random:" in proc.stderr and "candidate pairs" in proc.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0] != outs[2]
    assert (tmp_path / "p0.manifest.json").read_text() == (tmp_path / "p1.manifest.json").read_text().replace(
        "p1", "p0"
    )
    first = outs[0].decode().splitlines()[0].split("\t")
    assert first[0] == f"{first[1]}:{first[2]}"  # the case item is listed, query = user:item


# ---------------------------------------------------------------- the paper's abbreviations
ABBREVIATIONS = {
    "TR": "test-ratings",
    "TeI": "test-items",
    "TrI": "training-items",
    "AI": "all-items",
    "1R": "one-plus-random",
    "OPR": "one-plus-random",
}


@pytest.mark.parametrize("abbr", sorted(ABBREVIATIONS))
def test_abbreviations_name_the_methodology_in_any_case(abbr):
    """Bellogín et al. 2011's short names (Figure 2) give the same candidates and qrels as the full names."""
    name = ABBREVIATIONS[abbr]
    assert METHODOLOGIES[name].abbreviations.count(abbr) == 1
    want = candidates(name, TRAIN, TEST, n=2, seed=1)
    for spelling in (abbr, abbr.lower(), abbr.upper()):
        assert candidates(spelling, TRAIN, TEST, n=2, seed=1).equals(want)
    rule = {} if METHODOLOGIES[name].per_case else {"threshold": 4}
    want_qrels = methodology_qrels(name, TRAIN, TEST, **rule).qrels
    assert methodology_qrels(abbr.swapcase(), TRAIN, TEST, **rule).qrels.equals(want_qrels)
    assert candidates(name.upper(), TRAIN, TEST, n=2, seed=1).equals(want)


def test_unknown_methodology_lists_names_and_abbreviations():
    with pytest.raises(
        UsageError,
        match=r"unknown methodology 'T'; choose from test-ratings \(TR\), .*"
        r"one-plus-random \(1R, OPR\)",
    ):
        candidates("T", TRAIN, TEST)


@pytest.mark.parametrize("abbr", sorted(ABBREVIATIONS))
def test_cli_accepts_abbreviations_and_records_the_name(tmp_path, abbr):
    """candidates, qrels and run take the abbreviation; each manifest records the registry name (in-process:
    test_cli_candidates_reproducible_files is the round trip through a process)."""
    import json

    train, test = tmp_path / "train.tsv", tmp_path / "test.tsv"
    train.write_text("".join(f"{u}\t{i}\t{r}\n" for u, i, r in TRAIN.rows()))
    test.write_text("".join(f"{u}\t{i}\t{r}\n" for u, i, r in TEST.rows()))
    name = ABBREVIATIONS[abbr]
    split = ["--train", train, "--test", test, "--n", "2", "--seed", "1"]
    for spelling, out in ((abbr.lower(), "short"), (name, "long")):
        proc = run_in_process(
            "candidates", "--methodology", spelling, *split, "-o", tmp_path / f"{out}.pairs"
        )
        assert proc.returncode == 0, proc.stderr
        rule = [] if METHODOLOGIES[name].per_case else ["--threshold", "1"]
        proc = run_in_process(
            "qrels",
            "--methodology",
            spelling,
            "--train",
            train,
            "--test",
            test,
            *rule,
            "-o",
            tmp_path / f"{out}.qrels",
        )
        assert proc.returncode == 0, proc.stderr
    scores = tmp_path / "s.txt"
    scores.write_text(
        "".join(
            f"{u}\t{i}\t{k}\n"
            for k, (_, u, i) in enumerate(candidates(name, TRAIN, TEST, n=2, seed=1).rows())
        )
    )
    proc = run_in_process("run", "--methodology", abbr, *split, "--scores", scores, "-o", tmp_path / "r.run")
    assert proc.returncode == 0, proc.stderr
    for suffix in ("pairs", "qrels"):
        assert (tmp_path / f"short.{suffix}").read_bytes() == (tmp_path / f"long.{suffix}").read_bytes()
    for path in ("short.pairs", "short.qrels", "r.run"):
        manifest = json.loads((tmp_path / f"{path}.manifest.json").read_text())
        assert manifest["parameters"]["methodology"] == name, path
    assert len((tmp_path / "r.run").read_text().splitlines()) == len(
        (tmp_path / "long.pairs").read_text().splitlines()
    )
    help_text = run_in_process("run", "--help").stdout
    assert "one-plus-random (1R, OPR)" in " ".join(help_text.split())


@pytest.mark.parametrize("methodology", ["test-ratings", "all-items", "one-plus-random"])
def test_candidate_set_takes_an_indexed_split_as_it_is(methodology):
    """An IndexedSplit has .train/.test too (integer codes): it must not be read as a Split of ratings."""
    from trecrs.data.splits import Split
    from trecrs.protocol.candidates import candidate_set, make_split

    opts = dict(n=2, seed=7, relevant_threshold=5.0)
    want = candidates(methodology, TRAIN, TEST, **opts)
    indexed = make_split(TRAIN, TEST)
    assert candidate_set(methodology, indexed, **opts).split is indexed
    assert candidate_set(methodology, indexed, **opts).frame().equals(want)
    assert candidates(methodology, Split(TRAIN, TEST, ""), **opts).equals(want)
