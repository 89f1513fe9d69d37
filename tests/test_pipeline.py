import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score

from skprivsynth import (
    CorrelatedGaussianMechanism,
    MarginalSynthesizer,
    MicroaggregationSynthesizer,
    NoisyMicroaggregation,
    PrivacyAccountant,
    PrivacyLeakWarning,
    ReducedSpaceLP,
    SynthesisPipeline,
    make_private_pipeline,
    make_synthesis_pipeline,
)
from skprivsynth.metrics import make_marginal_scorer
from skprivsynth.preprocessing import BooleanEncoder
from skprivsynth.validation import BooleanValidator


@pytest.fixture
def small_adult(adult):
    return adult.data.iloc[:6000].reset_index(drop=True)


def make_pipe(adult, k=10):
    return make_synthesis_pipeline(
        BooleanEncoder(categories=adult.domain, max_bins=8, random_state=0),
        MicroaggregationSynthesizer(k=k, random_state=0),
    )


def test_step_names_and_class():
    pipe = make_synthesis_pipeline(BooleanValidator(), MicroaggregationSynthesizer())
    assert isinstance(pipe, SynthesisPipeline)
    assert [name for name, _ in pipe.steps] == ["booleanvalidator", "microaggregationsynthesizer"]


def test_dataframe_in_dataframe_out(adult, small_adult):
    pipe = make_pipe(adult).fit(small_adult)
    synthetic = pipe.sample(500, random_state=1)
    assert isinstance(synthetic, pd.DataFrame)
    assert list(synthetic.columns) == list(small_adult.columns)
    assert (synthetic.dtypes == small_adult.dtypes).all()
    assert len(synthetic) == 500
    assert len(pipe.sample()) == len(small_adult)  # default: n seen in fit
    for column, size in adult.domain.items():
        assert synthetic[column].between(0, size - 1).all()
    pd.testing.assert_frame_equal(pipe.sample(50, random_state=3), pipe.sample(50, random_state=3))


def test_clone_set_params_and_unfitted(adult, small_adult):
    pipe = make_pipe(adult)
    with pytest.raises(NotFittedError):
        pipe.sample(3)
    twin = clone(pipe).set_params(microaggregationsynthesizer__k=50)
    assert isinstance(twin, SynthesisPipeline)
    twin.fit(small_adult)
    assert twin[-1].group_sizes_.min() >= 50
    assert not hasattr(pipe[-1], "records_")  # clone did not fit the original


def test_grid_search_picks_smallest_k_and_cross_val_score(adult, small_adult):
    scorer = make_marginal_scorer(degree=2)
    search = GridSearchCV(
        make_pipe(adult), {"microaggregationsynthesizer__k": [3, 100, 1000]}, scoring=scorer, cv=3
    ).fit(small_adult)
    # Groups of 1000 rows (4 groups per training fold) wash out the 2-way structure:
    # the held-out marginal score must rank them last.  Between k = 3 and k = 100 the
    # difference is below the sampling noise of 2,000-row folds, so either may win.
    scores = search.cv_results_["mean_test_score"]
    assert search.best_params_["microaggregationsynthesizer__k"] in (3, 100)
    assert scores[2] < min(scores[0], scores[1])
    assert isinstance(search.best_estimator_.sample(10), pd.DataFrame)
    cv_scores = cross_val_score(make_pipe(adult), small_adult, scoring=scorer, cv=3)
    assert cv_scores.shape == (3,) and np.all(cv_scores <= 0)


def test_pipeline_on_boolean_array_with_validator(boolean_data):
    pipe = make_synthesis_pipeline(BooleanValidator(), MicroaggregationSynthesizer(k=5))
    out = pipe.fit(boolean_data).sample(20, random_state=0)
    assert out.shape == (20, boolean_data.shape[1])
    bad = boolean_data.copy()
    bad[3, 2] = 0.5
    with pytest.raises(ValueError, match="column 2"):
        pipe.fit(bad)


