"""Warm re-evaluation, as notebook users work: qrels and run read once, then evaluated again; trecrs vs ranx.

    python benchmarks/bench_warm.py [--case a] [--data benchmarks/data] [--repeat 5] [--calls 3]

Each round runs two fresh processes, one per tool (the order alternates from round to round), each doing
what a notebook does, with the load average noted before it starts:

* trecrs: ``q = trecrs.read_qrels(QRELS)``, ``r = trecrs.read_run(RUN)``, then ``trecrs.evaluate(q, r,
  ["P.10,50", "recall.50", "ndcg_cut.50", "map", "recip_rank"])`` ``--calls`` times;
* ranx: ``Qrels.from_file(QRELS, kind="trec")``, ``Run.from_file(RUN, kind="trec")``, then
  ``evaluate(qrels, run, ["precision@10", "precision@50", "recall@50", "ndcg@50", "map", "mrr"])``
  ``--calls`` times (the first call includes numba's compilation, or loading its cache).

The wall time of the reading and of each call is taken in the process (imports excluded); the minimum and
median over the rounds of each are reported, and the ratio of ranx's second call to trecrs's. Every call of
one trecrs process must print the same trec_eval text (checked in the process). Raw figures go to
``benchmarks/results/warm_<case>.json``. The files are ``<data>/<case>.qrels`` and ``<case>.run``
(``generate.py``; ``bench_eval.py`` writes them when missing).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
RESULTS = HERE / "results"
MEASURES = ["P.10,50", "recall.50", "ndcg_cut.50", "map", "recip_rank"]
RANX_METRICS = ["precision@10", "precision@50", "recall@50", "ndcg@50", "map", "mrr"]


def trecrs_calls(qrels_path: Path, run_path: Path, calls: int) -> dict:
    """Seconds to read both files, then of each ``evaluate`` call on the frames read."""
    import trecrs

    t0 = time.perf_counter()
    qrels, run = trecrs.read_qrels(qrels_path), trecrs.read_run(run_path)
    seconds = {"read": time.perf_counter() - t0}
    texts = set()
    for i in range(calls):
        t0 = time.perf_counter()
        result = trecrs.evaluate(qrels, run, MEASURES)
        seconds[f"call {i + 1}"] = time.perf_counter() - t0
        texts.add(result.to_trec(per_query=True))
    if len(texts) != 1:
        raise SystemExit("trecrs: the calls printed different results")
    return seconds


def ranx_calls(qrels_path: Path, run_path: Path, calls: int) -> dict:
    """Seconds to read both files, then of each ``evaluate`` call on the ``Qrels`` and ``Run`` built."""
    from ranx import Qrels, Run, evaluate

    t0 = time.perf_counter()
    qrels, run = Qrels.from_file(str(qrels_path), kind="trec"), Run.from_file(str(run_path), kind="trec")
    seconds = {"read": time.perf_counter() - t0}
    for i in range(calls):
        t0 = time.perf_counter()
        evaluate(qrels, run, RANX_METRICS)
        seconds[f"call {i + 1}"] = time.perf_counter() - t0
    return seconds


TOOLS = {"trecrs": trecrs_calls, "ranx": ranx_calls}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", default="a")
    p.add_argument("--data", type=Path, default=DATA, help="folder of <case>.qrels and <case>.run")
    p.add_argument("--repeat", type=int, default=5, help="rounds (one process per tool each)")
    p.add_argument("--calls", type=int, default=3, help="evaluate calls per process (at least 2)")
    p.add_argument("--child", choices=sorted(TOOLS), help=argparse.SUPPRESS)
    args = p.parse_args()
    qrels, run = args.data / f"{args.case}.qrels", args.data / f"{args.case}.run"
    if args.child:
        print(json.dumps(TOOLS[args.child](qrels, run, max(args.calls, 2))))
        return
    rounds: dict[str, list[dict]] = {tool: [] for tool in TOOLS}
    for r in range(args.repeat):
        for tool in list(TOOLS)[:: 1 if r % 2 == 0 else -1]:
            load = os.getloadavg()[0]
            cmd = [sys.executable, __file__, "--case", args.case, "--data", str(args.data), "--calls",
                   str(args.calls), "--child", tool]  # fmt: skip
            seconds = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
            rounds[tool].append({"load": load, **seconds})
            print(tool, {k: round(v, 3) for k, v in rounds[tool][-1].items()}, flush=True)
    summary = {tool: {k: (min(r[k] for r in rs), statistics.median(r[k] for r in rs)) for k in rs[0] if k != "load"}
               for tool, rs in rounds.items()}  # fmt: skip
    print(f"min / median of {args.repeat} rounds (s); load average before each process: "
          f"{min(r['load'] for rs in rounds.values() for r in rs):.1f}-"
          f"{max(r['load'] for rs in rounds.values() for r in rs):.1f}")  # fmt: skip
    for tool, phases in summary.items():
        print(f"  {tool:7s} " + "  ".join(f"{k} {a:.3f} / {b:.3f}" for k, (a, b) in phases.items()))
    for i, name in enumerate(("min", "median")):
        ratio = summary["ranx"]["call 2"][i] / summary["trecrs"]["call 2"][i]
        print(f"  second call, {name}: ranx / trecrs = {ratio:.2f}x")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"warm_{args.case}.json"
    machine = {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()}
    out.write_text(json.dumps({"machine": machine, "rounds": rounds, "summary": summary}, indent=1) + "\n")


if __name__ == "__main__":
    main()
