"""ir_measures' parameterised names: ``Name(param=value, ...)@cutoff`` resolved to a trec_eval measure computed
with the measure's own relevance level, judged-only flag and gains.

Grammar as ``ir_measures.util.parse_measure`` reads it (MacAvaney, Macdonald, Ounis, ECIR 2022): a Python
expression ``Name(key=literal, ...)``, optionally ``@cutoff``; names and parameter spellings as
``ir_measures/measures/*.py`` spell them. Each name maps to the trec_eval measure ir_measures' pytrec_eval
provider computes for it (``ir_measures/providers/pytrec_eval_provider.py``), and the parameters to the
settings that provider runs trec_eval with: ``rel`` is ``-l``, ``judged_only`` is ``-J``, ``gains`` maps
each qrels grade before evaluating (an unmapped grade keeps its value). A parameter left out takes
ir_measures' default (``rel=1``, ``judged_only=False``), not the global ``-l``/``-J``: the string names an
ir_measures measure, whose meaning does not depend on the command's flags. The names without parentheses
stay those of :mod:`trecrs.measures.aliases`, computed with the global flags.

This module is parsing and data only; :mod:`trecrs.evaluate.compute` computes each :class:`Variant` in its
own engine pass (one per distinct settings and measure) and merges the column, named as typed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol, TypeGuard

from ..errors import UsageError
from .trec_eval import BY_NAME

# parameter -> (type check, what a value must be); ir_measures' ParamInfo dtypes
_INT = (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer")
_BOOL = (lambda v: isinstance(v, bool), "True or False")
_NUM = (lambda v: isinstance(v, int | float) and not isinstance(v, bool), "a number")
_GAINS = (
    lambda v: isinstance(v, dict) and all(_INT[0](k) and _NUM[0](g) for k, g in v.items()),
    "a dict of integer grades to gains, e.g. {0: 0, 1: 1, 2: 3}",
)
_DCG = (lambda v: v in ("log2", "exp-log2"), "'log2' or 'exp-log2'")
PARAM_TYPES = {
    "rel": _INT,
    "judged_only": _BOOL,
    "gains": _GAINS,
    "dcg": _DCG,
    "beta": _NUM,
    "relative": _BOOL,
    "p": _NUM,
    "T": _NUM,
    "min_rel": _INT,
    "max_rel": _INT,
    "normalize": _BOOL,
}


@dataclass(frozen=True)
class Form:
    """One ir_measures name: its spellings, whether it takes ``@cutoff`` (``required``/``optional``/``none``),
    its parameters, and the trec_eval ``(base, parameter string)`` it resolves to given the cutoff and
    parameters; ``required``: the parameters it cannot do without (ir_measures' ``required=True``)."""

    spellings: tuple[str, ...]
    cutoff: str
    params: frozenset[str]
    target: Callable[[str | None, dict], tuple[str, str | None]]
    required: frozenset[str] = frozenset()


def _f(spellings, cutoff, params, target, required="") -> Form:
    return Form(tuple(spellings), cutoff, frozenset(params.split()), target, frozenset(required.split()))


def _fixed(bare: str, cut: str | None = None):
    """The target ``bare`` without a cutoff, ``cut.k`` with one."""
    return lambda k, p: (bare, None) if k is None else (cut, k)


def _ndcg(k, p):
    """trec_eval's ndcg/ndcg_cut (gain = grade, ``dcg='log2'``), or with ``dcg='exp-log2'`` (gain 2^grade - 1,
    gdeval's and ranx's nDCG) the recommender measure ndcg_exp."""
    if p.get("dcg") == "exp-log2":
        return "ndcg_exp", k
    return ("ndcg", None) if k is None else ("ndcg_cut", k)


def _set_f(k, p):
    beta = p.get("beta", 1)
    return ("set_F", None) if beta == 1 else ("set_F", repr(float(beta)))


def _whole(k: str | None, what: str = "the cutoff") -> int:
    """The cutoff as an integer (0 without one); a fraction is refused, as ir_measures' int cutoffs."""
    if k is None:
        return 0
    if float(k) != int(float(k)) or float(k) < 1:
        raise UsageError(f"{what} must be a positive integer (got {k})")
    return int(float(k))


def _values(*numbers) -> str:
    return ",".join(repr(float(n)) for n in numbers)


def _persistence(p: dict, default: float) -> float:
    if not 0 <= p.get("p", default) <= 1:
        raise UsageError("p must be in [0, 1]")
    return p.get("p", default)


def _rbp(k, p):
    """C/W/L RBP with ``rel`` (cwl_eval), graded RBP without (trectools): :mod:`trecrs.measures.recsys.cwl`."""
    return ("cwl_rbp" if "rel" in p else "rbp_graded"), _values(_persistence(p, 0.8), _whole(k))


def _cwl(name: str, model: Callable[[str | None, dict], tuple]):
    """A C/W/L measure of :mod:`trecrs.measures.recsys.cwl`: its model parameters, then min_rel and max_rel."""

    def target(k, p):
        if not p.get("min_rel", 0) < p["max_rel"]:
            raise UsageError("min_rel must be less than max_rel")
        return f"cwl_{name}", _values(*model(k, p), p.get("min_rel", 0), p["max_rel"])

    return target


def _sdcg(k, p):
    if p.get("dcg", "log2") != "log2":
        raise UsageError("SDCG takes only dcg='log2'")
    return (_whole(k),)


FORMS: tuple[Form, ...] = (
    _f(("P", "Precision"), "required", "rel judged_only", _fixed("", "P")),
    _f(("R", "Recall"), "required", "rel judged_only", _fixed("", "recall")),
    _f(("AP", "MAP"), "optional", "rel judged_only", _fixed("map", "map_cut")),
    _f(("RR", "MRR"), "optional", "rel judged_only", _fixed("recip_rank", "recip_rank_cut")),
    _f(("nDCG", "NDCG"), "optional", "dcg gains judged_only", _ndcg),
    _f(("Rprec", "RPrec"), "none", "rel judged_only", _fixed("Rprec")),
    _f(("Bpref", "BPref"), "none", "rel", _fixed("bpref")),
    _f(("infAP",), "none", "rel", _fixed("infAP")),
    _f(("IPrec",), "required", "rel judged_only", _fixed("", "iprec_at_recall")),
    _f(("Success",), "required", "rel judged_only", _fixed("", "success")),
    _f(("Judged",), "optional", "", _fixed("judgment_rate", "judgment_rate")),
    _f(("ERR",), "required", "", _fixed("", "err")),
    _f(("SetP",), "none", "rel relative judged_only",
       lambda k, p: ("set_relative_P" if p.get("relative") else "set_P", None)),
    _f(("SetR",), "none", "rel", _fixed("set_recall")),
    _f(("SetF",), "none", "rel beta judged_only", _set_f),
    _f(("SetAP",), "none", "rel judged_only", _fixed("set_map")),
    _f(("NumRelRet",), "none", "rel", _fixed("num_rel_ret")),
    _f(("NumRet",), "none", "rel", lambda k, p: ("num_rel_ret" if "rel" in p else "num_ret", None)),
    _f(("NumRel",), "none", "rel", _fixed("num_rel")),
    _f(("NumQ",), "none", "", _fixed("num_q")),
    _f(("RBP",), "optional", "p rel", _rbp),
    _f(("Compat",), "none", "p normalize",
       lambda k, p: ("compat", _values(_persistence(p, 0.95), p.get("normalize", True)))),
    _f(("Accuracy",), "optional", "rel", lambda k, p: ("accuracy", None if k is None else str(_whole(k)))),
    _f(("BPM",), "required", "T min_rel max_rel", _cwl("bpm", lambda k, p: (p.get("T", 1.0), _whole(k))), "max_rel"),
    _f(("SDCG",), "required", "dcg min_rel max_rel", _cwl("sdcg", _sdcg), "max_rel"),
    _f(("NERR8",), "required", "min_rel max_rel", _cwl("nerr8", lambda k, p: (_whole(k),)), "max_rel"),
    _f(("NERR9",), "required", "min_rel max_rel", _cwl("nerr9", lambda k, p: (_whole(k),)), "max_rel"),
    _f(("NERR10",), "none", "p min_rel max_rel", _cwl("nerr10", lambda k, p: (p.get("p", 0.9),)), "max_rel"),
    _f(("NERR11",), "none", "T min_rel max_rel", _cwl("nerr11", lambda k, p: (p.get("T", 1.0),)), "max_rel"),
    _f(("INST",), "none", "T min_rel max_rel", _cwl("inst", lambda k, p: (p.get("T", 1.0),)), "max_rel"),
    _f(("INSQ",), "none", "T min_rel max_rel", _cwl("insq", lambda k, p: (p.get("T", 1.0),)), "max_rel"),
)  # fmt: skip

BY_SPELLING: dict[str, Form] = {s.lower(): form for form in FORMS for s in form.spellings}


@dataclass(frozen=True)
class Variant:
    """A measure asked for as ``Name(params)@k``: printed under ``spec``, the trec_eval ``base.param``
    computed with ``relevance_level``, ``judged_only`` and ``gains`` (sorted ``(grade, gain)`` pairs)."""

    spec: str
    base: str
    param: str | None
    relevance_level: int = 1
    judged_only: bool = False
    gains: tuple[tuple[int, float], ...] | None = None

    @property
    def recsys(self) -> bool:
        """Whether the target is a recommender measure (:mod:`trecrs.measures.recsys`), not trec_eval's."""
        return self.base not in BY_NAME

    def target(self) -> str:
        """The target as ``-m`` names it: ``P.10``, ``map``, ``ndcg_exp.10``."""
        return self.base if self.param is None else f"{self.base}.{self.param}"

    def settings(self) -> tuple:
        """What one engine pass shares: the settings and the measure."""
        return (self.relevance_level, self.judged_only, self.gains, self.base, self.param)


def _literal(node: ast.expr, spec: str):
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise UsageError(f"measure {spec!r}: parameter values must be literals") from None


def _split(spec: str) -> tuple[str, dict, str | None] | None:
    """``P(rel=2)@10`` -> (``P``, {"rel": 2}, ``10``), as ``ir_measures.util.parse_measure`` reads it;
    None when ``spec`` is no call (the plain names of :mod:`trecrs.measures.aliases`)."""
    head, at, k = spec.rpartition("@") if ")@" in spec else (spec, "", "")
    try:
        node = ast.parse(head.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None
    if node.args or any(kw.arg is None for kw in node.keywords):
        raise UsageError(f"measure {spec!r}: parameters must be named (Name(key=value, ...))")
    params = {kw.arg: _literal(kw.value, spec) for kw in node.keywords}
    return node.func.id, params, (k.strip() if at else None)


_BARE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9]*)(?:@(?P<k>[0-9]+))?$")


