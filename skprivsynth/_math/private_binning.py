"""Bins of a numeric column chosen with differential privacy from its public range.

The caller counts a fine histogram of the column over its public range, ``2**depth``
equal cells (a mergeable ``np.bincount``, memory independent of ``n``).  Then

* :func:`privtree_bins` chooses bins as the leaves of a PrivTree decomposition of the
  dyadic hierarchy over the cells (Zhang, Xiao & Xie, "PrivTree: a differentially
  private algorithm for hierarchical decompositions", SIGMOD 2016, Algorithm 2):
  dense regions get fine bins, empty ones coarse bins;
* :func:`consistent_sub_bin_weights` estimates, inside every bin, the frequencies of
  equal sub-bins from Gaussian noisy counts of a binary tree, made consistent by least
  squares (Hay, Rastogi, Miklau & Suciu, "Boosting the accuracy of differentially
  private histograms through consistency", PVLDB 2010) and non-negative top-down, so
  that noise in empty regions does not become mass.

Neighbours are replace-one (same public ``n``, one row changed); the derivations are in
the docstrings and in the user guide (``doc/user_guide/private_binning.rst``).
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from ..privacy import check_epsilon, laplace_noise

__all__ = ["privtree_bins", "privtree_scale"]

#: Fanout of the hierarchy: every node splits into two halves (dyadic cells).
FANOUT = 2


def privtree_scale(epsilon):
    """Laplace scale ``λ`` and bias step ``δ`` of PrivTree, ε-DP for replace-one neighbours.

    PrivTree with fanout ``β``, scale ``λ`` and bias ``δ = λ·ln β`` is
    ``(2β − 1)/((β − 1)·λ)``-DP for add/remove neighbours (Zhang, Xiao & Xie 2016,
    the privacy theorem of Algorithm 2): adding a row raises the counts of the nodes
    on one root-to-leaf path by 1, and along a path the biased counts fall by at least
    ``δ`` per level, so the costs of the split tests form a geometric series.

    Replace-one (derivation).  Replacing row ``t`` by ``t'`` leaves the counts of the
    common ancestors unchanged, lowers by 1 the counts of the nodes below them on the
    path of ``t`` and raises by 1 those on the path of ``t'``; the two sets are
    disjoint and every output tree's probability is a product of independent per-node
    split decisions.  For ``ln P_D'(T)/P_D(T)``: the raised path is a suffix of an
    add/remove path, cost ``<= (2β − 1)/((β − 1)·λ)``; on the lowered path every split
    becomes less likely (terms ``<= 0``) and only its one leaf (a "no split" decision)
    can become more likely, by at most ``1/λ`` (the Laplace log-CDF is
    ``1/λ``-Lipschitz and a biased count moves by at most 1).  By symmetry the other
    direction is the same, so the release is
    ``ε = ((2β − 1)/(β − 1) + 1)/λ = (3β − 2)/((β − 1)·λ)``-DP: for ``β = 2``,
    ``λ = 4/ε`` (add/remove would have ``3/ε``: replace-one costs 4/3, not 2, times).

    Returns
    -------
    scale : float
        ``λ = (3β − 2)/((β − 1)·ε)``.
    bias : float
        ``δ = λ·ln β``.
    """
    epsilon = check_epsilon(epsilon)
    scale = (3 * FANOUT - 2) / ((FANOUT - 1) * epsilon)
    return scale, scale * math.log(FANOUT)


def _check_fine_counts(fine_counts):
    counts = np.asarray(fine_counts)
    if counts.ndim != 1 or counts.size == 0 or counts.size & (counts.size - 1):
        raise ValueError(
            "fine_counts must be a 1-D array whose length is a power of two; "
            f"got shape {counts.shape}."
        )
    if not np.issubdtype(counts.dtype, np.integer):
        raise TypeError(f"fine_counts must be an integer array; got dtype {counts.dtype}.")
    if np.any(counts < 0):
        raise ValueError("fine_counts must be non-negative counts.")
    return counts.astype(np.int64)


def _check_positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}.")
    return int(value)


def privtree_bins(
    fine_counts, epsilon, rng, *, report, theta=0.0, min_width=1, step="PrivTree bins"
):
    """Bin boundaries (indices into the fine grid) chosen by PrivTree, ε-DP.

    Algorithm 2 of Zhang, Xiao & Xie (SIGMOD 2016) on the dyadic hierarchy over the
    ``2**depth`` cells: a node at depth ``d`` with count ``c`` has the biased count
    ``b = max(c − d·δ, θ − δ)`` and splits into its two halves iff
    ``b + Lap(λ) > θ``; a node whose halves would be narrower than ``min_width`` cells
    is a leaf without a test (the depth is capped by the public grid).  ``λ = 4/ε`` and
    ``δ = λ·ln 2`` make the release ε-DP for replace-one neighbours
    (:func:`privtree_scale` has the derivation); ``θ = 0`` as the paper recommends.
    Every choice is public: the grid, ``min_width``, ``θ`` and ``ε``.

    Parameters
    ----------
    fine_counts : array-like of int, shape (2**depth,)
        Exact count of each fine cell over the public range.
    epsilon : float
        Budget of the release (pure ε-DP).
    rng : numpy.random.Generator
    report : PrivacyReport
        Receives one entry.  In a zCDP report (``report.zcdp_delta`` set) the entry is
        ``ρ = ε²/2`` (ε-DP implies ε²/2-zCDP, Bun & Steinke 2016, Prop. 1.4), composed
        with the report's other ρ; otherwise pure ``ε``.
    theta : float, default=0.0
        Split threshold ``θ`` (public).
    min_width : int, default=1
        Narrowest bin in cells (e.g. the cells of one integer of an integer column).
    step : str, default="PrivTree bins"
        Name of the report entry.

    Returns
    -------
    boundaries : ndarray of int64
        Strictly increasing leaf edges, ``0`` and ``len(fine_counts)`` included; bin
        ``k`` is the cells ``boundaries[k]:boundaries[k + 1]``.
    """
    counts = _check_fine_counts(fine_counts)
    epsilon = check_epsilon(epsilon)
    min_width = _check_positive_int(min_width, "min_width")
    theta = float(theta)
    if not math.isfinite(theta):
        raise ValueError(f"theta must be a finite number; got {theta!r}.")
    scale, bias = privtree_scale(epsilon)
    size = counts.size
    level = counts  # counts of the nodes of the current depth, refined bottom-up below
    levels = [level]
    while level.size > 1:
        level = level[0::2] + level[1::2]
        levels.append(level)
    levels.reverse()  # levels[d]: the 2**d node counts at depth d
    edges = []
    active = np.zeros(1, dtype=np.int64)  # nodes of the current depth still to decide
    for depth, node_counts in enumerate(levels):
        width = size >> depth
        if width // FANOUT < min_width:  # halves too narrow: leaves, no test
            edges.append(active * width)
            break
        biased = np.maximum(node_counts[active] - depth * bias, theta - bias)
        split = biased + laplace_noise(scale, active.size, rng) > theta
        edges.append(active[~split] * width)
        active = (FANOUT * active[split])[:, None] + np.arange(FANOUT)
        active = active.ravel()
        if active.size == 0:
            break
    boundaries = np.sort(np.concatenate([*edges, [size]]))
    derivation = (
        f"PrivTree (Zhang, Xiao & Xie 2016, Alg. 2), fanout 2, θ = {theta:g}, "
        f"Laplace scale λ = 4/ε = {scale:.6g}, bias δ = λ ln 2 = {bias:.6g}; replace-one "
        "moves a row between two root-to-leaf paths: the raised path costs "
        "(2β−1)/((β−1)λ) = 3/λ (the paper's add/remove bound), the lowered path only "
        "at its leaf, 1/λ; total ε = 4/λ"
    )
    if report.zcdp_delta is None:
        report.add(step, "PrivTree (Laplace split tests)", 1, epsilon, scale, derivation)
    else:
        report.add(
            step,
            "PrivTree (Laplace split tests)",
            1,
            None,
            scale,
            derivation + f" = {epsilon:.6g}; ε-DP is ε²/2-zCDP (Bun & Steinke 2016, Prop. 1.4)",
            rho=epsilon**2 / 2,
        )
    return boundaries.astype(np.int64)
