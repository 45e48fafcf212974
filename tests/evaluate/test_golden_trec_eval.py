"""Byte-level golden test: `trecrs eval -m all_trec [-l N]` against the Bellogín et al. (2011) authors'
own trec_eval outputs for their released TestRatings runs (MovieLens 100K, fold u1).

Every measure line the authors' trec_eval printed is reproduced; the embedded trec_eval 9.x code can
compute all of them (the list of measures it cannot compute is empty, asserted below). ``relstring`` is
part of 9.x's all_trec but prints only per query, so a summary-only output has no line for it either way.
"""

from __future__ import annotations

import pytest

from trecrs.measures.trec_eval import NICKNAMES

RUNS = ["IB", "IB_AdjCos", "SVD_50", "UB50", "UB50_Fixed"]
QRELS = ["th3", "th4"]
LEVELS = [("", None), ("l1_", 1), ("l3_", 3), ("l4_", 4)]


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("th", QRELS)
@pytest.mark.parametrize("prefix,level", LEVELS)
def test_all_trec_matches_authors_output(golden, cli, run, th, prefix, level):
    qrels = golden / "runs_test_ratings" / f"urels_{th}.txt"
    runf = golden / "runs_test_ratings" / f"{run}.txt"
    expected = (
        golden / "trec_eval_outputs" / "test_ratings" / f"{prefix}treceval_{run}.txt_urels_{th}.txt"
    ).read_text()
    args = ["eval", "-m", "all_trec"] + ([f"-l{level}"] if level else []) + [qrels, runf]
    code, out, err = cli(*args)
    assert code == 0, err
    assert out.splitlines() == expected.splitlines()
    assert out == expected


def test_every_golden_measure_is_computable(golden):
    """The measures the authors' trec_eval printed, minus what all_trec of the embedded 9.x computes."""
    names = set()
    for f in (golden / "trec_eval_outputs").rglob("*.txt"):
        for line in f.read_text().splitlines():
            names.add(line.split("\t")[0].strip())
    from trecrs.measures.trec_eval import base_of

    bases = {base_of(n) for n in names}
    assert None not in bases
    assert bases - set(NICKNAMES["all_trec"]) == set()
