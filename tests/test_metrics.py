"""Tests of skprivsynth.metrics against brute-force Python-loop references."""

import itertools
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from sklearn.base import BaseEstimator
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.utils import check_array

from skprivsynth.datasets import load_adult
from skprivsynth.domain import Bins
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.metrics import (
    MarginalErrors,
    MarginalScorer,
    categorical_marginal_errors,
    categorical_marginal_tvd,
    covariance_loss,
    evaluation_domain,
    log_axis_columns,
    make_marginal_scorer,
    marginal_error,
    marginal_errors,
    missing_rates,
    numeric_column_errors,
    numeric_verdicts,
    table_verdict,
)
from skprivsynth.metrics import _boolean as boolean_module
from skprivsynth.metrics import _categorical as categorical_module
from skprivsynth.metrics import _combinations as combinations_module
from skprivsynth.metrics import _scorer as scorer_module

# ----------------------------------------------------------------- brute force


def _brute_cell(A, w, J, v):
    """Weighted fraction of rows in cell v of J (fractional entries: Bernoulli probs)."""
    total = 0.0
    for i in range(A.shape[0]):
        prob = 1.0
        for j, bit in zip(J, v, strict=True):
            prob *= A[i, j] if bit else 1.0 - A[i, j]
        total += w[i] * prob
    return total / sum(w)


def _brute_errors(X, Y, d, form, wx=None, wy=None):
    wx = np.ones(len(X)) if wx is None else wx
    wy = np.ones(len(Y)) if wy is None else wy
    sets, errors = [], []
    for J in itertools.combinations(range(X.shape[1]), d):
        if form == "conjunction":
            cells = [(1,) * d]
            err = abs(_brute_cell(X, wx, J, cells[0]) - _brute_cell(Y, wy, J, cells[0]))
        else:
            err = 0.5 * sum(
                abs(_brute_cell(X, wx, J, v) - _brute_cell(Y, wy, J, v))
                for v in itertools.product((0, 1), repeat=d)
            )
        sets.append(J)
        errors.append(err)
    return np.array(sets), np.array(errors)


def _brute_categorical(real, synth, d):
    out = []
    for J in itertools.combinations(real.columns, d):
        p = real.groupby(list(J)).size() / len(real)
        q = synth.groupby(list(J)).size() / len(synth)
        p, q = p.align(q, fill_value=0.0)
        out.append(0.5 * (p - q).abs().sum())
    return np.array(out)


def _boolean(rng, n, p, prob=0.4):
    return (rng.random((n, p)) < prob).astype(np.int64)


# --------------------------------------------------------- Boolean-matrix metrics


@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("form", ["conjunction", "table"])
def test_marginal_errors_match_brute_force(degree, form):
    rng = np.random.default_rng(degree)
    X = _boolean(rng, 40, 5)
    Y = _boolean(rng, 27, 5, prob=0.6)
    sets, expected = _brute_errors(X, Y, degree, form)
    res = marginal_errors(X, Y, degree=degree, form=form)
    assert isinstance(res, MarginalErrors) and res.form == form
    np.testing.assert_array_equal(res.column_sets, sets)
    np.testing.assert_allclose(res.errors, expected, atol=1e-12)


@pytest.mark.parametrize("degree", [2, 3])
@pytest.mark.parametrize("form", ["conjunction", "table"])
def test_fractional_and_weighted_y_match_brute_force(degree, form):
    rng = np.random.default_rng(10 + degree)
    X = _boolean(rng, 30, 6)
    Y = rng.random((9, 6))  # candidate records with entries in [0, 1]
    wx, wy = rng.integers(1, 4, 30).astype(float), rng.random(9)
    _, expected = _brute_errors(X, Y, degree, form, wx, wy)
    res = marginal_errors(X, Y, degree, form, sample_weight_X=wx, sample_weight_Y=wy)
    np.testing.assert_allclose(res.errors, expected, atol=1e-12)


def test_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(3)
    X, Y = _boolean(rng, 50, 5), _boolean(rng, 8, 5)
    counts = rng.integers(1, 6, 8)
    for degree in (1, 2, 3):
        weighted = marginal_errors(X, Y, degree, sample_weight_Y=counts).errors
        repeated = marginal_errors(X, np.repeat(Y, counts, axis=0), degree).errors
        np.testing.assert_allclose(weighted, repeated, atol=1e-12)


@pytest.mark.parametrize("form", ["conjunction", "table"])
def test_gram_and_chunked_paths_agree(monkeypatch, form):
    rng = np.random.default_rng(4)
    X, Y = _boolean(rng, 300, 7), rng.random((200, 7))
    gram = marginal_errors(X, Y, 2, form).errors
    monkeypatch.setattr(boolean_module, "_GRAM_MAX_FEATURES", 0)
    monkeypatch.setattr(boolean_module, "_ROW_CHUNK", 64)  # several row chunks per block
    monkeypatch.setattr(boolean_module, "_CHUNK_ELEMENTS", 64 * 5)  # several set chunks
    chunked = marginal_errors(X, Y, 2, form).errors
    np.testing.assert_allclose(chunked, gram, atol=1e-12)
    _, expected = _brute_errors(X[:40], Y[:30], 3, form)
    np.testing.assert_allclose(
        marginal_errors(X[:40], Y[:30], 3, form).errors, expected, atol=1e-12
    )


