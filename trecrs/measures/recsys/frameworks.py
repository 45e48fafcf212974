"""Measures that recommender frameworks compute under familiar names with their own denominators: capped
recall, AP with a min(·) denominator, Elliot's means of precision and recall over every cutoff, P@k
dividing by k, LensKit's unnormalised DCG and rank-biased precision cut at k; RecBole's positives-weighted
GAUC, and its coverage, Gini index and entropy, which count one more item (its padding item) or divide by
the number of distinct items; Elliot's AUC family, normalised by the user's negatives plus one.

Each is the formula of a framework's own source (named per measure), expressed on trecrs's data
conventions (:mod:`.registry`): the ranking is trec_eval's, relevant = qrels value >= the relevance level,
L_k = the top k of the run, R = the query's relevant qrels documents. The prefixed names of
:mod:`trecrs.measures.dialects` (``lenskit:Recall@10``, ``recbole:map@10``, ``elliot:MAP@10``) compute
them; docs/measures.md ("Framework dialects") compares them with trec_eval's measures.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import polars as pl

from ...errors import UsageError
from ...schema import DOC, ITEM, QUERY, RANK, REL, USER
from ..trec_eval import HIGHER, NEITHER
from .beyond import _item_counts, gini_index, shannon_entropy
from .classification import confusion
from .ranking import NO_POS_NEG, _auc, cumulative
from .registry import (
    CUTOFFS,
    GLOBAL,
    REGISTRY,
    RELEVANT,
    VALUE,
    VALUES,
    Context,
    ExtraMeasure,
    register,
    safe_div,
    undefined_unless,
)
from .ties import FREE_WHOLE, MONOTONE, WEIGHT, ap_sums, mean_gain, mean_relevant, per_outcome

F = pl.Float64
LENSKIT = "LensKit 2025.8.1 src/lenskit/metrics/ranking"
RECBOLE = "RecBole 1.2.1 recbole/evaluator/metrics.py"
ELLIOT = "Elliot 0.3.1 elliot/evaluation/metrics/accuracy"


def _hits(ctx: Context, k: int | None) -> pl.DataFrame:
    """Every evaluated query's stats with ``tp`` (relevant in L_k) and ``kk`` (|L_k|), as floats."""
    c = confusion(ctx, k)
    c = c.select(
        QUERY, "tp", (pl.col("tp") + pl.col("fp")).alias("kk"), *[w for w in (WEIGHT,) if w in c.columns]
    )
    return ctx.stats.join(c, on=QUERY, how="left", maintain_order="left").with_columns(
        pl.col("num_rel").cast(F), pl.col("num_ret").cast(F)
    )


def _recall_cap(ctx: Context, k: int | None) -> pl.DataFrame:
    """Capped recall: |L_k ∩ R| / min(|R|, k) (|R| without a cutoff); undefined when R is empty.

    LensKit's ``Recall`` (``_pr.py``: ``len(good) / min(len(test), n)``); BEIR's R_cap@k. Equals
    trec_eval's ``recall.k`` when |R| <= k.
    """
    st = _hits(ctx, k)
    den = pl.col("num_rel") if k is None else pl.min_horizontal(pl.col("num_rel"), pl.lit(float(k)))
    return per_outcome(st, undefined_unless(pl.col("num_rel") > 0, pl.col("tp") / den))


def _precision_cut(ctx: Context, k: int | None) -> pl.DataFrame:
    """|L_k ∩ R| / k, k counted even when fewer than k documents are retrieved (trec_eval's ``P.k``).

    RecBole's ``Precision`` (``pos_index[:, :k].sum() / k``) and Elliot's (``precision/precision.py``).
    Without a cutoff: |L ∩ R| / |L| (0 for an empty ranking).
    """
    st = _hits(ctx, k)
    den = pl.col("kk") if k is None else pl.lit(float(k))
    return per_outcome(st, safe_div(pl.col("tp"), den))


