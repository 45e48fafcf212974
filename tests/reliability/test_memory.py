"""No input may exhaust memory or time: every command, on small random inputs with extreme numbers.

Hypothesis draws a command (``trecrs eval`` on every engine, and the other commands), two-line-sized
inputs and extreme values for every number a request can carry: relevance grades, cutoffs, gain
parameters, utility coefficients, ``-l``, ``-M``, ``-N``, ``relstring`` lengths, ranks, scores, counts
(``--n``, ``--depth``, ``--folds``, ``-k``, ...). Each command runs in a worker process limited to
:data:`MEMORY` bytes of data (``RLIMIT_DATA``) and :data:`SECONDS` per command; it must succeed (status 0)
or fail with one documented line (status 2, 3, 4 or 5, one line ``trecrs CMD: error: ...``): never
``out of memory``, an internal error (70), a traceback, a signal or a timeout. Before the bounds of
``docs/errors.md`` (*Numbers*), a qrels line of grade 2147483647 with ``-m ndcg.1=0,4=4`` asked for a
per-grade table of 2^31 entries and was killed.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.run import Worker

MEMORY = 1 << 30  # 1 GB: a command on these inputs needs about 300 MB (polars and numpy loaded)
SECONDS = 30
FAST_CASES = 300
SLOW_CASES = 2500

C_LONG = 2**63 - 1
# valid values, and values each command refuses (drawn a quarter as often: most cases should get to work)
RELS = ("0", "1", "2", "3", "-1", "1000", "100000", "2147483646", "2147483647", "-2147483649", str(-(2**63)))
BAD_RELS = ("2147483648", str(C_LONG))
SCORES = ("0", "1", "-1", "0.5", "1e38", "3.4028235e38", "1e308", "-1e308", "inf", "-inf", "1e-45", "5e-324")
RANKS = ("1", "0", "-1", "2147483647", str(C_LONG), "99999999999999999999", "1.5")
CUTOFFS = (
    "1",
    "2",
    "5",
    "1000",
    "100000",
    "2147483647",
    "2147483648",
    "4294967296",
    "1000000000000",
    str(C_LONG),
)
BAD_COUNTS = ("0", "-1", str(C_LONG + 1))
COUNTS = CUTOFFS + BAD_COUNTS
LEVELS = ("0", "1", "2", "4", "1000000", "2147483647", "2147483648", str(C_LONG), "-1")
GAINS = ("0", "1", "-1", "0.5", "4", "2147483647", "3e9", "1e308", "-1e308", "inf", "-inf", "nan", "1e-300")


@st.composite
def files(draw) -> tuple[str, str, str]:
    """A qrels and a run of one to three queries, a few documents each, extreme grades, scores and ranks;
    a score file (user item score) of the corpus's users and items, extreme scores and ranks."""
    qrels, run = [], []
    for q in range(1, draw(st.integers(1, 3)) + 1):
        for d in draw(st.lists(st.integers(1, 6), min_size=1, max_size=4, unique=True)):
            qrels.append(f"{q} 0 d{d} {draw(_mostly(RELS, BAD_RELS))}")
        for d in draw(st.lists(st.integers(1, 6), min_size=int(q == 1), max_size=5, unique=True)):
            run.append(f"{q} Q0 d{d} {draw(st.sampled_from(RANKS))} {draw(st.sampled_from(SCORES))} t")
    scores = [f"{u} {i} {draw(st.sampled_from(SCORES + RANKS))}" for u in range(1, 7)
              for i in draw(st.lists(st.integers(1, 13), max_size=4, unique=True))]  # fmt: skip
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n", "\n".join(scores) + "\n"


def _mostly(good: tuple[str, ...], bad: tuple[str, ...]):
    """``good`` values, and now and then one of ``bad``."""
    return st.sampled_from(good * 4 + bad)


