"""The one declaration of trecrs' table schemas: column names and dtypes.

IDs (users, items, queries, documents) are strings everywhere, so that ``"007"`` and ``"7"`` stay different
documents, as they are for trec_eval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

# TREC qrels: ``qid iter docno rel``.
QUERY = "query"
ITER = "iter"
DOC = "doc"
REL = "rel"
QRELS_SCHEMA: dict[str, PolarsDataType] = {QUERY: pl.Utf8, ITER: pl.Utf8, DOC: pl.Utf8, REL: pl.Int64}

# TREC run: ``qid iter docno rank score tag``.
RANK = "rank"
SCORE = "score"
TAG = "tag"
RUN_SCHEMA: dict[str, PolarsDataType] = {
    QUERY: pl.Utf8,
    ITER: pl.Utf8,
    DOC: pl.Utf8,
    RANK: pl.Int64,
    SCORE: pl.Float64,
    TAG: pl.Utf8,
}

# Ratings: ``user item rating [timestamp]``.
USER = "user"
ITEM = "item"
RATING = "rating"
TIMESTAMP = "timestamp"
RATINGS_SCHEMA: dict[str, PolarsDataType] = {
    USER: pl.Utf8,
    ITEM: pl.Utf8,
    RATING: pl.Float64,
    TIMESTAMP: pl.Int64,
}

# Score files written by recommenders / read by ``trecrs run``: ``user item score``.
SCORES_SCHEMA: dict[str, PolarsDataType] = {USER: pl.Utf8, ITEM: pl.Utf8, SCORE: pl.Float64}

# Candidate pairs: ``query user item`` (query = user, or ``user:item`` for One-Plus-Random).
CANDIDATES_SCHEMA: dict[str, PolarsDataType] = {QUERY: pl.Utf8, USER: pl.Utf8, ITEM: pl.Utf8}

# Item categories (``item category``, one row per pair) and user groups (``user group``).
CATEGORY = "category"
GROUP = "group"
ITEM_FEATURES_SCHEMA: dict[str, PolarsDataType] = {ITEM: pl.Utf8, CATEGORY: pl.Utf8}
USER_GROUPS_SCHEMA: dict[str, PolarsDataType] = {USER: pl.Utf8, GROUP: pl.Utf8}

# Evaluation results, tidy: one row per (run, query, measure); query "all" is the aggregate.
MEASURE = "measure"
VALUE = "value"
RUN = "run"
RESULTS_SCHEMA: dict[str, PolarsDataType] = {
    RUN: pl.Utf8,
    QUERY: pl.Utf8,
    MEASURE: pl.Utf8,
    VALUE: pl.Float64,
}

# The per-query id trec_eval prints for the aggregate.
ALL = "all"
