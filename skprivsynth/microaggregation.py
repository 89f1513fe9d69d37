"""k-anonymous microaggregation by PCA lattice covering.

Algorithm 1 of Boedihardjo, Strohmer and Vershynin, "Covariance's loss is privacy's gain:
computationally efficient, private and accurate synthetic data" (Found. Comput. Math.,
2022).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._math.covering import divide_and_merge, lattice_cells, spatial_order_key
from .base import BaseSynthesizer
from .privacy import warn_privacy_leak
from .validation import check_enough_rows

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

    Attributes
    ----------
    records_ : ndarray of shape (n_groups, n_features)
        Candidate records: the group means ``y_j``.
    weights_ : ndarray of shape (n_groups,)
        Group weights ``|I_j| / n``.
    group_sizes_ : ndarray of shape (n_groups,)
        Group sizes, all in ``[k, 2k)`` (a single group of all rows when n < 2k).
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

    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "k": [Interval(Integral, 1, None, closed="left")],
        "t": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "alpha": [Interval(Real, 0, 2, closed="right"), StrOptions({"auto"})],
        "rounding": ["boolean"],
    }

    def __init__(self, k=10, *, t="auto", alpha="auto", rounding=True, random_state=None):
        self.k = k
        self.t = t
        self.alpha = alpha
        self.rounding = rounding
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Partition the rows of ``X`` into groups of at least ``k`` and store the means.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; entries in ``[0, 1]`` when ``rounding=True``.
        y : ignored

        Returns
        -------
        self
        """
        rounding = bool(self.rounding)
        X, _, state = self._validate_fit_data(X, domain="unit" if rounding else "real")
        n, p = X.shape
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

        second_moment = X.T @ X / n
        mean = X.mean(axis=0)
        radius = float(np.sqrt(np.einsum("ij,ij->i", X, X).max()))
        radius = radius if radius > 0 else 1.0
        # Eigenvectors of the second moment of the scaled rows x/R: same vectors.
        _, vectors = np.linalg.eigh(second_moment)
        components = vectors[:, ::-1][:, :t]
        # Rows inside a cell are ordered along the top centred principal coordinates.
        _, centred_vectors = np.linalg.eigh(second_moment - np.outer(mean, mean))
        order_basis = centred_vectors[:, ::-1][:, : min(_ORDER_COORDINATES, p)]
        # One pass over X for both projections; centring is applied to the product.
        projections = X @ np.hstack([components, order_basis])
        cell_of_row, cell_points = lattice_cells(projections[:, :t] / radius, alpha / math.sqrt(t))
        order_key = spatial_order_key(projections[:, t:] - mean @ order_basis)
        group_of_row = divide_and_merge(cell_of_row, order_key, self.k)

        n_groups = int(group_of_row.max()) + 1
        indicator = sp.csr_matrix((np.ones(n), (group_of_row, np.arange(n))), shape=(n_groups, n))
        sizes = np.bincount(group_of_row, minlength=n_groups)
        means = np.asarray(indicator @ X) / sizes[:, None]
        weights = sizes / n
        group_second_moment = (means * weights[:, None]).T @ means
        # Σ_X − Σ_Y = E[XXᵀ] − E[YYᵀ]: the means cancel because E[Y] = E[X].
        return self._set_fitted(
            state,
            alpha_=alpha,
            t_=t,
            components_=components,
            n_cells_=int(cell_points.shape[0]),
            group_sizes_=sizes,
            records_=means,
            weights_=weights,
            rounding_=rounding,
            covariance_loss_=float(np.linalg.norm(second_moment - group_second_moment)),
        )

    def _candidates(self):
        check_is_fitted(self)
        return self.records_, self.weights_, self.rounding_
