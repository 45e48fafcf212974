"""The registry of recommender-specific measures, their request syntax, and the data they are computed on.

Request syntax follows trec_eval's ``-m``: ``name`` or ``name.params``. Three parameter styles:

* ``none``: no parameters (``auc``, ``ndpm``, ``user_coverage``).
* ``cutoffs``: a comma-separated list of positive integers, one output per cutoff, named ``name_k``
  (``lauc.10,20`` prints ``lauc_10`` and ``lauc_20``). Without parameters the measure is computed on the
  whole ranking and printed under its bare name (``ndcg_exp`` = no cutoff).
* ``values``: a comma-separated list of numbers giving one output named ``name_params`` with the parameters
  as typed (``halflife.5,3`` prints ``halflife_5,3``; trec_eval's ``utility.1,-1,0,0`` style). Missing
  trailing parameters take their defaults; without parameters the output is the bare name.

Unlike trec_eval (which keeps the first parameter list given for a measure), repeated requests accumulate:
``-m lauc.10 -m lauc.20`` prints both. Outputs print in registry order (the order of
``trecrs eval --list-measures``), cutoffs ascending, after every trec_eval measure.

Data a measure sees (:class:`Context`): the run as trec_eval ranks it (:func:`trecrs.ordering.trec_order`), cut at
``-M``, restricted to the evaluated queries, with unjudged documents removed under ``-J``; each retrieved
document's qrels value ``rel`` and ``relevant = rel >= level`` (``-l``). L_u, the candidate set of a query,
is the set of documents the run retrieved for it. R_u is the set of the query's qrels documents with
``rel >= level``; relevant documents the run did not retrieve count as ranked below every retrieved one.
The catalogue I (coverage, Gini, the long tail's size...) is the item catalogue given (``items=``,
``--items``), else the training items plus every item the run retrieved (:attr:`Context.catalogue`).

Aggregation: unless a measure says otherwise, the summary (``all``) is the arithmetic mean over the
evaluated queries of the per-query values that are defined; a query whose value is undefined (e.g. AUC
of a list without non-relevant documents) prints no per-query line, is left out of the mean, and is
counted in a note. With ``opr_average="user"`` (One-Plus-Random), per-query values are first averaged over
each user's cases, then over users.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, TypeVar, overload

import numpy as np
import polars as pl

from ...data.popularity import HEAD_SHARE
from ...errors import UsageError
from ...protocol.one_plus_random import case_ids, user_means
from ...schema import DOC, ITEM, QUERY, RANK, REL, USER
from ..trec_eval import HIGHER, LOWER, NEITHER

# parameter styles
NO_PARAMS = "none"
CUTOFFS = "cutoffs"
VALUES = "values"

# summary kinds
MEAN = "mean"  # arithmetic mean of the defined per-query (per-unit) values
REDUCE = "reduce"  # a function of the defined per-unit values (gmap, hmap, qmap)
GLOBAL = "global"  # computed from the whole evaluation, not from per-query values (gini, coverage, ...)

VALUE = "value"
RELEVANT = "relevant"
UNRETRIEVED = "unretrieved"  # count of relevant docs a query did not retrieve

_T = TypeVar("_T")

FAMILIES = ("classification", "ranking", "error", "beyond", "opr", "custom")


@dataclass(frozen=True)
class ExtraMeasure:
    """One recommender-specific measure.

    ``per_query(ctx, param) -> DataFrame(query, value)`` gives the value of every evaluated query, a query
    with an empty ranking included (null = undefined); ``None`` for measures that exist only as a summary.
    ``summary``: :data:`MEAN` (default), :data:`REDUCE` with ``reduce(values) -> float``, or :data:`GLOBAL`
    with ``global_summary(ctx, param, per_query_frame) -> float``.
    ``param`` is ``None`` (no parameters / whole ranking), an int cutoff, or a tuple of floats.
    ``better``: :data:`HIGHER` (default), :data:`LOWER` when the definition says lower is better (errors,
    NDPM, fallout), :data:`NEITHER` for a description that is not a quality (Gini, ARP, entropy).
    """

    name: str
    family: str
    doc: str
    source: str
    per_query: Callable | None
    summary: str = MEAN
    reduce: Callable[[np.ndarray], float] | None = None
    global_summary: Callable | None = None
    params: str = NO_PARAMS
    param_names: tuple[str, ...] = ()
    defaults: tuple[float, ...] = ()
    needs: tuple[
        str, ...
    ] = ()  # "train", "test", "predictions", "item_features", "catalogue" (train or items)
    print_per_query: bool = True  # False: per-query values feed the summary only (gmap, ...)
    undefined_when: str = ""  # when a per-query value is undefined (null), in words
    aliases: tuple[str, ...] = ()
    aggregate: str = "mean over queries"  # how the summary is formed, in words (docs, --list-measures)
    validate: Callable | None = None  # validate(param) raises UsageError
    better: str = HIGHER  # which way the measure improves (trecrs.measures.direction.better)
    ties: str = ""  # how tied scores touch it (.ties: FREE, FREE_WHOLE, MONOTONE; "" no tie-aware form)
    expected: Callable | None = (
        None  # expected(ctx, param) -> (query, value) under --ties expected (MONOTONE)
    )
    ties_depth: bool = (
        True  # False: it counts the non-relevant documents -M leaves, which the order of a tie group
    )
    # the -M cut straddles decides: its tie-aware forms are refused with -M


REGISTRY: dict[str, ExtraMeasure] = {}
ALIASES: dict[str, str] = {}
# called, in order, when a name is not found and before the measures are listed, until one returns True
# (it registered something): the entry points of measures of the user's own (.custom), loaded lazily
UNKNOWN_NAME_HOOKS: list[Callable[[], bool]] = []


def _load_more() -> bool:
    """Run the hooks of :data:`UNKNOWN_NAME_HOOKS`; whether any loaded measures."""
    return any([hook() for hook in UNKNOWN_NAME_HOOKS])


def register(measure: ExtraMeasure) -> ExtraMeasure:
    """Add ``measure`` to :data:`REGISTRY`; its name and aliases must be new and not trec_eval's."""
    from ..aliases import bare_spellings
    from ..trec_eval import BY_NAME, base_of
    from ..trec_eval import MEAN as TREC_MEAN

    for name in (measure.name, *measure.aliases):
        if name in REGISTRY or name in ALIASES:
            raise UsageError(f"measure {name!r} already registered")
        if name in BY_NAME or name.lower() in bare_spellings():
            raise UsageError(f"measure {name!r} would shadow a trec_eval measure or an alias")
    # printing looks up trec_eval's table by name prefix: an output name must not look like a count
    base = base_of(measure.name)
    if base is not None and (BY_NAME[base].integer or BY_NAME[base].aggregate != TREC_MEAN):
        raise UsageError(f"measure {measure.name!r} would print like trec_eval's {base}")
    if measure.better not in (HIGHER, LOWER, NEITHER):
        raise UsageError(f"measure {measure.name!r}: better must be {HIGHER}, {LOWER} or {NEITHER}")
    if measure.family not in FAMILIES:
        raise UsageError(f"unknown family {measure.family!r}")
    REGISTRY[measure.name] = measure
    for a in measure.aliases:
        ALIASES[a] = measure.name
    return measure


