"""Private discretisation from public ranges: PrivTree bins and consistent sub-bin weights."""

import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skprivsynth import MarginalSynthesizer, make_private_pipeline
from skprivsynth._math.discrete_noise import discrete_gaussian_pmf
from skprivsynth._math.private_binning import sub_bin_counts, top_down_shares
from skprivsynth.auditing import (
    audit_mechanism,
    likelihood_ratio_statistic,
    moved_record_neighbours,
)
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.privacy import PrivacyReport, binning
from skprivsynth.privacy.binning import (
    consistent_sub_bin_weights,
    grid_points,
    privtree_bins,
    privtree_scale,
)


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


# ----------------------------------------------------------- PrivTree's exact model
#
# The output of privtree_bins is a tree whose probability is the product of independent
# per-node decisions: a node at depth d with count c splits with probability
# P(b + Lap(λ) > θ), b = max(c − d·δ, θ − δ), unless its halves are narrower than
# min_width (a leaf for sure).  The helpers below compute that model exactly; the
# first test checks that the implementation samples it, the others compute exact
# privacy losses on it.


def _log_split(b, lam, theta, split):
    """log P(b + Lap(λ) > θ) (split) or log P(b + Lap(λ) <= θ) (no split)."""
    t = (np.asarray(b, dtype=np.float64) - theta) * (1 if split else -1)  # log P(Z > -t)
    return np.where(t <= 0, np.log(0.5) + t / lam, np.log1p(-0.5 * np.exp(-np.abs(t) / lam)))


def _levels(counts):
    levels = [np.asarray(counts, dtype=np.int64)]
    while levels[-1].size > 1:
        levels.append(levels[-1][0::2] + levels[-1][1::2])
    return levels[::-1]


def _biased(levels, depth, bias, theta, shift=0.0):
    return np.maximum(levels[depth] - (depth - shift) * bias, theta - bias)


def _tree_distribution(counts, epsilon, theta=0.0, min_width=1, occupied=None):
    """Exact probability of every output (tuple of boundaries) of privtree_bins."""
    lam, bias = privtree_scale(epsilon)
    shift = np.log2(len(counts) / (occupied or len(counts)))
    levels, size = _levels(counts), len(counts)

    def outcomes(depth, node):  # list of (left edges, probability) of the subtree
        width = size >> depth
        if width // 2 < min_width:
            return [((node * width,), 1.0)]
        b = _biased(levels, depth, bias, theta, shift)[node]
        p_split = float(np.exp(_log_split(b, lam, theta, True)))
        out = [((node * width,), 1.0 - p_split)]
        for left, p_left in outcomes(depth + 1, 2 * node):
            for right, p_right in outcomes(depth + 1, 2 * node + 1):
                out.append((left + right, p_split * p_left * p_right))
        return out

    return {edges + (size,): p for edges, p in outcomes(0, 0)}


def _max_log_ratio(counts0, counts1, lam, bias, theta=0.0, min_width=1, shift=0.0):
    """max over output trees T of ln P(T | counts1) / P(T | counts0), exactly.

    ``ln P(T)`` is a sum over the nodes of ``T``, so the maximum is a bottom-up dynamic
    programme: a node is either a leaf (its "no split" term) or splits (its "split"
    term plus the best of each half).
    """
    levels0, levels1, size = _levels(counts0), _levels(counts1), len(counts0)
    best = np.zeros(1)
    for depth in range(len(levels0) - 1, -1, -1):
        width = size >> depth
        if width // 2 < min_width:
            best = np.zeros(levels0[depth].size)
            continue
        b0 = _biased(levels0, depth, bias, theta, shift)
        b1 = _biased(levels1, depth, bias, theta, shift)
        leaf = _log_split(b1, lam, theta, False) - _log_split(b0, lam, theta, False)
        split = _log_split(b1, lam, theta, True) - _log_split(b0, lam, theta, True)
        best = np.maximum(leaf, split + best[0::2] + best[1::2])
    return float(best[0])


def _pair_loss(counts0, counts1, lam, bias, **kwargs):
    """Exact pure-DP privacy loss of the pair (both directions)."""
    return max(
        _max_log_ratio(counts0, counts1, lam, bias, **kwargs),
        _max_log_ratio(counts1, counts0, lam, bias, **kwargs),
    )


