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
  discrete Laplace of scale ``t = floor(σ) + 1`` (small ``σ²`` or few draws);
* for ``σ² >= 2**12`` and at least 256 draws, the same law by rejection from a
  block-constant envelope (blocks of width ``w <= σ/32``, a geometric tail) sampled
  with an integer alias table; the acceptance probability ``c_b·exp(-γ)`` is decided
  by integer comparisons against certified constants (``c_b``) and CKS Algorithm 1
  (``γ <= 0.31``), open verdicts continuing exactly -- see :class:`_GaussianEnvelope`.
  About 2× the cost of ``numpy``'s float Gaussian mechanism end to end.

Every Bernoulli with rational parameter ``num/den`` is ``U < num`` for ``U`` uniform on
``{0, ..., den-1}``, drawn by :meth:`numpy.random.Generator.integers` (exactly uniform
on an integer range: Lemire's rejection method on raw bits).  ``Bernoulli(γ/k)`` is
``Bernoulli(γ) ∧ Bernoulli(1/k)`` when ``den·k`` would not fit in 63 bits.

Raw bits: the fast paths (:func:`_discrete_laplace_eighth`, :func:`_discrete_gaussian_envelope`)
take several independent uniform fields from disjoint bits of one
64-bit uniform word (:func:`_random_words`: ``bit_generator.random_raw`` for bit
generators known to emit 64-bit words, else ``Generator.integers``), in chunks of
``_CHUNK`` candidates with in-place ``int64`` operations; a partial first round of
Algorithm 1 from ``G`` bits is finished exactly by :func:`_alg1_finish`.

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
    return _later_rounds(num, den, _bernoulli_ratio(num, den, 1, rng), rng)


def _later_rounds(num, den, passed_first, rng):
    """Rounds ``k = 2, 3, ...`` of CKS Algorithm 1 for ``γ = num/den``; returns ``[K odd]``.

    ``passed_first`` marks the entries whose round 1 succeeded; the others stopped at
    ``K = 1`` (odd).  Round ``k`` succeeds with probability ``γ/k``
    (:func:`_bernoulli_ratio`), and an entry stops at its first failure.
    """
    odd = ~passed_first
    active = np.flatnonzero(passed_first)
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


def _scalar_floor_neg_log(prefix, rng, q=1, bits=_T_BITS):
    """``floor(-q·ln ξ)`` exactly for a uniform ``ξ`` whose first ``bits`` bits are ``prefix``."""
    num, bits = int(prefix), int(bits)
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


# W = floor(-8·ln ξ) from a 32-bit prefix R of ξ: W = g is proven by the integer test
# A8[g+1] < R < A8[g] with A8[k] = floor(L8_k / 2**30) = floor(floor(e^{-k/8}·2**62) / 2**30)
# (then ξ ∈ [R, R+1)/2**32 lies in (e^{-(g+1)/8}, e^{-g/8}]); R < 2**32 gives g <= 183.
_W_BITS = 32
_A8 = _EXP8_THRESHOLDS >> (_T_BITS - _W_BITS)
_A8_NEXT = np.append(_A8[1:], 0)
_LOG_2W = _W_BITS * math.log(2.0)


def _floor_neg_8log(r, rng):
    """``floor(-8·ln ξ)`` for uniform ``ξ`` whose first 32 bits are ``r`` (int64, exact).

    ``P(W >= w) = e^{-w/8}``.  A float guess ``g = -8·ln((R + 1/2)/2**32)`` only picks
    which two exact integer comparisons to make (``A8[g+1] < R < A8[g]``); unproven
    entries (``ξ``'s 32-bit interval straddles a threshold, or a guess off by one:
    probability about 2**-29) are finished by the exact scalar path with more bits.
    """
    f = r.astype(np.float64)
    f += 0.5
    np.log(f, out=f)
    f *= -8.0
    f += 8.0 * _LOG_2W
    g = f.astype(np.int64)  # truncation = floor: f > -1e-12, and any guess is verified
    np.clip(g, 0, _A8.size - 2, out=g)
    proven = r < np.take(_A8, g)
    proven &= r > np.take(_A8_NEXT, g)
    if not proven.all():
        for i in np.flatnonzero(~proven):
            g[i] = _scalar_floor_neg_log(r[i], rng, q=8, bits=_W_BITS)
    return g


# Bit generators whose ``random_raw`` words are 64 uniform bits (numpy's MT19937 gives
# 32-bit words: bits 32-63 zero).  Any other bit generator (MT19937, third-party ones)
# gets its words from ``Generator.integers`` over the full uint64 range, which numpy
# fills with ``next_uint64`` directly (exactly uniform, no rejection needed).
_RAW64_BIT_GENERATORS = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)