def test_identical_or_permuted_data_has_zero_error_and_tvd_in_unit_interval():
    rng = np.random.default_rng(5)
    X = _boolean(rng, 60, 6)
    for degree in (1, 2, 3, 6):
        for form in ("conjunction", "table"):
            assert marginal_error(X, X[rng.permutation(60)], degree, form, "max") < 1e-12
    Y = rng.random((17, 6))
    for degree in (1, 2, 4):
        errors = marginal_errors(X, Y, degree).errors
        assert np.all((errors >= 0) & (errors <= 1))
    # disjoint supports: all-zero rows vs all-one rows -> TVD exactly 1 everywhere
    zeros, ones = np.zeros((3, 4)), np.ones((5, 4))
    np.testing.assert_allclose(marginal_errors(zeros, ones, 3).errors, 1.0)


def test_statistics():
    rng = np.random.default_rng(6)
    X, Y = _boolean(rng, 50, 6), _boolean(rng, 50, 6, prob=0.2)
    e = marginal_errors(X, Y, 2).errors
    assert marginal_error(X, Y, 2, statistic="mean") == pytest.approx(e.mean())
    assert marginal_error(X, Y, 2, statistic="max") == pytest.approx(e.max())
    assert marginal_error(X, Y, 2, statistic="rms") == pytest.approx(np.sqrt((e**2).mean()))
    assert e.mean() < np.sqrt((e**2).mean()) < e.max()


def test_accepts_bool_uint8_and_dataframes():
    rng = np.random.default_rng(7)
    X, Y = _boolean(rng, 30, 4), _boolean(rng, 20, 4)
    ref = marginal_errors(X, Y, 3).errors
    np.testing.assert_allclose(marginal_errors(X.astype(bool), Y.astype(np.uint8), 3).errors, ref)
    np.testing.assert_allclose(marginal_errors(pd.DataFrame(X), Y, 3).errors, ref)


# ----------------------------------------------------------------- column sets


@pytest.mark.parametrize(("p", "d"), [(1, 1), (5, 1), (6, 2), (7, 3), (6, 6), (9, 4)])
def test_unranking_enumerates_itertools_order(p, d):
    sets = combinations_module._column_sets(p, d, None, None)
    np.testing.assert_array_equal(sets, np.array(list(itertools.combinations(range(p), d))))


def test_random_subset_is_reproducible_sorted_and_a_subset():
    X = _boolean(np.random.default_rng(8), 40, 10)
    Y = X[::-1][:30]
    full = marginal_errors(X, Y, 3)
    a = marginal_errors(X, Y, 3, max_marginals=25, random_state=0)
    b = marginal_errors(X, Y, 3, max_marginals=25, random_state=0)
    c = marginal_errors(X, Y, 3, max_marginals=25, random_state=1)
    np.testing.assert_array_equal(a.column_sets, b.column_sets)
    assert a.column_sets.shape == (25, 3)
    assert not np.array_equal(a.column_sets, c.column_sets)
    rows = [tuple(r) for r in full.column_sets]
    idx = [rows.index(tuple(r)) for r in a.column_sets]
    assert idx == sorted(set(idx))  # distinct, in lexicographic order
    np.testing.assert_allclose(a.errors, full.errors[idx], atol=1e-12)
    # max_marginals >= C(p, d): every set, no randomness
    np.testing.assert_array_equal(
        marginal_errors(X, Y, 3, max_marginals=10**6, random_state=3).column_sets,
        full.column_sets,
    )


def test_random_subset_is_uniform():
    # each of the C(6, 2) = 15 pairs appears with probability 5/15 in a 5-subset
    counts = np.zeros(15)
    full = [tuple(r) for r in combinations_module._column_sets(6, 2, None, None)]
    for seed in range(600):
        for r in combinations_module._column_sets(6, 2, 5, seed):
            counts[full.index(tuple(r))] += 1
    expected = 600 * 5 / 15
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 36.1  # 99.9 % quantile of chi2 with 14 degrees of freedom


def test_random_subset_when_combinations_overflow_int64():
    p, d = 100, 20
    assert math.comb(p, d) >= combinations_module._RANK_LIMIT
    sets = combinations_module._column_sets(p, d, 40, 0)
    assert sets.shape == (40, d)
    assert np.all(np.diff(sets, axis=1) > 0) and sets.min() >= 0 and sets.max() < p
    assert len({tuple(r) for r in sets}) == 40
    assert [tuple(r) for r in sets] == sorted(tuple(r) for r in sets)
    np.testing.assert_array_equal(sets, combinations_module._column_sets(p, d, 40, 0))
    X = _boolean(np.random.default_rng(0), 20, p)
    assert marginal_error(X, X, d, "conjunction", max_marginals=40, random_state=0) == 0.0


# ------------------------------------------------------------------ validation


