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

import functools
import math
from fractions import Fraction

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
    Expected draws per entry ``e^γ <= e``; the first round runs on the full array.
    """
    success = _bernoulli_ratio(num, den, 1, rng)
    odd = ~success  # stopped at K = 1 (odd)
    active = np.flatnonzero(success)
    k = 2
    while active.size:
        success = _bernoulli_ratio(num[active], den, k, rng)
        odd[active[~success]] = k % 2 == 1
        active = active[success]
        k += 1
    return odd


@functools.lru_cache(maxsize=64)
def _exp_inverse_bounds(q, prec):
    """Integers ``lo, hi`` with ``lo / 2**prec <= e**(-1/q) <= hi / 2**prec``.

    Alternating series ``Σ (−1/q)^k / k!``: the limit lies between consecutive partial
    sums, so stopping when the next term is below ``2**-prec`` brackets it exactly.
    """
    x = Fraction(1, q)
    total, term, k = Fraction(0), Fraction(1), 0
    while term >= Fraction(1, 2 ** (prec + 2)):
        total += term if k % 2 == 0 else -term
        k += 1
        term = term * x / k
    lo, hi = total - term, total + term
    scale = 2**prec
    return (lo.numerator * scale) // lo.denominator, -((-hi.numerator * scale) // hi.denominator)


def _exp_neg_bounds(v, prec, q=1):
    """Integers ``lo, hi`` with ``lo / 2**prec <= exp(-v/q) <= hi / 2**prec`` (int ``v >= 0``).

    Powers of the fixed-point bounds of ``e**(-1/q)`` computed with ``2·bitlen(v) + 16``
    guard bits (rounded outward), so the bracket is rigorous.
    """
    if v == 0:
        return 2**prec, 2**prec
    guard = 2 * int(v).bit_length() + 16
    p = prec + guard
    lo1, hi1 = _exp_inverse_bounds(q, p)
    shift = p * v - prec
    return (lo1**v) >> shift, -((-(hi1**v)) >> shift)


# Thresholds L_v = floor(exp(-v)·2**62) for v = 0..63 (exact, from the rigorous bounds:
# the bracket at 2**-120 never straddles an integer multiple of 2**-62 for these v).
_T_BITS = 62
def _thresholds(q, count):
    """``floor(exp(-k/q)·2**62)`` for ``k = 0..count-1``, certified exact.

    Computed incrementally from outward-rounded 200-bit bounds of ``e**(-1/q)``; the
    accumulated error (< ``count`` units of 2**-200) cannot straddle a multiple of
    2**-62 unless ``exp(-k/q)·2**62`` is within 2**-130 of an integer, which is
    checked (the construction refuses rather than guess).
    """
    prec = 200
    lo1, hi1 = _exp_inverse_bounds(q, prec)
    lo, hi = 2**prec, 2**prec
    out = []
    for _ in range(count):
        a, b = lo >> (prec - _T_BITS), hi >> (prec - _T_BITS)
        if a != b:  # pragma: no cover - never happens for the tabulated constants
            raise RuntimeError("could not certify the exp(-k/q) threshold table")
        out.append(a)
        lo = (lo * lo1) >> prec
        hi = -((-(hi * hi1)) >> prec)
    return np.array(out, dtype=np.int64)


# L_v = floor(e^{-v}·2**62), v = 0..63 (zero from v = 43 on), and the same with
# exponent v/8 for v = 0..351 (zero from v = 344 on): the exact integer constants all
# comparisons of uniform 62-bit integers against exponentials use.
_EXP_THRESHOLDS = _thresholds(1, 64)
_EXP8_THRESHOLDS = _thresholds(8, 352)


def _scalar_less_exp(prefix, v, rng):
    """Decide ``ξ < exp(-v)`` exactly for a uniform ``ξ`` whose first 62 bits are ``prefix``.

    Appends fresh random 62-bit blocks to ``ξ`` until the rigorous bracket of ``exp(-v)``
    separates it (each extension fails with probability about 2**-54).
    """
    num, bits = int(prefix), _T_BITS
    while True:
        lo, hi = _exp_neg_bounds(int(v), bits + 8)
        if (num + 1) << 8 <= lo:
            return True
        if num << 8 >= hi:
            return False
        num = (num << _T_BITS) | int(rng.integers(0, 2**_T_BITS))
        bits += _T_BITS


def _uniform_below_exp(v, rng):
    """Per entry, Bernoulli(exp(-v[i])) for non-negative int64 ``v``: ``ξ < exp(-v)``.

    One 62-bit uniform integer ``R`` per entry (the first bits of ``ξ``): ``R < L_v``
    proves ``ξ < exp(-v)``, ``R > L_v`` proves the opposite, and the tie ``R == L_v``
    (probability 2**-62) is settled by :func:`_scalar_less_exp`.  For ``v >= 64``,
    ``L_v = 0`` is used (``exp(-64)·2**62 < 1``).
    """
    r = rng.integers(0, 2**_T_BITS, size=v.shape[0])
    thr = _EXP_THRESHOLDS[np.minimum(v, 63)]
    thr = np.where(v >= 64, 0, thr)
    out = r < thr
    for i in np.flatnonzero(r == thr):
        out[i] = _scalar_less_exp(r[i], v[i], rng)
    return out


def _scalar_floor_neg_log(prefix, rng, q=1):
    """``floor(-q·ln ξ)`` exactly for a uniform ``ξ`` whose first 62 bits are ``prefix``."""
    num, bits = int(prefix), _T_BITS
    while True:
        v, decided = 0, True
        while True:
            lo, hi = _exp_neg_bounds(v + 1, bits + 8, q)
            if num << 8 >= hi:  # ξ >= e^{-(v+1)/q}: V = v
                break
            if (num + 1) << 8 <= lo:  # ξ < e^{-(v+1)/q}: V >= v + 1
                v += 1
                continue
            decided = False
            break
        if decided:
            return v
        num = (num << _T_BITS) | int(rng.integers(0, 2**_T_BITS))
        bits += _T_BITS


def _geometric_exp_minus_one(m, rng):
    """``m`` draws of ``V = floor(-ln ξ)``: ``P(V >= v) = e^{-v}`` (CKS Alg. 2's ``V``).

    The paper counts successes of Bernoulli(exp(-1)) until the first failure; this is
    the same law by inversion on exact integer thresholds: ``V = #{v >= 1 : ξ < e^{-v}}``,
    decided from ``R`` (62 bits of ``ξ``) by comparing with ``L_v``; any tie
    ``R == L_v`` (or ``R == 0``, below every tabulated threshold) goes to the exact
    scalar path.
    """
    r = rng.integers(0, 2**_T_BITS, size=m)
    # V = #{v >= 1 : R < L_v} for the common small values (P(V >= 5) = e^-5), by
    # comparisons with exact integer constants; a tie R == L_v means undecided.
    v = np.zeros(m, dtype=np.int64)
    ties = np.zeros(0, dtype=np.int64)
    for level in range(1, 6):
        threshold = _EXP_THRESHOLDS[level]
        v += r < threshold
        if (r == threshold).any():
            ties = np.union1d(ties, np.flatnonzero(r == threshold))
    # Beyond 5: a floating-point guess of floor(-ln ξ) only picks which exact
    # comparisons to make; V = g is proven by L_g > R > L_{g+1}.
    deep = np.flatnonzero(v == 5)
    if deep.size:
        rd = r[deep]
        guess = np.floor(-np.log((rd.astype(np.float64) + 0.5) * 2.0**-_T_BITS))
        g = np.clip(guess.astype(np.int64), 0, 62)
        proven = (rd < _EXP_THRESHOLDS[g]) & (rd > _EXP_THRESHOLDS[g + 1])
        v[deep] = g
        ties = np.union1d(ties, deep[~proven])
    for i in ties:
        v[i] = _scalar_floor_neg_log(r[i], rng)
    return v


def _geometric_exp_minus_eighth(m, rng):
    """``m`` draws of ``floor(-8·ln ξ)``: ``P(W >= w) = e^{-w/8}``.

    A floating-point guess ``g`` picks the comparisons; ``W = g`` is proven by the exact
    integer test ``L8_g > R > L8_{g+1}`` (``R`` = 62 bits of ``ξ``); unproven draws
    (ties, or a guess off by one: probability ~2**-50) use the exact scalar path.
    """
    table = _EXP8_THRESHOLDS
    r = rng.integers(0, 2**_T_BITS, size=m)
    f = r.astype(np.float64)
    f += 0.5
    f *= 2.0**-_T_BITS
    np.log(f, out=f)  # ln ξ with ξ = (R + 1/2)/2**62 in (2**-63, 1): -8 ln ξ < 350
    f *= -8.0
    np.floor(f, out=f)
    g = f.astype(np.int64)  # in [0, 349]: ξ >= 2**-63 and ξ <= 1 after rounding
    proven = r < np.take(table, g)
    proven &= r > np.take(table, g + 1)
    if not proven.all():
        for i in np.flatnonzero(~proven):
            g[i] = _scalar_floor_neg_log(r[i], rng, q=8)
    return g


def _all_exp_minus_one(counts, rng):
    """Per entry, Bernoulli(exp(-counts[i])) (``counts[i]`` successes of Bernoulli(e^-1))."""
    return _uniform_below_exp(counts, rng)


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
    rejection round draws ≈ 1.6× the missing count; cost O(size) integer draws, independent
    of the scale.  When ``8 | t`` a faster equivalent split is used: ``U'`` on
    ``{0..t/8−1}`` (acceptance ≥ e^{-1/8} ≈ 0.88) and ``W = floor(8E)`` with
    ``P(W >= w) = e^{-w/8}``, ``X = U' + (t/8)·W``; both splits give ``X`` geometric
    with ratio ``exp(-1/t)`` exactly (memorylessness), so the calibration rounds ``t``
    up to a multiple of 8.

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
    # Fast path (t divisible by 8): X = U' + (t/8)·W with U' on {0..t/8-1}, P ∝ e^{-u/t},
    # accepted with probability >= e^{-1/8} = 0.88 (Algorithm 1 with γ <= 1/8), and
    # W = floor(8E) geometric with ratio e^{-1/8} (exact integer thresholds).  X is
    # geometric with ratio e^{-1/t} by memorylessness, exactly as the paper's U + t·V.
    eighth = t % 8 == 0
    period, acceptance = (t // 8, 0.88) if eighth else (t, 0.63)
    filled = 0
    while filled < total:
        missing = total - filled
        # Ask for 1/acceptance times the missing count plus five standard deviations,
        # so that one round almost always suffices.
        m = int(missing / acceptance + 5.0 * math.sqrt(missing)) + 16
        u = rng.integers(0, period, size=m)
        keep = np.flatnonzero(_bernoulli_exp_fraction(u, t, rng))[:missing]
        if eighth:
            y = u[keep] + period * _geometric_exp_minus_eighth(keep.size, rng)
        else:
            y = u[keep] + t * _geometric_exp_minus_one(keep.size, rng)
        if s != 1:
            y //= s
        negative = rng.integers(0, 2, size=keep.size, dtype=np.int8) == 1
        np.negative(y, out=y, where=negative)
        minus_zero = negative & (y == 0)  # reject "−0" so that 0 is not counted twice
        z = y[~minus_zero] if minus_zero.any() else y
        out[filled : filled + z.size] = z
        filled += z.size
    return out.reshape(shape)


def _gaussian_exponent_parts(ay, t, a):
    """Exact integer part and remainder of ``γ = (ay·t − a)² / D``, ``D = 2·a·t²``.

    Valid for ``0 <= ay <= 2**24``, ``a <= 2**30``, ``t <= 2**15 + 8``: then
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
    # Bernoulli(e^-whole) as a product of Bernoulli(e^-step), step <= 64.
    while whole > 0:
        step = min(whole, 64)
        if not _scalar_less_exp(int(rng.integers(0, 2**_T_BITS)), step, rng):
            return False
        whole -= step
    return _bernoulli_exp_fraction_python(rem, d, rng)


def discrete_gaussian(sigma2, size, rng):
    """Exact discrete Gaussian draws: ``P(Z = z) ∝ exp(-z²/(2·sigma2))`` on the integers.

    CKS 2020 Algorithm 3 with ``σ² = sigma2`` an integer: ``t >= floor(σ) + 1``; draw
    ``Y`` discrete Laplace of scale ``t`` and accept with probability
    ``exp(-(|Y| − σ²/t)² / (2σ²))``.  Expected candidates per output ≈ 1/0.76 for large σ.

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
    # CKS use t = floor(σ) + 1; any t is correct (the acceptance probability below is
    # the exact density ratio up to a constant) and t rounded up to a multiple of 8
    # keeps the efficiency (acceptance ≈ 0.76 for large σ) and takes the fast
    # discrete-Laplace path; small σ keep the paper's t.
    t = math.isqrt(a) + 1
    if t >= 64:
        t = 8 * ((t + 7) // 8)
    out = np.empty(total, dtype=np.int64)
    filled = 0
    while filled < total:
        missing = total - filled
        m = int(missing / 0.74 + 5.0 * math.sqrt(missing)) + 16
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
