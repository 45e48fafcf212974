"""pytrec_eval beside its drop-in, ``from trecrs import pytrec_eval``: the same calls, timed.

    python benchmarks/bench_pytrec_eval.py [--case a] [--data benchmarks/data] [--repeat 3]

Each round runs two fresh processes, pytrec_eval's then trecrs's, each doing what code written for
pytrec_eval does: ``parse_qrel`` + ``parse_run`` on the open files, ``RelevanceEvaluator(qrels, MEASURES)``
and ``evaluate(run)``; the rounds alternate the two tools, and the minimum over rounds of each phase
(wall time, and CPU time: polars parses on several threads) is reported. Then, untimed, one process computes both and checks that the dicts are equal (``==``: keys,
their order, values bit for bit). The files are ``benchmarks/data/<case>.qrels`` and ``<case>.run``
(``generate.py``; ``bench_eval.py`` writes them when missing).
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
MEASURES = {"P.10,50", "recall.50", "ndcg_cut.50", "map", "recip_rank"}
TOOLS = {"pytrec_eval": "pytrec_eval", "trecrs": "trecrs.pytrec_eval"}


def timed(module: str, qrels_path: Path, run_path: Path) -> tuple[dict, dict]:
    """The results of one tool and the wall and CPU seconds of each phase (the import in none of them)."""
    pe = importlib.import_module(module)
    clocks = [(time.perf_counter(), time.process_time())]
    with open(qrels_path) as fq, open(run_path) as fr:
        qrels, run = pe.parse_qrel(fq), pe.parse_run(fr)
    clocks.append((time.perf_counter(), time.process_time()))
    evaluator = pe.RelevanceEvaluator(qrels, MEASURES)
    results = evaluator.evaluate(run)
    clocks.append((time.perf_counter(), time.process_time()))
    seconds = {}
    for phase, (a, b) in {"parse": (0, 1), "evaluate": (1, 2), "total": (0, 2)}.items():
        seconds[phase] = clocks[b][0] - clocks[a][0]
        seconds[f"{phase} cpu"] = clocks[b][1] - clocks[a][1]
    return results, seconds


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", default="a")
    p.add_argument("--data", type=Path, default=DATA, help="folder of <case>.qrels and <case>.run")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--child", choices=sorted(TOOLS), help=argparse.SUPPRESS)
    args = p.parse_args()
    qrels, run = args.data / f"{args.case}.qrels", args.data / f"{args.case}.run"
    if args.child:
        print(json.dumps(timed(TOOLS[args.child], qrels, run)[1]))
        return
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.repeat):
        for tool in TOOLS:
            cmd = [sys.executable, __file__, "--case", args.case, "--data", str(args.data), "--child", tool]
            seconds = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
            print(tool, {k: round(v, 2) for k, v in seconds.items()}, flush=True)
            for phase, s in seconds.items():
                best.setdefault(tool, {})[phase] = min(s, best.get(tool, {}).get(phase, float("inf")))
    print(f"min of {args.repeat} (wall, then CPU: user + sys of every thread):")
    for tool, seconds in best.items():
        print(f"  {tool:12s} " + "  ".join(f"{k} {v:.2f} s" for k, v in seconds.items()))
    for phase in best["trecrs"]:
        print(f"  {phase}: pytrec_eval / trecrs = {best['pytrec_eval'][phase] / best['trecrs'][phase]:.2f}x")
    want, got = timed(TOOLS["pytrec_eval"], qrels, run)[0], timed(TOOLS["trecrs"], qrels, run)[0]
    same = got == want and list(got) == list(want) and all(list(got[q]) == list(want[q]) for q in want)
    print(f"results identical: {same} ({len(want):,} queries)")


if __name__ == "__main__":
    main()
