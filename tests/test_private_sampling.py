import math
import warnings

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.stats import chisquare
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import skprivsynth.synthesizers.private_sampling as ps
from skprivsynth._math.solvers import QPResult
from skprivsynth._math.walsh import boolean_to_signs, walsh_matrix, walsh_subsets
from skprivsynth.auditing import cube_corner_neighbours
from skprivsynth.chunks import Chunks, reduce_chunks
from skprivsynth.exceptions import SolverError
from skprivsynth.privacy import PrivacyReport
from skprivsynth.synthesizers.private_sampling import (
    PrivateSampler,
    epsilon_for_samples,
    max_samples_bound,
)


def _correlated(n, p, seed):
    rng = np.random.default_rng(seed)
    z = rng.random((n, 1))
    return (rng.random((n, p)) < 0.15 + 0.7 * z).astype(float)


@pytest.fixture(scope="module")
def fitted():
    X = _correlated(3000, 6, seed=0)
    return X, PrivateSampler(m=150, density_bounds=(0.25, 3.0), random_state=0).fit(X)


def _walsh(est):
    subsets = walsh_subsets(est.n_features_in_, est.degree)
    return walsh_matrix(boolean_to_signs(est.records_), subsets)


def test_density_solves_the_shrunk_system_inside_the_box(fitted):
    X, est = fitted
    W = _walsh(est)
    lam, c = est.shrinkage_, est.fourier_coefficients_
    target = (1 - lam) * c + lam * W.mean(axis=0)  # W_S^T u with u = 1/m
    np.testing.assert_allclose(W.T @ est.weights_, target, atol=1e-7)
    assert est.constraint_residual_ <= 1e-7
    delta, Delta = est.density_bounds
    m = est.m
    assert est.weights_.min() >= delta / m - 1e-15
    assert est.weights_.max() <= Delta / m + 1e-15
    assert est.weights_.sum() == pytest.approx(1.0, abs=1e-9)
    assert est.solver_status_ == {"lp": "Optimal", "qp": "solved"}
    # correlated data is far from uniform on a random S: some shrinkage is needed,
    # and it is minimal: lambda* - 0.01 is infeasible in the LP box (independent solver).
    assert 0.02 < lam < 1

    def feasible(lam_try):
        b = (1 - lam_try) * c + lam_try * W.mean(axis=0)
        res = linprog(
            np.zeros(m),
            A_eq=W.T,
            b_eq=b,
            bounds=[(2 * delta / m, (Delta - delta) / m)] * m,
            method="highs",
        )
        return res.status == 0

    # (checked in the Walsh basis, independently of the conjunction-basis LP of fit)
    assert feasible(lam + 1e-4) and not feasible(lam - 1e-4)

    # Optimality certificate of the proximal QP (independent of OSQP's duals): h* is the
    # projection of u iff g = m h* = clip(1 - W nu, delta, Delta) for some nu.
    g = m * est.weights_
    free = (g > delta + 1e-6) & (g < Delta - 1e-6)
    nu = np.linalg.lstsq(W[free], 1.0 - g[free], rcond=None)[0]
    np.testing.assert_allclose(np.clip(1.0 - W @ nu, delta, Delta), g, atol=1e-6)
    assert est.sigma_min_ >= est.well_conditioning_threshold_
    np.testing.assert_allclose(c, walsh_matrix(boolean_to_signs(X), _walsh_subsets(est)).mean(0))


def _walsh_subsets(est):
    return walsh_subsets(est.n_features_in_, est.degree)


