"""What ``trecrs study`` prints and draws: the paper table (text, Markdown, LaTeX), the cells (CSV, JSON) and
Demšar's critical-difference diagram."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import polars as pl

from .figures import pyplot, save_figure
from .markdown import latex_escape, md_table
from .study import StudyResult

MARK = "*"  # significantly different from the baseline (p < alpha)


def _entry(result: StudyResult, dataset: str, system: str, measure: str) -> str:
    """``mean ± half-width`` of the interval, ``*`` when the test against the baseline gives p < alpha."""
    c = result.cell(dataset, system, measure)
    half = "" if c.ci_high is None else f" ± {c.ci_high - c.mean:.4f}"
    mark = MARK if c.p is not None and c.p < result.alpha else ""
    return f"{c.mean:.4f}{half}{mark}"


def _rows(result: StudyResult, measure: str) -> tuple[list[str], list[list[str]]]:
    header = ["system", *result.datasets, "avg rank"]
    ranks = result.ranks.get(measure, {})
    rows = [[s + (" (baseline)" if s == result.baseline else ""),
             *(_entry(result, d, s, measure) for d in result.datasets),
             f"{ranks[s]:.2f}" if s in ranks else "–"] for s in result.systems]  # fmt: skip
    return header, rows


def _footer(result: StudyResult, measure: str) -> list[str]:
    tests = sorted({c.test for c in result.cells if c.measure == measure and c.test})
    out = [f"{MARK}: p < {result.alpha} against {result.baseline} ({', '.join(tests) or 'no test'}, two-sided); "
           f"± half-width of the {1 - result.alpha:.0%} t interval over the folds"]  # fmt: skip
    if measure in result.friedman:
        # NaN (every system tied on every data set) is None in the result: printed as nan
        f = result.friedman[measure]
        stat, p = (math.nan if v is None else v for v in (f["statistic"], f["p"]))
        out.append(f"Friedman chi-square {stat:.4f}, p = {p:.4g} ({len(result.ranks[measure])} systems, "
                   f"{len(result.datasets)} data sets)")  # fmt: skip
    if measure in result.cd:
        out.append(f"Nemenyi critical difference {result.cd[measure]:.4f} (alpha {result.alpha})")
    return out + [f"note: {n}" for n in result.notes]


def format_text(result: StudyResult) -> str:
    out = []
    for m in result.measures:
        header, rows = _rows(result, m)
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        out += [
            m,
            *(
                "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                for r in [header, *rows]
            ),
        ]
        out += [*_footer(result, m), ""]
    return "\n".join(out)


def format_markdown(result: StudyResult) -> str:
    out = []
    for m in result.measures:
        header, rows = _rows(result, m)
        out += [f"**{m}**", "", md_table(header, rows, "l" + "r" * (len(header) - 1)), "",
                *(f"{line}  " for line in _footer(result, m)), ""]  # fmt: skip
    return "\n".join(out)


def format_latex(result: StudyResult) -> str:
    out = []
    for m in result.measures:
        header, rows = _rows(result, m)
        out += [r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\toprule",
                " & ".join(latex_escape(h) for h in header) + r" \\", r"\midrule"]  # fmt: skip
        for r in rows:
            cells = [
                latex_escape(r[0]),
                *(c.replace(" ± ", r" $\pm$ ").replace(MARK, r"$^{*}$") for c in r[1:]),
            ]
            out.append(" & ".join(cells) + r" \\")
        out += [
            r"\bottomrule",
            r"\end{tabular}",
            f"% {latex_escape(m)}: " + "; ".join(_footer(result, m)),
            "",
        ]
    return "\n".join(out)


def format_csv(result: StudyResult) -> str:
    frame = pl.DataFrame(result.to_dict()["cells"], schema={"dataset": pl.Utf8, "system": pl.Utf8, "measure": pl.Utf8,
                                                            "folds": pl.Int64, "mean": pl.Float64, "sd": pl.Float64,
                                                            "ci_low": pl.Float64, "ci_high": pl.Float64,
                                                            "delta": pl.Float64, "p": pl.Float64, "test": pl.Utf8})  # fmt: skip
    buf = io.StringIO()
    frame.write_csv(buf, float_precision=None)
    return buf.getvalue()


def format_json(result: StudyResult) -> str:
    return json.dumps(result.to_dict(), indent=1, ensure_ascii=False) + "\n"


#: Output formats of ``trecrs study --format``.
FORMATS = {"text": format_text, "markdown": format_markdown, "latex": format_latex, "csv": format_csv,
           "json": format_json}  # fmt: skip


# --------------------------------------------------------------------------------------------- figure


def cliques(ranks: dict[str, float], cd: float) -> list[tuple[float, float]]:
    """The bars of the diagram: maximal runs of systems (by average rank) within ``cd`` of each other, as
    (lowest rank, highest rank), each of two or more systems and not inside another."""
    r = sorted(ranks.values())
    spans: list[tuple[float, float]] = []
    for i, low in enumerate(r):
        j = max(k for k in range(i, len(r)) if r[k] - low < cd)
        if j > i and not any(a <= low and r[j] <= b for a, b in spans):
            spans.append((low, r[j]))
    return spans


def plot(result: StudyResult, path: str | Path) -> None:
    """Demšar's critical-difference diagram of each measure with average ranks, stacked: the rank axis
    (1 = best, at the left), each system at its average rank, a bar over each group of systems whose ranks
    differ by less than the critical difference, and the CD itself above the axis."""
    plt = pyplot()
    measures = [m for m in result.measures if m in result.ranks]
    if not measures:
        raise ValueError("no measure has average ranks to draw (a study needs two systems)")
    fig, axes = plt.subplots(len(measures), 1, figsize=(7, 2.2 * len(measures)), squeeze=False)
    for ax, m in zip(axes[:, 0], measures, strict=True):
        _diagram(ax, m, result.ranks[m], result.cd.get(m))
    fig.tight_layout()
    save_figure(fig, Path(path))


def _diagram(ax, measure: str, ranks: dict[str, float], cd: float | None) -> None:
    k = len(ranks)
    ax.set_xlim(0.5, k + 0.5)
    ax.set_ylim(-1.6, 1.2)
    ax.axhline(0, color="black", lw=1)
    for x in range(1, k + 1):
        ax.plot([x, x], [0, 0.08], color="black", lw=1)
        ax.text(x, 0.15, str(x), ha="center", va="bottom", fontsize=8)
    for i, (system, r) in enumerate(sorted(ranks.items(), key=lambda kv: kv[1])):
        y = -0.35 - 0.25 * (i % 4)
        ax.plot([r, r], [0, y], color="tab:blue", lw=1)
        ax.text(r, y - 0.05, f"{system} ({r:.2f})", ha="center", va="top", fontsize=8)
    if cd is not None and not math.isnan(cd):
        ax.plot([1, 1 + cd], [0.8, 0.8], color="tab:red", lw=2)
        ax.text(1 + cd / 2, 0.85, f"CD = {cd:.3f}", ha="center", va="bottom", fontsize=8, color="tab:red")
        for n, (low, high) in enumerate(cliques(ranks, cd)):
            ax.plot([low - 0.03, high + 0.03], [-0.12 - 0.07 * n] * 2, color="black", lw=3)
    ax.set_title(f"{measure}: average rank (1 = best)", fontsize=9)
    ax.axis("off")
