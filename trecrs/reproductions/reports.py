"""Reports of the reproduced papers: gather per-fold evaluations into one table, check the published
findings, draw the figures, write the Markdown report.

The shell scripts ``scripts/reproduce_bellogin2011.sh`` and ``scripts/reproduce_cremonesi2010.sh`` run
the pipeline with trecrs commands (splits, qrels, candidates, recommend, run, eval) and leave their files
in an output folder with the layout described below; ``trecrs report NAME OUT_DIR`` (this module) reads
them. Each report is a :class:`Report` in the :data:`REPORTS` registry.

Bellogín, Castells & Cantador, "Precision-oriented evaluation of recommender systems: an algorithmic
comparison", RecSys 2011 (Figure 2). Layout: ``OUT/splits/{fold}.base|.test`` and, per split D1 (folds
u1..u5) and D2 (ua, ub), ``OUT/{split}/{fold}/`` holding ``{REC}.pred`` (predicted test ratings) and the
``trecrs eval --format tsv`` outputs ``eval.TR_3.tsv``, ``eval.TR_4.tsv`` (runs ``{REC}.TR.run`` against
the threshold-3 / threshold-4 qrels), ``eval.l{1,3,4}.tsv`` (runs ``{REC}.{TeI,TrI,AI}.run`` against all
test ratings with ``-l 1, 3, 4``) and ``eval.OPR.tsv`` (runs ``{REC}.OPR.run`` against the
One-Plus-Random qrels).

Cremonesi, Koren & Turrin, "Performance of recommender algorithms on top-N recommendation tasks", RecSys
2010 (Figures 2-5 on MovieLens). Layout: ``OUT/eval.full.tsv`` and ``OUT/eval.longtail.tsv``, recall.1..20
of the runs ``{REC}.run`` against the One-Plus-Random qrels of all / long-tail test ratings.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from .._version import __version__
from ..errors import InputError, UsageError
from ..files.output import write_text_atomic

PathLike = str | os.PathLike

RESULTS_NAME = "results.tsv"
REPORT_NAME = "report.md"


@dataclass
class Finding:
    """A published claim, whether our numbers bear it out, and the numbers that say so."""

    claim: str
    holds: bool
    evidence: str


@dataclass
class ReportResult:
    """What a report wrote and what it found."""

    files: list[Path]
    findings: list[Finding]
    results: pl.DataFrame
    extra: dict = field(default_factory=dict)


def _read_eval(path: Path) -> pl.DataFrame:
    """A ``trecrs eval --format tsv`` file: columns run (basename), query, measure, value."""
    if not path.is_file():
        raise InputError(path, None, "missing evaluation file (did this fold's pipeline finish?)")
    df = pl.read_csv(
        path, separator="\t", schema_overrides={"run": pl.Utf8, "query": pl.Utf8, "value": pl.Float64}
    )
    need = {"run", "query", "measure", "value"}
    if not need <= set(df.columns):
        raise InputError(path, 1, f"expected columns {sorted(need)}, found {df.columns}")
    return df.filter(pl.col("query") == "all").with_columns(
        pl.col("run").map_elements(lambda p: Path(p).name, return_dtype=pl.Utf8)
    )


def _fmt(v: float | None, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.{digits}f}"


def _signed(v: float | None, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:+.{digits}f}"


def _md_table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    align = align or ("l" + "r" * (len(header) - 1))
    marks = ["---" if a == "l" else "--:" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _savefig(fig, path: Path) -> None:
    from ..files.output import atomic_path

    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})


# ============================================================================================== Bellogín

BELLOGIN_SPLITS: dict[str, tuple[str, ...]] = {"D1": ("u1", "u2", "u3", "u4", "u5"), "D2": ("ua", "ub")}
BELLOGIN_RECOMMENDERS: tuple[str, ...] = ("SVD50", "IB", "UB50")
BELLOGIN_METHODOLOGIES: tuple[str, ...] = ("TR_3", "TR_4", "TeI", "TrI", "AI", "OPR")
BELLOGIN_METRICS: dict[str, str] = {"P_50": "P@50", "recall_50": "Recall@50", "ndcg_cut_50": "nDCG@50"}
BELLOGIN_LEVEL = 4  # relevance threshold of TeI, TrI, AI (trec_eval -l), see docs/reproductions.md
BELLOGIN_LEVELS: tuple[int, ...] = (1, 3, 4)  # evaluated too, for the sensitivity table
RESULTS_COLUMNS = ("split", "fold", "recommender", "methodology", "metric", "value")
_FOLD_ORDER = {f: k for k, f in enumerate([*BELLOGIN_SPLITS["D1"], *BELLOGIN_SPLITS["D2"], "mean"])}


def _bellogin_eval_rows(d: Path, split: str, fold: str, level: int) -> list[dict]:
    rows = []
    sources = [
        ("eval.TR_3.tsv", "TR", "TR_3"),
        ("eval.TR_4.tsv", "TR", "TR_4"),
        ("eval.OPR.tsv", "OPR", "OPR"),
    ]
    sources += [(f"eval.l{level}.tsv", m, m) for m in ("TeI", "TrI", "AI")]
    for fname, tag, methodology in sources:
        ev = _read_eval(d / fname)
        for run, measure, value in ev.select("run", "measure", "value").iter_rows():
            parts = run.split(".")
            if len(parts) < 3 or parts[1] != tag or measure not in BELLOGIN_METRICS:
                continue
            rows.append(
                {
                    "split": split,
                    "fold": fold,
                    "recommender": parts[0],
                    "methodology": methodology,
                    "metric": BELLOGIN_METRICS[measure],
                    "value": value,
                }
            )
    return rows


def _rmse_rows(d: Path, test: Path, split: str, fold: str) -> tuple[list[dict], list[dict]]:
    from ..files.ratings import read_ratings
    from ..files.scores import read_predictions
    from ..measures.recsys.error import error_measures

    truth = read_ratings(test)
    rows, coverage = [], []
    for pred in sorted(d.glob("*.pred")):
        rec = pred.name[: -len(".pred")]
        m = dict(error_measures(read_predictions(pred), truth).iter_rows())
        rows.append(
            {
                "split": split,
                "fold": fold,
                "recommender": rec,
                "methodology": "-",
                "metric": "RMSE",
                "value": m["rmse"],
            }
        )
        coverage.append(
            {"split": split, "fold": fold, "recommender": rec, "coverage": m["prediction_coverage"]}
        )
    return rows, coverage


def bellogin_results(out_dir: PathLike, *, level: int = BELLOGIN_LEVEL) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per-fold values ``split fold recommender methodology metric value`` and RMSE coverage per fold.

    Folds absent from ``out_dir`` are skipped (a split with no fold at all is left out); a fold folder
    without its evaluation files is an error.
    """
    out = Path(out_dir)
    rows: list[dict] = []
    cover: list[dict] = []
    for split, folds in BELLOGIN_SPLITS.items():
        for fold in folds:
            d = out / split / fold
            if not d.is_dir():
                continue
            rows += _bellogin_eval_rows(d, split, fold, level)
            r, c = _rmse_rows(d, out / "splits" / f"{fold}.test", split, fold)
            rows += r
            cover += c
    if not rows:
        raise InputError(out, None, "no fold results found (expected D1/u1 ... D2/ub folders)")
    schema = {c: pl.Utf8 for c in RESULTS_COLUMNS[:-1]} | {"value": pl.Float64}
    df = pl.DataFrame(rows, schema=schema)
    cov = pl.DataFrame(
        cover, schema={"split": pl.Utf8, "fold": pl.Utf8, "recommender": pl.Utf8, "coverage": pl.Float64}
    )
    return df, cov


