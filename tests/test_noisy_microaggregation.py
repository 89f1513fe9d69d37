"""NoisyMicroaggregation (Boedihardjo-Strohmer-Vershynin, Algorithm 4) and its lattice covering."""

import inspect
import itertools
import math

import numpy as np
import pytest

import skprivsynth.privacy as privacy
import skprivsynth.synthesizers.noisy_microaggregation as nm_module
from skprivsynth._math.lattice import (
    enumerate_lattice_ball,
    lattice_point_index,
    round_to_lattice,
)
from skprivsynth.privacy import PrivacyReport
from skprivsynth.synthesizers.noisy_microaggregation import (
    NoisyMicroaggregation,
    cell_statistics,
    noisy_microaggregation_parameters,
    rescale_rows_l1,
    vector_sensitivity_numerator,
)

# --------------------------------------------------------------------------- lattice


@pytest.mark.parametrize(
    "t,spacing,radius", [(1, 0.3, 1.2), (2, 0.25, 1.1), (3, 0.4, 1.3), (4, 0.7, 1.5)]
)
def test_lattice_enumeration_matches_brute_force(t, spacing, radius):
    points = enumerate_lattice_ball(t, spacing, radius)
    m = int(radius / spacing) + 1
    brute = np.array(list(itertools.product(range(-m, m + 1), repeat=t)))
    brute = brute[np.linalg.norm(brute * spacing, axis=1) <= radius]
    assert points.shape == brute.shape
    # Lexicographic order (itertools.product yields lexicographic order too).
    np.testing.assert_array_equal(points, brute)


@pytest.mark.parametrize("t", [1, 2, 3, 5])
def test_rounding_of_unit_ball_points_always_lands_in_the_covering(t):
    rng = np.random.default_rng(t)
    alpha = 0.35
    spacing = alpha / math.sqrt(t)
    points = enumerate_lattice_ball(t, spacing, 1.0 + alpha / 2.0)
    Z = rng.standard_normal((5000, t))
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    Z *= rng.random((5000, 1)) ** 0.2  # many points near the unit sphere
    Z[:10] /= np.linalg.norm(Z[:10], axis=1, keepdims=True)  # exactly norm 1
    coords = round_to_lattice(Z, spacing)
    idx = lattice_point_index(points, coords)
    np.testing.assert_array_equal(points[idx], coords)
    # α-covering: every point within α/2 of its cell's lattice point.
    assert np.max(np.linalg.norm(points[idx] * spacing - Z, axis=1)) <= alpha / 2 + 1e-12


def test_lattice_refuses_explosion_before_allocating():
    with pytest.raises(ValueError, match="reduce t, increase alpha"):
        enumerate_lattice_ball(12, 0.01, 1.0, max_points=10_000)


def test_lattice_index_rejects_unknown_points():
    points = enumerate_lattice_ball(2, 0.5, 1.0)
    with pytest.raises(ValueError, match="not a point of the enumerated lattice"):
        lattice_point_index(points, np.array([[0, 0], [5, 0]]))
    with pytest.raises(ValueError, match="not a point of the enumerated lattice"):
        lattice_point_index(points, np.array([[2, 1]]))  # inside the box, outside the ball


# ------------------------------------------------------------------ privacy: sensitivities


