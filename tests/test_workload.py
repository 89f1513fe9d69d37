import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from skprivsynth._math import workload as wl
from skprivsynth._math.workload import (
    FunctionWorkload,
    MarginalWorkload,
    check_workload,
)


def _cube(p):
    return np.array(list(itertools.product([0, 1], repeat=p)), dtype=float)


def _dense_reference(W, Z):
    """Query values from the definitions, one query at a time (no shared code)."""
    rows = [np.ones(len(Z))] if W.include_constant else []
    for J in W.column_sets_:
        XJ = Z[:, list(J)]
        if W.kind == "table":
            for v in itertools.product([0, 1], repeat=len(J)):
                rows.append(np.all(XJ == np.array(v), axis=1).astype(float))
        else:
            rows.append(np.all(XJ == 1, axis=1).astype(float))
    return np.array(rows)


@pytest.mark.parametrize("kind", ["table", "conjunction"])
@pytest.mark.parametrize("p,degree", [(3, 1), (3, 2), (3, 3), (4, 2), (5, 3)])
def test_query_matrix_matches_definition(kind, p, degree):
    W = MarginalWorkload(p, degree, kind=kind)
    Z = _cube(p)
    Q = W.query_matrix(Z, chunk_size=3)
    assert sp.issparse(Q) and Q.shape == (W.n_queries, 2**p)
    np.testing.assert_array_equal(Q.toarray(), _dense_reference(W, Z))
    if kind == "table":
        for _, rows in W.table_slices():  # every table is a partition of the records
            np.testing.assert_array_equal(Q[rows].sum(axis=0), 1)
        assert Q.nnz == W.max_nnz(2**p)


@pytest.mark.parametrize("kind", ["table", "conjunction"])
def test_answers_chunking_and_row_mask(kind):
    rng = np.random.default_rng(0)
    W = MarginalWorkload(6, 3, kind=kind)
    X = (rng.random((301, 6)) < rng.random(6)).astype(float)
    full = W.query_matrix(X)
    expected = np.asarray(full.mean(axis=1)).ravel()
    for chunk in (1, 7, 1000, None):
        np.testing.assert_allclose(W.answers(X, chunk_size=chunk), expected, atol=1e-14)
    keep = rng.random(W.n_queries) < 0.4
    np.testing.assert_array_equal(
        W.query_matrix(X, rows=keep, chunk_size=13).toarray(), full.toarray()[keep]
    )


@pytest.mark.parametrize("kind", ["table", "conjunction"])
@pytest.mark.parametrize("p,degree", [(3, 2), (4, 2), (4, 4), (5, 3)])
def test_sensitivity_equals_brute_force_over_all_record_pairs(kind, p, degree):
    """Δ_1 · n = max over all pairs (x, x') of ||F(x) - F(x')||_1 (replace-one)."""
    W = MarginalWorkload(p, degree, kind=kind)
    F = W.query_matrix(_cube(p)).toarray().T  # (2^p, n_queries)
    brute = np.abs(F[:, None, :] - F[None, :, :]).sum(axis=2).max()
    assert W.l1_sensitivity(1) == pytest.approx(brute, abs=0)
    per_table = 2 if kind == "table" else 1
    assert W.l1_sensitivity(10) == pytest.approx(per_table * W.n_tables / 10)


@pytest.mark.parametrize("kind", ["table", "conjunction"])
def test_sensitivity_bounds_random_neighbour_pairs(kind):
    rng = np.random.default_rng(1)
    p, n = 7, 25
    W = MarginalWorkload(p, 3, kind=kind)
    worst = 0.0
    for _ in range(200):
        X = (rng.random((n, p)) < rng.random(p)).astype(np.uint8)
        X2 = X.copy()
        i = rng.integers(n)
        X2[i] = rng.integers(0, 2, p) if rng.random() < 0.7 else 1 - X[i]
        worst = max(worst, np.abs(W.answers(X) - W.answers(X2)).sum())
        assert worst <= W.l1_sensitivity(n) + 1e-12
    assert worst == pytest.approx(W.l1_sensitivity(n))  # reached by x' = 1 - x


def test_custom_column_sets():
    W = MarginalWorkload(5, column_sets=[(3, 1), [0], (0, 2, 4)])
    assert W.column_sets_ == [(0,), (1, 3), (0, 2, 4)]
    assert W.n_tables == 3 and W.n_queries == 1 + 2 + 4 + 8
    F = W.query_matrix(_cube(5)).toarray().T
    brute = np.abs(F[:, None, :] - F[None, :, :]).sum(axis=2).max()
    assert W.l1_sensitivity(1) == brute == 6
    np.testing.assert_array_equal(F.T, _dense_reference(W, _cube(5)))


