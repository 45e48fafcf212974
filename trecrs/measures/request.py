"""``-m`` requests: which trec_eval and recommender measures to compute, with which parameters.

Syntax, as trec_eval's ``-m`` (``trec_eval.c``, ``meas_init.c``): ``name`` or ``name.params``
(``P.5,10``, ``ndcg_cut.50``, ``iprec_at_recall.0.5``); the nicknames ``official``, ``set`` and
``all_trec``; also the underscore form ``P_10``. trecrs also accepts ir_measures-style names (``P@10``,
``nDCG@50``, ``R@50``, ``AP``, ``RR``, ``Success@10``; :data:`~trecrs.measures.trec_eval.IR_ALIASES`),
and the recommender-specific names of :mod:`trecrs.measures.recsys`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import UsageError
from ..ranges import INT64_MAX
from ..trec_eval_versions import VERSIONS, TrecEvalVersion
from .recsys.registry import parse_spec
from .trec_eval import (
    BY_NAME,
    DOUBLE_CUTOFFS,
    DOUBLE_PARAMS,
    IR_ALIASES,
    IR_BARE,
    LONG_CUTOFFS,
    NO_PARAMS,
    ORDER,
    PAIR_PARAMS,
    nicknames,
)


@dataclass
class MeasureRequest:
    """The measures asked for: trec_eval base name -> parameter string (``None`` = defaults)."""

    params: dict[str, str | None] = field(default_factory=dict)
    extras: tuple[str, ...] = ()  # recommender-specific measures (trecrs.measures.recsys), as requested
    trec_eval_version: int = 9  # the trec_eval whose rules apply (trecrs.trec_eval_versions)

    @property
    def version(self) -> TrecEvalVersion:
        """The registry entry of :attr:`trec_eval_version`."""
        return VERSIONS[self.trec_eval_version]

    @property
    def names(self) -> list[str]:
        """Requested base names in trec_eval table order."""
        return sorted(self.params, key=ORDER.__getitem__)

    def engine_specs(self) -> list[str]:
        """The ``name[.params]`` strings trec_eval's ``-m`` takes, one per base measure."""
        return [n if self.params[n] is None else f"{n}.{self.params[n]}" for n in self.names]

    def relstring_length(self) -> int | None:
        """How many documents relstring shows (``relstring.N``, default 10); None when not requested."""
        if "relstring" not in self.params:
            return None
        p = self.params["relstring"]
        if not p:
            return 10
        try:
            length = float(p.split(",")[0])
        except ValueError:
            raise UsageError(f"measure relstring.{p}: the length must be a number") from None
        # trec_eval casts the length to a C long: outside it (and for NaN) the cast is undefined
        if not -INT64_MAX <= length <= INT64_MAX:
            raise UsageError(f"measure relstring.{p}: the length must be a number from {-INT64_MAX} to {INT64_MAX}")
        return int(length)

    def output_names(self, base: str) -> list[str]:
        """The value names trec_eval prints for ``base`` (``P_5``, ``iprec_at_recall_0.10``, ...)."""
        m = BY_NAME[base]
        p = self.params[base]
        if m.params == LONG_CUTOFFS:
            return [f"{base}_{v}" for v in long_cutoffs(base, p)]
        if m.params == DOUBLE_CUTOFFS:
            if p is None and not m.defaults:
                return [base]
            return [f"{base}_{v:3.2f}" for v in double_cutoffs(base, p)]
        if m.params in (DOUBLE_PARAMS, PAIR_PARAMS) and p is not None:
            return [f"{base}_{p}"]
        return [base]

    def printed_name(self, column: str) -> str:
        """The name trec_eval prints for an engine's value column: the measure's name, and for a measure
        named after its parameters (:data:`NAMED_BY_PARAMS`) given some, ``_`` and the parameters as typed
        (``-m set_F.0.5`` prints ``set_F_0.5``, ``-m utility.2,1,-1,1`` prints ``utility_2,1,-1,1``)."""
        p = self.params.get(column)
        return column if p is None or column not in NAMED_BY_PARAMS else f"{column}_{p}"


# Measures whose engines return one value column named after the measure, which trec_eval prints as
# ``name_params`` when -m gave parameters (meas_init.c builds the printed name from the typed string).
NAMED_BY_PARAMS = frozenset({
    "relstring", "utility", "11pt_avg", "G", "ndcg", "ndcg_rel", "Rndcg", "set_F", "dcg", "ideal_dcg", "rbp",
    "rbp_resid",
})  # fmt: skip


def long_cutoffs(base: str, p: str | None) -> list[int]:
    """Integer cutoffs of ``base.p`` sorted ascending (positive, unique), or the table's defaults."""
    vals = _cutoffs(base, p, int, "cutoffs must be integers")
    # trec_eval reads cutoffs with atol: 0 and below it refuses, beyond a C long it silently saturates
    if vals and not 1 <= vals[0] <= vals[-1] <= INT64_MAX:
        raise UsageError(f"measure {base}.{p}: cutoffs must be integers from 1 to {INT64_MAX}")
    return vals


def double_cutoffs(base: str, p: str | None) -> list[float]:
    """Real-valued cutoffs of ``base.p`` sorted ascending (unique), or the table's defaults."""
    return _cutoffs(base, p, float, "parameters must be numbers")


