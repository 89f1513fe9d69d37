"""Private selection of a synthesizer's hyperparameters (random stopping).

:class:`PrivateSelectionSearch` repeats a *base run* a random number ``K`` of times
and releases only the run with the best DP score.  A base run draws one candidate of
the grid uniformly at random, fits it on the full data and scores it with a DP score
(:func:`~skprivsynth.metrics.make_marginal_scorer` with ``epsilon``).  ``K`` is
geometric, ``P(K = k) = γ(1 − γ)^(k−1)`` for ``k >= 1`` (``γ = stop_probability``,
mean ``1/γ``): the random stopping of Liu & Talwar (STOC 2019), the truncated negative
binomial with ``η = 1`` of Papernot & Steinke (ICLR 2022).

Cost of the base run.  Drawing the candidate is a public mixture; Rényi divergence is
jointly quasi-convex (van Erven & Harremoës 2014, Thm. 13), so the base run's Rényi
curve is at most ``max_c f_c(λ) + s(λ)``, with ``f_c(λ) = ρ_c·λ`` for a ``ρ_c``-zCDP
fit, ``min(ε_c, λε_c²/2)`` for an ``ε_c``-DP fit, and ``s(λ) = min(ε_s, λε_s²/2)`` for
the ``ε_s``-DP score (pure DP bounds every Rényi divergence by ε and implies
``ε²/2``-zCDP, Bun & Steinke 2016, Prop. 1.4); the fit and the score compose by
adding their curves (Mironov 2017, Prop. 1).

Total (the theorem the report states).

- Every fit pure ``ε_c``-DP: the selection is ``3·(max_c ε_c + ε_s)``-DP (Liu &
  Talwar 2019, random stopping; the ``λ, λ̂ → ∞`` limit of the bound below).  With
  ``delta`` given, the bound below is computed too and the smaller ε is reported.
- zCDP fits (e.g. :class:`~skprivsynth.MarginalSynthesizer`), or pure fits with
  ``delta``: Papernot &
  Steinke (ICLR 2022), Theorem 2: if the base run is ``(λ, ε(λ))``-RDP and
  ``(λ̂, ε(λ̂))``-RDP, the selection with the truncated negative binomial
  ``D_{η,γ}`` is ``(λ, ε')``-RDP with
  ``ε' = ε(λ) + (1 + η)(1 − 1/λ̂)ε(λ̂) + (1 + η)log(1/γ)/λ̂ + log(E[K])/(λ − 1)``;
  here ``η = 1`` and ``E[K] = 1/γ``.  Then ``(λ, ε')``-RDP implies
  ``(ε' + (log(1/δ) − log λ)/(λ − 1) + log(1 − 1/λ), δ)``-DP (Canonne, Kamath &
  Steinke 2020, Prop. 12).  ``λ > 1`` and ``λ̂ >= 1`` are chosen on a fixed grid (every
  pair gives a valid bound) to minimise the ε.

Approximate ``(ε, δ)``-DP fits (:class:`~skprivsynth.CorrelatedGaussianMechanism`)
have no Rényi curve and are refused.  The theorems cover the *best* run only: the other
runs, their number ``K`` and their scores are never released.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.model_selection import ParameterGrid
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from .accountant import _cost, charge_active, fit_cost, recording
from .base import seed_warning_given
from .metrics import MarginalScorer
from .privacy import PrivacyCost, PrivacyReport, check_delta, warn_privacy_leak
from .validation import check_random_generator, is_seeded, seed_name

__all__ = ["PrivateSelectionSearch", "random_stopping", "selection_cost"]

# Orders searched for the conversion: λ = 1 + 10^t, λ̂ = 10^t on fixed grids.
_LAMBDAS = 1.0 + np.logspace(-4, 6, 2001)
_LAMBDA_HATS = np.logspace(0, 7, 1401)


def _base_curve(fit_costs, score_cost, lam):
    """Rényi bound of a base run at orders ``lam``: the worst candidate's fit, plus the
    score (they compose by adding their curves, Mironov 2017, Prop. 1)."""
    return np.max([c.renyi(lam) for c in fit_costs], axis=0) + score_cost.renyi(lam)


def selection_cost(fit_costs, score_epsilon, stop_probability, delta=None):
    """Privacy cost of :func:`random_stopping` over base runs of the given costs.

    Parameters
    ----------
    fit_costs : list of PrivacyCost
        Cost of each candidate's fit (pure ε, ρ-zCDP, or both composed, as a pipeline
        whose encoder also releases), as :func:`skprivsynth.accountant.fit_cost`
        returns.
    score_epsilon : float
        ε of the DP score of each run.
    stop_probability : float
        ``γ`` in ``(0, 1)``.
    delta : float, optional
        δ of the (ε, δ) conversion, required when a fit has a zCDP part; with pure
        fits, the smaller of ``3·(max ε_c + ε_s)`` (δ = 0) and the Rényi bound at
        ``delta``.

    Returns
    -------
    dict
        ``epsilon``, ``delta`` and, for the Rényi route, the orders ``lambda`` and
        ``lambda_hat`` used and the ``derivation`` text.

    Examples
    --------
    >>> from skprivsynth.model_selection import selection_cost
    >>> from skprivsynth.privacy import PrivacyCost
    >>> selection_cost([PrivacyCost(epsilon=0.4), PrivacyCost(epsilon=0.5)], 0.1, 0.1)["epsilon"]
    1.8
    """
    gamma = float(stop_probability)
    if not fit_costs or any(c.delta > 0 for c in fit_costs):
        raise ValueError(
            "private selection needs pure epsilon-DP or rho-zCDP candidate fits; an "
            "(epsilon, delta)-DP fit has no Renyi curve for the theorem."
        )
    score = PrivacyCost(epsilon=score_epsilon)
    pure = None
    if all(c.is_pure for c in fit_costs):
        base = max(c.epsilon for c in fit_costs) + score_epsilon
        pure = {
            "epsilon": 3 * base,
            "delta": 0.0,
            "derivation": (
                f"each run is pure {base:.6g}-DP (fit <= {base - score_epsilon:.6g}, score "
                f"{score_epsilon:.6g}); random stopping with geometric K (stop probability "
                f"{gamma:g}) is 3 x {base:.6g} = {3 * base:.6g}-DP (Liu & Talwar 2019)"
            ),
        }
        if delta is None:
            return pure
    if delta is None:
        raise ValueError(
            "delta is required when a candidate fit is zCDP (the selection's Renyi bound "
            "is converted to (epsilon, delta)-DP); got delta=None."
        )
    delta = check_delta(delta)
    log_inv_gamma = math.log(1 / gamma)
    hat = _LAMBDA_HATS
    g = 2 * (1 - 1 / hat) * _base_curve(fit_costs, score, hat) + 2 * log_inv_gamma / hat
    lam = _LAMBDAS
    h = (
        _base_curve(fit_costs, score, lam)
        + log_inv_gamma / (lam - 1)
        + (math.log(1 / delta) - np.log(lam)) / (lam - 1)
        + np.log1p(-1 / lam)
    )
    i, j = int(np.argmin(h)), int(np.argmin(g))
    epsilon = float(h[i] + g[j])
    if pure is not None and pure["epsilon"] <= epsilon:
        return pure
    return {
        "epsilon": epsilon,
        "delta": delta,
        "lambda": float(lam[i]),
        "lambda_hat": float(hat[j]),
        "derivation": (
            f"Papernot & Steinke 2022, Thm. 2 with eta = 1 (geometric K, stop probability "
            f"{gamma:g}, E[K] = {1 / gamma:.6g}) at orders lambda = {lam[i]:.6g}, lambda_hat "
            f"= {hat[j]:.6g}; base run curve max_c f_c + score; RDP to (epsilon, delta) by "
            f"Canonne, Kamath & Steinke 2020, Prop. 12 at delta = {delta:.3g}"
        ),
    }


def random_stopping(run, n_candidates, stop_probability, rng):
    """Run ``run(candidate)`` K ~ Geometric(``stop_probability``) times; return the best.

    Each run draws its candidate uniformly from ``range(n_candidates)`` with ``rng``;
    ``run(c)`` returns ``(score, output)``.  Returns ``(candidate, score, output)`` of the
    run with the highest score: nothing about the other runs, nor ``K``, is returned.
    """
    n_runs = int(rng.geometric(stop_probability))
    best = None
    for _ in range(n_runs):
        candidate = int(rng.integers(n_candidates))
        score, output = run(candidate)
        if best is None or score > best[1]:
            best = (candidate, score, output)
    return best


class PrivateSelectionSearch(MetaEstimatorMixin, BaseEstimator):
    """Private hyperparameter selection of a DP synthesizer by random stopping.

    Runs a geometric number of base runs (mean ``1/stop_probability``), each fitting a
    uniformly drawn candidate of ``param_grid`` on the full data and scoring it with
    a DP score, and keeps the best.  The total cost (Liu & Talwar 2019 for pure-DP
    fits, Papernot & Steinke 2022, Thm. 2 for zCDP fits, stated in the module
    docstring) is charged to the active :class:`~skprivsynth.PrivacyAccountant` before
    any fit.  Read more in the :doc:`User Guide <user_guide/tuning>`.

    Parameters
    ----------
    estimator : synthesizer or Pipeline ending in one
        A differentially private synthesizer (pure ε or zCDP fit).
    param_grid : dict or list of dict
        Candidates, as for :class:`~sklearn.model_selection.GridSearchCV`.
    scoring : MarginalScorer
        A DP score, :func:`~skprivsynth.metrics.make_marginal_scorer` with ``epsilon``.
    stop_probability : float, default=0.1
        ``γ``: probability of stopping after each run.
    delta : float, optional
        δ of the total when a candidate fit is zCDP.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the number of runs and the candidates drawn.  Every ``random_state``
        parameter of each run's estimator is set to None, so that each fit draws fresh
        OS entropy (the theorems need independent runs, and a seed fixed in
        ``estimator`` would repeat the same noise whenever a candidate is drawn twice);
        with a seed here (tests only; it warns once per search) they get seeds drawn
        from it instead.  Either
        way ``best_estimator_`` reads ``random_state=None``: no seed of the released
        run is kept.

    Attributes
    ----------
    best_estimator_ : estimator
        The fitted candidate of the best run (released as fitted, no refit), its
        ``random_state`` parameters set to None.  A run that fails after its release
        is a run with no output (never the best); a failure before any release (an
        invalid parameter or input) is raised.
    best_params_ : dict
    best_score_ : float
        Its noisy (DP) score.
    cv_results_ : dict of lists
        The released run only: ``params``, ``param_<name>`` and ``score`` (noisy).
        The other runs are not covered by the theorems and are not kept.
    privacy_report_ : PrivacyReport
        The total, with the theorem and its parameters.
    """

    def __init__(
        self,
        estimator,
        param_grid,
        *,
        scoring,
        stop_probability=0.1,
        delta=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.stop_probability = stop_probability
        self.delta = delta
        self.random_state = random_state

    def _check_params(self):
        if not isinstance(self.scoring, MarginalScorer) or self.scoring.epsilon is None:
            raise ValueError(
                "scoring must be a DP score, make_marginal_scorer(..., epsilon=...); got "
                f"{self.scoring!r}."
            )
        gamma = self.stop_probability
        if isinstance(gamma, bool) or not isinstance(gamma, Real) or not 0 < gamma < 1:
            raise ValueError(
                f"stop_probability must be a real number in the open interval (0, 1); got "
                f"{gamma!r}."
            )
        return list(ParameterGrid(self.param_grid))

    def fit(self, X, y=None):
        """Select privately; charge the total before the first fit.

        Parameters
        ----------
        X : array-like or DataFrame
            The private data (also the scored data).
        y : None
            Ignored.

        Returns
        -------
        self
        """
        candidates = self._check_params()
        n_samples, n_features = len(X), np.shape(X)[1]
        releases = []
        for params in candidates:
            est = clone(self.estimator).set_params(**params)
            synth = est[-1] if isinstance(est, Pipeline) else est
            if fit_cost(synth, n_samples, None) is None:
                raise ValueError(
                    f"candidate {params!r}: {type(synth).__name__} is not differentially "
                    "private; private selection needs a DP synthesizer."
                )
            releases.append(_release_costs(est, n_samples, n_features))
        eps_s = self.scoring.epsilon
        costs = [sum(r, PrivacyCost()) for r in releases]
        total = selection_cost(costs, eps_s, self.stop_probability, self.delta)
        report = PrivacyReport("PrivateSelectionSearch")
        report.add(
            f"best of a geometric number of runs over {len(candidates)} candidates",
            "random stopping",
            None,
            total["epsilon"],
            None,
            total["derivation"],
            delta=total["delta"],
        )
        charge_active(
            "private selection (PrivateSelectionSearch)",
            PrivacyCost(epsilon=total["epsilon"], delta=total["delta"]),
        )
        rng = check_random_generator(self.random_state)
        seeds = None
        if is_seeded(self.random_state):  # one warning for the search, none per run
            seeds = rng
            warn_privacy_leak(
                f"PrivateSelectionSearch(random_state={seed_name(self.random_state)}) seeds a "
                "differentially private fit in each of its runs: anyone who knows the seed "
                "can regenerate their noise and subtract it, which voids the "
                "guarantee. Seed for tests only; leave random_state=None for a release.",
                stacklevel=3,  # warn_privacy_leak -> fit -> caller
            )

        def run(c):
            est = _reseeded(clone(self.estimator).set_params(**candidates[c]), seeds)
            with recording() as charges, seed_warning_given():
                try:
                    est.fit(X, y)
                    score = self.scoring(est, X)
                except Exception:
                    if not charges:
                        raise  # before any release: a function of the inputs' validity
                    # After a release the failure is that run's output (⊥, never the
                    # best); re-raising would reveal a function of an unreleased run.
                    return -math.inf, None
            expected = [*releases[c], PrivacyCost(epsilon=eps_s)]
            _check_run_charges(charges, expected, candidates[c])
            return score, est

        best, score, estimator = random_stopping(run, len(candidates), self.stop_probability, rng)
        if estimator is None:
            raise RuntimeError(
                "every run of the private selection failed after its release; nothing is "
                "released (the failures of unreleased runs are not shown: they are not "
                "covered by the theorems)."
            )
        params = candidates[best]
        results = {"params": [params], "score": [score]}
        results.update({f"param_{name}": [value] for name, value in params.items()})
        self.best_estimator_ = _reseeded(estimator, None)
        self.best_params_ = params
        self.best_score_ = score
        self.cv_results_ = results
        self.privacy_report_ = report
        return self

    def sample(self, n_samples=None, random_state=None):
        """Draw synthetic records from :attr:`best_estimator_`."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.sample(n_samples=n_samples, random_state=random_state)


