"""C/W/L measures (Moffat et al.; Azzopardi, Thomas, Moffat, SIGIR 2019) as ``cwl_eval`` computes them, and
rank-biased precision with graded gains.

A C/W/L measure is a user model given by its continuation vector C: C_i is the probability that a user who
has examined rank i goes on to rank i + 1. The weight of rank i is W_i = prod_{j<i} C_j / sum_m prod_{j<m}
C_j and the measure is the expected utility per document examined, sum_i W_i g_i (``cwl.ruler.measures
.cwl_metrics.CWLMetric``). As cwl_eval (``cwl/ruler/ranking.py``, ``max_n=1000``) the ranking is cut or
padded with gain-0 documents to :data:`DEPTH` positions, every document costs 1 and an unjudged document has
gain 0 (cwl_eval's lower bound).

Gains are those ir_measures' cwl_eval provider gives (``ir_measures/providers/cwl_eval.py``): a negative
grade counts as 0, then g = (min(max(grade, min_rel), max_rel) - min_rel) / (max_rel - min_rel), in [0, 1];
for RBP, which takes ``rel``, g = 1 for a grade >= rel (the relevance level) and 0 otherwise. Every query
has a value (0 without a relevant document). The ranking is trec_eval's (score descending, docno
descending on ties); cwl_eval keeps the run's order among tied scores (ir_measures sorts by score only).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ...errors import UsageError
from ...schema import QUERY, RANK, REL
from .registry import VALUE, VALUES, Context, ExtraMeasure, register

#: cwl_eval's ranking depth (``RankingMaker(max_n=1000)``): weights are spread over this many positions
DEPTH = 1000
#: queries per block of the (queries x DEPTH) matrices, to bound memory
BLOCK = 256
SOURCE = "Azzopardi, Thomas, Moffat 2019 (cwl_eval: An Evaluation Tool for Information Retrieval)"


def _scaled(min_rel: float, max_rel: float) -> pl.Expr:
    """cwl_eval's graded gain: (min(max(grade, 0, min_rel), max_rel) - min_rel) / (max_rel - min_rel)."""
    grade = pl.col(REL).cast(pl.Float64).clip(lower_bound=0.0)
    return ((grade.clip(lower_bound=min_rel, upper_bound=max_rel) - min_rel) / (max_rel - min_rel)).fill_null(
        0.0
    )


def _binary(level: int) -> pl.Expr:
    """ir_measures' ``rel`` gain: 1 for a judged grade (negative counted as 0) >= level, else 0."""
    grade = pl.col(REL).cast(pl.Float64).clip(lower_bound=0.0)
    return pl.when(grade >= level).then(1.0).otherwise(0.0).fill_null(0.0)