def test_no_shrinkage_when_data_coefficients_are_reachable():
    p, m = 6, 120
    probe = PrivateSampler(m=m, random_state=3).fit(_correlated(500, p, seed=1))
    S = probe.records_
    # Data = the reduced space itself, each point repeated 9-11 times: its empirical
    # density on S is within [0.9, 1.1] / m of uniform, inside the LP box.
    reps = np.random.default_rng(0).integers(9, 12, size=m)
    X = np.repeat(S, reps, axis=0)
    est = PrivateSampler(m=m, random_state=3).fit(X)
    np.testing.assert_array_equal(est.records_, S)  # same seed -> same S
    assert est.shrinkage_ <= 1e-7
    W = _walsh(est)
    np.testing.assert_allclose(W.T @ est.weights_, est.fourier_coefficients_, atol=1e-7)
    # and the data's own 2-way marginals are reproduced exactly by h*
    for a, b in [(0, 1), (2, 5)]:
        for va in (0, 1):
            for vb in (0, 1):
                mask = (S[:, a] == va) & (S[:, b] == vb)
                data = np.mean((X[:, a] == va) & (X[:, b] == vb))
                assert est.weights_[mask].sum() == pytest.approx(data, abs=1e-7)


def test_reduced_space_does_not_depend_on_the_data():
    X1 = _correlated(400, 7, seed=10)
    X2 = 1.0 - _correlated(900, 7, seed=11)
    a = PrivateSampler(m=100, random_state=42).fit(X1)
    b = PrivateSampler(m=100, random_state=42).fit(X2)
    np.testing.assert_array_equal(a.records_, b.records_)
    assert a.n_tries_ == b.n_tries_ and a.sigma_min_ == b.sigma_min_
    assert not np.allclose(a.weights_, b.weights_)
    c = PrivateSampler(m=100, random_state=43).fit(X1)
    assert not np.array_equal(a.records_, c.records_)


def test_released_sample_follows_the_density():
    X = _correlated(2000, 5, seed=4)
    k = 20_000
    est = PrivateSampler(epsilon=None, n_samples=k, m=60, random_state=0).fit(X)
    Y = est.sample()
    assert Y.shape == (k, 5) and set(np.unique(Y)) <= {0.0, 1.0}
    # Group identical points of S (duplicates share a cell) and compare counts.
    weights = 2 ** np.arange(5)
    s_code = est.records_ @ weights
    y_code = Y @ weights
    cells = np.unique(s_code)
    expected = np.array([est.weights_[s_code == v].sum() for v in cells]) * k
    observed = np.array([(y_code == v).sum() for v in cells])
    assert observed.sum() == k  # every record is a point of S
    assert chisquare(observed, expected).pvalue > 1e-3
    assert est.samples_released_ == k and est.epsilon_ == pytest.approx(est.epsilon_budget_)


def test_k_bound_formula_by_hand():
    # n = 1e8, m = 1000, p = 10 (L = 56), d = 2, (delta, Delta) = (0.5, 1.5), eps = 1:
    # (1/(4 sqrt 2)) * (1/3)^(3/2) * e^-1 * 56^(-1/4) * 1e4 / 1000^(3/4)
    hand = 0.17677670 * 0.19245009 * 0.36787944 * 0.36555522 * 10_000 / 177.827941
    got = max_samples_bound(1.0, n=10**8, m=1000, p=10, degree=2, density_bounds=(0.5, 1.5))
    assert got == pytest.approx(hand, rel=1e-6)
    assert max_samples_bound(
        3.0, n=10**8, m=1000, p=10, degree=2, density_bounds=(0.5, 1.5)
    ) == pytest.approx(3 * hand)
    eps = epsilon_for_samples(7, n=10**8, m=1000, p=10, degree=2, density_bounds=(0.5, 1.5))
    assert eps == pytest.approx(7 / hand, rel=1e-6)


@pytest.mark.parametrize(
    "name, p, n, fmax, paper",
    [
        ("Asia", 8, 20_000, 2.9e-1, 7.3e-4),
        ("Car", 25, 1_727, 5.8e-4, 2.9e-8),
        ("Adult", 62, 32_561, 1.8e-2, 9.5e-27),
    ],
)
def test_k_bound_matches_seed_002_table_2(name, p, n, fmax, paper):
    # Seed 002 Table 2: eps = 1, d = 2, delta = 1/4, Delta = 2^p ||f_n||_inf; it reports
    # k * m^(3/4).  The paper approximates L = C(p, <=2) by p(p+1)/2 (+2.8% for p = 8).
    Delta = 2.0**p * fmax
    m = 1000
    k = max_samples_bound(1.0, n=n, m=m, p=p, degree=2, density_bounds=(0.25, Delta))
    L = 1 + p + p * (p - 1) // 2
    approx_factor = (L / (p * (p + 1) / 2)) ** 0.25
    assert k * m**0.75 * approx_factor == pytest.approx(paper, rel=0.04)