def with_means(results: pl.DataFrame) -> pl.DataFrame:
    """Add, per split, rows with fold ``mean``: the arithmetic mean over the split's folds (as the paper)."""
    keys = ["split", "recommender", "methodology", "metric"]
    means = results.group_by(keys).agg(pl.col("value").mean()).with_columns(pl.lit("mean").alias("fold"))
    both = pl.concat([results, means.select(results.columns)])
    order = {
        "split": {s: k for k, s in enumerate(BELLOGIN_SPLITS)},
        "fold": _FOLD_ORDER,
        "recommender": {r: k for k, r in enumerate(BELLOGIN_RECOMMENDERS)},
        "methodology": {m: k for k, m in enumerate([*BELLOGIN_METHODOLOGIES, "-"])},
        "metric": {m: k for k, m in enumerate([*BELLOGIN_METRICS.values(), "RMSE"])},
    }
    sort_keys = [pl.col(c).replace_strict(o, default=len(o), return_dtype=pl.Int64) for c, o in order.items()]
    return both.sort([*sort_keys, "recommender"])


def _value(res: pl.DataFrame, split: str, rec: str, meth: str, metric: str, fold: str = "mean") -> float:
    v = res.filter(
        (pl.col("split") == split)
        & (pl.col("fold") == fold)
        & (pl.col("recommender") == rec)
        & (pl.col("methodology") == meth)
        & (pl.col("metric") == metric)
    ).get_column("value")
    return float(v[0]) if v.len() else float("nan")


