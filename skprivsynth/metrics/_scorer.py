"""The marginal scorer for model selection (:func:`make_marginal_scorer`): the exact
score, which warns for a differentially private synthesizer, or an ε-DP release
charged to the active :class:`~skprivsynth.PrivacyAccountant`."""

import warnings
from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OrdinalEncoder

from ..accountant import charge_active
from ..privacy import (
    NOISE_OPTIONS,
    PrivacyCost,
    check_epsilon,
    laplace_mechanism,
    warn_privacy_leak,
)
from ..validation import is_differentially_private
from ._boolean import _FORMS, _STATISTICS, marginal_error
from ._categorical import _warn_float_levels, categorical_marginal_tvd
from ._combinations import _check_workload
from ._validation import _as_frame, _check_max_marginals, _check_noise_random_state, _check_option

_SPACES = ("encoded", "decoded")


def warn_if_differentially_private(estimator):
    """Warn that scoring a DP synthesizer on real data is outside its guarantee.

    The score is a non-private function of the held-out real rows; a choice made from
    it (``GridSearchCV.best_params_`` / ``best_estimator_``) is therefore not covered by
    the synthesizer's ε, and every fit of a search spends its own ε on the training
    folds (basic composition over all fits).  Private selection needs its own
    mechanism (Liu and Talwar, "Private selection from private candidates", STOC 2019;
    Papernot and Steinke, "Hyperparameter tuning with Rényi differential privacy",
    ICLR 2022); without one, tune on public or proxy data.

    Public so that every exact score of a synthesizer on real data warns alike: the
    scorers of this module and the ``score`` methods of
    :class:`~skprivsynth.base.BaseSynthesizer` and
    :class:`~skprivsynth.SynthesisPipeline`.

    Parameters
    ----------
    estimator : synthesizer or :class:`~sklearn.pipeline.Pipeline`
        The scored estimator; a pipeline is judged by its last step.

    Warns
    -----
    PrivacyLeakWarning
        When the synthesizer is differentially private (by its class tags, see
        :func:`~skprivsynth.validation.is_differentially_private`); the warning points
        at the caller of the scorer or ``score`` method that calls this function.

    Examples
    --------
    >>> import warnings
    >>> from skprivsynth import NoisyMicroaggregation
    >>> from skprivsynth.metrics import warn_if_differentially_private
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_differentially_private(NoisyMicroaggregation(epsilon=1.0))
    >>> caught[0].category.__name__
    'PrivacyLeakWarning'
    """
    synthesizer = estimator[-1] if isinstance(estimator, Pipeline) else estimator
    if is_differentially_private(synthesizer):
        warn_privacy_leak(
            f"scoring the differentially private {type(synthesizer).__name__} on real "
            "data: the score, and any choice made from it (e.g. GridSearchCV's "
            "best_params_), is not covered by its epsilon, and each fit of a search "
            "spends its own epsilon.  Tune on public or proxy data, or use a DP score "
            "(make_marginal_scorer(epsilon=...)) inside a PrivacyAccountant, or "
            "PrivateSelectionSearch.",
            stacklevel=4,
        )


