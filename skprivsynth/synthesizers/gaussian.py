"""(ε, δ)-DP marginals by correlated Gaussian noise, and synthetic data from them.

:class:`CorrelatedGaussianMechanism` answers a workload of linear queries (by default
all marginal tables of degree ``1..d``) over a universe of candidate records with the
correlated Gaussian noise of Nikolov, Talwar and Zhang — noise shaped by the minimum-
volume enclosing ellipsoid of the workload's sensitivity polytope — then projects the
noisy answers onto histograms of ``n`` records (non-negative least squares) and
samples synthetic records from that histogram.  :func:`plain_gaussian_mechanism` is the
classical isotropic Gaussian mechanism on the same workload, the comparison point.

Neighbouring relation: replace-one (bounded DP) — datasets of the same public size
``n`` differing in one row.

Notation: universe ``{t_1..t_N}``, histogram ``x ∈ R^N`` of counts (``Σ x = n``),
query matrix ``A ∈ R^{q×N}`` (column ``a_j`` = answers of one record ``t_j``), answers
``A x`` in *counts* (divide by ``n`` for fractions).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions, validate_params
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .._math.noise_allocation import in_span, noise_multipliers, public_complement
from .._math.sampling import sample_weighted_records
from .._math.simplex import simplex_least_squares
from .._math.workload import FunctionWorkload, MarginalWorkload
from .._math.workload_operator import MAX_DENSE_ENTRIES, MAX_UNIVERSE, WorkloadOperator
from ..base import BaseSynthesizer
from ..privacy import (
    PrivacyCost,
    PrivacyReport,
    check_epsilon,
    gaussian_mechanism,
    gaussian_noise,
    gaussian_noise_multiplier,
)
from ..releases import release_primitive
from ..validation import check_boolean_matrix, check_random_generator

__all__ = [
    "MAX_UNIVERSE",
    "CorrelatedGaussianMechanism",
    "plain_gaussian_mechanism",
]

#: Replace-one neighbours: ``x - x' = e_u - e_v``, so ``A(x - x') = a_u - a_v`` lies in
#: ``2·sym conv{a_j - c}`` for any centre ``c``: the factor Δ = 2 (paper: Δ = 1 for
#: add/remove neighbours).
REPLACE_ONE_DELTA = 2.0


def _correlated_noise(bases, scales, n_queries, rng, n_draws=1):
    """``n_draws`` columns of ``Σ_i U_i w_i``, ``w_i ~ N(0, scales_i² I_{d_i})`` (via privacy)."""
    noise = np.zeros((n_queries, n_draws))
    for U, scale in zip(bases, scales, strict=True):
        noise += U @ gaussian_noise(scale, (U.shape[1], n_draws), rng)
    return noise


@release_primitive(
    "correlated Gaussian mechanism",
    public=("public_complement", "bases", "scales"),
    shapes=("answers",),
)
def _correlated_release(answers, public_complement, bases, scales, rng):
    """``P⊥(n·ā) + Π(A x) + Σ_i U_i w_i`` with ``w_i ~ N(0, scales_i² I)``: the
    continuous correlated release (Nikolov, Talwar, Zhang 2013, Sect. 4)."""
    noise = _correlated_noise(bases, scales, answers.size, rng)
    return public_complement + in_span(answers, bases) + noise[:, 0]


def _discrete_correlated_release(answers, public_complement, bases, multipliers, c, rng):
    """The correlated Gaussian release with exact discrete Gaussian noise.

    The continuous release ``A x + Σ_i s_i U_i w_i`` (``w_i ~ N(0, c² I)``) equals, in
    distribution, the post-processing ``P⊥(A x) + Σ_i s_i U_i v̂_i`` of the *isotropic*
    Gaussian release ``v̂ = v + N(0, c² I)`` of the scaled block coordinates
    ``v = (U_iᵀ A x / s_i)_i``.  Its L2 sensitivity is at most 1: for neighbours
    ``‖(U_iᵀ Δ / s_i)_i‖² = Δᵀ G⁺ Δ ≤ 1`` with ``G = Σ_i s_i² U_i U_iᵀ``, which is the
    containment proved for the block multipliers (Corollary 8).  So ``v`` is released
    by :func:`skprivsynth.privacy.gaussian_mechanism` with ``noise="discrete"``,
    ``sigma = c`` and ``sensitivity = 1`` (rounding to the grid accounted there).
    ``P⊥(A x)``, the part outside the span of the ``U_i``, is replaced by the public
    ``public_complement = P⊥(n·ā)``.
    The rotation back to query space is post-processing of an exact release.

    Calibration for the discrete Gaussian (Canonne–Kamath–Steinke 2020): the
    continuous (ε, δ) calibration does not transfer verbatim in general (CKS Thm. 7
    gives the exact discrete privacy curve, and the multivariate privacy loss is not
    Gaussian).  The multiplier ``c`` of :func:`gaussian_noise_multiplier` is proven by
    a Chernoff bound that needs only ``E exp(λ⟨Y, μ⟩) ≤ exp(λ²σ²||μ||²/2)``; the
    discrete Gaussian is sub-Gaussian with variance proxy ``σ²`` (CKS), so for an
    integer shift ``μ`` the loss ``(2⟨Y, μ⟩ + ||μ||²)/(2σ²)`` of i.i.d. discrete
    Gaussian coordinates obeys the same tail bound and ``c`` holds unchanged.  Rounding
    ``v`` to the grid ``γZ`` raises the L2 sensitivity to ``1/γ + sqrt(dim)`` grid units;
    :func:`skprivsynth.privacy.discrete_gaussian_calibration` scales ``σ`` up to keep
    the ratio sensitivity/σ (``noise_scale_`` reports the inflated scale).

    Returns the noisy answers and the noise-scale parameter used for ``v``.
    """
    if not bases:  # rank 0: every answer is fixed by the public n
        return public_complement, c
    blocks = [U.T @ answers / s for U, s in zip(bases, multipliers, strict=True)]
    sizes = np.cumsum([b.size for b in blocks])[:-1]
    noisy, scale = gaussian_mechanism(
        np.concatenate(blocks), c, rng, noise="discrete", sensitivity=1.0
    )
    released = public_complement
    for U, s, v in zip(bases, multipliers, np.split(noisy, sizes), strict=True):
        released = released + U @ (s * v)
    return released, scale


class CorrelatedGaussianMechanism(BaseSynthesizer):
    """(ε, δ)-DP synthetic data from marginals answered with correlated Gaussian noise.

    Builds the histogram of the data over a universe of candidate records, answers the
    workload (by default every marginal table of ``1..degree`` columns) with Gaussian
    noise shaped by the base decomposition of the workload's sensitivity polytope
    (Nikolov, Talwar and Zhang, Algorithms 1–2), projects the noisy answers onto
    histograms of ``n`` records by non-negative least squares (the least-squares step
    of their Algorithm 3) and samples synthetic records from that histogram.

    ``(epsilon, delta)``-DP for replace-one neighbours (same public ``n``, one row
    replaced; Theorem 13 and Corollaries 8–9 of the paper).  ``workload``, ``universe``,
    ``degree`` and ``max_universe`` must be chosen without looking at the data, and
    every row of ``X`` must lie in the universe (a row outside it raises
    ``ValueError``).

    Read more in the :doc:`User Guide </user_guide/correlated_gaussian>`.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε > 0.
    delta : float
        Privacy parameter δ in (0, 1).
    degree : int, default=2
        With ``workload=None``: all marginal tables of ``1..min(degree, p)`` columns.
    workload : None, {"tables", "conjunctions"}, list of column sets, MarginalWorkload, \
            FunctionWorkload or float matrix, default=None
        The queries, in the spellings of :mod:`skprivsynth.workload` (shared with
        :class:`~skprivsynth.ReducedSpaceLP`): None/"tables": all marginal tables of
        ``1..min(degree, p)`` columns; "conjunctions": all conjunctions; a list of column
        sets (e.g. ``[(0, 1), (2,)]``): their full tables; a workload object is used as
        given.  The workloads built from a string or list have no constant query (its
        count is the public ``n``).  In addition, a float ndarray / scipy sparse matrix
        of shape ``(n_queries, universe size)`` is a custom query matrix (columns in
        universe order; for the whole cube record ``i`` has ``x_j = (i >> j) & 1``).
    universe : array-like of shape (N, p), optional
        Candidate records (unique Boolean rows).  Default: the whole cube
        ``{0,1}^p`` when ``2^p ≤ max_universe``; otherwise ``universe`` is required.
        Every row of ``X`` must be in the universe.
    max_universe : int, default=2**20
        Largest cube handled by default; at most :data:`MAX_UNIVERSE` (``2^22``).
    noise_allocation : {"optimal", "paper"}, default="optimal"
        How the noise is split over the blocks of the decomposition: ``"paper"`` is
        Algorithm 2's ``s_i = Δ·sqrt(k)·r_i``; ``"optimal"`` minimises the total
        variance under the same containment (never more noise than ``"paper"``).
    noise : {"continuous", "discrete"}, default="continuous"
        ``"discrete"``: floating-point-safe exact discrete Gaussian noise (Canonne,
        Kamath and Steinke, "The discrete Gaussian for differential privacy",
        NeurIPS 2020) on the whitened block coordinates, with the same calibration.
    random_state : None, int or numpy.random.Generator
        Seed of the noise (``fit``) and of the sampling stream.  For tests and audits only: a seed
        known to others lets them regenerate the noise; leave it None for a release.
    verbose : int, default=0
        0 is silent; 1 prints one line per phase of ``fit`` with its time on
        standard error (histogram, decomposition, release, least squares).

    Attributes
    ----------
    epsilon_, delta_ : float
        Privacy spent by ``fit`` (sampling is post-processing): the totals of
        ``privacy_report_``.
    privacy_report_ : PrivacyReport
        How ``fit`` spent ``(epsilon_, delta_)``, built during ``fit``.
    noisy_answers_ : ndarray of shape (n_queries,)
        The raw private answers ``ỹ = A x + noise`` (counts).
    consistent_answers_ : ndarray of shape (n_queries,)
        ``A x̂`` for the consistent histogram: a least-squares estimator in the spirit
        of the paper's sparse-case Algorithm 3 (projection onto ``n·conv{a_j}`` rather
        than ``n·K``); usually much more accurate than ``noisy_answers_`` when
        ``n`` is small compared with the number of queries.
    histogram_ : ndarray of shape (N,)
        The consistent histogram ``x̂ ≥ 0``, ``Σ x̂ = n``: counts over the whole universe
        (its records are the candidates; ``x̂ / n`` are their weights).
    noise_scale_ : ndarray of shape (k,)
        Standard deviation ``c·s_i`` of the noise coordinates in each block (one scale
        per block of the correlated release).
    block_radii_ : ndarray of shape (k,)
        ``r_i``.
    block_ranks_ : ndarray of shape (k,)
        ``d_i = dim U_i``.
    noise_bases_ : list of ndarray
        ``U_i`` of shape ``(n_queries, d_i)``.
    decomposition_method_ : {"walsh", "mvee"}
        Fast path (whole cube + marginal workload) or MVEE over the universe.
    containment_factor_ : float
        ``γ`` of the optimal allocation (1 for ``"paper"``).
    consistency_gap_ : float
        Final duality gap of the least-squares step (in squared fractions).
    consistency_iterations_ : int
    workload_ : MarginalWorkload, FunctionWorkload or matrix
        The workload used (parsed from ``workload``; a copy for a FunctionWorkload).
    universe_size_ : int
    n_queries_ : int
    n_features_in_, feature_names_in_, n_samples_fit_

    Notes
    -----
    On the whole cube a marginal workload factors through the Walsh characters, so the
    decomposition is exact and cheap and the least squares runs FISTA with fast
    Walsh–Hadamard products (``O(p·2^p)`` per iteration); other universes use an
    explicit sparse query matrix and an approximate MVEE.

    References
    ----------
    Aleksandar Nikolov, Kunal Talwar, Li Zhang, "The geometry of differential privacy:
    the sparse and approximate cases", STOC 2013 — Algorithm 1 (base decomposition,
    Lemma 5), Algorithm 2 and Theorem 13 (correlated Gaussian noise, privacy by
    Corollaries 8–9), Algorithm 3 (least squares), Section 4.1 (approximate MVEE).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.synthesizers.gaussian import CorrelatedGaussianMechanism
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((500, 6)) < 0.3).astype(float)
    >>> cgm = CorrelatedGaussianMechanism(epsilon=1.0, delta=1e-6, random_state=0).fit(X)
    >>> cgm.sample(3).shape
    (3, 6)
    >>> round(cgm.histogram_.sum())
    500
    """

    _differentially_private = True
    _cli_name = "correlated-gaussian"

    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "workload": [
            None,
            StrOptions({"tables", "conjunctions"}),
            list,
            tuple,
            MarginalWorkload,
            FunctionWorkload,
            np.ndarray,
            "sparse matrix",
            callable,
        ],
        "universe": [None, "array-like"],
        "max_universe": [Interval(Integral, 1, MAX_UNIVERSE, closed="both")],
        "noise_allocation": [StrOptions({"optimal", "paper"})],
        "noise": [StrOptions({"continuous", "discrete"})],
    }

    def __init__(
        self,
        epsilon=1.0,
        *,
        delta=1e-6,
        degree=2,
        workload=None,
        universe=None,
        max_universe=2**20,
        noise_allocation="optimal",
        noise="continuous",
        random_state=None,
        verbose=0,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.degree = degree
        self.workload = workload
        self.universe = universe
        self.max_universe = max_universe
        self.noise_allocation = noise_allocation
        self.noise = noise
        self.random_state = random_state
        self.verbose = verbose

    def _synthesizer_tags(self):
        """Binary codes that fit the whole cube of ``max_universe`` records, unless an
        explicit ``universe`` is given (one-hot blocks then)."""
        tags = super()._synthesizer_tags()
        tags.noise = True
        if self.universe is None:
            tags.encoding = "binary"
            tags.max_bits = int(self.max_universe).bit_length() - 1
        return tags

    def _fit_cost(self, n_samples, n_features):
        """``(epsilon, delta)``: the correlated Gaussian mechanism's guarantee."""
        return PrivacyCost(epsilon=check_epsilon(self.epsilon), delta=self.delta)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release the noisy workload answers of ``X`` and fit the consistent histogram.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Boolean data; or a source of chunks (:class:`~skprivsynth.Chunks`,
            iterator of chunks, Dask array or DataFrame), read once: the histogram on
            the universe is summed over the chunks, and the fit is exactly the
            in-memory fit.
        y : ignored

        Returns
        -------
        self
        """
        self._log()
        data = self._validate_fit_source(X)
        p = data.n_features
        allocation, noise_kind = self.noise_allocation, self.noise
        wl = WorkloadOperator(p, self.degree, self.workload, self.universe, self.max_universe)
        # The one pass over the data: the exact histogram on the universe (its size N is
        # public), summed over the chunks; every answer is a linear function of it.
        counts = data.reduce(wl.counter()).astype(np.float64)
        state, rng = data.fitted_state()
        n = data.n_samples
        cost = self._fit_budget(n, p)
        epsilon, delta = cost.epsilon, cost.delta
        self._log(f"set up {wl.q} marginal queries over {wl.N} possible records")
        dec = wl.decompose(eta=0.05)
        self._log(f"planned the correlated noise ({dec.method}, {len(dec.bases)} blocks)")
        c = gaussian_noise_multiplier(epsilon, delta)
        multipliers, gamma = noise_multipliers(dec, allocation, REPLACE_ONE_DELTA)
        scale = c
        answers = wl.answers(counts)
        # Outside the span of the U_i the answers are released as the public n·ā (they
        # equal it when the centred columns lie in the span; the rank decision drops
        # directions below 1e-5·σ_max, which must not be released noise-free).
        public = public_complement(wl.answers(np.full(wl.N, n / wl.N)), dec.bases)
        if noise_kind == "continuous":
            noisy_answers = _correlated_release(answers, public, dec.bases, c * multipliers, rng)
        else:
            noisy_answers, scale = _discrete_correlated_release(
                answers, public, dec.bases, multipliers, c, rng
            )
        self._log("released the noisy answers to the queries")
        # Stop when the optimisation error of the answers is small against the noise:
        # ||A(h - h*)||² ≤ 2·gap ≤ 2e-3·f(h) + 2e-4·E||noise||² (public: the noise
        # energy is the trace Σ_i d_i (c s_i)² of its covariance), in squared fractions.
        noise_energy = float(np.sum(dec.ranks * (c * multipliers) ** 2)) / n**2
        h, gap, n_iter = simplex_least_squares(
            wl.answers,
            wl.adjoint,
            noisy_answers / n,
            wl.N,
            wl.lipschitz(),
            rtol=1e-3,
            atol=1e-4 * noise_energy,
            warn_gap=float(np.sum(dec.radii**2)) / n,
            columns=wl.columns,
        )
        self._log(f"made the noisy answers consistent (least squares, {n_iter} iterations)")
        noise_scales = scale * multipliers
        report = _release_report(
            epsilon, delta, c, allocation, noise_kind, gamma, wl.q, dec, noise_scales
        )
        return self._set_fitted(
            state,
            noisy_answers_=noisy_answers,
            histogram_=n * h,
            consistent_answers_=wl.answers(n * h),
            consistency_gap_=gap,
            consistency_iterations_=n_iter,
            noise_scale_=noise_scales,
            block_radii_=dec.radii,
            block_ranks_=dec.ranks,
            noise_bases_=dec.bases,
            decomposition_method_=dec.method,
            containment_factor_=gamma,
            universe_size_=wl.N,
            n_queries_=wl.q,
            privacy_report_=report,
            epsilon_=report.epsilon,
            delta_=report.delta,
            workload_=wl.workload,
            _workload=wl,
        )

    def noise_covariance(self):
        """Covariance ``c²·Σ_i s_i² U_i U_iᵀ`` of the added noise (``n_queries²`` floats)."""
        check_is_fitted(self)
        if self.n_queries_**2 > MAX_DENSE_ENTRIES:
            raise ValueError(
                f"noise_covariance: {self.n_queries_}² entries exceed "
                f"{MAX_DENSE_ENTRIES:,}; use noise_bases_ and noise_scale_."
            )
        cov = np.zeros((self.n_queries_, self.n_queries_))
        for U, s in zip(self.noise_bases_, self.noise_scale_, strict=True):
            cov += s**2 * (U @ U.T)
        return cov

    def workload_answers(self, X):
        """Exact answers ``A·x`` (counts) of the fitted workload on ``X`` — NOT private.

        For evaluation only (e.g. the error of ``noisy_answers_`` on the training data).
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        check_boolean_matrix(X)
        return self._workload.answers(self._workload.histogram(X))

    def _sample(self, n_samples, rng, rounding):
        """Records drawn i.i.d. from the consistent histogram ``x̂ / n``; only the drawn
        ones are decoded (the universe may have ``2^22`` records)."""
        support = np.flatnonzero(self.histogram_ > 0)
        drawn = sample_weighted_records(
            support[:, None], self.histogram_[support], n_samples, rng, rounding=False
        )
        return self._workload.decode(drawn[:, 0].astype(np.int64))


