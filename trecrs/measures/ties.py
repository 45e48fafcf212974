"""Score ties: the modes that say how a measure treats documents sharing a score, and the closed forms of
the expected value over every order of the tied documents.

trec_eval breaks a tie by document id (:mod:`trecrs.ordering`), an order that says nothing about the
documents; another tool (ranx, RecTools: file order) gets another value from the same run. A tie group is a
maximal run of one query's documents with the same score as trec_eval compares it (a C ``float`` for 9.x,
a ``double`` for 10.0). Modes (:data:`TIE_MODES`, ``--ties``):

* ``trec_eval``: trec_eval's order (the default: its bytes).
* ``expected``: per query, the mean of the measure over every order of each tie group, all orders equally
  likely (McSherry & Najork, "Computing information retrieval performance measures efficiently in the
  presence of tied scores", ECIR 2008), from closed forms, never by enumeration.
* ``best`` / ``worst``: per query, the largest / smallest value over those orders: each group ordered
  from its most relevant document down (best) or up (worst), which is the extreme order of every measure
  that never decreases when a more relevant document moves above a less relevant one.

The closed forms, for a group of ``t`` documents of which ``r`` are relevant, ``a`` documents above it and
``c`` relevant ones among them (every order of the group equally likely):

* a document at position ``a + j`` of the group (``1 <= j <= t``) is relevant with probability ``r / t``
  and carries the group's mean gain, so sums over positions (precision, recall, DCG) take the means;
* the relevant documents among the first ``m`` positions of the group follow the hypergeometric law
  ``P(x) = C(r, x) C(t - r, m - x) / C(t, m)`` (a measure that is a function of the count at a cutoff);
* the first relevant document of the group is at position ``a + i`` with probability
  ``C(t - i, r - 1) / C(t, r)`` (reciprocal rank);
* average precision's term at position ``a + j`` is
  ``(r / t) (c + 1 + (j - 1)(r - 1) / (t - 1)) / (a + j)`` (McSherry & Najork's eq. for AP).

Every function here works on flat numpy arrays, one entry per query (or per group), so a run of millions of
lines is done in a few passes; distributions are built from log-ratios of consecutive terms, so that groups of
thousands of documents neither overflow nor lose precision.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError


@dataclass(frozen=True)
class TieMode:
    """One way of valuing a ranking with tied scores."""

    name: str
    help: str


TIE_MODES: dict[str, TieMode] = {}
DEFAULT = "trec_eval"


def register_mode(mode: TieMode) -> TieMode:
    """Add ``mode`` to :data:`TIE_MODES` (its name must be new)."""
    if mode.name in TIE_MODES:
        raise UsageError(f"tie mode {mode.name!r} already registered")
    TIE_MODES[mode.name] = mode
    return mode


for _name, _help in (
    ("trec_eval", "trec_eval's order: ties broken by document id, descending (the default; its bytes)"),
    ("expected", "the mean over every order of each group of tied documents (McSherry & Najork 2008)"),
    ("best", "the largest value over those orders: the most relevant tied documents first"),
    ("worst", "the smallest value over those orders: the least relevant tied documents first"),
):
    register_mode(TieMode(_name, _help))


def check_mode(mode) -> str:
    """``mode`` if it names a registered tie mode, else a :class:`UsageError` naming the choices."""
    if not isinstance(mode, str) or mode not in TIE_MODES:
        raise UsageError(f"ties must be one of {', '.join(TIE_MODES)}, got {mode!r}", arguments=["ties"])
    return mode


# --------------------------------------------------------------------------------------------- laws


def _segments(lo: np.ndarray, hi: np.ndarray):
    """Flat layout of the integer ranges ``lo[s] .. hi[s]`` (empty when hi < lo): segment of each entry,
    its value, and the start and length of each segment."""
    n = np.maximum(hi - lo + 1, 0).astype(np.int64)
    starts = np.zeros(n.size, dtype=np.int64)
    np.cumsum(n[:-1], out=starts[1:])
    seg = np.repeat(np.arange(n.size, dtype=np.int64), n)
    x = np.arange(int(n.sum()), dtype=np.int64) - starts[seg] + lo[seg]
    return seg, x, starts, n


def _normalised(seg: np.ndarray, starts: np.ndarray, n: np.ndarray, log_step: np.ndarray) -> np.ndarray:
    """Probabilities from the log-ratio of each term to the one before it (``log_step``; the first term of
    each segment has ratio 1), normalised per segment."""
    if seg.size == 0:
        return np.zeros(0)
    logs = np.cumsum(log_step)
    first = logs[starts[n > 0]]
    logs -= np.repeat(first, n[n > 0])
    top = np.full(n.size, -np.inf)
    np.maximum.at(top, seg, logs)
    w = np.exp(logs - top[seg])
    total = np.bincount(seg, weights=w, minlength=n.size)
    return w / total[seg]


def hypergeometric(t: np.ndarray, r: np.ndarray, m: np.ndarray):
    """The law of the relevant documents among the first ``m`` of ``t`` tied ones, ``r`` relevant.

    ``P(x) = C(r, x) C(t - r, m - x) / C(t, m)`` for ``max(0, m - t + r) <= x <= min(m, r)``. Returns the
    segment (index into the inputs) of each outcome, the outcome ``x`` and its probability.
    """
    t, r, m = (np.asarray(v, dtype=np.int64) for v in (t, r, m))
    lo, hi = np.maximum(0, m - (t - r)), np.minimum(m, r)
    seg, x, starts, n = _segments(lo, hi)
    # P(x) / P(x - 1) = (r - x + 1)(m - x + 1) / (x (t - r - m + x))
    with np.errstate(divide="ignore"):
        step = np.log((r[seg] - x + 1) * (m[seg] - x + 1).astype(np.float64)) - np.log(
            x * (t[seg] - r[seg] - m[seg] + x).astype(np.float64)
        )
    step[starts[n > 0]] = 0.0
    return seg, x, _normalised(seg, starts, n, step)


def expected_count(c0, t, r, m, g=None) -> np.ndarray:
    """``E[g(c0 + X)]`` with ``X`` :func:`hypergeometric` (``t``, ``r``, ``m``), per entry; without ``g`` the
    expected count itself, ``c0 + r m / t``."""
    c0, t, r, m = (np.asarray(v, dtype=np.int64) for v in (c0, t, r, m))
    if g is None:
        return c0 + np.where(t > 0, r * m / np.maximum(t, 1), 0.0)
    seg, x, p = hypergeometric(t, r, m)
    return np.bincount(seg, weights=p * g(c0[seg] + x, seg), minlength=c0.size)


def expected_first(a, t, r, limit) -> np.ndarray:
    """``E[1 / (a + X)]`` counting only ``a + X <= limit``, ``X`` the position of the first of ``r``
    relevant documents among ``t`` tied ones: ``P(X = i) = C(t - i, r - 1) / C(t, r)``. 0 where ``r`` is 0."""
    a, t, r, limit = (np.asarray(v, dtype=np.int64) for v in (a, t, r, limit))
    ok = r > 0
    hi = np.where(ok, t - r + 1, 0)
    seg, i, starts, n = _segments(np.ones_like(hi), hi)
    # P(i) / P(i - 1) = (t - i - r + 2) / (t - i + 1)
    step = np.log((t[seg] - i - r[seg] + 2).astype(np.float64)) - np.log((t[seg] - i + 1).astype(np.float64))
    step[starts[n > 0]] = 0.0
    p = _normalised(seg, starts, n, step)
    pos = a[seg] + i
    value = np.where(pos <= limit[seg], p / pos, 0.0)
    return np.bincount(seg, weights=value, minlength=a.size)


def ap_terms(a, c, t, r, j) -> np.ndarray:
    """Expected average-precision term of position ``a + j`` of a tie group (``t`` documents, ``r``
    relevant, ``a`` documents and ``c`` relevant ones above it): ``(r/t)(c + 1 + (j - 1)(r - 1)/(t - 1)) /
    (a + j)``; for ``t = 1`` the term of a relevant document, ``(c + 1) / (a + 1)``."""
    a, c, t, r, j = (np.asarray(v, dtype=np.float64) for v in (a, c, t, r, j))
    with np.errstate(divide="ignore", invalid="ignore"):
        above = np.where(t > 1, (j - 1) * (r - 1) / (t - 1), 0.0)
    return (r / t) * (c + 1 + above) / (a + j)
