"""Comparing trecrs with trec_eval on one case, and naming the difference.

Two outcomes agree when both programs succeed with the same stdout bytes, or when both fail (trec_eval
and trecrs have different exit statuses and messages; failing is what must match). A difference is
explained by the known classes of :data:`KNOWN` whose rewrite of trec_eval's output (or whose condition)
accounts for it; whatever remains gets a signature naming the differing measures and the flags, so that
differences with one cause fall in one class.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .generate import Case
from .run import Outcome

# Measures trec_eval names "<name>_<params as typed>" when -m gives parameters (meas_init.c).
PARAM_NAMED = ("set_F", "utility", "G", "ndcg", "ndcg_rel", "Rndcg", "11pt_avg", "relstring")


def _lines(stdout: bytes) -> list[tuple[str, str, str]]:
    out = []
    for raw in stdout.decode("utf-8", "surrogateescape").splitlines():
        name, _, rest = raw.partition("\t")
        qid, _, value = rest.partition("\t")
        out.append((name.rstrip(" "), qid, value))
    return out


def _render(lines: list[tuple[str, str, str]]) -> bytes:
    return "".join("%-22s\t%s\t%s\n" % line for line in lines).encode("utf-8", "surrogateescape")


def _measure_params(case: Case) -> set[str]:
    """``name_params`` for every ``-m name.params`` of the case (what trec_eval prints for them)."""
    out = set()
    for i, flag in enumerate(case.flags[:-1]):
        if flag == "-m" and "." in case.flags[i + 1]:
            base, _, params = case.flags[i + 1].partition(".")
            if base in PARAM_NAMED:
                out.add(f"{base}_{params}")
    return out


def _bare_names(case: Case, stdout: bytes) -> bytes:
    """trec_eval's output with ``set_F_0.5`` (and the like) printed as the bare measure name."""
    named = _measure_params(case)
    return _render([(n.split("_" + n.rpartition("_")[2])[0] if n in named else n, q, v) for n, q, v in _lines(stdout)])


def _nan_as_python(case: Case, stdout: bytes) -> bytes:
    """trec_eval's output with glibc's ``-nan`` printed as ``nan``."""
    return re.sub(rb"\t( *)-nan\n", rb"\t \1nan\n", stdout)


def _qrels_only_queries(case: Case) -> bool:
    qrels = {line.split()[0] for line in case.qrels if line.split()}
    run = {line.split()[0] for line in case.run if line.split()}
    return bool(qrels - run)


def _all_negative_query(case: Case) -> bool:
    """Some evaluated query (in both files, or any qrels query under -c) has only negative relevance."""
    best: dict[str, int] = {}
    for line in case.qrels:
        q, _, _, rel = line.split()
        best[q] = max(best.get(q, int(rel)), int(rel))
    run = {line.split()[0] for line in case.run}
    return any(v < 0 and ("-c" in case.flags or q in run) for q, v in best.items())


@dataclass(frozen=True)
class Known:
    """A known class of difference: its name, why it is not fixed yet, and how to recognise it."""

    name: str
    reason: str
    rewrite: Callable[[Case, bytes], bytes] | None = None  # trec_eval's stdout as trecrs prints it
    condition: Callable[[Case], bool] | None = None  # cases where any remaining difference is this class
    te_fails: bool = False  # the condition explains only a trec_eval failure


KNOWN: tuple[Known, ...] = (
    Known("param-names", "trec_eval names measures given parameters 'set_F_0.5', trecrs the bare name "
          "(issue: trec_eval fidelity)", rewrite=_bare_names),
    Known("nan", "trec_eval prints glibc's '-nan', trecrs 'nan' (issue: trec_eval fidelity)", rewrite=_nan_as_python),
    Known("all-negative-query", "trec_eval 9.0.8 fails on an evaluated query whose qrels are all negative "
          "('Can't calculate measure', status 4, or a crash when every rel is <= -2); trecrs evaluates it "
          "(issue: trec_eval fidelity)", condition=_all_negative_query, te_fails=True),
    Known("c-semantics", "-c follows trec_eval 10.0 (a one-document ranking for qrels queries missing from the "
          "run), not 9.0.8 (issue: trec_eval fidelity)",
          condition=lambda case: "-c" in case.flags and _qrels_only_queries(case)),
)  # fmt: skip
KNOWN_BY_NAME = {k.name: k for k in KNOWN}


EXIT_INTERNAL = 70  # trecrs's status for a bug it caught (trecrs.errors)


def crashed(rs: Outcome) -> bool:
    """trecrs died of a signal or reported an internal error: never an agreement."""
    return rs.status < 0 or rs.status == EXIT_INTERNAL


def agree(te: Outcome, rs: Outcome) -> bool:
    """Same bytes and both successful, or both failed (trecrs by an error it reports, not a crash)."""
    return (te.ok and rs.ok and te.stdout == rs.stdout) or (not te.ok and not rs.ok and not crashed(rs))


def signature(case: Case, te: Outcome, rs: Outcome) -> str | None:
    """The class of the difference between trec_eval (``te``) and trecrs (``rs``); None when they agree.

    ``unsupported: ...`` when an explicitly chosen engine refuses a measure (a documented limit, not a
    difference); the ``+``-joined names of the known classes that explain it; else ``unexplained: ...``.
    """
    if agree(te, rs):
        return None
    if crashed(rs):
        last = (rs.stderr.strip().splitlines() or [f"status {rs.status}"])[-1]
        return "trecrs crash: " + re.sub(r"/\S*trecrs-fuzz-\S*", "FILE", last)[:120]
    if rs.status == 2 and "cannot compute" in rs.stderr:
        return "unsupported: " + re.sub(r".*cannot compute ([^.,= ]+).*", r"\1", rs.stderr.strip())
    used: list[str] = []
    expected = te.stdout
    if te.ok and rs.ok:
        for known in KNOWN:
            if known.rewrite is not None and known.rewrite(case, expected) != expected:
                expected = known.rewrite(case, expected)
                used.append(known.name)
        if expected == rs.stdout:
            return "+".join(used)
    for known in KNOWN:
        if known.condition is not None and known.condition(case) and not (known.te_fails and te.ok):
            return "+".join([*used, known.name])
    return "unexplained: " + _residual(case, te, rs, expected)


def _residual(case: Case, te: Outcome, rs: Outcome, expected: bytes) -> str:
    """A short description of a difference no known class explains: statuses, or measures and flags."""
    flags = " ".join(f for f in ("-q", "-c", "-n", "-J", "-M", "-l") if f in case.flags)
    if te.ok != rs.ok:
        return f"status trec_eval {te.status} trecrs {rs.status} [{flags}]"
    a, b = _lines(expected), _lines(rs.stdout)
    kinds = set()
    sa, sb = set(a), set(b)
    names_a, names_b = {n for n, _, _ in a}, {n for n, _, _ in b}
    for n, q, _ in sa ^ sb:
        kind = "missing" if n not in names_b else "extra" if n not in names_a else "value"
        kinds.add(f"{kind} {n}" if q != "all" or kind != "value" else f"value {n} (summary)")
    if not kinds:
        kinds.add("line order")
    shown = sorted(kinds)
    return ", ".join(shown[:4]) + (f" (+{len(shown) - 4})" if len(shown) > 4 else "") + f" [{flags}]"
