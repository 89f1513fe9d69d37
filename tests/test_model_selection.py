"""PrivateSelectionSearch: the theorem's total, charged once before anything is drawn;
an audit of random stopping whose broken variant selects on the exact score."""

import math

import numpy as np
import pytest
from sklearn.base import clone

import skprivsynth.base
import skprivsynth.model_selection
import skprivsynth.privacy
from skprivsynth import (
    BudgetExceededError,
    CorrelatedGaussianMechanism,
    MarginalSynthesizer,
    MicroaggregationSynthesizer,
    NoisyMicroaggregation,
    PrivacyAccountant,
)
from skprivsynth.auditing import audit_mechanism
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.metrics import MarginalScorer, make_marginal_scorer
from skprivsynth.model_selection import PrivateSelectionSearch, random_stopping, selection_cost
from skprivsynth.privacy import PrivacyCost, laplace_mechanism, zcdp_rho


def _boolean(n=150, p=4, seed=0):
    return (np.random.default_rng(seed).random((n, p)) < 0.4).astype(float)


def _theorem_2(rho, eps_s, gamma, delta, lam, lam_hat, eps_fit=None):
    """Papernot & Steinke 2022, Thm. 2 (eta = 1, E[K] = 1/gamma), then CKS Prop. 12."""

    def curve(a):  # rho-zCDP (or pure eps_fit) fit + pure eps_s score
        fit = rho * a if eps_fit is None else min(eps_fit, a * eps_fit**2 / 2)
        return fit + min(eps_s, a * eps_s**2 / 2)

    rdp = (
        curve(lam)
        + 2 * (1 - 1 / lam_hat) * curve(lam_hat)
        + 2 * math.log(1 / gamma) / lam_hat
        + math.log(1 / gamma) / (lam - 1)
    )
    return rdp + (math.log(1 / delta) - math.log(lam)) / (lam - 1) + math.log(1 - 1 / lam)


def test_pure_candidates_cost_three_times_the_worst_run():
    cost = selection_cost([PrivacyCost(epsilon=0.4), PrivacyCost(epsilon=0.7)], 0.1, 0.25)
    assert (cost["epsilon"], cost["delta"]) == (pytest.approx(2.4, rel=1e-15), 0.0)
    # With delta, the Renyi bound where it is smaller (large epsilon), else 3 epsilon.
    assert selection_cost([PrivacyCost(epsilon=0.7)], 0.1, 0.25, 1e-9) == cost
    large = selection_cost([PrivacyCost(epsilon=5.0)], 0.1, 0.25, 1e-9)
    assert large["delta"] == 1e-9 and large["epsilon"] < 3 * 5.1
    assert large["epsilon"] == pytest.approx(
        _theorem_2(0, 0.1, 0.25, 1e-9, large["lambda"], large["lambda_hat"], eps_fit=5.0),
        rel=1e-12,
    )


@pytest.mark.parametrize("epsilon, gamma", [(0.5, 0.1), (2.0, 0.2), (8.0, 0.5)])
def test_zcdp_candidates_cost_what_theorem_2_says(epsilon, gamma):
    rho, eps_s, delta = zcdp_rho(epsilon, 1e-9), 0.05, 1e-9
    cost = selection_cost([PrivacyCost(rho=rho / 2), PrivacyCost(rho=rho)], eps_s, gamma, delta)
    lam, lam_hat = cost["lambda"], cost["lambda_hat"]
    assert cost["epsilon"] == pytest.approx(
        _theorem_2(rho, eps_s, gamma, delta, lam, lam_hat), rel=1e-12
    )
    assert cost["delta"] == delta
    # The orders minimise the bound: no other pair does better (to the grid's spacing).
    others = [
        _theorem_2(rho, eps_s, gamma, delta, a, b)
        for a in (1.5, 3.0, 10.0, 30.0, 100.0, 1e3)
        for b in (1.0, 2.0, 5.0, 20.0, 100.0)
    ]
    assert cost["epsilon"] <= min(others) * (1 + 1e-3)
    # Tuning is not free: above one run's (epsilon, delta), below composing 1/gamma runs.
    one_run = epsilon + eps_s
    assert one_run < cost["epsilon"] < one_run / gamma


