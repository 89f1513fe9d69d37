"""k-anonymous microaggregation by PCA lattice covering.

Algorithm 1 of Boedihardjo, Strohmer and Vershynin, "Covariance's loss is privacy's gain:
computationally efficient, private and accurate synthetic data" (Found. Comput. Math.,
2022).
"""

from __future__ import annotations

import math
from functools import partial
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._math.covering import divide_and_merge, lattice_cells, spatial_order_key
from .._math.threads import one_blas_thread
from ..base import BaseSynthesizer
from ..privacy import warn_privacy_leak
from ..validation import check_enough_rows

__all__ = ["MicroaggregationSynthesizer", "covering_parameters"]

# Number of centred principal coordinates interleaved in the Z-order key that orders
# rows inside a lattice cell (7 coordinates x 9 bits fill an int64).
_ORDER_COORDINATES = 7


def covering_parameters(n_blocks, n_features):
    """Covering radius ``alpha`` and dimension ``t`` from the proof of Theorem 1.2.

    Theorem 1.2 of Boedihardjo, Strohmer and Vershynin, "Covariance's loss is privacy's
    gain".

    With ``K = n_blocks`` (the target number of groups, ``K >= 3``):
    ``alpha = sqrt(log log K / log K)`` and ``t = floor(log K' / log(7 / alpha))`` with
    ``K' = floor(sqrt(K))``, so that the alpha-covering of the unit ball of a
    ``t``-dimensional space has at most ``(7/alpha)^t <= K'`` cells (Lemma 3.5 /
    Sect. 3.4) and the residuals of the divide-and-merge step weigh at most
    ``1/sqrt(K)`` (Sect. 3.6).  ``t`` is clipped to ``[1, n_features]``; for ``K < 3``
    (at most two groups) ``alpha = 1`` and ``t = 1``.

    Parameters
    ----------
    n_blocks : int
        Target number of groups ``K = n_samples // k``.
    n_features : int

    Returns
    -------
    alpha : float
    t : int

    Examples
    --------
    >>> covering_parameters(4884, 100)
    (0.5018..., 1)
    """
    if n_blocks < 3:
        return 1.0, 1
    log_k = math.log(n_blocks)
    alpha = math.sqrt(math.log(log_k) / log_k)
    k_prime = math.isqrt(n_blocks)
    t = int(math.floor(math.log(k_prime) / math.log(7.0 / alpha)))
    return alpha, max(1, min(t, n_features))


