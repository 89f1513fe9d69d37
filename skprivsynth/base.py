"""The synthesizer contract: ``fit(X) -> self`` then ``sample(n_samples)``.

A synthesizer is a scikit-learn estimator whose fitted state is a *finite set of
candidate records with weights* (group means, a reduced space with a density, a
universe with a histogram ...).  :meth:`BaseSynthesizer.sample` is post-processing
of that state: a weighted bootstrap followed, for Boolean output, by randomized
rounding (:func:`skprivsynth._math.sampling.sample_weighted_records`).
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._available_if import available_if
from sklearn.utils.validation import (
    _get_feature_names,
    check_array,
    check_is_fitted,
    validate_data,
)

from ._math.sampling import sample_weighted_records
from .accountant import charge_fit
from .chunks import add_statistics, as_chunks, reduce_chunks
from .metrics import (
    categorical_marginal_tvd,
    make_marginal_scorer,
    warn_if_differentially_private,
)
from .privacy import remaining_cost, warn_privacy_leak
from .validation import (
    check_boolean_matrix,
    check_n_samples,
    check_random_generator,
    check_unit_interval,
    is_seeded,
    role_generator,
    seed_name,
)

__all__ = ["BaseSynthesizer", "SynthesizerTags", "get_synthesizer_tags"]


@dataclass(slots=True)
class SynthesizerTags:
    """What a synthesizer needs from its input and from the encoder in front of it.

    scikit-learn's estimator tags (``__sklearn_tags__``) have no field for a Boolean or
    integer-code input, so a synthesizer declares these next to them, in the same way:
    :meth:`BaseSynthesizer._synthesizer_tags` calls ``super()``, changes fields and
    returns them.  :class:`~skprivsynth.SynthesisPipeline` and
    :func:`~skprivsynth.make_private_pipeline` read them (:func:`get_synthesizer_tags`)
    instead of inspecting parameters and signatures.

    Attributes
    ----------
    input_kind : {"boolean", "unit", "real"}, default="boolean"
        The values ``fit`` accepts: {0, 1}, [0, 1] or any finite number (every chunk is
        checked against it).
    encoding : {"onehot", "ordinal", "binary"}, default="onehot"
        How :func:`~skprivsynth.make_private_pipeline` encodes a table: one-hot blocks,
        integer codes (one column each) or binary codes (a synthesizer of the whole cube
        ``{0,1}^p``).
    max_bits : int or None, default=None
        With ``encoding="binary"``: at most this many bits in all.
    code_domain : bool, default=False
        ``fit(X, domain=..., numeric_codes=...)`` takes the declared number of codes of
        each column and its numeric codes (:func:`~skprivsynth.pipeline.declared_code_sizes`,
        :func:`~skprivsynth.pipeline.declared_numeric_codes`); a pipeline passes its
        encoder's when the ``domain`` parameter is None.
    feature_blocks : bool, default=False
        ``fit(X, feature_blocks=...)`` takes the one-hot blocks of the encoder; a
        pipeline passes its encoder's ``feature_blocks_`` when the ``feature_blocks``
        parameter is None.
    noise : bool, default=False
        The synthesizer has a ``noise`` parameter (``"continuous"`` or ``"discrete"``),
        which the encoder of :func:`~skprivsynth.make_private_pipeline` follows.
    """

    input_kind: str = "boolean"
    encoding: str = "onehot"
    max_bits: int | None = None
    code_domain: bool = False
    feature_blocks: bool = False
    noise: bool = False


def get_synthesizer_tags(estimator):
    """The :class:`SynthesizerTags` of ``estimator``.

    Those it declares if it is a :class:`BaseSynthesizer`; the defaults otherwise (one-hot
    input, nothing taken from the encoder).

    Parameters
    ----------
    estimator : estimator instance

    Returns
    -------
    SynthesizerTags

    Examples
    --------
    >>> from skprivsynth import MarginalSynthesizer
    >>> from skprivsynth.base import get_synthesizer_tags
    >>> get_synthesizer_tags(MarginalSynthesizer()).encoding
    'ordinal'
    """
    if isinstance(estimator, BaseSynthesizer):
        return estimator._synthesizer_tags()
    return SynthesizerTags()


def _check_values(X, domain, names):
    if domain == "boolean":
        check_boolean_matrix(X, feature_names=names)
    elif domain == "unit":
        check_unit_interval(X, feature_names=names)


class _ChunkStatistic:
    """``statistic`` of one validated chunk, with its row count: ``(n_rows, value)``.

    A plain object (not a closure) so that Dask can ship it to worker processes.
    """

    def __init__(self, statistic, estimator, n_features, names, domain):
        self.statistic, self.estimator = statistic, estimator
        self.n_features, self.names, self.domain = n_features, names, domain

    def __call__(self, chunk):
        names = _get_feature_names(chunk)
        X = check_array(
            chunk, dtype=np.float64, ensure_min_samples=0, estimator=self.estimator, input_name="X"
        )
        if X.shape[1] != self.n_features or (
            self.names is not None and (names is None or list(names) != list(self.names))
        ):
            raise ValueError(
                f"every chunk of X must have the columns of the first chunk ({self.n_features}"
                f"{'' if self.names is None else ': ' + repr(list(self.names))}); got a chunk "
                f"with {X.shape[1]}"
                f"{'' if names is None else ': ' + repr(list(names))}."
            )
        if X.shape[0] == 0:
            return 0, None
        _check_values(X, self.domain, self.names)
        return X.shape[0], self.statistic(X)


class _CountedMerge:
    """Merge of ``(n_rows, value)`` pairs; a None value (empty chunk) is neutral."""

    def __init__(self, merge):
        self.merge = merge

    def __call__(self, a, b):
        if a[1] is None or b[1] is None:
            return a[0] + b[0], b[1] if a[1] is None else a[1]
        return a[0] + b[0], self.merge(a[1], b[1])


#: True within :func:`seed_warning_given`: a caller has warned once for the seeded fits it runs.
_SEED_WARNED = contextvars.ContextVar("skprivsynth_seed_warned", default=False)


@contextlib.contextmanager
def seed_warning_given():
    """Within it, a seeded differentially private fit does not warn: the caller (the
    command line for ``--seed``, a seeded search) has warned once for all its fits."""
    token = _SEED_WARNED.set(True)
    try:
        yield
    finally:
        _SEED_WARNED.reset(token)


def seed_warning_is_given():
    """Whether a caller has warned for the seeded fits run now (:func:`seed_warning_given`)."""
    return _SEED_WARNED.get()


#: The releases made before a synthesizer's fit in a pipeline (its encoder's), set by
#: :func:`spent_before_fit`: the fit spends its stated budget less them.
_SPENT = contextvars.ContextVar("skprivsynth_spent_before_fit", default=None)


@contextlib.contextmanager
def spent_before_fit(report):
    """Within it, a differentially private fit spends its budget less ``report`` (a
    :class:`~skprivsynth.privacy.PrivacyReport` of the releases made before it on the
    same data), so that its ``epsilon`` (and ``delta``) state the whole run's guarantee
    (:func:`~skprivsynth.privacy.remaining_cost`).  :class:`~skprivsynth.SynthesisPipeline`
    enters it around the synthesizer's fit."""
    token = _SPENT.set(report)
    try:
        yield
    finally:
        _SPENT.reset(token)


