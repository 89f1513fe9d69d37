"""MarginalSynthesizer(workload=...): AIM's candidates and weights, and scoring the same
workload with the marginal metrics."""

import itertools
import math

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from skprivsynth import MarginalSynthesizer
from skprivsynth._math.workload import workload_closure
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.metrics import (
    categorical_marginal_errors,
    categorical_marginal_tvd,
    make_marginal_scorer,
    marginal_error,
    marginal_errors,
)
from skprivsynth.privacy import PrivacyReport

K, D = 4, 8


def _one_dependent_pair(n, rng):
    """``D`` columns of ``K`` levels, independent but for column 1 copying column 0 70 %
    of the time."""
    X = rng.integers(0, K, (n, D))
    X[:, 1] = np.where(rng.random(n) < 0.7, X[:, 0], rng.integers(0, K, n))
    return X


def _tvd(X, S, cols, sizes):
    """Total variation distance of the table of ``cols`` (by hand)."""
    shape = [sizes[j] for j in cols]
    real = np.bincount(np.ravel_multi_index(X[:, cols].T, shape), minlength=math.prod(shape))
    synth = np.bincount(np.ravel_multi_index(S[:, cols].T, shape), minlength=math.prod(shape))
    return 0.5 * np.abs(real / len(X) - synth / len(S)).sum()


@pytest.fixture(scope="module")
def codes():
    return _one_dependent_pair(3000, np.random.default_rng(100))


@pytest.fixture
def no_release(monkeypatch):
    def release(*args, **kwargs):
        raise AssertionError("a release was made before the workload was checked")

    monkeypatch.setattr(PrivacyReport, "release_gaussian", release)


def test_closure_and_weights_match_aim_by_hand():
    # W = {01, 123}: w_r = |r ∩ 01| + |r ∩ 123| (AIM, Sect. 4).
    expected = {
        (0,): 1,
        (1,): 2,
        (2,): 1,
        (3,): 1,
        (0, 1): 3,
        (1, 2): 3,
        (1, 3): 3,
        (2, 3): 2,
        (1, 2, 3): 4,
    }
    closure = workload_closure([(0, 1), (1, 2, 3)], 3)
    assert closure == expected and list(closure) == list(expected)  # by size, then lex.
    assert workload_closure([(0, 1), (1, 2, 3)], 2) == {
        r: w for r, w in expected.items() if len(r) <= 2
    }
    est = MarginalSynthesizer(workload=[[3, 2, 1], (1, 0)])  # any order inside a set
    assert est._candidates(4) == expected
    assert est.set_params(max_degree=2)._candidates(4) == workload_closure([(0, 1), (1, 2, 3)], 2)


@pytest.mark.parametrize("d, degree", [(4, 3), (25, 2)])
def test_default_candidates_are_all_sets_up_to_max_degree_weighted_by_size(d, degree):
    # AIM's weights for all k-way marginals are |r|·C(d−1, k−1); divided by their gcd.
    expected = {
        r: len(r) for k in range(1, degree + 1) for r in itertools.combinations(range(d), k)
    }
    assert list(MarginalSynthesizer()._candidates(d).items()) == list(expected.items())
    assert MarginalSynthesizer(workload=degree)._candidates(d) == expected
    w = workload_closure(list(itertools.combinations(range(d), degree)), degree)
    assert w == {r: k * math.comb(d - 1, degree - 1) for r, k in expected.items()}


def test_no_workload_is_the_workload_of_all_max_degree_sets(codes):
    # workload=None with max_degree=3 is all 3-way marginals: the same candidates,
    # weights and release as workload=3.
    fits = [
        MarginalSynthesizer(1.0, domain=[K] * D, workload=w, max_degree=3, random_state=4).fit(
            codes
        )
        for w in (None, 3)
    ]
    assert fits[0].cliques_ == fits[1].cliques_
    np.testing.assert_array_equal(fits[0].sample(200, 1), fits[1].sample(200, 1))


