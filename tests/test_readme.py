"""The README's examples run as written: every ```python block marked ``<!-- readme-test: run -->`` is
executed, in order and in one namespace, in a folder holding the small files they read; the shell path of
"From ratings to qrels and runs" runs on the bundled sample (slow). tests/test_docs_examples.py checks
that every ```python block of the README and docs/ is run or says why not."""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import pytest

from trecrs.errors import TrecrsWarning

ROOT = Path(__file__).resolve().parents[1]
MARK = "<!-- readme-test: run -->"
BLOCK = re.compile(re.escape(MARK) + r"\n```python\n(.*?)```", re.S)

# ratings.csv: MovieLens' layout; each user's latest rating is 5, 5 and 3 (user 3 has no relevant test rating)
RATINGS = "userId,movieId,rating,timestamp\n" + "".join(
    f"{u},{10 * (k + 1) + u},{r},{100 + k}\n"
    for u, ratings in ((1, (3, 4, 5, 5)), (2, (3, 4, 5, 5)), (3, (5, 4, 2, 3)))
    for k, r in enumerate(ratings)
)


def _blocks() -> list[str]:
    return BLOCK.findall((ROOT / "README.md").read_text())


def test_the_marked_blocks_are_the_python_section():
    text = (ROOT / "README.md").read_text()
    assert len(_blocks()) == text.count(MARK) == text.count("```python") == 4


def test_readme_python_blocks_run(tmp_path, monkeypatch, capsys):
    pytest.importorskip("pandas")
    shutil.copy(ROOT / "sample_data" / "tiny.qrels", tmp_path / "qrels.txt")
    shutil.copy(ROOT / "sample_data" / "tiny.run", tmp_path / "run.txt")
    (tmp_path / "ratings.csv").write_text(RATINGS)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TrecrsWarning)
        for i, block in enumerate(_blocks()):
            exec(compile(block, f"README.md block {i + 1}", "exec"), namespace)  # noqa: S102 - the README's own code
    out = capsys.readouterr().out
    # the printed summary and trec_eval text of the first block, as its comments say
    assert out.startswith("{'map': 0.8194444444444444, 'P@2': 0.5, 'ndcg_cut_10': 0.8394623104882655}\n")
    assert "map                   \tall\t0.8194\n" in out and out.endswith("{'P@1': 1.0}\n")
    assert len(namespace["folds"]) == 2
    # tiny.run lacks query 3 and ranks query 4, which has no qrels; the last run ranks user 3, who has none
    assert [str(w.message) for w in caught if w.filename == "README.md block 1"][:2] == [
        "1 of 3 (33.3%) qrels queries have no line in the run: left out of the averages, as trec_eval does "
        "(-c would count them, scoring 0)",
        "1 of 3 (33.3%) run queries have no qrels: not evaluated, as trec_eval does",
    ]


# ------------------------------------------------------------------------------ the shell path of the README

SHELL_SECTION = "## From ratings to qrels and runs"


def _shell_blocks(section: str = SHELL_SECTION) -> list[str]:
    """The ```sh blocks of one section of the README, in order."""
    body = (ROOT / "README.md").read_text().split(f"\n{section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", body, re.S)


def _typed_commands(blocks: list[str]) -> list[str]:
    """The command lines as a shell reads them (continuations joined, comments and blanks left out)."""
    text = "\n".join(blocks).replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in text.splitlines() if line.strip()]


def test_the_shell_path_is_typed_as_users_type_it():
    """Every line is the `trecrs` command; the path uses the built-in recommenders and reads what it wrote."""
    commands = _typed_commands(_shell_blocks())
    assert all(c.startswith("trecrs ") for c in commands)
    assert [c.split()[1] for c in commands] == ["split", "qrels", "candidates", "recommend", "recommend", "run",
                                                "run", "eval"]  # fmt: skip
    written = {"splits/fold1.train", "splits/fold1.test"}  # the k-fold split's first fold
    for c in commands[1:]:
        words = c.split()
        read = [w for w in words if "." in w and not w.startswith("-") and words[words.index(w) - 1] != "-o"]
        assert set(read) <= written | {"P.10", "ndcg_cut.10"}, (c, read)
        written |= {words[i + 1] for i, w in enumerate(words) if w == "-o"}


