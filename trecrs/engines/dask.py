"""The ``dask`` engine: the vectorized engine on partitions of the queries, on a dask.distributed cluster.

Every query is evaluated on its own (trec_eval's measures are per query), so the work splits by query:
the qrels and the run are cut into partitions by a hash of the query id, one task per partition runs
exactly the vectorized engine's code on it (:func:`~.vectorized.compute_files`), and the caller combines
the answers with
:meth:`~.base.Computed.concat`; :func:`trecrs.evaluate.finalize` puts the queries in trec_eval's order,
so the output is byte-identical to the vectorized engine's.

Partitioned dataset layout (a directory given as the qrels or the run, :data:`PART`): files
``part-00000.parquet`` ... ``part-{N-1}.parquet``, each a trecrs Parquet qrels or run (columns query,
doc, rel / query, doc, score, tag optional); a query lives in part :func:`partition_of` (blake2b of the
id with :data:`PARTITION_SALT`, modulo N), in both qrels and run. A text or Parquet file is partitioned
that way into a temporary directory (``TMPDIR``: on a cluster, a directory every worker can read), after
the existing readers have checked it, so errors still name the file and line. The runid is the tag of the
run's last line; of a partitioned run, the last row of its last part that has rows.

dask and distributed are an optional extra (``pip install trecrs[dask]``), imported only when the engine
runs. Engine options: ``scheduler`` (an address ``tcp://host:8786`` or a ``distributed.Client``; none:
the caller's current client if any, else a :class:`distributed.LocalCluster` sized to the machine, closed
afterwards) and ``partitions`` (number of partitions of a file; default 2 per worker thread).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl

from ..errors import InputError, UsageError
from ..files.trec import read_qrels, read_run_for_scoring
from ..ids import hash_ids
from ..measures.request import MeasureRequest
from ..measures.ties import TIE_MODES
from ..ranges import PARTITIONS_MAX
from ..schema import DOC, QUERY, REL, SCORE
from .base import Computed, Engine, FileComputed, QueryStats, register_engine
from .vectorized import compute as vectorized_compute
from .vectorized import compute_files as vectorized_compute_files
from .vectorized import supports

PART = "part-{:05d}.parquet"  # the name of partition i of a partitioned dataset
PARTITION_SALT = b"trecrs-partition"  # blake2b personalisation of the partition hash (16 bytes at most)
_STATS_SCHEMAS = (
    {QUERY: pl.Utf8, "top": pl.Int64, "relevant": pl.Int64},
    {QUERY: pl.Utf8, "retrieved": pl.Int64},
)


def _distributed():
    """The ``distributed`` module, or a :class:`UsageError` saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise UsageError("engine 'dask' needs dask.distributed: pip install trecrs[dask]") from None
    return distributed


# ------------------------------------------------------------------------------------------ partitions


def partition_of(queries: pl.Series, n: int) -> np.ndarray:
    """The partition (0..n-1) of each query id: ``blake2b(id, person=PARTITION_SALT) mod n``, as int64.

    The hash is :func:`trecrs.ids.hash_ids`: the same on every machine and in every process.
    """
    return (hash_ids(queries.cast(pl.Utf8), salt=PARTITION_SALT) % np.uint64(n)).astype(np.int64)


def write_partitions(frame: pl.DataFrame, directory: str | os.PathLike, n: int) -> list[Path]:
    """``frame`` (a qrels or run with a ``query`` column) as ``n`` Parquet parts in ``directory`` laid
    out as :data:`PART` says (every part written, empty or not; rows keep their order); ids as strings."""
    keys = frame.select(pl.col(QUERY).unique())
    keys = keys.with_columns(pl.Series("_part", partition_of(keys.get_column(QUERY), n)))
    ids = [c for c in (QUERY, DOC) if c in frame.columns]
    frame = frame.join(keys, on=QUERY, how="left", maintain_order="left").with_columns(
        pl.col(ids).cast(pl.Utf8)
    )
    pieces = frame.partition_by("_part", as_dict=True, include_key=False)
    empty = frame.drop("_part").clear()
    os.makedirs(directory, exist_ok=True)
    paths = [Path(directory) / PART.format(i) for i in range(n)]
    for i, path in enumerate(paths):
        pieces.get((i,), empty).write_parquet(path, statistics=False)
    return paths


