"""Lattice coverings, nearest-point partitions and equipartitions.

Boedihardjo, Strohmer & Vershynin (BSV 2022), *Covariance's loss is privacy's gain*, Sect. 3.

The covering of the unit ball of a ``t``-dimensional subspace used by the
microaggregation of Boedihardjo, Strohmer and Vershynin ("Covariance's loss is
privacy's gain", Sect. 3.3–3.6) is the cubic lattice ``(alpha/sqrt(t))·Z^t``: its
covering radius is ``alpha/2``, and the nearest-point partition (Def. 3.4) of points
is plain coordinate rounding, so no lattice point ever has to be enumerated here.

The equipartition turns the (unbalanced) cells of that partition into groups of size
in ``[k, 2k)`` by the *divide-and-merge* procedure of Sect. 3.6 / Remark 4.2.
"""

from __future__ import annotations

import numpy as np

__all__ = ["divide_and_merge", "lattice_cells", "spatial_order_key"]

# Bits per coordinate of the Z-order (Morton) key and maximum number of coordinates
# interleaved: 7 coordinates x 9 bits = 63 bits fit an int64.
_MORTON_BITS_TOTAL = 63


def lattice_cells(Z, spacing):
    """Nearest-point partition of ``Z`` for the lattice ``spacing·Z^t``.

    Parameters
    ----------
    Z : ndarray of shape (n, t)
        Projected points.
    spacing : float
        Lattice spacing ``alpha / sqrt(t)``.

    Returns
    -------
    cell_of_row : ndarray of shape (n,), int64
        Index of each row's cell in ``cell_points``.
    cell_points : ndarray of shape (n_cells, t), int64
        Integer lattice coordinates of the non-empty cells, sorted lexicographically.
    """
    integer_coords = np.rint(np.asarray(Z, dtype=np.float64) / spacing).astype(np.int64)
    low = integer_coords.min(axis=0, initial=0)
    extent = integer_coords.max(axis=0, initial=0) - low + 1
    if np.sum(np.log2(extent)) >= 62:  # mixed-radix key would overflow: sort rows
        cell_points, cell_of_row = np.unique(integer_coords, axis=0, return_inverse=True)
        return cell_of_row.ravel(), cell_points
    # One int64 key per row (mixed radix, lexicographic order): a 1-D sort is much
    # faster than numpy's row-wise unique.
    strides = np.r_[np.cumprod(extent[::-1])[::-1][1:], 1]
    keys, cell_of_row = np.unique((integer_coords - low) @ strides, return_inverse=True)
    cell_points = low + (keys[:, None] // strides) % extent
    return cell_of_row.ravel(), cell_points


def spatial_order_key(Z, bits=None):
    """Z-order (Morton) key of the rows of ``Z``: nearby rows get nearby keys.

    Each coordinate is quantised into ``2**bits`` equal-width levels over its range
    and the bits of the levels are interleaved, most significant first.  Sorting by
    the key traverses space along a Z-order curve, so consecutive chunks of a sorted
    list are spatially coherent (used to split a cell into groups, BSV 2022 Sect. 3.6
    allows any split: refining a partition only lowers the covariance loss, Lemma 3.8).

    Parameters
    ----------
    Z : ndarray of shape (n, q)
        Coordinates (at most 63 are used; the first ones matter most).
    bits : int, optional
        Bits per coordinate; default ``63 // q`` capped at 16 (at most 16, so that
        the bit-spreading lookup table stays small).

    Returns
    -------
    key : ndarray of shape (n,), int64
    """
    Z = np.asarray(Z, dtype=np.float64)
    n, q = Z.shape
    q = min(q, _MORTON_BITS_TOTAL)
    if q == 0:
        return np.zeros(n, dtype=np.int64)
    Z = Z[:, :q]
    if bits is None:
        bits = min(16, _MORTON_BITS_TOTAL // q)
    low = Z.min(axis=0)
    width = Z.max(axis=0) - low
    width[width == 0] = 1.0
    levels = np.minimum((Z - low) / width * (1 << bits), (1 << bits) - 1).astype(np.int64)
    # Bit b of coordinate c goes to position b·q + (q − 1 − c): a lookup table spreads
    # the bits of every level value, so each coordinate costs one gather.
    values = np.arange(1 << bits, dtype=np.int64)
    spread = np.zeros(1 << bits, dtype=np.int64)
    for bit in range(bits):
        spread |= ((values >> bit) & 1) << (bit * q)
    key = np.zeros(n, dtype=np.int64)
    for c in range(q):
        key |= spread[levels[:, c]] << (q - 1 - c)
    return key


def divide_and_merge(cell_of_row, order_key, k):
    """Equipartition by divide-and-merge (BSV 2022, Sect. 3.6 and Remark 4.2).

    1. Inside each cell, rows sorted by ``order_key`` are cut into chunks of exactly
       ``k`` rows; fewer than ``k`` rows remain per cell (the residual).
    2. All residuals are merged, sorted by ``order_key`` and cut into chunks of ``k``.
    3. The last leftover (fewer than ``k`` rows) joins the previous chunk of the
       merged residual (its neighbour in key order) or, when the residual holds fewer
       than ``k`` rows in all, the group of the row nearest in key.  Every group then
       has between ``k`` and ``2k − 1`` rows.

    Parameters
    ----------
    cell_of_row : ndarray of shape (n,), int
        Cell index of each row (from :func:`lattice_cells`).
    order_key : ndarray of shape (n,)
        Sort key inside cells and inside the residual (e.g. :func:`spatial_order_key`).
    k : int
        Minimum group size, ``1 <= k <= n``.

    Returns
    -------
    group_of_row : ndarray of shape (n,), int64
        Group index of each row; groups are numbered ``0..n_groups-1``.

    Notes
    -----
    O(n log n) time (two sorts), O(n) memory.
    """
    cell_of_row = np.asarray(cell_of_row)
    n = cell_of_row.shape[0]
    if not 1 <= k <= n:
        raise ValueError(f"k must satisfy 1 <= k <= n_samples = {n}; got k={k}.")
    order = np.lexsort((order_key, cell_of_row))
    sorted_cells = cell_of_row[order]
    # Rank of each sorted row inside its cell.
    starts = np.flatnonzero(np.r_[True, sorted_cells[1:] != sorted_cells[:-1]])
    cell_sizes = np.diff(np.r_[starts, n])
    rank_in_cell = np.arange(n) - np.repeat(starts, cell_sizes)
    full_rows = rank_in_cell < np.repeat(cell_sizes // k * k, cell_sizes)

    group_sorted = np.empty(n, dtype=np.int64)
    # Step 1: chunks of exactly k inside cells.  Full rows are consecutive per cell,
    # so numbering them by their running count // k cuts them into chunks of k.
    n_full = int(full_rows.sum())
    group_sorted[full_rows] = np.arange(n_full) // k
    n_groups = n_full // k
    # Step 2: the merged residual, sorted by key, cut into chunks of k.
    residual_sorted_idx = np.flatnonzero(~full_rows)
    if residual_sorted_idx.size:
        residual_rows = order[residual_sorted_idx]
        by_key = np.argsort(order_key[residual_rows], kind="stable")
        chunk = np.arange(residual_sorted_idx.size) // k
        n_residual_chunks = residual_sorted_idx.size // k
        # Step 3: the leftover (< k rows) joins the previous chunk.
        if n_residual_chunks > 0:
            chunk = np.minimum(chunk, n_residual_chunks - 1)
            group_sorted[residual_sorted_idx[by_key]] = n_groups + chunk
            n_groups += n_residual_chunks
        else:
            # Fewer than k residual rows in all: they join the group of the full row
            # whose key is closest to their median key (its spatial neighbour).
            full_sorted_idx = np.flatnonzero(full_rows)
            target = np.median(order_key[residual_rows])
            nearest = full_sorted_idx[np.argmin(np.abs(order_key[order[full_sorted_idx]] - target))]
            group_sorted[residual_sorted_idx] = group_sorted[nearest]
    group_of_row = np.empty(n, dtype=np.int64)
    group_of_row[order] = group_sorted
    return group_of_row