def test_validation_errors():
    X = np.zeros((5, 3))
    with pytest.raises(ValueError, match=r"X and Y .* X has 3 and Y has 4"):
        marginal_errors(X, np.zeros((5, 4)))
    for bad in (0, 4):
        with pytest.raises(ValueError, match="degree"):
            marginal_errors(X, X, degree=bad)
    with pytest.raises(TypeError, match="degree"):
        marginal_errors(X, X, degree=1.5)
    Xn = X.copy()
    Xn[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        marginal_errors(Xn, X)
    with pytest.raises(ValueError, match="Y must have all entries in"):
        marginal_errors(X, X + 2)
    with pytest.raises(ValueError, match="form"):
        marginal_errors(X, X, form="cells")
    with pytest.raises(ValueError, match="statistic"):
        marginal_error(X, X, statistic="median")
    with pytest.raises(ValueError, match="max_marginals"):
        marginal_errors(X, X, max_marginals=0)
    with pytest.raises(ValueError, match="sample_weight_Y"):
        marginal_errors(X, X, sample_weight_Y=[1, 2])
    with pytest.raises(ValueError, match="sample_weight_X"):
        marginal_errors(X, X, sample_weight_X=np.zeros(5))
    wide = np.zeros((2, 200))
    with pytest.raises(ValueError, match="max_marginals"):
        marginal_errors(wide, wide, degree=4)  # C(200, 4) ≈ 6.5e7 column sets


# ---------------------------------------------------------- categorical metrics


def _categorical_frames(rng, n_real=80, n_synth=55):
    def draw(n):
        a = rng.integers(0, 3, n)
        return pd.DataFrame(
            {
                "a": a,
                "b": np.where(rng.random(n) < 0.7, a, rng.integers(0, 3, n)),
                "c": rng.choice(["x", "y", "z", "w"], n),
                "d": rng.integers(0, 2, n),
            }
        )

    return draw(n_real), draw(n_synth)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_categorical_tvd_matches_groupby(degree):
    real, synth = _categorical_frames(np.random.default_rng(degree))
    expected = _brute_categorical(real, synth, degree)
    res = categorical_marginal_errors(real, synth, degree)
    np.testing.assert_allclose(res.errors, expected, atol=1e-12)
    assert list(res.feature_names) == ["a", "b", "c", "d"]
    assert res.named_column_sets()[0] == tuple(real.columns[:degree])
    domain = {"a": 3, "b": 3, "c": ["w", "x", "y", "z", "v"], "d": 2}
    with_domain = categorical_marginal_errors(real, synth[["d", "c", "b", "a"]], degree, domain)
    np.testing.assert_allclose(with_domain.errors, expected, atol=1e-12)
    assert categorical_marginal_tvd(real, synth, degree) == pytest.approx(expected.mean())
    assert categorical_marginal_tvd(real, synth, degree, statistic="max") == pytest.approx(
        expected.max()
    )


def test_categorical_sparse_cell_path(monkeypatch):
    real, synth = _categorical_frames(np.random.default_rng(9))
    dense = categorical_marginal_errors(real, synth, 3).errors
    monkeypatch.setattr(categorical_module, "_MAX_BINCOUNT_CELLS", 4)
    np.testing.assert_allclose(categorical_marginal_errors(real, synth, 3).errors, dense)


def test_categorical_on_arrays_identity_and_range():
    real, synth = _categorical_frames(np.random.default_rng(11))
    assert categorical_marginal_tvd(real, real.sample(frac=1, random_state=0), 3) == 0.0
    errors = categorical_marginal_errors(real.to_numpy(), synth.to_numpy(), 2).errors
    np.testing.assert_allclose(errors, _brute_categorical(real, synth, 2), atol=1e-12)
    assert np.all((errors >= 0) & (errors <= 1))
    disjoint = categorical_marginal_tvd(real.assign(d=0), real.assign(d=1), 1, statistic="max")
    assert disjoint == 1.0


def test_categorical_validation():
    real, synth = _categorical_frames(np.random.default_rng(12))
    with pytest.raises(ValueError, match=r"real_df and synth_df .* only in real_df: \['d'\]"):
        categorical_marginal_tvd(real, synth.drop(columns="d"))
    with pytest.raises(ValueError, match=r"column 'a' of synth_df .* domain\['a'\]"):
        categorical_marginal_tvd(real, synth.assign(a=7), domain={"a": 3, "b": 3, "c": 4, "d": 2})
    with pytest.raises(ValueError, match=r"column 'c' of real_df .* domain\['c'\]"):
        categorical_marginal_tvd(real, synth, domain={"a": 3, "b": 3, "c": 4, "d": 2})
    with pytest.raises(ValueError, match="domain has no entry for column 'd'"):
        categorical_marginal_tvd(real, synth, domain={"a": 3, "b": 3, "c": list("wxyz")})
    with pytest.raises(ValueError, match="degree"):
        categorical_marginal_tvd(real, synth, degree=5)


def test_benchmark_triples_are_fixed():
    """tvd3 = 200 random triples of the 14 Adult columns drawn with random_state=0."""
    sets = combinations_module._column_sets(14, 3, 200, 0)
    assert sets.shape == (200, 3)
    assert sets[:5].tolist() == [[0, 1, 2], [0, 1, 3], [0, 1, 4], [0, 1, 6], [0, 1, 7]]


def test_adult_reference_numbers():
    """Reference values on Adult: bootstrap tvd2 ≈ 0.015, product of 1-way marginals ≈ 0.078."""
    adult = load_adult()
    df, n = adult.data, len(adult.data)
    rng = np.random.default_rng(0)
    bootstrap = df.iloc[rng.integers(0, n, n)]
    tvd2 = categorical_marginal_tvd(df, bootstrap, 2, domain=adult.domain)
    assert tvd2 == pytest.approx(0.015, abs=0.005)
    independent = pd.DataFrame(
        {c: rng.choice(df[c].to_numpy(), size=n) for c in df.columns}
    )  # product of the exact 1-way marginals
    tvd1 = categorical_marginal_tvd(df, independent, 1)
    tvd2 = categorical_marginal_tvd(df, independent, 2)
    assert tvd1 == pytest.approx(0.005, abs=0.003)
    assert tvd2 == pytest.approx(0.078, abs=0.01)


# -------------------------------------------------------------- covariance loss


def test_covariance_loss_matches_numpy():
    rng = np.random.default_rng(13)
    X, Y = rng.normal(size=(70, 5)), rng.normal(size=(30, 5)) * 2
    expected = np.linalg.norm(np.cov(X.T, bias=True) - np.cov(Y.T, bias=True))
    assert covariance_loss(X, Y) == pytest.approx(expected, rel=1e-12)
    assert covariance_loss(X, X[::-1]) == pytest.approx(0.0, abs=1e-12)
    counts = rng.integers(1, 5, 30)
    assert covariance_loss(X, Y, sample_weight_Y=counts) == pytest.approx(
        covariance_loss(X, np.repeat(Y, counts, axis=0)), rel=1e-12
    )


def test_covariance_loss_of_group_means_is_within_group_covariance():
    """Law of total variance: Σ_X − Σ_{E[X|F]} = E[Cov(X | F)] (seed 000, Sect. 3)."""
    rng = np.random.default_rng(14)
    X = _boolean(rng, 60, 4).astype(float)
    groups = rng.integers(0, 6, 60)
    means = np.array([X[groups == g].mean(axis=0) for g in range(6)])
    sizes = np.bincount(groups, minlength=6)
    within = sum(np.cov(X[groups == g].T, bias=True) * sizes[g] for g in range(6)) / 60
    loss = covariance_loss(X, means, sample_weight_Y=sizes)
    assert loss == pytest.approx(np.linalg.norm(within), rel=1e-12)


def test_covariance_loss_validation():
    with pytest.raises(ValueError, match="X and Y"):
        covariance_loss(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        covariance_loss(np.zeros((3, 2)), np.full((3, 2), np.nan))


# ----------------------------------------------------------------------- scorers


class NoisyBootstrap(BaseEstimator):
    """Test synthesizer: bootstrap rows; a fraction ``noise`` is replaced by row 0."""

    def __init__(self, noise=0.0):
        self.noise = noise

    def fit(self, X, y=None):
        self.X_ = check_array(X, dtype=np.float64)
        return self

    def sample(self, n_samples=None, random_state=None):
        rng = np.random.default_rng(random_state)
        n = len(self.X_) if n_samples is None else n_samples
        rows = self.X_[rng.integers(0, len(self.X_), n)]
        rows[rng.random(n) < self.noise] = self.X_[0]
        return rows


class DecodingPipeline(Pipeline):
    def sample(self, n_samples=None, random_state=None):
        encoded = self[-1].sample(n_samples=n_samples, random_state=random_state)
        return self[:-1].inverse_transform(encoded)


def test_scorer_on_bare_synthesizer():
    rng = np.random.default_rng(15)
    X = _boolean(rng, 200, 5)
    est = NoisyBootstrap(noise=0.3).fit(X)
    scorer = make_marginal_scorer(degree=3, form="conjunction", statistic="rms")
    expected = marginal_error(X, est.sample(200, 0), 3, "conjunction", "rms")
    assert scorer(est, X) == pytest.approx(-expected)
    assert scorer(est, X) < 0
    bigger = make_marginal_scorer(n_samples=500, random_state=2)
    assert bigger(est, X) == pytest.approx(-marginal_error(X, est.sample(500, 2)))
    restored = pickle.loads(pickle.dumps(scorer))
    assert isinstance(restored, MarginalScorer)
    assert restored(est, X) == scorer(est, X)
    assert repr(scorer) == (
        "make_marginal_scorer(degree=3, form='conjunction', statistic='rms', "
        "space='encoded', n_samples=None, random_state=0, max_marginals=None, "
        "epsilon=None, noise='continuous', noise_random_state=None, workload=None)"
    )


def _categorical_data():
    rng = np.random.default_rng(16)
    a = rng.integers(0, 3, 300)
    return pd.DataFrame(
        {"a": a, "b": (a + (rng.random(300) < 0.2)) % 3, "c": rng.choice(["u", "v"], 300)}
    )


@pytest.mark.parametrize("space", ["encoded", "decoded"])
def test_scorer_in_grid_search_picks_the_best_parameter(space):
    df = _categorical_data()
    pipe = DecodingPipeline(
        [
            ("onehot", OneHotEncoder(sparse_output=False)),
            ("dummy", NoisyBootstrap()),
        ]
    )
    scorer = make_marginal_scorer(degree=2, space=space)
    search = GridSearchCV(pipe, {"dummy__noise": [0.6, 0.0, 0.3]}, scoring=scorer, cv=3)
    search.fit(df)
    assert search.best_params_ == {"dummy__noise": 0.0}
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)) and np.all(scores < 0)
    assert scores[1] > scores[2] > scores[0]