@pytest.mark.parametrize("noise", ["continuous", "discrete"])
@pytest.mark.parametrize(("theta", "min_width", "occupied"), [(0.0, 1, None), (2.0, 2, 5)])
def test_privtree_samples_its_model(theta, min_width, occupied, noise):
    """Goodness of fit: output frequencies of privtree_bins against the exact model of
    Laplace split tests; ``noise="discrete"`` samples the same law exactly."""
    counts = np.array([5, 0, 3, 1, 0, 0, 9, 2])
    if occupied is not None:
        counts[occupied:] = 0  # padding
    exact = _tree_distribution(counts, 1.0, theta, min_width, occupied)
    assert sum(exact.values()) == pytest.approx(1.0)
    rng, runs = np.random.default_rng(3 if occupied is None else 4), 6000
    seen = {}
    for _ in range(runs):
        b = privtree_bins(
            counts,
            1.0,
            rng,
            report=PrivacyReport("t"),
            theta=theta,
            min_width=min_width,
            occupied=occupied,
            noise=noise,
        )
        key = tuple(b.tolist())
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) <= set(exact)
    keys = sorted(exact, key=exact.get, reverse=True)
    big = [k for k in keys if exact[k] * runs >= 10]
    observed = [seen.get(k, 0) for k in big]
    expected = [exact[k] * runs for k in big]
    if len(big) < len(keys):  # pool the rare outcomes
        observed.append(runs - sum(observed))
        expected.append(runs - sum(expected))
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def _worst_case_pairs(depth, bias, rng):
    """Replace-one pairs of fine histograms built to make PrivTree's loss large.

    The row moves from a cell inside a dense region (its path keeps large biased counts:
    its leaf's "no split" is the costly decision) to a cell holding ``c`` rows (the path
    above it has constant counts, so its biased counts fall by exactly δ per level and
    straddle θ: the split tests PrivTree's analysis charges), over the offsets ``c``
    that make it cross θ one or two levels above the bottom; plus random pairs.
    """
    size = 2**depth
    # the raised path crosses θ (c ≈ d·δ) a level or two above the grid's bottom
    for c in range(int((depth - 3) * bias), int((depth - 1) * bias) + 3):
        for dense in (0, int(depth * bias) + 5, 10 * int(depth * bias) + 50):
            counts0 = np.zeros(size, dtype=np.int64)
            counts0[size // 4] += dense + 1
            counts0[size - 1] += c
            counts1 = counts0.copy()
            counts1[size // 4] -= 1
            counts1[size - 1] += 1
            yield counts0, counts1
    for _ in range(200):
        counts0 = rng.poisson(rng.exponential(3 * bias), size)
        i = rng.choice(np.flatnonzero(counts0)) if counts0.any() else 0
        counts0[i] += counts0[i] == 0
        j = rng.integers(size)
        counts1 = counts0.copy()
        counts1[i] -= 1
        counts1[j] += 1
        yield counts0, counts1


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
def test_privtree_replace_one_loss_is_within_epsilon(epsilon):
    """Exact privacy loss on worst-case replace-one pairs: at most ε with λ = 4/ε.

    The add/remove calibration λ = 3/ε (the paper's, for one changed path) exceeds ε on
    some replace-one pair: the lowered path's leaf adds up to 1/λ to the raised path's
    3/λ, so the calibration must account for both paths.
    """
    lam, bias = privtree_scale(epsilon)
    worst_honest = max(
        _pair_loss(counts0, counts1, lam, bias)
        for counts0, counts1 in _worst_case_pairs(12, bias, np.random.default_rng(0))
    )
    lam_ar = 3 / epsilon  # the add/remove calibration
    bias_ar = lam_ar * np.log(2)
    worst_add_remove = max(
        _pair_loss(counts0, counts1, lam_ar, bias_ar)
        for counts0, counts1 in _worst_case_pairs(12, bias_ar, np.random.default_rng(0))
    )
    assert worst_honest <= epsilon * (1 + 1e-12)
    assert worst_honest > 0.75 * epsilon  # the pairs are close to the worst case
    assert worst_add_remove > epsilon  # the add/remove calibration is not enough


@pytest.mark.parametrize("shift", [0.3, 0.99])
def test_privtree_padding_shift_keeps_the_loss_within_epsilon(shift):
    """Depths counted from the occupied cells (all shifted by ``-shift``, as for a grid
    padded to a power of two) keep the exact replace-one loss within ε: the biased
    counts still fall by δ a level along every path.  A bias that does not grow with
    the depth (a realistic slip: a constant shift per node) breaks it."""
    epsilon = 1.0
    lam, bias = privtree_scale(epsilon)
    pairs = list(_worst_case_pairs(12, bias, np.random.default_rng(0)))
    shifted = max(_pair_loss(c0, c1, lam, bias, shift=shift) for c0, c1 in pairs)
    assert shifted <= epsilon * (1 + 1e-12)
    assert shifted > 0.75 * epsilon
    flat = max(_pair_loss(c0, c1, lam, 0.0) for c0, c1 in pairs)  # no bias by depth
    assert flat > epsilon


def test_privtree_add_remove_loss_is_within_the_paper_bound():
    """The paper's bound for one changed path, (2β − 1)/((β − 1)λ) = 3/λ, holds on the model."""
    lam, bias = privtree_scale(1.0)
    rng = np.random.default_rng(1)
    for counts0, _ in _worst_case_pairs(12, bias, rng):
        for cell in (0, counts0.size // 4, counts0.size - 1):
            counts1 = counts0.copy()
            counts1[cell] += 1  # one row added: one path raised by 1
            assert _pair_loss(counts0, counts1, lam, bias) <= 3 / lam * (1 + 1e-12)


def test_privtree_statistics_sensitivity():
    """Replace-one moves change every level's node counts by 1 in at most two nodes.

    The biased counts b = max(c − d·δ, θ − δ) then move by at most 1 (max is
    1-Lipschitz): the sensitivity every split test is calibrated for.
    """
    rng = np.random.default_rng(0)
    counts0 = rng.poisson(3.0, 16)
    counts0[[0, 5]] += 1
    _, bias = privtree_scale(1.0)
    for i in np.flatnonzero(counts0):
        for j in range(16):
            counts1 = counts0.copy()
            counts1[i] -= 1
            counts1[j] += 1
            levels0, levels1 = _levels(counts0), _levels(counts1)
            for depth in range(len(levels0)):
                diff = levels1[depth] - levels0[depth]
                assert np.abs(diff).max() <= 1 and np.count_nonzero(diff) in (0, 2)
                b0, b1 = (_biased(lv, depth, bias, 0.0) for lv in (levels0, levels1))
                assert np.abs(b1 - b0).max() <= 1


# ------------------------------------------------------------------------- audits

AUDIT_EPSILON = 2.0


def _privtree_pair():
    """Worst-case pair on 4 cells: a row moves from the left half (3 rows) to the right.

    On D the left node (depth 1) has 3 rows and the right one none; on D' 2 and 1.
    The output "left is a leaf, right splits" (boundaries 0, 2, 3, 4) has probability
    ratio ``e^{1/λ}·e^{1/λ}``: the left node's "no split" and the right node's "split"
    each move by the full ``1/λ`` (both biased counts on the linear side of the Laplace
    tail), the most any output achieves on this pair.
    """
    return moved_record_neighbours(np.zeros((3, 1)), -1, [3.0])


def _fine_counts(X, size):
    return np.bincount(X[:, 0].astype(np.int64), minlength=size)


@pytest.mark.parametrize("variant", ["honest", "add-remove"])
def test_audit_privtree(variant, monkeypatch):
    """ε audit of privtree_bins against the exact loss of the honest release on the pair.

    On this pair the honest release loses exactly 2/λ = ε/2 (the exact model gives the
    claim); the add/remove calibration λ = 3/ε loses 2ε/3 and must be refuted.
    """
    X0, X1 = _privtree_pair()
    counts0, counts1 = _fine_counts(X0, 4), _fine_counts(X1, 4)
    lam, bias = privtree_scale(AUDIT_EPSILON)
    claimed = _pair_loss(counts0, counts1, lam, bias)
    assert claimed == pytest.approx(2 / lam) and claimed <= AUDIT_EPSILON
    if variant == "add-remove":
        monkeypatch.setattr(binning, "privtree_scale", lambda e: (3 / e, 3 / e * np.log(2)))

    def mechanism(X, seed):
        rng = np.random.default_rng(seed)
        return privtree_bins(_fine_counts(X, 4), AUDIT_EPSILON, rng, report=PrivacyReport("a"))

    result = audit_mechanism(
        mechanism,
        X0,
        X1,
        events={"boundaries 0, 2, 3, 4": lambda b: b.tolist() == [0, 2, 3, 4]},
        epsilon=claimed,
        n_runs=16_000,
        exceptions=(),
        random_state=1,
    )
    if variant == "honest":
        assert not result.violation, result.summary()
        assert result.epsilon_lower > 0.7 * claimed, result.summary()  # power
    else:
        assert result.violation and result.epsilon_lower > claimed, result.summary()


def _audit_gaussian_release(release, a, b, rho, variant, monkeypatch):
    """Gaussian-DP audit of the Gaussian release made by ``release(X, rng)`` on the
    pair ``X = 0, 1`` whose exact vectors are ``a`` and ``b`` (at the sensitivity).

    A Gaussian release of sensitivity Δ and noise σ is exactly μ-GDP with μ = Δ/σ =
    sqrt(2ρ) (Dong, Roth & Su 2022); the event is the Neyman–Pearson test of the pair
    (likelihood-ratio statistic above the midpoint).  The released vector is recorded
    as it leaves the Gaussian mechanism (what follows is post-processing).  The broken
    variant calibrates for the add/remove sensitivity 1 (σ ÷ sqrt(2)).
    """
    statistic = likelihood_ratio_statistic(a, b, noise="gaussian")
    cut = float((b - a) @ (b - a)) / 2
    if variant == "add-remove":
        monkeypatch.setattr(binning, "SUB_BIN_L2_SENSITIVITY", 1.0)
    released = {}
    honest_mechanism = binning.gaussian_mechanism

    def spy(values, sigma, rng, **kwargs):
        released["y"], scale = honest_mechanism(values, sigma, rng, **kwargs)
        return released["y"], scale

    monkeypatch.setattr(binning, "gaussian_mechanism", spy)

    def mechanism(X, seed):
        release(X, np.random.default_rng(seed))
        return released["y"]

    mu_claimed = np.sqrt(2 * rho)
    result = audit_mechanism(
        mechanism,
        0,
        1,
        events={"T >= midpoint": lambda y: statistic(y) >= cut},
        mu=mu_claimed,
        n_runs=1000,
        exceptions=(),
        random_state=2,
    )
    if variant == "honest":
        assert not result.violation, result.summary()
        assert result.mu_lower > 0.7 * mu_claimed, result.summary()  # power
    else:
        assert result.violation and result.mu_lower > mu_claimed, result.summary()


@pytest.mark.parametrize("variant", ["honest", "add-remove"])
def test_audit_sub_bin_weights(variant, monkeypatch):
    """The sub-bin release: a row moves from sub-bin 0 of bin 0 to sub-bin 3 of bin 1,
    two counts change by 1, L2 distance sqrt(2), the whole sensitivity."""
    rho = 2.0
    pair = moved_record_neighbours(np.repeat(np.arange(16.0), 3)[:, None], 3, [14.0])
    fine = [_fine_counts(X, 16) for X in pair]
    boundaries = np.array([0, 8, 16])

    def measured(counts):
        groups = sub_bin_counts(counts, boundaries, 4)
        return np.concatenate([c.ravel() for _, c in groups.values()])

    a, b = measured(fine[0]), measured(fine[1])
    assert np.linalg.norm(b - a) == pytest.approx(binning.SUB_BIN_L2_SENSITIVITY)

    def release(X, rng):
        consistent_sub_bin_weights(fine[X], boundaries, 4, rho, rng, report=_report())

    _audit_gaussian_release(release, a, b, rho, variant, monkeypatch)


# ------------------------------------------------------------------ sub-bin weights


def _report():
    return PrivacyReport("t", zcdp_delta=1e-9)


def test_point_cells_get_their_share_of_their_bin_when_noise_vanishes():
    # A range's bounds (cells 0 and 63) inside wide bins: 300 rows at the lower bound
    # among 100 others, none at the upper bound.
    counts = np.zeros(64, dtype=np.int64)
    counts[0], counts[8:16] = 300, 12
    counts[60] = 4
    boundaries = np.array([0, 16, 32, 48, 64])
    w, shares = consistent_sub_bin_weights(
        counts, boundaries, 8, 1e8, np.random.default_rng(0), report=_report(), points=(0, 63)
    )
    np.testing.assert_allclose(shares, [300 / 396, 0.0], atol=1e-3)
    # The bound's rows leave its sub-bin: the rest of the bin is its cells 8..15.
    np.testing.assert_allclose(w[0], [0, 0, 0, 0, 0.25, 0.25, 0.25, 0.25], atol=1e-3)
    # A point cell that is a bin by itself is not measured (its bin is its rows).
    _, shares = consistent_sub_bin_weights(
        counts, np.array([0, 1, 2, 4, 8, 16, 32, 64]), 8, 1e8, np.random.default_rng(0),
        report=_report(),
        points=(0, 63),
    )  # fmt: skip
    assert shares[0] == 0.0


@pytest.mark.parametrize("variant", ["honest", "point counted twice"])
def test_point_cells_keep_the_sensitivity_of_the_sub_bin_release(variant, monkeypatch):
    """Every row is in one measured count: on worst-case neighbours (a row moved from a
    bound's cell to another bin, or between the two bounds) the released vector moves by
    sqrt(2) in L2, as without points.  A point cell also left in its sub-bin (a
    realistic slip) moves it by sqrt(3)."""
    released = []

    def spy(values, sigma, rng, **kwargs):
        released.append(np.asarray(values, dtype=np.float64))
        return np.asarray(values, dtype=np.float64), sigma

    monkeypatch.setattr(binning, "gaussian_mechanism", spy)
    if variant != "honest":
        honest = binning.sub_bin_counts

        def twice(counts, boundaries, n_sub):  # the point cells' rows stay in their sub-bins
            return honest(original["counts"], boundaries, n_sub)

        monkeypatch.setattr(binning, "sub_bin_counts", twice)
    boundaries = np.array([0, 16, 32, 48, 64])
    base = np.zeros(64, dtype=np.int64)
    base[[0, 5, 20, 40, 63]] = [50, 7, 9, 11, 30]
    moves = [(0, 20), (0, 63), (63, 5), (5, 40)]  # (from cell, to cell)
    largest = 0.0
    for a, b in moves:
        neighbour = base.copy()
        neighbour[a] -= 1
        neighbour[b] += 1
        vectors = []
        for counts in (base, neighbour):
            original = {"counts": counts}
            released.clear()
            consistent_sub_bin_weights(
                counts, boundaries, 8, 1.0, np.random.default_rng(0), report=_report(),
                points=(0, 63),
            )  # fmt: skip
            vectors.append(np.concatenate(released))  # the sub-bins, then the points
        largest = max(largest, float(np.linalg.norm(vectors[0] - vectors[1])))
    if variant == "honest":
        assert largest == pytest.approx(np.sqrt(2))
    else:
        assert largest > np.sqrt(2) + 0.1


def test_sub_bin_weights_are_distributions():
    counts = _skewed_counts(size=256)
    rng = np.random.default_rng(0)
    boundaries = privtree_bins(counts, 1.0, rng, report=PrivacyReport("t"))
    for rho in (1e-4, 0.01, 10.0):
        w = consistent_sub_bin_weights(counts, boundaries, 8, rho, rng, report=_report())
        assert w.shape == (boundaries.size - 1, 8)
        assert np.all(w >= 0) and np.allclose(w.sum(axis=1), 1.0)


def test_sub_bin_weights_exact_when_noise_vanishes():
    counts = np.zeros(64, dtype=np.int64)
    counts[16:32] = np.arange(16) * 10
    counts[40:44] = [5, 0, 0, 15]
    boundaries = np.array([0, 16, 32, 40, 44, 48, 64])
    w = consistent_sub_bin_weights(
        counts, boundaries, 8, 1e8, np.random.default_rng(0), report=_report()
    )
    expected = np.add.reduceat(counts[16:32], np.arange(0, 16, 2))
    np.testing.assert_allclose(w[1], expected / expected.sum(), atol=1e-3)
    # a bin of 4 cells: each cell's share spread evenly over its two sub-bins
    np.testing.assert_allclose(w[3], np.repeat([5, 0, 0, 15], 2) / 40, atol=1e-3)
    for k in (0, 2, 4, 5):  # bins without rows fall back to uniform
        np.testing.assert_allclose(w[k], 1 / 8)


def test_sub_bin_weights_noise_in_empty_sub_bins_is_not_mass():
    """All rows of a bin in one sub-bin: almost all weight there, unlike a naive release.

    The naive release adds noise of the same ρ to the sub-bin counts, clips negatives
    and normalises: every empty sub-bin keeps its positive noise as mass.
    """
    counts = np.zeros(64, dtype=np.int64)
    counts[16 + 5] = 200
    boundaries = np.array([0, 16, 32, 64])
    rho = 0.01
    sigma = np.sqrt(2) / np.sqrt(2 * rho)
    ours, naive = [], []
    for seed in range(100):
        rng = np.random.default_rng(seed)
        w = consistent_sub_bin_weights(counts, boundaries, 16, rho, rng, report=_report())
        ours.append(w[1, 5])
        y = np.maximum(counts[16:32] + rng.normal(0.0, sigma, 16), 0.0)
        naive.append(y[5] / y.sum())
    assert np.mean(ours) > 0.95 and np.median(ours) > 0.99
    assert np.mean(naive) < 0.85


def test_sub_bin_weights_of_a_flat_bin_do_not_follow_the_noise():
    """Rows spread evenly in a bin, noise larger than a sub-bin's count: a shape that a
    chi-square test cannot tell from flat is not kept, so the weights stay far closer
    to uniform than a naive release (noisy counts clipped and normalised) or a
    projection that follows every noisy difference (0.58 on this bin)."""
    counts = np.zeros(64, dtype=np.int64)
    counts[16:32] = 40  # 80 rows per sub-bin of 2 cells
    boundaries = np.array([0, 16, 32, 64])
    rho = 1e-4
    sigma = 1 / np.sqrt(rho)  # 100 per sub-bin
    ours, naive = [], []
    for seed in range(50):
        rng = np.random.default_rng(seed)
        w = consistent_sub_bin_weights(counts, boundaries, 8, rho, rng, report=_report())
        ours.append(0.5 * np.abs(w[1] - 1 / 8).sum())
        y = np.maximum(80 + rng.normal(0.0, sigma, 8), 0.0)
        naive.append(0.5 * np.abs(y / y.sum() - 1 / 8).sum())
    assert np.mean(ours) < 0.25 and np.mean(ours) < 0.6 * np.mean(naive)


def test_a_bin_whose_sub_bins_hold_one_noise_deviation_keeps_every_quarter():
    """Rows spread evenly, each sub-bin's count about one noise deviation (135 rows,
    σ = 112: a price bin of a 43,000-row table at the default binning budget).  A drop
    test at 1.5 sd on each half, with a difference of 1.5 sd, emptied a quarter of the
    bin (weight below 0.05) in 36 % of the draws: its rows decoded into the other
    three quarters, a KS error of up to a quarter of the bin's mass."""
    emptied, distance = [], []
    for seed in range(400):
        y = 135 + np.random.default_rng(seed).normal(0.0, 112.0, (1, 8))
        w = top_down_shares(y, 112.0, 1.5)[0]
        emptied.append(np.any(np.add.reduceat(w, [0, 2, 4, 6]) < 0.05))
        distance.append(0.5 * np.abs(w - 1 / 8).sum())
    assert np.mean(emptied) < 0.05 and np.mean(distance) < 0.05


def test_sub_bin_weights_follow_a_shape_that_stands_out_of_the_noise():
    """A bin whose density rises across it (40 to 320 rows a sub-bin, σ = 30): the
    shrinkage towards flat leaves a shape this clear alone.  The weights are as close
    to the truth as the noisy counts themselves, and the upper half keeps more than
    1.5 times the lower half's weight in every draw (2.6 in the data)."""
    truth = np.arange(1, 9) * 40.0
    ours, noisy = [], []
    for seed in range(200):
        y = truth + np.random.default_rng(seed).normal(0.0, 30.0, (1, 8))
        w = top_down_shares(y, 30.0, 1.5)[0]
        assert w[4:].sum() > 1.5 * w[:4].sum()
        ours.append(0.5 * np.abs(w - truth / truth.sum()).sum())
        z = np.maximum(y[0], 0.0)
        noisy.append(0.5 * np.abs(z / z.sum() - truth / truth.sum()).sum())
    assert np.mean(ours) < 1.05 * np.mean(noisy)


def test_sub_bin_weights_do_not_hand_a_dropped_sub_bin_to_its_neighbour():
    """Three sub-bins of 400 rows and an empty one whose noise (+60, below 1.5 sd = 75)
    is dropped: its sibling in the top-down split must not receive that noise (it got
    460 of 1,260 rows before: the outer end of a bin inflated)."""
    w = top_down_shares(np.array([[400.0, 400.0, 400.0, 60.0]]), 50.0, 1.5)
    np.testing.assert_allclose(w, [[1 / 3, 1 / 3, 1 / 3, 0.0]])


def test_sub_bin_counts_sensitivity():
    """Every replace-one move changes the measured vector by at most sqrt(2) in L2."""
    counts0 = np.random.default_rng(0).poisson(2.0, 32)
    counts0[[0, 7, 20]] += 1
    boundaries = np.array([0, 1, 2, 4, 8, 16, 32])

    def measured(counts):
        groups = sub_bin_counts(counts, boundaries, 4)
        return np.concatenate([c.ravel() for _, c in groups.values()])

    a = measured(counts0)
    distances = []
    for i in np.flatnonzero(counts0):
        for j in range(32):
            counts1 = counts0.copy()
            counts1[i] -= 1
            counts1[j] += 1
            distances.append(np.linalg.norm(measured(counts1) - a))
    assert max(distances) == pytest.approx(binning.SUB_BIN_L2_SENSITIVITY)


def test_sub_bin_weights_report_and_refusals():
    counts = _skewed_counts(size=64)
    boundaries = np.array([0, 16, 32, 64])
    report = _report()
    consistent_sub_bin_weights(counts, boundaries, 4, 0.02, np.random.default_rng(0), report=report)
    (entry,) = report.entries
    assert entry["rho"] == pytest.approx(0.02)
    assert entry["scale"] == pytest.approx(np.sqrt(2) / np.sqrt(2 * 0.02))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="zCDP"):
        consistent_sub_bin_weights(counts, boundaries, 4, 0.1, rng, report=PrivacyReport("t"))
    with pytest.raises(ValueError, match="power of two"):
        consistent_sub_bin_weights(counts, boundaries, 3, 0.1, rng, report=_report())
    with pytest.raises(ValueError, match="boundaries"):
        consistent_sub_bin_weights(counts, [0, 16, 16, 64], 4, 0.1, rng, report=_report())
    with pytest.raises(ValueError, match="multiple of n_sub"):
        consistent_sub_bin_weights(counts, [0, 6, 64], 4, 0.1, rng, report=_report())


@pytest.mark.parametrize("variant", ["honest", "occupied points only"])
def test_grid_points_release_empty_points_as_the_dense_release_would(variant, monkeypatch):
    """The sparse release has the law of the dense one: every eligible point, with rows
    or not, passes the threshold with probability Φ̄((τ − c)/σ), and an empty point
    that passes carries a Gaussian count conditioned on ``>= τ``.  Here 4 eligible
    points, σ = 1 and ``alpha = 2`` (τ = 0, half the empty points pass).  Releasing
    only points that hold rows (a realistic slip: the data's own keys as candidates)
    makes a released point tell that a row is there: it fails."""
    if variant != "honest":
        monkeypatch.setattr(binning, "_empty_keys", lambda *a: np.zeros(0, np.int64))
    rng = np.random.default_rng(0)
    runs, hits, values = 3000, np.zeros(4), []
    for _ in range(runs):
        keys, noisy = grid_points([1, 3], [2, 1], [[0, 4]], 1.0, rng, report=_report(), alpha=2.0)
        hits[keys] += 1
        values += noisy[np.isin(keys, [0, 2])].tolist()
    expected = stats.norm.sf([0.0, -2.0, 0.0, -1.0])  # τ = 0, σ = 1
    close = np.abs(hits / runs - expected) < 4 * np.sqrt(expected * (1 - expected) / runs)
    if variant == "honest":
        assert np.all(close)
        assert stats.kstest(values, stats.truncnorm(0.0, np.inf).cdf).pvalue > 1e-3
    else:
        assert not close[[0, 2]].any()


def test_grid_points_find_the_values_that_recur_and_report_their_cost():
    counts = np.array([5000, 40, 3000, 7])
    report = _report()
    keys, noisy = grid_points(
        [10, 500, 77_000, 900_000], counts, [[0, 100_000], [800_000, 1_000_000]], 0.01,
        np.random.default_rng(1), report=report,
    )  # fmt: skip
    # σ = 1/sqrt(0.01) = 10; τ = 10·Φ̄⁻¹(0.01/300000) ≈ 54: the two large counts only.
    np.testing.assert_array_equal(keys, [10, 77_000])
    assert np.all(np.abs(noisy - [5000, 3000]) < 60)
    assert report.rho == pytest.approx(0.01)
    assert report.entries[0]["sensitivity"] == pytest.approx(np.sqrt(2))
    # Keys outside the eligible ranges are never released, whatever their counts.
    keys, _ = grid_points([10], [5000], [[20, 30]], 0.01, np.random.default_rng(1), report=report)
    assert keys.size == 0 or np.all((keys >= 20) & (keys < 30))
    # No eligible range (every bin narrow enough for its sub-bins): nothing, at its cost.
    keys, noisy = grid_points([10], [5000], np.zeros((0, 2)), 0.01, np.random.default_rng(1),
                              report=report)  # fmt: skip
    assert keys.size == noisy.size == 0 and report.rho == pytest.approx(0.03)


def test_held_points_share_their_bin_with_its_sub_bins():
    """A point released before takes its noisy share of its bin's noisy total; the rest
    of a one-cell bin holding it is measured so that the share is not 1 by default."""
    boundaries = np.array([0, 16, 17, 18, 20, 24, 32])
    counts = np.zeros(32, dtype=np.int64)
    counts[[3, 9]] = [600, 200]  # bin 0 without its held point (1,200 rows at cell 5)
    counts[16] = 1000  # the one-cell bin 1 without its held point (3,000 rows)
    weights, shares = consistent_sub_bin_weights(
        counts, boundaries, 8, 1e6, np.random.default_rng(0), report=_report(),
        held=([5, 16], [1200.0, 3000.0]),
    )  # fmt: skip
    np.testing.assert_allclose(shares, [0.6, 0.75], atol=1e-2)
    np.testing.assert_allclose(weights[0, [1, 4]], [0.75, 0.25], atol=1e-2)


def test_the_rest_of_a_one_cell_bin_keeps_the_sensitivity_of_the_sub_bin_release(monkeypatch):
    """A one-cell bin holding a point released before has the rest of its cell measured
    as one more count: on worst-case neighbours (a row moved out of that rest, into it,
    or between it and a bound's cell) the release still moves by sqrt(2) in L2.  A cell
    of a wider bin (21, in [20, 24)) keeps its rows in its sub-bin only: measuring its
    rest too would count them twice (sqrt(3))."""
    released = []

    def spy(values, sigma, rng, **kwargs):
        released.append(np.asarray(values, dtype=np.float64))
        return np.asarray(values, dtype=np.float64), sigma

    monkeypatch.setattr(binning, "gaussian_mechanism", spy)
    boundaries = np.array([0, 16, 17, 18, 20, 24, 32, 64])
    base = np.zeros(64, dtype=np.int64)
    base[[0, 5, 16, 21, 40, 63]] = [50, 7, 30, 9, 11, 20]  # cell 16 without its point
    largest = 0.0
    for a, b in [(16, 5), (5, 16), (16, 0), (63, 16), (21, 40)]:
        neighbour = base.copy()
        neighbour[a] -= 1
        neighbour[b] += 1
        vectors = []
        for counts in (base, neighbour):
            released.clear()
            consistent_sub_bin_weights(
                counts, boundaries, 8, 1.0, np.random.default_rng(0), report=_report(),
                points=(0, 63), held=([16, 21], [500.0, 400.0]),
            )  # fmt: skip
            vectors.append(np.concatenate(released))
        largest = max(largest, float(np.linalg.norm(vectors[0] - vectors[1])))
    assert largest == pytest.approx(np.sqrt(2))


@pytest.mark.parametrize("variant", ["honest", "add-remove"])
def test_audit_grid_points(variant, monkeypatch):
    """The grid points' release: a row moves from point 3 to point 7 (two counts change
    by 1).  The release is every eligible point's noisy count; the threshold is
    post-processing."""
    rho = 2.0
    keys, counts = np.array([3, 7, 11]), [np.array([5, 5, 4]), np.array([4, 6, 4])]

    def release(X, rng):
        grid_points(keys, counts[X], [[0, 16]], rho, rng, report=_report())

    a, b = counts[0].astype(float), counts[1].astype(float)
    _audit_gaussian_release(release, a, b, rho, variant, monkeypatch)


# ------------------------------------------------------------------ noise="discrete"


def _mixed_table(n=4000, seed=0):
    """A level, an integer range with recurring values (grid points) and a float range."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "g": rng.integers(0, 3, n),
            "age": np.clip(np.round(40 + 12 * rng.standard_normal(n)), 0, 100_000).astype(int),
            "x": np.round(rng.normal(5, 2, n), 2),
        }
    )
    domain = {
        "g": 3,
        "age": {"type": "integer", "range": [0, 100_000]},
        "x": {"type": "float", "range": [-10.0, 20.0]},
    }
    return frame, domain


def test_discrete_noise_reaches_every_release_of_the_pipeline():
    """``noise="discrete"`` on the synthesizer: every Laplace or Gaussian entry of the
    composed report, the private bins' included, is a discrete mechanism."""
    frame, domain = _mixed_table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded release
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=4, noise="discrete", random_state=0),
            domain,
            binning_share=0.5,
            random_state=0,
        )
        pipe.fit(frame)
    entries = pipe.privacy_report_.entries
    steps = [e["step"] for e in entries]
    for name in ("bins of 'age'", "recurring values of 'age'", "sub-bin weights of 'x'"):
        assert any(name in step for step in steps), steps
    noisy = [e for e in entries if re.search("laplace|gaussian|privtree", e["mechanism"], re.I)]
    assert len(noisy) >= 5
    assert [e["mechanism"] for e in noisy if "discrete" not in e["mechanism"]] == []


