"""Utility of synthetic data: train on synthetic rows, test on real ones
(:func:`train_synthetic_test_real`, :func:`make_utility_scorer`)."""

import numpy as np
import pandas as pd

from ..kinds import kind_of, observed_levels
from ._categorical import _domain_codes
from ._domain import _is_numeric, _ranges_in_bins, evaluation_domain
from ._scorer import warn_if_differentially_private
from ._validation import (
    _as_table_pair,
    _as_values_domain,
    _check_count,
    _check_option,
    _check_target,
)

_UTILITY_METRICS = ("accuracy", "balanced_accuracy", "roc_auc")
# HistGradientBoostingClassifier's limit on the levels of a categorical feature.
_MAX_CATEGORIES = 255


def _utility_arrays(frames, names, target, domain, target_spec):
    """Features, target codes and the categorical mask of each table.

    Numeric features (declared bins, or undeclared numeric columns) stay numbers:
    the classifier bins them itself.  Levels become integer codes, categorical when
    there are at most 255 of them (the classifier's limit), ordinal codes otherwise.
    The target is coded by ``target_spec`` (levels or bins): one class per code.
    """
    columns = [c for c in frames[0].columns if c != target]
    features = [np.empty((len(f), len(columns))) for f in frames]
    categorical = np.zeros(len(columns), dtype=bool)
    for j, column in enumerate(columns):
        spec = domain.get(column)
        if (spec is None and _is_numeric(frames[0][column])) or (
            spec is not None and kind_of(spec).binned
        ):
            for out, frame in zip(features, frames, strict=True):
                out[:, j] = pd.to_numeric(frame[column], errors="coerce").to_numpy(np.float64)
            continue
        if spec is None:
            spec = tuple(observed_levels(pd.concat([f[column] for f in frames])))
        for out, frame, name in zip(features, frames, names, strict=True):
            out[:, j], _ = _domain_codes(frame[column], spec, column, name)
        categorical[j] = len(spec) <= _MAX_CATEGORIES
    for frame, name in zip(frames, names, strict=True):
        if frame[target].isna().any():
            raise ValueError(
                f"target={target!r} has missing values in {name}; predict a column "
                "without missing values, or fill them with a level of their own."
            )
    labels = [
        _domain_codes(frame[target], target_spec, target, name)[0]
        for frame, name in zip(frames, names, strict=True)
    ]
    return features, labels, categorical


def _class_probabilities(model, X, n_classes):
    """``predict_proba`` of ``model`` with one column per class code ``0..K-1``."""
    proba = np.zeros((X.shape[0], n_classes))
    proba[:, model.classes_] = model.predict_proba(X)
    return proba


def _utility_scores(y_true, proba):
    """Accuracy, balanced accuracy and (macro one-vs-rest) ROC AUC of class scores.

    The predicted class is the most probable (lowest code on ties).  Balanced
    accuracy is the mean recall over the classes present in ``y_true``; ROC AUC the
    mean over the classes present with both positives and negatives (for two classes,
    the usual ROC AUC), NaN when there is none.
    """
    from sklearn.metrics import roc_auc_score

    predicted = np.argmax(proba, axis=1)
    present = np.unique(y_true)
    recalls = [np.mean(predicted[y_true == c] == c) for c in present]
    aucs = [roc_auc_score(y_true == c, proba[:, c]) for c in present if np.any(y_true != c)]
    return {
        "accuracy": float(np.mean(predicted == y_true)),
        "balanced_accuracy": float(np.mean(recalls)),
        "roc_auc": float(np.mean(aucs)) if aucs else float("nan"),
    }


def _train_and_score(estimator, X_train, y_train, X_test, y_test, n_classes):
    from sklearn.base import clone

    classes = np.unique(y_train)
    if classes.size == 1:  # nothing to learn: every test row gets the only class
        proba = np.zeros((X_test.shape[0], n_classes))
        proba[:, classes[0]] = 1.0
    else:
        model = clone(estimator).fit(X_train, y_train)
        proba = _class_probabilities(model, X_test, n_classes)
    return _utility_scores(y_test, proba)


def _default_classifier(categorical, random_state):
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        categorical_features=categorical, random_state=random_state
    )


def _target_spec(target, real, synth, domain):
    """The target's classes: its declared levels or bins, else as evaluation_domain
    reads it from the data (numeric targets with many values in quantile bins)."""
    if target in domain:
        return domain[target]
    return evaluation_domain(real[[target]], synth[[target]])[target]


