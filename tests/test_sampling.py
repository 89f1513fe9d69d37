import numpy as np
import pytest
from scipy import stats

from skprivsynth._math.sampling import normalize_weights, sample_weighted_records
from skprivsynth.validation import check_random_generator


def test_bootstrap_frequencies_match_weights():
    records = np.eye(4)
    weights = np.array([0.1, 0.2, 0.3, 0.4])
    out = sample_weighted_records(records, weights, 20_000, np.random.default_rng(1), False)
    counts = out.sum(axis=0)
    assert stats.chisquare(counts, 20_000 * weights).pvalue > 1e-3


def test_randomized_rounding_is_bernoulli_of_the_record():
    records = np.array([[0.25, 0.9, 0.0, 1.0]])
    out = sample_weighted_records(records, [1.0], 40_000, np.random.default_rng(2))
    assert set(np.unique(out)) <= {0.0, 1.0}
    np.testing.assert_allclose(out.mean(axis=0), records[0], atol=0.01)
    # Coordinates are rounded independently: no correlation between columns 0 and 1.
    assert abs(np.corrcoef(out[:, 0], out[:, 1])[0, 1]) < 0.02


def test_rounding_refuses_records_outside_unit_interval():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        sample_weighted_records(np.array([[1.5]]), [1.0], 3, np.random.default_rng(0))


@pytest.mark.parametrize("weights", [[-1.0, 2.0], [0.0, 0.0], [np.nan, 1.0], []])
def test_bad_weights(weights):
    with pytest.raises(ValueError, match="weights"):
        normalize_weights(weights)


def test_weights_shape_must_match_records():
    with pytest.raises(ValueError, match="one row per weight"):
        sample_weighted_records(np.eye(3), [1.0, 1.0], 3, np.random.default_rng(0))


def test_check_random_generator():
    assert check_random_generator(3).random() == np.random.default_rng(3).random()
    g = np.random.default_rng(0)
    assert check_random_generator(g) is g
    assert isinstance(check_random_generator(np.random.RandomState(0)), np.random.Generator)
    with pytest.raises(TypeError, match="random_state"):
        check_random_generator("seed")
    with pytest.raises(ValueError, match="random_state"):
        check_random_generator(-1)


class _EdgeGenerator:
    """Returns the largest double below 1 (or 0): the edges of the uniform draws."""

    def __init__(self, value):
        self.value = value

    def random(self, size=None):
        return np.full(size, self.value)


def test_trailing_zero_weight_is_never_drawn_through_round_off():
    # cumsum of ten 0.1 is 0.9999999999999999 < 1 - 2**-53: the old code forced the
    # *last* cumulative entry to 1 and let the largest uniform land on weight 0.
    weights = np.array([0.1] * 10 + [0.0])
    out = sample_weighted_records(np.eye(11), weights, 1, _EdgeGenerator(1 - 2**-53), False)
    assert out.argmax() == 9
    out = sample_weighted_records(np.eye(11), weights[::-1], 1, _EdgeGenerator(0.0), False)
    assert out.argmax() == 1


@pytest.mark.parametrize("rounding", [True, False])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_records_are_rejected(rounding, bad):
    with pytest.raises(ValueError, match="records must be finite"):
        sample_weighted_records([[bad, 0.5]], [1.0], 3, np.random.default_rng(0), rounding)
