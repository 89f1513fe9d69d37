"""Private discretisation from public ranges: PrivTree bins and consistent sub-bin weights."""

import numpy as np
import pytest

from skprivsynth._math.private_binning import privtree_bins, privtree_scale
from skprivsynth.privacy import PrivacyReport


def _skewed_counts(n=20_000, size=1024, seed=0):
    """Fine histogram of a column with a dense bump near 10 % of the range and a thin tail."""
    rng = np.random.default_rng(seed)
    x = np.r_[rng.normal(0.1, 0.005, n), 0.3 + rng.exponential(0.05, n // 10)]
    return np.bincount(np.clip((x * size).astype(int), 0, size - 1), minlength=size)


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 20.0])
@pytest.mark.parametrize("min_width", [1, 3, 8])
def test_privtree_boundaries_are_a_partition(epsilon, min_width):
    counts = _skewed_counts()
    for seed in range(5):
        b = privtree_bins(
            counts,
            epsilon,
            np.random.default_rng(seed),
            report=PrivacyReport("t"),
            min_width=min_width,
        )
        assert b.dtype == np.int64 and b[0] == 0 and b[-1] == counts.size
        assert np.all(np.diff(b) > 0)
        assert np.all(np.diff(b) >= min_width)
        widths = np.diff(b)  # dyadic leaves: power-of-two widths aligned to their width
        assert np.all(widths & (widths - 1) == 0) and np.all(b[:-1] % widths == 0)


def test_privtree_dense_regions_get_finer_bins():
    counts = _skewed_counts()
    b = privtree_bins(counts, 0.5, np.random.default_rng(1), report=PrivacyReport("t"))
    widths = np.diff(b)
    mass_per_bin = np.add.reduceat(counts, b[:-1])
    dense = mass_per_bin > 100
    assert dense.any() and (~dense).any()
    assert widths[dense].max() < widths[mass_per_bin == 0].min()
    assert widths[mass_per_bin == 0].max() >= 64  # empty stretches stay coarse
    # the bump (cells ~ 97..108) is resolved at the grid's resolution
    assert np.all(widths[(b[:-1] >= 95) & (b[:-1] < 110)] == 1)


def test_privtree_large_epsilon_resolves_the_data():
    counts = np.zeros(256, dtype=np.int64)
    counts[[3, 40, 41, 200]] = [500, 300, 300, 400]
    b = privtree_bins(counts, 200.0, np.random.default_rng(0), report=PrivacyReport("t"))
    # every non-empty cell is a bin of its own; empty stretches are merged
    for cell in (3, 40, 41, 200):
        assert cell in b and cell + 1 in b
    assert len(b) - 1 < 40


def test_privtree_report_entry():
    counts = _skewed_counts()
    pure = PrivacyReport("t")
    privtree_bins(counts, 0.3, np.random.default_rng(0), report=pure)
    assert pure.epsilon == pytest.approx(0.3) and pure.rho == 0
    assert pure.entries[0]["scale"] == pytest.approx(4 / 0.3)
    zcdp = PrivacyReport("t", zcdp_delta=1e-9)
    privtree_bins(counts, 0.3, np.random.default_rng(0), report=zcdp)
    assert zcdp.rho == pytest.approx(0.3**2 / 2)
    scale, bias = privtree_scale(0.3)
    assert scale == pytest.approx(4 / 0.3) and bias == pytest.approx(scale * np.log(2))


def test_privtree_refuses_bad_input():
    report = PrivacyReport("t")
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="power of two"):
        privtree_bins(np.ones(6, dtype=int), 1.0, rng, report=report)
    with pytest.raises(TypeError, match="integer"):
        privtree_bins(np.ones(8), 1.0, rng, report=report)
    with pytest.raises(ValueError, match="non-negative"):
        privtree_bins(-np.ones(8, dtype=int), 1.0, rng, report=report)
    with pytest.raises(ValueError, match="min_width"):
        privtree_bins(np.ones(8, dtype=int), 1.0, rng, report=report, min_width=0)
    assert report.entries == []