class _FitData:
    """The data of one fit, in memory or in chunks, read through statistics."""

    def __init__(self, estimator, X, domain):
        self.estimator, self.domain = estimator, domain
        self.chunks = as_chunks(X)
        self.n_samples = self.n_rows = None
        if self.chunks is None:
            self.feature_names = _get_feature_names(X)
            X = check_array(
                X, dtype=np.float64, ensure_min_samples=1, estimator=estimator, input_name="X"
            )
            _check_values(X, domain, self.feature_names)
            self.array, self.n_samples = X, X.shape[0]
            self.n_features = X.shape[1]
            return
        first = self.chunks._peek()
        if first is None:
            raise ValueError(
                "X is a source of chunks without any chunk; at least one row is required."
            )
        self.feature_names = _get_feature_names(first)
        self.n_features = self.width = check_array(
            first, dtype=np.float64, ensure_min_samples=0, estimator=estimator, input_name="X"
        ).shape[1]

    def check_reiterable(self):
        """Refuse, before reading anything, a one-shot iterator for a fit of several passes."""
        if self.chunks is not None:
            self.chunks.check_reiterable(f"{type(self.estimator).__name__}.fit")

    def reduce(self, statistic, merge=add_statistics):
        """``statistic`` merged over the validated chunks (in memory: of ``X``)."""
        if self.chunks is None:
            return statistic(self.array)
        count = _ChunkStatistic(
            statistic,
            type(self.estimator).__name__,
            self.width,  # every chunk's (the public n_features may be set by the fit)
            self.feature_names,
            self.domain,
        )
        n, value = reduce_chunks(self.chunks, count, _CountedMerge(merge))
        if n == 0:
            raise ValueError("X has no rows in any chunk; at least one row is required.")
        if self.n_rows is not None and n != self.n_rows:
            raise ValueError(
                f"X gave {n} rows in a later pass over its chunks and {self.n_rows} in "
                "the first; a source of chunks must give the same rows at every pass."
            )
        # The public n is the rows' unless the fit sets it (a person-level fit's people).
        self.n_rows = n
        self.n_samples = n if self.n_samples is None else self.n_samples
        return value

    def fitted_state(self):
        """Charge the fit (public ``n``, ``d``); return ``(state, fit_rng)``.

        ``state`` is for :meth:`_set_fitted`; the generators are made only after the
        charge, so a refused fit draws nothing.
        """
        charge_fit(self.estimator, self.n_samples, self.n_features)
        random_state = getattr(self.estimator, "random_state", None)
        if (
            is_seeded(random_state)
            and self.estimator._differentially_private
            and not seed_warning_is_given()
        ):
            warn_privacy_leak(
                f"{type(self.estimator).__name__}(random_state={seed_name(random_state)}) seeds a "
                "differentially private fit: anyone who knows the seed (or holds the "
                "Generator) can regenerate the privacy noise and subtract it, which voids "
                "the guarantee. Seed for tests only; leave random_state=None for a release.",
                stacklevel=5,  # warn -> fitted_state -> fit -> sklearn's fit wrapper -> caller
            )
        # Two independent streams (``role_generator``): with ``random_state=None`` each
        # of fresh OS entropy, not children of one parent (a child keeps its parent's
        # entropy, ``bit_generator.seed_seq.entropy``, so the sampling stream kept on the
        # fitted estimator would regenerate the noise of the fit); an int seed gives the
        # children of ``default_rng(seed).spawn(2)``; a Generator, a draw of its own each.
        fit_rng = role_generator(random_state, "fit")
        sample_rng = role_generator(random_state, "sampling")
        state = {
            "n_features_in_": self.n_features,
            "feature_names_in_": self.feature_names,
            "n_samples_fit_": self.n_samples,
            "_sample_rng": sample_rng,
        }
        return state, fit_rng