def parse_bare(spec: str) -> Variant | None:
    """``Compat``, ``Accuracy@20``: a name ir_measures spells exactly so, without parentheses, as
    ``Name()@k`` printed under ``spec``; None for any other string (the names of
    :mod:`trecrs.measures.aliases` are looked up before this)."""
    m = _BARE.match(spec)
    if m is None:
        return None
    form = BY_SPELLING.get(m.group("name").lower())
    if form is None or m.group("name") not in form.spellings:
        return None
    k = m.group("k")
    variant = parse_call(f"{m.group('name')}()" + (f"@{k}" if k else ""))
    assert variant is not None  # written Name()
    return replace(variant, spec=spec)


def parse_call(spec: str) -> Variant | None:
    """``spec`` as a :class:`Variant`, None when it is not written ``Name(...)``; a name ir_measures lacks
    (or trecrs does not compute yet), a parameter the name does not take or a bad value is a UsageError."""
    split = _split(spec)
    if split is None:
        return None
    name, params, k = split
    form = BY_SPELLING.get(name.lower())
    if form is None:
        raise UsageError(
            f"measure {spec!r}: no parameterised measure {name!r} (known: "
            f"{', '.join(f.spellings[0] for f in FORMS)})"
        )
    _check_cutoff(spec, form, k)
    for key, value in params.items():
        if key not in form.params:
            raise UsageError(
                f"measure {spec!r}: {form.spellings[0]} takes no parameter {key!r} "
                f"(it takes {', '.join(sorted(form.params)) or 'none'})"
            )
        ok, what = PARAM_TYPES[key]
        if not ok(value):
            raise UsageError(f"measure {spec!r}: {key} must be {what}")
    missing = sorted(form.required - params.keys())
    if missing:
        raise UsageError(f"measure {spec!r}: {form.spellings[0]} needs {', '.join(f'{m}=' for m in missing)}")
    try:
        base, param = form.target(k, params)
    except UsageError as exc:
        raise UsageError(f"measure {spec!r}: {exc}") from None
    gains = params.get("gains")
    return Variant(
        spec,
        base,
        param,
        params.get("rel", 1),
        params.get("judged_only", False),
        None if gains is None else tuple(sorted(gains.items())),
    )


