"""Random qrels, runs and ``trec_eval`` flags, case ``K`` of seed ``S`` always the same.

Each case stresses one or more of trec_eval's rules: score ties and float32 collisions (0.1 vs
0.1000000001), numeric ids whose bytewise order differs from their numeric order, string ids, graded,
zero and negative relevance, queries in only one of the two files, queries with no relevant or no judged
document, and random flag sets (``-q -c -n -l -M -N -J``, ``-m`` with and without parameters, nicknames).
Numbers are drawn over the whole range trec_eval parses (C's ``atol``/``atof``): ``-l`` from below the
smallest judgment to above the largest, ``-M`` from 0 (and below, where trec_eval crashes), ``-N`` negative,
cutoffs and parameters at 0, negative, huge and as text ``atol`` truncates (``5x``). Inputs trecrs refuses
by design (duplicate lines; docs/trec_eval_compatibility.md) are not generated.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class Case:
    """One differential case: the two files' lines and the flags before them on the command line."""

    qrels: list[str]
    run: list[str]
    flags: list[str] = field(default_factory=list)

    def qrels_text(self) -> str:
        return "".join(line + "\n" for line in self.qrels)

    def run_text(self) -> str:
        return "".join(line + "\n" for line in self.run)


def case_rng(seed: int, k: int) -> random.Random:
    """The generator of case ``k`` of ``seed``: independent of every other case, so ``--only K`` replays it."""
    return random.Random(f"trecrs-fuzz:{seed}:{k}")


def make_case(seed: int, k: int) -> Case:
    """Case ``k`` of ``seed``."""
    rng = case_rng(seed, k)
    qrels, run = _files(rng)
    flags = make_flags(rng)
    return Case(qrels, run, flags + _later_flags(random.Random(f"trecrs-fuzz-later:{seed}:{k}"), flags))


LATER_SPECS = ("ndcg_cut.10,20,23.4", "P.3.9", "P.2,1e3", "recall.+7", "map_cut. 4", "yaap", "yaap")


def _later_flags(rng: random.Random, earlier: list[str]) -> list[str]:
    """Flags added after the first cases were recorded, from their own generator (so earlier cases keep
    their flags): ``-N`` (read by utility only, and only where no utility is asked for: pytrec_eval cannot
    take it, and utility with -N has its own test against the binaries) and cutoffs that C's ``atol`` cuts
    (``23.4`` -> 23)."""
    flags: list[str] = []
    measures = [earlier[i + 1] for i, f in enumerate(earlier[:-1]) if f == "-m"]
    no_utility = measures and not any(m.startswith("utility") or m in NICKNAMES for m in measures)
    if no_utility and rng.random() < 0.15:
        flags += ["-N", str(rng.choice([0, 5, 1000]))]
    if rng.random() < 0.1:
        flags += ["-m", rng.choice(LATER_SPECS)]
    return flags


_QID_STYLES = {
    "numeric": lambda rng: [str(i) for i in rng.sample(range(1, 120), 40)] + ["9", "10", "100", "2", "20"],
    "string": lambda rng: rng.sample([a + b for a in "aAbBq" for b in ("", "a", "B", "_1", "10", "9")], 24),
    "padded": lambda rng: rng.sample([f"{z}{i}" for z in ("", "0", "00") for i in range(1, 25)], 30),
}
_DOC_STYLES = {
    "numeric": lambda rng, i: str(rng.randint(0, 3 * i + 20)),
    "string": lambda rng, i: "".join(rng.choice("abcAB") for _ in range(rng.randint(1, 3))),
    "trec": lambda rng, i: f"FT9{rng.randint(10, 99)}-{rng.randint(0, 999)}",
}
SCORES = {
    "ties": lambda rng: rng.choice(["0", "1", "2", "0.5", "1.5"]),
    "float32": lambda rng: rng.choice(
        [
            "0.1",
            "0.1000000001",
            "1.0",
            "1.000000001",
            "1.0000001",
            "0.99999999",
            "16777216",
            "16777217",
            "0.3",
            "0.30000000001",
        ]
    ),
    "signed": lambda rng: rng.choice(["-1", "-0.5", "0", "-0", "-0.0", "0.0", "1", "-1e3", "1e-3", "+2"]),
    "random": lambda rng: repr(round(rng.uniform(-5, 5), rng.randint(0, 6))),
    "same": lambda rng: "1",
}


def _docs(rng: random.Random, n: int) -> list[str]:
    """Up to ``n`` distinct document ids of one random style."""
    pick = _DOC_STYLES[rng.choice(sorted(_DOC_STYLES))]
    out = list(dict.fromkeys(pick(rng, i) for i in range(n * 4)))
    return out[:n]


def _qids(rng: random.Random, n: int) -> list[str]:
    pool = list(dict.fromkeys(_QID_STYLES[rng.choice(sorted(_QID_STYLES))](rng)))
    rng.shuffle(pool)
    return pool[:n]


def _rel(rng: random.Random, profile: str) -> int:
    if profile == "none":  # a query with no relevant document (an empty relevant set)
        return rng.choice([0, 0, -1])
    if profile == "negative":  # judged nothing: every document pooled but unjudged
        return rng.choice([-1, -2])
    return rng.choice([0, 0, 0, 1, 1, 2, 3, 4, -1, 10])


