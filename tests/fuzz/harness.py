"""Differential fuzzing of ``trecrs eval`` against a trec_eval binary.

    python3 -m tests.fuzz.harness --seed 1 --cases 1000 [--only K] [--version 9|10] [--engine E]
                                   [--no-shrink] [--save tests/fuzz/cases]

Case ``K`` of seed ``S`` is generated deterministically (:mod:`.generate`), written to a temporary folder,
and run through the binary and through ``trecrs eval --engine E`` for each engine (in a worker process,
:class:`.run.Worker`). Differences are grouped by class (:func:`.classify.signature`); one example per
class is shrunk (:mod:`.shrink`) and printed, and with ``--save`` stored as a golden case.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .binaries import VERSIONS, binary
from .classify import KNOWN, KNOWN_BY_NAME, REFERENCE_CRASHED, for_engine, signature
from .generate import Case, make_case
from .run import ENGINES, Outcome, Worker, case_files, run_binary, trecrs_argv


@dataclass
class Report:
    """Counts per engine and per class, and the first case of each class."""

    cases: int = 0
    agreed: Counter = field(default_factory=Counter)  # engine -> cases that agree
    unsupported: Counter = field(default_factory=Counter)  # engine -> cases the engine refuses
    crashed: Counter = field(
        default_factory=Counter
    )  # engine -> cases where trec_eval crashed (not agreement)
    classes: Counter = field(default_factory=Counter)  # (signature, engine) -> cases
    first: dict = field(default_factory=dict)  # signature -> (k, engine)


class Differ:
    """Runs cases through one trec_eval binary and trecrs's engines."""

    def __init__(
        self,
        version: str = "9",
        engines: tuple[str, ...] = ENGINES,
        known: tuple = KNOWN,
        coarse: bool = False,
    ) -> None:
        self.binary = binary(version)
        self.version = version
        self.coarse = coarse
        self.engines = engines
        self.known = known  # the known classes a signature may name
        self.worker = Worker()

    def outcomes(
        self, case: Case, engines: tuple[str, ...] | None = None
    ) -> tuple[Outcome, dict[str, Outcome]]:
        """trec_eval's outcome and trecrs's per engine."""
        with case_files(case) as (qrels, run):
            te = run_binary(self.binary, case, qrels, run)
            return te, {
                e: self.worker.run(trecrs_argv(case, qrels, run, e, self.version))
                for e in engines or self.engines
            }

    def signatures(self, case: Case) -> dict[str, str | None]:
        te, rs = self.outcomes(case)
        return {e: signature(case, te, out, for_engine(self.known, e), self.coarse) for e, out in rs.items()}

    def shrink(self, case: Case, engine: str, sig: str, tries: int = 400) -> Case:
        """A small case showing the difference ``sig`` with ``engine``."""
        from .shrink import shrink

        def still(c: Case) -> bool:
            if not c.qrels or not c.run:
                return False
            te, rs = self.outcomes(c, (engine,))
            return signature(c, te, rs[engine], for_engine(self.known, engine), self.coarse) == sig

        return shrink(case, still, tries)

    def close(self) -> None:
        self.worker.close()


def explore(differ: Differ, seed: int, ks: range | list[int], progress: bool = False) -> Report:
    """Run cases ``ks`` of ``seed``; count agreements and classes."""
    report = Report()
    start = time.monotonic()
    for i, k in enumerate(ks):
        report.cases += 1
        for engine, sig in differ.signatures(make_case(seed, k)).items():
            if sig is None:
                report.agreed[engine] += 1
            elif sig.startswith("unsupported:"):
                report.unsupported[engine] += 1
            elif sig == REFERENCE_CRASHED:
                report.crashed[engine] += 1
            else:
                report.classes[sig, engine] += 1
                report.first.setdefault(sig, (k, engine))
        if progress and (i + 1) % 100 == 0:
            print(f"  {i + 1} cases, {time.monotonic() - start:.0f} s", file=sys.stderr)
    return report


