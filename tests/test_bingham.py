"""Bingham sampler (PVEC) and private PCA (PROJ): exactness, stability, acceptance."""

import math
import time

import numpy as np
import pytest
from scipy.stats import chisquare, ortho_group

from skprivsynth._math.bingham import acg_envelope_parameter, private_pca, sample_bingham


def _rotation_2d(phi):
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


def _equiprobable_edges(grid, density, n_bins):
    """Bin edges on ``grid`` with equal mass under ``density`` (numerical CDF)."""
    mids = (grid[1:] + grid[:-1]) / 2
    mass = density(mids) * np.diff(grid)
    cdf = np.concatenate([[0.0], np.cumsum(mass)])
    cdf /= cdf[-1]
    return np.interp(np.linspace(0, 1, n_bins + 1), cdf, grid)


def _bin_probabilities(grid, density, edges):
    mids = (grid[1:] + grid[:-1]) / 2
    mass = density(mids) * np.diff(grid)
    which = np.clip(np.searchsorted(edges, mids, side="right") - 1, 0, len(edges) - 2)
    probs = np.bincount(which, weights=mass, minlength=len(edges) - 1)
    return probs / probs.sum()


@pytest.mark.parametrize("kappa", [0.7, 40.0, 2000.0])
def test_angle_goodness_of_fit_dimension_2(kappa):
    # B = R diag(κ, 0) Rᵀ: the angle θ of v = (cos θ, sin θ) has density
    # ∝ exp(κ cos²(θ − φ0)) on [0, 2π) (numerically integrated below).
    phi0 = 0.6
    B = _rotation_2d(phi0) @ np.diag([kappa, 0.0]) @ _rotation_2d(phi0).T
    v = sample_bingham(B, np.random.default_rng(1), size=5000)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0)
    theta = np.mod(np.arctan2(v[:, 1], v[:, 0]), 2 * np.pi)

    def density(x):
        return np.exp(kappa * (np.cos(x - phi0) ** 2 - 1.0))

    grid = np.linspace(0.0, 2 * np.pi, 400_001)
    edges = _equiprobable_edges(grid, density, 25)
    expected = _bin_probabilities(grid, density, edges) * theta.size
    observed = np.histogram(theta, bins=edges)[0]
    assert chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.parametrize(
    "eigenvalues", [(1.5, 0.5, 0.0), (400.0, 120.0, 0.0)], ids=["weak", "strong"]
)
def test_histogram_goodness_of_fit_dimension_3(eigenvalues):
    # Random rotation of diag(μ1, μ2, μ3); in eigen-coordinates with the top axis as
    # polar axis, v = (u, √(1−u²)cos φ, √(1−u²)sin φ) and the surface measure is
    # du dφ, so the density in (u, φ) is exp(μ1 u² + (1−u²)(μ2 cos²φ + μ3 sin²φ)).
    mu1, mu2, mu3 = eigenvalues
    R = ortho_group.rvs(3, random_state=3)
    B = R @ np.diag(eigenvalues) @ R.T
    v = sample_bingham(B, np.random.default_rng(2), size=6000)
    z = v @ R
    u = z[:, 0]
    phi = np.mod(np.arctan2(z[:, 2], z[:, 1]), 2 * np.pi)

    u_grid = np.linspace(-1.0, 1.0, 20_001)
    phi_grid = np.linspace(0.0, 2 * np.pi, 361)
    um = (u_grid[1:] + u_grid[:-1]) / 2
    pm = (phi_grid[1:] + phi_grid[:-1]) / 2
    log_f = mu1 * um[:, None] ** 2 + (1 - um[:, None] ** 2) * (
        mu2 * np.cos(pm[None, :]) ** 2 + mu3 * np.sin(pm[None, :]) ** 2
    )
    f = np.exp(log_f - log_f.max())  # du and dφ are uniform grids: constant cell area
    marginal_u = f.sum(axis=1)

    def density_u(x):
        return np.interp(x, um, marginal_u)

    u_edges = _equiprobable_edges(u_grid, density_u, 10)
    phi_edges = np.linspace(0.0, 2 * np.pi, 7)
    iu = np.clip(np.searchsorted(u_edges, um, side="right") - 1, 0, 9)
    ip = np.clip(np.searchsorted(phi_edges, pm, side="right") - 1, 0, 5)
    cell = (iu[:, None] * 6 + ip[None, :]).ravel()
    expected = np.bincount(cell, weights=f.ravel(), minlength=60)
    expected = expected / expected.sum() * v.shape[0]
    observed = np.histogram2d(u, phi, bins=[u_edges, phi_edges])[0].ravel()
    # Lump cells with small expected counts (chi-square validity).
    small = expected < 5
    if small.any():
        expected = np.append(expected[~small], expected[small].sum())
        observed = np.append(observed[~small], observed[small].sum())
    assert chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.parametrize("q", [50, 200])