def _random_words(rng, m):
    """``m`` independent uniform 64-bit words (``uint64``) from ``rng``."""
    bit_generator = rng.bit_generator
    if isinstance(bit_generator, _RAW64_BIT_GENERATORS):
        return bit_generator.random_raw(m)
    return rng.integers(0, 2**64, size=m, dtype=np.uint64)


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
    if t % 8 == 0:
        # Fast path (t divisible by 8): X = U' + (t/8)·W with U' on {0..t/8-1},
        # P ∝ e^{-u/t}, accepted with probability >= e^{-1/8} = 0.88 (Algorithm 1 with
        # γ <= 1/8), and W = floor(-8·ln ξ) geometric with ratio e^{-1/8} (exact integer
        # thresholds).  X is geometric with ratio e^{-1/t} by memorylessness, exactly as
        # the paper's U + t·V.
        return _discrete_laplace_eighth(t, s, total, rng).reshape(shape)
    out = np.empty(total, dtype=np.int64)
    period, acceptance = t, 0.63
    filled = 0
    while filled < total:
        # Chunks of at most _CHUNK outputs keep the temporaries in cache (see below).
        missing = min(total - filled, _CHUNK)
        # Ask for 1/acceptance times the missing count plus five standard deviations,
        # so that one round almost always suffices.
        m = int(missing / acceptance + 5.0 * math.sqrt(missing)) + 16
        u = rng.integers(0, period, size=m)
        keep = np.flatnonzero(_bernoulli_exp_fraction(u, t, rng))[:missing]
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


def _discrete_laplace_eighth(t, s, total, rng):
    """``total`` draws of :func:`discrete_laplace` for ``8 | t`` (one fused pass per chunk).

    Per candidate: ``U'`` uniform on ``{0..t/8−1}`` (:meth:`~numpy.random.Generator.integers`,
    exactly uniform) and one raw 64-bit word ``x`` whose bits are used as

    * bits 0–31: the first 32 bits of the ``ξ`` of ``W = floor(-8·ln ξ)``
      (:func:`_floor_neg_8log`);
    * bits 32–(32+G−1): the first ``G = min(31, 63 − bitlen(t))`` bits of the uniform of
      round 1 of Algorithm 1 for ``γ = U'/t``: with ``slack = U'·2**G − r·t``, round 1
      fails surely (accept) when ``slack <= 0``, succeeds surely when ``slack >= t``, and
      otherwise with probability exactly ``slack/t`` (:func:`_alg1_finish`);
    * bit 63: the sign (``x >> 63`` is 0 or −1; ``(y ^ s) − s`` negates when −1).

    The three fields are disjoint bits of one uniform word, hence independent; every
    decision is an integer comparison (``U'·2**G`` and ``r·t`` stay below 2**63).
    """
    p = t // 8
    g_bits = min(31, 63 - t.bit_length())
    a_mask = (1 << g_bits) - 1
    w_mask = (1 << _W_BITS) - 1
    out = np.empty(total, dtype=np.int64)
    filled = 0
    while filled < total:
        missing = min(total - filled, _CHUNK)
        # mean acceptance 8·(1 − e^{-1/8}) = 0.94; plus five standard deviations
        m = int(missing / 0.94 + 5.0 * math.sqrt(missing)) + 16
        u = rng.integers(0, p, size=m)
        x = _random_words(rng, m).view(np.int64)
        r = x & w_mask
        y = _floor_neg_8log(r, rng)
        # Algorithm 1, round 1 from G bits; r is reused as r·t.
        np.right_shift(x, _W_BITS, out=r)
        r &= a_mask
        r *= t
        slack = u << g_bits
        slack -= r
        ok = slack <= 0
        open_ = np.flatnonzero(~ok)
        if open_.size:
            ok[open_] = _alg1_finish(u[open_], slack[open_], t, rng)
        y *= p
        y += u
        if s != 1:
            y //= s
        filled += _signed_accepted_into(y, x, ok, out, filled, missing)
    return out