def test_scorer_spaces_compute_the_documented_metrics():
    df = _categorical_data()
    pipe = DecodingPipeline(
        [("onehot", OneHotEncoder(sparse_output=False)), ("dummy", NoisyBootstrap(0.2))]
    ).fit(df)
    encoded = make_marginal_scorer(degree=2)(pipe, df)
    Y = pipe[-1].sample(n_samples=300, random_state=0)
    assert encoded == pytest.approx(-marginal_error(pipe[:-1].transform(df), Y, 2))
    decoded = make_marginal_scorer(degree=2, space="decoded")(pipe, df)
    synth = pd.DataFrame(pipe.sample(n_samples=300, random_state=0), columns=df.columns)
    assert decoded == pytest.approx(-categorical_marginal_tvd(df, synth, 2))


def test_scorer_validation():
    with pytest.raises(ValueError, match="form='table'"):
        make_marginal_scorer(space="decoded", form="conjunction")
    with pytest.raises(ValueError, match="space"):
        make_marginal_scorer(space="raw")
    with pytest.raises(ValueError, match="degree"):
        make_marginal_scorer(degree=0)
    with pytest.raises(ValueError, match="n_samples"):
        make_marginal_scorer(n_samples=0)
    df = _categorical_data()
    plain = Pipeline(
        [("onehot", OneHotEncoder(sparse_output=False)), ("dummy", NoisyBootstrap())]
    ).fit(df)
    with pytest.raises(TypeError, match="space='decoded'"):
        make_marginal_scorer(space="decoded")(plain, df)
    with pytest.raises(TypeError, match="sample"):
        make_marginal_scorer()(OneHotEncoder().fit(df), df)


