"""Differential fuzzing of trecrs's ir_measures names against ir_measures itself.

    python3 -m tests.fuzz.irmeasures --seed 1 --cases 300 [--only K] [--cli] [--engine E] [--examples N]

Case ``K`` of seed ``S`` (:func:`make_case`) is random qrels (grades -2..4, queries with no relevant
document, with one judgement, only in the qrels), a random run (forced score ties, unjudged documents,
one-document rankings, queries only in the run) and a random set of measure strings drawn from
:data:`trecrs.measures.grammar.FORMS`: every spelling, each parameter the form takes with a random valid
value (ir_measures' ``ParamInfo`` types and choices), the cutoff when the form takes one, written
``Name(params)@k`` or, without parameters, sometimes as the plain ``Name@k``; global ``relevance_level`` /
``judged_only`` flags are set at random when every string has parentheses (they must change nothing).
New forms are covered as they are added.

Each string's per-query values from ``trecrs.evaluate`` (or ``trecrs eval -q`` with ``--cli``) and its
summary value are compared with ``ir_measures.iter_calc`` (and the aggregate of its values) on the queries
of the run: ir_measures also scores each qrels query missing from the run (0), which trec_eval does not
print (it counts them in averages under ``-c`` only). Outcomes:

* ``agree``: the same queries, each value equal to 1e-9 (gdeval.pl prints 5 decimals: 5e-6; ``--cli``
  prints 4: 5e-5);
* ``ties``: differs on the run as given, agrees when ir_measures gets the run re-scored in trec_eval's
  order (score as a C float descending, document id descending) -- counted so only for the providers
  docs/measures.md documents as breaking ties otherwise (:data:`TIES_OTHERWISE`); elsewhere a mismatch;
* ``exits``: trecrs stops as trec_eval 9.0.8 does on the input (the first query evaluated is judged only
  negatively, for ``bpref``, ``set_F``...: "it exits here too");
* ``no-ref``: ir_measures has no provider for it here (``NumRel(rel=2)``, ``nDCG(dcg='exp-log2')``
  without cutoff, which needs ranx);
* ``refused``: trecrs refuses a string ir_measures takes; ``mismatch``: any other difference.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from trecrs.measures.grammar import FORMS, PARAM_TYPES, Form

# ir_measures providers that order tied scores otherwise than trec_eval (score descending, then document id
# descending): by document id ascending (providers/judged_provider.py, msmarco_provider.py, compat_provider.py)
# or in the run's order (cwl_eval_provider.py, accuracy_provider.py: a stable sort on the score alone);
# docs/measures.md, "Parameterised names"
TIES_OTHERWISE = frozenset({"judged", "msmarco", "compat", "cwl_eval", "accuracy"})
# providers whose values are read from printed decimals (gdeval.pl: %.5f)
PRINTED = {"gdeval": 5e-6}
OUTCOMES = ("agree", "ties", "exits", "no-ref", "refused", "mismatch")
# how trecrs says that trec_eval stops on the input too (a first query judged only negatively, for the
# measures trec_eval then cannot compute; checked against the binaries by tests/fuzz/test_differential.py)
EXITS = "(it exits here too)"

# candidate values of each parameter; a parameter not listed draws from GENERIC; each candidate is kept
# only when both trecrs's type check and ir_measures' ParamInfo accept it
CANDIDATES = {
    "rel": [1, 1, 2, 2, 3, 4],
    "judged_only": [False, True],
    "dcg": ["log2", "exp-log2", "exp-log2"],
    "beta": [0.25, 0.5, 1.0, 2.0, 3.0],
    "relative": [False, True],
    "p": [0.5, 0.8, 0.95],
}
GENERIC = [0, 1, 2, 3, 4, 0.5, 0.8, 0.95, 1.0, 2.0, True, False]
INT_CUTOFFS = [1, 2, 3, 5, 10, 20, 50]
REAL_CUTOFFS = [0.0, 0.1, 0.2, 0.25, 0.5, 0.7, 1.0]


@dataclass
class IrmCase:
    """One case: ``{query: {doc: grade}}``, ``{query: {doc: score}}``, the measure strings, global flags."""

    qrels: dict[str, dict[str, int]]
    run: dict[str, dict[str, float]]
    specs: list[str]
    flags: dict = field(default_factory=dict)

    def qrels_text(self) -> str:
        return "".join(f"{q} 0 {d} {g}\n" for q, docs in self.qrels.items() for d, g in docs.items())

    def run_text(self) -> str:
        return "".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in self.run.items() for d, s in docs.items())


def _ir_measures():
    import ir_measures

    return ir_measures


def _registered(spelling: str):
    """ir_measures' measure of that spelling, or None."""
    from ir_measures.measures import registry

    return registry.get(spelling)


