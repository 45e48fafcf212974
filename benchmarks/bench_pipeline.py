"""Time each step of the ratings-to-scores pipeline (split, qrels, run, eval, audit) beside plain polars.

The data are benchmarks/generate_pipeline.py's shapes (``small``, ``ml20m-tenth``, ``ml20m``, ``netflix``):
``ratings.tsv`` and ``top100.tsv`` under ``--data-root``/pipeline-<shape>/ (generated there when missing).
Each command is a separate process under ``/usr/bin/time -v``: wall time and peak resident memory, medians
over ``--runs``; the 1-minute load average is recorded before each run (the machine may be shared, so the
polars row is timed in the same sitting and the ratio is the figure to read). Rows of a step:

* ``trecrs``: the ``python -m trecrs`` command of :data:`STEPS` (``PYTHONPATH`` = this checkout);
* ``polars``: a plain polars script doing the same rows' work (:data:`SCRIPTS`): read with a schema, the
  duplicate (user, item) check trecrs's reader makes, the same selection, the same files written;
* ``baseline`` (``--baseline DIR``): the trecrs command with ``PYTHONPATH=DIR`` (an older checkout), once;
* ``pytrec_eval`` (step ``eval``, when pytrec_eval is installed): the run and qrels read with polars into
  pytrec_eval's dicts, then ``RelevanceEvaluator.evaluate`` of the same measures.

A row killed after ``--timeout`` seconds is recorded with ``wall: null``, the seconds it ran and the peak
memory sampled from /proc while it ran. Steps: ``split-*`` for each method (``kfold``: all 5 folds, the whole
command's work), ``qrels --threshold 4`` of the temporal split's test file, ``run-*`` for each methodology
(``--missing drop`` from ``top100.tsv``, the temporal split), ``eval`` (map, P.10, ndcg_cut.10, recip_rank of
the all-items run; polars: read the run and the qrels, join them, count each query's relevant items) and
``audit`` (the split, the qrels and the all-items run; polars: read the four files, anti-join the run's
pairs with the training pairs, semi-join them with the qrels, semi-join test with train, group by query).
A step's inputs are the trecrs outputs of the steps before it (made once, untimed, when missing; the polars
outputs when the trecrs step could not finish). Outputs go to ``--work``/<shape>/<step>/<row>/. Results are
merged into ``benchmarks/results/pipeline-<shape>.json`` (``--results``), so steps can be re-run one at a time.

    python benchmarks/bench_pipeline.py --shape small                            # every step, 3 runs
    python benchmarks/bench_pipeline.py --shape ml20m --runs 1 --timeout 300 \\
        --data-root /work/main/benchmarks/data --steps split-temporal,qrels
    python benchmarks/bench_pipeline.py --shape ml20m --table                     # the markdown table
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import generate_pipeline

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ROWS = ("trecrs", "polars", "baseline", "pytrec_eval")
MEASURES = ("map", "P.10", "ndcg_cut.10", "recip_rank")

# the top of every polars script: argv, the ratings schema and reader (with the duplicate check), the writer
HEAD = """
import sys, numpy as np, polars as pl
a = sys.argv[1:]
SCHEMA = {"user": pl.Utf8, "item": pl.Utf8, "rating": pl.Float64, "timestamp": pl.Int64}
def ratings(p):
    r = pl.read_csv(p, separator="\\t", has_header=False, schema=SCHEMA)
    assert not r.select(pl.struct("user", "item").is_duplicated().any()).item(), "duplicate pair"
    return r
def write(frame, p):
    frame.write_csv(p, separator="\\t", include_header=False)
def split(r, test, out):
    write(r.filter(~test), out + "/train.tsv")
    write(r.filter(test), out + "/test.tsv")
"""
SPLIT = {
    "holdout": """
r = ratings(a[0]); rng = np.random.default_rng(1)
test = np.zeros(r.height, bool); test[rng.choice(r.height, round(0.2 * r.height), replace=False)] = True
split(r, pl.Series(test), a[1])
""",
    "kfold": """