def test_budget_accounting_and_refusal():
    X = _correlated(1500, 5, seed=5)
    est = PrivateSampler(epsilon=None, n_samples=10, m=60, random_state=1).fit(X)
    assert est.max_samples_ == 10 and est.epsilon_ == 0.0
    per = est.epsilon_per_sample_
    assert per == pytest.approx(
        epsilon_for_samples(1, n=1500, m=60, p=5, degree=2, density_bounds=(0.25, 2.0))
    )
    est.sample(6)
    assert est.samples_released_ == 6 and est.epsilon_ == pytest.approx(6 * per)
    with pytest.raises(ValueError, match="n_samples=5 exceeds the privacy budget"):
        est.sample(5)
    assert est.samples_released_ == 6  # a refused call spends nothing
    est.sample(4, random_state=0)
    assert est.epsilon_spent_ == pytest.approx(est.epsilon_budget_)
    with pytest.raises(ValueError, match="0 left"):
        est.sample(1)
    report = est.privacy_report_
    assert isinstance(report, PrivacyReport)
    assert report.epsilon == pytest.approx(est.epsilon_)
    assert "replace-one" in str(report)


def test_budget_is_zero_on_real_data_and_sample_says_what_is_needed(adult_boolean):
    X = np.asarray(adult_boolean)[:, :20]
    est = PrivateSampler(epsilon=1.0, m=400, random_state=0).fit(X)
    bound = max_samples_bound(1.0, n=X.shape[0], m=400, p=20, degree=2, density_bounds=(0.25, 2.0))
    assert est.samples_bound_ == pytest.approx(bound) and bound < 1
    assert est.max_samples_ == math.floor(bound) == 0
    with pytest.raises(ValueError, match="max_samples_=0") as info:
        est.sample()
    needed = epsilon_for_samples(1, n=X.shape[0], m=400, p=20, degree=2, density_bounds=(0.25, 2.0))
    assert f"epsilon >= {needed:.4g}" in str(info.value)
    assert est.samples_released_ == 0 and est.epsilon_ == 0.0


def test_epsilon_budget_floor():
    X = _correlated(1000, 4, seed=6)
    eps = 2.5 * epsilon_for_samples(1, n=1000, m=40, p=4, degree=2, density_bounds=(0.25, 2.0))
    est = PrivateSampler(epsilon=eps, m=40, random_state=0).fit(X)
    assert est.max_samples_ == 2  # floor(2.5), never rounded up
    assert est.sample().shape == (2, 4)  # default: what is left
    with pytest.raises(ValueError, match="n_samples"):
        est.sample(1)


def test_diagnostics_numbers(fitted):
    X, est = fitted
    diag = est.diagnostics(gamma=0.1, n_samples=50)
    L = est.n_walsh_functions_
    assert diag["n"]["required"] == pytest.approx(16 / (0.25**2 * 0.1) * math.e**4 * L)
    assert diag["m_lower"]["required"] == pytest.approx(16 / (0.25**2 * 0.1) * 9.0 * math.e**4 * L)
    assert diag["m_upper"]["required"] == pytest.approx(2 ** (6 / 4))
    assert diag["k"]["required"] == pytest.approx(4 / 0.25**2 * (math.log(20) + math.log(L)))
    assert not diag["n"]["holds"] and not diag["m_upper"]["holds"]
    assert not diag["all_accuracy_preconditions"]
    assert diag["well_conditioned"]["holds"]
    _, counts = np.unique(X, axis=0, return_counts=True)
    assert diag["density"]["value"] == pytest.approx(counts.max() / X.shape[0])
    assert diag["privacy"]["holds"] is (50 <= est.max_samples_)