def test_search_charges_the_theorems_total_once():
    X = _boolean()
    eps_fit, eps_s = 0.3, 0.1
    search = PrivateSelectionSearch(
        NoisyMicroaggregation(epsilon=eps_fit, random_state=0),
        {"t": [1, 2]},
        scoring=make_marginal_scorer(epsilon=eps_s, noise_random_state=np.random.default_rng(0)),
        stop_probability=0.3,
        random_state=0,
    )
    accountant = PrivacyAccountant(epsilon=2.0)
    with accountant:
        search.fit(X)
    total = 3 * (eps_fit + eps_s)  # Liu & Talwar: pure runs
    assert [c["description"] for c in accountant.charges] == [
        "private selection (PrivateSelectionSearch)"
    ]
    assert accountant.spent == pytest.approx(total, rel=1e-15)
    assert search.privacy_report_.epsilon == pytest.approx(total, rel=1e-15)
    assert search.best_params_ in ({"t": 1}, {"t": 2})
    assert search.cv_results_["params"] == [search.best_params_]
    assert search.cv_results_["score"] == [search.best_score_]
    assert search.sample(7).shape == (7, 4)


def test_search_over_marginal_synthesizers_charges_theorem_2():
    X = _boolean(200, 4, seed=2).astype(int)
    search = PrivateSelectionSearch(
        MarginalSynthesizer(epsilon=1.0, domain=[2] * 4, random_state=0, iterations=50),
        {"selection": ["adaptive", "mst"]},
        scoring=make_marginal_scorer(epsilon=0.1),
        stop_probability=0.5,
        delta=1e-6,
        random_state=1,
    )
    accountant = PrivacyAccountant(epsilon=10.0, delta=1e-6)
    with accountant:
        search.fit(X)
    cost = selection_cost([PrivacyCost(rho=zcdp_rho(1.0, 1e-9))], 0.1, 0.5, 1e-6)
    report = search.privacy_report_
    assert (report.epsilon, report.delta) == (cost["epsilon"], 1e-6)
    assert accountant.spent == pytest.approx(cost["epsilon"], rel=1e-12)


@pytest.fixture
def no_draws(monkeypatch):
    def trap(*args, **kwargs):
        raise AssertionError("randomness or noise was used")

    for module in (skprivsynth.base, skprivsynth.model_selection):
        monkeypatch.setattr(module, "check_random_generator", trap)
    monkeypatch.setattr(skprivsynth.privacy, "laplace_mechanism", trap)


def test_a_search_over_the_budget_is_refused_before_anything_is_drawn(no_draws):
    search = PrivateSelectionSearch(
        NoisyMicroaggregation(epsilon=0.3),
        {"t": [1, 2]},
        scoring=make_marginal_scorer(epsilon=0.1),
    )
    accountant = PrivacyAccountant(epsilon=1.0)  # the total is 1.2
    with accountant, pytest.raises(BudgetExceededError, match="private selection"):
        search.fit(_boolean())
    assert accountant.charges == [] and not hasattr(search, "best_estimator_")


class _TwoScores(MarginalScorer):
    """A scorer that releases two DP scores per call: more than the total assumed."""

    def __call__(self, estimator, X, y=None):
        super().__call__(estimator, X)
        return super().__call__(estimator, X)


def test_a_run_releasing_more_than_charged_returns_nothing():
    search = PrivateSelectionSearch(
        NoisyMicroaggregation(epsilon=0.3, random_state=0),
        {"t": [1]},
        scoring=_TwoScores(epsilon=0.1),
        random_state=0,
    )
    with pytest.raises(RuntimeError, match="not exactly one fit and one DP score"):
        search.fit(_boolean())
    assert not hasattr(search, "best_estimator_")


def test_parameter_validation():
    X = _boolean()
    dp_score = make_marginal_scorer(epsilon=0.1)
    cases = [
        (NoisyMicroaggregation(), make_marginal_scorer(), {}, "scoring must be a DP score"),
        (NoisyMicroaggregation(), dp_score, {"stop_probability": 1.0}, "open interval"),
        (MicroaggregationSynthesizer(), dp_score, {}, "is not differentially private"),
        (CorrelatedGaussianMechanism(), dp_score, {}, "has no Renyi curve"),
        (MarginalSynthesizer(domain=[2] * 4), dp_score, {}, "delta is required"),
    ]
    for estimator, scoring, params, message in cases:
        search = PrivateSelectionSearch(estimator, {}, scoring=scoring, **params)
        with pytest.raises(ValueError, match=message):
            search.fit(X)