def test_blockwise_rounding_keeps_one_way_marginals_and_beats_coordinatewise(adult):
    data = adult.data.iloc[:10_000].reset_index(drop=True)
    pipe = make_synthesis_pipeline(
        BooleanEncoder(categories=adult.domain, random_state=0),
        MicroaggregationSynthesizer(k=10, random_state=0),
    ).fit(data)
    synth, encoder = pipe[-1], pipe[0]
    synthetic = pipe.sample(200_000, random_state=0)
    # Expected category frequencies of the model: sum_j w_j y_j over the block.
    block = encoder.feature_blocks_[list(data.columns).index("education-num")]
    expected = (synth.weights_ @ synth.records_)[block]
    observed = np.bincount(synthetic["education-num"], minlength=expected.size) / len(synthetic)
    np.testing.assert_allclose(observed, expected, atol=0.004)
    # Coordinate-wise rounding creates invalid one-hot blocks that the decoder must
    # repair at random; one-hot-aware rounding does not, and is more accurate.
    from skprivsynth.metrics import categorical_marginal_tvd

    coordinatewise = encoder.inverse_transform(synth.sample(len(data), random_state=0))
    blockwise = pipe.sample(len(data), random_state=0)
    tvd_coordinatewise = categorical_marginal_tvd(
        data, coordinatewise, degree=2, domain=adult.domain
    )
    tvd_blockwise = categorical_marginal_tvd(data, blockwise, degree=2, domain=adult.domain)
    assert tvd_blockwise < 0.8 * tvd_coordinatewise


# ----------------------------------------------------------- make_private_pipeline
def test_private_pipeline_encoding_policy(adult):
    from skprivsynth import (
        CorrelatedGaussianMechanism,
        MarginalSynthesizer,
        NoisyMicroaggregation,
        ReducedSpaceLP,
        make_private_pipeline,
    )

    def encoder(synthesizer, **kwargs):
        return make_private_pipeline(synthesizer, adult.domain, **kwargs)[0]

    lp = encoder(ReducedSpaceLP(epsilon=1.0))
    assert (lp.encoding, lp.max_bins, lp.level_weights) == ("onehot", 8, "private")
    assert encoder(NoisyMicroaggregation(epsilon=1.0)).max_bins == 8
    # The whole cube {0,1}^p with 2^p <= max_universe = 2^20: 14 bits at max_bins=2
    # (4 would need 26 bits).
    cube = encoder(CorrelatedGaussianMechanism(epsilon=1.0))
    assert (cube.encoding, cube.max_bins) == ("binary", 2)
    assert encoder(CorrelatedGaussianMechanism(epsilon=1.0, max_universe=2**26)).max_bins == 4
    codes = encoder(MarginalSynthesizer())
    assert (codes.encoding, codes.max_bins, codes.level_weights) == ("ordinal", None, None)
    plain = encoder(MicroaggregationSynthesizer())
    assert (plain.encoding, plain.max_bins, plain.level_weights) == ("onehot", None, None)
    assert encoder(ReducedSpaceLP(epsilon=1.0), decode_share=0).level_weights is None
    assert encoder(ReducedSpaceLP(epsilon=1.0, noise="discrete")).noise == "discrete"
    with pytest.raises(ValueError, match="decode_share"):
        encoder(ReducedSpaceLP(epsilon=1.0), decode_share=-1)


def test_private_pipeline_composes_the_privacy_reports(adult, small_adult):
    from skprivsynth import NoisyMicroaggregation, make_private_pipeline

    pipe = make_private_pipeline(
        NoisyMicroaggregation(epsilon=1.0, random_state=0), adult.domain, random_state=0
    )
    assert not hasattr(pipe, "privacy_report_")
    pipe.fit(small_adult)
    report = pipe.privacy_report_
    # the synthesizer's epsilon is the run's: 0.1 of it decodes, the fit spends 0.9
    assert report.epsilon == pytest.approx(1.0) and report.delta == 0
    assert len(report.entries) == len(pipe[-1].privacy_report_.entries) + 1
    assert pipe[0].privacy_report_.epsilon == pytest.approx(0.1)
    assert pipe[-1].privacy_report_.epsilon == pytest.approx(0.9)
    assert pipe[-1].epsilon == 1.0 and pipe.decode_share == 0.1  # parameters as given
    uniform = make_private_pipeline(
        NoisyMicroaggregation(epsilon=1.0, random_state=0), adult.domain, decode_share=0
    ).fit(small_adult)
    assert uniform.privacy_report_.epsilon == pytest.approx(1.0)
    assert uniform[-1].privacy_report_.epsilon == pytest.approx(1.0)
    assert not hasattr(make_pipe(adult).fit(small_adult), "privacy_report_")  # not DP


