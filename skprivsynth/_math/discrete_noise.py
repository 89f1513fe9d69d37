"""Exact samplers of discrete Laplace and discrete Gaussian noise on the integers.

Why: the textbook floating-point Laplace sampler ``b·log(U)`` releases a float whose
low-order bits depend on the secret value it is added to; Mironov (2012) shows this
can void the guarantee entirely.  The remedy of Canonne, Kamath and Steinke (2020) is
to put the statistic on an explicit integer grid and add *integer* noise drawn with
integer arithmetic only: no floating-point operation touches a random quantity, so the
output distribution is exactly the one the privacy proof is about.

The samplers below follow CKS 2020:

* Algorithm 1 -- ``Bernoulli(exp(-γ))`` for a rational ``γ = num/den`` via the series
  trick (draw ``A_k ~ Bernoulli(γ/k)`` for ``k = 1, 2, ...`` until the first failure;
  return 1 iff the number of draws is odd), and for ``γ > 1`` as the product of
  ``floor(γ)`` draws of ``Bernoulli(exp(-1))`` and one of ``Bernoulli(exp(-frac γ))``;
* Algorithm 2 -- discrete Laplace ``P(z) ∝ exp(-|z|·s/t)``;
* Algorithm 3 -- discrete Gaussian ``P(z) ∝ exp(-z²/(2σ²))`` by rejection from a
  discrete Laplace of scale ``t = floor(σ) + 1``.

Every Bernoulli with rational parameter ``num/den`` is ``U < num`` for ``U`` uniform on
``{0, ..., den-1}``, drawn by :meth:`numpy.random.Generator.integers` (exactly uniform
on an integer range: Lemire's rejection method on raw bits).  ``Bernoulli(γ/k)`` is
``Bernoulli(γ) ∧ Bernoulli(1/k)`` when ``den·k`` would not fit in 63 bits.

Vectorisation: the rejection loops of the paper run on numpy ``int64`` arrays -- each
round draws for all still-undecided entries at once and keeps only those still
undecided; the random *quantities* are integers and every comparison is an exact
integer comparison.  Rejection rounds oversample so that one or two rounds usually
suffice.  The discrete Gaussian's acceptance exponent ``(|y|·t − σ²)² / (2σ²t²)``
exceeds 64 bits; its integer part and remainder are computed exactly with wrapping
``uint64`` arithmetic around a floating-point *guess* that is then corrected by
exact integer comparisons (the guess only selects which exact test to run), and the
astronomically rare draws outside the range where that is proven exact go to a
scalar Python-integer path.

References
----------
C. L. Canonne, G. Kamath, T. Steinke. "The Discrete Gaussian for Differential
Privacy." NeurIPS 2020 (arXiv:2004.00010), Algorithms 1-3.
I. Mironov. "On significance of the least significant bits for differential
privacy." CCS 2012.
"""

from __future__ import annotations

import math
import numpy as np

__all__ = [
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_gaussian_pmf",
    "discrete_laplace",
    "discrete_laplace_pmf",
]

# Largest denominator for which ``den * k`` is drawn in one ``integers`` call.
_MAX_INT = 2**62
# Largest integer discrete-Laplace scale ``t`` accepted (keeps ``U + t·V`` in int64).
MAX_LAPLACE_SCALE = 2**52
# Range of sigma² (grid units) supported by the vectorised discrete Gaussian path.
MAX_GAUSSIAN_SIGMA2 = 2**30
# |y| above which the discrete Gaussian acceptance test uses Python integers.
_GAUSS_VECTOR_Y = 2**24


def _bernoulli_ratio(num, den, k, rng):
    """Bernoulli(num / (den·k)) per entry; ``num`` int64 array, ``den`` int, ``k`` int."""
    m = num.shape[0]
    if den * k <= _MAX_INT:
        return rng.integers(0, den * k, size=m) < num
    return (rng.integers(0, den, size=m) < num) & (rng.integers(0, k, size=m) == 0)


def _bernoulli_exp_fraction(num, den, rng):
    """Bernoulli(exp(-num/den)) per entry, for integer arrays with ``0 <= num <= den``.

    CKS 2020 Algorithm 1: ``K = 1``; while ``A ~ Bernoulli(γ/K)`` succeeds, ``K += 1``;
    return ``K`` odd.  ``P(K odd) = Σ_k (−γ)^k / k! = exp(−γ)`` for ``γ ∈ [0, 1]``.
    """
    m = num.shape[0]
    odd = np.empty(m, dtype=bool)
    active = np.arange(m)
    k = 1
    while active.size:
        success = _bernoulli_ratio(num[active], den, k, rng)
        stopped = active[~success]
        odd[stopped] = k % 2 == 1
        active = active[success]
        k += 1
    return odd


