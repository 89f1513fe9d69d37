"""Tests of the MVEE (Khachiyan / Todd–Yildirim) and the base decomposition."""

import itertools
import math

import numpy as np
import pytest

from skprivsynth._math.ellipsoid import (
    base_decomposition,
    mvee_symmetric,
    walsh_base_decomposition,
)
from skprivsynth._math.workload import MarginalWorkload


def _cube(d):
    return np.array(list(itertools.product([-1.0, 1.0], repeat=d)))


def _contains(points, E, slack=1e-9):
    """Every point b satisfies bᵀ E⁻¹ b ≤ 1 (+ slack)."""
    vals = np.einsum("ij,ij->i", points, np.linalg.solve(E, points.T).T)
    return vals.max() <= 1.0 + slack


def _volume_ratio(E, E_opt):
    """(vol E / vol E_opt)^{2/dim} for ellipsoids {y: yᵀ E⁻¹ y ≤ 1}."""
    dim = E.shape[0]
    return math.exp((np.linalg.slogdet(E)[1] - np.linalg.slogdet(E_opt)[1]) / dim)


@pytest.mark.parametrize("d", [2, 5, 7])
def test_mvee_cube_vertices_is_ball(d):
    res = mvee_symmetric(_cube(d), eta=0.01)
    assert res.converged
    assert _contains(_cube(d), res.enclosing_matrix)
    ratio = _volume_ratio(res.enclosing_matrix, d * np.eye(d))  # ball of radius sqrt(d)
    assert 1.0 - 1e-9 <= ratio <= 1.01


@pytest.mark.parametrize("eta", [0.1, 0.01, 0.001])
def test_mvee_ball_like_set_volume_within_eta(eta):
    """Cross-polytope + random unit vectors: MVEE = unit ball; then an affine image."""
    rng = np.random.default_rng(1)
    d = 5
    sphere = rng.normal(size=(300, d))
    sphere /= np.linalg.norm(sphere, axis=1, keepdims=True)
    points = np.vstack([np.eye(d), sphere])
    F = rng.normal(size=(d, d))
    image = points @ F.T
    res = mvee_symmetric(image, eta=eta)
    assert res.omega_max <= (1 + eta) * d * (1 + 1e-9)
    assert _contains(image, res.enclosing_matrix)
    ratio = _volume_ratio(res.enclosing_matrix, F @ F.T)
    assert 1.0 - 1e-9 <= ratio <= 1.0 + eta


def test_mvee_optimality_certificate_on_random_cloud():
    rng = np.random.default_rng(2)
    B = rng.normal(size=(400, 6)) * np.array([0.1, 0.5, 1, 2, 3, 5])
    res = mvee_symmetric(B, eta=0.02)
    assert res.converged
    assert abs(res.weights.sum() - 1) < 1e-12 and res.weights.min() >= 0
    omega = np.einsum("ij,ij->i", B, np.linalg.solve(res.shape, B.T).T)
    assert omega.max() <= 1.02 * 6 * (1 + 1e-9)
    # Σ_j u_j ω_j = trace(M⁻¹ M) = dim (duality).
    assert res.weights @ omega == pytest.approx(6.0, rel=1e-8)
    assert _contains(B, res.enclosing_matrix)


def test_mvee_rejects_degenerate_points():
    with pytest.raises(ValueError, match="span"):
        mvee_symmetric(np.array([[1.0, 1.0], [2.0, 2.0]]))
    with pytest.raises(ValueError, match="eta"):
        mvee_symmetric(np.eye(2), eta=0)


def _check_decomposition(dec, A, center):
    q, N = A.shape
    B = A - center[:, None]
    r = np.linalg.matrix_rank(B)
    U = np.hstack(dec.bases)
    assert U.shape == (q, r)
    np.testing.assert_allclose(U.T @ U, np.eye(r), atol=1e-9)  # orthonormal + mutually ⊥
    assert dec.ranks.sum() == r
    assert dec.n_blocks <= 1 + math.ceil(math.log2(r))
    np.testing.assert_allclose(U @ (U.T @ B), B, atol=1e-8)  # spans the centred columns
    exact = np.array([np.linalg.norm(Ub.T @ B, axis=0).max() for Ub in dec.bases])
    return exact


