"""The measures RecTools defines under its own names where no other trecrs measure gives its value: AP@k
over k or over |R|, partial AUC and pAp@k (Hiranandani et al.), mean inverse user frequency, normalised
average popularity and its popularity-relative serendipity.

Each is the formula of RecTools 0.19.0's own source (``rectools/metrics/*.py``, named per measure),
expressed on trecrs's data conventions (:mod:`.registry`): the ranking is trec_eval's, relevant = qrels
value >= the relevance level, L_k = the top k of the run, R = the query's relevant qrels documents,
above_j = the non-relevant documents the run ranks above rank j (unjudged ones included: RecTools counts
every recommended item outside the test interactions as a negative). The prefixed names
(``rectools:MAP@10``, ``rectools:PartialAUC@10``) of :mod:`trecrs.measures.dialects.rectools` compute
them; docs/measures.md ("Framework dialects") compares them with the other frameworks' definitions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

import polars as pl

from ...schema import ITEM, QUERY, RANK, USER
from ..trec_eval import NEITHER
from .beyond import _recommended, _with_popularity
from .diversity import _per_query
from .frameworks import _ap_sum
from .ranking import cumulative
from .registry import CUTOFFS, RELEVANT, VALUE, Context, ExtraMeasure, register, safe_div, undefined_unless
from .ties import FREE_WHOLE, MONOTONE

F = pl.Float64
RECTOOLS = "RecTools 0.19.0 rectools/metrics"
HIRANANDANI = (
    "Hiranandani, Vijitbenjaronk, Koyejo & Jain 2020 (Optimization and analysis of the pAp@k metric)"
)


def _map_over_k(ctx: Context, k: int | None) -> pl.DataFrame:
    """AP@k divided by k: Σ_{relevant j <= k} P@j / k (|L| without a cutoff); 0 for an empty ranking.

    RecTools' ``MAP(k, divide_by_k=True)`` (``ranking.py``: the sum of the precisions at the relevant
    ranks <= k, ``/ self.k``). At most min(|R|, k)/k: 1 only when the top k is all relevant.
    """
    st = _ap_sum(ctx, k)
    den = pl.col("kk") if k is None else pl.lit(float(k))
    return st.select(QUERY, safe_div(pl.col("s"), den).alias(VALUE))


def _map_over_r(ctx: Context, k: int | None) -> pl.DataFrame:
    """AP@k divided by |R|: Σ_{relevant j <= k} P@j / |R|; 0 without relevant documents (= trec_eval's
    ``map_cut.k``, as a recommender measure a dialect can name).

    RecTools' ``MAP(k)`` (``ranking.py``: the same sum ``/ n_relevant_items``, the user's test items).
    """
    st = _ap_sum(ctx, k)
    return st.select(QUERY, safe_div(pl.col("s"), pl.col("num_rel")).alias(VALUE))


def _partial_auc(capped: bool):
    """pAUC@k (``capped`` False) or pAp@k (True) per query, with k = every non-relevant retrieved document
    without a cutoff."""

    def per_query(ctx: Context, k: int | None) -> pl.DataFrame:
        """Partial AUC of the top k negatives: Σ_{relevant retrieved j, above_j < k} (k − above_j) / (k·|R|);
        pAp@k counts only the first k relevant documents and divides by k·min(|R|, k).

        RecTools' ``PartialAUC`` and ``PAP`` (``auc.py``, ``insufficient_handling="ignore"``: the pairs of
        every relevant document with the k highest-ranked negatives, a relevant document the run did not
        retrieve losing every pair). Without a cutoff k = the query's non-relevant retrieved documents.
        Undefined without relevant documents (or, without a cutoff, without non-relevant retrieved ones).
        """
        st = ctx.stats.select(
            QUERY,
            pl.col("num_rel").cast(F),
            (pl.col("num_nonrel_ret") if k is None else pl.lit(k)).cast(F).alias("kk"),
        )
        c = cumulative(ctx).filter(pl.col(RELEVANT)).join(st, on=QUERY)
        c = c.filter(pl.col("cum_nonrel") < pl.col("kk"))
        if capped:
            c = c.filter(pl.col("cum_rel") <= pl.col("kk"))
        agg = c.group_by(QUERY).agg((pl.col("kk") - pl.col("cum_nonrel")).sum().alias("s"))
        st = st.join(agg, on=QUERY, how="left", maintain_order="left").with_columns(
            pl.col("s").fill_null(0.0)
        )
        positives = pl.min_horizontal("num_rel", "kk") if capped else pl.col("num_rel")
        value = pl.col("s") / (pl.col("kk") * positives)
        return st.select(
            QUERY, undefined_unless((pl.col("num_rel") > 0) & (pl.col("kk") > 0), value).alias(VALUE)
        )

    return per_query


def _miuf(ctx: Context, k: int | None) -> pl.DataFrame:
    """Mean inverse user frequency: mean over L_k of −log2(max(n_i, 1)/|U|), n_i = the training users of
    item i, |U| = the training users; an item without training users counts n_i = 1.

    RecTools' ``MeanInvUserFreq`` (``novelty.py``: ``fillna(1)``, then the mean over the user's top k).
    Undefined for an empty ranking. ``novelty.k`` and ``efd.k`` leave such items out instead.
    """
    train = ctx.require("train", "miuf")
    users = float(train.get_column(USER).n_unique())
    per_item = train.group_by(ITEM).agg(pl.col(USER).n_unique().cast(F).alias("n"))
    rec = _recommended(ctx, k).join(per_item, on=ITEM, how="left").with_columns(pl.col("n").fill_null(1.0))
    agg = rec.group_by(QUERY).agg((-(pl.col("n") / users).log(2)).mean().alias(VALUE))
    return _per_query(ctx, agg)


def _arp_share(ctx: Context, k: int | None) -> pl.DataFrame:
    """Normalised average recommended popularity: mean over L_k of φ(i) / |training ratings| (= ``arp.k``
    / the number of training ratings).

    RecTools' ``AvgRecPopularity(k, normalize=True)`` (``popularity.py``: ``value_counts(normalize=True)``).
    Undefined for an empty ranking.
    """
    total = float(ctx.require("train", "arp_share").height)
    agg = _with_popularity(ctx, k).group_by(QUERY).agg((pl.col("count").cast(F) / total).mean().alias(VALUE))
    return _per_query(ctx, agg)


def _serendipity_pop(ctx: Context, k: int | None) -> pl.DataFrame:
    """Serendipity against popularity: mean over L_k of max(p(j) − pu(i_j), 0)·rel_j, p(j) = (|I| + 1 − j)/|I|
    for the item at rank j, pu(i) = (|I| + 1 − poprank(i))/|I| (0 for an item without training ratings),
    poprank = the dense rank of the item's training ratings count, descending (the most rated items 1).

    RecTools' ``Serendipity`` (``serendipity.py``; its ``catalog`` = I, here the catalogue: the training
    items and every item the run retrieved). Undefined for an empty ranking.
    """
    pop = ctx.item_popularity.with_columns(
        pl.col("count").rank("dense", descending=True).cast(F).alias("poprank")
    )
    n = float(ctx.catalogue.len())
    rec = _recommended(ctx, k).join(pop.select(ITEM, "poprank"), on=ITEM, how="left")
    p_any = pl.when(pl.col("poprank").is_null()).then(0.0).otherwise((n + 1 - pl.col("poprank")) / n)
    p_user = (n + 1 - pl.col(RANK).cast(F)) / n
    term = pl.max_horizontal(p_user - p_any, pl.lit(0.0)) * pl.col(RELEVANT).cast(F)
    return _per_query(ctx, rec.group_by(QUERY).agg(term.mean().alias(VALUE)))


class _Options(TypedDict, total=False):
    """The keyword arguments of :class:`ExtraMeasure` the measures below set."""

    ties: str
    expected: Callable
    needs: tuple[str, ...]
    undefined_when: str
    better: str
    ties_depth: bool


_MEASURES: tuple[tuple[str, str, str, Callable[[Context, int | None], pl.DataFrame], _Options], ...] = (
    ("map_over_k", "AP@k divided by k: Σ_{relevant j<=k} P@j / k (RecTools MAP divide_by_k)",
     f"{RECTOOLS}/ranking.py MAP(divide_by_k=True)", _map_over_k, dict(ties=MONOTONE, expected=_map_over_k)),
    ("map_over_r", "AP@k divided by |R| (= map_cut.k; RecTools MAP@k)", f"{RECTOOLS}/ranking.py MAP",
     _map_over_r, dict(ties=MONOTONE, expected=_map_over_r)),
    ("pauc", "partial AUC of the top k negatives: Σ_{relevant} (k - above)⁺ / (k|R|) (RecTools PartialAUC)",
     f"{RECTOOLS}/auc.py PartialAUC; {HIRANANDANI}", _partial_auc(False),
     dict(undefined_when="no relevant document", ties=MONOTONE, ties_depth=False)),
    ("pap", "pAp@k: pAUC of the first k relevant vs the top k negatives, / (k min(|R|, k)) (RecTools PAP)",
     f"{RECTOOLS}/auc.py PAP; {HIRANANDANI}", _partial_auc(True),
     dict(undefined_when="no relevant document", ties=MONOTONE, ties_depth=False)),
    ("miuf", "mean inverse user frequency -log2(max(n_i, 1)/|U|) of the top k (RecTools MeanInvUserFreq)",
     f"{RECTOOLS}/novelty.py MeanInvUserFreq", _miuf,
     dict(needs=("train",), undefined_when="no recommendation", ties=FREE_WHOLE)),
    ("arp_share", "mean training ratings share φ(i)/|train| of the top k (RecTools AvgRecPopularity normalize)",
     f"{RECTOOLS}/popularity.py AvgRecPopularity(normalize=True)", _arp_share,
     dict(needs=("train",), undefined_when="no recommendation", better=NEITHER, ties=FREE_WHOLE)),
    ("serendipity_pop", "mean of max(p(rank) - p(popularity rank), 0)·rel over the top k (RecTools Serendipity)",
     f"{RECTOOLS}/serendipity.py Serendipity", _serendipity_pop,
     dict(needs=("train",), undefined_when="no recommendation", ties=MONOTONE)),
)  # fmt: skip
for _name, _doc, _src, _fn, _kw in _MEASURES:
    family = "beyond" if "train" in _kw.get("needs", ()) else "ranking"
    register(ExtraMeasure(_name, family, _doc, _src, _fn, params=CUTOFFS, **_kw))
