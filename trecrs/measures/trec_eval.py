"""The trec_eval 9.x measure table: names, order, parameters, printing and averaging rules.

Pure data: this module says *what* is measured (the trec_eval definitions and their presentation, from
``measures.c`` and the ``m_*.c`` files); :mod:`trecrs.measures.request` turns ``-m`` arguments into a
request over this table, and engines (:mod:`trecrs.engines`) say *how* it is computed. The table order is
trec_eval's ``measures.c`` order, which is the order trec_eval prints in, whatever order ``-m`` gave.
:mod:`trecrs.measures.aliases` maps ir_measures-style names (``P@10``, ``nDCG@50``, ``AP``, ``RR``) to
the measure that computes the same number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..trec_eval_versions import TrecEvalVersion

# How a measure's per-query values become the summary value.
MEAN = "mean"  # arithmetic mean over queries (te_calc_avg_meas_s / _a_cut)
SUM = "sum"  # summed over queries (num_ret, num_rel, ...)
GEO = "geo"  # exp(mean(log(max(v, 1e-5)))): the engine returns the per-query log already
COUNT = "count"  # num_q: the number of queries averaged over
NONE = "none"  # runid, relstring: not averaged

# Parameter styles (meas_init.c).
NO_PARAMS = "none"
LONG_CUTOFFS = "long_cutoffs"  # sorted ascending, > 0, unique; names "%s_%ld"
DOUBLE_CUTOFFS = "double_cutoffs"  # sorted ascending, unique; names "%s_%3.2f"
DOUBLE_PARAMS = "double_params"  # kept as typed; name "%s_%s" with the printable params
PAIR_PARAMS = "pair_params"  # "rel=gain,..." kept as typed; name "%s_%s"

# Which way a measure improves (``better``): declared per measure, read by trecrs.measures.direction.better.
HIGHER = "higher"  # a higher value is a better system (precision, AP, nDCG ...)
LOWER = "lower"  # its definition says lower is better (error measures: MAE, RMSE; NDPM; fallout)
NEITHER = "neither"  # a count or a description, not a quality (num_ret, ideal_dcg, Gini, ARP)

_DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class TrecMeasure:
    """One row of trec_eval's measure table."""

    name: str
    aggregate: str = MEAN
    integer: bool = False  # printed with %ld
    per_query: bool = True  # printed for each query with -q
    params: str = NO_PARAMS
    defaults: tuple = ()
    doc: str = ""
    better: str = HIGHER  # HIGHER, LOWER or NEITHER
    rel_info: str | None = "qrels"  # the kind of relevance data it reads (trecrs.engines.rel_info); None: any


def _prefs(name: str, doc: str, aggregate: str = MEAN) -> TrecMeasure:
    """A preference measure (``-R prefs``/``qrels_prefs``); the counts are summed and printed as integers,
    and the number possible, like num_rel, is no quality of the run."""
    counts = aggregate == SUM
    better = NEITHER if name == "prefs_num_prefs_poss" else HIGHER
    return TrecMeasure(name, aggregate, integer=counts, doc=doc, rel_info="prefs", better=better)


_PREFS = (
    _prefs("prefs_num_prefs_poss", "Preferences possible (all groups; summary: sum).", SUM),
    _prefs("prefs_num_prefs_ful", "Preferences fulfilled, one or both docs retrieved (summary: sum).", SUM),
    _prefs("prefs_num_prefs_ful_ret", "Preferences fulfilled with both docs retrieved (summary: sum).", SUM),
    _prefs("prefs_simp", "Fulfilled / possible preferences; neither doc retrieved is a failure."),
    _prefs("prefs_pair", "Mean over doc pairs of the share of their preferences fulfilled."),
    _prefs("prefs_avgjg", "prefs_simp of each judgment group, averaged over groups."),
    _prefs("prefs_avgjg_Rnonrel", "prefs_avgjg with each group's nonrelevant docs counted as R docs."),
    _prefs("prefs_simp_ret", "prefs_simp over pairs with both docs retrieved."),
    _prefs("prefs_pair_ret", "prefs_pair over pairs with both docs retrieved."),
    _prefs("prefs_avgjg_ret", "prefs_avgjg over pairs with both docs retrieved."),
    _prefs("prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel over retrieved docs (R = relevant retrieved)."),
    _prefs("prefs_simp_imp", "prefs_simp over pairs with at least one doc retrieved."),
    _prefs("prefs_pair_imp", "prefs_pair over pairs with at least one doc retrieved."),
    _prefs("prefs_avgjg_imp", "prefs_avgjg over pairs with at least one doc retrieved."),
)

