"""The trec_eval 9.x measure table: names, order, parameters, printing and averaging rules.

This module says *what* is measured (the trec_eval definitions and their presentation); engines
(:mod:`trecrs.scoring.engines`) say *how* it is computed. The table order is trec_eval's ``measures.c``
order, which is the order trec_eval prints in, whatever order ``-m`` gave.

Request syntax, as trec_eval's ``-m``: ``name`` or ``name.params`` (``P.5,10``, ``ndcg_cut.50``,
``iprec_at_recall.0.5``); the nicknames ``official``, ``set`` and ``all_trec``; also the underscore form
``P_10``. trecrs also accepts ir_measures-style names (``P@10``, ``nDCG@50``, ``R@50``, ``AP``, ``RR``,
``Success@10``), translated to the trec_eval measure that computes the same number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import UsageError

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


# trec_eval 9.x measures.c order (the version embedded in pytrec_eval).
TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", NONE, per_query=False, doc="Run tag of the results file (its last line's)."),
    TrecMeasure("num_q", COUNT, integer=True, per_query=False, doc="Number of queries averaged over."),
    TrecMeasure("num_ret", SUM, integer=True, doc="Number of documents retrieved."),
    TrecMeasure("num_rel", SUM, integer=True, doc="Number of relevant documents (rel >= level)."),
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
    TrecMeasure("relstring", NONE, params=DOUBLE_PARAMS, doc="Relevance values of the first N (10) docs."),
    TrecMeasure("recall", params=LONG_CUTOFFS, defaults=_DEFAULT_CUTOFFS, doc="Recall at cutoffs."),
    TrecMeasure("infAP", doc="Inferred AP (Yilmaz & Aslam 2006); rel -1 = pooled but unjudged."),
    TrecMeasure("gm_bpref", GEO, per_query=False, doc="Geometric mean of bpref, floor 1e-5."),
    TrecMeasure(
        "Rprec_mult",
        params=DOUBLE_CUTOFFS,
        defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
        doc="Precision after num_rel * x documents.",
    ),
    TrecMeasure("utility", params=DOUBLE_PARAMS, doc="a*rel_ret + b*nonrel_ret + c*rel_nonret + d*nonrel_nonret."),
    TrecMeasure("11pt_avg", params=DOUBLE_CUTOFFS, doc="Mean interpolated precision at 11 recall points."),
    TrecMeasure("binG", doc="Binary G (Kishida)."),
    TrecMeasure("G", params=PAIR_PARAMS, doc="Normalized cumulated gain G (Kishida)."),
    TrecMeasure("ndcg", params=PAIR_PARAMS, doc="nDCG over the whole ranking, gain = rel, 1/log2(r+1)."),
    TrecMeasure("ndcg_rel", params=PAIR_PARAMS, doc="nDCG averaged over relevant documents."),
    TrecMeasure("Rndcg", params=PAIR_PARAMS, doc="nDCG at num_rel."),
    TrecMeasure("ndcg_cut", params=LONG_CUTOFFS, defaults=_DEFAULT_CUTOFFS, doc="nDCG at cutoffs."),
    TrecMeasure("map_cut", params=LONG_CUTOFFS, defaults=_DEFAULT_CUTOFFS, doc="AP at cutoffs."),
    TrecMeasure("relative_P", params=LONG_CUTOFFS, defaults=_DEFAULT_CUTOFFS, doc="P@k / min(1, num_rel/k)."),
    TrecMeasure("success", params=LONG_CUTOFFS, defaults=(1, 5, 10), doc="1 if a relevant doc is in the top k."),
    TrecMeasure("set_P", doc="Precision of the whole retrieved set."),
    TrecMeasure("set_relative_P", doc="set_P relative to the best possible."),
    TrecMeasure("set_recall", doc="Recall of the whole retrieved set."),
    TrecMeasure("set_map", doc="set_P * set_recall."),
    TrecMeasure("set_F", params=DOUBLE_PARAMS, doc="F-measure of the retrieved set (beta=1 by default)."),
    TrecMeasure("num_nonrel_judged_ret", SUM, integer=True, doc="Judged non-relevant documents retrieved."),
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
}  # fmt: skip

# ir_measures-style names -> trec_eval measure. "@k" becomes the cutoff parameter.
IR_ALIASES: dict[str, str] = {
    "p": "P",
    "r": "recall",
    "recall": "recall",
    "ndcg": "ndcg_cut",  # with @k; bare nDCG is handled below
    "ap": "map_cut",  # with @k; bare AP/MAP is map
    "success": "success",
    "rprec": "Rprec",
    "r-prec": "Rprec",
    "bpref": "bpref",
    "infap": "infAP",
    "rr": "recip_rank",
    "mrr": "recip_rank",
    "map": "map",
    "numq": "num_q",
    "numret": "num_ret",
    "numrel": "num_rel",
    "numrelret": "num_rel_ret",
    "iprec": "iprec_at_recall",
    "setp": "set_P",
    "setr": "set_recall",
    "setf": "set_F",
}
_BARE = {"ndcg": "ndcg", "ap": "map", "map": "map"}


@dataclass
class MeasureRequest:
    """The measures asked for: trec_eval base name -> parameter string (``None`` = defaults)."""

    params: dict[str, str | None] = field(default_factory=dict)
    extras: tuple[str, ...] = ()  # recommender-specific measures (trecrs.scoring.extras), as requested

    @property
    def names(self) -> list[str]:
        """Requested base names in trec_eval table order."""
        return sorted(self.params, key=ORDER.__getitem__)

    def engine_specs(self) -> list[str]:
        """The ``name[.params]`` strings trec_eval's ``-m`` takes, one per base measure."""
        return [n if self.params[n] is None else f"{n}.{self.params[n]}" for n in self.names]

    def output_names(self, base: str) -> list[str]:
        """The value names trec_eval prints for ``base`` (``P_5``, ``iprec_at_recall_0.10``, ...)."""
        m = BY_NAME[base]
        p = self.params[base]
        if m.params == LONG_CUTOFFS:
            vals = m.defaults if p is None else _long_cutoffs(base, p)
            return [f"{base}_{v}" for v in vals]
        if m.params == DOUBLE_CUTOFFS:
            if p is None:
                return [f"{base}_{v:3.2f}" for v in m.defaults] if m.defaults else [base]
            return [f"{base}_{v:3.2f}" for v in _double_cutoffs(base, p)]
        if m.params in (DOUBLE_PARAMS, PAIR_PARAMS) and p is not None:
            return [f"{base}_{p}"]
        return [base]