def _param_value(rng: random.Random, name: str, info):
    """A random value of parameter ``name`` valid for trecrs and for ir_measures (``info``: its ParamInfo)."""
    if name == "gains":
        grades = rng.sample(range(-1, 5), rng.randint(1, 4))
        return {g: rng.choice([0, 0, 1, 2, 3, 5, 10, -1]) for g in sorted(grades)}
    choices = getattr(info, "choices", None)
    pool = list(choices) if isinstance(choices, list | tuple) else CANDIDATES.get(name, GENERIC)
    check = PARAM_TYPES.get(name, (lambda v: True, ""))[0]
    ok = [v for v in pool if check(v) and (info is None or info.validate(v))]
    return rng.choice(ok) if ok else None


def _cutoff(rng: random.Random, measure) -> str:
    info = None if measure is None else measure.SUPPORTED_PARAMS.get(measure.AT_PARAM)
    real = info is not None and info.dtype is float
    return repr(rng.choice(REAL_CUTOFFS if real else INT_CUTOFFS))


def make_spec(rng: random.Random, form: Form) -> str:
    """A random string of ``form``: a spelling, some parameters with valid values, the cutoff if taken."""
    spelling = rng.choice(form.spellings)
    measure = _registered(spelling)
    infos = {} if measure is None else measure.SUPPORTED_PARAMS
    params = {}
    for name in sorted(form.params):
        info = infos.get(name)
        if rng.random() < 0.5 or getattr(info, "required", False):
            value = _param_value(rng, name, info)
            if value is not None:
                params[name] = value
    sep = rng.choice([", ", ","])
    text = f"{spelling}({sep.join(f'{k}={v!r}' for k, v in params.items())})"
    if not params and rng.random() < 0.3:
        text = spelling  # the plain name: the same measure when the global flags are the defaults
    take = form.cutoff == "required" or (form.cutoff == "optional" and rng.random() < 0.5)
    return f"{text}@{_cutoff(rng, measure)}" if take else text


def _referenced_spec(rng: random.Random, form: Form, tries: int = 4) -> str:
    """A string of ``form``, drawn again (up to ``tries`` times) while ir_measures has no provider for it,
    so that the parameter combinations ir_measures computes (``nDCG(dcg='exp-log2')@k`` without gains) are
    drawn often; the others still come up."""
    for _ in range(tries):
        spec = make_spec(rng, form)
        try:
            if provider_of(parse(spec)) is not None:
                return spec
        except Exception:  # noqa: BLE001,S112 -- ir_measures refuses it: draw again
            continue
    return spec


def _rankings(rng: random.Random, queries: list[str], docs: list[str]) -> dict[str, dict[str, float]]:
    mode = rng.choice(["ties", "distinct", "few", "same"])
    run = {}
    for q in queries:
        pool = docs + [f"u{i}" for i in range(rng.choice([0, 3, 10]))]  # documents in no qrels
        chosen = rng.sample(pool, rng.randint(1, min(len(pool), rng.choice([1, 5, 15, 40]))))
        if mode == "distinct":
            scores = [s + 0.5 for s in rng.sample(range(1000), len(chosen))]
        else:
            values = {"ties": [0.0, 0.5, 1.0, 1.5, 2.0], "few": [float(i) for i in range(6)], "same": [1.0]}[
                mode
            ]
            scores = [rng.choice(values) for _ in chosen]
        run[q] = dict(zip(chosen, scores, strict=True))
    return run


