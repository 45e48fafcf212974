"""Every ```python block of README.md and docs/*.md runs as written, or says why it cannot.

A block of docs/*.md runs with the page's earlier blocks, in order and in one namespace, in an empty folder
holding the files the pages read (``qrels.txt`` and ``run.txt``: sample_data's tiny qrels and run;
``u1.base``: training ratings written here); each page's values are then checked against numbers worked
out by hand below. The README's blocks are marked ``<!-- readme-test: run -->`` and run by
tests/test_readme.py. A block that cannot run here (a cluster to connect to, a package trecrs does not
install) is marked ``<!-- docs-test: skip: REASON -->`` just above it; it is still compiled, and
:data:`SKIPPED` lists every one, so that a new one is a decision.
"""

from __future__ import annotations

import math
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.test_readme import MARK as README_MARK
from tests.warned import recorded

ROOT = Path(__file__).resolve().parents[1]
SKIP = re.compile(r"<!-- docs-test: skip: (.+?) -->\n$")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

#: The blocks that do not run, by page and block number (from 1), with the reason their marker gives.
SKIPPED = {
    ("docs/scaling.md", 1): "connects to a dask scheduler at tcp://head:8786",
    ("docs/scaling.md", 2): "starts a SLURM cluster (dask_jobqueue, a batch system)",
}

# u1.base: training ratings of users 1-4; training counts 10: 3, 50: 2, 20, 30, 40: 1 each, 9 and 60: none
TRAIN = (
    "1\t50\t4\t1\n2\t10\t5\t1\n2\t50\t3\t1\n3\t10\t4\t1\n3\t20\t2\t1\n4\t10\t3\t1\n4\t30\t4\t1\n4\t40\t5\t1\n"
)
# tiny.run in trec_eval's order (score descending, ties by doc id descending as bytes: "9" > "30", "60" > "10");
# tiny.qrels: query 1 judges 10 (5), 20 (3), 30 (1); query 2 judges 10 (4), 40 (2); query 3 has no ranking
RANKED = {"1": ["10", "9", "30", "20"], "2": ["40", "60", "10"]}
AP = {"1": (1 / 1 + 2 / 3 + 3 / 4) / 3, "2": (1 / 1 + 2 / 3) / 2}
UNCOVERED = (
    "1 of 3 (33.3%) qrels queries have no line in the run: left out of the averages, as trec_eval does "
    "(-c would count them, scoring 0)"
)
UNJUDGED = "1 of 3 (33.3%) run queries have no qrels: not evaluated, as trec_eval does"


class Block(NamedTuple):
    page: str  # path from the repository's root
    number: int  # from 1, in the page
    code: str
    mark: str  # the marker comment just above it, "" without one


def _blocks(page: str) -> list[Block]:
    text = (ROOT / page).read_text()
    out = []
    for number, match in enumerate(BLOCK.finditer(text), 1):
        before = text[: match.start()].rstrip(" ")
        mark = before.rsplit("\n", 2)[-2] if before.count("\n") >= 2 else ""
        out.append(Block(page, number, match.group(1), mark if mark.startswith("<!--") else ""))
    return out


def _pages() -> list[str]:
    return ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]


def _skip_reason(block: Block) -> str | None:
    found = SKIP.match(block.mark + "\n")
    return found.group(1) if found else None


def test_every_python_block_is_run_or_says_why_not():
    """README blocks carry the run mark, docs blocks run unless marked; the skipped ones are SKIPPED, and compile."""
    skipped = {}
    for block in (b for page in _pages() for b in _blocks(page)):
        reason = _skip_reason(block)
        if reason is not None:
            skipped[block.page, block.number] = reason
            compile(block.code, f"{block.page} block {block.number}", "exec")
        elif block.page == "README.md":
            assert block.mark == README_MARK, f"README.md block {block.number}: run by tests/test_readme.py?"
        else:
            assert block.mark == "", f"{block.page} block {block.number}: unknown marker {block.mark!r}"
    assert skipped == SKIPPED
    for page in _pages():  # Python fenced under another name would be missed
        assert not re.search(r"^```(py|pycon|python3|ipython)\b", (ROOT / page).read_text(), re.M), page