def bellogin_findings(results: pl.DataFrame, split: str = "D1") -> list[Finding]:
    """Check the findings of Bellogín et al. (2011, section 4 and Figure 2) on the ``split`` means.

    ``results`` must hold the ``mean`` rows (:func:`with_means`). Each claim is decided by the rule its
    evidence states; nothing is tuned.
    """
    res = results
    recs = [r for r in BELLOGIN_RECOMMENDERS if res.filter(pl.col("recommender") == r).height]
    metrics = list(BELLOGIN_METRICS.values())
    others = ("TeI", "TrI", "AI", "OPR")
    v = lambda rec, meth, metric: _value(res, split, rec, meth, metric)  # noqa: E731
    found: list[Finding] = []

    ratios = {
        (rec, m): min(v(rec, "TR_3", m), v(rec, "TR_4", m)) / max(v(rec, o, m) for o in others)
        for rec in recs
        for m in metrics
    }
    worst = min(ratios, key=ratios.get)
    found.append(
        Finding(
            "TR values are far above every other methodology",
            all(r >= 2 for r in ratios.values()),
            f"min over recommenders and metrics of min(TR_3, TR_4) / max(TeI, TrI, AI, OPR) = "
            f"{ratios[worst]:.1f} ({worst[0]}, {worst[1]}); rule: >= 2",
        )
    )

    ok, ev = True, []
    for rec in recs:
        p3, p4 = v(rec, "TR_3", "P@50"), v(rec, "TR_4", "P@50")
        r3, r4 = v(rec, "TR_3", "Recall@50"), v(rec, "TR_4", "Recall@50")
        ok &= p4 < p3 and r4 > r3
        ev.append(f"{rec}: P {p3:.3f}→{p4:.3f}, R {r3:.3f}→{r4:.3f}")
    found.append(Finding("P@50 falls and Recall@50 rises from TR_3 to TR_4", ok, "; ".join(ev)))

    diffs = {(rec, m): abs(v(rec, "TrI", m) - v(rec, "AI", m)) for rec in recs for m in metrics}
    found.append(
        Finding(
            "TrI equals AI (CF recommenders cannot score items without training ratings)",
            max(diffs.values()) <= 1e-12,
            f"max |TrI - AI| = {max(diffs.values()):.2g} over recommenders and metrics",
        )
    )

    gaps = {(rec, m): v(rec, "TeI", m) - v(rec, "TrI", m) for rec in recs for m in metrics}
    low = min(gaps, key=gaps.get)
    found.append(
        Finding(
            "TeI >= TrI for every recommender and metric",
            min(gaps.values()) >= 0,
            f"min TeI - TrI = {gaps[low]:+.4f} ({low[0]}, {low[1]})",
        )
    )

    if {"IB", "UB50"} <= set(recs):
        rm_ib, rm_ub = v("IB", "-", "RMSE"), v("UB50", "-", "RMSE")
        rest = [r for r in recs if r != "IB"]
        worst_ok = all(
            v("IB", meth, m) < min(v(r, meth, m) for r in rest) for meth in others for m in metrics
        )
        fails = [
            f"{meth} {m}"
            for meth in others
            for m in metrics
            if not v("IB", meth, m) < min(v(r, meth, m) for r in rest)
        ]
        found.append(
            Finding(
                "IB has lower RMSE than UB50 yet is the worst recommender under TeI, TrI, AI and OPR",
                rm_ib < rm_ub and worst_ok,
                f"RMSE IB {rm_ib:.3f} vs UB50 {rm_ub:.3f}; IB below the others in "
                f"{len(others) * len(metrics) - len(fails)} of {len(others) * len(metrics)} (methodology, metric)"
                + (f" (not in: {', '.join(fails)})" if fails else ""),
            )
        )

    ok, ev = True, []
    for rec in recs:
        p_opr = v(rec, "OPR", "P@50")
        p_min = min(v(rec, m, "P@50") for m in ("TeI", "TrI", "AI"))
        n_opr = v(rec, "OPR", "nDCG@50")
        n_mean = sum(v(rec, m, "nDCG@50") for m in ("TeI", "TrI", "AI")) / 3
        ratio = n_opr / n_mean if n_mean > 0 else float("inf")
        ok &= p_opr < p_min and 0.1 <= ratio <= 10
        ev.append(f"{rec}: P@50 OPR {p_opr:.4f} < {p_min:.4f}, nDCG@50 OPR/mean(TeI,TrI,AI) = {ratio:.2f}")
    found.append(
        Finding(
            "OPR gives the lowest P@50 but an nDCG@50 of the same order as TeI/TrI/AI",
            ok,
            "; ".join(ev) + " (same order: ratio within 0.1..10)",
        )
    )

    orders = {}
    for meth in others:
        for m in metrics:
            orders[(meth, m)] = tuple(sorted(recs, key=lambda r, meth=meth, m=m: -v(r, meth, m)))
    distinct = sorted(set(orders.values()))
    found.append(
        Finding(
            "the ordering of the recommenders is the same under TeI, TrI, AI and OPR",
            len(distinct) == 1,
            "orders seen: "
            + "; ".join(
                " > ".join(o) + f" ({sum(1 for x in orders.values() if x == o)} of {len(orders)})"
                for o in distinct
            ),
        )
    )
    return found