def _files(rng: random.Random) -> tuple[list[str], list[str]]:
    """Qrels and run lines: shared queries, queries in only one file, shuffled line order."""
    qids = _qids(rng, rng.choice([1, 2, 3, 5, 8]) + 3)
    both, rest = qids[:-3], qids[-3:]
    qrels_only, run_only = rest[: rng.choice([0, 0, 1, 2])], rest[2:][: rng.choice([0, 0, 1])]
    docs = _docs(rng, rng.choice([6, 15, 40]))
    score = SCORES[rng.choice(sorted(SCORES))]
    tag = rng.choice(["run", "tagB", "r-1"])
    qrels, run = [], []
    for q in both + qrels_only:
        profile = rng.choices(["normal", "none", "negative"], [85, 12, 3])[0]
        for d in rng.sample(docs, rng.randint(1, len(docs))):
            qrels.append(f"{q} {rng.choice(['0', '0', 'Q0'])} {d} {_rel(rng, profile)}")
    for q in both + run_only:
        pool = docs + [f"u{i}" for i in range(rng.choice([0, 3, 10]))]  # unjudged documents
        chosen = rng.sample(pool, rng.randint(1, min(len(pool), rng.choice([3, 10, 60]))))
        for r, d in enumerate(chosen, 1):
            rank = rng.choice([r, r, 1, len(chosen) - r])  # the rank column is ignored
            run.append(f"{q} Q0 {d} {rank} {score(rng)} {rng.choice([tag, tag, tag, 'other'])}")
    for lines in (qrels, run):
        if rng.random() < 0.6:
            rng.shuffle(lines)
    return qrels, run


MEASURE_SPECS = (
    "P.5,10",
    "P.1",
    "recall.5,100",
    "ndcg_cut.3,10",
    "map_cut.5",
    "success.1,5",
    "relative_P.2",
    "iprec_at_recall.0.5",
    "Rprec_mult.0.5,1.5",
    "11pt_avg",
    "11pt_avg.0.1,0.5",
    "relstring",
    "relstring.5",
    "set_F",
    "set_F.1.0",
    "set_F.0.5",
    "utility",
    "utility.2,1,-1,1",
    "G",
    "G.1=0,2=1",
    "ndcg",
    "ndcg.1=2,2=3",
    "ndcg_rel",
    "ndcg_rel.1=2",
    "Rndcg",
    "Rndcg.2=1",
    "binG",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "infAP",
    "gm_bpref",
    "recip_rank",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "runid",
    "set_P",
    "set_recall",
    "set_map",
    "set_relative_P",
)
NICKNAMES = ("all_trec", "official", "set")
# parameters at the edges of what trec_eval parses: 0, negative, huge, text atol/atof truncate
EDGE_SPECS = (
    "P.2x",
    "P.5,1x0",
    "recall.99999999999999999999",
    "success.9223372036854775807",
    "map_cut.1x",
    "ndcg_cut.3.7",
    "iprec_at_recall.-0.5",
    "iprec_at_recall.0,2",
    "Rprec_mult.0",
    "Rprec_mult.-1",
    "Rprec_mult.0.01,9",
    "11pt_avg.-1",
    "11pt_avg.1,0",
    "set_F.0",
    "set_F.-1",
    "relstring.0",
    "relstring.-2",
    "utility.0,0,0,0",
    "ndcg.0=-1",
    "ndcg.-1=2,3=-2",
    "G.-1=2",
    "ndcg_rel.0=5",
    "relative_P.1",
    "P.0",
    "recall.-1",
    "success.0",
)
LEVELS = (
    "-3",
    "-2",
    "-1",
    "0",
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "11",
    "2147483647",
    "2x",
    "x",
    " 1",
    "+2",
    "99999999999999999999",
)
DEPTHS = ("0", "0", "1", "2", "3", "10", "-1", "3x", "99999999999999999999")
NUM_DOCS = ("-1", "0", "5", "1000", "x")


def make_flags(rng: random.Random) -> list[str]:
    """A random trec_eval command line (without the two files)."""
    flags: list[str] = []
    for flag, p in (("-q", 0.4), ("-c", 0.3), ("-n", 0.1), ("-J", 0.2)):
        if rng.random() < p:
            flags.append(flag)
    if rng.random() < 0.35:
        flags += ["-l", rng.choice(LEVELS)]
    if rng.random() < 0.25:
        flags += ["-M", rng.choice(DEPTHS)]
    if rng.random() < 0.05:
        flags += ["-N", rng.choice(NUM_DOCS)]
    roll = rng.random()
    if roll < 0.35:
        flags += ["-m", rng.choice(NICKNAMES)]
    elif roll < 0.9:
        for spec in rng.sample(MEASURE_SPECS, rng.randint(1, 4)):
            flags += ["-m", spec]
        if rng.random() < 0.25:
            flags += ["-m", rng.choice(EDGE_SPECS)]
    return flags  # else no -m: trec_eval's default (official)
