"""Utility metrics for synthetic data: marginal errors, covariance loss, scorers.

Two families of marginal metrics are provided.

*Boolean-matrix marginals* (:func:`marginal_errors`, :func:`marginal_error`) compare
two matrices with entries in ``[0, 1]`` (real data ``X`` and synthetic data ``Y``,
usually both in ``{0, 1}``) on every set ``J`` of ``d`` columns:

* ``form="conjunction"``: the fraction of rows with all bits of ``J`` equal to 1,
  ``(1/n) Σ_i Π_{j∈J} x_ij`` (Boedihardjo, Strohmer & Vershynin, *Covariance's loss
  is privacy's gain* (BSV 2022), eq. 1.1); the error of ``J`` is the absolute
  difference of the two fractions.
* ``form="table"``: the ``2^d`` cell fractions of the marginal table of ``J``; the error
  of ``J`` is the total variation distance ``½ Σ_v |p_v − q_v|``.

A row with fractional entries ``y ∈ [0, 1]^p`` counts as the product of independent
Bernoulli(``y_j``) coordinates: it contributes ``Π_{j∈J} y_j^{v_j} (1 − y_j)^{1−v_j}`` to
cell ``v``.  This is the *expected* table after randomized rounding
(:func:`skprivsynth._math.sampling.sample_weighted_records`), so a synthesizer's
candidate records with weights can be scored without sampling.

*Categorical (decoded-space) marginals* (:func:`categorical_marginal_errors`,
:func:`categorical_marginal_tvd`) compare two tables of categorical columns — the
benchmarks' metric: tvd1 = mean over the 14 Adult columns,
tvd2 = mean over all 91 pairs, tvd3 = mean over 200 random triples drawn with
``max_marginals=200, random_state=0``.

Column sets.  With ``max_marginals=None`` every one of the ``C(p, d)`` sets is used, in
lexicographic order (the order of :func:`itertools.combinations`).  With an integer
``max_marginals < C(p, d)``, ``M = max_marginals`` distinct sets are drawn uniformly
without replacement: the lexicographic ranks ``numpy.random.default_rng(random_state)
.choice(C(p, d), size=M, replace=False)`` are sorted and unranked, so the result is a
reproducible, sorted subset of the full list.  (When ``C(p, d) ≥ 2^62`` distinct uniform
sets are drawn by rejection instead.)  With ``workload=[(0, 1), (2, 3, 4), ...]`` exactly
those sets are evaluated, in that order: the marginals declared to
:class:`~skprivsynth.MarginalSynthesizer` ``(workload=...)``.

:func:`covariance_loss` is the Frobenius distance of the two covariance matrices (BSV
2022, Sect. 3).  :func:`make_marginal_scorer` turns a marginal metric into a scorer for
:class:`~sklearn.model_selection.GridSearchCV`; :func:`warn_if_differentially_private`
is the warning of every exact score of a differentially private synthesizer.

:func:`evaluation_domain` is the domain two tables are compared in (declared levels and
bins; undeclared numeric columns in quantile bins, never one category per float;
other undeclared columns with their :func:`~skprivsynth.domain.observed_levels`).
:func:`numeric_column_errors` compares the distribution of every numeric column
(Kolmogorov-Smirnov, Wasserstein-1, spread, range and tail; the columns of
:func:`distribution_columns`), :func:`numeric_verdicts` and :func:`table_verdict` say
in plain words which of them lost their spread or tail, :func:`log_axis_columns` which
are skewed enough to be drawn on a log axis, and :func:`missing_rates` gives the share
of missing values of every column.
:func:`train_synthetic_test_real` measures utility (a classifier trained on synthetic
rows, tested on real ones) and :func:`make_utility_scorer` makes it a scorer.
"""

from ._boolean import MarginalErrors, marginal_error, marginal_errors
from ._categorical import categorical_marginal_errors, categorical_marginal_tvd
from ._covariance import covariance_loss
from ._domain import evaluation_domain
from ._numeric import (
    distribution_columns,
    log_axis_columns,
    missing_rates,
    numeric_column_errors,
    numeric_verdicts,
    table_verdict,
)
from ._scorer import MarginalScorer, make_marginal_scorer, warn_if_differentially_private
from ._utility import UtilityScorer, make_utility_scorer, train_synthetic_test_real

__all__ = [
    "MarginalErrors",
    "MarginalScorer",
    "UtilityScorer",
    "categorical_marginal_errors",
    "categorical_marginal_tvd",
    "covariance_loss",
    "distribution_columns",
    "evaluation_domain",
    "log_axis_columns",
    "make_marginal_scorer",
    "make_utility_scorer",
    "marginal_error",
    "marginal_errors",
    "missing_rates",
    "numeric_column_errors",
    "numeric_verdicts",
    "table_verdict",
    "train_synthetic_test_real",
    "warn_if_differentially_private",
]