def test_function_workload():
    def f(Z):
        return np.column_stack([Z[:, 0] - Z[:, 1], 2 * Z[:, 2]])

    W = FunctionWorkload(f, bounds=([-1, 0], [1, 2]), n_features=3)
    assert W.l1_sensitivity(4) == pytest.approx((2 + 2) / 4)
    Z = _cube(3)
    Q = W.query_matrix(Z, chunk_size=3).toarray()
    np.testing.assert_array_equal(Q, np.vstack([np.ones(8), f(Z).T]))
    X = Z[[0, 3, 5, 7]]
    np.testing.assert_allclose(W.answers(X, chunk_size=1), [1.0, *f(X).mean(axis=0)])
    brute = np.abs(Q.T[:, None, :] - Q.T[None, :, :]).sum(axis=2).max()
    assert brute <= W.l1_sensitivity(1)
    lo, hi = W.query_bounds()
    np.testing.assert_array_equal(lo, [1, -1, 0])
    np.testing.assert_array_equal(hi, [1, 1, 2])


def test_function_workload_requires_and_enforces_bounds():
    with pytest.raises(ValueError, match="bounds"):
        FunctionWorkload(lambda Z: Z[:, :1], bounds=None, n_features=2)
    with pytest.raises(ValueError, match="bounds"):
        FunctionWorkload(lambda Z: Z[:, :1], bounds=(1, 0), n_features=2)
    W = FunctionWorkload(lambda Z: 3.0 * Z[:, :1], bounds=(0, 1), n_features=2)
    with pytest.raises(ValueError, match="declared bounds"):
        W.query_matrix(np.array([[1, 0]]))  # public records: the user's error, raised
    with pytest.raises(TypeError, match="bounds"):
        check_workload(lambda Z: Z, 3, 2)


def test_function_workload_clips_private_rows_to_the_declared_bounds():
    # On the data a raise would be a data-dependent event: the values are clipped
    # to the declared bounds (NaN to lower), so the declared sensitivity still holds.
    def func(Z):
        out = 2.0 * Z[:, :1]  # in [0, 2], declared [0, 1]
        out[Z[:, 1] == 1] = np.nan
        return out

    W = FunctionWorkload(func, bounds=(0, 1), n_features=2)
    X = np.array([[1, 0], [0, 0], [1, 1], [1, 0]])
    np.testing.assert_allclose(W.answers(X), [1.0, (1 + 0 + 0 + 1) / 4])
    assert W.l1_sensitivity(n=4) == 0.25


def test_fit_does_not_mutate_a_function_workload():
    from skprivsynth import ReducedSpaceLP

    W = FunctionWorkload(lambda Z: Z[:, :2] - Z[:, 2:], bounds=(-1, 1), n_features=4)
    before = dict(vars(W))
    X = np.random.default_rng(0).integers(0, 2, (300, 4))
    est = ReducedSpaceLP(epsilon=1.0, m=64, workload=W, random_state=0).fit(X)
    assert vars(W).keys() == before.keys()
    assert all(vars(W)[k] is v for k, v in before.items())  # not even sized lazily
    assert W.n_queries is None and est.workload_.n_queries == 3


