"""Residual (workload-shaped) measurement of a marginal table: sensitivity, budget, audit."""

import itertools
import math

import numpy as np
import pytest
from scipy.stats import norm

from skprivsynth._math import residuals
from skprivsynth._math.graphical_model import Measurement, estimate
from skprivsynth._math.residuals import (
    allocate,
    center,
    pattern_sensitivities,
    residual_subsets,
    zcdp_cost,
)
from skprivsynth.auditing import clopper_pearson
from skprivsynth.privacy.residuals import measure_residuals

SIZES = [(2,), (3,), (2, 2), (3, 4), (2, 3, 4), (4, 1, 3), (5, 5), (2, 2, 2)]


def _marginal_operator(sizes, s):
    """The matrix of x ↦ P_s x_s on the flattened table."""
    M = np.ones((1, 1))
    for i, k in enumerate(sizes):
        M = np.kron(M, np.eye(k) - 1 / k if i in s else np.ones((1, k)))
    return M


@pytest.mark.parametrize("sizes", SIZES, ids=str)
def test_pattern_formula_is_the_worst_case_over_all_neighbouring_pairs(sizes):
    subsets = residual_subsets(sizes)
    v = np.random.default_rng(0).uniform(0.2, 3.0, len(subsets))
    operators = [_marginal_operator(sizes, s) for s in subsets]
    N = math.prod(sizes)
    worst = 0.0
    for u, w in itertools.permutations(range(N), 2):  # every replace-one move
        d = np.zeros(N)
        d[u], d[w] = 1.0, -1.0
        worst = max(
            worst, sum(vi * np.sum((M @ d) ** 2) for vi, M in zip(v, operators, strict=True))
        )
    assert np.max(pattern_sensitivities(sizes, subsets) @ v) == pytest.approx(worst)


@pytest.mark.parametrize("sizes", SIZES, ids=str)
def test_plain_measurement_is_the_residual_allocation_with_sigma_scaled_by_summed_cells(sizes):
    subsets = residual_subsets(sizes)
    sigma = 1.7
    plain = [
        sigma * math.sqrt(math.prod(k for i, k in enumerate(sizes) if i not in s)) for s in subsets
    ]
    # x + N(0, σ²I) costs ρ = Δ²/2σ² = 1/σ² with Δ = √2 (replace-one).
    assert zcdp_cost(sizes, subsets, plain) == pytest.approx(1 / sigma**2)


@pytest.mark.parametrize("sizes", SIZES + [(10, 10, 10), (16, 7, 2), (50, 40)], ids=str)
@pytest.mark.parametrize("rho", [0.01, 2.0])
def test_allocation_spends_exactly_rho_and_never_loses_to_plain_noise(sizes, rho):
    subsets, sigmas = allocate(sizes, rho)
    assert zcdp_cost(sizes, subsets, sigmas) == pytest.approx(rho, rel=1e-12)
    assert zcdp_cost(sizes, subsets, sigmas) <= rho * (1 + 1e-12)
    b = residuals._workload_variances(sizes, subsets)
    plain = np.array([math.prod(k for i, k in enumerate(sizes) if i not in s) for s in subsets])
    assert b @ np.square(sigmas) <= b @ (plain / rho) * (1 + 1e-9)


def test_allocation_gains_most_on_large_tables():
    # Workload variance (table + all sub-marginals) relative to plain noise at equal ρ.
    def ratio(sizes):
        subsets, sigmas = allocate(sizes, 1.0)
        b = residuals._workload_variances(sizes, subsets)
        plain = np.array([math.prod(k for i, k in enumerate(sizes) if i not in s) for s in subsets])
        return (b @ np.square(sigmas)) / (b @ plain)

    assert ratio((2,)) == pytest.approx(1.0)
    assert ratio((10, 10, 10)) < 0.6 < ratio((3, 4)) < 1.0


def test_measured_residuals_are_unbiased_with_the_stated_noise():
    table = np.arange(24, dtype=float).reshape(2, 3, 4) * 3
    rng = np.random.default_rng(1)
    draws = [measure_residuals(table, 0.5, rng)[0] for _ in range(3000)]
    for j, (s, _, sigma) in enumerate(draws[0]):
        noisy = np.stack([d[j][1] for d in draws])
        exact = center(table.sum(axis=tuple(a for a in range(3) if a not in s)), range(len(s)))
        # Noise covariance σ²P_s: per-cell variance σ² Π (1 − 1/k_i).
        var = sigma**2 * math.prod(1 - 1 / table.shape[a] for a in s)
        assert np.allclose(noisy.mean(axis=0), exact, atol=5 * math.sqrt(var / 3000))
        assert np.allclose(noisy.var(axis=0), var, rtol=0.1)