r = ratings(a[0]); fold = np.random.default_rng(1).permutation(r.height) % 5
for f in range(5):
    test = pl.Series(fold == f)
    write(r.filter(~test), f"{a[1]}/fold{f + 1}.train.tsv")
    write(r.filter(test), f"{a[1]}/fold{f + 1}.test.tsv")
""",
    "temporal": """
r = ratings(a[0]); k = round(0.2 * r.height)
split(r, r.select(pl.col("timestamp").rank("ordinal") > r.height - k).to_series(), a[1])
""",
    "temporal-last": """
r = ratings(a[0]); n = pl.len().over("user")
rank = pl.col("timestamp").rank("ordinal").over("user")
split(r, r.select(rank > n - (0.2 * n).round()).to_series(), a[1])
""",
    "probe": """
r = ratings(a[0]); probe = np.zeros(r.height, bool)
probe[np.random.default_rng(1).choice(r.height, round(0.014 * r.height), replace=False)] = True
probe = pl.Series(probe)
write(r.filter(~probe), a[1] + "/train.tsv")
write(r.filter(probe & (pl.col("rating") >= 5)), a[1] + "/test.tsv")
""",
}
SPLIT["per-user"] = """  # each user's round(0.2 n) ratings of the smallest random keys
r = ratings(a[0]); r = r.with_columns(key=pl.Series(np.random.default_rng(1).random(r.height)))
n = pl.len().over("user")
split(r.drop("key"), r.select(pl.col("key").rank("ordinal").over("user") <= (0.2 * n).round()).to_series(), a[1])
"""
SPLIT["loo"] = """  # each user's rating of the smallest random key
r = ratings(a[0]); r = r.with_columns(key=pl.Series(np.random.default_rng(1).random(r.height)))
split(r.drop("key"), r.select(pl.col("key").rank("ordinal").over("user") == 1).to_series(), a[1])
"""
QRELS = """
t = ratings(a[0]).filter(pl.col("rating") >= 4).sort("user", maintain_order=True)
write(t.select("user", pl.lit("0").alias("iter"), "item", (pl.col("rating") * 2).cast(pl.Int64).alias("rel")), a[1])
"""
# run: a[0] train, a[1] test, a[2] top-100 scores, a[3] the run; CANDIDATES keeps each methodology's pairs
RUN = """
train, test = ratings(a[0]), ratings(a[1])
scores = pl.read_csv(a[2], separator="\\t", schema_overrides={"user": pl.Utf8, "item": pl.Utf8})
pairs = scores.filter(pl.col("user").is_in(test.get_column("user").unique().implode()))
seen = train.select("user", "item")
{candidates}
run = (
    pairs.sort(["user", "score", "item"], descending=[False, True, True])
    .with_columns(pl.int_range(pl.len()).over("user").add(1).alias("rank"))
    .select("user", pl.lit("Q0").alias("iter"), "item", "rank", "score", pl.lit("polars").alias("tag"))
)
run.write_csv(a[3], separator=" ", include_header=False)
"""
CANDIDATES = {
    "test-ratings": 'pairs = pairs.join(test.select("user", "item"), on=["user", "item"], how="semi")',
    "test-items": 'pairs = pairs.filter(pl.col("item").is_in(test.get_column("item").unique().implode()))'
    '.join(seen, on=["user", "item"], how="anti")',
    "training-items": 'pairs = pairs.filter(pl.col("item").is_in(train.get_column("item").unique().implode()))'
    '.join(seen, on=["user", "item"], how="anti")',
    "all-items": 'items = pl.concat([train.get_column("item"), test.get_column("item")]).unique()\n'
    'pairs = pairs.filter(pl.col("item").is_in(items.implode())).join(seen, on=["user", "item"], how="anti")',
}
# trec files: a qrels (query iter doc rel) and a run (query iter doc rank score tag), whitespace-separated
TREC = """
def qrels(p):
    s = {"query": pl.Utf8, "iter": pl.Utf8, "doc": pl.Utf8, "rel": pl.Int64}
    return pl.read_csv(p, separator="\\t", has_header=False, schema=s)
