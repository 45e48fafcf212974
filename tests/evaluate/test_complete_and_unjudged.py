"""-c and queries judged with negative values only, as trec_eval 9.0.8 computes them (``trec_eval.c``,
``meas_avg.c``, ``m_num_rel.c``, ``form_res_rels.c``), on every engine.

The expected bytes were printed by the 9.0.8 binary; ``test_expectations_are_the_binarys`` checks them
against it again when it can be built (``tests/fuzz/binaries.py``; skips otherwise).
"""

from __future__ import annotations

import subprocess

import polars as pl
import pytest

import trecrs
from trecrs.errors import SemanticError

from ..conftest import write
from ..warned import warned

ENGINES = ("vectorized", "pytrec_eval", "auto")
W = "{:<22}\t{}\t{}"

QRELS = "q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 a 1\nq2 0 x 3\nq2 0 y -1\nq3 0 b 0\nq3 0 c 1\n"
RUN = "q1 Q0 a 1 3 t\nq1 Q0 c 2 2 t\nq1 Q0 b 3 1 t\nq3 Q0 a 1 5 t\nq3 Q0 c 2 4 t\nq9 Q0 a 1 1 t\n"
# q1 and q3 in both files, q2 in the qrels only, q9 in the run only
COMPLETE_FLAGS = ["-q", "-c", "-l", "2", "-m", "num_q", "-m", "num_rel", "-m", "num_ret", "-m", "num_rel_ret",
                  "-m", "map", "-m", "gm_map", "-m", "P.2", "-m", "recip_rank"]  # fmt: skip
COMPLETE_OUT = [
    ("num_ret", "q1", "3"), ("num_rel", "q1", "1"), ("num_rel_ret", "q1", "1"), ("map", "q1", "1.0000"),
    ("recip_rank", "q1", "1.0000"), ("P_2", "q1", "0.5000"),
    ("num_ret", "q3", "2"), ("num_rel", "q3", "0"), ("num_rel_ret", "q3", "0"), ("map", "q3", "0.0000"),
    ("recip_rank", "q3", "0.0000"), ("P_2", "q3", "0.0000"),
    # q2 has no line; num_q and every mean count it; num_rel counts every rel > 0 whatever -l
    ("num_q", "all", "3"), ("num_ret", "all", "5"), ("num_rel", "all", "5"), ("num_rel_ret", "all", "1"),
    ("map", "all", "0.3333"), ("gm_map", "all", "0.0005"), ("recip_rank", "all", "0.3333"), ("P_2", "all", "0.1667"),
]  # fmt: skip

# q2's judgements are all negative; q1 comes first in trec_eval's (bytewise) order
LATER_MINUS_ONE = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d1 -1\nq2 0 d5 -1\n"
LATER_RUN = "q1 Q0 d1 1 3 t\nq1 Q0 d3 2 2 t\nq2 Q0 d1 1 3 t\nq2 Q0 d9 2 2 t\n"
LATER_FLAGS = ["-q", "-m", "num_ret", "-m", "num_rel", "-m", "map", "-m", "P.5", "-m", "ndcg", "-m", "bpref"]
LATER_OUT = [
    ("num_ret", "q1", "2"), ("num_rel", "q1", "2"), ("map", "q1", "0.5000"), ("bpref", "q1", "0.5000"),
    ("P_5", "q1", "0.2000"), ("ndcg", "q1", "0.7602"),
    ("num_ret", "q2", "2"), ("num_rel", "q2", "0"), ("map", "q2", "0.0000"), ("bpref", "q2", "0.0000"),
    ("P_5", "q2", "0.0000"), ("ndcg", "q2", "0.0000"),
    ("num_ret", "all", "4"), ("num_rel", "all", "2"), ("map", "all", "0.2500"), ("bpref", "all", "0.2500"),
    ("P_5", "all", "0.1000"), ("ndcg", "all", "0.3801"),
]  # fmt: skip
LATER_MINUS_TWO = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d1 -2\nq2 0 d5 -2\n"  # trec_eval crashes
FIRST_NEGATIVE = "q0 0 d1 -1\nq1 0 d1 2\n"  # "Can't calculate measure", status 4
FIRST_RUN = "q0 Q0 d1 1 3 t\nq1 Q0 d1 1 3 t\n"
FIRST_FREE_FLAGS = ["-m", "num_q", "-m", "runid"]  # measures that never look at the judgements
FIRST_FREE_OUT = [("runid", "all", "t"), ("num_q", "all", "2")]


def _text(rows) -> str:
    return "".join(W.format(*row) + "\n" for row in rows)


def _files(tmp_path, qrels: str, run: str):
    return write(tmp_path / "qrels", qrels), write(tmp_path / "run", run)


