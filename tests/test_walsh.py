import math
from itertools import combinations

import numpy as np
import pytest

from skprivsynth._math.walsh import (
    boolean_to_signs,
    conjunction_matrix,
    fourier_coefficients,
    is_well_conditioned,
    n_walsh_functions,
    signs_to_boolean,
    smallest_singular_value,
    walsh_matrix,
    walsh_subsets,
    walsh_to_conjunction,
    well_conditioning_threshold,
)


@pytest.mark.parametrize("p, degree", [(1, 1), (5, 0), (5, 3), (7, 2), (6, 6)])
def test_subsets_order_and_count(p, degree):
    subsets = walsh_subsets(p, degree)
    flat = [tuple(row) for block in subsets for row in block.tolist()]
    expected = [c for j in range(degree + 1) for c in combinations(range(p), j)]
    assert flat == expected  # degree first, then lexicographic
    assert (
        len(flat) == n_walsh_functions(p, degree) == sum(math.comb(p, j) for j in range(degree + 1))
    )


def test_walsh_matrix_matches_definition():
    rng = np.random.default_rng(0)
    points = rng.choice([-1.0, 1.0], size=(37, 6))
    subsets = walsh_subsets(6, 3)
    W = walsh_matrix(points, subsets, chunk_size=5)  # several chunks
    cols = [c for j in range(4) for c in combinations(range(6), j)]
    brute = np.array([[np.prod(pt[list(J)]) for J in cols] for pt in points])
    np.testing.assert_array_equal(W, brute)


def test_sign_convention_parity():
    # x = 0 -> +1, x = 1 -> -1, so w_J(x) = (-1)^(sum of x over J).
    X = np.array([[0, 1, 1], [1, 1, 1]])
    S = boolean_to_signs(X)
    np.testing.assert_array_equal(S, [[1, -1, -1], [-1, -1, -1]])
    np.testing.assert_array_equal(signs_to_boolean(S), X)
    W = walsh_matrix(S, walsh_subsets(3, 3))
    cols = [c for j in range(4) for c in combinations(range(3), j)]
    parity = np.array([[(-1) ** int(x[list(J)].sum()) for J in cols] for x in X])
    np.testing.assert_array_equal(W, parity)


def test_fourier_coefficients_chunked_and_streamed():
    rng = np.random.default_rng(1)
    X = (rng.random((1003, 7)) < rng.random(7)).astype(np.int8)
    dense = walsh_matrix(boolean_to_signs(X), walsh_subsets(7, 3)).mean(axis=0)
    np.testing.assert_allclose(fourier_coefficients(X, 3, chunk_size=100), dense, atol=1e-13)
    blocks = (X[i : i + 211] for i in range(0, X.shape[0], 211))
    coef, n = fourier_coefficients(blocks, 3, chunk_size=64, return_n_rows=True)
    assert n == 1003
    np.testing.assert_allclose(coef, dense, atol=1e-13)
    # degree-1 coefficients are 1 - 2 * column means; c_empty = 1
    assert coef[0] == 1.0
    np.testing.assert_allclose(coef[1:8], 1 - 2 * X.mean(axis=0), atol=1e-13)


def test_fourier_coefficients_give_two_way_marginals():
    rng = np.random.default_rng(2)
    X = (rng.random((500, 4)) < 0.3).astype(float)
    c = fourier_coefficients(X, 2)
    # P(x_0 = 1, x_1 = 1) = (1 - c_0 - c_1 + c_01) / 4 with s = 1 - 2x
    p11 = (1 - c[1] - c[2] + c[5]) / 4
    assert p11 == pytest.approx(np.mean((X[:, 0] == 1) & (X[:, 1] == 1)), abs=1e-12)