def _judgements(rng: random.Random, queries: list[str], docs: list[str]) -> dict[str, dict[str, int]]:
    """Graded queries, queries with nothing relevant, with one judgement; a query judged only negatively
    comes first in trec_eval's order only (trec_eval stops there for some measures; after another query
    pytrec_eval, ir_measures' provider, crashes or loops on it)."""
    qrels = {}
    first = min(q.encode() for q in queries).decode()
    for q in queries:
        profile = rng.choices(["graded", "none", "negative", "single"], [75, 12, 3 if q == first else 0, 8])[
            0
        ]
        grades = {"graded": [0, 0, 0, 1, 1, 2, 3, 4, -1], "none": [0, -1], "negative": [-1, -2],
                  "single": [1, 2, 3, 4]}[profile]  # fmt: skip
        n = 1 if profile == "single" else rng.randint(1, len(docs))
        qrels[q] = {d: rng.choice(grades) for d in rng.sample(docs, n)}
        if profile != "negative" and max(qrels[q].values()) < 0:
            qrels[q][rng.choice(list(qrels[q]))] = 0  # judged: one grade 0 at least
    return qrels


def make_case(seed: int, k: int, forms: tuple[Form, ...] = FORMS) -> IrmCase:
    """Case ``k`` of ``seed`` (its own generator: ``--only K`` replays it)."""
    rng = random.Random(f"trecrs-irmeasures:{seed}:{k}")
    queries = [str(q) for q in rng.sample(range(1, 60), rng.choice([1, 2, 4, 8]) + 2)]  # numeric: gdeval.pl
    both, qrels_only, run_only = queries[:-2], queries[-2:-1], queries[-1:]
    docs = [f"d{i}" for i in rng.sample(range(100), rng.choice([3, 10, 30]))]
    qrels = _judgements(rng, both + qrels_only[: rng.randint(0, 1)], docs)
    run = _rankings(rng, both + run_only[: rng.randint(0, 1)], docs)
    specs = list(
        dict.fromkeys(_referenced_spec(rng, f) for f in rng.sample(forms, rng.randint(2, min(6, len(forms)))))
    )
    flags = {}
    if all("(" in s for s in specs) and rng.random() < 0.4:  # must not change a parameterised name
        flags = {"relevance_level": rng.choice([1, 2, 3]), "judged_only": rng.choice([False, True])}
    return IrmCase(qrels, run, specs, flags)


