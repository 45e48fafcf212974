"""``-m`` requests: which trec_eval and recommender measures to compute, with which parameters.

Syntax, as trec_eval's ``-m`` (``trec_eval.c``, ``meas_init.c``): ``name`` or ``name.params``
(``P.5,10``, ``ndcg_cut.50``, ``iprec_at_recall.0.5``); the nicknames ``official``, ``set`` and
``all_trec``; also the underscore form ``P_10``. trecrs also accepts the aliases of
:mod:`trecrs.measures.aliases` (``P@10``, ``nDCG@50``, ``AP``, ``RR@10``, ``HR@10``; any case), printed
under the name as typed (:attr:`MeasureRequest.labels`), the framework dialects of
:mod:`trecrs.measures.dialects` (``lenskit:NDCG@10``), and the recommender-specific names of
:mod:`trecrs.measures.recsys`. Names are matched in that order: trec_eval's exactly and case-sensitively
first, so ``map`` and ``P`` keep trec_eval's meaning; an unknown name gets the closest valid ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from ..errors import UsageError, warn
from ..ranges import ATOL_PREFIX, INT64_MAX, c_atol
from ..trec_eval_versions import VERSIONS, TrecEvalVersion
from .aliases import ALIASES, RECSYS, Alias, lookup
from .grammar import Variant, from_object, is_measure_object, parse_bare, parse_call
from .trec_eval import (
    BY_NAME,
    DOUBLE_CUTOFFS,
    DOUBLE_PARAMS,
    LONG_CUTOFFS,
    NO_PARAMS,
    ORDER,
    PAIR_PARAMS,
    TREC_MEASURES,
    nicknames,
    printed_per_query,
)

if TYPE_CHECKING:
    from .dialects import DialectVariant
    from .recsys.registry import Output


# The dialects and the recommender measures' registry (every family module) are imported when a name
# needs them: a request of trec_eval's measures alone, the common case, loads neither.
def parse_spec(spec: str) -> list[Output] | None:
    """:func:`~.recsys.registry.parse_spec`, imported on first use."""
    from .recsys.registry import parse_spec as parse

    return parse(spec)


def parse_dialect(spec: str) -> DialectVariant | None:
    """:func:`~.dialects.parse_dialect`, imported on first use."""
    from .dialects import parse_dialect as parse

    return parse(spec)


@dataclass
class MeasureRequest:
    """The measures asked for: trec_eval base name -> parameter string (``None`` = defaults)."""

    params: dict[str, str | None] = field(default_factory=dict)
    extras: tuple[str, ...] = ()  # recommender-specific measures (trecrs.measures.recsys), as requested
    trec_eval_version: int = 9  # the trec_eval whose rules apply (trecrs.trec_eval_versions)
    # value column -> the names it is printed under, for columns asked for through an alias (P_10 ->
    # ("P@10",), or ("P_10", "P@10") when P.10 was asked for too); other columns print under their own name
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    num_docs_in_coll: int = (
        0  # trec_eval's -N: documents in the collection, read by utility's 4th coefficient
    )
    # measures asked for as Name(params)@k (trecrs.measures.grammar): each computed with its own settings,
    # its value column named as typed
    variants: tuple[Variant, ...] = ()

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
            raise UsageError(
                f"measure relstring.{p}: the length must be a number", arguments=["measures"]
            ) from None
        # trec_eval casts the length to a C long: outside it (and for NaN) the cast is undefined
        if not -INT64_MAX <= length <= INT64_MAX:
            raise UsageError(
                f"measure relstring.{p}: the length must be a number from {-INT64_MAX} to {INT64_MAX}",
                arguments=["measures"],
            )
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

    def value_names(self) -> list[str]:
        """The names this request's values are printed under in tables (each value column's
        :attr:`labels`, else the column): trec_eval's measures in table order, then the recommender
        measures and the ``Name(params)@k`` forms as asked for. Known before anything is evaluated."""
        columns = [
            c for base in self.names for c in ([base] if base in NAMED_BY_PARAMS else self.output_names(base))
        ]
        columns += [o.name for spec in self.extras for o in _outputs(spec)]
        columns += [v.spec for v in self.variants]
        return [name for c in columns for name in self.labels.get(c, (c,))]

    def measure_of(self, column: str) -> str:
        """The trec_eval output name whose rules (aggregation, per-query printing) a value column follows:
        a ``Name(params)@k`` column follows its measure (``NumRelRet(rel=2)`` -> ``num_rel_ret``), others
        their own name."""
        return next((v.base for v in self.variants if v.spec == column), column)

    def per_query_names(self, column: str, names: list[str]) -> list[str]:
        """Of the ``names`` a value column is printed under, those with per-query values in the tidy rows,
        frames and dicts: all where trec_eval prints the measure with ``-q``; for trec_eval's summary-only
        ``num_q``, ir_measures' ``NumQ`` asked for as ir_measures' measure (an object, ``NumQ()``), which is
        1 per query as ir_measures' pytrec_eval provider gives it (``pytrec_eval_provider.py``: trec_eval's
        per-query ``num_q``); the summary stays the count, trec_eval's text
        (:func:`trecrs.report.trec.format_trec`) keeps trec_eval's rule, and the plain names (``num_q``, the
        alias ``NumQ``) keep trec_eval's rows."""
        if printed_per_query(self.measure_of(column)):
            return names
        counts = {v.spec for v in self.variants if v.base in PER_QUERY_COUNTS}
        return [n for n in names if n in counts]

    def printed_name(self, column: str) -> str:
        """The name trec_eval prints for an engine's value column: the measure's name, and for a measure
        named after its parameters (:data:`NAMED_BY_PARAMS`) given some, ``_`` and the parameters as typed
        (``-m set_F.0.5`` prints ``set_F_0.5``, ``-m utility.2,1,-1,1`` prints ``utility_2,1,-1,1``)."""
        p = self.params.get(column)
        return column if p is None or column not in NAMED_BY_PARAMS else f"{column}_{p}"