def train_synthetic_test_real(
    real_df,
    synth_df,
    target,
    *,
    holdout=None,
    domain=None,
    test_size=0.25,
    estimator=None,
    random_state=0,
):
    """Utility of synthetic data: train on synthetic rows, test on held-out real rows.

    A classifier of ``target`` is trained on the synthetic table and tested on real
    rows the comparison classifier did not see ("train on synthetic, test on real",
    TSTR; Esteban, Hyland & Rätsch, *Real-valued (medical) time series generation
    with recurrent conditional GANs*, 2017, Sect. 4.2); the same classifier trained on
    the real training rows (TRTR) is the ceiling, and always predicting the majority
    class of the real training rows the floor.  Synthetic data good for this task
    scores close to the real row.

    The held-out real rows are ``holdout`` when given, else a random ``test_size``
    share of ``real_df`` (stratified on the target when every class has two rows).
    Use ``holdout`` with rows the synthesizer was not fitted on: otherwise a
    synthesizer that copies real rows is tested on rows it has seen.

    Parameters
    ----------
    real_df : pandas.DataFrame or 2-D array-like
        Real table (the synthesizer's input).
    synth_df : pandas.DataFrame or 2-D array-like
        Synthetic table with the same columns.
    target : column label
        The column to predict.  Its classes are its declared levels or bins, else
        those :func:`evaluation_domain` reads from the data.
    holdout : pandas.DataFrame or 2-D array-like, optional
        Real test rows (then every row of ``real_df`` trains the real classifier).
    domain : dict or Domain, optional
        Declared domain of some columns: levels become categorical codes (values
        outside raise), numeric bins stay numbers.  Undeclared numeric columns stay
        numbers; other undeclared columns get the levels observed in the tables.
    test_size : float, default=0.25
        Share of ``real_df`` held out when ``holdout`` is None, in ``(0, 1)``.
    estimator : classifier, optional
        Any scikit-learn classifier with ``predict_proba`` (cloned for each fit); by
        default :class:`~sklearn.ensemble.HistGradientBoostingClassifier` with the
        coded levels as native categorical features.
    random_state : int, default=0
        Seed of the split and of the default classifier.

    Returns
    -------
    pandas.DataFrame
        Rows ``"synthetic"``, ``"real"``, ``"majority class"`` (trained on), columns
        ``accuracy``, ``balanced_accuracy`` (mean recall over the classes of the test
        rows), ``roc_auc`` (macro one-vs-rest over the test classes; the usual ROC AUC
        for two classes) and ``n_train``; all tested on the same real rows.

    See Also
    --------
    make_utility_scorer : The TSTR score of a synthesis pipeline, for model selection.

    Examples
    --------
    The synthesizer is fitted on 3,000 Adult rows; the next 1,000 are held out (the
    classifiers are not run here; ``tests/test_report.py`` checks them):

    >>> from skprivsynth import MarginalSynthesizer, make_private_pipeline
    >>> from skprivsynth.datasets import load_adult
    >>> from skprivsynth.metrics import train_synthetic_test_real
    >>> adult = load_adult()
    >>> real, holdout = adult.data.iloc[:3000], adult.data.iloc[3000:4000]
    >>> pipe = make_private_pipeline(MarginalSynthesizer(epsilon=1.0), adult.domain)
    >>> synthetic = pipe.fit(real).sample()  # doctest: +SKIP
    >>> train_synthetic_test_real(real, synthetic, "income>50K", holdout=holdout,
    ...                           domain=adult.domain).round(3)  # doctest: +SKIP
                    accuracy  balanced_accuracy  roc_auc  n_train
    trained on
    synthetic          0.793              0.681    0.819     3000
    real               0.825              0.735    0.876     3000
    majority class     0.750              0.500    0.500     3000
    """
    from sklearn.model_selection import train_test_split

    real, synth = _as_table_pair(real_df, synth_df, "real_df", "synth_df")
    _check_target(target, real, "real_df")
    declared = {} if domain is None else _as_values_domain(domain, "domain")
    declared = _ranges_in_bins(declared, real, synth) if declared else declared
    if holdout is None:
        if not (isinstance(test_size, float) and 0.0 < test_size < 1.0):
            raise ValueError(f"test_size must be a float in (0, 1); got {test_size!r}.")
        counts = real[target].value_counts()
        stratify = real[target] if counts.min() >= 2 else None
        train, test = train_test_split(
            real, test_size=test_size, random_state=random_state, stratify=stratify
        )
    else:
        train, test = _as_table_pair(real, holdout, "real_df", "holdout")
    spec = _target_spec(target, pd.concat([train, test]), synth, declared)
    (X_synth, X_train, X_test), (y_synth, y_train, y_test), categorical = _utility_arrays(
        [synth, train, test], ["synth_df", "real_df", "the real test rows"], target, declared, spec
    )
    if estimator is None:
        estimator = _default_classifier(categorical, random_state)
    n_classes = len(spec)
    majority = np.zeros((len(y_test), n_classes))
    majority[:, np.argmax(np.bincount(y_train, minlength=n_classes))] = 1.0
    rows = {
        "synthetic": _train_and_score(estimator, X_synth, y_synth, X_test, y_test, n_classes),
        "real": _train_and_score(estimator, X_train, y_train, X_test, y_test, n_classes),
        "majority class": {**_utility_scores(y_test, majority), "roc_auc": 0.5},
    }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table["n_train"] = [len(y_synth), len(y_train), len(y_train)]
    table.index.name = "trained on"
    return table