def test_discrete_releases_lie_on_their_grid(monkeypatch):
    """The discrete grid points and sub-bin counts are integer counts plus integer noise
    (the grid γ = 1 of their calibration); the continuous ones are not."""
    released = []
    honest = binning.gaussian_mechanism

    def spy(values, sigma, rng, **kwargs):
        noisy, scale = honest(values, sigma, rng, **kwargs)
        released.append((kwargs.get("noise", "continuous"), noisy, scale))
        return noisy, scale

    monkeypatch.setattr(binning, "gaussian_mechanism", spy)
    counts = _skewed_counts(size=256)
    boundaries = privtree_bins(counts, 1.0, np.random.default_rng(0), report=_report())
    for noise in ("continuous", "discrete"):
        report = _report()
        consistent_sub_bin_weights(
            counts, boundaries, 8, 0.05, np.random.default_rng(1), report=report,
            points=(0, 255), noise=noise,
        )  # fmt: skip
        keys, values = grid_points(
            [3, 7, 11], [400, 2, 90], [[0, 5000]], 0.05, np.random.default_rng(2),
            report=report, alpha=50.0, noise=noise,
        )  # fmt: skip
        assert keys.size > 3  # empty points passed too
        sigma = np.sqrt(math.ceil(Fraction(np.sqrt(2) / np.sqrt(0.1)) ** 2))  # sqrt(ceil(σ²))
        for entry in report.entries:
            assert ("discrete" in entry["mechanism"]) == (noise == "discrete")
            if noise == "discrete":
                assert entry["scale"] == pytest.approx(sigma) and "γ = 1" in entry["derivation"]
        draws = [y for kind, y, _ in released if kind == noise]
        assert len(draws) >= 3  # sub-bins, their points, the dense grid
        on_grid = all(np.array_equal(y, np.round(y)) for y in [*draws, values])
        assert on_grid == (noise == "discrete")
        released.clear()


