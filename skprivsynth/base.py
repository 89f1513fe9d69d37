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
from sklearn.utils.validation import check_is_fitted, validate_data

from ._math.sampling import sample_weighted_records
from .validation import check_boolean_matrix, check_n_samples, check_unit_interval

__all__ = ["BaseSynthesizer", "check_random_generator"]


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


class BaseSynthesizer(BaseEstimator):
    """Base class of all synthesizers.

    Subclasses implement ``fit`` (validating ``X`` and getting their generator with
    :meth:`_validate_fit_data`) and
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

    def _validate_fit_data(self, X, domain=None):
        """Validate ``X`` for fitting; return ``(X, fit_rng)``.

        Rejects NaN/inf, 1-D and empty input (sklearn's messages) and values outside
        the synthesizer's input domain (a message naming column, row and value).
        Records ``n_features_in_`` (and ``feature_names_in_``) and ``n_samples_fit_``.
        The generator returned is for the randomness of ``fit``; the stream used by
        :meth:`sample` is an independent child of the same seed.
        """
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=1)
        domain = self._input_domain if domain is None else domain
        names = getattr(self, "feature_names_in_", None)
        if domain == "boolean":
            check_boolean_matrix(X, feature_names=names)
        elif domain == "unit":
            check_unit_interval(X, feature_names=names)
        self.n_samples_fit_ = X.shape[0]
        fit_rng, self._sample_rng = check_random_generator(
            getattr(self, "random_state", None)
        ).spawn(2)
        return X, fit_rng

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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = False
        return tags
