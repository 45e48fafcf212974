"""The README's Python examples run as written: every ```python block marked ``<!-- readme-test: run -->``
is executed, in order and in one namespace, in a folder holding the small files they read."""

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