def read_bellogin_reference(path: PathLike) -> pl.DataFrame:
    """The published Figure 2 values: a TSV ``split metric methodology SVD50 IB UB50`` -> long form
    ``split metric methodology recommender published``."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "no such file")
    df = pl.read_csv(path, separator="\t", schema_overrides={r: pl.Float64 for r in BELLOGIN_RECOMMENDERS})
    missing = [c for c in ("split", "metric", "methodology", *BELLOGIN_RECOMMENDERS) if c not in df.columns]
    if missing:
        raise InputError(path, 1, f"missing column(s) {missing}")
    return df.unpivot(
        index=["split", "metric", "methodology"],
        on=list(BELLOGIN_RECOMMENDERS),
        variable_name="recommender",
        value_name="published",
    )


def bellogin_comparison(results: pl.DataFrame, reference: pl.DataFrame) -> pl.DataFrame:
    """Our fold means beside the published values: ``... ours published diff`` (diff = ours - published)."""
    ours = results.filter(pl.col("fold") == "mean").rename({"value": "ours"}).drop("fold")
    both = reference.join(ours, on=["split", "metric", "methodology", "recommender"], how="left")
    return both.with_columns((pl.col("ours") - pl.col("published")).alias("diff"))


def level_sensitivity(out_dir: PathLike) -> pl.DataFrame:
    """Means over folds of P@50 and Recall@50 of TeI/TrI/AI at each trec_eval -l level evaluated."""
    frames = []
    for level in BELLOGIN_LEVELS:
        try:
            res, _ = bellogin_results(out_dir, level=level)
        except InputError:
            continue
        res = res.filter(pl.col("methodology").is_in(["TeI", "TrI", "AI"]))
        frames.append(
            res.group_by(["split", "recommender", "methodology", "metric"])
            .agg(pl.col("value").mean())
            .with_columns(pl.lit(level).alias("level"))
        )
    return pl.concat(frames) if frames else pl.DataFrame()


def plot_bellogin(results: pl.DataFrame, reference: pl.DataFrame | None, path: Path) -> None:
    """Figure 2 of the paper: per split a row of panels (P@50, Recall@50, nDCG@50: bars grouped by
    methodology, one bar per recommender; RMSE: one bar per recommender); published D1 bars as black ticks."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    splits = [s for s in BELLOGIN_SPLITS if results.filter(pl.col("split") == s).height]
    recs = [r for r in BELLOGIN_RECOMMENDERS if results.filter(pl.col("recommender") == r).height]
    colours = {"SVD50": "#1f4e79", "IB": "#c0504d", "UB50": "#9bbb59"}
    metrics = list(BELLOGIN_METRICS.values())
    fig, axes = plt.subplots(
        len(splits),
        4,
        figsize=(15, 3.6 * len(splits)),
        squeeze=False,
        gridspec_kw={"width_ratios": [3, 3, 3, 1.2]},
    )
    width = 0.8 / max(1, len(recs))
    for row, split in enumerate(splits):
        for col, metric in enumerate([*metrics, "RMSE"]):
            ax = axes[row][col]
            meths = BELLOGIN_METHODOLOGIES if metric != "RMSE" else ("-",)
            for k, rec in enumerate(recs):
                xs, ys, pub = [], [], []
                for j, meth in enumerate(meths):
                    x = j + (k - (len(recs) - 1) / 2) * width
                    xs.append(x)
                    ys.append(_value(results, split, rec, meth, metric))
                    if reference is not None and split == "D1":
                        p = reference.filter(
                            (pl.col("split") == split)
                            & (pl.col("metric") == metric)
                            & (pl.col("methodology") == meth)
                            & (pl.col("recommender") == rec)
                        ).get_column("published")
                        pub.append((x, float(p[0])) if p.len() else None)
                ax.bar(xs, ys, width=width * 0.95, color=colours.get(rec, "grey"), label=rec)
                for item in pub:
                    if item is not None:
                        ax.plot(
                            [item[0] - width * 0.45, item[0] + width * 0.45],
                            [item[1]] * 2,
                            color="black",
                            lw=1.6,
                        )
            if metric == "RMSE":
                offsets = [(k - (len(recs) - 1) / 2) * width for k in range(len(recs))]
                ax.set_xticks(offsets)
                ax.set_xticklabels(recs, fontsize=8)
            else:
                ax.set_xticks(range(len(meths)))
                ax.set_xticklabels(meths)
            ax.set_title(f"{split} – {metric}", fontsize=10)
            ax.grid(axis="y", alpha=0.3)
            ax.set_axisbelow(True)
            if metric == "RMSE":
                # the paper's axis starts at 0.8; go lower when a bar would otherwise vanish below it
                heights = [b.get_height() for b in ax.patches if b.get_height() > 0]
                low = min([0.8, *(math.floor(h * 10 - 0.5) / 10 for h in heights)])
                ax.set_ylim(max(0.0, low), max(1.3, ax.get_ylim()[1]))
            if row == 0 and col == 0:
                handles, labels = ax.get_legend_handles_labels()
                if reference is not None:
                    from matplotlib.lines import Line2D

                    handles.append(Line2D([0], [0], color="black", lw=1.6))
                    labels.append("published (D1)")
                ax.legend(handles, labels, fontsize=8, loc="upper right")
    fig.suptitle(
        "Bellogín, Castells & Cantador (RecSys 2011), Figure 2 – reproduced with trecrs (mean over folds)",
        fontsize=11,
    )
    fig.tight_layout()
    _savefig(fig, path)
    plt.close(fig)


def _format_results(df: pl.DataFrame) -> str:
    out = df.select(
        *RESULTS_COLUMNS[:-1], pl.col("value").map_elements(lambda x: f"{x:.6f}", return_dtype=pl.Utf8)
    )
    return out.write_csv(separator="\t", quote_style="never")


def bellogin_report(
    out_dir: PathLike,
    *,
    reference: PathLike | None = None,
    runtime: float | None = None,
    jobs: int | None = None,
    data: str | None = None,
    command: list[str] | None = None,
) -> ReportResult:
    """Write ``results.tsv``, ``report.md`` and ``bellogin2011_fig2.png`` into ``out_dir``."""
    from ..files.manifest import write_manifest

    out = Path(out_dir)
    raw, coverage = bellogin_results(out)
    res = with_means(raw)
    ref = read_bellogin_reference(reference) if reference else None
    findings = {
        s: bellogin_findings(res, s) for s in BELLOGIN_SPLITS if res.filter(pl.col("split") == s).height
    }
    results_path = out / RESULTS_NAME
    write_text_atomic(results_path, _format_results(res))
    fig_path = out / "bellogin2011_fig2.png"
    plot_bellogin(res, ref, fig_path)
    md = _bellogin_markdown(out, res, coverage, ref, findings, runtime, jobs, data)
    report_path = out / REPORT_NAME
    write_text_atomic(report_path, md)
    params = {
        "report": "bellogin2011",
        "non_tr_level": BELLOGIN_LEVEL,
        "runtime_seconds": runtime,
        "jobs": jobs,
    }
    inputs = {"reference": reference} if reference else None
    for p, kind in ((results_path, "results"), (fig_path, "figure"), (report_path, "report")):
        write_manifest(p, kind, inputs=inputs, parameters=params, command=command)
    flat = [f for fs in findings.values() for f in fs]
    return ReportResult([results_path, report_path, fig_path], flat, res, {"findings_by_split": findings})


