"""``trecrs eval --list-measures`` and ``--engine``: the measure listing needs no files, and the engines
print the same text (an engine that cannot compute a request is a usage error naming it)."""

from __future__ import annotations

import pytest

from trecrs.engines import ENGINES
from trecrs.measures.recsys.registry import ordered
from trecrs.measures.trec_eval import NICKNAMES, TREC_MEASURES

from ..conftest import ROOT

TINY_QRELS = ROOT / "sample_data" / "tiny.qrels"
TINY_RUN = ROOT / "sample_data" / "tiny.run"


def test_list_measures_needs_no_files(cli):
    code, out, err = cli("eval", "--list-measures")
    assert code == 0 and err == ""
    names = {line.split()[0].split("[")[0] for line in out.splitlines() if line.startswith("  ")}
    assert {m.name for m in TREC_MEASURES} <= names
    assert {m.name for m in ordered()} <= names  # recommender measures too
    assert all(n in out for n in NICKNAMES)
    # trec_eval's table comes first, in its own order
    lines = out.splitlines()
    table = [line.split()[0] for line in lines[1 : 1 + len(TREC_MEASURES)]]
    assert table == [m.name for m in TREC_MEASURES]


def test_engine_choices_are_the_registered_engines(cli):
    assert {"pytrec_eval", "vectorized"} <= set(ENGINES)
    code, _, err = cli("eval", "--engine", "no_such_engine", TINY_QRELS, TINY_RUN)
    assert code == 2 and "no_such_engine" in err


@pytest.mark.parametrize(
    "flags",
    [
        ["-q", "-m", "all_trec"],
        ["-q", "-c", "-m", "official", "-m", "relstring"],
        ["-q", "-J", "-l", "2", "-M", "3", "-m", "all_trec"],
        ["-m", "P.1,2,3", "-m", "utility.2,-1,0.5,0.25", "-m", "set_F.0.5"],
    ],
)
def test_engines_print_identical_text(cli, flags):
    outputs = {}
    for engine in ("pytrec_eval", "vectorized"):
        code, out, err = cli("eval", "--engine", engine, *flags, TINY_QRELS, TINY_RUN)
        assert code == 0, err
        outputs[engine] = out
    assert outputs["pytrec_eval"] == outputs["vectorized"]
    code, out, _ = cli("eval", *flags, TINY_QRELS, TINY_RUN)  # auto: the vectorized engine here
    assert out == outputs["vectorized"]


def test_engine_that_cannot_compute_the_request_is_a_usage_error(cli):
    code, out, err = cli("eval", "--engine", "vectorized", "-m", "utility.1,2", TINY_QRELS, TINY_RUN)
    assert code == 2 and out == ""
    assert (
        err.strip() == "trecrs eval: error: argument --engine: engine 'vectorized' cannot compute utility.1,2"
    )


def test_gain_parameters_are_computed_by_the_vectorized_engine(cli):
    outputs = {}
    for engine in ("pytrec_eval", "vectorized", "auto"):
        code, outputs[engine], err = cli(
            "eval", "--engine", engine, "-m", "ndcg.1=3,2=9", TINY_QRELS, TINY_RUN
        )
        assert code == 0, err
    assert outputs["pytrec_eval"] == outputs["vectorized"] == outputs["auto"]
    assert outputs["auto"].startswith("ndcg_1=3,2=9 ")  # named as trec_eval prints it


def test_library_messages_are_reworded_with_flags(cli):
    code, _, err = cli("eval", "-M", "-1", TINY_QRELS, TINY_RUN)
    assert code == 2
    assert err == (
        "trecrs eval: error: argument -M/--Max_retrieved_per_topic: must be 0 or more documents, got -1 "
        "(trec_eval crashes on a negative -M)\n"
    )