# ------------------------------------------------------------- feature blocks
def test_feature_blocks_reach_the_synthesizer(adult, small_adult):
    from skprivsynth import ReducedSpaceLP

    lp = ReducedSpaceLP(epsilon=1.0, m=300, workload="block_tables", random_state=0)
    pipe = make_synthesis_pipeline(BooleanEncoder(categories=adult.domain, max_bins=8), lp)
    pipe.fit(small_adult)
    assert lp.feature_blocks_ == pipe[0].feature_blocks_
    assert lp.get_params()["feature_blocks"] is None  # fit leaves the parameter as set
    assert clone(pipe).get_params()["reducedspacelp__feature_blocks"] is None
    # Without blocks, block tables are refused: the blocks did come from the encoder.
    with pytest.raises(ValueError, match="feature_blocks"):
        clone(lp).fit(pipe[0].transform(small_adult))
    # Binary codes have no one-hot blocks: nothing is passed.
    binary = make_synthesis_pipeline(
        BooleanEncoder(categories=adult.domain, max_bins=2, encoding="binary"),
        ReducedSpaceLP(epsilon=1.0, m=300, random_state=0),
    ).fit(small_adult)
    assert binary[-1].feature_blocks_ is None


# ------------------------------------------------------ strict privacy by default
def test_learned_domain_refused_for_dp_before_any_release(adult, small_adult, monkeypatch):
    from skprivsynth import NoisyMicroaggregation, privacy

    def no_release(*args, **kwargs):
        raise AssertionError("a release happened before the domain check")

    monkeypatch.setattr(privacy, "laplace_mechanism", no_release)
    partial = {c: k for c, k in adult.domain.items() if c not in ("age", "sex")}
    pipe = make_synthesis_pipeline(
        BooleanEncoder(categories=partial, max_bins=8, level_weights="private"),
        NoisyMicroaggregation(epsilon=1.0),
        allow_learned_domain=False,
    )
    with pytest.raises(ValueError, match=r"\['age', 'sex'\].*allow_learned_domain=True"):
        pipe.fit(small_adult)
    assert not hasattr(pipe[0], "n_features_out_") and not hasattr(pipe[-1], "records_")
    auto = make_synthesis_pipeline(
        BooleanEncoder(), NoisyMicroaggregation(epsilon=1.0), allow_learned_domain=False
    )
    with pytest.raises(ValueError, match="'fnlwgt'"):
        auto.fit(small_adult)


def test_learned_domain_is_refused_by_default_opt_in_warns_non_dp_is_unchanged(adult, small_adult):
    from skprivsynth import NoisyMicroaggregation
    from skprivsynth.exceptions import PrivacyLeakWarning

    partial = {c: k for c, k in adult.domain.items() if c != "age"}
    pipe = make_synthesis_pipeline(
        BooleanEncoder(categories=partial, max_bins=8),
        NoisyMicroaggregation(epsilon=1.0, random_state=0),
    )
    assert pipe.get_params()["allow_learned_domain"] is False  # strict by default
    with pytest.raises(ValueError, match=r"columns \['age'\]"):
        pipe.fit(small_adult)
    assert not hasattr(pipe[-1], "privacy_report_")  # refused before any release
    pipe.set_params(allow_learned_domain=True)
    with pytest.warns(PrivacyLeakWarning, match="'age'"):
        pipe.fit(small_adult)
    with pytest.warns(PrivacyLeakWarning, match="'age'"):  # k-anonymity: a warning only
        make_synthesis_pipeline(
            BooleanEncoder(categories=partial), MicroaggregationSynthesizer(k=10)
        ).fit(small_adult)


# ----------------------------------------------------------------------- score
def test_score_is_the_decoded_marginal_tvd_and_cross_val_score_runs(adult, small_adult):
    from skprivsynth import NoisyMicroaggregation
    from skprivsynth.exceptions import PrivacyLeakWarning
    from skprivsynth.metrics import categorical_marginal_tvd

    pipe = make_pipe(adult).fit(small_adult)
    score = pipe.score(small_adult)
    synthetic = pipe.sample(len(small_adult), random_state=0)
    assert score == -categorical_marginal_tvd(small_adult, synthetic, domain=adult.domain)
    coarse = make_pipe(adult, k=2000).fit(small_adult)
    assert coarse.score(small_adult) < score <= 0  # greater is better
    scores = cross_val_score(make_pipe(adult), small_adult, cv=3)
    decoded = make_marginal_scorer(degree=2, space="decoded")
    expected = cross_val_score(make_pipe(adult), small_adult, cv=3, scoring=decoded)
    np.testing.assert_allclose(scores, expected)
    dp = make_synthesis_pipeline(
        BooleanEncoder(categories=adult.domain, max_bins=8),
        NoisyMicroaggregation(epsilon=1.0, random_state=0),
    ).fit(small_adult)
    with pytest.warns(PrivacyLeakWarning, match="not covered by its epsilon"):
        dp.score(small_adult)


