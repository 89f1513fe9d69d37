"""Post-processing kernels of the private bins (no noise is drawn here).

The releases themselves -- PrivTree's bins, the grid points, the sub-bin counts -- are
mechanisms of :mod:`skprivsynth.privacy.binning`; what they release is turned into bins
and within-bin weights by the functions of this module: the sub-bin counts of a binning
(:func:`sub_bin_counts`), and the non-negative, noise-aware shares of the sub-bins of a
bin from their noisy counts (:func:`top_down_shares`, :func:`split_mass`; least squares
on the dyadic tree, Hay, Rastogi, Miklau & Suciu, PVLDB 2010).
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
from scipy.stats import chi2

__all__ = [
    "FANOUT",
    "check_boundaries",
    "check_fine_counts",
    "check_positive_int",
    "split_mass",
    "sub_bin_counts",
    "top_down_shares",
    "truncate_weights",
]

#: Fanout of the hierarchy: every node splits into two halves (dyadic cells).
FANOUT = 2


def check_fine_counts(fine_counts):
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


def check_positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}.")
    return int(value)


def check_boundaries(boundaries, size):
    b = np.asarray(boundaries)
    if (
        b.ndim != 1
        or b.size < 2
        or not np.issubdtype(b.dtype, np.integer)
        or b[0] != 0
        or b[-1] != size
        or np.any(np.diff(b) <= 0)
    ):
        raise ValueError(
            "boundaries must be strictly increasing integer indices into the fine grid "
            f"from 0 to len(fine_counts) = {size}."
        )
    return b.astype(np.int64)


def _tree_matrix(n_leaves):
    """Node-by-leaf 0/1 matrix of the binary tree over ``n_leaves`` leaves, root first.

    Level ``l`` (``0`` = the root) has ``2**l`` nodes, node ``i`` summing the leaves
    ``i·n_leaves/2**l`` up to the first leaf of node ``i + 1``.
    """
    rows = []
    width = n_leaves
    while width >= 1:
        rows.append(np.kron(np.eye(n_leaves // width), np.ones((1, width))))
        width //= 2
    return np.vstack(rows)


def sub_bin_counts(fine_counts, boundaries, n_sub):
    """Exact sub-bin counts measured by :func:`consistent_sub_bin_weights`.

    Bin ``k`` of width ``w`` cells has ``s = min(n_sub, w)`` equal groups of cells: its
    ``n_sub`` sub-bins, or its cells when it has fewer.  Bins of one cell have nothing
    to measure.

    Returns
    -------
    groups : dict of int -> (ndarray of int, ndarray of int of shape (m, s))
        For each group count ``s > 1``: the indices of its ``m`` bins and their counts.
    """
    counts = check_fine_counts(fine_counts)
    b = check_boundaries(boundaries, counts.size)
    n_sub = check_positive_int(n_sub, "n_sub")
    if n_sub & (n_sub - 1):
        raise ValueError(f"n_sub must be a power of two; got {n_sub}.")
    widths = np.diff(b)
    groups = np.minimum(widths, n_sub)
    if np.any(widths % groups) or np.any(n_sub % groups):
        raise ValueError(
            f"every bin must be a multiple of n_sub = {n_sub} cells wide or have a "
            "power-of-two width below it (the leaves of privtree_bins are)."
        )
    first = np.cumsum(groups) - groups  # position of each bin's first group
    offsets = np.arange(groups.sum()) - np.repeat(first, groups)
    starts = np.repeat(b[:-1], groups) + offsets * np.repeat(widths // groups, groups)
    group_counts = np.add.reduceat(counts, starts)
    measured = {}
    for s in np.unique(groups[groups > 1]):
        bins = np.flatnonzero(groups == s)
        measured[int(s)] = (bins, group_counts[first[bins][:, None] + np.arange(s)])
    return measured


def split_mass(left, right, mass, keep_left, keep_right):
    """Shares ``(a, b)`` of ``mass`` for two halves with noisy estimates ``left``, ``right``.

    The Euclidean projection of the estimates onto ``{a + b = mass, a, b >= 0}``,
    except where one half is kept and the other is not: the dropped half gets nothing
    and the kept one its own estimate (clipped to ``[0, mass]``), so that the dropped
    half's noise goes to no one (the caller normalises).  Element-wise on arrays.
    """
    keep_left, keep_right = np.asarray(keep_left, bool), np.asarray(keep_right, bool)
    a = np.clip((left - right + mass) / 2, 0.0, mass)
    b = mass - a
    only_left, only_right = keep_left & ~keep_right, keep_right & ~keep_left
    a = np.where(only_left, np.clip(left, 0.0, mass), np.where(only_right, 0.0, a))
    b = np.where(only_right, np.clip(right, 0.0, mass), np.where(only_left, 0.0, b))
    return a, b


def top_down_shares(y, sigma, cutoff):
    """Non-negative leaf shares from noisy leaf counts ``y`` of shape (m, s), rows sum to 1.

    The shape: each bin's deviations from its flat shape are shrunk by the positive-part
    James–Stein factor (James & Stein 1961), and only where a chi-square test rejects
    flatness at the 5 % level.  The drops: a dyadic region whose noisy total is below
    ``cutoff`` of its standard deviations gets nothing when its sibling's is not and
    their difference is above ``2·cutoff`` standard deviations of a difference.
    """
    m, s = y.shape
    tree = _tree_matrix(s)
    raw = y @ tree.T  # least squares: every node is the sum of its noisy leaves
    tau = cutoff * sigma * np.sqrt(tree.sum(axis=1))  # cutoff · sd of each node
    total = raw[:, :1]
    deviation = y - total / s
    spread = (deviation**2).sum(axis=1, keepdims=True)  # σ²·χ²(s − 1) for a flat bin
    shrink = np.clip(1 - max(s - 3, 0) * sigma**2 / np.maximum(spread, 1e-300), 0.0, 1.0)
    shrink[spread < chi2.ppf(0.95, s - 1) * sigma**2] = 0.0
    estimates = (total / s + shrink * deviation) @ tree.T
    mass = total
    empty = (total[:, 0] < tau[0]) | (total[:, 0] <= 0)
    first = 1
    while mass.shape[1] < s:
        k = mass.shape[1]
        lo, hi = slice(first, first + 2 * k, 2), slice(first + 1, first + 2 * k, 2)
        # A half is dropped only where the two also differ by 2·cutoff sd.
        close = np.abs(raw[:, lo] - raw[:, hi]) < 2 * tau[lo] * math.sqrt(2)
        a, b = split_mass(
            estimates[:, lo],
            estimates[:, hi],
            mass,
            (raw[:, lo] >= tau[lo]) | close,
            (raw[:, hi] >= tau[hi]) | close,
        )
        mass = np.stack([a, b], axis=2).reshape(m, 2 * k)
        first += 2 * k
    mass[empty | (mass.sum(axis=1) <= 0)] = 1.0
    return mass / mass.sum(axis=1, keepdims=True)


def truncate_weights(weights, fraction):
    """Sub-bin weights of the first ``fraction`` of a bin, from those of the whole bin.

    The bin's density is piecewise constant on its ``n_sub`` sub-bins; the first
    ``fraction`` of it is cut again into ``n_sub`` equal sub-bins (post-processing).
    """
    if fraction >= 1.0:
        return weights
    n_sub = weights.size
    grid = np.arange(n_sub + 1) / n_sub
    cdf = np.concatenate([[0.0], np.cumsum(weights)])
    cut = np.diff(np.interp(grid * fraction, grid, cdf))
    return cut / cut.sum() if cut.sum() > 0 else np.full(n_sub, 1.0 / n_sub)