def test_encoded_scorer_scores_what_a_synthesis_pipeline_releases():
    # A SynthesisPipeline rounds fractional records block-wise (valid one-hot rows);
    # the synthesizer's own sample rounds each bit independently (invalid blocks).
    # The encoded-space score must be that of the released records.
    from skprivsynth import NoisyMicroaggregation, make_synthesis_pipeline
    from skprivsynth.preprocessing import BooleanEncoder

    df = _categorical_data()
    pipe = make_synthesis_pipeline(
        BooleanEncoder(categories={"a": 3, "b": 3, "c": ["u", "v"]}, random_state=0),
        NoisyMicroaggregation(epsilon=1.0, random_state=0),
    ).fit(df)
    encoder = pipe[:-1]
    released = encoder.transform(pipe.sample(n_samples=300, random_state=0))
    expected = -marginal_error(encoder.transform(df), released, 2)
    with pytest.warns(PrivacyLeakWarning):  # a DP synthesizer scored on real data
        score = make_marginal_scorer(degree=2)(pipe, df)
    assert score == pytest.approx(expected)
    bitwise = -marginal_error(encoder.transform(df), pipe[-1].sample(300, random_state=0), 2)
    assert bitwise != pytest.approx(expected)


def test_scorer_warns_that_selection_on_real_data_is_outside_the_dp_guarantee():
    from skprivsynth import MicroaggregationSynthesizer, NoisyMicroaggregation
    from skprivsynth.validation import BooleanValidator

    X = _boolean(np.random.default_rng(3), 300, 4)
    scorer = make_marginal_scorer(degree=2)
    dp = NoisyMicroaggregation(epsilon=1.0, random_state=0).fit(X)
    with pytest.warns(PrivacyLeakWarning, match="NoisyMicroaggregation on real data"):
        scorer(dp, X)
    pipe = DecodingPipeline(
        [
            ("validate", BooleanValidator()),
            ("synth", NoisyMicroaggregation(epsilon=1.0, random_state=0)),
        ]
    )
    with pytest.warns(PrivacyLeakWarning, match="each fit of a search"):
        scorer(pipe.fit(X), X)
    with warnings.catch_warnings():  # k-anonymous, not DP: nothing to warn about
        warnings.simplefilter("error", PrivacyLeakWarning)
        scorer(MicroaggregationSynthesizer(k=5, random_state=0).fit(X), X)


@pytest.mark.parametrize("overshoot", [1.5, -0.25, 1.0 + 1e-6])
def test_errors_outside_the_unit_interval_raise_instead_of_being_clipped(monkeypatch, overshoot):
    # Only float round-off (<= 1e-9) is clipped; anything beyond is a bug and raises, so
    # that the "error in [0, 1]" assertions of the tests can fail.
    rng = np.random.default_rng(0)
    X, Y = _boolean(rng, 30, 4), _boolean(rng, 20, 4)
    for path in ("_degree2_gram_errors", "_chunked_errors"):
        monkeypatch.setattr(boolean_module, path, lambda blocks, *a: np.full(6, overshoot))
    with pytest.raises(RuntimeError, match="outside \\[0, 1\\].*round-off"):
        marginal_errors(X, Y, 2)
    real = pd.DataFrame({"a": [0, 1, 1], "b": [1, 0, 1]})
    monkeypatch.setattr(categorical_module, "_categorical_tvd", lambda *a: overshoot)
    with pytest.raises(RuntimeError, match="categorical_marginal_errors"):
        categorical_marginal_errors(real, real, degree=1)


def test_round_off_overshoot_is_clipped(monkeypatch):
    rng = np.random.default_rng(0)
    X, Y = _boolean(rng, 30, 4), _boolean(rng, 20, 4)
    monkeypatch.setattr(boolean_module, "_degree2_gram_errors", lambda *a: np.full(6, 1.0 + 1e-12))
    np.testing.assert_array_equal(marginal_errors(X, Y, 2).errors, 1.0)


# ------------------------------------------------------------------------ DP scores


class _FixedSample:
    """A fitted 'synthesizer' whose sample is a fixed matrix (the scorer's sample)."""

    def __init__(self, Y):
        self.Y = Y

    def sample(self, n_samples=None, random_state=None):
        return self.Y


@pytest.mark.parametrize("form", ["table", "conjunction"])
@pytest.mark.parametrize("statistic", ["mean", "max", "rms"])
def test_dp_score_sensitivity_holds_on_every_neighbour(monkeypatch, form, statistic):
    # Every replace-one neighbour of a small X (each row replaced by each of the 8 rows
    # of {0,1}^3): the exact score moves by at most 1/n, the sensitivity the noise is
    # calibrated for; the bound is attained (so it is not loose by a factor).
    released = []

    def record(values, sensitivity, epsilon, rng, noise="continuous"):
        released.append((float(values[0]), sensitivity, epsilon))
        return np.asarray(values, dtype=float), 0.0

    monkeypatch.setattr(scorer_module, "laplace_mechanism", record)
    rng = np.random.default_rng(7)
    n, p = 12, 3
    X = _boolean(rng, n, p, prob=0.5)
    est = _FixedSample(np.zeros((n, p)))  # far from X: errors are not clipped at 0
    scorer = make_marginal_scorer(degree=2, form=form, statistic=statistic, epsilon=0.5)
    base = scorer(est, X)
    worst = 0.0
    for i in range(n):
        for row in itertools.product((0, 1), repeat=p):
            X1 = X.copy()
            X1[i] = row
            worst = max(worst, abs(scorer(est, X1) - base))
    assert {(s, e) for _, s, e in released} == {(1 / n, 0.5)}
    assert worst <= 1 / n + 1e-12
    if statistic != "rms":
        assert worst == pytest.approx(1 / n)


