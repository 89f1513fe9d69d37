"""Calibration of the noise: the checks of a budget, the Laplace scale, and zero-concentrated
differential privacy's conversions and Gaussian standard deviations."""

from __future__ import annotations

import math
from numbers import Real


def _check_positive(value, name):
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a positive finite real number; got {value!r}.")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite real number; got {value!r}.")
    return value


def check_epsilon(epsilon, name="epsilon"):
    """Return ``epsilon`` as a float after checking ``0 < epsilon < inf``.

    Raises
    ------
    ValueError
        Naming the parameter and the bad value.
    """
    return _check_positive(epsilon, name)


def check_rho(rho, name="rho"):
    """Return ``rho`` (a zCDP budget) as a float after checking ``0 < rho < inf``."""
    return _check_positive(rho, name)


def check_delta(delta, name="delta"):
    """Return ``delta`` as a float after checking ``0 < delta < 1``."""
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise TypeError(f"{name} must be a real number in the open interval (0, 1); got {delta!r}.")
    delta = float(delta)
    if not (0.0 < delta < 1.0):
        raise ValueError(
            f"{name} must be a real number in the open interval (0, 1); got {delta!r}."
        )
    return delta


def laplace_scale(sensitivity, epsilon):
    """Scale ``b = sensitivity / epsilon`` of the Laplace mechanism.

    The Laplace mechanism adding i.i.d. ``Lap(b)`` noise to a vector statistic of
    L1 sensitivity ``sensitivity`` (for the replace-one relation) is
    ``epsilon``-DP (Dwork, McSherry, Nissim, Smith 2006).
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = float(sensitivity)
    if not (math.isfinite(sensitivity) and sensitivity >= 0):
        raise ValueError(f"sensitivity must be finite and >= 0; got {sensitivity!r}.")
    scale = sensitivity / epsilon
    if not math.isfinite(scale):
        raise ValueError(
            f"sensitivity / epsilon overflows ({sensitivity!r} / {epsilon!r}); "
            "use a smaller sensitivity or a larger epsilon."
        )
    return scale


def _check_sensitivity(sensitivity):
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, Real):
        raise TypeError(f"sensitivity must be a finite real number >= 0; got {sensitivity!r}.")
    sensitivity = float(sensitivity)
    if not (math.isfinite(sensitivity) and sensitivity >= 0):
        raise ValueError(f"sensitivity must be finite and >= 0; got {sensitivity!r}.")
    return sensitivity


def _zcdp_epsilon_at(alpha, rho, log_inv_delta):
    # CKS 2020, Prop. 12 with the Rényi curve tau = alpha * rho of rho-zCDP.
    return alpha * rho + (log_inv_delta - math.log(alpha)) / (alpha - 1) + math.log1p(-1 / alpha)


def zcdp_epsilon(rho, delta):
    """Smallest ε such that ``rho``-zCDP implies (ε, ``delta``)-DP.

    The conversion of Canonne, Kamath & Steinke (NeurIPS 2020, Prop. 12 and Cor. 13):
    for every order ``α > 1``,
    ``ε = αρ + (log(1/δ) − log α)/(α − 1) + log(1 − 1/α)`` is valid; the infimum over
    ``α`` is found by a golden-section search (any ``α`` gives a valid bound, so the
    value returned is never below the true infimum).  Tighter than the classical
    ``ρ + 2·sqrt(ρ log(1/δ))`` of Bun & Steinke (2016, Prop. 1.3).

    Examples
    --------
    >>> from skprivsynth.privacy import zcdp_epsilon
    >>> round(zcdp_epsilon(0.01, 1e-9), 3)
    0.81
    """
    rho = float(rho)
    if not (math.isfinite(rho) and rho >= 0):
        raise ValueError(f"rho must be finite and >= 0; got {rho!r}.")
    delta = check_delta(delta)
    if rho == 0:
        return 0.0
    log_inv_delta = math.log(1 / delta)
    # The bound is convex in log(α - 1); search it on [1e-9, 1e9] (golden section).
    lo, hi = math.log(1e-9), math.log(1e9)
    g = (math.sqrt(5) - 1) / 2

    def f(t):
        return _zcdp_epsilon_at(1 + math.exp(t), rho, log_inv_delta)

    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = f(a), f(b)
    for _ in range(200):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = f(b)
    return max(min(fa, fb), 0.0)


def zcdp_rho(epsilon, delta):
    """Largest ρ (to 1e-12 relative) such that ρ-zCDP implies (``epsilon``, ``delta``)-DP.

    The inverse of :func:`zcdp_epsilon` (monotone in ρ), found by bisection keeping the
    lower end, so that ``zcdp_epsilon(zcdp_rho(ε, δ), δ) <= ε`` always holds.  This is the
    budget conversion of MST and AIM (McKenna et al. 2021, 2022).

    Examples
    --------
    >>> from skprivsynth.privacy import zcdp_epsilon, zcdp_rho
    >>> rho = zcdp_rho(1.0, 1e-9)
    >>> round(rho, 5), zcdp_epsilon(rho, 1e-9) <= 1.0
    (0.01497, True)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    lo, hi = 0.0, max(epsilon, 1.0)
    while zcdp_epsilon(hi, delta) <= epsilon:
        hi *= 2
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2
        if zcdp_epsilon(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo


def gaussian_sigma_for_rho(sensitivity, rho):
    """Standard deviation of the Gaussian mechanism that is ``rho``-zCDP.

    A statistic of L2 sensitivity ``Δ`` plus ``N(0, σ²)`` noise per coordinate is
    ``Δ²/(2σ²)``-zCDP (Bun & Steinke 2016, Prop. 1.6); the discrete Gaussian with the
    same σ is too (Canonne, Kamath & Steinke 2020, Thm. 14).  So ``σ = Δ/sqrt(2ρ)``.
    """
    sensitivity = _check_sensitivity(sensitivity)
    return sensitivity / math.sqrt(2 * check_rho(rho))


def gaussian_noise_multiplier(epsilon, delta):
    """Noise multiplier ``c(ε, δ)`` of the Gaussian mechanism (std = ``c`` × L2 sensitivity).

    ``c = max((1 + s)/ε, (s + sqrt(s² + 2ε))/(2ε))`` with ``s = sqrt(2 ln(1/δ))``; the
    first term is the paper's ``(1 + sqrt(2 ln(1/δ)))/ε`` and is the larger one
    whenever ``ε ≤ 2(1 + s)`` (e.g. every ``ε ≤ 12.5`` at ``δ = 1e-6``).

    The Chernoff root covers large ε, where the paper's Lemma 4 (Nikolov, Talwar and
    Zhang) silently needs ``c ≥ 1/2``; the proof needs only a sub-Gaussian tail, so it
    holds for the discrete Gaussian too.  Derivation in the
    :doc:`User Guide </user_guide/correlated_gaussian>`.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    s = math.sqrt(2.0 * math.log(1.0 / delta))
    paper = (1.0 + s) / epsilon
    chernoff = (s + math.sqrt(s * s + 2.0 * epsilon)) / (2.0 * epsilon)
    return max(paper, chernoff)