def _long_cutoffs(base: str, p: str) -> list[int]:
    try:
        vals = sorted(int(x) for x in p.split(","))
    except ValueError:
        raise UsageError(f"measure {base}.{p}: cutoffs must be integers") from None
    if vals[0] <= 0:
        raise UsageError(f"measure {base}.{p}: cutoffs must be positive")
    if len(set(vals)) != len(vals):
        raise UsageError(f"measure {base}.{p}: duplicate cutoffs")
    return vals


def _double_cutoffs(base: str, p: str) -> list[float]:
    try:
        vals = sorted(float(x) for x in p.split(","))
    except ValueError:
        raise UsageError(f"measure {base}.{p}: parameters must be numbers") from None
    if len(set(vals)) != len(vals):
        raise UsageError(f"measure {base}.{p}: duplicate cutoffs")
    return vals


_IR_RE = re.compile(r"^(?P<name>[A-Za-z_-]+?)(?:@(?P<k>[0-9]+(?:\.[0-9]+)?))?$")


def _ir_style(spec: str) -> tuple[str, str | None] | None:
    m = _IR_RE.match(spec)
    if not m:
        return None
    name, k = m.group("name").lower(), m.group("k")
    if k is None and name in _BARE:
        return _BARE[name], None
    if name not in IR_ALIASES:
        return None
    base = IR_ALIASES[name]
    if k is None and BY_NAME[base].params in (LONG_CUTOFFS, DOUBLE_CUTOFFS):
        return None  # e.g. "P" alone is trec_eval's P with default cutoffs; handled by the caller
    return base, k


