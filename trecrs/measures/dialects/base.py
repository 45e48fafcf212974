"""What a framework dialect is: a framework (prefix, version, source) and its names, each a recommender measure."""

from __future__ import annotations

import re
from dataclasses import dataclass

AS_IS = "as is"  # qrels values unchanged, relevant = rel >= -l
BINARY = "binary"  # rel >= -l becomes 1, evaluated at level 1
SHIFTED = "shifted"  # rel >= -l becomes rel - l + 1, evaluated at level 1
GRADED = "graded"  # rel >= -l keeps its value, the rest 0 (negative kept), evaluated at level 1

# The users a name averages over (Dialect.users): those the framework forms its mean over
QRELS_USERS = "qrels"  # the qrels users the run ranks (trec_eval's evaluated queries)
ALL_QRELS_USERS = "all qrels"  # every qrels user, ranked or not (no ranking: an empty list)
RUN_USERS = "run"  # every user the run ranks, in the qrels or not
TRAIN_USERS = "train"  # every user of the training ratings, ranked or not (no ranking: an empty list)
#: How --list-measures and the docs name each user set.
USER_SETS = {
    QRELS_USERS: "the qrels users the run ranks",
    ALL_QRELS_USERS: "every qrels user, ranked or not",
    RUN_USERS: "every user the run ranks",
    TRAIN_USERS: "every training user",
}

#: What a name measures, across frameworks (``trecrs definitions`` lists every definition of one):
#: concept -> the trec_eval measure (``{k}`` = the cutoff) that is the reference for it, "" when none.
CONCEPTS: dict[str, str] = {
    "precision": "P.{k}", "recall": "recall.{k}", "ndcg": "ndcg_cut.{k}", "map": "map_cut.{k}", "mrr": "",
    "hit": "success.{k}", "f1": "", "dcg": "", "rbp": "", "auc": "", "coverage": "", "gini": "", "popularity": "",
    "tail": "", "entropy": "", "novelty": "", "diversity": "",
}  # fmt: skip


@dataclass(frozen=True)
class Dialect:
    """One framework measure: its name as the framework spells it, the recommender measure computing it
    (``{k}`` = the cutoff), the qrels it is computed on, the users it averages over (:attr:`users`, of
    whom, with :attr:`needs_relevant`, only those with a relevant document), and for docs/--list-measures
    its definition and the trecrs measure it equals (or "new")."""

    name: str
    target: str
    definition: str
    equals: str
    qrels: str = BINARY
    needs_relevant: bool = True
    cutoff: bool = True  # whether the name takes @k (required) or none
    concept: str = ""  # what the name measures, one of CONCEPTS ("" none): trecrs definitions groups by it
    persistence: bool = False  # the name carries a parameter as ranx's rbp.95 does: {p} = 0.95 in the target
    users: str = QRELS_USERS  # the users the framework averages over, one of USER_SETS

    def user_set(self) -> str:
        """The users the mean is over, in words: ``the qrels users the run ranks, with a relevant document``."""
        return USER_SETS[self.users] + (", with a relevant document" if self.needs_relevant else "")

    def spelling(self) -> str:
        """How the name is typed: ``NDCG@k``, ``gauc``, ``rbp.PP``."""
        return self.name + (".PP" if self.persistence else "") + ("@k" if self.cutoff else "")

    def arguments(self, name: str, case_insensitive: bool = False) -> dict[str, str] | None:
        """The values of the ``{param}`` placeholders of :attr:`name` (``F1Beta(beta={beta})``: a number
        each, passed to :attr:`target`) when ``name`` spells this measure, else None."""
        parts = re.split(r"\{(\w+)\}", self.name)
        pattern = "".join(
            re.escape(p) if n % 2 == 0 else rf"(?P<{p}>[0-9]+(?:\.[0-9]+)?)" for n, p in enumerate(parts)
        )
        m = re.fullmatch(pattern, name, re.IGNORECASE if case_insensitive else 0)
        return None if m is None else m.groupdict()


@dataclass(frozen=True)
class Framework:
    """A prefix: the framework, the version whose source defines its names, the source files, the names."""

    prefix: str
    label: str
    source: str
    case_insensitive: bool
    names: tuple[Dialect, ...]
    levels: bool = False  # a name without -lN has ranx's level 1, not the global -l (every name takes -lN)

    def find(self, name: str) -> Dialect | None:
        """The dialect spelled ``name`` (any case for a case-insensitive framework; a number in place of each
        ``{param}``), or None."""
        return next((d for d in self.names if d.arguments(name, self.case_insensitive) is not None), None)