def _random_neighbours(rng, n, p):
    """Data in [0,1]^p and a neighbour with one row replaced by an extreme row."""
    X = rng.random((n, p))
    X[: n // 2] = np.round(X[: n // 2])  # half Boolean, half fractional rows
    X2 = X.copy()
    i = rng.integers(n)
    kind = rng.integers(3)
    X2[i] = (
        np.ones(p)
        if kind == 0
        else (np.zeros(p) if kind == 1 else (rng.random(p) < 0.5).astype(float))
    )
    return X, X2


def _random_basis(rng, p, t):
    return np.linalg.qr(rng.standard_normal((p, t)))[0]


def test_second_moment_sensitivity_is_at_most_one_over_n():
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(300):
        n, p = int(rng.integers(2, 40)), int(rng.integers(1, 12))
        X, X2 = _random_neighbours(rng, n, p)
        S = (X / np.sqrt(p)).T @ (X / np.sqrt(p)) / n
        S2 = (X2 / np.sqrt(p)).T @ (X2 / np.sqrt(p)) / n
        ratio = np.linalg.norm(S - S2, 2) * n
        worst = max(worst, ratio)
    assert worst <= 1.0 + 1e-12
    # The bound is tight: all-ones row replaced by all-zeros changes S by exactly 1/n.
    X = np.ones((5, 4))
    X2 = X.copy()
    X2[0] = 0.0
    diff = (X.T @ X - X2.T @ X2) / (4 * 5)
    assert np.linalg.norm(diff, 2) == pytest.approx(1.0 / 5)


@pytest.mark.parametrize("b", [1.0, 2.5, 7.0])
def test_weight_and_damped_mean_sensitivities(b):
    rng = np.random.default_rng(int(b * 10))
    worst_w, worst_y, moved = 0.0, 0.0, 0
    for _ in range(300):
        n, p, t = int(rng.integers(3, 30)), int(rng.integers(2, 10)), int(rng.integers(1, 3))
        t = min(t, p)
        X, X2 = _random_neighbours(rng, n, p)
        V = _random_basis(rng, p, t)  # fixed projection (the proof conditions on P)
        alpha = float(rng.choice([0.2, 0.5, 1.0]))
        points, counts, damped = cell_statistics(X, V, alpha, b)
        points2, counts2, damped2 = cell_statistics(X2, V, alpha, b)
        np.testing.assert_array_equal(points, points2)  # data-independent cells
        dw = np.abs(counts - counts2).sum() / n
        moved += dw > 0
        # 0/1 units, no declared bound (B = p): ||Δỹ||_1 <= 2·min(2p, p)/b = 2p/b
        # (= 2√p/b in the scaled units x/√p; the spec's 4√p/b is looser).
        dy = np.abs(damped - damped2).sum()
        worst_w = max(worst_w, dw * n / 2.0)
        worst_y = max(worst_y, dy / (2.0 * p / b))
    assert moved > 50  # many pairs really moved a row between cells
    assert worst_w <= 1.0 + 1e-12  # ||Δw||_1 <= 2/n
    assert worst_y <= 1.0 + 1e-12  # ||Δỹ||_1 <= 2p/b
    assert worst_y >= 0.8  # measured 0.87-0.89: the bound is nearly attained
    assert worst_w == pytest.approx(1.0)  # attained: the bound is not vacuous here


def _one_hot(codes, levels):
    """One-hot rows (0/1 units) of integer codes, ``levels[j]`` levels in column j."""
    offsets = np.concatenate([[0], np.cumsum(levels)[:-1]])
    X = np.zeros((codes.shape[0], int(np.sum(levels))))
    np.put_along_axis(X, codes + offsets, 1.0, axis=1)
    return X


@pytest.mark.parametrize("b", [1.0, 3.5, 12.0])
def test_damped_mean_sensitivity_with_row_l1_bound_on_one_hot_data(b):
    # Random worst-case neighbours of one-hot data (‖x‖₁ = m = B): rows concentrated
    # on two prototypes, the replaced row and its replacement on levels the
    # prototypes never use, so cell means and the moved rows have disjoint supports.
    rng = np.random.default_rng(int(10 * b))
    worst = 0.0
    for _ in range(300):
        m = int(rng.integers(1, 6))
        levels = rng.integers(2, 5, size=m)
        n, p = int(rng.integers(3, 40)), int(levels.sum())
        protos = np.stack([rng.integers(0, levels - 1) for _ in range(2)])
        codes = protos[rng.integers(0, 2, n)]
        codes[rng.random(codes.shape) < 0.1] = 0
        i = int(rng.integers(n))
        codes[i] = levels - 1  # a level no prototype uses
        codes2 = codes.copy()
        codes2[i] = rng.integers(0, levels)
        if rng.random() < 0.5:
            codes2[i] = levels - 1 - (levels > 2)
        X, X2 = _one_hot(codes, levels), _one_hot(codes2, levels)
        assert np.all(X.sum(axis=1) == m) and np.all(X2.sum(axis=1) == m)
        t = min(int(rng.integers(1, 3)), p)
        V = _random_basis(rng, p, t)
        alpha = float(rng.choice([0.05, 0.2, 0.5]))
        _, _, damped = cell_statistics(X, V, alpha, b)
        _, _, damped2 = cell_statistics(X2, V, alpha, b)
        bound = 2.0 * min(2.0 * m, p) / b
        assert bound == pytest.approx(2.0 * vector_sensitivity_numerator(p, m) / b)
        worst = max(worst, np.abs(damped - damped2).sum() / bound)
    assert worst <= 1.0 + 1e-12  # ||Δỹ||_1 <= 2·min(2B, p)/b, computed
    # The random pairs reach 0.50 / 0.60 / 0.71 of it for b = 1 / 3.5 / 12 (for b = 1
    # the exact supremum is 1/2: a cell of f >= 2 rows moves by at most 2B/f <= B).
    assert worst >= 0.45


@pytest.mark.parametrize("b", [10.0, 40.0])
def test_row_l1_bound_sensitivity_is_nearly_attained(b):
    # m = 6 one-hot columns (levels 4, 3, 3, 3, 3, 3: p = 19, B = 6, 2B <= p).  The
    # projection (e_0 + e_1)/√2 puts levels {0, 1} of column 0 in one cell and
    # {2, 3} in another.  Cell A: b copies of y_A plus x; cell B: b copies of y_B; x is
    # replaced by x' (joins cell B).  x ⟂ y_A and x' ⟂ y_B in support, so each cell
    # mean moves by 2B/(b+1): total 4B/(b+1) = b/(b+1) times the bound 4B/b.
    levels = np.array([4, 3, 3, 3, 3, 3])
    m, p, k = 6, 19, int(b)
    y_a, y_b, x, x2 = ([c] + [v] * 5 for c, v in ((1, 1), (3, 1), (0, 0), (2, 2)))
    codes = np.array([y_a] * k + [x] + [y_b] * k)
    codes2 = codes.copy()
    codes2[k] = x2
    X, X2 = _one_hot(codes, levels), _one_hot(codes2, levels)
    V = np.zeros((p, 1))
    V[[0, 1], 0] = 1 / math.sqrt(2)
    _, counts, damped = cell_statistics(X, V, 0.2, b)
    _, counts2, damped2 = cell_statistics(X2, V, 0.2, b)
    assert sorted(counts[counts > 0]) == [k, k + 1] and sorted(counts2[counts2 > 0]) == [k, k + 1]
    dy = np.abs(damped - damped2).sum()
    bound = 2.0 * min(2.0 * m, p) / b
    assert dy == pytest.approx(4.0 * m / (b + 1))
    assert b / (b + 1) - 1e-12 <= dy / bound <= 1.0


def test_noise_goes_through_privacy_module_with_the_derived_calibration(monkeypatch):
    calls = []
    real = privacy.laplace_mechanism

    def recording(values, sensitivity, epsilon, rng, noise="continuous"):
        calls.append((np.shape(values), sensitivity, epsilon, noise))
        return real(values, sensitivity, epsilon, rng, noise=noise)

    monkeypatch.setattr(privacy, "laplace_mechanism", recording)
    X = (np.random.default_rng(0).random((400, 7)) < 0.4).astype(float)
    est = NoisyMicroaggregation(epsilon=1.5, t=2, alpha=0.5, b=20, random_state=0).fit(X)
    n, p, s, eps = 400, 7, est.n_cells_, 1.5
    assert calls == [
        ((s,), 2.0 / n, eps / 3, "continuous"),
        ((s, p), 2.0 * p / 20, eps / 3, "continuous"),  # B = p: 2·min(2p, p)/b
    ]
    assert est.noise_scale_["weights"] == pytest.approx(6.0 / (n * eps))
    assert est.noise_scale_["means"] == pytest.approx(6.0 * p / (20 * eps))
    # Declared bound B = 2 on one-hot rows of 2 columns: 2·min(2B, p)/b = 2·4/20.
    calls.clear()
    X1 = np.eye(4)[np.random.default_rng(1).integers(0, 4, (400, 2))].reshape(400, 8)
    est = NoisyMicroaggregation(
        epsilon=eps, t=2, alpha=0.5, b=20, row_l1_bound=2, noise="discrete", random_state=0
    ).fit(X1)
    assert calls[1] == ((est.n_cells_, 8), 2.0 * 4 / 20, eps / 3, "discrete")
    assert est.sensitivity_["means"] == pytest.approx(0.4) and est.row_l1_bound_ == 2.0
    assert est.projection_beta_ == pytest.approx(eps / (6 * 2))
    # No ad-hoc Laplace sampling in the estimator module.
    source = inspect.getsource(nm_module)
    assert ".laplace(" not in source and "rng.laplace" not in source


def test_privacy_report_and_budget():
    X = (np.random.default_rng(1).random((300, 5)) < 0.5).astype(float)
    est = NoisyMicroaggregation(epsilon=0.9, random_state=0).fit(X)
    report = est.privacy_report_
    assert isinstance(report, PrivacyReport)
    assert est.epsilon_ == pytest.approx(0.9)
    assert report.epsilon == pytest.approx(est.epsilon_)
    assert [e["epsilon"] for e in report.entries] == pytest.approx([0.3, 0.3, 0.3])
    assert "replace-one" in report.neighbouring_relation
    text = str(report)
    for fragment in (
        "||S − S'|| <= 1/n",
        "2/n",
        "2·min(2B, p)/b",
        "6L/(bε)",
        "6/(nε)",
        "B = p, the cube's own bound",
    ):
        assert fragment in text
    X1 = np.eye(3)[np.random.default_rng(1).integers(0, 3, (300, 4))].reshape(300, 12)
    text = str(NoisyMicroaggregation(row_l1_bound=4, random_state=0).fit(X1).privacy_report_)
    assert "declared row_l1_bound; fit rescales any row above it" in text and "B = 4" in text


# -------------------------------------------------------------------------- behaviour


def test_release_invariants_and_sampling():
    rng = np.random.default_rng(2)
    X = rng.random((1000, 6))
    X[:500] = np.round(X[:500])
    est = NoisyMicroaggregation(epsilon=2.0, random_state=0).fit(X)
    assert est.weights_.shape == (est.n_cells_,)
    assert np.all(est.weights_ >= 0) and est.weights_.sum() == pytest.approx(1.0)
    assert est.records_.shape == (est.n_cells_, 6)
    assert est.records_.min() >= 0 and est.records_.max() <= 1
    spacing = est.alpha_ / math.sqrt(est.t_)
    norms = np.linalg.norm(est.lattice_points_ * spacing, axis=1)
    assert norms.max() <= 1 + est.alpha_ / 2 + 1e-9
    np.testing.assert_allclose(est.components_.T @ est.components_, np.eye(est.t_), atol=1e-10)
    Y = est.sample(250)
    assert Y.shape == (250, 6) and set(np.unique(Y)) <= {0.0, 1.0}


def test_without_noise_and_damping_the_weighted_means_preserve_the_mean():
    # ε huge and b = 1: the release is the plain microaggregation (law of total
    # expectation: Σ_j w_j y_j = mean of X).
    X = (np.random.default_rng(3).random((2000, 5)) < 0.3).astype(float)
    est = NoisyMicroaggregation(epsilon=1e9, t=2, alpha=0.3, b=1, random_state=0).fit(X)
    np.testing.assert_allclose(est.weights_ @ est.records_, X.mean(axis=0), atol=1e-5)


def test_error_decreases_with_epsilon_on_boolean_cube():
    from skprivsynth.metrics import marginal_error

    # Two clusters of Boolean rows (prototypes with 10 % bit flips): correlated bits.
    rng = np.random.default_rng(4)
    prototypes = np.array([[1] * 6 + [0] * 6, [0] * 6 + [1] * 6], dtype=float)
    X = prototypes[rng.integers(0, 2, 20_000)]
    X = np.abs(X - (rng.random(X.shape) < 0.1))
    # Not monotone at every step (e.g. ε = 10 is worse than ε = 4 here: more, smaller
    # cells are damped), hence well separated budgets.
    errors = []
    for eps in (0.1, 4.0, 100.0):
        e = [
            marginal_error(X, est.records_, degree=2, sample_weight_Y=est.weights_)
            for est in (NoisyMicroaggregation(epsilon=eps, random_state=s).fit(X) for s in range(3))
        ]
        errors.append(np.mean(e))
    assert all(a > b for a, b in itertools.pairwise(errors)), errors
    independent = marginal_error(X, X.mean(axis=0, keepdims=True), degree=2)
    assert errors[-1] < 0.2 * independent  # the correlation is learned


def test_seeded_runs_are_identical():
    X = (np.random.default_rng(5).random((800, 6)) < 0.4).astype(float)
    a = NoisyMicroaggregation(epsilon=1.0, random_state=7).fit(X)
    b = NoisyMicroaggregation(epsilon=1.0, random_state=7).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(a.records_, b.records_)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    np.testing.assert_array_equal(a.sample(100, random_state=3), b.sample(100, random_state=3))
    np.testing.assert_array_equal(a.sample(50), b.sample(50))
    c = NoisyMicroaggregation(epsilon=1.0, random_state=8).fit(X)
    assert not np.array_equal(a.records_, c.records_)


def test_discrete_noise_option():
    X = (np.random.default_rng(6).random((500, 4)) < 0.5).astype(float)
    est = NoisyMicroaggregation(epsilon=1.0, noise="discrete", random_state=0).fit(X)
    assert est.records_.min() >= 0 and est.records_.max() <= 1
    assert est.noise_scale_["means"] >= 6 * 4 / (est.b_ * 1.0)
    assert est.weights_.sum() == pytest.approx(1.0)


def test_auto_parameters_use_public_quantities_and_keep_cells_small():
    cases = [
        (100, 3, 0.1, None),
        (48842, 94, 1.0, None),
        (48842, 94, 100.0, None),
        (10**6, 20, 5.0, None),
        (48842, 94, 1.0, 14),
        (48842, 94, 4.0, 14),
        (48842, 94, 100.0, 14),
        (5000, 12, 2.0, 50.0),
    ]
    for n, p, eps, bound in cases:
        t, alpha, b = noisy_microaggregation_parameters(n, p, eps, row_l1_bound=bound)
        L = min(2 * min(bound or p, p), p)
        s = enumerate_lattice_ball(t, alpha / math.sqrt(t), 1 + alpha / 2).shape[0]
        assert 1 <= t <= p and alpha > 0 and 1 <= b <= n
        assert s <= max(3, min(n * eps / (480 * L) + 1, n ** (1 / 3)))  # s ≪ nε
        assert b == pytest.approx(max(1.0, min(n, 2 * n / s, 960 * L / eps)))
        # The undamped mean noise 6L/(bε) is 1/160 unless b is capped by n/s.
        assert 6 * L / (b * eps) >= 1 / 160 - 1e-12
    # A declared B allows more cells than the cube's bound at the same (n, p, ε).
    s_none = noisy_microaggregation_parameters(48842, 94, 4.0)
    s_b = noisy_microaggregation_parameters(48842, 94, 4.0, row_l1_bound=14)
    assert s_b[2] < s_none[2] and (s_b[0], -s_b[1]) > (s_none[0], -s_none[1])
    # Same public (n, p, ε, B) → same parameters, whatever the data.
    X1 = np.zeros((600, 5))
    X2 = np.ones((600, 5))
    for bound in (None, 5):
        e1 = NoisyMicroaggregation(epsilon=3.0, row_l1_bound=bound, random_state=0).fit(X1)
        e2 = NoisyMicroaggregation(epsilon=3.0, row_l1_bound=bound, random_state=0).fit(X2)
        assert (e1.t_, e1.alpha_, e1.b_, e1.n_cells_) == (e2.t_, e2.alpha_, e2.b_, e2.n_cells_)


def test_row_l1_bound_is_enforced_row_wise_without_error_or_warning():
    # A violation must not raise or warn (that event would depend on one row with
    # probability 1): violating rows are rescaled onto the bound, row by row.
    import warnings

    X = np.eye(3)[np.random.default_rng(0).integers(0, 3, (200, 4))].reshape(200, 12)
    assert rescale_rows_l1(X, 4) is X  # one-hot rows with ‖x‖₁ = 4 exactly: unchanged
    X[17] = np.r_[np.ones(6), np.zeros(6)]  # ‖x‖₁ = 6
    X[30] = np.r_[np.full(9, 0.5), np.zeros(3)]  # ‖x‖₁ = 4.5
    expected = X.copy()
    expected[17] *= 4 / 6
    expected[30] *= 4 / 4.5
    np.testing.assert_allclose(rescale_rows_l1(X, 4), expected, rtol=1e-13)
    # The exact (correctly rounded) l1 norm never exceeds B, even for awkward sums.
    R = np.random.default_rng(1).random((2000, 97)) ** 3
    for B in (4, 0.7, 1 / 3, 13.000000001):
        assert max(math.fsum(row) for row in rescale_rows_l1(R, B)) <= B
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", ".*seeds a differentially private fit")  # public
        est = NoisyMicroaggregation(row_l1_bound=4, random_state=0).fit(X)
    # The release is exactly that of the rescaled data (same seed).
    ref = NoisyMicroaggregation(row_l1_bound=4, random_state=0).fit(rescale_rows_l1(X, 4))
    np.testing.assert_array_equal(est.records_, ref.records_)
    np.testing.assert_array_equal(est.weights_, ref.weights_)
    assert not any("rescal" in name or "violat" in name for name in vars(est))


@pytest.mark.parametrize("b", [1.0, 2.5, 4.75])
def test_damped_mean_sensitivity_with_row_l1_bound_holds_for_violating_rows(b):
    # Worst-case neighbours whose rows violate the declared B (dense rows, up to all
    # ones): after the row-wise rescaling of fit the computed ‖Δỹ‖₁ still obeys
    # 2·min(2B, p)/b; non-integer b with cell sizes straddling b included.
    rng = np.random.default_rng(int(4 * b))
    worst, straddled = 0.0, 0
    for _ in range(300):
        n, p = int(rng.integers(3, 25)), int(rng.integers(4, 12))
        B = float(rng.choice([1.0, 1.5, p / 4]))
        X, X2 = _random_neighbours(rng, n, p)
        X, X2 = rescale_rows_l1(X, B), rescale_rows_l1(X2, B)
        assert max(math.fsum(row) for row in X) <= B
        t = min(int(rng.integers(1, 3)), p)
        V = _random_basis(rng, p, t)
        alpha = float(rng.choice([0.2, 0.5, 1.0]))
        _, counts, damped = cell_statistics(X, V, alpha, b)
        _, counts2, damped2 = cell_statistics(X2, V, alpha, b)
        straddled += np.any((np.minimum(counts, counts2) < b) & (np.maximum(counts, counts2) > b))
        bound = 2.0 * vector_sensitivity_numerator(p, B) / b
        worst = max(worst, np.abs(damped - damped2).sum() / bound)
    assert worst <= 1.0 + 1e-12
    assert worst >= 0.3  # not vacuous
    if b != int(b):
        assert straddled > 5


def test_damped_mean_sensitivity_when_cell_sizes_straddle_non_integer_b():
    # Cell of f rows with f − 1 < b < f losing x: m = f, m' = b, and
    # Δ = x/b − S·(f − b)/(f·b).  Check the closed form, the coordinate bound 1/b and
    # the l1 bound 2B/b, exhaustively over small 0/1 cells and fractional rows.
    rng = np.random.default_rng(11)
    p = 6
    V = np.zeros((p, 1))
    V[0, 0] = 1.0  # rows with x_0 = 1 (projection 1/√6) round to cell 1, x_0 = 0 to 0
    for b in (1.5, 2.25, 3.9, 6.01):
        f = math.ceil(b)
        assert f - 1 < b < f
        for _ in range(200):
            X = (rng.random((f, p)) < rng.random()).astype(float)
            X[:, 0] = 1.0
            if rng.random() < 0.5:
                X[:, 1:] = rng.random((f, p - 1))
            X2 = X.copy()
            X2[0] = 0.0  # x leaves the x_0 = 1 cell, enters the (otherwise empty) other cell
            _, counts, damped = cell_statistics(X, V, 0.5, b)
            _, counts2, damped2 = cell_statistics(X2, V, 0.5, b)
            cell = int(np.flatnonzero(counts == f)[0])
            S = X.sum(axis=0)
            closed = X[0] / b - S * (f - b) / (f * b)
            np.testing.assert_allclose(damped[cell] - damped2[cell], closed, atol=1e-12)
            assert np.abs(closed).max() <= 1 / b + 1e-12
            B = X.sum(axis=1).max()
            assert np.abs(damped - damped2).sum() <= 2 * min(2 * B, p) / b + 1e-12


def test_row_l1_bound_above_p_is_the_cube_bound():
    X = (np.random.default_rng(8).random((700, 6)) < 0.4).astype(float)
    a = NoisyMicroaggregation(epsilon=2.0, random_state=3).fit(X)
    for bound in (6, 7.5, 1e6):
        b = NoisyMicroaggregation(epsilon=2.0, row_l1_bound=bound, random_state=3).fit(X)
        assert b.row_l1_bound_ == 6.0 and b.sensitivity_ == a.sensitivity_
        np.testing.assert_array_equal(a.records_, b.records_)
        np.testing.assert_array_equal(a.weights_, b.weights_)
    # Between p/2 and p the bound changes nothing either (min(2B, p) = p).
    c = NoisyMicroaggregation(epsilon=2.0, row_l1_bound=3, random_state=3).fit(X * 0.5)
    d = NoisyMicroaggregation(epsilon=2.0, random_state=3).fit(X * 0.5)
    np.testing.assert_array_equal(c.records_, d.records_)


# ---------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "params,match",
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": float("inf")}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"t": 9}, "t must be at most n_features"),
        ({"t": 0}, "'t' parameter"),
        ({"b": 0.5}, "'b' parameter"),
        ({"alpha": 0.0}, "'alpha' parameter"),
        ({"alpha": float("inf")}, "'alpha' parameter"),
        ({"b": float("inf")}, "'b' parameter"),
        ({"noise": "gaussian"}, "'noise' parameter"),
        ({"t": 8, "alpha": 0.01}, "reduce t or increase alpha"),
        ({"row_l1_bound": 0}, "'row_l1_bound' parameter"),
        ({"row_l1_bound": -2.0}, "'row_l1_bound' parameter"),
        ({"row_l1_bound": "8"}, "'row_l1_bound' parameter"),
        ({"row_l1_bound": float("nan")}, "row_l1_bound"),
        ({"row_l1_bound": float("inf")}, "'row_l1_bound' parameter"),
    ],
)
def test_bad_parameters(params, match):
    X = (np.random.default_rng(0).random((50, 8)) < 0.5).astype(float)
    with pytest.raises(ValueError, match=match):
        NoisyMicroaggregation(**params).fit(X)