def test_graphical_model_recovers_a_table_from_its_residuals():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(12)).reshape(3, 4)
    n = 1000
    table = n * p
    releases = [
        Measurement(
            s,
            center(table.sum(axis=tuple(a for a in range(2) if a not in s)), range(len(s))),
            1.0,
            residual=True,
        )
        for s in residual_subsets(table.shape)
    ]
    model = estimate(releases, [3, 4], n, iterations=2000)
    assert np.allclose(model.marginal((0, 1)), p, atol=1e-4)


def _broken_pattern_sensitivities(sizes, subsets):
    """A realistic mistake: the residual's norm taken in the *lifted* space.

    ``||(P_s ⊗ J/k) (e_u − e_v)||²`` (the ANOVA term on the full table) is the norm of
    ``P_s(e_u − e_v)`` divided by ``Π_{i∉s} k_i``; using it for the marginal-space
    release under-noises every lower-order residual.
    """
    G = pattern_sensitivities(sizes, subsets)
    lift = [1 / math.prod(k for i, k in enumerate(sizes) if i not in s) for s in subsets]
    return G * np.array(lift)


@pytest.mark.parametrize("broken", [False, True], ids=["honest", "lifted-sensitivity"])
def test_gaussian_dp_audit_of_the_residual_release(broken, monkeypatch, request):
    """Neyman–Pearson audit on the worst replace-one pair of a 3 × 4 table.

    The release is Gaussian, so it is μ-GDP with μ² = Σ_s ||P_sΔ_s||²/σ_s² on the pair
    (Dong, Roth & Su 2022); the claim is μ = sqrt(2ρ).  The likelihood-ratio statistic
    ``T = Σ_s ⟨P_sΔ_s, y_s⟩/σ_s²`` separates the pair best; the event ``T >= midpoint``
    gives a lower confidence bound on μ.  The honest release must stay below the claim
    and reach most of it; the broken allocation must be refuted.
    """
    sizes, rho = (3, 4), 2.0
    if broken:
        monkeypatch.setattr(residuals, "pattern_sensitivities", _broken_pattern_sensitivities)
        residuals._unit_precisions.cache_clear()
        # the releases below cache the broken allocation too: no later test may see it
        request.addfinalizer(residuals._unit_precisions.cache_clear)
    try:
        subsets, sigmas = allocate(sizes, rho)
    finally:
        residuals._unit_precisions.cache_clear()
    claim = math.sqrt(2 * rho)
    a = np.full(sizes, 10.0)
    b = a.copy()
    b[0, 0] -= 1  # the worst pattern here: the record changes level in one column only
    b[1, 0] += 1
    true = pattern_sensitivities(sizes, subsets) @ (1 / np.square(sigmas))
    diffs = [
        center((b - a).sum(axis=tuple(x for x in range(2) if x not in s)), range(len(s)))
        for s in subsets
    ]
    shift = sum(float(np.sum(d * d)) / sig**2 for d, sig in zip(diffs, sigmas, strict=True))

    def statistic(table, rng):
        releases, _ = measure_residuals(table, rho, rng)
        return sum(
            float(np.sum(d * y)) / sig**2 for d, (_, y, sig) in zip(diffs, releases, strict=True)
        )

    runs = 2000
    rng = np.random.default_rng(2024)
    base = [statistic(a, rng) for _ in range(runs)]
    moved = [statistic(b, rng) for _ in range(runs)]
    # Midpoint of the two means of T, fixed from the public pair and σ.
    exact_a = [
        center(a.sum(axis=tuple(x for x in range(2) if x not in s)), range(len(s))) for s in subsets
    ]
    mean_a = sum(
        float(np.sum(d * y)) / sig**2 for d, y, sig in zip(diffs, exact_a, sigmas, strict=True)
    )
    threshold = mean_a + shift / 2
    k0 = sum(t >= threshold for t in base)
    k1 = sum(t >= threshold for t in moved)
    tpr_lo = clopper_pearson(k1, runs, 0.025, side="lower")[0]
    fpr_hi = clopper_pearson(k0, runs, 0.025, side="upper")[1]
    mu_lb = float(norm.ppf(tpr_lo) - norm.ppf(fpr_hi))
    if broken:
        assert math.sqrt(np.max(true)) > 1.3 * claim  # the mistake is real ...
        assert mu_lb > claim  # ... and caught
    else:
        assert np.max(true) == pytest.approx(2 * rho)
        assert 0.85 * claim < mu_lb <= claim
