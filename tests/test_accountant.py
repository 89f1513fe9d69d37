"""PrivacyAccountant: composition, refusal before any draw, scope, clone, n_jobs."""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold

import skprivsynth.base
import skprivsynth.privacy
from skprivsynth import (
    BudgetExceededError,
    CorrelatedGaussianMechanism,
    MarginalSynthesizer,
    MicroaggregationSynthesizer,
    NoisyMicroaggregation,
    PrivacyAccountant,
    PrivateSampler,
    ReducedSpaceLP,
)
from skprivsynth.accountant import fit_cost
from skprivsynth.metrics import make_marginal_scorer
from skprivsynth.preprocessing import private_level_frequencies
from skprivsynth.privacy import PrivacyCost, zcdp_epsilon, zcdp_rho


def _boolean(n=120, p=4, seed=0):
    return (np.random.default_rng(seed).random((n, p)) < 0.4).astype(float)


def test_budget_validation():
    with pytest.raises(ValueError, match="exactly one of epsilon"):
        PrivacyAccountant()
    with pytest.raises(ValueError, match="exactly one of epsilon"):
        PrivacyAccountant(epsilon=1.0, rho=0.1)
    with pytest.raises(ValueError, match="epsilon must be a positive finite"):
        PrivacyAccountant(epsilon=-1.0)
    with pytest.raises(ValueError, match="delta must be a real number in the open interval"):
        PrivacyAccountant(epsilon=1.0, delta=1.5)
    with pytest.raises(ValueError, match="a rho budget takes no delta"):
        PrivacyAccountant(rho=0.1, delta=1e-6)


def test_composition_of_each_budget_kind():
    pure = PrivacyAccountant(epsilon=1.0)
    pure.charge("a", epsilon=0.25)
    pure.charge("b", epsilon=0.5)
    assert (pure.spent, pure.remaining) == (0.75, 0.25)
    with pytest.raises(BudgetExceededError, match="cannot be charged to a pure epsilon"):
        pure.charge("zcdp", rho=1e-4)
    with pytest.raises(BudgetExceededError, match="cannot be charged to a pure epsilon"):
        pure.charge("approx", epsilon=0.1, delta=1e-9)
    assert len(pure.charges) == 2  # refused charges record nothing

    # (ε, δ): pure and approximate ε add; all ρ convert once at δ − Σ δ_j.
    acc = PrivacyAccountant(epsilon=3.0, delta=1e-6)
    acc.charge("pure", epsilon=0.5)
    acc.charge("approx", epsilon=0.25, delta=4e-7)
    acc.charge("zcdp 1", rho=0.01)
    acc.charge("zcdp 2", rho=0.02)
    expected = 0.75 + zcdp_epsilon(0.03, 6e-7)
    assert acc.spent == pytest.approx(expected, rel=1e-12)
    report = acc.privacy_report()
    assert report.epsilon == pytest.approx(expected, rel=1e-12)
    assert report.delta == pytest.approx(1e-6, rel=1e-12)

    # ρ budget: ρ add, pure ε counts ε²/2, approximate releases do not fit.
    rho = PrivacyAccountant(rho=0.1)
    rho.charge("zcdp", rho=0.02)
    rho.charge("pure", epsilon=0.2)
    assert rho.spent == pytest.approx(0.02 + 0.02, rel=1e-12)
    with pytest.raises(BudgetExceededError, match="cannot be charged"):
        rho.charge("approx", epsilon=0.1, delta=1e-9)
    with pytest.raises(BudgetExceededError, match="above the total rho = 0.1"):
        rho.charge("too much", rho=0.07)
    with pytest.raises(ValueError, match="delta is required for the report of a rho"):
        rho.privacy_report()
    assert rho.privacy_report(delta=1e-9).rho == pytest.approx(0.02, rel=1e-12)


def test_fit_cost_is_what_each_synthesizer_reports():
    X = _boolean(200, 4)
    for est in (
        NoisyMicroaggregation(epsilon=0.7, random_state=0),
        ReducedSpaceLP(epsilon=0.7, degree=2, m=200, random_state=0),
        PrivateSampler(epsilon=0.7, m=64, random_state=0),
    ):
        assert fit_cost(est, *X.shape) == PrivacyCost(epsilon=0.7)
        est.fit(X)
        budget = getattr(est, "epsilon_budget_", None) or est.privacy_report_.epsilon
        assert budget == pytest.approx(0.7, rel=1e-12), type(est).__name__
    sampler = PrivateSampler(epsilon=None, n_samples=5, m=64, random_state=0)
    assert fit_cost(sampler, *X.shape).epsilon == pytest.approx(
        sampler.fit(X).epsilon_budget_, rel=1e-12
    )
    cgm = CorrelatedGaussianMechanism(epsilon=0.7, delta=1e-6, random_state=0)
    assert fit_cost(cgm, *X.shape) == PrivacyCost(epsilon=0.7, delta=1e-6)
    report = cgm.fit(X).privacy_report_
    assert (report.epsilon, report.delta) == (0.7, 1e-6)
    marginal = MarginalSynthesizer(epsilon=0.7, delta=1e-9, domain=[2] * 4, random_state=0)
    cost = fit_cost(marginal, *X.shape)
    assert cost == PrivacyCost(rho=zcdp_rho(0.7, 1e-9))
    assert marginal.fit(X.astype(int)).privacy_report_.rho <= cost.rho * (1 + 1e-9)
    with pytest.raises(ValueError, match="give it an epsilon"):
        fit_cost(PrivateSampler(epsilon=None, n_samples=5), 200, None)
    assert fit_cost(MicroaggregationSynthesizer(k=5), *X.shape) is None


