"""Tests of skprivsynth.validation: array checks and pass-through validators."""

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline

from skprivsynth.validation import (
    BooleanValidator,
    UnitIntervalValidator,
    check_boolean_matrix,
    check_enough_rows,
    check_n_samples,
    check_unit_interval,
)


# ------------------------------------------------------------------ check functions
def test_check_boolean_matrix_returns_same_array():
    X = np.array([[0.0, 1.0], [1.0, 1.0]])
    assert check_boolean_matrix(X) is X


def test_check_boolean_matrix_names_the_first_bad_column():
    X = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 1.0]])
    with pytest.raises(ValueError, match=r"column 0 has other values\. .*BooleanEncoder"):
        check_boolean_matrix(X)
    with pytest.raises(ValueError, match=r"Xt must be a Boolean.*column 'a' \(index 0\)"):
        check_boolean_matrix(X, name="Xt", feature_names=["a", "b"])


def test_check_unit_interval():
    X = np.array([[0.0, 0.25], [1.0, 0.5]])
    assert check_unit_interval(X) is X
    with pytest.raises(ValueError, match=r"column 0 has values outside it"):
        check_unit_interval(np.array([[0.5, 0.5], [-0.1, 0.2]]))
    with pytest.raises(ValueError, match=r"'w' \(index 1\) has values outside it"):
        check_unit_interval(np.array([[0.5, 1.5]]), feature_names=["v", "w"])


def test_check_unit_interval_rejects_nan():
    # NaN compares False with both bounds: it used to pass silently.
    with pytest.raises(ValueError, match=r"column 1 has values outside it \(or NaN\)"):
        check_unit_interval(np.array([[0.5, np.nan]]))


def test_check_enough_rows():
    check_enough_rows(10, 10, "k", 10)
    with pytest.raises(ValueError, match=r"k=20 needs at least 20 rows in X; got n_samples = 10"):
        check_enough_rows(10, 20, "k", 20)


def test_check_n_samples():
    assert check_n_samples(None, 7) == 7
    assert check_n_samples(np.int64(3), 7) == 3 and isinstance(check_n_samples(np.int64(3), 7), int)
    for bad in (True, 2.0, "3", [3]):
        with pytest.raises(TypeError, match="n_samples must be a positive integer"):
            check_n_samples(bad, 7)
    for bad in (0, -1, np.int32(-5)):
        with pytest.raises(ValueError, match=f"n_samples must be a positive integer.*{bad}"):
            check_n_samples(bad, 7)


# --------------------------------------------------------------------- validators
@pytest.mark.parametrize("Validator", [BooleanValidator, UnitIntervalValidator])
def test_validators_pass_data_through(Validator):
    X = np.array([[0, 1, 1], [1, 0, 1]], dtype=np.int64)
    v = Validator().fit(X)
    Xt = v.transform(X)
    assert Xt.dtype == np.float64
    np.testing.assert_array_equal(Xt, X)
    assert v.inverse_transform(Xt) is Xt
    assert v.n_features_in_ == 3
    assert v.get_feature_names_out().tolist() == ["x0", "x1", "x2"]


@pytest.mark.parametrize("Validator", [BooleanValidator, UnitIntervalValidator])
def test_validators_feature_names_out_honour_input_features(Validator):
    # sklearn semantics: input_features are returned when given, checked against the
    # fitted width and, for a DataFrame fit, against feature_names_in_.
    v = Validator().fit(np.array([[0, 1], [1, 0]]))
    assert v.get_feature_names_out(["a", "b"]).tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="input_features should have length"):
        v.get_feature_names_out(["a", "b", "c"])
    w = Validator().fit(pd.DataFrame({"a": [0, 1], "b": [1, 0]}))
    assert w.get_feature_names_out(["a", "b"]).tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="input_features is not equal to feature_names_in_"):
        w.get_feature_names_out(["b", "a"])


def test_unit_interval_validator_accepts_fractions():
    X = np.array([[0.0, 0.3], [1.0, 0.99]])
    np.testing.assert_array_equal(UnitIntervalValidator().fit_transform(X), X)
    with pytest.raises(ValueError, match=r"must be a Boolean.*column 1 has other values"):
        BooleanValidator().fit(X)


def test_validator_error_names_the_column_never_a_value_nor_a_row():
    df = pd.DataFrame({"a": [0, 1, 1], "b": [1, 0, 3]})
    with pytest.raises(ValueError, match=r"column 'b' \(index 1\) has other values\.") as e:
        BooleanValidator().fit(df)
    assert "3" not in str(e.value) and "row" not in str(e.value)
    with pytest.raises(ValueError, match=r"column 'b' \(index 1\) has values outside it"):
        UnitIntervalValidator().fit(df)
    v = BooleanValidator().fit(df.clip(upper=1))
    assert v.get_feature_names_out().tolist() == ["a", "b"]
    with pytest.raises(ValueError, match=r"column 'a' \(index 0\) has other values"):
        v.transform(pd.DataFrame({"a": [-1, 0], "b": [0, 0]}))


@pytest.mark.parametrize("Validator", [BooleanValidator, UnitIntervalValidator])
def test_validators_reject_nan_inf_1d_empty(Validator):
    with pytest.raises(ValueError, match="NaN"):
        Validator().fit(np.array([[0.0, np.nan]]))
    with pytest.raises(ValueError, match="infinity"):
        Validator().fit(np.array([[0.0, np.inf]]))
    with pytest.raises(ValueError, match="Expected 2D array"):
        Validator().fit(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="0 sample"):
        Validator().fit(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="0 feature"):
        Validator().fit(np.zeros((3, 0)))


@pytest.mark.parametrize("Validator", [BooleanValidator, UnitIntervalValidator])
def test_validators_check_width_and_fitted(Validator):
    with pytest.raises(NotFittedError):
        Validator().transform(np.zeros((2, 2)))
    v = Validator().fit(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="expecting 2 features"):
        v.transform(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        v.transform(np.array([[0.0, np.nan]]))


def test_validator_in_pipeline():
    X = np.array([[0, 1], [1, 1]])
    pipe = make_pipeline(BooleanValidator(), UnitIntervalValidator()).fit(X)
    np.testing.assert_array_equal(pipe.transform(X), X)
    with pytest.raises(ValueError, match="Boolean matrix"):
        pipe.transform(np.array([[0, 2]]))