@pytest.mark.parametrize(
    "workload, max_degree",
    [([(0, 1), (2,)], "auto"), ([(0, 1, 2), (2, 5, 6, 7)], "auto"), ([(0, 1, 2), (3, 4)], 2)],
)
def test_selection_only_picks_candidates_of_the_closure(codes, workload, max_degree):
    est = MarginalSynthesizer(
        4.0, domain=[K] * D, workload=workload, max_degree=max_degree, random_state=0
    ).fit(codes)
    cap = D if max_degree == "auto" else max_degree
    closure = set(workload_closure([tuple(sorted(s)) for s in workload], cap))
    assert est.cliques_ and set(est.cliques_) <= closure
    # The selection's sensitivity is 2·max_r w_r over the candidates.
    weights = workload_closure([tuple(sorted(s)) for s in workload], cap)
    entries = [e for e in est.privacy_report_.entries if e["step"] == "marginal selection"]
    assert {e["sensitivity"] for e in entries} == {2.0 * max(weights.values())}


def test_a_declared_pair_is_released_more_accurately_than_by_default():
    # A chain of dependent columns: by default the budget goes to many pairs; with the
    # workload, to the declared pair and its 1-way tables only.
    errors = {None: [], "pair": []}
    for seed in range(3):
        rng = np.random.default_rng(100 + seed)
        X = rng.integers(0, K, (10_000, D))
        for j in range(1, D):  # column j copies column j - 1 70 % of the time
            X[:, j] = np.where(rng.random(10_000) < 0.7, X[:, j - 1], X[:, j])
        for name, workload in ((None, None), ("pair", [(0, 1)])):
            est = MarginalSynthesizer(1.0, domain=[K] * D, workload=workload, random_state=seed)
            S = est.fit(X).sample(50_000, random_state=seed)
            errors[name].append(_tvd(X, S, [0, 1], [K] * D))
    # Measured: 0.038 by default, 0.011 with the workload.
    assert np.mean(errors["pair"]) < 0.6 * np.mean(errors[None])


@pytest.mark.parametrize(
    "workload, match",
    [
        ([(0, 8)], r"below 8\); got workload\[0\]=\(0, 8\)"),
        ([(0, 1), ()], r"non-empty .* workload\[1\]=\(\)"),
        ([(-1, 2)], r"workload\[0\]=\(-1, 2\)"),
        ([(1, 1)], r"distinct .* workload\[0\]=\(1, 1\)"),
        ([(0, 1.5)], r"integer .* workload\[0\]"),
        ([(0, 1), (1, 0)], r"workload contains the set \(0, 1\) twice"),
        ([], "at least one column set"),
    ],
)
def test_bad_workloads_are_refused_before_any_release(codes, no_release, workload, match):
    with pytest.raises(ValueError, match=match):
        MarginalSynthesizer(domain=[K] * D, workload=workload).fit(codes)


def test_bad_workload_types_and_settings_are_refused(codes, no_release):
    for workload in ("ab", 0, 2.5):
        with pytest.raises(InvalidParameterError, match="workload"):
            MarginalSynthesizer(domain=[K] * D, workload=workload).fit(codes)
    with pytest.raises(ValueError, match="workload applies to selection='adaptive'"):
        MarginalSynthesizer(domain=[K] * D, workload=[(0, 1)], selection="mst").fit(codes)
    wide = np.zeros((10, 24), dtype=int)
    with pytest.raises(ValueError, match=r"workload=\[.*max_degree='auto' gives 16,777,215"):
        MarginalSynthesizer(domain=[2] * 24, workload=[tuple(range(24))]).fit(wide)


def test_weighted_closure_is_aims_sum_over_the_workload():
    # w_r = Σ_s c_s·|r ∩ s| (AIM, Sect. 4), by brute force over random real weights.
    rng = np.random.default_rng(0)
    sets = [(0, 1), (1, 2, 3), (0, 3, 4)]
    c = list(rng.uniform(0.1, 5.0, len(sets)))
    closure = workload_closure(sets, 3, c)
    for r, w in closure.items():
        by_hand = sum(ci * len(set(r) & set(s)) for s, ci in zip(sets, c, strict=True))
        assert w == pytest.approx(by_hand)
    assert set(closure) == set(workload_closure(sets, 3))
    # A dict of weights 1 is the list; integer weights stay exact (divided by their gcd).
    assert MarginalSynthesizer(workload={(0, 1): 1, (1, 2): 1})._candidates(3) == (
        MarginalSynthesizer(workload=[(0, 1), (1, 2)])._candidates(3)
    )
    assert MarginalSynthesizer(workload={(0, 1): 4, 2: 2})._candidates(3) == {
        (0,): 2, (1,): 2, (2,): 1, (0, 1): 4,
    }  # fmt: skip
    # Real weights: the largest scaled to 1.
    assert MarginalSynthesizer(workload={(0, 1): 0.5, (2,): 1.5})._candidates(3) == {
        (0,): 1 / 3, (1,): 1 / 3, (2,): 1.0, (0, 1): 2 / 3,
    }  # fmt: skip