def test_discrete_grid_points_keep_a_point_with_the_discrete_gaussian_tail():
    """The dense discrete release keeps a point of count c with probability
    P(c + Z >= τ), Z discrete Gaussian of σ_γ² = ceil(σ²), τ = σ_γ·Φ̄⁻¹(alpha/L).
    Here ρ = 1 (σ = σ_γ = 1), L = 4, alpha = 0.4: τ = 1.28, a point is kept iff its
    noisy count is >= 2.  The continuous Gaussian tail Φ̄((τ − c)/σ) fails the same
    test."""
    counts, runs = np.array([0, 2, 0, 1]), 4000
    rng, hits = np.random.default_rng(0), np.zeros(4)
    for _ in range(runs):
        report = _report()
        keys, noisy = grid_points(
            [1, 3], [2, 1], [[0, 4]], 1.0, rng, report=report, alpha=0.4, noise="discrete"
        )
        assert np.all(noisy >= 2)
        hits[keys] += 1
    assert report.entries[0]["scale"] == 1.0
    z = np.arange(-40, 41)
    pmf = discrete_gaussian_pmf(z, 1)
    expected = np.array([pmf[z >= 2 - c].sum() for c in counts])
    tolerance = 4 * np.sqrt(expected * (1 - expected) / runs)
    np.testing.assert_array_less(np.abs(hits / runs - expected), tolerance)
    continuous = stats.norm.sf(stats.norm.isf(0.1) - counts)
    assert np.all(np.abs(hits / runs - continuous)[[0, 2, 3]] > tolerance[[0, 2, 3]])