def _cutoffs(base: str, p: str | None, cast, not_a_number: str) -> list:
    """The comma-separated values of ``p`` cast and sorted, refusing duplicates; the defaults for None."""
    if p is None:
        return list(BY_NAME[base].defaults)
    try:
        vals = sorted(cast(x) for x in p.split(","))
    except ValueError:
        raise UsageError(f"measure {base}.{p}: {not_a_number}") from None
    if len(set(vals)) != len(vals):
        raise UsageError(f"measure {base}.{p}: duplicate cutoffs")
    return vals


_IR_RE = re.compile(r"^(?P<name>[A-Za-z_-]+?)(?:@(?P<k>[0-9]+(?:\.[0-9]+)?))?$")


def _ir_style(spec: str) -> tuple[str, str | None] | None:
    """``P@10`` -> (``P``, ``10``); ``AP`` -> (``map``, None); None when ``spec`` is not ir_measures-style."""
    m = _IR_RE.match(spec)
    if not m:
        return None
    name, k = m.group("name").lower(), m.group("k")
    if k is None and name in IR_BARE:
        return IR_BARE[name], None
    if name not in IR_ALIASES:
        return None
    base = IR_ALIASES[name]
    if k is None and BY_NAME[base].params in (LONG_CUTOFFS, DOUBLE_CUTOFFS):
        return None  # e.g. "P" alone is trec_eval's P with default cutoffs; handled by the caller
    return base, k


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
        long_cutoffs(base, p)
    elif kind == DOUBLE_CUTOFFS:
        double_cutoffs(base, p)
    elif kind == DOUBLE_PARAMS:
        try:
            [float(x) for x in p.split(",")]
        except ValueError:
            raise UsageError(f"measure {base}.{p}: parameters must be numbers") from None
    elif kind == PAIR_PARAMS and not re.match(r"^[^=,]+=[^=,]+(,[^=,]+=[^=,]+)*$", p):
        raise UsageError(f"measure {base}.{p}: parameters must be rel=gain pairs")


class _Parsed:
    """What the ``-m`` arguments asked for so far (see :func:`parse_measures`)."""

    def __init__(self, version: TrecEvalVersion) -> None:
        self.version = version
        self.nicknames = nicknames(version)
        self.trec: dict[str, str | None] = {}  # trec_eval form: the first parameter list wins
        self.ir: dict[str, list[str]] = {}  # @k and _k forms: cutoffs accumulate
        self.extras: list[str] = []

    def add(self, raw: str) -> None:
        spec = raw.strip()
        if not spec:
            raise UsageError("empty measure name")
        if spec in self.nicknames:
            for n in self.nicknames[spec]:
                self.trec.setdefault(n, None)
        elif spec.partition(".")[0] in BY_NAME:
            self._add_trec(spec)
        elif (under := _underscore_form(spec)) is not None:
            self.ir.setdefault(under[0], []).append(under[1])
        elif (ir := _ir_style(spec)) is not None:
            if ir[1] is None:
                self.trec.setdefault(ir[0], None)
            else:
                self.ir.setdefault(ir[0], []).append(ir[1])
        elif parse_spec(spec) is not None:  # recommender-specific measures: names trec_eval lacks
            self.extras.append(spec)
        else:
            raise UsageError(f"unknown measure {raw!r} (see 'trecrs eval --list-measures')")

    def _add_trec(self, spec: str) -> None:
        base, dot, p = spec.partition(".")
        if dot and not p:
            raise UsageError(f"measure {spec!r}: empty parameter list")
        if self.trec.get(base) is not None:
            return  # trec_eval keeps the first parameter list given
        if p:
            _validate(base, p)
            self.trec[base] = p
        else:
            self.trec.setdefault(base, None)

    def request(self) -> MeasureRequest:
        """Merge the accumulated cutoffs into the trec_eval form (``P.5,10`` or a bare P's defaults)."""
        for base, ks in self.ir.items():
            prior = self.trec.get(base)
            if base not in self.trec:
                pieces = []
            else:
                pieces = prior.split(",") if prior is not None else [str(d) for d in BY_NAME[base].defaults]
            seen = {float(x) for x in pieces}
            for k in ks:
                if float(k) not in seen:
                    pieces.append(k)
                    seen.add(float(k))
            joined = ",".join(pieces)
            _validate(base, joined)
            self.trec[base] = joined
        for base in self.trec:
            if not self.version.has_measure(base):
                raise UsageError(
                    f"unknown measure {base!r}: trec_eval {self.version.label} has no such measure "
                    "(it is a trec_eval 10.0 measure: --trec-eval-version 10)"
                )
        return MeasureRequest(self.trec, tuple(self.extras), self.version.number)


def parse_measures(
    specs: list[str] | tuple[str, ...] | str | None, *, trec_eval_version: int = 9
) -> MeasureRequest:
    """Turn ``-m`` arguments into a :class:`MeasureRequest`, following trec_eval's rules.

    trec_eval keeps the *first* parameter list given for a measure (``-m P.5 -m P.10`` gives P_5 only);
    ir_measures-style names accumulate (``P@5 P@10`` gives P_5 and P_10). No request means ``official``.
    """
    if specs is None or specs == [] or specs == ():
        specs = ["official"]
    if isinstance(specs, str):
        specs = [specs]
    parsed = _Parsed(VERSIONS[trec_eval_version])
    for raw in specs:
        parsed.add(raw)
    return parsed.request()
