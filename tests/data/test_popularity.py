"""The one short-head rule (trecrs.data.popularity) and every place that uses it.

Rule (Cremonesi, Koren & Turrin 2010): items by training popularity descending, ties in natural id order;
the short head is the smallest prefix whose ratings reach share * |train|. The long-tail qrels, the
One-Plus-Random long-tail cases and the head/tail measures must all see the same head.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trecrs
from trecrs.data.popularity import popularity_strata, short_head
from trecrs.errors import UsageError
from trecrs.ids import natural_key
from trecrs.protocol.candidates import candidate_set
from trecrs.protocol.qrels import make_qrels

from ..conftest import ML100K, need


def reference_head(train: pl.DataFrame, share: float) -> set[str]:
    """The rule written out with plain Python: sort, then walk the prefix until the share is reached."""
    counts: dict[str, int] = {}
    for item in train.get_column("item").to_list():
        counts[item] = counts.get(item, 0) + 1
    numeric = all(i.isdigit() and len(i) <= 18 for i in counts)
    order = sorted(counts, key=lambda i: (-counts[i], int(i) if numeric else i.encode()))
    head, held = set(), 0
    for item in order:
        if held >= share * train.height:
            break
        head.add(item)
        held += counts[item]
    return head


def tied_train(seed: int, n_items: int, numeric_ids: bool) -> pl.DataFrame:
    """Ratings whose item counts take few distinct values (many ties), one rating per (user, item)."""
    rng = np.random.default_rng(seed)
    counts = rng.choice([1, 2, 3, 5], size=n_items)
    ids = [str(k) if numeric_ids else f"i{k}" for k in rng.permutation(n_items) * 7 + 1]
    rows = [(f"u{u}", ids[i], 4.0) for i, c in enumerate(counts) for u in range(int(c))]
    return pl.DataFrame(rows, schema={"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64}, orient="row")


def strata_head(train: pl.DataFrame, share: float) -> set[str]:
    return set(
        popularity_strata(train, share).filter(pl.col("stratum") == "head").get_column("item").to_list()
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_items=st.integers(1, 40),
    numeric=st.booleans(),
    share=st.floats(0.01, 0.99),
)
def test_short_head_and_strata_follow_the_rule(seed, n_items, numeric, share):
    train = tied_train(seed, n_items, numeric)
    expected = reference_head(train, share)
    head = short_head(train, share)
    assert set(head.to_list()) == expected
    assert strata_head(train, share) == expected
    # the head comes in popularity order, ties in natural id order
    pop = train.group_by("item").len().rename({"len": "n"})
    order = pop.sort([pl.col("n"), natural_key(pop.get_column("item"))], descending=[True, False])
    assert head.to_list() == order.get_column("item").to_list()[: head.len()]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_consumer_sees_the_same_head(seed):
    """Long-tail qrels, One-Plus-Random long-tail cases and head/tail measures: one head."""
    train = tied_train(seed, 30, numeric_ids=True)
    items = sorted(set(train.get_column("item").to_list()), key=int)
    test = pl.DataFrame(
        {
            "user": ["t1"] * len(items) + ["t2"] * len(items),
            "item": items * 2,
            "rating": [5.0] * (2 * len(items)),
        }
    )
    share = 0.55
    head = reference_head(train, share)
    assert head and len(head) < len(items)

    qrels = make_qrels(test, threshold=1, train=train, long_tail=share).qrels
    assert set(items) - set(qrels.get_column("doc").to_list()) == head

    cases = candidate_set("one-plus-random", train, test, n=2, seed=7, long_tail=share).cases
    case_items = set(items) - {items[i] for i in cases.get_column("_i").to_list()}
    # case item codes index the catalogue of train ∪ test (natural order): the same ids here
    assert case_items == head

    full = make_qrels(test, threshold=1).qrels
    run = full.select("query", "doc", pl.lit(1.0).alias("score"))
    rows = trecrs.evaluate(full, run, ["recall_head", "recall_tail"], train=train, head_share=share).tidy(
        per_query=False
    )
    got = dict(zip(rows.get_column("measure"), rows.get_column("value"), strict=True))
    assert got == {"recall_head": 1.0, "recall_tail": 1.0}
    assert strata_head(train, share) == head


def test_head_share_of_evaluate_moves_items_between_head_and_tail():
    """``head_share`` sets the short head of precision/recall_head/tail exactly as the rule says."""
    # counts 40, 30, 20, 10 (total 100): share 0.3 -> head {a}; 0.5 -> {a, b}; 0.8 -> {a, b, c}
    counts = {"a": 40, "b": 30, "c": 20, "d": 10}
    train = pl.DataFrame(
        [(f"u{j}", i, 3.0) for i, c in counts.items() for j in range(c)],
        schema=["user", "item", "rating"],
        orient="row",
    )
    qrels = pl.DataFrame({"query": ["q"] * 4, "doc": ["a", "b", "c", "d"], "rel": [1, 1, 1, 1]})
    run = pl.DataFrame({"query": ["q"] * 2, "doc": ["b", "d"], "score": [2.0, 1.0]})

    def measures(share: float) -> dict[str, float]:
        rows = trecrs.evaluate(
            qrels, run, ["recall_head", "recall_tail", "precision_head"], train=train, head_share=share
        ).tidy(per_query=False)
        return dict(zip(rows.get_column("measure"), rows.get_column("value"), strict=True))

    # retrieved: b and d; relevant: all four
    assert measures(0.3) == {"recall_head": 0.0, "recall_tail": pytest.approx(2 / 3), "precision_head": 0.0}
    assert measures(0.5) == {"recall_head": 0.5, "recall_tail": 0.5, "precision_head": 0.5}
    assert measures(0.8) == {"recall_head": pytest.approx(1 / 3), "recall_tail": 1.0, "precision_head": 0.5}
    with pytest.raises(UsageError, match="share must be between 0 and 1"):
        measures(1.0)


def test_ml100k_u1_head_at_share_055():
    """On ML-100K u1 the share 0.55 ends inside a tie group: every consumer splits it by item id."""
    from trecrs.files.ratings import read_ratings

    train = read_ratings(need(ML100K / "u1.base"))
    share = 0.55
    head = set(short_head(train, share).to_list())
    assert head == reference_head(train, share) == strata_head(train, share)
    pop = train.group_by("item").len()
    boundary = pop.filter(pl.col("item").is_in(list(head))).get_column("len").min()
    tied = set(pop.filter(pl.col("len") == boundary).get_column("item").to_list())
    # the boundary tie group is split, and by natural (numeric) id order
    assert tied - head and tied & head
    assert max(int(i) for i in tied & head) < min(int(i) for i in tied - head)
