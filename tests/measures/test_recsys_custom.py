"""Measures of the user's own (trecrs.register_measure, --measures-from, entry points): the frame they see,
-M, -J, -l, -c, parameters, the refusals, and the worked example of docs/measures.md run as written."""

from __future__ import annotations

import json
import math
import re

import polars as pl
import pytest

import trecrs
from trecrs.errors import FileAccessError, MeasureError, UsageError
from trecrs.evaluate import evaluate_full
from trecrs.measures.direction import better
from trecrs.measures.recsys.registry import listing
from trecrs.measures.trec_eval import LOWER
from trecrs.report.compare import compare

from ..conftest import ROOT, run_command, write

# the example of docs/measures.md (A measure of your own)
QRELS = "1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 a 1\n2 0 d 2\n3 0 e 1\n4 0 g 1\n"
RUN = ("1 Q0 a 1 0.9 sys\n1 Q0 c 2 0.5 sys\n1 Q0 b 3 0.25 sys\n2 Q0 b 1 2 sys\n2 Q0 d 2 1.5 sys\n"
       "3 Q0 a 1 3 sys\n3 Q0 b 2 2 sys\n3 Q0 e 3 1 sys\n")  # fmt: skip
# query 4 retrieves nothing; query 2 fewer documents than dhr.3's cutoff
pytestmark = pytest.mark.filterwarnings(
    "ignore:1 of 4 .* qrels queries have no line in the run",
    "ignore:.* evaluated queries retrieve fewer than",
    "ignore:.* evaluated queries have no relevant document at relevance level 2",
    "ignore:2 of 2 runs have no manifest",
)
HALF, THIRD = 1 / math.log2(4), 1 / math.log2(3)  # first relevant at rank 3, at rank 2


def discounted_hit(ranked: pl.DataFrame, k: int) -> pl.DataFrame:
    """1 / log2(rank + 1) of the first relevant (grade >= 1) document within the top k."""
    hits = ranked.filter((pl.col("rank") <= k) & pl.col("relevant"))
    first = hits.group_by("query").agg(pl.col("rank").min())
    return first.select("query", (1 / (pl.col("rank") + 1).log(2)).alias("value"))


@pytest.fixture
def files(tmp_path):
    return write(tmp_path / "qrels.txt", QRELS), write(tmp_path / "run.txt", RUN)


@pytest.fixture
def dhr(own_measures):
    return trecrs.register_measure("dhr", discounted_hit, params="cutoff", description="discounted hit rate")


def _values(ev, name: str) -> dict[str, float]:
    return dict(
        zip(ev.per_query.get_column("query").to_list(), ev.per_query.get_column(name).to_list(), strict=True)
    )


def test_values_per_query_and_mean_as_the_definition_gives(dhr, files):
    ev = evaluate_full(*files, ["dhr.1,3", "P.3"])
    assert _values(ev, "dhr_3") == pytest.approx({"1": 1.0, "2": THIRD, "3": HALF})
    assert _values(ev, "dhr_1") == {"1": 1.0, "2": 0.0, "3": 0.0}
    assert ev.summary["dhr_3"] == pytest.approx((1 + THIRD + HALF) / 3)
    # -c: query 4 of the qrels retrieved nothing and scores 0, as for the built-in recommender measures
    assert evaluate_full(*files, ["dhr.3"], average_all=True).summary["dhr_3"] == pytest.approx(
        (1 + THIRD + HALF) / 4
    )
    # user groups: the mean of each group's queries, and their mean absolute difference
    groups = write(files[0].parent / "groups.tsv", "1\ta\n2\ta\n3\tb\n")
    ev = evaluate_full(*files, ["dhr.3"], user_groups=groups)
    assert ev.group_means["dhr_3"] == pytest.approx({"a": (1 + THIRD) / 2, "b": HALF})
    assert ev.group_mad["dhr_3"] == pytest.approx((1 + THIRD) / 2 - HALF)
    # -M 1: query 2's d (rank 2) and query 3's e (rank 3) are cut
    assert _values(evaluate_full(*files, ["dhr.3"], depth=1), "dhr_3") == {"1": 1.0, "2": 0.0, "3": 0.0}


def test_the_frame_it_receives(own_measures, files):
    seen = []

    def keep(ranked):
        seen.append(ranked)
        return ranked.select("query", pl.lit(0.0).alias("value")).unique()

    trecrs.register_measure("seen", keep, description="the frame")
    evaluate_full(*files, ["seen"], relevance_level=2)
    frame = seen[-1]
    assert frame.columns == ["query", "rank", "doc", "rel", "num_rel", "relevant"]
    assert frame.dtypes == [pl.Utf8, pl.Int64, pl.Utf8, pl.Int64, pl.Int64, pl.Boolean]
    assert frame.rows() == [  # trec_eval's order; b is unjudged for query 2, a and b for 3; num_rel, relevant at -l 2
        ("1", 1, "a", 2, 1, True), ("1", 2, "c", 0, 1, False), ("1", 3, "b", 1, 1, False), ("2", 1, "b", None, 1, False),
        ("2", 2, "d", 2, 1, True), ("3", 1, "a", None, 0, False), ("3", 2, "b", None, 0, False),
        ("3", 3, "e", 1, 0, False)]  # fmt: skip
    evaluate_full(*files, ["seen"], judged_only=True)  # -J: unjudged documents removed before ranking
    assert seen[-1].select("query", "rank", "doc").rows() == [
        ("1", 1, "a"), ("1", 2, "c"), ("1", 3, "b"), ("2", 1, "d"), ("3", 1, "e")]  # fmt: skip