def test_never_dense_over_the_cube():
    W = MarginalWorkload(300, 2)
    Z = np.random.default_rng(0).integers(0, 2, (40, 300))
    Q = W.query_matrix(Z)
    assert Q.shape == (1 + 2 * 300 + 4 * (300 * 299 // 2), 40)
    assert Q.nnz == 40 * (W.n_tables + 1)


def test_bad_input():
    with pytest.raises(ValueError, match="degree"):
        MarginalWorkload(3, 4)
    with pytest.raises(ValueError, match="degree"):
        MarginalWorkload(3, 0)
    with pytest.raises(ValueError, match="kind"):
        MarginalWorkload(3, 1, kind="cells")
    with pytest.raises(ValueError, match="degree"):  # refused before enumerating
        MarginalWorkload(1000, 4)
    with pytest.raises(ValueError, match="column_sets"):
        MarginalWorkload(3, column_sets=[(0, 3)])
    with pytest.raises(ValueError, match="column_sets"):
        MarginalWorkload(3, column_sets=[(1, 1)])
    with pytest.raises(ValueError, match="twice"):
        MarginalWorkload(3, column_sets=[(0, 1), (1, 0)])
    W = MarginalWorkload(3, 2)
    with pytest.raises(ValueError, match="3 columns"):
        W.query_matrix(np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"\{0, 1\}"):
        W.query_matrix(np.full((2, 3), 0.5))
    with pytest.raises(ValueError, match="chunk_size"):
        W.answers(np.zeros((2, 3)), chunk_size=0)
    with pytest.raises(ValueError, match="n_features"):
        check_workload(MarginalWorkload(4, 1), 3, 1)
    assert wl.MAX_WORKLOAD_QUERIES >= 10**6


def test_check_workload_forms():
    assert check_workload(None, 4, 2).n_queries == 1 + 4 * 2 + 6 * 4
    assert check_workload("conjunctions", 4, 2).n_queries == 1 + 4 + 6
    assert check_workload([(0, 1)], 4, 2).n_queries == 5
    with pytest.raises(ValueError, match="workload"):
        check_workload("cells", 4, 2)


# ---------------------------------------------------------------- block tables
def _one_hot_rows(n, sizes, rng):
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    Z = np.zeros((n, sum(sizes)))
    for a, k in zip(starts, sizes, strict=True):
        Z[np.arange(n), a + rng.integers(0, k, n)] = 1
    return Z


def test_block_tables_are_categorical_tables():
    sizes = [2, 3, 2, 1]
    W = wl.BlockMarginalWorkload([(0, 2), (2, 5), (5, 7), (7, 8)], n_features=8, degree=2)
    assert W.n_block_tables == 4 + 6
    assert W.n_queries == 1 + sum(sizes) + sum(a * b for a, b in itertools.combinations(sizes, 2))
    Z = _one_hot_rows(500, sizes, np.random.default_rng(0))
    ans = W.answers(Z)
    assert ans[0] == 1.0
    # Every categorical table sums to 1 on one-hot data (each row in exactly one cell).
    blocks = [range(0, 2), range(2, 5), range(5, 7), range(7, 8)]
    for combo in itertools.chain(
        itertools.combinations(blocks, 1), itertools.combinations(blocks, 2)
    ):
        cells = {tuple(c) for c in itertools.product(*combo)}
        idx = [1 + i for i, J in enumerate(W.column_sets_) if J in cells]
        assert len(idx) == len(cells) and ans[idx].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(W.query_matrix(Z).toarray(), _dense_reference(W, Z))


def test_block_tables_sensitivity_brute_force():
    sizes, n = [3, 2, 4], 40
    W = wl.BlockMarginalWorkload([slice(0, 3), slice(3, 5), slice(5, 9)], 9, degree=3)
    assert W.n_block_tables == 7
    bound = W.l1_sensitivity(n)
    assert bound == pytest.approx(2 * 7 / n)
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(200):
        X = _one_hot_rows(n, sizes, rng)
        Y = X.copy()
        Y[rng.integers(n)] = _one_hot_rows(1, sizes, rng)[0]
        worst = max(worst, np.abs(W.answers(X) - W.answers(Y)).sum())
    assert worst <= bound + 1e-12
    assert worst == pytest.approx(bound)  # a row changing every block attains it


def test_block_tables_project_rows_and_bound_holds_on_the_whole_cube():
    """Queries read rows through project_one_hot; the bound holds for every pair of
    records of the cube (exact with blocks of >= 2 columns, an upper bound otherwise)."""
    blocks = [(0, 2), (2, 5), (5, 7)]
    cube = _cube(7)
    W = wl.BlockMarginalWorkload(blocks, 7, degree=2)
    proj = wl.project_one_hot(cube.astype(np.uint8), blocks)
    np.testing.assert_array_equal(
        W.query_matrix(cube).toarray(), _dense_reference(W, proj.astype(float))
    )
    assert np.add.reduceat(proj, [0, 2, 5], axis=1).max() <= 1
    keep = np.add.reduceat(cube, [0, 2, 5], axis=1) <= 1  # blocks with <= 1 bit unchanged
    np.testing.assert_array_equal(
        proj[np.repeat(keep, [2, 3, 2], axis=1)], cube[np.repeat(keep, [2, 3, 2], axis=1)]
    )
    F = W.query_matrix(cube).toarray().T
    brute = np.abs(F[:, None, :] - F[None, :, :]).sum(axis=2).max()
    assert brute == W.l1_sensitivity(1) == 2 * W.n_block_tables
    # A 1-column block: still an upper bound.
    W1 = wl.BlockMarginalWorkload([(0, 1), (1, 3), (3, 5)], 5, degree=3)
    F = W1.query_matrix(_cube(5)).toarray().T
    assert np.abs(F[:, None, :] - F[None, :, :]).sum(axis=2).max() <= W1.l1_sensitivity(1)
    # A block wider than 255 columns: counted without uint8 wrap-around.
    Z = np.zeros((1, 300), dtype=np.uint8)
    Z[0, :256] = 1
    assert wl.project_one_hot(Z, [(0, 300)]).sum() == 0


def test_block_tables_bad_input():
    with pytest.raises(ValueError, match="degree=3 .* feature_blocks"):
        wl.BlockMarginalWorkload([(0, 2), (2, 4)], 4, degree=3)
    with pytest.raises(ValueError, match="feature_blocks"):
        wl.BlockMarginalWorkload([(0, 2), (3, 4)], 4)
    with pytest.raises(ValueError, match="MAX_WORKLOAD_QUERIES.*lower degree"):
        wl.BlockMarginalWorkload([(10 * i, 10 * i + 10) for i in range(40)], 400, degree=5)
    assert wl.check_feature_blocks(None, 3) is None
    assert wl.check_feature_blocks([slice(2, 3), (0, 2)], 3) == [(0, 2), (2, 3)]


# ------------------------------------------------------------ one workload type
def test_public_module_reexports_the_workload_types():
    import skprivsynth.workload as public

    assert public.MarginalWorkload is MarginalWorkload
    assert public.FunctionWorkload is FunctionWorkload
    assert set(public.__all__) >= {
        "MarginalWorkload",
        "BlockMarginalWorkload",
        "FunctionWorkload",
        "project_one_hot",
    }


def test_one_workload_object_serves_both_estimators():
    from skprivsynth import CorrelatedGaussianMechanism, ReducedSpaceLP

    rng = np.random.default_rng(0)
    X = (rng.random((200, 4)) < 0.4).astype(float)
    W = MarginalWorkload(4, degree=2, kind="conjunction")
    lp = ReducedSpaceLP(epsilon=1.0, m=64, workload=W, random_state=0).fit(X)
    cgm = CorrelatedGaussianMechanism(1.0, workload=W, random_state=0).fit(X)
    assert lp.workload_ is W and cgm.workload_ is W
    # The Gaussian mechanism answers in counts what the workload gives as fractions.
    np.testing.assert_allclose(cgm.workload_answers(X), len(X) * W.answers(X))


@pytest.mark.parametrize("spelling", [None, "tables", "conjunctions", [(0, 1), (2,)]])
def test_string_and_list_spellings_mean_the_same_queries_in_both(spelling):
    from skprivsynth import CorrelatedGaussianMechanism, ReducedSpaceLP

    rng = np.random.default_rng(1)
    X = (rng.random((100, 3)) < 0.5).astype(float)
    lp = ReducedSpaceLP(epsilon=1.0, m=32, degree=2, workload=spelling, random_state=0).fit(X)
    cgm = CorrelatedGaussianMechanism(1.0, degree=2, workload=spelling, random_state=0).fit(X)
    # Same queries; the LP's workload has the constant function first.
    assert lp.workload_.column_sets_ == cgm.workload_.column_sets_
    assert lp.workload_.kind == cgm.workload_.kind
    np.testing.assert_allclose(cgm.workload_answers(X), len(X) * lp.workload_.answers(X)[1:])


def test_function_workload_in_the_gaussian_mechanism_is_not_mutated():
    from skprivsynth import CorrelatedGaussianMechanism

    rng = np.random.default_rng(2)
    X = (rng.random((150, 3)) < 0.5).astype(float)
    W = FunctionWorkload(lambda Z: Z[:, :2].sum(axis=1), bounds=(0, 2), n_features=3)
    est = CorrelatedGaussianMechanism(1.0, workload=W, random_state=0).fit(X)
    assert W.n_queries is None  # the hyperparameter is untouched
    np.testing.assert_allclose(est.workload_answers(X), len(X) * est.workload_.answers(X))


def test_block_workload_in_the_gaussian_mechanism_reads_rows_through_the_projection():
    from skprivsynth import CorrelatedGaussianMechanism

    W = wl.BlockMarginalWorkload([slice(0, 2), slice(2, 4)], n_features=4, degree=2)
    X = np.array([[1, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 1]], dtype=float)  # row 0: 2 bits
    est = CorrelatedGaussianMechanism(1.0, workload=W, random_state=0).fit(X)
    np.testing.assert_allclose(est.workload_answers(X), len(X) * W.answers(X))


@pytest.mark.parametrize("p", [1, 9, 64, 65, 130])
def test_row_keys_equal_exactly_for_equal_rows(p):
    from skprivsynth._math.row_keys import row_keys

    rng = np.random.default_rng(p)
    Z = (rng.random((400, p)) < 0.05).astype(np.uint8)
    keys = row_keys(Z)
    _, inverse_rows = np.unique(Z, axis=0, return_inverse=True)
    _, inverse_keys = np.unique(keys, return_inverse=True)
    # Same partition of the rows into classes of equal rows / equal keys.
    pairs = set(zip(inverse_rows.ravel().tolist(), inverse_keys.ravel().tolist(), strict=True))
    assert len(pairs) == len(set(inverse_rows.ravel().tolist())) == len(set(inverse_keys.tolist()))
