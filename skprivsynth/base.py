"""The synthesizer contract: ``fit(X) -> self`` then ``sample(n_samples)``.

A synthesizer is a scikit-learn estimator whose fitted state is a *finite set of
candidate records with weights* (group means, a reduced space with a density, a
universe with a histogram ...).  :meth:`BaseSynthesizer.sample` is post-processing
of that state: a weighted bootstrap followed, for Boolean output, by randomized
rounding (:func:`skprivsynth._math.sampling.sample_weighted_records`).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.pipeline import Pipeline
from sklearn.utils._available_if import available_if
from sklearn.utils.validation import (
    _get_feature_names,
    check_array,
    check_is_fitted,
    validate_data,
)

from ._math.sampling import sample_weighted_records
from .accountant import charge_fit
from .validation import check_boolean_matrix, check_n_samples, check_unit_interval

__all__ = ["BaseSynthesizer", "check_random_generator", "is_differentially_private"]


def check_random_generator(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        None gives fresh OS entropy; an int seeds a new generator; a Generator is
        returned as is; a legacy RandomState seeds a new generator from its stream.
    """
    if random_state is None or isinstance(random_state, Integral | np.integer):
        if random_state is not None and random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer; got {random_state!r}.")
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**63 - 1, dtype=np.int64))
    raise TypeError(
        "random_state must be None, an int, a numpy Generator or a RandomState; "
        f"got {random_state!r}."
    )


def is_differentially_private(estimator):
    """Return True if ``estimator`` (or a pipeline's last step) is a DP synthesizer.

    Decided by the class (``_differentially_private``), like
    :func:`sklearn.base.is_classifier`, never by the parameter names.

    Examples
    --------
    >>> from skprivsynth import MicroaggregationSynthesizer, NoisyMicroaggregation
    >>> is_differentially_private(NoisyMicroaggregation())
    True
    >>> is_differentially_private(MicroaggregationSynthesizer())
    False
    """
    if isinstance(estimator, Pipeline):
        estimator = estimator[-1]
    return bool(getattr(estimator, "_differentially_private", False))