def test_discrete_grid_points_keep_the_sparse_release_meaning():
    """Dense discrete release on a long public grid over several ranges: the recurring
    values come back with counts near theirs, keys outside the ranges never."""
    keys = np.array([10, 500, 77_000, 150_000, 900_000])
    report = _report()
    released, noisy = grid_points(
        keys, [5000, 40, 3000, 800, 7], [[0, 100_000], [800_000, 1_000_000]], 0.01,
        np.random.default_rng(1), report=report, noise="discrete",
    )  # fmt: skip
    # σ_γ = 10, τ = 10·Φ̄⁻¹(0.01/300000) ≈ 54: the two large counts inside the ranges.
    np.testing.assert_array_equal(released, [10, 77_000])
    assert np.all(np.abs(noisy - [5000, 3000]) < 60)
    assert report.rho == pytest.approx(0.01)
    (entry,) = report.entries
    assert entry["mechanism"] == "discrete Gaussian mechanism (dense, thresholded)"
    with pytest.raises(ValueError, match="noise"):
        grid_points(keys, [1] * 5, [[0, 10]], 0.01, np.random.default_rng(1),
                    report=report, noise="float")  # fmt: skip


def test_discrete_privtree_report_entry():
    report = PrivacyReport("t")
    privtree_bins(_skewed_counts(), 1.0, np.random.default_rng(0), report=report, noise="discrete")
    (entry,) = report.entries
    assert entry["mechanism"] == "PrivTree (discrete: Laplace split tests sampled exactly)"
    assert entry["epsilon"] == 1.0 and entry["scale"] == pytest.approx(4.0)
    assert "CKS 2020, Alg. 1" in entry["derivation"]
    with pytest.raises(ValueError, match="noise"):
        privtree_bins(_skewed_counts(), 1.0, np.random.default_rng(0), report=report, noise="x")


