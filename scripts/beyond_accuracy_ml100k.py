#!/usr/bin/env python3
"""Beyond accuracy on MovieLens 100K: the four baselines of the compare example (docs/compare.md, "Worked
example") on fold u1, with accuracy, popularity bias, novelty, diversity and calibration at 10, per gender.

For each of TopPop, IB, UB50 and PureSVD50 (``trecrs recommend``, seed 1) the script scores every AllItems
candidate of u1 and ranks them (``trecrs run --depth 1000``), exactly as scripts/compare_ml100k.sh does;
the qrels are u1.test's ratings >= 4 (``trecrs qrels --threshold 4``). Each run is evaluated with
``trecrs.evaluate`` on the training ratings u1.base, the genres of u.item (``item_features``), the short
head of ``head_share`` 0.33 and the users' gender from u.user (``user_groups``, ``group_by="gender"``):
P@10, nDCG@10 (trec_eval's ``P.10``, ``ndcg_cut.10``), arp, aplt, epc, ild, srecall, miscalibration and
category_coverage at 10. It prints one Markdown table (every user, then F, M and the mean absolute
difference between them; ``category_coverage`` is global, so it has no group value) and writes it with
the inputs and runs (MovieLens-derived: not for publishing) to OUT_DIR, and a plot of nDCG@10 against
ARP@10 per system (``--plot``, default OUT_DIR/beyond_accuracy.png).

usage: scripts/beyond_accuracy_ml100k.py DATA_DIR OUT_DIR [--plot FILE.png] [--trecrs "python3 -m trecrs"]
  DATA_DIR  MovieLens 100K (u1.base, u1.test, u.item, u.user), e.g. ../shared/data/ml-100k
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

RECOMMENDERS = ("TopPop", "IB", "UB50", "PureSVD50")
SEED = 1
FOLD = "u1"
K = 10
# (measure requested, column printed, heading): accuracy first, then the beyond-accuracy measures at 10
COLUMNS = (
    ("P.10", "P_10", "P@10"),
    ("ndcg_cut.10", "ndcg_cut_10", "nDCG@10"),
    ("arp.10", "arp_10", "arp@10"),
    ("aplt.10", "aplt_10", "aplt@10"),
    ("epc.10", "epc_10", "epc@10"),
    ("ild.10", "ild_10", "ild@10"),
    ("srecall.10", "srecall_10", "srecall@10"),
    ("category_coverage.10", "category_coverage_10", "category_coverage@10"),
    ("miscalibration.10", "miscalibration_10", "miscalibration@10"),
)
GROUPS = ("F", "M")


def make_runs(data: Path, out: Path, trecrs: list[str]) -> dict[str, Path]:
    """The qrels and each recommender's AllItems run of fold u1, as scripts/compare_ml100k.sh makes them."""
    train, test = data / f"{FOLD}.base", data / f"{FOLD}.test"

    def call(*args) -> None:
        subprocess.run([*trecrs, *map(str, args)], check=True)

    call("qrels", "--test", test, "--threshold", 4, "-o", out / "th4.qrels")
    call(
        "candidates",
        "--methodology",
        "all-items",
        "--train",
        train,
        "--test",
        test,
        "-o",
        out / "all-items.pairs",
    )
    runs = {}
    for rec in RECOMMENDERS:
        scores, runs[rec] = out / f"{rec}.scores.parquet", out / f"{rec}.AI.run"
        call(
            "recommend",
            "--algorithm",
            rec,
            "--seed",
            SEED,
            "--train",
            train,
            "--candidates",
            out / "all-items.pairs",
            "-o",
            scores,
            "--quiet",
        )
        call(
            "run",
            "--candidates",
            out / "all-items.pairs",
            "--scores",
            scores,
            "--depth",
            1000,
            "--tag",
            rec,
            "-o",
            runs[rec],
        )
    return runs


def measure(data: Path, qrels: Path, run: Path) -> dict[str, dict[str, float]]:
    """``{users: {column: value}}`` of one run: ``all``, each gender, and ``MAD``."""
    from trecrs import evaluate

    result = evaluate(
        str(qrels),
        str(run),
        [m for m, _, _ in COLUMNS],
        train=str(data / f"{FOLD}.base"),
        item_features=str(data / "u.item"),
        user_groups=str(data / "u.user"),
        group_by="gender",
    )
    values: dict[str, dict[str, float]] = {"all": dict(result.summary)}
    for query, name, value in result.groups.iter_rows():
        if name.endswith("_mad"):
            values.setdefault("MAD", {})[name.removesuffix("_mad")] = value
        else:
            values.setdefault(query.removeprefix("all:"), {})[name] = value
    return values


def table(values: dict[str, dict[str, dict[str, float]]]) -> str:
    """The Markdown table: per system, every user, then each gender and their mean absolute difference."""
    lines = ["| system | users | " + " | ".join(h for _, _, h in COLUMNS) + " |",
             "|---|---|" + "---:|" * len(COLUMNS)]  # fmt: skip
    for rec, by_users in values.items():
        for users in ("all", *GROUPS, "MAD"):
            cells = [
                f"{by_users[users][c]:.4f}" if c in by_users.get(users, {}) else "" for _, c, _ in COLUMNS
            ]
            label = {"all": "all", "MAD": "MAD"}.get(users, users)
            lines.append(f"| {rec if users == 'all' else ''} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(values: dict[str, dict[str, dict[str, float]]], path: Path) -> None:
    """nDCG@10 against ARP@10 (every user), one labelled point per system; the same data, the same bytes."""
    from trecrs.report.figures import pyplot, save_figure

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.6, 3.4))
    for i, (rec, by_users) in enumerate(values.items()):
        x, y = by_users["all"]["arp_10"], by_users["all"]["ndcg_cut_10"]
        ax.scatter([x], [y], color=f"C{i}", zorder=3)
        ax.annotate(rec, (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
    ax.set_xlabel("ARP@10 (mean training ratings of the top 10)")
    ax.set_ylabel("nDCG@10")
    ax.set_title(f"MovieLens 100K {FOLD}, AllItems, qrels: rating >= 4", fontsize=9)
    ax.grid(linewidth=0.3)
    fig.tight_layout()
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data", type=Path, metavar="DATA_DIR")
    p.add_argument("out", type=Path, metavar="OUT_DIR")
    p.add_argument("--plot", type=Path, default=None, help="the figure (default OUT_DIR/beyond_accuracy.png)")
    p.add_argument("--trecrs", default=f"{shlex.quote(sys.executable)} -m trecrs", help="the command to run")
    args = p.parse_args(argv)
    missing = [
        n for n in (f"{FOLD}.base", f"{FOLD}.test", "u.item", "u.user") if not (args.data / n).is_file()
    ]
    if missing:
        p.error(f"{args.data} has no {', '.join(missing)} (DATA_DIR must hold MovieLens 100K)")
    args.out.mkdir(parents=True, exist_ok=True)
    runs = make_runs(args.data, args.out, shlex.split(args.trecrs))
    values = {rec: measure(args.data, args.out / "th4.qrels", run) for rec, run in runs.items()}
    text = table(values)
    (args.out / "beyond_accuracy.md").write_text(text)
    plot(values, args.plot or args.out / "beyond_accuracy.png")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
