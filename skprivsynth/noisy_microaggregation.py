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
from .privacy import NOISE_OPTIONS, PrivacyReport, check_epsilon, laplace_mechanism

__all__ = ["NoisyMicroaggregation", "cell_statistics", "noisy_microaggregation_parameters"]

# Largest number of released cells, and of entries of the released s x p matrix of
# noisy cell means (8 bytes each: 400 MB).  Checked before anything of that size is
# allocated.
_MAX_CELLS = 1_000_000
_MAX_RELEASE_ENTRIES = 50_000_000


def _covering_size(t, alpha, limit):
    """Number of cells of the covering, or ``limit + 1`` if it has more than ``limit``."""
    try:
        return enumerate_lattice_ball(
            t, alpha / math.sqrt(t), 1.0 + alpha / 2.0, max_points=limit
        ).shape[0]
    except ValueError:
        return limit + 1


def noisy_microaggregation_parameters(n_samples, n_features, epsilon, t=None, alpha=None):
    """The ``"auto"`` choice of ``t``, ``alpha`` and ``b`` from public ``n``, ``p``, ``ε``.

    The formulas (reasoning in the Notes of :class:`NoisyMicroaggregation`):

    * cell budget ``s_max = max(3, min(⌊n·ε/(480·p)⌋ + 1, ⌊n^{1/3}⌋))``: the paper's
      ``s ≤ n^κ`` with ``κ = 1/3`` (Remark 5.16) and, at small ``n·ε``, far fewer
      cells than ``n·ε`` (the weight noise then puts an expected mass of only
      ``≈ 3·s/(n·ε) ≤ 1/(160·p)`` on empty cells);
    * ``t = 2`` when ``s_max ≥ 9`` (room for at least a 3 x 3 grid) and ``p ≥ 2``,
      else ``t = 1`` — unless given;
    * ``alpha`` = the smallest value (finest covering) whose enumerated covering has at
      most ``s_max`` cells (bisection on ``log α``; the count is non-increasing in α);
    * ``b = min(n, 2·n/s, 1920·p/ε)`` with ``s`` the number of cells: a cell holding
      at least twice the average load is never damped, and the Laplace scale
      ``12·p/(b·ε)`` of an undamped mean coordinate is at least ``1/160`` only when
      a smaller ``b`` is forced by ``n/s``.

    Parameters
    ----------
    n_samples, n_features : int
    epsilon : float
    t : int, optional
        A user-fixed dimension; the auto ``alpha`` is then chosen for it.
    alpha : float, optional
        A user-fixed covering accuracy; the auto ``b`` is then chosen for its covering.

    Returns
    -------
    t : int
    alpha : float
    b : float

    Examples
    --------
    >>> t, alpha, b = noisy_microaggregation_parameters(48842, 94, 10.0)
    >>> t, round(alpha, 3), round(b)
    (2, 1.094, 10854)
    """
    n, p = int(n_samples), int(n_features)
    s_max = min(math.floor(n * epsilon / (480.0 * p)) + 1, math.floor(n ** (1.0 / 3.0)))
    s_max = int(max(3, min(s_max, _MAX_CELLS, _MAX_RELEASE_ENTRIES // p)))
    if t is None:
        t = 2 if (s_max >= 9 and p >= 2) else 1
    if alpha is None:
        lo, hi = math.log(1e-3), math.log(1e3)
        if _covering_size(t, math.exp(lo), s_max) <= s_max:
            hi = lo
        else:
            for _ in range(60):
                mid = (lo + hi) / 2.0
                if _covering_size(t, math.exp(mid), s_max) <= s_max:
                    hi = mid
                else:
                    lo = mid
        alpha = math.exp(hi)
    s = _covering_size(t, alpha, _MAX_CELLS)
    b = float(max(1.0, min(n, 2.0 * n / s, 1920.0 * p / epsilon)))
    return t, alpha, b


def cell_statistics(X, components, alpha, b):
    """Covering cells, cell counts and damped cell means (steps 2–3 of Algorithm 4).

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Data in ``[0, 1]^p`` (0/1 units; the partition uses the scaled rows ``x/√p``).
    components : ndarray of shape (p, t)
        Orthonormal basis of the projection.
    alpha : float
        Covering accuracy: lattice ``(α/√t)·Z^t`` inside the ball of radius ``1 + α/2``.
    b : float
        Damping level.

    Returns
    -------
    points : ndarray of shape (s, t), int64
        All cells (integer lattice coordinates), empty ones included.
    counts : ndarray of shape (s,)
        ``|F_j|``.
    damped : ndarray of shape (s, p)
        ``ỹ_j = Σ_{i∈F_j} x_i / max(|F_j|, b)`` in 0/1 units (0 for empty cells).

    Raises
    ------
    ValueError
        Naming ``t`` and ``alpha`` when the covering would exceed 10⁶ cells or the
        release ``s·p`` would exceed 5·10⁷ entries (checked before allocating).
    """
    n, p = X.shape
    t = components.shape[1]
    spacing = alpha / math.sqrt(t)
    try:
        points = enumerate_lattice_ball(t, spacing, 1.0 + alpha / 2.0, max_points=_MAX_CELLS)
    except ValueError as exc:
        raise ValueError(
            f"The covering for t={t} and alpha={alpha:.4g} has more than {_MAX_CELLS} cells; "
            "reduce t or increase alpha."
        ) from exc
    s = points.shape[0]
    if s * p > _MAX_RELEASE_ENTRIES:
        raise ValueError(
            f"The covering for t={t} and alpha={alpha:.4g} has {s} cells, so the release "
            f"would hold {s} x {p} means (more than {_MAX_RELEASE_ENTRIES} entries); "
            "reduce t or increase alpha."
        )
    # Nearest-point partition of the scaled projections (norm <= 1): coordinate
    # rounding, which always lands on an enumerated point.
    projected = (X @ components) / math.sqrt(p)
    cell = lattice_point_index(points, round_to_lattice(projected, spacing))
    counts = np.bincount(cell, minlength=s).astype(np.float64)
    membership = sp.csr_matrix((np.ones(n), (cell, np.arange(n))), shape=(s, n))
    damped = np.asarray(membership @ X) / np.maximum(counts, b)[:, None]
    return points, counts, damped


class NoisyMicroaggregation(BaseSynthesizer):
    """ε-differentially private synthetic data by noisy microaggregation.

    Algorithm 4 of Boedihardjo, Strohmer and Vershynin (seed 000, Sect. 5): rows are
    partitioned by a *private* PCA projection and a data-independent lattice
    covering; the cell weights and the damped cell means are released with Laplace
    noise, projected back to the simplex and the cube, and synthetic records are
    drawn by bootstrap and randomized rounding.  The mechanism is
    ``epsilon``-differentially private for the **replace-one** neighbouring relation
    (datasets of the same public size ``n`` differing in one row).

    Input: data in ``[0, 1]^p`` (Boolean, or fractional).  The rows are scaled by the
    data-independent factor ``1/√p`` so that they lie in the unit ball (never by the
    data's own maximal norm, which would leak).

    Steps and privacy budget ``ε = ε/3 + ε/3 + ε/3`` (Theorem 5.12):

    1. **Private projection (ε/3).**  ``S = (1/n) Σ (x_i/√p)(x_i/√p)ᵀ`` and
       ``A = (n·ε/(6t))·S``; ``V = PROJ(A, t)``: ``t`` successive Bingham draws
       (density ``∝ exp(vᵀAv)``) on orthogonal complements
       (:func:`~skprivsynth._math.bingham.private_pca`).  For neighbours
       ``‖S − S'‖ ≤ 1/n`` (a difference of two PSD rank-one terms of norm ≤ 1), so
       ``‖A − A'‖ ≤ ε/(6t)``; each draw is ``2·ε/(6t)``-DP (exponent and normalising
       constant each move by at most ``e^{ε/(6t)}``) and ``t`` draws compose to ``ε/3``.
    2. **Covering.**  All points of ``(α/√t)·Z^t`` in the ball of radius ``1 + α/2``
       (an α-covering of the unit ball of ``ran V``), enumerated independently of the
       data: ``s = n_cells_`` released cells, empty ones included.  The cell of a row
       is the coordinate rounding of ``Vᵀx_i/√p``.
    3. **Damped means** (Sect. 5.4): ``w_j = |F_j|/n`` and
       ``ỹ_j = Σ_{i∈F_j} x_i / max(|F_j|, b)`` (``0`` for empty cells).
    4. **Noise.**  ``w + ρ`` with ``ρ_j ~ Lap(6/(n·ε))`` on all ``s`` cells: a
       replaced row moves between at most two cells, ``‖Δw‖₁ ≤ 2/n``, and ``ε/3``
       gives scale ``(2/n)/(ε/3)``.  ``ỹ_j + r_j`` with every coordinate
       ``~ Lap(12·p/(b·ε))`` in 0/1 units: by Lemmas 5.10–5.11 each of the at most two
       changed means moves by at most ``2·max‖x‖₁/b`` and ``‖x‖₁ ≤ √p`` in scaled
       units, so ``‖Δ(ỹ_1..ỹ_s)‖₁ ≤ 4√p/b`` (scaled) ``= 4p/b`` (0/1 units), and
       ``ε/3`` gives scale ``(4p/b)/(ε/3)``.  Given ``V`` the two releases compose to
       ``2ε/3``; with step 1, ``ε`` in total.
    5. **Projections** (post-processing): negative weights to 0 then normalise (all
       non-positive: uniform); means clipped to ``[0, 1]^p``.
    6. :meth:`sample`: bootstrap of the cells by weight and randomized rounding of each
       coordinate (Sect. 5.9–5.10) — post-processing, no extra privacy cost.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget (``0 < ε < ∞``), split in three equal parts.
    t : int or "auto", default="auto"
        Dimension of the private projection, ``1 <= t <= n_features``.
    alpha : float or "auto", default="auto"
        Covering accuracy: lattice spacing ``α/√t``, ball radius ``1 + α/2``.
        Smaller ``α`` means more (finer) cells; the count ``s`` grows like
        ``(√t/α)^t``.
    b : float or "auto", default="auto"
        Damping level ``b >= 1``: cells with fewer than ``b`` rows have their mean
        shrunk by ``|F_j|/b``; the mean noise scale is ``12·p/(b·ε)``.
    noise : {"continuous", "discrete"}, default="continuous"
        Laplace sampler used by :func:`~skprivsynth.privacy.laplace_mechanism`
        (``"discrete"``: floating-point-safe grid release).
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the fit (projection and noise) and of the default sampling stream.

    Attributes
    ----------
    epsilon_ : float
        Privacy budget spent by ``fit`` (``sample`` spends none).
    t_, alpha_, b_ : int, float, float
        Parameters used (resolved from ``"auto"``).
    n_cells_ : int
        Number ``s`` of released cells (all lattice points, empty ones included).
    components_ : ndarray of shape (n_features, t)
        Orthonormal basis of the private projection.
    lattice_points_ : ndarray of shape (n_cells, t)
        Integer coordinates of the cells (lattice point = ``(α/√t)·k``).
    records_ : ndarray of shape (n_cells, n_features)
        Released noisy cell means, clipped to ``[0, 1]``.
    weights_ : ndarray of shape (n_cells,)
        Released noisy weights projected onto the simplex.
    projection_beta_ : float
        ``ε/(6t)``: bound on ``‖A − A'‖`` for neighbours.
    weight_noise_scale_ : float
        Laplace scale of the weights, ``6/(n·ε)``.
    mean_noise_scale_ : float
        Laplace scale of each mean coordinate (0/1 units), ``12·p/(b·ε)``.
    privacy_report_ : PrivacyReport
        Step-by-step derivation; also returned by :meth:`privacy_report`.
    n_features_in_, feature_names_in_, n_samples_fit_
        As usual.

    Notes
    -----
    **Choice of the "auto" parameters** (only ``n``, ``p``, ``ε`` are used — never the
    data; see :func:`noisy_microaggregation_parameters`).  The paper's asymptotic
    choice (Sect. 5.8, Remark 5.16: ``κ = 1/3``, ``s ≤ n^κ``,
    ``t ≈ κ·log n / log log n``) balances the damping error ``≈ s·b/n`` against the
    mean-noise error ``≈ p/(b·ε)``, i.e. ``b ≈ √(p·n/(s·ε))``.  At realistic sizes this
    gives a per-coordinate noise ``12p/(bε)`` far above 1 (Adult, ``p = 94``, ``ε = 1``,
    ``s = 35``: ``b ≈ 360``, noise scale ≈ 3), which destroys every marginal once the
    means are clipped to the cube.  The auto rule keeps the paper's ``s ≤ n^{1/3}``
    but also ``s ≲ n·ε/(480·p)``, and takes ``b`` as large as is safe: ``2n/s`` (a
    cell with twice the average load is never damped) but no larger than needed for
    a mean noise of ``1/160`` per coordinate (``1920·p/ε``).  ``t = 2`` once
    ``s_max ≥ 9``: the top eigenvector of the *uncentred* second moment is close to
    the mean direction and separates rows poorly; the second one carries the main
    direction of variation, and further dimensions multiply the number of (mostly
    empty) cells.  The constants were chosen on the Boolean-cube 2-way marginals of
    Adult (``BooleanEncoder(max_bins=8)``, ``p = 94``) and of a synthetic one-factor
    data set, for ε from 0.1 to 1000.  The guarantee of Theorem 5.15 is asymptotic:
    with ``n`` in the tens of thousands the release is close to a noisy product of
    1-way marginals; correlations are learned only when ``n·ε ≫ 10³·p``, and the error
    is not monotone in ε at every step (cell boundaries and the private projection
    are random).

    **Complexity.**  ``O(n·p² + t·p³)`` time for ``XᵀX`` and the Bingham draws
    (one ``eigh`` per draw; O(p) per rejection proposal, a bounded expected number
    of proposals), ``O(n·p·t + s·t)`` for the covering and the partition, and
    ``O(n·p + s·p)`` memory.  The covering is enumerated dimension by dimension and
    refused with an error naming ``t`` / ``alpha`` before it exceeds 10⁶ cells (or
    ``s·p`` exceeds 5·10⁷ released entries).

    References
    ----------
    M. Boedihardjo, T. Strohmer, R. Vershynin, "Covariance's loss is privacy's gain:
    computationally efficient, private and accurate synthetic data", Found. Comput.
    Math. (2022): Algorithm 4, Theorem 5.12 (privacy), Lemmas 5.10–5.11
    (sensitivities), Sect. 5.8 and Remark 5.16 (parameters).
    M. Kapralov, K. Talwar, "On differentially private low rank approximation",
    SODA 2013 (PVEC).  J. T. Kent, A. M. Ganeiber, K. V. Mardia, "A new unified
    approach for the simulation of a wide class of directional distributions",
    JCGS 27(2), 2018 (Bingham sampler).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.noisy_microaggregation import NoisyMicroaggregation
    >>> X = (np.random.default_rng(0).random((5000, 6)) < 0.3).astype(float)
    >>> est = NoisyMicroaggregation(epsilon=2.0, random_state=0).fit(X)
    >>> est.sample(4).shape, est.epsilon_
    ((4, 6), 2.0)
    """

    _input_domain = "unit"

    _parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "t": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "alpha": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "b": [Interval(Real, 1, None, closed="left"), StrOptions({"auto"})],
        "noise": [StrOptions(set(NOISE_OPTIONS))],
        "random_state": ["random_state"],
    }

    def __init__(
        self, epsilon=1.0, t="auto", alpha="auto", b="auto", noise="continuous",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.t = t
        self.alpha = alpha
        self.b = b
        self.noise = noise
        self.random_state = random_state

    def _resolve_parameters(self, n, p, epsilon):
        if self.t != "auto" and self.t > p:
            raise ValueError(
                f"t must be at most n_features = {p} (the dimension of the data); "
                f"got t={self.t!r}."
            )
        t, alpha, auto_b = noisy_microaggregation_parameters(
            n,
            p,
            epsilon,
            t=None if self.t == "auto" else int(self.t),
            alpha=None if self.alpha == "auto" else float(self.alpha),
        )
        b = auto_b if self.b == "auto" else float(self.b)
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

        # Steps 2-3: data-independent covering, partition, damped means.
        points, counts, damped = cell_statistics(X, components, alpha, b)
        s = points.shape[0]

        # Step 4: Laplace noise (Theorem 5.12), eps/3 each, on every cell (empty too).
        # Weights: a replaced row leaves one cell and enters one: ||Δw||_1 <= 2/n,
        # scale (2/n)/(ε/3) = 6/(nε).
        weights_noisy, weight_scale = laplace_mechanism(
            counts / n, 2.0 / n, eps_step, rng, noise=self.noise
        )
        # Means: at most two damped means change, each by <= 2·max_i||x_i||_1 / b
        # (Lemmas 5.10-5.11); ||x||_1 <= p in 0/1 units (= sqrt(p) scaled), so
        # ||Δ(ỹ_1..ỹ_s)||_1 <= 4p/b and the scale is (4p/b)/(ε/3) = 12p/(bε).
        means_noisy, mean_scale = laplace_mechanism(
            damped, 4.0 * p / b, eps_step, rng, noise=self.noise
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

    def _build_report(self, n, p, t, b, beta, weight_scale, mean_scale):
        eps = self.epsilon_
        report = PrivacyReport(mechanism="NoisyMicroaggregation (seed 000, Algorithm 4)")
        report.add(
            "projection V = PROJ(A, t)",
            f"{t} Bingham draw(s) (exponential mechanism, density ∝ exp(vᵀAv))",
            beta,
            eps / 3.0,
            None,
            f"A = (nε/(6t))·S with S = (1/n)Σ(x_i/√p)(x_i/√p)ᵀ; replacing one row changes "
            f"S by a difference of two PSD rank-one terms of norm <= 1, so ||S − S'|| <= "
            f"1/n and ||A − A'|| <= ε/(6t) = {beta:.6g}; each draw is 2·ε/(6t)-DP "
            f"(exponent and normalising constant), {t} draws compose to ε/3 "
            "(seed 000, Lemma 5.3, Thm 5.12).",
        )
        report.add(
            "cell weights w + ρ",
            f"Laplace on all {self.n_cells_} cells (empty ones included)",
            2.0 / n,
            eps / 3.0,
            weight_scale,
            f"given V the cells are fixed; a replaced row leaves one cell and enters one: "
            f"||Δw||_1 <= 2/n = {2.0 / n:.6g}; scale (2/n)/(ε/3) = 6/(nε) = "
            f"{weight_scale:.6g}.",
        )
        report.add(
            "damped cell means ỹ + r",
            f"Laplace on all {self.n_cells_} x {p} mean coordinates",
            4.0 * p / b,
            eps / 3.0,
            mean_scale,
            f"ỹ_j = Σ_(i∈F_j) x_i / max(|F_j|, b), b = {b:.6g}; at most two means change, "
            "each by <= 2·max||x_i||_1/b (Lemmas 5.10-5.11) with ||x||_1 <= p in 0/1 units "
            f"(√p scaled): ||Δỹ||_1 <= 4p/b = {4.0 * p / b:.6g}; scale (4p/b)/(ε/3) = "
            f"12p/(bε) = {mean_scale:.6g}.  Projections to the simplex and the cube and "
            "the bootstrap + randomized rounding of sample() are post-processing.",
        )
        return report

    def privacy_report(self):
        """Return the :class:`~skprivsynth.privacy.PrivacyReport` of the last fit."""
        check_is_fitted(self)
        return self.privacy_report_

    def _candidates(self):
        check_is_fitted(self)
        return self.records_, self.weights_, True
