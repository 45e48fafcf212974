"""Reference recommenders: the small, fast, seeded baselines the reproduced papers used.

Not a recommender library: just enough to turn a training split into the scores every methodology needs.
Each recommender is fitted on training ratings (``user item rating``) and then scores exactly the
(user, item) pairs it is asked about (:meth:`Recommender.score`), which is what ``trecrs candidates`` /
``trecrs run`` need; the same call on test pairs gives rating predictions for error measures.

A pair the model cannot score (unknown user or item, no neighbour who rated the item, ...) gets no score
from the model: ``score(pairs)`` leaves it out and counts it (``Scores.n_unscored``); with
``unscored="fallback"`` (what ``trecrs recommend`` and :func:`recommend` do) it gets the fallback score,
below every model score, most popular item first (:func:`.base.popularity_below`). NaN is never returned.

Algorithms (:data:`ALGORITHMS`, the registry; :data:`PRESETS` names the configurations of the papers):

========== ==================================================================================== =========
name       rule                                                                                 source
========== ==================================================================================== =========
random     uniform in [0, 1), a hash of (seed, user, item): independent of the pairs asked      -
toppop     number of training ratings of the item (0 for an item nobody rated)                  [C10]
itemavg    mean training rating of the item ("MovieAvg")                                        [C10]
userknn    Mahout user-based kNN: k nearest users (Pearson/cosine over co-rated items),         [M]
           weighted mean of the neighbours' ratings of the item
itemknn    Mahout item-based kNN with adjusted cosine (weighted mean over all the user's items) [M, S01]
mf         biased matrix factorisation mu + b_u + b_i + p_u.q_i, f factors, ALS-WR, seeded      [Z08, K09]
puresvd    r_u . Q . q_i^T, Q = f leading right singular vectors of the zero-filled matrix      [C10 eq.6]
corngbr    b_ui + sum_j d_ij (r_uj - b_uj) / sum_j d_ij, shrunk Pearson, k neighbours          [C10 eq.1]
nncosngbr  b_ui + sum_j d_ij (r_uj - b_uj), shrunk cosine, k neighbours (not normalised)       [C10 eq.2]
ease       x_u B, B = I - P diagMat(1/diag P), P = (X^T X + lambda I)^-1, X binary              [S19 eq.8]
========== ==================================================================================== =========

[C10] Cremonesi, Koren, Turrin, "Performance of recommender algorithms on top-N recommendation tasks",
RecSys 2010. [M] Apache Mahout 0.x Taste: ``GenericUserBasedRecommender`` with
``NearestNUserNeighborhood``, ``GenericItemBasedRecommender``, ``PearsonCorrelationSimilarity``, as used by
Bellogín, Castells, Cantador, "Precision-oriented evaluation of recommender systems: an algorithmic
comparison", RecSys 2011. [S01] Sarwar, Karypis, Konstan, Riedl, "Item-based collaborative filtering
recommendation algorithms", WWW 2001. [Z08] Zhou, Wilkinson, Schreiber, Pan, "Large-scale parallel
collaborative filtering for the Netflix prize", AAIM 2008. [K09] Koren, Bell, Volinsky, "Matrix
factorization techniques for recommender systems", IEEE Computer 2009. [S19] Steck, "Embarrassingly
Shallow Autoencoders for Sparse Data", WWW 2019.

Modules: ``base`` (coded training data, :class:`Recommender`, :class:`Scores`, similarities and baseline
estimates), ``baselines`` (random, toppop, itemavg), ``knn`` (userknn, itemknn, corngbr, nncosngbr),
``mf`` (mf, puresvd), ``ease`` (ease), ``registry`` (names, presets, :func:`make_recommender`).
"""

from .base import Recommender, Scores
from .registry import ALGORITHMS, PRESETS, make_recommender, recommend

__all__ = ["ALGORITHMS", "PRESETS", "Recommender", "Scores", "make_recommender", "recommend"]
