"""ReducedSpaceLP: ε-DP synthetic data by a noisy linear program over a reduced space.

Algorithm 1 of Boedihardjo, Strohmer and Vershynin, "Privacy of synthetic data: a
statistical framework" (IEEE Trans. Inf. Theory, 2023):
replace the huge ground set ``Ω = {0,1}^p`` by a small random subset ``Ω*`` drawn from a
known, data-independent distribution ``μ``; add Laplace noise to the workload statistics
of the data; find the density ``h`` on ``Ω*`` whose statistics are closest to the noisy
ones (a linear program); bootstrap synthetic records from ``(Ω*, h)``.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from .._math.reweighting_lp import ReweightingLP, solve_column_generation
from .._math.workload import (
    BlockMarginalWorkload,
    FunctionWorkload,
    MarginalWorkload,
    check_feature_blocks,
    check_workload,
    project_one_hot,
)
from ..base import BaseSynthesizer
from ..privacy import PrivacyCost, PrivacyReport, check_epsilon, warn_privacy_leak

__all__ = ["ReducedSpaceLP"]

#: Largest number of constraint-matrix nonzeros of a (master) LP ReducedSpaceLP builds.
#: The matrix takes about 12 bytes per nonzero in Python and HiGHS keeps a few copies of
#: it, so this caps the LP at a few GB of memory.  Above it, ``fit`` refuses and names
#: ``m`` and ``degree`` (the nonzeros grow like ``records · C(p, degree)``).
MAX_LP_NONZEROS = 30_000_000

#: Largest ``m · (number of tables + 1)`` (work of one pricing pass over ``Ω*``, about
#: 10^8 entries per second); above it ``fit`` refuses and names ``m`` and ``degree``.
MAX_PRICING_ENTRIES = 2_000_000_000

# Column generation: records in the first master LP, minimum added per round.
_INITIAL_COLUMNS = 500
_MIN_COLUMNS_PER_ROUND = 200


class ReducedSpaceLP(BaseSynthesizer):
    """ε-DP synthetic Boolean data by a noisy LP over a data-independent reduced space.

    Algorithm 1 of Boedihardjo, Strohmer and Vershynin, "Privacy of synthetic data: a
    statistical framework": draw candidate records ``Ω*`` from a distribution that does
    not look at the data, release the workload statistics of ``X`` with Laplace noise
    calibrated to their exact replace-one L1 sensitivity, find the density on ``Ω*``
    whose statistics are closest to the noisy ones (a linear program, solved exactly
    by HiGHS with column generation), and bootstrap records from it.

    ε-DP for replace-one neighbours (same public ``n``, one row replaced) for any
    ``Ω*`` independent of the data (Theorem 2.2: the LP is post-processing of the
    Laplace release).  ``reduced_space="independent"`` first spends a declared part of
    ε on noisy 1-way marginals; ``epsilon_`` is the total.

    Read more in the :doc:`User Guide </user_guide/reduced_space>`.

    Parameters
    ----------
    epsilon : float
        Total privacy budget (> 0).
    degree : int, default=2
        Degree ``d`` of the marginal workload (all tables over ``1..d`` columns); must
        not exceed the number of columns.  Ignored when ``workload`` is a list of column
        sets or a workload object.
    m : int, default=10_000
        Size of the reduced space ``Ω*`` (ignored when ``reduced_space`` is an array).
        Theorem 2.3 asks for ``m ≳ κ · |F| / δ²`` (κ the Rényi condition number of the
        data distribution with respect to ``μ``, ``|F|`` the number of queries); column
        generation keeps the cost growing slowly with ``m``.
    reduced_space : {"uniform", "independent"}, array-like or callable, \
            default="independent"
        Distribution ``μ`` of ``Ω*``: ``"independent"``: the product of noisy column
        means (or, with ``feature_blocks``, of noisy per-block category frequencies)
        bought with ``independent_fraction · epsilon`` (Section 4 of the paper: a
        ``μ`` close to the data keeps the Rényi condition number ``κ`` of Theorem 2.3
        small); ``"uniform"`` on the cube (the paper's Algorithm 1 as stated, far
        from any real table: on Adult its 2-way error is worse than uniform random
        records); an array of shape (m', p): public candidate
        records (never derived from ``X``: they are released as ``records_``; passing
        ``X`` itself warns ``PrivacyLeakWarning``); a callable
        ``reduced_space(rng, m) -> records`` drawing from a data-independent ``μ``.
    objective : {"l1", "linf"}, default="l1"
        LP objective: sum or maximum of the absolute deviations between the statistics
        of ``h`` and the noisy statistics.  ``"l1"`` is the measured better choice (its
        optimum is stable; the min-max LP has many optimal vertices, and the one the
        solver returns can be far from the data).
    workload : "auto", None, {"tables", "conjunctions", "block_tables"}, list of \
            column sets, MarginalWorkload or FunctionWorkload, default="auto"
        Test-function family ``F``, in the spellings of :mod:`skprivsynth.workload`
        (shared with :class:`~skprivsynth.CorrelatedGaussianMechanism`; here every
        workload starts with the constant function, the density constraint).
        "auto": "block_tables" when ``feature_blocks`` is declared (as
        :class:`~skprivsynth.SynthesisPipeline` does behind a one-hot encoder), else
        "tables"; None/"tables": all marginal tables of degree ``1..degree``; "conjunctions":
        all conjunctions of degree ``1..degree``; "block_tables" (needs
        ``feature_blocks``): the categorical tables of ``1..degree`` one-hot blocks
        (:class:`~skprivsynth.workload.BlockMarginalWorkload`, far less noise than the
        bitwise tables on one-hot data); a list of column sets: their full tables; a
        :class:`~skprivsynth.workload.FunctionWorkload` for bounded user functions (its
        declared bounds give the sensitivity; a bare callable is refused).
    independent_fraction : float in (0, 1), default=0.1
        Fraction of ``epsilon`` spent on the 1-way marginals when
        ``reduced_space="independent"`` (unused otherwise).
    feature_blocks : None or list of slice or (start, stop) pairs, default=None
        One-hot structure of the columns, **declared from the public encoding** (never
        learned from the data), e.g. ``BooleanEncoder.feature_blocks_``: slices or
        ``(start, stop)`` pairs partitioning the columns.  Every row is then read
        through :func:`~skprivsynth.workload.project_one_hot` (a block with several bits
        set is read as empty), a fixed public map under which the block sensitivities
        hold for every ``X``; ``fit`` neither raises nor warns on such rows.  The string
        reduced spaces then draw valid one-hot records.  Pair it with
        ``workload="block_tables"`` for the one-hot-aware statistics.
    time_limit : float, default=300.0
        Seconds allowed to the whole LP stage (all column-generation rounds); reaching
        it raises :class:`~skprivsynth.exceptions.SolverError` with HiGHS's status.
    solver : {"ipm", "simplex", "choose"}, default="ipm"
        HiGHS algorithm for the master LPs (interior point with crossover by default).
    noise : {"continuous", "discrete"}, default="continuous"
        Laplace sampler (:func:`skprivsynth.privacy.laplace_mechanism`): float noise, or
        the floating-point-safe discrete Laplace on a grid (exactly ε-DP).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds ``Ω*``, the noise and the sampling stream.  For tests and audits only: a seed known to
        others lets them regenerate the noise; leave it None for a release.
    verbose : int, default=0
        0 is silent; 1 prints one line per phase of ``fit`` with its time on
        standard error (reduced space, release, linear program).

    Attributes
    ----------
    epsilon_ : float
        Privacy budget spent by ``fit``: ``privacy_report_.epsilon``.
    privacy_report_ : PrivacyReport
        Each release of ``fit`` with its sensitivity, budget and noise scale.
    records_ : ndarray of shape (m', n_features_in)
        Candidate records: the reduced space ``Ω*`` (duplicates possible; they are
        harmless).
    weights_ : ndarray of shape (m',)
        The density ``h*`` on ``records_``.
    lp_objective_ : float
        Optimal LP value: max (``"linf"``) or sum (``"l1"``) of the absolute deviations
        from the noisy statistics.
    noise_scale_ : float
        Laplace scale ``σ`` on the workload statistics (the 1-way marginals of
        ``reduced_space="independent"`` are a separate release: see ``privacy_report_``).
    sensitivity_ : float
        Replace-one L1 sensitivity ``Δ_1`` of the workload statistics.
    workload_ : MarginalWorkload or FunctionWorkload
        The workload used.
    noisy_answers_ : ndarray of shape (n_queries,)
        The released noisy statistics (query 0 is the constant function, exactly 1).
    marginal_epsilon_ : float
        Budget spent on the 1-way marginals (0 unless ``reduced_space="independent"``).
    solver_status_ : str
        HiGHS model status ("Optimal").
    solve_time_ : float
        Seconds in HiGHS.
    build_time_ : float
        Seconds spent outside HiGHS in the LP stage (query matrices, assembly, pricing).
    lp_shape_ : tuple of int
        ``(n_rows, n_columns, n_nonzeros)`` of the last master LP.
    n_lp_rounds_ : int
        Number of master LPs solved by column generation.
    reduced_space_means_ : ndarray of shape (n_features,)
        For ``reduced_space="independent"``: the clipped noisy column means, or with
        ``feature_blocks`` the clipped and per-block normalised noisy category
        frequencies (else None).
    feature_blocks_ : list of slice or None
        The validated ``feature_blocks`` (sorted by start), or None.
    n_features_in_, feature_names_in_, n_samples_fit_
        As usual.

    Notes
    -----
    The LP has one column per candidate but a sparse optimum, so it is solved over a
    growing subset of candidates priced from the duals (column generation), which is
    exact by LP duality; ``lp_shape_`` and ``n_lp_rounds_`` describe it.  Problems above
    ``MAX_LP_NONZEROS`` or ``MAX_PRICING_ENTRIES`` are refused before any work, naming
    ``m`` and ``degree``.

    References
    ----------
    .. [1] M. Boedihardjo, T. Strohmer, R. Vershynin, "Privacy of synthetic data: a
       statistical framework", IEEE Trans. Inf. Theory 69 (2023); Algorithm 1,
       Theorem 2.2 (privacy), Theorem 2.3 and Corollary 2.4 (accuracy), Section 4
       (choice of the sampling distribution).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.synthesizers.reduced_space import ReducedSpaceLP
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((2000, 5)) < [0.2, 0.5, 0.7, 0.4, 0.9]).astype(float)
    >>> model = ReducedSpaceLP(epsilon=1.0, degree=2, m=500, random_state=0).fit(X)
    >>> model.sensitivity_ * 2000        # 2 x (5 one-way + 10 two-way tables)
    30.0
    >>> model.sample(3).shape
    (3, 5)
    >>> round(model.epsilon_, 6)
    1.0
    """

    _differentially_private = True
    _cli_name = "reduced-space-lp"

    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "m": [Interval(Integral, 1, None, closed="left")],
        "reduced_space": [StrOptions({"uniform", "independent"}), "array-like", callable],
        "objective": [StrOptions({"linf", "l1"})],
        "workload": [
            None,
            StrOptions({"auto", "tables", "conjunctions", "block_tables"}),
            list,
            tuple,
            MarginalWorkload,
            FunctionWorkload,
            callable,
        ],
        "independent_fraction": [Interval(Real, 0, 1, closed="neither")],
        "feature_blocks": [None, list, tuple],
        "time_limit": [Interval(Real, 0, None, closed="neither")],
        "solver": [StrOptions({"ipm", "simplex", "choose"})],
        "noise": [StrOptions({"continuous", "discrete"})],
    }

    def __init__(
        self,
        epsilon=1.0,
        *,
        degree=2,
        m=10_000,
        reduced_space="independent",
        objective="l1",
        workload="auto",
        independent_fraction=0.1,
        feature_blocks=None,
        time_limit=300.0,
        solver="ipm",
        noise="continuous",
        random_state=None,
        verbose=0,
    ):
        self.epsilon = epsilon
        self.degree = degree
        self.m = m
        self.reduced_space = reduced_space
        self.objective = objective
        self.workload = workload
        self.independent_fraction = independent_fraction
        self.feature_blocks = feature_blocks
        self.time_limit = time_limit
        self.solver = solver
        self.noise = noise
        self.random_state = random_state
        self.verbose = verbose

    def _synthesizer_tags(self):
        tags = super()._synthesizer_tags()
        tags.feature_blocks = tags.noise = True
        return tags

    def _fit_cost(self, n_samples, n_features):
        """Pure ``epsilon``: the report's total."""
        return PrivacyCost(epsilon=check_epsilon(self.epsilon))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, feature_blocks=None):
        """Release the noisy statistics of ``X`` and solve the LP for the weights.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Boolean data (0/1 entries); or a source of chunks
            (:class:`~skprivsynth.Chunks`, iterator of chunks, Dask array or DataFrame),
            read once: the workload counts are summed over the chunks, exactly for
            marginal workloads (function workloads: to floating-point rounding).
        y : None
            Ignored.
        feature_blocks : list of slice or (start, stop) pairs, optional
            Public one-hot blocks, used when the ``feature_blocks`` parameter is None (a
            :class:`~skprivsynth.SynthesisPipeline` passes its encoder's).

        Returns
        -------
        self
        """
        self._log()
        data = self._validate_fit_source(X)
        p = data.n_features
        if (
            _is_array_space(self.reduced_space)
            and isinstance(self.reduced_space, np.ndarray)
            and isinstance(X, np.ndarray)
            and np.may_share_memory(self.reduced_space, X)
        ):  # decided from the objects' memory, not from the values of X
            warn_privacy_leak(
                "reduced_space shares memory with X: the candidate records are (part of) "
                "the private data and are released as records_, which voids the "
                "differential privacy guarantee. Pass public candidate records drawn "
                "independently of X.",
                stacklevel=4,
            )
        if self.feature_blocks is not None:
            feature_blocks = self.feature_blocks
        blocks = check_feature_blocks(feature_blocks, p)
        workload = self._resolve_workload(p, blocks)
        report = PrivacyReport(
            mechanism="ReducedSpaceLP (Boedihardjo-Strohmer-Vershynin, 'Privacy of synthetic "
            "data: a statistical framework', Algorithm 1)"
        )

        if not _is_array_space(self.reduced_space):
            self._check_lp_size(workload, self.m)
        independent = isinstance(self.reduced_space, str) and self.reduced_space == "independent"
        # The one pass over the data: exact counts of the workload (and of the 1-way
        # statistics of the independent reduced space), summed over the chunks.
        counts = data.reduce(_WorkloadCounts(workload, blocks, independent))
        state, rng = data.fitted_state()
        space_rng, noise_rng, marg_rng = rng.spawn(3)
        n = data.n_samples
        epsilon = self._fit_budget(n, p).epsilon
        eps_lp, eps_marg, space_means = epsilon, 0.0, None
        if independent:
            eps_marg = self.independent_fraction * epsilon
            eps_lp = epsilon - eps_marg
            if blocks is None:
                support, space_means = self._independent_space(
                    counts["one_way"], n, eps_marg, marg_rng, space_rng, report
                )
            else:
                support, space_means = self._independent_block_space(
                    counts["one_way"], n, blocks, eps_marg, marg_rng, space_rng, report
                )
        elif blocks is not None and isinstance(self.reduced_space, str):  # "uniform"
            support = _one_hot_records(blocks, p, None, self.m, space_rng)
        else:
            support = self._public_space(p, space_rng)

        self._log(f"drew {support.shape[0]} random candidate records")
        self._check_lp_size(workload, support.shape[0])
        noisy, sensitivity, scale = self._release_statistics(
            counts["workload"] / n, workload, n, epsilon, eps_lp, noise_rng, report
        )
        h, result, info, build_time = self._solve(workload, support, noisy, space_rng)
        return self._set_fitted(
            state,
            feature_blocks_=None if blocks is None else [slice(a, b) for a, b in blocks],
            marginal_epsilon_=eps_marg,
            reduced_space_means_=space_means,
            build_time_=build_time,
            lp_shape_=info["shape"],
            n_lp_rounds_=info["rounds"],
            records_=support.astype(np.float64),
            weights_=h,
            lp_objective_=float(result.objective),
            solver_status_=result.status,
            solve_time_=float(info["solve_time"]),
            noise_scale_=float(scale),
            sensitivity_=float(sensitivity),
            workload_=workload,
            noisy_answers_=noisy,
            privacy_report_=report,
            epsilon_=report.epsilon,
        )

    def _resolve_workload(self, p, blocks):
        """The workload object of the ``workload``/``degree`` parameters (public)."""
        workload = self.workload
        if isinstance(workload, str) and workload == "auto":
            workload = "tables" if blocks is None else "block_tables"
        if isinstance(workload, str) and workload == "block_tables":
            if blocks is None:
                raise ValueError(
                    "workload='block_tables' needs the one-hot structure: pass "
                    "feature_blocks (e.g. BooleanEncoder.feature_blocks_); got "
                    "feature_blocks=None."
                )
            if self.degree > len(blocks):
                raise ValueError(
                    f"degree={self.degree!r} exceeds the number of feature_blocks "
                    f"({len(blocks)}); choose degree in [1, {len(blocks)}]."
                )
            # Sensitivity 2 * n_block_tables / n holds for every row of the cube: the
            # workload evaluates its queries on project_one_hot(x) (at most one cell
            # per table), for the data and the candidates alike.
            return BlockMarginalWorkload(blocks, p, self.degree)
        if (workload is None or isinstance(workload, str)) and self.degree > p:
            raise ValueError(
                f"degree={self.degree!r} exceeds the number of columns of X "
                f"({p}); choose degree in [1, {p}]."
            )
        return check_workload(workload, p, self.degree)

    def _release_statistics(self, stats, workload, n, epsilon, eps_lp, rng, report):
        """Laplace release of the workload statistics; ``(noisy, sensitivity, scale)``.

        Sensitivity (replace-one) from the workload (its ``sensitivity_rule``); the
        constant query moves by 0 and is released exactly (it is the density
        constraint ``sum h = 1``).
        """
        sensitivity = workload.l1_sensitivity(n)
        split = "(1 - independent_fraction) * epsilon = " if eps_lp != epsilon else ""
        noisy = report.release_laplace(
            "workload statistics",
            stats[1:],
            sensitivity,
            eps_lp,
            rng,
            noise=self.noise,
            derivation=(
                f"{workload!r}: replace-one L1 sensitivity computed from the workload "
                f"({workload.sensitivity_rule}; constant function: 0, released exactly); "
                f"epsilon = {split}{eps_lp:.6g}. The LP over the data-independent reduced "
                "space is post-processing (Boedihardjo-Strohmer-Vershynin, 'Privacy of "
                "synthetic data', Theorem 2.2)"
            ),
        )
        self._log(f"released the noisy answers to {stats.size - 1} marginal queries")
        return np.r_[1.0, noisy], sensitivity, report.entries[-1]["scale"]

    def _solve(self, workload, support, noisy, rng):
        """The reweighting LP by column generation; ``(weights, result, info,
        build_time)``, the weights normalised to sum 1."""
        what = f"ReducedSpaceLP {self.objective} LP (m={support.shape[0]})"
        start = time.perf_counter()
        lp = ReweightingLP(workload, support, noisy, self.objective)
        h, result, info = solve_column_generation(
            lp,
            support.shape[0],
            _INITIAL_COLUMNS,
            self.time_limit,
            self.solver,
            rng,
            what,
            min_per_round=_MIN_COLUMNS_PER_ROUND,
            max_nonzeros=MAX_LP_NONZEROS,
        )
        self._log(
            f"weighted the candidate records to match the noisy answers ({self.objective} "
            f"linear program, {info['rounds']} rounds)"
        )
        # Build time = everything but HiGHS: query matrices, assembly and pricing.
        build_time = time.perf_counter() - start - info["solve_time"]
        total = h.sum()
        if not np.isfinite(total) or abs(total - 1.0) > 1e-6:
            # Post-processing of the Laplace release, so the raise itself is private;
            # the message still carries no number computed from the data.
            raise RuntimeError(
                "HiGHS returned weights that do not sum to 1 (to 1e-6); nothing was released."
            )
        return h / total, result, info, build_time

    # ------------------------------------------------------------------ reduced space
    def _public_space(self, p, rng):
        """Ω* from a data-independent μ: uniform cube, public array, or user sampler."""
        space = self.reduced_space
        if isinstance(space, str):  # "uniform"
            return rng.integers(0, 2, size=(self.m, p), dtype=np.uint8)
        if callable(space):
            records = space(rng, self.m)
            what = "the records returned by the reduced_space callable"
        else:
            records = space
            what = "reduced_space (array of candidate records)"
        Z = np.asarray(records)
        if Z.ndim != 2 or Z.shape[0] < 1 or Z.shape[1] != p:
            raise ValueError(
                f"{what} must be a 2-D array with at least one row and "
                f"{p} columns (the number of columns of X); got shape {Z.shape}."
            )
        if not np.issubdtype(Z.dtype, np.number) and Z.dtype != np.bool_:
            raise ValueError(
                f"{what} must be numeric with entries in {{0, 1}}; got dtype {Z.dtype}."
            )
        bad = (Z != 0) & (Z != 1)
        if bad.any():
            i, j = (int(v[0]) for v in np.nonzero(bad))
            raise ValueError(
                f"{what} must have entries in {{0, 1}} only; column {j} has "
                f"value {Z[i, j]!r} at row {i}."
            )
        return Z.astype(np.uint8)

    def _independent_space(self, column_sums, n, eps_marg, noise_rng, space_rng, report):
        """``(Ω*, means)``: Ω* from the product of noisy column means (ε_marg-DP, Laplace)."""
        p = column_sums.size
        means_workload = MarginalWorkload(p, 1, kind="conjunction", include_constant=False)
        # Column means: a replaced row moves each of the p means by at most 1/n, so the
        # replace-one L1 sensitivity is p / n (computed from the 1-way conjunctions).
        sensitivity = means_workload.l1_sensitivity(n)
        noisy = report.release_laplace(
            "column means for the reduced space",
            column_sums / n,
            sensitivity,
            eps_marg,
            noise_rng,
            noise=self.noise,
            derivation=(
                f"{p} column means, replace-one L1 sensitivity p/n; epsilon = "
                "independent_fraction * epsilon. The means are clipped to [1/m, 1 - 1/m] "
                "and Omega* is drawn i.i.d. from their product distribution (post-processing)"
            ),
        )
        floor = 1.0 / self.m
        probs = np.clip(noisy, floor, 1.0 - floor)
        return (space_rng.random((self.m, p)) < probs).astype(np.uint8), probs

    def _independent_block_space(
        self, category_counts, n, blocks, eps_marg, noise_rng, space_rng, report
    ):
        """``(Ω*, frequencies)``: one-hot Ω* from noisy per-block frequencies (ε_marg-DP)."""
        p = category_counts.size
        n_blocks = len(blocks)
        # The category frequencies of all blocks, concatenated, are the 1-way block
        # tables (length p, in column order).  Replace-one: each row, read through
        # project_one_hot, has at most one bit per block, so in each block the replaced
        # row's category loses <= 1/n and the new row's gains <= 1/n (L1 change <= 2/n
        # per block): L1 sensitivity 2 * n_blocks / n, computed from that workload.
        sensitivity = BlockMarginalWorkload(blocks, p, degree=1).l1_sensitivity(n)
        noisy = report.release_laplace(
            "category frequencies for the reduced space",
            category_counts / n,
            sensitivity,
            eps_marg,
            noise_rng,
            noise=self.noise,
            derivation=(
                f"{p} category frequencies in {n_blocks} one-hot feature_blocks; "
                "replace-one: a replaced row moves 1/n of mass between two categories "
                "of each block, L1 sensitivity 2 * n_blocks / n; epsilon = "
                "independent_fraction * epsilon. The frequencies are clipped below at 1/m, "
                "normalised per block, and each block's category of each record of Omega* "
                "is drawn from them (post-processing)"
            ),
        )
        # Post-processing: floor 1/m keeps every category in the support of μ (the
        # accuracy argument needs full support), then normalise within each block.
        probs = np.clip(noisy, 1.0 / self.m, None)
        starts = np.array([a for a, _ in blocks])
        sizes = np.array([b - a for a, b in blocks])
        probs = probs / np.repeat(np.add.reduceat(probs, starts), sizes)
        return _one_hot_records(blocks, p, probs, self.m, space_rng), probs

    @staticmethod
    def _check_lp_size(workload, m):
        """Refuse, before allocating, problems above the documented size limits."""
        pricing = workload.max_nnz(m)
        first_master = workload.max_nnz(min(m, _INITIAL_COLUMNS)) + 5 * workload.n_queries
        if pricing > MAX_PRICING_ENTRIES or first_master > MAX_LP_NONZEROS:
            raise ValueError(
                f"m={m} candidate records x {workload.n_queries:,} queries of degree <= "
                f"{workload.degree} is too large: {pricing:,} query-record entries per "
                f"pricing pass (limit MAX_PRICING_ENTRIES={MAX_PRICING_ENTRIES:,}) and "
                f"{first_master:,} nonzeros in the first LP (limit MAX_LP_NONZEROS="
                f"{MAX_LP_NONZEROS:,}); lower m or degree (or use a smaller workload)."
            )

    # ------------------------------------------------------------------ outputs
    def _candidates(self):
        return self.records_, self.weights_, False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


class _WorkloadCounts:
    """Statistic of a chunk of Boolean rows: exact counts, additive over chunks.

    ``"workload"``: the unnormalised workload statistics ``Σ_i f(x_i)`` (integer-valued
    for marginal workloads; the constant query counts the rows); with
    ``independent``, ``"one_way"``: the column sums (no blocks) or the category counts
    of the one-hot blocks.  With blocks, every row is first read through
    :func:`project_one_hot`, a public row-wise map onto rows with at most one bit per
    block (a block with several bits is read as empty): neighbours stay neighbours, so
    every block sensitivity holds for any ``X``, with nothing checked on ``X``.
    """

    def __init__(self, workload, blocks, independent):
        self.workload, self.blocks, self.independent = workload, blocks, independent

    def __call__(self, X):
        if self.blocks is not None:
            X = project_one_hot(X, self.blocks)
        Xb = X.astype(np.uint8)
        counts = {"workload": self.workload.counts(Xb)}
        if self.independent:
            if self.blocks is None:
                counts["one_way"] = Xb.sum(axis=0, dtype=np.int64)
            else:
                frequencies = BlockMarginalWorkload(self.blocks, Xb.shape[1], degree=1)
                counts["one_way"] = frequencies.counts(Xb)[1:]
        return counts


def _is_array_space(space):
    return not isinstance(space, str) and not callable(space)


def _one_hot_records(blocks, p, probs, m, rng):
    """``m`` one-hot records: in each block one category, uniform or with ``probs``."""
    Z = np.zeros((m, p), dtype=np.uint8)
    u = rng.random((m, len(blocks)))
    rows = np.arange(m)
    for b, (start, stop) in enumerate(blocks):
        if probs is None:  # uniform over the block's categories
            idx = np.minimum((u[:, b] * (stop - start)).astype(np.int64), stop - start - 1)
        else:  # inverse CDF of the block's (normalised) category probabilities
            cdf = np.cumsum(probs[start:stop])
            idx = np.minimum(
                np.searchsorted(cdf, u[:, b] * cdf[-1], side="right"), stop - start - 1
            )
        Z[rows, start + idx] = 1
    return Z
