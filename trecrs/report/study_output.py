"""What ``trecrs study`` prints and draws: the paper table (text, Markdown, LaTeX), the cells (CSV, JSON) and
Demšar's critical-difference diagram."""

from __future__ import annotations

import io
import json
import math
import textwrap
from pathlib import Path
from typing import cast

import polars as pl

from ..errors import SemanticError
from .figures import figure, finish
from .markdown import latex_escape, md_table
from .study import StudyResult, too_few_note

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
    rows = [
        [
            s + (" (baseline)" if s == result.baseline else ""),
            *(_entry(result, d, s, measure) for d in result.datasets),
            f"{ranks[s]:.2f}" if s in ranks else "–",
        ]
        for s in result.systems
    ]
    return header, rows


def _footer(result: StudyResult, measure: str) -> list[str]:
    tests = sorted({c.test for c in result.cells if c.measure == measure and c.test})
    out = [
        f"{MARK}: p < {result.alpha} against {result.baseline} ({', '.join(tests) or 'no test'}, two-sided); "
        f"± half-width of the {1 - result.alpha:.0%} t interval over the folds"
    ]
    if measure in result.friedman:
        # NaN (every system tied on every data set) is None in the result: printed as nan
        f = result.friedman[measure]
        stat, p = (math.nan if v is None else v for v in (f["statistic"], f["p"]))
        out.append(
            f"Friedman chi-square {stat:.4f}, p = {p:.4g} ({len(result.ranks[measure])} systems, "
            f"{len(result.datasets)} data sets)"
        )
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
        out += [
            f"**{m}**",
            "",
            md_table(header, rows, "l" + "r" * (len(header) - 1)),
            "",
            *(f"{line}  " for line in _footer(result, m)),
            "",
        ]
    return "\n".join(out)


def format_latex(result: StudyResult) -> str:
    out = []
    for m in result.measures:
        header, rows = _rows(result, m)
        out += [
            r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}",
            r"\toprule",
            " & ".join(latex_escape(h) for h in header) + r" \\",
            r"\midrule",
        ]
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
    frame = pl.DataFrame(
        result.to_dict()["cells"],
        schema={
            "dataset": pl.Utf8,
            "system": pl.Utf8,
            "measure": pl.Utf8,
            "folds": pl.Int64,
            "mean": pl.Float64,
            "sd": pl.Float64,
            "ci_low": pl.Float64,
            "ci_high": pl.Float64,
            "delta": pl.Float64,
            "p": pl.Float64,
            "test": pl.Utf8,
        },
    )
    buf = io.StringIO()
    frame.write_csv(buf, float_precision=None)
    return buf.getvalue()


def format_json(result: StudyResult) -> str:
    return json.dumps(result.to_dict(), indent=1, ensure_ascii=False) + "\n"


#: Output formats of ``trecrs study --format``.
FORMATS = {
    "text": format_text,
    "markdown": format_markdown,
    "latex": format_latex,
    "csv": format_csv,
    "json": format_json,
}

#: The formats with no place for the notes (CSV is the cells alone): ``trecrs study`` prints them on stderr.
WITHOUT_NOTES = ("csv",)


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


def plot(result: StudyResult, path: str | Path | None = None):
    """Demšar's critical-difference diagram of each measure with average ranks, stacked; the figure, saved
    to ``path`` when one is given (:func:`~.figures.finish`).

    Demšar's layout (JMLR 2006, Figure 1): one horizontal rank axis, 1 = best at the left; the critical
    difference as a bar with its value above the axis; the best half of the systems on elbow lines to the
    left of the axis, the others to the right, one row each (no label over another); below the axis, one
    thick bar per group of systems whose average ranks differ by less than the critical difference
    (:func:`cliques`), each on its own row, clear of the names. Sizes are in inches, the names measured in
    the font they are drawn with, so that long names widen the figure instead of running into each other.
    """
    measures = [m for m in result.measures if m in result.ranks]
    if not measures:  # one system: nothing is ranked
        raise SemanticError(
            f"a critical-difference diagram needs at least two systems, the study has "
            f"{len(result.systems)} ({', '.join(result.systems)})"
        )
    note = too_few_note(result)
    panels = [
        _Panel(m, result.ranks[m], result.cd.get(m), result.friedman.get(m, {}).get("p"), note)
        for m in measures
    ]
    side = max(max(p.label_widths()) for p in panels) + 0.45  # the longest name fits beside the axis
    axis = max(3.0, 0.6 * (len(result.systems) - 1))
    for p in panels:
        p.side, p.axis, p.width = side, axis, 2 * side + axis
    top = sum(p.height() for p in panels)
    fig, ax = figure(figsize=(2 * side + axis, top))
    fig.subplots_adjust(0, 0, 1, 1)
    ax.set_xlim(0, 2 * side + axis)  # data coordinates in inches
    ax.set_ylim(0, top)
    ax.axis("off")
    for p in panels:
        p.draw(ax, top)
        top -= p.height()
    return finish(fig, path)