CASES = {  # name: (qrels, run, flags, expected stdout or None when trec_eval fails)
    "complete": (QRELS, RUN, COMPLETE_FLAGS, _text(COMPLETE_OUT)),
    "complete-nothing-evaluated": (QRELS, "q7 Q0 a 1 3 t\n", ["-c", "-m", "map"], None),  # status 7
    "negative-later-minus-one": (LATER_MINUS_ONE, LATER_RUN, LATER_FLAGS, _text(LATER_OUT)),
    "negative-later-minus-two": (LATER_MINUS_TWO, LATER_RUN, ["-m", "map"], None),
    "negative-first": (FIRST_NEGATIVE, FIRST_RUN, ["-m", "ndcg"], None),
    "negative-first-judgement-free": (FIRST_NEGATIVE, FIRST_RUN, FIRST_FREE_FLAGS, _text(FIRST_FREE_OUT)),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_as_trec_eval_9_0_8(cli, tmp_path, name, engine):
    qrels, run, flags, expected = CASES[name]
    code, out, err = cli("eval", "--engine", engine, *flags, *_files(tmp_path, qrels, run))
    if expected is None:
        assert code == 4 and out == "", err
    else:
        assert (code, out) == (0, expected), err


@pytest.mark.parametrize("name", sorted(CASES))
def test_expectations_are_the_binarys(tmp_path, name):
    from ..fuzz.binaries import Unavailable, binary

    try:
        te = binary("9")
    except Unavailable as exc:
        pytest.skip(str(exc))
    qrels, run, flags, expected = CASES[name]
    done = subprocess.run(
        [str(te), *flags, *map(str, _files(tmp_path, qrels, run))], capture_output=True, check=False
    )
    if expected is None:
        assert done.returncode != 0
    else:
        assert (done.returncode, done.stdout.decode()) == (0, expected)


def _frames(qrels: str, run: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    q = [line.split() for line in qrels.splitlines()]
    r = [line.split() for line in run.splitlines()]
    return (
        pl.DataFrame({"query": [x[0] for x in q], "doc": [x[2] for x in q], "rel": [int(x[3]) for x in q]}),
        pl.DataFrame(
            {"query": [x[0] for x in r], "doc": [x[2] for x in r], "score": [float(x[4]) for x in r]}
        ),
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_the_error_names_the_query(engine):
    qrels, run = _frames(FIRST_NEGATIVE, FIRST_RUN)
    with (
        pytest.raises(SemanticError, match=r"query 'q0'.*first query evaluated.*measure 'ndcg'"),
        warned("1 of 2 .* no relevant document"),
    ):
        trecrs.evaluate(qrels, run, ["ndcg"], engine=engine)
    qrels, run = _frames(LATER_MINUS_TWO, LATER_RUN)
    with (
        pytest.raises(SemanticError, match=r"query 'q2'.*-2 or less"),
        warned("1 of 2 .* no relevant document"),
    ):
        trecrs.evaluate(qrels, run, ["map"], engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_trec_eval_10_construction_stays_available(engine):
    """trec_eval 10.0's -c: a missing query is evaluated on a one-document stand-in ranking, so it gets
    per-query values (num_ret 0); the summary is the same as 9.0.8's for means, num_q and num_rel."""
    qrels, run = _frames(QRELS, RUN)
    measures = ["num_q", "num_rel", "num_ret", "map", "gm_map", "P.2"]
    if engine == "pytrec_eval":  # it embeds trec_eval 9.x's code: 10.0 is the other engines' job
        with pytest.raises(trecrs.errors.UsageError, match="embeds trec_eval 9.x"):
            trecrs.evaluate(qrels, run, measures, average_all=True, trec_eval_version=10, engine=engine)
        return
    with warned("1 of 3 .* run queries have no qrels"):
        ten = trecrs.evaluate(
            qrels, run, measures, average_all=True, trec_eval_version=10, engine=engine
        ).tidy()
    with warned("1 of 3 .* run queries have no qrels"):
        nine = trecrs.evaluate(qrels, run, measures, average_all=True, engine=engine).tidy()
    assert "q2" in ten.get_column("query").to_list() and "q2" not in nine.get_column("query").to_list()
    assert ten.filter(pl.col("query") == "q2", pl.col("measure") == "num_ret").item(0, "value") == 0.0
    summary = [frame.filter(pl.col("query") == "all").sort("measure") for frame in (ten, nine)]
    assert summary[0].select("measure").equals(summary[1].select("measure"))
    assert summary[0].get_column("value").to_list() == pytest.approx(summary[1].get_column("value").to_list())
    with pytest.raises(trecrs.errors.UsageError, match="trec_eval version 8 is not supported"):
        trecrs.evaluate(qrels, run, measures, trec_eval_version=8)