class MeasureObject(Protocol):
    """An ir_measures measure object, as far as trecrs reads it."""

    NAME: str
    params: dict
    AT_PARAM: str


def is_measure_object(obj: object) -> TypeGuard[MeasureObject]:
    """Whether ``obj`` is an ir_measures measure object (``ir_measures.nDCG@10``), recognised by the attributes
    ``ir_measures.measures.base.Measure`` defines (``NAME``, ``params``, ``AT_PARAM``): trecrs never imports
    ir_measures."""
    return not isinstance(obj, str) and all(
        isinstance(getattr(obj, a, None), t) for a, t in (("NAME", str), ("params", dict), ("AT_PARAM", str))
    )


def from_object(obj: MeasureObject) -> str | Variant:
    """An ir_measures measure object as ``-m`` would take it, printed under ``str(obj)`` (ir_measures' own
    spelling: ``nDCG@10``, ``AP(rel=2)``, ``nDCG(gains={1:3})@5``).

    A name of :data:`FORMS` becomes the :class:`Variant` of ``NAME(params)@cutoff`` (``obj.params``, the
    ``AT_PARAM`` one as the cutoff): like the parameterised string, it takes ir_measures' defaults for the
    parameters left out, not the global flags, as the object names one ir_measures measure (``P@5`` is
    ``P(rel=1)@5`` whatever ``relevance_level``). Other names are returned as ``str(obj)``, read as the
    plain names are (or refused as unknown)."""
    params = dict(obj.params)
    form = BY_SPELLING.get(obj.NAME.lower())
    if form is None:
        return str(obj)
    k = params.pop(obj.AT_PARAM, None)
    call = f"{obj.NAME}({', '.join(f'{key}={value!r}' for key, value in params.items())})"
    call = call if k is None else f"{call}@{k}"
    variant = parse_call(call)
    if variant is None:  # a value whose repr is no Python expression
        raise UsageError(f"measure {call!r}: parameter values must be literals")
    return replace(variant, spec=str(obj))


def _check_cutoff(spec: str, form: Form, k: str | None) -> None:
    if k is None and form.cutoff == "required":
        raise UsageError(f"measure {spec!r}: {form.spellings[0]} needs a cutoff (@k)")
    if k is not None and form.cutoff == "none":
        raise UsageError(f"measure {spec!r}: {form.spellings[0]} takes no cutoff")
    if k is not None:
        try:
            float(k)
        except ValueError:
            raise UsageError(f"measure {spec!r}: the cutoff must be a number") from None


def listing() -> list[str]:
    """One line per parameterised name for ``trecrs eval --list-measures``: its spellings, cutoff and
    parameters (``P(rel=, judged_only=)@k``)."""
    cut = {"required": "@k", "optional": "[@k]", "none": ""}
    out = []
    for form in FORMS:
        params = ", ".join(f"{p}=" for p in sorted(form.params))
        needs = f"  [needs {', '.join(f'{r}=' for r in sorted(form.required))}]" if form.required else ""
        out.append(f"  {'/'.join(form.spellings)}({params}){cut[form.cutoff]}{needs}")
    return out
