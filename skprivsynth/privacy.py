"""Noise, calibration and privacy accounting — the one place where noise is drawn.

Every differentially private synthesizer of the package draws its noise through the
functions of this module, never through ad-hoc ``rng.laplace`` calls, so that the
calibration (sensitivity / epsilon) and the floating-point behaviour live in one
place and can be audited.

Neighbouring relation
---------------------
Package-wide, two datasets are neighbours when they have the same number of rows
``n`` and differ in exactly one row (*replace-one*, or bounded, differential privacy).
``n`` is public.  Every sensitivity in the package is computed for this relation.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from numbers import Real

import numpy as np

__all__ = [
    "NEIGHBOURING_RELATION",
    "PrivacyLeakWarning",
    "PrivacyReport",
    "check_delta",
    "check_epsilon",
    "gaussian_noise",
    "laplace_mechanism",
    "laplace_noise",
    "laplace_scale",
    "warn_privacy_leak",
]

NEIGHBOURING_RELATION = (
    "replace-one (bounded DP): datasets of the same public size n differing in one row"
)


class PrivacyLeakWarning(UserWarning):
    """A choice made from the private data weakens or voids the privacy guarantee.

    Raised, for instance, when an encoder learns categories or bin edges from the
    data (the *domain* then depends on private records) or when a parameter is
    chosen from the data.  Declare the public domain to avoid it.
    """


def warn_privacy_leak(message, stacklevel=3):
    """Emit a :class:`PrivacyLeakWarning` with ``message``."""
    warnings.warn(message, PrivacyLeakWarning, stacklevel=stacklevel)


def check_epsilon(epsilon, name="epsilon"):
    """Return ``epsilon`` as a float after checking ``0 < epsilon < inf``.

    Raises
    ------
    ValueError
        Naming the parameter and the bad value.
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real):
        raise TypeError(f"{name} must be a positive finite real number; got {epsilon!r}.")
    epsilon = float(epsilon)
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"{name} must be a positive finite real number; got {epsilon!r}.")
    return epsilon


def check_delta(delta, name="delta"):
    """Return ``delta`` as a float after checking ``0 < delta < 1``."""
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise TypeError(f"{name} must be a real number in the open interval (0, 1); got {delta!r}.")
    delta = float(delta)
    if not (0.0 < delta < 1.0):
        raise ValueError(f"{name} must be a real number in the open interval (0, 1); got {delta!r}.")
    return delta


def laplace_scale(sensitivity, epsilon):
    """Scale ``b = sensitivity / epsilon`` of the Laplace mechanism.

    The Laplace mechanism adding i.i.d. ``Lap(b)`` noise to a vector statistic of
    L1 sensitivity ``sensitivity`` (for the replace-one relation) is
    ``epsilon``-DP (Dwork, McSherry, Nissim, Smith 2006).
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = float(sensitivity)
    if not (math.isfinite(sensitivity) and sensitivity >= 0):
        raise ValueError(f"sensitivity must be finite and >= 0; got {sensitivity!r}.")
    return sensitivity / epsilon


def laplace_noise(scale, size, rng):
    """Draw i.i.d. Laplace(0, ``scale``) noise.

    Parameters
    ----------
    scale : float
        Laplace scale ``b`` (density ``exp(-|x|/b) / 2b``); use :func:`laplace_scale`.
    size : int or tuple of int
        Output shape.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of float64
    """
    scale = float(scale)
    if not (math.isfinite(scale) and scale >= 0):
        raise ValueError(f"Laplace scale must be finite and >= 0; got {scale!r}.")
    return rng.laplace(0.0, scale, size=size) if scale > 0 else np.zeros(size)


def laplace_mechanism(values, sensitivity, epsilon, rng):
    """Release ``values`` with i.i.d. Laplace noise calibrated to ``sensitivity / epsilon``.

    Parameters
    ----------
    values : array-like
        The exact statistic (any shape).
    sensitivity : float
        L1 sensitivity of ``values`` under the replace-one relation, derived by the caller.
    epsilon : float
        Budget spent by this release.
    rng : numpy.random.Generator

    Returns
    -------
    noisy : ndarray of float64, same shape as ``values``
    scale : float
        The Laplace scale used.
    """
    values = np.asarray(values, dtype=np.float64)
    scale = laplace_scale(sensitivity, epsilon)
    return values + laplace_noise(scale, values.shape, rng), scale


def gaussian_noise(scale, size, rng):
    """Draw i.i.d. N(0, ``scale``²) noise (``scale`` = standard deviation)."""
    scale = float(scale)
    if not (math.isfinite(scale) and scale >= 0):
        raise ValueError(f"Gaussian scale must be finite and >= 0; got {scale!r}.")
    return rng.normal(0.0, scale, size=size) if scale > 0 else np.zeros(size)


@dataclass
class PrivacyReport:
    """How a fitted mechanism spent its privacy budget, step by step.

    Each entry records one private release: what was released, the mechanism,
    its sensitivity (with the neighbouring relation), the budget it spent, the
    noise scale and the derivation that links them.  ``str(report)`` prints a
    readable table; ``epsilon`` / ``delta`` are the totals by basic composition.
    """

    mechanism: str
    entries: list = field(default_factory=list)
    neighbouring_relation: str = NEIGHBOURING_RELATION

    def add(self, step, mechanism, sensitivity, epsilon, scale, derivation, delta=0.0):
        """Append one release (``step``) to the report."""
        self.entries.append(
            {
                "step": step,
                "mechanism": mechanism,
                "sensitivity": sensitivity,
                "epsilon": float(epsilon),
                "delta": float(delta),
                "scale": scale,
                "derivation": derivation,
            }
        )
        return self

    @property
    def epsilon(self):
        """Total epsilon by basic sequential composition."""
        return float(sum(e["epsilon"] for e in self.entries))

    @property
    def delta(self):
        """Total delta by basic sequential composition."""
        return float(sum(e["delta"] for e in self.entries))

    def __str__(self):
        lines = [
            f"Privacy report: {self.mechanism}",
            f"  neighbouring relation: {self.neighbouring_relation}",
            f"  total: epsilon = {self.epsilon:.6g}, delta = {self.delta:.3g} "
            "(basic composition)",
        ]
        for e in self.entries:
            lines.append(
                f"  - {e['step']}: {e['mechanism']}, epsilon = {e['epsilon']:.6g}"
                + (f", delta = {e['delta']:.3g}" if e["delta"] else "")
                + f", sensitivity = {e['sensitivity']}, scale = {e['scale']}"
            )
            lines.append(f"      {e['derivation']}")
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle):  # IPython
        p.text(str(self))
