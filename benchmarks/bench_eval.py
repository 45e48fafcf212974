"""Time ``trecrs eval`` against pytrec_eval (and ranx, for the record) on generated TREC files.

    python benchmarks/bench_eval.py --case a            # issue 2: 6,040 users x 1,000 items (6M lines)
    python benchmarks/bench_eval.py --case b --ranx 1   # issue 5: 6,040 x 3,700 (22M lines), + Parquet run
    python benchmarks/bench_eval.py --case c --reference 0   # 480,000 x 100 (48M lines), trecrs only

Every measurement is a separate process: wall time from start to exit (interpreter start, imports, parsing
and evaluation included, output discarded), its CPU time (user + sys) and its peak resident memory
(``wait4``'s ``ru_maxrss``). Medians over ``--repeat`` runs (default 3), commands run one after the other,
never in parallel; trecrs (text run) and pytrec_eval take turns run by run, so that both see the same load.
trecrs's bytecode caches are written first (``compileall``), as an installed package has them.

* trecrs: ``trecrs eval -m P.10,50 -m recall.50 -m ndcg_cut.50 -m map -m recip_rank QRELS RUN`` (default
  engine), on the text run and on the same run stored as Parquet.
* pytrec_eval: ``parse_qrel`` + ``parse_run`` + ``RelevanceEvaluator(...).evaluate`` (reference_eval.py).
* ranx: ``Qrels.from_file`` + ``Run.from_file`` + ``evaluate`` (first call includes numba compilation).

Then, outside the timings, the per-query values are compared: trecrs vs pytrec_eval must be identical
(every query, every measure, bit for bit); ranx breaks score ties differently, and the queries where any
of its values differs from trec_eval's are counted. Results go to ``benchmarks/results/<case>.json`` and a
Markdown table is printed. Data are generated (seeded) under ``benchmarks/data/`` when missing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
RESULTS = HERE / "results"
MEASURES = ["P.10,50", "recall.50", "ndcg_cut.50", "map", "recip_rank"]
CASES = {
    "a": dict(users=6040, items=3706, per_user=1000, max_rel=60),
    "b": dict(users=6040, items=3706, per_user=3700, max_rel=60),
    "c": dict(users=480_000, items=17_770, per_user=100, max_rel=20),
    # issue 14: case b copied 10 times with new user ids (generate.py --replicate): 223,480,000 lines
    "b10": dict(users=60_400, items=3706, per_user=3700, max_rel=60, replicate=("b", 10)),
    # issue 30, score ties: 6,040 x 3,706 (22,384,240 lines), 1% of the lines tied with the line above,
    # the ties written in trec_eval's order (t), in item-id ascending order as recommenders write them
    # (t-asc), or every line shuffled (t-shuf); the same lines in all three
    "t": dict(users=6040, items=3706, per_user=3706, max_rel=60, ties=0.01),
    "t-asc": dict(users=6040, items=3706, per_user=3706, max_rel=60, ties=0.01, tie_order="ascending"),
    "t-shuf": dict(users=6040, items=3706, per_user=3706, max_rel=60, ties=0.01, shuffle=True),
    "a-asc": dict(users=6040, items=3706, per_user=1000, max_rel=60, ties=0.01, tie_order="ascending"),
    # t-asc 4 times (89,536,960 lines): peak memory as the run grows
    "t4-asc": dict(users=24_160, items=3706, per_user=3706, max_rel=60, replicate=("t-asc", 4)),
}


def ensure_data(case: str) -> tuple[Path, Path, Path]:
    stem = DATA / case
    files = (Path(f"{stem}.qrels"), Path(f"{stem}.run"), Path(f"{stem}.run.parquet"))
    c = CASES[case]
    if "replicate" in c:  # text only: a 7 GB Parquet copy would add nothing to what it measures
        if not files[1].exists():
            base, times = c["replicate"]
            src = ensure_data(base)
            sys.path.insert(0, str(HERE))
            import generate

            generate.replicate(src[0], src[1], case, times, c["users"] // times)
        return files[0], files[1], None
    if not all(f.exists() for f in files):
        sys.path.insert(0, str(HERE))
        import generate

        extra = ["--ties", str(c["ties"])] if "ties" in c else []
        extra += ["--tie-order", c["tie_order"]] if "tie_order" in c else []
        extra += ["--shuffle"] if c.get("shuffle") else []
        generate.main(
            ["--name", case, "--users", str(c["users"]), "--items", str(c["items"]),
             "--per-user", str(c["per_user"]), "--max-rel", str(c["max_rel"]), *extra]
        )  # fmt: skip
    return files


def measure(cmd: list[str]) -> dict:
    """Run ``cmd`` to completion; wall seconds, peak RSS (MB) and its JSON stdout line if any."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise RuntimeError(f"{cmd} failed: {err.decode()[-2000:]}")
    info = {"wall_s": wall, "peak_mb": usage.ru_maxrss / 1024, "cpu_s": usage.ru_utime + usage.ru_stime,
            "load_before": load}  # fmt: skip
    last = out.decode().strip().splitlines()[-1] if out.strip() else ""
    if last.startswith("{"):
        info.update(json.loads(last))
    return info