def _release_report(epsilon, delta, c, allocation, noise, gamma, n_queries, dec, noise_scales):
    """How one fit of :class:`CorrelatedGaussianMechanism` spent ``(epsilon, delta)``."""
    report = PrivacyReport("CorrelatedGaussianMechanism")
    k = len(noise_scales)
    rule = (
        "s_i = Δ·sqrt(k)·r_i (Algorithm 2)"
        if allocation == "paper"
        else f"s_i = Δ·r_i·sqrt(γ/λ_i), λ_i ∝ sqrt(d_i)·r_i, γ = {gamma:.4g}"
    )
    report.add(
        step=f"workload answers ({n_queries} queries, {k} noise blocks)",
        mechanism="correlated Gaussian (Nikolov-Talwar-Zhang)",
        sensitivity=(
            "A(x - x') = a_u - a_v ∈ Δ·sym conv{a_j - ā}, Δ = 2 "
            "(replace-one); block radii r_i = " + np.array2string(dec.radii, precision=4)
        ),
        epsilon=epsilon,
        delta=delta,
        scale=np.array2string(noise_scales, precision=4),
        derivation=(
            f"c = max((1 + s)/ε, (s + sqrt(s² + 2ε))/(2ε)), s = sqrt(2 ln(1/δ)), "
            f"= {c:.6g} (Chernoff bound on the privacy loss; the first term is Lemma 4's "
            "and suffices for ε ≤ 2(1+s)); block i gets N(0, (c·s_i)²) "
            f"on each of its d_i = {dec.ranks.tolist()} coordinates, {rule}; "
            "every centred column satisfies Σ_i (s_i^-2)·||U_iᵀ Δ b_j||² ≤ 1, so the "
            "noise ellipsoid contains the sensitivity polytope (Nikolov-Talwar-Zhang, "
            "Corollaries 8-9 and Lemma 4). Outside the span of the U_i the release is the "
            "public n·ā. "
            + (
                "Discrete Gaussian on the whitened block coordinates (sensitivity 1, "
                "grid rounding accounted, sub-Gaussian tail: same c). "
                if noise == "discrete"
                else ""
            )
            + "Consistency and sampling are post-processing."
        ),
    )
    return report