# --------------------------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class Output:
    """One printed value: its output name, its measure and parameter."""

    name: str
    measure: ExtraMeasure
    param: object  # None, int cutoff, or tuple of floats


def ordered() -> list[ExtraMeasure]:
    """Every registered measure, family by family (:data:`FAMILIES` order), then in registration order."""
    return sorted(REGISTRY.values(), key=lambda m: FAMILIES.index(m.family))


def lookup(name: str) -> ExtraMeasure | None:
    """The measure registered under ``name`` or one of its aliases, or None."""
    if name in REGISTRY:
        return REGISTRY[name]
    if name in ALIASES:
        return REGISTRY[ALIASES[name]]
    return None


def output_measure(name: str) -> ExtraMeasure | None:
    """The measure a printed output name belongs to: itself, or the longest ``name_...`` prefix
    (``ild_10`` -> ``ild``, ``nmae_1,5`` -> ``nmae``), or None."""
    head = name
    while True:
        found = lookup(head)
        if found is not None:
            return found
        if "_" not in head:
            return None
        head = head.rsplit("_", 1)[0]


def parse_spec(spec: str) -> list[Output] | None:
    """``name[.params]`` -> its outputs, or None when ``name`` is not a registered measure.

    Raises :class:`UsageError` for a known measure with bad parameters.
    """
    base, dot, p = spec.partition(".")
    m = lookup(base)
    if m is None and _load_more():
        m = lookup(base)
    if m is None:
        return None
    if dot and not p:
        raise UsageError(f"measure {spec!r}: empty parameter list")
    if m.params == NO_PARAMS:
        if p:
            raise UsageError(f"measure {m.name} takes no parameters (got {spec})")
        return [Output(m.name, m, None)]
    if m.params == CUTOFFS:
        if not p:
            if m.validate:
                m.validate(None)
            return [Output(m.name, m, None)]
        try:
            ks = sorted({int(x) for x in p.split(",")})
        except ValueError:
            raise UsageError(f"measure {spec}: cutoffs must be integers") from None
        if ks[0] <= 0:
            raise UsageError(f"measure {spec}: cutoffs must be positive")
        return [Output(f"{m.name}_{k}", m, k) for k in ks]
    # VALUES
    if not p:
        param = tuple(float(d) for d in m.defaults)
        if m.validate:
            m.validate(param)
        return [Output(m.name, m, param)]
    try:
        given = [float(x) for x in p.split(",")]
    except ValueError:
        raise UsageError(f"measure {spec}: parameters must be numbers ({', '.join(m.param_names)})") from None
    if len(given) > len(m.param_names):
        raise UsageError(
            f"measure {spec}: at most {len(m.param_names)} parameters ({', '.join(m.param_names)})"
        )
    if any(not math.isfinite(v) for v in given):
        raise UsageError(f"measure {spec}: parameters must be finite numbers")
    param = tuple(given) + tuple(float(d) for d in m.defaults[len(given) :])
    if m.validate:
        m.validate(param)
    return [Output(f"{m.name}_{p}", m, param)]