@pytest.fixture
def no_draws(monkeypatch):
    """Fail loudly if a fit gets its generator or any noise is drawn."""

    def trap(*args, **kwargs):
        raise AssertionError("randomness or noise was used")

    monkeypatch.setattr(skprivsynth.base, "check_random_generator", trap)
    for name in ("laplace_mechanism", "gaussian_mechanism", "exponential_mechanism"):
        monkeypatch.setattr(skprivsynth.privacy, name, trap)


def test_a_fit_that_would_cross_the_budget_is_refused_before_anything_is_drawn(no_draws):
    X = _boolean()
    accountant = PrivacyAccountant(epsilon=1.0)
    accountant.charge("earlier release", epsilon=0.6)
    est = NoisyMicroaggregation(epsilon=0.5, random_state=0)
    with accountant, pytest.raises(BudgetExceededError, match="fit of NoisyMicroaggregation"):
        est.fit(X)
    assert not hasattr(est, "privacy_report_")
    assert accountant.spent == 0.6
    marginal = MarginalSynthesizer(epsilon=1.0, domain=[2] * 4, random_state=0)
    with PrivacyAccountant(epsilon=1.0), pytest.raises(BudgetExceededError, match="pure"):
        marginal.fit(X.astype(int))  # a zCDP fit against a pure budget


def test_level_frequencies_are_charged(no_draws):
    df = pd.DataFrame({"a": [0, 1, 1, 0], "b": [1, 1, 0, 0]})
    with PrivacyAccountant(epsilon=0.5), pytest.raises(BudgetExceededError, match="level freq"):
        private_level_frequencies(df, {"a": 2, "b": 2}, epsilon=1.0, random_state=0)


def test_fits_outside_a_scope_and_non_dp_fits_are_not_charged():
    X = _boolean()
    accountant = PrivacyAccountant(epsilon=1.0)
    NoisyMicroaggregation(epsilon=0.5, random_state=0).fit(X)
    with accountant:
        MicroaggregationSynthesizer(k=5, random_state=0).fit(X)
        clone(NoisyMicroaggregation(epsilon=0.5, random_state=0)).fit(X)  # a clone charges
    NoisyMicroaggregation(epsilon=0.5, random_state=0).fit(X)
    assert [c["description"] for c in accountant.charges] == ["fit of NoisyMicroaggregation"]


def test_nested_scopes_charge_every_active_accountant_or_none():
    X = _boolean()
    outer, inner = PrivacyAccountant(epsilon=1.0), PrivacyAccountant(epsilon=0.3)
    with outer:
        NoisyMicroaggregation(epsilon=0.2, random_state=0).fit(X)
        with inner:
            NoisyMicroaggregation(epsilon=0.2, random_state=0).fit(X)
            with pytest.raises(BudgetExceededError):
                NoisyMicroaggregation(epsilon=0.2, random_state=0).fit(X)
            with pytest.raises(RuntimeError, match="already active"), outer:
                pass
    assert (outer.spent, inner.spent) == (0.4, 0.2)


def test_grid_search_3_candidates_3_folds_charges_every_fit_and_score():
    # The documented count: 3 candidates x 3 folds fits + 1 refit, and one DP score per
    # (candidate, test fold) -- 9 scores; fits and scores compose sequentially.
    X = _boolean(150, 4, seed=1)
    eps_fit, eps_score = 0.1, 0.05
    search = GridSearchCV(
        NoisyMicroaggregation(epsilon=eps_fit, random_state=0),
        {"t": [1, 2, 3]},
        cv=KFold(3),
        scoring=make_marginal_scorer(epsilon=eps_score),
        error_score="raise",
    )
    accountant = PrivacyAccountant(epsilon=2.0)
    with accountant:
        search.fit(X)
    descriptions = [c["description"] for c in accountant.charges]
    assert descriptions.count("fit of NoisyMicroaggregation") == 10
    assert descriptions.count("DP marginal score of 50 rows") == 9
    assert accountant.spent == pytest.approx(10 * eps_fit + 9 * eps_score, rel=1e-12)

    # The same search with too small a budget stops at the first refused release.
    small = PrivacyAccountant(epsilon=10 * eps_fit + 8 * eps_score)
    with small, pytest.raises(BudgetExceededError):
        clone(search).fit(X)
    assert small.spent <= small.total


