"""The dask engine prints exactly what the vectorized engine prints, on a 2-worker LocalCluster.

Golden files (Bellogín et al. 2011, fold 1) and the agreement generator's corner cases, with ``-q``,
``-c`` (9.0.8 through the files, 10.0 through frames), ``-M``, ``-J``, ``-l``; files and partitioned
datasets; errors that still name the file and line (or the part and row); a worker killed mid-job.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engines.test_agreement import FLAGS, collections
from tests.warned import recorded, warned
from trecrs.engines import dask as dask_engine
from trecrs.errors import InputError, UsageError
from trecrs.evaluate import evaluate_full
from trecrs.files.trec import read_qrels, read_run
from trecrs.report.trec import format_trec

distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (pip install trecrs[dask])"
)


@pytest.fixture(scope="module")
def client():
    """Two single-threaded workers in this process: fast to start, shared by the module's tests."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cl:
        with distributed.Client(cl, set_as_default=False) as c:
            yield c


def _text(qrels, run, measures=None, *, client, options=None, **flags) -> str:
    """``trecrs eval -q`` text of the dask engine on ``client``, then the warnings it gave (:func:`_warned`)."""
    opts = {"scheduler": client, **(options or {})}
    with recorded() as said:
        ev = evaluate_full(qrels, run, measures, engine="dask", engine_options=opts, **flags)
    return _warned(format_trec(ev, per_query=True), said)


def _reference(qrels, run, measures=None, **flags) -> str:
    with recorded() as said:
        ev = evaluate_full(qrels, run, measures, engine="vectorized", **flags)
    return _warned(format_trec(ev, per_query=True), said)


def _warned(text: str, said: list[str]) -> str:
    """``text`` followed by one ``warning: ...`` line per warning: the engines must agree on both (the
    inputs' queries without qrels or relevant documents, short rankings, are the same whatever the engine)."""
    return text + "".join(f"warning: {line}\n" for line in said)


GOLDEN_FLAGS = [
    {},
    {"average_all": True},
    {"depth": 5},
    {"judged_only": True},
    {"relevance_level": 4, "depth": 20, "judged_only": True},
]


@pytest.mark.parametrize("flags", GOLDEN_FLAGS, ids=lambda f: ",".join(f) or "plain")
@pytest.mark.parametrize("run", ["IB.txt", "UB50.txt"])
def test_golden_files_byte_identical(golden, client, run, flags):
    folder = golden / "runs_test_ratings"
    qrels, path = folder / "urels_th4.txt", folder / run
    expected = _reference(qrels, path, ["all_trec"], **flags)
    assert _text(qrels, path, ["all_trec"], client=client, **flags) == expected
    assert _text(qrels, path, ["all_trec"], client=client, options={"partitions": 7}, **flags) == expected


@pytest.mark.parametrize("ties", ["expected", "best", "worst"])
def test_tie_modes_give_the_vectorized_text(golden, client, ties):
    """The authors' runs tie often (ratings predicted as 5.0): every tie mode, on the cluster as on one machine."""
    folder = golden / "runs_test_ratings"
    measures = ["P.5,10", "recall.10", "ndcg_cut.10", "map", "recip_rank"]
    expected = _reference(folder / "urels_th4.txt", folder / "UB50.txt", measures, ties=ties)
    assert (
        _text(folder / "urels_th4.txt", folder / "UB50.txt", measures, client=client, ties=ties) == expected
    )


def test_partitioned_datasets_give_the_same_text(golden, client, tmp_path):
    """Both inputs as partitioned Parquet (docs/scaling.md layout), and one of each: same text, same runid."""
    folder = golden / "runs_test_ratings"
    qrels, run = folder / "urels_th3.txt", folder / "SVD_50.txt"
    measures = ["runid", "P.5,10", "map", "ndcg_cut.10", "recip_rank"]
    expected = _reference(qrels, run, measures)
    run_df = read_run(run)
    dask_engine.write_partitions(read_qrels(qrels), tmp_path / "qrels", 5)
    dask_engine.write_partitions(run_df, tmp_path / "run", 5)
    assert _text(tmp_path / "qrels", tmp_path / "run", measures, client=client) == expected
    assert _text(qrels, tmp_path / "run", measures, client=client) == expected
    assert _text(tmp_path / "qrels", run, measures, client=client) == expected
    assert f"runid                 \tall\t{run_df.get_column('tag')[-1]}\n" in expected


def test_trec_eval_10_complete_goes_by_frames(golden, client):
    """trec_eval 10.0's ``-c`` (stand-in rankings, float64 scores) is computed on frames, partitioned too."""
    folder = golden / "runs_test_ratings"
    qrels, run = folder / "urels_th4.txt", folder / "UB50.txt"
    flags = {"average_all": True, "trec_eval_version": 10}
    with client.as_current():
        with recorded() as said:
            ev = evaluate_full(qrels, run, ["all_trec"], engine="dask", **flags)
    got = _warned(format_trec(ev, per_query=True), said)
    assert got == _reference(qrels, run, ["all_trec"], **flags)


AGREE = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@AGREE
@given(collections(), FLAGS, st.integers(1, 5))
def test_agreement_inputs_byte_identical(client, data, flags, partitions):
    """The agreement generator's corner cases (ids, ties, -0.0, negative values), as files, any partitioning."""
    qrels, run = data
    with tempfile.TemporaryDirectory() as tmp:
        qpath, rpath = Path(tmp) / "qrels.txt", Path(tmp) / "run.txt"
        qpath.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.iter_rows()))
        rpath.write_text(
            "".join(f"{q} Q0 {d} 0 {s!r} tag{i}\n" for i, (q, d, s) in enumerate(run.iter_rows()))
        )
        expected = _reference(qpath, rpath, ["all_trec"], **flags)
        assert (
            _text(qpath, rpath, ["all_trec"], client=client, options={"partitions": partitions}, **flags)
            == expected
        )