class BaseSynthesizer(BaseEstimator):
    """Base class of all synthesizers.

    Subclasses implement ``fit`` (validating ``X`` and getting their generator with
    :meth:`_validate_fit_data`, computing into locals, and assigning every fitted
    attribute at the end with :meth:`_set_fitted`, so that a failed fit changes
    nothing) and
    :meth:`_candidates`, which returns ``(records, weights, rounding)``.  They get for
    free: :meth:`sample` with default size ``n_samples_fit_``, reproducible
    randomness, ``NotFittedError`` before fit and width checks.

    Randomness of :meth:`sample`: with ``random_state=None`` the draws continue a
    generator seeded at fit time from the estimator's ``random_state``, so that a
    seeded estimator gives a reproducible *sequence* of samples; pass an explicit
    ``random_state`` to ``sample`` to reproduce one draw.
    """

    #: Which values ``fit`` accepts: "boolean" ({0,1}), "unit" ([0,1]) or "real".
    _input_domain = "boolean"

    #: Whether ``fit`` is a differentially private release (read it with
    #: :func:`is_differentially_private`); DP subclasses set it to True.
    _differentially_private = False

    # Merged by every subclass: ``{**BaseSynthesizer._parameter_constraints, ...}``.
    _parameter_constraints: dict = {
        "random_state": ["random_state", np.random.Generator],
    }

    def _validate_fit_data(self, X, domain=None):
        """Validate ``X`` for fitting; return ``(X, fit_rng, state)``.

        Rejects NaN/inf, 1-D and empty input (sklearn's messages) and values outside
        the synthesizer's input domain (a message naming column, row and value).
        Nothing is assigned to ``self``: ``state`` holds ``n_features_in_``,
        ``feature_names_in_``, ``n_samples_fit_`` and the sampling stream, and
        :meth:`_set_fitted` assigns them with the other fitted attributes once the
        whole fit has succeeded (a failed fit leaves the previous fit intact).  The
        generator returned is for the randomness of ``fit``; the stream used by
        :meth:`sample` is an independent child of the same seed.
        """
        names = _get_feature_names(X)
        X = check_array(X, dtype=np.float64, ensure_min_samples=1, estimator=self, input_name="X")
        # A DP fit is charged to the active PrivacyAccountant before it draws anything:
        # its cost depends on public parameters and on the public shape of X only.
        charge_fit(self, *X.shape)
        domain = self._input_domain if domain is None else domain
        if domain == "boolean":
            check_boolean_matrix(X, feature_names=names)
        elif domain == "unit":
            check_unit_interval(X, feature_names=names)
        fit_rng, sample_rng = check_random_generator(getattr(self, "random_state", None)).spawn(2)
        state = {
            "n_features_in_": X.shape[1],
            "feature_names_in_": names,
            "n_samples_fit_": X.shape[0],
            "_sample_rng": sample_rng,
        }
        return X, fit_rng, state

    def _set_fitted(self, state, **attributes):
        """Assign the fitted attributes of a successful fit at once; return ``self``.

        ``state`` comes from :meth:`_validate_fit_data`; a ``feature_names_in_`` left
        by an earlier fit on a DataFrame is removed when the new ``X`` has no names.
        """
        for name, value in {**state, **attributes}.items():
            if name == "feature_names_in_" and value is None:
                if hasattr(self, name):
                    delattr(self, name)
            else:
                setattr(self, name, value)
        return self

    def _candidates(self):
        """Return ``(records, weights, rounding)`` describing the fitted model."""
        raise NotImplementedError(f"{type(self).__name__} must implement _candidates().")

    def _sampling_generator(self, random_state):
        if random_state is None:
            return self._sample_rng
        return check_random_generator(random_state)

    def sample(self, n_samples=None, random_state=None):
        """Draw synthetic records.

        Parameters
        ----------
        n_samples : int, optional
            Number of records; defaults to the number of rows seen in ``fit``.
        random_state : None, int or numpy.random.Generator, optional
            Seed of this draw; None continues the estimator's own stream.

        Returns
        -------
        ndarray of shape (n_samples, n_features_in)
        """
        check_is_fitted(self)
        n = check_n_samples(n_samples, self.n_samples_fit_)
        rng = self._sampling_generator(random_state)
        records, weights, rounding = self._candidates()
        return sample_weighted_records(records, weights, n, rng, rounding=rounding)

    def _samples_categories(self):
        """Whether samples are categorical records (Boolean, or integer codes), so
        that :meth:`score` compares marginal tables; not for real-valued samples."""
        return bool(getattr(self, "rounding", True))

    @available_if(_samples_categories)
    def score(self, X, y=None):
        """Minus the mean total variation distance of the 2-way marginal tables.

        A sample of ``len(X)`` records (seed 0, the same for every call) is compared
        with ``X`` table by table over every pair of columns: the Boolean tables of
        ``make_marginal_scorer(degree=2)``
        (:func:`~skprivsynth.metrics.make_marginal_scorer`) for Boolean data, the
        tables of the codes (:func:`~skprivsynth.metrics.categorical_marginal_tvd`)
        for synthesizers of integer codes.  Greater is better, at most 0; it lets
        ``cross_val_score(synthesizer, X)`` run without ``scoring``.  The score is an
        exact function of ``X``: for a differentially private synthesizer it warns
        :class:`~skprivsynth.PrivacyLeakWarning`, as the scorer does (use
        ``make_marginal_scorer(epsilon=...)`` for a DP score).  Not available for
        real-valued samples (``MicroaggregationSynthesizer(rounding=False)``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in)
            Real data in the synthesizer's input space.
        y : None
            Ignored.

        Returns
        -------
        float
        """
        from .metrics import (  # metrics imports this module
            _warn_if_differentially_private,
            categorical_marginal_tvd,
            make_marginal_scorer,
        )

        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, ensure_min_samples=1)
        if self._input_domain != "real":
            return make_marginal_scorer(degree=2)(self, X)
        _warn_if_differentially_private(self)
        synthetic = self.sample(len(X), random_state=0)
        return -categorical_marginal_tvd(X, synthetic, degree=min(2, X.shape[1]))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = False
        return tags