def resolve(specs) -> list[Output]:
    """All outputs of the requested specs, merged (duplicates once) and in registry order."""
    seen: dict[str, Output] = {}
    for spec in specs:
        outs = parse_spec(spec)
        if outs is None:
            raise UsageError(f"unknown measure {spec!r}")
        for o in outs:
            seen.setdefault(o.name, o)
    order = {m.name: i for i, m in enumerate(ordered())}

    def key(o: Output):
        p = o.param
        sub = (0, 0.0) if p is None else (1, float(p)) if isinstance(p, int) else (2, 0.0)
        return (order[o.measure.name], sub, o.name)

    return sorted(seen.values(), key=key)


def listing() -> list[str]:
    """One line per registered measure for ``trecrs eval --list-measures``: syntax, needs, definition (and
    where a measure of the user's own comes from)."""
    _load_more()
    lines = []
    for m in ordered():
        syntax = {
            NO_PARAMS: m.name,
            CUTOFFS: f"{m.name}.k[,...]"
            if m.family == "custom"
            else f"{m.name}[.k,...]",  # custom: k required
            VALUES: f"{m.name}[.{','.join(m.param_names)}]",
        }
        extra = []
        if m.needs:
            extra.append("needs " + ", ".join(NEED_OPTIONS.get(n, f"--{n}") for n in m.needs))
        if m.aliases:
            extra.append("alias " + ", ".join(m.aliases))
        if m.family == "custom":
            extra.append(f"custom, from {m.source}")
        tail = f" [{'; '.join(extra)}]" if extra else ""
        lines.append(f"  {syntax[m.params]:<22} {m.doc}{tail}")
    return lines


# --------------------------------------------------------------------------------------------- context

#: How ``--list-measures`` names a need that more than one option meets.
NEED_OPTIONS = {"catalogue": "--train or --items"}
_NOUNS = {
    "train": "the training ratings",
    "test": "the test ratings",
    "predictions": "the predicted ratings",
    "item_features": "the item categories",
    "catalogue": "the item catalogue",
}


