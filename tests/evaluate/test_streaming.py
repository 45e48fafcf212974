"""Streaming (issue 14): a run evaluated in blocks of whole queries prints exactly what one block prints.

The reference is the same command with ``--block-lines`` larger than the run (one block, what trecrs did
before streaming); the runs are seeded random, with forced ties, queries straddling block boundaries,
queries absent from the qrels and qrels queries absent from the run; ungrouped runs go through the
partition fallback; text, ``.gz`` and Parquet.
"""

from __future__ import annotations

import gzip
import random
import warnings

import polars as pl
import pytest

from trecrs.engines.vectorized.files import _whole, compute_files
from trecrs.errors import TrecrsWarning, UsageError
from trecrs.files.trec import read_qrels
from trecrs.measures.request import parse_measures

BIG = 10**9
FLAG_SETS = [[], ["-c"], ["-M", "3"], ["-J"], ["-l", "2"], ["-c", "-J", "-M", "5"]]


def _data(seed: int, *, queries: int = 23, grouped: bool = True):
    """Seeded qrels and run lines: 1..12 documents a query, scores from a few values (many ties)."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(queries):
        qid = f"q{rng.randrange(1000)}_{q}"
        docs = rng.sample(range(40), rng.randint(1, 12))
        if rng.random() < 0.85:  # some queries have no qrels
            for d in rng.sample(range(40), rng.randint(1, 8)):
                qrels.append(f"{qid} 0 d{d} {rng.choice([-1, 0, 1, 2, 3])}")
        for r, d in enumerate(docs, 1):
            run.append(f"{qid} Q0 d{d} {r} {rng.choice([0.5, 0.25, 1.0, 2.0])} tag{seed}_{len(run)}")
    qrels.append("qonlyinqrels 0 d1 1")
    if not grouped:
        rng.shuffle(run)
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def _files(tmp_path, seed, *, grouped=True, kind="text"):
    q, r = _data(seed, grouped=grouped)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(q)
    if kind == "gz":
        run = tmp_path / "run.txt.gz"
        run.write_bytes(gzip.compress(r.encode()))
    elif kind == "parquet":
        run = tmp_path / "run.parquet"
        rows = [line.split() for line in r.splitlines()]
        pl.DataFrame(
            {"query": [x[0] for x in rows], "iter": [x[1] for x in rows], "doc": [x[2] for x in rows],
             "rank": [int(x[3]) for x in rows], "score": [float(x[4]) for x in rows], "tag": [x[5] for x in rows]}
        ).write_parquet(run)  # fmt: skip
    else:
        run = tmp_path / "run.txt"
        run.write_text(r)
    return qrels, run


def _eval(cli, qrels, run, block, flags):
    code, out, err = cli("eval", "-q", "-m", "all_trec", "--block-lines", block, *flags, qrels, run)
    assert code == 0, err
    return out, err


@pytest.mark.parametrize("flags", FLAG_SETS, ids=lambda f: " ".join(f) or "plain")  # a short test each
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("kind", ["text", "gz", "parquet"])
def test_blocks_print_what_one_block_prints(cli, tmp_path, seed, kind, flags):
    qrels, run = _files(tmp_path, seed, kind=kind)
    whole = _eval(cli, qrels, run, BIG, flags)
    assert "runid" in whole[0] and f"tag{seed}_" in whole[0]
    for block in (1, 2, 7):
        assert _eval(cli, qrels, run, block, flags) == whole, (block, flags)


@pytest.mark.parametrize("seed", [4, 5])
@pytest.mark.parametrize("kind", ["text", "parquet"])
def test_ungrouped_run_is_partitioned_with_one_warning(cli, tmp_path, seed, kind):
    qrels, run = _files(tmp_path, seed, grouped=False, kind=kind)
    whole_out, whole_err = _eval(cli, qrels, run, BIG, [])
    out, err = _eval(cli, qrels, run, 7, [])
    assert out == whole_out
    notes = [line for line in err.splitlines() if "not grouped by query" in line]
    assert len(notes) == 1 and "partitioned into" in notes[0] and "temporary files" in notes[0]
    assert err.replace(notes[0] + "\n", "") == whole_err
    for flags in FLAG_SETS[1:]:
        assert _eval(cli, qrels, run, 3, flags)[0] == _eval(cli, qrels, run, BIG, flags)[0]


def test_rank_contradictions_are_one_warning_with_totals(cli, tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("a 0 d1 1\nb 0 d1 1\nc 0 d2 1\n")
    run = tmp_path / "run"  # ranks swapped with scores in a and c: two lines each contradict
    run.write_text("a Q0 d1 1 1 t\na Q0 d2 2 2 t\na Q0 d3 3 3 t\nb Q0 d1 1 3 t\nb Q0 d2 2 2 t\n"
                   "c Q0 d1 1 1 t\nc Q0 d2 2 2 t\nc Q0 d3 3 3 t\n")  # fmt: skip
    err = _eval(cli, qrels, run, 2, [])[1]
    warned = [line for line in err.splitlines() if "rank column contradicts" in line]
    assert warned == [
        f"trecrs eval: warning: {run}: the rank column contradicts the scores on 4 of 8 lines (2 of 3 queries); "
        "ranking by score as trec_eval does (are the rank and score columns swapped?)"
    ]


@pytest.mark.parametrize("block", [1, 3, BIG])
def test_error_in_a_late_block_names_the_file_line(cli, tmp_path, block):
    qrels, run = _files(tmp_path, 6)
    lines = run.read_text().splitlines()
    lines[-2] = lines[-2].rsplit(" ", 3)[0] + " 1 notanumber t"
    run.write_text("\n".join(lines) + "\n")
    code, _, err = cli("eval", "--block-lines", block, qrels, run)
    assert code == 3
    assert err.startswith(f"trecrs eval: error: {run}:{len(lines) - 1}: score is not a number: 'notanumber'")


@pytest.mark.parametrize("column", ["query", "doc"])
def test_nul_in_a_late_parquet_batch_names_the_row(cli, tmp_path, column):
    """Batches check only the ids new since the last batch: a NUL first seen late is still found."""
    rows = [(f"q{i}", f"d{j}", 10.0 - j) for i in range(6) for j in range(3)]
    rows[-1] = ("q5\x00x", "d2", 8.0) if column == "query" else ("q5", "d\x00late", 8.0)
    run = tmp_path / "run.parquet"
    pl.DataFrame(rows, schema=["query", "doc", "score"], orient="row").write_parquet(run)
    qrels = tmp_path / "qrels"
    qrels.write_text("q0 0 d1 1\n")
    code, out, err = cli("eval", "--block-lines", 2, qrels, run)
    assert (code, out) == (3, "")
    assert err == f"trecrs eval: error: {run}: row 18: NUL byte in column '{column}'\n"


@pytest.mark.parametrize("grouped", [True, False])
def test_duplicate_in_a_late_block_names_both_lines(cli, tmp_path, grouped):
    run = tmp_path / "run"
    body = [f"q{i} Q0 d{j} {j} {10 - j} t" for i in range(5) for j in range(4)]
    # line 21 repeats line 19 (q4 d2: the last query's block) or line 1 (q0 again: an ungrouped run)
    body.append("q4 Q0 d2 9 1 t" if grouped else body[0])
    run.write_text("\n".join(body) + "\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("q0 0 d1 1\nq4 0 d2 1\n")
    code, _, err = cli("eval", "--block-lines", 2, qrels, run)
    assert code == 3
    if grouped:
        assert (
            err
            == f"trecrs eval: error: {run}:21: duplicate run entry for query 'q4', doc 'd2' (first seen on line 19)\n"
        )
    else:
        assert (
            err
            == f"trecrs eval: error: {run}:21: duplicate run entry for query 'q0', doc 'd0' (first seen on line 1)\n"
        )


@pytest.mark.parametrize("grouped", [True, False])
def test_stand_ins_and_counts_match_the_whole_run(tmp_path, grouped):
    qrels, run = _files(tmp_path, 7, grouped=grouped)
    req = parse_measures(["all_trec"])
    flags = dict(relevance_level=1, judged_only=False, depth=4, complete=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecrsWarning)
        whole = _whole(read_qrels(qrels), run, req, **flags)  # the run read at once, as before streaming
        parts = compute_files(qrels, run, req, block_lines=2, **flags)
    assert parts.tag == whole.tag
    assert parts.computed.per_query.sort("query").equals(whole.computed.per_query.sort("query"))
    assert sorted(parts.computed.stand_in) == sorted(whole.computed.stand_in) == ["qonlyinqrels"]
    for a, b in ((parts.stats.qrels, whole.stats.qrels), (parts.stats.run, whole.stats.run)):
        assert a.sort("query").equals(b.sort("query"))


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_block_lines_must_be_a_positive_integer(tmp_path, bad):
    qrels, run = _files(tmp_path, 8)
    with pytest.raises(UsageError, match="block_lines"):
        compute_files(qrels, run, parse_measures(["map"]), block_lines=bad)


def test_cli_refuses_zero_block_lines(cli, tmp_path):
    qrels, run = _files(tmp_path, 8)
    code, _, err = cli("eval", "--block-lines", 0, qrels, run)
    assert code == 2 and "--block-lines" in err