# trec_eval measures.c order: 9.x's (the version embedded in pytrec_eval) with 10.0's additions in place;
# which entries a version has is trecrs.trec_eval_versions.TrecEvalVersion.has_measure.
TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure(
        "runid",
        NONE,
        per_query=False,
        doc="Run tag of the results file (its last line's).",
        better=NEITHER,
        rel_info=None,
    ),
    TrecMeasure(
        "num_q",
        COUNT,
        integer=True,
        per_query=False,
        doc="Number of queries averaged over.",
        better=NEITHER,
        rel_info=None,
    ),
    TrecMeasure("num_ret", SUM, integer=True, doc="Number of documents retrieved.", better=NEITHER),
    TrecMeasure(
        "num_rel", SUM, integer=True, doc="Number of relevant documents (rel >= level).", better=NEITHER
    ),
    TrecMeasure("num_rel_ret", SUM, integer=True, doc="Number of relevant documents retrieved."),
    TrecMeasure("map", doc="Mean average precision: sum of P@rank at relevant ranks / num_rel."),
    TrecMeasure("gm_map", GEO, per_query=False, doc="Geometric mean of AP, floor 1e-5."),
    TrecMeasure("Rprec", doc="Precision after num_rel documents retrieved."),
    TrecMeasure("bpref", doc="Binary preference (Buckley & Voorhees 2004)."),
    TrecMeasure("recip_rank", doc="Reciprocal rank of the first relevant document."),
    TrecMeasure(
        "iprec_at_recall",
        params=DOUBLE_CUTOFFS,
        defaults=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
        doc="Interpolated precision at recall levels.",
    ),
    TrecMeasure("P", params=LONG_CUTOFFS, defaults=_DEFAULT_CUTOFFS, doc="Precision at cutoffs."),
    TrecMeasure(
        "relstring",
        NONE,
        params=DOUBLE_PARAMS,
        doc="Relevance values of the first N (10) docs.",
        better=NEITHER,
    ),
    TrecMeasure("recall", params=LONG_CUTOFFS, defaults=_DEFAULT_CUTOFFS, doc="Recall at cutoffs."),
    TrecMeasure("infAP", doc="Inferred AP (Yilmaz & Aslam 2006); rel -1 = pooled but unjudged."),
    TrecMeasure("gm_bpref", GEO, per_query=False, doc="Geometric mean of bpref, floor 1e-5."),
    TrecMeasure(
        "Rprec_mult",
        params=DOUBLE_CUTOFFS,
        defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
        doc="Precision after num_rel * x documents.",
    ),
    TrecMeasure(
        "utility", params=DOUBLE_PARAMS, doc="a*rel_ret + b*nonrel_ret + c*rel_nonret + d*nonrel_nonret."
    ),
    TrecMeasure("11pt_avg", params=DOUBLE_CUTOFFS, doc="Mean interpolated precision at 11 recall points."),
    TrecMeasure("binG", doc="Binary G (Kishida)."),
    TrecMeasure("G", params=PAIR_PARAMS, doc="Normalized cumulated gain G (Kishida)."),
    TrecMeasure("dcg", params=PAIR_PARAMS, doc="DCG of the ranking, ndcg's numerator (trec_eval 10.0)."),
    TrecMeasure(
        "ideal_dcg",
        params=PAIR_PARAMS,
        doc="DCG of the ideal ranking, ndcg's denominator (10.0).",
        better=NEITHER,
    ),
    TrecMeasure("ndcg", params=PAIR_PARAMS, doc="nDCG over the whole ranking, gain = rel, 1/log2(r+1)."),
    TrecMeasure("ndcg_rel", params=PAIR_PARAMS, doc="nDCG averaged over relevant documents."),
    TrecMeasure("Rndcg", params=PAIR_PARAMS, doc="nDCG at num_rel."),
    TrecMeasure("ndcg_cut", params=LONG_CUTOFFS, defaults=_DEFAULT_CUTOFFS, doc="nDCG at cutoffs."),
    TrecMeasure("map_cut", params=LONG_CUTOFFS, defaults=_DEFAULT_CUTOFFS, doc="AP at cutoffs."),
    TrecMeasure("relative_P", params=LONG_CUTOFFS, defaults=_DEFAULT_CUTOFFS, doc="P@k / min(1, num_rel/k)."),
    TrecMeasure(
        "success", params=LONG_CUTOFFS, defaults=(1, 5, 10), doc="1 if a relevant doc is in the top k."
    ),
    TrecMeasure("set_P", doc="Precision of the whole retrieved set."),
    TrecMeasure("set_relative_P", doc="set_P relative to the best possible."),
    TrecMeasure("set_recall", doc="Recall of the whole retrieved set."),
    TrecMeasure("set_map", doc="set_P * set_recall."),
    TrecMeasure("set_F", params=DOUBLE_PARAMS, doc="F-measure of the retrieved set (beta=1 by default)."),
    TrecMeasure(
        "num_nonrel_judged_ret",
        SUM,
        integer=True,
        doc="Judged non-relevant documents retrieved.",
        better=NEITHER,
    ),
    # preferences (-R prefs / qrels_prefs; m_prefs_*.c): "ful" fulfilled, "poss" possible; _ret both docs
    # retrieved, _imp at least one, plain: a pair with neither retrieved counts as a failure
    *_PREFS,
    # judgment groups (-R qrels_jg; m_*_avgjg.c): the qrels measure of each group, averaged over groups
    TrecMeasure(
        "map_avgjg", doc="map of each judgment group, averaged over the groups.", rel_info="qrels_jg"
    ),
    TrecMeasure(
        "P_avgjg",
        params=LONG_CUTOFFS,
        defaults=_DEFAULT_CUTOFFS,
        rel_info="qrels_jg",
        doc="P at cutoffs of each judgment group, averaged over the groups.",
    ),
    TrecMeasure(
        "Rprec_mult_avgjg",
        params=DOUBLE_CUTOFFS,
        defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
        rel_info="qrels_jg",
        doc="Rprec_mult of each judgment group ((long)(x*R+0.9)), averaged over groups.",
    ),
    TrecMeasure(
        "yaap",
        doc="Yet Another Average Precision: log((1 + S) / (1 + num_rel - S)), S = map's sum "
        "of precisions at the relevant retrieved docs (Robertson, ECIR 2012); in no nickname.",
    ),
    # trec_eval 10.0 only (trecrs.trec_eval_versions)
    TrecMeasure("rbp", params=PAIR_PARAMS, doc="Rank-biased precision, p = 0.9 (Moffat & Zobel; 10.0)."),
    TrecMeasure(
        "rbp_resid",
        params=PAIR_PARAMS,
        doc="RBP residual: the most unjudged docs could add (10.0).",
        better=NEITHER,
    ),
    TrecMeasure(
        "unj",
        params=LONG_CUTOFFS,
        defaults=(5, 10, 20),
        doc="Fraction of unjudged docs at cutoffs (10.0).",
        better=NEITHER,
    ),
)