def _engines(ns: dict, warnings: list[str]) -> None:
    """pytrec_eval's dict: the queries of both files, AP, P@5, P@10 and nDCG@10 by hand; no coverage warning."""
    assert warnings == []
    results = ns["results"]
    assert list(results) == ["1", "2"]
    assert [results[q]["map"] for q in ("1", "2")] == pytest.approx([AP["1"], AP["2"]], abs=1e-15)
    assert [(results[q]["P_5"], results[q]["P_10"]) for q in ("1", "2")] == [(3 / 5, 3 / 10), (2 / 5, 2 / 10)]
    assert list(results["1"]) == ["map", "P_5", "P_10", "ndcg_cut_10"]  # the order the page's comment shows
    # nDCG@10 with the grades as gains: query 1 ranks 10 (5), 9, 30 (1), 20 (3); query 2 40 (2), 60, 10 (4)
    ndcg = {
        "1": (5 + 1 / math.log2(4) + 3 / math.log2(5)) / (5 + 3 / math.log2(3) + 1 / math.log2(4)),
        "2": (2 + 4 / math.log2(4)) / (4 + 2 / math.log2(3)),
    }
    assert [results[q]["ndcg_cut_10"] for q in ("1", "2")] == pytest.approx([ndcg["1"], ndcg["2"]], abs=1e-15)


def _measures(ns: dict, warnings: list[str]) -> None:
    """P@10; AUC: non-relevant documents below each relevant one (query 1: 9 above 30 and 20, query 2: 60
    above 10); novelty: -log2(training count / 4 training users), items without one left out; then the
    dhr measure the page registers, at relevance level 4 (query 1: 10 at rank 1; query 2: 10 at rank 3)."""
    import trecrs

    summary = ns["result"].summary
    assert list(summary) == ["P_10", "auc", "novelty_10"]
    self_info = {"10": -math.log2(3 / 4), "20": 2.0, "30": 2.0, "40": 2.0}
    known = [[self_info[d] for d in docs if d in self_info] for docs in RANKED.values()]
    assert summary["P_10"] == pytest.approx((3 / 10 + 2 / 10) / 2, abs=1e-15)
    assert summary["auc"] == pytest.approx((1 / 3 + 1 / 2) / 2, abs=1e-15)
    assert summary["novelty_10"] == pytest.approx(sum(sum(k) / len(k) for k in known) / 2, abs=1e-12)
    assert warnings == [  # tiny.run lacks query 3, ranks query 4 (no qrels), and ranks 4 and 3 documents
        UNCOVERED,
        UNJUDGED,
        "2 of 2 (100.0%) evaluated queries retrieve fewer than 10 documents, the deepest cutoff asked for: the "
        "missing ranks are counted as non-relevant",
    ]
    with recorded() as dhr_warnings:
        dhr = trecrs.evaluate("qrels.txt", "run.txt", ["dhr.1,3"], relevance_level=4, average_all=True)
    assert dhr_warnings == [UNJUDGED]  # -c: query 3 counts, scoring 0
    assert dhr.to_dict() == {
        "1": {"dhr_1": 1.0, "dhr_3": 1.0},
        "2": {"dhr_1": 0.0, "dhr_3": 1 / math.log2(4)},
    }
    assert dhr.summary == pytest.approx({"dhr_1": (1 + 0 + 0) / 3, "dhr_3": (1 + 0.5 + 0) / 3}, abs=1e-15)


#: What each page's examples must compute; a page with runnable blocks and no entry here fails.
CHECKS: dict[str, Callable[..., None]] = {"docs/engines.md": _engines, "docs/measures.md": _measures}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty folder holding the files the examples read, as the working directory."""
    shutil.copy(ROOT / "sample_data" / "tiny.qrels", tmp_path / "qrels.txt")
    shutil.copy(ROOT / "sample_data" / "tiny.run", tmp_path / "run.txt")
    (tmp_path / "u1.base").write_text(TRAIN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _runnable_pages() -> list[str]:
    return [p for p in _pages()[1:] if any(_skip_reason(b) is None for b in _blocks(p))]


@pytest.mark.parametrize("page", _runnable_pages())
def test_the_python_blocks_of_a_docs_page_run(page, folder, own_measures):
    """The page's blocks in order, in one namespace; then its values (measures a page registers are
    removed after the test by the own_measures fixture)."""
    namespace: dict = {}
    with recorded() as warnings:
        for block in _blocks(page):
            if _skip_reason(block) is None:
                exec(compile(block.code, f"{page} block {block.number}", "exec"), namespace)  # noqa: S102
    CHECKS[page](namespace, warnings)