def gains(
    ctx: Context, gain: pl.Expr, k: int | None = None
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """The ranking's gains as (number of queries, row, rank - 1, gain), rows in ``ctx.queries`` order and
    ascending; ranks beyond k (the ranking cut at k) and beyond :data:`DEPTH` are left out (gain 0)."""
    depth = DEPTH if k is None else min(k, DEPTH)
    index = pl.DataFrame(
        {QUERY: ctx.queries, "row": np.arange(len(ctx.queries))}, schema={QUERY: pl.Utf8, "row": pl.Int64}
    )
    top = (
        ctx.ranked.filter(pl.col(RANK) <= depth)
        .select(QUERY, RANK, gain.alias("g"))
        .join(index, on=QUERY, how="inner")
        .sort("row", RANK)
    )
    return (
        len(ctx.queries),
        top.get_column("row").to_numpy(),
        top.get_column(RANK).to_numpy() - 1,
        top.get_column("g").to_numpy().astype(np.float64),
    )


def expected_utility(cont, n: int, rows: np.ndarray, cols: np.ndarray, g: np.ndarray) -> np.ndarray:
    """sum_i W_i g_i per query, W_i = prod_{j<i} C_j / sum_m prod_{j<m} C_j, C = ``cont(gains)``
    (CWLMetric.w_vector), on (queries x DEPTH) gain matrices of :data:`BLOCK` queries at a time."""
    out = np.empty(n)
    for start in range(0, n, BLOCK):
        lo, hi = np.searchsorted(rows, [start, start + BLOCK])
        gb = np.zeros((min(BLOCK, n - start), DEPTH))
        gb[rows[lo:hi] - start, cols[lo:hi]] = g[lo:hi]
        c = cont(gb)
        reach = np.hstack([np.ones((gb.shape[0], 1)), np.cumprod(c[:, :-1], axis=1)])
        w = reach * (1.0 / reach.sum(axis=1, keepdims=True))
        out[start : start + gb.shape[0]] = (w * gb).sum(axis=1)
    return out


RANKS = np.arange(1, DEPTH + 1, dtype=np.float64)


def _upto(k: float) -> np.ndarray:
    """1.0 at ranks i < k (C_i may be non-zero), 0 from rank k on (the user stops at k at the latest)."""
    return (RANKS < k).astype(np.float64)


def _sdcg_c(k: float) -> np.ndarray:
    # cwl_eval's NDCGCWLMetric computes each ratio with math.log(x, 2); the same calls give the same bits
    return np.array(
        [math.log(i + 1, 2.0) / math.log(i + 2, 2.0) if i < k else 0.0 for i in range(1, DEPTH + 1)]
    )


#: name -> (continuation C(g, params) of the gain rows, parameter names, defaults, summary, source)
CONTINUATION = {
    "bpm": (lambda g, p: ((np.cumsum(g, axis=1) < p[0]) & (RANKS < p[1])).astype(np.float64),
            ("T", "K"), (1.0, 10.0),
            "Bejeweled Player Model, static: stop once the gain reaches T or at rank K",
            "Zhang, Liu, Li, Zhang, Xu, Ma 2017 (Evaluating Web Search with a Bejeweled Player Model)"),
    "sdcg": (lambda g, p: np.broadcast_to(_sdcg_c(p[0]), g.shape),
             ("k",), (10.0,),
             "scaled DCG@k: sum_{i<=k} g_i/log2(i+1) / sum_{i<=k} 1/log2(i+1)",
             "Jarvelin & Kekalainen 2002; C/W/L form of Moffat 2013"),
    "nerr8": (lambda g, p: (1.0 - g) * _upto(p[0]), ("k",), (10.0,),
              "not-but-nearly ERR, Eq. 8: C_i = 1 - g_i, stop at rank k",
              "Azzopardi, Mackenzie, Moffat 2021 (ERR is not C/W/L)"),
    "nerr9": (lambda g, p: RANKS / (RANKS + 1.0) * (1.0 - g) * _upto(p[0]), ("k",), (10.0,),
              "not-but-nearly ERR, Eq. 9: C_i = i/(i+1) (1 - g_i), stop at rank k",
              "Azzopardi, Mackenzie, Moffat 2021 (ERR is not C/W/L)"),
    "nerr10": (lambda g, p: p[0] * (1.0 - g), ("p",), (0.9,),
               "not-but-nearly ERR, Eq. 10: C_i = p (1 - g_i)",
               "Azzopardi, Mackenzie, Moffat 2021 (ERR is not C/W/L)"),
    "nerr11": (lambda g, p: ((RANKS + 2.0 * p[0] - 1.0) / (RANKS + 2.0 * p[0])) ** 2.0 * (1.0 - g), ("T",), (1.0,),
               "not-but-nearly ERR, Eq. 11: C_i = ((i + 2T - 1)/(i + 2T))^2 (1 - g_i)",
               "Azzopardi, Mackenzie, Moffat 2021 (ERR is not C/W/L)"),
    "inst": (lambda g, p: _inst(g, p[0]), ("T",), (1.0,),
             "INST: C_i = ((i + T + T_i - 1)/(i + T + T_i))^2, T_i = T - sum_{j<=i} g_j",
             "Moffat, Bailey, Scholer, Thomas 2015 (INST: An Adaptive Metric)"),
    "insq": (lambda g, p: np.broadcast_to(((RANKS + 2.0 * p[0] - 1.0) / (RANKS + 2.0 * p[0])) ** 2.0, g.shape),
             ("T",), (1.0,),
             "INSQ: C_i = ((i + 2T - 1)/(i + 2T))^2",
             "Moffat, Scholer, Thomas 2012 (Models and metrics: IR evaluation as a user process)"),
}  # fmt: skip


def _inst(g: np.ndarray, t: float) -> np.ndarray:
    """INST's C_i = ((i + T + T_i - 1) / (i + T + T_i))^2 with T_i = T - (gain up to rank i)."""
    ti = t - np.cumsum(g, axis=1)
    return ((RANKS + t + ti - 1.0) / (RANKS + t + ti)) ** 2.0


def _check_range(name: str, min_rel: float, max_rel: float) -> None:
    if not min_rel < max_rel:
        raise UsageError(f"measure {name}: min_rel must be less than max_rel")


def _graded_measure(name: str):
    """per_query of ``cwl_<name>``: the parameters are the model's, then min_rel and max_rel (the gain scale)."""
    cont = CONTINUATION[name][0]

    def per_query(ctx: Context, param: tuple) -> pl.DataFrame:
        *model, min_rel, max_rel = param
        values = expected_utility(lambda g: cont(g, model), *gains(ctx, _scaled(min_rel, max_rel)))
        return pl.DataFrame({QUERY: ctx.queries, VALUE: values}, schema={QUERY: pl.Utf8, VALUE: pl.Float64})

    return per_query


def _rbp(ctx: Context, param: tuple) -> pl.DataFrame:
    """C/W/L RBP: C_i = p, binary gain (grade >= level); the ranking cut at k when k > 0.
    = (1 - p) / (1 - p^1000) sum_{i<=k} p^(i-1) g_i (Moffat & Zobel 2008; cwl_eval's RBPCWLMetric)."""
    p, k = param
    values = expected_utility(
        lambda gb: np.full(gb.shape, p), *gains(ctx, _binary(ctx.level), int(k) if k > 0 else None)
    )
    return pl.DataFrame({QUERY: ctx.queries, VALUE: values}, schema={QUERY: pl.Utf8, VALUE: pl.Float64})


def _rbp_graded(ctx: Context, param: tuple) -> pl.DataFrame:
    """RBP with the grade as gain: sum_{i<=k} (1 - p) p^(i-1) grade_i over the judged documents with grade
    > 0 (trectools' get_rbp, binary_topical_relevance=False; ir_measures' RBP without ``rel``); whole
    ranking when k = 0. Can exceed 1 (gains are not scaled)."""
    p, k = param
    top = ctx.top(int(k) if k > 0 else None).filter(pl.col(REL) > 0)
    weight = (1.0 - p) * pl.lit(p, dtype=pl.Float64).pow(pl.col(RANK) - 1) * pl.col(REL).cast(pl.Float64)
    got = top.group_by(QUERY).agg(weight.sum().alias(VALUE))
    q = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
    return q.join(got, on=QUERY, how="left", maintain_order="left").with_columns(pl.col(VALUE).fill_null(0.0))


def _check_rbp(param: tuple) -> None:
    p, k = param
    if not 0.0 <= p <= 1.0:
        raise UsageError("measure rbp: p must be in [0, 1]")
    if k < 0 or k != int(k):
        raise UsageError("measure rbp: k must be a whole number >= 0 (0: the whole ranking)")


for _name, (_, _names, _defaults, _doc, _source) in CONTINUATION.items():
    register(
        ExtraMeasure(
            f"cwl_{_name}",
            "ranking",
            f"C/W/L {_doc}; gain (grade - min_rel)/(max_rel - min_rel) (cwl_eval; ir_measures' {_name.upper()})",
            f"{_source}; {SOURCE}",
            _graded_measure(_name),
            params=VALUES,
            param_names=(*_names, "min_rel", "max_rel"),
            defaults=(*_defaults, 0.0, 1.0),
            validate=lambda param, n=_name: _check_range(f"cwl_{n}", param[-2], param[-1]),
        )
    )
register(
    ExtraMeasure(
        "cwl_rbp",
        "ranking",
        "C/W/L rank-biased precision, binary gain, ranking cut at k (0: whole) (cwl_eval; ir_measures' RBP(rel=))",
        f"Moffat & Zobel 2008; {SOURCE}",
        _rbp,
        params=VALUES,
        param_names=("p", "k"),
        defaults=(0.8, 0.0),
        validate=_check_rbp,
    )
)
register(
    ExtraMeasure(
        "rbp_graded",
        "ranking",
        "rank-biased precision with the grade as gain, to rank k (0: whole) (trectools; ir_measures' RBP)",
        "Moffat & Zobel 2008; trectools TrecEval.get_rbp (Palotti, Scells, Zuccon 2019)",
        _rbp_graded,
        params=VALUES,
        param_names=("p", "k"),
        defaults=(0.8, 0.0),
        validate=_check_rbp,
    )
)