def test_range_plan_gives_what_n_cannot_lift_to_the_releases_made():
    """The plan's decisions at their public thresholds, and its accounting: the ρ of
    the releases made is the range's whole ρ, or 0 (public bins)."""
    rho = 2.6e-4
    scale, bias = privtree_scale(math.sqrt(2 * rho))  # λ ≈ 175.5, δ ≈ 121.7
    sigma_w = 1 / math.sqrt((1 - binning.TREE_SHARE) * rho)  # ≈ 71.6 a sub-bin count
    large = binning.range_plan(100_000, rho, binning.POINT_SHARE)
    assert large.tree == pytest.approx(binning.TREE_SHARE * rho)
    assert large.points == pytest.approx(binning.POINT_SHARE * (1 - binning.TREE_SHARE) * rho)
    assert large.rho == pytest.approx(rho, rel=1e-12)
    # Sub-bins: kept from n/8 = σ_w on, else their ρ on the tree.
    kept = math.ceil(binning.SUB_BINS * sigma_w)
    assert binning.range_plan(kept, rho).weights == pytest.approx((1 - binning.TREE_SHARE) * rho)
    assert binning.range_plan(kept - 1, rho) == binning.RangePlan(rho, 0.0, 0.0)
    # The grid points go with the sub-bins; their planned share raises σ_w.
    points = binning.range_plan(kept, rho, binning.POINT_SHARE)
    assert points == binning.RangePlan(rho, 0.0, 0.0)
    assert binning.range_plan(2 * kept, rho, binning.POINT_SHARE).rho == pytest.approx(rho)
    # PrivTree: public bins below λ + δ.
    public = math.ceil(scale + bias) - 1
    assert binning.range_plan(public, rho).rho == 0.0
    assert binning.range_plan(public + 1, rho) == binning.RangePlan(rho, 0.0, 0.0)


