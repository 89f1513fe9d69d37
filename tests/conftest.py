"""Shared fixtures: small Boolean data and the bundled Adult encodings; the test-only
synthesizer joins :func:`~skprivsynth.synthesizers.all_synthesizers`."""

import numpy as np
import pytest
from laplace_histogram import LaplaceHistogram

from skprivsynth.datasets import load_adult
from skprivsynth.synthesizers import register_synthesizer

register_synthesizer(LaplaceHistogram)  # a seventh synthesizer: its module and this line


@pytest.fixture(scope="session")
def adult():
    """The bundled Adult data (Bunch with data/domain)."""
    return load_adult()


@pytest.fixture(scope="session")
def adult_onehot(adult):
    """Full one-hot encoding of Adult (48,842 x 588), built with numpy only."""
    blocks = [np.eye(k)[adult.data[c].to_numpy()] for c, k in adult.domain.items()]
    return np.hstack(blocks)


@pytest.fixture(scope="session")
def adult_boolean(adult):
    """Adult with integer codes coarsened to at most 8 bins, one-hot: 48,842 x ~94."""
    from skprivsynth.preprocessing import BooleanEncoder

    return BooleanEncoder(categories=adult.domain, max_bins=8).fit_transform(adult.data)


@pytest.fixture
def boolean_data():
    """Correlated Boolean data: 2,000 rows, 8 columns."""
    rng = np.random.default_rng(0)
    latent = rng.random((2000, 1))
    return (rng.random((2000, 8)) < 0.2 + 0.6 * latent).astype(float)