def _bernoulli_exp_minus_one(m, rng):
    """Bernoulli(exp(-1)) ``m`` times (Algorithm 1 with γ = 1: draws are Bernoulli(1/K))."""
    odd = np.empty(m, dtype=bool)
    active = np.arange(m)
    k = 2  # Bernoulli(1/1) always succeeds
    while active.size:
        success = rng.integers(0, k, size=active.size) == 0
        odd[active[~success]] = k % 2 == 1
        active = active[success]
        k += 1
    return odd


def _all_exp_minus_one(counts, rng):
    """Per entry: do ``counts[i]`` independent Bernoulli(exp(-1)) draws all succeed?

    That event has probability ``exp(-counts[i])``.  Entries fail at their first
    failure, so the loop ends after about ``min(max(counts), few dozen)`` rounds.
    """
    ok = np.ones(counts.shape[0], dtype=bool)
    active = np.flatnonzero(counts > 0)
    done = 0
    while active.size:
        success = _bernoulli_exp_minus_one(active.size, rng)
        ok[active[~success]] = False
        done += 1
        active = active[success & (counts[active] > done)]
    return ok


def bernoulli_exp(num, den, rng):
    """Exact Bernoulli(exp(-num/den)) for non-negative integer arrays ``num`` and int ``den``.

    Parameters
    ----------
    num : array-like of int
        Non-negative numerators (any shape; flattened).
    den : int
        Positive denominator, at most ``2**62``.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of bool, shape of ``num``
    """
    num = np.asarray(num, dtype=np.int64)
    den = int(den)
    if den < 1 or den > _MAX_INT:
        raise ValueError(f"den must be an integer in [1, 2**62]; got {den!r}.")
    if num.size and num.min() < 0:
        raise ValueError("num must be non-negative.")
    flat = num.ravel()
    whole, rem = np.divmod(flat, den)
    out = _all_exp_minus_one(whole, rng)
    idx = np.flatnonzero(out)
    out[idx] = _bernoulli_exp_fraction(rem[idx], den, rng)
    return out.reshape(num.shape)


def _geometric_exp_minus_one(m, rng):
    """``m`` draws of V with ``P(V = v) = (1 − e^{-1})·e^{-v}`` (successes before a failure)."""
    v = np.zeros(m, dtype=np.int64)
    active = np.arange(m)
    while active.size:
        success = _bernoulli_exp_minus_one(active.size, rng)
        active = active[success]
        v[active] += 1
    return v


def _check_positive_int(value, name, upper):
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be a positive integer; got {value!r}.")
    value = int(value)
    if not 1 <= value <= upper:
        raise ValueError(f"{name} must be an integer in [1, {upper}]; got {value!r}.")
    return value


def _check_size(size):
    shape = (size,) if isinstance(size, int | np.integer) else tuple(size)
    if any(int(s) < 0 for s in shape):
        raise ValueError(f"size must contain non-negative integers; got {size!r}.")
    return tuple(int(s) for s in shape)


def discrete_laplace(t, size, rng, s=1):
    """Exact discrete Laplace draws: ``P(Z = z) ∝ exp(-|z|·s/t)`` on the integers.

    CKS 2020 Algorithm 2.  ``U`` uniform on ``{0..t-1}`` accepted with probability
    ``exp(-U/t)`` and ``V`` with ``P(V=v) ∝ e^{-v}`` give ``X = U + t·V`` geometric with
    ratio ``exp(-1/t)``; ``Y = floor(X/s)`` is geometric with ratio ``exp(-s/t)``; a random
    sign (rejecting ``−0``) makes it two-sided.  Acceptance per candidate ≈ 0.63, so each
    rejection round draws 1.7× the missing count; cost O(size) integer draws, independent
    of the scale.

    Parameters
    ----------
    t : int
        Scale numerator, ``1 <= t <= 2**52``.
    size : int or tuple of int
        Output shape.
    rng : numpy.random.Generator
    s : int, default=1
        Scale denominator (``scale = t / s`` in grid units).

    Returns
    -------
    ndarray of int64
    """
    t = _check_positive_int(t, "t", MAX_LAPLACE_SCALE)
    s = _check_positive_int(s, "s", MAX_LAPLACE_SCALE)
    shape = _check_size(size)
    total = math.prod(shape)
    out = np.empty(total, dtype=np.int64)
    filled = 0
    while filled < total:
        missing = total - filled
        m = int(missing * 1.7) + 16
        u = rng.integers(0, t, size=m)
        keep = np.flatnonzero(_bernoulli_exp_fraction(u, t, rng))
        x = u[keep] + t * _geometric_exp_minus_one(keep.size, rng)
        y = x // s
        negative = rng.integers(0, 2, size=keep.size, dtype=np.int8) == 1
        valid = ~(negative & (y == 0))
        z = np.where(negative, -y, y)[valid][:missing]
        out[filled : filled + z.size] = z
        filled += z.size
    return out.reshape(shape)