def test_public_tree_bins_split_where_evenly_spread_rows_beat_the_bias():
    """As many equal bins as the full tree whose nodes ``n`` evenly spread rows give a
    biased count above θ = 0 (the majority outcome of each test); finer with more rows;
    the padding of a grid is a bin of its own."""
    rho = 2.6e-4
    _, bias = privtree_scale(math.sqrt(2 * rho))
    assert binning.public_tree_bins(275, 1024, rho).tolist() == [0, 256, 512, 768, 1024]
    assert 275 / 2 - bias > 0 > 275 / 4 - 2 * bias
    assert binning.public_tree_bins(100, 1024, rho).tolist() == [0, 512, 1024]
    sizes = [binning.public_tree_bins(n, 1024, rho).size for n in (100, 1000, 10_000, 100_000)]
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]
    padded = binning.public_tree_bins(275, 8192, rho, occupied=5001)
    assert padded.tolist() == [0, 1250, 2500, 3751, 5001, 8192]
    assert binning.public_tree_bins(10**6, 1024, rho, min_width=64).tolist() == list(
        range(0, 1025, 64)
    )


def _grid(spec):
    from skprivsynth.domain import Domain
    from skprivsynth.preprocessing._counts import _FineCounts, _FineGrid

    spec = Domain({"v": spec})["v"]
    return _FineGrid(spec), _FineCounts({"v": spec})