def dataset_parts(directory: str | os.PathLike) -> list[Path]:
    """The parts of a partitioned dataset, in partition order; an error unless they are exactly
    ``part-00000.parquet`` .. ``part-{N-1}.parquet``."""
    found = sorted(p.name for p in Path(directory).glob("*.parquet"))
    expected = [PART.format(i) for i in range(len(found))]
    if not found or found != expected:
        raise InputError(
            directory,
            None,
            f"a partitioned dataset holds {PART.format(0)} .. part-N.parquet "
            f"(docs/scaling.md); found {found[:3]}{' ...' if len(found) > 3 else ''}",
        )
    return [Path(directory) / name for name in found]


def _check_placement(path: Path, queries: pl.Series, index: int, n: int) -> None:
    """An error naming ``path`` when one of its queries belongs in another part (layouts that disagree)."""
    uniq = queries.unique()
    where = partition_of(uniq, n)
    wrong = np.flatnonzero(where != index)
    if wrong.size:
        q = uniq.cast(pl.Utf8)[int(wrong[0])]
        raise InputError(
            path,
            None,
            f"query {q!r} belongs in {PART.format(int(where[wrong[0]]))}, not here: "
            f"parts hold the queries whose id hashes to them (docs/scaling.md)",
        )


def _partitioned(qrels, run, n: int, tmp: str) -> tuple[list[Path], list[Path], str | None]:
    """The qrels and run parts (a directory is used as it is, a file is checked and partitioned into
    ``tmp`` to match) and the run's tag (None: the last part's, known when the parts are read)."""
    qdir, rdir = Path(qrels).is_dir(), Path(run).is_dir()
    rparts = dataset_parts(run) if rdir else None
    qparts = dataset_parts(qrels) if qdir else None
    if qparts is not None and rparts is not None and len(qparts) != len(rparts):
        raise UsageError(
            f"the qrels have {len(qparts)} parts and the run {len(rparts)}: partition both alike"
        )
    n = len(rparts) if rparts is not None else len(qparts) if qparts is not None else n
    tag = None
    if rparts is None:
        run_df, tag = read_run_for_scoring(run)  # every line checked here, errors name the file and line
        rparts = write_partitions(run_df.select(QUERY, DOC, SCORE), Path(tmp) / "run", n)
        del run_df
    if qparts is None:
        qparts = write_partitions(read_qrels(qrels).select(QUERY, DOC, REL), Path(tmp) / "qrels", n)
    return qparts, rparts, tag


# ------------------------------------------------------------------------------------------ a task


def evaluate_part(qrels_path, run_path, index: int, n: int, request: MeasureRequest, **flags) -> FileComputed:
    """One partition, by the vectorized engine's own :func:`~.vectorized.compute_files` (runs on a worker):
    read lean, duplicates found while ranking and then named by part and row; then the placement check.

    The tag is that of the part's last row, None when the part has no run rows.
    """
    out = vectorized_compute_files(qrels_path, run_path, request, **flags)
    for path, stats in ((qrels_path, out.stats.qrels), (run_path, out.stats.run)):
        _check_placement(Path(path), stats.get_column(QUERY), index, n)
    if out.stats.run.height == 0:
        out.tag = None
    return out


# ------------------------------------------------------------------------------------------ the driver