# trec_eval's summary-only counts that ir_measures gives per query (NumQ: 1 for each query)
PER_QUERY_COUNTS = frozenset({"num_q"})

# Measures whose engines return one value column named after the measure, which trec_eval prints as
# ``name_params`` when -m gave parameters (meas_init.c builds the printed name from the typed string).
NAMED_BY_PARAMS = frozenset({
    "relstring", "utility", "11pt_avg", "G", "ndcg", "ndcg_rel", "Rndcg", "set_F", "dcg", "ideal_dcg", "rbp",
    "rbp_resid",
})  # fmt: skip


def long_cutoffs(base: str, p: str | None) -> list[int]:
    """Integer cutoffs of ``base.p`` sorted ascending (positive, unique), or the table's defaults."""
    vals = _cutoffs(base, p, _atol, "cutoffs must be integers")
    # trec_eval reads cutoffs with atol: 0 and below it refuses, beyond a C long it saturates (as _atol does)
    if vals and not 1 <= vals[0]:
        raise UsageError(f"measure {base}.{p}: cutoffs must be integers from 1 to {INT64_MAX}")
    return vals


def _atol(text: str) -> int:
    """A cutoff as C's ``atol`` reads it (``get_long_cutoffs`` in ``meas_init.c``): the leading integer,
    0 when there is none. ``23.4`` is 23, as trec_eval prints ``ndcg_cut.23.4`` as ``ndcg_cut_23``; what
    ``atol`` ignores is reported in one warning, since a cutoff typed as ``23.4`` is rarely meant as 23."""
    m = ATOL_PREFIX.match(text)
    value = c_atol(text)  # saturated to a C long, as glibc's atol (strtol) does
    if (m is None or text.strip() != m.group(1) or value != int(m.group(1))) and value > 0:
        warn(f"cutoff {text!r} read as {value}, as trec_eval reads it (C atol)")
    return value


def double_cutoffs(base: str, p: str | None) -> list[float]:
    """Real-valued cutoffs of ``base.p`` sorted ascending (unique), or the table's defaults."""
    return _cutoffs(base, p, float, "parameters must be numbers")


_N = TypeVar("_N", int, float)


def _cutoffs(base: str, p: str | None, cast: Callable[[str], _N], not_a_number: str) -> list[_N]:
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


_ALIAS_RE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_-]*?)(?:@(?P<k>[0-9]+(?:\.[0-9]+)?))?$")


def _outputs(spec: str) -> list[Output]:
    """The outputs of a recommender measure's spec (:func:`~.recsys.registry.parse_spec`); unknown: a UsageError."""
    outputs = parse_spec(spec)
    if outputs is None:
        raise UsageError(f"unknown measure {spec!r}")
    return outputs


