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

from trecrs.measures.trec_eval import base_of

from .generate import Case
from .run import Outcome


def _lines(stdout: bytes) -> list[tuple[str, str, str]]:
    out = []
    for raw in stdout.decode("utf-8", "surrogateescape").splitlines():
        name, _, rest = raw.partition("\t")
        qid, _, value = rest.partition("\t")
        out.append((name.rstrip(" "), qid, value))
    return out


@dataclass(frozen=True)
class Known:
    """A known class of difference: its name, why it is not fixed yet, and how to recognise it."""

    name: str
    reason: str
    rewrite: Callable[[Case, bytes], bytes] | None = None  # trec_eval's stdout as trecrs prints it
    condition: Callable[[Case], bool] | None = None  # cases where any remaining difference is this class
    te_fails: bool = False  # the condition explains only a trec_eval failure
    crash: bool = False  # the condition explains a trecrs crash
    engines: tuple[str, ...] | None = None  # the engines it concerns (None: every engine)

    def concerns(self, engine: str) -> bool:
        return self.engines is None or engine in self.engines


def for_engine(known: tuple[Known, ...], engine: str) -> tuple[Known, ...]:
    """The classes of ``known`` that may explain a difference of ``engine``."""
    return tuple(k for k in known if k.concerns(engine))


def _gain_pairs_and_negative_only_query(case: Case) -> bool:
    """A ``level=gain`` measure, and an evaluated query judged only negatively (trec_eval fails on such a
    query alone: ``Can't calculate measure``); under ``-c`` 10.0 evaluates the qrels-only queries too."""
    gains = any("=" in case.flags[i + 1] for i, f in enumerate(case.flags[:-1]) if f == "-m")
    return gains and negative_only_query(case, qrels_only="-c" in case.flags)


def negative_only_query(case: Case, qrels_only: bool = False) -> bool:
    """Some query of both files (with ``qrels_only``: of the qrels) has only negative relevance values."""
    best: dict[str, int] = {}
    for line in case.qrels:
        q, _, _, rel = line.split()[:4]
        best[q] = max(best.get(q, int(rel)), int(rel))
    run = {line.split()[0] for line in case.run}
    return any(v < 0 and (qrels_only or q in run) for q, v in best.items())


def _negative_depth(case: Case) -> bool:
    """``-M`` below 0: undefined behaviour of trec_eval (usually a segmentation fault); trecrs refuses it."""
    return any(
        f == "-M" and v.lstrip().startswith("-") for f, v in zip(case.flags, case.flags[1:], strict=False)
    )


def _rbp_after_yaap(case: Case) -> bool:
    measures = [case.flags[i + 1] for i, f in enumerate(case.flags[:-1]) if f == "-m"]
    return "yaap" in measures and any(m == "all_trec" or m.startswith("rbp") for m in measures)


# -c (c-semantics), queries judged with negative values only (all-negative-query) and the pytrec_eval
# engine's crashes on them (pytrec_eval-crash) are fixed (trecrs.evaluate.finalize, check_judged). What
# remains is undefined behaviour of trec_eval itself, which no rule reproduces:
KNOWN: tuple[Known, ...] = (
    Known(
        "rbp-after-yaap",
        "trec_eval 10.0's m_rbp.c compares the gains with min and max it never initialises; yaap, computed "
        "just before rbp, leaves values in that stack slot that make it normalise the gains (0.095 for 0.19). "
        "trecrs computes rbp as written, min and max over the query's gains (docs/trec_eval_compatibility.md)",
        condition=_rbp_after_yaap,
    ),
    Known(
        "stale-gains",
        "a query judged only negatively has no gain table of its own: gain_init.c leaves num_rel_levels and the "
        "entries of the query before, so trec_eval's value with level=gain parameters depends on the order of "
        'the queries (alone, the query fails: "Can\'t calculate measure"). trecrs computes the query from its '
        "own judgments",
        condition=_gain_pairs_and_negative_only_query,
    ),
    Known(
        "negative-depth",
        "a negative -M makes trec_eval's num_ret negative (form_res_rels.c), which its measures use as a count and an "
        "index: it usually dies of a segmentation fault (reference crashed); when it survives, its output is "
        "whatever the memory held (10.0 once printed num_q alone). "
        "trecrs refuses the value (a usage error, docs/errors.md)",
        condition=_negative_depth,
    ),
    Known(
        "pytrec-eval-nan-sign",
        "pytrec_eval's build of trec_eval returns NaN without the sign bit where the trec_eval binary (x86 default "
        "NaN) prints -nan; the pytrec_eval engine prints pytrec_eval's own value",
        rewrite=lambda case, out: out.replace(b"-nan", b" nan"),
        engines=("pytrec_eval",),
    ),
)
KNOWN_BY_NAME = {k.name: k for k in KNOWN}


