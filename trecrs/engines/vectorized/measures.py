"""trec_eval's measures over a :class:`~.rank.Ranked`, for all queries at once, to the last bit.

Each ``m_<name>`` mirrors trec_eval's ``m_<name>.c`` and returns one array per output value (one per
cutoff for the cutoff measures). Every floating-point value is computed with the operations trec_eval
performs, in the same order (sums accumulated sequentially per query, ``log2``/``log`` from the C library,
:mod:`.cmath`), so the per-query values are bitwise equal to pytrec_eval's. Comments give the C
expression where the order of the floating-point operations matters.

Measures covered: every measure of trec_eval's table (:data:`VECTOR_MEASURES`), with every parameter
form, gain parameters included (:mod:`.gains`); the discounted-gain family is in :mod:`.dcg`. Only ``utility`` with other than four coefficients is not
claimed (:func:`supports` says no): ``m_utility.c`` refuses it, and the pytrec_eval engine reports that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from ...measures.request import MeasureRequest, double_cutoffs, long_cutoffs
from ...measures.trec_eval import BY_NAME, DOUBLE_CUTOFFS, LONG_CUTOFFS
from ...schema import QUERY
from ...trec_eval_versions import TrecEvalVersion
from .cmath import c_div, c_log, segmented
from .dcg import m_binG, m_dcg, m_G, m_ideal_dcg, m_ndcg, m_ndcg_cut, m_ndcg_rel, m_Rndcg
from .gains import c_atof
from .rank import UNJUDGED, Ranked, Sparse

MIN_GEO_MEAN = 0.00001  # trec_eval.h
INFAP_EPSILON = 0.00001  # trec_eval.h


def _f(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _ap_prefix(r: Ranked) -> np.ndarray:
    """Running sum of rel_so_far / rank over the relevant rows (m_map.c), per query, sequential."""
    if "ap" not in r._cache:
        sp = r.relrows
        r._cache["prec_at_rel"] = c_div(sp.rank, sp.pos + 1)  # (double) rel_so_far / (double) (i + 1)
        r._cache["ap"] = segmented(r._cache["prec_at_rel"], sp.starts, sp.lens, "sum")
    return r._cache["ap"]


def _ap_sum_upto(r: Ranked, m: np.ndarray) -> np.ndarray:
    """AP numerator after the first ``m`` relevant rows of each query."""
    pref = _ap_prefix(r)
    sp = r.relrows
    out = np.zeros(r.S, dtype=np.float64)
    has = m > 0
    out[has] = pref[(sp.starts + m - 1)[has]]
    return out


def _ap(r: Ranked) -> np.ndarray:
    s = _ap_sum_upto(r, r.relret)
    return np.where(r.relret > 0, c_div(s, r.num_rel), 0.0)


def m_num_q(r: Ranked, p):
    return [np.ones(r.S)]


def m_num_ret(r: Ranked, p):
    return [_f(r.lens)]


def m_num_rel(r: Ranked, p):
    return [_f(r.num_rel)]


def m_num_rel_ret(r: Ranked, p):
    return [_f(r.num_rel_ret)]


def m_num_nonrel_judged_ret(r: Ranked, p):
    # num_ret - num_nonpool - num_unjudged_in_pool - num_rel_ret
    return [_f(r.num_judged_ret - r.num_rel_ret)]


def m_map(r: Ranked, p):
    return [_ap(r)]


def m_gm_map(r: Ranked, p):
    return [c_log(np.maximum(_ap(r), MIN_GEO_MEAN))]


def m_yaap(r: Ranked, p):
    # m_yaap.c: log ((1.0 + sum) / (1.0 + (double) num_rel - sum)), sum = map's numerator
    s = _ap_sum_upto(r, r.relret)
    return [c_log(c_div(1.0 + s, (1.0 + _f(r.num_rel)) - s))]


def m_map_cut(r: Ranked, p):
    out = []
    for k in long_cutoffs("map_cut", p):
        s = _ap_sum_upto(r, r.count_at(k))
        out.append(np.where(r.num_rel > 0, c_div(s, r.num_rel), 0.0))
    return out


def m_Rprec(r: Ranked, p):
    m = np.minimum(r.lens, r.num_rel)
    return [np.where(m > 0, c_div(r.count_at(m), r.num_rel), 0.0)]


def m_recip_rank(r: Ranked, p):
    sp = r.relrows
    out = np.zeros(r.S, dtype=np.float64)
    has = sp.lens > 0
    out[has] = c_div(1.0, sp.pos[sp.starts[has]] + 1)
    return [out]


def m_P(r: Ranked, p):
    return [c_div(r.count_at(k), k) for k in long_cutoffs("P", p)]


def m_recall(r: Ranked, p):
    return [np.where(r.num_rel > 0, c_div(r.count_at(k), r.num_rel), 0.0) for k in long_cutoffs("recall", p)]


def m_success(r: Ranked, p):
    return [(r.count_at(k) > 0).astype(np.float64) for k in long_cutoffs("success", p)]


def m_relative_P(r: Ranked, p):
    return [
        np.where(r.num_rel > 0, c_div(r.count_at(k), np.minimum(k, r.num_rel)), 0.0)
        for k in long_cutoffs("relative_P", p)
    ]


def _bpref(r: Ranked) -> np.ndarray:
    """m_bpref.c: for each judged relevant row, 1 - min(nonrel above, R) / min(num_nonrel, R)."""
    sp = r.judgedrelrows
    nsf = sp.before(r.nonrelrows)
    R = r.num_rel[sp.seg]
    NN = r.num_nonrel[sp.seg]
    contrib = np.where(nsf > 0, 1.0 - c_div(np.minimum(nsf, R), np.minimum(NN, R)), 1.0)
    s = r.seq_sum(sp, contrib)
    return np.where(r.num_rel > 0, c_div(s, r.num_rel), s)


def m_bpref(r: Ranked, p):
    return [_bpref(r)]


def m_gm_bpref(r: Ranked, p):
    return [c_log(np.maximum(_bpref(r), MIN_GEO_MEAN))]


def m_infAP(r: Ranked, p):
    """m_infap.c (Yilmaz & Aslam 2006), with trec_eval's operation order."""
    sp = r.judgedrelrows
    nsf = sp.before(r.nonrelrows)
    pusf = sp.before(Sparse.of(r, r.rel == UNJUDGED))
    rsf = sp.rank
    fj = _f(sp.pos)
    with np.errstate(divide="ignore", invalid="ignore"):
        # 1.0/(fj+1.0) + (fj/(fj+1.0)) * ((rsf-1+nsf+pusf)/fj) * ((rsf-1+EPS)/(rsf-1+nsf+2*EPS))
        t = (fj / (fj + 1.0)) * (_f(rsf - 1 + nsf + pusf) / fj)
        t = t * ((_f(rsf - 1) + INFAP_EPSILON) / (_f(rsf - 1 + nsf) + 2 * INFAP_EPSILON))
        contrib = np.where(sp.pos == 0, 1.0, 1.0 / (fj + 1.0) + t)
    s = r.seq_sum(sp, contrib)
    return [np.where(r.num_rel > 0, c_div(s, r.num_rel), s)]


