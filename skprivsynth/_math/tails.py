"""Positions inside the outermost bin of a numeric column: a density that decays.

A wide end bin (a generous public range, or a declared ``clip`` bin) holds few rows,
usually close to its inner edge.  Decoded uniformly, its rows spread over the whole
bin: values beyond anything in the data, a heavy tail and an inflated standard
deviation.  Without sub-bin information the decoder takes the density inside the bin
continuous with its inner neighbour's mean density ``d`` and decaying exponentially
outwards, at the rate that gives the bin its mass ``m``: on the bin's width ``w``,
``f(x) = d·exp(−a·x/w)`` with ``(1 − exp(−a))/a = m/(d·w)``.  When the bin is at
least as dense as its neighbour (``m >= d·w``) nothing decays and the bin stays
uniform.  Only counts of the decoded rows and public edges are used: post-processing.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

__all__ = ["decay_rate", "decaying_positions"]


def decay_rate(ratio):
    """Rate ``a > 0`` with ``(1 − exp(−a))/a = ratio`` for ``0 < ratio < 1``; 0 otherwise.

    ``ratio`` is the bin's mean density over the density at its inner edge.  The
    left side falls from 1 (at ``a = 0``) to 0, strictly, and is below ``1/a``, so the
    root lies in ``(0, 1/ratio + 1)``; a ratio within 1e-9 of 1 is uniform (0).
    """
    if not 0 < ratio < 1 - 1e-9:
        return 0.0
    return brentq(lambda a: -np.expm1(-a) / a - ratio, 1e-12, 1.0 / ratio + 1.0, xtol=1e-12)


def decaying_positions(rate, u):
    """Positions in ``[0, 1)`` from the inner edge, density ``∝ exp(−rate·t)``.

    Inverse-CDF draws from uniforms ``u``; ``rate = 0`` gives ``u`` (uniform).
    """
    u = np.asarray(u, dtype=np.float64)
    if rate <= 0:
        return u
    return np.minimum(-np.log1p(u * np.expm1(-rate)) / rate, np.nextafter(1.0, 0.0))