def _ap_sum(ctx: Context, k: int | None) -> pl.DataFrame:
    """Every evaluated query's stats with ``s`` = Σ over relevant ranks j <= k of (relevant at ranks <= j)/j
    (its expectation over the tie orders under ``--ties expected``)."""
    if ctx.ties == "expected":
        hits = _hits(ctx, k).group_by(QUERY, maintain_order=True).first().drop(WEIGHT)  # kk does not vary
        return hits.join(ap_sums(ctx, k), on=QUERY, how="left", maintain_order="left")
    c = cumulative(ctx).filter(pl.col(RELEVANT))
    if k is not None:
        c = c.filter(pl.col(RANK) <= k)
    agg = c.group_by(QUERY).agg((pl.col("cum_rel").cast(F) / pl.col(RANK).cast(F)).sum().alias("s"))
    return (
        _hits(ctx, k)
        .join(agg, on=QUERY, how="left", maintain_order="left")
        .with_columns(pl.col("s").fill_null(0.0))
    )


def _map_cap(ctx: Context, k: int | None) -> pl.DataFrame:
    """AP@k with the denominator min(|R|, k): Σ_{relevant j <= k} P@j / min(|R|, k); 0 when R is empty.

    RecBole's ``MAP`` (``metrics.py``: ``pre.cumsum / ranges`` over the positives, divided by
    ``min(pos_len, k)``). Equals trec_eval's ``map_cut.k`` when |R| <= k.
    """
    st = _ap_sum(ctx, k)
    den = pl.col("num_rel") if k is None else pl.min_horizontal(pl.col("num_rel"), pl.lit(float(k)))
    return st.select(QUERY, safe_div(pl.col("s"), den).alias(VALUE))


def _map_cap_ret(ctx: Context, k: int | None) -> pl.DataFrame:
    """AP@k with the denominator min(|R|, |L_k|): Σ_{relevant j <= k} P@j / min(|R|, |L_k|); undefined for an
    empty ranking, 0 when R is empty.

    LensKit's ``AveragePrecision`` (``_map.py``: ``sum(precisions) / min(len(test), len(recs))`` on the
    truncated list; LensKit itself divides by zero when R is empty). Equals ``map_cap.k`` when at least k
    documents are retrieved, and ``map_cut.k`` when |R| <= |L_k|.
    """
    st = _ap_sum(ctx, k)
    den = pl.min_horizontal(pl.col("num_rel"), pl.col("kk"))
    return st.select(QUERY, undefined_unless(pl.col("kk") > 0, safe_div(pl.col("s"), den)).alias(VALUE))


def _cutoff_sums(ctx: Context, k: int | None) -> pl.DataFrame:
    """Per query: ``n`` = the cutoff (k, or |L| without one), ``sum_p`` = Σ_{n'=1..n} P@n' and
    ``sum_c`` = Σ_{n'=1..n} |L_n' ∩ R|, ranks past the end of a short ranking adding its hits again."""
    c = cumulative(ctx).select(QUERY, RANK, "cum_rel")
    if k is not None:
        c = c.filter(pl.col(RANK) <= k)
    agg = c.group_by(QUERY).agg(
        (pl.col("cum_rel").cast(F) / pl.col(RANK).cast(F)).sum().alias("p"),
        pl.col("cum_rel").cast(F).sum().alias("c"),
    )
    st = _hits(ctx, k).join(agg, on=QUERY, how="left", maintain_order="left").fill_null(0.0)
    n = st.get_column("kk").to_numpy().astype(np.int64)
    cut = n if k is None else np.full(n.shape, k, dtype=np.int64)
    # H(m) = Σ_{j<=m} 1/j: the ranks n < j <= k of a ranking shorter than k keep its tp hits
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, max(int(cut.max(initial=0)), 1) + 1))])
    tp = st.get_column("tp").to_numpy()
    tail_p = tp * (harmonic[cut] - harmonic[np.minimum(n, cut)])
    tail_c = tp * (cut - np.minimum(n, cut))
    return st.with_columns(
        pl.Series("n", cut.astype(np.float64)),
        (pl.col("p") + pl.lit(pl.Series(tail_p))).alias("sum_p"),
        (pl.col("c") + pl.lit(pl.Series(tail_c))).alias("sum_c"),
    )