@pytest.mark.parametrize("n", [100, 200, 20_000])
def test_release_bins_reports_the_plan(n):
    """The report holds the plan's ρ: the whole budget where anything is released
    (a skipped release's ρ moved to another of the range), nothing where the bins are
    public; public bins do not depend on the data."""
    grid, statistic = _grid({"type": "float", "range": [0.0, 100.0]})
    rng = np.random.default_rng(0)
    tables = [
        pd.DataFrame({"v": rng.normal(30, 5, n).clip(0, 100)}),
        pd.DataFrame({"v": rng.uniform(60, 100, n)}),
    ]
    (plan,) = binning.plan_bins(n, {"v": grid}, 0.25).values()
    outcomes = []
    for frame in tables:
        rows, counts = statistic(frame)
        assert rows == n
        released, report = binning.release_bins(
            counts, {"v": grid}, {"v": 1}, 0.25, np.random.default_rng(1),
            np.random.default_rng(2), n,
        )  # fmt: skip
        assert report.rho == pytest.approx(plan.rho, rel=1e-12)
        steps = [e["step"] for e in report.entries]
        outcomes.append(released["v"].edges)
        if n == 100:  # one range at ε = 0.25: λ + δ ≈ 149 > n, public bins, no release
            assert plan.rho == 0.0 and steps == []
            np.testing.assert_array_equal(released["v"].sub_weights, 1 / binning.SUB_BINS)
        elif n == 200:  # n/8 = 25 < σ_w ≈ 36: every ρ on PrivTree
            assert steps == ["bins of 'v'"]
            assert plan.rho == pytest.approx(binning.binning_cost(0.25).rho, rel=1e-12)
            np.testing.assert_array_equal(released["v"].sub_weights, 1 / binning.SUB_BINS)
        else:
            assert steps == ["bins of 'v'", "sub-bin weights of 'v'"]
            assert plan.rho == pytest.approx(binning.binning_cost(0.25).rho, rel=1e-12)
    if n == 100:
        assert outcomes[0] == outcomes[1]