def _alias(spec: str) -> tuple[Alias, str | None] | None:
    """``P@10`` -> (the P@k alias, ``10``); ``AP`` -> (the AP alias, None); None when no alias is spelled so."""
    m = _ALIAS_RE.match(spec)
    if not m:
        return None
    k = m.group("k")
    alias = lookup(m.group("name"), k is not None)
    return None if alias is None else (alias, k)


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
        self.cutoffs: dict[str, list[str]] = {}  # @k and _k forms: cutoffs accumulate
        self.underscored: dict[str, list[str]] = {}  # the _k forms alone (named as trec_eval prints them)
        self.alias_bare: list[str] = []  # trec_eval measures asked for by a bare alias (AP -> map)
        self.extras: list[str] = []  # recommender measures by their own names
        self.alias_extras: list[str] = []  # recommender measures asked for by an alias (RR@10)
        self.aliased: list[tuple[str, Alias, str | None]] = []  # (name as typed, alias, k)
        self.variants: list[Variant] = []  # Name(params)@k, in the order given

    def add(self, raw: object) -> None:
        if not isinstance(raw, str):
            self._add_object(raw)
            return
        spec = raw.strip()
        if not spec:
            raise UsageError("empty measure name")
        if "(" in spec and (variant := parse_call(spec)) is not None:
            self._add_variant(variant)
        elif ":" in spec and (dialect := parse_dialect(spec)) is not None:
            self._add_variant(dialect)
        elif spec in self.nicknames:
            for n in self.nicknames[spec]:
                self.trec.setdefault(n, None)
        elif spec.partition(".")[0] in BY_NAME:
            self._add_trec(spec)
        elif (under := _underscore_form(spec)) is not None:
            self.cutoffs.setdefault(under[0], []).append(under[1])
            self.underscored.setdefault(under[0], []).append(under[1])
        elif (hit := _alias(spec)) is not None:
            self._add_alias(spec, *hit)
        elif parse_spec(spec) is not None:  # recommender-specific measures: names trec_eval lacks
            self.extras.append(spec)
        elif (bare := parse_bare(spec)) is not None:  # ir_measures' Compat, Accuracy@20 without parentheses
            self._add_variant(bare)
        else:
            raise unknown_measure(raw, self.version)

    def _add_object(self, obj: object) -> None:
        """An ir_measures measure object (:func:`~trecrs.measures.grammar.from_object`), or a refusal."""
        if not is_measure_object(obj):
            raise UsageError(f"a measure must be a name or an ir_measures measure object, got {obj!r}")
        got = from_object(obj)
        if isinstance(got, str):
            self.add(got)
        else:
            self._add_variant(got)

    def _add_variant(self, variant: Variant) -> None:
        """A ``Name(params)@k`` measure: its trec_eval parameters checked now, computed apart later."""
        if variant.recsys:
            parse_spec(variant.target())  # a bad cutoff is refused here, naming the target
        elif variant.param is not None:
            _validate(variant.base, variant.param)
        if not variant.recsys and not self.version.has_measure(variant.base):
            raise UsageError(
                f"measure {variant.spec!r}: trec_eval {self.version.label} has no {variant.base}"
            )
        if all(v.spec != variant.spec for v in self.variants):
            self.variants.append(variant)

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

    def _add_alias(self, spec: str, alias: Alias, k: str | None) -> None:
        """Ask for the alias's target; the value will be printed under ``spec`` as typed."""
        if alias.family == RECSYS:
            target = alias.resolves_to(k) if k is not None else alias.target
            parse_spec(target)  # a bad cutoff is refused here, naming the target
            self.alias_extras.append(target)
        elif k is None:
            self.alias_bare.append(alias.target)
        else:
            _validate(alias.target, k)
            self.cutoffs.setdefault(alias.target, []).append(k)
        self.aliased.append((spec, alias, k))

    def request(self) -> MeasureRequest:
        """The merged request (``P.5,10`` or a bare P's defaults), and the names aliases print under."""
        params = _merged(self.trec, self.cutoffs, self.alias_bare)
        for base in params:
            if not self.version.has_measure(base):
                raise UsageError(
                    f"unknown measure {base!r}: trec_eval {self.version.label} has no such measure "
                    "(it is a trec_eval 10.0 measure: --trec-eval-version 10)"
                )
        request = MeasureRequest(params, (*self.extras, *self.alias_extras), self.version.number)
        request.labels = self._labels(request)
        request.variants = tuple(self.variants)
        clash = {v.spec for v in self.variants} & {spec for spec, _, _ in self.aliased}
        if clash:  # only a measure object prints without parentheses: P@5 the object and "P@5" the name
            raise UsageError(
                f"measure {min(clash)!r} asked for both as a name (computed with the global "
                "relevance level and judged-only flag) and as an ir_measures object (its own "
                "parameters): ask for it once"
            )
        return request

    def _labels(self, request: MeasureRequest) -> dict[str, tuple[str, ...]]:
        """Value column -> printed names: trec_eval's (or the recommender measure's) own name when it was
        asked for by that name, then each alias as typed, in the order given."""
        named = _columns(MeasureRequest(_merged(self.trec, self.underscored, [])))
        named |= {o.name for spec in self.extras for o in _outputs(spec)}
        labels: dict[str, list[str]] = {}
        for spec, alias, k in self.aliased:
            column = _alias_column(request, alias, k, spec)
            names = labels.setdefault(column, [column] if column in named else [])
            if spec not in names:
                names.append(spec)
        return {column: tuple(names) for column, names in labels.items()}