def test_categorical_tvd_moves_by_at_most_one_over_n_per_replaced_row():
    # The decoded-space score: worst case over all replacements of one row.
    real = pd.DataFrame({"a": list("xxyyzz"), "b": [0, 1, 0, 1, 0, 0]})
    synth = pd.DataFrame({"a": list("xxxxxx"), "b": [1, 1, 1, 1, 1, 1]})
    base = categorical_marginal_tvd(real, synth)
    worst = 0.0
    for i in range(len(real)):
        for a, b in itertools.product("xyzw", (0, 1, 2)):
            other = real.copy()
            other.iloc[i] = [a, b]
            worst = max(worst, abs(categorical_marginal_tvd(other, synth) - base))
    assert worst == pytest.approx(1 / len(real))


def test_dp_score_is_charged_before_its_noise_and_refused_over_budget(monkeypatch):
    from skprivsynth import BudgetExceededError, NoisyMicroaggregation, PrivacyAccountant

    X = _boolean(np.random.default_rng(3), 100, 4)
    dp = NoisyMicroaggregation(epsilon=1.0, random_state=0).fit(X)
    scorer = make_marginal_scorer(epsilon=0.1, noise_random_state=np.random.default_rng(1))
    accountant = PrivacyAccountant(epsilon=0.15)
    with accountant, warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # a DP score does not warn
        noisy = scorer(dp, X)
        monkeypatch.setattr(scorer_module, "laplace_mechanism", lambda *a, **k: 1 / 0)
        with pytest.raises(BudgetExceededError, match="DP marginal score of 100 rows"):
            scorer(dp, X)
    assert accountant.spent == 0.1 and -1 < noisy < 1


def test_dp_score_noise_scale_is_one_over_n_epsilon():
    X = _boolean(np.random.default_rng(4), 50, 3)
    est = _FixedSample(np.zeros((50, 3)))
    exact = make_marginal_scorer()(est, X)
    scorer = make_marginal_scorer(epsilon=2.0, noise_random_state=np.random.default_rng(2))
    noise = np.array([scorer(est, X) for _ in range(4000)]) - exact
    # Laplace(b): mean |noise| = b = 1/(50 * 2) = 0.01; 4000 draws give ~1.6 % error.
    assert np.mean(np.abs(noise)) == pytest.approx(0.01, rel=0.06)
    assert abs(np.median(noise)) < 0.002


def test_dp_score_validation():
    with pytest.raises(ValueError, match="epsilon must be a positive finite"):
        make_marginal_scorer(epsilon=0.0)
    with pytest.raises(TypeError, match="A fixed seed would add the same noise"):
        make_marginal_scorer(epsilon=1.0, noise_random_state=0)
    with pytest.raises(ValueError, match="noise must be one of"):
        make_marginal_scorer(epsilon=1.0, noise="gaussian")


