"""Printing evaluations: trec_eval's exact text, and tidy tables (tsv, csv, json, parquet).

trec_eval's lines are ``"%-22s\\t%s\\t%6.4f"`` (``%ld`` for counts, ``'%s'`` for relstring, the bare tag for
runid); with ``-q`` every query's block comes first (bytewise qid order, measures in table order, the
summary-only measures runid/num_q/gm_* left out), then the summary with query ``all`` unless ``-n``.
"""

from __future__ import annotations

import json
from collections.abc import Set as AbstractSet

import polars as pl

from ..errors import UsageError
from ..evaluate.result import Evaluation
from ..measures.trec_eval import ORDER, base_of, format_float, format_value, printed_per_query
from ..schema import ALL, MEASURE, QUERY, RUN, VALUE

FORMATS = ("trec", "tsv", "csv", "json", "parquet")


def _line(name: str, qid: str, text: str) -> str:
    return "%-22s\t%s\t%s\n" % (name, qid, text)


def _value_lines(ev: Evaluation, column: str, qid: str, value: float) -> list[str]:
    """The lines of one value under each of its names: trec_eval's ``%-22s\t%s\t%6.4f`` (``%ld`` for
    counts); with z-scores (``-Z``) ``Z%-22s\t%s\t%6.4f`` for every measure, counts included
    (``meas_print_single.c``, ``meas_print_final.c``)."""
    if ev.zscores:
        return ["Z" + _line(name, qid, format_float(value)) for name in _names(ev, column)]
    text = format_value(ev.request.measure_of(column), value)
    return [_line(name, qid, text) for name in _names(ev, column)]


def format_trec(ev: Evaluation, *, per_query: bool = False, summary: bool = True) -> str:
    """The exact stdout of ``trec_eval [-q] [-n] ...`` for this evaluation."""
    out: list[str] = []
    cols = ev.columns()
    has_rel = "relstring" in ev.request.params
    printed = ev.request.printed_name
    relstring = printed("relstring")
    if per_query:
        q_cols = [c for c in cols if printed_per_query(ev.request.measure_of(c))]
        # relstring sits in the table between P and recall
        rel_pos = _relstring_position(q_cols, set(ev.extra_columns)) if has_rel else None
        queries = ev.per_query.get_column(QUERY).to_list()
        columns = {c: ev.per_query.get_column(c).to_list() for c in q_cols}
        for i, q in enumerate(queries):
            for j, c in enumerate(q_cols):
                if rel_pos == j:
                    out.append(_line(relstring, q, "'%s'" % ev.relstrings.get(q, "")))
                if columns[c][i] is not None:  # an extra measure undefined for this query prints nothing
                    out.extend(_value_lines(ev, c, q, columns[c][i]))
            if rel_pos is not None and rel_pos >= len(q_cols):
                out.append(_line(relstring, q, "'%s'" % ev.relstrings.get(q, "")))
    if summary:
        for name, value in ev.summary.items():
            if name == "runid":
                out.append(_line("runid", ALL, ev.runid))
            else:
                out.extend(_value_lines(ev, name, ALL, value))
        out.extend(_group_lines(ev))
    return "".join(out)


def _group_lines(ev: Evaluation) -> list[str]:
    """After the summary, with user groups: each averaged measure's line per group (query ``all:GROUP``),
    then its ``NAME_mad`` line (:mod:`trecrs.evaluate.groups`)."""
    out = []
    for column, means in ev.group_means.items():
        for g, value in means.items():
            out.extend(_value_lines(ev, column, f"{ALL}:{g}", value))
        if column in ev.group_mad:
            prefix = "Z" if ev.zscores else ""
            out.extend(
                prefix + _line(f"{name}_mad", ALL, format_float(ev.group_mad[column]))
                for name in _names(ev, column)
            )
    return out


def _names(ev: Evaluation, column: str) -> list[str]:
    """The names a value column is printed under: trec_eval's printed name (``set_F_0.5`` for ``set_F``
    asked for as ``set_F.0.5``) where the column is named after itself, and the aliases as typed."""
    return [ev.request.printed_name(column) if n == column else n for n in ev.printed_names(column)]


def _relstring_position(q_cols: list[str], extras: AbstractSet[str] = frozenset()) -> int:
    rel_order = ORDER["relstring"]
    for j, c in enumerate(q_cols):
        b = base_of(c)
        if c in extras or (b is not None and ORDER[b] > rel_order):
            return j
    return len(q_cols)


def tidy_table(
    evaluations: dict[str, Evaluation], *, per_query: bool = True, groups: bool = True
) -> pl.DataFrame:
    """One ``(run, query, measure, value)`` table for several runs (runid/relstring left out; the user
    groups' rows with ``groups``)."""
    frames = []
    for name, ev in evaluations.items():
        t = ev.tidy(per_query=per_query, groups=groups).filter(pl.col(MEASURE) != "runid")
        frames.append(t.select(pl.lit(name).alias(RUN), pl.col(QUERY), pl.col(MEASURE), pl.col(VALUE)))
    return pl.concat(frames, how="vertical") if frames else pl.DataFrame(schema={RUN: pl.Utf8})


def render(table: pl.DataFrame, fmt: str) -> str:
    """Text rendering of a tidy table: tsv, csv or json (a list of records)."""
    if fmt == "tsv":
        return table.write_csv(separator="\t", float_precision=None)
    if fmt == "csv":
        return table.write_csv()
    if fmt == "json":
        return json.dumps(table.to_dicts(), indent=1, allow_nan=False) + "\n"
    raise UsageError(f"no text rendering for format {fmt!r}; choose from tsv, csv, json")
