"""What ``trecrs compare`` prints: the text, Markdown, LaTeX, csv and JSON tables of a comparison, and the HTML a
notebook shows."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import asdict
from typing import TYPE_CHECKING

from ..measures.direction import HIGHER, LOWER, NEITHER, better
from .compare_groups import ALL_USERS
from .markdown import latex_escape
from .notebook import Html, html_table

if TYPE_CHECKING:  # compare imports this module: the comparison is read by its attributes only
    from .compare import Comparison

#: How the compared queries are chosen, by name: the legend of every table says which.
QUERY_RULES: dict[str, str] = {
    "all": "every qrels query; a query missing from a run scores 0 on every measure (as -c)",
    "common": "only the queries every run answers (in the run and the qrels)",
}

#: The columns of a comparison row, in the order the csv format writes them.
COLUMNS = (
    "measure",
    "system",
    "baseline",
    "n_queries",
    "mean",
    "baseline_mean",
    "delta",
    "ci_low",
    "ci_high",
    "test",
    "p_value",
    "p_adjusted",
    "effect_size",
    "wins",
    "ties",
    "losses",
)


def _full(value) -> str:
    """A csv cell at full precision: repr of a float (``inf``/``-inf`` as such), empty for none."""
    if value is None:
        return ""
    return repr(float(value)) if isinstance(value, float) else str(value)


def format_csv(c: Comparison) -> str:
    """One row per (measure, system), the columns of :data:`COLUMNS`, floats at full precision; with user
    groups, each group's rows after them and a last column ``users`` (``all``, ``all:GROUP``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    users = ("users",) if c.groups else ()
    writer.writerow(COLUMNS + users)
    writer.writerows(
        [[_full(r[k]) for k in COLUMNS] + [b.users] * len(users) for b in (c, *c.groups) for r in b.rows]
    )
    return out.getvalue()


def _json_value(value):
    # strict JSON has no infinity: an infinite effect size is written as the string "inf" / "-inf"
    return repr(value) if isinstance(value, float) and not math.isfinite(value) else value


def format_json(c: Comparison) -> str:
    """The rows, the settings, the query set and each run's manifest information (sha256, kind,
    parameters, inputs; null without a manifest); with user groups, ``groups``: each group's ``users``
    (``all:GROUP``), ``n_queries`` and rows."""
    runs = [
        {
            "path": r.path,
            "system": r.system,
            "sha256": r.sha256,
            **{k: (r.manifest or {}).get(k) for k in ("kind", "parameters", "inputs")},
        }
        for r in c.runs
    ]
    record = {
        "settings": {**asdict(c.settings), "query_set": QUERY_RULES[c.settings.query_rule]},
        "baseline": c.baseline,
        "n_queries": c.n_queries,
        "measures": c.measures,
        "runs": runs,
        "rows": _json_rows(c),
    }
    if c.groups:
        record["groups"] = [
            {"users": g.users, "n_queries": g.n_queries, "rows": _json_rows(g)} for g in c.groups
        ]
    return json.dumps(record, indent=2) + "\n"


def _json_rows(c: Comparison) -> list[dict]:
    return [{k: _json_value(r[k]) for k in COLUMNS} for r in c.rows]


def legend(c: Comparison, mark: str = "†", *, bold: bool = True) -> str:
    """What every table says about how it was made: test, correction, alpha, query set, n; which way
    each measure is better when some are not higher-is-better (bold, W/T/L)."""
    s = c.settings
    return (
        f"{mark} significantly different from the baseline {c.baseline} ({s.test} test, {s.correction} "
        f"correction over {sum(r['p_value'] is not None for r in c.rows)} comparisons, alpha {s.alpha:g}); "
        f"{'bold: best mean; ' if bold else ''}{_directions(c)}"
        f"{_of_users(c)}queries: {QUERY_RULES[s.query_rule]}; n = {c.n_queries}"
    )


def _of_users(c: Comparison) -> str:
    return "" if c.users == ALL_USERS else f"users: group {c.users.split(':', 1)[1]} only ({c.users}); "


def _grouped(c: Comparison, fmt, head: str) -> str:
    """``fmt`` of each group's comparison after the one of every user, each under ``head`` (``{users}``)."""
    return "".join(head.format(users=g.users) + fmt(g) for g in c.groups)


def _directions(c: Comparison) -> str:
    """``lower is better: rmse; no better direction: num_ret; `` (empty when every measure is higher-is-better)."""
    words = {LOWER: "lower is better", NEITHER: "no better direction (no best, no W/T/L)"}
    parts = [
        f"{w}: {', '.join(m for m in c.measures if better(m) == d)}; "
        for d, w in words.items()
        if any(better(m) == d for m in c.measures)
    ]
    return "".join(parts)