def _pop_precision_at_10(splits: Path) -> float:
    """P@10 of toppop's AllItems run, with pandas: each test user's items not rated in training (of all
    items of train and test), by training count descending, ties by item id descending as text (trec_eval's
    order); relevant = a test rating >= 4; the mean over users with a relevant test rating."""
    import pandas as pd

    cols = ["user", "item", "rating", "ts"]
    train = pd.read_csv(splits / "fold1.train", sep="\t", names=cols, dtype={"user": str, "item": str})
    test = pd.read_csv(splits / "fold1.test", sep="\t", names=cols, dtype={"user": str, "item": str})
    pop = train.groupby("item").size().reindex(sorted(set(train.item) | set(test.item)), fill_value=0)
    ranked = pd.DataFrame({"item": pop.index, "pop": pop.to_numpy()}).sort_values(
        ["pop", "item"], ascending=[False, False]
    )
    rated = train.groupby("user").item.agg(set)
    precisions = []
    for user, g in test.groupby("user"):
        relevant = set(g.item[g.rating >= 4])
        if relevant:
            top = [i for i in ranked.item if i not in rated.get(user, set())][:10]
            precisions.append(len(relevant.intersection(top)) / 10)
    return sum(precisions) / len(precisions)


@pytest.mark.slow
def test_the_shell_path_runs_on_the_sample(tmp_path):
    """The section's ```sh blocks, as written, in an empty folder holding the bundled sample_data: every
    file named is written, each run tagged after its score file, and toppop's P@10 is what pandas computes.
    The `trecrs` calls run in one process (tests.command_server); slow all the same (about 10 s: SVD50 and
    the 162,326 all-items pairs scored, ranked and evaluated twice)."""
    import subprocess

    from tests.command_server import commands_in_one_process

    pytest.importorskip("pandas")
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    script = "set -euo pipefail\n" + "\n".join(_shell_blocks())
    with commands_in_one_process(tmp_path) as env:
        done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                              check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    splits = tmp_path / "splits"
    assert sorted(p.name for p in splits.iterdir() if not p.name.endswith(".json")) == [
        f"fold{k}.{role}" for k in range(1, 6) for role in ("test", "train")
    ]
    for name in ("fold1.qrels", "fold1.pairs", "fold1.SVD50.scores", "fold1.pop.scores"):
        assert (tmp_path / f"{name}.manifest.json").exists(), name
    for tag in ("fold1.SVD50", "fold1.pop"):
        assert {line.split()[5] for line in (tmp_path / f"{tag}.run").read_text().splitlines()} == {tag}
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows[0] == ["run", "query", "measure", "value"]
    values = {(run, measure): float(value) for run, _, measure, value in rows[1:]}
    assert set(values) == {
        (r, m) for r in ("fold1.SVD50.run", "fold1.pop.run") for m in ("P_10", "ndcg_cut_10")
    }
    assert values["fold1.pop.run", "P_10"] == pytest.approx(_pop_precision_at_10(splits), abs=1e-12)


def test_the_set_up_is_two_commands_with_times_measured_on_an_idle_machine():
    """Set up: exactly two commands (install + the main job on the sample; install + the fast suite), each
    naming files that exist; the times say where they were measured and where tests/README.md breaks them
    down (the section it names exists)."""
    section = (ROOT / "README.md").read_text().split("\n## Set up\n", 1)[1].split("\n## ", 1)[0]
    assert _shell_blocks("## Set up") == [
        "python3 -m pip install -e . && trecrs reproduce bellogin2011 out/sample\n",
        'python3 -m pip install -e ".[test]" && python3 -m pytest -q -m "not slow" -n auto\n',
    ]
    assert "bellogin2011" in (ROOT / "trecrs" / "reproductions" / "__init__.py").read_text()
    assert (ROOT / "sample_data" / "synth-100k-like" / "u.data").exists()
    prose = " ".join(section.split())
    assert re.search(
        r"from its seed; \d+ s after the install, measured on 2 cores with nothing else running", prose
    )
    assert re.search(
        r"fast suite .*: \d+ s after the install, measured on 2 cores with nothing else running", prose
    )
    assert '`tests/README.md`, "How long the suites take, and why"' in prose
    assert "\n## How long the suites take, and why\n" in (ROOT / "tests" / "README.md").read_text()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^test = \[.*"pytest-xdist', pyproject, re.M)  # -n auto needs it