def parse_measures(specs: list[str] | tuple[str, ...] | str | None) -> MeasureRequest:
    """Turn ``-m`` arguments into a :class:`MeasureRequest`, following trec_eval's rules.

    trec_eval keeps the *first* parameter list given for a measure (``-m P.5 -m P.10`` gives P_5 only);
    ir_measures-style names accumulate (``P@5 P@10`` gives P_5 and P_10). No request means ``official``.
    """
    if specs is None or specs == [] or specs == ():
        specs = ["official"]
    if isinstance(specs, str):
        specs = [specs]
    trec_params: dict[str, str | None] = {}
    ir_params: dict[str, list[str]] = {}
    extras: list[str] = []
    for raw in specs:
        spec = raw.strip()
        if not spec:
            raise UsageError("empty measure name")
        if spec in NICKNAMES:
            for n in NICKNAMES[spec]:
                trec_params.setdefault(n, None)
            continue
        base, _, p = spec.partition(".")
        if base in BY_NAME:
            if "." in spec and not p:
                raise UsageError(f"measure {spec!r}: empty parameter list")
            if base not in trec_params or trec_params[base] is None:
                if p:
                    _validate(base, p)
                    trec_params[base] = p
                else:
                    trec_params.setdefault(base, None)
            continue
        under = _underscore_form(spec)
        if under is not None:
            ir_params.setdefault(under[0], []).append(under[1])
            continue
        ir = _ir_style(spec)
        if ir is not None:
            b, k = ir
            if k is None:
                trec_params.setdefault(b, None)
            else:
                ir_params.setdefault(b, []).append(k)
            continue
        from .recsys.registry import parse_spec  # recommender-specific measures: names trec_eval lacks

        if parse_spec(spec) is not None:
            extras.append(spec)
            continue
        raise UsageError(f"unknown measure {raw!r} (see 'trecrs eval --list-measures')")
    for base, ks in ir_params.items():
        if base in trec_params:  # merge with P.5,10 or with the defaults of a bare P
            prior = trec_params[base]
            pieces = prior.split(",") if prior is not None else [str(d) for d in BY_NAME[base].defaults]
        else:
            pieces = []
        seen = {float(x) for x in pieces}
        for k in ks:
            if float(k) not in seen:
                pieces.append(k)
                seen.add(float(k))
        joined = ",".join(pieces)
        _validate(base, joined)
        trec_params[base] = joined
    return MeasureRequest(trec_params, tuple(extras))


def _underscore_form(spec: str) -> tuple[str, str] | None:
    """``P_10`` / ``ndcg_cut_50`` / ``iprec_at_recall_0.10`` -> (base, param)."""
    m = re.match(r"^(?P<base>.+?)_(?P<k>[0-9]+(?:\.[0-9]+)?)$", spec)
    if not m or m.group("base") not in BY_NAME:
        return None
    if BY_NAME[m.group("base")].params not in (LONG_CUTOFFS, DOUBLE_CUTOFFS):
        return None
    return m.group("base"), m.group("k")


def _validate(base: str, p: str) -> None:
    kind = BY_NAME[base].params
    if kind == NO_PARAMS:
        raise UsageError(f"measure {base} takes no parameters (got {base}.{p})")
    if kind == LONG_CUTOFFS:
        _long_cutoffs(base, p)
    elif kind == DOUBLE_CUTOFFS:
        _double_cutoffs(base, p)
    elif kind == DOUBLE_PARAMS:
        try:
            [float(x) for x in p.split(",")]
        except ValueError:
            raise UsageError(f"measure {base}.{p}: parameters must be numbers") from None
    elif kind == PAIR_PARAMS and not re.match(r"^[^=,]+=[^=,]+(,[^=,]+=[^=,]+)*$", p):
        raise UsageError(f"measure {base}.{p}: parameters must be rel=gain pairs")


def format_value(measure: str, value: float) -> str:
    """Format a value the way trec_eval prints it: ``%ld`` for counts, ``%6.4f`` otherwise."""
    base = base_of(measure)
    if base is not None and BY_NAME[base].integer:
        return "%d" % int(value)
    return "%6.4f" % value


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