def _bellogin_markdown(out, res, coverage, ref, findings, runtime, jobs, data) -> str:
    folds = {
        s: res.filter((pl.col("split") == s) & (pl.col("fold") != "mean")).get_column("fold").unique().sort()
        for s in BELLOGIN_SPLITS
    }
    lines = [
        "# Reproduction: Bellogín, Castells & Cantador (RecSys 2011), Figure 2",
        "",
        f"trecrs {__version__}. Data: `{data or '?'}`. Folds: "
        + "; ".join(f"{s} = {', '.join(f.to_list()) or 'none'}" for s, f in folds.items())
        + ".",
        "",
    ]
    if runtime is not None:
        lines.append(
            f"**Runtime:** {runtime:.0f} s for the whole pipeline (splits, qrels, candidates, three recommenders, "
            f"runs, trec_eval-compatible scoring of every fold), {jobs or 1} fold(s) at a time on "
            f"{os.cpu_count()} core(s)."
        )
        lines.append("")
    lines += [
        "## How the numbers were made",
        "",
        "- Splits: ML-100K's predefined `u1..u5` (D1) and `ua, ub` (D2), regenerated from `u.data`.",
        "- Recommenders (`trecrs recommend`): **SVD50** biased matrix factorisation (50 factors, ALS-WR), "
        "**IB** Mahout item-based kNN with adjusted cosine, **UB50** Mahout user-based kNN (50 nearest users, "
        "Pearson). The kNN weights follow Mahout 0.3 (similarity + 1), which reproduces the u1 runs the "
        "authors released (IB score for score, UB50 on 98.6% of its scores).",
        "- Runs (`trecrs run --missing drop --depth 50`): a candidate the recommender cannot score is left "
        "out, as in the released runs; cutting at 50 changes none of the @50 measures.",
        "- TR_3 / TR_4: TestRatings runs against qrels of the test ratings >= 3 / >= 4 (graded by the rating, "
        "the released `urels_th3/th4`).",
        f"- TeI, TrI, AI: qrels of **all** test ratings graded by the rating (the released `urels.txt`), "
        f"scored with **`trec_eval -l {BELLOGIN_LEVEL}`**: relevant = rated >= 4, the TR_4 rule, so TR_4 and "
        "the other methodologies differ only in their candidates (nDCG's gains are the ratings whatever `-l`, as "
        "in trec_eval). The paper does not say which of the released levels (1, 3, 4) each bar used; the "
        "sensitivity table below shows the other two.",
        "- OPR: One-Plus-Random, one query per 5-star test rating, 1,000 random unrated items (pool: the "
        "catalogue = items of train and test), judged: the test item only.",
        "- RMSE: over the test ratings each recommender predicts (Mahout's RMSRecommenderEvaluator skips the "
        "others); coverage below.",
        "",
    ]
    for split, fs in findings.items():
        lines += [f"## Findings of the paper, checked on {split} (mean over folds)", ""]
        rows = [[f.claim, "**holds**" if f.holds else "**does not hold**", f.evidence] for f in fs]
        lines.append(_md_table(["claim", "ours", "evidence"], rows, "lll"))
    if ref is not None:
        cmp = bellogin_comparison(res, ref)
        lines += ["## D1: ours beside the published bars (mean of u1..u5; diff = ours - published)", ""]
        rows = []
        for metric in [*BELLOGIN_METRICS.values(), "RMSE"]:
            meths = BELLOGIN_METHODOLOGIES if metric != "RMSE" else ("-",)
            for meth in meths:
                row = [metric, meth]
                for rec in BELLOGIN_RECOMMENDERS:
                    c = cmp.filter(
                        (pl.col("metric") == metric)
                        & (pl.col("methodology") == meth)
                        & (pl.col("recommender") == rec)
                    )
                    if c.height:
                        o, p, d = (
                            c.row(0, named=True)["ours"],
                            c.row(0, named=True)["published"],
                            c.row(0, named=True)["diff"],
                        )
                        row += [_fmt(o), _fmt(p), _signed(d)]
                    else:
                        row += ["–", "–", "–"]
                rows.append(row)
        header = ["metric", "methodology"] + [
            f"{r} {k}" for r in BELLOGIN_RECOMMENDERS for k in ("ours", "paper", "diff")
        ]
        lines.append(_md_table(header, rows, "ll" + "r" * 9))
        d = cmp.filter(pl.col("diff").is_not_null())
        if d.height:
            by = d.group_by("methodology").agg(
                pl.col("diff").abs().mean().alias("mad"), pl.col("diff").abs().max().alias("max")
            )
            order = {m: k for k, m in enumerate([*BELLOGIN_METHODOLOGIES, "-"])}
            by = by.sort(pl.col("methodology").replace_strict(order, default=99, return_dtype=pl.Int64))
            lines += [
                "",
                "Distance from the published bars, per methodology (mean and max |ours - published| over "
                "recommenders and metrics): "
                + "; ".join(f"{m} {a:.3f} / {b:.3f}" for m, a, b in by.iter_rows())
                + f". Over all {d.height} bars: mean {d.get_column('diff').abs().mean():.3f}.",
                "",
            ]
    else:
        lines += [
            "## Published values",
            "",
            "Not compared: no reference file was given (`--reference`). The script passes one only when the "
            "data folder has MovieLens 100K's checksums (`trecrs datasets verify`); on other data the findings "
            "above are checked on that data and say nothing about the paper's.",
            "",
        ]
    for split in BELLOGIN_SPLITS:
        part = res.filter((pl.col("split") == split) & (pl.col("fold") == "mean"))
        if not part.height:
            continue
        lines += [f"## {split}: our values (mean over folds)", ""]
        rows = []
        for metric in BELLOGIN_METRICS.values():
            for rec in BELLOGIN_RECOMMENDERS:
                rows.append(
                    [metric, rec] + [_fmt(_value(res, split, rec, m, metric)) for m in BELLOGIN_METHODOLOGIES]
                )
        lines.append(_md_table(["metric", "recommender", *BELLOGIN_METHODOLOGIES], rows, "ll" + "r" * 6))
        rm = [
            [
                rec,
                _fmt(_value(res, split, rec, "-", "RMSE")),
                _fmt(
                    coverage.filter((pl.col("split") == split) & (pl.col("recommender") == rec))
                    .get_column("coverage")
                    .mean()
                ),
            ]
            for rec in BELLOGIN_RECOMMENDERS
        ]
        lines += ["", _md_table(["recommender", "RMSE", "test ratings predicted (share)"], rm)]
    sens = level_sensitivity(out)
    if sens.height:
        lines += [
            "## Sensitivity: the relevance threshold of TeI, TrI, AI (trec_eval -l), D1 mean",
            "",
        ]
        rows = []
        for metric in ("P@50", "Recall@50"):
            for meth in ("TeI", "TrI", "AI"):
                for rec in BELLOGIN_RECOMMENDERS:
                    cells = []
                    for level in BELLOGIN_LEVELS:
                        c = sens.filter(
                            (pl.col("split") == "D1")
                            & (pl.col("metric") == metric)
                            & (pl.col("methodology") == meth)
                            & (pl.col("recommender") == rec)
                            & (pl.col("level") == level)
                        ).get_column("value")
                        cells.append(_fmt(float(c[0])) if c.len() else "–")
                    rows.append([metric, meth, rec, *cells])
        lines.append(
            _md_table(
                ["metric", "methodology", "recommender", *(f"-l {lv}" for lv in BELLOGIN_LEVELS)],
                rows,
                "lll" + "rrr",
            )
        )
    lines += [
        "## Files",
        "",
        f"- `{RESULTS_NAME}`: every number (per fold and `mean`), columns `{' '.join(RESULTS_COLUMNS)}`.",
        "- `bellogin2011_fig2.png`: the figure (bars: ours; black ticks: published D1 values).",
        "- `D1/u1/...`: each fold's qrels, score files, runs (depth 50), predictions and `trecrs eval` outputs, "
        "each with its `.manifest.json`; `log.txt` holds every command's report.",
        "",
        "![Figure 2 reproduced](bellogin2011_fig2.png)",
        "",
    ]
    return "\n".join(lines)


