"""ε-differentially private noisy microaggregation (seed 000, Sect. 5, Algorithm 4)."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._math.bingham import private_pca
from ._math.lattice import enumerate_lattice_ball, lattice_point_index, round_to_lattice
from .base import BaseSynthesizer
from .privacy import PrivacyReport, check_epsilon, laplace_mechanism

__all__ = ["NoisyMicroaggregation", "noisy_microaggregation_parameters"]

# Largest number of released cells, and of entries of the released s x p matrix of
# noisy cell means (8 bytes each: 400 MB).  Checked before anything of that size is
# allocated.
_MAX_CELLS = 1_000_000
_MAX_RELEASE_ENTRIES = 50_000_000


def noisy_microaggregation_parameters(n_samples, n_features, epsilon):
    """The ``"auto"`` choice of ``t``, ``alpha`` and ``b`` from public ``n``, ``p``, ``ε``.

    See the Notes of :class:`NoisyMicroaggregation` for the reasoning.

    Parameters
    ----------
    n_samples, n_features : int
    epsilon : float

    Returns
    -------
    t : int
    alpha : float
    b : float
    """
    raise NotImplementedError


class NoisyMicroaggregation(BaseSynthesizer):
    """ε-differentially private synthetic data by noisy microaggregation.

    PLACEHOLDER DOCSTRING
    """

    _input_domain = "unit"

    _parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "t": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "alpha": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "b": [Interval(Real, 1, None, closed="left"), StrOptions({"auto"})],
        "random_state": ["random_state"],
    }

    def __init__(self, epsilon=1.0, t="auto", alpha="auto", b="auto", random_state=None):
        self.epsilon = epsilon
        self.t = t
        self.alpha = alpha
        self.b = b
        self.random_state = random_state

    def _resolve_parameters(self, n, p, epsilon):
        auto_t, auto_alpha, auto_b = noisy_microaggregation_parameters(n, p, epsilon)
        t = auto_t if self.t == "auto" else int(self.t)
        if t > p:
            raise ValueError(
                f"t={self.t!r} must not exceed the number of features n_features={p}."
            )
        alpha = auto_alpha if self.alpha == "auto" else float(self.alpha)
        b = auto_b if self.b == "auto" else float(self.b)
        if not math.isfinite(alpha):
            raise ValueError(f"alpha must be a positive finite number; got {self.alpha!r}.")
        if not math.isfinite(b):
            raise ValueError(f"b must be a finite number >= 1; got {self.b!r}.")
        return t, alpha, b

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release the private cell weights and cell means of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data in ``[0, 1]^p`` (Boolean or fractional).
        y : None
            Ignored.

        Returns
        -------
        self
        """
        epsilon = check_epsilon(self.epsilon)
        X, rng = self._validate_fit_data(X)
        n, p = X.shape
        t, alpha, b = self._resolve_parameters(n, p, epsilon)
        eps_step = epsilon / 3.0

        # Step 1: private projection (eps/3).  Rows scaled by the public 1/sqrt(p) lie
        # in the unit ball; S = (1/n) Σ (x_i/√p)(x_i/√p)ᵀ and A = (nε/(6t))·S.
        beta = epsilon / (6.0 * t)
        A = (beta / p) * (X.T @ X)
        components = private_pca(A, t, rng)

        # Step 2: data-independent covering, then the nearest-point partition.
        spacing = alpha / math.sqrt(t)
        points = enumerate_lattice_ball(t, spacing, 1.0 + alpha / 2.0, max_points=_MAX_CELLS)
        s = points.shape[0]
        if s * p > _MAX_RELEASE_ENTRIES:
            raise ValueError(
                f"The covering has {s} cells, so the release would hold {s} x {p} means "
                f"(more than {_MAX_RELEASE_ENTRIES} entries); reduce t (got {t}) or "
                f"increase alpha (got {alpha:.4g})."
            )
        cell = lattice_point_index(points, round_to_lattice((X @ components) / math.sqrt(p),
                                                            spacing))

        # Step 3: damped microaggregation, ỹ_j = Σ_{i∈F_j} x_i / max(|F_j|, b).
        counts = np.bincount(cell, minlength=s).astype(np.float64)
        membership = sp.csr_matrix((np.ones(n), (cell, np.arange(n))), shape=(s, n))
        damped = (membership @ X) / np.maximum(counts, b)[:, None]

        # Step 4: Laplace noise (Theorem 5.12).
        weights_noisy, weight_scale = laplace_mechanism(
            counts / n, self._weight_sensitivity(n), eps_step, rng
        )
        means_noisy, mean_scale = laplace_mechanism(
            damped, self._mean_sensitivity(p, b), eps_step, rng
        )

        # Step 5: metric projections onto the simplex and the cube (post-processing).
        positive = np.maximum(weights_noisy, 0.0)
        total = positive.sum()
        self.weights_ = positive / total if total > 0 else np.full(s, 1.0 / s)
        self.records_ = np.clip(means_noisy, 0.0, 1.0)

        self.components_ = components
        self.lattice_points_ = points
        self.epsilon_ = epsilon
        self.t_ = t
        self.alpha_ = alpha
        self.b_ = b
        self.n_cells_ = s
        self.projection_beta_ = beta
        self.weight_noise_scale_ = weight_scale
        self.mean_noise_scale_ = mean_scale
        self.privacy_report_ = self._build_report(n, p, t, b, beta, weight_scale, mean_scale)
        return self

    @staticmethod
    def _weight_sensitivity(n):
        return 2.0 / n

    @staticmethod
    def _mean_sensitivity(p, b):
        return 4.0 * p / b

    def _build_report(self, n, p, t, b, beta, weight_scale, mean_scale):
        eps = self.epsilon_
        report = PrivacyReport(mechanism="NoisyMicroaggregation (seed 000, Algorithm 4)")
        report.add("projection", "t Bingham draws", beta, eps / 3, None, "")
        report.add("weights", "Laplace", 2.0 / n, eps / 3, weight_scale, "")
        report.add("means", "Laplace", 4.0 * p / b, eps / 3, mean_scale, "")
        return report

    def privacy_report(self):
        """Return the :class:`~skprivsynth.privacy.PrivacyReport` of the last fit."""
        check_is_fitted(self)
        return self.privacy_report_

    def _candidates(self):
        return self.records_, self.weights_, True
