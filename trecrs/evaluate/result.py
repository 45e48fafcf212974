"""What an evaluation gives: :class:`Evaluation` (everything trec_eval prints for one run) and the public
:class:`EvaluationResult` around it (frames, the summary, trec_eval's text, tidy rows, dicts); the
:class:`RunWarning` its warnings about that run are."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, overload

import polars as pl

from ..errors import TrecrsWarning, UsageError
from ..measures.request import MeasureRequest, parse_measures
from ..schema import ALL, MEASURE, QUERY, VALUE
from .formats import FIGURES, TEXT_FORMATS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: A polars DataFrame, or a pandas one when a pandas frame was given (pandas ships no type information).
Frame: TypeAlias = Any

_T = TypeVar("_T")


class RunWarning(TrecrsWarning):
    """A warning about one run scored against the qrels (its coverage, its ties: :mod:`.coverage`,
    :mod:`.ties`): a command that scores several runs names the run in it (``trecrs eval``: ``run.txt:
    ...``, as its notes do)."""


def share(part: int, whole: int, what: str = "") -> str:
    """``"1,234 of 5,678 (21.7%)"``, or with ``what`` ``"1,234 of 5,678 evaluated queries (21.7%)"``:
    counts with thousands separators, the percentage with one decimal."""
    counted = f"{part:,} of {whole:,}" + (f" {what}" if what else "")
    return f"{counted} ({100 * part / whole:.1f}%)" if whole else counted


@dataclass
class Evaluation:
    """Everything trec_eval would print for one run: per-query values, the summary, runid, relstrings."""

    request: MeasureRequest
    per_query: pl.DataFrame  # query + one column per output value, bytewise qid order
    summary: dict[str, float]
    runid: str
    relstrings: dict[str, str] = field(default_factory=dict)
    num_q: int = 0
    notes: list[str] = field(default_factory=list)  # counts of undefined/left-out values (extras)
    extra_columns: list[str] = field(default_factory=list)  # per-query columns of extras (printed last)
    zscores: bool = False  # values are z-scores (-Z): printed as trec_eval prints them, names prefixed "Z"
    group_means: dict[str, dict[str, float]] = field(default_factory=dict)  # column -> {user group: mean}
    group_mad: dict[str, float] = field(default_factory=dict)  # column -> MAD between the group means

    def columns(self) -> list[str]:
        return [c for c in self.per_query.columns if c != QUERY]

    def printed_names(self, column: str) -> list[str]:
        """The names a value column is printed under: its own, or those of the request's
        :attr:`~trecrs.measures.request.MeasureRequest.labels` (``P_10`` -> ``["P@10"]`` for ``-m P@10``;
        ``["P_10", "P@10"]`` for ``-m P.10 -m P@10``), in that order."""
        return list(self.request.labels.get(column, (column,)))

    def group_rows(self) -> pl.DataFrame:
        """``(query, measure, value)`` rows of the user groups (:mod:`trecrs.evaluate.groups`): measure by
        measure, one row per group (query ``all:GROUP``), then ``NAME_mad`` (query ``all``)."""
        rows: list[tuple[str, str, float]] = []
        for column, means in self.group_means.items():
            for name in self.printed_names(column):
                rows.extend((f"{ALL}:{g}", name, v) for g, v in means.items())
                if column in self.group_mad:
                    rows.append((ALL, f"{name}_mad", self.group_mad[column]))
        return pl.DataFrame(rows, schema={QUERY: pl.Utf8, MEASURE: pl.Utf8, VALUE: pl.Float64}, orient="row")

    def tidy(self, *, per_query: bool = True, groups: bool = True) -> pl.DataFrame:
        """``(query, measure, value)`` rows: per-query values (trec_eval's -q lines), the ``all`` rows, then
        with ``groups`` the user groups' rows (:meth:`group_rows`)."""
        frames = []
        if per_query and self.per_query.height:
            per_query_names = {
                c: self.request.per_query_names(c, self.printed_names(c)) for c in self.columns()
            }
            cols = [c for c in self.columns() if per_query_names[c]]
            if cols:
                long = self.per_query.select([QUERY, *cols]).unpivot(
                    index=QUERY, on=cols, variable_name=MEASURE, value_name=VALUE
                )
                # unpivot groups by measure; trec_eval prints query by query
                order = {c: i for i, c in enumerate(cols)}
                long = long.with_columns(
                    pl.col(MEASURE).replace_strict(order, return_dtype=pl.Int64).alias("_m")
                )
                qorder = {q: i for i, q in enumerate(self.per_query.get_column(QUERY).to_list())}
                long = long.with_columns(
                    pl.col(QUERY).replace_strict(qorder, return_dtype=pl.Int64).alias("_q")
                )
                # extras leave undefined per-query values null: no row for them
                long = long.sort(["_q", "_m"]).drop(["_q", "_m"]).filter(pl.col(VALUE).is_not_null())
                frames.append(self._relabelled(long, per_query_names) if self.request.labels else long)
        names = [(n, v) for c, v in self.summary.items() for n in self.printed_names(c)]
        summ = pl.DataFrame(
            {QUERY: [ALL] * len(names), MEASURE: [n for n, _ in names], VALUE: [v for _, v in names]},
            schema={QUERY: pl.Utf8, MEASURE: pl.Utf8, VALUE: pl.Float64},
        )
        frames.append(summ)
        if groups and self.group_means:
            frames.append(self.group_rows())
        rows = pl.concat(frames, how="vertical")
        if self.zscores:  # named as trec_eval prints z-scores
            z = (
                pl.when(pl.col(MEASURE) == "runid")
                .then(pl.col(MEASURE))
                .otherwise(pl.lit("Z") + pl.col(MEASURE))
            )
            rows = rows.with_columns(z.alias(MEASURE))
        return rows

    def per_query_name(self, measure: object) -> str:
        """The name ``measure``'s per-query rows have in :meth:`tidy`: ``measure`` itself when rows have it,
        else the value column it would ask for alone, under the name this evaluation prints it
        (``ndcg_cut.10``, ``nDCG@10`` and ``ndcg_cut_10`` all ask for the column ``ndcg_cut_10``; ``P.10``
        finds ``P@10`` when ``P@10`` was asked for). None, or several (``P``: P_5 ... P_1000), is a
        :class:`~trecrs.errors.UsageError` listing the names that have per-query values."""
        rows = self.tidy(per_query=True, groups=False).filter(pl.col(QUERY) != ALL)
        known = rows.get_column(MEASURE).unique(maintain_order=True).to_list()
        name = str(measure)
        if name in known:
            return name
        try:  # the columns the name asks for, by the rules of -m (labels left out: columns, not names)
            request = parse_measures([measure], trec_eval_version=self.request.trec_eval_version)
            columns = replace(request, labels={}).value_names()
        except UsageError:
            columns = []
        found: list[str] = []
        for column in (c for c in columns if c in self.columns()):
            found += [n for n in self.printed_names(column) if n in known][:1]
        if len(found) == 1:
            return found[0]
        if found:
            raise UsageError(
                f"measure {name!r} has {len(found)} per-query values ({', '.join(found)}): plot one of them",
                arguments=["measure"],
            )
        raise UsageError(
            f"measure {name!r} has no per-query value to plot (per-query values: "
            f"{', '.join(known) or 'none'})",
            arguments=["measure"],
        )

    def _relabelled(self, long: pl.DataFrame, names: dict[str, list[str]]) -> pl.DataFrame:
        """Tidy rows with each value column's rows repeated under each of its ``names`` (of its
        :meth:`printed_names`)."""
        pairs = [(c, n) for c in long.get_column(MEASURE).unique(maintain_order=True) for n in names[c]]
        table = pl.DataFrame({MEASURE: [c for c, _ in pairs], "_name": [n for _, n in pairs]})
        joined = long.with_row_index("_r").join(table, on=MEASURE, how="left", maintain_order="left_right")
        return joined.sort("_r", maintain_order=True).select(QUERY, pl.col("_name").alias(MEASURE), VALUE)


class Summary(dict[Any, float]):
    """A dict of summary values keyed by printed name, where a key that is no string (an ir_measures
    measure object) is looked up as ``str(key)``, the name it prints under."""

    def __missing__(self, key: object) -> float:
        if isinstance(key, str) or not super().__contains__(str(key)):
            raise KeyError(key)
        return self[str(key)]

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key if isinstance(key, str) else str(key))

    @overload
    def get(self, key: object, default: None = None, /) -> float | None: ...
    @overload
    def get(self, key: object, default: float, /) -> float: ...
    @overload
    def get(self, key: object, default: _T, /) -> float | _T: ...

    def get(self, key: object, default: object = None) -> object:
        return self[key] if key in self else default