def _pairs(draw) -> str:
    return ",".join(f"{draw(st.sampled_from(LEVELS))}={draw(st.sampled_from(GAINS))}"
                    for _ in range(draw(st.integers(1, 3))))  # fmt: skip


@st.composite
def measure(draw) -> str:
    """A measure request with extreme parameters."""
    cut = lambda: draw(st.sampled_from(CUTOFFS))  # noqa: E731
    gain = lambda: draw(st.sampled_from(GAINS))  # noqa: E731
    return draw(st.sampled_from((
        f"P.{cut()}", f"recall.{cut()}", f"ndcg_cut.{cut()}", f"map_cut.{cut()}", f"success.{cut()}",
        f"Rprec_mult.{gain()}", f"iprec_at_recall.{gain()}", f"relstring.{cut()}", f"utility.{gain()},{gain()},{gain()},{gain()}",
        f"ndcg.{_pairs(draw)}", f"ndcg_rel.{_pairs(draw)}", f"Rndcg.{_pairs(draw)}", f"G.{_pairs(draw)}", "ndcg", "map",
        "all_trec", "num_rel", "relstring", f"nDCG@{cut()}", f"HR@{cut()}", f"MAP@{cut()}", f"RR@{cut()}",
        f"ndcg_cut.{cut()},{cut()}", f"set_P.{gain()}", "Rprec", "bpref", "infAP",
        # recommender measures (docs/measures.md), cutoffs and parameters as extreme
        f"gini.{cut()}", f"entropy.{cut()}", f"novelty.{cut()}", f"arp.{cut()}", f"precision_tail.{cut()}",
        f"catalog_coverage.{cut()}", f"precision.{cut()}", f"mcc.{cut()}", f"f1_cut.{cut()}", f"f_beta.{gain()}",
        f"opr_recall.{cut()}", f"lauc.{cut()}", f"ktau_bool.{cut()}", f"halflife.{gain()}", "auc", "ndpm",
    )))  # fmt: skip


@st.composite
def eval_argv(draw, engine: str) -> list[str]:
    """``trecrs eval`` with extreme flags and measures on ``engine``."""
    argv = ["eval", "--engine", engine, "-q"]
    for flag in draw(st.lists(st.sampled_from(("-c", "-n", "-J")), unique=True)):
        argv.append(flag)
    for flag, values in (("-l", _mostly(LEVELS[1:-1], ("0", "-1"))), ("-M", _mostly(CUTOFFS, BAD_COUNTS)),
                         ("-N", _mostly(CUTOFFS, BAD_COUNTS))):  # fmt: skip
        if draw(st.booleans()):
            argv += [flag, draw(values)]
    for m in draw(st.lists(measure(), min_size=1, max_size=3)):
        argv += ["-m", m]
    if draw(st.booleans()):
        argv += ["--train", "train.tsv", "--test", "test.tsv"]  # what the recommender measures read
    if engine == "vectorized" and draw(st.integers(0, 9)) == 0:
        argv += ["--trec-eval-version", "10"]
    return argv + ["qrels.txt", "run.txt"]