def _merged(
    trec: dict[str, str | None], cutoffs: dict[str, list[str]], bare: list[str]
) -> dict[str, str | None]:
    """trec_eval-form parameters with the accumulated cutoffs added (to a bare measure's defaults)."""
    params = dict(trec)
    for base in bare:
        params.setdefault(base, None)
    for base, ks in cutoffs.items():
        prior = params.get(base)
        if base not in params:
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
        params[base] = joined
    return params


def _columns(request: MeasureRequest) -> set[str]:
    """The value columns engines return for ``request``'s trec_eval measures."""
    out: set[str] = set()
    for base in request.params:
        out.update([base] if base in NAMED_BY_PARAMS else request.output_names(base))
    return out


def _alias_column(request: MeasureRequest, alias: Alias, k: str | None, spec: str) -> str:
    """The value column an alias reads (``P@10`` -> ``P_10``, ``RR@10`` -> ``recip_rank_cut_10``)."""
    if alias.family == RECSYS:
        return _outputs(alias.resolves_to(k) if k is not None else alias.target)[0].name
    if k is not None:
        return MeasureRequest({alias.target: k}).output_names(alias.target)[0]
    p = request.params[alias.target]
    if p is not None:  # one column per measure: set_F.0.5 and SetF (beta 1) cannot both be computed
        raise UsageError(
            f"measure {spec!r} is {alias.target} with its default parameters: it cannot be combined with "
            f"{alias.target}.{p} (trec_eval computes {alias.target} once per run)"
        )
    return alias.target


@dataclass
class VariantPass:
    """One engine pass over the ``Name(params)@k`` variants sharing settings: trec_eval's ``params`` and,
    per variant, (its name as typed, the value column it reads)."""

    relevance_level: int
    judged_only: bool
    gains: tuple | None
    params: dict[str, str | None]
    columns: list[tuple[str, str]]


def variant_passes(request: MeasureRequest) -> list[VariantPass]:
    """The fewest engine passes computing the request's trec_eval variants: one per (level, judged-only,
    gains), cutoffs of one measure merged (``P(rel=2)@5`` and ``P(rel=2)@10``: ``P.5,10``); a measure asked
    with other parameters (``SetF(beta=0.5)``, ``SetF(beta=2)``) goes to a further pass, as trec_eval
    computes a measure once per run."""
    passes: list[VariantPass] = []
    for v in request.variants:
        if v.recsys:
            continue  # computed with the recommender measures
        key = (v.relevance_level, v.judged_only, v.gains)
        cutoffs = BY_NAME[v.base].params in (LONG_CUTOFFS, DOUBLE_CUTOFFS)
        target = next(
            (
                p
                for p in passes
                if (p.relevance_level, p.judged_only, p.gains) == key
                and (v.base not in p.params or cutoffs or p.params[v.base] == v.param)
            ),
            None,
        )
        if target is None:
            target = VariantPass(*key, {}, [])
            passes.append(target)
        prior = target.params.get(v.base)
        if (
            cutoffs
            and prior is not None
            and v.param is not None
            and float(v.param) not in {float(x) for x in prior.split(",")}
        ):
            target.params[v.base] = f"{prior},{v.param}"
        elif prior is None:
            target.params[v.base] = v.param
        column = (
            v.base if v.base in NAMED_BY_PARAMS else MeasureRequest({v.base: v.param}).output_names(v.base)[0]
        )
        target.columns.append((v.spec, column))
    return passes