def test_base_decomposition_general_path_properties():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(12, 8)) @ rng.normal(size=(8, 60))  # rank 8
    A[:, :5] *= 4.0
    center = A.mean(axis=1)
    dec = base_decomposition(A, center=center)
    exact = _check_decomposition(dec, A, center)
    np.testing.assert_allclose(dec.radii, exact, rtol=1e-10)
    np.testing.assert_allclose(dec.block_norms_sq.max(axis=0), exact**2, rtol=1e-10)


def test_base_decomposition_more_queries_than_columns():
    rng = np.random.default_rng(4)
    A = rng.normal(size=(40, 9))
    dec = base_decomposition(A)
    exact = _check_decomposition(dec, A, np.zeros(40))
    np.testing.assert_allclose(dec.radii, exact, rtol=1e-10)


def _cube_tables(p, degree):
    wl = MarginalWorkload(p, degree, kind="table", include_constant=False)
    records = ((np.arange(2**p)[:, None] >> np.arange(p)) & 1).astype(np.uint8)
    return wl, wl.query_matrix(records).toarray()


def _walsh_T(wl, p):
    """T of A = T·W via the estimator's internal builder."""
    from skprivsynth._math.workload_operator import WorkloadOperator

    w = WorkloadOperator(p, wl.degree, wl, None, 2**p)
    return w.T, w.masks


@pytest.mark.parametrize("p,degree", [(4, 2), (5, 2), (5, 3)])
def test_walsh_factorisation_and_fast_path_encloses(p, degree):
    wl, A = _cube_tables(p, degree)
    T, masks = _walsh_T(wl, p)
    idx = np.arange(2**p)
    W = 1.0 - 2.0 * (np.array([[bin(m & i).count("1") % 2 for i in idx] for m in masks]))
    np.testing.assert_allclose(T @ W, A, atol=1e-12)  # A = T·W
    center = A.mean(axis=1)
    fast = walsh_base_decomposition(T[:, masks != 0])
    exact = _check_decomposition(fast, A, center)
    # T of marginal tables has orthogonal columns: the radii are exact maxima.
    np.testing.assert_allclose(fast.radii, exact, rtol=1e-10)
    slow = base_decomposition(A, center=center)
    exact_slow = _check_decomposition(slow, A, center)
    np.testing.assert_allclose(slow.radii, exact_slow, rtol=1e-10)
    # Privacy containment of both paths: every centred column lies in the ellipsoid
    # Σ_i ||U_iᵀ b||² / (k r_i²) ≤ 1 of Corollary 9 (and in each block's ball).
    B = A - center[:, None]
    for dec in (fast, slow):
        val = sum(
            np.linalg.norm(U.T @ B, axis=0) ** 2 / (dec.n_blocks * r**2)
            for U, r in zip(dec.bases, dec.radii, strict=True)
        )
        assert val.max() <= 1.0 + 1e-9


def test_walsh_first_level_is_the_mvee():
    """The columns of W (all characters, whole cube) have the ball sqrt(L)·B as MVEE,
    so sqrt(L)·T·B is the MVEE of the centred columns of A: Khachiyan agrees."""
    p = 5
    wl, A = _cube_tables(p, 2)
    T, masks = _walsh_T(wl, p)
    Tc = T[:, masks != 0]
    L = Tc.shape[1]
    B = A - A.mean(axis=1, keepdims=True)
    E_basis = np.linalg.svd(Tc, full_matrices=False)[0]
    Y = (E_basis.T @ B).T
    res = mvee_symmetric(Y, eta=0.001)
    fast = L * (E_basis.T @ Tc) @ (E_basis.T @ Tc).T
    assert _contains(Y, fast)
    assert 1.0 - 1e-9 <= _volume_ratio(res.enclosing_matrix, fast) <= 1.001


def test_walsh_fast_path_bound_for_non_orthogonal_T():
    rng = np.random.default_rng(5)
    p, L = 6, 9
    masks = rng.choice(np.arange(1, 2**p), size=L, replace=False)
    T = rng.normal(size=(7, L))
    idx = np.arange(2**p)
    W = 1.0 - 2.0 * np.array([[bin(int(m) & i).count("1") % 2 for i in idx] for m in masks])
    A = T @ W
    dec = walsh_base_decomposition(T)
    exact = _check_decomposition(dec, A, np.zeros(7))
    assert np.all(dec.radii >= exact * (1 - 1e-12))  # proven upper bound
