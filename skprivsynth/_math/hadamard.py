"""The fast Walsh–Hadamard transform of a vector indexed by the Boolean cube."""

from __future__ import annotations

import numpy as np

__all__ = ["fwht"]


def fwht(v):
    """Unnormalised fast Walsh–Hadamard transform ``H v`` of a length-``2^p`` vector.

    ``(H v)[s] = Σ_i v[i]·(-1)^{popcount(s & i)}``: with record index
    ``i = Σ_j x_j 2^j`` and character mask ``s`` (bit ``j`` ⇔ column ``j ∈ S``) this is
    ``Σ_x v(x) χ_S(x)``, ``χ_S(x) = Π_{j∈S} (1 - 2x_j)``.  ``H`` is symmetric and
    ``H² = 2^p I``.  Cost ``O(p·2^p)``.
    """
    out = np.array(v, dtype=np.float64, copy=True)
    n = out.size
    h = 1
    while h < n:
        view = out.reshape(-1, 2, h)
        a = view[:, 0, :].copy()
        view[:, 0, :] += view[:, 1, :]
        view[:, 1, :] = a - view[:, 1, :]
        h *= 2
    return out