@validate_params(
    {
        "X": ["array-like"],
        **{
            name: CorrelatedGaussianMechanism._parameter_constraints[name]
            for name in (
                "epsilon",
                "delta",
                "degree",
                "workload",
                "universe",
                "max_universe",
                "random_state",
            )
        },
    },
    prefer_skip_nested_validation=True,
)
def plain_gaussian_mechanism(
    X,
    epsilon,
    delta,
    *,
    degree=2,
    workload=None,
    universe=None,
    max_universe=2**20,
    random_state=None,
):
    """The isotropic Gaussian mechanism on the same workload (comparison point).

    Releases ``A x + N(0, σ² I_q)`` with ``σ = c·Δ·max_j ||a_j||₂``,
    ``c`` = :func:`gaussian_noise_multiplier` (``(1 + sqrt(2 ln(1/δ)))/ε`` unless ε is
    very large) and ``Δ = 2``: under replace-one neighbours
    ``||A(x - x')||₂ = ||a_u - a_v||₂ ≤ 2·max_j ||a_j||₂`` (Nikolov–Talwar–Zhang,
    Lemma 4).  ``(epsilon, delta)``-DP.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Boolean data.
    epsilon, delta : float
        Privacy parameters (ε > 0, 0 < δ < 1).
    degree, workload, universe, max_universe :
        As in :class:`CorrelatedGaussianMechanism` (same query order).
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    noisy_answers : ndarray of shape (n_queries,)
        Counts.
    scale : float
        The noise standard deviation ``σ``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.synthesizers.gaussian import plain_gaussian_mechanism
    >>> X = np.array([[0, 1], [1, 1], [0, 0]])
    >>> answers, scale = plain_gaussian_mechanism(X, 1.0, 1e-6, degree=1, random_state=0)
    >>> answers.shape, round(scale, 3)      # 2 one-way tables: max ||a_j|| = sqrt(2)
    ((4,), 17.696)
    """
    c = gaussian_noise_multiplier(epsilon, delta)
    X = check_array(X, dtype=np.float64, input_name="X")
    check_boolean_matrix(X)
    wl = WorkloadOperator(X.shape[1], int(degree), workload, universe, int(max_universe))
    rng = check_random_generator(random_state)
    scale = c * REPLACE_ONE_DELTA * wl.max_column_norm()
    return gaussian_mechanism(wl.answers(wl.histogram(X)), scale, rng)