def save_case(folder: Path, name: str, case: Case, te: Outcome, meta: dict) -> Path:
    """Store a golden case: qrels, run, the flags and the binary's stdout and status (``case.json``)."""
    where = folder / name
    where.mkdir(parents=True, exist_ok=True)
    (where / "qrels").write_text(case.qrels_text())
    (where / "run").write_text(case.run_text())
    (where / "expected.out").write_bytes(te.stdout)
    (where / "case.json").write_text(
        json.dumps({**meta, "flags": case.flags, "status": te.status}, indent=1) + "\n"
    )
    return where


def slug(sig: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", sig.lower()).strip("-")[:60]


def _summary(report: Report, differ: Differ, args) -> None:
    print(f"seed {args.seed}, {report.cases} cases, trec_eval {VERSIONS[args.version]}")
    print(f"{'engine':<12} {'agree':>6} {'%':>7} {'unsupported':>11} {'reference crashed':>17}")
    for e in differ.engines:
        pct = 100.0 * report.agreed[e] / max(report.cases, 1)
        print(
            f"{e:<12} {report.agreed[e]:>6} {pct:>6.1f}% {report.unsupported[e]:>11} {report.crashed[e]:>17}"
        )
    print("classes (cases per engine):")
    for sig in sorted(report.first, key=lambda s: -sum(n for (t, _), n in report.classes.items() if t == s)):
        counts = ", ".join(f"{e} {report.classes[sig, e]}" for e in differ.engines if report.classes[sig, e])
        k, engine = report.first[sig]
        print(f"\n* {sig}\n  {counts}; first: --only {k} --engine {engine}")
        if args.no_shrink:
            continue
        small = differ.shrink(make_case(args.seed, k), engine, sig, args.shrink_tries)
        print(f"  flags: {' '.join(small.flags)}")
        for label, lines in (("qrels", small.qrels), ("run", small.run)):
            print(f"  {label}:" + "".join(f"\n    {x}" for x in lines))
        if args.save and not args.no_known and all(part in KNOWN_BY_NAME for part in sig.split("+")):
            te, rs = differ.outcomes(small)
            classes = {e: signature(small, te, out, for_engine(KNOWN, e)) for e, out in rs.items()}
            meta = {"class": sig, "classes": classes, "seed": args.seed, "case": k, "version": args.version}
            print(f"  saved in {save_case(Path(args.save), slug(sig), small, te, meta)}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m tests.fuzz.harness", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cases", type=int, default=200)
    p.add_argument("--only", type=int, help="run case K only (and print its files and outputs)")
    p.add_argument(
        "--version", choices=sorted(VERSIONS), default="9", help="trec_eval 9 (9.0.8) or 10 (10.0)"
    )
    p.add_argument("--engine", choices=ENGINES, action="append", help="trecrs engines (default: all)")
    p.add_argument(
        "--no-known",
        action="store_true",
        help="name no known class: every difference by its "
        "measures and flags (for trec_eval 10.0, which the known classes do not describe)",
    )
    p.add_argument("--coarse", action="store_true", help="classes by base measure names only, without flags")
    p.add_argument("--shrink-tries", type=int, default=400, help="runs allowed to shrink each example")
    p.add_argument("--no-shrink", action="store_true", help="do not shrink the example of each class")
    p.add_argument(
        "--save",
        metavar="DIR",
        help="store the shrunk example of each known class as a golden case in DIR (tests/fuzz/cases)",
    )
    args = p.parse_args(argv)
    differ = Differ(args.version, tuple(args.engine or ENGINES), () if args.no_known else KNOWN, args.coarse)
    try:
        if args.only is not None:
            return _show(differ, args.seed, args.only)
        _summary(explore(differ, args.seed, range(args.cases), progress=True), differ, args)
    finally:
        differ.close()
    return 0


def _show(differ: Differ, seed: int, k: int) -> int:
    """Print case ``k``: flags, files, both outputs and the class per engine."""
    case = make_case(seed, k)
    te, rs = differ.outcomes(case)
    print(f"flags: {' '.join(case.flags)}\n--- qrels\n{case.qrels_text()}--- run\n{case.run_text()}")
    print(f"--- trec_eval (status {te.status})\n{te.stdout.decode(errors='replace')}{te.stderr}")
    for e, out in rs.items():
        print(
            f"--- trecrs --engine {e} (status {out.status}): {signature(case, te, out, for_engine(differ.known, e)) or 'agree'}"
        )
        print(out.stdout.decode(errors="replace") + out.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