def test_synthesizer_score_and_cross_val_score_without_scoring(boolean_data):
    from skprivsynth import NoisyMicroaggregation
    from skprivsynth.exceptions import PrivacyLeakWarning

    model = MicroaggregationSynthesizer(k=10, random_state=0).fit(boolean_data)
    assert model.score(boolean_data) == make_marginal_scorer(degree=2)(model, boolean_data)
    coarse = MicroaggregationSynthesizer(k=1000, random_state=0).fit(boolean_data)
    assert coarse.score(boolean_data) < model.score(boolean_data) <= 0  # greater is better
    scores = cross_val_score(MicroaggregationSynthesizer(k=10, random_state=0), boolean_data, cv=3)
    assert scores.shape == (3,) and np.all(scores <= 0)
    dp = NoisyMicroaggregation(epsilon=1.0, random_state=0).fit(boolean_data)
    with pytest.warns(PrivacyLeakWarning):
        dp.score(boolean_data)


def test_score_of_numeric_columns_reads_the_declared_bins():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.random(600) * 10, "g": rng.choice(["a", "b"], 600)})
    domain = {"x": {"bins": [0, 5, 10]}, "g": ["a", "b"]}
    pipe = make_synthesis_pipeline(
        BooleanEncoder(categories=domain), MicroaggregationSynthesizer(k=5, random_state=0)
    ).fit(frame)
    # Decoded values are drawn inside their bins, never equal to the real ones: read
    # as categories they would give a score near -1; read in the bins, near 0.
    assert pipe.score(frame) > -0.1


def test_integer_code_synthesizer_score(adult, small_adult):
    from skprivsynth import MarginalSynthesizer
    from skprivsynth.exceptions import PrivacyLeakWarning

    codes = small_adult.to_numpy()
    model = MarginalSynthesizer(random_state=0).fit(codes, domain=list(adult.domain.values()))
    with pytest.warns(PrivacyLeakWarning):
        score = model.score(codes)
    assert -0.2 < score <= 0
    assert not hasattr(MicroaggregationSynthesizer(rounding=False), "score")  # real values


def test_undeclared_columns_are_read_from_the_schema_only(boolean_data):
    from skprivsynth import NoisyMicroaggregation

    codes = boolean_data[:, :3].astype(int)
    pipe = make_synthesis_pipeline(
        BooleanEncoder(categories=[2, None, 2]),
        NoisyMicroaggregation(epsilon=1.0),
        allow_learned_domain=False,
    )
    with pytest.raises(ValueError, match=r"columns \[1\]"):
        pipe.fit(codes)
    # A bool dtype fixes the domain {False, True}: nothing is learned for it.
    frame = pd.DataFrame({"flag": boolean_data[:, 0] > 0, "code": codes[:, 1]})
    pipe = make_synthesis_pipeline(
        BooleanEncoder(categories={"code": 2}),
        NoisyMicroaggregation(epsilon=1.0, random_state=0),
        allow_learned_domain=False,
    ).fit(frame)
    assert pipe[0].learned_columns_ == []


def test_private_pipeline_without_a_domain_is_refused_unless_allowed(small_adult):
    from skprivsynth import NoisyMicroaggregation, make_private_pipeline
    from skprivsynth.exceptions import PrivacyLeakWarning

    data = small_adult[["age", "sex", "race"]]
    pipe = make_private_pipeline(NoisyMicroaggregation(epsilon=1.0), None)
    assert pipe[0].categories == "auto" and not pipe.allow_learned_domain
    with pytest.raises(ValueError, match=r"\['age', 'sex', 'race'\]"):
        pipe.fit(data)
    allowed = make_private_pipeline(
        NoisyMicroaggregation(epsilon=1.0, random_state=0), None, allow_learned_domain=True
    )
    with pytest.warns(PrivacyLeakWarning, match="learned the domain"):
        allowed.fit(data)
    assert allowed.sample(5).shape == (5, 3)