FONT = 9  # points: names, ranks, tick labels
CHAR = 0.075  # inches: a character at FONT points, for wrapping a note
ROW, BAR_ROW = 0.22, 0.13  # inches: a name's row, a clique bar's row


class _Panel:
    """One measure's diagram, drawn in inches from the top of its band (:func:`plot`)."""

    def __init__(
        self, measure: str, ranks: dict[str, float], cd: float | None, p: float | None, note: str | None
    ) -> None:
        self.measure, self.p, self.note = measure, p, note
        self.cd = cd if cd is not None and not math.isnan(cd) else None
        self.order = sorted(ranks.items(), key=lambda kv: (kv[1], kv[0]))  # best first
        self.k = len(self.order)
        self.left = self.order[: (self.k + 1) // 2]  # the best half, the best nearest the axis
        self.right = self.order[(self.k + 1) // 2 :][::-1]  # the others, the worst nearest the axis
        self.rows = max(len(self.left), len(self.right))
        self.bars = cliques(ranks, self.cd) if self.cd is not None else []
        self.side = self.axis = self.width = 0.0

    def label_widths(self) -> list[float]:
        return [_text_width(_label(s, r)) for s, r in self.order]

    def _note_lines(self) -> list[str]:
        return textwrap.wrap(f"note: {self.note}", int(self.width / CHAR)) if self.note else []

    def height(self) -> float:
        return 1.05 + BAR_ROW * len(self.bars) + 0.1 + ROW * self.rows + 0.15 + 0.18 * len(self._note_lines())

    def x(self, rank: float) -> float:
        """Where ``rank`` is on the axis: 1 (best) at its left end."""
        return self.side + (rank - 1) / max(self.k - 1, 1) * self.axis

    def draw(self, ax, top: float) -> None:
        title = f"{self.measure}: average ranks (1 = best, at the left)"
        title += f"; Friedman p = {self.p:.3g}" if self.p is not None else ""
        ax.text(self.width / 2, top - 0.1, title, ha="center", va="top", fontsize=FONT + 1)
        y = top - 1.0  # the axis
        self._axis(ax, y)
        if self.cd is not None:
            self._cd(ax, top - 0.55)
        for n, (low, high) in enumerate(self.bars):  # over the elbow lines they cross
            ax.plot(
                [self.x(low) - 0.06, self.x(high) + 0.06],
                [y - 0.15 - BAR_ROW * n] * 2,
                color="black",
                lw=3,
                solid_capstyle="butt",
                zorder=3,
            )
        first = y - 0.15 - BAR_ROW * len(self.bars) - 0.1
        self._names(ax, y, first)
        for i, line in enumerate(self._note_lines()):
            ax.text(
                0.1,
                first - ROW * self.rows - 0.05 - 0.18 * i,
                line,
                ha="left",
                va="top",
                fontsize=FONT - 1,
                color="tab:red",
            )

    def _axis(self, ax, y: float) -> None:
        ax.plot([self.x(1), self.x(self.k)], [y, y], color="black", lw=1)
        for tick in range(1, self.k + 1):
            ax.plot([self.x(tick)] * 2, [y, y + 0.06], color="black", lw=1)
            ax.text(self.x(tick), y + 0.09, str(tick), ha="center", va="bottom", fontsize=FONT)

    def _cd(self, ax, y: float) -> None:
        """The critical difference as a bar from rank 1, its value above it (kept inside the figure)."""
        start, end = self.x(1), min(self.x(1 + cast(float, self.cd)), self.width - 0.05)
        ax.plot([start, end], [y, y], color="black", lw=1.5)
        for e in (start, end):
            ax.plot([e, e], [y - 0.04, y + 0.04], color="black", lw=1.5)
        ax.text((start + end) / 2, y + 0.06, f"CD = {self.cd:.3f}", ha="center", va="bottom", fontsize=FONT)

    def _names(self, ax, y: float, first: float) -> None:
        """Each system on an elbow line from its rank on the axis, one row each, out to its side."""
        for side, systems in ((-1, self.left), (1, self.right)):
            end = self.x(1) - 0.2 if side < 0 else self.x(self.k) + 0.2
            for j, (system, r) in enumerate(systems):
                row = first - ROW * j
                ax.plot([self.x(r), self.x(r), end], [y, row, row], color="tab:blue", lw=0.9)
                ax.text(
                    end + 0.05 * side,
                    row,
                    _label(system, r),
                    ha="right" if side < 0 else "left",
                    va="center",
                    fontsize=FONT,
                )


def _label(system: str, rank: float) -> str:
    return f"{system} ({rank:.2f})"


def _text_width(text: str) -> float:
    """The width of ``text`` at :data:`FONT` points in matplotlib's default font, in inches."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    return text_to_path.get_text_width_height_descent(text, FontProperties(size=FONT), ismath=False)[0] / 72
