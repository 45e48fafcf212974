"""Recommender-specific measures beyond trec_eval's table, one module per family.

* :mod:`.error`: MAE, RMSE and their normalised, per-user and per-item forms (prediction files);
"""

from .error import error_measures, mae, mse, nmae, nrmse, read_predictions, rmse

__all__ = ["error_measures", "mae", "mse", "nmae", "nrmse", "read_predictions", "rmse"]
