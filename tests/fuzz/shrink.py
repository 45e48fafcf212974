"""Delta debugging: the smallest case (queries, lines, flags) that still shows the same difference."""

from __future__ import annotations

from collections.abc import Callable

from .generate import Case


def _ddmin(items: list, keeps: Callable[[list], bool], budget: list[int]) -> list:
    """A 1-minimal sublist of ``items`` for which ``keeps`` holds (Zeller's ddmin), within ``budget`` tries."""
    n = 2
    while len(items) >= 2 and budget[0] > 0:
        size = max(1, len(items) // n)
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        for i in range(len(chunks)):
            rest = [x for j, c in enumerate(chunks) if j != i for x in c]
            budget[0] -= 1
            if rest and keeps(rest):
                items, n = rest, max(n - 1, 2)
                break
            if budget[0] <= 0:
                return items
        else:
            if size == 1:
                return items
            n = min(len(items), 2 * n)
    return items


def _flag_groups(flags: list[str]) -> list[list[str]]:
    """Flags as removable units: ``-q`` alone, ``-m P.5`` / ``-l 2`` / ``-M 10`` with their value."""
    groups, i = [], 0
    while i < len(flags):
        takes_value = flags[i] in ("-m", "-l", "-M")
        groups.append(flags[i : i + 2] if takes_value else flags[i : i + 1])
        i += 2 if takes_value else 1
    return groups


def shrink(case: Case, still: Callable[[Case], bool], tries: int = 400) -> Case:
    """A smaller case for which ``still`` holds: whole queries first, then lines, then flags."""
    budget = [tries]

    def with_queries(qs: list[str]) -> Case:
        keep = set(qs)
        return Case([x for x in case.qrels if x.split()[0] in keep], [x for x in case.run if x.split()[0] in keep],
                     case.flags)  # fmt: skip

    queries = list(dict.fromkeys(x.split()[0] for x in case.qrels + case.run))
    case = with_queries(_ddmin(queries, lambda qs: still(with_queries(qs)), budget))
    qrels = _ddmin(case.qrels, lambda ls: still(Case(ls, case.run, case.flags)), budget)
    case = Case(qrels, case.run, case.flags)
    run = _ddmin(case.run, lambda ls: still(Case(case.qrels, ls, case.flags)), budget)
    case = Case(case.qrels, run, case.flags)
    groups = _flag_groups(case.flags)
    if groups and budget[0] > 0 and still(Case(case.qrels, case.run, [])):
        return Case(case.qrels, case.run, [])
    groups = _ddmin(groups, lambda gs: still(Case(case.qrels, case.run, [f for g in gs for f in g])), budget)
    return Case(case.qrels, case.run, [f for g in groups for f in g])
