"""A users x items score matrix encoded as the AllItems run it stands for, without writing that run.

``scores[u, i]`` is the score of item ``item_ids[i]`` for user ``user_ids[u]``; ``exclude`` marks the
pairs that are not candidates — for AllItems (Bellogín, Castells & Cantador 2011) the user's training
items (L_u = I \\ Tr_u). Each row is put in trec_eval's order (:func:`trecrs.ordering.score_doc_key`:
score as a C float descending, ties by item id descending bytewise) with one 64-bit key per cell, so a
6,040 x 3,706 matrix needs a few hundred MB and no string is created per pair.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ...errors import InputError, UsageError
from ...ids import IdCodes
from ...ordering import score_doc_key
from ...schema import DOC, QUERY, REL
from .rank import Encoded


def _check(scores: np.ndarray, users: pl.Series, items: pl.Series, exclude) -> np.ndarray:
    """Validate the matrix and its ids; return the candidate mask (not excluded)."""
    if scores.ndim != 2:
        raise UsageError(f"scores must be a users x items matrix, got shape {scores.shape}")
    if scores.shape != (users.len(), items.len()):
        raise UsageError(f"scores shape {scores.shape} != ({users.len()} users, {items.len()} items)")
    for what, ids in (("user", users), ("item", items)):
        if ids.n_unique() != ids.len():
            dup = ids.filter(ids.is_duplicated())[0]
            raise InputError(None, None, f"{what} id {dup!r} occurs twice")
    cand = np.ones(scores.shape, dtype=bool) if exclude is None else ~np.asarray(exclude, dtype=bool)
    if cand.shape != scores.shape:
        raise UsageError(f"exclude shape {cand.shape} != scores shape {scores.shape}")
    return cand


def encode_matrix(qrels: pl.DataFrame, scores, user_ids, item_ids, *, exclude=None) -> Encoded:
    """The qrels and the matrix's candidate pairs as an :class:`~.rank.Encoded` pair, rows in trec_eval order."""
    scores = np.asarray(scores)
    users = pl.Series(QUERY, [str(u) for u in user_ids], dtype=pl.Utf8)
    items = pl.Series(DOC, [str(i) for i in item_ids], dtype=pl.Utf8)
    cand = _check(scores, users, items, exclude)
    s32 = scores.astype(np.float64, copy=False).astype(np.float32)
    if np.isnan(s32[cand]).any():
        u, i = np.argwhere(np.isnan(s32) & cand)[0]
        raise InputError(None, None, f"score of user {users[int(u)]!r}, item {items[int(i)]!r} is NaN")
    qrels_q, qrels_d = qrels.get_column(QUERY).cast(pl.Utf8), qrels.get_column(DOC).cast(pl.Utf8)
    qvocab = pl.concat([qrels_q.unique(), users]).unique().sort()
    dvocab = pl.concat([qrels_d.unique(), items]).unique().sort()
    ucode = IdCodes(users).encode(qvocab)
    icode = IdCodes(items).encode(dvocab)
    # one key per cell: score descending, then item id descending; non-candidates sort last
    key = score_doc_key(s32, icode[None, :], 32)
    key[~cand] = np.iinfo(np.uint64).max
    order = np.argsort(key, axis=1)
    del key
    n_cand = cand.sum(axis=1)
    keep = np.arange(scores.shape[1])[None, :] < n_cand[:, None]
    cols = order[keep]
    del order
    rows = np.repeat(np.arange(scores.shape[0]), n_cand)
    return Encoded(
        qvocab=qvocab,
        dvocab=dvocab,
        qq=IdCodes(qrels_q).encode(qvocab),
        qd=IdCodes(qrels_d).encode(dvocab),
        qv=qrels.get_column(REL).cast(pl.Int64).to_numpy(),
        qcode=ucode[rows],
        dcode=icode[cols],
        s32=s32[rows, cols],
    )