def _mean_p_cut(ctx: Context, k: int | None) -> pl.DataFrame:
    """The mean of P@1, ..., P@k: (1/k) Σ_{n=1}^{k} |L_n ∩ R| / n (k = |L| without a cutoff); 0 for an
    empty ranking.

    Elliot's ``MAP`` (``map/map.py``: ``np.average([precision(recs[:k], n + 1) for n in range(k)])``): every
    cutoff counts, relevant or not — not average precision, whatever the docstring's formula says.
    """
    st = _cutoff_sums(ctx, k)
    return st.select(QUERY, safe_div(pl.col("sum_p"), pl.col("n")).alias(VALUE))


def _mean_r_cut(ctx: Context, k: int | None) -> pl.DataFrame:
    """The mean of recall@1, ..., recall@k: (1/k) Σ_{n=1}^{k} |L_n ∩ R| / |R|; undefined when R is empty.

    Elliot's ``MAR`` (``mar/mar.py``: ``np.average([recall(recs[:k], n + 1) for n in range(k)])``).
    """
    st = _cutoff_sums(ctx, k)
    value = safe_div(pl.col("sum_c"), pl.col("n") * pl.col("num_rel"))
    return st.select(QUERY, undefined_unless(pl.col("num_rel") > 0, value).alias(VALUE))


def _dcg_jk(ctx: Context, k: int | None) -> pl.DataFrame:
    """Unnormalised DCG with the Järvelin & Kekäläinen discount: Σ_{relevant j <= k} rel_j / max(1, log2 j).

    LensKit's ``DCG`` (``_dcg.py`` with the default ``LogRankWeight``: weight ln 2 / ln max(j, 2)); gain =
    the qrels value of relevant documents. The numerator of ``ndcg_jk.k,2``.
    """
    gain = pl.when(pl.col(RELEVANT)).then(pl.col(REL).cast(F)).otherwise(0.0)
    if ctx.ties == "expected":
        gain = mean_gain()
    disc = pl.max_horizontal(pl.lit(1.0), pl.col(RANK).cast(F).log(2))
    agg = ctx.top(k).group_by(QUERY).agg((gain / disc).sum().alias("dcg"))
    st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left")
    return st.select(QUERY, pl.col("dcg").fill_null(0.0).alias(VALUE))


def _rbp_cut(ctx: Context, param) -> pl.DataFrame:
    """Rank-biased precision of the top K: (1 − p) Σ_{relevant j <= K} p^(j−1) (Moffat & Zobel 2008).

    LensKit's ``RBP`` (``_rbp.py``: geometric weights p^(j−1) over the series sum 1/(1 − p), default
    patience 0.85); binary relevance. Equals trec_eval 10.0's ``rbp.p=P`` on the run cut at K (``-M K``).
    K = 0: the whole ranking.
    """
    k, p = param
    top = ctx.top(None if k == 0 else int(k))
    weight = mean_relevant() if ctx.ties == "expected" else pl.col(RELEVANT).cast(F)
    agg = top.group_by(QUERY).agg((weight * pl.lit(p).pow(pl.col(RANK).cast(F) - 1)).sum().alias("s"))
    st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left")
    return st.select(QUERY, ((1 - p) * pl.col("s").fill_null(0.0)).alias(VALUE))


def _rbp_cut_validate(param) -> None:
    k, p = param
    if k < 0 or k != int(k):
        raise UsageError(
            f"measure rbp_cut: the cutoff must be a positive integer (0 = whole ranking), got {k:g}"
        )
    if not 0 < p < 1:
        raise UsageError(f"measure rbp_cut: the patience p must be between 0 and 1, got {p:g}")