def _two_dependent_pairs(n, rng):
    """Six columns of 3 levels, independent but for column 1 copying column 0 60 % of
    the time and column 3 copying column 2 50 % of the time."""
    X = rng.integers(0, 3, (n, 6))
    X[:, 1] = np.where(rng.random(n) < 0.6, X[:, 0], X[:, 1])
    X[:, 3] = np.where(rng.random(n) < 0.5, X[:, 2], X[:, 3])
    return X


def test_a_heavily_weighted_pair_is_selected_first():
    # Unweighted, the stronger pair (0, 1) is mostly measured first; at weight 10 its
    # score is w·(error − bias) with w = 20 against 2, the sensitivity 2·20: the
    # weaker pair (2, 3) is.  On main a dict was read as the list of its keys (the
    # weights silently dropped): both fits chose alike.
    X = _two_dependent_pairs(3000, np.random.default_rng(7))
    first = {}
    for name, heavy in (("flat", 1), ("heavy", 10)):
        workload = {(0, 1): 1, (2, 3): heavy, (4, 5): 1}
        chosen = []
        for seed in range(12):
            est = MarginalSynthesizer(1.0, domain=[3] * 6, workload=workload, random_state=seed)
            chosen.append(next(c for c in est.fit(X).cliques_ if len(c) > 1))
        first[name] = sum(c == (2, 3) for c in chosen)
    # Measured: (2, 3) first in 2 of 12 fits unweighted, in 9 of 12 weighted.
    assert first["heavy"] >= first["flat"] + 5


def test_scaling_every_weight_changes_nothing():
    # The exponential mechanism sees w_r·q_r / (2·max w): scaling the weights is the
    # same selection.  A sensitivity that ignored the weights would sharpen it.
    X = _two_dependent_pairs(2000, np.random.default_rng(3))
    fits = [
        MarginalSynthesizer(1.0, domain=[3] * 6, workload=w, random_state=5).fit(X)
        for w in (
            {(0, 1): 3, (2, 3): 1, (4, 5): 1},
            {(0, 1): 30, (2, 3): 10, (4, 5): 10},
            {(0, 1): 0.3, (2, 3): 0.1, (4, 5): 0.1},
        )
    ]
    assert fits[0].cliques_ == fits[1].cliques_ == fits[2].cliques_
    for est in fits:
        entries = [e for e in est.privacy_report_.entries if e["step"] == "marginal selection"]
        weights = est._candidates(6)
        assert {e["sensitivity"] for e in entries} == {2.0 * max(weights.values())}
        assert est.rho_ == pytest.approx(fits[0].rho_)


def test_workload_columns_by_name_in_a_frame_and_a_pipeline():
    import pandas as pd

    from skprivsynth import make_private_pipeline

    X = _two_dependent_pairs(2000, np.random.default_rng(3))
    names = ["a", "b", "c", "d", "e", "f"]
    frame = pd.DataFrame(X, columns=names)
    by_index = {(0, 1): 3, (2, 3): 1, 5: 2}
    by_name = {("a", "b"): 3, ("c", "d"): 1, "f": 2}
    assert MarginalSynthesizer(workload=by_name)._candidates(6, names) == (
        MarginalSynthesizer(workload=by_index)._candidates(6)
    )
    with pytest.warns(PrivacyLeakWarning):
        named = MarginalSynthesizer(1.0, domain=[3] * 6, workload=by_name, random_state=5)
        indexed = MarginalSynthesizer(1.0, domain=[3] * 6, workload=by_index, random_state=5)
        assert named.fit(frame).cliques_ == indexed.fit(X).cliques_
    domain = {name: {"levels": [0, 1, 2]} for name in names}
    with pytest.warns(PrivacyLeakWarning):
        pipe = make_private_pipeline(
            MarginalSynthesizer(1.0, workload=by_name, random_state=5), domain, random_state=5
        ).fit(frame)
    closure = set(MarginalSynthesizer(workload=by_index)._candidates(6))
    assert pipe.steps[-1][1].cliques_ and set(pipe.steps[-1][1].cliques_) <= closure