def _signed_accepted_into(magnitude, words, ok, out, filled, missing):
    """Apply the sign bits and copy the first ``missing`` accepted draws into ``out``.

    ``magnitude`` (non-negative) and ``words`` (int64, sign taken from the top bit) are
    overwritten.  A zero with a negative sign ("−0") is rejected so that 0 is not
    counted twice.  Keeping the first accepted draws of a chunk does not depend on
    their values.  Returns the number of draws written.
    """
    if not magnitude.all():
        zero = np.flatnonzero(magnitude == 0)
        ok[zero[words[zero] < 0]] = False
    np.right_shift(words, 63, out=words)  # 0 or -1
    magnitude ^= words
    magnitude -= words
    idx = np.flatnonzero(ok)[:missing]
    np.take(magnitude, idx, out=out[filled : filled + idx.size])
    return idx.size


def _alg1_finish(num, slack, den, rng):
    """Finish CKS Algorithm 1 for ``γ = num/den`` after a partial first round.

    Round 1 compares ``ξ1 = (r + ξ')/2**G`` with ``γ``: ``A1 = [ξ'·den < slack]`` where
    ``slack = num·2**G − r·den``; so ``A1 = 0`` when ``slack <= 0``, ``1`` when
    ``slack >= den``, and otherwise ``Bernoulli(slack/den)`` exactly (a uniform integer
    on ``[0, den)`` below ``slack``).  If ``A1 = 1`` the rounds ``k = 2, 3, ...`` of
    :func:`_bernoulli_exp_fraction` follow; returns ``[K odd]``, i.e. Bernoulli(e^{-γ}).
    """
    a1 = slack > 0
    idx = np.flatnonzero(a1 & (slack < den))
    if idx.size:
        a1[idx] = rng.integers(0, den, size=idx.size) < slack[idx]
    return _later_rounds(num, den, a1, rng)


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
    if a >= _ENVELOPE_MIN_SIGMA2 and total >= _ENVELOPE_MIN_SIZE:
        # Same law, faster: rejection from an exact block envelope (_GaussianEnvelope).
        return _discrete_gaussian_envelope(a, total, rng).reshape(shape)
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


# ---------------------------------------------------------------------------------
# Fast exact discrete Gaussian: rejection from a block-constant envelope (alias table)
# ---------------------------------------------------------------------------------


