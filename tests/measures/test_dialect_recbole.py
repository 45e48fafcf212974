"""RecBole's names where the shared fixture cannot tell trecrs's conventions from RecBole's: its catalogue
(every item of train and test, plus its padding id), the item catalogue given (``items=``), the long tail's
ties (first appearance in the training data) and the value-based metrics (auc, logloss).

The expected values were computed with RecBole 1.2.1 itself on the same data: the ratings written as
atomic files ``x.train.inter`` / ``x.test.inter`` (``benchmark_filename: [train, test]``), RecBole's
``create_dataset`` (internal ids, ``num('item_id')``, the training part's ``item_counter``), then
``ItemCoverage.get_coverage``, ``GiniIndex.get_gini``, ``TailPercentage.get_tail`` (``tail_ratio`` 0.1),
``AUC.metric_info`` and ``LogLoss.metric_info`` (recbole/evaluator/metrics.py).
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import trecrs
from trecrs.errors import UsageError

# training rows in file order: i09 appears first, then i03, then i07 (RecBole's ids 1, 2, 3); the test
# items i05 and i01 (ids 4, 5) are in no training row
TRAIN = pl.DataFrame(
    {"user": ["u1", "u1", "u2", "u2"], "item": ["i09", "i03", "i03", "i07"], "rating": [1.0] * 4}
)
QRELS = {"u1": {"i05": 4}, "u2": {"i01": 5}}
RUN = {"u1": {"i05": 0.9, "i07": 0.5}, "u2": {"i09": 0.8, "i03": 0.3}}


def _summary(names, **kwargs):
    return trecrs.evaluate(QRELS, RUN, names, relevance_level=3, train=TRAIN, **kwargs)


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_catalogue_counts_the_test_items_and_the_padding_id():
    """RecBole: num_items = 6 (5 items + [PAD]); coverage 1/3 and 2/3, Gini 2/3 and 1/3 at 1 and 2.
    trecrs's own catalogue_coverage keeps its catalogue: training items + run items (4)."""
    res = _summary(["recbole:itemcoverage@1", "recbole:itemcoverage@2", "recbole:giniindex@1",
                    "recbole:giniindex@2", "catalog_coverage.1"]).summary  # fmt: skip
    assert res["recbole:itemcoverage@1"] == pytest.approx(1 / 3, abs=1e-12)
    assert res["recbole:itemcoverage@2"] == pytest.approx(2 / 3, abs=1e-12)
    assert res["recbole:giniindex@1"] == pytest.approx(0.6666666666666666, abs=1e-12)
    assert res["recbole:giniindex@2"] == pytest.approx(0.3333333333333333, abs=1e-12)
    assert res["catalog_coverage_1"] == 0.5


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_test_ratings_add_their_items_to_recboles_catalogue():
    """An item only in the test ratings (i11, judged for no evaluated query) is an item of RecBole's data set."""
    test = pl.DataFrame(
        {"user": ["u1", "u2", "u3"], "item": ["i05", "i01", "i11"], "rating": [4.0, 5.0, 2.0]}
    )
    res = _summary(["recbole:itemcoverage@1"], test=test).summary
    assert res["recbole:itemcoverage@1"] == pytest.approx(2 / 7, abs=1e-12)


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_items_name_the_catalogue_of_every_coverage_and_gini_measure(tmp_path):
    """Eight items (a MovieLens u.item): catalog_coverage 2/8 and RecBole's 2/(8 + 1); gini over 8 items."""
    uitem = tmp_path / "u.item"
    uitem.write_text(
        "".join(f"i{j:02d}|Movie {j} (1995)|01-Jan-1995||http://x|0|1\n" for j in (1, 3, 5, 7, 9, 11, 12, 13))
    )
    names = ["catalog_coverage.1", "recbole:itemcoverage@1", "gini.1", "gini_pad.1"]
    res = trecrs.evaluate(QRELS, RUN, names, relevance_level=3, items=uitem).summary  # no train needed
    assert res["catalog_coverage_1"] == 0.25 and res["recbole:itemcoverage@1"] == pytest.approx(
        2 / 9, abs=1e-12
    )
    # two items recommended once among n: G = Σ(2i − n − 1)x_(i) / (n Σx) = ((n − 3) + (n − 1)) / 2n
    assert res["gini_1"] == pytest.approx(12 / 16, abs=1e-12)  # n = 8
    assert res["gini_pad_1"] == pytest.approx(14 / 18, abs=1e-12)  # n = 8 + RecBole's [PAD]
    listed = trecrs.evaluate(QRELS, RUN, names, relevance_level=3, items=["i01", "i03", "i05", "i07", "i09", "i11",
                                                                           "i12", "i13"]).summary  # fmt: skip
    assert listed == res


def test_a_catalogue_without_a_recommended_item_is_refused():
    with pytest.raises(
        UsageError, match=r"the item catalogue \(items=\) lacks 1 item\(s\) of the run \(first: 'i07'\)"
    ):
        _summary(["catalog_coverage.1"], items=["i01", "i03", "i05", "i09"])


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_tail_ties_follow_the_first_appearance_in_the_training_data():
    """i09 and i07 are rated once: the 10% tail (one item of three) is i09, the first in the training rows,
    not i07, the first by id. RecBole: u1 0 and 0, u2 1 and 0.5 at 1 and 2."""
    rows = _summary(["recbole:tailpercentage@1", "recbole:tailpercentage@2"]).to_dict()
    assert (rows["u1"]["recbole:tailpercentage@1"], rows["u1"]["recbole:tailpercentage@2"]) == (0.0, 0.0)
    assert (rows["u2"]["recbole:tailpercentage@1"], rows["u2"]["recbole:tailpercentage@2"]) == (1.0, 0.5)
    backwards = TRAIN.reverse()  # i07 first: it is the tail now
    res = trecrs.evaluate(
        QRELS, RUN, ["recbole:tailpercentage@1"], relevance_level=3, train=backwards
    ).to_dict()
    assert res["u2"]["recbole:tailpercentage@1"] == 0.0


@pytest.mark.filterwarnings("ignore::trecrs.errors.TrecrsWarning")
def test_auc_pools_every_pair_and_logloss_reads_scores_as_probabilities():
    """RecBole: AUC 0.5 (the unretrieved positive i01 scored below every pair), LogLoss over the four
    retrieved pairs 0.6911551381476511; gauc is per user (u2 has no retrieved positive: AUC 0)."""
    res = _summary(["recbole:auc", "recbole:logloss", "recbole:gauc"])
    assert res.summary["recbole:auc"] == 0.5
    assert res.summary["recbole:logloss"] == pytest.approx(0.6911551381476511, abs=1e-12)
    assert res.summary["recbole:gauc"] == 0.5  # (1 + 0)/2: equal here, not in general
    want = {"u1": -(math.log(0.9) + math.log(0.5)) / 2, "u2": -(math.log(0.2) + math.log(0.7)) / 2}
    assert {q: v["recbole:logloss"] for q, v in res.to_dict().items()} == pytest.approx(want, abs=1e-12)


def test_logloss_clips_scores_outside_zero_one_as_recbole_does():
    res = trecrs.evaluate({"u": {"a": 1, "b": 0}}, {"u": {"a": 3.0, "b": -2.0}}, ["logloss"])
    assert res.summary["logloss"] == pytest.approx(-math.log(1 - 1e-15), rel=1e-6)
    assert any("2 of 2 scores lie outside [0, 1]" in n for n in res.evaluation.notes)