# ============================================================================================== Cremonesi

CREMONESI_RECOMMENDERS: tuple[str, ...] = (
    "TopPop",
    "MovieAvg",
    "CorNgbr",
    "NNCosNgbr",
    "PureSVD50",
    "PureSVD150",
)
CREMONESI_TESTSETS: tuple[str, ...] = ("full", "longtail")
CREMONESI_N = tuple(range(1, 21))
CREMONESI_COLUMNS = ("testset", "recommender", "N", "recall", "precision")


def cremonesi_results(out_dir: PathLike) -> pl.DataFrame:
    """``testset recommender N recall precision`` from ``eval.{full,longtail}.tsv``.

    recall(N) = #hits / |T| (the mean over test cases of trec_eval's recall_N, each case having one
    relevant item); precision(N) = recall(N) / N, as defined by Cremonesi et al. (2010, section 2).
    """
    out = Path(out_dir)
    rows = []
    for testset in CREMONESI_TESTSETS:
        ev = _read_eval(out / f"eval.{testset}.tsv")
        for run, measure, value in ev.select("run", "measure", "value").iter_rows():
            if not measure.startswith("recall_"):
                continue
            n = int(measure.split("_")[1])
            rec = run.split(".")[0]
            rows.append(
                {"testset": testset, "recommender": rec, "N": n, "recall": value, "precision": value / n}
            )
    if not rows:
        raise InputError(out, None, "no recall_N values in eval.full.tsv / eval.longtail.tsv")
    df = pl.DataFrame(rows)
    order = {r: k for k, r in enumerate(CREMONESI_RECOMMENDERS)}
    return df.sort(
        pl.col("testset").replace_strict(
            {t: k for k, t in enumerate(CREMONESI_TESTSETS)}, return_dtype=pl.Int64
        ),
        pl.col("recommender").replace_strict(order, default=len(order), return_dtype=pl.Int64),
        "recommender",
        "N",
    ).select(CREMONESI_COLUMNS)