def _reseeded(estimator, seeds):
    """``estimator`` with every (nested) ``random_state`` parameter set to None (fresh
    OS entropy at its fit, never kept), or, for a seeded search, to an int drawn from
    the Generator ``seeds``."""
    names = [name for name in estimator.get_params(deep=True) if name.endswith("random_state")]
    if seeds is None:
        return estimator.set_params(**dict.fromkeys(names))
    values = seeds.integers(0, 2**32, size=len(names))
    return estimator.set_params(
        **{name: int(value) for name, value in zip(names, values, strict=True)}
    )


def _release_costs(estimator, n_samples, n_features):
    """The costs of the releases of one fit, in order: each step of a pipeline that
    states a cost (``_fit_cost``), then the synthesizer (whose input width is known
    only without an encoder)."""
    steps = list(estimator) if isinstance(estimator, Pipeline) else [estimator]
    for step in steps[:-1]:
        released = _encoder_releases(step)
        if released:
            raise ValueError(
                f"{type(step).__name__} in the candidate pipeline releases private bins or "
                f"decoding weights in its fit ({released}), which private selection does "
                "not account for; declare public bins or levels for every column and use "
                "level_weights=None (make_private_pipeline(..., decode_share=0)). Refused "
                "before anything is charged."
            )
    width = n_features if len(steps) == 1 else None
    costs = [step._fit_cost(n_samples, width) for step in steps if hasattr(step, "_fit_cost")]
    return [c for c in costs if c is not None]


def _encoder_releases(step):
    """The DP releases a transformer's fit makes of its own, as the parameter that asks
    for them (empty if none): a :class:`~skprivsynth.preprocessing.BooleanEncoder`
    with private decoding weights or a declared range in ``categories``, in any form
    (dict, list, Domain; its bins are chosen privately).  From its parameters only."""
    from .domain import ranged_columns
    from .preprocessing import BooleanEncoder

    if not isinstance(step, BooleanEncoder):
        return ""
    if step.level_weights == "private":
        return "level_weights='private'"
    ranged = ranged_columns(step.categories)
    if ranged:
        return f"categories declares ranges without bins for columns {ranged!r}"
    return ""


def _check_run_charges(charges, expected, params):
    """A run must release exactly the fit and the score the total was computed for."""
    if [_cost(c) for c in charges] != expected:
        raise RuntimeError(
            f"candidate {params!r} released {[c['description'] for c in charges]}, not "
            "exactly one fit and one DP score (with its encoder's releases, if any); its "
            "privacy is not the one charged, and nothing is returned."
        )
