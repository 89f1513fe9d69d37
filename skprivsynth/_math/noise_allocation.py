"""Correlated Gaussian noise shaped by a base decomposition: block multipliers and spans.

Nikolov, Talwar and Zhang, "The geometry of differential privacy: the sparse and
approximate cases" (STOC 2013), Algorithm 2 and Corollaries 8–9.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["in_span", "noise_multipliers", "public_complement"]


def noise_multipliers(decomposition, allocation, factor):
    """Per-block multipliers ``s_i``: noise ``Σ_i s_i U_i w_i``, ``w_i ~ N(0, c² I)``.

    ``Δ = factor`` scales the sensitivity polytope (2 for replace-one neighbours, 1 for
    add/remove).  Returns ``(s, γ)``.
    ``paper``: ``s_i = Δ·sqrt(k)·r_i`` (Algorithm 2 / Corollary 9).
    ``optimal``: ``s_i = Δ·r_i·sqrt(γ/λ_i)`` with ``λ_i ∝ sqrt(d_i)·r_i`` (``Σ λ_i = 1``)
    and ``γ = max_j Σ_i λ_i ||U_iᵀ b_j||² / r_i² ≤ 1`` (exact on the general path, the
    bound 1 on the fast path).  Privacy: the covariance is ``c²·G``,
    ``G = Σ_i s_i² U_i U_iᵀ``, and every centred column satisfies
    ``(Δ b_j)ᵀ G⁺ (Δ b_j) = Σ_i λ_i ||U_iᵀ b_j||² / (γ r_i²) ≤ 1``, so the ellipsoid
    ``G^{1/2} B`` contains ``Δ·sym conv{b_j}`` ⊇ every ``a_u - a_v``: Corollary 8 of the
    paper.  The total variance ``Σ_i d_i s_i²`` is ``Δ²·γ·(Σ_i sqrt(d_i) r_i)²``, at most
    the paper's ``Δ²·k·Σ_i d_i r_i²`` by Cauchy–Schwarz.
    """
    r = decomposition.radii
    d = decomposition.ranks.astype(np.float64)
    k = r.size
    if k == 0:
        return np.zeros(0), 1.0
    if allocation == "paper":
        return factor * math.sqrt(k) * r, 1.0
    lam = np.sqrt(d) * r
    lam = lam / lam.sum()
    gamma = 1.0
    if decomposition.block_norms_sq is not None:
        gamma = float(np.max(decomposition.block_norms_sq @ (lam / r**2)))
        gamma = min(max(gamma, 0.0), 1.0)
    return factor * r * np.sqrt(gamma / lam), gamma


def in_span(values, bases):
    """``Σ_i U_i U_iᵀ values``: the part of ``values`` that receives noise."""
    out = np.zeros_like(values)
    for U in bases:
        out += U @ (U.T @ values)
    return out


def public_complement(public_answers, bases):
    """``P⊥(n·ā)``: the released answers outside the span of the ``U_i``.

    ``A x = n·ā + Σ_j x_j (a_j - ā)`` for every histogram of the public size ``n``; the
    centred columns lie in the span of the ``U_i`` up to the rank decision (relative
    singular value ``1e-5``), so ``P⊥(A x) = P⊥(n·ā)`` up to the dropped directions, and
    releasing ``P⊥(n·ā)`` instead makes the complement data-independent in every case
    (a thin direction dropped by the rank decision is replaced by its public centre
    rather than leaked exactly).
    """
    return public_answers - in_span(public_answers, bases)
