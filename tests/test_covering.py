import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skprivsynth._math.covering import divide_and_merge, lattice_cells, spatial_order_key


def test_lattice_cells_is_nearest_point_partition():
    rng = np.random.default_rng(0)
    Z = rng.uniform(-1, 1, size=(500, 3))
    spacing = 0.3
    cell_of_row, points = lattice_cells(Z, spacing)
    centres = points[cell_of_row] * spacing
    # Every row is within the covering radius (half the cube diagonal) of its cell
    # point, and no other lattice point is closer (coordinate rounding is optimal).
    assert np.all(np.abs(Z - centres) <= spacing / 2 + 1e-12)
    for shift in np.eye(3, dtype=int):
        for sign in (1, -1):
            other = (points[cell_of_row] + sign * shift) * spacing
            assert np.all(((Z - centres) ** 2).sum(1) <= ((Z - other) ** 2).sum(1) + 1e-12)


def test_spatial_order_key_is_monotone_in_one_dimension():
    z = np.linspace(0, 1, 100)[:, None]
    key = spatial_order_key(z)
    assert np.all(np.diff(key) >= 0)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 300),
    k=st.integers(1, 40),
    n_cells=st.integers(1, 30),
    seed=st.integers(0, 2**16),
)
def test_divide_and_merge_group_sizes(n, k, n_cells, seed):
    rng = np.random.default_rng(seed)
    k = min(k, n)
    cells = rng.integers(0, n_cells, n)
    groups = divide_and_merge(cells, rng.random(n), k)
    sizes = np.bincount(groups)
    assert sizes.sum() == n
    assert sizes.min() >= k
    if n >= 2 * k:
        assert sizes.max() < 2 * k
    else:
        assert sizes.size == 1  # one group of all rows


def test_cells_larger_than_k_are_cut_inside_the_cell():
    cells = np.repeat([0, 1], [30, 30])
    groups = divide_and_merge(cells, np.arange(60.0), 10)
    # No group mixes the two cells: both cells divide exactly.
    for g in np.unique(groups):
        assert np.unique(cells[groups == g]).size == 1


def test_k_larger_than_n_is_refused():
    with pytest.raises(ValueError, match="k"):
        divide_and_merge(np.zeros(5, dtype=int), np.zeros(5), 6)


@pytest.mark.parametrize("scale", [1.0, 1e7])  # mixed-radix key, and row-sort fallback
def test_lattice_cells_points_and_labels_agree(scale):
    rng = np.random.default_rng(1)
    Z = rng.integers(-3, 4, size=(200, 3)) * scale
    cell_of_row, points = lattice_cells(Z, 1.0)
    np.testing.assert_array_equal(points[cell_of_row], np.rint(Z).astype(np.int64))
    assert np.unique(points, axis=0).shape == points.shape  # distinct cells
    assert np.all(np.diff(points[:, 0]) >= 0)  # lexicographic order


def test_spatial_order_key_interleaves_bits_coordinate_zero_first():
    # Two coordinates, 2 bits each: levels (a, b) -> key bits a1 b1 a0 b0.
    Z = np.array([[0, 0], [1, 0], [0, 1], [3, 3], [2, 1]], dtype=float)
    key = spatial_order_key(Z, bits=2)
    expected = []
    for a, b in Z.astype(int):
        expected.append(((a >> 1) & 1) << 3 | ((b >> 1) & 1) << 2 | (a & 1) << 1 | (b & 1))
    np.testing.assert_array_equal(key, expected)