class UtilityScorer:
    """Scorer ``scorer(pipeline, X, y=None) ->`` TSTR utility on ``X`` (greater is better).

    Build it with :func:`make_utility_scorer`; the attributes are its parameters.  A
    plain class, so that it pickles for ``GridSearchCV(n_jobs=...)``.
    """

    def __init__(
        self,
        target,
        metric="balanced_accuracy",
        n_samples=None,
        domain=None,
        estimator=None,
        random_state=0,
    ):
        self.target = target
        self.metric = metric
        self.n_samples = n_samples
        self.domain = domain
        self.estimator = estimator
        self.random_state = random_state

    def __call__(self, estimator, X, y=None):
        """Train a classifier on ``estimator``'s synthetic sample, score it on ``X``.

        Parameters
        ----------
        estimator : fitted synthesizer or synthesis pipeline
            It has ``sample(n_samples, random_state)``; a
            :class:`~skprivsynth.SynthesisPipeline` returns decoded records.
        X : DataFrame or array-like
            Held-out real rows (with integer column labels when not a DataFrame).
        y : ignored
            Present for the scorer protocol of scikit-learn.

        Returns
        -------
        float
            The ``metric`` of the classifier trained on the synthetic sample and
            tested on ``X``; an exact function of ``X``, which warns
            :class:`~skprivsynth.exceptions.PrivacyLeakWarning` for a differentially
            private synthesizer.
        """
        warn_if_differentially_private(estimator)
        if not hasattr(estimator, "sample"):
            raise TypeError(
                "the scored estimator must be a synthesizer or a synthesis pipeline with "
                f"a sample() method; got {type(estimator).__name__}."
            )
        real = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
        synthetic = estimator.sample(n_samples=self.n_samples, random_state=self.random_state)
        if not isinstance(synthetic, pd.DataFrame):
            synthetic = pd.DataFrame(np.asarray(synthetic), columns=real.columns)
        real, synthetic = _as_table_pair(real, synthetic, "X", "the synthetic sample")
        _check_target(self.target, real, "X")
        declared = {} if self.domain is None else _as_values_domain(self.domain, "domain")
        spec = _target_spec(self.target, real, synthetic, declared)
        (X_synth, X_real), (y_synth, y_real), categorical = _utility_arrays(
            [synthetic, real], ["the synthetic sample", "X"], self.target, declared, spec
        )
        model = self.estimator
        if model is None:
            model = _default_classifier(categorical, self.random_state)
        scores = _train_and_score(model, X_synth, y_synth, X_real, y_real, len(spec))
        return scores[self.metric]

    def __repr__(self):
        params = ", ".join(
            f"{name}={getattr(self, name)!r}"
            for name in ("target", "metric", "n_samples", "domain", "estimator", "random_state")
        )
        return f"make_utility_scorer({params})"


def make_utility_scorer(
    target,
    *,
    metric="balanced_accuracy",
    n_samples=None,
    domain=None,
    estimator=None,
    random_state=0,
):
    """Scorer of the utility of a synthesizer for predicting ``target`` (TSTR).

    ``scorer(pipeline, X)`` draws a synthetic sample from the fitted ``pipeline``,
    trains a classifier of ``target`` on it and returns its ``metric`` on the
    held-out real rows ``X`` (greater is better): the "synthetic" row of
    :func:`train_synthetic_test_real`, with the fold left out by
    :func:`~sklearn.model_selection.cross_val_score` or
    :class:`~sklearn.model_selection.GridSearchCV` as the test rows, which the
    synthesizer has not seen.

    The score is an exact function of the real rows ``X``: for a differentially
    private synthesizer it warns :class:`~skprivsynth.exceptions.PrivacyLeakWarning`,
    as :func:`make_marginal_scorer` does, and a choice made from it is not covered
    by the synthesizer's ε (see the :doc:`User Guide <user_guide/tuning>`).

    Parameters
    ----------
    target : column label
        The column to predict (an integer column index when ``X`` is an array).
    metric : {"balanced_accuracy", "accuracy", "roc_auc"}, default="balanced_accuracy"
        As in :func:`train_synthetic_test_real`.
    n_samples : int, optional
        Size of the synthetic training sample; None: the synthesizer's default (the
        number of rows it was fitted on).
    domain : dict or Domain, optional
        Declared domain of some columns, as in :func:`train_synthetic_test_real`.
    estimator : classifier, optional
        Classifier with ``predict_proba``; by default
        :class:`~sklearn.ensemble.HistGradientBoostingClassifier` with native
        categorical features.
    random_state : int, default=0
        Seed of the synthetic sample and of the default classifier (the same for
        every candidate of a search: common random numbers).

    Returns
    -------
    UtilityScorer
        A picklable callable.

    Examples
    --------
    >>> from skprivsynth.metrics import make_utility_scorer
    >>> make_utility_scorer("income>50K", metric="roc_auc")
    make_utility_scorer(target='income>50K', metric='roc_auc', n_samples=None, \
domain=None, estimator=None, random_state=0)
    """
    _check_option(metric, "metric", _UTILITY_METRICS)
    if n_samples is not None:
        n_samples = _check_count(n_samples, "n_samples", 1)
    if domain is not None:
        domain = _as_values_domain(domain, "domain")
    return UtilityScorer(
        target=target,
        metric=metric,
        n_samples=n_samples,
        domain=domain,
        estimator=estimator,
        random_state=random_state,
    )