BY_NAME: dict[str, TrecMeasure] = {m.name: m for m in TREC_MEASURES}
ORDER: dict[str, int] = {m.name: i for i, m in enumerate(TREC_MEASURES)}

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P",
    ),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "utility",
        "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
        "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
        "num_nonrel_judged_ret",
    ),
    "all_prefs": ("runid", "num_q", *(m.name for m in _PREFS)),
    "prefs": ("runid", "num_q", *(m.name for m in _PREFS[:6])),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}  # fmt: skip


def nicknames(version: TrecEvalVersion) -> dict[str, tuple[str, ...]]:
    """The nicknames of one trec_eval version: 9.x's, ``all_trec`` extended by the version (measures.c)."""
    out = dict(NICKNAMES)
    out["all_trec"] = NICKNAMES["all_trec"] + version.all_trec_added
    return out


def format_value(measure: str, value: float) -> str:
    """Format a value the way trec_eval prints it: ``%ld`` for counts, ``%6.4f`` otherwise; NaN as glibc's
    ``%6.4f`` prints it, with its sign (``  -nan`` for the NaN of 0/0 on x86-64, as trec_eval prints)."""
    base = base_of(measure)
    if base is not None and BY_NAME[base].integer:
        return "%d" % int(value)
    return format_float(value)


def format_float(value: float) -> str:
    """``%6.4f`` as glibc's printf prints it, NaN with its sign (Python's ``%`` drops a NaN's sign bit)."""
    if math.isnan(value):
        return "%6s" % ("-nan" if math.copysign(1.0, value) < 0 else "nan")
    return "%6.4f" % value


def printed_per_query(output_name: str) -> bool:
    """Whether trec_eval prints ``output_name`` for each query with ``-q`` (not runid, num_q, gm_*);
    names outside the table (recommender measures) are printed per query."""
    base = base_of(output_name)
    return base is None or BY_NAME[base].per_query


def base_of(output_name: str) -> str | None:
    """The table entry an output name belongs to (``P_10`` -> ``P``), or None."""
    if output_name in BY_NAME:
        return output_name
    head = output_name
    while "_" in head:
        head = head.rsplit("_", 1)[0]
        if head in BY_NAME:
            return head
    return None