@pytest.mark.parametrize(
    "workload, match",
    [
        ({(0, 1): 0}, r"positive finite numbers; got workload\[\(0, 1\)\]=0 \(accepted"),
        ({(0, 1): -1.5}, r"workload\[\(0, 1\)\]=-1.5"),
        ({(0, 1): True}, r"workload\[\(0, 1\)\]=True"),
        ({(0, 1): "2"}, r"workload\[\(0, 1\)\]='2'"),
        ({(0, 1): float("inf")}, r"workload\[\(0, 1\)\]=inf"),
        ({(0, 1): float("nan")}, r"workload\[\(0, 1\)\]=nan"),
        ({(0, 9): 1}, r"below 8\); got workload\[0\]=\(0, 9\)"),
        ({(0, 1): 1, (1, 0): 2}, r"contains the set \(0, 1\) twice"),
        ({("age",): 1}, r"names the column 'age', but the columns have no names"),
        ({}, "at least one column set"),
    ],
)
def test_bad_weighted_workloads_are_refused_before_any_release(codes, no_release, workload, match):
    with pytest.raises(ValueError, match=match):
        MarginalSynthesizer(domain=[K] * D, workload=workload).fit(codes)


def test_an_unknown_column_name_lists_the_names():
    import pandas as pd

    frame = pd.DataFrame(np.zeros((20, 2), dtype=int), columns=["age", "sex"])
    with pytest.raises(ValueError, match=r"'cost', but the columns are \['age', 'sex'\]"):
        MarginalSynthesizer(domain=[2, 2], workload={"cost": 2}).fit(frame)


def test_metrics_evaluate_exactly_the_workload(codes):
    rng = np.random.default_rng(1)
    S = rng.integers(0, K, (2000, D))
    workload = [(1, 0), (2, 3, 4), (5,)]
    sets = [[0, 1], [2, 3, 4], [5]]
    by_hand = [_tvd(codes, S, J, [K] * D) for J in sets]
    res = categorical_marginal_errors(codes, S, workload=workload)
    assert res.column_sets == [(0, 1), (2, 3, 4), (5,)]
    np.testing.assert_allclose(res.errors, by_hand, rtol=1e-12)
    assert categorical_marginal_tvd(codes, S, workload=workload, statistic="max") == max(by_hand)
    pairs = categorical_marginal_errors(codes, S, workload=[(0, 1), (4, 6)])
    np.testing.assert_array_equal(pairs.column_sets, [[0, 1], [4, 6]])
    # Boolean metric: each set's error equals the one of the degree-way path.
    B, C = codes % 2, S % 2
    res = marginal_errors(B, C, workload=workload, form="table")
    for J, error in zip(res.column_sets, res.errors, strict=True):
        full = marginal_errors(B, C, degree=len(J))
        index = [tuple(r) for r in full.column_sets.tolist()].index(J)
        assert error == pytest.approx(full.errors[index], abs=1e-12)
    assert marginal_error(B, C, workload=workload) == pytest.approx(res.errors.mean())
    with pytest.raises(ValueError, match=r"workload\[0\]=\(0, 9\)"):
        marginal_errors(B, C, workload=[(0, 9)])
    with pytest.raises(ValueError, match="leave max_marginals=None"):
        categorical_marginal_tvd(codes, S, workload=workload, max_marginals=2)


def test_scorer_with_a_workload_is_the_mean_tvd_over_exactly_those_sets(codes):
    bits = codes % 2  # a bare synthesizer is scored by the Boolean table metric
    workload = [(0, 1), (2, 5, 6)]
    est = MarginalSynthesizer(1.0, domain=[2] * D, workload=workload, random_state=0)
    est.fit(bits)
    scorer = make_marginal_scorer(workload=workload)
    S = est.sample(len(bits), random_state=0)
    by_hand = np.mean([_tvd(bits, S, list(J), [2] * D) for J in workload])
    with pytest.warns(PrivacyLeakWarning):  # an exact score of a DP synthesizer
        assert scorer(est, bits) == pytest.approx(-by_hand, rel=1e-12)
    assert "workload=[(0, 1), (2, 5, 6)]" in repr(scorer)
    with pytest.raises(ValueError, match=r"workload\[0\]=\(\)"):
        make_marginal_scorer(workload=[()])
    with pytest.raises(ValueError, match="leave max_marginals=None"):
        make_marginal_scorer(workload=workload, max_marginals=3)
