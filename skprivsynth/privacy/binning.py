"""The private bins of a declared numeric range: three releases, one budget.

The caller counts a fine histogram of the column over its public range, ``2**depth``
equal cells (a mergeable ``np.bincount``, memory independent of ``n``).  Then

* :func:`privtree_bins` chooses bins as the leaves of a PrivTree decomposition of the
  dyadic hierarchy over the cells (Zhang, Xiao & Xie, "PrivTree: a differentially
  private algorithm for hierarchical decompositions", SIGMOD 2016, Algorithm 2):
  dense regions get fine bins, empty ones coarse bins;
* :func:`grid_points` releases the points of a public value grid (the integers of a
  long integer range, the multiples of a float range's declared decimals) that hold
  many rows, so that they decode exactly rather than spread over a cell or a sub-bin;
* :func:`consistent_sub_bin_weights` releases the counts of equal sub-bins of every
  bin with Gaussian noise and turns them into within-bin weights (post-processing by
  :mod:`skprivsynth._math.private_binning`), so that noise in empty regions does not
  become mass.

:func:`range_plan` leaves out a release that the public ``n`` cannot lift out of its
noise, giving its ρ to the others (or, where PrivTree's own tests cannot be lifted, the
public bins of :func:`public_tree_bins`, at no cost).

Neighbours are replace-one (same public ``n``, one row changed); the derivations are in
the docstrings and in the user guide (``doc/user_guide/private_binning.rst``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm, truncnorm

from .._math.private_binning import (
    FANOUT,
    check_boundaries,
    check_fine_counts,
    check_positive_int,
    sub_bin_counts,
    top_down_shares,
    truncate_weights,
)
from ..releases import release_primitive
from . import (
    PrivacyCost,
    PrivacyReport,
    check_epsilon,
    check_noise,
    discrete_gaussian_calibration,
    gaussian_mechanism,
    gaussian_sigma_for_rho,
    laplace_threshold_test,
    zcdp_rho,
)

__all__ = [
    "BINNING_DELTA",
    "RangePlan",
    "ReleasedBins",
    "binning_cost",
    "release_bins",
    "consistent_sub_bin_weights",
    "grid_points",
    "privtree_bins",
    "plan_bins",
    "privtree_scale",
    "public_tree_bins",
    "range_plan",
]

#: Equal-width sub-bins per declared bin whose frequencies ``level_weights="private"``
#: releases, so that a bin decodes to values distributed like the data inside it.
SUB_BINS = 8

#: Share of a range's binning budget (ρ) spent on its PrivTree bins; the rest goes to
#: its sub-bin weights (and grid points).  The shares below were chosen by measurement
#: (the user guide, "Private bins", says how they were chosen).
TREE_SHARE = 0.25

#: Share of the rest (after PrivTree) spent on the values that recur (:func:`grid_points`)
#: where the fine cells hold ``POINTS_A_CELL`` points of a public grid of values or more:
#: there nothing else can place a value inside its cell.
POINT_SHARE = 1 / 2
POINTS_A_CELL = 8

#: The share where cells hold 1 to 7 points: enough for a value on a large share of the
#: rows (a sentinel, a cap, a censoring date), little taken from the sub-bins.
FEW_POINT_SHARE = 1 / 8

#: δ at which the zCDP report of the private bins converts to (ε, δ) on its own; in a
#: pipeline its ρ adds to the synthesizer's (and the δ's add).
BINNING_DELTA = 1e-9


#: L2 sensitivity of the sub-bin counts under replace-one: one count -1, one +1.
SUB_BIN_L2_SENSITIVITY = math.sqrt(2)


#: Eligible points per draw of the dense discrete release of :func:`grid_points`.
_DENSE_CHUNK = 1 << 20


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
    split decisions.  For ``ln P_D'(T)/P_D(T)``: the raised nodes are the lower part
    of the path of ``t'`` added to ``D − t``, where every split term is ``>= 0`` and the
    paper bounds their sum by ``(2β − 1)/((β − 1)·λ)``; on the lowered path every split
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


@release_primitive(
    "PrivTree bins",
    public=("epsilon", "theta", "min_width", "occupied", "step", "noise"),
    shapes=("fine_counts",),
)
def privtree_bins(
    fine_counts,
    epsilon,
    rng,
    *,
    report,
    theta=0.0,
    min_width=1,
    occupied=None,
    step="PrivTree bins",
    noise="continuous",
):
    """Bin boundaries (indices into the fine grid) chosen by PrivTree, ε-DP.

    Algorithm 2 of Zhang, Xiao & Xie (SIGMOD 2016) on the dyadic hierarchy over the
    ``2**depth`` cells: a node at depth ``d`` with count ``c`` has the biased count
    ``b = max(c − d·δ, θ − δ)`` and splits into its two halves iff
    ``b + Lap(λ) > θ``; a node whose halves would be narrower than ``min_width`` cells
    is a leaf without a test (the depth is capped by the public grid).  ``λ = 4/ε`` and
    ``δ = λ·ln 2`` make the release ε-DP for replace-one neighbours
    (:func:`privtree_scale` has the derivation); ``θ = 0`` by default.  A grid padded
    to a power of two has its depths counted from its occupied cells: ``d`` is
    lowered by ``log2(len(fine_counts)/occupied)``, so that empty padding does not
    bias every node by part of a level.  The analysis uses only that the biased
    counts fall by at least ``δ`` a level along a path (the counts never increase),
    which a constant shift of all depths keeps.
    Every choice is public: the grid, ``min_width``, ``occupied``, ``θ`` and ``ε``.
    Only the outcomes of the comparisons are released, never a noisy value, so the
    low-order bits of the floating-point Laplace sample (Mironov, CCS 2012) are not
    exposed.  ``noise="discrete"`` samples each comparison exactly
    (:func:`~skprivsynth.privacy.laplace_threshold_test`: the split probability is the
    Laplace survival function at ``θ − b``, drawn as a fair coin and a
    ``Bernoulli(exp(−|θ − b|/λ))`` by integer arithmetic, Canonne, Kamath & Steinke
    2020, Algorithm 1): the outcomes have the law of exact ``Lap(λ)`` noise of the
    same ``λ`` and ``δ``, so the privacy theorem of Algorithm 2 holds as it stands.
    (The theorem is proven for Laplace noise; discrete Laplace noise on a grid ``γZ``
    makes the split probability a step function of ``b``, which would need a proof of
    its own.)

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
    occupied : int or None, default=None
        Number of cells of the public grid that can hold rows, the first ones (the
        others pad it to a power of two); None: all of them.
    step : str, default="PrivTree bins"
        Name of the report entry.
    noise : {"continuous", "discrete"}, default="continuous"
        Float Laplace noise, or the comparisons sampled exactly (above).

    Returns
    -------
    boundaries : ndarray of int64
        Strictly increasing leaf edges, ``0`` and ``len(fine_counts)`` included; bin
        ``k`` is the cells ``boundaries[k]:boundaries[k + 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.privacy import PrivacyReport
    >>> counts = np.zeros(64, dtype=int)
    >>> counts[8:12] = 400  # every row in 4 of the 64 cells
    >>> report = PrivacyReport("bins", zcdp_delta=1e-9)
    >>> b = privtree_bins(counts, 1.0, np.random.default_rng(0), report=report)
    >>> int(b[0]), int(b[-1]), bool(np.all(np.diff(b)[(b[:-1] >= 8) & (b[:-1] < 12)] == 1))
    (0, 64, True)
    >>> round(report.rho, 3)  # ε = 1 recorded as ρ = ε²/2
    0.5
    """
    counts = check_fine_counts(fine_counts)
    epsilon = check_epsilon(epsilon)
    noise = check_noise(noise)
    min_width = check_positive_int(min_width, "min_width")
    theta = float(theta)
    if not math.isfinite(theta):
        raise ValueError(f"theta must be a finite number; got {theta!r}.")
    scale, bias = privtree_scale(epsilon)
    size = counts.size
    occupied = size if occupied is None else check_positive_int(occupied, "occupied")
    if occupied > size:
        raise ValueError(f"occupied must be at most len(fine_counts) = {size}; got {occupied}.")
    shift = math.log2(size / occupied)  # public: the padding's share of the root
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
        biased = np.maximum(node_counts[active] - (depth - shift) * bias, theta - bias)
        split = laplace_threshold_test(biased, theta, scale, rng, noise=noise)
        edges.append(active[~split] * width)
        active = (FANOUT * active[split])[:, None] + np.arange(FANOUT)
        active = active.ravel()
        if active.size == 0:
            break
    boundaries = np.sort(np.concatenate([*edges, [size]]))
    derivation = (
        f"PrivTree (Zhang, Xiao & Xie 2016, Alg. 2), fanout 2, θ = {theta:g}, "
        f"Laplace scale λ = 4/ε = {scale:.6g}, bias δ = λ ln 2 = {bias:.6g} a level, "
        f"depths shifted by {-shift:.4g} (public padding); replace-one "
        "moves a row between two root-to-leaf paths: the raised path costs "
        "(2β−1)/((β−1)λ) = 3/λ (the paper's add/remove bound), the lowered path only "
        "at its leaf, 1/λ; total ε = 4/λ"
    )
    mechanism = "PrivTree (Laplace split tests)"
    if noise == "discrete":
        mechanism = "PrivTree (discrete: Laplace split tests sampled exactly)"
        derivation += (
            "; each test sampled exactly with the law of Lap(λ) (fair coin and "
            "Bernoulli(exp(−|θ − b|/λ)), CKS 2020, Alg. 1): the same λ and δ"
        )
    if report.zcdp_delta is None:
        report.add(step, mechanism, 1, epsilon, scale, derivation)
    else:
        report.add(
            step,
            mechanism,
            1,
            None,
            scale,
            derivation + f" = {epsilon:.6g}; ε-DP is ε²/2-zCDP (Bun & Steinke 2016, Prop. 1.4)",
            rho=epsilon**2 / 2,
        )
    return boundaries.astype(np.int64)


@release_primitive("grid points", public=("ranges", "rho", "alpha", "step", "noise"))
def grid_points(
    keys, counts, ranges, rho, rng, *, report, alpha=0.01, step="grid points", noise="continuous"
):
    """Points of a public grid holding many rows, released with ρ-zCDP (a sparse release).

    Conceptually every point of the eligible public grid (``ranges``, half-open key
    intervals) gets a Gaussian noisy count, and the points whose noisy count reaches
    ``τ = σ·Φ̄⁻¹(alpha/L)`` are released, ``L`` the number of eligible points: at most
    ``alpha`` empty points pass on average.  The empty points are not drawn one by one
    (``L`` may be ``10**7``): how many of them pass is Binomial(``L − m``, ``Φ̄(τ/σ)``)
    for the ``m`` points that hold rows, where they are is uniform among the empty
    ones, and their noisy counts are Gaussian conditioned on ``>= τ`` — the same
    distribution as the dense release (Cormode, Procopiuc, Srivastava & Tran,
    "Differentially private summaries for sparse data", ICDT 2012).

    Sensitivity (replace-one).  Moving one row lowers the count of its point by 1 and
    raises another's by 1 (a row outside the eligible points changes no count): L2
    sensitivity ``sqrt(2)``, so ``σ = sqrt(2)/sqrt(2ρ) = 1/sqrt(ρ)`` gives ρ-zCDP
    (Bun & Steinke 2016, Prop. 1.6).  The threshold is post-processing; the grid and
    ``ranges`` must be public (or released before).

    ``noise="discrete"``: the dense release itself.  Every eligible point's count (0
    where no row) gets discrete Gaussian noise on the integers (the counts are on the
    grid ``γ = 1``, nothing rounded; ``σ_γ² = ceil(σ²)``, the same ρ, Canonne, Kamath
    & Steinke 2020, Thm. 14), and ``τ = σ_γ·Φ̄⁻¹(alpha/L)``.  Its cost is linear in the
    public ``L``, drawn ``2**20`` points at a time.

    Parameters
    ----------
    keys : array-like of int
        Sorted distinct keys of the points that hold rows.
    counts : array-like of int
        Exact count of each key (positive).
    ranges : array-like of int, shape (r, 2)
        Disjoint half-open intervals ``[a, b)`` of eligible keys; keys outside them are
        not released (and their counts are ignored).
    rho : float
        zCDP budget of the release.
    rng : numpy.random.Generator
    report : PrivacyReport
        A zCDP report (``zcdp_delta`` set); receives the Gaussian release.
    alpha : float, default=0.01
        Expected number of empty points released.
    step : str, default="grid points"
        Name of the report entry.
    noise : {"continuous", "discrete"}, default="continuous"
        The sparse release with float Gaussian noise, or the dense discrete one (above).

    Returns
    -------
    released : ndarray of int64
        The released keys, sorted.
    noisy : ndarray of float64
        Their noisy counts (each ``>= τ``).
    """
    if report.zcdp_delta is None:
        raise ValueError("report must be a zCDP report (with zcdp_delta) for a ρ release.")
    noise = check_noise(noise)
    keys = np.asarray(keys, dtype=np.int64)
    exact = np.asarray(counts)
    counts = exact.astype(np.float64)
    ranges = np.asarray(ranges, dtype=np.int64).reshape(-1, 2)
    order = np.argsort(ranges[:, 0])
    ranges = ranges[order]
    if np.any(ranges[:, 1] < ranges[:, 0]) or np.any(ranges[1:, 0] < ranges[:-1, 1]):
        raise ValueError("ranges must be disjoint half-open intervals [a, b) with a <= b.")
    position = np.searchsorted(ranges[:, 0], keys, side="right") - 1
    ends = np.append(ranges[:, 1], 0)  # no range: nothing inside
    inside = (position >= 0) & (keys < ends[position])
    keys, counts, exact, position = keys[inside], counts[inside], exact[inside], position[inside]
    lengths = ranges[:, 1] - ranges[:, 0]
    n_eligible = int(lengths.sum())
    sigma = gaussian_sigma_for_rho(SUB_BIN_L2_SENSITIVITY, rho)
    derivation = (
        f"counts of the {n_eligible} eligible points of a public grid; replace-one lowers "
        "one count by 1 and raises one by 1: L2 sensitivity sqrt(2); σ = Δ/sqrt(2ρ) = "
        f"{sigma:.6g} gives ρ = {rho:.6g} (Bun & Steinke 2016, Prop. 1.6); "
    )
    if noise == "continuous":
        report.add(
            step,
            "Gaussian mechanism (sparse, thresholded)",
            SUB_BIN_L2_SENSITIVITY,
            None,
            sigma,
            derivation + f"only the noisy counts at or above τ = σ·Φ̄⁻¹({alpha:g}/L) are "
            "kept (post-processing), the empty points drawn in distribution (Cormode et "
            "al. 2012)",
            rho=rho,
        )
    else:
        cal = discrete_gaussian_calibration(sigma, SUB_BIN_L2_SENSITIVITY, 1, integer=True)
        report.add(
            step,
            "discrete Gaussian mechanism (dense, thresholded)",
            SUB_BIN_L2_SENSITIVITY,
            None,
            cal.scale,
            derivation + cal.derivation + " Every eligible point released; only the "
            f"noisy counts at or above τ = σ_γ·Φ̄⁻¹({alpha:g}/L) are kept (post-processing)",
            rho=rho,
        )
    if n_eligible == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    z = float(norm.isf(alpha / n_eligible))
    if noise == "discrete":
        offsets = np.concatenate([[0], np.cumsum(lengths)])  # each range's first position
        at = keys - ranges[position, 0] + offsets[position]  # positions of the keys, sorted
        return _dense_grid_points(at, exact, ranges, offsets, sigma, cal.scale * z, rng)
    tau = sigma * z
    noisy, _ = gaussian_mechanism(counts, sigma, rng)
    kept = noisy >= tau
    n_empty = n_eligible - keys.size
    n_false = int(rng.binomial(n_empty, norm.sf(z))) if n_empty > 0 else 0
    false_keys = np.zeros(0, dtype=np.int64)
    if n_false:
        false_keys = _empty_keys(keys, ranges, lengths, n_false, rng)
        false_noisy = sigma * truncnorm.rvs(z, np.inf, size=n_false, random_state=rng)
    released = np.concatenate([keys[kept], false_keys])
    values = np.concatenate([noisy[kept], false_noisy if n_false else np.zeros(0)])
    order = np.argsort(released)
    return released[order], values[order]


def _dense_grid_points(at, counts, ranges, offsets, sigma, tau, rng):
    """Every eligible point's count plus discrete Gaussian noise; the keys ``>= tau``.

    Position ``p`` of the eligible points is key ``ranges[r, 0] + p − offsets[r]`` in
    its range ``r``; ``at`` are the sorted positions of the points with rows, ``counts``
    their integer counts.
    """
    released, values = [np.zeros(0, dtype=np.int64)], [np.zeros(0)]
    for start in range(0, int(offsets[-1]), _DENSE_CHUNK):
        stop = min(start + _DENSE_CHUNK, int(offsets[-1]))
        dense = np.zeros(stop - start, dtype=np.int64)
        lo, hi = np.searchsorted(at, [start, stop])
        dense[at[lo:hi] - start] = counts[lo:hi]
        noisy, _ = gaussian_mechanism(
            dense, sigma, rng, noise="discrete", sensitivity=SUB_BIN_L2_SENSITIVITY, integer=True
        )
        kept = np.flatnonzero(noisy >= tau)
        r = np.searchsorted(offsets, start + kept, side="right") - 1
        released.append(ranges[r, 0] + start + kept - offsets[r])
        values.append(noisy[kept])
    return np.concatenate(released), np.concatenate(values)


def _empty_keys(keys, ranges, lengths, size, rng):
    """``size`` distinct keys drawn uniformly among the eligible ones not in ``keys``."""
    chosen = set()
    occupied = set(keys.tolist())
    cumulative = np.cumsum(lengths)
    while len(chosen) < size:
        u = rng.integers(cumulative[-1], size=4 * size)
        r = np.searchsorted(cumulative, u, side="right")
        for key in (ranges[r, 0] + u - (cumulative[r] - lengths[r])).tolist():
            if key not in occupied and len(chosen) < size:
                chosen.add(key)
    return np.array(sorted(chosen), dtype=np.int64)


def consistent_sub_bin_weights(
    fine_counts,
    boundaries,
    n_sub,
    rho,
    rng,
    *,
    report,
    cutoff=1.5,
    step="sub-bin weights",
    points=(),
    held=None,
    noise="continuous",
):
    """Within-bin weights of ``n_sub`` equal sub-bins, non-negative and noise-aware, ρ-zCDP.

    The sub-bin counts of every bin get Gaussian noise.  The hierarchy of each bin is
    the binary tree of dyadic groups of its sub-bins (its total, its halves, ...); with
    every sub-bin measured once and no other node, the least-squares consistent
    estimate of a node (Hay, Rastogi, Miklau & Suciu, PVLDB 2010) is the sum of its
    sub-bins' noisy counts, with standard deviation ``σ·sqrt(size)``.  A bin's shape
    (its deviations from flat) is kept only where a chi-square test rejects flatness
    at 5 %, shrunk by the positive-part James–Stein factor.  Then, top-down, a node's
    mass ``p`` goes to its two children ``(a, p − a)`` by the Euclidean projection of
    their shrunk estimates onto ``{a + b = p, a >= 0, b >= 0}``, except that a child
    whose noisy total is below ``cutoff`` of its standard deviations, while its
    sibling's is not and the two differ by ``2·cutoff`` standard deviations of a
    difference, gets nothing and the sibling its own estimate (at most ``p``: the
    dropped child's noise goes to no sub-bin; the weights are normalised at the end).
    A region without rows thus receives mass only when its noisy total stands out of
    its noise, tested once per maximal empty dyadic region rather than once per
    sub-bin (user guide, "Decoding inside a bin").  A bin whose total is not
    significant falls back to uniform.  Measuring the inner nodes too (Hay's full tree)
    would raise the sensitivity to ``sqrt(2·(log2(n_sub) + 1))`` and, at ``n_sub <=
    64``, lose more accuracy on the sub-bins than the tree gains (Qardaji, Yang & Li,
    PVLDB 2013).

    ``points``: fine cells measured on their own in the same release, such as the two
    cells of a range's bounds, which hold point masses (the zeros of an expenditure)
    that a sub-bin would spread over its width.  A point cell's count leaves its
    sub-bin and is one more count of the release (a point cell that is a bin by itself
    needs none).  Its share of its bin is its noisy count over the bin's noisy total,
    clipped to ``[0, 1]``, where it reaches ``2·cutoff`` standard deviations (the
    threshold of a kept level), else 0.

    ``held``: points released before (by :func:`grid_points`), whose rows the caller
    left out of ``fine_counts``.  Their noisy counts join their bins' noisy totals, and
    their shares of their bins are returned after the point cells' (all of them kept:
    they stood clear of their noise already).  A bin of one cell holding such points
    has no sub-bins: the rest of its cell is measured as one more count, so that its
    noisy total does not consist of the held points alone.  The shares of a bin's
    points are scaled down together where they sum above 1.

    Sensitivity (replace-one).  Every row is in at most one measured count (a sub-bin,
    a point cell, or the rest of a cell holding held points).  Moving one row lowers
    one count by 1 and raises one by 1 (the same one: no change): L2 sensitivity
    ``sqrt(2)``, so ``σ = sqrt(2)/sqrt(2ρ) = 1/sqrt(ρ)`` gives ρ-zCDP (Bun & Steinke
    2016, Prop. 1.6).  Everything after the noise is post-processing.  With
    ``noise="discrete"`` the counts get discrete Gaussian noise on the integers (the
    grid ``γ = 1``, nothing rounded: ``σ_γ² = ceil(σ²)``, the same ρ; Canonne, Kamath &
    Steinke 2020, Thm. 14), and the post-processing uses ``σ_γ``.

    Parameters
    ----------
    fine_counts : array-like of int, shape (2**depth,)
        Exact count of each fine cell.
    boundaries : array-like of int
        Bin edges into the fine grid (output of :func:`privtree_bins`).
    n_sub : int
        Sub-bins per bin, a power of two.
    rho : float
        zCDP budget of the release.
    rng : numpy.random.Generator
    report : PrivacyReport
        A zCDP report (``zcdp_delta`` set); receives the Gaussian release.
    cutoff : float, default=1.5
        Significance of a node, in standard deviations of its estimate.
    step : str, default="sub-bin weights"
        Name of the report entry.
    points : sequence of int, default=()
        Fine cells measured on their own (above).
    held : tuple (cells, noisy) of arrays, optional
        The fine cell and the released noisy count of each point released before.
    noise : {"continuous", "discrete"}, default="continuous"
        Float Gaussian noise, or discrete Gaussian noise (above).

    Returns
    -------
    weights : ndarray of shape (n_bins, n_sub)
        Non-negative, rows sum to 1; sub-bin ``j`` of bin ``k`` is the fraction
        ``[j/n_sub, (j + 1)/n_sub)`` of the bin (a bin narrower than ``n_sub`` cells
        spreads each cell's weight evenly over its sub-bins), a point cell's rows left
        out.
    point_shares : ndarray of shape (len(points) + len(held cells),)
        Returned when ``points`` or ``held`` is given: the share of each point's bin at
        it (the point cells', then the held points').
    """
    if report.zcdp_delta is None:
        raise ValueError("report must be a zCDP report (with zcdp_delta) for a ρ release.")
    noise = check_noise(noise)
    exact = check_fine_counts(fine_counts)
    b = check_boundaries(boundaries, exact.size)
    points = np.asarray(points, dtype=np.int64)
    if np.any((points < 0) | (points >= exact.size)):
        raise ValueError(f"points must be cells 0..{exact.size - 1}; got {points.tolist()}.")
    held_cells, held_noisy = (
        (np.zeros(0, dtype=np.int64), np.zeros(0))
        if held is None
        else (np.asarray(held[0], dtype=np.int64), np.asarray(held[1], dtype=np.float64))
    )
    point_bins = np.searchsorted(b, points, side="right") - 1
    held_bins = np.searchsorted(b, held_cells, side="right") - 1
    measured = np.diff(b)[point_bins] > 1  # a point cell alone in its bin: its bin's rows
    rests = np.unique(held_cells[np.diff(b)[held_bins] == 1])  # cells without sub-bins
    counts = exact.copy()
    counts[points[measured]] = 0
    groups = sub_bin_counts(counts, b, n_sub)
    cutoff = float(cutoff)
    if not (math.isfinite(cutoff) and cutoff >= 0):
        raise ValueError(f"cutoff must be a finite number >= 0; got {cutoff!r}.")
    n_bins = b.size - 1
    weights = np.full((n_bins, n_sub), 1.0 / n_sub)
    shares = np.zeros(points.size + held_cells.size)
    returned = points.size or held is not None
    if not groups and rests.size == 0:  # every bin is one cell, none holds a held point
        return (weights, shares) if returned else weights
    requested = gaussian_sigma_for_rho(SUB_BIN_L2_SENSITIVITY, rho)
    mechanism, sigma, calibration = "Gaussian mechanism", requested, ""
    if noise == "discrete":
        cal = discrete_gaussian_calibration(requested, SUB_BIN_L2_SENSITIVITY, 1, integer=True)
        mechanism, sigma = "discrete Gaussian mechanism", cal.scale
        calibration = " " + cal.derivation

    def release(counts, stream):
        return gaussian_mechanism(
            counts, requested, stream, noise=noise, sensitivity=SUB_BIN_L2_SENSITIVITY, integer=True
        )[0]

    flat = np.concatenate([np.zeros(0, dtype=np.int64)] + [c.ravel() for _, c in groups.values()])
    noisy = release(flat, rng)
    extra = np.concatenate([points[measured], rests])
    if extra.size:
        # The point cells' noise from a child stream of rng: the sub-bins' draws, and
        # every later draw of the fit, stay those of a release without them.  One
        # Gaussian vector either way: the same release.
        noisy = np.concatenate([noisy, release(exact[extra], rng.spawn(1)[0])])
    report.add(
        step,
        mechanism,
        SUB_BIN_L2_SENSITIVITY,
        None,
        sigma,
        "sub-bin counts of every bin (and the counts of its point cells, out of their "
        "sub-bins, and of the rest of a one-cell bin holding points released before: "
        "every row in at most one count); replace-one lowers one count by 1 and raises "
        f"one by 1: L2 sensitivity sqrt(2); σ = Δ/sqrt(2ρ) = {requested:.6g} gives ρ = "
        f"{rho:.6g} (Bun & Steinke 2016, Prop. 1.6);{calibration} the dyadic sums (least "
        "squares, Hay et al. 2010) and the top-down non-negative split are post-processing",
        rho=rho,
    )
    noisy_groups, start, totals = {}, 0, np.zeros(n_bins)
    for s, (bins, c) in groups.items():
        noisy_groups[s] = noisy[start : start + c.size].reshape(c.shape)
        start += c.size
        totals[bins] = noisy_groups[s].sum(axis=1)
    y = noisy[start : start + measured.sum()]
    rest_bins = np.searchsorted(b, rests, side="right") - 1
    totals += np.bincount(point_bins[measured], weights=y, minlength=n_bins)
    totals += np.bincount(rest_bins, weights=noisy[start + y.size :], minlength=n_bins)
    totals += np.bincount(held_bins, weights=held_noisy, minlength=n_bins)
    total = totals[point_bins[measured]]
    kept = (y >= 2 * cutoff * sigma) & (total > 0)
    shares[: points.size][measured] = np.where(
        kept, np.clip(y / np.where(kept, total, 1.0), 0.0, 1.0), 0.0
    )
    total = totals[held_bins]
    shares[points.size :] = np.where(
        total > 0, np.clip(held_noisy / np.maximum(total, 1e-300), 0.0, 1.0), 0.0
    )
    all_bins = np.concatenate([point_bins, held_bins])
    per_bin = np.bincount(all_bins, weights=shares, minlength=n_bins)
    shares /= np.maximum(per_bin[all_bins], 1.0)
    for s, (bins, _) in groups.items():
        leaves = top_down_shares(noisy_groups[s], sigma, cutoff)
        weights[bins] = np.repeat(leaves, n_sub // s, axis=1) / (n_sub // s)
    return (weights, shares) if returned else weights


@dataclass(frozen=True)
class ReleasedBins:
    """The private bins of one range: post-processing of the three releases.

    ``edges``: the bins' edges (values); ``sub_weights``: each bin's shares of its
    ``SUB_BINS`` equal sub-bins (rows sum to 1); ``points``: ``(bins, values, shares)``
    of the values that decode exactly (the range's bounds, then the recurring values
    released by :func:`grid_points`), with each one's share of its bin.
    """

    edges: tuple
    sub_weights: np.ndarray
    points: tuple


@dataclass(frozen=True)
class RangePlan:
    """The ρ of each release of one range (:func:`range_plan`); a release with ρ 0 is
    not made, and a range whose ``tree`` is 0 has the public bins of
    :func:`public_tree_bins`."""

    tree: float
    points: float
    weights: float

    @property
    def rho(self):
        """The range's ρ spent."""
        return self.tree + self.points + self.weights


def range_plan(n, rho, point_share=0.0):
    """Split a range's ``ρ`` between its bins, grid points and sub-bin weights.

    The default is ``TREE_SHARE·ρ`` for :func:`privtree_bins`, of the rest
    ``point_share`` for :func:`grid_points` (0: a range without a grid of values)
    and the remainder for :func:`consistent_sub_bin_weights`.  A release that the
    public number of rows ``n`` cannot lift out of its noise is not made:

    * sub-bin weights, when ``n/SUB_BINS < σ_w``, ``σ_w = 1/sqrt(ρ_w)`` their planned
      noise: a sub-bin of a bin of ``c <= n`` rows holds ``c/SUB_BINS`` rows on
      average, so whatever bins PrivTree chooses every sub-bin count has a
      signal-to-noise ratio ``r`` below 1, where the chi-square test and the
      James–Stein factor of :func:`~skprivsynth._math.private_binning.top_down_shares`
      keep about ``r²/(1 + r²) < 1/2`` of a bin's shape (and a false shape at 5 %).
      The bins then decode uniformly (an end bin by the decaying density of
      :mod:`skprivsynth._math.tails`), and the whole ``ρ`` goes to PrivTree, whose
      tests compare counts of order ``n`` with ``λ ∝ 1/sqrt(ρ)``.  The grid points go
      with the sub-bins (their shares of a bin are shares of its noisy total);
    * PrivTree itself, when ``n < λ + δ`` at the whole ``ρ`` (``λ = 4/sqrt(2ρ)``,
      ``δ = λ ln 2``, :func:`privtree_scale`): a child of the root holding every row
      has a biased count ``n − δ`` below one noise scale, so no test below the root
      tells where the rows are at a signal-to-noise ratio of 1: the released tree
      would be, up to noise, the same for any data.  The range takes the public
      equal bins of :func:`public_tree_bins` (as many as PrivTree's majority tree on
      ``n`` evenly spread rows), nothing is spent (``rho`` 0), and the ρ stays with
      the caller: in a pipeline, the synthesizer spends it
      (``skprivsynth.base.spent_before_fit``).

    Every input is public: ``n`` (replace-one neighbours: the number of rows, of
    people in a person-level fit), the budget and the declared grid.

    Parameters
    ----------
    n : int
        Public number of rows.
    rho : float
        zCDP budget of the range.
    point_share : float, default=0.0
        Share of the rest (after the bins) planned for the grid points.

    Returns
    -------
    RangePlan

    Examples
    --------
    >>> range_plan(100_000, 1e-3).weights > 0  # σ_w ≈ 37 per count, n/8 = 12,500 rows
    True
    >>> plan = range_plan(400, 2.6e-4)  # σ_w ≈ 72 > n/8 = 50; λ + δ ≈ 297 < n
    >>> (plan.tree, plan.points, plan.weights)
    (0.00026, 0.0, 0.0)
    >>> range_plan(275, 2.6e-4).rho  # λ + δ ≈ 297 > n: public bins
    0.0
    """
    n = check_positive_int(n, "n")
    scale, bias = privtree_scale(math.sqrt(2.0 * rho))  # ε-DP is ε²/2-zCDP
    if n < scale + bias:
        return RangePlan(0.0, 0.0, 0.0)
    rest = (1.0 - TREE_SHARE) * rho
    points = point_share * rest
    weights = rest - points
    if n / SUB_BINS < gaussian_sigma_for_rho(SUB_BIN_L2_SENSITIVITY, weights):
        return RangePlan(rho, 0.0, 0.0)
    return RangePlan(rho - rest, points, weights)


def public_tree_bins(n, size, rho, *, min_width=1, occupied=None):
    """Equal bins, as many as PrivTree's majority tree has leaves on ``n`` even rows.

    On ``n`` rows spread evenly over the ``occupied`` cells, every node of depth ``d``
    of PrivTree at the budget ``rho`` (``λ = 4/sqrt(2ρ)``, ``δ = λ ln 2``, θ = 0) holds
    ``n/2**d`` rows, and its test splits it with probability above 1/2 iff
    ``n/2**d − d·δ > 0``: the majority outcome of every test is the full tree of depth
    ``k``, the first depth where that fails (or where halves would be narrower than
    ``min_width`` cells).  Being public, the partition needs no padding to a power of
    two: the ``occupied`` cells are cut into ``2**k`` equal bins (to the nearest cell),
    the padding is one more bin.  A function of public inputs only: no release, no
    cost.

    Parameters
    ----------
    n : int
        Public number of rows.
    size : int
        Number of fine cells.
    rho : float
        The budget whose PrivTree it mirrors.
    min_width : int, default=1
    occupied : int or None, default=None
        As in :func:`privtree_bins`.

    Returns
    -------
    boundaries : ndarray of int64

    Examples
    --------
    >>> public_tree_bins(275, 1024, 2.6e-4).tolist()  # λ ≈ 175, δ ≈ 122: two levels
    [0, 256, 512, 768, 1024]
    """
    n = check_positive_int(n, "n")
    size = check_positive_int(size, "size")
    occupied = size if occupied is None else check_positive_int(occupied, "occupied")
    _, bias = privtree_scale(math.sqrt(2.0 * rho))
    depth = 0
    while occupied >> (depth + 1) >= min_width and n / 2**depth - depth * bias > 0:
        depth += 1
    edges = np.rint(np.linspace(0, occupied, 2**depth + 1)).astype(np.int64)
    return np.unique(np.append(edges, size))


def plan_bins(n, grids, binning_epsilon):
    """``label -> RangePlan`` of every range of :func:`release_bins` (public): the ρ of
    :func:`binning_cost` split evenly between the ranges, then by :func:`range_plan`."""
    rho = binning_cost(binning_epsilon).rho / len(grids)
    plans = {}
    for label, grid in grids.items():
        share = 0.0
        if grid.n_keys:  # values that recur, released first, out of the sub-bins
            share = POINT_SHARE if grid.per_cell >= POINTS_A_CELL else FEW_POINT_SHARE
        plans[label] = range_plan(n, rho, share)
    return plans


def binning_cost(binning_epsilon):
    """The most :func:`release_bins` spends at ``binning_epsilon``: ``ρ = zcdp_rho(ε,
    BINNING_DELTA)`` whatever the number of ranges (public); :func:`plan_bins` says
    how much of it a table of ``n`` rows spends."""
    epsilon = check_epsilon(binning_epsilon, "binning_epsilon")
    return PrivacyCost(rho=zcdp_rho(epsilon, BINNING_DELTA))


def release_bins(
    counts, grids, min_widths, binning_epsilon, rng, points_rng, n, noise="continuous"
):
    """Bins and within-bin weights of every declared range, ``ρ``-zCDP in all.

    The budget ``ρ`` of :func:`binning_cost` is split evenly between the ``m`` ranges
    and, in each, by :func:`range_plan` between :func:`privtree_bins` (``TREE_SHARE``:
    ``ε = sqrt(2 ρ_tree)``-DP, which is ``ρ_tree``-zCDP, Bun & Steinke 2016,
    Prop. 1.4) and :func:`consistent_sub_bin_weights` (the rest); a range whose fine
    cells hold several points of a public grid of values (``grid.n_keys``: integers, a
    datetime resolution, a float's declared decimals) gives part of that rest
    (``POINT_SHARE``, ``FEW_POINT_SHARE``) to :func:`grid_points` first, the values
    that recur on many rows, which then decode exactly.  Where the public ``n`` cannot
    lift the sub-bins (or the grid points) out of their noise, :func:`range_plan` gives
    their ρ to PrivTree; where it cannot lift PrivTree's tests either, the range takes
    the public bins of :func:`public_tree_bins` and spends nothing, so that the report
    holds the ρ of :func:`plan_bins`, at most that of :func:`binning_cost`.  zCDP
    composes by addition.  Which ranges, the grids and the shares depend on the
    declaration and ``n`` only.

    Parameters
    ----------
    counts : dict
        ``label -> (fine_counts, key_counts)``: the exact fine histogram of each range
        and the exact counts of its grid points (sorted distinct ``keys``, their
        ``counts`` and ``at(keys)``), or None without a grid of values.
    grids : dict
        ``label -> grid``: the public fine grid of each range (its ``n_cells``,
        ``occupied`` cells, ``per_cell`` points, ``edges``, ``eligible_keys``,
        ``key_cells`` and ``key_values``).
    min_widths : dict
        ``label -> int``: the narrowest bin in fine cells (a public cap on the bins).
    binning_epsilon : float
    rng, points_rng : numpy.random.Generator
        The streams of the bins and sub-bins, and of the grid points.
    n : int
        The public number of rows (of people, in a person-level fit).
    noise : {"continuous", "discrete"}, default="continuous"
        Passed to every release.

    Returns
    -------
    released : dict
        ``label -> ReleasedBins``.
    report : PrivacyReport
    """
    plans = plan_bins(n, grids, binning_epsilon)
    report = PrivacyReport("private bins", zcdp_delta=BINNING_DELTA)
    released = {}
    for label, grid in grids.items():
        fine, keys = counts[label]
        plan = plans[label]
        if plan.tree > 0:
            boundaries = privtree_bins(
                fine,
                math.sqrt(2.0 * plan.tree),  # ε-DP is ε²/2-zCDP
                rng,
                report=report,
                min_width=min_widths[label],
                occupied=grid.occupied,
                step=f"bins of {label!r}",
                noise=noise,
            )
        else:
            boundaries = public_tree_bins(
                n,
                fine.size,
                binning_cost(binning_epsilon).rho / len(grids),
                min_width=min_widths[label],
                occupied=grid.occupied,
            )
        edges, fraction = grid.edges(boundaries)
        n_bins = boundaries.size - 1
        weights, shares = np.full((n_bins, SUB_BINS), 1.0 / SUB_BINS), np.zeros(2)
        held, values = None, np.zeros(0)
        if plan.points > 0:
            points, noisy = grid_points(
                keys.keys,
                keys.counts,
                grid.eligible_keys(boundaries),
                plan.points,
                points_rng,
                report=report,
                step=f"recurring values of {label!r}",
                noise=noise,
            )
            cells = grid.key_cells(points)
            fine = fine.copy()
            np.subtract.at(fine, cells, keys.at(points))
            held, values = (cells, noisy), grid.key_values(points)
        if plan.weights > 0:
            # The bounds' cells on their own: a point mass at a bound (the zeros of an
            # expenditure) decodes to the bound, not over a sub-bin.
            weights, shares = consistent_sub_bin_weights(
                fine,
                boundaries,
                SUB_BINS,
                plan.weights,
                rng,
                report=report,
                step=f"sub-bin weights of {label!r}",
                points=(0, grid.occupied - 1),
                held=held,
                noise=noise,
            )
        weights = weights[: edges.size - 1]  # the bins that hold grid points
        weights[-1] = truncate_weights(weights[-1], fraction)
        edges = tuple(edges.tolist())
        point_bins = np.searchsorted(boundaries, held[0], side="right") - 1 if held else []
        released[label] = ReleasedBins(
            edges,
            weights,
            (
                np.concatenate([[0, len(edges) - 2], point_bins]).astype(np.int64),
                np.concatenate([[edges[0], edges[-1]], values]),
                shares,
            ),
        )
    return released, report