@dataclass
class Context:
    """What a measure is computed from (see the module docstring for the conventions)."""

    qrels: pl.DataFrame  # query, doc, rel of the evaluated queries
    run: pl.DataFrame  # query, doc, score of the evaluated queries (cut at -M already)
    queries: list[str]  # evaluated queries in bytewise order (qrels queries missing from the run under -c)
    level: int = 1
    judged_only: bool = False
    all_qrels_queries: int = 0  # number of queries in the whole qrels (user coverage)
    train: pl.DataFrame | None = None  # user, item, rating
    test: pl.DataFrame | None = None
    predictions: pl.DataFrame | None = None  # user, item, score
    head_share: float = HEAD_SHARE
    item_features: pl.DataFrame | None = None  # item, category (one row per pair)
    item_groups: pl.DataFrame | None = None  # item, group (item_mad's groups instead of head/tail)
    ties: str = "trec_eval"  # the tie mode (trecrs.measures.ties); other than trec_eval's, see .ties
    depth: int | None = None  # -M still to apply (tie modes: after the tie groups are ordered or counted)
    items: pl.Series | None = None  # the catalogue given (items=, --items); None: built from the data
    qrels_items: pl.Series | None = None  # documents of the whole qrels (every query, not only the evaluated)
    notes: list[str] = field(default_factory=list)
    cache: dict = field(default_factory=dict)  # intermediate frames shared by measures (e.g. per cutoff)

    def cached(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """``make()`` once per ``key`` for this evaluation."""
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    @cached_property
    def ranked(self) -> pl.DataFrame:
        """``query, doc, rank, rel, relevant``: the run in trec_eval order, 1-based ranks, qrels joined; under
        another tie mode the order (or the tie columns) of :func:`.ties.ranked`."""
        from .ties import ranked

        out = ranked(
            self.run,
            self.qrels,
            level=self.level,
            judged_only=self.judged_only,
            mode=self.ties,
            depth=self.depth,
            score_dtype=np.float32,
        )
        return out.select(QUERY, DOC, RANK, REL, RELEVANT, *[c for c in out.columns if c.startswith("tie_")])

    @cached_property
    def stats(self) -> pl.DataFrame:
        """Per evaluated query: ``num_ret`` (n), ``num_rel`` (R), ``num_rel_ret``, ``num_nonrel_ret`` (N)."""
        q = pl.DataFrame({QUERY: self.queries}, schema={QUERY: pl.Utf8})
        ret = self.ranked.group_by(QUERY).agg(
            pl.len().cast(pl.Int64).alias("num_ret"),
            pl.col(RELEVANT).sum().cast(pl.Int64).alias("num_rel_ret"),
        )
        rel = (
            self.qrels.filter(pl.col(REL) >= self.level)
            .group_by(QUERY)
            .agg(pl.len().cast(pl.Int64).alias("num_rel"))
        )
        out = q.join(ret, on=QUERY, how="left").join(rel, on=QUERY, how="left").fill_null(0)
        return out.with_columns((pl.col("num_ret") - pl.col("num_rel_ret")).alias("num_nonrel_ret"))

    def top(self, k: int | None) -> pl.DataFrame:
        """The ranked rows with rank <= k (all of them when k is None)."""
        return self.ranked if k is None else self.ranked.filter(pl.col(RANK) <= k)

    @overload
    def require(self, what: Literal["catalogue"], measure: str) -> pl.Series: ...

    @overload
    def require(
        self, what: Literal["train", "test", "predictions", "item_features"], measure: str
    ) -> pl.DataFrame: ...

    @overload
    def require(self, what: str, measure: str) -> pl.DataFrame | pl.Series: ...

    def require(self, what: str, measure: str) -> pl.DataFrame | pl.Series:
        """The ``train``, ``test``, ``predictions`` or ``item_features`` data, or the ``catalogue`` (the
        items given, else built from the training ratings); a :class:`UsageError` naming the argument if
        absent."""
        if what == "catalogue":
            if self.items is None and self.train is None:
                raise UsageError(
                    f"measure {measure} needs {_NOUNS[what]} (items=) or the training ratings (train=)"
                )
            return self.catalogue
        data: pl.DataFrame | None = getattr(self, what)
        if data is None:
            raise UsageError(f"measure {measure} needs {_NOUNS[what]} ({what}=)")
        return data

    @cached_property
    def item_popularity(self) -> pl.DataFrame:
        """``item, count``: number of training ratings of each item (= users who rated it)."""
        train = self.require("train", "popularity")
        return train.group_by(ITEM).agg(pl.len().cast(pl.Int64).alias("count"))

    @cached_property
    def train_users(self) -> int:
        return int(self.require("train", "popularity").get_column(USER).n_unique())

    @cached_property
    def catalogue(self) -> pl.Series:
        """Items a recommendation could be: the items given (``items=``), else the training items plus every
        item the run retrieved. A given catalogue must hold every item the run retrieves and every
        training item (a :class:`UsageError` names the first one missing)."""
        if self.items is None:
            train = self.require("train", "catalogue").get_column(ITEM)
            return pl.concat([train, self.run.get_column(DOC)]).unique().sort()
        used = [("the run", self.run.get_column(DOC))]
        if self.train is not None:
            used.append(("the training ratings", self.train.get_column(ITEM)))
        for what, ids in used:
            outside = ids.unique().sort()
            outside = outside.filter(~outside.is_in(self.items.implode()))
            if outside.len():
                raise UsageError(
                    f"the item catalogue (items=) lacks {outside.len()} item(s) of {what} (first: "
                    f"{outside[0]!r})",
                    arguments=["items"],
                )
        return self.items.alias(ITEM).unique().sort()

    @cached_property
    def dataset_items(self) -> pl.Series:
        """Every item of the data set as a framework that loads train and test together sees it (RecBole's
        ``num_items`` less its padding id): the items given (``items=``), else :attr:`catalogue` (training
        items and run items) plus the test items, i.e. the qrels documents of every query and the items of
        the test ratings when given."""
        if self.items is not None:
            return self.catalogue
        parts = [self.catalogue, self.qrels.get_column(DOC) if self.qrels_items is None else self.qrels_items]
        if self.test is not None:
            parts.append(self.test.get_column(ITEM))
        return pl.concat([p.alias(ITEM) for p in parts]).unique().sort()

    @cached_property
    def cases(self) -> pl.DataFrame:
        """``query, user, target`` of every evaluated query (see :func:`case_ids`)."""
        known: set[str] = set()
        for data in (self.test, self.train, self.predictions):
            if data is not None:
                known.update(data.get_column(USER).unique().to_list())
        return case_ids(self.queries, self.qrels, known)

    @property
    def query_users(self) -> pl.DataFrame:
        """``query, user``: each evaluated query's user (the query itself, or the user of an OPR case)."""
        return self.cases.select(QUERY, USER)

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)