def _recall(res: pl.DataFrame, testset: str, rec: str, n: int) -> float:
    v = res.filter((pl.col("testset") == testset) & (pl.col("recommender") == rec) & (pl.col("N") == n))
    return float(v.get_column("recall")[0]) if v.height else float("nan")


def cremonesi_findings(res: pl.DataFrame, n_cases: dict[str, int] | None = None) -> list[Finding]:
    """The MovieLens findings of Cremonesi et al. (2010, section 4) on our recall@10.

    ``n_cases`` (test set -> number of test cases) adds each recall's binomial standard error
    sqrt(r (1 - r) / |T|) to the evidence: on ML-100K |T| is about 300, so differences of a few hundredths
    are noise.
    """
    n_cases = n_cases or {}

    def value(testset: str, rec: str) -> str:
        r = _recall(res, testset, rec, 10)
        n = n_cases.get(testset)
        return f"{r:.3f}" + (f" ± {math.sqrt(r * (1 - r) / n):.3f}" if n else "")

    def show(testset: str, rec: str) -> str:
        return f"{rec} {value(testset, rec)}"

    found = []
    rivals = [r for r in ("TopPop", "MovieAvg", "CorNgbr") if res.filter(pl.col("recommender") == r).height]
    for svd in ("PureSVD50", "PureSVD150"):
        if not res.filter(pl.col("recommender") == svd).height:
            continue
        mine = _recall(res, "full", svd, 10)
        beaten = [r for r in rivals if mine > _recall(res, "full", r, 10)]
        found.append(
            Finding(
                f"{svd} beats TopPop, MovieAvg and CorNgbr at recall@10 on the full test set",
                len(beaten) == len(rivals),
                ", ".join(show("full", r) for r in (svd, *rivals))
                + (
                    ""
                    if len(beaten) == len(rivals)
                    else f"; not above: {', '.join(sorted(set(rivals) - set(beaten)))}"
                ),
            )
        )
    full, tail = _recall(res, "full", "TopPop", 10), _recall(res, "longtail", "TopPop", 10)
    ratio = tail / full if full > 0 else float("nan")
    ranks = {}
    for testset in CREMONESI_TESTSETS:
        vals = {r: _recall(res, testset, r, 10) for r in CREMONESI_RECOMMENDERS}
        ranks[testset] = sorted(vals, key=lambda r: -vals[r]).index("TopPop") + 1
    found.append(
        Finding(
            "TopPop drops sharply on the long tail",
            ratio < 0.5,
            f"TopPop recall@10 {value('full', 'TopPop')} (full) -> {value('longtail', 'TopPop')} (long tail), "
            f"ratio {ratio:.2f} (rule: < 0.5); it ranks {ranks['full']} of 6 on the full test set, "
            f"{ranks['longtail']} of 6 on the long tail",
        )
    )
    return found


