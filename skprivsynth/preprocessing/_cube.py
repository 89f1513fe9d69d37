"""The affine maps between the Boolean cube ``{0, 1}^p`` and the sign cube
``{-1, 1}^p``, used by sign-based mechanisms."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_array

from ..validation import check_unit_interval

__all__ = ["boolean_cube_to_signs", "signs_to_boolean_cube"]


def boolean_cube_to_signs(X):
    """Map ``{0, 1}`` to ``{-1, 1}`` by ``s = 1 - 2x`` (so ``x = 0`` maps to ``+1``).

    The map is affine, so it also sends ``[0, 1]`` onto ``[-1, 1]`` (means of Boolean
    vectors to means of sign vectors); entries outside ``[0, 1]`` are rejected.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Entries in ``[0, 1]`` (typically in ``{0, 1}``).

    Returns
    -------
    S : ndarray of float64, same shape
        ``1 - 2 X``.

    See Also
    --------
    signs_to_boolean_cube : The inverse map ``x = (1 - s) / 2``.

    Examples
    --------
    >>> from skprivsynth.preprocessing import boolean_cube_to_signs
    >>> boolean_cube_to_signs([[0, 1], [1, 1]]).tolist()
    [[1.0, -1.0], [-1.0, -1.0]]
    """
    X = check_array(X, dtype=np.float64, ensure_all_finite=True, input_name="X")
    check_unit_interval(X, name="X")
    return 1.0 - 2.0 * X


def signs_to_boolean_cube(S):
    """Map ``{-1, 1}`` to ``{0, 1}`` by ``x = (1 - s) / 2`` (so ``s = +1`` maps to ``0``).

    Inverse of :func:`boolean_cube_to_signs`; ``[-1, 1]`` is sent onto ``[0, 1]`` and
    entries outside ``[-1, 1]`` are rejected.

    Parameters
    ----------
    S : array-like of shape (n_samples, n_features)
        Entries in ``[-1, 1]`` (typically in ``{-1, 1}``).

    Returns
    -------
    X : ndarray of float64, same shape
        ``(1 - S) / 2``.

    Examples
    --------
    >>> from skprivsynth.preprocessing import signs_to_boolean_cube
    >>> signs_to_boolean_cube([[1, -1]]).tolist()
    [[0.0, 1.0]]
    """
    S = check_array(S, dtype=np.float64, ensure_all_finite=True, input_name="S")
    bad = np.abs(S) > 1
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        raise ValueError(f"S must have all entries in [-1, 1]; column {j} has values outside it.")
    return (1.0 - S) / 2.0
