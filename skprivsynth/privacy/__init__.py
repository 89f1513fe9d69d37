"""Noise, calibration and privacy accounting — the one place where noise is drawn.

Every differentially private synthesizer of the package draws its noise through the
functions of this module, never through ad-hoc ``rng.laplace`` calls, so that the
calibration (sensitivity / epsilon) and the floating-point behaviour live in one
place and can be audited.

Neighbouring relation
---------------------
Package-wide, two datasets are neighbours when they have the same number of rows
``n`` and differ in exactly one row (*replace-one*, or bounded, differential privacy).
``n`` is public.  Every sensitivity in the package is computed for this relation.

Floating-point safety
---------------------
:func:`laplace_mechanism` and :func:`gaussian_mechanism` take ``noise="continuous"``
(default: numpy's float samplers) or ``noise="discrete"``: the statistic is rounded to
an explicit grid ``γ·Z`` (``γ`` a power of two) and exact integer-valued discrete
Laplace / discrete Gaussian noise is added (Canonne, Kamath, Steinke 2020), with the
sensitivity increased to account for the rounding.  The release is then a multiple of
``γ``: its low-order bits carry no information about the data, which closes the
floating-point attack of Mironov (2012) on the textbook sampler.  See
:func:`discrete_laplace_calibration` and :func:`discrete_gaussian_calibration` for the
derivations.  :func:`laplace_threshold_test` releases only whether ``value + Lap(b)``
exceeds a threshold; with ``noise="discrete"`` it samples that outcome exactly (integer
arithmetic), with the law of exact Laplace noise.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Real

import numpy as np

from .._math.discrete_noise import (
    MAX_GAUSSIAN_SIGMA2,
    MAX_LAPLACE_SCALE,
    bernoulli_exp,
    discrete_gaussian,
    discrete_laplace,
)
from ..exceptions import PrivacyLeakWarning
from ..releases import release_primitive
from ._calibration import (
    _check_sensitivity,
    check_delta,
    check_epsilon,
    check_rho,
    gaussian_noise_multiplier,
    gaussian_sigma_for_rho,
    laplace_scale,
    zcdp_epsilon,
    zcdp_rho,
)

__all__ = [
    "PrivacyCost",
    "NEIGHBOURING_RELATION",
    "NOISE_OPTIONS",
    "DiscreteCalibration",
    "PrivacyReport",
    "check_delta",
    "check_epsilon",
    "check_rho",
    "check_noise",
    "discrete_gaussian_calibration",
    "discrete_laplace_calibration",
    "exponential_mechanism",
    "gaussian_mechanism",
    "gaussian_noise_multiplier",
    "gaussian_sigma_for_rho",
    "gaussian_noise",
    "laplace_mechanism",
    "laplace_noise",
    "laplace_scale",
    "laplace_threshold_test",
    "warn_privacy_leak",
    "zcdp_epsilon",
    "remaining_cost",
    "zcdp_rho",
]

NEIGHBOURING_RELATION = (
    "replace-one (bounded DP): datasets of the same public size n differing in one row"
)


def warn_privacy_leak(message, stacklevel=3):
    """Emit a :class:`PrivacyLeakWarning` with ``message``."""
    warnings.warn(message, PrivacyLeakWarning, stacklevel=stacklevel)


def laplace_noise(scale, size, rng):
    """Draw i.i.d. Laplace(0, ``scale``) noise.

    Parameters
    ----------
    scale : float
        Laplace scale ``b`` (density ``exp(-|x|/b) / 2b``); use :func:`laplace_scale`.
    size : int or tuple of int
        Output shape.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of float64
    """
    scale = float(scale)
    if not (math.isfinite(scale) and scale >= 0):
        raise ValueError(f"Laplace scale must be finite and >= 0; got {scale!r}.")
    return rng.laplace(0.0, scale, size=size) if scale > 0 else np.zeros(size)


#: The fractional part of a Bernoulli(exp(-x)) argument is a multiple of 2**-62.
_EXP_FRACTION_BITS = 62


@release_primitive(
    "Laplace threshold test", public=("threshold", "scale", "noise"), shapes=("values",)
)
def laplace_threshold_test(values, threshold, scale, rng, noise="continuous"):
    """Whether ``values + Lap(scale) > threshold``, coordinatewise; only the booleans.

    ``noise="continuous"``: numpy's float Laplace noise, compared.  ``noise="discrete"``:
    the same law sampled exactly.  With ``y = threshold − value`` the test passes with
    probability ``½·exp(−y/scale)`` when ``y > 0`` and ``1 − ½·exp(−|y|/scale)``
    otherwise (the Laplace survival function); the draw is a fair coin and a
    ``Bernoulli(exp(−|y|/scale))`` by exact integer arithmetic (Canonne, Kamath &
    Steinke 2020, Algorithm 1) -- the first when ``y > 0``, the negation of their
    conjunction otherwise.  The argument ``|y|/scale`` is the float computed from the
    values, its fraction rounded down to a multiple of ``2**-62`` and its whole part
    capped at ``2**62`` (a probability below ``exp(−2**62)`` either way); no random quantity
    meets a floating-point operation, so a proof for exact Laplace noise of scale
    ``scale`` applies to the outcome unchanged.

    Returns
    -------
    ndarray of bool, shape of ``values``
    """
    check_noise(noise)
    values = _check_values(values)
    scale = float(scale)
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"Laplace scale must be finite and > 0; got {scale!r}.")
    if noise == "continuous":
        return values + laplace_noise(scale, values.size, rng).reshape(values.shape) > threshold
    y = float(threshold) - values.ravel()
    x = np.abs(y) / scale
    whole = np.minimum(np.floor(x), 2.0**62)
    fraction = np.where(x < 2.0**62, x - whole, 0.0)
    fraction = np.floor(fraction * 2.0**_EXP_FRACTION_BITS).astype(np.int64)
    below = bernoulli_exp(whole.astype(np.int64), 1, rng)
    idx = np.flatnonzero(below)
    below[idx] = bernoulli_exp(fraction[idx], 2**_EXP_FRACTION_BITS, rng)
    tail = below & (rng.integers(0, 2, size=y.size) == 1)  # probability ½·exp(−|y|/scale)
    return np.where(y > 0, tail, ~tail).reshape(values.shape)


#: Accepted values of the ``noise`` parameter of the mechanisms (use with StrOptions).
NOISE_OPTIONS = ("continuous", "discrete")

#: Grid resolution: the rounding adds at most ``2**-GRID_BITS`` of the sensitivity.
GRID_BITS = 10

# Largest |value| / γ accepted: grid points and noisy outputs stay exact in float64.
_MAX_GRID_VALUE = 2.0**52


def check_noise(noise, name="noise"):
    """Return ``noise`` after checking it is one of :data:`NOISE_OPTIONS`."""
    if not isinstance(noise, str) or noise not in NOISE_OPTIONS:
        raise ValueError(f"{name} must be one of {NOISE_OPTIONS}; got {noise!r}.")
    return noise


@dataclass(frozen=True)
class DiscreteCalibration:
    """Grid and integer noise parameters of a floating-point-safe release.

    Attributes
    ----------
    granularity : float
        Grid step ``γ`` (a power of two): the release lies in ``γ·Z``.
    n_coordinates : int
        Number of coordinates of the statistic (each may round differently).
    sensitivity : float
        The caller's sensitivity of the exact statistic (L1 for Laplace, L2 for Gaussian).
    grid_sensitivity : float
        Sensitivity of the rounded statistic in grid units (derivation below).
    grid_scale : int
        Discrete Laplace scale ``t`` (``P(z) ∝ exp(-|z|/t)``), or discrete Gaussian
        ``σ²`` (``P(z) ∝ exp(-z²/(2σ²))``), in grid units.
    scale : float
        The same scale in value units (``t·γ`` or ``σ·γ``).
    epsilon : float or None
        Laplace: the ε actually guaranteed, ``grid_sensitivity / t`` (≤ the request).
    derivation : str
        The calibration argument, for privacy reports.
    """

    granularity: float
    n_coordinates: int
    sensitivity: float
    grid_sensitivity: float
    grid_scale: int
    scale: float
    epsilon: float | None
    derivation: str


def _check_n_coordinates(n_coordinates):
    if isinstance(n_coordinates, bool) or not isinstance(n_coordinates, int | np.integer):
        raise TypeError(f"n_coordinates must be a positive integer; got {n_coordinates!r}.")
    if n_coordinates < 1:
        raise ValueError(f"n_coordinates must be a positive integer; got {n_coordinates!r}.")
    return int(n_coordinates)


def _power_of_two_at_most(x):
    """Largest power of two ``<= x`` (for positive finite ``x``), computed exactly."""
    _, exponent = math.frexp(x)  # x = mantissa · 2**exponent, mantissa in [0.5, 1)
    return math.ldexp(1.0, exponent - 1)


def discrete_laplace_calibration(sensitivity, epsilon, n_coordinates):
    """Grid and discrete Laplace scale of an ε-DP floating-point-safe release.

    Choice of the grid.  ``γ`` is the largest power of two with
    ``γ <= sensitivity / (n_coordinates · 2**GRID_BITS)``.  A power of two makes the
    rounding ``round(x/γ)`` and the output ``γ·k`` exact in float64.

    Calibration (derivation).  Let ``r(x) = round(x/γ)`` coordinatewise.  For one
    coordinate, ``|round(a) − round(b)| <= |a − b| + 1`` when ``a ≠ b`` and ``= 0`` when
    ``a = b``; summing over the at most ``n_coordinates`` coordinates that can differ
    between neighbours and using that the left side is an integer,

        ``||r(x) − r(x')||_1 <= floor(sensitivity/γ) + n_coordinates =: Δ_γ``.

    Adding i.i.d. discrete Laplace noise ``P(z) ∝ exp(-|z|/t)`` to an integer statistic
    of L1 sensitivity ``Δ_γ`` is ``(Δ_γ/t)``-DP (the density ratio at any output is at
    most ``exp(||k − k'||_1 / t)``).  We take the integer ``t = 8·ceil(Δ_γ/(8ε))`` (a
    multiple of 8 for the sampler's fast path), so the guaranteed ``ε' = Δ_γ/t <= ε``.
    By the choice of ``γ``, ``Δ_γ <= (sensitivity/γ)·(1 + 2**-GRID_BITS)`` and
    ``t >= 1024·n_coordinates/ε``: the noise is at most ≈ 0.1 % + 8/t larger than the
    continuous mechanism's ``sensitivity/ε``.

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity (replace-one) of the exact statistic, > 0.
    epsilon : float
        Target budget.
    n_coordinates : int
        Number of coordinates of the statistic.

    Returns
    -------
    DiscreteCalibration
    """
    sensitivity = _check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    c = _check_n_coordinates(n_coordinates)
    if sensitivity == 0:
        raise ValueError("sensitivity must be > 0 for a discrete calibration; got 0.0.")
    gamma = _power_of_two_at_most(sensitivity / (c * 2**GRID_BITS))
    grid_sensitivity = math.floor(sensitivity / gamma) + c  # exact: γ is a power of 2
    # t >= Δ_γ/ε, rounded up to a multiple of 8 (the sampler's fast exact path); the
    # extra noise is at most 8/t <= 8/1024 relative, typically far less.
    t = 8 * math.ceil(Fraction(grid_sensitivity) / (8 * Fraction(epsilon)))
    if t > MAX_LAPLACE_SCALE:
        raise ValueError(
            f"epsilon={epsilon!r} is too small for the discrete Laplace sampler with "
            f"{c} coordinates (grid scale {t} > 2**52); increase epsilon or use "
            "noise='continuous'."
        )
    eps_used = float(Fraction(grid_sensitivity, t))
    derivation = (
        f"grid γ = 2^{int(math.log2(gamma))} (largest power of 2 <= Δ/(c·2^{GRID_BITS})); "
        f"rounding adds <= 1 grid unit per coordinate: Δ_γ = floor(Δ/γ) + c = "
        f"{grid_sensitivity}; discrete Laplace scale t = 8·ceil(Δ_γ/(8ε)) = {t} grid units, "
        f"so ε' = Δ_γ/t = {eps_used:.6g} <= ε = {epsilon:.6g} (CKS 2020)."
    )
    return DiscreteCalibration(
        granularity=gamma,
        n_coordinates=c,
        sensitivity=sensitivity,
        grid_sensitivity=float(grid_sensitivity),
        grid_scale=t,
        scale=t * gamma,
        epsilon=eps_used,
        derivation=derivation,
    )


def discrete_gaussian_calibration(sigma, sensitivity, n_coordinates, integer=False):
    """Grid and discrete Gaussian ``σ²`` of a floating-point-safe release.

    The caller calibrated ``sigma`` for a statistic of L2 sensitivity ``sensitivity``
    (any (ε, δ) argument that depends on ``sensitivity/sigma`` only).  Rounding to the
    grid can move each differing coordinate by one more grid unit, so by the triangle
    inequality in L2 the rounded statistic has

        ``||r(x) − r(x')||_2 <= sensitivity/γ + sqrt(n_coordinates) =: Δ_γ``.

    We take the integer ``σ_γ² = ceil((sigma/sensitivity · Δ_γ)²)`` (computed with an
    upward safety factor) so that ``Δ_γ / σ_γ <= sensitivity / sigma``: the ratio every
    Gaussian calibration depends on is preserved.  Privacy transfers because the
    discrete Gaussian has the same zero-concentrated DP as the continuous one,
    ``ρ = Δ²/(2σ²)`` (CKS 2020, Thm. 14), and is sub-Gaussian with variance proxy
    ``σ²``, so (ε, δ) calibrations proven from zCDP or from a Chernoff tail bound of the
    privacy loss hold unchanged -- among them the multiplier ``c(ε, δ)`` of
    :func:`gaussian_noise_multiplier` used by
    :class:`~skprivsynth.CorrelatedGaussianMechanism` (its proof needs only
    ``E exp(λY) <= exp(λ²σ²/2)``; Nikolov–Talwar–Zhang's ``(1 + sqrt(2 ln(1/δ)))/ε``
    satisfies it when ``c >= 1/2``, i.e. ``ε <= 2(1 + sqrt(2 ln(1/δ)))``, and the
    function takes a larger root beyond).  Calibrations from the exact Gaussian tail (the
    "analytic Gaussian") do not transfer verbatim; CKS Thm. 7 gives the discrete one.

    Choice of the grid.  ``γ`` is a power of two, first
    ``<= min(sigma, sensitivity/sqrt(n_coordinates)) / 2**GRID_BITS`` (rounding inflates
    ``σ`` by the factor ``1 + sqrt(n_coordinates)·γ/sensitivity``, here ≤ 1.001), then
    doubled while ``σ_γ² > 2**30`` (the range of the exact vectorised sampler); the
    inflation actually paid is in the returned derivation.

    ``integer=True``: the statistic is integer-valued (counts), so it already lies on
    the grid ``γ = 1`` and nothing is rounded: ``Δ_γ = sensitivity`` and
    ``σ_γ² = ceil(sigma²)`` keep ``Δ_γ/σ_γ <= sensitivity/sigma`` whatever
    ``n_coordinates`` (CKS 2020, Thm. 14, on the integer statistic itself).

    Returns
    -------
    DiscreteCalibration
    """
    sigma = float(sigma)
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a positive finite number; got {sigma!r}.")
    sensitivity = _check_sensitivity(sensitivity)
    if sensitivity == 0:
        raise ValueError("sensitivity must be > 0 for a discrete calibration; got 0.0.")
    c = _check_n_coordinates(n_coordinates)
    if integer:
        sigma2 = math.ceil(Fraction(sigma) ** 2)  # exact: σ_γ >= σ
        if sigma2 > MAX_GAUSSIAN_SIGMA2:
            raise ValueError(
                f"the discrete Gaussian supports sigma² <= 2**30 on integer counts; got "
                f"sigma={sigma:.6g}. Use noise='continuous' or a larger budget."
            )
        derivation = (
            f"integer counts: grid γ = 1, nothing rounded, L2 Δ_γ = Δ = {sensitivity:.6g}; "
            f"σ_γ² = ceil(σ²) = {sigma2} keeps Δ_γ/σ_γ <= Δ/σ (noise std × "
            f"{math.sqrt(sigma2) / sigma:.6f}); same zCDP as the continuous Gaussian "
            "(CKS 2020, Thm. 14)."
        )
        return DiscreteCalibration(
            granularity=1.0,
            n_coordinates=c,
            sensitivity=sensitivity,
            grid_sensitivity=sensitivity,
            grid_scale=sigma2,
            scale=math.sqrt(sigma2),
            epsilon=None,
            derivation=derivation,
        )
    root_c = math.sqrt(c) * (1 + 1e-15)
    ratio = sigma / sensitivity
    if root_c * ratio > math.sqrt(MAX_GAUSSIAN_SIGMA2 / 4):
        raise ValueError(
            f"the discrete Gaussian supports n_coordinates·(sigma/sensitivity)² <= 2**28; "
            f"got n_coordinates={c}, sigma/sensitivity={ratio:.4g}. Use noise='continuous'."
        )
    gamma = _power_of_two_at_most(min(sigma, sensitivity / root_c) / 2**GRID_BITS)
    while True:
        grid_sensitivity = sensitivity / gamma + root_c
        sigma2 = math.ceil((ratio * grid_sensitivity) ** 2 * (1 + 1e-12))
        if sigma2 <= MAX_GAUSSIAN_SIGMA2:
            break
        gamma *= 2.0
    inflation = math.sqrt(sigma2) * gamma / sigma
    derivation = (
        f"grid γ = 2^{int(math.log2(gamma))}; rounding adds <= 1 grid unit per coordinate: "
        f"L2 Δ_γ = Δ/γ + sqrt(c) = {grid_sensitivity:.6g}; σ_γ² = ceil((σ/Δ·Δ_γ)²) = "
        f"{sigma2} grid units² keeps Δ_γ/σ_γ <= Δ/σ (noise std × {inflation:.6f}); "
        "same zCDP as the continuous Gaussian (CKS 2020)."
    )
    return DiscreteCalibration(
        granularity=gamma,
        n_coordinates=c,
        sensitivity=sensitivity,
        grid_sensitivity=grid_sensitivity,
        grid_scale=sigma2,
        scale=math.sqrt(sigma2) * gamma,
        epsilon=None,
        derivation=derivation,
    )


def _entry_cost(entry):
    return PrivacyCost(entry["epsilon"] or 0.0, entry["delta"], entry["rho"] or 0.0)


def _check_values(values):
    values = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise ValueError("values must be finite (no NaN or infinity) to be released.")
    return values


def _grid_release(values, gamma, integer_noise):
    """``γ·(clip(round(values/γ), ±2**51) + integer_noise)``: exactly a grid point.

    ``γ`` is a power of two, so ``values·(1/γ)``, the rounding, the integer sum (below
    2**53) and the final product are all exact in float64.  The clip to ``±2**51``
    grid steps keeps them so whatever the values, without a refusal that would depend
    on the private statistic; it is 1-Lipschitz in every coordinate, so it adds no
    sensitivity (values that large lie far beyond any count or mean the package
    releases).
    """
    with np.errstate(over="ignore"):  # an overflow to inf is clipped just below
        k = np.multiply(values, 1.0 / gamma, out=np.empty(values.shape))  # also 0-d
    np.rint(k, out=k)
    np.clip(k, -_MAX_GRID_VALUE / 2, _MAX_GRID_VALUE / 2, out=k)
    k += integer_noise()
    k *= gamma
    return k


@release_primitive(
    "Laplace mechanism", public=("sensitivity", "epsilon", "noise"), shapes=("values",)
)
def laplace_mechanism(values, sensitivity, epsilon, rng, noise="continuous"):
    """Release ``values`` with i.i.d. Laplace noise calibrated to ``sensitivity / epsilon``.

    Parameters
    ----------
    values : array-like
        The exact statistic (any shape).
    sensitivity : float
        L1 sensitivity of ``values`` under the replace-one relation, derived by the caller.
    epsilon : float
        Budget spent by this release.
    rng : numpy.random.Generator
    noise : {"continuous", "discrete"}, default="continuous"
        ``"continuous"``: float Laplace noise of scale ``sensitivity/epsilon``.
        ``"discrete"``: floating-point-safe release -- ``values`` rounded to the grid
        ``γ·Z`` plus ``γ`` times exact discrete Laplace noise, calibrated for the
        rounding by :func:`discrete_laplace_calibration` (``ε``-DP exactly, noise about
        0.1 % larger).  Cost: a few times the float path (see ``benchmarks/bench_noise.py``).

    Returns
    -------
    noisy : ndarray of float64, same shape as ``values``
    scale : float
        The Laplace scale used (``t·γ`` for the discrete noise).

    References
    ----------
    C. L. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020.  I. Mironov, "On significance of the least significant bits
    for differential privacy", CCS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.privacy import laplace_mechanism
    >>> noisy, scale = laplace_mechanism([0.25, 0.5], 0.1, 1.0, np.random.default_rng(0),
    ...                                  noise="discrete")
    >>> float(scale) >= 0.1
    True
    """
    check_noise(noise)
    values = _check_values(values)
    scale = laplace_scale(sensitivity, epsilon)
    if noise == "continuous" or scale == 0 or values.size == 0:
        return values + laplace_noise(scale, values.shape, rng), scale
    cal = discrete_laplace_calibration(sensitivity, epsilon, values.size)
    noisy = _grid_release(
        values, cal.granularity, lambda: discrete_laplace(cal.grid_scale, values.shape, rng)
    )
    return noisy, cal.scale


@release_primitive(
    "Gaussian mechanism",
    public=("sigma", "noise", "sensitivity", "integer"),
    shapes=("values",),
)
def gaussian_mechanism(values, sigma, rng, noise="continuous", sensitivity=None, integer=False):
    """Release ``values`` with i.i.d. Gaussian noise of standard deviation ``sigma``.

    Parameters
    ----------
    values : array-like
        The exact statistic.
    sigma : float
        Noise standard deviation, calibrated by the caller for the L2 sensitivity.
    rng : numpy.random.Generator
    noise : {"continuous", "discrete"}, default="continuous"
        ``"discrete"``: ``values`` rounded to a grid ``γ·Z`` plus ``γ`` times exact
        discrete Gaussian noise with ``σ_γ/Δ_γ >= sigma/sensitivity``
        (:func:`discrete_gaussian_calibration`).
    sensitivity : float, optional
        L2 sensitivity the caller calibrated ``sigma`` for; required by
        ``noise="discrete"`` to account for the rounding.
    integer : bool, default=False
        ``values`` are counts (an integer dtype, checked): with ``noise="discrete"``
        they are released on the grid ``γ = 1`` without rounding
        (``discrete_gaussian_calibration(..., integer=True)``).

    Returns
    -------
    noisy : ndarray of float64
    scale : float
        Noise standard-deviation parameter used (``σ_γ·γ`` for the discrete noise).
    """
    check_noise(noise)
    if integer and not np.issubdtype(np.asarray(values).dtype, np.integer):
        raise TypeError(f"integer=True needs integer values; got dtype {np.asarray(values).dtype}.")
    values = _check_values(values)
    sigma = float(sigma)
    if not (math.isfinite(sigma) and sigma >= 0):
        raise ValueError(f"sigma must be finite and >= 0; got {sigma!r}.")
    if noise == "continuous" or sigma == 0 or values.size == 0:
        return values + gaussian_noise(sigma, values.shape, rng), sigma
    if sensitivity is None:
        raise ValueError(
            "sensitivity (the L2 sensitivity sigma was calibrated for) is required with "
            "noise='discrete', to account for rounding to the grid."
        )
    cal = discrete_gaussian_calibration(sigma, sensitivity, values.size, integer=integer)
    noisy = _grid_release(
        values, cal.granularity, lambda: discrete_gaussian(cal.grid_scale, values.shape, rng)
    )
    return noisy, cal.scale


def gaussian_noise(scale, size, rng):
    """Draw i.i.d. N(0, ``scale``²) noise (``scale`` = standard deviation)."""
    scale = float(scale)
    if not (math.isfinite(scale) and scale >= 0):
        raise ValueError(f"Gaussian scale must be finite and >= 0; got {scale!r}.")
    return rng.normal(0.0, scale, size=size) if scale > 0 else np.zeros(size)


@release_primitive("exponential mechanism", public=("sensitivity", "rho"), shapes=("scores",))
def exponential_mechanism(scores, sensitivity, rho, rng):
    """Index of a candidate chosen by the exponential mechanism, ``rho``-zCDP.

    Picks ``i`` with probability proportional to ``exp(ε·score_i / (2Δ))`` where ``Δ``
    is the sensitivity of every score and ``ε = sqrt(8ρ)``: the exponential mechanism
    is ε-DP (McSherry & Talwar 2007) and, having bounded range, ε²/8-zCDP (Cesar &
    Rogers 2021, Lemma 3.2).  Sampled by the Gumbel-max trick (continuous noise).
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1 or scores.size == 0 or not np.all(np.isfinite(scores)):
        raise ValueError("scores must be a non-empty 1-D array of finite numbers.")
    sensitivity = _check_sensitivity(sensitivity)
    if sensitivity == 0:
        raise ValueError("sensitivity must be positive for the exponential mechanism; got 0.")
    epsilon = math.sqrt(8 * check_rho(rho))
    logits = epsilon * scores / (2 * sensitivity)
    return int(np.argmax(logits + rng.gumbel(size=scores.size)))


@dataclass(frozen=True)
class PrivacyCost:
    """The guarantee of a release: δ-approximately (ε, ρ)-zCDP.

    Pure ε-DP is ``PrivacyCost(epsilon=ε)``, (ε, δ)-DP is ``PrivacyCost(epsilon=ε,
    delta=δ)`` and ρ-zCDP is ``PrivacyCost(rho=ρ)``: each bounds the Rényi divergence
    of neighbouring outputs by ``ε + ρα`` at every order ``α`` outside an event of
    probability δ (Bun & Steinke 2016, Def. 1.1 and Sect. 8; pure DP bounds it by ε,
    and an (ε, δ)-DP release is δ-approximately (ε, 0)-zCDP).  Releases on the same
    data compose, adaptively too, by adding the three (ibid.): ``a + b`` is the one
    composition rule of the package (reports, the accountant, private selection).

    Examples
    --------
    >>> from skprivsynth.privacy import PrivacyCost
    >>> total = PrivacyCost(epsilon=0.1) + PrivacyCost(rho=0.01)
    >>> total
    PrivacyCost(epsilon=0.1, delta=0.0, rho=0.01)
    >>> round(total.to_dp(1e-9)[0], 4)
    0.9102
    """

    epsilon: float = 0.0
    delta: float = 0.0
    rho: float = 0.0

    def __post_init__(self):
        for name in ("epsilon", "delta", "rho"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, Real):
                raise TypeError(f"{name} of a privacy cost must be a real number; got {value!r}.")
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(
                    f"{name} of a privacy cost must be finite and >= 0; got {value!r}."
                )
            object.__setattr__(self, name, float(value))
        if self.delta >= 1:
            raise ValueError(f"delta of a privacy cost must be below 1; got {self.delta!r}.")

    def __add__(self, other):
        if not isinstance(other, PrivacyCost):
            return NotImplemented
        return PrivacyCost(
            self.epsilon + other.epsilon, self.delta + other.delta, self.rho + other.rho
        )

    @property
    def is_pure(self):
        """Whether the cost is pure ε-DP (no δ, no ρ)."""
        return self.delta == 0 and self.rho == 0

    def as_zcdp(self):
        """The same release as a zCDP cost: ``ρ + ε²/2`` (pure ε-DP is ε²/2-zCDP, Bun &
        Steinke 2016, Prop. 1.4); None when δ > 0 (no zCDP bound).

        Convert each release before adding: ``Σ ε_i²/2`` is tighter than ``(Σ ε_i)²/2``.
        """
        if self.delta > 0:
            return None
        return PrivacyCost(rho=self.rho + self.epsilon**2 / 2)

    def renyi(self, order):
        """Bound on the Rényi divergence of order ``α`` (array-like): ``min(ε, αε²/2) +
        ρα`` (the ε part by Bun & Steinke 2016, Prop. 1.4, or by pure DP); δ must be 0."""
        if self.delta > 0:
            raise ValueError("an (epsilon, delta)-DP cost has no Renyi curve.")
        order = np.asarray(order, dtype=np.float64)
        return np.minimum(self.epsilon, order * self.epsilon**2 / 2) + self.rho * order

    def to_dp(self, zcdp_delta=None):
        """``(ε, δ)``-DP of this cost: ``(ε + zcdp_epsilon(ρ, δ'), δ + δ')`` with the
        conversion δ' = ``zcdp_delta`` when ρ > 0 (Canonne, Kamath & Steinke 2020,
        Prop. 12, on the curve ``ε + ρα``)."""
        if self.rho == 0:
            return self.epsilon, self.delta
        if zcdp_delta is None:
            raise ValueError(
                "a cost with rho > 0 needs zcdp_delta to convert it to (epsilon, delta)."
            )
        return self.epsilon + zcdp_epsilon(self.rho, zcdp_delta), self.delta + zcdp_delta


def remaining_cost(total, spent, zcdp_delta=None):
    """The budget left of a run whose whole guarantee is ``total`` once ``spent`` is
    released: what a pipeline's synthesizer spends after its encoder's releases.

    A zCDP ``total`` (``ρ``, stated at ``zcdp_delta``) is the run's (ε, δ) =
    (``zcdp_epsilon(ρ, δ)``, δ): the spent pure ε and δ come off first and the spent ρ
    after, ``ρ' = zcdp_rho(ε − ε_spent, δ − δ_spent) − ρ_spent``; the run then composes
    to (ε, δ) exactly (its ρ converted once at δ, and the pure ε added).  An (ε, δ)
    ``total`` loses ``spent`` converted to (ε, δ) at its own conversion δ
    (:meth:`PrivacyReport.epsilon`); a pure ε total keeps no δ, and the run's δ is the
    spent δ.  Public: a function of the budgets only.

    Parameters
    ----------
    total : PrivacyCost
        The whole run's guarantee, as the synthesizer states it (``_fit_cost``).
    spent : PrivacyReport
        The releases made before (an encoder's private bins and decoding weights).
    zcdp_delta : float or None
        The conversion δ of a zCDP ``total``.

    Returns
    -------
    PrivacyCost
        In the currency of ``total``.

    Raises
    ------
    ValueError
        When ``spent`` leaves nothing (naming both budgets).
    """
    used = spent.cost
    if total.rho > 0 and total.epsilon == 0 and total.delta == 0:
        epsilon, delta = zcdp_epsilon(total.rho, zcdp_delta), zcdp_delta
        left_epsilon, left_delta = epsilon - used.epsilon, delta - used.delta
        rho = zcdp_rho(left_epsilon, left_delta) - used.rho if left_epsilon > 0 < left_delta else 0
        if rho <= 0:
            raise ValueError(_too_little(f"epsilon = {epsilon:.4g}, delta = {delta:.3g}", spent))
        return PrivacyCost(rho=rho)
    spent_epsilon, spent_delta = used.to_dp(spent.zcdp_delta)
    epsilon = total.epsilon - spent_epsilon
    delta = max(total.delta - spent_delta, 0.0) if total.delta > 0 else 0.0
    if epsilon <= 0 or (total.delta > 0 and delta <= 0):
        budget = f"epsilon = {total.epsilon:.4g}" + (
            f", delta = {total.delta:.3g}" if total.delta else ""
        )
        raise ValueError(_too_little(budget, spent))
    return PrivacyCost(epsilon=epsilon, delta=delta)


def _too_little(budget, spent):
    return (
        f"the synthesizer's budget ({budget}) is the whole run's, and the encoder's "
        f"releases ({spent.mechanism}: epsilon = {spent.epsilon:.4g}, delta = "
        f"{spent.delta:.3g}) leave none of it to the synthesizer; raise the synthesizer's "
        "epsilon, or lower the encoder's shares (make_private_pipeline's binning_share "
        "and decode_share; decode_share=0 decodes uniformly)."
    )


@dataclass
class PrivacyReport:
    """How a fitted mechanism spent its privacy budget, step by step.

    Each entry records one private release: what was released, the mechanism,
    its sensitivity (with the neighbouring relation), the budget it spent, the
    noise scale and the derivation that links them.  A budget is pure ``epsilon``,
    ``(epsilon, delta)`` or zero-concentrated ``rho`` (zCDP, Bun & Steinke 2016).

    Totals (:attr:`epsilon`, :attr:`delta`): the zCDP entries compose by adding their
    ρ (:attr:`rho`), converted once to (ε, ``zcdp_delta``)-DP by :func:`zcdp_epsilon`;
    that pair and the (ε, δ) entries then compose by basic composition (ε and δ
    add).  :meth:`compose` joins the reports of successive releases on the same data.
    ``repr(report)`` (and a notebook's HTML view) is a table of the releases, each with
    what it measured (by column name when the fit knew the names) and its budget;
    ``str(report)`` lists every release with its sensitivity, noise scale and derivation.
    """

    mechanism: str
    entries: list = field(default_factory=list)
    neighbouring_relation: str = NEIGHBOURING_RELATION
    zcdp_delta: float | None = None

    def add(
        self, step, mechanism, sensitivity, epsilon, scale, derivation, delta=0.0, rho=None,
        label=None,
    ):  # fmt: skip
        """Append one release (``step``) to the report.

        Give either ``epsilon`` (with ``delta``, default 0) or ``rho`` (with
        ``epsilon=None``).  ``label``: what the release measured in words, with column
        names where ``step`` has positions (shown by ``repr`` and in notebooks).
        """
        if (epsilon is None) == (rho is None):
            raise ValueError("give exactly one of epsilon and rho for a report entry.")
        if rho is not None and self.zcdp_delta is None:
            raise ValueError("a zCDP entry needs the report's zcdp_delta (its conversion δ).")
        self.entries.append(
            {
                "step": step,
                "mechanism": mechanism,
                "sensitivity": sensitivity,
                "epsilon": None if epsilon is None else float(epsilon),
                "delta": float(delta),
                "rho": None if rho is None else float(rho),
                "scale": scale,
                "derivation": derivation,
                **({} if label is None else {"label": str(label)}),
            }
        )
        return self

    def release_laplace(
        self, step, values, sensitivity, epsilon, rng, noise="continuous", derivation="",
        label=None,
    ):  # fmt: skip
        """Release ``values`` by :func:`laplace_mechanism` spending ``epsilon``; record it.

        ``sensitivity`` is the L1 sensitivity (replace-one); ``derivation`` says where
        it comes from.  Returns the noisy values.
        """
        noisy, scale = laplace_mechanism(values, sensitivity, epsilon, rng, noise=noise)
        kind = "discrete Laplace" if noise == "discrete" else "Laplace"
        self.add(
            step,
            f"{kind} mechanism",
            sensitivity,
            epsilon,
            scale,
            (derivation + "; " if derivation else "")
            + f"L1 sensitivity {sensitivity:.6g}, scale Δ/ε = {scale:.6g} gives ε = {epsilon:.6g}",
            label=label,
        )
        return noisy

    def release_gaussian(
        self, step, values, sensitivity, rho, rng, noise="continuous", label=None
    ):  # fmt: skip
        """Release ``values`` with Gaussian noise spending ``rho`` and record the entry.

        ``σ = Δ/sqrt(2ρ)`` (:func:`gaussian_sigma_for_rho`), through
        :func:`gaussian_mechanism` (``noise="discrete"``: the exact discrete Gaussian,
        same ρ).  Returns the noisy values.
        """
        sigma = gaussian_sigma_for_rho(sensitivity, rho)
        noisy, scale = gaussian_mechanism(values, sigma, rng, noise=noise, sensitivity=sensitivity)
        kind = "discrete Gaussian" if noise == "discrete" else "Gaussian"
        self.add(
            step,
            f"{kind} mechanism",
            sensitivity,
            None,
            scale,
            f"L2 sensitivity {sensitivity:.6g}; σ = Δ/sqrt(2ρ) = {sigma:.6g} gives "
            f"ρ = Δ²/(2σ²) = {rho:.6g} (Bun & Steinke 2016, Prop. 1.6; CKS 2020, Thm. 14)",
            rho=rho,
            label=label,
        )
        return noisy

    def release_choice(self, step, scores, sensitivity, rho, rng):
        """Choose an index by :func:`exponential_mechanism` spending ``rho``; record it."""
        index = exponential_mechanism(scores, sensitivity, rho, rng)
        self.add(
            step,
            "exponential mechanism",
            sensitivity,
            None,
            None,
            f"score sensitivity {sensitivity:.6g}; ε = sqrt(8ρ) = {math.sqrt(8 * rho):.6g} "
            f"is ρ = {rho:.6g}-zCDP (bounded range; Cesar & Rogers 2021)",
            rho=rho,
        )
        return index

    @property
    def cost(self):
        """The entries composed: a :class:`PrivacyCost`."""
        return sum((_entry_cost(e) for e in self.entries), PrivacyCost())

    @property
    def rho(self):
        """Total ρ of the zCDP entries (they compose by addition)."""
        return self.cost.rho

    @property
    def epsilon(self):
        """Total epsilon: basic composition of the (ε, δ) entries and the converted ρ."""
        return float(self.cost.to_dp(self.zcdp_delta)[0])

    @property
    def delta(self):
        """Total delta: the (ε, δ) entries' δ plus ``zcdp_delta`` when ρ > 0."""
        return float(self.cost.to_dp(self.zcdp_delta)[1])

    def compose(self, *others, mechanism=None):
        """A new report of this release followed by ``others`` on the same data.

        Entries are concatenated; the zCDP parts add their ρ, converted once at the
        conversion δ of the first report with a zCDP part (the synthesizer's in a
        pipeline): ρ-zCDP implies (ε(ρ, δ), δ)-DP at every δ at once (Canonne, Kamath
        & Steinke 2020, Prop. 12), so one conversion of the sum is valid at any of them.
        """
        reports = (self, *others)
        deltas = [r.zcdp_delta for r in reports if r.rho > 0]
        # Releases compose only under one neighbouring relation (a report without
        # releases takes any).
        relations = {r.neighbouring_relation for r in reports if r.entries}
        if len(relations) > 1:
            raise ValueError(
                f"releases under different neighbouring relations do not compose: {relations}."
            )
        composed = PrivacyReport(
            mechanism or " + ".join(r.mechanism for r in reports),
            zcdp_delta=deltas[0] if deltas else None,
            neighbouring_relation=relations.pop() if relations else self.neighbouring_relation,
        )
        for r in reports:
            composed.entries.extend(
                dict(
                    e,
                    step=f"{r.mechanism}: {e['step']}",
                    label=e.get("label", e["step"]),
                    source=e.get("source", r.mechanism),
                )
                for e in r.entries
            )
        return composed

    def summary(self):
        """The composed guarantee and one line per mechanism (its releases and budget);
        ``str(report)`` adds every release with its derivation."""
        relation = self.neighbouring_relation.split(" (")[0]
        lines = [
            f"Privacy report: {self.mechanism}",
            f"  total: epsilon = {self.epsilon:.4g}, delta = {self.delta:.3g}, {relation} "
            "neighbours",
        ]
        if self.rho > 0:
            lines.append(
                f"  (zCDP rho = {self.rho:.4g}, converted at delta = {self.zcdp_delta:.3g})"
            )
        groups = {}
        for e in self.entries:
            groups.setdefault(e["mechanism"], []).append(e)
        for mechanism, entries in groups.items():
            cost = sum((_entry_cost(e) for e in entries), PrivacyCost())
            budget = [f"rho = {cost.rho:.4g}"] if cost.rho else []
            if cost.epsilon or not cost.rho:
                budget.insert(0, f"epsilon = {cost.epsilon:.4g}")
            if cost.delta:
                budget.append(f"delta = {cost.delta:.3g}")
            count = f"{len(entries)} releases" if len(entries) > 1 else "1 release"
            lines.append(f"  - {mechanism}: {count}, {', '.join(budget)}")
        return "\n".join(lines)

    def __str__(self):
        total = f"epsilon = {self.epsilon:.6g}, delta = {self.delta:.3g}"
        if self.rho > 0:
            total += f" (zCDP rho = {self.rho:.6g} converted at delta = {self.zcdp_delta:.3g}"
            total += ", then basic composition)"
        else:
            total += " (basic composition)"
        lines = [
            f"Privacy report: {self.mechanism}",
            f"  neighbouring relation: {self.neighbouring_relation}",
            f"  total: {total}",
        ]
        for e in self.entries:
            if e["rho"] is not None:
                budget = f"rho = {e['rho']:.6g}"
            else:
                budget = f"epsilon = {e['epsilon']:.6g}"
                budget += f", delta = {e['delta']:.3g}" if e["delta"] else ""
            line = f"  - {e['step']}: {e['mechanism']}, {budget}, sensitivity = {e['sensitivity']}"
            if e["scale"] is not None:
                line += f", scale = {e['scale']}"
            lines.append(line)
            lines.append(f"      {e['derivation']}")
        return "\n".join(lines)

    def _rows(self):
        """One row per release: number, source, what it measured, mechanism, budget."""
        rows = []
        for number, e in enumerate(self.entries, 1):
            if e["rho"] is not None:
                budget = f"ρ = {e['rho']:.4g}"
            else:
                budget = f"ε = {e['epsilon']:.4g}"
                budget += f", δ = {e['delta']:.3g}" if e["delta"] else ""
            rows.append(
                {
                    "#": str(number),
                    "by": e.get("source", self.mechanism),
                    "release": e.get("label", e["step"]),
                    "mechanism": e["mechanism"],
                    "budget": budget,
                }
            )
        return rows

    def _total_text(self):
        relation = self.neighbouring_relation.split(" (")[0]
        text = f"ε = {self.epsilon:.4g}, δ = {self.delta:.3g}"
        if self.rho > 0:
            text += f" (zCDP ρ = {self.rho:.4g} converted at δ = {self.zcdp_delta:.3g})"
        return f"{text}, {relation} neighbours"

    def __repr__(self):
        """The releases as a table: number, what made and measured each (column names
        when the fit knew them), mechanism and budget; ``str(report)`` adds every
        derivation."""
        rows = self._rows()
        count = f"{len(rows)} release{'' if len(rows) == 1 else 's'}"
        lines = [f"PrivacyReport: {self.mechanism}, {count}", f"total: {self._total_text()}"]
        if rows:
            keys = ["#", "by", "release", "mechanism", "budget"]
            if len({row["by"] for row in rows}) == 1:
                keys.remove("by")  # one source: the title names it
            widths = {k: max(len(k), *(len(row[k]) for row in rows)) for k in keys}
            lines.append("  ".join(k.ljust(widths[k]) for k in keys).rstrip())
            lines.extend("  ".join(row[k].ljust(widths[k]) for k in keys).rstrip() for row in rows)
        return "\n".join(lines)

    def _repr_html_(self):  # Jupyter
        from html import escape

        rows = self._rows()
        keys = ["#", "by", "release", "mechanism", "budget"]
        if len({row["by"] for row in rows}) <= 1:
            keys.remove("by")
        head = "".join(f"<th>{escape(k)}</th>" for k in keys)
        body = "".join(
            "<tr>" + "".join(f"<td>{escape(row[k])}</td>" for k in keys) + "</tr>" for row in rows
        )
        return (
            f"<div><strong>PrivacyReport: {escape(self.mechanism)}</strong><br>"
            f"total: {escape(self._total_text())}"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
        )

    def _repr_pretty_(self, p, cycle):  # IPython
        p.text(repr(self))