def test_not_fitted():
    from sklearn.exceptions import NotFittedError

    assert not hasattr(NoisyMicroaggregation(), "privacy_report_")
    with pytest.raises(NotFittedError):
        NoisyMicroaggregation().sample(3)


def test_bad_data():
    est = NoisyMicroaggregation()
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        est.fit(np.array([[0.0, 1.5], [1.0, 0.0]]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        est.fit(np.array([[0.0, -0.1], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="NaN"):
        est.fit(np.array([[0.0, np.nan], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="infinity|inf"):
        est.fit(np.array([[0.0, np.inf], [1.0, 0.0]]))


# --------------------------------------------------------------------------- utility


@pytest.mark.slow
def test_adult_utility_improves_with_epsilon_towards_microaggregation(adult):
    from skprivsynth import make_synthesis_pipeline
    from skprivsynth.metrics import categorical_marginal_tvd
    from skprivsynth.preprocessing import BooleanEncoder
    from skprivsynth.synthesizers.microaggregation import MicroaggregationSynthesizer

    data, domain = adult.data, adult.domain
    # Decoding weights of coarsened columns: exact level frequencies, the same for
    # every arm (a DP pipeline would release them with private_level_frequencies).
    levels = {c: np.bincount(data[c], minlength=k) / len(data) for c, k in domain.items()}

    def tvd2(synthesizer):
        pipe = make_synthesis_pipeline(
            BooleanEncoder(categories=domain, max_bins=8, level_weights=levels, random_state=0),
            synthesizer,
        )
        synthetic = pipe.fit(data).sample(len(data), random_state=0)
        return categorical_marginal_tvd(data, synthetic, degree=2, domain=domain)

    reference = tvd2(MicroaggregationSynthesizer(k=10, random_state=0))
    errors = [tvd2(NoisyMicroaggregation(epsilon=e, random_state=0)) for e in (0.1, 1.0, 10.0)]
    print(f"Adult tvd2: eps 0.1/1/10 -> {np.round(errors, 4)}, microaggregation {reference:.4f}")
    assert errors[0] > errors[1] > errors[2] > reference, (errors, reference)
    # ε = 10 closes most of the gap between ε = 0.1 and the non-private synthesizer.
    assert errors[2] - reference < 0.5 * (errors[0] - reference), (errors, reference)


@pytest.mark.slow
def test_adult_row_l1_bound_improves_decoded_two_way_marginals(adult):
    # One-hot rows of the 14 columns: ‖x‖₁ = 14 exactly, public from the encoding.
    # DP pipeline as in benchmarks/bench_adult.py: 10 % of ε for the decoding weights.
    from skprivsynth import make_synthesis_pipeline
    from skprivsynth.metrics import categorical_marginal_tvd
    from skprivsynth.preprocessing import BooleanEncoder, private_level_frequencies

    data, domain = adult.data, adult.domain
    eps = 1.0

    def tvd2(bound, seed):
        weights = private_level_frequencies(data, domain, 0.1 * eps, seed)
        pipe = make_synthesis_pipeline(
            BooleanEncoder(categories=domain, max_bins=8, level_weights=weights, random_state=seed),
            NoisyMicroaggregation(epsilon=0.9 * eps, row_l1_bound=bound, random_state=seed),
        )
        synthetic = pipe.fit(data).sample(len(data), random_state=seed)
        assert pipe[-1].row_l1_bound_ == (94.0 if bound is None else 14.0)
        return categorical_marginal_tvd(data, synthetic, degree=2, domain=domain)

    with_bound = np.mean([tvd2(14, seed) for seed in range(2)])
    without = np.mean([tvd2(None, seed) for seed in range(2)])
    print(f"Adult tvd2 at eps=1: row_l1_bound=14 {with_bound:.4f}, None {without:.4f}")
    assert with_bound < without - 0.01, (with_bound, without)


# ------------------------------------------------------------------------ sklearn checks


def test_rescale_rows_l1_decides_borderline_rows_exactly_and_accepts_integers():
    from fractions import Fraction

    # The float sum of this row rounds to exactly 1.0; its exact sum is 1 + 2**-53 > B.
    row = [0.5, 0.5 + 2.0**-53, 0.0]
    assert sum(row) == 1.0
    out = rescale_rows_l1(np.array([row, [1.0, 0.0, 0.0]]), 1)
    assert sum(Fraction(v) for v in out[0]) <= 1
    assert out[1].tolist() == [1.0, 0.0, 0.0]  # exactly on the bound: untouched
    # Integer 0/1 data (the package's usual input) is accepted.
    ints = np.array([[1, 1, 1], [1, 0, 0]])
    np.testing.assert_allclose(rescale_rows_l1(ints, 2)[0], [2 / 3] * 3, rtol=1e-12)
    for bad in (0, -1, np.inf, np.nan):
        with pytest.raises(ValueError, match="row_l1_bound"):
            rescale_rows_l1(ints, bad)
