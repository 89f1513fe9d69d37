import math

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from skprivsynth import MicroaggregationSynthesizer
from skprivsynth.metrics import covariance_loss
from skprivsynth.synthesizers.microaggregation import covering_parameters


def test_group_sizes_and_exact_mean_on_adult(adult_boolean):
    X = adult_boolean[:20_000]
    for k in (5, 10, 50):
        synth = MicroaggregationSynthesizer(k=k).fit(X)
        assert synth.group_sizes_.min() >= k
        assert synth.group_sizes_.max() < 2 * k
        assert synth.group_sizes_.sum() == X.shape[0]
        np.testing.assert_allclose(
            synth.weights_ @ synth.records_, X.mean(axis=0), atol=1e-12, rtol=0
        )


def test_covariance_loss_attribute_matches_metric(boolean_data):
    synth = MicroaggregationSynthesizer(k=7).fit(boolean_data)
    Y = np.repeat(synth.records_, synth.group_sizes_, axis=0)
    assert synth.covariance_loss_ == pytest.approx(covariance_loss(boolean_data, Y), abs=1e-10)


def test_covariance_loss_decreases_with_n_and_obeys_theorem_rate(adult_boolean):
    """Theorem 1.2: loss of the scaled rows <~ sqrt(log log K / log K), K = n // k."""
    rng = np.random.default_rng(0)
    rows = rng.permutation(adult_boolean.shape[0])
    k = 10
    losses = []
    for n in (1_000, 4_000, 16_000, 48_000):
        X = adult_boolean[rows[:n]]
        synth = MicroaggregationSynthesizer(k=k).fit(X)
        scaled_loss = synth.covariance_loss_ / (X * X).sum(axis=1).max()
        K = n // k
        assert scaled_loss <= math.sqrt(math.log(math.log(K)) / math.log(K))
        losses.append(synth.covariance_loss_)
    assert all(a > b for a, b in zip(losses, losses[1:], strict=False)), losses


def test_larger_k_loses_more_covariance(adult_boolean):
    X = adult_boolean[:10_000]
    losses = [MicroaggregationSynthesizer(k=k).fit(X).covariance_loss_ for k in (2, 10, 100)]
    assert losses[0] < losses[1] < losses[2]


def test_auto_parameters_follow_the_proof_of_theorem_1_2():
    alpha, t = covering_parameters(10_000, 100)
    assert alpha == pytest.approx(math.sqrt(math.log(math.log(10_000)) / math.log(10_000)))
    assert t == math.floor(math.log(100) / math.log(7 / alpha))
    assert covering_parameters(2, 5) == (1.0, 1)
    assert covering_parameters(10**12, 3)[1] == 3  # clipped to p


def test_sample_is_boolean_seeded_and_defaults_to_n(boolean_data):
    synth = MicroaggregationSynthesizer(k=5, random_state=0).fit(boolean_data)
    S = synth.sample()
    assert S.shape == boolean_data.shape
    assert set(np.unique(S)) <= {0.0, 1.0}
    np.testing.assert_array_equal(
        synth.sample(50, random_state=3), synth.sample(50, random_state=3)
    )
    assert not np.array_equal(synth.sample(50), synth.sample(50))  # the stream moves on
    again = MicroaggregationSynthesizer(k=5, random_state=0).fit(boolean_data)
    np.testing.assert_array_equal(again.sample(), S)  # seeded runs are identical
    # 1-way marginals are preserved in expectation by bootstrap + rounding.
    big = synth.sample(100_000, random_state=1)
    np.testing.assert_allclose(big.mean(0), boolean_data.mean(0), atol=0.01)


def test_unrounded_sample_returns_group_means():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    synth = MicroaggregationSynthesizer(k=10, rounding=False).fit(X)
    S = synth.sample(200, random_state=0)
    matches = (np.abs(S[:, None, :] - synth.records_[None]) < 1e-12).all(-1).any(-1)
    assert matches.all()


@pytest.mark.parametrize(
    ("X", "params", "match"),
    [
        (np.array([[0.0, np.nan], [1.0, 0.0]]), {}, "NaN"),
        (np.array([[0.0, 2.0], [1.0, 0.0]]), {"k": 1}, r"column 1 has values outside"),
        (np.array([0.0, 1.0, 1.0]), {}, "2D"),
        (np.empty((0, 3)), {}, "0 sample"),
        (np.zeros((5, 3)), {"k": 6}, "k=6"),
        (np.zeros((5, 3)), {"k": 0}, "'k' parameter"),
        (np.zeros((5, 3)), {"k": 1, "t": 4}, "t must be at most"),
        (np.zeros((5, 3)), {"alpha": -1.0}, "'alpha' parameter"),
    ],
)
def test_bad_input(X, params, match):
    with pytest.raises(ValueError, match=match):
        MicroaggregationSynthesizer(**params).fit(X)


def test_unfitted_and_bad_sample_size(boolean_data):
    with pytest.raises(NotFittedError):
        MicroaggregationSynthesizer().sample(3)
    synth = MicroaggregationSynthesizer().fit(boolean_data)
    with pytest.raises(ValueError, match="n_samples"):
        synth.sample(0)
    with pytest.raises(TypeError, match="n_samples"):
        synth.sample(2.5)


def _edge_case_data(name):
    rng = np.random.default_rng(0)
    X = (rng.random((57, 6)) < 0.3).astype(float)
    if name == "duplicates":  # all rows in one lattice cell, ties in the order key
        X = np.tile(X[:1], (57, 1))
    elif name == "constant_columns":
        X[:, 2], X[:, 4] = 1.0, 0.0
    elif name == "zeros":  # radius 0
        X = np.zeros_like(X)
    return X


@pytest.mark.parametrize("name", ["random", "duplicates", "constant_columns", "zeros"])
@pytest.mark.parametrize("k", [1, 2, 10, 19, 28, 29, 56, 57])
def test_edge_cases_keep_group_sizes_and_mean(name, k):
    X = _edge_case_data(name)
    n = X.shape[0]
    synth = MicroaggregationSynthesizer(k=k).fit(X)
    sizes = synth.group_sizes_
    assert sizes.sum() == n and sizes.min() >= k
    if n >= 2 * k:
        assert sizes.max() < 2 * k
        assert sizes.size == n // k  # the paper's K = n // k blocks
    else:  # n < 2k: a single group of all rows
        assert sizes.tolist() == [n]
    np.testing.assert_allclose(synth.weights_ @ synth.records_, X.mean(0), atol=1e-12, rtol=0)
    assert synth.records_.min() >= 0 and synth.records_.max() <= 1
    if k == 1:  # groups of one row: the means are the rows themselves
        np.testing.assert_array_equal(np.unique(synth.records_, axis=0), np.unique(X, axis=0))
    if name == "duplicates":
        np.testing.assert_array_equal(synth.records_, np.tile(X[:1], (sizes.size, 1)))


def test_k_equal_one_warns_that_rows_are_released(boolean_data):
    from skprivsynth.exceptions import PrivacyLeakWarning

    with pytest.warns(PrivacyLeakWarning, match=r"k=1\) gives no anonymity"):
        synth = MicroaggregationSynthesizer(k=1, random_state=0).fit(boolean_data)
    real = {tuple(row) for row in boolean_data}
    singletons = synth.records_[synth.group_sizes_ == 1]
    assert len(singletons) > 0 and all(tuple(r) in real for r in singletons)