RATINGS = "--train train.tsv --test test.tsv"
OTHERS = (  # the other commands with extreme numbers ({C} a count, {K} a cutoff, {M} a measure, {S} a small count)
    "candidates --methodology one-plus-random --seed 1 --n {C} " + RATINGS + " -o out.txt",
    "run --methodology one-plus-random --seed 1 --n {C} --scores scores.txt --missing last "
    + RATINGS
    + " -o out.txt",
    "run --methodology all-items --depth {C} --scores scores.txt --missing last " + RATINGS + " -o out.txt",
    "sampled --seed 1 --n {C} -k {K} --scores a=scores.txt --missing last " + RATINGS + " -o out.txt",
    "sensitivity --seed 1 --n {C} -m {M} --scores a=scores.txt --scores b=scores2.txt "
    + RATINGS
    + " -o out.txt",
    "split --method kfold --seed 1 --folds {C} ratings.tsv outdir",
    "split --method per-user --seed 1 --given {C} ratings.tsv outdir",
    "split --method per-user --seed 1 --all-but {C} ratings.tsv outdir",
    "split --method temporal --last {C} ratings.tsv outdir",
    "split --method temporal --cut {C} ratings.tsv outdir",
    "qrels --test test.tsv --threshold 3 --scale {C} -o out.txt",
    "compare -m {M} -M {C} --resamples 100 -o out.txt qrels.txt run.txt run2.txt",
    "compare -m {M} -l {C} -o out.txt qrels.txt run.txt run2.txt",
    "eval-factors -m {M} -M {C} --block-users {K} --train train.tsv --user-factors user.parquet "
    "--item-factors item.parquet qrels.txt",
    "compare -m {M} --resamples {K} -o out.txt qrels.txt run.txt run2.txt",
    "run --methodology all-items --scores rscores.txt --missing last " + RATINGS + " -o out.txt",
    "run --methodology all-items --scores rscores.txt --ranks --missing drop --depth {C} "
    + RATINGS
    + " -o out.txt",
    "recommend -a mf -p factors={C} -p iterations={K} --train train.tsv --candidates pairs.txt -o out.txt",
    "recommend -a {A} -p k={C} --train train.tsv --candidates pairs.txt -o out.txt",
    "recommend -a puresvd -p factors={C} --train train.tsv --candidates pairs.txt -o out.txt",
    "datasets synthetic --users {C} --items {K} --min-ratings {S} --seed 1 outdir",
)


@st.composite
def other_argv(draw) -> list[str]:
    """One of :data:`OTHERS` with extreme numbers."""
    template = draw(st.sampled_from(OTHERS))
    text = template.format(C=draw(_mostly(CUTOFFS, BAD_COUNTS)), K=draw(st.sampled_from(CUTOFFS)), M=draw(measure()),
                           A=draw(st.sampled_from(("userknn", "corngbr", "nncosngbr"))), S=draw(st.sampled_from(CUTOFFS[:3])))  # fmt: skip
    return shlex.split(text)


@pytest.fixture(scope="module")
def folder(base, tmp_path_factory) -> Path:
    """The corpus's good files, and factor files for ``eval-factors``."""
    d = tmp_path_factory.mktemp("memory")
    for name, data in base.items():
        (d / name).write_bytes(data)
    factors = pl.List(pl.Float32)
    pl.DataFrame({"user": [str(u) for u in range(1, 7)], "factors": pl.Series([[float(u), 1.0] for u in range(1, 7)]).cast(factors)}
                 ).write_parquet(d / "user.parquet")  # fmt: skip
    pl.DataFrame({"item": [str(i) for i in range(1, 14)], "factors": pl.Series([[1.0, -float(i)] for i in range(1, 14)]).cast(factors)}
                 ).write_parquet(d / "item.parquet")  # fmt: skip
    return d


@pytest.fixture(scope="module")
def worker():
    w = Worker(timeout=SECONDS, memory=MEMORY)
    yield w
    w.close()


def _absolute(argv: list[str], d: Path) -> list[str]:
    """Every word naming a file of the folder (``a=scores.txt`` included) made absolute."""
    out = []
    for word in argv:
        name, eq, path = word.rpartition("=") if "=" in word and not word.startswith("-") else ("", "", word)
        if path.endswith((".txt", ".tsv", ".parquet")) or path == "outdir":
            path = str(d / path)
        out.append(name + eq + path)
    return out