def _exp_bracket(num, den, prec):
    """Fractions ``lo <= exp(-num/den) <= hi`` with ``hi - lo <= 2**-prec`` (ints ``num >= 0``).

    ``exp(-N)·exp(-r)`` with ``N = floor(num/den)`` and ``r ∈ [0, 1)``: each factor is
    bracketed by consecutive partial sums of its alternating Taylor series (terms
    decrease from the first on since the argument is at most 1), rounded outward to
    ``2**-(prec + N + 8)``.  Everything is exact rational / integer arithmetic.
    """
    whole, rem = divmod(int(num), int(den))
    p = prec + 2 * whole + 8
    scale = 1 << p

    def series(x):  # bracket of e^{-x}, 0 <= x <= 1, as integers at scale 2**p
        total, term, k = Fraction(0), Fraction(1), 0
        while term * scale >= 1:
            total += term if k % 2 == 0 else -term
            k += 1
            term = term * x / k
        lo, hi = total - term, total + term
        lo_scaled = (lo.numerator * scale) // lo.denominator
        return lo_scaled, -((-hi.numerator * scale) // hi.denominator)

    lo, hi = series(Fraction(rem, int(den)))
    if whole:
        lo1, hi1 = series(Fraction(1))
        lo = lo * lo1**whole >> (p * whole)
        hi = -((-(hi * hi1**whole)) >> (p * whole))
    return Fraction(max(lo, 0), scale), Fraction(hi, scale)


def _scalar_bernoulli_bracketed(prefix, bits, bracket, rng):
    """Exact ``ξ < v`` for uniform ``ξ`` whose first ``bits`` bits are ``prefix``.

    ``bracket(prec)`` returns Fractions ``lo <= v <= hi`` with ``hi − lo <= 2**-prec``.
    Random 62-bit blocks are appended to ``ξ`` until the bracket separates it.
    """
    num = int(prefix)
    while True:
        lo, hi = bracket(bits + 8)
        if Fraction(num + 1, 1 << bits) <= lo:
            return True
        if Fraction(num, 1 << bits) >= hi:
            return False
        num = (num << _T_BITS) | int(rng.integers(0, 2**_T_BITS))
        bits += _T_BITS


# Bits of the alias coin, of the block-acceptance test and of the first round of the
# within-block test (see _GaussianEnvelope).
_COIN_BITS = 40
_FIX_BITS = 192
# Outputs per chunk of the vectorised loops (16384: the dozen int64 temporaries,
# 128 KiB each, stay in a 2 MiB L2 cache; 2**15 was 20-50 % slower at 10**5 draws).
_CHUNK = 1 << 14
# The envelope sampler is used from sigma2 >= 2**12 (block width >= 2) and for at
# least 256 draws (its tables cost ~1.5 ms once per sigma2, then are cached).
_ENVELOPE_MIN_SIGMA2 = 2**12
_ENVELOPE_MIN_SIZE = 256
_C_BITS = 32
_G_BITS = 30


class _GaussianEnvelope:
    """Exact integer tables of the block envelope of ``P(m) ∝ exp(-m²/(2a))``, ``m >= 0``.

    Blocks ``[b·w, (b+1)·w)`` (``w`` a power of two ``<= σ/32``) for ``b < B`` with
    ``B·w >= 10σ``, a geometric tail entry beyond ``M0 = B·w`` and a "reject" entry.
    Entry weights are integers ``E_b >= K·exp(-(b·w)²/(2a))`` (``E_b = ceil(K·hi_b)``
    from a rigorous bracket) summing with the reject entry to ``ncol·2**_COIN_BITS``,
    sampled by an integer Walker alias table.  A candidate ``m = b·w + r`` is accepted
    with probability ``K·exp(-m²/(2a)) / E_b = c_b · exp(-γ)``:
    ``c_b = K·exp(-(b·w)²/(2a)) / E_b`` (tested against the certified integer
    ``T_b = floor(c_b·2**32)``; a tie continues exactly with more bits) and
    ``γ = r·(2·b·w + r)/(2a) <= 0.31`` (CKS Algorithm 1, first round decided from 30
    bits, an undecided first round continued exactly).  Hence the accepted ``m`` has
    law ``∝ exp(-m²/(2a))`` exactly.
    """

    def __init__(self, a):
        self.a = a
        sigma = math.isqrt(a)  # floor(σ)
        self.log_w = max(0, (sigma // 32).bit_length() - 1)
        w = self.w = 1 << self.log_w
        n_blocks = -(-10 * (sigma + 1) // w)
        self.n_blocks = n_blocks
        self.m0 = n_blocks * w
        self.log_ncol = (n_blocks + 1).bit_length()  # room for tail + reject entries
        ncol = 1 << self.log_ncol
        capacity = ncol << _COIN_BITS
        den = 2 * a
        # x_b = q^{b²} with q = e^{-w²/(2a)}, bracketed in fixed point (2**-_FIX_BITS)
        # by the recurrence x_{b+1} = x_b·q^{2b+1}, rounding lower ends down and upper
        # ends up: rigorous, and far faster than one series per block.
        fix = _FIX_BITS
        q_lo, q_hi = _exp_bracket(w * w, den, fix + 8)
        q_lo = (q_lo.numerator << fix) // q_lo.denominator
        q_hi = -((-q_hi.numerator << fix) // q_hi.denominator)
        q2_lo, q2_hi = (q_lo * q_lo) >> fix, -((-q_hi * q_hi) >> fix)
        x_lo = x_hi = 1 << fix
        y_lo, y_hi = q_lo, q_hi
        lows, highs = [], []
        for _ in range(n_blocks):
            lows.append(x_lo)
            highs.append(x_hi)
            x_lo, x_hi = (x_lo * y_lo) >> fix, -((-x_hi * y_hi) >> fix)
            y_lo, y_hi = (y_lo * q2_lo) >> fix, -((-y_hi * q2_hi) >> fix)
        # tail: mass of the geometric envelope beyond M0, rigorously bounded above
        e_m0 = _exp_bracket(self.m0**2, den, 80)[1]
        tail_hi = e_m0 / (1 - _exp_bracket(self.m0, a, 80)[1])
        total = sum(highs) / 2.0**fix * w + float(tail_hi)
        K = int(capacity * 0.999 / total)
        per_point = [-((-K * h) >> fix) for h in highs]  # E_b = ceil(K·hi_b)
        weights = [e * w for e in per_point]  # w points per block
        tail_w = max(1, math.ceil(K * tail_hi))
        rest = capacity - sum(weights) - tail_w
        if rest < 0:  # pragma: no cover - 0.1 % slack
            raise RuntimeError("discrete Gaussian envelope does not fit its table")
        self.K = K
        self.tail_weight = tail_w
        entries = [*weights, tail_w, rest] + [0] * (ncol - n_blocks - 2)
        prob, alias = _integer_alias(entries, 1 << _COIN_BITS)
        self.prob = np.array(prob, dtype=np.int64)
        self.alias = np.array(alias, dtype=np.int64)
        # per block: c_b·2**32 thresholds (certified floor) and the per-point weight E_b
        self.block_weight = per_point
        thresholds = []
        for b in range(n_blocks):  # floor(c_b·2**32) from the fixed-point bracket
            low = (K * lows[b] << _C_BITS) // (per_point[b] << fix)
            high = (K * highs[b] << _C_BITS) // (per_point[b] << fix)
            thresholds.append(low if low == high else self._c_floor(b, _C_BITS))
        self.threshold = np.array(thresholds, dtype=np.int64)
        # Fused lookup tables of the sampling loop, indexed by j = col + ncol·[coin < prob]
        # (j < ncol: the alias of col was drawn; j >= ncol: col itself): the block start
        # b·w (M0 for the tail entry, 0 for reject / padding) and the c_b threshold
        # (-1: never passes; 2**33 for the tail: always "passes", the tail candidates are
        # then recognised by start >= M0 and redrawn exactly by the scalar path).
        entry_of = np.concatenate([self.alias, np.arange(ncol, dtype=np.int64)])
        start = np.zeros(ncol, dtype=np.int64)
        start[:n_blocks] = np.arange(n_blocks, dtype=np.int64) << self.log_w
        start[n_blocks] = self.m0
        thr = np.full(ncol, -1, dtype=np.int64)  # -1: reject and padding entries
        thr[:n_blocks] = self.threshold
        thr[n_blocks] = 1 << (_C_BITS + 1)
        self.start2 = start[entry_of]
        self.threshold2 = thr[entry_of]
        self.entry2 = entry_of
        # coin < prob[col]  <=>  coin·ncol + col < prob[col]·ncol  (0 <= col < ncol)
        self.prob_shifted = self.prob << self.log_ncol

    def c_bracket(self, b, prec):
        lo, hi = _exp_bracket((b * self.w) ** 2, 2 * self.a, prec + 2 * self.K.bit_length())
        e = self.block_weight[b]
        return self.K * lo / e, self.K * hi / e

    def _c_floor(self, b, bits):
        """Certified ``floor(c_b·2**bits)`` (refines the bracket until both ends agree)."""
        prec = 80
        while True:
            lo, hi = self.c_bracket(b, prec)
            low, high = math.floor(lo * (1 << bits)), math.floor(hi * (1 << bits))
            if low == high:
                return low
            prec += 64

    def tail_c_bracket(self, prec):
        """Bracket of ``K·e^{-M0²/(2a)} / (E_tail·(1 − e^{-M0/a}))`` (<= 1 by construction)."""
        p = prec + 2 * self.K.bit_length() + 16
        lo1, hi1 = _exp_bracket(self.m0**2, 2 * self.a, p)
        lo2, hi2 = _exp_bracket(self.m0, self.a, p)
        return (
            self.K * lo1 / (self.tail_weight * (1 - lo2)),
            self.K * hi1 / (self.tail_weight * (1 - hi2)),
        )


def _integer_alias(weights, column):
    """Walker/Vose alias table for integer ``weights`` summing to ``len·column`` (exact)."""
    n = len(weights)
    assert sum(weights) == n * column
    q = list(weights)
    prob, alias = [column] * n, list(range(n))
    small = [i for i in range(n) if q[i] < column]
    large = [i for i in range(n) if q[i] >= column]
    while small and large:
        s, l = small.pop(), large.pop()
        prob[s], alias[s] = q[s], l
        q[l] -= column - q[s]
        (small if q[l] < column else large).append(l)
    return prob, alias


@functools.lru_cache(maxsize=16)
def _gaussian_envelope(a):
    return _GaussianEnvelope(a)


def _tail_candidate(env, rng):
    """One exact draw from the tail part of the envelope, accepted or not (scalar path)."""
    while True:  # one-sided geometric G with ratio e^{-M0/a}: Y >= 0 of a discrete Laplace
        g = int(discrete_laplace(env.a, 1, rng, s=env.m0)[0])
        if g >= 0:
            break
    if not _scalar_bernoulli_bracketed(0, 0, env.tail_c_bracket, rng):
        return None
    if not bool(bernoulli_exp([g * g], 2 * env.a, rng)[0]):
        return None
    return env.m0 + g


def _discrete_gaussian_envelope(a, total, rng):
    """``total`` exact discrete Gaussian draws ``P(z) ∝ exp(-z²/(2a))`` (see _GaussianEnvelope).

    Per candidate two raw 64-bit words.  The first (as int64) gives the alias column
    (bits ``0..lc−1``), the alias coin (the next 40 bits), the offset in the block (the
    next ``log w``) and the sign (bit 63: ``x >> 63`` is 0 or −1, and ``(m ^ s) − s``
    negates when −1); the second the 32 bits of the ``c_b`` test (bits 0–31) and the 30
    bits of the first round of the ``γ`` test (bits 34–63).  All fields are disjoint bits
    of uniform words, all decisions integer comparisons; open verdicts continue exactly.
    """
    env = _gaussian_envelope(a)
    lw, lc = env.log_w, env.log_ncol
    ncol = 1 << lc
    den = 2 * a
    low_mask = (1 << (lc + _COIN_BITS)) - 1
    out = np.empty(total, dtype=np.int64)
    filled = 0
    while filled < total:
        # Chunks of at most _CHUNK outputs: the temporaries stay in cache and are
        # recycled by the allocator (whole-array temporaries cost page faults).
        missing = min(total - filled, _CHUNK)
        m = int(missing / 0.96 + 5.0 * math.sqrt(missing)) + 16
        x = _random_words(rng, m).view(np.int64)
        col = x & (ncol - 1)
        j = x & low_mask  # coin·ncol + col
        j -= np.take(env.prob_shifted, col, mode="clip")
        j >>= 63  # -1 iff coin < prob[col]
        j &= ncol
        j += col  # col + ncol·[coin < prob[col]]
        start = np.take(env.start2, j, mode="clip")
        thr = np.take(env.threshold2, j, mode="clip")
        r = x >> (lc + _COIN_BITS)
        r &= (1 << lw) - 1
        mag = start + r
        num = mag + start
        num *= r  # r·(2bw + r) = γ·den with γ <= 0.31
        word = _random_words(rng, m)
        r32 = word.view(np.int64) & ((1 << _C_BITS) - 1)
        word >>= np.uint64(64 - _G_BITS)
        r30 = word.view(np.int64)
        # γ test, round 1 of Algorithm 1 from 30 bits of its uniform ξ: ξ >= γ surely
        # (A1 = 0: accept) when slack = num·2**30 − r30·den <= 0; else finished exactly.
        slack = num << _G_BITS
        slack -= r30 * den
        # c_b test: R32 < T_b passes, R32 > T_b fails, R32 == T_b continues exactly.
        ok = r32 < thr
        open_g = np.flatnonzero(ok & (slack > 0))
        if open_g.size:
            ok[open_g] = _alg1_finish(num[open_g], slack[open_g], den, rng)
        if (r32 == thr).any():  # probability 2**-32 per candidate
            for i in np.flatnonzero(r32 == thr):
                bi = int(env.entry2[j[i]])
                ok[i] = _scalar_bernoulli_bracketed(
                    int(r32[i]), _C_BITS, lambda prec, bi=bi: env.c_bracket(bi, prec), rng
                ) and _scalar_gamma(int(num[i]), den, int(r30[i]), rng)
        if mag.max() >= env.m0:  # tail entry: probability < 2**-40 per candidate
            for i in np.flatnonzero(mag >= env.m0):
                value = _tail_candidate(env, rng)
                ok[i] = value is not None
                mag[i] = 0 if value is None else value
        filled += _signed_accepted_into(mag, x, ok, out, filled, missing)
    return out


def _scalar_gamma(num, den, r30, rng):
    """Finish Algorithm 1 for ``γ = num/den`` given 30 leading bits ``r30`` of round 1's ξ."""
    num, r30 = np.array([num]), np.array([r30])
    return bool(_alg1_finish(num, (num << _G_BITS) - r30 * den, den, rng)[0])
