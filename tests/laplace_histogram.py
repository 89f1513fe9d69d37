"""A seventh synthesizer, for the tests only: the Laplace histogram of Boolean rows.

A synthesizer is this module plus one registry line (``register_synthesizer`` in
``tests/conftest.py``); the common tests, scikit-learn's checks, the fuzz tests and the
record-and-replay tests then find it through
:func:`~skprivsynth.synthesizers.all_synthesizers`.
"""

from numbers import Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval

from skprivsynth.base import BaseSynthesizer
from skprivsynth.privacy import PrivacyCost, PrivacyReport, check_epsilon

#: Largest width: the histogram has 2**p cells.
MAX_FEATURES = 12


class _CellCounts:
    """Number of rows in each cell of ``{0,1}^p`` (cell ``sum_j x_j 2^j``)."""

    def __init__(self, p):
        self.p = p

    def __call__(self, X):
        keys = X.astype(np.int64) @ (1 << np.arange(self.p, dtype=np.int64))
        return np.bincount(keys, minlength=2**self.p).astype(np.float64)


class LaplaceHistogram(BaseSynthesizer):
    """epsilon-DP histogram of Boolean rows over the whole cube ``{0,1}^p``.

    The ``2^p`` cell counts are released by the Laplace mechanism: replacing one row
    moves one count down by 1 and one up by 1, an L1 sensitivity of 2 (Dwork, McSherry,
    Nissim & Smith, TCC 2006, Prop. 1).  Records are drawn from the noisy counts
    clipped at 0 and normalised (post-processing).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget (> 0).
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the noise and of the sampling stream; None for a release.
    verbose : int, default=0
        Phase lines on standard error when >= 1.
    """

    _differentially_private = True

    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, epsilon=1.0, *, random_state=None, verbose=0):
        self.epsilon = epsilon
        self.random_state = random_state
        self.verbose = verbose

    def _fit_cost(self, n_samples, n_features):
        """Pure ``epsilon``: the one release."""
        return PrivacyCost(epsilon=check_epsilon(self.epsilon))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release the noisy cell counts of Boolean ``X`` (in memory or in chunks)."""
        self._log()
        data = self._validate_fit_source(X)
        p = data.n_features
        if p > MAX_FEATURES:
            raise ValueError(
                f"LaplaceHistogram has 2**n_features cells: n_features must be at most "
                f"{MAX_FEATURES}; got X with {p} columns."
            )
        counts = data.reduce(_CellCounts(p))
        self._log(f"counts of {2**p} cells (one pass over the data)")
        state, rng = data.fitted_state()
        epsilon = self._fit_budget(data.n_samples, p).epsilon
        report = PrivacyReport("LaplaceHistogram (tests only)")
        noisy = report.release_laplace(
            "cell counts", counts, 2.0, epsilon, rng, derivation="replace-one: 2 counts move by 1"
        )
        self._log("cell counts released")
        weights = np.clip(noisy, 0.0, None)
        total = weights.sum()
        weights = weights / total if total > 0 else np.full(weights.size, 1.0 / weights.size)
        cells = (np.arange(2**p)[:, None] >> np.arange(p)) & 1
        self._log("weights clipped and normalised")
        return self._set_fitted(
            state,
            records_=cells.astype(np.float64),
            weights_=weights,
            privacy_report_=report,
            epsilon_=report.epsilon,
        )

    def _candidates(self):
        return self.records_, self.weights_, False
