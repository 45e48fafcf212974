"""Score ties: ``trecrs eval`` on one run written with its ties in three orders, beside its floors, one sitting.

The run (``bench_eval.py``'s cases ``t``, ``t-asc``, ``t-shuf``): 6,040 users x 3,706 items, every item
ranked (22,384,240 lines, 721 MB), 1% of the lines tied with the line above; the same lines with each
tie group in trec_eval's order (doc id descending bytewise), in item-id ascending order (as recommenders
write ties), or every line shuffled. Plus ``a-asc`` (6,040 x 1,000, ties ascending: trecrs against
pytrec_eval) and ``t4-asc`` (``t-asc`` 4 times, 89.5M lines: peak memory as the run grows).

Each row is a separate process (wall time from start to exit, peak RSS from ``wait4``); the rows of a
group alternate run by run, so that a cost and its floors see the same load; min and median of ``--runs``.
Floors: polars' bare read of the same file (6 columns, ids as strings), pytrec_eval 0.5.11 (parse +
evaluate, ``reference_eval.py``) and trec_eval 9.0.8's C binary (``tests/fuzz/binaries.py``), same measures.
Then, untimed: trecrs's output on the three orders and trec_eval's on ``t-asc`` must be the same bytes.

    python benchmarks/bench_ties.py --runs 3          # ~15 minutes on 2 cores; results/ties.json
    python benchmarks/bench_ties.py --runs 3 --no-4x  # without the 89.5M-line run (2.9 GB of text)
    python benchmarks/bench_ties.py --baseline /tmp/base   # + another trecrs tree on t-asc and t-shuf
    python benchmarks/bench_ties.py --modes --runs 5  # only --ties expected/best/worst against the default
                                                      # on t-asc (~5 minutes); results/ties_modes.json

``--baseline DIR``: a folder holding another version's ``trecrs`` package (``git archive REV trecrs | tar
-x -C DIR``), timed in the first group beside this one (``baseline`` rows).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_eval import RESULTS, ensure_data, trec_eval_cmd, trecrs_cmd  # noqa: E402
from bench_limits import READ_CSV, timed  # noqa: E402

PY = sys.executable
REFERENCE = [PY, str(HERE / "reference_eval.py"), "pytrec_eval"]


def baseline_cmd(tree: str, qrels: Path, run: Path) -> list[str]:
    """``trecrs eval`` of the package in ``tree`` (put first on the path: ``-m trecrs`` would take the
    current folder's)."""
    args = trecrs_cmd(qrels, run)[3:]
    code = f"import runpy, sys; sys.path.insert(0, {tree!r}); sys.argv = ['trecrs', *sys.argv[1:]]; " \
           "runpy.run_module('trecrs', run_name='__main__')"  # fmt: skip
    return [PY, "-c", code, *args]


def sitting(runs: int, reference_runs: int, four: bool, baseline: str | None) -> dict[str, dict]:
    """Every row, in groups alternated run by run (a group's rows see the same load)."""
    files = {case: ensure_data(case) for case in ("t-asc", "t", "t-shuf", "a-asc")}
    (qt, rt, _), (qa, ra, _) = files["t-asc"], files["a-asc"]
    first = {
        "t-asc: trecrs eval": trecrs_cmd(qt, rt),
        "t-asc: polars read_csv, ids as strings": [PY, "-c", READ_CSV, str(rt)],
        "t: trecrs eval": trecrs_cmd(*files["t"][:2]),
        "t-shuf: trecrs eval": trecrs_cmd(*files["t-shuf"][:2]),
        "a-asc: trecrs eval": trecrs_cmd(qa, ra),
    }
    if baseline:
        first["t-asc: trecrs eval, baseline"] = baseline_cmd(baseline, qt, rt)
        first["t-shuf: trecrs eval, baseline"] = baseline_cmd(baseline, *files["t-shuf"][:2])
    rows = timed(first, runs)
    rows |= timed({
        "t-asc: trec_eval 9.0.8 (C)": trec_eval_cmd(qt, rt),
        "t-asc: pytrec_eval": [*REFERENCE, str(qt), str(rt)],
        "a-asc: pytrec_eval": [*REFERENCE, str(qa), str(ra)],
        "t-asc: trecrs eval (beside the references)": trecrs_cmd(qt, rt),
        "a-asc: trecrs eval (beside the references)": trecrs_cmd(qa, ra),
    }, reference_runs)  # fmt: skip
    if four:
        q4, r4, _ = ensure_data("t4-asc")
        rows |= timed({"t4-asc: trecrs eval": trecrs_cmd(q4, r4), "t-asc: trecrs eval (beside t4-asc)": trecrs_cmd(qt, rt)},
                      runs)  # fmt: skip
    return rows


def modes_sitting(runs: int) -> dict[str, dict]:
    """``trecrs eval`` on ``t-asc`` in the default mode (which also reports the ties straddling 10 and
    50) and under each ``--ties`` mode, alternated run by run."""
    q, r, _ = ensure_data("t-asc")
    base = trecrs_cmd(q, r)
    rows = {"t-asc: trecrs eval": base}
    rows |= {
        f"t-asc: trecrs eval --ties {m}": [*base[:4], "--ties", m, *base[4:]]
        for m in ("expected", "best", "worst")
    }
    return timed(rows, runs)


def modes_ratios(rows: dict[str, dict]) -> dict[str, float]:
    """Each mode's min wall time over the default mode's (the issue's target: expected <= 1.3)."""
    t = {k: v["min_wall_s"] for k, v in rows.items()}
    base = t["t-asc: trecrs eval"]
    return {
        f"{m} / default": round(t[f"t-asc: trecrs eval --ties {m}"] / base, 3)
        for m in ("expected", "best", "worst")
    }


def same_output() -> dict[str, str]:
    """sha256 of ``trecrs eval``'s output on each tie order, and of trec_eval 9.0.8's on ``t-asc``."""
    out = {}
    for case in ("t", "t-asc", "t-shuf"):
        q, r, _ = ensure_data(case)
        out[f"trecrs {case}"] = _digest(trecrs_cmd(q, r))
    q, r, _ = ensure_data("t-asc")
    out["trec_eval 9.0.8 t-asc"] = _digest(trec_eval_cmd(q, r))
    return out


def _digest(cmd: list[str]) -> str:
    return hashlib.sha256(subprocess.run(cmd, check=True, capture_output=True).stdout).hexdigest()


def ratios(rows: dict[str, dict]) -> dict[str, float]:
    """The issue's targets as ratios of min wall times and of median peak memory."""
    t = {k: v["min_wall_s"] for k, v in rows.items()}
    m = {k: v["median_peak_mb"] for k, v in rows.items()}
    bare = t["t-asc: polars read_csv, ids as strings"]
    out = {
        "t-asc / polars bare read": t["t-asc: trecrs eval"] / bare,
        "t / polars bare read": t["t: trecrs eval"] / bare,
        "t-shuf / polars bare read": t["t-shuf: trecrs eval"] / bare,
        "t-asc / t": t["t-asc: trecrs eval"] / t["t: trecrs eval"],
        "pytrec_eval / trecrs, t-asc": t["t-asc: pytrec_eval"]
        / t["t-asc: trecrs eval (beside the references)"],
        "trec_eval C / trecrs, t-asc": t["t-asc: trec_eval 9.0.8 (C)"]
        / t["t-asc: trecrs eval (beside the references)"],
        "pytrec_eval / trecrs, a-asc (wall)": t["a-asc: pytrec_eval"]
        / t["a-asc: trecrs eval (beside the references)"],
        "pytrec_eval / trecrs, a-asc (peak memory)": m["a-asc: pytrec_eval"] / m["a-asc: trecrs eval"],
        "peak MB t-asc": m["t-asc: trecrs eval"],
    }
    for case in ("t-asc", "t-shuf"):
        if f"{case}: trecrs eval, baseline" in t:
            out[f"{case}: baseline / this"] = t[f"{case}: trecrs eval, baseline"] / t[f"{case}: trecrs eval"]
    if "t4-asc: trecrs eval" in m:
        out["peak memory t4-asc / t-asc (4x the lines)"] = (
            m["t4-asc: trecrs eval"] / m["t-asc: trecrs eval (beside t4-asc)"]
        )
    return {k: round(v, 3) for k, v in out.items()}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3, help="runs of each trecrs row and of the bare read")
    p.add_argument("--reference-runs", type=int, default=3, help="runs of trec_eval (C) and pytrec_eval")
    p.add_argument("--no-4x", action="store_true", help="skip the 89.5M-line run (t4-asc)")
    p.add_argument("--baseline", metavar="DIR", help="a folder holding another version's trecrs package")
    p.add_argument("--modes", action="store_true", help="only the --ties modes against the default, on t-asc")
    args = p.parse_args(argv)
    load = os.getloadavg()[0]
    if args.modes:
        rows = modes_sitting(args.runs)
        doc = {"rows": rows, "ratios": modes_ratios(rows)}
    else:
        rows = sitting(args.runs, args.reference_runs, not args.no_4x, args.baseline)
        doc = {
            "baseline": args.baseline,
            "rows": rows,
            "ratios": ratios(rows),
            "output_sha256": same_output(),
        }
    doc = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                       "load1_before": load, "load1_after": os.getloadavg()[0]}} | doc  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / ("ties_modes.json" if args.modes else "ties.json")).write_text(
        json.dumps(doc, indent=1) + "\n"
    )
    print(
        "| what | min wall (s) | median wall (s) | median peak (MB) | loads before |\n|---|---:|---:|---:|---|"
    )
    for name, r in rows.items():
        loads = ", ".join(f"{x['load_before']:.1f}" for x in r["runs"])
        print(
            f"| {name} | {r['min_wall_s']:.2f} | {r['median_wall_s']:.2f} | {r['median_peak_mb']:.0f} | {loads} |"
        )
    for name, v in doc["ratios"].items():
        print(f"{name}: {v}")
    for name, v in doc.get("output_sha256", {}).items():
        print(f"{name}: {v[:16]}")


if __name__ == "__main__":
    main()