class MarginalScorer:
    """Scorer ``scorer(estimator, X, y=None) -> −marginal error`` (greater is better).

    Build it with :func:`make_marginal_scorer`; the attributes are its parameters.  A
    plain class (not :func:`sklearn.metrics.make_scorer`, which needs ``y``) so that it
    pickles for ``GridSearchCV(n_jobs=...)``.
    """

    def __init__(
        self,
        degree=2,
        form="table",
        statistic="mean",
        space="encoded",
        n_samples=None,
        random_state=0,
        max_marginals=None,
        epsilon=None,
        noise="continuous",
        noise_random_state=None,
        workload=None,
    ):
        self.degree = degree
        self.form = form
        self.statistic = statistic
        self.space = space
        self.n_samples = n_samples
        self.random_state = random_state
        self.max_marginals = max_marginals
        self.epsilon = epsilon
        self.noise = noise
        self.noise_random_state = noise_random_state
        self.workload = workload

    def _n_rows(self, X):
        return self.n_samples if self.n_samples is not None else len(X)

    def _released(self, pipeline, n, X):
        """The pipeline's decoded sample, as a DataFrame with ``X``'s columns when ``X``
        is one (decoders such as OneHotEncoder return arrays)."""
        released = pipeline.sample(n_samples=n, random_state=self.random_state)
        if isinstance(X, pd.DataFrame) and not isinstance(released, pd.DataFrame):
            released = pd.DataFrame(np.asarray(released), columns=X.columns)
        return released

    def __call__(self, estimator, X, y=None):
        """Score ``estimator`` (a fitted synthesizer or synthesis pipeline) on ``X``.

        Parameters
        ----------
        estimator : fitted synthesizer or :class:`~sklearn.pipeline.Pipeline`
            A synthesizer has ``sample(n_samples, random_state)``; a pipeline ends in
            one (and, for ``space="decoded"``, has its own decoding ``sample``).
        X : array-like or DataFrame
            Held-out real data, in the pipeline's input space.
        y : ignored
            Present for the scorer protocol of scikit-learn.

        Returns
        -------
        float
            The negated marginal error; with ``epsilon``, plus Laplace noise of scale
            ``1/(len(X)·epsilon)`` (an ``epsilon``-DP release, charged to the active
            :class:`~skprivsynth.PrivacyAccountant` before the noise is drawn).
        """
        if self.epsilon is None:
            warn_if_differentially_private(estimator)
            return self._exact_score(estimator, X)
        # Replace-one sensitivity of the score in the n = len(X) scored real rows (n is
        # public): the real side of every marginal error is an average of n per-row
        # terms in [0, 1] (a cell indicator, a product of bits, or a row's product
        # distribution over the cells), so replacing one row moves the real marginal by
        # at most 1/n in total variation (table form) or in value (conjunction form),
        # and each error |·| or TVD(·, synthetic) by at most 1/n (triangle inequality).
        # The mean, max and rms over column sets are 1-Lipschitz for the sup norm, so
        # the score moves by at most 1/n.  Column sets, the synthetic sample and the
        # encoder are fixed before X is read (seeded or fitted on other data) and the
        # encoder's transform is row-wise.  Laplace noise of scale (1/n)/epsilon is
        # then epsilon-DP (Dwork, McSherry, Nissim & Smith 2006).
        n_real = len(X)
        charge_active(f"DP marginal score of {n_real} rows", PrivacyCost(epsilon=self.epsilon))
        try:
            score = self._exact_score(estimator, X, private=True)
        except ValueError:
            # Validation messages name rows and values of X: withheld on a DP path.
            raise ValueError(
                "the DP score's real rows X failed a validation check of the metric (values "
                "outside the synthesizer's domain, missing values or a width mismatch); its "
                "message may quote private values and is withheld here.  Check X against "
                "the public domain before scoring."
            ) from None
        noisy, _ = laplace_mechanism(
            [score],
            1.0 / n_real,
            self.epsilon,
            _noise_generator(self.noise_random_state),
            noise=self.noise,
        )
        return float(noisy[0])

    def _exact_score(self, estimator, X, private=False):
        """The exact score.  ``private``: the DP path, on which nothing shown may depend
        on ``X`` (its rows are read with warnings off; the float-levels warning, if
        any, is decided on the released synthetic sample)."""
        synthetic, error = self._synthetic(estimator, X, self._n_rows(X))
        if not private:
            return -error(X)
        decoded = self.space == "decoded" and isinstance(estimator, Pipeline)
        if decoded and not hasattr(estimator, "_scored_tables"):
            _warn_float_levels(_as_frame(synthetic, "the synthetic sample"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return -error(X)

    def _kwargs(self):
        return {
            "degree": self.degree,
            "max_marginals": self.max_marginals,
            "statistic": self.statistic,
            "random_state": self.random_state,
            "workload": self.workload,
        }

    def _code_error(self, real_codes, synthetic_codes):
        """The error of integer-coded tables (one column of codes per column, as
        ``BooleanEncoder(encoding="ordinal")`` gives them): the TVD of their d-way
        tables of codes."""
        if self.form != "table":
            raise ValueError(
                f"form={self.form!r} compares Boolean columns, but the scored space holds "
                "integer codes (an encoding='ordinal' encoder, or a synthesizer of codes "
                "such as MarginalSynthesizer); use form='table'."
            )
        return categorical_marginal_tvd(
            pd.DataFrame(np.asarray(real_codes)),
            pd.DataFrame(np.asarray(synthetic_codes)),
            **self._kwargs(),
        )

    def _synthetic(self, estimator, X, n):
        """``(synthetic, error)``: the released sample and ``error(X)``, its marginal
        error against the real rows ``X``."""
        kwargs = self._kwargs()
        if isinstance(estimator, Pipeline):
            if self.space == "decoded":
                if not hasattr(estimator, "sample"):
                    raise TypeError(
                        "space='decoded' needs a pipeline with a decoding sample() method "
                        f"(e.g. SynthesisPipeline); got {type(estimator).__name__}."
                    )
                synthetic = self._released(estimator, n, X)
                tables = getattr(estimator, "_scored_tables", None)
                if tables is None:
                    return synthetic, lambda X: categorical_marginal_tvd(X, synthetic, **kwargs)

                def decoded_error(X):
                    # The tables of SynthesisPipeline.score: the encoder's fitted domain
                    # (numbers in its bins), parts of a datetime left out.
                    real, synth, domain = tables(X, synthetic)
                    return categorical_marginal_tvd(real, synth, domain=domain, **kwargs)

                return synthetic, decoded_error
            synthesizer = estimator[-1]
            if len(estimator) > 1:
                encoder = estimator[:-1]
                if hasattr(estimator, "sample"):
                    # Score what the pipeline releases: its decoded sample, encoded
                    # again.  The last step's own sample can differ (e.g. a
                    # SynthesisPipeline rounds fractional records block-wise, never
                    # giving an invalid one-hot block, while a synthesizer's sample
                    # rounds every coordinate independently).
                    synthetic = encoder.transform(self._released(estimator, n, X))
                else:
                    synthetic = synthesizer.sample(n_samples=n, random_state=self.random_state)
                if _emits_codes(_last_step(encoder)):
                    return synthetic, lambda X: self._code_error(encoder.transform(X), synthetic)
                return synthetic, lambda X: marginal_error(
                    encoder.transform(X), synthetic, form=self.form, **kwargs
                )
        else:
            synthesizer = estimator
        if not hasattr(synthesizer, "sample"):
            raise TypeError(
                "the scored estimator must be a synthesizer with a sample() method or a "
                f"pipeline ending in one; got {type(synthesizer).__name__}."
            )
        synthetic = synthesizer.sample(n_samples=n, random_state=self.random_state)
        tags = getattr(synthesizer, "_synthesizer_tags", None)
        if tags is not None and tags().input_kind == "real":  # codes or numbers, not bits
            return synthetic, lambda X: self._code_error(X, synthetic)
        return synthetic, lambda X: marginal_error(X, synthetic, form=self.form, **kwargs)

    def __repr__(self):
        params = ", ".join(
            f"{name}={getattr(self, name)!r}"
            for name in (
                "degree",
                "form",
                "statistic",
                "space",
                "n_samples",
                "random_state",
                "max_marginals",
                "epsilon",
                "noise",
                "noise_random_state",
                "workload",
            )
        )
        return f"make_marginal_scorer({params})"


def _last_step(pipeline):
    """The last step of ``pipeline`` that is not None or ``"passthrough"``."""
    steps = [step for _, step in pipeline.steps if step is not None and step != "passthrough"]
    return steps[-1] if steps else None


def _emits_codes(transformer):
    """Whether ``transformer`` encodes each column as one column of integer codes
    (``BooleanEncoder(encoding="ordinal")``, :class:`~sklearn.preprocessing.OrdinalEncoder`)
    rather than as bits; read from its parameters (public)."""
    return isinstance(transformer, OrdinalEncoder) or (
        getattr(transformer, "encoding", None) == "ordinal"
    )


def _noise_generator(noise_random_state):
    """Generator of a DP score's noise: fresh OS entropy, or the caller's Generator."""
    if noise_random_state is None:
        return np.random.default_rng()
    return noise_random_state


def make_marginal_scorer(
    degree=2,
    form="table",
    statistic="mean",
    space="encoded",
    n_samples=None,
    random_state=0,
    max_marginals=None,
    epsilon=None,
    noise="continuous",
    noise_random_state=None,
    workload=None,
):
    """Scorer for model selection of synthesizers: ``scorer(estimator, X, y=None)``.

    The scorer draws ``n_samples`` synthetic records (default ``len(X)``) and returns
    the **negated** marginal error against the held-out ``X`` (greater is better), so
    it can be passed as ``GridSearchCV(..., scoring=scorer)`` with ``y=None``.

    Parameters
    ----------
    degree : int, default=2
        Marginal degree ``d``.
    form : {"table", "conjunction"}, default="table"
        Boolean-matrix error form (see :func:`marginal_errors`); ``space="decoded"``
        and integer codes need ``"table"``.
    statistic : {"mean", "max", "rms"}, default="mean"
        Summary over column sets; ``form="table", statistic="mean"`` is the mean total
        variation distance.
    space : {"encoded", "decoded"}, default="encoded"
        Where a *pipeline* is evaluated.  ``"encoded"`` (default): the encoded real
        rows ``pipeline[:-1].transform(X)`` against, for a pipeline with a decoding
        ``sample`` (e.g. ``SynthesisPipeline``), the released records encoded again,
        ``pipeline[:-1].transform(pipeline.sample(...))`` -- so the score is that of
        what the pipeline actually outputs (its one-hot-respecting rounding, not the
        synthesizer's coordinate-wise rounding) -- and otherwise
        ``pipeline[-1].sample(...)``.  Bits (one-hot or binary encodings) are compared
        with :func:`marginal_error`, and with a one-hot encoding the encoded pairs'
        conjunctions contain every cell of the decoded 2-way tables, but the averages
        differ; integer codes (``encoding="ordinal"``, the encoding of
        :class:`~skprivsynth.MarginalSynthesizer`) are compared as the d-way tables of
        their codes with :func:`categorical_marginal_tvd`.  ``"decoded"`` (the
        benchmarks' metric): ``pipeline.sample(...)`` against ``X`` with
        :func:`categorical_marginal_tvd`, in the tables of
        :meth:`SynthesisPipeline.score <skprivsynth.SynthesisPipeline.score>`: behind a
        :class:`~skprivsynth.preprocessing.BooleanEncoder`, every column is read in the
        encoder's fitted (public) domain -- numbers and dates in its bins, levels as
        levels, a missing value as a level -- and the parts of a datetime column (functions
        of it) are left out; with the defaults (``degree=2``, ``random_state=0``, the
        mean) the score *is* ``pipeline.score(X)``.  Behind another decoder every
        distinct value is a category.  A bare synthesizer has no decoder and is always
        compared in its own space: bits with :func:`marginal_error`, the codes of a
        synthesizer of integer codes as the tables of their codes.
    n_samples : int, optional
        Number of synthetic records per evaluation; None uses ``len(X)``.
    random_state : None, int or numpy.random.Generator, default=0
        Passed to ``sample`` and to the column-subset choice.  The fixed default makes
        every candidate of a search use the same seed (common random numbers).
    max_marginals : int, optional
        Random subset of column sets (see :func:`marginal_errors`).
    epsilon : float, optional
        Make each score an ``epsilon``-DP release: the exact score plus Laplace noise
        of scale ``1/(n·epsilon)``, ``n = len(X)`` the number of scored real rows (the
        replace-one sensitivity of every form and statistic above is ``1/n``; see the
        :doc:`User Guide <user_guide/tuning>`).  Each call is charged to the active
        :class:`~skprivsynth.PrivacyAccountant` before its noise is drawn, and scoring
        a DP synthesizer no longer warns.  None (default): the exact score, which warns
        :class:`~skprivsynth.exceptions.PrivacyLeakWarning` for a DP synthesizer.
    noise : {"continuous", "discrete"}, default="continuous"
        Laplace sampler of :func:`~skprivsynth.privacy.laplace_mechanism`.
    noise_random_state : None or numpy.random.Generator, default=None
        Source of the score noise: None draws fresh OS entropy at every call; a
        Generator (for tests) is advanced at every call.  An int is refused: the same
        noise on every score would leave their differences exact.
    workload : list of column sets, optional
        Score exactly these sets of columns (of the scored space), e.g. the
        ``workload`` declared to :class:`~skprivsynth.MarginalSynthesizer`: the mean
        (max, rms) error over them; ``degree`` is then ignored and ``max_marginals``
        must be None.  Public, like every column set of the score.  With
        ``space="decoded"`` the positions are those of the scored columns (the parts
        of a datetime column left out, see ``space``).

    Returns
    -------
    MarginalScorer
        A picklable callable.

    Examples
    --------
    >>> from skprivsynth.metrics import make_marginal_scorer
    >>> make_marginal_scorer(degree=3, max_marginals=200)
    make_marginal_scorer(degree=3, form='table', statistic='mean', space='encoded', \
n_samples=None, random_state=0, max_marginals=200, epsilon=None, noise='continuous', \
noise_random_state=None, workload=None)
    """
    _check_option(form, "form", _FORMS)
    _check_option(statistic, "statistic", _STATISTICS)
    _check_option(space, "space", _SPACES)
    if space == "decoded" and form != "table":
        raise ValueError(
            f"space='decoded' compares categorical tables and needs form='table'; got "
            f"form={form!r}."
        )
    if isinstance(degree, bool) or not isinstance(degree, Integral | np.integer) or degree < 1:
        raise ValueError(f"degree must be a positive integer; got {degree!r}.")
    if n_samples is not None and (
        isinstance(n_samples, bool)
        or not isinstance(n_samples, Integral | np.integer)
        or n_samples < 1
    ):
        raise ValueError(f"n_samples must be a positive integer or None; got {n_samples!r}.")
    _check_max_marginals(max_marginals)
    if epsilon is not None:
        epsilon = check_epsilon(epsilon)
    _check_option(noise, "noise", NOISE_OPTIONS)
    if workload is not None:  # the column range is checked on the scored data
        workload = _check_workload(workload, None, max_marginals)
    return MarginalScorer(
        degree=int(degree),
        form=form,
        statistic=statistic,
        space=space,
        n_samples=None if n_samples is None else int(n_samples),
        random_state=random_state,
        max_marginals=max_marginals,
        epsilon=epsilon,
        noise=noise,
        noise_random_state=_check_noise_random_state(noise_random_state),
        workload=workload,
    )