def summary(runs: list[dict]) -> dict:
    """Medians of wall time, CPU time (user + sys) and peak memory over ``runs``, with the runs."""
    return {
        "median_wall_s": statistics.median(r["wall_s"] for r in runs),
        "median_cpu_s": statistics.median(r["cpu_s"] for r in runs),
        "median_peak_mb": statistics.median(r["peak_mb"] for r in runs),
        "runs": runs,
    }


def repeat(cmd: list[str], n: int, label: str) -> dict:
    return alternated({label: cmd}, n)[label]


def alternated(commands: dict[str, list[str]], n: int) -> dict[str, dict]:
    """Each command ``n`` times, taking turns run by run, so that all see the same load; :func:`summary`
    of each."""
    got: dict[str, list[dict]] = {label: [] for label in commands}
    for i in range(n):
        for label, cmd in commands.items():
            got[label].append(measure(cmd))
            r = got[label][-1]
            print(f"  {label} #{i + 1}: {r['wall_s']:.2f} s, CPU {r['cpu_s']:.2f} s, {r['peak_mb']:.0f} MB, "
                  f"load {r['load_before']:.1f}", file=sys.stderr)  # fmt: skip
    return {label: summary(runs) for label, runs in got.items()}


def compile_trecrs() -> None:
    """Write trecrs's bytecode caches before timing it (as an installed package has them): with
    ``PYTHONDONTWRITEBYTECODE`` set, or a fresh checkout, every run would otherwise compile the ~60 modules
    a ``trecrs eval`` imports (about 0.3 s on the 2-core host)."""
    import compileall

    compileall.compile_dir(str(HERE.parent / "trecrs"), quiet=1)


def trecrs_cmd(qrels: Path, run: Path, block_lines: int | None = None) -> list[str]:
    cmd = [sys.executable, "-m", "trecrs", "eval"]
    for m in MEASURES:
        cmd += ["-m", m]
    if block_lines is not None:
        cmd += ["--block-lines", str(block_lines)]
    return cmd + [str(qrels), str(run)]


def trec_eval_cmd(qrels: Path, run: Path) -> list[str]:
    """trec_eval 9.0.8 (C), built from ../shared/tools by tests/fuzz/binaries.py, same measures."""
    sys.path.insert(0, str(HERE.parent))
    from tests.fuzz.binaries import binary

    cmd = [str(binary("9"))]
    for m in MEASURES:
        cmd += ["-m", m]
    return cmd + [str(qrels), str(run)]


def write_untied(run: Path, out: Path) -> None:
    """A copy of a run written in trec_eval order (ranks 1..n) with score = 1e6 - rank: no ties left."""
    import polars as pl

    names = ["query", "iter", "doc", "rank", "score", "tag"]
    df = pl.read_csv(run, has_header=False, separator=" ", new_columns=names, schema_overrides={"query": pl.Utf8,
                     "doc": pl.Utf8, "score": pl.Float64})  # fmt: skip
    df = df.with_columns((1e6 - pl.col("rank").cast(pl.Float64)).alias("score"))
    df.write_csv(out, include_header=False, separator=" ")


