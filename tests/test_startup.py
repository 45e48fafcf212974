"""Start-up: what ``import trecrs`` and ``trecrs eval`` on text files load (and so what they cost).

The public API is lazy (trecrs/lazy.py): ``import trecrs`` loads no third-party package at all, and a
command imports only its own module of ``trecrs.cli`` and the library it drives. Heavy optional packages
(scipy for statistics, pyarrow for Parquet, pandas, matplotlib, dask, threadpoolctl) are imported inside
the functions that need them. Each check runs in a fresh interpreter, since this one has loaded them all.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from trecrs.cli import COMMAND_MODULES, build_parser

HEAVY = (
    "scipy",
    "pyarrow",
    "pandas",
    "matplotlib",
    "dask",
    "distributed",
    "sklearn",
    "threadpoolctl",
    "pytrec_eval",
)

_LOADED = """
import json, sys
before = set(sys.modules)
{code}
third = sorted({{m.split(".")[0] for m in set(sys.modules) - before}} - set(sys.stdlib_module_names) - {{"trecrs"}})
ours = sorted(m for m in sys.modules if m.startswith("trecrs"))
print(json.dumps([[m for m in third if not m.startswith("_")], ours]))
"""

_EVAL = """
import contextlib, io
from trecrs.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    assert main(["eval", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "map", {qrels!r}, {run!r}]) == 0
"""


def _loaded(code: str) -> tuple[list[str], list[str]]:
    """(third-party top-level packages, trecrs modules) a fresh interpreter has after running ``code``."""
    out = subprocess.run(
        [sys.executable, "-c", _LOADED.format(code=code)], capture_output=True, text=True, check=True
    )
    third, ours = json.loads(out.stdout)
    return third, ours


def test_import_trecrs_loads_no_third_party_package():
    third, ours = _loaded("import trecrs")
    assert third == []
    assert ours == [
        "trecrs",
        "trecrs._version",
        "trecrs.errors",
        "trecrs.evaluate",
        "trecrs.evaluate.formats",
        "trecrs.lazy",
    ]


def test_eval_on_text_files_loads_numpy_and_polars_only(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n2 Q0 c 1 0.7 t\n")
    third, ours = _loaded(_EVAL.format(qrels=str(tmp_path / "q"), run=str(tmp_path / "r")))
    assert set(third) <= {"numpy", "polars", "typing_extensions"}, third
    assert not set(third) & set(HEAVY)
    commands = {m for m in ours if m.startswith("trecrs.cli.")}
    assert commands == {"trecrs.cli.common", "trecrs.cli.eval"}  # no other command's module
    unused = (
        "trecrs.recommenders",
        "trecrs.reproductions",
        "trecrs.data.datasets",
        "trecrs.data.splits",
        "trecrs.report.compare",
        "trecrs.report.sensitivity",
        "trecrs.report.figures",
    )
    assert not [m for m in ours if m.startswith(unused)]


#: What a run scored with trec_eval's measures by the vectorized engine has no use for: each is imported
#: where it is needed (a recommender measure, a dialect, ``--engine``, ``-R``, frames, user groups).
LAZY = (
    "trecrs.measures.recsys",  # every recommender measure family (and the readers they import)
    "trecrs.measures.dialects",
    "trecrs.engines.pytrec_eval",
    "trecrs.engines.dask",
    "trecrs.engines.prefs",
    "trecrs.evaluate.warm",
    "trecrs.evaluate.groups",
    "trecrs.files.frames",
    "trecrs.files.scores",
    "trecrs.files.ratings",
    "trecrs.protocol",
)


def test_eval_of_trec_eval_measures_leaves_the_other_parts_unloaded(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n2 Q0 c 1 0.7 t\n")
    code = (
        _EVAL.format(qrels=str(tmp_path / "q"), run=str(tmp_path / "r"))
        + "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import json, sys\n" + code], capture_output=True, text=True, check=True
    )
    loaded = json.loads(out.stdout)
    assert "trecrs.engines.vectorized" in loaded and "trecrs.measures.request" in loaded
    assert [m for m in loaded if m.startswith(LAZY)] == []
    assert "difflib" not in loaded  # the closest names of a misspelt measure only


def test_the_lazy_parts_load_when_asked_for(tmp_path):
    """The same files with a recommender measure, a dialect and the reference engine: each part is loaded
    then, and the values are those of the eager import (P_5 of query 1: a is relevant, b is not: 0.2)."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n2 Q0 c 1 0.7 t\n")
    q, r = str(tmp_path / "q"), str(tmp_path / "r")
    code = f"""
import contextlib, io, json, sys
from trecrs.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    assert main(["eval", "-q", "--engine", "pytrec_eval", "-m", "P.5", {q!r}, {r!r}]) == 0
    assert main(["eval", "-m", "auc", "-m", "lenskit:NDCG@10", {q!r}, {r!r}]) == 0
print(json.dumps([out.getvalue(), sorted(sys.modules)]))
"""
    text, loaded = json.loads(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    )
    assert {"trecrs.engines.pytrec_eval", "trecrs.measures.recsys", "trecrs.measures.dialects"} <= set(loaded)
    assert "P_5                   \t1\t0.2000\n" in text
    assert "trecrs.engines.dask" not in loaded  # auto chose the vectorized engine