@pytest.mark.parametrize(
    "bounds", [(0.6, 2.0), (0.25, 1.2), (0.3, 0.2), (0.0, 2.0), ("a", 2.0), (0.25,)]
)
def test_bad_density_bounds(bounds):
    with pytest.raises(ValueError, match="density_bounds"):
        PrivateSampler(density_bounds=bounds, m=50).fit(_correlated(50, 4, seed=0))


def test_bad_input():
    X = _correlated(100, 4, seed=0)
    with pytest.raises(ValueError, match="m=5 is smaller than .* L=11"):
        PrivateSampler(m=5).fit(X)
    with pytest.raises(ValueError, match="degree=5"):
        PrivateSampler(m=50, degree=5).fit(X)
    with pytest.raises(ValueError, match="Boolean"):
        PrivateSampler(m=50).fit(X * 0.5)
    with pytest.raises(ValueError, match="epsilon"):
        PrivateSampler(epsilon=0.0, m=50).fit(X)
    with pytest.raises(ValueError, match="epsilon"):
        PrivateSampler(epsilon=-1.0, m=50).fit(X)
    with pytest.raises(ValueError, match="epsilon=None needs n_samples"):
        PrivateSampler(epsilon=None, m=50).fit(X)
    with pytest.raises(ValueError, match="m=200000 with degree=2"):
        PrivateSampler(m=200_000).fit(_correlated(20, 40, seed=0))
    # m = L: a square random Walsh matrix is (almost surely) far from well conditioned
    with pytest.raises(ValueError, match="max_tries=2"):
        PrivateSampler(m=11, max_tries=2, random_state=0).fit(X)
    with pytest.raises(NotFittedError):
        PrivateSampler().sample(1)


def _fit_quietly(est, X):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    return est, [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]


def test_inaccurate_density_falls_back_to_uniform(monkeypatch):
    def garbage_qp(P, q, A, lower, upper, **kwargs):
        m = P.shape[0]
        return QPResult(
            x=np.full(m, 1.3),
            y=np.zeros(A.shape[0]),
            objective=0.0,
            status="solved",
            primal_residual=0.0,
            dual_residual=0.0,
            iterations=1,
            polished=False,
            solve_time=0.0,
        )

    monkeypatch.setattr(ps, "solve_qp", garbage_qp)
    est, messages = _fit_quietly(PrivateSampler(m=60, random_state=0), _correlated(300, 4, 0))
    assert messages == [ps._FALLBACK_WARNING]
    assert est.solver_fallback_ and est.shrinkage_ == 1.0
    np.testing.assert_array_equal(est.weights_, np.full(60, 1 / 60))
    assert est.solver_status_ == {"lp": "fallback", "qp": "fallback"}


def test_unpolished_qp_is_resolved_with_tight_tolerance(monkeypatch):
    calls = []
    real = ps.solve_qp

    def first_unpolished(*args, **kwargs):
        result = real(*args, **kwargs)
        calls.append(kwargs["eps"])
        if len(calls) == 1:
            result.polished = False
        return result

    monkeypatch.setattr(ps, "solve_qp", first_unpolished)
    est = PrivateSampler(m=60, random_state=0).fit(_correlated(300, 4, seed=0))
    assert calls == [1e-6, 1e-9]
    assert est.constraint_residual_ <= 1e-7


def test_pipeline_on_adult_columns(adult):
    from skprivsynth.pipeline import make_synthesis_pipeline
    from skprivsynth.preprocessing import BooleanEncoder

    cols = list(adult.domain)[:5]
    pipe = make_synthesis_pipeline(
        BooleanEncoder(categories={c: adult.domain[c] for c in cols}, max_bins=3),
        PrivateSampler(epsilon=None, n_samples=5, m=200, random_state=0),
    ).fit(adult.data[cols])
    out = pipe.sample(3)
    assert list(out.columns) == cols and out.shape == (3, 5)
    for c in cols:
        assert out[c].between(0, adult.domain[c] - 1).all()
    with pytest.raises(ValueError, match="2 left"):
        pipe.sample(3)  # the budget is enforced through the pipeline too
    assert pipe[-1].samples_released_ == 3