@contextlib.contextmanager
def connected(scheduler=None) -> Iterator:
    """A ``distributed.Client``: ``scheduler`` itself when it is one, connected to it when it is an
    address, else the current client if any, else a LocalCluster sized to the machine (one single-threaded
    worker process per core: numpy and polars keep their own threads), closed on leaving."""
    distributed = _distributed()
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    if scheduler:
        with _client_at(distributed, scheduler) as client:
            yield client
        return
    current = _current_client(distributed)
    if current is not None:
        yield current
        return
    cores = os.cpu_count() or 1
    with (
        environ_kept(),
        distributed.LocalCluster(n_workers=cores, threads_per_worker=1, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@contextlib.contextmanager
def environ_kept() -> Iterator[None]:
    """``os.environ`` as it was on entry, restored on leaving.

    A LocalCluster of worker processes writes ``OMP_NUM_THREADS=1``, ``OPENBLAS_NUM_THREADS=1``... (its
    ``pre-spawn-environ``) into the *calling* process's environment, where every program started later
    inherits them; a recommender whose BLAS then runs on one thread sums in another order and writes other
    scores. The caller's environment is not the engine's to change.
    """
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _client_at(distributed, address: str):
    """A client connected to the scheduler at ``address``; a :class:`UsageError` when it cannot be reached."""
    try:
        return distributed.Client(address)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(
            f"cannot reach the dask scheduler at {address!r}: {str(exc).splitlines()[0]}",
            arguments=["scheduler"],
        ) from None


def _current_client(distributed):
    try:
        return distributed.default_client()
    except ValueError:  # no client in this process
        return None


def _threads(client) -> int:
    return max(1, sum(client.nthreads().values()))


def compute_files(
    qrels,
    run,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    complete: bool = False,
    scheduler=None,
    partitions: int | None = None,
    ties: str = "trec_eval",
) -> FileComputed:
    """Partition, evaluate every part on the cluster (one task each), combine (:attr:`Engine.compute_files`)."""
    if partitions is not None and partitions < 1:
        raise UsageError(f"partitions must be a positive number, got {partitions}", arguments=["partitions"])
    if partitions is not None and partitions > PARTITIONS_MAX:  # every part is a file and a task
        raise UsageError(
            f"partitions must be at most {PARTITIONS_MAX}, got {partitions}", arguments=["partitions"]
        )
    flags = dict(
        relevance_level=relevance_level, judged_only=judged_only, depth=depth, complete=complete, ties=ties
    )
    with connected(scheduler) as client, tempfile.TemporaryDirectory(prefix="trecrs-dask-") as tmp:
        n = partitions or 2 * _threads(client)
        qparts, rparts, tag = _partitioned(qrels, run, n, tmp)
        n = len(rparts)
        futures = [
            client.submit(evaluate_part, str(q), str(r), i, n, request, **flags, pure=False)
            for i, (q, r) in enumerate(zip(qparts, rparts, strict=True))
        ]
        parts = client.gather(futures)
    return combine(parts, tag)


def combine(parts: list[FileComputed], tag: str | None = None) -> FileComputed:
    """One answer from the answers of the partitions (in partition order); ``tag`` None: the last
    part's that has one ("trecrs" when no part has a row)."""
    if tag is None:
        tag = next((p.tag for p in reversed(parts) if p.tag is not None), "trecrs")
    stats = QueryStats(
        *(
            pl.concat(
                [pl.DataFrame(schema=schema), *(getattr(p.stats, side) for p in parts)],
                how="vertical_relaxed",
            )
            for side, schema in zip(("qrels", "run"), _STATS_SCHEMAS, strict=True)
        )
    )
    return FileComputed(Computed.concat([p.computed for p in parts]), tag, stats)


def compute(
    qrels: pl.DataFrame,
    run: pl.DataFrame,
    request: MeasureRequest,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    ties: str = "trec_eval",
) -> pl.DataFrame:
    """Frames (:attr:`Engine.compute`): split by :func:`partition_of`, the vectorized engine's ``compute``
    on each part on the current client (or a LocalCluster), rows in bytewise query order."""
    with connected() as client:
        n = 2 * _threads(client)
        qpart, rpart = (partition_of(f.get_column(QUERY), n) for f in (qrels, run))
        futures = [
            client.submit(
                vectorized_compute,
                qrels.filter(qpart == i),
                run.filter(rpart == i),
                request,
                relevance_level=relevance_level,
                judged_only=judged_only,
                depth=depth,
                ties=ties,
                pure=False,
            )
            for i in np.unique(rpart).tolist()
        ]
        frames = [f for f in client.gather(futures) if f.height]
    if not frames:
        return pl.DataFrame({QUERY: []}, schema={QUERY: pl.Utf8})
    return pl.concat(frames, how="diagonal_relaxed").sort(QUERY)


ENGINE = register_engine(
    Engine(
        name="dask",
        compute=compute,
        supports=supports,
        description="the vectorized engine on query partitions, on a dask.distributed cluster (pip install trecrs[dask])",
        compute_files=compute_files,
        empty_rankings=True,
        tie_modes=tuple(TIE_MODES),
    )
)
