"""EASE: the item-item linear model of Steck's "Embarrassingly Shallow Autoencoders", in closed form.

Steck, "Embarrassingly Shallow Autoencoders for Sparse Data", WWW 2019, section 3 (eq. 8): with X the
binary users x items matrix of the training ratings, P = (X^T X + lambda I)^-1 and
B = I - P diagMat(1 / diag(P)) (so B_ij = -P_ij / P_jj off the diagonal and B_jj = 0); a user's score of
item j is (X B)_uj.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..ranges import EASE_ITEMS_MAX
from .base import Recommender


class EASE(Recommender):
    """EASE (Steck, WWW 2019): score s_uj = sum_i x_ui B_ij, B the closed-form item-item weights.

    X is the pattern of the training ratings (1 for a rated pair, the ratings' values unused, as Steck's
    binary X); G = X^T X + ``regularization`` * I, P = G^-1, B_ij = -P_ij / P_jj, B_jj = 0 (eq. 8: the
    constraint diag(B) = 0 keeps an item from predicting itself). lambda = 500 is Steck's value for
    MovieLens 20M (Table 1 caption); it must be > 0 so that G is invertible whatever X is. A seen item gets
    its score like any other: candidates decide what is ranked, as for every recommender here. No score
    for an unknown user or item. G is inverted densely (items x items float64, LAPACK's ``getrf``/``getri``
    through numpy), so at most :data:`~trecrs.ranges.EASE_ITEMS_MAX` items.
    """

    name = "ease"
    defaults = {"regularization": 500.0}
    regularization: float

    def _fit(self) -> None:
        d = self._fitted
        lam = float(self.regularization)
        if not lam > 0:
            raise UsageError("ease: regularization must be > 0")
        if d.n_items > EASE_ITEMS_MAX:
            raise UsageError(
                f"ease: {d.n_items:,} items need a dense {d.n_items:,} x {d.n_items:,} inverse; "
                f"at most {EASE_ITEMS_MAX:,} items"
            )
        G = (d.B.T @ d.B).toarray()
        G[np.diag_indices_from(G)] += lam
        P = np.linalg.inv(G)
        del G
        P /= -np.diag(P)[None, :]  # column j divided by -P_jj: B = -P diagMat(1 / diag(P)) off the diagonal
        P[np.diag_indices_from(P)] = 0.0
        self._B = P

    def _block(self, users):
        return np.asarray(self._fitted.B[users] @ self._B)
