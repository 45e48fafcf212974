"""``trecrs eval-factors``: byte for byte what ``trecrs eval`` prints for the written AllItems run (ML-100K
size, rank 16, forced ties, ids whose bytewise order differs from their numeric order); errors."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from trecrs.engines.vectorized.factors import factor_scores
from trecrs.files.trec import write_qrels

from ..evaluate.test_factors import _excluded, ml100k_like


def _factors(path, column: str, ids, matrix) -> str:
    pl.DataFrame({column: ids, "factors": pl.Series(matrix).cast(pl.List(pl.Float32))}).write_parquet(path)
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    qrels, train, p, q, users, items = ml100k_like(seed=41)
    tmp = tmp_path_factory.mktemp("cli_factors")
    write_qrels(qrels, tmp / "qrels")
    train.with_columns(pl.lit(4).alias("rating")).write_csv(
        tmp / "train.tsv", separator="\t", include_header=False
    )
    u, i = np.nonzero(~_excluded(train, users, items))
    text = np.char.mod("%.9g", factor_scores(p, q)[u, i].astype(np.float64))
    run = pl.DataFrame({"u": np.array(users)[u], "i": np.array(items)[i], "s": text})
    run.select(pl.format("{} Q0 {} 0 {} f", "u", "i", "s")).write_csv(tmp / "run", include_header=False,
                                                                       quote_style="never")  # fmt: skip
    return dict(qrels=tmp / "qrels", run=tmp / "run", train=tmp / "train.tsv",
                user=_factors(tmp / "user.parquet", "user", users, p),
                item=_factors(tmp / "item.parquet", "item", items, q))  # fmt: skip


@pytest.mark.parametrize(
    "flags",
    [
        ["-q"],
        ["-q", "-m", "P.10", "-m", "recall.50", "-m", "ndcg_cut.50", "-m", "map"],
        ["-q", "-m", "bpref", "-m", "Rprec", "-M", "30"],
        ["-q", "-J", "-c", "-l", "2"],
        ["-m", "P@10", "-m", "nDCG@50", "--format", "tsv"],
    ],
)
def test_prints_what_eval_prints_for_the_run(cli, files, flags):
    code, out, err = cli("eval-factors", *flags, files["qrels"], "--train", files["train"], "--user-factors",
                         files["user"], "--item-factors", files["item"], "--block-users", "200")  # fmt: skip
    assert code == 0, err
    code, want, err_want = cli("eval", *flags, files["qrels"], files["run"])
    assert code == 0
    if "--format" in flags:  # the tidy table names the run by its file
        out, want = out.replace(files["user"], "RUN"), want.replace(str(files["run"]), "RUN")
    assert out == want.replace("\tf\n", "\ttrecrs\n")
    assert err == err_want.replace("trecrs eval:", "trecrs eval-factors:")


def test_errors_name_file_and_row(cli, files, tmp_path):
    bad = tmp_path / "item.parquet"
    pl.DataFrame({"item": ["a", "b"], "factors": [[1.0, 2.0], [1.0]]}).write_parquet(bad)
    code, _, err = cli("eval-factors", files["qrels"], "--train", files["train"], "--user-factors", files["user"],
                       "--item-factors", bad)  # fmt: skip
    assert code == 3
    assert err == f"trecrs eval-factors: error: {bad}: row 2: 1 factors, row 1 has 2\n"
    dup = tmp_path / "user.parquet"
    pl.DataFrame({"user": [1, 1], "factors": [[1.0], [1.0]]}).write_parquet(dup)
    code, _, err = cli("eval-factors", files["qrels"], "--train", files["train"], "--user-factors", dup,
                       "--item-factors", files["item"])  # fmt: skip
    assert code == 3 and "row 2: duplicate" in err and str(dup) in err
    code, _, err = cli("eval-factors", files["qrels"], "--train", files["train"], "--user-factors", files["user"],
                       "--item-factors", files["item"], "-M", "-1")  # fmt: skip
    assert code == 2 and err.endswith(
        "argument -M/--Max_retrieved_per_topic: must be 0 or more documents, got -1 "
        "(trec_eval crashes on a negative -M)\n"
    )