# ------------------------------------------------------------------------- audit

N_ROWS, EPS_SCORE, GAMMA = 10, 0.3, 0.2
X0 = np.r_[np.ones(5), np.zeros(5)]
X1 = np.r_[np.ones(6), np.zeros(4)]  # one row replaced: candidate 0's score 0.5 -> 0.6


def _toy_selection(exact):
    """Two candidates: score mean(X) (sensitivity 1/n) and the constant 0.55; the run's
    DP score is Laplace at EPS_SCORE.  The broken variant selects on the exact score."""

    def mechanism(X, seed):
        rng = np.random.default_rng(seed)

        def run(candidate):
            score = X.mean() if candidate == 0 else 0.55
            if not exact:
                score = laplace_mechanism([score], 1 / N_ROWS, EPS_SCORE, rng)[0][0]
            return score, None

        return random_stopping(run, 2, GAMMA, rng)[0]

    return mechanism


@pytest.mark.parametrize("exact", [False, True])
def test_audit_of_random_stopping_catches_selection_on_the_exact_score(exact):
    claimed = selection_cost([PrivacyCost(epsilon=1e-12)], EPS_SCORE, GAMMA)["epsilon"]
    assert claimed == pytest.approx(3 * EPS_SCORE)
    result = audit_mechanism(
        _toy_selection(exact),
        X0,
        X1,
        events={"chose candidate 0": lambda chosen: chosen == 0},
        n_runs=3000,
        epsilon=claimed,
        random_state=5,
    )
    # Exact scores: candidate 0 wins on X1 unless only candidate 1 ran (probability
    # gamma/(1 + gamma)) and loses on X0 unless only candidate 0 ran: ln 5 >> 0.9.
    assert result.violation is exact


def test_runs_are_independent_even_with_a_seeded_estimator():
    # A candidate drawn twice must not repeat its noise: each run reseeds the estimator.
    seeds = []

    class Spy(NoisyMicroaggregation):
        def fit(self, X, y=None):
            seeds.append(self.random_state)
            return super().fit(X, y)

    search = PrivateSelectionSearch(
        Spy(epsilon=0.3, random_state=0),
        {"t": [1]},
        scoring=make_marginal_scorer(epsilon=0.1),
        stop_probability=0.05,
        random_state=3,
    )
    search.fit(_boolean())
    assert len(seeds) >= 2 and len(set(seeds)) == len(seeds) and 0 not in seeds


def _random_states(estimator):
    return {n: v for n, v in estimator.get_params(deep=True).items() if n.endswith("random_state")}


@pytest.mark.parametrize("seed", [None, 5])
def test_best_estimator_keeps_no_seed_of_its_run(seed):
    # Its random_state was the only secret of the released fit: clone(best).fit(X) with
    # it would reproduce the release exactly on the true data and not on a neighbour.
    X = _boolean()
    search = PrivateSelectionSearch(
        NoisyMicroaggregation(epsilon=0.3, random_state=0),
        {"t": [1, 2]},
        scoring=make_marginal_scorer(epsilon=0.1),
        random_state=seed,
    ).fit(X)
    assert set(_random_states(search.best_estimator_).values()) == {None}
    assert "random_state=" not in repr(search.best_estimator_)
    refit = clone(search.best_estimator_).fit(X)
    assert not np.array_equal(refit.records_, search.best_estimator_.records_)


def test_unseeded_runs_fit_with_fresh_entropy():
    seen = []

    class Spy(NoisyMicroaggregation):
        def fit(self, X, y=None):
            seen.append(self.random_state)
            return super().fit(X, y)

    PrivateSelectionSearch(
        Spy(epsilon=0.3, random_state=0),
        {"t": [1]},
        scoring=make_marginal_scorer(epsilon=0.1),
        stop_probability=0.3,
    ).fit(_boolean())
    assert seen and set(seen) == {None}


class _FailsAfterItsRelease(NoisyMicroaggregation):
    """A DP fit that raises, after its release, for one value of ``t``."""

    def fit(self, X, y=None):
        super().fit(X, y)
        if self.t == 2:
            raise ValueError("a message quoting the private value 0.123")
        return self


