"""Workload-shaped Gaussian noise for one marginal table, in the residual basis.

A count table ``x`` over attributes with sizes ``k_1..k_r`` splits into orthogonal
*residuals*: with ``P_i = I − J/k_i`` (centering along axis ``i``),

    x = Σ_{s ⊆ {1..r}} (⊗_{i∈s} P_i ⊗_{i∉s} J/k_i) x,

the ANOVA decomposition that the residual planner of Xiao, He, Zhang & Kifer (2023)
measures.  The residual of ``s`` depends only on the marginal ``x_s`` and is
``P_s x_s`` with ``P_s = ⊗_{i∈s} P_i``.  The empty residual is the total, public under
replace-one neighbours, so it is never measured.

Releasing ``P_s(x_s + z_s)``, ``z_s ~ N(0, σ_s² I)`` (the release is
:func:`skprivsynth.privacy.residuals.measure_residuals`), is a Gaussian mechanism whose
noise covariance ``σ_s² P_s`` lives on the subspace where ``P_s x_s`` moves; measuring
every residual with its own ``σ_s`` is a correlated Gaussian mechanism on ``x`` (noise
covariance ``Σ_s σ_s² lift(P_s)``) in the sense of Nikolov, Talwar & Zhang (2013): its
shape is chosen for a workload.  ``σ_s² = σ² Π_{i∉s} k_i`` gives back the plain
measurement ``x + N(0, σ²I)`` (minus its public total).

Privacy (replace-one, zCDP).  If records ``u`` and ``v`` differ exactly on the
attributes of a non-empty pattern ``D``, then, since ``P_i[a, b] = [a = b] − 1/k_i``,

    ||P_s(e_u − e_v)||² = 2 Π_{i∈s} (1 − 1/k_i) − 2 Π_{i∈s} ([i ∉ D] − 1/k_i),

which depends on ``D`` only; the joint release is ρ-zCDP with
``ρ = ½ max_D Σ_s ||P_s(e_u − e_v)||² / σ_s²`` (Bun & Steinke 2016, Prop. 1.6 and
Lemma 2.3; the noise of different residuals is independent).

Accuracy.  The marginal on ``t ⊆ {1..r}`` estimated from the residuals ``s ⊆ t`` has
total variance ``Σ_{∅≠s⊆t} σ_s² Π_{i∈s}(k_i − 1) / Π_{i∈t∖s} k_i``.  :func:`allocate`
chooses the ``σ_s`` minimising this summed over every non-empty ``t`` (the table and
all its sub-marginals, the workload that a graphical model reads from a measured
clique) subject to the ρ above: a convex program in ``v_s = 1/σ_s²`` with at most
``2^r − 1`` variables.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
from scipy.optimize import minimize

__all__ = [
    "allocate",
    "center",
    "pattern_sensitivities",
    "residual_subsets",
    "zcdp_cost",
]


def residual_subsets(sizes):
    """Non-empty subsets (tuples of axis positions) with a non-trivial residual.

    An axis of size 1 has ``P_i = 0``: residuals containing it vanish.
    """
    axes = [i for i, k in enumerate(sizes) if k >= 2]
    return [s for r in range(1, len(axes) + 1) for s in itertools.combinations(axes, r)]


def pattern_sensitivities(sizes, subsets):
    """Matrix ``G[D, s] = ||P_s(e_u − e_v)||²`` over the patterns ``D`` of differing axes."""
    axes = sorted(set().union(*subsets)) if subsets else []
    patterns = [p for r in range(1, len(axes) + 1) for p in itertools.combinations(axes, r)]
    G = np.empty((len(patterns), len(subsets)))
    for a, pattern in enumerate(patterns):
        for b, s in enumerate(subsets):
            same = math.prod(1 - 1 / sizes[i] for i in s)
            cross = math.prod((i not in pattern) - 1 / sizes[i] for i in s)
            G[a, b] = 2 * (same - cross)
    return G


def _workload_variances(sizes, subsets):
    """``b_s``: summed variance of the table and its sub-marginals per unit ``σ_s²``."""
    r = len(sizes)
    targets = [t for m in range(1, r + 1) for t in itertools.combinations(range(r), m)]
    b = np.zeros(len(subsets))
    for j, s in enumerate(subsets):
        inner = math.prod(sizes[i] - 1 for i in s)
        b[j] = sum(
            inner / math.prod(sizes[i] for i in t if i not in s)
            for t in targets
            if set(s) <= set(t)
        )
    return b


def zcdp_cost(sizes, subsets, sigmas):
    """Exact ρ of measuring the residuals ``subsets`` with noise ``sigmas`` (replace-one)."""
    G = pattern_sensitivities(sizes, subsets)
    return 0.5 * float(np.max(G @ (1.0 / np.square(sigmas))))


@functools.lru_cache(maxsize=4096)
def _unit_precisions(sizes):
    """Precisions ``v_s = 1/σ_s²`` of the best allocation at ρ = 1 (public: sizes only)."""
    subsets = residual_subsets(sizes)
    G = pattern_sensitivities(sizes, subsets)
    b = _workload_variances(sizes, subsets)
    # The plain measurement x + N(0, σ²I) in residual form: the residual of s is read
    # from a marginal that sums Π_{i∉s} k_i noisy cells, so v_s = 1/(σ² Π_{i∉s} k_i);
    # it has Σ_s G[D, s] v_s = 2/σ² for every D, i.e. ρ = 1 at σ = 1.
    plain = np.array([1 / math.prod(k for i, k in enumerate(sizes) if i not in s) for s in subsets])
    # Work in w = log v (positivity for free); the optimum is linear in ρ.
    result = minimize(
        lambda w: float(b @ np.exp(-w)),
        np.log(plain),
        jac=lambda w: -b * np.exp(-w),
        constraints=[
            {
                "type": "ineq",
                "fun": lambda w: 2.0 - G @ np.exp(w),
                "jac": lambda w: -G * np.exp(w),
            }
        ],
        method="SLSQP",
        bounds=[(w - 30.0, w + 30.0) for w in np.log(plain)],
        options={"maxiter": 500, "ftol": 1e-12},
    )
    v = np.exp(result.x)
    if not np.all(np.isfinite(v)) or float(b @ (1 / v)) > float(b @ (1 / plain)):
        v = plain  # never worse than the plain measurement
    # Exactly ρ = 1: rescale so that ½ max_D G v = 1 (absorbs the solver's tolerance).
    return subsets, v * (2.0 / float(np.max(G @ v)))


def allocate(sizes, rho):
    """The residuals of a table with ``sizes`` and their noise at total ρ-zCDP ``rho``.

    Returns ``(subsets, sigmas)``; measuring residual ``subsets[j]`` with noise
    ``sigmas[j]`` costs exactly ``rho`` in all (:func:`zcdp_cost`), and minimises the
    summed variance of the table and all its sub-marginals among such noises.
    Depends on public sizes and ``rho`` only.
    """
    subsets, v = _unit_precisions(tuple(int(k) for k in sizes))
    return subsets, 1.0 / np.sqrt(v * rho)


def center(table, axes):
    """``P_s`` applied to ``table``: subtract the mean along every axis in ``axes``."""
    out = np.asarray(table, dtype=np.float64)
    for a in axes:
        out = out - out.mean(axis=a, keepdims=True)
    return out