def test_memory_cached_transformers_are_the_fitted_steps(adult, small_adult, tmp_path):
    from skprivsynth import ReducedSpaceLP

    pipe = SynthesisPipeline(
        [
            ("encode", BooleanEncoder(categories=adult.domain, max_bins=8, random_state=0)),
            ("synth", ReducedSpaceLP(m=200, random_state=0)),
        ],
        memory=str(tmp_path),
    ).fit(small_adult)
    assert pipe["synth"].feature_blocks_ == pipe["encode"].feature_blocks_
    assert pipe.sample(5, random_state=0).shape == (5, 14)


def test_private_pipeline_warns_once_at_fit_when_a_dp_release_has_a_known_seed(adult):
    from skprivsynth import NoisyMicroaggregation, make_private_pipeline
    from skprivsynth.exceptions import PrivacyLeakWarning

    data = adult.data.iloc[:2000]

    def leak_warnings(pipe):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pipe.fit(data)
        return [str(w.message) for w in caught if issubclass(w.category, PrivacyLeakWarning)]

    # The decoding weights of coarsened columns are a DP release, even in front of
    # microaggregation: seeding them with an int warns.
    pipe = make_private_pipeline(
        MicroaggregationSynthesizer(), adult.domain, max_bins=8, random_state=0
    )
    (message,) = leak_warnings(pipe)
    assert message.startswith("BooleanEncoder(random_state=0) seeds a")
    pipe = make_private_pipeline(
        NoisyMicroaggregation(random_state=3), adult.domain, decode_share=0
    )
    (message,) = leak_warnings(pipe)
    assert message.startswith("NoisyMicroaggregation(random_state=3) seeds a")
    # Two seeded steps: one warning naming both, not one per step.
    pipe = make_private_pipeline(
        NoisyMicroaggregation(random_state=1), adult.domain, max_bins=8, random_state=0
    )
    (message,) = leak_warnings(pipe)
    assert message.startswith(
        "BooleanEncoder(random_state=0) and NoisyMicroaggregation(random_state=1) seed"
    )
    # A seed set after the pipeline is made is the one warned about.
    pipe.set_params(noisymicroaggregation__random_state=7)
    assert "NoisyMicroaggregation(random_state=7)" in leak_warnings(pipe)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        # No DP release seeded: nothing coarsened is released, or no int seed.
        make_private_pipeline(
            MicroaggregationSynthesizer(),
            adult.domain,
            max_bins=8,
            decode_share=0,
            random_state=0,
        ).fit(data)
        make_private_pipeline(NoisyMicroaggregation(), adult.domain).fit(data)


# ------------------------------------------------- neighbours: public dtypes
def _neighbours(column, value, row=7, n=40, seed=0):
    """A table D and its replace-one neighbour D' (``column`` set to ``value`` in ``row``)."""
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({"c": rng.choice(["a", "c"], n), "k": rng.integers(0, 4, n)})
    other = data.copy()
    other[column] = other[column].astype(object)
    other.loc[row, column] = value
    return data, other


@pytest.mark.filterwarnings("ignore::skprivsynth.exceptions.PrivacyLeakWarning")
def test_a_categorical_column_decodes_to_the_declared_categories_on_neighbours():
    """The only 'b' in one row of D' gave the categories ['a', 'c', 'b'] on D (observed,
    then declared) and ['a', 'b', 'c'] on D'."""
    from skprivsynth import MarginalSynthesizer, make_private_pipeline

    data, other = _neighbours("c", "b")
    domain = {"c": ["a", "b", "c"], "k": {"levels": [0, 1, 2, 3], "ordered": True}}
    dtypes = []
    for table in (data, other):
        table = table.astype({"c": "category", "k": "category"})
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=1.0, random_state=0), domain, random_state=0
        ).fit(table)
        sample = pipe.sample(50, random_state=0)
        # Unordered CategoricalDtypes compare equal whatever the order of their categories.
        dtypes.append({c: (list(sample[c].cat.categories), sample[c].cat.ordered) for c in sample})
    assert dtypes[0] == dtypes[1]
    assert dtypes[0] == {"c": (["a", "b", "c"], False), "k": ([0, 1, 2, 3], True)}