def trecrs_per_query(qrels: Path, run: Path) -> dict[str, dict[str, float]]:
    from trecrs.evaluate import evaluate_full

    ev = evaluate_full(qrels, run, MEASURES)
    cols = [c for c in ev.per_query.columns if c != "query"]
    return {row[0]: dict(zip(cols, row[1:], strict=True)) for row in ev.per_query.iter_rows()}


def compare(ours: dict, theirs: dict, tol: float) -> dict:
    """Queries where any value differs by more than ``tol`` (missing queries count as differing)."""
    differ = 0
    worst = 0.0
    for q, vals in ours.items():
        other = theirs.get(q)
        if other is None:
            differ += 1
            continue
        d = max(abs(v - other.get(k, float("nan"))) if k in other else float("inf") for k, v in vals.items())
        worst = max(worst, d)
        if not d <= tol:
            differ += 1
    return {"queries": len(ours), "queries_differing": differ, "max_abs_diff": worst,
            "queries_only_in_reference": len(set(theirs) - set(ours))}  # fmt: skip


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", choices=sorted(CASES), required=True)
    p.add_argument("--repeat", type=int, default=3, help="runs per tool (median reported)")
    p.add_argument("--reference", type=int, default=None, help="pytrec_eval runs (default: --repeat)")
    p.add_argument("--ranx", type=int, default=0, help="ranx runs (0: skip; it needs ~6 GB on case b)")
    p.add_argument(
        "--parquet", type=int, default=None, help="trecrs runs on the Parquet run (default: --repeat)"
    )
    p.add_argument("--trec-eval", type=int, default=0, help="trec_eval 9.0.8 (C) runs (0: skip)")
    p.add_argument(
        "--block-lines", type=int, default=None, help="trecrs eval --block-lines N (default: its own)"
    )
    p.add_argument("--name", default=None, help="results file stem under results/ (default: the case)")
    p.add_argument("--no-agreement", action="store_true", help="skip the untimed per-query comparison")
    p.add_argument("--untied-check", action="store_true",
                   help="also score a tie-free copy of the run (score = -rank) with ranx and trecrs: ranx's "
                   "disagreements must vanish, showing they come from tie-breaking alone")  # fmt: skip
    args = p.parse_args(argv)
    qrels, run, parquet = ensure_data(args.case)
    n_ref = args.repeat if args.reference is None else args.reference
    n_pq = (args.repeat if args.parquet is None else args.parquet) if parquet is not None else 0
    res: dict = {
        "case": args.case,
        "shape": CASES[args.case],
        "run_lines": sum(1 for _ in open(run, "rb")),
        "measures": MEASURES,
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
    }
    print(f"case {args.case}: {res['run_lines']:,} run lines", file=sys.stderr)
    res["block_lines"] = args.block_lines
    compile_trecrs()
    ref_cmd = [sys.executable, str(HERE / "reference_eval.py")]
    tmp = tempfile.TemporaryDirectory()
    ref_out, ranx_out = Path(tmp.name) / "pytrec.json", Path(tmp.name) / "ranx.json"
    # trecrs and pytrec_eval take turns (the first n_ref runs of trecrs), then trecrs's remaining runs
    turns = {"trecrs": trecrs_cmd(qrels, run, args.block_lines)}
    if n_ref:
        turns["pytrec_eval"] = ref_cmd + ["pytrec_eval", str(qrels), str(run), "--out", str(ref_out)]
    res |= alternated(turns, min(args.repeat, n_ref) if n_ref else args.repeat)
    if n_ref > args.repeat:
        res["pytrec_eval"] = summary(res["pytrec_eval"]["runs"] + [
            measure(turns["pytrec_eval"]) for _ in range(n_ref - args.repeat)])  # fmt: skip
    elif n_ref and args.repeat > n_ref:
        res["trecrs"] = summary(res["trecrs"]["runs"] + [
            measure(turns["trecrs"]) for _ in range(args.repeat - n_ref)])  # fmt: skip
    if n_pq:
        res["trecrs_parquet"] = repeat(
            trecrs_cmd(qrels, parquet, args.block_lines), n_pq, "trecrs eval (parquet)"
        )
    if args.trec_eval:
        res["trec_eval_c"] = repeat(trec_eval_cmd(qrels, run), args.trec_eval, "trec_eval 9.0.8 (C)")
    with tmp:
        if args.ranx:
            res["ranx"] = repeat(
                ref_cmd + ["ranx", str(qrels), str(run), "--out", str(ranx_out)], args.ranx, "ranx"
            )
        ours = {} if args.no_agreement else trecrs_per_query(qrels, run)
        if args.untied_check:
            untied = DATA / f"{args.case}.untied.run"
            write_untied(run, untied)
            out = Path(tmp.name) / "ranx_untied.json"
            measure(ref_cmd + ["ranx", str(qrels), str(untied), "--out", str(out)])
            res["agreement_ranx_untied"] = compare(
                trecrs_per_query(qrels, untied), json.loads(out.read_text()), 1e-9
            )
        if n_ref and not args.no_agreement:
            res["agreement_pytrec_eval"] = compare(ours, json.loads(ref_out.read_text()), 0.0)
        if args.ranx:
            res["agreement_ranx"] = compare(ours, json.loads(ranx_out.read_text()), 1e-9)
    if n_ref:
        res["ratio_wall"] = res["trecrs"]["median_wall_s"] / res["pytrec_eval"]["median_wall_s"]
        res["ratio_peak_mb"] = res["trecrs"]["median_peak_mb"] / res["pytrec_eval"]["median_peak_mb"]
        res["ratio_cpu"] = res["trecrs"]["median_cpu_s"] / res["pytrec_eval"]["median_cpu_s"]
    if args.trec_eval:
        res["ratio_wall_trec_eval_c"] = res["trecrs"]["median_wall_s"] / res["trec_eval_c"]["median_wall_s"]
        res["ratio_peak_mb_trec_eval_c"] = (
            res["trecrs"]["median_peak_mb"] / res["trec_eval_c"]["median_peak_mb"]
        )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name or args.case}.json").write_text(json.dumps(res, indent=1) + "\n")
    print(table(res))