@pytest.mark.parametrize("p, degree", [(4, 0), (6, 1), (7, 2), (6, 3), (5, 5)])
def test_conjunction_basis(p, degree):
    rng = np.random.default_rng(p + degree)
    X = (rng.random((250, p)) < 0.4).astype(float)
    subsets = walsh_subsets(p, degree)
    cols = [c for j in range(degree + 1) for c in combinations(range(p), j)]
    M = conjunction_matrix(X, subsets)
    brute = np.array([[np.prod(x[list(K)]) for K in cols] for x in X])
    np.testing.assert_array_equal(M, brute)  # x_K = prod of x[c], same column order
    # Data: Walsh coefficients -> fractions of rows with x_K = 1 (direct count).
    t = walsh_to_conjunction(fourier_coefficients(X, degree), subsets)
    direct = [np.mean(np.all(X[:, list(K)] == 1, axis=1)) for K in cols]
    np.testing.assert_allclose(t, direct, atol=1e-13)
    # Change of basis of the constraints: M = W V, so W^T h = b <=> M^T h = V^T b.
    W = walsh_matrix(boolean_to_signs(X), subsets)
    np.testing.assert_allclose(walsh_to_conjunction(W.T, subsets).T, M, atol=1e-13)
    h = rng.random(X.shape[0])
    np.testing.assert_allclose(M.T @ h, walsh_to_conjunction(W.T @ h, subsets), atol=1e-10)
    # V is invertible: M has the full column rank of W on the whole cube.
    cube = np.array(np.meshgrid(*[[0.0, 1.0]] * p, indexing="ij")).reshape(p, -1).T
    assert np.linalg.matrix_rank(conjunction_matrix(cube, subsets)) == len(cols)


def test_conjunction_bad_input():
    with pytest.raises(ValueError, match="rows"):
        walsh_to_conjunction(np.zeros(5), walsh_subsets(3, 2))
    with pytest.raises(ValueError, match="0, 1"):
        conjunction_matrix(np.array([[0.0, -1.0]]), walsh_subsets(2, 1))


def test_well_conditioning():
    # The full cube: Walsh columns are exactly orthogonal, sigma_min = sqrt(m).
    p = 5
    cube = np.array(np.meshgrid(*[[-1.0, 1.0]] * p, indexing="ij")).reshape(p, -1).T
    W = walsh_matrix(cube, walsh_subsets(p, 2))
    assert smallest_singular_value(W) == pytest.approx(math.sqrt(32), rel=1e-10)
    assert is_well_conditioned(W, 2)
    assert well_conditioning_threshold(32, 2) == pytest.approx(math.sqrt(32) / (2 * math.e**2))
    # A repeated point: rank 1, not well conditioned.
    W_bad = walsh_matrix(np.repeat(cube[:1], 40, axis=0), walsh_subsets(p, 2))
    assert not is_well_conditioned(W_bad, 2)
    assert smallest_singular_value(W[:10]) == 0.0  # fewer rows than columns
    # A random tall reduced space is well conditioned (m = 10 L).
    rng = np.random.default_rng(0)
    W_rand = walsh_matrix(rng.choice([-1.0, 1.0], size=(160, 5)), walsh_subsets(5, 2))
    assert is_well_conditioned(W_rand, 2)
    np.testing.assert_allclose(
        smallest_singular_value(W_rand), np.linalg.svd(W_rand, compute_uv=False).min(), rtol=1e-8
    )


def test_bad_input():
    with pytest.raises(ValueError, match="degree"):
        walsh_subsets(3, 4)
    with pytest.raises(ValueError, match="degree"):
        n_walsh_functions(3, -1)
    with pytest.raises(ValueError, match="Boolean"):
        fourier_coefficients(np.array([[0, 2]]), 1)
    with pytest.raises(ValueError, match="-1, \\+1"):
        walsh_matrix(np.array([[0.0, 1.0]]), walsh_subsets(2, 1))
    with pytest.raises(ValueError, match="same number of columns"):
        fourier_coefficients(iter([np.zeros((2, 3)), np.zeros((2, 4))]), 1)
    with pytest.raises(ValueError, match="at least one row"):
        fourier_coefficients(np.zeros((0, 3)), 1)