def format_text(c: Comparison) -> str:
    """An aligned table, numbers rounded to 4 digits (a p-value below 0.0001 as ``< 0.0001``), then the
    legend; with user groups, the same for each group after a line ``users all:GROUP``."""
    head = ["measure", "system", "n", "mean", "delta", "ci_low", "ci_high", "p", "p_adj", "d", "W/T/L"]
    body = [
        [
            r["measure"],
            r["system"],
            str(r["n_queries"]),
            *(_four(r[k]) for k in ("mean", "delta", "ci_low", "ci_high")),
            _p(r["p_value"]),
            _p(r["p_adjusted"]),
            _four(r["effect_size"]),
            "" if r["wins"] is None else f"{r['wins']}/{r['ties']}/{r['losses']}",
        ]
        for r in c.rows
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
    lines = [
        "  ".join(
            x.ljust(w) if i < 2 else x.rjust(w) for i, (x, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in [head, *body]
    ]
    text = "\n".join(lines) + "\n\n" + legend(c, f"p_adj < {c.settings.alpha:g}:", bold=False) + "\n"
    return text + _grouped(c, format_text, "\nusers {users}\n")


def _four(value) -> str:
    return "" if value is None else f"{value:.4f}"


#: The smallest p-value printed as a number: one below it is ``< 0.0001``, not ``0.0000`` (csv and json
#: keep the full value).
P_FLOOR = 0.0001


def _p(value) -> str:
    """A p-value at 4 digits, ``< 0.0001`` below :data:`P_FLOOR` (a p-value is never 0)."""
    return f"< {P_FLOOR}" if value is not None and value < P_FLOOR else _four(value)


def _cells(c: Comparison, bold, dagger: str) -> list[list[str]]:
    """Systems as rows, measures as columns: each mean at 4 digits, the best bold (the lowest where lower is
    better, none without a direction), significant ones marked."""
    choose: dict[str, Callable[[Iterable[float]], float | None]] = {
        HIGHER: max,
        LOWER: min,
        NEITHER: lambda v: None,
    }
    best = {m: choose[better(m)](c.row(m, s)["mean"] for s in c.systems) for m in c.measures}
    rows = []
    for s in c.systems:
        cells = []
        for m in c.measures:
            r = c.row(m, s)
            text = bold(f"{r['mean']:.4f}") if r["mean"] == best[m] else f"{r['mean']:.4f}"
            cells.append(text + (dagger if c.significant(r) else ""))
        rows.append(cells)
    return rows


def format_markdown(c: Comparison) -> str:
    """A Markdown table (systems as rows, measures as columns) and the legend; each user group's after it."""
    lines = ["| system | " + " | ".join(c.measures) + " |", "|---|" + "---:|" * len(c.measures)]
    for s, cells in zip(c.systems, _cells(c, lambda t: f"**{t}**", "†"), strict=True):
        lines.append(f"| {s}{' (baseline)' if s == c.baseline else ''} | " + " | ".join(cells) + " |")
    return (
        "\n".join(lines) + "\n\n" + legend(c) + "\n" + _grouped(c, format_markdown, "\n**users {users}**\n\n")
    )


def format_html(c: Comparison) -> str:
    """What a notebook shows (``_repr_html_``, not a ``--format``): the Markdown table as HTML, the legend
    its caption, every name escaped; each user group's after it (its caption names the group)."""
    marked = _cells(c, lambda t: f"<b>{t}</b>", "†")  # numbers formatted here: no markup of the data
    rows = [
        [s + (" (baseline)" if s == c.baseline else ""), *map(Html, cells)]
        for s, cells in zip(c.systems, marked, strict=True)
    ]
    return html_table(["system", *c.measures], rows, legend(c)) + "".join(map(format_html, c.groups))


def format_latex(c: Comparison) -> str:
    """A booktabs tabular (systems as rows, measures as columns), the legend under the bottom rule; each
    user group's after it (a ``% users all:GROUP`` line before)."""
    n = len(c.measures) + 1
    lines = [
        r"\begin{tabular}{l" + "r" * len(c.measures) + "}",
        r"\toprule",
        "System & " + " & ".join(latex_escape(m) for m in c.measures) + r" \\",
        r"\midrule",
    ]
    for s, cells in zip(c.systems, _cells(c, lambda t: rf"\textbf{{{t}}}", r"$^\dagger$"), strict=True):
        lines.append(latex_escape(s) + " & " + " & ".join(cells) + r" \\")
    text = latex_escape(legend(c, "@")).replace("@", r"$^\dagger$", 1)
    lines += [r"\bottomrule", rf"\multicolumn{{{n}}}{{l}}{{\footnotesize {text}}} \\", r"\end{tabular}"]
    return "\n".join(lines) + "\n" + _grouped(c, format_latex, "\n% users {users}\n")


#: Output formats by name: ``format(comparison)`` -> text. ``trecrs compare --format`` reads its choices here.
FORMATS = {
    "text": format_text,
    "markdown": format_markdown,
    "latex": format_latex,
    "csv": format_csv,
    "json": format_json,
}
