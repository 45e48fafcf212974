"""The Tamm et al. (2021) reproduction: its findings and report on small hand-made tables, its table of
measure names, the published values, one CLI round trip on a tiny ratings file, and the whole reproduction
on MovieLens 100K (slow) against an EASE ranking and precision computed here with numpy."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from tests.conftest import ML100K, need, run_command
from trecrs.measures.dialects import FRAMEWORKS, parse_dialect
from trecrs.reproductions import END_TO_END, REPORTS
from trecrs.reproductions.tamm2021 import CLAIMS, LIBRARIES, METRICS, PUBLISHED, check_findings
from trecrs.reproductions.tamm2021.constants import RESULTS_COLUMNS, UNAVAILABLE
from trecrs.reproductions.tamm2021.published import published_value
from trecrs.reproductions.tamm2021.text import markdown

SCHEMA = dict(zip(RESULTS_COLUMNS, (pl.Utf8, pl.Utf8, pl.Utf8, pl.Float64, pl.Utf8), strict=True))


def table(values: dict[str, dict[str, float | None]]) -> pl.DataFrame:
    """A results table: library -> metric -> value (None: not available in this version)."""
    rows = [
        (lib, m, f"x:{m}", v, "computed" if v is not None else UNAVAILABLE)
        for lib, by_metric in values.items()
        for m, v in by_metric.items()
    ]
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


# The paper's pattern (res_full.csv, rounded): precision, recall, hit rate agree; MAP five values; NDCG two;
# MRR all but DaisyRec; MS Recommenders = rs_metrics on MAP; RecBole = RePlay on MAP.
PAPER_LIKE = {
    "DaisyRec": {"Precision@20": 0.0575, "Recall@20": 0.0963, "HitRate@20": 0.4746, "MAP@20": 0.0230, "MRR@20": 0.2749, "NDCG@20": 0.0933},
    "RecBole": {"Precision@20": 0.0575, "Recall@20": 0.0963, "HitRate@20": 0.4746, "MAP@20": 0.0393, "MRR@20": 0.1863, "NDCG@20": 0.0933, "AUC": 0.6866},
    "Elliot": {"Precision@20": 0.0575, "Recall@20": 0.0963, "HitRate@20": 0.4746, "MAP@20": 0.0730, "MRR@20": 0.1863, "NDCG@20": 0.0898, "AUC": 0.6882},
    "MS Recommenders": {"Precision@20": 0.0575, "Recall@20": 0.0963, "MAP@20": 0.0317, "NDCG@20": 0.0933, "AUC": 0.6866},
    "rs_metrics": {"Precision@20": 0.0575, "Recall@20": 0.0963, "HitRate@20": 0.4746, "MAP@20": 0.0317, "MRR@20": 0.1863, "NDCG@20": 0.0933},
    "RePlay": {"Precision@20": 0.0575, "Recall@20": 0.0963, "HitRate@20": 0.4746, "MAP@20": 0.0393, "MRR@20": 0.1863, "NDCG@20": 0.0933},
    "NeuRec": {"Precision@20": 0.0575, "Recall@20": 0.0963, "HitRate@20": 0.4746, "MAP@20": 0.0029, "MRR@20": 0.1863, "NDCG@20": 0.0933},
}  # fmt: skip


def verdicts(values: dict[str, dict[str, float | None]]) -> dict[str, bool]:
    return {f.claim: f.holds for f in check_findings(table(values))}


def test_every_claim_holds_on_the_papers_pattern():
    got = verdicts(PAPER_LIKE)
    assert set(got) == set(CLAIMS)  # every library the rules compare is present: every rule applies
    assert all(got.values()), [c for c, ok in got.items() if not ok]


def test_findings_fail_where_the_table_says_otherwise():
    changed = {lib: dict(v) for lib, v in PAPER_LIKE.items()}
    changed["Elliot"]["Recall@20"] = 0.1  # one library off: recall no longer agrees
    changed["DaisyRec"]["MRR@20"] = 0.1  # below the others
    changed["NeuRec"]["MAP@20"] = 0.0393  # four MAP values, no longer the most divergent? NDCG has 2
    changed["RePlay"]["MAP@20"] = 0.0393 * (1 + 1e-7)  # within the agreement tolerance: still RecBole's
    got = verdicts(changed)
    assert got["Recall@20 is the same in every library"] is False
    assert got["MRR@20 is the same in every library but DaisyRec, whose MRR@20 is higher"] is False
    assert got["MAP@20 takes at least five distinct values across the libraries"] is False
    assert got["MAP@20 takes more distinct values than any other metric"] is True  # 4 against 2
    assert got["RecBole's and RePlay's MAP@20 agree"] is True
    assert got["Precision@20 is the same in every library"] is True


def test_rules_without_their_libraries_are_not_checked():
    got = verdicts({lib: PAPER_LIKE[lib] for lib in ("RecBole", "Elliot")})
    assert "MRR@20 is the same in every library but DaisyRec, whose MRR@20 is higher" not in got
    assert "MS Recommenders' and rs_metrics' MAP@20 agree" not in got
    assert got["MAP@20 takes at least five distinct values across the libraries"] is False


def test_report_has_a_row_per_metric_a_column_per_library_and_the_published_table():
    values: dict[str, dict[str, float | None]] = {lib.label: {} for lib in LIBRARIES}
    values["RecBole"] = {"Precision@20": 0.0611, "MAP@20": 0.0549}
    values["Elliot"] = {"Precision@20": 0.0611, "MAP@20": 0.0777}
    values["DaisyRec"] = {"Precision@20": None}  # a prefix this version lacks
    res = table(values)
    text = markdown(res, check_findings(res), {"ratings": 10, "users": 2}, 1.5, "ml-100k")
    header = next(line for line in text.splitlines() if line.startswith("| metric | RecBole"))
    assert header.split(" | ")[1:4] == ["RecBole", "Elliot", "DaisyRec"]
    rows: dict[str, list[str]] = {}  # our table comes first; the published one repeats the metrics
    for line in text.splitlines():
        if line.startswith("| "):
            rows.setdefault(line.split(" | ")[0][2:], line.split(" | "))
    assert set(METRICS) <= set(rows)
    assert rows["MAP@20"][1:3] == ["0.0549", "0.0777"]
    assert "| Precision@20 | 0.0611 | 0.0611 | n/a† |" in text
    assert "`x:Precision@20`" in text  # named among those not available in this version
    assert "| MAP@20 | 0.0230* | 0.0393 | 0.0730 | 0.0317 | 0.0317 |" in text  # published, 4 decimals
    assert "| **holds** | Precision@20: 0.0611: RecBole, Elliot |" in text
    assert "Not checked" in text and "NeuRec" in text


def test_published_values_are_res_full_csv():
    # spot values of res_full.csv (compare_metrics, commit deb2ca8), typed here from the file
    assert published_value("Elliot", "MAP@20") == 0.07298532565140084
    assert published_value("DaisyRec", "MAP@20") == 0.022970972145948697  # the authors' '*' dropped
    assert published_value("DaisyRec", "AUC@20") is None  # FAILED
    assert published_value("RecSys2019_DL_Eval", "HitRate@20") == 1.150384193194292
    assert published_value("OpenRec", "NDCG@20") == 0.4626283
    assert published_value("MS_Recommenders", "MRR@20") is None
    assert all(set(v) == set(METRICS) for v in PUBLISHED.values())
    # the paper's five MAP@20 values (NeuRec, DaisyRec, MS Recommenders, RecBole, Elliot)
    maps = {round(v, 6) for lib in PUBLISHED if (v := published_value(lib, "MAP@20")) is not None}
    assert len(maps) == 5


@pytest.mark.parametrize("name", [n for lib in LIBRARIES for n in lib.names.values()])
def test_each_measure_name_parses_where_its_prefix_is_registered(name):
    prefix = name.partition(":")[0]
    if prefix not in FRAMEWORKS:
        pytest.skip(f"prefix {prefix}: not available in this version")
    assert parse_dialect(name) is not None


def test_registry_declares_how_each_reproduction_runs():
    assert list(END_TO_END) == ["bellogin2011", "cremonesi2010", "tamm2021"]
    assert [n for n, r in END_TO_END.items() if r.batches] == ["bellogin2011", "cremonesi2010"]
    assert "tamm2021" not in REPORTS and {"bellogin2011", "cremonesi2010"} <= set(REPORTS)
    assert END_TO_END["tamm2021"].files() == ["results.tsv", "tamm2021_spread.png", "report.md"]


def _tiny_ratings(path):
    """12 users rating 8 of 15 items each, user u's j-th rating at time 1000 + 100 j + u: the latest 20%
    are every user's last ratings, so each test user has training ratings."""
    lines = []
    for u in range(1, 13):
        for j in range(8):
            i = (u * 5 + j * 7) % 15 + 1
            lines.append(f"{u}\t{i}\t{(u * i + j) % 5 + 1}\t{1000 + j * 100 + u}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_without_data_is_one_error_line_and_writes_nothing(tmp_path):
    p = run_command("reproduce", "tamm2021", tmp_path / "none")
    assert p.returncode == 2 and not (tmp_path / "none").exists() and p.stdout == ""
    assert (
        p.stderr
        == "trecrs reproduce: error: argument --data: tamm2021 reads MovieLens 100K: give its folder\n"
    )


def test_no_warm_relevant_user_is_a_semantic_error_and_writes_nothing(tmp_path):
    from trecrs.errors import SemanticError
    from trecrs.reproductions import reproduce

    # user u rates at times 100 u + j: the latest 20% are the last two users' ratings, none in training
    lines = [f"{u}\t{j + 1}\t5\t{100 * u + j}" for u in range(1, 11) for j in range(5)]
    (tmp_path / "cold.data").write_text("\n".join(lines) + "\n")
    with pytest.raises(SemanticError, match="no test user with training ratings rated an item 5"):
        reproduce("tamm2021", tmp_path / "out", data=tmp_path / "cold.data")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow  # about 5 s alone, most of it matplotlib's import and the figure
def test_cli_round_trip(tmp_path):
    data = _tiny_ratings(tmp_path / "tiny.data")
    out = tmp_path / "out"
    p = run_command("reproduce", "tamm2021", out, "--data", data)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0].startswith("Precision@20 is the same in every library: ")
    assert "trecrs: split:" not in p.stderr  # progress only on a terminal
    names = sorted(x.name for x in out.iterdir())
    assert names == sorted(f"{n}{m}" for n in ("results.tsv", "report.md", "tamm2021_spread.png")
                           for m in ("", ".manifest.json"))  # fmt: skip
    res = pl.read_csv(out / "results.tsv", separator="\t")
    assert res.columns == list(RESULTS_COLUMNS)
    manifest = json.loads((out / "report.md.manifest.json").read_text())
    assert manifest["parameters"]["counts"]["users"] == 2