def trec_ordered(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The run re-scored without ties in trec_eval's order: score as a C float descending, then document
    id descending bytewise (``trecrs.ordering``), so that any provider sorts it as trec_eval does."""
    out = {}
    for q, docs in run.items():
        order = sorted(docs, key=lambda d: (np.float32(docs[d]), d.encode()), reverse=True)
        out[q] = {d: float(len(order) - i) for i, d in enumerate(order)}
    return out


# --- trecrs's values ------------------------------------------------------------------------------------


@dataclass
class Values:
    """One string's values on one side: per query (None: no value) and the summary; or why there are none."""

    per_query: dict[str, float | None] = field(default_factory=dict)
    summary: float | None = None
    refused: str | None = None  # trecrs's one-line error, or ir_measures' reason for having no value
    crashed: bool = False


def _library(case: IrmCase, specs: list[str]) -> dict[str, Values]:
    from trecrs import evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # coverage warnings: queries without relevant documents and such
        res = evaluate(case.qrels, case.run, specs, **case.flags)
    rows, summary = res.to_dict(), res.summary
    return {s: Values({q: r[s] for q, r in rows.items() if s in r}, summary.get(s)) for s in specs}


def _cli(case: IrmCase, specs: list[str]) -> dict[str, Values]:
    from trecrs.errors import UsageError

    from .run import run_in_process

    flags = ["-l", str(case.flags["relevance_level"])] if "relevance_level" in case.flags else []
    flags += ["-J"] if case.flags.get("judged_only") else []
    flags += ["--engine", case.flags["engine"]] if "engine" in case.flags else []
    with tempfile.TemporaryDirectory(prefix="trecrs-irm-") as tmp:
        qrels, run = Path(tmp) / "qrels", Path(tmp) / "run"
        qrels.write_text(case.qrels_text())
        run.write_text(case.run_text())
        out = run_in_process(
            ["eval", "-q", "--quiet", *flags, *[a for s in specs for a in ("-m", s)], str(qrels), str(run)]
        )
    if out.status != 0:
        raise UsageError(out.stderr.strip())
    values = {s: Values() for s in specs}
    for line in out.stdout.decode().splitlines():
        name, query, value = line.split("\t")
        if name.strip() in values:
            v = values[name.strip()]
            if query == "all":
                v.summary = float(value)
            else:
                v.per_query[query] = float(value)
    return values


def trecrs_values(case: IrmCase, cli: bool = False) -> dict[str, Values]:
    """Every string's values, all asked for in one request; when it is refused, each string alone."""
    from trecrs.errors import TrecrsError

    compute = _cli if cli else _library
    try:
        return compute(case, case.specs)
    except TrecrsError:
        pass
    out = {}
    for s in case.specs:
        try:
            out[s] = compute(case, [s])[s]
        except TrecrsError as exc:
            out[s] = Values(refused=str(exc))
        except Exception as exc:  # noqa: BLE001 -- a crash is a finding, reported with the case
            out[s] = Values(refused=f"{type(exc).__name__}: {exc}", crashed=True)
    return out


# --- ir_measures's values -------------------------------------------------------------------------------


def provider_of(measure) -> str | None:
    """The ir_measures provider computing ``measure`` (the first available one of its default pipeline)."""
    im = _ir_measures()
    return next(
        (p.NAME for p in im.DefaultPipeline.providers if p.is_available() and p.supports(measure)), None
    )


def parse(spec: str):
    """ir_measures' measure of ``spec``: ``ir_measures.parse_measure``, or for a literal its parser does not
    take (a negative number: ``nDCG(gains={-1: 0})``) the same call read with :func:`ast.literal_eval`."""
    import ast

    im = _ir_measures()
    try:
        return im.parse_measure(spec)
    except ValueError:
        head, _, k = spec.rpartition("@") if ")@" in spec else (spec, "", "")
        call = ast.parse(head, mode="eval").body
        if not isinstance(call, ast.Call):
            raise
        m = _registered(call.func.id)(**{kw.arg: ast.literal_eval(kw.value) for kw in call.keywords})
        return m @ ast.literal_eval(k) if k else m


def _measures(specs: list[str]) -> tuple[dict, dict[str, str]]:
    """``spec -> (measure, provider)`` for the strings ir_measures computes here, and why not for the others."""
    ok, why = {}, {}
    for s in specs:
        try:
            m = parse(s)
            m.validate_params()
        except Exception as exc:  # noqa: BLE001 -- ir_measures refuses it: no reference value
            why[s] = f"ir_measures refuses it: {exc}"
            continue
        provider = provider_of(m)
        if provider is None:
            why[s] = "no ir_measures provider available"
        else:
            ok[s] = (m, provider)
    return ok, why


def _calc(measures: list, qrels, run) -> dict:
    """``measure -> {query: value}`` by ``ir_measures.iter_calc``."""
    im = _ir_measures()
    out = {m: {} for m in measures}
    for metric in im.iter_calc(measures, qrels, run):
        out[metric.measure][metric.query_id] = metric.value
    return out


def _reference(qrels: dict, run: dict, specs: list[str]) -> tuple[dict[str, Values], dict[str, str]]:
    """ir_measures' values of ``specs``, and each string's provider (in the worker process)."""
    ok, why = _measures(specs)
    out = {s: Values(refused=w) for s, w in why.items()}
    values = {}
    # one measure per call: ir_measures' pytrec_eval provider puts NumRet, NumQ and nDCG without gains into
    # whichever trec_eval invocation comes first, so beside P(judged_only=True)@5 NumRet would count judged
    # documents only; alone, each measure gets the value ir_measures defines for it
    for m in dict.fromkeys(m for m, _ in ok.values()):
        try:
            values.update(_calc([m], qrels, run))
        except Exception as exc:  # noqa: BLE001 -- e.g. gdeval.pl refusing a grade above 4
            out.update({s: Values(refused=f"ir_measures fails: {exc}") for s, (n, _) in ok.items() if n == m})
    for s, (m, _) in ok.items():
        if m in values:
            # ir_measures also scores each qrels query missing from the run (its DEFAULT, 0), which
            # trec_eval 9.0.8 never prints: left out, and the aggregate taken over the others
            kept = {q: v for q, v in values[m].items() if q in run}
            agg = m.aggregator()
            for v in kept.values():
                agg.add(v)
            out[s] = Values(kept, agg.result())
    return out, {s: p for s, (_, p) in ok.items() if s not in out or out[s].refused is None}


class Reference:
    """ir_measures in a worker process: pytrec_eval crashes or loops on some inputs (a query judged only
    negatively after another query: a segmentation fault, or no end), which must not end the fuzzing. A
    crash (or ``timeout`` seconds without an answer) is retried one string at a time; the strings that fail
    alone have no reference."""

    def __init__(self, timeout: float = 10.0) -> None:
        self.pool = None
        self.timeout = timeout

    def _call(self, qrels, run, specs):
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        if self.pool is None:
            self.pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"))
        return self.pool.submit(_reference, qrels, run, specs).result(timeout=self.timeout)

    def __call__(self, case: IrmCase, run: dict | None = None) -> tuple[dict[str, Values], dict[str, str]]:
        """ir_measures' values of the case's strings (on ``run`` if given), and each string's provider."""
        from concurrent.futures import TimeoutError as Timeout
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self._call(case.qrels, run or case.run, case.specs)
        except (BrokenProcessPool, Timeout):
            self.close()
        values, providers = {}, {}
        for s in case.specs:
            try:
                v, p = self._call(case.qrels, run or case.run, [s])
            except (BrokenProcessPool, Timeout) as exc:
                self.close()
                what = (
                    "crashes"
                    if isinstance(exc, BrokenProcessPool)
                    else f"answers nothing in {self.timeout:.0f} s"
                )
                v, p = {s: Values(refused=f"ir_measures {what} (pytrec_eval)")}, {}
            values.update(v)
            providers.update(p)
        return values, providers

    def close(self) -> None:
        """End the worker (killed: it may be looping in C code)."""
        if self.pool is not None:
            for proc in list((getattr(self.pool, "_processes", None) or {}).values()):
                proc.kill()
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


# --- comparing ------------------------------------------------------------------------------------------

SUMMARY_ONLY = frozenset({"NumQ"})  # ir_measures names trec_eval prints in the summary only (num_q)


def _num(v) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def difference(ours: Values, theirs: Values, tol: float, summary_only: bool = False) -> str | None:
    """The first difference of the two sides (a query, then the summary), None when they agree."""
    pairs = (
        []
        if summary_only
        else [
            (q, ours.per_query.get(q), theirs.per_query.get(q))
            for q in sorted(set(ours.per_query) | set(theirs.per_query))
        ]
    )
    pairs.append(("all", ours.summary, theirs.summary))
    for q, a, b in pairs:
        a, b = _num(a), _num(b)
        if (a is None) != (b is None) or (a is not None and abs(a - b) > tol):
            return f"query {q}: trecrs {a}, ir_measures {b}"
    return None


@dataclass
class Outcome:
    """One string of one case: its form's name, ir_measures' provider, the outcome and what differed."""

    name: str
    provider: str
    outcome: str
    detail: str = ""


def check_case(case: IrmCase, reference: Reference, cli: bool = False) -> dict[str, Outcome]:
    """Each string's :class:`Outcome` (see the module's docstring)."""
    ours = trecrs_values(case, cli)
    theirs, providers = reference(case)
    ordered = None
    out = {}
    for s in case.specs:
        name, provider = _form_name(s), providers.get(s, "-")
        if s not in providers:
            out[s] = Outcome(name, provider, "no-ref", theirs[s].refused or "")
            continue
        if ours[s].refused is not None:
            kind = "mismatch" if ours[s].crashed else "exits" if EXITS in ours[s].refused else "refused"
            out[s] = Outcome(name, provider, kind, ours[s].refused)
            continue
        tol = (5e-5 if cli else 0.0) + 1e-9 + PRINTED.get(provider, 0.0)
        summary_only = parse(s).NAME in SUMMARY_ONLY
        diff = difference(ours[s], theirs[s], tol, summary_only)
        if diff is None:
            out[s] = Outcome(name, provider, "agree")
            continue
        if ordered is None:
            ordered = reference(case, trec_ordered(case.run))[0]
        tie = s in ordered and difference(ours[s], ordered[s], tol, summary_only) is None
        if tie and provider in TIES_OTHERWISE:
            out[s] = Outcome(name, provider, "ties", diff)
        else:
            note = " (agrees on trec_eval's tie order: an undocumented tie difference)" if tie else ""
            out[s] = Outcome(name, provider, "mismatch", diff + note)
    return out


def _form_name(spec: str) -> str:
    """The first spelling of the form ``spec`` is written in (``Precision(rel=2)@5`` -> ``P``)."""
    head = spec.split("(")[0].split("@")[0].lower()
    return next((f.spellings[0] for f in FORMS if head in (s.lower() for s in f.spellings)), head)


# --- exploring and reporting ----------------------------------------------------------------------------


@dataclass
class Report:
    """Outcome counts per (form, provider) and the first examples of each difference."""

    cases: int = 0
    counts: Counter = field(default_factory=Counter)  # (name, provider, outcome) -> strings
    examples: list = field(default_factory=list)  # (k, spec, outcome)

    def failures(self) -> list:
        return [(k, s, o) for k, s, o in self.examples if o.outcome in ("refused", "mismatch")]


def with_engine(case: IrmCase, engine: str) -> IrmCase:
    """The case computed by trecrs's ``engine`` (``auto``: the default choice)."""
    if engine != "auto":
        case.flags = {**case.flags, "engine": engine}
    return case


def explore(seed: int, ks, reference: Reference, cli: bool = False, progress: bool = False,
            engine: str = "auto") -> Report:  # fmt: skip
    report = Report()
    start = time.monotonic()
    for i, k in enumerate(ks):
        report.cases += 1
        for spec, o in check_case(with_engine(make_case(seed, k), engine), reference, cli).items():
            report.counts[o.name, o.provider, o.outcome] += 1
            if o.outcome in ("ties", "refused", "mismatch"):
                report.examples.append((k, spec, o))
        if progress and (i + 1) % 100 == 0:
            print(f"  {i + 1} cases, {time.monotonic() - start:.0f} s", file=sys.stderr)
    return report


def print_report(report: Report, seed: int, cli: bool, examples: int = 3) -> None:
    """The counts per form (in FORMS order) and provider, the totals, and a few examples of each difference."""
    im = _ir_measures()
    print(
        f"seed {seed}, {report.cases} cases, ir_measures {im.__version__}, trecrs {'eval -q' if cli else 'evaluate'}"
    )
    rank = {f.spellings[0]: i for i, f in enumerate(FORMS)}
    keys = sorted({(n, p) for n, p, _ in report.counts}, key=lambda key: (rank.get(key[0], len(rank)), key))
    print(f"{'measure':<12} {'provider':<12}" + "".join(f"{o:>9}" for o in OUTCOMES))
    for n, p in keys:
        print(f"{n:<12} {p:<12}" + "".join(f"{report.counts[n, p, o]:>9}" for o in OUTCOMES))
    totals = Counter()
    for (_, _, o), c in report.counts.items():
        totals[o] += c
    print(f"{'all':<25}" + "".join(f"{totals[o]:>9}" for o in OUTCOMES))
    shown = Counter()
    for k, spec, o in report.examples:
        if shown[o.name, o.outcome] < examples:
            shown[o.name, o.outcome] += 1
            print(f"* {o.outcome} {spec!r} [{o.provider}]: {o.detail}; --only {k}")


def show(seed: int, k: int, reference: Reference, cli: bool, engine: str = "auto") -> None:
    """Print case ``k``: flags, files, and each string's outcome."""
    case = with_engine(make_case(seed, k), engine)
    print(f"flags: {case.flags}\n--- qrels\n{case.qrels_text()}--- run\n{case.run_text()}---")
    for spec, o in check_case(case, reference, cli).items():
        print(f"{spec!r} [{o.provider}]: {o.outcome} {o.detail}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m tests.fuzz.irmeasures", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cases", type=int, default=300)
    p.add_argument("--only", type=int, help="run case K only and print it")
    p.add_argument(
        "--cli", action="store_true", help="trecrs eval -q (printed values) instead of trecrs.evaluate"
    )
    p.add_argument(
        "--engine",
        choices=("auto", "vectorized", "pytrec_eval", "dask"),
        default="auto",
        help="trecrs's engine (default: its own choice)",
    )
    p.add_argument("--examples", type=int, default=3, help="examples printed per measure and outcome")
    args = p.parse_args(argv)
    reference = Reference()
    try:
        if args.only is not None:
            show(args.seed, args.only, reference, args.cli, args.engine)
            return 0
        report = explore(args.seed, range(args.cases), reference, args.cli, progress=True, engine=args.engine)
        print_report(report, args.seed, args.cli, args.examples)
        return 1 if report.failures() else 0
    finally:
        reference.close()


if __name__ == "__main__":
    sys.exit(main())