@pytest.mark.parametrize("p", [3, 64, 70])
def test_max_row_frequency(p):
    rng = np.random.default_rng(p)
    X = (rng.random((3000, p)) < 0.03).astype(float)
    _, counts = np.unique(X, axis=0, return_counts=True)
    # The distinct rows are counted chunk by chunk and merged by key (8-byte keys up to
    # 64 columns, byte strings beyond).
    chunks = Chunks.from_array(X, 500)
    _, (_, merged) = reduce_chunks(chunks, ps._SamplerStatistics(1), ps._merge_sampler_statistics)
    assert merged.sum() == 3000
    assert merged.max() / 3000 == counts.max() / 3000
    assert (
        PrivateSampler(epsilon=None, n_samples=1, m=200, degree=1, random_state=0)
        .fit(chunks)
        .max_row_frequency_
        == counts.max() / 3000
    )


def _fail_on(monkeypatch, failing, X_bad):
    """Make ``ps.<failing>`` raise SolverError exactly when fitting data with X_bad's
    Fourier coefficients (a failure that depends on the private data)."""
    real, real_sums = getattr(ps, failing), ps.fourier_sums
    bad = real_sums(X_bad, 1)
    seen = []

    def recording(X, d):
        seen.append(real_sums(X, d))
        return seen[-1]

    def failing_on_bad(*args, **kwargs):
        if np.array_equal(seen[-1][: bad.size], bad):
            raise SolverError("status 'maximum iterations' (primal residual 0.0123457)")
        return real(*args, **kwargs)

    monkeypatch.setattr(ps, "fourier_sums", recording)
    monkeypatch.setattr(ps, failing, failing_on_bad)


@pytest.mark.parametrize("failing", ["solve_lp", "solve_qp"])
def test_solver_failure_on_one_neighbour_releases_the_same_kind_of_output(failing, monkeypatch):
    """A solver that fails on D' only (a data-dependent failure) changes nothing visible.

    Both fits end, both estimators release records of the reduced space (the same
    space: it depends on the seed only) with the same privacy report; the solver's
    message, which carries numbers derived from the data, reaches no warning.
    """
    X0, X1 = cube_corner_neighbours(300, 4)
    _fail_on(monkeypatch, failing, X1)
    params = {"epsilon": None, "n_samples": 7, "m": 60, "random_state": 3}
    est0, messages0 = _fit_quietly(PrivateSampler(**params), X0)
    est1, messages1 = _fit_quietly(PrivateSampler(**params), X1)
    assert not est0.solver_fallback_ and est1.solver_fallback_
    assert messages0 == [] and messages1 == [ps._FALLBACK_WARNING]
    assert "0.0123" not in ps._FALLBACK_WARNING  # the solver's message stays inside
    assert "random_state" not in ps._FALLBACK_WARNING  # no advice to select by retry
    np.testing.assert_array_equal(est0.records_, est1.records_)
    assert est0.privacy_report_.entries == est1.privacy_report_.entries
    assert est0.epsilon_budget_ == est1.epsilon_budget_
    out0, out1 = est0.sample(), est1.sample()
    assert out0.shape == out1.shape == (7, 4)
    rows = {tuple(r) for r in est0.records_}
    assert all(tuple(r) in rows for r in np.vstack([out0, out1]))


