"""The valid range of every kind of number trecrs reads from a file or a flag, each declared once.

A value outside its range is refused with one line naming the range, never turned into a wrong result,
a crash or a run of minutes. The table (quantity, range, what happens outside, why) is in
``docs/errors.md`` (section *Numbers*). Callers decide which error class to raise (a flag is a
:class:`~trecrs.errors.UsageError`, a file's value an :class:`~trecrs.errors.InputError` naming its line);
the functions here give the rule and the wording.
"""

from __future__ import annotations

import math
import re

from .errors import UsageError

INT64_MAX = 2**63 - 1  # a C long on the 64-bit systems trec_eval runs on: what its atol() returns
# what C's atol reads: leading white space (isspace), a sign, digits
ATOL_PREFIX = re.compile(r"^[ \t\n\v\f\r]*([+-]?[0-9]+)")


def c_atol(text: str) -> int:
    """A number as trec_eval reads it with C's ``atol`` (glibc ``strtol``): the leading integer, saturated to
    a C long, 0 when there is none (``2x`` is 2, ``x`` is 0, ``1e3`` is 1)."""
    m = ATOL_PREFIX.match(text)
    return 0 if not m else max(-INT64_MAX - 1, min(INT64_MAX, int(m.group(1))))


# Relevance of a qrels line. trec_eval 9.0.8 keeps it in a C long but allocates one counter per grade
# from 0 to the largest (form_res_rels.c), so a grade of 2**31 asks for 16 GB, fails ("Can't calculate
# measure") or is mishandled by pytrec_eval; and its nDCG gain sort compares gains through an int
# (m_ndcg.c comp_rel_gain). Any negative grade means "in the pool, unjudged", so the lower end is the
# whole C long.
REL_MIN = -(2**63)
REL_MAX = 2**31 - 1

# The largest grade handed to trec_eval's own C code (the pytrec_eval engine): its nDCG measures build
# their gain table in time quadratic in the largest grade (m_ndcg.c setup_gains), 13 s for one query at
# 100000 and minutes above. The vectorized engine has no such table and takes any grade in range.
REL_MAX_PYTREC_EVAL = 1000

# Ratings: finite and at most 1e9 in magnitude, so a rating times a scale factor (up to 100) stays an
# exact integer in float64 and its grade can be checked against REL_MAX.
RATING_ABS_MAX = 1e9

# Seeds: numpy's generators take any non-negative integer; trecrs records seeds in manifests and hands
# them to code that keeps them as signed 64-bit integers.
SEED_MAX = INT64_MAX


# The synthetic generator: at most a million users and a million items (MovieLens 20M has 138,000 users
# and 27,000 items); beyond, its dense per-user draws would exhaust memory instead of failing cleanly.
SYNTHETIC_MAX = 10**6
# ... and at most this many users x items: it draws dense users x items matrices (affinities, keys, their
# order), about 40 bytes a cell at its peak; MovieLens 100K is 1.6 million cells. Without it, 10^6 users
# by 10^6 items asked for 8 TB and 10 users by 10^6 items aborted polars when memory was limited.
SYNTHETIC_CELLS_MAX = 4 * 10**6


# Matrix factorisation (ALS): each step solves a (factors + 1)^2 system per user and item and runs the
# given number of sweeps; the papers use 50-150 factors and 15 sweeps. The Gram matrices are built and
# solved in blocks of MF_BLOCK_BYTES, so memory does not grow with the users and items; one system is
# 134 MB at 4,096 factors. The work, about (users + items) x (factors + 1)^3 x iterations operations, is
# held to 10^13 (an hour or so on one core): Netflix-sized data with 100 factors and 15 sweeps is 7.6e12,
# while 10,000 factors on a handful of users would run for days.
MF_FACTORS_MAX = 4_096
MF_ITERATIONS_MAX = 1_000
MF_BLOCK_BYTES = 64 * 2**20
MF_OPERATIONS_MAX = 10**13


# EASE (Steck 2019) inverts the dense items x items Gram matrix: 8 n^2 bytes, twice at the peak (the matrix
# and its inverse), and n^3 operations. MovieLens 20M's 26,744 items take 5.7 GB each and about a minute on
# one core; 40,000 items 12.8 GB each, the most this is meant for.
EASE_ITEMS_MAX = 40_000


# k-fold splits: each fold is a train and a test file (and their manifests), all named and checked before
# the ratings are read; at 10,000 folds that check alone takes seconds, and 2^31 folds would exhaust memory
# naming them. Papers use 5 or 10 folds; leave-one-out is the ``loo`` split.
FOLDS_MAX = 1_000


# A run is cut into this many partitions at most (an ungrouped run when streamed, the dask engine's
# parts): each is a Parquet file written (empty or not), and a task on a cluster, so 2^63 - 1 partitions
# would never end; the dask engine's default is 2 per thread.
PARTITIONS_MAX = 4096


# Krichene & Rendle's correction of sampled metrics (``trecrs sampled``) builds an n x (m + 1) matrix of
# P(sampled rank | exact rank) for a catalogue of n items and m draws, and solves an (m + 1)^2 system:
# 100 draws on 1,000,000 items fit, draws near the size of a large catalogue would need gigabytes.
SAMPLED_CELLS_MAX = 2**25


def relevance_reason(value, high: int = REL_MAX) -> str:
    """The one wording of an out-of-range relevance (without the ``FILE:LINE:`` that callers add);
    ``high`` is :data:`REL_MAX`, or :data:`REL_MAX_PYTREC_EVAL` when trec_eval's C code will compute."""
    if high == REL_MAX_PYTREC_EVAL and REL_MIN <= value <= REL_MAX:
        return (
            f"relevance {value} is outside the range [{REL_MIN}, {high}] of the pytrec_eval engine "
            f"(trec_eval's nDCG code takes minutes on larger grades); the vectorized engine takes up to {REL_MAX}"
        )
    return f"relevance {value} is outside the supported range [{REL_MIN}, {REL_MAX}]"


def rating_reason(text: str) -> str:
    """The one wording of an out-of-range rating (without the ``FILE:LINE:`` that callers add)."""
    return f"rating {text} is outside the supported range [-{RATING_ABS_MAX:.0f}, {RATING_ABS_MAX:.0f}]"


def check_int(value: int, low: int, high: int, what: str, *, arguments=()) -> int:
    """``value`` if ``low <= value <= high``, else a :class:`UsageError` stating the range."""
    if not low <= value <= high:
        raise UsageError(f"{what} must be an integer from {low} to {high}, got {value}", arguments=arguments)
    return value


def check_seed(seed: int | None, *, arguments=("seed",)) -> int | None:
    """A seed (None = none given) in [0, :data:`SEED_MAX`]: what numpy accepts and a signed 64-bit holds."""
    if seed is None:
        return None
    return check_int(seed, 0, SEED_MAX, "seed", arguments=arguments)


def check_finite(value: float, what: str, *, arguments=()) -> float:
    """``value`` if it is a finite number (not NaN, not infinite), else a :class:`UsageError`: NaN
    compares false with everything and infinity makes sums infinite, so neither gives a meaningful result."""
    if not math.isfinite(value):
        raise UsageError(f"{what} must be a finite number, got {value}", arguments=arguments)
    return value
