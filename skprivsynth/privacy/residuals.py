"""Residual measurements of a marginal table: the correlated Gaussian release of
:class:`~skprivsynth.MarginalSynthesizer` (``measurement="correlated"``).

The residual basis, the allocation of the noise and the privacy proof are in
:mod:`skprivsynth._math.residuals` (Xiao, He, Zhang & Kifer 2023; Bun & Steinke 2016).
"""

from __future__ import annotations

import numpy as np

from .._math.residuals import allocate, center, residual_subsets, zcdp_cost
from ..releases import release_primitive
from . import gaussian_noise

__all__ = ["measure_residuals"]


@release_primitive("residual measurements", public=("rho",), shapes=("table",))
def measure_residuals(table, rho, rng):
    """Release the residuals of a count ``table`` at ρ-zCDP ``rho``.

    The noise of each residual is chosen by :func:`~skprivsynth._math.residuals.allocate`.

    Returns ``(releases, rho_spent)``: ``releases`` lists ``(axes, noisy, sigma)`` with
    ``noisy = P_axes(marginal + N(0, sigma²I))`` over the table's ``axes``, and
    ``rho_spent`` is :func:`~skprivsynth._math.residuals.zcdp_cost` of the noise drawn
    (``rho`` up to rounding).
    A table whose every axis has size 1 is its public total: nothing is released
    (``[]``, 0.0).
    """
    table = np.asarray(table, dtype=np.float64)
    if not residual_subsets(table.shape):
        return [], 0.0
    subsets, sigmas = allocate(table.shape, rho)
    releases = []
    for s, sigma in zip(subsets, sigmas, strict=True):
        marginal = table.sum(axis=tuple(a for a in range(table.ndim) if a not in s))
        noisy = marginal + gaussian_noise(sigma, marginal.shape, rng)
        releases.append((s, center(noisy, range(noisy.ndim)), float(sigma)))
    return releases, zcdp_cost(table.shape, subsets, sigmas)
