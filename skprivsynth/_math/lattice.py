"""Enumerated lattice coverings of a ball.

Boedihardjo, Strohmer & Vershynin (BSV 2022), *Covariance's loss is privacy's gain*,
Sect. 5, Algorithm 4, step 2.

The differentially private microaggregation releases one weight and one vector for
*every* cell of an α-covering of the unit ball of ``ran(P)``, empty cells included,
so the covering must be listed explicitly and independently of the data.  The
covering used is the set of points of the cubic lattice ``spacing·Z^t`` (with
``spacing = α/√t``, covering radius ``α/2``) inside the ball of radius ``1 + α/2``:
every point ``z`` of the unit ball rounds (coordinate-wise) to a lattice point at
distance at most ``α/2``, hence of norm at most ``1 + α/2`` — the nearest-point
partition is plain rounding and always lands in the enumerated list.

Points are handled by their *integer* coordinates ``k ∈ Z^t`` (the lattice point is
``spacing·k``).  Enumeration is dimension by dimension: the number of points added by
the next coordinate is counted exactly before anything is allocated, and since the
points of the ``j``-dimensional slice are a subset of the final set, every
intermediate count is a lower bound of the final one — so an explosion is refused
before it happens.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np

__all__ = ["enumerate_lattice_ball", "lattice_point_index", "round_to_lattice"]

# Relative slack on the squared radius so that a point rounded from a vector of norm
# exactly 1 (up to floating-point error) is never missing from the enumeration.
_RADIUS_SLACK = 1e-9


def _check_positive(value, name):
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number; got {value!r}.")
    return value


def enumerate_lattice_ball(t, spacing, radius, max_points=1_000_000):
    """Integer coordinates of all points of ``spacing·Z^t`` in the ball of ``radius``.

    Parameters
    ----------
    t : int
        Dimension, ``t >= 1``.
    spacing : float
        Lattice spacing (``α/√t`` for the α-covering of BSV 2022).
    radius : float
        Radius of the ball (``1 + α/2``).
    max_points : int, default=1_000_000
        Refuse (ValueError) as soon as the count is known to exceed this.

    Returns
    -------
    points : ndarray of shape (s, t), int64
        Integer coordinates ``k`` with ``‖spacing·k‖₂ ≤ radius``, sorted
        lexicographically (so :func:`lattice_point_index` can binary-search them).
        O(s·t) time and memory.

    Examples
    --------
    >>> from skprivsynth._math.lattice import enumerate_lattice_ball
    >>> enumerate_lattice_ball(2, 1.0, 1.0).tolist()
    [[-1, 0], [0, -1], [0, 0], [0, 1], [1, 0]]
    """
    if isinstance(t, bool) or not isinstance(t, Integral) or t < 1:
        raise ValueError(f"t must be a positive integer; got {t!r}.")
    spacing = _check_positive(spacing, "spacing")
    radius = _check_positive(radius, "radius")
    if isinstance(max_points, bool) or not isinstance(max_points, Integral) or max_points < 1:
        raise ValueError(f"max_points must be a positive integer; got {max_points!r}.")
    r2 = (radius / spacing) ** 2 * (1.0 + _RADIUS_SLACK)
    points = np.zeros((1, 0), dtype=np.int64)
    sq_norms = np.zeros(1)
    for dim in range(int(t)):
        # Largest |k_dim| allowed for each partial point; count before allocating.
        reach = np.floor(np.sqrt(np.maximum(r2 - sq_norms, 0.0))).astype(np.int64)
        counts = 2 * reach + 1
        total = int(counts.sum())
        if total > max_points:
            raise ValueError(
                f"The lattice covering has more than {max_points} points already in "
                f"dimension {dim + 1} of t={t} (spacing={spacing:.4g}, radius={radius:.4g}); "
                "reduce t, increase alpha or raise max_points."
            )
        parent = np.repeat(np.arange(points.shape[0]), counts)
        starts = np.cumsum(counts) - counts
        offset = np.arange(total) - np.repeat(starts, counts) - np.repeat(reach, counts)
        points = np.column_stack([points[parent], offset])
        sq_norms = sq_norms[parent] + offset.astype(np.float64) ** 2
    return points


def round_to_lattice(Z, spacing):
    """Nearest point of ``spacing·Z^t`` for each row of ``Z`` (coordinate rounding).

    Parameters
    ----------
    Z : ndarray of shape (n, t)
    spacing : float

    Returns
    -------
    ndarray of shape (n, t), int64
        Integer coordinates of the nearest lattice point (ties to even, a
        deterministic function of each row alone, as the privacy proof requires).
    """
    spacing = _check_positive(spacing, "spacing")
    return np.rint(np.asarray(Z, dtype=np.float64) / spacing).astype(np.int64)


def lattice_point_index(points, coords):
    """Index in ``points`` of each row of ``coords``.

    Parameters
    ----------
    points : ndarray of shape (s, t), int
        Lexicographically sorted integer points (from :func:`enumerate_lattice_ball`).
    coords : ndarray of shape (n, t), int
        Integer points to look up (from :func:`round_to_lattice`).

    Returns
    -------
    ndarray of shape (n,), int64
        O((s + n)·t + n·log s) time.

    Raises
    ------
    ValueError
        If a row of ``coords`` is not in ``points``.
    """
    points = np.asarray(points, dtype=np.int64)
    coords = np.asarray(coords, dtype=np.int64)
    if points.ndim != 2 or coords.ndim != 2 or points.shape[1] != coords.shape[1]:
        raise ValueError(
            f"points and coords must be 2-D with the same width; got {points.shape} "
            f"and {coords.shape}."
        )
    t = points.shape[1]
    m = int(np.abs(points).max()) if points.size else 0
    base = 2 * m + 1
    if base**t >= 2**63:
        raise ValueError(
            f"Cannot index a lattice of dimension {t} with coordinates up to {m} in int64 "
            "keys; reduce t or increase alpha."
        )
    outside = np.any(np.abs(coords) > m, axis=1)
    # Mixed-radix key with digits k + m in [0, 2m]: ascending keys = lexicographic order.
    weights = base ** np.arange(t - 1, -1, -1, dtype=np.int64)
    point_keys = (points + m) @ weights
    coord_keys = (np.clip(coords, -m, m) + m) @ weights
    idx = np.minimum(np.searchsorted(point_keys, coord_keys), max(points.shape[0] - 1, 0))
    missing = outside | (point_keys[idx] != coord_keys)
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"coords row {row} ({coords[row].tolist()}) is not a point of the enumerated lattice."
        )
    return idx
