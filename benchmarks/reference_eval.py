"""One timed evaluation by a reference tool, run as its own process by ``bench_eval.py``.

    python benchmarks/reference_eval.py pytrec_eval QRELS RUN [--out per_query.json]
    python benchmarks/reference_eval.py ranx QRELS RUN [--out per_query.json]

Parses both files with the tool's own reader and evaluates P.10,50 recall.50 ndcg_cut.50 map recip_rank
(ranx: precision@10/@50, recall@50, ndcg@50, map, mrr). Prints one JSON line with the parse and evaluate
times; ``--out`` writes the per-query values (trec_eval output names) for the agreement check.
"""

from __future__ import annotations

import argparse
import json
import time

TREC_MEASURES = ["P.10,50", "recall.50", "ndcg_cut.50", "map", "recip_rank"]
RANX_NAMES = {
    "precision@10": "P_10",
    "precision@50": "P_50",
    "recall@50": "recall_50",
    "ndcg@50": "ndcg_cut_50",
    "map": "map",
    "mrr": "recip_rank",
}


def run_pytrec_eval(qrels_path: str, run_path: str) -> tuple[dict, float, float]:
    import pytrec_eval

    t0 = time.perf_counter()
    with open(qrels_path) as fq, open(run_path) as fr:
        qrels = pytrec_eval.parse_qrel(fq)
        run = pytrec_eval.parse_run(fr)
    t1 = time.perf_counter()
    results = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES)).evaluate(run)
    t2 = time.perf_counter()
    return results, t1 - t0, t2 - t1


def run_ranx(qrels_path: str, run_path: str) -> tuple[dict, float, float]:
    from ranx import Qrels, Run, evaluate

    t0 = time.perf_counter()
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    t1 = time.perf_counter()
    evaluate(qrels, run, list(RANX_NAMES), return_mean=True)
    t2 = time.perf_counter()
    per_query = {}
    for metric, name in RANX_NAMES.items():
        for q, v in run.scores[metric].items():
            per_query.setdefault(q, {})[name] = float(v)
    return per_query, t1 - t0, t2 - t1


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("tool", choices=["pytrec_eval", "ranx"])
    p.add_argument("qrels")
    p.add_argument("run")
    p.add_argument("--out", help="write per-query values here (JSON)")
    args = p.parse_args()
    fn = run_pytrec_eval if args.tool == "pytrec_eval" else run_ranx
    per_query, parse_s, eval_s = fn(args.qrels, args.run)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(per_query, fh)
    print(
        json.dumps({"tool": args.tool, "parse_s": parse_s, "evaluate_s": eval_s, "queries": len(per_query)})
    )


if __name__ == "__main__":
    main()