_CUT = (
    ("recall_cap", "capped recall |L_k ∩ R| / min(|R|, k) (LensKit Recall@k)", f"{LENSKIT}/_pr.py Recall",
     _recall_cap, "no relevant document"),
    ("precision_cut", "|L_k ∩ R| / k, as trec_eval's P.k (RecBole, Elliot Precision@k)",
     f"{RECBOLE} Precision; {ELLIOT}/precision/precision.py", _precision_cut, ""),
    ("map_cap", "AP@k divided by min(|R|, k) (RecBole map@k)", f"{RECBOLE} MAP", _map_cap, ""),
    ("map_cap_ret", "AP@k divided by min(|R|, |L_k|) (LensKit AveragePrecision@k)",
     f"{LENSKIT}/_map.py AveragePrecision", _map_cap_ret, "empty ranking"),
    ("mean_p_cut", "mean of P@1..P@k over every cutoff (Elliot MAP@k)", f"{ELLIOT}/map/map.py MAP",
     _mean_p_cut, ""),
    ("mean_r_cut", "mean of recall@1..recall@k over every cutoff (Elliot MAR@k)", f"{ELLIOT}/mar/mar.py MAR",
     _mean_r_cut, "no relevant document"),
    ("dcg_jk", "unnormalised DCG Σ rel_j / max(1, log2 j) of the top k (LensKit DCG@k)",
     f"Järvelin & Kekäläinen 2002; {LENSKIT}/_dcg.py DCG", _dcg_jk, ""),
)  # fmt: skip
_NO_EXPECTED = ("mean_p_cut", "mean_r_cut")  # means of P@1..k: best and worst only
for _name, _doc, _src, _fn, _undefined in _CUT:
    register(
        ExtraMeasure(
            _name,
            "ranking",
            _doc,
            _src,
            _fn,
            params=CUTOFFS,
            undefined_when=_undefined,
            ties=MONOTONE,
            expected=None if _name in _NO_EXPECTED else _fn,
        )
    )
register(
    ExtraMeasure(
        "rbp_cut",
        "ranking",
        "rank-biased precision (1-p) Σ p^(j-1) of the top K; rbp_cut.K,P (defaults: whole ranking (K=0), p=0.85)",
        f"Moffat & Zobel 2008; {LENSKIT}/_rbp.py RBP",
        _rbp_cut,
        params=VALUES,
        param_names=("k", "p"),
        defaults=(0, 0.85),
        validate=_rbp_cut_validate,
        ties=MONOTONE,
        expected=_rbp_cut,
    )
)


# --------------------------------------------------------------------------------------------- RecBole's


def _auc_weighted(ctx: Context, frame: pl.DataFrame) -> float:
    """Σ_u |R_u| AUC_u / Σ_u |R_u| over the queries whose AUC is defined.

    RecBole's ``GAUC`` (``metrics.py``: ``(user_auc * pos_len_list).sum() / pos_len_list.sum()``, users
    without a positive or a negative removed); per query the ROC AUC ``auc``, RecBole's AUC_u over the
    user's candidates (here L_u and the unretrieved relevant documents below it) when no scores tie.
    """
    j = frame.join(ctx.stats.select(QUERY, "num_rel"), on=QUERY, how="left").filter(
        pl.col(VALUE).is_not_null()
    )
    w = j.get_column("num_rel").cast(F).to_numpy()
    return float(np.sum(w * j.get_column(VALUE).to_numpy()) / np.sum(w)) if w.size else math.nan


def _coverage_pad(ctx: Context, k: int | None, frame) -> float:
    """|∪_u L_k(u)| / (|I| + 1), I = every item of the data set: the items given (``items=``), else the
    training items, the test items (qrels documents, test ratings) and the run's items.

    RecBole's ``ItemCoverage`` (``metrics.py``: ``unique_count / num_items``; ``num_items`` =
    ``dataset.num(item_id)``, the items of train, validation and test remapped together plus its ``[PAD]``
    id 0, ``dataset.py`` ``_remap``): ``catalog_coverage.k`` over that catalogue plus one item.
    """
    return _item_counts(ctx, k).height / (ctx.dataset_items.len() + 1)


def _gini_pad(ctx: Context, k: int | None, frame) -> float:
    """The Gini index of the top-k counts over |I| + 1 items (I as ``catalog_coverage_pad``), the
    never-recommended ones as zeros.

    RecBole's ``GiniIndex`` (``metrics.py`` ``get_gini``: Σ (2i − n − 1) x_(i) / (n Σx), n = num_items with
    its ``[PAD]`` item): ``gini.k`` over that catalogue plus one item.
    """
    counts = _item_counts(ctx, k)
    x = (
        pl.DataFrame({ITEM: ctx.dataset_items})
        .join(counts, on=ITEM, how="left")
        .get_column("n")
        .fill_null(0.0)
    )
    return gini_index(np.append(x.to_numpy(), 0.0))