def test_acceptance_rate_bounded_away_from_zero(q, record_property):
    rng = np.random.default_rng(0)
    rates = {}
    for label, B in {
        "uniform": np.zeros((q, q)),
        "moderate": np.diag(10.0 * rng.random(q)),
        "spiked 1e4": np.diag(np.r_[1e4, np.zeros(q - 1)]),
        "spread 1e6": np.diag(1e6 * rng.random(q) ** 3),
    }.items():
        _, rate = sample_bingham(B, rng, size=2000, return_acceptance=True)
        rates[label] = rate
    record_property("acceptance_rates", rates)
    print(f"q={q} acceptance rates: " + ", ".join(f"{k}: {r:.3f}" for k, r in rates.items()))
    assert rates["uniform"] == 1.0
    # Concentrated limit (b -> 1, Laplace approximation of both normalising
    # constants): rate -> 2^((q-1)/2)·Γ(q/2) / (√π·e^(-(q-1)/2)·q^(q/2)) ≈ √(2/e)/√q,
    # 0.121 (q=50) and 0.061 (q=200); measured 0.12-0.125 and 0.060-0.064.  The KGM
    # envelope keeps it bounded away from 0 however large ‖B‖ is.
    limit = math.exp(
        (q - 1) / 2 * math.log(2)
        + math.lgamma(q / 2)
        - 0.5 * math.log(math.pi)
        + (q - 1) / 2
        - q / 2 * math.log(q)
    )
    assert limit == pytest.approx(math.sqrt(2 / math.e / q), rel=0.01)
    assert min(rates.values()) > 0.8 * limit


def test_large_norm_and_dimension_are_fast_and_finite():
    rng = np.random.default_rng(5)
    q = 300
    Q = np.linalg.qr(rng.standard_normal((q, q)))[0]
    eig = np.r_[1e6, 1e6 * rng.random(q - 1) ** 2 * 0.5]
    B = (Q * eig) @ Q.T
    start = time.perf_counter()
    v = sample_bingham(B, rng, size=20)
    elapsed = time.perf_counter() - start
    assert np.all(np.isfinite(v))
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0)
    # Concentrated on the top eigenvector (gap 5e5 → angle ~ 1e-3 per coordinate).
    assert np.all(np.abs(v @ Q[:, 0]) > 0.99)
    assert elapsed < 5.0


def test_uniform_when_matrix_is_a_multiple_of_identity():
    v = sample_bingham(7.0 * np.eye(4), np.random.default_rng(0), size=20_000)
    # Uniform on S^3: E[v vᵀ] = I/4, standard error of each diagonal ≈ 0.0015.
    assert np.allclose(v.T @ v / v.shape[0], np.eye(4) / 4, atol=0.01)


def test_second_moment_matches_numerical_integration_dimension_2():
    # E[cos² θ] under exp(κ cos² θ) = I1/I0-type ratio; check by quadrature.
    kappa = 3.0
    v = sample_bingham(np.diag([kappa, 0.0]), np.random.default_rng(4), size=40_000)
    grid = np.linspace(0, 2 * np.pi, 200_001)
    w = np.exp(kappa * np.cos(grid) ** 2)
    exact = np.trapezoid(np.cos(grid) ** 2 * w, grid) / np.trapezoid(w, grid)
    assert abs(np.mean(v[:, 0] ** 2) - exact) < 4 * np.std(v[:, 0] ** 2) / np.sqrt(40_000)


@pytest.mark.parametrize("lam", [[0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 5.0], [0.0] + [1e6] * 99])
def test_envelope_parameter_solves_its_equation(lam):
    lam = np.asarray(lam, dtype=float)
    b = acg_envelope_parameter(lam)
    assert 1.0 <= b <= lam.size
    if np.any(lam > 0):
        assert np.sum(1.0 / (b + 2.0 * lam)) == pytest.approx(1.0, rel=1e-9)


def test_seeded_draws_are_reproducible():
    B = np.diag([5.0, 1.0, 0.0])
    a = sample_bingham(B, np.random.default_rng(11), size=10)
    b = sample_bingham(B, np.random.default_rng(11), size=10)
    np.testing.assert_array_equal(a, b)


def test_sampler_input_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="B must be symmetric"):
        sample_bingham(np.array([[0.0, 1.0], [0.0, 0.0]]), rng)
    with pytest.raises(ValueError, match="B must be a non-empty square"):
        sample_bingham(np.zeros((2, 3)), rng)
    with pytest.raises(ValueError, match="finite"):
        sample_bingham(np.array([[np.nan]]), rng)
    with pytest.raises(ValueError, match="size"):
        sample_bingham(np.eye(2), rng, size=0)


def test_private_pca_orthonormal_and_recovers_separated_subspace():
    rng = np.random.default_rng(0)
    p = 40
    Q = ortho_group.rvs(p, random_state=1)
    A = (Q * np.r_[5e5, 3e5, np.full(p - 2, 10.0)]) @ Q.T
    V = private_pca(A, 2, rng)
    assert V.shape == (p, 2)
    np.testing.assert_allclose(V.T @ V, np.eye(2), atol=1e-10)
    P, P_true = V @ V.T, Q[:, :2] @ Q[:, :2].T
    assert np.linalg.norm(P - P_true) < 0.05


def test_private_pca_second_vector_lives_in_the_complement():
    # With A = diag(big, 0, ..., 0) the second draw is uniform on the complement of v1.
    A = np.diag(np.r_[1e5, np.zeros(5)])
    V = private_pca(A, 3, np.random.default_rng(3))
    assert abs(V[0, 0]) > 0.99
    np.testing.assert_allclose(V.T @ V, np.eye(3), atol=1e-10)


def test_private_pca_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="t must be an integer"):
        private_pca(np.eye(3), 4, rng)
    with pytest.raises(ValueError, match="t must be an integer"):
        private_pca(np.eye(3), 0, rng)
    with pytest.raises(ValueError, match="A must be symmetric"):
        private_pca(np.triu(np.ones((3, 3))), 1, rng)
