"""Each cost of trecrs beside its floor, measured in one sitting: the "Limits" table of benchmarks/README.md.

A floor is what the same work costs without trecrs: starting Python with numpy and polars imported (for
``import trecrs`` and a small ``trecrs eval``), polars reading the same run bare (for scoring a text run;
six columns, ids as strings), reading the Parquet run bare, and the reference tools (trec_eval 9.0.8's C
binary, pytrec_eval) on the same files. Every row alternates the tool and its floor run by run, so both see
the same load; each is a separate process (wall time from start to exit, peak RSS from ``wait4``), and the
table gives min and median of ``--runs`` runs.

    python benchmarks/bench_limits.py --runs 3             # ~8 minutes; generates cases a, a4, b when missing
    python benchmarks/bench_limits.py --runs 3 --factors   # + eval-factors at the ML-20M shape (~3 more minutes)

Raw figures: ``benchmarks/results/limits.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_eval import CASES, RESULTS, compile_trecrs, ensure_data, measure, trec_eval_cmd, trecrs_cmd  # noqa: E402

PY = sys.executable
SAMPLE = HERE.parent / "sample_data"
CASES.setdefault("a4", dict(users=24_160, items=3706, per_user=1000, max_rel=60, replicate=("a", 4)))
READ_CSV = """
import sys, polars as pl
schema = {c: pl.String for c in ("query", "q0", "doc", "rank", "score", "tag")}
df = pl.read_csv(sys.argv[1], separator=" ", has_header=False, new_columns=list(schema), schema=schema)
print(df.height)
"""
# bare read of the same file with the types trecrs reads (rank integer, score float), as the issue states it
READ_CSV_TYPED = READ_CSV.replace(
    'schema = {c: pl.String for c in ("query", "q0", "doc", "rank", "score", "tag")}',
    'schema = {"query": pl.String, "q0": pl.String, "doc": pl.String, '
    '"rank": pl.Int64, "score": pl.Float64, "tag": pl.String}',
)
READ_PARQUET = "import sys, polars as pl; print(pl.read_parquet(sys.argv[1]).height)"


def timed(commands: dict[str, list[str]], runs: int) -> dict[str, dict]:
    """Each command ``runs`` times, alternating between them; min and median wall (s) and peak RSS (MB)."""
    got: dict[str, list[dict]] = {name: [] for name in commands}
    for i in range(runs):
        for name, cmd in commands.items():
            got[name].append(measure(cmd))
            r = got[name][-1]
            print(f"  {name} #{i + 1}: {r['wall_s']:.2f} s, {r['peak_mb']:.0f} MB", file=sys.stderr)
    return {name: {"min_wall_s": min(r["wall_s"] for r in rs),
                   "median_wall_s": statistics.median(r["wall_s"] for r in rs),
                   "min_cpu_s": min(r["cpu_s"] for r in rs),
                   "median_cpu_s": statistics.median(r["cpu_s"] for r in rs),
                   "median_peak_mb": statistics.median(r["peak_mb"] for r in rs),
                   "runs": [{k: round(v, 3) for k, v in r.items() if isinstance(v, float)} for r in rs]}
            for name, rs in got.items()}  # fmt: skip


def startup(runs: int) -> dict[str, dict]:
    tiny = [str(SAMPLE / "tiny.qrels"), str(SAMPLE / "tiny.run")]
    return timed({
        "floor: python -c 'import numpy, polars'": [PY, "-c", "import numpy, polars"],
        "python -c 'import trecrs'": [PY, "-c", "import trecrs"],
        "trecrs eval sample_data/tiny.qrels sample_data/tiny.run": [PY, "-m", "trecrs", "eval", "--quiet", *tiny],
    }, runs)  # fmt: skip


def scoring(runs: int, reference_runs: int) -> dict[str, dict]:
    qa, ra, pa = ensure_data("a")
    qb, rb, pb = ensure_data("b")
    qa4, ra4, _ = ensure_data("a4")
    out = timed({
        "b text: trecrs eval": trecrs_cmd(qb, rb),
        "b text: polars read_csv, ids as strings": [PY, "-c", READ_CSV, str(rb)],
        "b text: polars read_csv, typed": [PY, "-c", READ_CSV_TYPED, str(rb)],
        "b Parquet: trecrs eval": trecrs_cmd(qb, pb),
        "b Parquet: polars read_parquet": [PY, "-c", READ_PARQUET, str(pb)],
        "a text: trecrs eval": trecrs_cmd(qa, ra),
        "a4 text: trecrs eval": trecrs_cmd(qa4, ra4),
    }, runs)  # fmt: skip
    reference = [PY, str(HERE / "reference_eval.py"), "pytrec_eval"]
    out.update(timed({
        "b text: trec_eval 9.0.8 (C)": trec_eval_cmd(qb, rb),
        "b text: pytrec_eval": [*reference, str(qb), str(rb)],
        "a text: pytrec_eval": [*reference, str(qa), str(ra)],
    }, reference_runs))  # fmt: skip
    return out


def factors(runs: int) -> dict[str, dict]:
    data = HERE / "data" / "factors-ml20m"
    if not (data / "user.parquet").exists():
        measure([PY, str(HERE / "generate_factors.py"), "--name", "ml20m"])
    from bench_factors import API, MEASURES

    cli = [PY, "-m", "trecrs", "eval-factors", *(x for m in MEASURES for x in ("-m", m)), str(data / "test.qrels"),
           "--train", str(data / "train.parquet"), "--user-factors", str(data / "user.parquet"),
           "--item-factors", str(data / "item.parquet"), "--block-users", "512"]  # fmt: skip
    return timed({"eval-factors ML-20M: CLI": cli,
                  "eval-factors ML-20M: API, pairs as 2 Parquet columns": [PY, "-c", API, str(data), ",".join(MEASURES), "512"]},
                 runs)  # fmt: skip


def ratios(res: dict) -> dict[str, float]:
    """The issue's targets as ratios of min wall times (medians of peak memory)."""
    t = {k: v["min_wall_s"] for k, v in res.items()}
    m = {k: v["median_peak_mb"] for k, v in res.items()}
    floor, imp, tiny = (t[k] for k in list(res)[:3])
    out = {"import trecrs - floor (s)": imp - floor, "trecrs eval tiny - floor (s)": tiny - floor}
    if "b text: trecrs eval" in t:
        out |= {
            "b text / polars read_csv (strings)": t["b text: trecrs eval"] / t["b text: polars read_csv, ids as strings"],
            "b text / polars read_csv (typed)": t["b text: trecrs eval"] / t["b text: polars read_csv, typed"],
            "b Parquet / b text": t["b Parquet: trecrs eval"] / t["b text: trecrs eval"],
            "pytrec_eval / trecrs, b": t["b text: pytrec_eval"] / t["b text: trecrs eval"],
            "trec_eval C / trecrs, b": t["b text: trec_eval 9.0.8 (C)"] / t["b text: trecrs eval"],
            "pytrec_eval / trecrs, a (wall)": t["a text: pytrec_eval"] / t["a text: trecrs eval"],
            "pytrec_eval / trecrs, a (peak memory)": m["a text: pytrec_eval"] / m["a text: trecrs eval"],
            "peak memory a4 / a (4x the lines)": m["a4 text: trecrs eval"] / m["a text: trecrs eval"],
        }  # fmt: skip
    return {k: round(v, 3) for k, v in out.items()}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--runs", type=int, default=3, help="runs of trecrs and each bare floor (min and median given)"
    )
    p.add_argument("--startup-runs", type=int, default=9, help="runs of the start-up rows")
    p.add_argument("--reference-runs", type=int, default=1, help="runs of trec_eval (C) and pytrec_eval")
    p.add_argument("--no-scoring", action="store_true", help="start-up rows only")
    p.add_argument(
        "--factors", action="store_true", help="also eval-factors at the ML-20M shape (CLI vs API)"
    )
    args = p.parse_args(argv)
    compile_trecrs()  # timed with bytecode caches, as an installed package runs
    res = startup(args.startup_runs)
    if not args.no_scoring:
        res |= scoring(args.runs, args.reference_runs)
    if args.factors:
        res |= factors(args.runs)
    doc = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                       "load1_before": os.getloadavg()[0]},
           "rows": res, "ratios": ratios(res)}  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "limits.json").write_text(json.dumps(doc, indent=1) + "\n")
    print("| what | min wall (s) | median wall (s) | median peak (MB) |\n|---|---:|---:|---:|")
    for name, r in res.items():
        print(f"| {name} | {r['min_wall_s']:.2f} | {r['median_wall_s']:.2f} | {r['median_peak_mb']:.0f} |")
    for name, v in doc["ratios"].items():
        print(f"{name}: {v}")


if __name__ == "__main__":
    main()