def _entropy_per_item(ctx: Context, k: int | None, frame) -> float:
    """(−Σ_i p_i ln p_i) / m, p_i = the share of the top-k recommendations going to item i, m = the number of
    distinct items recommended.

    RecBole's ``ShannonEntropy`` (``metrics.py`` ``get_entropy``: natural log, ``result / len(item_count)``);
    = ``entropy.k`` · ln 2 / m.
    """
    counts = _item_counts(ctx, k).get_column("n").to_numpy()
    return shannon_entropy(counts) * math.log(2) / counts.size if counts.size else math.nan


register(
    ExtraMeasure(
        "auc_weighted",
        "ranking",
        "ROC AUC per query; summary weighted by the relevant documents, Σ|R_u|AUC_u/Σ|R_u| (RecBole gauc)",
        f"{RECBOLE} GAUC",
        lambda ctx, p: _auc(ctx, None),
        summary=GLOBAL,
        global_summary=lambda ctx, p, frame: _auc_weighted(ctx, frame),
        undefined_when=NO_POS_NEG,
        aggregate="Σ |R_u| AUC_u / Σ |R_u| over the queries with an AUC",
        ties=MONOTONE,
        ties_depth=False,
    )
)
# the same measure under RecBole's own name (its relevant documents are qrels documents, so judged)
register(
    replace(
        REGISTRY["auc_weighted"],
        name="gauc",
        doc="RecBole's GAUC: per query the ROC AUC auc; summary "
        "Σ|R_u|AUC_u/Σ|R_u| over the queries with an AUC (= auc_weighted)",
    )
)
# coverage is better higher; Gini and entropy describe concentration (as gini.k and entropy.k)
for _name, _doc, _src, _summary, _needs, _better in (
    (
        "catalog_coverage_pad",
        "|∪ top k| / (|items of train, test and run| + 1) (RecBole itemcoverage@k)",
        "ItemCoverage",
        _coverage_pad,
        ("catalogue",),
        HIGHER,
    ),
    (
        "gini_pad",
        "Gini index of the top-k counts over |items of train, test and run| + 1 items (RecBole giniindex@k)",
        "GiniIndex",
        _gini_pad,
        ("catalogue",),
        NEITHER,
    ),
    (
        "entropy_per_item",
        "entropy (nats) of the top-k items / number of distinct items (RecBole shannonentropy@k)",
        "ShannonEntropy",
        _entropy_per_item,
        (),
        NEITHER,
    ),
):
    register(
        ExtraMeasure(
            _name,
            "beyond",
            _doc,
            f"{RECBOLE} {_src}",
            None,
            summary=GLOBAL,
            global_summary=_summary,
            params=CUTOFFS,
            needs=_needs,
            aggregate="global",
            better=_better,
            ties=FREE_WHOLE,
        )
    )


def _tail_items(ctx: Context, ratio: float) -> pl.Series:
    """RecBole's tail T: with ratio > 1 the training items with at most ``ratio`` training ratings, else the
    first max(⌊|I_train|·ratio⌋, 1) training items by (count, internal id) ascending.

    RecBole's ``TailPercentage.get_tail`` sorts ``(item, count)`` by ``(count, item)``, the item being its
    internal id: ``dataset.py`` ``_remap`` numbers the items by ``pd.factorize`` over the interactions as
    loaded (the training file first), so among the training items the id order is the order in which they
    first appear in the training data. Here: the row order of the training ratings (the readers keep the
    file's order).
    """
    train = ctx.require("train", "least_rated_share").get_column(ITEM)
    pop = (
        train.to_frame().group_by(ITEM, maintain_order=True).agg(pl.len().alias("count"))
    )  # first appearance
    if ratio > 1:
        return pop.filter(pl.col("count") <= ratio).get_column(ITEM)
    pop = pop.sort("count", maintain_order=True)
    return pop.head(max(int(pop.height * ratio), 1)).get_column(ITEM)


