"""Differential fuzzing of ``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg`` against trec_eval binaries.

    python3 -m tests.fuzz.prefs --seed 1 --cases 300 [--format prefs] [--version 9|10] [--only K]

Case ``K`` of (seed, format) is generated deterministically: a few queries, judgment groups with one or
several sub-groups (the equivalence-class and preference-array paths of ``form_prefs_counts.c``), levels
drawn from a handful of values (ties forced), scores from :data:`.generate.SCORES` (ties and float32
collisions), queries in only one file, and random ``-q -c -n -M -l -J`` with
nicknames or single measures. Judgments within a group follow one hidden order, so that trec_eval does
not abort on them, except in a few cases made inconsistent on purpose (both programs must then fail).
"""

from __future__ import annotations

import argparse
import sys

from .binaries import VERSIONS, binary
from .generate import SCORES, Case, _docs, _qids, case_rng
from .run import Outcome, Worker, case_files, run_binary, trecrs_argv

FORMATS = ("prefs", "qrels_prefs", "qrels_jg")
PREFS_MEASURES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp", "num_q", "runid",
)  # fmt: skip
JG_MEASURES = (
    "map_avgjg",
    "P_avgjg",
    "P_avgjg.1,3,10",
    "Rprec_mult_avgjg",
    "Rprec_mult_avgjg.0.5,1.5",
    "num_q",
)
LEVELS = (0, 0, 1, 1, 2, 3, 5)
MOSTLY_ZERO = (0, 0, 0, 0, 1, 2)  # more nonrelevant than relevant docs: the R-nonrel recalculations


def make_prefs_case(seed: int, k: int, fmt: str) -> Case:
    """Case ``k`` of ``seed`` for the relevance format ``fmt``."""
    rng = case_rng(seed, f"{fmt}:{k}")
    qids = _qids(rng, rng.choice([1, 2, 3, 4]) + 2)
    both, rel_only, run_only = (
        qids[:-2],
        qids[-2:-1][: rng.choice([0, 0, 1])],
        qids[-1:][: rng.choice([0, 1])],
    )
    docs = _docs(rng, rng.choice([3, 6, 12]))
    rel = []
    for q in both + rel_only:
        rel += (_prefs_lines if fmt == "prefs" else _jg_lines)(rng, q, docs, fmt)
    run, score = [], SCORES[rng.choice(sorted(SCORES))]
    for q in both + run_only:
        pool = docs + [f"u{i}" for i in range(rng.choice([0, 2, 5]))]
        for r, d in enumerate(rng.sample(pool, rng.randint(1, len(pool))), 1):
            run.append(f"{q} Q0 {d} {r} {score(rng)} tag{rng.choice('ab')}")
    for lines in (rel, run):
        if rng.random() < 0.6:
            rng.shuffle(lines)
    return Case(rel, run, _flags(rng, fmt))


def _prefs_lines(rng, q: str, docs: list[str], fmt: str) -> list[str]:
    """``q jg jsg doc level`` lines: each group ranks its docs by one hidden level, each sub-group shows
    a sample of them (levels scaled, 0 kept 0); 1 group in 25 draws its levels at random."""
    lines = []
    for g in range(rng.choice([1, 1, 2, 3])):
        levels = rng.choice([LEVELS, MOSTLY_ZERO])
        hidden = {d: rng.choice(levels) for d in docs}
        broken = rng.random() < 0.04
        for s in range(rng.choice([1, 2, 3])):
            scale = rng.choice([1, 2, 0.5])
            for d in rng.sample(docs, rng.randint(1, len(docs))):
                level = rng.choice(LEVELS) if broken else hidden[d] * scale
                lines.append(f"{q} g{g} s{s} {d} {rng.choice(['%g', '%.1f']) % level}")
    return lines


