"""Sampling from a finite set of weighted candidate records.

Every synthesizer of the package ends in the same object: candidate records
``y_1..y_s`` (rows of a matrix, entries in ``[0, 1]``) with probability weights
``w_1..w_s``.  Releasing synthetic data is then *post-processing*: a weighted
bootstrap of the candidates, optionally followed by *randomized rounding* of each
coordinate to {0, 1} (Boedihardjo, Strohmer, Vershynin, "Covariance's loss is
privacy's gain", Sect. 4.3, Lemma 4.7): coordinate ``c`` of a drawn record ``y`` becomes
1 with probability ``y[c]``, independently.  Rounding keeps every 1-way marginal in
expectation and every conjunction of distinct coordinates of the *same* record in
expectation only up to the covariance of the rounding, which is what Lemma 4.7 bounds.
"""

from __future__ import annotations

import numpy as np

__all__ = ["normalize_weights", "sample_weighted_records"]

# Rows generated per chunk in randomized rounding: bounds the temporary uniform
# matrix to about 64 MB regardless of ``n_samples``.
_ROUNDING_CHUNK_ELEMENTS = 8_000_000


def normalize_weights(weights):
    """Return ``weights`` as a probability vector (non-negative, summing to 1).

    Raises
    ------
    ValueError
        If a weight is negative or not finite, or if all weights are zero.
    """
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.size == 0 or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be a non-empty vector of finite, non-negative numbers.")
    total = w.sum()
    if total <= 0:
        raise ValueError("weights must not all be zero.")
    return w / total


def sample_weighted_records(records, weights, n_samples, rng, rounding=True):
    """Weighted bootstrap of candidate records, then optional randomized rounding.

    Parameters
    ----------
    records : ndarray of shape (n_candidates, n_features)
        Candidate records; with ``rounding=True`` every entry must lie in ``[0, 1]``.
    weights : array-like of shape (n_candidates,)
        Non-negative weights (normalised here).
    n_samples : int
        Number of synthetic records.
    rng : numpy.random.Generator
        Source of randomness.
    rounding : bool, default=True
        If True, each coordinate of each drawn record is replaced by a
        Bernoulli(value) draw, giving a Boolean record (Boedihardjo, Strohmer &
        Vershynin, *Covariance's loss is privacy's gain*, Sect. 4.3).

    Returns
    -------
    ndarray of shape (n_samples, n_features), float64
        Cost O(n_samples · n_features) time and memory.
    """
    records = np.asarray(records, dtype=np.float64)
    w = normalize_weights(weights)
    if records.ndim != 2 or records.shape[0] != w.size:
        raise ValueError(
            f"records must be 2-D with one row per weight; got shape {records.shape} "
            f"for {w.size} weights."
        )
    if not np.isfinite(records).all():
        raise ValueError("records must be finite; got NaN or infinity among the candidates.")
    cumulative = np.cumsum(w)
    # From the last positive weight on, the cumulative sum is exactly 1: a uniform draw
    # in [0, 1) then never lands on a trailing zero-weight candidate through round-off.
    cumulative[np.flatnonzero(w)[-1] :] = 1.0
    idx = np.searchsorted(cumulative, rng.random(n_samples), side="right")
    idx = np.minimum(idx, w.size - 1)
    if not rounding:
        return records[idx]
    if records.size and (records.min() < 0 or records.max() > 1):
        raise ValueError("randomized rounding needs candidate records with entries in [0, 1].")
    p = records.shape[1]
    out = np.empty((n_samples, p), dtype=np.float64)
    chunk = max(1, _ROUNDING_CHUNK_ELEMENTS // max(p, 1))
    for start in range(0, n_samples, chunk):
        stop = min(start + chunk, n_samples)
        np.less(rng.random((stop - start, p)), records[idx[start:stop]], out=out[start:stop])
    return out