def test_a_query_left_out_scores_0_and_named_parameters_take_their_defaults(own_measures, files):
    trecrs.register_measure(
        "one", lambda r: pl.DataFrame({"query": ["1"], "value": [0.5]}), description="q1 only"
    )
    assert _values(evaluate_full(*files, ["one"]), "one") == {"1": 0.5, "2": 0.0, "3": 0.0}

    def constant(ranked, g, h):
        return ranked.select("query").unique().with_columns(pl.lit(g - h).alias("value"))

    trecrs.register_measure("gap", constant, params={"g": 0.5, "h": 0.25}, description="g - h",
                            higher_is_better=False)  # fmt: skip
    ev = evaluate_full(*files, ["gap", "gap.2", "gap.3,1"])
    assert (ev.summary["gap"], ev.summary["gap_2"], ev.summary["gap_3,1"]) == (0.25, 1.75, 2.0)
    assert better("gap_2") == LOWER


def test_compare_takes_it(dhr, files, tmp_path):
    other = write(tmp_path / "other.txt", "1 Q0 c 1 1 b\n2 Q0 d 1 1 b\n3 Q0 e 1 1 b\n")
    result = compare(files[0], [files[1], other], ["dhr.3"])
    means = {(r["system"], r["measure"]): r["mean"] for r in result.rows if r["measure"] == "dhr_3"}
    # every qrels query (a query missing from a run scores 0): (1 + 1/log2 3 + 1/2 + 0) / 4 and (0 + 1 + 1 + 0) / 4
    assert means == pytest.approx({("sys", "dhr_3"): (1 + THIRD + HALF) / 4, ("b", "dhr_3"): 0.5})


