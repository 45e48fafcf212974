"""The README's "Bring your own recommender": a LensKit CSV and JSON top-N lists, turned into runs by
``trecrs run`` and scored by ``trecrs eval`` like the plain score files (in-process; a CSV on standard
input goes through ``python -m trecrs run``, a real process)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_in_process

TRAIN = "1\t10\t4\t0\n1\t11\t3\t0\n2\t10\t5\t0\n3\t12\t1\t0\n"
TEST = "1\t12\t5\t0\n1\t13\t4\t0\n2\t13\t4\t0\n3\t13\t2\t0\n"
SCORES = [
    ("1", "12", 0.9),
    ("1", "13", 0.5),
    ("2", "11", 0.7),
    ("2", "12", 0.7),
    ("2", "13", 0.1),
    ("3", "10", 1.0),
    ("3", "11", 0.2),
    ("3", "13", -1.0),
]


def _run(t, scores, out, *extra):
    res = run_in_process(
        "run",
        "--methodology",
        "all-items",
        "--train",
        t / "tr",
        "--test",
        t / "te",
        "--scores",
        t / scores,
        "--tag",
        "x",
        "-o",
        t / out,
        *extra,
    )
    assert res.returncode == 0, res.stderr
    return (t / out).read_bytes()


def test_readme_lenskit_csv_and_top_n_jsonl(tmp_path):
    t = tmp_path
    (t / "tr").write_text(TRAIN)
    (t / "te").write_text(TEST)
    (t / "plain.scores").write_text("".join(f"{u} {i} {s}\n" for u, i, s in SCORES))
    (t / "preds.csv").write_text("user,item,score\n" + "".join(f"{u},{i},{s}\n" for u, i, s in SCORES))
    lists = {"1": ["12", "13"], "2": ["12", "11", "13"], "3": ["10", "11", "13"]}  # the scores' order
    (t / "top.jsonl").write_text(
        "".join(json.dumps({"user": u, "items": v}) + "\n" for u, v in lists.items())
    )
    (t / "top.ranks").write_text(
        "".join(f"{u} {i} {k}\n" for u, v in lists.items() for k, i in enumerate(v, 1))
    )
    assert _run(t, "preds.csv", "csv.run") == _run(t, "plain.scores", "plain.run")
    assert _run(t, "top.jsonl", "top.run", "--missing", "drop") == _run(
        t, "top.ranks", "ranks.run", "--ranks", "--missing", "drop"
    )
    assert run_in_process("qrels", "--test", t / "te", "--threshold", "4", "-o", t / "q").returncode == 0
    got = {}
    for name in ("csv.run", "top.run"):
        res = run_in_process("eval", "-m", "P.1", "-m", "recip_rank", t / "q", t / name)
        assert res.returncode == 0, res.stderr
        got[name] = res.stdout
    # user 1 ranks 12 (rel) first; user 2 ranks 12, 11 (a 0.7 tie: item id descending), 13 (rel): 1/3;
    # user 3 has no relevant rating, so no qrels query
    assert got["csv.run"] == got["top.run"]
    assert got["csv.run"].split() == ["recip_rank", "all", "0.6667", "P_1", "all", "0.5000"]


def test_a_csv_on_standard_input_is_detected_and_tagged_stdin(tmp_path):
    import subprocess
    import sys

    t = tmp_path
    (t / "tr").write_text(TRAIN)
    (t / "te").write_text(TEST)
    (t / "plain.scores").write_text("".join(f"{u} {i} {s}\n" for u, i, s in SCORES))
    csv = "userID,itemID,prediction\n" + "".join(f"{u},{i},{s}\n" for u, i, s in SCORES)
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "trecrs",
            "run",
            "--methodology",
            "AI",
            "--train",
            t / "tr",
            "--test",
            t / "te",
            "--scores",
            "-",
            "-o",
            t / "stdin.run",
        ],
        input=csv,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr
    plain = _run(t, "plain.scores", "plain.run").decode()
    assert (t / "stdin.run").read_text() == plain.replace(" x\n", " stdin\n")


def test_parquet_candidates_give_the_run_of_the_text_ones(cli, tmp_path):
    """``run --candidates`` reads Parquet (columns query, user, item; integer ids read as text) as the text
    file ``trecrs candidates`` writes; ``candidates -o *.parquet`` writes that Parquet."""
    import polars as pl

    (tmp_path / "tr").write_text(TRAIN)
    (tmp_path / "te").write_text(TEST)
    (tmp_path / "s.txt").write_text("".join(f"{u} {i} {s}\n" for u, i, s in SCORES))
    split = ["--train", tmp_path / "tr", "--test", tmp_path / "te"]
    for out in ("c.tsv", "c.parquet"):
        code, _, err = cli("candidates", "--methodology", "one-plus-random", "--n", "2", "--seed", "3",
                           "--relevant-threshold", "4", *split, "-o", tmp_path / out)  # fmt: skip
        assert code == 0, err
    text = pl.read_csv(tmp_path / "c.tsv", separator="\t", has_header=False, new_columns=["query", "user", "item"],
                       schema_overrides=[pl.Utf8] * 3)  # fmt: skip
    assert pl.read_parquet(tmp_path / "c.parquet").equals(text) and text.height == 5
    ints = text.with_columns(pl.col("user", "item").cast(pl.Int64))  # as another tool may write them
    ints.write_parquet(tmp_path / "ints.parquet")
    runs = []
    for cands in ("c.tsv", "c.parquet", "ints.parquet"):
        code, _, err = cli("run", "--candidates", tmp_path / cands, "--scores", tmp_path / "s.txt", "--missing", "last",
                           "--tag", "x", "-o", tmp_path / f"{cands}.run")  # fmt: skip
        assert code == 0, err
        runs.append((tmp_path / f"{cands}.run").read_bytes())
    assert runs[0] == runs[1] == runs[2] and runs[0].count(b"\n") == 5
    pl.concat([text, text.tail(1)]).write_parquet(tmp_path / "dup.parquet")
    code, _, err = cli(
        "run", "--candidates", tmp_path / "dup.parquet", "--scores", tmp_path / "s.txt", "-o", tmp_path / "r"
    )
    assert code == 3 and err.endswith(f"dup.parquet: row 6: duplicate candidates entry for query "
                                      f"{text['query'][-1]!r}, item {text['item'][-1]!r} (first seen on row 5)\n")  # fmt: skip


def test_the_default_tag_is_the_file_name_without_its_last_extension(tmp_path):
    """One fold's systems keep distinct tags: fold1.SVD50.scores -> fold1.SVD50, fold1.pop.scores -> fold1.pop
    (not both fold1); a .gz goes first; the manifest records the tag; eval's tidy table names each run."""
    import gzip

    t = tmp_path
    (t / "tr").write_text(TRAIN)
    (t / "te").write_text(TEST)
    plain = "".join(f"{u} {i} {s}\n" for u, i, s in SCORES)
    (t / "fold1.SVD50.scores").write_text(plain)
    (t / "fold1.pop.scores").write_text("".join(f"{u} {i} {-s}\n" for u, i, s in SCORES))
    (t / "fold1.gz.scores.gz").write_bytes(gzip.compress(plain.encode()))
    tags = {}
    for name in ("fold1.SVD50.scores", "fold1.pop.scores", "fold1.gz.scores.gz"):
        res = run_in_process("run", "--methodology", "all-items", "--train", t / "tr", "--test", t / "te",
                             "--scores", t / name, "-o", t / f"{name}.run")  # fmt: skip
        assert res.returncode == 0, res.stderr
        tags[name] = {line.split()[5] for line in (t / f"{name}.run").read_text().splitlines()}
        manifest = json.loads((t / f"{name}.run.manifest.json").read_text())
        assert {manifest["parameters"]["tag"]} == tags[name]
    assert tags == {
        "fold1.SVD50.scores": {"fold1.SVD50"},
        "fold1.pop.scores": {"fold1.pop"},
        "fold1.gz.scores.gz": {"fold1.gz"},
    }


@pytest.mark.parametrize(
    "path,tag",
    [
        ("fold1.SVD50.scores", "fold1.SVD50"),
        ("fold1.pop.scores", "fold1.pop"),
        ("out/fold1.SVD50.scores.gz", "fold1.SVD50"),
        ("preds.parquet", "preds"),
        ("runs.d/svd", "svd"),  # a dot in a folder's name is not the file's
        ("my scores.txt", "my_scores"),  # a run tag is one word
        (".scores", ".scores"),
        ("-", "stdin"),
    ],
)
def test_default_tag(path, tag):
    """The rule of the default tag (trecrs.protocol.runs.default_tag), which --tag's help states."""
    from trecrs.protocol.runs import default_tag

    assert default_tag(path) == tag