def test_grid_search_over_k_of_microaggregation_stays_plain():
    # k-anonymous, not DP: the selected release is still k-anonymous, nothing warns.
    from skprivsynth import MicroaggregationSynthesizer

    X = _boolean(np.random.default_rng(5), 120, 4)
    search = GridSearchCV(
        MicroaggregationSynthesizer(random_state=0),
        {"k": [5, 10, 20]},
        cv=3,
        scoring=make_marginal_scorer(),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        search.fit(X)
    assert search.best_params_["k"] in (5, 10, 20)


def test_dp_score_withholds_validation_messages_quoting_private_values():
    X = _boolean(np.random.default_rng(6), 40, 3).astype(float)
    est = _FixedSample(np.zeros((40, 3)))
    X[17, 2] = 3.0  # outside {0, 1}: the exact scorer's message names the column only
    with pytest.raises(ValueError, match="column 2 has values outside") as info:
        make_marginal_scorer()(est, X)
    assert "17" not in str(info.value) and "3.0" not in str(info.value)
    with pytest.raises(ValueError, match="withheld") as info:
        make_marginal_scorer(epsilon=1.0)(est, X)
    assert "17" not in str(info.value) and "3.0" not in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


# ------------------------------------------------------------ missing values, numerics


def test_missing_values_are_a_level_of_their_own():
    """NaN is one more level: its rate is compared, with or without a domain."""
    real = pd.DataFrame({"a": ["x", "y", None, None], "b": [0.0, 1.0, np.nan, 1.0]})
    synth = pd.DataFrame({"a": ["x", "y", "y", None], "b": [0.0, 1.0, 1.0, 1.0]})
    # a: missing 1/2 real vs 1/4 synthetic, "y" 1/4 vs 1/2; b: missing 1/4 vs 0.
    np.testing.assert_allclose(categorical_marginal_errors(real, synth, 1).errors, [0.25, 0.25])
    declared = categorical_marginal_errors(real, synth, 1, domain={"a": ["x", "y"], "b": 2})
    np.testing.assert_allclose(declared.errors, [0.25, 0.25])
    assert categorical_marginal_tvd(real, real, 2, domain={"a": ["x", "y"], "b": 2}) == 0.0
    with pytest.warns(UserWarning, match=r"\['c'\] are numeric"):  # NaN left out of bins
        domain = evaluation_domain(real.assign(c=np.r_[np.arange(3.0), np.nan]), max_levels=2)
    assert domain["a"] == ("x", "y") and isinstance(domain["c"], Bins)


def test_undeclared_datetimes_are_compared_in_quantile_bins():
    times = pd.Series(pd.date_range("2013-01-01", periods=100, freq="h"))
    real = pd.DataFrame({"t": times})
    with pytest.warns(UserWarning, match=r"\['t'\] are numeric"):
        domain = evaluation_domain(real, n_bins=4)
    assert len(domain["t"]) == 4
    later = real.assign(t=times + pd.Timedelta("50h"))
    with pytest.warns(UserWarning):
        assert (
            categorical_marginal_tvd(real, later, 1, domain=evaluation_domain(real, n_bins=4))
            == 0.5
        )


def test_numeric_column_errors_on_known_distributions():
    rng = np.random.default_rng(0)
    x = rng.normal(size=20_000)
    real = pd.DataFrame({"x": x, "label": rng.choice(["a", "b"], x.size)})
    same = numeric_column_errors(real, real.sample(frac=1.0, random_state=1))
    assert list(same.index) == ["x"]  # text columns are skipped
    assert same.loc["x", "ks"] == 0.0 and same.loc["x", "wasserstein_iqr"] == 0.0
    assert same.loc["x", "std_ratio"] == 1.0 and same.loc["x", "outside_range"] == 0.0
    assert same.loc["x", "tail_ratio"] == pytest.approx(1.0, abs=0.05)
    disjoint = numeric_column_errors(real, real.assign(x=x + 100.0)).loc["x"]
    assert disjoint["ks"] == 1.0 and disjoint["outside_range"] > 0.99
    assert disjoint["wasserstein_iqr"] == pytest.approx(100.0 / 1.349, rel=0.02)  # IQR of N(0,1)
    assert disjoint["tail_ratio"] == pytest.approx(1000.0)  # every value beyond the 99.9 %
    wide = numeric_column_errors(real, real.assign(x=2.0 * rng.normal(size=x.size))).loc["x"]
    assert wide["std_ratio"] == pytest.approx(2.0, rel=0.03)
    # N(0, 4): P(2Z > q) with q the 99.9 % of N(0,1), 3.09: P(Z > 1.545) = 0.061.
    assert wide["tail_ratio"] == pytest.approx(61.0, rel=0.15)
    # sup_t |Phi(t) - Phi(t/2)|, reached where phi(t) = phi(t/2)/2: t^2 = 8 ln 2 / 3.
    t = np.sqrt(8.0 * np.log(2.0) / 3.0)
    assert wide["ks"] == pytest.approx(norm.cdf(t) - norm.cdf(t / 2.0), abs=0.015)
    # Missing values: compared as a rate, the others on their values.
    holes = real.assign(x=np.where(np.arange(x.size) % 10 == 0, np.nan, x))
    errors = numeric_column_errors(real, holes).loc["x"]
    assert errors["missing_rate_error"] == pytest.approx(0.1) and errors["ks"] < 0.01
    rates = missing_rates(real, holes)
    assert rates.loc["x"].tolist() == pytest.approx([0.0, 0.1, 0.1])
    assert rates.loc["label"].tolist() == [0.0, 0.0, 0.0]


def test_numeric_column_errors_of_dates_and_point_masses():
    days = pd.Series(pd.date_range("2013-01-01", periods=365, freq="D"))
    real = pd.DataFrame({"day": days, "gain": np.r_[np.zeros(300), np.arange(1.0, 66.0)]})
    synth = real.assign(day=days + pd.Timedelta("365D"), gain=0.0)
    errors = numeric_column_errors(real, synth)
    assert errors.loc["day", "ks"] == 1.0 and errors.loc["day", "outside_range"] == 1.0
    assert errors.loc["gain", "std_ratio"] == 0.0 and errors.loc["gain", "tail_ratio"] == 0.0
    # IQR 0 (mostly zeros): the distance is scaled by the real standard deviation.
    gain = real["gain"].to_numpy()
    assert errors.loc["gain", "wasserstein_iqr"] == pytest.approx(gain.mean() / gain.std())


def test_tail_ratio_of_a_top_coded_column_is_about_one_when_the_tail_is_kept():
    """Issue 45: with ties at the real 99.9th percentile (a top-coded value held by 1 %
    of the rows), no real value is above it, and a synthetic column drawn from the same
    distribution had tail ratio 0 on main, a false alarm."""
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"age": np.minimum(rng.integers(0, 120, 20_000), 105)})
    assert (real["age"] == 105).mean() > 0.1
    same = pd.DataFrame({"age": np.minimum(rng.integers(0, 120, 20_000), 105)})
    assert numeric_column_errors(real, same).loc["age", "tail_ratio"] == pytest.approx(1.0, abs=0.1)
    lower = same.clip(upper=104)  # the top value never reached
    assert numeric_column_errors(real, lower).loc["age", "tail_ratio"] == 0.0
    # Continuous values: the share above the 99.9th percentile is about 0.001 itself.
    x = pd.DataFrame({"x": rng.normal(size=20_000)})
    assert numeric_column_errors(x, x * 0.5).loc["x", "tail_ratio"] == 0.0