BAD = {
    "raises": (lambda r: 1 / 0, "measure bad raised ZeroDivisionError: division by zero"),
    "not a frame": (lambda r: {"query": [], "value": []}, "measure bad returned dict, not a polars DataFrame"),
    "columns": (lambda r: pl.DataFrame({"query": ["1"], "score": [1.0]}), "returned the columns query, score; "
                "expected query, value"),
    "nan": (lambda r: pl.DataFrame({"query": ["1"], "value": [math.nan]}), "returned nan for query '1', not a finite"),
    "inf": (lambda r: pl.DataFrame({"query": ["1"], "value": [math.inf]}), "returned inf for query '1'"),
    "null": (lambda r: pl.DataFrame({"query": ["2"], "value": [None]}, schema={"query": pl.Utf8, "value": pl.Float64}),
             "returned None for query '2', not a finite number"),
    "text": (lambda r: pl.DataFrame({"query": ["1"], "value": ["x"]}), "value column of type String, not numbers"),
    "twice": (lambda r: pl.DataFrame({"query": ["1", "1"], "value": [1.0, 0.0]}), "returned query '1' twice"),
    "unknown": (lambda r: pl.DataFrame({"query": ["9"], "value": [1.0]}), "returned query '9', which was not evaluated"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(BAD))
def test_a_measure_that_fails_is_one_error_naming_it(own_measures, files, case):
    fn, message = BAD[case]
    trecrs.register_measure("bad", fn, description="fails")
    with pytest.raises(MeasureError, match=re.escape(message)):
        evaluate_full(*files, ["bad"])


def test_refused_registrations_and_requests(dhr, files):
    with pytest.raises(UsageError, match="'dhr' already registered"):
        trecrs.register_measure("dhr", discounted_hit, description="again")
    for name in ("map", "ndcg_cut", "auc", "ap"):  # trec_eval's, a recommender measure, an alias
        with pytest.raises(UsageError, match=f"{name!r}"):
            trecrs.register_measure(name, discounted_hit, description="shadow")
    with pytest.raises(UsageError, match="letters, digits and _ only"):
        trecrs.register_measure("my.dhr", discounted_hit, description="dot")
    with pytest.raises(UsageError, match="params must be None, 'cutoff' or a mapping"):
        trecrs.register_measure("dhr2", discounted_hit, description="bad params", params="cutoffs")
    with pytest.raises(UsageError, match=re.escape("measure dhr needs a cutoff: dhr.k")):
        evaluate_full(*files, ["dhr"])
    with pytest.raises(UsageError, match="no tie-aware form for --ties best"):
        evaluate_full(*files, ["dhr.3"], ties="best")


def test_a_measures_file_is_imported_once_and_named_in_its_errors(own_measures, files, tmp_path):
    source = write(
        tmp_path / "m.py",
        "import trecrs\nimport polars as pl\ntrecrs.register_measure('ones', lambda r: "
        "r.select('query').unique().with_columns(pl.lit(1.0).alias('value')), description='one')\n",
    )
    trecrs.load_measures_file(source)
    trecrs.load_measures_file(str(source))  # the same file: not imported again (no duplicate)
    assert evaluate_full(*files, ["ones"]).summary["ones"] == 1.0
    assert any(line.split()[0] == "ones" and line.endswith(f"[custom, from {source}]") for line in listing())
    broken = write(tmp_path / "broken.py", "raise RuntimeError('no')\n")
    with pytest.raises(MeasureError, match=f"measures file {re.escape(str(broken))}: RuntimeError: no"):
        trecrs.load_measures_file(broken)
    with pytest.raises(FileAccessError, match="no such file"):
        trecrs.load_measures_file(tmp_path / "absent.py")


class _EntryPoint:
    """Stands for an importlib.metadata.EntryPoint: its name, value and load()."""

    def __init__(self, name: str, value: str, obj):
        self.name, self.value, self.obj = name, value, obj

    def load(self):
        return self.obj


def test_entry_points_load_once_and_only_when_a_name_is_not_found(own_measures, files, monkeypatch):
    calls = []

    def register():
        trecrs.register_measure("epm", lambda r: r.select("query").unique().with_columns(pl.lit(0.5).alias("value")),
                                description="from a package")  # fmt: skip

    def entry_points(group):
        calls.append(group)
        return [_EntryPoint("mine", "pkg.measures:register", register)] if group == "trecrs.measures" else []

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    own_measures._ENTRY_POINTS["loaded"] = False
    evaluate_full(*files, ["P.3", "auc"])  # every name found: nothing loaded
    assert calls == []
    assert evaluate_full(*files, ["epm"]).summary["epm"] == 0.5
    with pytest.raises(UsageError, match="unknown measure 'nope'"):
        evaluate_full(*files, ["nope"])
    assert calls == ["trecrs.measures"]  # once
    line = next(line for line in listing() if line.split()[0] == "epm")
    assert line.endswith("[custom, from entry point mine (pkg.measures:register)]")


def test_an_entry_point_that_fails_names_itself(own_measures, files, monkeypatch):
    def broken():
        raise ImportError("no module named x")

    monkeypatch.setattr("importlib.metadata.entry_points", lambda group: [_EntryPoint("bad", "x:y", broken)])
    own_measures._ENTRY_POINTS["loaded"] = False
    with pytest.raises(
        MeasureError, match=re.escape("entry point bad (x:y): ImportError: no module named x")
    ):
        evaluate_full(*files, ["unheard_of"])


def _docs_example() -> tuple[list[str], str]:
    """The code blocks of docs/measures.md's "A measure of your own", in order, and the command it shows."""
    text = (ROOT / "docs" / "measures.md").read_text()
    section = text.split("## A measure of your own", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\w+\n(.*?)```", section, flags=re.DOTALL)
    return blocks, blocks[-1].splitlines()[0].removeprefix("$ trecrs ")


def test_the_worked_example_of_the_docs_prints_what_they_show(tmp_path):
    """The one CLI round trip: the documented dhr.py, qrels and run, by --measures-from in a real process."""
    (code, qrels, run, output), command = _docs_example()
    for name, text in (("dhr.py", code), ("qrels.txt", qrels), ("run.txt", run)):
        write(tmp_path / name, text)
    names = {"dhr.py", "qrels.txt", "run.txt"}  # the checkout's trecrs runs from its root: paths in full
    done = run_command(*[str(tmp_path / w) if w in names else w for w in command.split()])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert [line.split() for line in done.stdout.splitlines()] == [
        line.split() for line in output.splitlines()[1:]
    ]
    dhr_3 = float(done.stdout.splitlines()[-1].split()[-1])
    assert dhr_3 == round((1 + THIRD + HALF + 0) / 4, 4)


def test_list_measures_shows_where_each_came_from(own_measures, cli, tmp_path):
    source = write(tmp_path / "dhr.py", _docs_example()[0][0])
    status, out, err = cli("eval", "--measures-from", source, "--list-measures")
    assert status == 0, err
    assert re.search(
        rf"\n  dhr\.k\[,\.\.\.\] +1/log2\(rank\+1\) .* \[custom, from {re.escape(str(source))}\]\n", out
    )
    qrels, run = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.txt", RUN)
    out = tmp_path / "out.txt"
    status, _, err = cli("eval", "--quiet", "--measures-from", source, "-m", "dhr.3", "-o", out, qrels, run)
    assert status == 0, err
    assert out.read_text() == f"dhr_3                 \tall\t{(1 + THIRD + HALF) / 3:.4f}\n"
    manifest = json.loads((tmp_path / "out.txt.manifest.json").read_text())
    assert manifest["inputs"]["measures_from0"]["path"] == str(source)  # its code decides the values
    status, _, err = cli("eval", "--measures-from", tmp_path / "absent.py", "-m", "dhr.3", source, source)
    assert (status, err) == (5, f"trecrs eval: error: {tmp_path / 'absent.py'}: no such file\n")