def _iprec_values(
    r: Ranked, points: list[float], version: TrecEvalVersion
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """m_iprec_at_recall.c: interpolated precision at each recall point, and the point's rank cutoff
    (the version's :attr:`~trecrs.trec_eval_versions.TrecEvalVersion.recall_cutoff`)."""
    r = r.counted_down()
    _ap_prefix(r)
    sp = r.relrows
    sufmax = segmented(r._cache["prec_at_rel"], sp.starts, sp.lens, "revmax")
    nrr = r.num_rel_ret
    # int_precis when the loop stops above the first relevant doc: max over all relevant ranks, or
    # num_rel_ret / num_ret (0, or nan for an empty ranking) when nothing relevant was retrieved
    final = c_div(nrr, r.lens)
    has = sp.lens > 0
    final[has] = sufmax[sp.starts[has]]
    values, cuts = [], []
    for pt in points:
        cut = version.recall_cutoff(pt * _f(r.num_rel))  # 9.0.8: (long) (x + 0.9); 10.0: lround(x)
        v = np.zeros(r.S, dtype=np.float64)
        mid = (cut >= 1) & (cut <= nrr)
        v[mid] = sufmax[(sp.starts + cut - 1)[mid]]
        zero = (
            cut <= 0
        )  # a cutoff below 1 never equals rel_so_far: the loop's final value (10.0's lround of a negative point)
        v[zero] = final[zero]
        values.append(v)
        cuts.append(cut)
    return values, cuts


def m_iprec_at_recall(r: Ranked, p, version: TrecEvalVersion):
    return _iprec_values(r, double_cutoffs("iprec_at_recall", p), version)[0]


_ELEVEN_POINTS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


def m_11pt_avg(r: Ranked, p, version: TrecEvalVersion):
    """m_11pt_avg.c: sum of the interpolated precisions at the recall points, over the number of points.

    The points are kept as typed (``get_float_params``: not sorted) and visited from the last one down:
    trailing points whose cutoff exceeds num_rel_ret add nothing; then a point adds the interpolated
    precision at its cutoff while cutoffs do not increase and stay >= 1; from the first one that does,
    every point left adds the precision interpolated over the whole ranking (the loop's final value).
    """
    points = _ELEVEN_POINTS if p is None else [c_atof(x) for x in p.split(",")]
    values, cuts = _iprec_values(r, points, version)
    final = _iprec_values(r, [0.0], version)[0][0]  # a cutoff of 0 reads the loop's final value
    nrr = r.num_rel_ret
    acc = np.zeros(r.S, dtype=np.float64)
    started = np.zeros(r.S, dtype=bool)
    blocked = np.zeros(r.S, dtype=bool)
    last = nrr.copy()  # the cutoff matched last: later ones match only at or below it
    for v, cut in zip(reversed(values), reversed(cuts), strict=True):
        started |= cut <= nrr
        match = started & ~blocked & (cut >= 1) & (cut <= last)
        blocked |= started & ~match
        acc = np.where(match, acc + v, acc)
        acc = np.where(blocked, acc + final, acc)
        last = np.where(match, cut, last)
    return [acc / float(len(points))]


def m_Rprec_mult(r: Ranked, p):
    r = r.counted_down()
    out = []
    for pt in double_cutoffs("Rprec_mult", p):
        cut = (pt * _f(r.num_rel) + 0.9).astype(np.int64)
        inside = c_div(r.count_at(cut), cut)  # rel_so_far / i at i == cutoff
        beyond = c_div(r.num_rel_ret, cut)  # num_rel_ret / cutoff when cutoff > num_ret
        out.append(
            np.where(cut <= 0, 0.0, np.where(cut > r.lens, beyond, inside))
        )  # i == cutoff never holds below 1
    return out


def m_set_P(r: Ranked, p):
    return [np.where(r.lens > 0, c_div(r.num_rel_ret, r.lens), 0.0)]


def m_set_recall(r: Ranked, p):
    return [np.where(r.num_rel > 0, c_div(r.num_rel_ret, r.num_rel), 0.0)]


def m_set_relative_P(r: Ranked, p):
    ok = (r.lens > 0) & (r.num_rel > 0)
    return [np.where(ok, c_div(r.num_rel_ret, np.minimum(r.lens, r.num_rel)), 0.0)]


def m_set_map(r: Ranked, p):
    ok = (r.lens > 0) & (r.num_rel > 0)
    nrr = _f(r.num_rel_ret)
    return [np.where(ok, c_div(nrr * nrr, _f(r.lens) * _f(r.num_rel)), 0.0)]


def m_set_F(r: Ranked, p):
    x = 1.0 if p is None else c_atof(p.split(",")[0])  # m_set_F.c reads params[0] only
    P = c_div(r.num_rel_ret, r.lens)
    R = c_div(r.num_rel_ret, r.num_rel)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (x + 1.0) * P * R / (x * P + R)
    return [np.where(r.num_rel_ret > 0, v, 0.0)]


def m_utility(r: Ranked, p, num_docs_in_coll: int = 0):
    a, b, c, d = (1.0, -1.0, 0.0, 0.0) if p is None else (c_atof(x) for x in p.split(","))
    nrr, n, R = r.num_rel_ret, r.lens, r.num_rel
    # params[0]*a + params[1]*b + params[2]*c + params[3]*(num_docs_in_coll (-N, default 0) + nrr - n - R),
    # the last sum in C longs (int64, wrapping as they do)
    rest = np.int64(num_docs_in_coll) + (nrr - n - R).astype(np.int64)
    return [a * _f(nrr) + b * _f(n - nrr) + c * _f(R - nrr) + d * _f(rest)]


RBP_P = 0.9  # m_rbp.c, m_rbp_resid.c: default persistence


def _rbp_p(p: str | None) -> float:
    """The persistence of ``rbp``/``rbp_resid``: the value of the last ``p=`` pair, else 0.9 (m_rbp.c,
    m_rbp_resid.c scan every pair with ``strcmp(name, "p")``; values are read with atof)."""
    persistence = RBP_P
    for pair in [] if p is None else p.split(","):
        name, _, value = pair.partition("=")
        if name == "p":
            persistence = c_atof(value)
    return persistence


def _valid_int(text: str) -> bool:
    """gain_init.c ``valid_int`` (10.0): an optional sign, then one or more digits."""
    digits = text[1:] if text[:1] in "+-" else text
    return digits.isascii() and digits.isdigit()


def _rbp_params(p: str | None) -> bool:
    """rbp's parameters the vectorized engine reproduces: ``p=``, and names that are not integers (both
    m_rbp.c and setup_gains ignore those). A level=gain pair would feed gains that m_rbp.c normalises with
    uninitialised min/max, so its value depends on leftover memory: declined."""
    return p is None or not any(_valid_int(pair.partition("=")[0]) for pair in p.split(","))


def _powers(r: Ranked, persistence: float = RBP_P) -> np.ndarray:
    """p**i for every rank i up to the longest ranking, as ``cur_p = cur_p * p`` computes it (sequential)."""
    n = int(r.lens.max()) + 1 if r.S else 1
    steps = np.full(n, persistence)
    steps[0] = 1.0
    return np.cumprod(steps)


def m_rbp(r: Ranked, p):
    """m_rbp.c (10.0): (1 - p) * sum of gain(rel_i) * p**i, gains = rel levels, scaled by the query's
    largest level when it exceeds 1 (m_rbp.c leaves min/max uninitialised; trecrs takes the gains')."""
    g = r.gainrows
    top = np.zeros(r.S, dtype=np.float64)
    has = r.ideal_lens > 0
    top[has] = r.ideal[r.ideal_starts[:-1][has]]  # largest judged level (ideal gains are descending)
    gain = r.rel[g.idx].astype(np.float64)
    scale = top[g.seg]
    gain = np.where(scale > 1, gain / np.where(scale > 1, scale, 1.0), gain)  # (gain - 0) / (max - 0)
    persistence = _rbp_p(p)
    s = r.seq_sum(g, gain * _powers(r, persistence)[g.pos])  # sum += gain * cur_p
    return [(1.0 - persistence) * s]


def m_rbp_resid(r: Ranked, p):
    """m_rbp_resid.c (10.0): p**num_ret + (1 - p) * sum of p**i over unjudged ranks; 0 when none."""
    u = Sparse.of(r, r.rel < 0)
    persistence = _rbp_p(p)
    powers = _powers(r, persistence)
    s = r.seq_sum(u, powers[u.pos])
    return [np.where(u.lens > 0, powers[r.lens] + (1.0 - persistence) * s, 0.0)]


def m_unj(r: Ranked, p):
    """m_unjudged.c (10.0): unjudged (rel < 0) documents among the first k, divided by k."""
    u = Sparse.of(r, r.rel < 0)
    return [c_div(u.count_at(k), np.full(r.S, float(k))) for k in long_cutoffs("unj", p)]


# --------------------------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class VectorMeasure:
    """A trec_eval measure the vectorized engine computes: its function and which parameters it takes."""

    name: str
    compute: Callable[..., list[np.ndarray]]  # (ranked, params, *context(request))
    accepts: Callable[[str | None], bool] = lambda p: True
    # what else the measure reads from the request: the trec_eval version where its rule differs between
    # versions (trecrs.trec_eval_versions), -N for utility
    context: Callable[[MeasureRequest], tuple] = lambda request: ()


VECTOR_MEASURES: dict[str, VectorMeasure] = {}


def register_vector_measure(measure: VectorMeasure) -> VectorMeasure:
    """Add a measure to the vectorized engine (its name must be a trec_eval measure name)."""
    if measure.name not in BY_NAME:
        raise ValueError(f"{measure.name!r} is not a trec_eval measure")
    VECTOR_MEASURES[measure.name] = measure
    return measure


def _no_params(p: str | None) -> bool:
    return p is None


def _n_values(n: int) -> Callable[[str | None], bool]:
    """Exactly ``n`` parameters: m_utility.c refuses any other number (the pytrec_eval engine reports it)."""
    return lambda p: p is None or len(p.split(",")) == n


_CONTEXT = {
    "iprec_at_recall": lambda request: (request.version,),
    "11pt_avg": lambda request: (request.version,),
    "utility": lambda request: (request.num_docs_in_coll,),
}
for _name, _fn, _accepts in (
    ("num_q", m_num_q, None),
    ("num_ret", m_num_ret, None),
    ("num_rel", m_num_rel, None),
    ("num_rel_ret", m_num_rel_ret, None),
    ("map", m_map, None),
    ("gm_map", m_gm_map, None),
    ("Rprec", m_Rprec, None),
    ("bpref", m_bpref, None),
    ("recip_rank", m_recip_rank, None),
    ("iprec_at_recall", m_iprec_at_recall, None),
    ("P", m_P, None),
    ("recall", m_recall, None),
    ("infAP", m_infAP, None),
    ("gm_bpref", m_gm_bpref, None),
    ("Rprec_mult", m_Rprec_mult, None),
    ("utility", m_utility, _n_values(4)),
    ("11pt_avg", m_11pt_avg, None),
    ("binG", m_binG, None),
    ("G", m_G, None),
    ("ndcg", m_ndcg, None),
    ("ndcg_rel", m_ndcg_rel, None),
    ("Rndcg", m_Rndcg, None),
    ("ndcg_cut", m_ndcg_cut, None),
    ("map_cut", m_map_cut, None),
    ("relative_P", m_relative_P, None),
    ("success", m_success, None),
    ("set_P", m_set_P, None),
    ("set_relative_P", m_set_relative_P, None),
    ("set_recall", m_set_recall, None),
    ("set_map", m_set_map, None),
    ("set_F", m_set_F, None),
    ("num_nonrel_judged_ret", m_num_nonrel_judged_ret, None),
    ("dcg", m_dcg, _no_params),
    ("ideal_dcg", m_ideal_dcg, _no_params),
    ("rbp", m_rbp, _rbp_params),
    ("rbp_resid", m_rbp_resid, None),
    ("unj", m_unj, None),
    ("yaap", m_yaap, None),
):
    register_vector_measure(
        VectorMeasure(_name, _fn, _accepts or (lambda p: True), _CONTEXT.get(_name, lambda r: ()))
    )


HANDLED_ELSEWHERE = ("runid", "relstring")  # text, not numbers: the run tag and relstrings()


def output_names(request: MeasureRequest, base: str) -> list[str]:
    """The per-query column names an engine returns for ``base``, as pytrec_eval names them.

    Cutoff measures get one column per cutoff (``P_10``, ``iprec_at_recall_0.10``); the others one column
    named after the measure, whatever its parameters (``set_F``, ``utility``).
    """
    if BY_NAME[base].params in (LONG_CUTOFFS, DOUBLE_CUTOFFS) and base != "11pt_avg":
        return request.output_names(base)
    return [base]


def supports(request: MeasureRequest) -> bool:
    """True when every requested measure (with its parameters) is computed exactly by this engine."""
    for base in request.names:
        if base in HANDLED_ELSEWHERE:
            continue
        m = VECTOR_MEASURES.get(base)
        if m is None or not m.accepts(request.params[base]):
            return False
    return True


def compute_ranked(r: Ranked, request: MeasureRequest) -> pl.DataFrame:
    """Per-query values (one row per query of ``r``, columns in trec_eval table order) from a :class:`Ranked`."""
    data: dict[str, object] = {QUERY: pl.Series(QUERY, r.queries, dtype=pl.Utf8)}
    for base in request.names:
        if base in HANDLED_ELSEWHERE:
            continue
        m = VECTOR_MEASURES[base]
        values = m.compute(r, request.params[base], *m.context(request))
        for name, v in zip(output_names(request, base), values, strict=True):
            data[name] = np.asarray(v, dtype=np.float64)
    return pl.DataFrame(data)
