"""PrivateSampler: noise-free ε-DP synthetic data by sampling a bounded density.

Boedihardjo, Strohmer and Vershynin's *private sampling* (Algorithm 2 of "Private
sampling: a noiseless approach for generating differentially private synthetic data")
in the LP/QP form of Pierquin, Zimmermann and Boussard ("Practical considerations on
using private sampling for synthetic data", Section 3): reweight a
data-independent random reduced space so that its low-degree Fourier coefficients
(hence all marginals of order ``≤ d``) match the data's, shrunk toward uniform just
enough for the weights to stay in a box; then release i.i.d. draws from that density.
No noise is added: privacy comes from the bounded sensitivity of the density and
holds only for a *limited number of released records* (Theorem 12.2).
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions, validate_params
from sklearn.utils.validation import check_is_fitted

from .._math.bounded_density import (
    conjunction_transpose_csc,
    proximal_qp,
    released_density,
    shrinkage_lp,
)
from .._math.row_keys import row_keys
from .._math.sampling import sample_weighted_records
from .._math.solvers import solve_lp, solve_qp
from .._math.walsh import (
    fourier_sums,
    n_walsh_functions,
    signs_to_boolean,
    smallest_singular_value,
    walsh_matrix,
    walsh_subsets,
    walsh_to_conjunction,
    well_conditioning_threshold,
)
from ..base import BaseSynthesizer
from ..exceptions import SolverError
from ..privacy import PrivacyCost, PrivacyReport, check_epsilon
from ..releases import release_primitive
from ..validation import check_n_samples

__all__ = [
    "MAX_WALSH_ENTRIES",
    "PrivateSampler",
    "epsilon_for_samples",
    "max_samples_bound",
]


@release_primitive("private sampling", public=("records", "n_samples"))
def _private_draw(records, density, n_samples, rng):
    """``n_samples`` i.i.d. draws from ``density`` on the public ``records``: the release
    of :class:`PrivateSampler` (Boedihardjo, Strohmer, Vershynin, Thm. 12.2)."""
    return sample_weighted_records(records, density, n_samples, rng, rounding=False)


#: Largest ``m · L`` (reduced-space size times number of Walsh functions of degree
#: ``≤ d``) that ``fit`` builds.  The dense ``m × L`` Walsh matrix takes 8 bytes per
#: entry (plus its ``L × L`` Gram matrix); HiGHS and OSQP get the sparse conjunction
#: matrix (~28 % of the entries at d = 2) and OSQP's KKT factor: the peak memory growth
#: of ``fit`` measured ~50-65 bytes per entry for m ≥ 10⁴ (104 MB at m = 10⁴, p = 20;
#: 347 MB at m = 10⁵, p = 10; more per entry when L is large next to m), so 2·10⁷
#: entries is ~1.3 GB.  Above it ``fit`` refuses and names ``m`` and ``degree``.
MAX_WALSH_ENTRIES = 20_000_000

# Tolerances: OSQP's absolute/relative tolerance (on the problem scaled by m, see
# ``_solve``) and the largest accepted residual |W_Sᵀh* − b|_∞ of our own check (the
# coefficients lie in [-1, 1]; 1e-7 is far below any sampling error 1/sqrt(n)).
# OSQP first runs to 1e-6 and *polishes* (solves the KKT system of the detected active
# set exactly, machine-precision residuals); only if polishing fails does it run again
# to 1e-9 from that point.  On m = 10⁴, p = 20 this halves the QP time for the same
# solution (objective equal to 13 digits, residual 3e-16).
_QP_EPS_POLISHED = 1e-6
# OSQP step size: in the scaled variable g = m·h (entries of order 1) rho = 1 needed 50
# iterations instead of 300 with OSQP's default 0.1 at m = 10^4, p = 20, d = 2 (same
# polished solution; 4.2 s instead of 6.7 s).  Accuracy is still checked after the solve.
_QP_SETTINGS = {"rho": 1.0}
_QP_EPS = 1e-9
_RESIDUAL_TOL = 1e-7
# Largest accepted violation of δ ≤ m·h ≤ Δ by OSQP's raw output (then clipped).
_BOX_TOL = 1e-6
_SOLVER_TIME_LIMIT = 600.0
# Constant on purpose: whether the solve failed depends on the data, so the warning
# carries no number and no advice to refit with another seed (selection by retry).
_FALLBACK_WARNING = (
    "PrivateSampler: the shrinkage LP or the proximal QP did not reach the accuracy the "
    "privacy guarantee needs; the density is the uniform density on the reduced space "
    "(shrinkage 1), which does not depend on the data.  Records sampled from it carry no "
    "information about X."
)


def _check_density_bounds(density_bounds):
    """Return ``(δ, Δ)`` after checking ``0 < δ < Δ`` and ``2δ ≤ 1 ≤ Δ − δ``."""
    accepted = (
        "a pair (δ, Δ) of finite reals with 0 < δ < Δ, 2δ ≤ 1 and Δ − δ ≥ 1, e.g. (0.25, 2.0)"
    )
    try:
        low, high = density_bounds
        low, high = float(low), float(high)
    except (TypeError, ValueError):
        raise ValueError(f"density_bounds must be {accepted}; got {density_bounds!r}.") from None
    if not (math.isfinite(low) and math.isfinite(high) and 0 < low < high):
        raise ValueError(f"density_bounds must be {accepted}; got {density_bounds!r}.")
    if 2 * low > 1 or high - low < 1:
        raise ValueError(
            f"density_bounds={density_bounds!r} violates 2δ ≤ 1 ≤ Δ − δ (here 2δ = {2 * low:g}, "
            f"Δ − δ = {high - low:g}); it must be {accepted}.  These conditions make the "
            "uniform density 1/m an interior point of the shrinkage box [2δ/m, (Δ − δ)/m]."
        )
    return low, high


def _sample_constant(n, m, p, degree, density_bounds):
    """``k_max / ε``: the Theorem 12.2 bound on the sample size per unit of ε."""
    low, high = _check_density_bounds(density_bounds)
    L = n_walsh_functions(p, degree)
    return (
        (1.0 / (4.0 * math.sqrt(2.0)))
        * (low / high) ** 1.5
        * math.exp(-degree / 2.0)
        * L ** (-0.25)
        * math.sqrt(n)
        / m**0.75
    )


_POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]
_BOUND_CONSTRAINTS = {
    "n": _POSITIVE_INT,
    "m": _POSITIVE_INT,
    "p": _POSITIVE_INT,
    "degree": _POSITIVE_INT,
    "density_bounds": [tuple, list],
}


@validate_params(
    {"epsilon": [Interval(Real, 0, None, closed="neither")], **_BOUND_CONSTRAINTS},
    prefer_skip_nested_validation=True,
)
def max_samples_bound(epsilon, *, n, m, p, degree, density_bounds):
    """Largest number of records whose release is ε-DP.

    Theorem 12.2 of Boedihardjo, Strohmer and Vershynin, "Private sampling: a noiseless
    approach for generating differentially private synthetic data" (Theorem 4.1 of
    Pierquin, Zimmermann and Boussard, "Practical considerations on using private
    sampling for synthetic data"):

    ``k ≤ (1/(4√2)) · ε · (δ/Δ)^{3/2} · e^{−d/2} · L^{−1/4} · sqrt(n) / m^{3/4}``
    with ``L = Σ_{j≤d} C(p, j)``.  Every quantity is public (``n`` is public under the
    replace-one relation).  The value is a real number: the number of records allowed
    is its floor, which is 0 on most real data (Pierquin et al., Table 2).

    Parameters
    ----------
    epsilon : float
        Privacy budget (> 0).
    n, m, p, degree : int
        Rows of the data, size of the reduced space, columns, degree ``d``.
    density_bounds : (float, float)
        ``(δ, Δ)``.

    Returns
    -------
    float

    Examples
    --------
    >>> from skprivsynth.synthesizers.private_sampling import max_samples_bound
    >>> round(max_samples_bound(1.0, n=10**8, m=1000, p=10, degree=2,
    ...                         density_bounds=(0.5, 1.5)), 4)
    0.2573
    """
    epsilon = check_epsilon(epsilon)
    return epsilon * _sample_constant(n, m, p, degree, density_bounds)


@validate_params(
    {"n_samples": _POSITIVE_INT, **_BOUND_CONSTRAINTS},
    prefer_skip_nested_validation=True,
)
def epsilon_for_samples(n_samples, *, n, m, p, degree, density_bounds):
    """Privacy cost ε of releasing ``n_samples`` records: the inverse of :func:`max_samples_bound`.

    ``ε = n_samples · 4√2 · (Δ/δ)^{3/2} · e^{d/2} · L^{1/4} · m^{3/4} / sqrt(n)``.
    """
    return n_samples / _sample_constant(n, m, p, degree, density_bounds)


class PrivateSampler(BaseSynthesizer):
    """Noise-free ε-DP synthetic Boolean data by private sampling, with a hard release cap.

    Algorithm 2 of Boedihardjo, Strohmer and Vershynin, "Private sampling: a noiseless
    approach for generating differentially private synthetic data", in the LP/QP form
    of Pierquin, Zimmermann and Boussard, "Practical considerations on using private
    sampling for synthetic data" (Sect. 3).  A well-conditioned reduced space of ``m``
    uniform points is drawn without looking at the data; a shrinkage LP and a proximal
    QP find the density ``h*`` on it, within ``[δ/m, Δ/m]``, whose low-degree Fourier
    coefficients match the data's shrunk toward uniform; :meth:`sample` draws i.i.d.
    points from ``h*``.

    No noise is added.  The records released by :meth:`sample` are ε-DP for replace-one
    neighbours (same public ``n``) as long as their total number ``k`` satisfies
    Theorem 12.2 of Boedihardjo et al. (Theorem 4.1 of Pierquin et al.)

        ``k ≤ (1/(4√2)) · ε · (δ/Δ)^{3/2} · e^{−d/2} · L^{−1/4} · sqrt(n) / m^{3/4}``,

    ``L = Σ_{j≤d} C(p, j)``.  The cap is on the total over all calls
    (``max_samples_``); on real data it is often 0 records, and :meth:`sample` then
    refuses and says what would allow the request.  The fitted ``weights_``,
    ``shrinkage_`` and ``fourier_coefficients_`` are **not private**: publish only the
    output of :meth:`sample`.

    Read more in the :doc:`User Guide </user_guide/private_sampling>`.

    Parameters
    ----------
    epsilon : float or None, default=1.0
        Total privacy budget of the released records.  ``None`` requires ``n_samples``
        and then the budget is whatever releasing ``n_samples`` records costs.
    m : int or "auto", default="auto"
        Size of the reduced space; at least ``L`` (else ``W_S`` cannot have full rank).
        Larger ``m`` lowers the allowed sample size like ``m^{-3/4}``.  ``"auto"``:
        ``max(1000, 2L)`` from the public ``L`` (a reduced space twice the number of
        Walsh functions was well conditioned at the first draw on every width we
        measured from 20 to 40 columns at degree 2 and 12 at degree 3).
    degree : int, default=2
        Degree ``d`` of the matched marginals (``1 ≤ d ≤ p``).
    density_bounds : (float, float), default=(0.25, 2.0)
        ``(δ, Δ)``: the density is kept in ``[δ/m, Δ/m]``.  Needs
        ``0 < δ < Δ`` and ``2δ ≤ 1 ≤ Δ − δ``.  A wider box matches the data with less
        shrinkage but allows fewer records (``(δ/Δ)^{3/2}`` in the bound).
    n_samples : int or None, default=None
        Planned number of released records: the default size of :meth:`sample`, and the
        budget when ``epsilon=None``.  With an ``epsilon``, a fit whose Theorem 12.2
        cap (a function of ``epsilon``, ``n``, ``m``, ``p``, ``degree`` and
        ``density_bounds``, all public) is below ``n_samples`` is refused before any
        work, with the ε, ``n`` or ``m`` that would allow it.  ``None``: :meth:`sample`
        releases by default all the records the budget still allows.
    max_tries : int, default=10
        Draws of the reduced space before giving up on the well-conditioning test.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the reduced space (fit) and the release (:meth:`sample`).  For tests and audits only:
        a seed known to others lets them regenerate the draws; leave it None for a release.
    verbose : int, default=0
        0 is silent; 1 prints one line per phase of ``fit`` with its time on
        standard error (public quantities only).

    Attributes
    ----------
    records_ : ndarray of shape (m, p)
        Candidate records: the reduced space ``S``, points of ``{0,1}^p``
        (data-independent).
    n_walsh_functions_ : int
        ``L``.
    sigma_min_ : float
        ``σ_min(W_S)`` of the accepted reduced space.
    well_conditioning_threshold_ : float
        ``sqrt(m)/(2e^d)``.
    n_tries_ : int
        Reduced spaces drawn until one was well conditioned.
    fourier_coefficients_ : ndarray of shape (L,)
        ``c`` (not private).
    shrinkage_ : float
        ``λ*`` from the LP (not private); 0 means the data's coefficients are matched.
    weights_ : ndarray of shape (m,)
        The density ``h*`` (not private): probabilities of the points of ``records_``.
    solver_status_ : dict
        Statuses of the two solves: ``"lp"`` (HiGHS, shrinkage LP) and ``"qp"`` (OSQP,
        proximal QP).
    solve_time_ : dict
        Wall times in seconds of the two solves, keys ``"lp"`` and ``"qp"``.
    qp_iterations_ : int
    qp_polished_ : bool
        Whether OSQP's polishing succeeded.
    qp_primal_residual_, qp_dual_residual_ : float
        OSQP's residuals (on the problem scaled by ``m``).
    constraint_residual_ : float
        Our check ``max |W_Sᵀh* − ((1−λ*)c + λ*·W_Sᵀu)|`` (≤ 1e-7, else the fallback).
    box_violation_ : float
        Largest violation of ``δ/m ≤ h ≤ Δ/m`` by the raw solver output, in units of
        ``1/m`` (≤ 1e-6, else the fallback; the stored ``weights_`` is clipped to the
        box and its sum corrected to 1 inside it).
    solver_fallback_ : bool
        True when a solver was not optimal or its solution failed the checks: then
        ``weights_`` is the uniform density ``1/m`` on ``records_`` (``shrinkage_ = 1``),
        a :class:`~sklearn.exceptions.ConvergenceWarning` with a constant message was
        issued, and the solver statuses read ``"fallback"``.  Not private (like
        ``weights_``).
    max_row_frequency_ : float
        Largest fraction of identical rows in ``X`` (not private; for :meth:`diagnostics`).
    samples_bound_ : float
        The real-valued Theorem 12.2 bound for the budget.
    max_samples_ : int
        Records the budget allows in total (``floor(samples_bound_)``, or ``n_samples``
        when ``epsilon=None``).
    epsilon_budget_ : float
        The total budget (``epsilon``, or the cost of ``n_samples`` when ``epsilon=None``).
    epsilon_per_sample_ : float
        Privacy cost of one released record.
    samples_released_ : int
        Records released so far by :meth:`sample`.
    epsilon_spent_ : float
        ``samples_released_ · epsilon_per_sample_``.
    epsilon_ : float
        Privacy actually spent so far by the records released by :meth:`sample`
        (``privacy_report_.epsilon``, same as ``epsilon_spent_``; 0 right after fit,
        since fitting releases nothing).  Not the budget: see ``epsilon_budget_``.
    privacy_report_ : PrivacyReport
        What has been released so far; updated by each :meth:`sample`.
    degree_ : int
        ``degree`` at fit time.
    density_bounds_ : tuple of float
        ``(δ, Δ)`` at fit time.
    default_n_samples_ : int or None
        ``n_samples`` at fit time: the default size of :meth:`sample`.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    n_samples_fit_ : int

    Notes
    -----
    Both problems are posed with the sparse conjunction matrix of the reduced space
    instead of its Walsh matrix (same solutions, about a quarter of the nonzeros at
    ``d = 2``); ``m · L`` is capped by :data:`MAX_WALSH_ENTRIES`.  The solved density
    is used only if it lies in the box exactly, sums to 1 and matches the shrunk
    coefficients to 1e-7; otherwise (or if a solver is not optimal) the fit falls back
    to the uniform density on the reduced space, which does not depend on the data,
    with a warning that names no number (see the User Guide on failure paths).

    References
    ----------
    M. Boedihardjo, T. Strohmer, R. Vershynin, "Private sampling: a noiseless approach
    for generating differentially private synthetic data", SIAM J. Math. Data Sci.
    (2022): Algorithm 2, Lemma 3.3, Lemma 12.1, Theorem 12.2 (privacy), Theorem 12.4.
    C. Pierquin, B. Zimmermann, M. Boussard, "Practical considerations on using private
    sampling for synthetic data" (2023): Sect. 3 (LP and QP), Theorems 4.1 and 4.2,
    Table 2.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.synthesizers.private_sampling import PrivateSampler
    >>> X = np.random.default_rng(0).integers(0, 2, size=(2000, 6))
    >>> est = PrivateSampler(epsilon=1.0, m=64, random_state=0).fit(X)
    >>> est.max_samples_          # the honest answer: no record may be released
    0
    >>> big = PrivateSampler(epsilon=None, n_samples=5, m=64, random_state=0).fit(X)
    >>> big.sample().shape, big.epsilon_ > 1
    ((5, 6), True)
    """

    _differentially_private = True
    _cli_name = "private-sampler"

    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither"), None],
        "m": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "density_bounds": [tuple, list],
        "n_samples": [Interval(Integral, 1, None, closed="left"), None],
        "max_tries": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        epsilon=1.0,
        *,
        m="auto",
        degree=2,
        density_bounds=(0.25, 2.0),
        n_samples=None,
        max_tries=10,
        random_state=None,
        verbose=0,
    ):
        self.epsilon = epsilon
        self.m = m
        self.degree = degree
        self.density_bounds = density_bounds
        self.n_samples = n_samples
        self.max_tries = max_tries
        self.random_state = random_state
        self.verbose = verbose

    def _reduced_space_size(self, p):
        """``m``, or for ``m="auto"`` ``max(1000, 2L)`` from the public width ``p``."""
        if self.m == "auto":
            return max(1000, 2 * n_walsh_functions(p, int(self.degree)))
        return int(self.m)

    def _draw_reduced_space(self, m, p, d, subsets, L, rng):
        """A reduced space of ``m`` random sign vectors whose Walsh matrix ``W_S`` is well
        conditioned (``σ_min >= sqrt(m)/(2e^d)``), in at most ``max_tries`` draws;
        ``(signs, W, diagnostics)``.  Data-independent."""
        threshold = well_conditioning_threshold(m, d)
        best, tries = 0.0, 0
        while True:
            tries += 1
            signs = 1.0 - 2.0 * rng.integers(0, 2, size=(m, p)).astype(np.float64)
            W = walsh_matrix(signs, subsets)
            sigma = smallest_singular_value(W)
            best = max(best, sigma)
            if sigma >= threshold:
                break
            if tries >= self.max_tries:
                raise ValueError(
                    f"no well-conditioned reduced space in max_tries={self.max_tries} draws: "
                    f"the best sigma_min(W_S) was {best:.4g} < sqrt(m)/(2e^d) = "
                    f"{threshold:.4g} (m={m}, L={L}).  Increase m (several times L) or "
                    "max_tries."
                )
        diagnostics = {
            "sigma_min_": sigma,
            "well_conditioning_threshold_": threshold,
            "n_tries_": tries,
        }
        return signs, W, diagnostics

    def _refuse_a_short_budget(self, n, m, p, d, bounds):
        """Refuse, before any work, a fit whose budget allows fewer records than the
        ``n_samples`` parameter: the Theorem 12.2 cap is a function of ``epsilon``,
        ``n`` (public under replace-one), ``m``, ``p``, ``degree`` and
        ``density_bounds`` alone, never of a value of the data."""
        wanted = int(self.n_samples)
        epsilon = self._fit_budget(n, p).epsilon
        bound = epsilon * _sample_constant(n, m, p, d, bounds)
        if math.floor(bound) < wanted:
            raise ValueError(
                _budget_text(
                    wanted,
                    released=0,
                    epsilon=epsilon,
                    n=n,
                    m=m,
                    p=p,
                    degree=d,
                    density_bounds=bounds,
                )  # fmt: skip
                + "  Refused before any work of the fit: the cap depends on these public "
                "quantities only."
            )

    def _fit_cost(self, n_samples, n_features):
        """The whole release budget, charged at fit: ``epsilon``, or with
        ``epsilon=None`` the cost of ``n_samples`` records (Theorem 12.2)."""
        if self.epsilon is not None:
            return PrivacyCost(epsilon=check_epsilon(self.epsilon))
        if n_features is None:
            raise ValueError(
                "PrivateSampler(epsilon=None) costs a function of the width of its input, "
                "unknown here (e.g. after an encoder); give it an epsilon."
            )
        bounds = _check_density_bounds(self.density_bounds)
        m = self._reduced_space_size(n_features)
        constant = _sample_constant(n_samples, m, n_features, int(self.degree), bounds)
        return PrivacyCost(epsilon=check_epsilon(self.n_samples / constant))

    def _fit_budget(self, n_samples, n_features):
        """With ``epsilon=None`` the cost of ``n_samples`` records, which the encoder's
        releases add to; else the budget less them (the whole run's ``epsilon``)."""
        if self.epsilon is None:
            return self._fit_cost(n_samples, n_features)
        return super()._fit_budget(n_samples, n_features)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the reduced space and compute the bounded density ``h*``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Boolean ``{0, 1}`` data; or a source of chunks (:class:`~skprivsynth.Chunks`,
            iterator of chunks, Dask array or DataFrame), read once: the Fourier sums
            (integers) are added over the chunks, and the fit is exactly the in-memory
            fit.  The diagnostic ``max_row_frequency_`` counts the distinct rows, so
            its memory grows with their number (at most ``min(n, 2^p)``).
        y : None
            Ignored.

        Returns
        -------
        self
        """
        if self.epsilon is None and self.n_samples is None:
            raise ValueError(
                "epsilon=None needs n_samples (the privacy cost is then that of releasing "
                "n_samples records); set epsilon to a positive budget or give n_samples."
            )
        low, high = _check_density_bounds(self.density_bounds)
        data = self._validate_fit_source(X)
        p = data.n_features
        m, d = self._reduced_space_size(p), int(self.degree)
        if d > p:
            raise ValueError(f"degree={d} exceeds the number of columns p={p}; use degree <= p.")
        L = n_walsh_functions(p, d)
        if m < L:
            raise ValueError(
                f"m={m} is smaller than the number of Walsh functions L={L} of degree <= {d} "
                f"on p={p} columns; W_S cannot have full column rank.  Use m >= {L} "
                "(several times L in practice) or a smaller degree."
            )
        if m * L > MAX_WALSH_ENTRIES:
            raise ValueError(
                f"m={m} with degree={d} on p={p} columns needs an m x L = {m} x {L} = {m * L:,} "
                f"Walsh matrix, above the limit MAX_WALSH_ENTRIES={MAX_WALSH_ENTRIES:,} "
                "(~1.3 GB at the solver peak).  Lower m or degree."
            )

        if self.epsilon is not None and self.n_samples is not None and data.n_samples:
            self._refuse_a_short_budget(data.n_samples, m, p, d, (low, high))

        # The one pass over the data (step 2 below): the Fourier sums, integers added
        # over the chunks of X (exactly), and the counts of the distinct rows, for the
        # largest row frequency (a diagnostic, not released).  The fit is charged to
        # the active accountant after it, before anything is drawn.
        self._log()
        sums, row_counts = data.reduce(_SamplerStatistics(d), _merge_sampler_statistics)
        self._log(f"computed the {L} low-order statistics of the data (one pass over the data)")
        state, rng = data.fitted_state()
        n = data.n_samples

        # 1. Reduced space: only ``rng`` (from random_state) is used, never the data.
        subsets = walsh_subsets(p, d)
        signs, W, diagnostics = self._draw_reduced_space(m, p, d, subsets, L, rng)
        self._log(f"drew {m} random candidate records ({diagnostics['n_tries_']} draw(s))")
        reduced_space = signs_to_boolean(signs)

        # 2. Fourier coefficients of the data.
        c = sums / n

        # 3-4. Shrinkage LP and proximal QP.
        solution = self._solve(W, c, reduced_space, low, high, subsets)
        self._log("weighted the candidate records to match the data's statistics")

        # Budget (Theorem 12.2): k ≤ C·ε with C from public quantities only.
        constant = _sample_constant(n, m, p, d, (low, high))
        epsilon_budget = self._fit_budget(n, p).epsilon
        if self.epsilon is not None:
            samples_bound = epsilon_budget * constant
            max_samples = int(math.floor(samples_bound))
        else:
            max_samples = int(self.n_samples)
            samples_bound = float(max_samples)
        fitted = {
            **state,
            **solution,
            "records_": reduced_space,
            "n_walsh_functions_": L,
            **diagnostics,
            "fourier_coefficients_": c,
            "max_row_frequency_": float(row_counts[1].max() / n),
            "degree_": d,
            "density_bounds_": (low, high),
            "default_n_samples_": None if self.n_samples is None else int(self.n_samples),
            "epsilon_per_sample_": 1.0 / constant,
            "epsilon_budget_": epsilon_budget,
            "samples_bound_": samples_bound,
            "max_samples_": max_samples,
            "samples_released_": 0,
            "epsilon_spent_": 0.0,
        }
        report = _release_report(fitted)
        return self._set_fitted(fitted, privacy_report_=report, epsilon_=report.epsilon)

    def _solve(self, W, c, reduced_space, low, high, subsets):
        """``h*`` from :meth:`_solve_exact`, or the uniform density on ``S`` if it fails.

        Whether HiGHS/OSQP reach the accuracy the guarantee needs depends on the private
        coefficients ``c``; a failure must therefore not change the *kind* of release
        nor put numbers derived from ``c`` into a message.  The fallback is the density
        at ``λ* = 1``, the uniform density ``1/m`` on ``S`` (``W_Sᵀu`` matches the target
        exactly and ``1/m`` lies in ``[δ/m, Δ/m]`` since ``2δ ≤ 1 ≤ Δ − δ``): a function
        of public quantities only.  The warning is a constant string.
        """
        try:
            return self._solve_exact(W, c, reduced_space, low, high, subsets)
        except SolverError:
            pass  # no chaining, no message: both carry numbers derived from c
        warnings.warn(_FALLBACK_WARNING, ConvergenceWarning, stacklevel=4)
        m = W.shape[0]
        return {
            "shrinkage_": 1.0,
            "weights_": np.full(m, 1.0 / m),
            "solver_status_": {"lp": "fallback", "qp": "fallback"},
            "solve_time_": {"lp": 0.0, "qp": 0.0},
            "qp_iterations_": 0,
            "qp_polished_": False,
            "qp_primal_residual_": 0.0,
            "qp_dual_residual_": 0.0,
            "constraint_residual_": 0.0,
            "box_violation_": 0.0,
            "solver_fallback_": True,
        }

    def _solve_exact(self, W, c, reduced_space, low, high, subsets):
        """Shrinkage LP then proximal QP, in the scaled variable ``g = m·h``.

        Both are posed with the sparse conjunction matrix ``M_S`` instead of ``W_S``:
        ``W_Sᵀh = b ⇔ M_Sᵀh = Vᵀb`` (``Vᵀ`` invertible, :func:`walsh_to_conjunction`), so
        the feasible sets, ``λ*`` and ``h*`` are those of the Walsh formulation exactly;
        only the solvers' work changes (at m = 10⁴, p = 20, d = 2: 28 % of the nonzeros;
        LP 4.4 s → 2.1 s, QP with setup 3.2 s → 0.4 s).  The accuracy check below is
        done in the Walsh basis.  Returns the fitted attributes of the solution (a
        dict); nothing is assigned to ``self``.  Raises :class:`SolverError` when a
        solver is not optimal or the solution fails the accuracy check.
        """
        m, L = W.shape
        c_uniform = W.mean(axis=0)  # W_Sᵀu: the coefficients of the uniform density on S
        t, t_uniform = walsh_to_conjunction(np.column_stack([c, c_uniform]), subsets).T
        MT = conjunction_transpose_csc(reduced_space, subsets)
        cost, A_lp, row_lower, row_upper, col_lower, col_upper = shrinkage_lp(
            MT, t, t_uniform, low, high
        )
        lp = solve_lp(
            cost,
            A_lp,
            row_lower,
            row_upper,
            col_lower,
            col_upper,
            solver="ipm",
            time_limit=_SOLVER_TIME_LIMIT,
            options={"presolve": "off", "run_crossover": "off"},
            what="shrinkage LP of PrivateSampler",
        )
        del A_lp
        shrinkage = float(np.clip(lp.x[0], 0.0, 1.0))
        target = (1.0 - shrinkage) * c + shrinkage * c_uniform
        # Warm start at the LP's g (feasible up to the LP tolerance since the LP box
        # lies inside the QP box).
        P, q, A_qp, lower, upper = proximal_qp(
            MT, (1.0 - shrinkage) * t + shrinkage * t_uniform, low, high
        )
        qp = solve_qp(
            P,
            q,
            A_qp,
            lower,
            upper,
            eps=_QP_EPS_POLISHED,
            time_limit=_SOLVER_TIME_LIMIT,
            x0=np.clip(lp.x[1:], low, high),
            what="proximal QP of PrivateSampler",
            settings=_QP_SETTINGS,
        )
        if not qp.polished:
            qp = solve_qp(
                P,
                q,
                A_qp,
                lower,
                upper,
                eps=_QP_EPS,
                time_limit=_SOLVER_TIME_LIMIT,
                x0=qp.x,
                what="proximal QP of PrivateSampler",
                settings=_QP_SETTINGS,
            )
        del A_qp, MT
        # Enforce the privacy preconditions on what is released, exactly: h in
        # [δ/m, Δ/m] and Σh = 1 (≤ 1e-6/m box violation accepted, then clipped); the
        # residual check below is made on the corrected h.
        density, residual, box_violation = released_density(qp.x, W, target, low, high)
        if not (residual <= _RESIDUAL_TOL and box_violation <= _BOX_TOL):  # NaN fails too
            raise SolverError("the proximal QP of PrivateSampler returned an inaccurate density.")
        return {
            "shrinkage_": shrinkage,
            "weights_": density,
            "solver_status_": {"lp": lp.status, "qp": qp.status},
            "solve_time_": {"lp": lp.solve_time, "qp": qp.solve_time},
            "qp_iterations_": qp.iterations,
            "qp_polished_": qp.polished,
            "qp_primal_residual_": qp.primal_residual,
            "qp_dual_residual_": qp.dual_residual,
            "constraint_residual_": residual,
            "box_violation_": box_violation,
            "solver_fallback_": False,
        }

    def _budget_message(self, requested):
        return _budget_text(
            requested,
            released=self.samples_released_,
            epsilon=self.epsilon_budget_,
            n=self.n_samples_fit_,
            m=self.records_.shape[0],
            p=self.n_features_in_,
            degree=self.degree_,
            density_bounds=self.density_bounds_,
        )

    def _sample_size(self, n_samples):
        """Records of this release, within the budget (before anything is drawn).

        Defaults to the ``n_samples`` parameter at fit time (``default_n_samples_``),
        or else to all the records the budget still allows; a request beyond
        ``max_samples_`` in total raises, with the ``epsilon``, ``n`` or ``m`` that
        would allow it.
        """
        remaining = self.max_samples_ - self.samples_released_
        default = self.default_n_samples_ if self.default_n_samples_ is not None else remaining
        if n_samples is None and default < 1:
            raise ValueError(self._budget_message(1))
        k = check_n_samples(n_samples, default)
        if k > remaining:
            raise ValueError(self._budget_message(k))
        return k

    def _sample(self, n_samples, rng, rounding):
        """Points of the reduced space drawn from ``h*``, spending budget: every call,
        even one that repeats a seed, updates ``privacy_report_`` and ``epsilon_``."""
        out = _private_draw(self.records_, self.weights_, n_samples, rng)
        self.samples_released_ += n_samples
        self.epsilon_spent_ = self.samples_released_ * self.epsilon_per_sample_
        self.privacy_report_ = _release_report(vars(self))
        self.epsilon_ = self.privacy_report_.epsilon
        return out

    def diagnostics(self, gamma=0.1, n_samples=None):
        """Which preconditions of the accuracy theorem hold, with the numbers.

        Theorem 4.2 of Pierquin, Zimmermann and Boussard (= Theorem 12.4 of
        Boedihardjo, Strohmer and Vershynin, "Private sampling"): if ``n ≥ 16δ⁻²γ⁻¹e^{2d}L``,
        ``16δ⁻²γ⁻¹Δ²e^{2d}L ≤ m ≤ 2^{p/4}``, ``k ≥ 4δ⁻²(log(2/γ) + log L)`` and the data
        density is at most ``Δ/2^p``, then with probability ``≥ 1 − 4γ − 2^{−p/2}`` every
        marginal of order ``≤ d`` of the ``k`` released records is within ``4δ`` of the
        data's.  The density condition is checked on the empirical density (largest
        frequency of a row), as Pierquin et al. do.

        The output is **not private** (it contains ``λ*`` and the largest row
        frequency of the data): it is for the data holder, like the fitted attributes.

        Parameters
        ----------
        gamma : float, default=0.1
            Failure probability parameter ``γ`` (0 < γ < 1/4 for a useful statement).
        n_samples : int, optional
            Release size ``k`` to check; defaults to the ``n_samples`` parameter at fit
            time (``default_n_samples_``), else the records the budget still allows
            (``max_samples_ − samples_released_``).

        Returns
        -------
        dict
            One entry per condition (``"n"``, ``"m_lower"``, ``"m_upper"``, ``"k"``,
            ``"density"``, and ``"privacy"`` for ``k ≤`` the records still allowed,
            ``"well_conditioned"``, ``"no_shrinkage"``) mapping to a dict with
            ``holds`` (bool), ``value``, ``required`` and ``statement``; plus
            ``"all_accuracy_preconditions"`` (bool) and ``"accuracy"`` (the guarantee
            ``4δ`` and its probability, meaningful only when they all hold).
        """
        check_is_fitted(self)
        if not (0 < gamma < 1):
            raise ValueError(f"gamma must be in (0, 1); got {gamma!r}.")
        low, high = self.density_bounds_
        n, p = self.n_samples_fit_, self.n_features_in_
        m, d, L = self.records_.shape[0], self.degree_, self.n_walsh_functions_
        remaining = self.max_samples_ - self.samples_released_
        if n_samples is None:
            default = self.default_n_samples_
            n_samples = default if default is not None else remaining
        k = int(n_samples)
        e2d = math.exp(2 * d)
        n_req = 16 / (low**2 * gamma) * e2d * L
        m_req = 16 / (low**2 * gamma) * high**2 * e2d * L
        m_cap = 2.0 ** (p / 4)
        k_req = 4 / low**2 * (math.log(2 / gamma) + math.log(L))
        dens_cap = high / 2.0**p

        def entry(holds, value, required, statement):
            return {
                "holds": bool(holds),
                "value": value,
                "required": required,
                "statement": statement,
            }

        out = {
            "n": entry(n >= n_req, n, n_req, "n >= 16 delta^-2 gamma^-1 e^(2d) L"),
            "m_lower": entry(m >= m_req, m, m_req, "m >= 16 delta^-2 gamma^-1 Delta^2 e^(2d) L"),
            "m_upper": entry(m <= m_cap, m, m_cap, "m <= 2^(p/4)"),
            "k": entry(k >= k_req, k, k_req, "k >= 4 delta^-2 (log(2/gamma) + log L)"),
            "density": entry(
                self.max_row_frequency_ <= dens_cap,
                self.max_row_frequency_,
                dens_cap,
                "largest row frequency <= Delta / 2^p",
            ),
            "privacy": entry(
                k <= remaining,
                k,
                remaining,
                "k <= max_samples_ - samples_released_ (Theorem 12.2 at epsilon_budget_, "
                "on the total released)",
            ),
            "well_conditioned": entry(
                self.sigma_min_ >= self.well_conditioning_threshold_,
                self.sigma_min_,
                self.well_conditioning_threshold_,
                "sigma_min(W_S) >= sqrt(m)/(2 e^d)",
            ),
            "no_shrinkage": entry(
                self.shrinkage_ <= 1e-7,
                self.shrinkage_,
                0.0,
                "lambda* = 0: the data's coefficients are matched exactly",
            ),
        }
        accuracy_keys = ("n", "m_lower", "m_upper", "k", "density")
        out["all_accuracy_preconditions"] = all(out[key]["holds"] for key in accuracy_keys)
        out["accuracy"] = {
            "marginal_error_bound": 4 * low,
            "probability": max(0.0, 1 - 4 * gamma - 2.0 ** (-p / 2)),
        }
        return out

    def __sklearn_is_fitted__(self):
        # Fitted only once the budget is set (the last step of fit): a fit that failed in
        # a solver leaves no usable estimator behind.
        return hasattr(self, "epsilon_per_sample_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


def _budget_text(requested, *, released, epsilon, n, m, p, degree, density_bounds):
    """Why ``requested`` more records exceed the Theorem 12.2 cap at ``epsilon``, and
    the ε, ``n`` or ``m`` that would allow them; from public quantities only."""
    constant = _sample_constant(n, m, p, degree, density_bounds)
    bound = epsilon * constant
    max_samples = int(math.floor(bound))
    L = n_walsh_functions(p, degree)
    total = released + requested
    need_eps = total / constant
    need_n = math.ceil(n * (total / bound) ** 2)
    max_m = (bound * m**0.75 / total) ** (4.0 / 3.0)
    m_hint = (
        f"m <= {math.floor(max_m)}"
        if max_m >= L
        else f"m <= {max_m:.3g} (impossible: m must be >= L = {L})"
    )
    return (
        f"n_samples={requested} exceeds the privacy budget of PrivateSampler: "
        f"epsilon_budget_={epsilon:.6g} allows max_samples_={max_samples} records in total "
        f"(the bound k <= {bound:.4g} of Boedihardjo-Strohmer-Vershynin, 'Private "
        f"sampling', Theorem 12.2, for n={n}, m={m}, p={p}, degree={degree}, "
        f"density_bounds={tuple(density_bounds)}); {released} already released, "
        f"{max_samples - released} left.  Releasing {total} record(s) in total needs "
        f"epsilon >= {need_eps:.4g} (refit with that epsilon), or n >= {need_n:.4g} rows, "
        f"or {m_hint} at this epsilon_budget_."
    )


def _release_report(fitted):
    """The :class:`PrivacyReport` of what a fitted PrivateSampler has released so far.

    ``fitted`` maps fitted-attribute names to values (fit-time state only, never the
    current hyperparameters).
    """
    m = fitted["records_"].shape[0]
    per_sample, budget = fitted["epsilon_per_sample_"], fitted["epsilon_budget_"]
    report = PrivacyReport(mechanism="PrivateSampler (noise-free private sampling)")
    report.add(
        step=f"reduced space S (m={m}, {fitted['n_tries_']} draw(s))",
        mechanism="data-independent uniform draws + well-conditioning test",
        sensitivity=0.0,
        epsilon=0.0,
        scale=None,
        derivation="S and its redraws depend only on random_state, never on X.",
    )
    report.add(
        step=(f"release of {fitted['samples_released_']} of max {fitted['max_samples_']} records"),
        mechanism=(
            "i.i.d. sampling from the bounded density h* (Boedihardjo-Strohmer-"
            "Vershynin, 'Private sampling', Lemma 3.3)"
        ),
        sensitivity=f"pointwise log-ratio of h* <= {per_sample:.4g} per record",
        epsilon=fitted["epsilon_spent_"],
        scale=None,
        derivation=(
            "Boedihardjo-Strohmer-Vershynin Theorem 12.2 = Pierquin-Zimmermann-Boussard "
            "Theorem 4.1: k <= (1/(4*sqrt 2)) eps "
            "(delta/Delta)^(3/2) e^(-d/2) L^(-1/4) sqrt(n)/m^(3/4), i.e. eps = k * "
            f"{per_sample:.4g} for n={fitted['n_samples_fit_']}, m={m}, "
            f"L={fitted['n_walsh_functions_']}, d={fitted['degree_']}, "
            f"density_bounds={fitted['density_bounds_']}; budget {budget:.6g}, unspent "
            f"{budget - fitted['epsilon_spent_']:.6g}."
        ),
    )
    return report


class _SamplerStatistics:
    """Statistic of a chunk of Boolean rows: ``(Fourier sums, (row keys, row counts))``.

    The Fourier sums ``Σ_i w_J(x_i)`` are integers (exact over chunks); the distinct
    rows are keyed by :func:`~skprivsynth._math.row_keys.row_keys` (8 bytes per row up
    to 64 columns, ``ceil(p/8)`` beyond) and counted, for the largest row frequency.
    """

    def __init__(self, degree):
        self.degree = degree

    def __call__(self, X):
        keys, counts = np.unique(row_keys(X), return_counts=True)
        return fourier_sums(X, self.degree), (keys, counts)


def _merge_sampler_statistics(a, b):
    """Fourier sums added; the counts of the distinct rows merged by key."""
    keys, inverse = np.unique(np.concatenate([a[1][0], b[1][0]]), return_inverse=True)
    counts = np.bincount(inverse, weights=np.concatenate([a[1][1], b[1][1]]))
    return a[0] + b[0], (keys, counts.astype(np.int64))
