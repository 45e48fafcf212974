"""``trecrs eval -m ALIAS``: lines under the name as typed in every format, two names, counts, errors,
trec_eval 10.0 mode (docs/measures.md, Aliases)."""

from __future__ import annotations

import json

import polars as pl
import pytest

from ..conftest import write
from ..measures.test_aliases import QRELS, RUN


@pytest.fixture
def files(tmp_path):
    return str(write(tmp_path / "qrels.txt", QRELS)), str(write(tmp_path / "run.txt", RUN))


def _lines(out: str) -> list[tuple[str, str, str]]:
    return [tuple(line.split("\t")) for line in out.splitlines()]


def test_trec_lines_carry_the_alias_as_typed(cli, files):
    code, out, err = cli("eval", "-m", "nDCG@3", "-m", "precision@3", "-m", "AP", "-m", "NumRet", *files)
    assert code == 0, err
    assert out == (
        "NumRet                \tall\t9\n"  # a count, printed as trec_eval prints num_ret
        "AP                    \tall\t0.3333\n"  # ((1 + 2/4)/3 + 1/2 + 0)/3
        "precision@3           \tall\t0.2222\n"  # (1/3 + 1/3 + 0)/3
        "nDCG@3                \tall\t0.4232\n"  # (2/(2 + 1/log2 3 + 1/2) + 1/log2 3 + 0)/3
    )
    _, ref, _ = cli("eval", "-m", "num_ret", "-m", "map", "-m", "P.3", "-m", "ndcg_cut.3", *files)
    assert [v for *_, v in _lines(out)] == [v for *_, v in _lines(ref)]


def test_two_names_print_twice_trec_eval_first(cli, files):
    _, out, _ = cli("eval", "-m", "P@3", "-m", "P.3", *files)
    assert [n.strip() for n, *_ in _lines(out)] == ["P_3", "P@3"]
    _, out, _ = cli("eval", "-m", "official", "-m", "P@10", *files)
    names = [n.strip() for n, *_ in _lines(out)]
    assert names[names.index("P_10") + 1] == "P@10" and names.count("P@10") == 1
    _, out, _ = cli("eval", "-m", "P@5", "-m", "P@10", *files)
    assert [n.strip() for n, *_ in _lines(out)] == ["P@5", "P@10"]


def test_per_query_lines(cli, files):
    _, out, _ = cli("eval", "-q", "-m", "RR@1", "-m", "recip_rank", "-m", "MRR", *files)
    assert _lines(out) == [
        ("recip_rank            ", "q1", "1.0000"),
        ("MRR                   ", "q1", "1.0000"),
        ("RR@1                  ", "q1", "1.0000"),
        ("recip_rank            ", "q2", "0.5000"),
        ("MRR                   ", "q2", "0.5000"),
        ("RR@1                  ", "q2", "0.0000"),
        ("recip_rank            ", "q3", "0.0000"),
        ("MRR                   ", "q3", "0.0000"),
        ("RR@1                  ", "q3", "0.0000"),
        ("recip_rank            ", "all", "0.5000"),
        ("MRR                   ", "all", "0.5000"),
        ("RR@1                  ", "all", "0.3333"),
    ]


@pytest.mark.parametrize("fmt", ["tsv", "csv", "json", "parquet"])
def test_tidy_tables(cli, files, tmp_path, fmt):
    out_file = tmp_path / f"out.{fmt}"
    code, _, err = cli("eval", "-m", "Hit@1", "-m", "success.1", "-m", "numrelret", "--format", fmt,
                       "-o", str(out_file), *files)  # fmt: skip
    assert code == 0, err
    if fmt == "parquet":
        rows = pl.read_parquet(out_file).to_dicts()
    elif fmt == "json":
        rows = json.loads(out_file.read_text())
    else:
        rows = pl.read_csv(out_file, separator="\t" if fmt == "tsv" else ",").to_dicts()
    assert [(r["measure"], r["value"]) for r in rows] == [
        ("numrelret", 3.0),
        ("success_1", pytest.approx(1 / 3)),
        ("Hit@1", pytest.approx(1 / 3)),
    ]


def test_unknown_name_suggests_one_line_status_2(cli, files):
    code, out, err = cli("eval", "-m", "ndgc@10", *files)
    assert code == 2 and out == ""
    assert (
        err
        == "trecrs eval: error: argument -m/--measure: unknown measure 'ndgc@10'; did you mean: nDCG@10, Judged@10, ndcg_cut.10?\n"
    )


def test_list_measures_shows_the_registry(cli):
    from trecrs.measures.aliases import listing

    _, out, _ = cli("eval", "--list-measures")
    assert "\n".join(listing()) in out


def test_trec_eval_10_mode(cli, files, tmp_path):
    args = ("-m", "P@3", "-m", "NumRet", "-m", "RR@1", "-q")
    code9, out9, _ = cli("eval", *args, *files)
    code10, out10, err = cli("eval", "--trec-eval-version", "10", *args, *files)
    assert code9 == code10 == 0, err
    assert out10 == out9
    # 10.0's -c: a qrels query missing from the run is evaluated on a stand-in ranking whose num_ret is 0
    qrels = write(tmp_path / "more.qrels", QRELS + "q4 0 z 1\n")
    code, out, err = cli("eval", "--trec-eval-version", "10", "-c", "-q", "-m", "NumRet", "-m", "num_ret",
                         str(qrels), files[1])  # fmt: skip
    assert code == 0, err
    assert [line for line in _lines(out) if line[1] in ("q4", "all")] == [
        ("num_ret               ", "q4", "0"), ("NumRet                ", "q4", "0"),
        ("num_ret               ", "all", "9"), ("NumRet                ", "all", "9"),
    ]  # fmt: skip
