"""Input checks shared by all estimators, and pipeline-compatible validators.

The functions raise ``ValueError`` / ``TypeError`` whose message names the parameter,
the offending value (and its row / column) and what is accepted.  The transformers
:class:`BooleanValidator` and :class:`UnitIntervalValidator` pass data through
unchanged after checking it, so they can guard a :class:`~sklearn.pipeline.Pipeline`.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted, validate_data

__all__ = [
    "BooleanValidator",
    "UnitIntervalValidator",
    "check_boolean_matrix",
    "check_enough_rows",
    "check_n_samples",
    "check_random_generator",
    "check_unit_interval",
    "is_differentially_private",
    "is_seeded",
    "role_generator",
    "seed_name",
]


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


def is_seeded(random_state):
    """Whether ``random_state`` is a seed: anything but None (an int, a Generator, a
    RandomState).  A differentially private release with a seed warns
    :class:`~skprivsynth.PrivacyLeakWarning`: whoever knows the seed (or holds the
    Generator) can regenerate the noise and subtract it."""
    return random_state is not None


def seed_name(random_state):
    """How a message names a seed: an int as itself, a generator by its class (its
    ``repr`` holds a memory address, which differs from one run to the next)."""
    if isinstance(random_state, Integral | np.integer) and not isinstance(random_state, bool):
        return repr(int(random_state))
    return type(random_state).__name__


#: The spawn key of each role's stream under one seed (stable: numbers seeded before
#: depend on them).  ``"fit"`` and ``"sampling"`` are the children that
#: ``default_rng(seed).spawn(2)`` gives (a synthesizer's two streams).  A SeedSequence
#: reads its spawn key as 32-bit words, so a key of several words would equal the path of
#: a nested spawn (``2**32 + 1`` is the words ``(1, 1)``: the second child of the second
#: child); the other roles are single words no spawn reaches (``2**32 - 2**16 + i``).
_ROLE_KEYS = {
    "fit": 0,
    "sampling": 1,
    **{
        role: 2**32 - 2**16 + i
        for i, role in enumerate(
            (
                "encoder bins",
                "encoder grid points",
                "encoder level frequencies",
                "encoder decoding",
                "pipeline sampling",
                "pipeline decoding",
                "encoder person rows",
                "events filling",
            )
        )
    },
}


def role_generator(random_state, role):
    """The generator of ``role`` (a key of ``_ROLE_KEYS``) under ``random_state``.

    Each role of one seed gets an independent stream, so that one seed given to an
    encoder, a synthesizer and ``sample`` never repeats a stream between them: an int
    ``s`` gives ``SeedSequence(s, spawn_key=(key,))``; a Generator or a RandomState
    gives a stream seeded by 128 bits drawn from it at this call (it advances; the
    stream holds neither it nor its entropy, so it does not predict the caller's
    draws); None gives fresh OS entropy.

    Examples
    --------
    >>> a, b = role_generator(0, "fit"), role_generator(0, "encoder bins")
    >>> bool(a.random() != b.random())
    True
    """
    key = _ROLE_KEYS[role]
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator | np.random.RandomState):
        entropy = int.from_bytes(random_state.bytes(16), "little")
    else:
        entropy = check_random_generator(random_state).bit_generator.seed_seq.entropy
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(key,)))


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


def _column_label(j, feature_names=None):
    if feature_names is not None:
        return f"column {feature_names[j]!r} (index {j})"
    return f"column {j}"


def _first_bad_column(mask):
    return int(np.flatnonzero(mask.any(axis=0))[0])


def check_boolean_matrix(X, name="X", feature_names=None):
    """Check that the 2-D float array ``X`` has only entries 0 and 1.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Already converted by :func:`sklearn.utils.check_array` (finite, 2-D).
    name : str
        Parameter name used in the error message.
    feature_names : array-like of str, optional
        Column names used in the error message.

    Returns
    -------
    X : ndarray
        The same array.

    Raises
    ------
    ValueError
        Naming the first offending column, never a value nor a row (``X`` may be
        private).
    """
    bad = (X != 0) & (X != 1)
    if bad.any():
        j = _first_bad_column(bad)
        raise ValueError(
            f"{name} must be a Boolean matrix with entries in {{0, 1}}; "
            f"{_column_label(j, feature_names)} has other values. "
            "Encode categorical or numeric data with skprivsynth.preprocessing.BooleanEncoder."
        )
    return X


def check_unit_interval(X, name="X", feature_names=None):
    """Check that every entry of the 2-D float array ``X`` lies in ``[0, 1]``.

    NaN is not in ``[0, 1]`` and is rejected like any other value outside it.
    """
    # Fast path: two reductions, no temporary arrays (a NaN makes the minimum NaN).
    if X.size == 0 or (X.min() >= 0 and X.max() <= 1):
        return X
    bad = ~((X >= 0) & (X <= 1))
    if bad.any():
        raise ValueError(
            f"{name} must have all entries in [0, 1]; "
            f"{_column_label(_first_bad_column(bad), feature_names)} has values outside it "
            "(or NaN)."
        )
    return X


def check_enough_rows(n_rows, required, parameter, value):
    """Raise if ``n_rows < required``, naming the parameter that needs the rows."""
    if n_rows < required:
        raise ValueError(
            f"{parameter}={value!r} needs at least {required} rows in X; got n_samples = {n_rows}."
        )


def check_n_samples(n_samples, default):
    """Return ``default`` when ``n_samples`` is None, else a checked positive int."""
    if n_samples is None:
        return int(default)
    if isinstance(n_samples, bool) or not isinstance(n_samples, Integral | np.integer):
        raise TypeError(f"n_samples must be a positive integer or None; got {n_samples!r}.")
    if n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer or None; got {n_samples!r}.")
    return int(n_samples)


class _PassThroughValidator(TransformerMixin, BaseEstimator):
    """Base class: check in ``fit``/``transform``, return the data unchanged."""

    def _check(self, X, reset):
        Xa = validate_data(self, X, reset=reset, dtype=np.float64, ensure_all_finite=True)
        names = getattr(self, "feature_names_in_", None)
        self._check_values(Xa, names)
        return Xa

    def fit(self, X, y=None):
        """Check ``X`` and record its number of columns (and names)."""
        self._check(X, reset=True)
        return self

    def transform(self, X):
        """Check ``X`` and return it unchanged (as a float array)."""
        check_is_fitted(self)
        return self._check(X, reset=False)

    def inverse_transform(self, X):
        """Identity: validators do not change the data."""
        check_is_fitted(self)
        return X

    def get_feature_names_out(self, input_features=None):
        """Names of the (unchanged) output columns.

        Parameters
        ----------
        input_features : array-like of str, optional
            Input names: returned as they are (they must match ``feature_names_in_``
            when it is defined, and have ``n_features_in_`` entries).  Defaults to
            ``feature_names_in_``, else ``["x0", "x1", ...]``.

        Returns
        -------
        ndarray of str objects
        """
        check_is_fitted(self)
        return _check_feature_names_in(self, input_features)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "n_features_in_")


class BooleanValidator(_PassThroughValidator):
    """Pass-through transformer that rejects anything but a finite {0, 1} matrix.

    Put it in front of a synthesizer in a pipeline to fail early with an error that
    names the column and the bad value.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.validation import BooleanValidator
    >>> BooleanValidator().fit_transform(np.array([[0, 1], [1, 1]])).tolist()
    [[0.0, 1.0], [1.0, 1.0]]
    """

    def _check_values(self, X, names):
        check_boolean_matrix(X, feature_names=names)


class UnitIntervalValidator(_PassThroughValidator):
    """Pass-through transformer that rejects values outside ``[0, 1]``, NaN and inf."""

    def _check_values(self, X, names):
        check_unit_interval(X, feature_names=names)