def _ease_precision(train: pl.DataFrame, rel: dict[str, set[str]], lam: float, k: int) -> float:
    """Mean precision@k of EASE's ranking of each user's unseen training items, computed densely here."""
    users = sorted(train["user"].unique().to_list())
    items = sorted(train["item"].unique().to_list())
    ui, ii = {u: n for n, u in enumerate(users)}, {i: n for n, i in enumerate(items)}
    x = np.zeros((len(users), len(items)))
    x[[ui[u] for u in train["user"]], [ii[i] for i in train["item"]]] = 1.0
    p = np.linalg.solve(x.T @ x + lam * np.eye(len(items)), np.eye(len(items)))
    s = x @ (np.eye(len(items)) - p / np.diag(p))
    out = []
    for u, relevant in rel.items():
        row = np.where(x[ui[u]] > 0, -np.inf, s[ui[u]])
        top = np.argsort(-row, kind="stable")[:k]
        out.append(sum(items[t] in relevant for t in top) / k)
    return float(np.mean(out))


@pytest.mark.slow
def test_ml100k_end_to_end(tmp_path):
    from trecrs.data.datasets import load
    from trecrs.reproductions import reproduce

    data = need(ML100K)
    result = reproduce("tamm2021", tmp_path / "out", data=data)
    counts = result.extra["counts"]
    ratings = load(data).sort("timestamp", maintain_order=True)  # the latest 20%: the last 20,000 lines
    train, test = ratings.head(80_000), ratings.tail(20_000)
    warm = test.filter(pl.col("user").is_in(train["user"].implode()) & (pl.col("rating") == 5))
    rel = {u: set(g["item"].to_list()) for (u,), g in warm.group_by("user")}
    assert counts["users"] == len(rel) and counts["relevant"] == warm.height
    got = result.results.filter(pl.col("measure") == "recbole:precision@20")["value"].item()
    assert got == pytest.approx(_ease_precision(train, rel, 0.5, 20), abs=1e-12)
    text = (tmp_path / "out" / "report.md").read_text()
    assert all(f"| {m} |" in text for m in METRICS)


def test_options_a_reproduction_does_not_take_are_usage_errors(tmp_path, capsys):
    from trecrs.cli import main

    out = tmp_path / "out"
    assert main(["reproduce", "tamm2021", str(out), "--data", str(tmp_path), "--jobs", "3"]) == 2
    assert main(["reproduce", "cremonesi2010", str(out), "--folds", "u1"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "trecrs reproduce: error: argument --jobs: tamm2021 takes no jobs",
        "trecrs reproduce: error: argument --folds: cremonesi2010 takes no folds",
    ]
    assert not out.exists()


def test_the_folds_reproduce_offers_are_bellogin2011s():
    from trecrs.cli.reproduce import FOLDS
    from trecrs.reproductions.bellogin2011.constants import SPLITS

    assert FOLDS == tuple(f for folds in SPLITS.values() for f in folds)
