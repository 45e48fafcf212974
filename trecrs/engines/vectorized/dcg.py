"""The discounted-gain measures over a :class:`~.rank.Ranked`: ``ndcg``, ``ndcg_cut``, ``ndcg_rel``,
``Rndcg``, ``dcg`` and ``ideal_dcg`` (10.0), ``G`` and ``binG``, each mirroring its ``m_<name>.c``.

Default gains are the relevance values; ``rel=gain`` parameters go through :func:`.gains.gain_view`. As in
:mod:`.measures`, every floating-point value is computed with trec_eval's operations in its order (sums
sequential per query, ``log2`` from the C library), so the values are bitwise trec_eval's.
"""

from __future__ import annotations

import numpy as np

from ...measures.request import long_cutoffs
from .cmath import c_div, c_log2, c_log2_real, segmented
from .gains import GainRanked, gain_view
from .rank import Ranked


def _f(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def m_binG(r: Ranked, p):
    sp = r.relrows
    contrib = c_div(1.0, c_log2(3 + sp.pos - sp.rank))  # 1.0 / log2(3 + i - rel_so_far)
    s = r.seq_sum(sp, contrib)
    return [np.where(r.relret > 0, c_div(s, r.num_rel), 0.0)]


def _dcg_total(r: Ranked) -> np.ndarray:
    return r.dcg_upto(r.gainrows.lens)


def _gains(r: Ranked, p: str | None) -> Ranked:
    """``r`` itself for the default gains (the relevance values), else its :func:`.gains.gain_view`."""
    if p is None:
        return r
    return _gain_view(r, p)


def _gain_view(r: Ranked, p: str) -> GainRanked:
    """``r``'s :func:`.gains.gain_view` for the parameters ``p``, kept in its cache."""
    key = ("gains", p)
    if key not in r._cache:
        r._cache[key] = gain_view(r, p)
    return r._cache[key]


def m_ndcg(r: Ranked, p):
    """m_ndcg.c: DCG (gain / log2(rank + 1) over the non-zero gains) over the ideal DCG, 0 without one."""
    r = _gains(r, p)
    rd = _dcg_total(r)
    idg = r.ideal_at(r.ideal_lens)
    return [np.where(idg > 0, c_div(rd, idg), 0.0)]


def m_dcg(r: Ranked, p):
    """m_ndcg.c (10.0): the ranking's DCG, ndcg's numerator."""
    return [_dcg_total(r)]


def m_ideal_dcg(r: Ranked, p):
    """m_ndcg.c (10.0): the ideal ranking's DCG, ndcg's denominator."""
    return [r.ideal_at(r.ideal_lens)]


def m_ndcg_cut(r: Ranked, p):
    out = []
    for k in long_cutoffs("ndcg_cut", p):
        dcg = r.dcg_upto(r.gainrows.count_at(k))
        idg = r.ideal_at(np.full(r.S, k, dtype=np.int64))
        out.append(np.where(idg > 0, c_div(dcg, idg), dcg))
    return out


def m_ndcg_rel(r: Ranked, p):
    """m_ndcg_rel.c: nDCG averaged over the relevant (gain > 0) documents, unretrieved ones at the end."""
    r = _gains(r, p)
    g = r.posrows
    rd_rows = r.dcg_prefix if g is r.gainrows else r.dcg_prefix[np.searchsorted(r.gainrows.idx, g.idx)]
    m = np.minimum(g.pos + 1, r.ideal_lens[g.seg])  # ideal positions summed so far (none: ideal_dcg 0)
    id_rows = np.zeros(g.idx.size, dtype=np.float64)
    id_rows[m > 0] = r.ideal_prefix[(r.ideal_starts[:-1][g.seg] + m - 1)[m > 0]]
    s = r.seq_sum(g, c_div(rd_rows, id_rows))
    rd = _dcg_total(r)
    idg = r.ideal_at(r.ideal_lens)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = s + (_f(r.ideal_lens - g.lens) * rd) / idg  # sum += (num_rel - num_rel_ret) * dcg / ideal
        return [np.where(s > 0.0, s / _f(r.ideal_lens), 0.0)]


def m_Rndcg(r: Ranked, p):
    """m_Rndcg.c: nDCG averaged at the ranks where the ideal gain changes, plus once at num_ret."""
    r = _gains(r, p)
    S = r.S
    ist = r.ideal_starts[:-1]
    # boundaries b (number of ideal positions before a change of gain), within and at the end of the list
    j = np.arange(r.ideal.size, dtype=np.int64)
    seg_j = np.repeat(np.arange(S, dtype=np.int64), r.ideal_lens)
    inner = np.flatnonzero((j > ist[seg_j]) & (r.ideal != np.roll(r.ideal, 1)))
    b_seg = np.concatenate([seg_j[inner], np.flatnonzero(r.ideal_lens > 0)])
    b_pos = np.concatenate([inner - ist[seg_j[inner]], r.ideal_lens[r.ideal_lens > 0]])
    o = np.lexsort((b_pos, b_seg))
    b_seg, b_pos = b_seg[o], b_pos[o]
    m = np.minimum(b_pos, r.lens[b_seg])
    rd_b = r.dcg_at_rows(b_seg, m)
    id_b = r.ideal_prefix[ist[b_seg] + b_pos - 1]
    nb = np.bincount(b_seg, minlength=S)
    bstarts = np.cumsum(nb) - nb
    s = np.zeros(S, dtype=np.float64)
    pref = segmented(c_div(rd_b, id_b), bstarts, nb, "sum")
    has = nb > 0
    s[has] = pref[(bstarts + nb - 1)[has]]
    final = (r.ideal_lens >= 1) & (r.ideal_lens + 1 < r.lens)
    rd = _dcg_total(r)
    idg = r.ideal_at(r.ideal_lens)
    s = np.where(final, s + c_div(rd, idg), s)
    count = nb + final
    return [np.where(r.num_rel > 0, c_div(s, count), 0.0)]


def m_G(r: Ranked, p):
    """m_G.c (default gains): each gain / log2(2 + ideal cost so far - gain so far), over the ideal total."""
    if p is not None:
        return _G_params(_gain_view(r, p))
    g = r.gainrows
    gains = r.rel[g.idx]
    gcs = np.cumsum(gains)  # integer running gain over the gain rows (other rows add 0): exact
    gstart_cum = np.zeros(r.S, dtype=np.int64)
    has = g.lens > 0
    gstart_cum[has] = gcs[g.starts[has]] - gains[g.starts[has]]
    sum_results = gcs - np.repeat(gstart_cum, g.lens)
    ideal_int = r.ideal.astype(np.int64)
    icum = np.cumsum(ideal_int)
    ist = r.ideal_starts[:-1]
    ibase = np.zeros(r.S, dtype=np.int64)
    ihas = r.ideal_lens > 0
    ibase[ihas] = icum[ist[ihas]] - ideal_int[ist[ihas]]
    Rp = r.ideal_lens[g.seg]
    m = np.minimum(g.pos + 1, Rp)
    ideal_m = (
        np.where(m > 0, icum[np.maximum(ist[g.seg] + m - 1, 0)] - ibase[g.seg], 0) if g.idx.size else gains
    )
    sum_cost = ideal_m + np.maximum(0, g.pos + 1 - Rp)
    contrib = c_div(gains, c_log2(2 + sum_cost - sum_results))
    s = r.seq_sum(g, contrib)
    total = np.zeros(r.S, dtype=np.int64)
    total[ihas] = icum[(ist + r.ideal_lens - 1)[ihas]] - ibase[ihas]
    return [np.where(total > 0, c_div(s, total), 0.0)]


def _G_params(r: GainRanked):
    """m_G.c with gain parameters: gains need not be integers, so the running sums are float sums.

    At rank i: sum_results += gain, sum_cost += max(ideal gain, min_cost 1.0) (1.0 past the ideal),
    results_g += gain / log2(2 + sum_cost - sum_results) for a non-zero gain; G = results_g / sum_ideal.
    """
    pos = np.arange(r.rel.size, dtype=np.int64) - np.repeat(r.first, r.lens)
    seg = np.repeat(np.arange(r.S, dtype=np.int64), r.lens)
    inside = pos < r.ideal_lens[seg]
    cost = np.ones(r.rel.size, dtype=np.float64)
    cost[inside] = np.maximum(r.ideal[(r.ideal_starts[:-1][seg] + pos)[inside]], 1.0)
    sum_results = segmented(r.gain, r.first, r.lens, "sum")
    sum_cost = segmented(cost, r.first, r.lens, "sum")
    g = r.gainrows
    with np.errstate(divide="ignore", invalid="ignore"):
        contrib = r.gain[g.idx] / c_log2_real((2.0 + sum_cost[g.idx]) - sum_results[g.idx])
    results_g = r.seq_sum(g, contrib)
    ideal_sum = segmented(r.ideal, r.ideal_starts[:-1], r.ideal_lens, "sum")
    total = np.zeros(r.S, dtype=np.float64)
    has = r.ideal_lens > 0
    total[has] = ideal_sum[(r.ideal_starts[:-1] + r.ideal_lens - 1)[has]]
    return [np.where(total > 0.0, c_div(results_g, total), 0.0)]
