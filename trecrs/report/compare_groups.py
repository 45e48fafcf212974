"""User groups in a comparison: which compared queries belong to each group's users (``user_groups=``).

``trecrs compare --user-groups`` runs the paired comparison of :mod:`trecrs.report.compare` again on each
group's queries: the same per-query values, the same tests, seeds and query rule, with the correction over
the group's own comparisons. A query's user is the query itself, or the user of a One-Plus-Random case
``user:item`` (:func:`~trecrs.protocol.one_plus_random.case_ids`), as ``trecrs eval --user-groups`` takes
it (:mod:`trecrs.evaluate.groups`); users without a group, and groups none of whose users is compared, form
no group. Groups come in bytewise name order and are labelled ``all:GROUP``, eval's query column for them.
"""

from __future__ import annotations

import polars as pl

from ..errors import UsageError
from ..files.features import as_user_groups
from ..files.frames import as_polars
from ..protocol.one_plus_random import case_ids
from ..schema import GROUP, QRELS_SCHEMA, QUERY, USER

ALL_USERS = "all"


def read_groups(user_groups, group_by: str | None) -> pl.DataFrame | None:
    """The ``user, group`` frame of ``user_groups`` (a file, a frame or a dict; ``group_by`` picks the
    field of MovieLens' ``u.user``/``users.dat``), or None without groups."""
    if user_groups is None:
        if group_by is not None:
            raise UsageError(
                "group_by must come with user_groups=: it picks the field of a MovieLens users file",
                arguments=["group_by"],
            )
        return None
    return as_user_groups(user_groups, group_by)


def group_label(group: str) -> str:
    """How a group's comparison is labelled in every format: ``all:GROUP``."""
    return f"{ALL_USERS}:{group}"


def group_queries(qrels, queries: list[str], groups: pl.DataFrame) -> dict[str, list[str]]:
    """``{group: its users' queries among queries}`` (queries kept in the given order), groups in bytewise
    name order, a group without a compared query left out."""
    qrels = as_polars(qrels, QRELS_SCHEMA, "qrels")
    users = case_ids(queries, qrels, set(groups.get_column(USER).to_list())).select(QUERY, USER)
    frame = users.join(groups, on=USER, how="inner", maintain_order="left")
    names = sorted(frame.get_column(GROUP).unique().to_list(), key=lambda g: g.encode())
    return {g: frame.filter(pl.col(GROUP) == g).get_column(QUERY).to_list() for g in names}