@dataclass
class EvaluationResult:
    """What :func:`evaluate` returns: per-query values, the summary, trec_eval's text, tidy rows.

    ``per_query`` has one row per evaluated query (trec_eval's order) and one column per value trec_eval
    prints per query, named as printed; ``summary`` maps each summary value's name to its ``all`` value
    (runid left out: :attr:`runid`). Frames are pandas when a pandas frame was given, else polars.
    """

    evaluation: Evaluation
    pandas: bool = False

    @property
    def runid(self) -> str:
        return self.evaluation.runid

    @property
    def per_query(self) -> Frame:
        """``query`` then one column per per-query value (``P_10``, ``map``...), as trec_eval's ``-q`` prints."""
        rows = self.evaluation.tidy(per_query=True, groups=False).filter(pl.col(QUERY) != ALL)
        wide = self.evaluation.per_query.select(QUERY)
        if rows.height:
            wide = wide.join(
                rows.pivot(on=MEASURE, index=QUERY, values=VALUE), on=QUERY, how="left", maintain_order="left"
            )
        return self._frame(wide)

    @property
    def summary(self) -> dict[str, float]:
        """Summary value name -> the ``all`` value trec_eval prints (runid left out); an ir_measures measure
        object given in ``measures`` also finds its value (``summary[ir_measures.nDCG@10]``, as
        ``ir_measures.calc_aggregate`` keys it)."""
        rows = self.evaluation.tidy(per_query=False, groups=False)
        return Summary((m, v) for m, v in zip(rows[MEASURE], rows[VALUE], strict=True) if m != "runid")

    @property
    def groups(self) -> Frame:
        """The user groups' rows (``user_groups=``): ``query, measure, value`` with query ``all:GROUP`` for
        each group's mean of each averaged measure and ``all`` for ``NAME_mad``, the mean absolute
        difference between the group means (:mod:`trecrs.evaluate.groups`); empty without groups."""
        return self._frame(self.evaluation.group_rows())

    def to_trec(self, per_query: bool = False) -> str:
        """Exactly what ``trecrs eval`` (``-q`` with ``per_query``) prints for this evaluation."""
        return TEXT_FORMATS["trec"](self.evaluation, per_query=per_query)

    def tidy(self, per_query: bool = True) -> Frame:
        """``(query, measure, value)`` rows: per query (trec_eval's ``-q`` order), then the ``all`` rows,
        then the user groups' (:attr:`groups`)."""
        return self._frame(self.evaluation.tidy(per_query=per_query).filter(pl.col(MEASURE) != "runid"))

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query: {measure: value}}`` of the per-query values, as pytrec_eval's ``evaluate`` returns."""
        out: dict[str, dict[str, float]] = {}
        for q, m, v in (
            self.evaluation.tidy(per_query=True, groups=False).filter(pl.col(QUERY) != ALL).iter_rows()
        ):
            out.setdefault(q, {})[m] = v
        return out

    def plot(self, measure: object, kind: str = "hist", *, path: str | os.PathLike | None = None) -> Figure:
        """The per-query values of ``measure`` as a matplotlib Figure: ``measure`` a name :attr:`per_query`
        has or one :func:`evaluate` took (``ndcg_cut.10``, ``nDCG@10``, ``P@10``:
        :meth:`Evaluation.per_query_name`); ``kind`` ``"hist"`` a histogram, ``"box"`` a box plot over one
        point per query; the ``all`` value (:attr:`summary`) a dashed line. Saved to ``path`` (PNG, or PDF
        by the suffix) when given, atomically and with the same bytes for the same figure.

        Drawn by the report layer (``FIGURES["distribution"]``, :mod:`trecrs.evaluate.formats` says why);
        matplotlib is imported on the first call.
        """
        name = self.evaluation.per_query_name(measure)
        rows = self.evaluation.tidy(per_query=True, groups=False).filter(pl.col(QUERY) != ALL)
        values = rows.filter(pl.col(MEASURE) == name).get_column(VALUE)
        return FIGURES["distribution"](
            values.to_numpy(),
            measure=name,
            runid=self.runid,
            overall=self.summary.get(name),
            kind=kind,
            path=path,
        )

    def _repr_html_(self) -> str:
        """What a notebook shows: the summary as an HTML table (``TEXT_FORMATS["html"]``), names escaped."""
        return TEXT_FORMATS["html"](self.evaluation)

    def _frame(self, frame: pl.DataFrame) -> Frame:
        return frame.to_pandas() if self.pandas else frame

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v:.4g}" for k, v in list(self.summary.items())[:6])
        more = ", ..." if len(self.summary) > 6 else ""
        return f"EvaluationResult(runid={self.runid!r}, queries={self.evaluation.per_query.height}: {shown}{more})"
