"""MicroaggregationSynthesizer on sources of chunks: global PCA, grouping per chunk."""

import numpy as np
import pandas as pd
import pytest

from skprivsynth import Chunks, MicroaggregationSynthesizer
from skprivsynth.metrics import covariance_loss


@pytest.fixture(scope="module")
def adult_rows(adult):
    """6,000 rows of Adult, coarsened one-hot (Boolean)."""
    from skprivsynth.preprocessing import BooleanEncoder

    return BooleanEncoder(categories=adult.domain, max_bins=8).fit_transform(adult.data[:6000])


def _fitted_state(synth):
    return (
        synth.records_,
        synth.weights_,
        synth.group_sizes_,
        synth.components_,
        synth.covariance_loss_,
        synth.n_cells_,
        synth.t_,
        synth.alpha_,
    )


def test_one_chunk_is_the_in_memory_fit(adult_rows):
    in_memory = MicroaggregationSynthesizer(k=10, random_state=0).fit(adult_rows)
    chunked = MicroaggregationSynthesizer(k=10, random_state=0).fit(
        Chunks.from_array(adult_rows, len(adult_rows))
    )
    for a, b in zip(_fitted_state(in_memory), _fitted_state(chunked), strict=True):
        np.testing.assert_array_equal(a, b)
    assert chunked.n_partitions_ == in_memory.n_partitions_ == 1
    assert chunked.n_samples_fit_ == len(adult_rows)
    np.testing.assert_array_equal(in_memory.sample(50), chunked.sample(50))


def test_global_principal_subspace_and_per_chunk_groups(adult_rows):
    """Components come from all rows; each chunk is cut into groups of its own rows."""
    k, chunksize = 10, 1300  # 4 chunks of 1,300 rows and one of 800
    in_memory = MicroaggregationSynthesizer(k=k).fit(adult_rows)
    synth = MicroaggregationSynthesizer(k=k).fit(Chunks.from_array(adult_rows, chunksize))
    np.testing.assert_array_equal(synth.components_, in_memory.components_)
    sizes = synth.group_sizes_
    assert synth.n_partitions_ == 5
    assert sizes.min() >= k and sizes.max() < 2 * k
    # Groups are listed chunk by chunk: the groups of chunk i hold exactly its rows,
    # and each record is the mean of its group (size x mean = a sum of 0/1 rows).
    sums = synth.records_ * sizes[:, None]
    np.testing.assert_allclose(sums, np.rint(sums), atol=1e-9)
    assert (np.rint(sums) >= 0).all() and (np.rint(sums) <= sizes[:, None]).all()
    ends = np.searchsorted(np.cumsum(sizes), np.arange(chunksize, len(adult_rows), chunksize))
    bounds = np.r_[0, ends + 1, len(sizes)]
    for i, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        rows = adult_rows[i * chunksize : (i + 1) * chunksize]
        assert sizes[lo:hi].sum() == len(rows)
        np.testing.assert_allclose(sums[lo:hi].sum(axis=0), rows.sum(axis=0), atol=1e-9)
    Y = np.repeat(synth.records_, sizes, axis=0)
    assert synth.covariance_loss_ == pytest.approx(covariance_loss(adult_rows, Y), abs=1e-10)
    # Grouping inside chunks of 1,300 rows loses more covariance than inside all rows.
    assert synth.covariance_loss_ > in_memory.covariance_loss_


@pytest.mark.parametrize("chunksize", [3, 7, 25])
def test_chunks_smaller_than_k_are_pooled(adult_rows, chunksize):
    k = 8
    X = adult_rows[:1001]
    synth = MicroaggregationSynthesizer(k=k).fit(Chunks.from_array(X, chunksize))
    sizes = synth.group_sizes_
    assert sizes.sum() == len(X) and sizes.min() >= k
    # Pools of k to k + chunksize - 1 rows give groups below 2k; the last pool of
    # fewer than k rows joins one group.
    assert np.sort(sizes)[-2] < max(2 * k, k + chunksize) and sizes.max() <= 3 * k - 2
    np.testing.assert_allclose(synth.weights_ @ synth.records_, X.mean(axis=0), atol=1e-12)


def test_dataframe_chunks_and_iterators(adult_rows):
    frame = pd.DataFrame(adult_rows[:2000], columns=[f"f{j}" for j in range(adult_rows.shape[1])])
    synth = MicroaggregationSynthesizer(k=5).fit(Chunks.from_array(frame, 700))
    assert list(synth.feature_names_in_) == list(frame.columns)
    assert synth.n_samples_fit_ == 2000 and synth.sample(3).shape == (3, frame.shape[1])
    one_shot = (frame.iloc[i : i + 700] for i in range(0, 2000, 700))
    with pytest.raises(TypeError, match="Chunks"):  # the fit reads the data twice
        MicroaggregationSynthesizer(k=5).fit(one_shot)


def test_chunked_input_checks(adult_rows):
    X = adult_rows[:100].copy()
    X[57, 3] = 2.0
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        MicroaggregationSynthesizer(k=5).fit(Chunks.from_array(X, 40))
    with pytest.raises(ValueError, match="k=50 needs at least 50 rows"):
        MicroaggregationSynthesizer(k=50).fit(Chunks.from_array(adult_rows[:30], 10))
    with pytest.raises(ValueError, match="k=5 needs at least 5 rows"):
        MicroaggregationSynthesizer(k=5).fit(Chunks.from_array(adult_rows[:4], 3))
