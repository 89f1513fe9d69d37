"""Assembly of the shrinkage LP and proximal QP of private sampling over a reduced space.

A density ``h`` on ``m`` points ``S`` with ``W_Sᵀh = b`` (the low-degree Fourier
coefficients of the data, shrunk toward those of the uniform density) and
``δ/m ≤ h ≤ Δ/m`` (Boedihardjo, Strohmer and Vershynin, "Private sampling: a noiseless
approach for generating differentially private synthetic data", Algorithm 2; the LP/QP
form of Pierquin, Zimmermann and Boussard, Section 3).  Both problems are posed in the
scaled variable ``g = m·h`` with the sparse conjunction matrix ``M_S`` instead of
``W_S``: ``W_Sᵀh = b ⇔ M_Sᵀh = Vᵀb`` (``Vᵀ`` invertible,
:func:`~skprivsynth._math.walsh.walsh_to_conjunction`), so the feasible sets and
solutions are those of the Walsh formulation exactly.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .walsh import conjunction_matrix

__all__ = [
    "conjunction_transpose_csc",
    "project_to_box_simplex",
    "proximal_qp",
    "released_density",
    "shrinkage_lp",
]


def conjunction_transpose_csc(points, subsets):
    """``M_Sᵀ`` (``L × m``, CSC) for the Boolean points of the reduced space.

    ``M_S`` is the 0/1 conjunction matrix (:func:`~skprivsynth._math.walsh.conjunction_matrix`):
    the constraints ``W_Sᵀh = b`` and ``M_Sᵀh = Vᵀb`` (``Vᵀ`` =
    :func:`~skprivsynth._math.walsh.walsh_to_conjunction`) have the same solutions, and
    ``M_S`` has about ``Σ_j C(p, j) 2^{-j}`` nonzeros per row instead of ``L``
    (59 instead of 211 at ``p = 20, d = 2``).
    """
    return sp.csr_matrix(conjunction_matrix(points, subsets)).T.tocsc()


def shrinkage_lp(MT, t, t_uniform, low, high):
    """The shrinkage LP in ``(λ, g)``: minimise ``λ`` subject to
    ``M_Sᵀg + λ·m(t − t_u) = m t`` (⇔ ``W_Sᵀh = (1−λ)c + λ W_Sᵀu``), ``0 ≤ λ ≤ 1``,
    ``2δ ≤ g ≤ Δ − δ``.

    ``MT`` is :func:`conjunction_transpose_csc` of the points, ``t`` and ``t_uniform``
    the conjunction coefficients of the data and of the uniform density on the points.

    Returns
    -------
    cost, A, row_lower, row_upper, col_lower, col_upper
        The arguments of :func:`~skprivsynth._math.solvers.solve_lp`.
    """
    m = MT.shape[1]
    A = sp.hstack([sp.csc_matrix((m * (t - t_uniform))[:, None]), MT], format="csc")
    cost = np.zeros(m + 1)
    cost[0] = 1.0
    col_lower = np.concatenate([[0.0], np.full(m, 2.0 * low)])
    col_upper = np.concatenate([[1.0], np.full(m, high - low)])
    return cost, A, m * t, m * t, col_lower, col_upper


def proximal_qp(MT, target_conj, low, high):
    """The proximal QP ``min ½‖g − 1‖²`` s.t. ``M_Sᵀg = m·target_conj``, ``δ ≤ g ≤ Δ``.

    Returns
    -------
    P, q, A, lower, upper
        The arguments of :func:`~skprivsynth._math.solvers.solve_qp`.
    """
    m = MT.shape[1]
    A = sp.vstack([MT, sp.identity(m, format="csc")], format="csc")
    lower = np.concatenate([m * target_conj, np.full(m, low)])
    upper = np.concatenate([m * target_conj, np.full(m, high)])
    return sp.identity(m, format="csc"), -np.ones(m), A, lower, upper


def released_density(g, W, target, low, high):
    """The density released from the QP's ``g``, exactly in ``[δ/m, Δ/m]`` with ``Σh = 1``.

    The raw output may miss the box by solver tolerance; clipping and the proportional
    fix of :func:`project_to_box_simplex` move ``h`` by at most that much.  Returns
    ``(density, residual, box_violation)``: the residual ``max |W_Sᵀh − target|`` before
    and after the sum fix, and the box violation of ``g`` (in units of ``1/m``), for the
    caller to check.
    """
    m = g.size
    box_violation = float(max(low - g.min(), g.max() - high, 0.0))
    clipped = np.clip(g, low, high) / m
    density = project_to_box_simplex(clipped, low / m, high / m)
    residual = float(
        max(
            np.abs(W.T @ clipped - target).max(),  # before the sum fix
            np.abs(W.T @ density - target).max(),
        )
    )
    return density, residual, box_violation


def project_to_box_simplex(density, lower, upper):
    """Make ``density`` sum to 1 inside ``[lower, upper]`` by a tiny proportional fix.

    ``density`` is already in the box; the caller rejects the result unless it matches
    the coefficient constraints (whose first row is ``Σh = 1``) to 1e-7 both before and
    after this fix, so the deficit is at most 1e-7.  The deficit is spread over the
    coordinates in proportion to their slack to the bound it moves toward, so no
    coordinate crosses its bound; a final clip removes rounding.  The change is at most
    ``|1 − Σ density|`` per coordinate.
    """
    deficit = 1.0 - density.sum()
    slack = (upper - density) if deficit > 0 else (density - lower)
    total = slack.sum()
    if deficit != 0.0 and total > 0:
        density = density + deficit * slack / total
    return np.clip(density, lower, upper)