def test_numeric_verdicts_flag_the_std_ratio_band_and_the_tail_ratio():
    errors = pd.DataFrame(
        {
            "std_ratio": [1.0, 0.8, 1.25, 0.79, 1.26, 1.0, 0.48, np.nan, 1.0],
            "tail_ratio": [1.0, 0.3, 5.0, 1.0, 1.0, 0.29, 0.0, np.nan, 0.05],
        },
        index=["ok", "low edge", "high edge", "narrow", "wide", "thin", "cost", "empty", "cut"],
    )
    # The sampling floor, when given: below it and below 0.3 is flagged, at it is not.
    floors = pd.DataFrame(
        {
            "std_ratio": [1.0, 1.0, 1.0],
            "tail_ratio": [0.0, 0.25, 0.25],
            "tail_floor": [0.0, 0.4, 0.2],
        },
        index=["small", "below", "at or above"],
    )
    flagged = numeric_verdicts(floors)["flagged"].to_dict()
    assert flagged == {"small": False, "below": True, "at or above": False}
    verdicts = numeric_verdicts(errors)
    assert list(verdicts.columns) == ["flagged", "verdict"]
    assert verdicts["flagged"].to_dict() == {
        "ok": False, "low edge": False, "high edge": False, "narrow": True, "wide": True,
        "thin": True, "cost": True, "empty": True, "cut": True,
    }  # fmt: skip
    text = verdicts["verdict"]
    assert text["cost"] == (
        "The synthetic cost is narrower than the real one (std ratio 0.48) and has almost "
        "none of its top 0.1 % (tail ratio 0.00): the tail was not reproduced."
    )
    assert text["ok"] == (
        "The synthetic ok has the real spread (std ratio 1.00) and reaches its top 0.1 % "
        "(tail ratio 1.00)."
    )
    assert "wider than the real one (std ratio 1.26)" in text["wide"]
    assert text["wide"].endswith("the spread was not reproduced.")
    assert "but too few of its top 0.1 % (tail ratio 0.29)" in text["thin"]
    assert "but almost none" in text["cut"] and "could not be compared" in text["empty"]
    assert "has more values than it in its top 0.1 % (tail ratio 5.00)" in text["high edge"]
    line = table_verdict(verdicts)
    assert line.startswith("6 of 9 numeric columns flagged (narrow, wide, thin, cost, empty, cut)")
    assert table_verdict(verdicts.iloc[:3]).startswith("No numeric column flagged: all 3")
    assert table_verdict(verdicts.iloc[:0]) == "No numeric column compared as a distribution."


def test_tail_floor_is_the_fifth_percentile_of_a_resample():
    # A resample of m real values puts Binomial(m, p) of them in the real top 0.1 %:
    # the floor is its 5th percentile, so a resample falls below it in at most 5 % of
    # draws and at or below it in at least 5 %.
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.lognormal(8, 1, 5000)})
    floor = numeric_column_errors(real, real).loc["x", "tail_floor"]
    tails = np.array(
        [
            numeric_column_errors(real, real.iloc[rng.integers(0, 5000, 5000)]).loc[
                "x", "tail_ratio"
            ]
            for _ in range(400)
        ]
    )
    assert 0 < floor < 1
    assert np.mean(tails < floor) <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 400)
    assert np.mean(tails <= floor) >= 0.05 - 3 * math.sqrt(0.05 * 0.95 / 400)
    # A tail of one expected value: a resample often misses it, the floor is 0.
    small = pd.DataFrame({"x": rng.lognormal(8, 1, 1000)})
    assert numeric_column_errors(small, small).loc["x", "tail_floor"] == 0.0
    large = pd.DataFrame({"x": rng.lognormal(8, 1, 20_000)})
    assert numeric_column_errors(large, large).loc["x", "tail_floor"] == pytest.approx(0.65)


def test_a_resample_of_a_small_table_keeps_its_tail_verdict():
    # On main, 37 % of the resamples of 1,000 normal values (std ratio within 5 %)
    # were flagged: one expected value in the top 0.1 %, missed with probability
    # (1 − 1/1000)^1000.  The floor is 0 there: none is.
    rng = np.random.default_rng(1)
    real = pd.DataFrame({"x": rng.normal(size=1000)})
    resamples = [real.iloc[rng.integers(0, 1000, 1000)] for _ in range(100)]
    errors = [numeric_column_errors(real, r).loc["x"] for r in resamples]
    missed = [e for e in errors if e["tail_ratio"] == 0]
    assert len(missed) > 20  # the situation arises
    for e in missed:
        verdict = numeric_verdicts(e.to_frame().T)
        assert not verdict["flagged"].iloc[0]
        assert (
            "as a resample of the real values of this size can have (floor 0.00)"
            in (verdict["verdict"].iloc[0])
        )
    # A table large enough to tell still flags a cut tail.
    big = pd.DataFrame({"x": rng.lognormal(8, 1, 20_000)})
    cut = big.clip(upper=big["x"].quantile(0.99))
    assert numeric_verdicts(numeric_column_errors(big, cut)).loc["x", "flagged"]


def test_log_axis_columns_are_positive_and_skewed_to_the_right():
    rng = np.random.default_rng(0)
    n = 5000
    cost = rng.lognormal(8, 1, n)
    real = pd.DataFrame(
        {
            "cost": cost,  # skewness about 6
            "lab": rng.lognormal(0, 0.3, n),  # skewness about 1
            "age": rng.normal(50, 10, n),
            "income": np.where(rng.random(n) < 0.3, 0.0, cost),  # zeros: linear
            "left": -cost,
            "when": pd.Timestamp("2024-01-01") + pd.to_timedelta(cost, "s"),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    real.loc[::7, "cost"] = np.nan  # missing values are left out
    assert log_axis_columns(real) == ["cost"]