def plot_cremonesi(res: pl.DataFrame, path: Path) -> None:
    """Recall@N (N = 1..20) and precision vs recall, full and long-tail test sets (the paper's Figures 2-5)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    styles = {
        "TopPop": ("#7f7f7f", "o"),
        "MovieAvg": ("#bcbd22", "v"),
        "CorNgbr": ("#2ca02c", "s"),
        "NNCosNgbr": ("#17becf", "D"),
        "PureSVD50": ("#d62728", "^"),
        "PureSVD150": ("#1f77b4", "x"),
    }
    fig, axes = plt.subplots(2, 2, figsize=(11, 8.5))
    for row, testset in enumerate(CREMONESI_TESTSETS):
        part = res.filter(pl.col("testset") == testset)
        for rec in part.get_column("recommender").unique(maintain_order=True).to_list():
            r = part.filter(pl.col("recommender") == rec).sort("N")
            colour, marker = styles.get(rec, ("black", "."))
            axes[row][0].plot(r["N"], r["recall"], color=colour, marker=marker, ms=4, lw=1.3, label=rec)
            axes[row][1].plot(
                r["recall"], r["precision"], color=colour, marker=marker, ms=4, lw=1.3, label=rec
            )
        title = "all test items" if testset == "full" else "long tail (short head = 33% of ratings removed)"
        axes[row][0].set(xlabel="N", ylabel="recall(N)", title=f"recall at N – {title}", xlim=(0, 21))
        axes[row][0].set_xticks([1, 5, 10, 15, 20])
        axes[row][1].set(xlabel="recall(N)", ylabel="precision(N)", title=f"precision vs recall – {title}")
        for ax in axes[row]:
            ax.grid(alpha=0.3)
            ax.title.set_fontsize(10)
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Cremonesi, Koren & Turrin (RecSys 2010) – reproduced with trecrs", fontsize=11)
    fig.tight_layout()
    _savefig(fig, path)
    plt.close(fig)


def cremonesi_report(
    out_dir: PathLike,
    *,
    reference: PathLike | None = None,
    runtime: float | None = None,
    jobs: int | None = None,
    data: str | None = None,
    command: list[str] | None = None,
) -> ReportResult:
    """Write ``results.tsv``, ``report.md`` and ``cremonesi2010.png`` into ``out_dir``."""
    from ..files.manifest import write_manifest

    if reference:
        raise UsageError(
            "the Cremonesi report has no reference file (the paper's curves are checked qualitatively)"
        )
    out = Path(out_dir)
    res = cremonesi_results(out)
    findings = cremonesi_findings(res, _cremonesi_cases(out))
    results_path = out / RESULTS_NAME
    body = res.with_columns(
        pl.col("recall").map_elements(lambda x: f"{x:.6f}", return_dtype=pl.Utf8),
        pl.col("precision").map_elements(lambda x: f"{x:.6f}", return_dtype=pl.Utf8),
    )
    write_text_atomic(results_path, body.write_csv(separator="\t", quote_style="never"))
    fig_path = out / "cremonesi2010.png"
    plot_cremonesi(res, fig_path)
    counts = _cremonesi_counts(out)
    lines = [
        "# Reproduction: Cremonesi, Koren & Turrin (RecSys 2010), recall and precision at N",
        "",
        f"trecrs {__version__}. Data: `{data or '?'}`.",
        "",
    ]
    if runtime is not None:
        lines += [f"**Runtime:** {runtime:.0f} s for the whole pipeline on {os.cpu_count()} core(s).", ""]
    lines += [
        "## How the numbers were made",
        "",
        "- Split (`trecrs split --method probe`): a random 1.4% of the ratings is the probe set; the test set T "
        "is its 5-star ratings; training = every rating outside the probe.",
        "- One-Plus-Random (`trecrs candidates --methodology one-plus-random`): for each test rating (u, i), "
        "i and 1,000 items u has not rated, drawn at random (seeded per (user, item)); the recommender ranks "
        "the 1,001 items; a hit when i is among the first N.",
        "- recall(N) = #hits / |T| (trec_eval's recall_N averaged over the test cases, `-c`); "
        "precision(N) = recall(N) / N, the paper's definition.",
        "- Long tail: the test cases whose item is outside the short head (the most popular items that hold "
        "33% of the training ratings); same runs, qrels restricted (`trecrs qrels --long-tail 0.33`).",
        "- Recommenders (`trecrs recommend`): TopPop (number of ratings), MovieAvg (mean rating), CorNgbr "
        "(eq. 1) and NNCosNgbr (eq. 2) with k = 200 neighbours and shrinkage 100, PureSVD with 50 and 150 "
        "factors (eq. 6). Items a model cannot score (MovieAvg: no training rating) rank last; ties follow "
        "trec_eval's order (item id descending).",
        "",
    ]
    if counts:
        lines += [counts, ""]
    lines += ["## Findings of the paper", ""]
    lines.append(
        _md_table(
            ["claim", "ours", "evidence"],
            [[f.claim, "**holds**" if f.holds else "**does not hold**", f.evidence] for f in findings],
            "lll",
        )
    )
    for testset in CREMONESI_TESTSETS:
        part = res.filter(pl.col("testset") == testset)
        recs = part.get_column("recommender").unique(maintain_order=True).to_list()
        lines += [f"## recall(N), {testset} test set", ""]
        rows = [[rec] + [_fmt(_recall(res, testset, rec, n)) for n in (1, 5, 10, 15, 20)] for rec in recs]
        lines.append(_md_table(["recommender", "N=1", "N=5", "N=10", "N=15", "N=20"], rows))
    lines += [
        "## Files",
        "",
        f"- `{RESULTS_NAME}`: columns `{' '.join(CREMONESI_COLUMNS)}` for N = 1..20.",
        "- `cremonesi2010.png`: recall at N and precision vs recall, full and long-tail test sets.",
        "",
        "![recall and precision](cremonesi2010.png)",
        "",
    ]
    report_path = out / REPORT_NAME
    write_text_atomic(report_path, "\n".join(lines))
    params = {"report": "cremonesi2010", "runtime_seconds": runtime}
    for p, kind in ((results_path, "results"), (fig_path, "figure"), (report_path, "report")):
        write_manifest(p, kind, parameters=params, command=command)
    return ReportResult([results_path, report_path, fig_path], findings, res)


def _cremonesi_cases(out: Path) -> dict[str, int]:
    from ..files.trec import read_qrels

    return {
        t: read_qrels(out / f"{t}.qrels").height for t in CREMONESI_TESTSETS if (out / f"{t}.qrels").is_file()
    }


def _cremonesi_counts(out: Path) -> str:
    cases = _cremonesi_cases(out)
    parts = [f"{n:,} test cases ({t})" for t, n in cases.items()]
    return ("Test set: " + ", ".join(parts) + ".") if parts else ""


# ============================================================================================== registry


@dataclass(frozen=True)
class Report:
    """A reproduction report: what it reads from the output folder, what it writes."""

    name: str
    build: Callable[..., ReportResult]
    summary: str


REPORTS: dict[str, Report] = {
    r.name: r
    for r in (
        Report(
            "bellogin2011",
            bellogin_report,
            "Bellogín et al. 2011, Figure 2 (six methodologies, three recommenders)",
        ),
        Report(
            "cremonesi2010",
            cremonesi_report,
            "Cremonesi et al. 2010, recall/precision at N, full and long tail",
        ),
    )
}


def make_report(name: str, out_dir: PathLike, **options) -> ReportResult:
    """Build the report ``name`` (a :data:`REPORTS` key) from the files in ``out_dir``."""
    if name not in REPORTS:
        raise UsageError(f"unknown report {name!r}; choose from {', '.join(REPORTS)}")
    if not Path(out_dir).is_dir():
        raise InputError(out_dir, None, "no such folder")
    return REPORTS[name].build(out_dir, **options)
