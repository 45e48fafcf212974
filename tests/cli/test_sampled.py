"""``trecrs sampled`` end to end on a small split with tied scores: the exact ranks are those of
``trecrs run --methodology all-items`` scored by ``trecrs eval -m success.k`` on each case's qrels."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from trecrs.measures.recsys.sampled import case_ranks, opr_candidates

from ..conftest import write

KS = (1, 3, 5)


@pytest.fixture
def split(tmp_path):
    """5 users, 30 items; 8 training and 4 test ratings each (3 of them 5s); two systems' scores on a 0.1
    grid, so ties are broken by item id (descending, bytewise)."""
    rng = np.random.default_rng(11)
    train, test = [], []
    for u in range(1, 6):
        rated = rng.choice(30, 12, replace=False) + 1
        for j, i in enumerate(rated):
            (test if j < 4 else train).append(f"{u}\t{i}\t{5 if j < 3 else 3}\t0")
    paths = {
        "train": write(tmp_path / "train.tsv", "\n".join(train) + "\n"),
        "test": write(tmp_path / "test.tsv", "\n".join(test) + "\n"),
        "items": write(tmp_path / "items.txt", "".join(f"{i}\n" for i in range(1, 31))),
    }
    for name in ("a", "b"):
        lines = [f"{u} {i} {rng.integers(0, 10) / 10}" for u in range(1, 6) for i in range(1, 31)]
        paths[name] = write(tmp_path / f"{name}.scores", "\n".join(lines) + "\n")
    return paths


def split_options(p):
    return ["--train", p["train"], "--test", p["test"], "--items", p["items"]]


def success_by_eval(cli, p, tmp_path, system):
    """Per case u:i, success@k of the all-items run of user u with i the only relevant item."""
    run_path = tmp_path / f"{system}.run"
    code, _, err = cli(
        "run",
        "--quiet",
        "--methodology",
        "all-items",
        *split_options(p),
        "--scores",
        p[system],
        "-o",
        run_path,
    )
    assert code == 0, err
    run = [line.split() for line in run_path.read_text().splitlines()]
    cases = [line.split("\t") for line in p["test"].read_text().splitlines() if line.split("\t")[2] == "5"]
    case_run = [
        f"{u}:{i} {rest[0]} {rest[1]} {rest[2]} {rest[3]} {rest[4]}"
        for u, i, *_ in cases
        for (q, *rest) in run
        if q == u
    ]
    qrels = write(tmp_path / f"{system}.qrels", "".join(f"{u}:{i} 0 {i} 1\n" for u, i, *_ in cases))
    runs = write(tmp_path / f"{system}.cases.run", "\n".join(case_run) + "\n")
    code, out, err = cli("eval", "-q", "-m", "success." + ",".join(map(str, KS)), qrels, runs)
    assert code == 0, err
    values = {}
    for name, query, value in (line.split() for line in out.splitlines()):
        if query != "all":
            values[(query, int(name.split("_")[1]))] = float(value)
    return values


def test_exact_ranks_are_all_items_ranks_scored_by_eval(cli, split, tmp_path):
    for system in ("a", "b"):
        success = success_by_eval(cli, split, tmp_path, system)
        cands = opr_candidates(split["train"], split["test"], split["items"], n=6, seed=3)
        cases = case_ranks(cands, split[system])
        assert cases.height == 15 == len(success) // len(KS)
        for row in cases.iter_rows(named=True):
            for k in KS:
                assert success[(row["query"], k)] == float(row["R"] <= k), (row, k)


def test_report_values(cli, split, tmp_path):
    out = tmp_path / "s.csv"
    code, _, err = cli(
        "sampled",
        "--quiet",
        *split_options(split),
        "--scores",
        f"A={split['a']}",
        "--scores",
        f"B={split['b']}",
        "--n",
        "6",
        "--seed",
        "3",
        *sum((["-k", str(k)] for k in KS), []),
        "--format",
        "csv",
        "-o",
        out,
    )
    assert code == 0, err
    table = pl.read_csv(out)
    assert table.height == 2 * 2 * len(KS) * 6  # systems x measures x cutoffs x estimators
    for system, name in (("A", "a"), ("B", "b")):
        success = success_by_eval(cli, split, tmp_path, name)
        for k in KS:
            row = table.filter(
                (pl.col("system") == system)
                & (pl.col("measure") == "recall")
                & (pl.col("k") == k)
                & (pl.col("estimator") == "exact")
            )
            want = np.mean([v for (q, kk), v in success.items() if kk == k])
            assert row["value"][0] == pytest.approx(want) and row["difference"][0] == 0.0
    sampled = table.filter(pl.col("estimator") == "sampled")
    assert (sampled["value"] >= sampled["exact"]).all()  # 6 drawn items never outrank the full ranking
    assert set(table["kendall_tau"].drop_nulls().to_list()) <= {-1.0, 1.0}  # two systems
    assert (table.filter(pl.col("estimator") == "exact")["kendall_tau"].drop_nulls() == 1.0).all()
    assert json.loads((tmp_path / "s.csv.manifest.json").read_text())["parameters"]["seed"] == 3


def test_plot_png_and_deterministic_pdf(cli, split, tmp_path):
    base = [
        *split_options(split),
        "--scores",
        f"A={split['a']}",
        "--n",
        "6",
        "--seed",
        "3",
        "-o",
        tmp_path / "t.txt",
    ]
    for fig in ("r.png", "r1.pdf", "r2.pdf"):
        code, _, err = cli(
            "sampled", "--quiet", *base[:-1], tmp_path / f"{fig}.txt", "--plot", tmp_path / fig
        )
        assert code == 0, err
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "r1.pdf").read_bytes() == (tmp_path / "r2.pdf").read_bytes()
    text = (tmp_path / "r.png.txt").read_text()
    assert text.startswith("recall@1\n") and "Kendall tau-b" in text


def test_usage_errors(cli, split):
    code, _, err = cli("sampled", *split_options(split), "--scores", f"A={split['a']}")
    assert (
        code == 2
        and err == "trecrs sampled: error: one-plus-random draws random items: give a seed (--seed S)\n"
    )
    code, _, err = cli(
        "sampled", *split_options(split), "--scores", f"A={split['a']}", "--seed", "1", "--lambda", "2"
    )
    assert code == 2 and "argument --lambda" in err
    code, _, err = cli(
        "sampled",
        *split_options(split),
        "--scores",
        f"A={split['a']}",
        "--scores",
        f"A={split['b']}",
        "--seed",
        "1",
    )
    assert code == 2 and "share a name" in err