class MicroaggregationSynthesizer(BaseSynthesizer):
    """k-anonymous synthetic data by microaggregation.

    Algorithm 1 of Boedihardjo, Strohmer and Vershynin, "Covariance's loss is privacy's
    gain: computationally efficient, private and accurate synthetic data": rows are
    partitioned by a lattice covering of their top principal subspace into groups of
    ``k`` to ``2k − 1`` rows, each group is replaced by its mean, and :meth:`sample`
    draws group means by weight (randomly rounded to Boolean records for data in
    ``[0, 1]``).  Every record the model holds is the average of at least ``k`` real
    records (k-anonymous microaggregation, Definition 1.6); sampling only
    post-processes the means.  k-anonymity is not differential privacy: use
    :class:`~skprivsynth.NoisyMicroaggregation` for ε-DP.

    Read more in the :doc:`User Guide </user_guide/microaggregation>`.

    Parameters
    ----------
    k : int, default=10
        Minimum group size (anonymity level), ``1 <= k <= n_samples``.  ``k=1``
        warns :class:`~skprivsynth.PrivacyLeakWarning`: groups may be single rows,
        so the model may hold (and sample) real records unchanged.
    t : int or "auto", default="auto"
        Dimension of the PCA subspace; "auto" uses :func:`covering_parameters`.
    alpha : float or "auto", default="auto"
        Covering radius of the lattice, in ``(0, 2]``; "auto" uses
        :func:`covering_parameters`.
    rounding : bool, default=True
        If True, :meth:`sample` returns Boolean records by randomized rounding of the
        group means (Sect. 4.3 of the paper); the data must then lie in ``[0, 1]``.
        If False, it returns group means themselves (real-valued data allowed).
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the sampling stream (the fit itself is deterministic).
    verbose : int, default=0
        0 is silent; 1 prints one line per phase of ``fit`` with its time on
        standard error (public quantities only).

    Attributes
    ----------
    records_ : ndarray of shape (n_groups, n_features)
        Candidate records: the group means ``y_j``.
    weights_ : ndarray of shape (n_groups,)
        Group weights ``|I_j| / n``.
    group_sizes_ : ndarray of shape (n_groups,)
        Group sizes, all in ``[k, 2k)`` (a single group of all rows when n < 2k).  In
        a fit on chunks, at most one group has up to ``3k − 2`` rows (see Notes).
    components_ : ndarray of shape (n_features, t)
        Top eigenvectors of the second-moment matrix of the scaled rows.
    t_ : int
        Dimension of the PCA subspace used.
    alpha_ : float
        Covering radius used.
    rounding_ : bool
        ``rounding`` at fit time; :meth:`sample` uses it (not the current parameter).
    n_cells_ : int
        Number of non-empty lattice cells.
    n_partitions_ : int
        Number of partitions grouped separately: 1 for in-memory data; for chunks,
        the chunks of at least ``k`` rows and the pools of smaller ones.
    covariance_loss_ : float
        ``||Σ_X − Σ_Y||_F`` between the data and the group-mean random vector
        (unscaled units).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when X has string column names.
    n_samples_fit_ : int
        Rows seen in fit; default size of :meth:`sample`.

    Notes
    -----
    Time O(n·p² + p³) (one second-moment matrix, one symmetric eigendecomposition),
    plus O(n·p·t + n log n) for projection, rounding and two sorts; memory O(n·p).
    No pairwise distances: the classical MDAV microaggregation is O(n²·p/k).

    *Data larger than memory.*  On a source of chunks (:class:`~skprivsynth.Chunks`,
    an iterator of chunks, a Dask array or DataFrame) the fit reads the data twice.
    The first pass sums ``n``, ``Σ x``, ``Σ x xᵀ`` and takes ``max |x|``: the
    principal directions, the lattice and its scale are those of the in-memory fit,
    exactly.  The second pass groups the rows of each chunk (each Dask partition, on
    its worker) separately, on that global lattice: every group is a group of at least
    ``k`` rows of one chunk, so k-anonymity holds as in memory.  Chunks of fewer than
    ``k`` rows are pooled and the pool is grouped once it holds ``k`` rows; a last
    pool of fewer than ``k`` rows joins the group whose mean is nearest to the pool's
    mean (that group then has fewer than ``3k − 1`` rows).  Memory: one chunk, the
    ``p × p`` moments and the model itself, ``records_`` of ``O(n/k)`` rows (the
    release; ``8·p·n/k`` bytes).  Grouping inside a chunk finds fewer close
    neighbours than grouping all rows: the covariance loss grows as chunks shrink
    (Adult, k = 10: 0.335 in memory, 0.414 with chunks of 20,000 rows, 0.662 with
    chunks of 1,000; :ref:`large_data`).  A one-chunk source gives the in-memory fit
    exactly.

    Not differentially private: there is no ``epsilon_``, ``noise_scale_`` or
    ``sensitivity_`` (the fit adds no noise).

    References
    ----------
    M. Boedihardjo, T. Strohmer, R. Vershynin. Covariance's loss is privacy's gain:
    computationally efficient, private and accurate synthetic data. Found. Comput.
    Math. (2022). Algorithm 1, Theorems 1.2 and 4.1, Lemmas 3.8–3.9, Sect. 4.3.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth import MicroaggregationSynthesizer
    >>> X = (np.random.default_rng(0).random((1000, 5)) < 0.3).astype(float)
    >>> synth = MicroaggregationSynthesizer(k=20, random_state=0).fit(X)
    >>> bool(synth.group_sizes_.min() >= 20), synth.sample(3).shape
    (True, (3, 5))
    """

    _cli_name = "microaggregation"

    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "k": [Interval(Integral, 1, None, closed="left")],
        "t": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "alpha": [Interval(Real, 0, 2, closed="right"), StrOptions({"auto"})],
        "rounding": ["boolean"],
    }

    def __init__(
        self, k=10, *, t="auto", alpha="auto", rounding=True, random_state=None, verbose=0
    ):
        self.k = k
        self.t = t
        self.alpha = alpha
        self.rounding = rounding
        self.random_state = random_state
        self.verbose = verbose

    def _synthesizer_tags(self):
        """Data in [0, 1] to round the samples back to; any real data without rounding."""
        tags = super()._synthesizer_tags()
        tags.input_kind = "unit" if self.rounding else "real"
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    @one_blas_thread()  # see _moments
    def fit(self, X, y=None):
        """Partition the rows of ``X`` into groups of at least ``k`` and store the means.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a source of chunks
            Data; entries in ``[0, 1]`` when ``rounding=True``.  A
            :class:`~skprivsynth.Chunks`, an iterator of chunks or a Dask array /
            DataFrame is read twice with memory independent of ``n``: once for the
            second moments, once to group the rows of each chunk (see Notes).
        y : ignored

        Returns
        -------
        self
        """
        rounding = bool(self.rounding)
        data = self._validate_fit_source(X)
        data.check_reiterable()  # two passes: the moments, then the groups
        self._log()
        moments = data.reduce(_moments, _merge_moments)
        self._log("computed the mean and covariance of the rows (pass 1 over the data)")
        state, _ = data.fitted_state()
        n, p = data.n_samples, data.n_features
        check_enough_rows(n, self.k, "k", self.k)
        if self.k == 1:
            warn_privacy_leak(
                "MicroaggregationSynthesizer(k=1) gives no anonymity: a group may be a "
                "single row, whose mean is that real row, released as it is. Use k >= 2 "
                "(the anonymity level; 5 to 50 is usual).",
                stacklevel=4,  # warn_privacy_leak -> fit -> sklearn's fit wrapper -> caller
            )
        auto_alpha, auto_t = covering_parameters(n // self.k, p)
        alpha = auto_alpha if self.alpha == "auto" else float(self.alpha)
        if self.t == "auto":
            t = auto_t
        elif self.t > p:
            raise ValueError(f"t must be at most n_features = {p}; got t={self.t}.")
        else:
            t = int(self.t)

        covering = _Covering(n, moments, t, alpha)
        # Every chunk is grouped on its own (on its worker for a Dask source); chunks
        # of fewer than k rows are pooled until the pool has k rows.
        self._log("found the main directions of the rows and the grid that groups them")
        groups = data.reduce(
            partial(_group_partition, covering=covering, k=self.k),
            partial(_merge_groups, covering=covering, k=self.k),
        )
        means, sizes, cells = groups.finish(covering)
        self._log(f"averaged {sizes.size} groups of at least {self.k} rows (pass 2 over the data)")
        weights = sizes / n
        group_second_moment = _weighted_second_moment(means, weights)
        # Σ_X − Σ_Y = E[XXᵀ] − E[YYᵀ]: the means cancel because E[Y] = E[X].
        return self._set_fitted(
            state,
            alpha_=alpha,
            t_=t,
            components_=covering.components,
            n_cells_=int(cells.shape[0]),
            n_partitions_=groups.n_partitions,
            group_sizes_=sizes,
            records_=means,
            weights_=weights,
            rounding_=rounding,
            covariance_loss_=float(np.linalg.norm(covering.second_moment - group_second_moment)),
        )

    def _candidates(self):
        check_is_fitted(self)
        return self.records_, self.weights_, self.rounding_


def _moments(X):
    """Statistic of a chunk: ``(Σ x, Σ x xᵀ, max |x|²)``."""
    # One BLAS thread (here for Dask workers too; fit sets it for the whole fit): on a
    # loaded machine two OpenBLAS threads spin against each other (XᵀX of 250,000 x 94:
    # 0.33 s with one thread, 1.8-5.8 s with two on the shared 2-core box); chunks, or
    # Dask workers, are the unit of parallelism.
    with one_blas_thread():
        gram = X.T @ X
    return X.sum(axis=0), gram, float(np.einsum("ij,ij->i", X, X).max())


def _merge_moments(a, b):
    return a[0] + b[0], a[1] + b[1], max(a[2], b[2])


class _Covering:
    """The global part of the fit: the lattice covering of the top principal subspace
    and the ordering basis, from the second moments of all rows."""

    def __init__(self, n, moments, t, alpha):
        sums, gram, max_sq_norm = moments
        self.second_moment = gram / n
        self.mean = sums / n
        self.radius = math.sqrt(max_sq_norm) if max_sq_norm > 0 else 1.0
        self.t, self.spacing = t, alpha / math.sqrt(t)
        # Eigenvectors of the second moment of the scaled rows x/R: same vectors.
        _, vectors = np.linalg.eigh(self.second_moment)
        self.components = vectors[:, ::-1][:, :t]
        # Rows inside a cell are ordered along the top centred principal coordinates.
        _, centred = np.linalg.eigh(self.second_moment - np.outer(self.mean, self.mean))
        self.order_basis = centred[:, ::-1][:, : min(_ORDER_COORDINATES, sums.shape[0])]

    def cells(self, X):
        """Lattice cell of every row of ``X`` and the cells' lattice points."""
        return lattice_cells(X @ self.components / self.radius, self.spacing)


class _Groups:
    """Group means, sizes and lattice cells of the partitions grouped so far, and a
    pool of the rows of partitions too small to be grouped alone (fewer than k).

    The means are one array that :meth:`extend` grows in place to the exact size
    (``ndarray.resize``, a ``realloc``: a large array is remapped, not copied), so that
    the records are never held twice.
    """

    def __init__(self, means, sizes, cells, pool, n_partitions):
        self.means, self.sizes, self.cells = means, [sizes], cells
        self.pool, self.n_partitions = pool, n_partitions

    def extend(self, other):
        """Append the groups of ``other`` (whose means are read, not kept)."""
        used, extra = self.means.shape[0], other.means.shape[0]
        try:
            self.means.resize((used + extra, self.means.shape[1]), refcheck=False)
            self.means[used:] = other.means
        except ValueError:  # an array it does not own (e.g. unpickled): one copy
            self.means = np.concatenate([self.means, other.means])
        self.sizes += other.sizes
        self.cells = np.unique(np.vstack([self.cells, other.cells]), axis=0)
        self.n_partitions += other.n_partitions

    def finish(self, covering):
        """``(means, sizes, cells)`` of all groups; the pool (fewer than ``k`` rows
        in all) joins the group whose mean is nearest to the pool's mean."""
        sizes, means, cells = np.concatenate(self.sizes), self.means, self.cells
        if self.pool.shape[0]:
            pool_sum, pool_size = self.pool.sum(axis=0), self.pool.shape[0]
            centre = pool_sum / pool_size  # |y - c|² up to |c|², without a temporary array
            j = np.argmin(np.einsum("ij,ij->i", means, means) - 2 * (means @ centre))
            means[j] = (means[j] * sizes[j] + pool_sum) / (sizes[j] + pool_size)
            sizes[j] += pool_size
            cells = np.unique(np.vstack([cells, covering.cells(self.pool)[1]]), axis=0)
        return means, sizes, cells


def _weighted_second_moment(means, weights, block=1 << 16):
    """``Σ_j w_j y_j y_jᵀ``, by blocks of rows: no temporary of the size of the records."""
    total = np.zeros((means.shape[1], means.shape[1]))
    for start in range(0, means.shape[0], block):
        rows = means[start : start + block]
        total += (rows * weights[start : start + block, None]).T @ rows
    return total


def _group_partition(X, covering, k):
    """Group the rows of one partition (Algorithm 1 inside the partition).

    The lattice and the principal directions are global; the grouping uses the rows
    of ``X`` only, so every group is a group of at least ``k`` rows of this
    partition.  A partition of fewer than ``k`` rows is returned as a pool.
    """
    n = X.shape[0]
    if n < k:
        no_cells = np.empty((0, covering.t), dtype=np.int64)
        return _Groups(np.empty((0, X.shape[1])), np.empty(0, dtype=np.int64), no_cells, X, 0)
    t = covering.t
    # One pass over X for both projections; centring is applied to the product.
    with one_blas_thread():  # as in _moments
        projections = X @ np.hstack([covering.components, covering.order_basis])
    cell_of_row, cell_points = lattice_cells(projections[:, :t] / covering.radius, covering.spacing)
    order_key = spatial_order_key(projections[:, t:] - covering.mean @ covering.order_basis)
    group_of_row = divide_and_merge(cell_of_row, order_key, k)
    n_groups = int(group_of_row.max()) + 1
    indicator = sp.csr_matrix((np.ones(n), (group_of_row, np.arange(n))), shape=(n_groups, n))
    sizes = np.bincount(group_of_row, minlength=n_groups)
    means = np.asarray(indicator @ X) / sizes[:, None]
    return _Groups(means, sizes, cell_points, np.empty((0, X.shape[1])), 1)


def _merge_groups(a, b, covering, k):
    """Merge the groups of two sets of partitions into ``a`` (whose buffer grows; ``a``
    is not used after the merge); a pool of ``k`` rows is grouped."""
    a.extend(b)
    if b.pool.shape[0]:
        a.pool = np.vstack([a.pool, b.pool])
    if a.pool.shape[0] >= k:
        pool, a.pool = a.pool, np.empty((0, a.pool.shape[1]))
        a.extend(_group_partition(pool, covering, k))
    return a