class BaseSynthesizer(BaseEstimator):
    """Base class of all synthesizers.

    Subclasses implement ``fit`` (opening ``X``, in memory or in chunks, and getting
    their generator with :meth:`_validate_fit_source`, reading the data only through
    mergeable statistics, computing into locals, and assigning every fitted attribute
    at the end with :meth:`_set_fitted`, so that a failed fit changes nothing) and the
    sampling hook :meth:`_sample` (or :meth:`_candidates`, which returns ``(records,
    weights, rounding)`` for the default weighted bootstrap).  They get for free:
    :meth:`sample` with default size ``n_samples_fit_`` (:meth:`_sample_size`),
    reproducible randomness, ``NotFittedError`` before fit and width checks.

    Randomness of :meth:`sample`: with ``random_state=None`` the draws continue a
    generator seeded at fit time from the estimator's ``random_state``, so that a
    seeded estimator gives a reproducible *sequence* of samples; pass an explicit
    ``random_state`` to ``sample`` to reproduce one draw.
    """

    #: Whether ``fit`` is a differentially private release (read it with
    #: :func:`is_differentially_private`); DP subclasses set it to True.
    _differentially_private = False

    #: The synthesizer's ``--method`` on the command line; None: not offered there.
    _cli_name = None

    # Merged by every subclass: ``{**BaseSynthesizer._parameter_constraints, ...}``.
    _parameter_constraints: dict = {
        "random_state": ["random_state", np.random.Generator],
        "verbose": ["verbose"],
    }

    def _validate_fit_source(self, X):
        """Open ``X`` for a fit from statistics; return ``data``.

        ``X`` is in-memory data or a source of chunks
        (:func:`~skprivsynth.chunks.is_chunk_source`).  ``data.reduce(statistic)``
        merges the statistic of each validated chunk (in-memory data is one chunk,
        so the chunked and in-memory fits compute the same statistics);
        ``data.fitted_state()`` then charges the fit to the active accountant (its
        cost depends on public parameters and the public shape ``(n, p)`` only; call
        it after the first pass, before anything is drawn) and returns ``(state,
        fit_rng)``: ``state`` for :meth:`_set_fitted` (``n_features_in_``,
        ``feature_names_in_``, ``n_samples_fit_`` and the sampling stream, assigned
        with the other fitted attributes once the whole fit has succeeded, so a
        failed fit leaves the previous fit intact), ``fit_rng`` for the randomness of
        ``fit``.  The stream kept for :meth:`sample` is independent of it: fresh OS
        entropy of its own with ``random_state=None`` (nothing kept after the fit can
        regenerate the fit's noise), the role ``"sampling"`` of the seed otherwise
        (:func:`~skprivsynth.validation.role_generator`; a seeded DP fit warns).

        Each chunk is checked by rules that read one row at a time: NaN/inf, 1-D and
        empty input are rejected (sklearn's messages), and so are values outside the
        synthesizer's ``input_kind`` (:meth:`_synthesizer_tags`; a message naming
        column, row and value).
        """
        return _FitData(self, X, self._synthesizer_tags().input_kind)

    def _synthesizer_tags(self):
        """The :class:`SynthesizerTags` of this synthesizer (its parameters may set them)."""
        return SynthesizerTags()

    def _fit_cost(self, n_samples, n_features):
        """Privacy cost of one ``fit`` on ``n_samples`` rows of ``n_features`` columns.

        A function of the public parameters and the public shape only (``n_features``
        is None when unknown, e.g. after an encoder): a
        :class:`~skprivsynth.privacy.PrivacyCost`, as charged to the active
        :class:`~skprivsynth.PrivacyAccountant` before the fit draws anything; None for
        a synthesizer that is not differentially private.  Every DP subclass states
        its own.
        """
        if self._differentially_private:
            raise TypeError(
                f"{type(self).__name__} is differentially private but does not state its "
                "privacy cost (_fit_cost); it cannot be fitted inside a PrivacyAccountant "
                "scope."
            )
        return None

    def _fit_budget(self, n_samples, n_features):
        """The budget this fit spends: :meth:`_fit_cost`, less the releases made before
        it in a pipeline (:func:`spent_before_fit`); what every DP fit reads and what
        the active accountant is charged."""
        cost = self._fit_cost(n_samples, n_features)
        spent = _SPENT.get()
        if cost is None or spent is None:
            return cost
        return remaining_cost(cost, spent, self._zcdp_delta())

    def _zcdp_delta(self):
        """The δ at which a zCDP :meth:`_fit_cost` is stated (None: not zCDP)."""
        return None

    def _set_fitted(self, state, **attributes):
        """Assign the fitted attributes of a successful fit at once; return ``self``.

        ``state`` comes from ``data.fitted_state()`` (:meth:`_validate_fit_source`); a
        ``feature_names_in_`` left
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
        raise NotImplementedError(
            f"{type(self).__name__} must implement _sample() or _candidates()."
        )

    def _sampling_generator(self, random_state):
        if random_state is None:
            return self._sample_rng
        return check_random_generator(random_state)

    def _sample_size(self, n_samples):
        """The number of records a :meth:`sample` call draws (default: ``n_samples_fit_``);
        a synthesizer with a release budget checks it here, before anything is drawn."""
        return check_n_samples(n_samples, self.n_samples_fit_)

    def _sample(self, n_samples, rng, rounding):
        """Draw ``n_samples`` records with ``rng``: the sampling hook.

        The default draws from :meth:`_candidates` (a weighted bootstrap); with
        ``rounding=False`` fractional candidate records are returned as drawn, for a
        decoder that rounds them itself (:class:`~skprivsynth.SynthesisPipeline`).
        """
        records, weights, candidates_rounding = self._candidates()
        return sample_weighted_records(
            records, weights, n_samples, rng, rounding=rounding and candidates_rounding
        )

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
        n = self._sample_size(n_samples)
        return self._sample(n, self._sampling_generator(random_state), rounding=True)

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
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, ensure_min_samples=1)
        if self._synthesizer_tags().input_kind != "real":
            return make_marginal_scorer(degree=2)(self, X)
        warn_if_differentially_private(self)
        synthetic = self.sample(len(X), random_state=0)
        return -categorical_marginal_tvd(X, synthetic, degree=min(2, X.shape[1]))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = False
        return tags

    def _columns_text(self, columns):
        """The input columns ``columns`` (positions) in words, for progress lines and
        report labels: their names when known (``"age × sex"``), else their positions
        (``"columns (0, 6)"``).

        Names are those a :class:`~skprivsynth.SynthesisPipeline` passes for its fit
        (the encoder's output names, from the declared domain), or
        ``feature_names_in_``; public either way, like every column set released.
        """
        columns = tuple(int(j) for j in columns)
        names = getattr(self, "_fit_column_names", None)
        if names is None:
            names = getattr(self, "feature_names_in_", None)
        if names is not None:  # and the columns a fit adds (a person-level fit's count)
            names = [*names, *self._added_column_names(names)]
        if names is None or len(names) <= max(columns, default=-1):
            return f"column {columns[0]}" if len(columns) == 1 else f"columns {columns}"
        return " × ".join(str(names[j]) for j in columns)

    def _added_column_names(self, names):
        """Names of the columns a fit adds after the input's ``names`` (none by default)."""
        return ()

    def _log(self, message=None):
        """Print the phase line ``[Class] message (seconds)`` on standard error.

        Only when the estimator's ``verbose >= 1`` (scikit-learn's convention: 0 is
        silent).  The time is that of the phase, since the previous line;
        ``message=None`` only starts the clock (at the beginning of ``fit``).  Lines
        name phases and public quantities (sizes, released choices), never a value
        computed from the data before its release.
        """
        if not getattr(self, "verbose", 0):
            return
        now = time.perf_counter()
        if message is not None:
            seconds = now - getattr(self, "_log_clock", now)
            print(
                f"[{type(self).__name__}] {message} ({seconds:.1f} s)", file=sys.stderr, flush=True
            )
        self._log_clock = now