def run(p):
    s = {"query": pl.Utf8, "iter": pl.Utf8, "doc": pl.Utf8, "rank": pl.Int64, "score": pl.Float64, "tag": pl.Utf8}
    return pl.read_csv(p, separator=" ", has_header=False, schema=s)
"""
EVAL = """
q, r = qrels(a[0]), run(a[1])
hits = r.join(q, on=["query", "doc"], how="left").group_by("query").agg((pl.col("rel") > 0).sum())
print(hits.height, hits.get_column("rel").sum())
"""
PYTREC_EVAL = """
import pytrec_eval
q, r = qrels(a[0]), run(a[1])
qd, rd = {}, {}
for u, d, v in q.select("query", "doc", "rel").iter_rows():
    qd.setdefault(u, {})[d] = v
for u, d, s in r.select("query", "doc", "score").iter_rows():
    rd.setdefault(u, {})[d] = s
values = pytrec_eval.RelevanceEvaluator(qd, set(a[2].split(","))).evaluate(rd)
print(len(values))
"""
AUDIT = """
train, test, q, r = ratings(a[0]), ratings(a[1]), qrels(a[2]), run(a[3])
pairs = r.select(pl.col("query").alias("user"), pl.col("doc").alias("item"))
unseen = pairs.join(train.select("user", "item"), on=["user", "item"], how="anti")
relevant = pairs.join(q.select(pl.col("query").alias("user"), pl.col("doc").alias("item")), on=["user", "item"], how="semi")
leaked = test.join(train, on=["user", "item"], how="semi")
per_query = relevant.group_by("user").len()
print(pairs.height - unseen.height, relevant.height, leaked.height, per_query.height)
"""


def step_table(d: Path, w: Path) -> dict[str, dict]:
    """Every step: its trecrs arguments and polars script, given the data folder ``d`` and work folder ``w``.

    ``args(out)`` and ``polars(out)`` take the row's output folder; ``needs`` names the steps whose trecrs
    outputs (``w/<step>/trecrs``) are the inputs; ``outputs`` are the files a step writes there.
    """
    ratings, top = str(d / "ratings.tsv"), str(d / "top100.tsv")
    split_dir = w / "split-temporal" / "trecrs"
    train, test, qrels = split_dir / "train.tsv", split_dir / "test.tsv", w / "qrels" / "trecrs" / "q.qrels"
    run_ai = w / "run-all-items" / "trecrs" / "r.run"
    options = {
        "holdout": ["--ratio", "0.2", "--seed", "1"],
        "kfold": ["--folds", "5", "--seed", "1"],
        "per-user": ["--ratio", "0.2", "--seed", "1"],
        "temporal": ["--ratio", "0.2"],
        "temporal-last": ["--last-ratio", "0.2"],
        "loo": ["--pick", "random", "--seed", "1"],
        "probe": ["--ratio", "0.014", "--threshold", "5", "--seed", "1"],
    }
    steps: dict[str, dict] = {}
    for name, opts in options.items():
        method = name.removesuffix("-last")
        steps[f"split-{name}"] = {
            "args": lambda o, m=method, x=opts: ["split", "--method", m, *x, ratings, str(o)],
            "polars": lambda o, s=SPLIT[name]: [HEAD + s, ratings, str(o)],
            "needs": [],
            "outputs": ["train.tsv", "test.tsv"],
        }
    steps["qrels"] = {
        "args": lambda o: ["qrels", "--test", str(test), "--threshold", "4", "-o", str(o / "q.qrels")],
        "polars": lambda o: [HEAD + QRELS, str(test), str(o / "q.qrels")],
        "needs": ["split-temporal"],
        "outputs": ["q.qrels"],
    }
    io = ["--train", str(train), "--test", str(test), "--scores", top]
    for m in CANDIDATES:
        script = HEAD + RUN.replace("{candidates}", CANDIDATES[m])
        steps[f"run-{m}"] = {
            "args": lambda o, m=m: [
                "run",
                "--methodology",
                m,
                "--missing",
                "drop",
                *io,
                "-o",
                str(o / "r.run"),
            ],
            "polars": lambda o, s=script: [s, str(train), str(test), top, str(o / "r.run")],
            "needs": ["split-temporal"],
            "outputs": ["r.run"],
        }
    measures = [x for m in MEASURES for x in ("-m", m)]
    steps["eval"] = {
        "args": lambda o: ["eval", *measures, "-o", str(o / "eval.txt"), str(qrels), str(run_ai)],
        "polars": lambda o: [HEAD + TREC + EVAL, str(qrels), str(run_ai)],
        "pytrec_eval": lambda o: [HEAD + TREC + PYTREC_EVAL, str(qrels), str(run_ai), ",".join(MEASURES)],
        "needs": ["split-temporal", "qrels", "run-all-items"],
    }
    inputs = ["--train", str(train), "--test", str(test), "--qrels", str(qrels)]
    steps["audit"] = {
        "args": lambda o: ["audit", *inputs, "-o", str(o / "audit.txt"), str(run_ai)],
        "polars": lambda o: [HEAD + TREC + AUDIT, str(train), str(test), str(qrels), str(run_ai)],
        "needs": ["split-temporal", "qrels", "run-all-items"],
    }
    return steps


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    kids = [int(c) for c in text.split()]
    return kids + [g for k in kids for g in _children(k)]


def _rss_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"VmRSS:\s+(\d+)", status)
    return int(found.group(1)) if found else 0


def measure(cmd: list[str], env: dict, timeout: float, max_mb: float = float("inf")) -> dict:
    """Wall time and peak RSS of ``cmd`` under /usr/bin/time -v; ``wall: None`` when it is killed at ``timeout``
    seconds or once its resident memory (the process tree's, sampled every second from /proc) passes
    ``max_mb``, with the seconds it ran and the largest RSS sampled."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as err:  # a file, not a pipe: a chatty command cannot block on it
        t = time.perf_counter()
        proc = subprocess.Popen(
            ["/usr/bin/time", "-v", *cmd],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
            cwd=env["PYTHONPATH"],  # python -m imports the working directory's package first
            start_new_session=True,  # on timeout the whole group goes, not /usr/bin/time alone
        )
        sampled = 0
        while time.perf_counter() - t < timeout and sampled < max_mb * 1024:
            try:
                proc.wait(timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                sampled = max(sampled, sum(_rss_kb(p) for p in _children(proc.pid)))
        wall = time.perf_counter() - t
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            why = "memory" if sampled >= max_mb * 1024 else "time"
            return {"wall": None, "killed_after": round(wall, 1), "killed_for": why, "rss_mb": None,
                    "sampled_mb": sampled // 1024, "load": load}  # fmt: skip
        err.seek(0)
        text = err.read()
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if proc.returncode != 0 or found is None:
        tail = [line for line in text.splitlines() if not line.startswith("\t")][-3:]
        return {"wall": None, "error": " | ".join(tail), "rss_mb": None, "load": load}
    return {"wall": round(wall, 3), "rss_mb": round(int(found.group(1)) / 1024, 1), "load": load}


def commands(step: dict, row: str, out: Path, baseline: str | None) -> tuple[list[str], dict] | None:
    """The command line and environment of one row of a step; None when the row does not apply."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "POLARS_MAX_THREADS": os.environ.get("POLARS_MAX_THREADS", ""),
    }
    if not env["POLARS_MAX_THREADS"]:
        del env["POLARS_MAX_THREADS"]
    if row in ("trecrs", "baseline"):
        if row == "baseline" and not baseline:
            return None
        return [sys.executable, "-m", "trecrs", *step["args"](out)], {
            **env,
            "PYTHONPATH": baseline if row == "baseline" else str(ROOT),
        }
    if row not in step:
        return None
    if row == "pytrec_eval" and subprocess.run([sys.executable, "-c", "import pytrec_eval"]).returncode != 0:
        return None
    script, *args = step[row](out)
    return [sys.executable, "-c", script, *args], env


def prepare(
    steps: dict, name: str, w: Path, a: argparse.Namespace, failed: set[str] | None = None
) -> str | None:
    """Make the inputs of step ``name``: the trecrs outputs of the steps it needs (made untimed, under the same
    limits, when missing), or, when trecrs could not make one, the polars row's output; return the missing
    input's step when neither exists. ``failed``: the steps trecrs could not finish in this sitting, not
    tried again."""
    failed = set() if failed is None else failed
    for need in steps[name]["needs"]:
        out, fallback = w / need / "trecrs", w / need / "polars"
        files = steps[need]["outputs"]
        if all((out / f).exists() for f in files):
            continue
        if all((fallback / f).exists() for f in files):
            print(f"  {need}: the polars output is the input", flush=True)
            out.mkdir(parents=True, exist_ok=True)
            for f in files:
                shutil.copyfile(fallback / f, out / f)
            continue
        if need in failed:
            return need
        print(f"  {need}: making the input (untimed)", flush=True)
        out.mkdir(parents=True, exist_ok=True)
        cmd, env = commands(steps[need], "trecrs", out, None)  # type: ignore[misc]
        if measure(cmd, env, a.timeout, a.max_mb)["wall"] is None:
            failed.add(need)
            return need
    return None


def summary(runs: list[dict]) -> tuple[float | None, float | None, str]:
    """Median wall and peak MB of the finished runs, and the cell text (``> T s`` when one was killed)."""
    walls = [r["wall"] for r in runs if r["wall"] is not None]
    rss = [r["rss_mb"] for r in runs if r["rss_mb"] is not None]
    if runs and len(walls) == len(runs):
        return statistics.median(walls), statistics.median(rss), f"{statistics.median(walls):.1f}"
    killed = [r for r in runs if "killed_after" in r]
    if killed:
        cap = " (memory cap)" if killed[0].get("killed_for") == "memory" else ""
        return None, None, f"> {killed[0]['killed_after']:.0f}{cap}"
    return None, None, "failed" if runs else "-"


def table(results: dict) -> str:
    """The markdown table of one shape's results: a line per step, trecrs beside polars (and the baseline)."""
    steps = results["steps"]
    has_base = any("baseline" in s["rows"] for s in steps.values())
    head = "| step | trecrs s | trecrs MB | polars s | polars MB | ratio |"
    rule = "|---|--:|--:|--:|--:|--:|"
    if has_base:
        head, rule = head + " baseline s | baseline MB |", rule + "--:|--:|"
    lines = [head, rule]
    for name, step in steps.items():
        cells = {}
        for row in ROWS:
            wall, mb, text = summary(step["rows"].get(row, []))
            sampled = [r.get("sampled_mb") for r in step["rows"].get(row, []) if r.get("sampled_mb")]
            cells[row] = (wall, text, f"{mb:,.0f}" if mb else (f"≥ {max(sampled):,}" if sampled else "-"))
        t, p = cells["trecrs"], cells["polars"]
        ratio = f"{t[0] / p[0]:.1f}x" if t[0] and p[0] else "-"
        killed = [r["killed_after"] for r in step["rows"].get("trecrs", []) if "killed_after" in r]
        if killed and p[0]:
            ratio = f"> {killed[0] / p[0]:.1f}x"  # at least: trecrs ran that long before it was stopped
        label = (
            name if "pytrec_eval" not in step["rows"] else f"{name} (pytrec_eval {cells['pytrec_eval'][1]} s)"
        )
        label += f" (not run: {step['not_run']})" if "not_run" in step else ""
        line = f"| {label} | {t[1]} | {t[2]} | {p[1]} | {p[2]} | {ratio} |"
        lines.append(line + (f" {cells['baseline'][1]} | {cells['baseline'][2]} |" if has_base else ""))
    loads = [r["load"] for s in steps.values() for rs in s["rows"].values() for r in rs]
    if loads:
        lines.append(
            f"\n1-minute load average {min(loads):.1f}-{max(loads):.1f}; {results.get('note', '')}".rstrip()
        )
    return "\n".join(lines)


def bench_step(steps: dict, name: str, a: argparse.Namespace, w: Path, results: dict) -> None:
    """Time the chosen rows of one step and store them in ``results`` (the earlier rows of the step kept)."""
    entry = results["steps"].setdefault(name, {"rows": {}})
    entry.pop("not_run", None)  # a step run now has its inputs, whatever an earlier sitting recorded
    for row in a.rows.split(","):
        out = w / name / row
        made = commands(steps[name], row, out, a.baseline)
        if made is None:
            continue
        cmd, env = made
        entry["command" if row == "trecrs" else f"command_{row}"] = [
            "trecrs", *steps[name]["args"](out)] if row == "trecrs" else cmd[:2] + ["<script>"] + cmd[3:]  # fmt: skip
        runs = []
        for _ in range(1 if row == "baseline" else a.runs):
            out.mkdir(parents=True, exist_ok=True)
            runs.append(measure(cmd, env, a.timeout, a.max_mb))
            if runs[-1]["wall"] is None:
                break  # a killed or failed run is not repeated
        entry["rows"][row] = runs
        wall, mb, text = summary(runs)
        print(f"{name} {row}: {text} s, peak {mb or '-'} MB {runs}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", choices=sorted(generate_pipeline.SHAPES), default="small")
    ap.add_argument("--data-root", type=Path, default=HERE / "data", help="the folder of pipeline-<shape>/")
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench-pipeline"), help="outputs: WORK/<shape>/")
    ap.add_argument("--results", type=Path, help="default: benchmarks/results/pipeline-<shape>.json")
    ap.add_argument("--steps", help="comma-separated steps (default: all)")
    ap.add_argument(
        "--rows", default="trecrs,polars,baseline,pytrec_eval", help="rows to time (comma-separated)"
    )
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline", help="a directory holding an older trecrs package, timed once")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds before a row is killed")
    ap.add_argument("--max-mb", type=float, default=float("inf"), help="resident MB at which a row is killed")
    ap.add_argument("--note", help="a note stored with the results (machine, load, code)")
    ap.add_argument("--table", action="store_true", help="print the stored results as a markdown table")
    a = ap.parse_args()
    out = a.results or HERE / "results" / f"pipeline-{a.shape}.json"
    results = json.loads(out.read_text()) if out.exists() else {"shape": a.shape, "steps": {}}
    if a.table:
        print(table(results))
        return
    d = a.data_root / f"pipeline-{a.shape}"
    if not (d / "top100.tsv").exists():
        d = generate_pipeline.generate(a.shape, root=a.data_root)
    w = a.work / a.shape
    steps = step_table(d.resolve(), w.resolve())
    chosen = a.steps.split(",") if a.steps else list(steps)
    unknown = sorted(set(chosen) - set(steps))
    if unknown:
        ap.error(f"unknown steps {unknown}; steps: {', '.join(steps)}")
    results["note"] = a.note or results.get("note", "")
    failed: set[str] = set()
    for name in chosen:
        missing = prepare(steps, name, w.resolve(), a, failed)
        if missing:
            print(f"{name}: not run, its input ({missing}) could not be made", flush=True)
            results["steps"][name] = {"rows": {}, "not_run": f"its input ({missing}) could not be made"}
        else:
            bench_step(steps, name, a, w.resolve(), results)
            if any(r["wall"] is None for r in results["steps"][name]["rows"].get("trecrs", [])):
                failed.add(name)
        results["steps"] = {
            s: results["steps"][s] for s in steps if s in results["steps"]
        }  # in the steps' order
        out.parent.mkdir(exist_ok=True)
        out.write_text(
            json.dumps(results, indent=1) + "\n"
        )  # after each step: a stopped sitting keeps its rows
    print(table(results))


if __name__ == "__main__":
    main()