def unknown_measure(raw: str, version: TrecEvalVersion) -> UsageError:
    """The error for a name that is no measure, with the three closest valid names when there are any."""
    close = suggestions(raw.strip(), version)
    if not close:
        return UsageError(f"unknown measure {raw!r} (see 'trecrs eval --list-measures')")
    return UsageError(f"unknown measure {raw!r}; did you mean: {', '.join(close)}?")


def suggestions(spec: str, version: TrecEvalVersion, n: int = 3) -> list[str]:
    """The ``n`` valid names closest to ``spec``, written with ``spec``'s cutoff.

    Closeness is difflib's ratio ignoring case (at least 0.5); ties go to the earlier candidate: trec_eval's
    names (with ``.k`` for a measure with cutoffs when ``spec`` has a cutoff ``k``), alias spellings in
    their documented case (``nDCG@10``, or ``nDCG@k`` without a cutoff), the nicknames, the recommender
    measures. A name differing from an earlier one by case only is left out.
    """
    m = _CUTOFF_RE.match(spec)  # no match for a name with a line break
    k = m.group("k") if m else None
    candidates: dict[str, str] = {}
    for name in _candidates(version, k):
        candidates.setdefault(name.lower(), name)
    import difflib  # for a misspelt name only

    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(spec.lower())
    scored = []
    for i, lower in enumerate(candidates):
        matcher.set_seq1(lower)
        if matcher.ratio() >= 0.5:
            scored.append((-matcher.ratio(), i, candidates[lower]))
    return [name for _, _, name in sorted(scored)[:n]]


_CUTOFF_RE = re.compile(r"^(?P<name>.*?)(?:[@._](?P<k>[0-9]+(?:\.[0-9]+)?))?$")


def _candidates(version: TrecEvalVersion, k: str | None) -> list[str]:
    out: list[str] = []
    for m in TREC_MEASURES:
        if version.has_measure(m.name):
            out.append(m.name)
            if k is not None and m.params in (LONG_CUTOFFS, DOUBLE_CUTOFFS):
                out.append(f"{m.name}.{k}")
    for alias in ALIASES:
        out.extend(alias.forms(k))
    out.extend(nicknames(version))
    from .recsys.registry import ordered as extras_ordered

    out.extend(m.name for m in extras_ordered())
    return out


def parse_measures(specs: list | tuple | str | None, *, trec_eval_version: int = 9) -> MeasureRequest:
    """Turn ``-m`` arguments into a :class:`MeasureRequest`, following trec_eval's rules.

    trec_eval keeps the *first* parameter list given for a measure (``-m P.5 -m P.10`` gives P_5 only);
    ir_measures-style names accumulate (``P@5 P@10`` gives P_5 and P_10). No request means ``official``.
    ir_measures measure objects (``ir_measures.nDCG@10``) may stand beside the names
    (:func:`~trecrs.measures.grammar.from_object`). A name or parameter refused is a :class:`UsageError` about the argument ``measures``.
    """
    if specs is None or specs == [] or specs == ():
        specs = ["official"]
    if isinstance(specs, str) or is_measure_object(specs):
        specs = [specs]
    parsed = _Parsed(VERSIONS[trec_eval_version])
    try:
        for raw in specs:
            parsed.add(raw)
        return parsed.request()
    except UsageError as exc:
        raise exc.about("measures") from None


def typed_order(
    names: list[str], specs: list | tuple | str | None, *, trec_eval_version: int = 9
) -> list[str]:
    """``names`` (printed measure names of one evaluation of ``specs``) in the order the measures were
    asked for: each at the place of the first spec that asks for it alone
    (:meth:`MeasureRequest.value_names`), the names of one spec (``P``: P_5 ... P_1000) in their own order
    among themselves, a name no spec gives alone after the others. ``-m recip_rank -m P.10 -m map`` orders
    recip_rank, P_10, map where trec_eval's table order is map, recip_rank, P_10."""
    if specs is None or isinstance(specs, str) or is_measure_object(specs):
        specs = [specs or "official"]
    place: dict[str, int] = {}
    for i, spec in enumerate(specs):
        for name in parse_measures([spec], trec_eval_version=trec_eval_version).value_names():
            place.setdefault(name, i)
    return sorted(names, key=lambda name: place.get(name, len(specs)))