def _gaussian_exponent_parts(ay, t, a):
    """Exact integer part and remainder of ``γ = (ay·t − a)² / D``, ``D = 2·a·t²``.

    Valid for ``0 <= ay <= 2**24``, ``a <= 2**30``, ``t <= 2**15 + 1``: then
    ``u = ay·t − a`` fits in 40 bits, ``γ < 2**44`` and the float guess of
    ``floor(γ)`` is off by at most one; the remainder ``u² − k·D`` is computed modulo
    2**64 (wrapping uint64 products) and is exact because its true value lies in
    ``[−D, 2D) ⊂ (−2**63, 2**63)``.  Two exact integer corrections fix the guess.
    """
    d = 2 * a * t * t
    u = ay * t - a
    guess = np.floor((u.astype(np.float64) ** 2) / float(d)).astype(np.int64)
    uu = u.astype(np.uint64)
    with np.errstate(over="ignore"):
        rem = (uu * uu - guess.astype(np.uint64) * np.uint64(d)).astype(np.int64)
    low = rem < 0
    guess[low] -= 1
    rem[low] += d
    high = rem >= d
    guess[high] += 1
    rem[high] -= d
    return guess, rem, d


def _bernoulli_exp_fraction_python(num, den, rng):
    """Scalar Algorithm 1 with Python integers (any size), for ``0 <= num <= den``."""
    # Bernoulli(num/(den·k)) exactly with Python ints: uniform integer on [0, den·k)
    # built from 62-bit chunks by rejection (exactly uniform).
    k = 1
    while _uniform_below_python(den * k, rng) < num:
        k += 1
    return k % 2 == 1


def _uniform_below_python(bound, rng):
    """Exactly uniform integer on ``[0, bound)`` for an arbitrary Python int ``bound``."""
    nbits = bound.bit_length()
    chunks = (nbits + 61) // 62
    while True:
        value = 0
        for _ in range(chunks):
            value = (value << 62) | int(rng.integers(0, 2**62))
        value >>= chunks * 62 - nbits
        if value < bound:
            return value


def _gaussian_accept_python(ay, t, a, rng):
    """Exact acceptance test of Algorithm 3 for one large ``|y|`` with Python integers."""
    d = 2 * a * t * t
    whole, rem = divmod((ay * t - a) ** 2, d)
    # P(all of `whole` Bernoulli(e^-1) succeed) = e^-whole; stop at the first failure.
    for _ in range(whole):
        if not _bernoulli_exp_minus_one(1, rng)[0]:
            return False
    return _bernoulli_exp_fraction_python(rem, d, rng)


def discrete_gaussian(sigma2, size, rng):
    """Exact discrete Gaussian draws: ``P(Z = z) ∝ exp(-z²/(2·sigma2))`` on the integers.

    CKS 2020 Algorithm 3 with ``σ² = sigma2`` an integer: ``t = floor(σ) + 1``; draw
    ``Y`` discrete Laplace of scale ``t`` and accept with probability
    ``exp(-(|Y| − σ²/t)² / (2σ²))``.  Expected candidates per output < 1/0.6 for σ ≥ 1.

    Parameters
    ----------
    sigma2 : int
        Variance parameter in grid units, ``1 <= sigma2 <= 2**30``.
    size : int or tuple of int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64
    """
    a = _check_positive_int(sigma2, "sigma2", MAX_GAUSSIAN_SIGMA2)
    shape = _check_size(size)
    total = math.prod(shape)
    t = math.isqrt(a) + 1
    out = np.empty(total, dtype=np.int64)
    filled = 0
    while filled < total:
        missing = total - filled
        m = int(missing * 1.8) + 16
        y = discrete_laplace(t, m, rng)
        ay = np.abs(y)
        small = ay <= _GAUSS_VECTOR_Y
        accept = np.zeros(m, dtype=bool)
        idx = np.flatnonzero(small)
        whole, rem, d = _gaussian_exponent_parts(ay[idx], t, a)
        ok = _all_exp_minus_one(whole, rng)
        sub = np.flatnonzero(ok)
        ok[sub] = _bernoulli_exp_fraction(rem[sub], d, rng)
        accept[idx] = ok
        for i in np.flatnonzero(~small):
            accept[i] = _gaussian_accept_python(int(ay[i]), t, a, rng)
        z = y[accept][:missing]
        out[filled : filled + z.size] = z
        filled += z.size
    return out.reshape(shape)


def discrete_laplace_pmf(z, scale):
    """pmf ``P(Z=z) = tanh(1/(2·scale))·exp(-|z|/scale)`` at integers ``z`` (for tests)."""
    z = np.asarray(z, dtype=np.float64)
    return math.tanh(1.0 / (2.0 * scale)) * np.exp(-np.abs(z) / scale)


def discrete_gaussian_pmf(z, sigma2):
    """pmf of the discrete Gaussian at integers ``z`` (normaliser summed numerically)."""
    z = np.asarray(z, dtype=np.float64)
    half = int(40 * math.sqrt(sigma2)) + 10
    grid = np.arange(-half, half + 1, dtype=np.float64)
    norm = np.exp(-(grid**2) / (2.0 * sigma2)).sum()
    return np.exp(-(z**2) / (2.0 * sigma2)) / norm