def _least_rated_share(ctx: Context, param) -> pl.DataFrame:
    """The share of the top K in RecBole's tail T: |L_K ∩ T| / K (|L| without a cutoff); 0 for an empty
    ranking.

    RecBole's ``TailPercentage`` (``metrics.py`` ``get_tail``, then ``cumsum / arange``; config
    ``tail_ratio``, default 0.1), reached as ``recbole:tailpercentage@k``. ``least_rated_share.K,R``: K = 0
    the whole ranking, R = ``tail_ratio``. (``tail_percentage.k`` is ``aplt.k``, the short-head rule's tail.)
    """
    k, ratio = param
    kk = None if k == 0 else int(k)
    tail = _tail_items(ctx, ratio)
    agg = (
        ctx.top(kk)
        .group_by(QUERY)
        .agg(pl.col(DOC).is_in(tail.implode()).sum().cast(F).alias("t"), pl.len().cast(F).alias("n"))
    )
    st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left").fill_null(0.0)
    den = pl.col("n") if kk is None else pl.lit(float(kk))
    return st.select(QUERY, safe_div(pl.col("t"), den).alias(VALUE))


def _least_rated_share_validate(param) -> None:
    k, ratio = param
    if k < 0 or k != int(k):
        raise UsageError(
            f"measure least_rated_share: the cutoff must be a positive integer (0 = whole ranking), got {k:g}"
        )
    if ratio <= 0:
        raise UsageError(f"measure least_rated_share: the tail ratio must be positive, got {ratio:g}")


register(
    ExtraMeasure(
        "least_rated_share",
        "beyond",
        "share of the top K in RecBole's tail (the least-rated R share of training items, or count <= R if R > 1); "
        "least_rated_share.K,R (defaults: whole ranking (K=0), R=0.1; recbole:tailpercentage@k)",
        f"{RECBOLE} TailPercentage",
        _least_rated_share,
        params=VALUES,
        param_names=("k", "ratio"),
        defaults=(0, 0.1),
        validate=_least_rated_share_validate,
        needs=("train",),
        better=NEITHER,
        ties=FREE_WHOLE,
    )
)


def _pop_quantile(ctx: Context, k: int | None) -> pl.DataFrame:
    """Mean popularity quantile of the top k: (1/|L_k|) Σ_{i in L_k} q_i, q_i = the average rank of the item's
    number of training users among the items with at least one (ascending, ties averaged) / their number,
    0 for an item without training ratings; undefined for an empty ranking.

    LensKit's ``MeanPopRank`` (``_pop.py``, ``count="users"``: ``counts[counts > 0].rank(method="average")
    / len(pos)``, unseen items 0).
    """
    train = ctx.require("train", "pop_quantile")
    users = train.group_by(ITEM).agg(pl.col(USER).n_unique().alias("c")).filter(pl.col("c") > 0)
    q = users.select(pl.col(ITEM).alias(DOC), (pl.col("c").rank("average") / users.height).alias("q"))
    top = ctx.top(k).join(q, on=DOC, how="left").group_by(QUERY).agg(pl.col("q").fill_null(0.0).mean())
    st = ctx.stats.join(top, on=QUERY, how="left", maintain_order="left")
    return st.select(QUERY, pl.col("q").cast(F).alias(VALUE))


register(
    ExtraMeasure(
        "pop_quantile",
        "beyond",
        "mean popularity quantile (training users, ties averaged) of the top k (LensKit MeanPopRank)",
        f"{LENSKIT}/_pop.py MeanPopRank",
        _pop_quantile,
        params=CUTOFFS,
        needs=("train",),
        undefined_when="no recommendation",
        better=NEITHER,
        ties=FREE_WHOLE,
    )
)


# --------------------------------------------------------------------------------------------- Elliot's AUC