def table(res: dict) -> str:
    lines = [f"case {res['case']} ({res['run_lines']:,} lines): median of runs",
             "| tool | wall (s) | CPU (s) | peak (MB) |", "|---|---:|---:|---:|"]  # fmt: skip
    for key, label in (("trecrs", "trecrs eval, text run"), ("trecrs_parquet", "trecrs eval, Parquet run"),
                       ("pytrec_eval", "pytrec_eval (parse + evaluate)"), ("ranx", "ranx (parse + evaluate)"),
                       ("trec_eval_c", "trec_eval 9.0.8 (C)")):  # fmt: skip
        if key in res:
            r = res[key]
            cpu = f"{r['median_cpu_s']:.2f}" if "median_cpu_s" in r else ""
            lines.append(f"| {label} | {r['median_wall_s']:.2f} | {cpu} | {r['median_peak_mb']:.0f} |")
    if "ratio_wall" in res:
        lines.append(f"trecrs / pytrec_eval: wall {res['ratio_wall']:.3f} (1/{1 / res['ratio_wall']:.1f}), "
                     f"CPU {res['ratio_cpu']:.3f} (1/{1 / res['ratio_cpu']:.1f}), "
                     f"peak memory {res['ratio_peak_mb']:.3f} (1/{1 / res['ratio_peak_mb']:.1f})")  # fmt: skip
    if "ratio_wall_trec_eval_c" in res:
        lines.append(f"trecrs / trec_eval C: wall {res['ratio_wall_trec_eval_c']:.3f}, "
                     f"peak memory {res['ratio_peak_mb_trec_eval_c']:.3f}")  # fmt: skip
    for key in ("agreement_pytrec_eval", "agreement_ranx", "agreement_ranx_untied"):
        if key in res:
            a = res[key]
            lines.append(f"{key}: {a['queries_differing']} of {a['queries']} queries differ "
                         f"(max |diff| {a['max_abs_diff']:.3g})")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    main()
