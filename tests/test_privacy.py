"""Noise, calibration and accounting (skprivsynth.privacy, skprivsynth._math.discrete_noise)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from skprivsynth._math import discrete_noise as dn
from skprivsynth.privacy import (
    GRID_BITS,
    PrivacyReport,
    check_delta,
    check_epsilon,
    check_noise,
    discrete_gaussian_calibration,
    discrete_laplace_calibration,
    gaussian_mechanism,
    gaussian_noise,
    laplace_mechanism,
    laplace_noise,
    laplace_scale,
    laplace_threshold_test,
)


def _chi2_pvalue(draws, pmf, support_half):
    """Chi-square test of integer draws against a pmf on [-h, h] plus the two tails."""
    z = np.clip(draws, -support_half - 1, support_half + 1)
    values = np.arange(-support_half - 1, support_half + 2)
    observed = np.array([(z == v).sum() for v in values], dtype=float)
    inner = pmf(np.arange(-support_half, support_half + 1))
    tail = (1.0 - inner.sum()) / 2.0
    expected = np.concatenate([[tail], inner, [tail]]) * draws.size
    keep = expected > 5
    observed_kept = np.append(observed[keep], observed[~keep].sum())
    expected_kept = np.append(expected[keep], expected[~keep].sum())
    if expected_kept[-1] == 0:
        observed_kept, expected_kept = observed_kept[:-1], expected_kept[:-1]
    expected_kept *= observed_kept.sum() / expected_kept.sum()
    return stats.chisquare(observed_kept, expected_kept).pvalue


# --------------------------------------------------------------------------- checks


def test_check_epsilon_and_delta():
    assert check_epsilon(2) == 2.0
    for bad in (0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="epsilon"):
            check_epsilon(bad)
    with pytest.raises(TypeError, match="epsilon"):
        check_epsilon("1")
    with pytest.raises(TypeError, match="epsilon"):
        check_epsilon(True)
    assert check_delta(1e-6) == 1e-6
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="delta"):
            check_delta(bad)


def test_check_noise():
    assert check_noise("discrete") == "discrete"
    with pytest.raises(ValueError, match="noise"):
        check_noise("exact")


def test_laplace_scale_and_noise():
    assert laplace_scale(2.0, 0.5) == 4.0
    with pytest.raises(ValueError, match="sensitivity"):
        laplace_scale(-1.0, 1.0)
    rng = np.random.default_rng(0)
    x = laplace_noise(2.0, 200_000, rng)
    assert abs(np.mean(np.abs(x)) - 2.0) < 0.02  # E|Lap(b)| = b
    assert np.all(laplace_noise(0.0, 3, rng) == 0)
    with pytest.raises(ValueError, match="scale"):
        laplace_noise(math.inf, 3, rng)
    g = gaussian_noise(3.0, 200_000, rng)
    assert abs(g.std() - 3.0) < 0.03
    with pytest.raises(ValueError, match="scale"):
        gaussian_noise(-1.0, 3, rng)


def test_privacy_report_totals_and_text():
    report = PrivacyReport("demo")
    report.add("weights", "Laplace", 2 / 100, 0.5, 0.04, "||Δw||_1 <= 2/n")
    report.add("answers", "Gaussian", 1.0, 0.5, 3.0, "L2", delta=1e-6)
    assert report.epsilon == 1.0
    assert report.delta == 1e-6
    text = str(report)
    assert "replace-one" in text and "weights" in text and "delta" in text


# ------------------------------------------------------------- exact samplers


@pytest.mark.parametrize(("num", "den"), [(0, 1), (1, 3), (2, 3), (3, 3), (7, 2), (5, 1)])
def test_bernoulli_exp_matches_probability(num, den):
    rng = np.random.default_rng(num * 10 + den)
    draws = dn.bernoulli_exp(np.full(60_000, num), den, rng)
    p = math.exp(-num / den)
    assert stats.binomtest(int(draws.sum()), draws.size, p).pvalue > 1e-3


def test_bernoulli_exp_rejects_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="den"):
        dn.bernoulli_exp([1], 0, rng)
    with pytest.raises(ValueError, match="num"):
        dn.bernoulli_exp([-1], 2, rng)


def test_threshold_table_is_exact():
    # floor(e^{-v}·2^62) from independent exact rational bounds (Taylor series of e^v).
    for v in (1, 2, 5, 20, 40):
        partial = sum(Fraction(v**k, math.factorial(k)) for k in range(200))
        upper_ev = partial + Fraction(2 * v**200, math.factorial(200))
        lo = math.floor(Fraction(2**62) / upper_ev)
        hi = math.floor(Fraction(2**62) / partial)
        assert lo == hi == int(dn._EXP_THRESHOLDS[v])


def test_eighth_threshold_table_is_exact():
    for k in (1, 7, 8, 100, 343):
        x = Fraction(k, 8)
        partial = sum(x**j / math.factorial(j) for j in range(400))  # e^{k/8} from below
        upper_ev = partial + 2 * x**400 / math.factorial(400)
        lo = math.floor(Fraction(2**62) / upper_ev)
        hi = math.floor(Fraction(2**62) / partial)
        assert lo == hi == int(dn._EXP8_THRESHOLDS[k])
    assert dn._EXP8_THRESHOLDS[-1] == 0


def test_geometric_exp_minus_eighth_law():
    rng = np.random.default_rng(11)
    r = dn._random_words(rng, 100_000).view(np.int64) & ((1 << dn._W_BITS) - 1)
    w = dn._floor_neg_8log(r, rng)  # floor(-8 ln ξ) from 32-bit uniforms, as the fast loop
    observed = np.bincount(np.minimum(w, 30), minlength=31)
    expected = (1 - math.exp(-1 / 8)) * np.exp(-np.arange(31) / 8)
    expected[-1] = math.exp(-30 / 8)
    assert stats.chisquare(observed, expected * w.size).pvalue > 1e-3
    assert dn._scalar_floor_neg_log(int(dn._EXP8_THRESHOLDS[5]), rng, q=8) in (4, 5)


def test_geometric_exp_minus_one_law():
    rng = np.random.default_rng(1)
    v = dn._geometric_exp_minus_one(100_000, rng)
    assert v.min() >= 0
    observed = np.bincount(np.minimum(v, 9), minlength=10)
    expected = (1 - math.exp(-1)) * np.exp(-np.arange(10.0))
    expected[-1] = math.exp(-9)  # P(V >= 9)
    assert stats.chisquare(observed, expected * v.size).pvalue > 1e-3


def test_scalar_tie_paths_are_exact():
    rng = np.random.default_rng(2)
    # A uniform ξ whose first 62 bits equal floor(e^-1·2^62) is below e^-1 with
    # probability frac(e^-1·2^62); the lazy extension must reproduce it.
    lo, _ = dn._exp_neg_bounds(1, 200)
    frac = float(Fraction(lo, 2**200) * 2**62 - int(dn._EXP_THRESHOLDS[1]))
    prefix = int(dn._EXP_THRESHOLDS[1])
    hits = sum(dn._scalar_less_exp(prefix, 1, rng) for _ in range(3000))
    assert stats.binomtest(hits, 3000, frac).pvalue > 1e-3
    assert dn._scalar_less_exp(0, 3, rng) is True or dn._scalar_less_exp(0, 3, rng) is False
    assert dn._scalar_less_exp(prefix + 1, 1, rng) is False
    assert dn._scalar_less_exp(prefix - 1, 1, rng) is True
    # floor(-ln ξ) for ξ in [L_3/2^62, (L_3+1)/2^62): either 2 or 3.
    outs = {dn._scalar_floor_neg_log(int(dn._EXP_THRESHOLDS[3]), rng) for _ in range(200)}
    assert outs <= {2, 3} and outs
    assert dn._scalar_floor_neg_log(2**61, rng) == 0  # ξ ≈ 1/2 > e^-1


@pytest.mark.parametrize(("t", "s"), [(1, 1), (3, 1), (7, 2), (8, 1), (40, 1), (48, 3)])
def test_discrete_laplace_chi_square(t, s):
    rng = np.random.default_rng(t + 100 * s)
    draws = dn.discrete_laplace(t, 80_000, rng, s=s)
    assert draws.dtype == np.int64
    half = int(4 * t / s) + 2
    assert _chi2_pvalue(draws, lambda z: dn.discrete_laplace_pmf(z, t / s), half) > 1e-3


@pytest.mark.parametrize("sigma2", [1, 4, 50])
def test_discrete_gaussian_chi_square(sigma2):
    rng = np.random.default_rng(sigma2)
    draws = dn.discrete_gaussian(sigma2, 60_000, rng)
    half = int(4 * math.sqrt(sigma2)) + 2
    assert _chi2_pvalue(draws, lambda z: dn.discrete_gaussian_pmf(z, sigma2), half) > 1e-3


def test_discrete_gaussian_large_sigma_moments():
    rng = np.random.default_rng(3)
    draws = dn.discrete_gaussian(2**30, 50_000, rng)
    sd = 2**15
    assert abs(draws.mean()) < 5 * sd / math.sqrt(draws.size)
    assert abs(draws.std() / sd - 1) < 0.02


def test_gaussian_exponent_parts_are_exact():
    rng = np.random.default_rng(4)
    for a in (1, 9, 12345, 2**30):
        t = math.isqrt(a) + 1
        ay = rng.integers(0, dn._GAUSS_VECTOR_Y + 1, size=2000)
        ay[:3] = [0, 1, dn._GAUSS_VECTOR_Y]
        whole, rem, d = dn._gaussian_exponent_parts(ay, t, a)
        for y, w, r in zip(ay.tolist(), whole.tolist(), rem.tolist(), strict=True):
            assert divmod((y * t - a) ** 2, d) == (w, r)


def test_gaussian_python_acceptance_path():
    rng = np.random.default_rng(5)
    a, t, ay = 9, 4, 5  # γ = (20 - 9)² / (2·9·16) = 121/288
    hits = sum(dn._gaussian_accept_python(ay, t, a, rng) for _ in range(3000))
    assert stats.binomtest(hits, 3000, math.exp(-121 / 288)).pvalue > 1e-3
    assert dn._gaussian_accept_python(10**9, t, a, rng) is False  # e^{-huge}


def test_sampler_argument_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="t must"):
        dn.discrete_laplace(0, 3, rng)
    with pytest.raises(TypeError, match="t must"):
        dn.discrete_laplace(1.5, 3, rng)
    with pytest.raises(ValueError, match="sigma2"):
        dn.discrete_gaussian(2**31, 3, rng)
    with pytest.raises(ValueError, match="size"):
        dn.discrete_laplace(3, (-1,), rng)
    assert dn.discrete_laplace(3, (2, 0), rng).shape == (2, 0)


def test_samplers_reproducible():
    a = dn.discrete_laplace(1000, 500, np.random.default_rng(9))
    b = dn.discrete_laplace(1000, 500, np.random.default_rng(9))
    np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------- calibrations


def test_discrete_laplace_calibration_derivation():
    cal = discrete_laplace_calibration(2 / 100, 0.5, 64)
    gamma = cal.granularity
    assert math.log2(gamma).is_integer()
    assert gamma <= 0.02 / (64 * 2**GRID_BITS) < 2 * gamma
    assert cal.grid_sensitivity == math.floor(0.02 / gamma) + 64
    assert cal.grid_scale == 8 * math.ceil(cal.grid_sensitivity / (8 * 0.5))
    assert cal.epsilon <= 0.5
    assert cal.grid_sensitivity / cal.grid_scale == pytest.approx(cal.epsilon)
    # the noise is at most ≈ 2^-GRID_BITS larger than the continuous mechanism's
    assert 0.04 <= cal.scale <= 0.04 * (1 + 2.0**-GRID_BITS) + 9 * gamma
    assert "Δ_γ" in cal.derivation


def test_rounding_sensitivity_bound_holds():
    # ||r(x) − r(x')||_1 <= floor(Δ/γ) + c for neighbours with ||x − x'||_1 <= Δ.
    rng = np.random.default_rng(6)
    c, delta = 16, 0.3
    cal = discrete_laplace_calibration(delta, 1.0, c)
    worst = 0
    for _ in range(200):
        x = rng.normal(size=c)
        step = rng.dirichlet(np.ones(c)) * delta * rng.choice([-1, 1], size=c)
        x2 = x + step
        d = np.abs(np.rint(x / cal.granularity) - np.rint(x2 / cal.granularity)).sum()
        worst = max(worst, d)
    assert worst <= cal.grid_sensitivity
    assert worst > cal.grid_sensitivity - c - 1  # the bound is nearly tight


def test_discrete_gaussian_calibration_preserves_ratio():
    cal = discrete_gaussian_calibration(3.0, 1.0, 100)
    sigma_grid = math.sqrt(cal.grid_scale)
    assert cal.grid_sensitivity / sigma_grid <= 1.0 / 3.0
    assert cal.grid_sensitivity >= 1.0 / cal.granularity + 10
    assert 3.0 <= cal.scale <= 3.0 * 1.01
    assert cal.grid_scale <= dn.MAX_GAUSSIAN_SIGMA2
    big = discrete_gaussian_calibration(50.0, 1.0, 10_000)  # needs a coarser grid
    assert big.grid_scale <= dn.MAX_GAUSSIAN_SIGMA2
    assert big.grid_sensitivity / math.sqrt(big.grid_scale) <= 1.0 / 50.0


def test_discrete_gaussian_calibration_of_integer_counts():
    """Integer counts are on the grid γ = 1: no rounding, σ_γ² = ceil(σ²) exactly, and
    the size of the statistic does not enter (the rounding calibration's limit on
    n·(σ/Δ)² does not apply)."""
    for sigma in (1.0, 4.47213595499958, 100.0, 20_000.5):
        for c in (1, 10**7):
            cal = discrete_gaussian_calibration(sigma, math.sqrt(2), c, integer=True)
            assert cal.granularity == 1.0 and cal.grid_sensitivity == math.sqrt(2)
            assert cal.grid_scale == math.ceil(Fraction(sigma) ** 2)
            assert cal.grid_scale - 1 < sigma**2 <= cal.grid_scale and "γ = 1" in cal.derivation
    with pytest.raises(ValueError, match="2\\*\\*28"):
        discrete_gaussian_calibration(100.0, math.sqrt(2), 10**7)
    with pytest.raises(ValueError, match="2\\*\\*30"):
        discrete_gaussian_calibration(2.0**16, 1.0, 1, integer=True)
    rng = np.random.default_rng(0)
    counts = np.arange(50_000) % 7
    noisy, scale = gaussian_mechanism(
        counts, 3.5, rng, noise="discrete", sensitivity=1.0, integer=True
    )
    assert scale == math.sqrt(13) and np.array_equal(noisy, np.round(noisy))
    assert _chi2_pvalue((noisy - counts).astype(np.int64),
                        lambda z: dn.discrete_gaussian_pmf(z, 13), 15) > 1e-3  # fmt: skip
    with pytest.raises(TypeError, match="integer"):
        gaussian_mechanism(counts + 0.5, 3.5, rng, noise="discrete", sensitivity=1.0, integer=True)


@pytest.mark.parametrize("noise", ["continuous", "discrete"])
def test_laplace_threshold_test_has_the_laplace_law(noise):
    """P(value + Lap(b) > θ) is the Laplace survival function at θ − value, for both
    samplers (the discrete one by a coin and an exact Bernoulli(exp(−|θ − v|/b)))."""
    values = np.repeat([-3.0, -0.4, 0.0, 0.7, 2.5, 40.0], 20_000)
    passed = laplace_threshold_test(values, 0.25, 1.5, np.random.default_rng(1), noise=noise)
    rate = passed.reshape(6, -1).mean(axis=1)
    expected = stats.laplace.sf((0.25 - values[::20_000]) / 1.5)
    tolerance = 4 * np.sqrt(expected * (1 - expected) / 20_000) + 1e-12
    np.testing.assert_array_less(np.abs(rate - expected), tolerance)
    assert laplace_threshold_test(np.zeros((2, 3)), 0.0, 1.0, np.random.default_rng(0),
                                  noise=noise).shape == (2, 3)  # fmt: skip
    with pytest.raises(ValueError, match="scale"):
        laplace_threshold_test([1.0], 0.0, 0.0, np.random.default_rng(0), noise=noise)


def test_laplace_threshold_test_continuous_is_the_noisy_comparison():
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    values = np.linspace(-4, 4, 101)
    expected = values + rng_a.laplace(0.0, 2.0, size=101) > 0.5
    np.testing.assert_array_equal(laplace_threshold_test(values, 0.5, 2.0, rng_b), expected)


def test_calibration_errors():
    with pytest.raises(ValueError, match="epsilon"):
        discrete_laplace_calibration(1.0, 0.0, 3)
    with pytest.raises(ValueError, match="epsilon"):
        discrete_laplace_calibration(1.0, 1e-14, 10**6)
    with pytest.raises(ValueError, match="sensitivity"):
        discrete_laplace_calibration(0.0, 1.0, 3)
    with pytest.raises(ValueError, match="sensitivity"):
        discrete_laplace_calibration(math.nan, 1.0, 3)
    with pytest.raises(ValueError, match="n_coordinates"):
        discrete_laplace_calibration(1.0, 1.0, 0)
    with pytest.raises(ValueError, match="sigma"):
        discrete_gaussian_calibration(0.0, 1.0, 3)
    with pytest.raises(ValueError, match="n_coordinates"):
        discrete_gaussian_calibration(1e4, 1.0, 10**6)


# ------------------------------------------------------------- mechanisms


def test_laplace_mechanism_continuous_default_unchanged():
    v = np.array([0.1, 0.2, 0.3])
    a, scale = laplace_mechanism(v, 0.2, 0.5, np.random.default_rng(0))
    b = v + np.random.default_rng(0).laplace(0.0, 0.4, size=3)
    np.testing.assert_array_equal(a, b)
    assert scale == 0.4


def test_laplace_mechanism_discrete_on_grid_and_unbiased():
    rng = np.random.default_rng(7)
    v = rng.random((50, 4))
    noisy, scale = laplace_mechanism(v, 0.02, 1.0, rng, noise="discrete")
    cal = discrete_laplace_calibration(0.02, 1.0, v.size)
    assert noisy.shape == v.shape and scale == cal.scale
    k = noisy / cal.granularity
    np.testing.assert_array_equal(k, np.rint(k))  # every output is a grid point
    many = np.concatenate(
        [laplace_mechanism(v, 0.02, 1.0, rng, noise="discrete")[0] - v for _ in range(100)]
    )
    assert abs(many.mean()) < 5 * math.sqrt(2) * scale / math.sqrt(many.size)
    assert abs(np.mean(np.abs(many)) / scale - 1) < 0.03


def test_laplace_mechanism_discrete_exact_grid_input_keeps_values():
    # a statistic already on the grid is not moved by the rounding
    cal = discrete_laplace_calibration(1.0, 1.0, 3)
    v = np.array([0.0, 1.0, -2.0])
    rng = np.random.default_rng(0)
    noisy, _ = laplace_mechanism(v, 1.0, 1.0, rng, noise="discrete")
    rng = np.random.default_rng(0)
    noise = dn.discrete_laplace(cal.grid_scale, 3, rng)
    np.testing.assert_array_equal(noisy, v + noise * cal.granularity)


def test_laplace_mechanism_zero_sensitivity_and_empty():
    rng = np.random.default_rng(0)
    out, scale = laplace_mechanism([1.5, 2.5], 0.0, 1.0, rng, noise="discrete")
    assert scale == 0 and out.tolist() == [1.5, 2.5]
    out, _ = laplace_mechanism(np.zeros((0, 3)), 1.0, 1.0, rng, noise="discrete")
    assert out.shape == (0, 3)


def test_mechanism_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="noise"):
        laplace_mechanism([1.0], 1.0, 1.0, rng, noise="float")
    with pytest.raises(ValueError, match="epsilon"):
        laplace_mechanism([1.0], 1.0, -1.0, rng, noise="discrete")
    with pytest.raises(ValueError, match="values"):
        laplace_mechanism([np.nan], 1.0, 1.0, rng, noise="discrete")
    with pytest.raises(ValueError, match="sensitivity"):
        gaussian_mechanism([1.0], 1.0, rng, noise="discrete")
    with pytest.raises(ValueError, match="sigma"):
        gaussian_mechanism([1.0], -1.0, rng)
    with pytest.raises(ValueError, match="noise"):
        gaussian_mechanism([1.0], 1.0, rng, noise="Discrete")


def test_gaussian_mechanism_continuous_and_discrete():
    rng = np.random.default_rng(8)
    v = np.zeros(40_000)
    out, sigma = gaussian_mechanism(v, 2.0, rng)
    assert sigma == 2.0 and abs(out.std() - 2.0) < 0.05
    out, scale = gaussian_mechanism(v + 0.3, 2.0, rng, noise="discrete", sensitivity=0.5)
    cal = discrete_gaussian_calibration(2.0, 0.5, v.size)
    assert scale == cal.scale >= 2.0
    k = out / cal.granularity
    np.testing.assert_array_equal(k, np.rint(k))
    assert abs(out.std() - scale) < 0.05
    assert abs(out.mean() - 0.3) < 0.05


# ------------------------------------------ fast exact discrete Gaussian (block envelope)


@pytest.mark.parametrize("sigma2", [2**12, 5000, 40_000])
def test_discrete_gaussian_envelope_chi_square(sigma2):
    """The block-envelope path (sigma2 >= 2**12) has the discrete Gaussian law."""
    assert sigma2 >= dn._ENVELOPE_MIN_SIGMA2
    rng = np.random.default_rng(sigma2)
    draws = dn.discrete_gaussian(sigma2, 300_000, rng)
    half = int(4 * math.sqrt(sigma2)) + 2
    assert _chi2_pvalue(draws, lambda z: dn.discrete_gaussian_pmf(z, sigma2), half) > 1e-3
    # parity and sign symmetry (a block-structure bug would show here first)
    assert stats.binomtest(int((draws % 2 == 0).sum()), draws.size, 0.5).pvalue > 1e-3
    nonzero = draws[draws != 0]
    assert stats.binomtest(int((nonzero > 0).sum()), nonzero.size, 0.5).pvalue > 1e-3


@pytest.mark.parametrize("sigma2", [2**12, 123_457, 2**30])
def test_gaussian_envelope_tables_are_exact(sigma2):
    env = dn._GaussianEnvelope(sigma2)
    # fixed-point thresholds agree with the series-based certified floor(c_b·2**32)
    for b in list(range(0, env.n_blocks, 29)) + [env.n_blocks - 1]:
        assert int(env.threshold[b]) == env._c_floor(b, dn._C_BITS)
    assert env.threshold.max() <= 2**dn._C_BITS  # c_b <= 1: the envelope dominates
    assert env.tail_c_bracket(60)[1] <= 1
    # the alias table reproduces the integer entry weights exactly
    column = 1 << dn._COIN_BITS
    mass = env.prob.astype(object).copy()
    np.add.at(mass, env.alias, column - env.prob.astype(object))
    assert int(mass[: env.n_blocks].sum()) == sum(env.block_weight) * env.w
    assert all(int(mass[b]) == env.block_weight[b] * env.w for b in range(env.n_blocks))
    assert int(mass.sum()) == column * mass.size


def test_gamma_continuation_and_scalar_bracketed_are_exact():
    rng = np.random.default_rng(11)
    num, den, n = 3 * 2**28, 2**30, 40_000  # γ = 0.75: many open first rounds
    r30 = rng.integers(0, 2**dn._G_BITS, size=n)
    open_ = r30 * den < (num << dn._G_BITS)  # the entries the sampler continues
    out = np.ones(n, dtype=bool)
    nums = np.full(open_.sum(), num)
    out[open_] = dn._alg1_finish(nums, (nums << dn._G_BITS) - r30[open_] * den, den, rng)
    assert stats.binomtest(int(out.sum()), n, math.exp(-0.75)).pvalue > 1e-3
    third = lambda prec: (Fraction(1, 3), Fraction(1, 3))  # noqa: E731
    hits = sum(dn._scalar_bernoulli_bracketed(0, 0, third, rng) for _ in range(3000))
    assert stats.binomtest(hits, 3000, 1 / 3).pvalue > 1e-3
    prefix = 2**32 // 3  # ξ in [prefix, prefix+1)/2**32 straddles 1/3: P = frac(2**32/3)
    hits = sum(dn._scalar_bernoulli_bracketed(prefix, 32, third, rng) for _ in range(3000))
    assert stats.binomtest(hits, 3000, 1 / 3).pvalue > 1e-3
    assert dn._exp_bracket(0, 7, 50) == (1, 1)
    lo, hi = dn._exp_bracket(123, 10, 60)
    ref = Fraction(math.exp(-12.3))
    assert lo <= ref * (1 + Fraction(1, 10**12)) and hi >= ref * (1 - Fraction(1, 10**12))
    assert hi - lo < Fraction(1, 2**60)


def test_gaussian_envelope_tail_path():
    env = dn._gaussian_envelope(2**12)
    rng = np.random.default_rng(12)
    values = [dn._tail_candidate(env, rng) for _ in range(200)]
    assert all(v is None or v >= env.m0 for v in values)


# ------------------------------------------------ fused fast paths (bit fields of raw words)


def test_discrete_laplace_fast_path_large_t_and_s():
    """8 | t with t >= 2**32 (fewer first-round bits, G = 26) and s != 1: exact law."""
    t, s = 2**36, 2**33  # scale t/s = 8
    rng = np.random.default_rng(21)
    draws = dn.discrete_laplace(t, 120_000, rng, s=s)
    assert _chi2_pvalue(draws, lambda z: dn.discrete_laplace_pmf(z, t / s), 40) > 1e-3
    nonzero = draws[draws != 0]
    assert stats.binomtest(int((nonzero > 0).sum()), nonzero.size, 0.5).pvalue > 1e-3


def test_floor_neg_8log_scalar_fallback():
    """32-bit prefixes on a threshold (or 0) are finished exactly by the scalar path."""
    rng = np.random.default_rng(22)
    for k in (1, 5, 40):
        r = np.full(300, dn._A8[k], dtype=np.int64)  # ξ's interval contains e^{-k/8}
        w = dn._floor_neg_8log(r, rng)
        assert set(w.tolist()) <= {k - 1, k}
    assert dn._floor_neg_8log(np.zeros(3, dtype=np.int64), rng).min() >= 177  # ξ < 2**-32
    r = np.array([2**32 - 1, 2**31], dtype=np.int64)  # ξ ≈ 1 and ξ ≈ 1/2
    assert dn._floor_neg_8log(r, rng).tolist() == [0, 5]  # floor(8 ln 2) = 5


@pytest.mark.parametrize("sigma2", [2**12, 123_457])
def test_gaussian_envelope_fused_tables(sigma2):
    env = dn._GaussianEnvelope(sigma2)
    ncol = 1 << env.log_ncol
    cols = np.arange(ncol)
    np.testing.assert_array_equal(env.entry2, np.concatenate([env.alias, cols]))
    blocks = env.entry2 < env.n_blocks
    np.testing.assert_array_equal(env.start2[blocks], env.entry2[blocks] * env.w)
    np.testing.assert_array_equal(env.threshold2[blocks], env.threshold[env.entry2[blocks]])
    tail = env.entry2 == env.n_blocks
    assert (env.start2[tail] == env.m0).all() and (env.threshold2[tail] > 2**dn._C_BITS).all()
    other = env.entry2 > env.n_blocks
    assert (env.threshold2[other] == -1).all() and (env.start2[other] == 0).all()
    # coin < prob[col]  <=>  coin·ncol + col < prob_shifted[col], at the edges
    for c in range(min(ncol, 40)):
        for coin in {0, max(int(env.prob[c]) - 1, 0), int(env.prob[c]), 2**dn._COIN_BITS - 1}:
            lhs = coin * ncol + c < int(env.prob_shifted[c])
            assert lhs == (coin < int(env.prob[c]))


class _CraftedPCG64(np.random.PCG64):
    """A PCG64 whose first ``random_raw`` call returns given words (then real ones)."""

    def __init__(self, words, seed):
        super().__init__(seed)
        self._words = words

    def random_raw(self, size=None, output=True):
        if self._words is not None:
            words, self._words = self._words, None
            return np.resize(words, size).astype(np.uint64)
        return super().random_raw(size, output)


def _CraftedFirstWords(words, seed):  # noqa: N802 - reads as the class it was
    """A Generator whose first raw-word draw returns given words (then real ones)."""
    return np.random.Generator(_CraftedPCG64(words, seed))


def test_gaussian_envelope_loop_tail_entries(monkeypatch):
    """Candidates whose alias draw lands on the tail entry go to the tail path."""
    a = 2**12
    env = dn._gaussian_envelope(a)
    ncol = 1 << env.log_ncol
    j = int(np.flatnonzero(env.entry2 == env.n_blocks)[0])
    col, coin = (j - ncol, 0) if j >= ncol else (j, 2**dn._COIN_BITS - 1)
    word = (coin << env.log_ncol) | col  # offset 0, sign bit 0
    calls = []

    def tail(env, rng, value):
        calls.append(value)
        return value

    # accepted tail candidates: the value returned by the tail path, with the sign bit
    monkeypatch.setattr(dn, "_tail_candidate", lambda env, rng: tail(env, rng, env.m0 + 5))
    rng = _CraftedFirstWords(np.array([word], dtype=np.uint64), seed=23)
    z = dn._discrete_gaussian_envelope(a, 3, rng)
    assert z.tolist() == [env.m0 + 5] * 3 and len(calls) > 3
    sign = np.array([word | (1 << 63)], dtype=np.uint64)
    z = dn._discrete_gaussian_envelope(a, 3, _CraftedFirstWords(sign, seed=23))
    assert z.tolist() == [-(env.m0 + 5)] * 3
    # rejected tail candidates: the outputs come from later (real) chunks
    monkeypatch.setattr(dn, "_tail_candidate", lambda env, rng: tail(env, rng, None))
    calls.clear()
    z = dn._discrete_gaussian_envelope(a, 3, _CraftedFirstWords(np.array([word]), seed=23))
    assert len(calls) > 3 and (np.abs(z) < env.m0).all()


def test_grid_release_of_a_scalar():
    rng = np.random.default_rng(24)
    out, scale = laplace_mechanism(0.3, 0.1, 1.0, rng, noise="discrete")
    cal = discrete_laplace_calibration(0.1, 1.0, 1)
    assert out.shape == () and float(out / cal.granularity).is_integer()
    out, _ = gaussian_mechanism(0.3, 0.1, rng, noise="discrete", sensitivity=0.1)
    assert out.shape == ()


@pytest.mark.parametrize("bit_generator", [np.random.MT19937, np.random.Philox, np.random.SFC64])
def test_fast_paths_exact_with_any_bit_generator(bit_generator):
    """The raw-word fast paths need 64 uniform bits per word: MT19937's ``random_raw``
    yields 32-bit words (bits 32-63 zero), which made every draw non-negative."""
    rng = np.random.Generator(bit_generator(31))
    draws = dn.discrete_laplace(8, 40_000, rng)  # fused 8 | t path
    assert _chi2_pvalue(draws, lambda z: dn.discrete_laplace_pmf(z, 8), 40) > 1e-3
    nonzero = draws[draws != 0]
    assert stats.binomtest(int((nonzero > 0).sum()), nonzero.size, 0.5).pvalue > 1e-3
    sigma2 = 2**12  # block-envelope path
    draws = dn.discrete_gaussian(sigma2, 40_000, rng)
    half = int(4 * math.sqrt(sigma2)) + 2
    assert _chi2_pvalue(draws, lambda z: dn.discrete_gaussian_pmf(z, sigma2), half) > 1e-3
    nonzero = draws[draws != 0]
    assert stats.binomtest(int((nonzero > 0).sum()), nonzero.size, 0.5).pvalue > 1e-3
    words = dn._random_words(rng, 4000)
    assert words.dtype == np.uint64 and (words >> np.uint64(63)).mean() > 0.4


# ----------------------------------------------------------------- zero-concentrated DP


@pytest.mark.parametrize("mu", [0.05, 0.3, 1.0, 3.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-9])
def test_zcdp_conversion_holds_for_the_exact_gaussian_privacy_profile(mu, delta):
    # A Gaussian mechanism with Δ/σ = μ is μ²/2-zCDP; its exact (ε, δ(ε)) curve is
    # δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (Balle & Wang 2018, Thm. 8).
    from scipy.stats import norm

    from skprivsynth.privacy import zcdp_epsilon

    eps = zcdp_epsilon(mu**2 / 2, delta)
    exact = norm.cdf(mu / 2 - eps / mu) - np.exp(eps) * norm.cdf(-mu / 2 - eps / mu)
    assert exact <= delta
    # and it is not loose by more than the known zCDP slack
    assert eps <= mu**2 / 2 + 2 * np.sqrt(mu**2 / 2 * np.log(1 / delta))


def test_zcdp_rho_inverts_zcdp_epsilon():
    from skprivsynth.privacy import zcdp_epsilon, zcdp_rho

    for epsilon in [0.1, 0.5, 1.0, 2.0, 10.0]:
        rho = zcdp_rho(epsilon, 1e-9)
        assert zcdp_epsilon(rho, 1e-9) <= epsilon
        assert zcdp_epsilon(rho * (1 + 1e-6), 1e-9) > epsilon


def test_report_composes_zcdp_entries_before_converting():
    from skprivsynth.privacy import PrivacyReport, zcdp_epsilon

    a = PrivacyReport("A", zcdp_delta=1e-9)
    a.add("one-way", "Gaussian", 1.4, None, 1.0, "-", rho=0.01)
    a.add("pairs", "Gaussian", 1.4, None, 1.0, "-", rho=0.02)
    assert a.rho == pytest.approx(0.03)
    assert a.epsilon == pytest.approx(zcdp_epsilon(0.03, 1e-9))
    assert a.delta == pytest.approx(1e-9)
    b = PrivacyReport("B").add("levels", "Laplace", 2, 0.25, 8.0, "-")
    both = a.compose(b)
    assert both.epsilon == pytest.approx(a.epsilon + 0.25)
    assert both.delta == pytest.approx(1e-9)
    assert "rho = 0.03" in str(both)
    with pytest.raises(ValueError, match="exactly one of epsilon and rho"):
        a.add("bad", "Gaussian", 1, 0.1, 1.0, "-", rho=0.1)


def test_release_gaussian_spends_rho_with_sigma_from_the_sensitivity():
    from skprivsynth.privacy import PrivacyReport

    report = PrivacyReport("M", zcdp_delta=1e-9)
    rng = np.random.default_rng(0)
    noisy = report.release_gaussian("table", np.zeros(200_000), np.sqrt(2), 0.5, rng)
    # σ = Δ/sqrt(2ρ) = sqrt(2)/1 ; the sample standard deviation agrees to 1 %
    assert np.std(noisy) == pytest.approx(np.sqrt(2), rel=0.01)
    assert report.rho == 0.5


def test_exponential_mechanism_frequencies_follow_the_scores():
    from skprivsynth.privacy import exponential_mechanism

    rng = np.random.default_rng(1)
    scores = np.array([0.0, 1.0, 2.0])
    rho = 0.5  # ε = 2, probabilities ∝ exp(ε s / (2Δ)) = exp(s) with Δ = 1
    picks = (
        np.bincount(
            [exponential_mechanism(scores, 1.0, rho, rng) for _ in range(20_000)], minlength=3
        )
        / 20_000
    )
    expected = np.exp(scores) / np.exp(scores).sum()
    assert np.abs(picks - expected).max() < 0.015


def test_level_frequencies_report_composes_with_a_synthesizer_report():
    from skprivsynth.datasets import load_adult
    from skprivsynth.preprocessing import private_level_frequencies

    adult = load_adult()
    weights, report = private_level_frequencies(
        adult.data.iloc[:500], {"age": 85}, 0.25, random_state=0, return_report=True
    )
    assert weights["age"].shape == (85,) and report.epsilon == 0.25
    assert report.entries[0]["sensitivity"] == pytest.approx(2 / 500)
    synth = PrivacyReport("synth", zcdp_delta=1e-9)
    synth.add("m", "Gaussian", 1.4, None, 1.0, "-", rho=0.01)
    total = synth.compose(report)
    assert total.epsilon == pytest.approx(synth.epsilon + 0.25)


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_discrete_release_of_huge_values_is_clipped_not_refused(mechanism):
    # A refusal decided on the value (after the charge) would reveal it: values beyond
    # the exact grid range are clipped there (1-Lipschitz, no extra sensitivity).
    rng = np.random.default_rng(0)
    values = np.array([1e300, -1e300, 3.0])
    if mechanism == "laplace":
        noisy, _ = laplace_mechanism(values, 1.0, 1.0, rng, noise="discrete")
    else:
        noisy, _ = gaussian_mechanism(values, 1.0, rng, noise="discrete", sensitivity=1.0)
    assert np.all(np.isfinite(noisy))
    assert noisy[0] > 0 > noisy[1] and abs(noisy[2] - 3.0) < 50