def test_parallel_search_is_refused_inside_a_scope():
    search = GridSearchCV(
        NoisyMicroaggregation(epsilon=0.1),
        {"t": [1, 2]},
        cv=2,
        n_jobs=2,
        scoring=make_marginal_scorer(epsilon=0.1),
    )
    accountant = PrivacyAccountant(epsilon=5.0)
    with accountant, pytest.raises(RuntimeError, match="n_jobs=2 inside a PrivacyAccountant"):
        search.fit(_boolean())
    assert accountant.charges == []


@pytest.mark.parametrize("error_score", ["raise", np.nan])
def test_a_nested_threading_backend_cannot_escape_the_scope(error_score):
    # joblib.parallel_config inside the scope replaces the accountant's backend: the fold
    # fits and scores then run in worker threads that do not see the scope.  Each of
    # them must be refused before it draws (nothing released uncharged).
    import joblib

    search = GridSearchCV(
        NoisyMicroaggregation(epsilon=0.1),
        {"t": [1, 2]},
        cv=3,
        n_jobs=2,
        scoring=make_marginal_scorer(epsilon=0.1),
        error_score=error_score,
    )
    accountant = PrivacyAccountant(epsilon=5.0)
    with accountant, joblib.parallel_config(backend="threading"):
        with pytest.raises((RuntimeError, ValueError)) as raised:
            search.fit(_boolean())
    if error_score == "raise":
        assert "a thread that does not see it" in str(raised.value)
    assert accountant.charges == []


def test_a_release_in_another_thread_is_refused_during_a_scope_and_allowed_after():
    import threading

    outcome = []

    def fit():
        try:
            NoisyMicroaggregation(epsilon=0.1).fit(_boolean())
            outcome.append("fitted")
        except RuntimeError as exc:
            outcome.append(str(exc))

    with PrivacyAccountant(epsilon=1.0):
        worker = threading.Thread(target=fit)
        worker.start()
        worker.join()
    worker = threading.Thread(target=fit)
    worker.start()
    worker.join()
    assert "fit of NoisyMicroaggregation" in outcome[0] and "does not see it" in outcome[0]
    assert outcome[1] == "fitted"


def test_a_process_started_during_a_scope_refuses_releases():
    import os
    import subprocess
    import sys

    from skprivsynth.accountant import _SCOPE_ENV

    code = (
        "import numpy as np; from skprivsynth import NoisyMicroaggregation; "
        "NoisyMicroaggregation(epsilon=0.1).fit(np.eye(8)); print('fitted')"
    )
    with PrivacyAccountant(epsilon=1.0):
        marker = os.environ[_SCOPE_ENV]
        inside = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert inside.returncode != 0 and "a process started during its scope" in inside.stderr
    assert _SCOPE_ENV not in os.environ and not os.path.exists(marker)
    after = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert after.stdout.strip() == "fitted"


def test_charge_arguments_are_checked():
    accountant = PrivacyAccountant(epsilon=1.0)
    with pytest.raises(ValueError, match="exactly one of epsilon and rho"):
        accountant.charge("x")
    with pytest.raises(ValueError, match="epsilon must be a positive finite"):
        accountant.charge("x", epsilon=math.inf)
    assert repr(accountant) == "PrivacyAccountant(pure epsilon = 1, spent 0, 0 charge(s))"


def test_grid_search_of_zcdp_fits_spends_the_guides_number():
    # The user guide's example: 3 candidates x 3 folds + refit of MarginalSynthesizer at
    # (1, 1e-9) and 9 scores at 0.01 spend zcdp_epsilon(10 rho, 1e-9) + 0.09 = 3.458.
    X = _boolean(90, 3, seed=4).astype(int)
    search = GridSearchCV(
        MarginalSynthesizer(epsilon=1.0, delta=1e-9, domain=[2] * 3, iterations=20),
        {"max_degree": ["auto", 2, 3]},
        cv=KFold(3),
        scoring=make_marginal_scorer(epsilon=0.01),
        error_score="raise",
    )
    accountant = PrivacyAccountant(epsilon=4.0, delta=1e-9)
    with accountant:
        search.fit(X)
    expected = zcdp_epsilon(10 * zcdp_rho(1.0, 1e-9), 1e-9) + 9 * 0.01
    assert accountant.spent == pytest.approx(expected, rel=1e-12)
    assert round(accountant.spent, 3) == 3.458
