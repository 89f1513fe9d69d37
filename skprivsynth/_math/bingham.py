"""Bingham sampling (PVEC) and private PCA (PROJ).

Boedihardjo, Strohmer & Vershynin (BSV 2022), *Covariance's loss is privacy's gain*, Sect. 5.1.

``PVEC(B)`` is the exponential mechanism of Kapralov and Talwar for the top
eigenvector: a unit vector ``v`` with density proportional to ``exp(vᵀ B v)`` with
respect to the uniform measure on the sphere — the *Bingham distribution* with
parameter matrix ``B``.  ``PROJ(A, t)`` draws ``t`` orthonormal vectors by repeated
PVEC on orthogonal complements (Boedihardjo, Strohmer, Vershynin, "Covariance's loss
is privacy's gain", Algorithm 2 / Lemma 5.3).

Sampler
-------
Exact rejection sampling with an *angular central Gaussian* (ACG) envelope (Kent,
Ganeiber, Mardia, "A new unified approach for the simulation of a wide class of
directional distributions", JCGS 27(2), 2018, Sect. 4):

1. Work in the eigenbasis of ``B`` and shift by its top eigenvalue: with
   ``λ_i = μ_max − μ_i ≥ 0`` the target density in eigen-coordinates ``z`` is
   ``f*(z) = exp(−Σ λ_i z_i²)`` (the shift only changes the normalising constant,
   and every exponent is ``≤ 0``, so nothing overflows however large ``‖B‖`` is).
2. Envelope ``g*(z) = (zᵀ Ω z)^(−q/2)`` with ``Ω = I + 2Λ/b``: the ACG law of
   ``y / ‖y‖`` for ``y ~ N(0, Ω⁻¹)``.  With ``u = Σ λ_i z_i²`` one has
   ``zᵀΩz = 1 + 2u/b`` and ``log(f*/g*) = −u + (q/2)·log(1 + 2u/b)``, maximal at
   ``u = (q − b)/2``, so ``log M* = −(q − b)/2 + (q/2)·log(q/b)``.
3. ``b ∈ [1, q]`` minimises the bound on the expected number of proposals; it solves
   ``Σ_i 1/(b + 2λ_i) = 1`` (bracketed root find: the left side is decreasing,
   ``≥ 1`` at ``b = 1`` because ``λ_min = 0``, and ``≤ 1`` at ``b = q``).
4. Accept a proposal when ``log U < log f* − log g* − log M*`` (log space, using
   ``log1p``; ``log U`` drawn as ``−Exp(1)``), which is finite for any concentration.

The acceptance rate stays bounded away from 0 as the concentration grows (Kent et
al., Sect. 4): as ``λ → ∞`` the root ``b → 1`` and the envelope's Gaussian
approximation matches the target's.  Measured (``tests/test_bingham.py``): 1 for the
uniform law, about ``0.85/√q`` in the concentrated limit (0.12 at q = 50, 0.06 at
q = 200, 0.04 at q = 500), independent of ``‖B‖`` from 10³ to 10⁶.
Proposals are drawn in vectorised batches whose size adapts to the observed
acceptance rate.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
from scipy.optimize import brentq

__all__ = ["acg_envelope_parameter", "private_pca", "sample_bingham"]

# Largest number of proposals drawn in one vectorised batch (batch x q floats).
_MAX_BATCH_ELEMENTS = 4_000_000
# Hard stop for the rejection loop: an acceptance rate below ~1e-7 would mean a
# broken envelope, not bad luck (the rate is bounded away from 0 by construction).
_MAX_PROPOSALS = 50_000_000


def _check_symmetric(B, name):
    B = np.asarray(B, dtype=np.float64)
    if B.ndim != 2 or B.shape[0] != B.shape[1] or B.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix; got shape {B.shape}.")
    if not np.all(np.isfinite(B)):
        raise ValueError(f"{name} must have finite entries only.")
    scale = max(1.0, float(np.abs(B).max()))
    if np.abs(B - B.T).max() > 1e-10 * scale:
        raise ValueError(f"{name} must be symmetric.")
    return (B + B.T) / 2.0


def acg_envelope_parameter(lam):
    """Envelope parameter ``b`` of the ACG proposal: the root of ``Σ 1/(b + 2λ_i) = 1``.

    Parameters
    ----------
    lam : ndarray of shape (q,)
        Shifted eigenvalues ``λ_i ≥ 0`` with ``min λ_i = 0``.

    Returns
    -------
    float
        ``b ∈ [1, q]``; ``b = q`` when all ``λ_i = 0`` (uniform target, every proposal
        accepted).
    """
    lam = np.asarray(lam, dtype=np.float64)
    q = lam.size

    def excess(b):
        return float(np.sum(1.0 / (b + 2.0 * lam))) - 1.0

    if q == 1 or excess(float(q)) >= 0.0:
        return float(q)
    if excess(1.0) <= 0.0:
        return 1.0
    return float(brentq(excess, 1.0, float(q), xtol=1e-12, rtol=1e-12))


def _rejection_sample(lam, size, rng):
    """``size`` exact draws of ``f*(z) ∝ exp(−Σ λ_i z_i²)`` on the sphere (eigen-coords).

    Returns the draws (size x q) and the observed acceptance rate (accepted over
    proposed, counting the surplus acceptances of the last batch).
    """
    q = lam.size
    b = acg_envelope_parameter(lam)
    # Envelope covariance Ω⁻¹ = diag(1 / (1 + 2λ/b)); proposal z = y / ‖y‖.
    proposal_sd = 1.0 / np.sqrt(1.0 + 2.0 * lam / b)
    log_m = -(q - b) / 2.0 + (q / 2.0) * math.log(q / b)
    out = np.empty((size, q))
    n_done = 0
    n_proposed = 0
    n_accepted = 0
    batch = max(16, 2 * size)
    max_batch = max(16, _MAX_BATCH_ELEMENTS // q)
    while n_done < size:
        if n_proposed > _MAX_PROPOSALS:
            # B may be private: no count of the loop (it depends on B) in the message.
            raise RuntimeError(
                "Bingham rejection sampler: the acceptance rate fell below 1e-7; the "
                "envelope is numerically broken for this matrix."
            )
        batch = min(batch, max_batch)
        y = rng.standard_normal((batch, q)) * proposal_sd
        z = y / np.linalg.norm(y, axis=1, keepdims=True)
        u = (z * z) @ lam
        log_ratio = -u + (q / 2.0) * np.log1p(2.0 * u / b) - log_m
        # log U with U ~ Uniform(0, 1) is −Exp(1): drawn directly, never log(0).
        accepted = z[-rng.standard_exponential(batch) < log_ratio]
        n_proposed += batch
        n_accepted += accepted.shape[0]
        take = min(accepted.shape[0], size - n_done)
        out[n_done : n_done + take] = accepted[:take]
        n_done += take
        # Next batch: enough proposals for the remaining draws at the observed rate.
        rate = max(n_accepted, 1) / n_proposed
        batch = int(min(max_batch, max(16, 1.5 * (size - n_done) / rate)))
    return out, n_accepted / n_proposed


def sample_bingham(B, rng, size=None, return_acceptance=False):
    """Draw unit vectors with density ``∝ exp(vᵀ B v)`` on the sphere (PVEC).

    Exact rejection sampler of Kent, Ganeiber and Mardia (2018) with an angular
    central Gaussian envelope, run in the eigenbasis of ``B`` after shifting by its
    top eigenvalue (see the module docstring).  Stable for ``‖B‖`` up to 1e6 and
    beyond and for dimensions of several hundred: cost one ``eigh`` (O(q³)) plus
    O(q) per proposal.

    Parameters
    ----------
    B : array-like of shape (q, q)
        Symmetric parameter matrix (for PVEC, a positive semidefinite ``A``).
    rng : numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent draws; None returns a single vector.
    return_acceptance : bool, default=False
        Also return the fraction of proposals accepted.

    Returns
    -------
    v : ndarray of shape (q,) or (size, q)
        Unit vectors (the law is antipodally symmetric: ``v`` and ``−v`` are equally
        likely).
    acceptance : float
        Only when ``return_acceptance=True``.

    References
    ----------
    Kent, Ganeiber, Mardia (2018), JCGS 27(2):291–301.  Kapralov, Talwar (2013),
    SODA, "On differentially private low rank approximation".  Boedihardjo,
    Strohmer, Vershynin, *Covariance's loss is privacy's gain*, Algorithm 2 and Lemma 5.1.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth._math.bingham import sample_bingham
    >>> v = sample_bingham(np.diag([1e6, 0.0, 0.0]), np.random.default_rng(0))
    >>> bool(abs(v[0]) > 0.99)
    True
    """
    B = _check_symmetric(B, "B")
    if size is None:
        n_draws = 1
    elif isinstance(size, Integral) and not isinstance(size, bool) and size >= 1:
        n_draws = int(size)
    else:
        raise ValueError(f"size must be None or a positive integer; got {size!r}.")
    mu, U = np.linalg.eigh(B)
    lam = np.maximum(mu[-1] - mu, 0.0)
    lam[-1] = 0.0
    z, acceptance = _rejection_sample(lam, n_draws, rng)
    v = z @ U.T
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    if size is None:
        v = v[0]
    if return_acceptance:
        return v, acceptance
    return v


def _orthogonal_complement(V):
    """Orthonormal basis (p x (p − j)) of the complement of the columns of ``V`` (p x j)."""
    Q, _ = np.linalg.qr(V, mode="complete")
    return Q[:, V.shape[1] :]


def private_pca(A, t, rng):
    """PROJ(A, t): ``t`` orthonormal vectors by successive Bingham draws (BSV 2022, Alg. 2).

    ``v_1 = PVEC(A)``; for ``j = 1..t−1``, with ``Q_j`` an orthonormal basis of the
    orthogonal complement of ``span(v_1..v_j)``, ``v_{j+1} = Q_j·PVEC(Q_jᵀ A Q_j)``.

    Privacy (Lemma 5.1(3), Lemma 5.3): if ``‖A − A'‖ ≤ β`` (spectral norm), each PVEC
    draw changes its density by a factor at most ``e^{2β}`` (``e^β`` from the exponent
    ``vᵀAv`` and ``e^β`` from the normalising constant), so by sequential composition
    the output is ``2tβ``-differentially private.  With the calibration of
    :class:`~skprivsynth.synthesizers.noisy_microaggregation.NoisyMicroaggregation`,
    ``β = ε/(6t)`` and PROJ spends ``ε/3``.

    Parameters
    ----------
    A : array-like of shape (p, p)
        Symmetric (positive semidefinite) matrix.
    t : int
        Number of vectors, ``1 <= t <= p``.
    rng : numpy.random.Generator

    Returns
    -------
    V : ndarray of shape (p, t)
        Orthonormal columns; ``V @ V.T`` is the projection ``P``.  Cost O(t·p³).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth._math.bingham import private_pca
    >>> V = private_pca(np.diag([1e5, 5e4, 0.0, 0.0]), 2, np.random.default_rng(0))
    >>> np.round(np.abs(V[:2]).sum(axis=0), 2).tolist()
    [1.0, 1.0]
    """
    A = _check_symmetric(A, "A")
    p = A.shape[0]
    if isinstance(t, bool) or not isinstance(t, Integral) or not 1 <= t <= p:
        raise ValueError(f"t must be an integer with 1 <= t <= {p} (the dimension); got {t!r}.")
    V = np.empty((p, int(t)))
    V[:, 0] = sample_bingham(A, rng)
    for j in range(1, int(t)):
        Q = _orthogonal_complement(V[:, :j])
        B = Q.T @ A @ Q
        # Symmetrised exactly (a map of the private matrix, never a raise on it).
        V[:, j] = Q @ sample_bingham((B + B.T) / 2.0, rng)
    return V