def test_the_engine_registry_lists_every_engine_without_importing_them():
    code = """
import json, sys
from trecrs.engines import ENGINES
names = list(ENGINES)
before = "trecrs.engines.dask" in sys.modules
dask = ENGINES["dask"]
print(json.dumps([names, before, dask.name, "trecrs.engines.dask" in sys.modules, len(ENGINES)]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [["pytrec_eval", "vectorized", "dask"], False, "dask", True, 3]


def test_lazy_names_resolve_to_the_objects_they_name():
    import trecrs
    from trecrs.evaluate.api import evaluate
    from trecrs.report.compare import compare

    assert trecrs.evaluate is evaluate and trecrs.compare is compare
    assert set(trecrs.__all__) <= set(dir(trecrs))
    for name in trecrs.__all__:
        assert getattr(trecrs, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        trecrs.nope  # noqa: B018


def test_a_named_command_builds_only_its_own_parser():
    one = build_parser(["eval", "-m", "map"])
    every = build_parser()
    commands = lambda p: set(p._subparsers._group_actions[0].choices)  # noqa: E731
    assert commands(one) == {"eval"}
    assert commands(every) == set(COMMAND_MODULES)
    assert commands(build_parser(["--help"])) == set(COMMAND_MODULES)


def test_a_file_of_one_chunk_is_read_without_a_thread(tmp_path):
    """A small run and qrels are read and parsed on the caller's thread (nothing would overlap); a larger
    run is read ahead in a thread, with the same values (P_10 of the one query: 3 relevant of 10)."""
    lines = "".join(f"1 Q0 d{i} {i + 1} {100 - i} t\n" for i in range(20))
    (tmp_path / "q").write_text("1 0 d0 1\n1 0 d4 1\n1 0 d9 2\n")
    (tmp_path / "r").write_text(lines)
    code = """
import contextlib, io, json, sys, threading
import trecrs.files.trec as trec
from trecrs.cli import main
started = []
start = threading.Thread.start
threading.Thread.start = lambda self: (started.append(self.name), start(self))[1]
if len(sys.argv) > 1:
    trec._CHUNK_BYTES = 64  # several chunks: the threaded path
out = io.StringIO()
with contextlib.redirect_stdout(out):
    assert main(["eval", "-m", "P.10", {q!r}, {r!r}]) == 0
print(json.dumps([len(started), out.getvalue()]))
""".format(q=str(tmp_path / "q"), r=str(tmp_path / "r"))
    runs = [json.loads(subprocess.run([sys.executable, "-c", code, *extra], capture_output=True, text=True, check=True).stdout)
            for extra in ([], ["small-chunks"])]  # fmt: skip
    assert runs[0][0] == 0 and runs[1][0] > 0
    assert runs[0][1] == runs[1][1] == "P_10                  \tall\t0.3000\n"


def test_the_program_freezes_what_outlives_the_command(monkeypatch, tmp_path):
    """``console()`` (the ``trecrs`` program) returns main's status with the objects alive before and after
    the command frozen (no collection traverses them again); ``python -m trecrs`` prints the same bytes
    as ``main`` in-process (P_2 of query 1: a is relevant, b is not: 0.5)."""
    import contextlib
    import gc
    import io

    from trecrs import cli

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n")
    argv = ["trecrs", "eval", "-q", "-m", "P.2", str(tmp_path / "q"), str(tmp_path / "r")]
    monkeypatch.setattr("sys.argv", argv)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            assert cli.console() == 0
        frozen = gc.get_freeze_count()
    finally:
        gc.unfreeze()  # this process keeps running
    assert frozen > 0
    assert out.getvalue() == "P_2                   \t1\t0.5000\nP_2                   \tall\t0.5000\n"
    shell = subprocess.run([sys.executable, "-m", "trecrs", *argv[1:]], capture_output=True, text=True)
    assert (shell.returncode, shell.stdout, shell.stderr) == (0, out.getvalue(), "")