def test_a_run_failing_after_its_release_is_a_run_without_output():
    X = _boolean()
    search = PrivateSelectionSearch(
        _FailsAfterItsRelease(epsilon=0.3),
        {"t": [1, 2]},
        scoring=make_marginal_scorer(epsilon=0.1),
        stop_probability=0.05,
        random_state=0,
    ).fit(X)
    assert search.best_params_ == {"t": 1}
    only_failures = clone(search).set_params(param_grid={"t": [2]})
    with pytest.raises(RuntimeError, match="every run of the private selection failed") as raised:
        only_failures.fit(X)
    assert "0.123" not in str(raised.value)
    assert raised.value.__cause__ is None and raised.value.__context__ is None


def test_a_run_failing_before_any_release_is_raised():
    search = PrivateSelectionSearch(
        NoisyMicroaggregation(epsilon=0.3),
        {"t": [0]},  # invalid: refused by the parameter validation, before any release
        scoring=make_marginal_scorer(epsilon=0.1),
        random_state=0,
    )
    with pytest.raises(ValueError, match="'t' parameter"):
        search.fit(_boolean())


@pytest.mark.parametrize(
    "domain, decode_epsilon",
    [
        ({"x": {"type": "float", "range": [0, 10]}, "c": 3}, 0),
        ({"x": {"bins": [0, 5, 10]}, "c": 3}, 0.1),
    ],
)
def test_a_pipeline_whose_encoder_releases_is_refused_before_any_charge(domain, decode_epsilon):
    # Private bins of a range, or private decoding weights: releases the selection's
    # total does not account for.  Refused before anything is charged.
    import pandas as pd

    from skprivsynth import make_private_pipeline

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.uniform(0, 10, 300), "c": rng.integers(0, 3, 300)})
    pipe = make_private_pipeline(
        MarginalSynthesizer(epsilon=1.0), domain, decode_share=decode_epsilon
    )
    accountant = PrivacyAccountant(epsilon=10.0, delta=1e-6)
    search = PrivateSelectionSearch(
        pipe,
        {"marginalsynthesizer__epsilon": [0.5, 1.0]},
        scoring=make_marginal_scorer(space="decoded", epsilon=0.1),
        delta=1e-6,
    )
    with accountant, pytest.raises(ValueError, match="releases private bins or decoding"):
        search.fit(df)
    assert accountant.charges == []


def test_list_form_categories_with_a_range_are_refused_before_any_release(monkeypatch):
    # categories as a list (one spec per column): its range is found from the public
    # parameters, before the first fit, not after the candidate's releases.
    from skprivsynth.pipeline import make_synthesis_pipeline
    from skprivsynth.preprocessing import BooleanEncoder
    from skprivsynth.privacy import binning

    calls = []
    for name in ("privtree_bins", "grid_points", "consistent_sub_bin_weights"):
        original = getattr(binning, name)
        monkeypatch.setattr(
            binning,
            name,
            lambda *a, _f=original, _n=name, **k: calls.append(_n) or _f(*a, **k),
        )
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 101, 300), rng.integers(0, 3, 300)])
    encoder = BooleanEncoder(categories=[{"type": "integer", "range": [0, 100]}, 3])
    search = PrivateSelectionSearch(
        make_synthesis_pipeline(encoder, MarginalSynthesizer(epsilon=1.0)),
        {"marginalsynthesizer__epsilon": [0.5, 1.0]},
        scoring=make_marginal_scorer(space="decoded", epsilon=0.1),
        delta=1e-6,
    )
    accountant = PrivacyAccountant(epsilon=100.0, delta=1e-3)
    with accountant, pytest.raises(ValueError, match=r"categories declares ranges .*\[0\]"):
        search.fit(X)
    assert accountant.charges == [] and calls == []


def test_a_seeded_search_warns_once_not_once_per_run():
    import warnings

    search = PrivateSelectionSearch(
        NoisyMicroaggregation(epsilon=0.3),
        {"t": [1, 2]},
        scoring=make_marginal_scorer(epsilon=0.1),
        stop_probability=0.2,
        random_state=np.random.default_rng(0),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(_boolean())
    leaks = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert len(leaks) == 1 and leaks[0].filename == __file__
    assert str(leaks[0].message).startswith("PrivateSelectionSearch(random_state=Generator")