def _ranged_table(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    data = pd.DataFrame(
        {
            "dist": np.round(rng.gamma(2.0, 500.0, n).clip(0, 10000)),
            "c": rng.integers(0, 20, n),
            "b": rng.integers(0, 3, n),
        }
    )
    domain = {"dist": {"type": "integer", "range": [0, 10000]}, "c": 20, "b": 3}
    return data, domain


_ROLES = [
    "encoder bins",
    "encoder grid points",
    "encoder level frequencies",
    "encoder decoding",
    "synthesizer fit",
    "synthesizer sampling",
    "sample",
    "sample decoding",
]


@pytest.mark.parametrize("seed", [0, 7])
def test_one_seed_gives_every_role_a_stream_of_its_own(monkeypatch, seed):
    # The same int given to the encoder, the synthesizer and sample: no two roles
    # start from the same generator state (no noise repeated between releases).
    from seed_streams import assert_pairwise_different, record_stream_starts

    from skprivsynth import NoisyMicroaggregation, make_private_pipeline
    from skprivsynth.exceptions import PrivacyLeakWarning

    data, domain = _ranged_table()
    starts = record_stream_starts(monkeypatch)
    with pytest.warns(PrivacyLeakWarning):
        pipe = make_private_pipeline(
            NoisyMicroaggregation(epsilon=1.0, random_state=seed), domain, random_state=seed
        )
        pipe.fit(data).sample(50, random_state=seed)
    assert_pairwise_different(starts, _ROLES)


@pytest.mark.parametrize(
    "seed",
    [3, np.random.default_rng(3), np.random.RandomState(3)],
    ids=["int", "Generator", "RandomState"],
)
def test_any_seed_but_none_warns_for_a_seeded_release(adult, seed):
    from skprivsynth import NoisyMicroaggregation, make_private_pipeline
    from skprivsynth.exceptions import PrivacyLeakWarning

    data = adult.data.iloc[:1000]
    with pytest.warns(PrivacyLeakWarning, match=r"BooleanEncoder\(random_state=.*\) seed"):
        make_private_pipeline(
            MicroaggregationSynthesizer(), adult.domain, max_bins=8, random_state=seed
        ).fit(data)
    with pytest.warns(PrivacyLeakWarning, match=r"NoisyMicroaggregation\(random_state="):
        make_private_pipeline(
            NoisyMicroaggregation(random_state=seed), adult.domain, decode_share=0
        ).fit(data)


def _ranged_table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(0, 120, n),  # a wide integer range: private bins
            "x": rng.uniform(0, 10, n),
            "amount": rng.exponential(20, n),  # declared bins: decoding weights
            "c": rng.choice(list("abcdefghijkl"), n),  # 12 levels: coarsened to 8
        }
    )
    domain = {
        "age": {"type": "integer", "range": [0, 120]},
        "x": {"type": "float", "range": [0, 10]},
        "amount": {"bins": [0, 10, 30, 100], "clip": True},
        "c": list("abcdefghijkl"),
    }
    return frame, domain


@pytest.mark.parametrize(
    "make",
    [
        lambda e: MarginalSynthesizer(epsilon=e, random_state=0),
        lambda e: NoisyMicroaggregation(epsilon=e, random_state=0),
        lambda e: ReducedSpaceLP(epsilon=e, m=300, random_state=0),
    ],
    ids=["marginal", "noisy-microaggregation", "reduced-space-lp"],
)
@pytest.mark.parametrize("epsilon", [0.3, 2.0])
def test_the_epsilon_given_is_the_whole_runs(make, epsilon):
    frame, domain = _ranged_table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        pipe = make_private_pipeline(make(epsilon), domain, random_state=0).fit(frame)
    report = pipe.privacy_report_
    assert report.epsilon == pytest.approx(epsilon, rel=1e-9)
    # One conversion of the zCDP part, at the synthesizer's delta; none for a pure run.
    assert report.delta == pytest.approx(1e-9 if report.rho else 0.0)
    encoder = pipe[0].privacy_report_
    # The shares were spent inside the total; at ε = 0.3 the bins' ρ cannot lift
    # PrivTree's tests on 600 rows (range_plan: n < λ + δ ≈ 820), so the bins are public
    # and the synthesizer spends their share.
    assert ("private bins" in encoder.mechanism) == (epsilon == 2.0)
    assert pipe[-1].privacy_report_.epsilon < epsilon
    assert pipe[-1].epsilon == epsilon  # the parameter stays as given


def test_shares_that_leave_nothing_are_refused_before_any_release():
    frame, domain = _ranged_table()
    pipe = make_private_pipeline(
        CorrelatedGaussianMechanism(epsilon=1.0, delta=1e-9), domain, max_bins=2
    )
    with PrivacyAccountant(epsilon=10, delta=1e-3) as accountant:
        with pytest.raises(ValueError, match="leave none of it to the synthesizer"):
            pipe.fit(frame)
    assert accountant.charges == []  # nothing was released