def safe_div(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """num / den, 0 where den is 0 (the 0/0 := 0 convention of trec_eval and scikit-learn)."""
    return pl.when(den > 0).then(num / den).otherwise(0.0)


def undefined_unless(cond: pl.Expr, value: pl.Expr) -> pl.Expr:
    """``value`` where ``cond`` holds, null (undefined) elsewhere."""
    return pl.when(cond).then(value).otherwise(None)


# --------------------------------------------------------------------------------------------- computing


@dataclass
class ExtrasResult:
    """Per-query values (query + one column per output printed per query), summary values, notes."""

    per_query: pl.DataFrame
    summary: dict[str, float]
    notes: list[str]


def unit_values(frame: pl.DataFrame, users: pl.DataFrame | None = None) -> np.ndarray:
    """The defined values of ``frame`` (query, value) in bytewise query order, or, given ``users`` (query,
    user: One-Plus-Random ``user`` averaging), the mean of each user's defined values in bytewise user order."""
    frame = frame.filter(pl.col(VALUE).is_not_null())
    if users is not None:
        frame = user_means(frame, [VALUE], users)
    else:
        frame = frame.sort(pl.col(QUERY).cast(pl.Binary))
    return frame.get_column(VALUE).to_numpy().astype(np.float64)


def sequential_mean(values: np.ndarray) -> float:
    """Left-to-right mean, as trec_eval accumulates (so summaries do not depend on numpy's pairwise sum)."""
    return float(np.add.accumulate(values)[-1] / values.size)


def compute(outputs: list[Output], ctx: Context, *, opr_average: str | None = None) -> ExtrasResult:
    """Compute every requested output: per-query values (in ``ctx.queries`` order) and summary values."""
    qframe = pl.DataFrame({QUERY: ctx.queries}, schema={QUERY: pl.Utf8})
    columns: dict[str, pl.Series] = {}
    summary: dict[str, float] = {}
    for out in outputs:
        m = out.measure
        for need in m.needs:
            ctx.require(need, out.name)
        frame = None
        if m.per_query is not None:
            fn = m.expected if ctx.ties == "expected" and m.ties == "monotone" else m.per_query
            assert fn is not None  # --ties expected: .ties.check refused a measure without an expected form
            got = fn(ctx, out.param).select(QUERY, pl.col(VALUE).cast(pl.Float64))
            frame = qframe.join(got, on=QUERY, how="left", maintain_order="left")
            undefined = int(frame.get_column(VALUE).is_null().sum())
            if undefined:
                ctx.note(
                    f"{out.name}: undefined for {undefined} of {frame.height} queries ({m.undefined_when}); "
                    "no per-query value, left out of the summary"
                )
            if m.print_per_query:
                columns[out.name] = frame.get_column(VALUE).alias(out.name)
        value: float | None
        if m.summary == GLOBAL:
            assert m.global_summary is not None  # a GLOBAL measure has its global_summary
            value = m.global_summary(ctx, out.param, frame)
        else:
            assert frame is not None  # a MEAN or REDUCE measure has per-query values
            units = unit_values(frame, ctx.query_users if opr_average == "user" else None)
            value = None
            if units.size and m.summary == REDUCE:
                assert m.reduce is not None  # a REDUCE measure has its reduce
                value = float(m.reduce(units))
            elif units.size:
                value = sequential_mean(units)
        if value is None or math.isnan(value):
            ctx.note(f"{out.name}: undefined for every query; no summary value")
            continue
        summary[out.name] = float(value)
    per_query = qframe.with_columns(list(columns.values())) if columns else qframe
    return ExtrasResult(per_query, summary, list(ctx.notes))
