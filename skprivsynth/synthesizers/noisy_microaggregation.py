"""ε-differentially private noisy microaggregation.

Algorithm 4 of Boedihardjo, Strohmer and Vershynin, "Covariance's loss is privacy's gain:
computationally efficient, private and accurate synthetic data" (Sect. 5).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._math.bingham import private_pca
from .._math.lattice import enumerate_lattice_ball, lattice_point_index, round_to_lattice
from ..base import BaseSynthesizer
from ..privacy import NOISE_OPTIONS, PrivacyCost, PrivacyReport, check_epsilon
from ..releases import release_primitive

__all__ = [
    "NoisyMicroaggregation",
    "cell_statistics",
    "noisy_microaggregation_parameters",
    "rescale_rows_l1",
    "vector_sensitivity_numerator",
]

private_pca = release_primitive("Bingham projection", public=("t",), shapes=("A",))(private_pca)

# Largest number of released cells, and of entries of the released s x p matrix of
# noisy cell means (8 bytes each: 400 MB).  Checked before anything of that size is
# allocated.
_MAX_CELLS = 1_000_000
_MAX_RELEASE_ENTRIES = 50_000_000
# Constants of the "auto" rule (noisy_microaggregation_parameters): s_max ~ n·ε/(480·L),
# b <= 960·L/ε (a mean-noise scale 6L/(bε) of at least 1/160).
_CELL_CONSTANT = 480.0
_B_CONSTANT = 960.0


def _covering_size(t, alpha, limit):
    """Number of cells of the covering, or ``limit + 1`` if it has more than ``limit``."""
    try:
        return enumerate_lattice_ball(
            t, alpha / math.sqrt(t), 1.0 + alpha / 2.0, max_points=limit
        ).shape[0]
    except ValueError:
        return limit + 1


def vector_sensitivity_numerator(n_features, row_l1_bound=None):
    """``L = min(2·B, p)``: the damped-mean sensitivity is ``2·L/b`` (0/1 units).

    Parameters
    ----------
    n_features : int
        ``p``.
    row_l1_bound : float or None, default=None
        Declared public bound ``B`` on ``‖x_i‖₁``; ``None`` (or any ``B >= p``) is
        the cube's own bound ``B = p``.

    Returns
    -------
    L : float
        ``min(2·min(B, p), p)``; the ℓ1 sensitivity of all damped cell means
        together is ``‖Δ(ỹ_1..ỹ_s)‖₁ <= 2·L/b`` (derivation in
        :class:`NoisyMicroaggregation`, step 4).

    Examples
    --------
    >>> vector_sensitivity_numerator(94, 14), vector_sensitivity_numerator(94)
    (28.0, 94.0)
    """
    p = float(n_features)
    bound = p if row_l1_bound is None else min(float(row_l1_bound), p)
    return min(2.0 * bound, p)


def rescale_rows_l1(X, row_l1_bound):
    """Rows of ``X`` (in ``[0, 1]^p``) with ``‖x_i‖₁ > B`` rescaled to ``‖x_i‖₁ = B``.

    The DP-safe way to *enforce* a declared bound ``B = row_l1_bound``: each row is
    mapped on its own, ``x ↦ x·min(1, B/‖x‖₁)`` (it stays in ``[0, 1]^p``), so two
    datasets differing in one row are mapped to datasets differing in (at most) the
    same row, and every sensitivity derived for rows with ``‖x‖₁ <= B`` holds for the
    mapped data whatever the input.  Raising an error (or warning, or recording how
    many rows were rescaled) when a row violates ``B`` would instead make the
    output depend on one row with probability 1 — not differentially private.  Rows
    within the bound (e.g. one-hot rows with exactly ``B`` ones) are returned
    unchanged.  Floating point: the factor ``B/s`` (``s`` the float row sum) is
    shrunk by the public ``1 − 4(p + 4)·2⁻⁵³``, which absorbs the rounding of the sum
    (relative ``<= p·2⁻⁵³``), of the division and of the products, so the *exact* ℓ1
    norm of every stored rescaled row is ``<= B``.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Data in ``[0, 1]^p`` (non-negative, so ``‖x_i‖₁`` is the row sum).
    row_l1_bound : float
        ``B > 0``.

    Returns
    -------
    ndarray of shape (n, p), float64
        A new array when some row was rescaled, else ``X`` itself (as float64).

    Examples
    --------
    >>> import numpy as np
    >>> rescale_rows_l1(np.array([[1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 1.0, 0.0]]), 2).tolist()
    [[0.5, 0.5, 0.5, 0.5], [1.0, 0.0, 1.0, 0.0]]
    """
    bound = float(row_l1_bound)
    if not (math.isfinite(bound) and bound > 0):
        raise ValueError(f"row_l1_bound must be a positive finite number; got {row_l1_bound!r}.")
    X = np.asarray(X, dtype=np.float64)
    norms = X.sum(axis=1)
    over = norms > bound
    # A float row sum can round down onto B: rows within its rounding error of B are
    # decided exactly (math.fsum is correctly rounded, so its sign is the exact one).
    for i in np.flatnonzero(~over & (norms > bound * (1.0 - (X.shape[1] + 2) * 2.0**-53))):
        over[i] = math.fsum([*X[i].tolist(), -bound]) > 0
    if not over.any():
        return X
    shrink = 1.0 - 4.0 * (X.shape[1] + 4) * 2.0**-53  # public, see above
    X = X.copy()
    X[over] *= ((bound / norms[over]) * shrink)[:, None]
    return X


def noisy_microaggregation_parameters(
    n_samples, n_features, epsilon, t=None, alpha=None, row_l1_bound=None
):
    """The ``"auto"`` choice of ``t``, ``alpha`` and ``b`` from public ``n``, ``p``, ``ε``, ``B``.

    With ``L = min(2B, p)`` (:func:`vector_sensitivity_numerator`; ``L = p`` without a
    declared bound) the mean-noise scale is ``6·L/(b·ε)`` per coordinate.  The
    formulas (reasoning in the Notes of :class:`NoisyMicroaggregation`):

    * cell budget ``s_max = max(3, min(⌊n·ε/(480·L)⌋ + 1, ⌊n^{1/3}⌋))``: the paper's
      ``s ≤ n^κ`` with ``κ = 1/3`` (Remark 5.16) and, at small ``n·ε``, far fewer
      cells than ``n·ε`` (the weight noise then puts an expected mass of only
      ``≈ 3·s/(n·ε) ≤ 1/(160·L)`` on empty cells), and ``2n/s_max ≈ 960·L/ε``: the
      load that the ``b`` below needs;
    * ``t = 2`` when ``s_max ≥ 9`` (room for at least a 3 x 3 grid) and ``p ≥ 2``,
      else ``t = 1`` — unless given;
    * ``alpha`` = the smallest value (finest covering) whose enumerated covering has at
      most ``s_max`` cells (bisection on ``log α``; the count is non-increasing in α);
    * ``b = min(n, 2·n/s, 960·L/ε)`` with ``s`` the number of cells: a cell holding
      at least twice the average load is never damped, and the Laplace scale
      ``6·L/(b·ε)`` of an undamped mean coordinate is at least ``1/160`` only when
      a smaller ``b`` is forced by ``n/s``.

    Parameters
    ----------
    n_samples, n_features : int
    epsilon : float
    t : int, optional
        A user-fixed dimension; the auto ``alpha`` is then chosen for it.
    alpha : float, optional
        A user-fixed covering accuracy; the auto ``b`` is then chosen for its covering.
    row_l1_bound : float, optional
        Declared public bound ``B`` on ``‖x_i‖₁`` (``None``: ``B = p``).

    Returns
    -------
    t : int
    alpha : float
    b : float

    Examples
    --------
    >>> t, alpha, b = noisy_microaggregation_parameters(48842, 94, 10.0)
    >>> t, round(alpha, 3), round(b)
    (2, 1.094, 9024)
    >>> t, alpha, b = noisy_microaggregation_parameters(48842, 94, 10.0, row_l1_bound=14)
    >>> t, round(alpha, 3), round(b)
    (2, 0.576, 2688)
    """
    n, p = int(n_samples), int(n_features)
    L = vector_sensitivity_numerator(p, row_l1_bound)
    s_max = min(math.floor(n * epsilon / (_CELL_CONSTANT * L)) + 1, math.floor(n ** (1.0 / 3.0)))
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
    b = float(max(1.0, min(n, 2.0 * n / s, _B_CONSTANT * L / epsilon)))
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
    p = X.shape[1]
    points = _covering(p, components.shape[1], alpha)
    counts, sums = _CellSums(components, points, alpha, None)(X)
    counts = counts.astype(np.float64)
    return points, counts, sums / np.maximum(counts, b)[:, None]


def _covering(p, t, alpha):
    """The cells: lattice ``(α/√t)·Z^t`` in the ball of radius ``1 + α/2`` (public)."""
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
    return points


class _CellSums:
    """Statistic of a chunk of rows: ``(counts, sums)`` of the rows in each cell.

    Rows are first rescaled onto the declared ℓ1 bound (``bound``, None: none), a
    row-wise map; each row then falls in the cell of the nearest lattice point of its
    scaled projection ``V^T x/√p`` (norm <= 1: coordinate rounding always lands on an
    enumerated point).  ``counts`` are int64; ``sums`` (s, p) add over chunks, exactly
    for Boolean rows (integer sums).
    """

    def __init__(self, components, points, alpha, bound):
        self.components, self.points, self.bound = components, points, bound
        self.spacing = alpha / math.sqrt(components.shape[1])

    def __call__(self, X):
        X = _bound_rows(X, self.bound)
        n, p = X.shape
        s = self.points.shape[0]
        projected = (X @ self.components) / math.sqrt(p)
        cell = lattice_point_index(self.points, round_to_lattice(projected, self.spacing))
        membership = sp.csr_matrix((np.ones(n), (cell, np.arange(n))), shape=(s, n))
        return np.bincount(cell, minlength=s), np.asarray(membership @ X)


class _RowGram:
    """Statistic of a chunk of rows: ``XᵀX`` of the rows rescaled onto the declared
    ℓ1 bound (``bound``, None: none); exact over chunks for Boolean rows."""

    def __init__(self, bound):
        self.bound = bound

    def __call__(self, X):
        X = _bound_rows(X, self.bound)
        return X.T @ X


def _bound_rows(X, bound):
    return X if bound is None else rescale_rows_l1(X, bound)


class NoisyMicroaggregation(BaseSynthesizer):
    """ε-differentially private synthetic data by noisy microaggregation.

    Algorithm 4 of Boedihardjo, Strohmer and Vershynin, "Covariance's loss is privacy's
    gain: computationally efficient, private and accurate synthetic data" (Sect. 5):
    rows are partitioned by a *private* PCA projection (``ε/3``) and a data-independent
    lattice covering; the cell weights (``ε/3``) and the damped cell means (``ε/3``)
    are released with Laplace noise, projected back to the simplex and the cube, and
    synthetic records are drawn by bootstrap and randomized rounding.

    ε-DP for replace-one neighbours (same public ``n``, one row replaced; Theorem
    5.12).  Input rows lie in ``[0, 1]^p``; a declared public bound
    ``row_l1_bound = B`` on ``‖x_i‖₁`` (e.g. the number of one-hot columns) lowers the
    mean noise from ``∝ p`` to ``∝ min(2B, p)`` and is enforced row by row
    (:func:`rescale_rows_l1`).

    Read more in the :doc:`User Guide </user_guide/noisy_microaggregation>`.

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
        shrunk by ``|F_j|/b``; the mean noise scale is ``6·min(2B, p)/(b·ε)``.
    row_l1_bound : float or None, default=None
        Declared public bound ``B > 0`` on the ℓ1 norm (in 0/1 units) of every row;
        ``None`` means the cube's own bound ``B = p``, and any ``B >= p`` is
        equivalent to ``B = p``.  It must be known from the encoding, never from the
        data: for a one-hot encoding of ``m`` categorical columns (e.g.
        :class:`~skprivsynth.preprocessing.BooleanEncoder` with one-hot columns) every
        row has ``‖x‖₁ = m``.  Enforced row by row: :meth:`fit` rescales a row with
        ``‖x_i‖₁ > B`` to ``x_i·B/‖x_i‖₁`` (:func:`rescale_rows_l1`) — silently,
        because an error or a warning would depend on that single row and void the
        guarantee; a wrong (too small) ``B`` costs accuracy, never privacy.  The
        mean-noise scale becomes
        ``6·min(2B, p)/(b·ε)`` instead of ``6·p/(b·ε)``.
    noise : {"continuous", "discrete"}, default="continuous"
        Laplace sampler used by :func:`~skprivsynth.privacy.laplace_mechanism`
        (``"discrete"``: floating-point-safe grid release).
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the fit (projection and noise) and of the default sampling stream.  For tests and
        audits only: a seed known to others lets them regenerate the noise; leave it None for a
        release.
    verbose : int, default=0
        0 is silent; 1 prints one line per phase of ``fit`` with its time on
        standard error (public quantities only).

    Attributes
    ----------
    epsilon_ : float
        Privacy budget spent by ``fit`` (``sample`` spends none): ``privacy_report_.epsilon``.
    t_, alpha_, b_ : int, float, float
        Parameters used (resolved from ``"auto"``).
    n_cells_ : int
        Number ``s`` of released cells (all lattice points, empty ones included).
    components_ : ndarray of shape (n_features, t)
        Orthonormal basis of the private projection.
    lattice_points_ : ndarray of shape (n_cells, t)
        Integer coordinates of the cells (lattice point = ``(α/√t)·k``).
    records_ : ndarray of shape (n_cells, n_features)
        Candidate records: the released noisy cell means, clipped to ``[0, 1]``.
    weights_ : ndarray of shape (n_cells,)
        Released noisy weights projected onto the simplex.
    projection_beta_ : float
        ``ε/(6t)``: bound on ``‖A − A'‖`` for neighbours.
    noise_scale_ : dict
        Laplace scales of the two releases: ``"weights"``, ``6/(n·ε)``, and ``"means"``,
        each mean coordinate (0/1 units), ``6·min(2B, p)/(b·ε)``.
    sensitivity_ : dict
        L1 sensitivities of the two releases: ``"weights"``, ``‖Δw‖₁ <= 2/n``, and
        ``"means"``, ``‖Δ(ỹ_1..ỹ_s)‖₁ <= 2·min(2B, p)/b`` (0/1 units).
    row_l1_bound_ : float
        The bound ``B`` used, ``min(row_l1_bound, p)`` (``p`` for ``None``).
    privacy_report_ : PrivacyReport
        Step-by-step derivation of the release, built during ``fit``.
    n_features_in_, feature_names_in_, n_samples_fit_
        As usual.

    Notes
    -----
    The ``"auto"`` parameters use only the public ``n``, ``p``, ``ε`` and ``B``
    (:func:`noisy_microaggregation_parameters`).  Cost: ``O(n·p² + t·p³)`` time for the
    second moment and the Bingham draws, ``O(n·p·t + s·t)`` for the covering; a
    covering above 10⁶ cells is refused with an error naming ``t`` / ``alpha``.

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
    >>> from skprivsynth.synthesizers.noisy_microaggregation import NoisyMicroaggregation
    >>> X = (np.random.default_rng(0).random((5000, 6)) < 0.3).astype(float)
    >>> est = NoisyMicroaggregation(epsilon=2.0, random_state=0).fit(X)
    >>> est.sample(4).shape, est.epsilon_
    ((4, 6), 2.0)

    One-hot rows of ``m = 3`` columns have ``‖x‖₁ = 3`` (public): declare it.

    >>> onehot = np.eye(4)[np.random.default_rng(0).integers(0, 4, (5000, 3))]
    >>> X = onehot.reshape(5000, 12)
    >>> est = NoisyMicroaggregation(epsilon=2.0, row_l1_bound=3, random_state=0).fit(X)
    >>> round(est.sensitivity_["means"] * est.b_, 6)  # 2·min(2B, p) = 2·6
    12.0
    """

    _differentially_private = True
    _cli_name = "noisy-microaggregation"

    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "t": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "alpha": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "b": [Interval(Real, 1, None, closed="left"), StrOptions({"auto"})],
        "row_l1_bound": [Interval(Real, 0, None, closed="neither"), None],
        "noise": [StrOptions(set(NOISE_OPTIONS))],
    }

    def __init__(
        self,
        epsilon=1.0,
        *,
        t="auto",
        alpha="auto",
        b="auto",
        row_l1_bound=None,
        noise="continuous",
        random_state=None,
        verbose=0,
    ):
        self.epsilon = epsilon
        self.t = t
        self.alpha = alpha
        self.b = b
        self.row_l1_bound = row_l1_bound
        self.noise = noise
        self.random_state = random_state
        self.verbose = verbose

    def _row_bound(self, p):
        """The ℓ1 bound ``B`` of the rows: the declared one capped at ``p``, else ``p``.

        With a declared bound, rows above it are rescaled onto it, a row-wise map, so
        neighbouring inputs stay neighbours (no data-dependent error or warning; see
        :func:`rescale_rows_l1`).
        """
        if self.row_l1_bound is None:
            return float(p)
        return min(float(self.row_l1_bound), float(p))  # finite, > 0 (constraints)

    def _resolve_parameters(self, n, p, epsilon, row_l1_bound):
        if self.t != "auto" and self.t > p:
            raise ValueError(
                f"t must be at most n_features = {p} (the dimension of the data); got t={self.t!r}."
            )
        t, alpha, auto_b = noisy_microaggregation_parameters(
            n,
            p,
            epsilon,
            t=None if self.t == "auto" else int(self.t),
            alpha=None if self.alpha == "auto" else float(self.alpha),
            row_l1_bound=row_l1_bound,
        )
        b = auto_b if self.b == "auto" else float(self.b)
        return t, alpha, b

    def _synthesizer_tags(self):
        tags = super()._synthesizer_tags()
        tags.input_kind, tags.noise = "unit", True
        return tags

    def _fit_cost(self, n_samples, n_features):
        """Pure ``epsilon``: the report's total."""
        return PrivacyCost(epsilon=check_epsilon(self.epsilon))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release the private cell weights and cell means of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data in ``[0, 1]^p`` (Boolean or fractional); or a re-iterable source of
            chunks (:class:`~skprivsynth.Chunks`, Dask array or DataFrame), read twice
            (``XᵀX`` for the private projection, then the count and sum of each cell).
            The sums are exact for Boolean rows (the fit is then exactly the in-memory
            fit); for fractional rows they agree to floating-point rounding.
        y : None
            Ignored.

        Returns
        -------
        self

        Notes
        -----
        With a declared ``row_l1_bound = B``, rows with ``‖x_i‖₁ > B`` are rescaled to
        ``‖x_i‖₁ = B`` (:func:`rescale_rows_l1`) silently — neither an error nor a
        warning, since either would reveal that one row violates the bound.
        """
        data = self._validate_fit_source(X)
        p = data.n_features
        data.check_reiterable()  # two passes: before and after the private projection
        # Declared bound B: rows above it are rescaled onto it (row-wise, DP-safe); the
        # rescaled rows are the mechanism's input in all three steps.
        bound = self._row_bound(p)
        declared_bound = None if self.row_l1_bound is None else bound
        # Pass 1 over the data: the Gram matrix XᵀX, summed over the chunks.
        self._log()
        gram = data.reduce(_RowGram(declared_bound))
        self._log("computed the covariance of the rows (pass 1 over the data)")
        state, rng = data.fitted_state()
        n = data.n_samples
        epsilon = self._fit_budget(n, p).epsilon
        t, alpha, b = self._resolve_parameters(n, p, epsilon, bound)
        eps_step = epsilon / 3.0

        report = PrivacyReport(
            mechanism="NoisyMicroaggregation (Boedihardjo-Strohmer-Vershynin, 'Covariance's "
            "loss is privacy's gain', Algorithm 4)"
        )
        components, beta = self._release_projection(gram, p, t, epsilon, rng, report)

        # Steps 2-3: data-independent covering, partition, damped means.  Pass 2 over
        # the data: the count and the sum of the rows of each cell, summed over chunks.
        points = _covering(p, t, alpha)
        self._log(f"chose a private low-dimensional projection, cut into {points.shape[0]} cells")
        counts, sums = data.reduce(_CellSums(components, points, alpha, declared_bound))
        self._log("counted and summed the rows of each cell (pass 2 over the data)")
        s = points.shape[0]

        release = self._release_cells(counts, sums, n, p, b, bound, eps_step, rng, report)
        weights_noisy, means_noisy, scales, sensitivities = release

        # Step 5: metric projections onto the simplex and the cube (post-processing).
        positive = np.maximum(weights_noisy, 0.0)
        total = positive.sum()
        return self._set_fitted(
            state,
            weights_=positive / total if total > 0 else np.full(s, 1.0 / s),
            records_=np.clip(means_noisy, 0.0, 1.0),
            components_=components,
            lattice_points_=points,
            t_=t,
            alpha_=alpha,
            b_=b,
            n_cells_=s,
            projection_beta_=beta,
            noise_scale_=scales,
            row_l1_bound_=bound,
            sensitivity_=sensitivities,
            privacy_report_=report,
            epsilon_=report.epsilon,
        )

    def _release_projection(self, gram, p, t, epsilon, rng, report):
        """Step 1: the private projection ``V = PROJ(A, t)`` (ε/3); ``(V, β)``."""
        eps_step = epsilon / 3.0
        # Private projection (eps/3).  Rows scaled by the public 1/sqrt(p) lie
        # in the unit ball; S = (1/n) Σ (x_i/√p)(x_i/√p)ᵀ and A = (nε/(6t))·S.
        beta = epsilon / (6.0 * t)
        A = (beta / p) * gram
        components = private_pca(A, t, rng)
        report.add(
            "projection V = PROJ(A, t)",
            f"{t} Bingham draw(s) (exponential mechanism, density ∝ exp(vᵀAv))",
            beta,
            eps_step,
            None,
            f"A = (nε/(6t))·S with S = (1/n)Σ(x_i/√p)(x_i/√p)ᵀ; replacing one row changes "
            f"S by a difference of two PSD rank-one terms of norm <= 1, so ||S − S'|| <= "
            f"1/n and ||A − A'|| <= ε/(6t) = {beta:.6g}; each draw is 2·ε/(6t)-DP "
            f"(exponent and normalising constant), {t} draws compose to ε/3 "
            "(Boedihardjo-Strohmer-Vershynin, 'Covariance's loss is privacy's gain', "
            "Lemma 5.3, Theorem 5.12).",
        )
        return components, beta

    def _release_cells(self, counts, sums, n, p, b, bound, eps_step, rng, report):
        """Step 4: Laplace noise (Theorem 5.12), ε/3 each, on the weights and the damped
        means of every cell (empty ones too); ``(weights, means, scales, sensitivities)``."""
        counts = counts.astype(np.float64)
        damped = sums / np.maximum(counts, b)[:, None]
        s = counts.size
        # Weights: a replaced row leaves one cell and enters one: ||Δw||_1 <= 2/n,
        # scale (2/n)/(ε/3) = 6/(nε).
        weight_sensitivity = 2.0 / n
        weights_noisy = report.release_laplace(
            f"cell weights w + ρ (all {s} cells, empty ones included)",
            counts / n,
            weight_sensitivity,
            eps_step,
            rng,
            noise=self.noise,
            derivation="given V the cells are fixed; a replaced row leaves one cell and "
            "enters one: ||Δw||_1 <= 2/n; scale (2/n)/(ε/3) = 6/(nε)",
        )
        weight_scale = report.entries[-1]["scale"]
        # Means: at most two damped means change, each by Δ = x/m' − S(m − m')/(m m')
        # (m = max(f, b), m' = max(f − 1, b)): a difference of non-negative vectors with
        # |Δ_k| <= 1/m' <= 1/b and ||Δ||_1 <= (||x||_1 + ||S||_1/f)/b <= 2B/b, so each
        # moves by <= min(2B, p)/b (class docstring, step 4; Lemmas 5.10-5.11) and
        # ||Δ(ỹ_1..ỹ_s)||_1 <= 2·min(2B, p)/b = 2L/b; scale (2L/b)/(ε/3) = 6L/(bε).
        L = vector_sensitivity_numerator(p, bound)
        mean_sensitivity = 2.0 * L / b
        declared = self.row_l1_bound is not None
        means_noisy = report.release_laplace(
            f"damped cell means ỹ + r (all {s} x {p} coordinates)",
            damped,
            mean_sensitivity,
            eps_step,
            rng,
            noise=self.noise,
            derivation=(
                f"ỹ_j = Σ_(i∈F_j) x_i / max(|F_j|, b), b = {b:.6g}; rows in [0,1]^p with "
                f"||x_i||_1 <= B = {bound:.6g} ("
                + (
                    "declared row_l1_bound; fit rescales any row above it to norm B, row by row"
                    if declared
                    else "B = p, the cube's own bound"
                )
                + "); at most two means change; a cell of f rows losing x changes by "
                "x/m' − S(m − m')/(m m') with m = max(f, b), m' = max(f−1, b) >= b: a "
                "difference of non-negative vectors with coordinates <= 1/b and l1 norms "
                "<= B/b each, so by <= min(2B, p)/b (same for the cell gaining x', and "
                "(x' − x)/max(f, b) inside one cell; refines Lemmas 5.10-5.11): "
                f"||Δỹ||_1 <= 2·min(2B, p)/b = 2L/b (L = {L:.6g}); scale 6L/(bε). "
                "Projections to the simplex and the cube and the bootstrap + randomized "
                "rounding of sample() are post-processing"
            ),
        )
        mean_scale = report.entries[-1]["scale"]
        return (
            weights_noisy,
            means_noisy,
            {"weights": weight_scale, "means": mean_scale},
            {"weights": weight_sensitivity, "means": mean_sensitivity},
        )

    def _candidates(self):
        check_is_fitted(self)
        return self.records_, self.weights_, True