def _positive_scores(ctx: Context, k: int | None) -> pl.DataFrame:
    """Per relevant document at rank j <= k: s_j = (N + 1 − above_j) / (N + 1), above_j = non-relevant
    documents ranked above it, N = |I| − |train_u| − |R| (the user's candidate negatives: the catalogue
    less the user's training items and relevant documents); with the query's ``num_rel``.

    Elliot's ``AUC``/``GAUC``/``LAUC`` (``accuracy/AUC/*.py``: ``neg_num = num_items − train_size −
    len(relevant) + 1``, ``(neg_num − r + p) / neg_num`` for the relevant item at 0-based rank r, p relevant
    items above it).
    """
    train = ctx.require("train", "Elliot's AUC").group_by(USER).agg(pl.col(ITEM).n_unique().alias("train_u"))
    users = ctx.query_users.join(train, on=USER, how="left").select(QUERY, pl.col("train_u").fill_null(0))
    st = ctx.stats.join(users, on=QUERY, how="left").with_columns(
        (ctx.catalogue.len() - pl.col("train_u") - pl.col("num_rel") + 1).cast(F).alias("n1")
    )
    c = cumulative(ctx).filter(pl.col(RELEVANT))
    if k is not None:
        c = c.filter(pl.col(RANK) <= k)
    c = c.join(st.select(QUERY, "n1", "num_rel"), on=QUERY, how="left")
    return c.with_columns(((pl.col("n1") - (pl.col(RANK) - pl.col("cum_rel"))) / pl.col("n1")).alias("s"))


def _auc_n1(ctx: Context, k: int | None, denominator) -> pl.DataFrame:
    """Σ_{relevant j <= k} s_j / ``denominator`` per query; undefined when R is empty."""
    agg = _positive_scores(ctx, k).group_by(QUERY).agg(pl.col("s").sum())
    st = ctx.stats.join(agg, on=QUERY, how="left", maintain_order="left").with_columns(
        pl.col("s").fill_null(0.0)
    )
    value = pl.col("s") / denominator(pl.col("num_rel").cast(F))
    return st.select(QUERY, undefined_unless(pl.col("num_rel") > 0, value).alias(VALUE))


def _gauc_n1(ctx: Context, param) -> pl.DataFrame:
    """(1/|R|) Σ_{relevant retrieved j} (N + 1 − above_j)/(N + 1): Elliot's ``GAUC`` per user (``gauc.py``);
    = (N·auc + 1)/(N + 1) when every relevant document is retrieved among all N negatives."""
    return _auc_n1(ctx, None, lambda r: r)


def _lauc_n1(ctx: Context, k: int | None) -> pl.DataFrame:
    """Σ_{relevant j <= k} (N + 1 − above_j)/(N + 1) / min(k, |R|): Elliot's ``LAUC`` (``lauc.py``), not
    Schröder et al.'s limited AUC (``lauc.k``)."""
    return _auc_n1(ctx, k, lambda r: r if k is None else pl.min_horizontal(r, pl.lit(float(k))))


def _auc_n1_pooled(ctx: Context, param, frame) -> float:
    """The mean of s_j over every (query, retrieved relevant document) pair: Elliot's ``AUC`` (``auc.py``),
    a positives-weighted pooling of ``gauc_n1``'s terms."""
    s = _positive_scores(ctx, None).filter(pl.col("num_rel") > 0).get_column("s").to_numpy()
    return float(np.add.accumulate(s)[-1] / s.size) if s.size else math.nan


_ELLIOT_AUC = f"{ELLIOT}/AUC"
register(
    ExtraMeasure(
        "gauc_n1",
        "ranking",
        "per-user AUC with N+1 negatives, (1/|R|) Σ (N+1-above)/(N+1) (Elliot GAUC)",
        f"{_ELLIOT_AUC}/gauc.py GAUC",
        _gauc_n1,
        needs=("train",),
        undefined_when="no relevant document",
        ties=MONOTONE,
    )
)
register(
    ExtraMeasure(
        "auc_n1",
        "ranking",
        "mean of (N+1-above)/(N+1) over every retrieved relevant document (Elliot AUC)",
        f"{_ELLIOT_AUC}/auc.py AUC",
        lambda ctx, p: _gauc_n1(ctx, p),
        summary=GLOBAL,
        global_summary=_auc_n1_pooled,
        needs=("train",),
        undefined_when="no relevant document",
        aggregate="pooled over (query, retrieved relevant document) pairs",
        ties=MONOTONE,
    )
)
register(
    ExtraMeasure(
        "lauc_n1",
        "ranking",
        "Σ_{relevant j<=k} (N+1-above)/(N+1) / min(k, |R|) (Elliot LAUC)",
        f"{_ELLIOT_AUC}/lauc.py LAUC",
        _lauc_n1,
        params=CUTOFFS,
        needs=("train",),
        undefined_when="no relevant document",
        ties=MONOTONE,
    )
)
