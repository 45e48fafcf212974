"""Error measures against hand-computed values.

The lecture's 10-point example: residuals |p - r| summing to 22 (MAE = 2.2) and squared residuals summing to
50 (RMSE = sqrt(5) = 2.236). The slide prints RMSE = 2.12, i.e. sqrt(45/10): its squared residuals were
summed to 45, an arithmetic slip (eight residuals of 2 and two of 3 give 8*4 + 2*9 = 50). The table below
has exactly those residuals, so the published MAE and the corrected RMSE are what must come out.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from trecrs.errors import InputError, UsageError
from trecrs.files.scores import read_predictions
from trecrs.measures.recsys import error_measures, mae, nmae, nrmse, rmse

# user, item, true rating, predicted rating (residuals: 2 x8, 3 x2)
TABLE = [
    ("1", "a", 5, 3), ("1", "b", 4, 2), ("1", "c", 1, 3), ("1", "d", 2, 4),
    ("2", "a", 5, 3), ("2", "e", 3, 1), ("2", "c", 1, 3),
    ("3", "b", 4, 2), ("3", "a", 5, 2), ("3", "f", 1, 4),
]  # fmt: skip


def frames():
    test = pl.DataFrame(
        {"user": [r[0] for r in TABLE], "item": [r[1] for r in TABLE], "rating": [float(r[2]) for r in TABLE]}
    )
    pred = pl.DataFrame(
        {"user": [r[0] for r in TABLE], "item": [r[1] for r in TABLE], "score": [float(r[3]) for r in TABLE]}
    )
    return pred, test


def test_lecture_table_mae_and_corrected_rmse():
    p = [r[3] for r in TABLE]
    t = [r[2] for r in TABLE]
    assert sum(abs(a - b) for a, b in zip(p, t, strict=True)) == 22
    assert sum((a - b) ** 2 for a, b in zip(p, t, strict=True)) == 50  # not 45 as on the slide
    assert mae(p, t) == pytest.approx(2.2, abs=1e-12)
    assert rmse(p, t) == pytest.approx(math.sqrt(5), abs=1e-12)
    assert rmse(p, t) == pytest.approx(2.236, abs=5e-4)
    assert rmse(p, t) != pytest.approx(2.12, abs=1e-2)
    assert nmae(p, t, 1, 5) == pytest.approx(2.2 / 4)
    assert nrmse(p, t, 1, 5) == pytest.approx(math.sqrt(5) / 4)


def test_error_measures_frame_per_user_and_per_item():
    pred, test = frames()
    got = dict(error_measures(pred, test, rating_range=(1, 5)).iter_rows())
    assert got["mae"] == pytest.approx(2.2)
    assert got["rmse"] == pytest.approx(math.sqrt(5))
    # users: 1 -> residuals 2,2,2,2; 2 -> 2,2,2; 3 -> 2,3,3
    assert got["mae_user"] == pytest.approx((2 + 2 + 8 / 3) / 3)
    assert got["rmse_user"] == pytest.approx((2 + 2 + math.sqrt(22 / 3)) / 3)
    # items: a -> 2,2,3; b -> 2,2; c -> 2,2; d -> 2; e -> 2; f -> 3
    assert got["mae_item"] == pytest.approx((7 / 3 + 2 + 2 + 2 + 2 + 3) / 6)
    assert got["rmse_item"] == pytest.approx((math.sqrt(17 / 3) + 2 + 2 + 2 + 2 + 3) / 6)
    assert got["nmae"] == pytest.approx(0.55)
    assert got["prediction_coverage"] == 1.0
    # default range: the observed test scale, here 1..5 as well
    assert dict(error_measures(pred, test).iter_rows())["nrmse"] == pytest.approx(math.sqrt(5) / 4)


def test_missing_and_extra_predictions_are_counted_not_scored():
    pred, test = frames()
    pred = pred.filter(pl.col("item") != "f")  # user 3's residual-3 item unpredicted
    pred = pl.concat([pred, pl.DataFrame({"user": ["9"], "item": ["z"], "score": [1.0]})])
    got = dict(error_measures(pred, test).iter_rows())
    assert got["n_test"] == 10 and got["n_predicted"] == 9 and got["n_extra"] == 1
    assert got["prediction_coverage"] == pytest.approx(0.9)
    assert got["mae"] == pytest.approx(19 / 9)
    assert got["rmse"] == pytest.approx(math.sqrt(41 / 9))


def test_bad_inputs():
    with pytest.raises(UsageError, match="differ in length"):
        mae([1, 2], [1])
    with pytest.raises(UsageError, match="undefined"):
        rmse([], [])
    pred, test = frames()
    with pytest.raises(InputError, match="duplicate"):
        error_measures(pl.concat([pred, pred.head(1)]), test)


def test_read_predictions(tmp_path):
    f = tmp_path / "pred.txt"
    f.write_text("# user item prediction\n1\ta\t3.5\n1 b  nan\n")
    df = read_predictions(f)
    assert df.columns == ["user", "item", "score"]
    assert df.get_column("score").to_list()[0] == 3.5
    f.write_text("1 a 3.5\n1 b x\n")
    with pytest.raises(InputError, match=r"pred.txt:2: predicted rating is not a number"):
        read_predictions(f)
    f.write_text("1 a 3.5\n1 b 2\n1 a 4\n")
    with pytest.raises(InputError, match=r"pred.txt:3: duplicate prediction .*first seen on line 1"):
        read_predictions(f)