def check(worker: Worker, d: Path, argv: list[str], qrels: str, run: str, scores: str = "") -> None:
    """Run ``trecrs ARGV --quiet`` under the limits: a result, or one documented error line."""
    (d / "qrels.txt").write_text(qrels)
    (d / "run.txt").write_text(run)
    (d / "rscores.txt").write_text(scores)
    shutil.rmtree(d / "outdir", ignore_errors=True)
    got = worker.run([argv[0], "--quiet", *_absolute(argv[1:], d)])
    shown = (f"trecrs {shlex.join(argv)}\nqrels:\n{qrels}run:\n{run}rscores.txt:\n{scores}"
             f"-> status {got.status}: {got.stderr[-2000:]}")  # fmt: skip
    assert got.status in (0, 2, 3, 4, 5), shown
    if got.status:
        assert (
            got.stderr.count("\n") == 1 and got.stderr.startswith("trecrs ") and ": error: " in got.stderr
        ), shown
        assert "out of memory" not in got.stderr and "Traceback" not in got.stderr, shown


# eval on each engine, and the other commands: the fast cases are shared among them (a test each, so that
# none runs long and parallel workers can take them side by side), the slow ones draw from all at once
FAMILIES = {"vectorized": eval_argv("vectorized"), "pytrec_eval": eval_argv("pytrec_eval"), "auto": eval_argv("auto"),
            "others": other_argv()}  # fmt: skip
COMMANDS = st.one_of(*FAMILIES.values())
SETTINGS = dict(deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])  # fmt: skip


@pytest.mark.parametrize("family", list(FAMILIES))  # each its own derandomized cases
@settings(max_examples=FAST_CASES // len(FAMILIES), **SETTINGS)
@given(data=st.data())
def test_no_input_exhausts_memory(worker, folder, family, data):
    check(worker, folder, data.draw(FAMILIES[family], label="argv"), *data.draw(files(), label="inputs"))


@pytest.mark.slow
@settings(max_examples=SLOW_CASES, **{**SETTINGS, "derandomize": False})
@given(argv=COMMANDS, inputs=files())
def test_no_input_exhausts_memory_many(worker, folder, argv, inputs):
    check(worker, folder, argv, *inputs)


def test_the_reported_case_is_answered(worker, folder):
    """The report: one qrels line of grade 2147483647, ``-m P.5 -m ndcg.1=0,4=4``: trec_eval's result
    would be a table of 2^31 counters; trecrs answers at once."""
    check(worker, folder, ["eval", "-q", "-m", "P.5", "-m", "ndcg.1=0,4=4", "qrels.txt", "run.txt"],
          "1 0 d1 2147483647\n", "1 Q0 d1 1 1.0 t\n")  # fmt: skip


@pytest.mark.slow
def test_the_dask_engine_under_the_limits(folder):
    """The dask engine runs the vectorized engine's code per partition; a local cluster takes about 20 s to
    start, so it gets a few extreme cases here rather than thousands (the vectorized cases cover its
    arithmetic). Its worker processes inherit the memory limit."""
    slow = Worker(timeout=120, memory=MEMORY)
    try:
        for measures in (["P.5", "ndcg.1=0,4=4"], ["all_trec", "G.2=nan", "relstring.9223372036854775000"]):
            argv = ["eval", "--engine", "dask", "-q", "-M", str(C_LONG)]
            for m in measures:
                argv += ["-m", m]
            check(slow, folder, [*argv, "qrels.txt", "run.txt"], "1 0 d1 2147483647\n1 0 d2 1\n2 0 d3 -1\n",
                  "1 Q0 d1 1 1.0 t\n1 Q0 d2 2147483647 inf t\n2 Q0 d3 1 -1e308 t\n")  # fmt: skip
    finally:
        slow.close()


def test_a_measure_of_one_methodology_in_a_sensitivity_study_is_answered(worker, folder):
    """Found by the slow sweep: ``opr_recall`` (One-Plus-Random only) in ``sensitivity`` had no value under
    the other methodologies and the agreement table failed on it (status 70)."""
    check(worker, folder, shlex.split("sensitivity --seed 1 --n 1 -m opr_recall.1 --scores a=scores.txt "
                                      "--scores b=scores2.txt " + RATINGS + " -o out.txt"),
          "1 0 d1 0\n", "1 Q0 d1 1 0 t\n")  # fmt: skip