def test_a_bad_line_is_named_by_file_and_line(client, tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 x t\n")
    with pytest.raises(InputError, match=r"run\.txt:2: "):
        _text(qrels, run, client=client)


def test_worker_errors_name_the_part_and_row(client, tmp_path):
    """A repeated (query, doc) found on a worker comes back as the one-line error naming the part."""
    run = pl.DataFrame({"query": ["1", "1", "2"], "doc": ["a", "a", "b"], "score": [1.0, 2.0, 3.0]})
    qrels = pl.DataFrame({"query": ["1", "2"], "doc": ["a", "b"], "rel": [1, 1]})
    dask_engine.write_partitions(run, tmp_path / "run", 1)
    dask_engine.write_partitions(qrels, tmp_path / "qrels", 1)
    with pytest.raises(InputError, match=r"part-00000\.parquet.*row 2"):
        _text(tmp_path / "qrels", tmp_path / "run", client=client)


def test_a_query_in_the_wrong_part_is_an_error(client, tmp_path):
    run = pl.DataFrame({"query": ["1", "2", "3"], "doc": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]})
    qrels = pl.DataFrame({"query": ["1", "2", "3"], "doc": ["a", "b", "c"], "rel": [1, 1, 1]})
    dask_engine.write_partitions(qrels, tmp_path / "qrels", 2)
    (tmp_path / "run").mkdir()
    for i in range(2):
        run.write_parquet(tmp_path / "run" / f"part-0000{i}.parquet")  # every query in both parts
    with pytest.raises(InputError, match=r"belongs in part-0000\d\.parquet, not here"):
        _text(tmp_path / "qrels", tmp_path / "run", client=client)


def test_missing_dask_is_a_usage_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now raises ImportError
    with pytest.raises(UsageError, match=r"pip install trecrs\[dask\]"):
        evaluate_full(tmp_path / "q", tmp_path / "r", engine="dask")


def test_importing_trecrs_does_not_import_dask():
    code = "import sys, trecrs, trecrs.cli; print('dask' in sys.modules or 'distributed' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cli_scheduler_and_partitions(golden, cli):
    """``--engine dask --scheduler ADDRESS --partitions N`` on a running scheduler prints the same text."""
    folder = golden / "runs_test_ratings"
    args = ["-q", "-m", "P.10", "-m", "map", folder / "urels_th4.txt", folder / "UB50.txt"]
    code, expected, _ = cli("eval", *args)
    assert code == 0
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cl:
        code, out, err = cli(
            "eval", "--engine", "dask", "--scheduler", cl.scheduler_address, "--partitions", "3", *args
        )
    assert (code, out) == (0, expected), err
    code, _, err = cli("eval", "--partitions", "3", *args)
    assert code == 2 and err.endswith("argument --partitions: goes with --engine dask\n")


class KillOnce(distributed.WorkerPlugin):
    """Kills the worker process when it starts its first task, once per marker file (a crash mid-job)."""

    def __init__(self, marker: str):
        self.marker = marker

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and not os.path.exists(self.marker):
            Path(self.marker).touch()
            os._exit(1)


def test_a_killed_worker_is_retried_without_changing_the_output(golden, tmp_path):
    folder = golden / "runs_test_ratings"
    qrels, run = folder / "urels_th4.txt", folder / "IB.txt"
    expected = _reference(qrels, run, ["all_trec"])
    marker = tmp_path / "killed"
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers need not import the tests
    from trecrs.engines.dask import environ_kept

    with (
        environ_kept(),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cl,
    ):
        with distributed.Client(cl, set_as_default=False) as c:
            c.register_plugin(KillOnce(str(marker)))
            got = _text(qrels, run, ["all_trec"], client=c)
    assert marker.exists()  # a worker did die
    assert got == expected


def test_an_unreachable_scheduler_is_a_usage_error(golden):
    import dask

    folder = golden / "runs_test_ratings"
    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(UsageError, match="cannot reach"),
    ):
        evaluate_full(
            folder / "urels_th4.txt",
            folder / "UB50.txt",
            engine="dask",
            engine_options={"scheduler": "tcp://127.0.0.1:9"},
        )


def test_input_errors_survive_pickling():
    """Errors raised on a worker process travel back pickled: same class, message and exit status."""
    import pickle

    from trecrs.errors import FileAccessError

    for err in (
        InputError("run.txt", 7, "bad score"),
        FileAccessError("x/part-00001.parquet", None, "no such file"),
    ):
        back = pickle.loads(pickle.dumps(err))
        assert (type(back), str(back), back.exit_code, back.line) == (
            type(err),
            str(err),
            err.exit_code,
            err.line,
        )


def test_a_local_cluster_leaves_the_environment_as_it_was(golden):
    """A LocalCluster of processes sets OMP_NUM_THREADS=1 and the like in the calling process (its
    pre-spawn-environ); the engine puts the environment back, or every program started later (a
    recommender using BLAS) would inherit one thread."""
    import os

    before = dict(os.environ)
    folder = golden / "runs_test_ratings"
    with warned("1 of 456 .* qrels queries have no line in the run", "1 of 456 .* run queries have no qrels",
                r"move values in 276 of 455 evaluated queries \(60.7%\): map lies between 0.5725 and 0.5989"):  # fmt: skip
        evaluate_full(folder / "urels_th4.txt", folder / "UB50.txt", ["map"], engine="dask")
    assert dict(os.environ) == before