EXIT_INTERNAL = 70  # trecrs's status for a bug it caught (trecrs.errors)
REFERENCE_CRASHED = "reference crashed"  # trec_eval died of a signal (-M -1): no output to agree with


def crashed(rs: Outcome) -> bool:
    """trecrs died of a signal or reported an internal error: never an agreement."""
    return rs.status < 0 or rs.status == EXIT_INTERNAL


def agree(te: Outcome, rs: Outcome) -> bool:
    """Same bytes and both successful, or both failed (trecrs by an error it reports, not a crash)."""
    return (te.ok and rs.ok and te.stdout == rs.stdout) or (not te.ok and not rs.ok and not crashed(rs))


def signature(
    case: Case, te: Outcome, rs: Outcome, known_classes: tuple[Known, ...] = KNOWN, coarse: bool = False
) -> str | None:
    """The class of the difference between trec_eval (``te``) and trecrs (``rs``); None when they agree.

    ``reference crashed`` when trec_eval died of a signal and trecrs did not (nothing to compare: not an
    agreement); ``unsupported: ...`` when an explicitly chosen engine refuses a measure or a flag value (a
    documented limit, not a difference); the ``+``-joined names of the ``known_classes`` that explain it; else ``unexplained: ...``
    (``coarse``: by base measure names only, without the flags).
    """
    if te.status < 0 and not crashed(rs):
        return REFERENCE_CRASHED
    if agree(te, rs):
        return None
    if crashed(rs):
        for known in known_classes:
            if known.crash and known.condition(case):
                return known.name
        last = (rs.stderr.strip().splitlines() or [f"status {rs.status}"])[-1]
        return "trecrs crash: " + re.sub(r"/\S*trecrs-fuzz-\S*", "FILE", last)[:120]
    if rs.status == 2 and "cannot compute" in rs.stderr:
        return "unsupported: " + re.sub(r".*cannot compute ([^.,= ]+).*", r"\1", rs.stderr.strip())
    if rs.status == 2 and "pytrec_eval refuses it" in rs.stderr:
        return "unsupported: -l below 1"
    if rs.status == 2 and "cannot rank nothing" in rs.stderr:
        return "unsupported: -M 0"
    used: list[str] = []
    expected = te.stdout
    if te.ok and rs.ok:
        for known in known_classes:
            if known.rewrite is not None and known.rewrite(case, expected) != expected:
                expected = known.rewrite(case, expected)
                used.append(known.name)
        if expected == rs.stdout:
            return "+".join(used)
    for known in known_classes:
        if known.condition is None or known.crash or (known.te_fails and te.ok):
            continue
        if known.condition(case):
            return "+".join([*used, known.name])
    return "unexplained: " + _residual(case, te, rs, expected, coarse)


def _residual(case: Case, te: Outcome, rs: Outcome, expected: bytes, coarse: bool = False) -> str:
    """A short description of a difference no known class explains: statuses (with trec_eval's message),
    or the differing measures, and the flags."""
    flags = (
        ""
        if coarse
        else " [" + " ".join(f for f in ("-q", "-c", "-n", "-J", "-M", "-l") if f in case.flags) + "]"
    )
    if te.ok != rs.ok:
        said = re.sub(r"(?<=\s)'[^']*'", "'...'", (te.stderr.strip().splitlines() or [""])[0])
        return f"status trec_eval {te.status} ({said}) trecrs {rs.status}{flags}"
    a, b = _lines(expected), _lines(rs.stdout)
    names_a, names_b = {n for n, _, _ in a}, {n for n, _, _ in b}
    kinds = set()
    for n, q, _ in set(a) ^ set(b):
        kind = "missing" if n not in names_b else "extra" if n not in names_a else "value"
        name = (base_of(n) or n) if coarse else n
        kinds.add(f"{kind} {name}" if coarse or q != "all" or kind != "value" else f"value {name} (summary)")
    shown = sorted(kinds) or ["line order"]
    return ", ".join(shown[:4]) + (f" (+{len(shown) - 4})" if len(shown) > 4 else "") + flags