def _jg_lines(rng, q: str, docs: list[str], fmt: str) -> list[str]:
    """``q jg doc rel`` lines (qrels_prefs, qrels_jg): 1-3 groups, each judging a sample of the docs."""
    values = (0, 0, 1, 1, 2, 3) if fmt == "qrels_prefs" else (0, 0, 1, 1, 2, 3, -1)
    lines = []
    for g in rng.sample(["0", "1", "A", "10", "9"], rng.choice([1, 1, 2, 3])):
        lines += [f"{q} {g} {d} {rng.choice(values)}" for d in rng.sample(docs, rng.randint(1, len(docs)))]
    return lines


def _flags(rng, fmt: str) -> list[str]:
    flags = ["-R", fmt]
    for flag, p in (("-q", 0.5), ("-c", 0.3), ("-n", 0.1), ("-J", 0.2)):  # -J, -l: no effect on prefs
        if rng.random() < p:
            flags.append(flag)
    if rng.random() < 0.3:
        flags += ["-l", rng.choice(["2", "3"])]
    if rng.random() < 0.2:
        flags += ["-M", rng.choice(["1", "2", "4"])]
    if rng.random() < 0.5:
        flags += ["-m", rng.choice(["qrels_jg"] if fmt == "qrels_jg" else ["all_prefs", "prefs"])]
    else:
        for spec in rng.sample(JG_MEASURES if fmt == "qrels_jg" else PREFS_MEASURES, rng.randint(1, 3)):
            flags += ["-m", spec]
    return flags


def compare(te: Outcome, got: Outcome) -> str | None:
    """None when trecrs agrees with the binary: the same bytes, or both fail (trecrs without crashing)."""
    if te.ok and got.ok:
        return None if te.stdout == got.stdout else "different output"
    if not te.ok and got.status > 0 and got.status != 70:
        return None
    return f"trec_eval status {te.status}, trecrs status {got.status}"


def check_case(worker: Worker, version: str, seed: int, k: int, fmt: str) -> tuple[str | None, bool]:
    """The difference of case ``k`` (None: agreement), and whether trec_eval succeeded on it."""
    case = make_prefs_case(seed, k, fmt)
    with case_files(case) as (rel, run):
        te = run_binary(binary(version), case, rel, run)
        got = worker.run(trecrs_argv(case, rel, run, "auto", version))
    return compare(te, got), te.ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m tests.fuzz.prefs", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cases", type=int, default=200)
    p.add_argument("--format", choices=FORMATS, action="append")
    p.add_argument("--version", choices=sorted(VERSIONS), default="9")
    p.add_argument("--only", type=int, help="print case K (files, both outputs)")
    args = p.parse_args(argv)
    worker = Worker()
    bad = 0
    try:
        for fmt in args.format or FORMATS:
            ks = [args.only] if args.only is not None else range(args.cases)
            printed = 0
            for k in ks:
                if args.only is not None:
                    _show(worker, args.version, args.seed, k, fmt)
                    continue
                diff, ok = check_case(worker, args.version, args.seed, k, fmt)
                printed += ok
                if diff:
                    bad += 1
                    print(f"{fmt} case {k}: {diff} (--only {k} --format {fmt})")
            print(
                f"{fmt}: seed {args.seed}, {len(ks)} cases ({printed} where trec_eval succeeds), "
                f"trec_eval {VERSIONS[args.version]}"
            )
    finally:
        worker.close()
    return 1 if bad else 0


def _show(worker: Worker, version: str, seed: int, k: int, fmt: str) -> None:
    case = make_prefs_case(seed, k, fmt)
    with case_files(case) as (rel, run):
        te = run_binary(binary(version), case, rel, run)
        got = worker.run(trecrs_argv(case, rel, run, "auto", version))
    print(f"flags: {' '.join(case.flags)}\n--- rel\n{case.qrels_text()}--- run\n{case.run_text()}")
    print(f"--- trec_eval (status {te.status})\n{te.stdout.decode(errors='replace')}{te.stderr}")
    print(f"--- trecrs (status {got.status})\n{got.stdout.decode(errors='replace')}{got.stderr}")


if __name__ == "__main__":
    sys.exit(main())