@pytest.mark.parametrize("fallback", [True, False], ids=["fallback", "raise-on-failure"])
def test_solver_failure_path_audit(fallback, monkeypatch):
    """Audit of fit + sample with a solver failing on D' only.

    With the fallback no run raises; the variant that lets the failure escape (fit
    calling the exact solve directly, as before) raises on every D' run and never on
    D, an event the audit sees as a privacy loss on its own.
    """
    from skprivsynth.auditing import audit_mechanism

    X0, X1 = cube_corner_neighbours(40, 3)
    _fail_on(monkeypatch, "solve_qp", X1)
    if not fallback:
        monkeypatch.setattr(PrivateSampler, "_solve", PrivateSampler._solve_exact)

    def mechanism(X, seed):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est = PrivateSampler(epsilon=None, n_samples=1, m=16, degree=1, random_state=seed)
            return est.fit(X).sample()[0]

    result = audit_mechanism(
        mechanism, X0, X1, events={"origin": lambda r: r.sum() == 0}, n_runs=60, random_state=0
    )
    if fallback:
        assert result.n_raised == (0, 0)
    else:
        assert result.n_raised == (0, 60)
        assert "raised Exception" in result.best_event and result.epsilon_lower > 2.0


def test_released_density_is_exactly_in_the_box_and_sums_to_one(monkeypatch):
    # OSQP may return g slightly outside [delta, Delta] and a sum slightly off 1 (within
    # the accepted tolerances); what fit stores, and sample draws from, must satisfy the
    # privacy preconditions exactly: delta/m <= h <= Delta/m and sum h = 1.
    real = ps.solve_qp

    def sloppy_qp(*args, **kwargs):
        result = real(*args, **kwargs)
        g = result.x.copy()
        g[np.argmin(g)] -= 5e-7  # below the box (by less than the 1e-6 accepted)
        g[np.argmax(g)] += 5e-7  # above the box
        inner = np.flatnonzero((g > 0.3) & (g < 1.9))
        g[inner[0]] += 1e-5  # sum off by 1e-5/m, constraint residual still < 1e-7
        result.x = g
        return result

    monkeypatch.setattr(ps, "solve_qp", sloppy_qp)
    X = _correlated(3000, 6, seed=0)
    delta, Delta, m = 0.25, 3.0, 150
    est = PrivateSampler(m=m, density_bounds=(delta, Delta), random_state=0).fit(X)
    assert est.box_violation_ == pytest.approx(5e-7, rel=0.05)
    h = est.weights_
    assert h.min() >= delta / m and h.max() <= Delta / m  # no tolerance
    assert h.sum() == pytest.approx(1.0, abs=1e-15)
    assert est.constraint_residual_ <= 1e-7


def test_diagnostics_privacy_counts_what_was_released():
    X = _correlated(1500, 5, seed=5)
    est = PrivateSampler(epsilon=None, n_samples=10, m=60, random_state=1).fit(X)
    assert est.diagnostics(n_samples=10)["privacy"]["holds"]
    est.sample(4)
    diag = est.diagnostics(n_samples=10)
    assert not diag["privacy"]["holds"] and diag["privacy"]["required"] == 6
    assert est.diagnostics(n_samples=6)["privacy"]["holds"]


@pytest.mark.parametrize("bad", [{"n": 0}, {"m": -5}, {"n": 2.5}, {"p": 0}, {"degree": 0}])
def test_bound_functions_reject_bad_sizes(bad):
    # Validated by scikit-learn's validate_params, with its messages.
    kwargs = {"n": 1000, "m": 100, "p": 5, "degree": 2, "density_bounds": (0.25, 2.0)}
    kwargs.update(bad)
    name = next(iter(bad))
    for func, first in ((max_samples_bound, 1.0), (epsilon_for_samples, 1)):
        with pytest.raises(ValueError, match=rf"'{name}' parameter of {func.__name__} must be"):
            func(first, **kwargs)


def test_infinite_epsilon_is_rejected_before_solving(monkeypatch):
    monkeypatch.setattr(ps, "solve_lp", lambda *a, **k: pytest.fail("solved anyway"))
    with pytest.raises(ValueError, match="epsilon"):
        PrivateSampler(epsilon=float("inf"), m=60).fit(_correlated(100, 4, seed=0))
