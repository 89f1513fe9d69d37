"""The estimator contract, checked on every synthesizer and transformer of the package.

The synthesizers are found by :func:`~skprivsynth.synthesizers.all_synthesizers`, with
their test parameters in ``tests/estimator_checks.py``; a transformer is one line in
``TRANSFORMERS``.  The data are small (a few hundred rows, five columns) so that the
whole module runs in seconds.  These checks replace what the sklearn common checks
that cannot feed Boolean data (``tests/estimator_checks.py``) no longer verify.
"""

import inspect
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from estimator_checks import PARTITIONED, synthesizers, width_params
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

import skprivsynth.base
from skprivsynth import (
    Chunks,
    CorrelatedGaussianMechanism,
    MarginalSynthesizer,
    MicroaggregationSynthesizer,
    NoisyMicroaggregation,
    PrivateSampler,
)
from skprivsynth.base import BaseSynthesizer, get_synthesizer_tags
from skprivsynth.exceptions import PrivacyLeakWarning, SolverError
from skprivsynth.preprocessing import BooleanEncoder
from skprivsynth.validation import (
    BooleanValidator,
    UnitIntervalValidator,
    is_differentially_private,
)

SYNTHESIZERS = synthesizers()
TRANSFORMERS = [
    BooleanValidator(),
    UnitIntervalValidator(),
    BooleanEncoder(categories={"c0": [0, 1, 2], "c1": [0, 1], "c2": [0, 1, 2, 3]}),
]
ESTIMATORS = SYNTHESIZERS + TRANSFORMERS


def _ids(estimators):
    return [type(est).__name__ for est in estimators]


def _data(estimator, seed=0, n=240, p=5):
    """Small data in the estimator's input domain: correlated Boolean columns (a frame of
    codes for the encoder)."""
    rng = np.random.default_rng(seed)
    if isinstance(estimator, BooleanEncoder):
        return pd.DataFrame(
            {c: rng.integers(0, k, n) for c, k in zip(("c0", "c1", "c2"), (3, 2, 4), strict=True)}
        )
    latent = rng.random((n, 1))
    return (rng.random((n, p)) < 0.2 + 0.6 * latent).astype(float)


def _fitted(estimator, **params):
    est = clone(estimator).set_params(**params)
    return est.fit(_data(est))


def _state(estimator):
    """Everything the estimator holds, as bytes (arrays, generators, reports included)."""
    return pickle.dumps(vars(estimator))


def _sample(est, random_state=0, n_samples=6):
    return est.sample(n_samples, random_state=random_state)


# ------------------------------------------------------------------ parameters


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_clone_and_get_params_round_trip(estimator):
    params = estimator.get_params()
    twin = clone(estimator)
    assert twin is not estimator
    assert pickle.dumps(twin.get_params()) == pickle.dumps(params)
    assert pickle.dumps(type(estimator)(**params).get_params()) == pickle.dumps(params)


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_parameters_after_the_first_are_keyword_only(estimator):
    parameters = list(inspect.signature(type(estimator)).parameters.values())
    assert parameters[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[1:])
    with pytest.raises(TypeError, match="positional"):
        type(estimator)(*[p.default for p in parameters[:2]])


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_parameter_constraints_merge_the_base(estimator):
    constraints = type(estimator)._parameter_constraints
    for name, constraint in BaseSynthesizer._parameter_constraints.items():
        assert constraints[name] == constraint
    assert set(constraints) == set(estimator.get_params())


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
@pytest.mark.parametrize("kind", ["int", "RandomState", "Generator"])
def test_every_seed_type_is_accepted_and_reproducible(estimator, kind):
    def seed():
        return {
            "int": 3,
            "RandomState": np.random.RandomState(3),
            "Generator": np.random.default_rng(3),
        }[kind]

    a = _fitted(estimator, random_state=seed())
    b = _fitted(estimator, random_state=seed())
    np.testing.assert_array_equal(a.sample(5), b.sample(5))


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_bad_random_state_names_the_parameter(estimator):
    with pytest.raises(ValueError, match="random_state"):
        clone(estimator).set_params(random_state="seed").fit(_data(estimator))


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_declared_tags_match_the_parameters_and_fit(estimator):
    tags = get_synthesizer_tags(estimator)
    params = estimator.get_params()
    fit_params = inspect.signature(estimator.fit).parameters
    assert tags.input_kind in {"boolean", "unit", "real"}
    assert tags.encoding in {"onehot", "ordinal", "binary"}
    assert (tags.max_bits is not None) is (tags.encoding == "binary")
    assert tags.code_domain is ("domain" in params and {"domain", "numeric_codes"} <= {*fit_params})
    assert tags.feature_blocks is ("feature_blocks" in params and "feature_blocks" in fit_params)
    assert tags.noise is ("noise" in params)


def test_all_synthesizers_finds_every_synthesizer_once():
    import skprivsynth
    from skprivsynth.synthesizers import all_synthesizers, register_synthesizer

    found = all_synthesizers()
    names = [name for name, _ in found]
    assert names == sorted(set(names))
    assert all(issubclass(cls, BaseSynthesizer) and cls.__name__ == name for name, cls in found)
    package = {n: c for n, c in found if c.__module__.startswith("skprivsynth.synthesizers.")}
    assert len(package) == 6 and "LaplaceHistogram" in names  # and the test-only one
    assert {n: getattr(skprivsynth, n) for n in package} == package
    assert set(package) <= set(skprivsynth.__all__)
    cli_names = [cls._cli_name for cls in package.values()]
    assert None not in cli_names and len(set(cli_names)) == len(cli_names)
    twin = type("MarginalSynthesizer", (BaseSynthesizer,), {})
    with pytest.raises(ValueError, match="already known"):
        register_synthesizer(twin)
    with pytest.raises(TypeError, match="BaseSynthesizer"):
        register_synthesizer(BooleanEncoder)
    assert all_synthesizers() == found


# ------------------------------------------------------------------ fit


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_not_fitted_error_before_fit(estimator):
    est = clone(estimator)
    with pytest.raises(NotFittedError):
        if isinstance(est, BaseSynthesizer):
            est.sample(3)
        else:
            est.transform(_data(est))


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_fit_returns_self_and_leaves_hyperparameters_unchanged(estimator):
    est = clone(estimator)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    before = pickle.dumps(est.get_params())
    assert est.fit(_data(est)) is est
    assert pickle.dumps(est.get_params()) == before


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_pickle_round_trip(estimator):
    est = _fitted(
        estimator, **({"random_state": 0} if "random_state" in estimator.get_params() else {})
    )
    twin = pickle.loads(pickle.dumps(est))
    if isinstance(est, BaseSynthesizer):
        np.testing.assert_array_equal(_sample(twin), _sample(est))
    else:
        X = _data(est)
        np.testing.assert_array_equal(twin.transform(X), est.transform(X))


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_seeded_fits_are_identical(estimator):
    a, b = _fitted(estimator, random_state=0), _fitted(estimator, random_state=0)
    np.testing.assert_array_equal(_sample(a, random_state=1), _sample(b, random_state=1))
    np.testing.assert_array_equal(a.sample(4), b.sample(4))  # the default streams too
    if is_differentially_private(a):
        assert str(a.privacy_report_) == str(b.privacy_report_)


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_chunked_fit_releases_what_the_in_memory_fit_releases(estimator):
    """Same statistics, same seed: the fit on uneven chunks is the in-memory fit, exactly."""
    est = clone(estimator).set_params(random_state=0)
    X = _data(est)
    chunks = Chunks.from_array(X, 37)  # 240 rows: six chunks of 37 and one of 18
    if type(est).__name__ in PARTITIONED:
        chunks = Chunks.from_array(X, len(X))
    a, b = clone(est).fit(X), clone(est).fit(chunks)
    np.testing.assert_array_equal(_sample(a, random_state=1), _sample(b, random_state=1))
    assert b.n_samples_fit_ == a.n_samples_fit_ == len(X)
    if is_differentially_private(a):
        assert str(a.privacy_report_) == str(b.privacy_report_)


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_a_one_shot_iterator_is_read_once_or_refused_before_reading(estimator):
    """A fit reads a plain iterator of chunks in one pass, or (a fit of two passes)
    refuses it with a TypeError naming Chunks, having read only the first chunk."""
    est = clone(estimator).set_params(random_state=0)
    X = _data(est)
    reads = []

    def chunks():
        for chunk in Chunks.from_array(X, 100):
            reads.append(len(chunk))
            yield chunk

    try:
        fitted = est.fit(chunks())
    except TypeError as exc:
        assert "one-shot" in str(exc) and "Chunks" in str(exc)
        assert reads == [100] and not hasattr(est, "n_features_in_")
        return
    assert reads == [100, 100, 40]
    if type(est).__name__ not in PARTITIONED:
        expected = clone(est).fit(X)
        np.testing.assert_array_equal(
            _sample(fitted, random_state=1), _sample(expected, random_state=1)
        )


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_sample_shape_and_values_in_the_input_domain(estimator):
    est = _fitted(estimator, random_state=0)
    X = _data(est)
    out = est.sample(7)
    assert out.shape == (7, X.shape[1])
    assert np.isfinite(out).all()
    if get_synthesizer_tags(est).input_kind == "boolean":
        assert set(np.unique(out)) <= {0.0, 1.0}
    else:
        assert out.min() >= 0.0 and out.max() <= 1.0


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_ids(ESTIMATORS))
def test_refit_resets_the_fitted_state(estimator):
    est = clone(estimator)
    if isinstance(est, BooleanEncoder):
        est.fit(_data(est))
        first = est.get_feature_names_out().tolist()
        est.set_params(categories={"c0": [0, 1, 2], "c1": [0, 1], "c2": [0, 1, 2, 3, 4]})
        est.fit(_data(est))
        assert est.get_feature_names_out().tolist() != first
        return
    X = _data(est)
    est.fit(pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]))
    assert hasattr(est, "feature_names_in_")
    if isinstance(est, PrivateSampler):
        est.sample(3)
    X4 = _data(est, seed=1, p=4)
    est.set_params(**width_params(est, 4)).fit(X4)
    assert est.n_features_in_ == 4
    assert not hasattr(est, "feature_names_in_")
    if isinstance(est, BaseSynthesizer):
        assert est.n_samples_fit_ == X4.shape[0]
        assert est.sample(3).shape == (3, 4)
    if isinstance(est, PrivateSampler):
        assert est.samples_released_ == 3  # the 3 just drawn from the refit, not 6


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_failed_refit_leaves_the_previous_fit_intact(estimator, monkeypatch):
    # The last step of every fit is the one assignment of its results: if it fails,
    # nothing computed by the failed fit may have reached the estimator.
    est = _fitted(estimator, random_state=0)
    expected = _sample(est)  # (PrivateSampler: spends budget, so before the snapshot)
    before = _state(est)

    def fail(*args, **kwargs):
        raise SolverError("injected failure")

    monkeypatch.setattr(type(est), "_set_fitted", fail)
    with pytest.raises(SolverError, match="injected"):
        est.set_params(random_state=1, **width_params(est, 4)).fit(_data(est, seed=1, p=4))
    monkeypatch.undo()
    assert _state(est.set_params(random_state=0, **width_params(est, 5))) == before
    np.testing.assert_array_equal(_sample(est), expected)

    fresh = clone(estimator)
    monkeypatch.setattr(type(fresh), "_set_fitted", fail)
    with pytest.raises(SolverError):
        fresh.fit(_data(fresh))
    assert vars(fresh).keys() == vars(clone(estimator)).keys()
    with pytest.raises(NotFittedError):
        fresh.sample(2)


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_differential_privacy_is_a_class_property(estimator):
    # A DP class states its own cost; the others keep the base's (None).
    states_cost = type(estimator)._fit_cost is not BaseSynthesizer._fit_cost
    assert is_differentially_private(estimator) is is_differentially_private(type(estimator))
    assert is_differentially_private(estimator) is states_cost
    est = _fitted(estimator, random_state=0)
    if is_differentially_private(est):
        if isinstance(est, PrivateSampler):
            est.sample(5)  # its epsilon_ is what sample has released so far
            assert est.epsilon_ > 0
        assert est.privacy_report_.epsilon == est.epsilon_
        assert est.privacy_report_.delta == getattr(est, "delta_", 0.0)
    else:
        assert not hasattr(est, "privacy_report_")
        assert not hasattr(est, "privacy_report")


# ------------------------------------------------------------------ fit-time state


def test_reports_diagnostics_and_samples_read_fit_time_values():
    X = _data(CorrelatedGaussianMechanism())
    cgm = CorrelatedGaussianMechanism(epsilon=1.0, delta=1e-6, random_state=0).fit(X)
    report = str(cgm.privacy_report_)
    cgm.set_params(epsilon=5.0, delta=1e-3, noise_allocation="paper", noise="discrete")
    assert str(cgm.privacy_report_) == report
    assert (cgm.epsilon_, cgm.delta_) == (1.0, 1e-6)

    sampler = PrivateSampler(epsilon=None, n_samples=12, m=64, random_state=0).fit(X)
    diagnostics = repr(sampler.diagnostics())
    sampler.set_params(m=200, degree=1, density_bounds=(0.5, 1.5), n_samples=3)
    assert repr(sampler.diagnostics()) == diagnostics
    assert sampler.sample().shape == (12, X.shape[1])  # the n_samples of the fit
    assert "m=64" in str(sampler.privacy_report_) and "d=2" in str(sampler.privacy_report_)

    micro = MicroaggregationSynthesizer(k=5, rounding=True, random_state=0).fit(X / 2)
    micro.set_params(rounding=False)
    assert set(np.unique(micro.sample(50))) <= {0.0, 1.0}  # still rounded, as fitted

    noisy = NoisyMicroaggregation(epsilon=2.0, random_state=0).fit(X)
    report = str(noisy.privacy_report_)
    noisy.set_params(epsilon=4.0, row_l1_bound=2.0)
    assert str(noisy.privacy_report_) == report and noisy.epsilon_ == 2.0


def test_private_sampler_solver_failure_replaces_the_whole_fit(monkeypatch):
    # The defect of the core issue: a SolverError in the QP of a refit left the new
    # records_ with the old weights_.  A solver failure now falls back to the uniform
    # density on the refit's own reduced space (issue "trust, round two"), so records_
    # and weights_ always come from the same fit.
    from sklearn.exceptions import ConvergenceWarning

    import skprivsynth.synthesizers.private_sampling as module

    X = _data(PrivateSampler())
    params = dict(epsilon=None, n_samples=12, m=64)
    est = PrivateSampler(**params, random_state=0).fit(X)
    refit_space = PrivateSampler(**params, random_state=1).fit(X).records_

    def fail(*args, **kwargs):
        raise SolverError("OSQP status 'maximum iterations reached'")

    monkeypatch.setattr(module, "solve_qp", fail)
    with pytest.warns(ConvergenceWarning):
        est.set_params(random_state=1).fit(X)
    assert est.solver_fallback_
    np.testing.assert_array_equal(est.records_, refit_space)
    np.testing.assert_array_equal(est.weights_, np.full(len(refit_space), 1 / len(refit_space)))
    assert est.sample(3).shape == (3, X.shape[1])


def test_scorer_warning_reads_the_class_not_the_parameter_names():
    from skprivsynth.exceptions import PrivacyLeakWarning
    from skprivsynth.metrics import make_marginal_scorer

    class KAnonymousWithEpsilon(MicroaggregationSynthesizer):
        # A non-DP estimator whose parameters happen to include "epsilon".
        def __init__(
            self, k=5, *, epsilon=0.0, t="auto", alpha="auto", rounding=True, random_state=None
        ):
            super().__init__(k, t=t, alpha=alpha, rounding=rounding, random_state=random_state)
            self.epsilon = epsilon

        _parameter_constraints = {
            **MicroaggregationSynthesizer._parameter_constraints,
            "epsilon": "no_validation",
        }

    X = _data(NoisyMicroaggregation())
    scorer = make_marginal_scorer(degree=1)
    assert not is_differentially_private(KAnonymousWithEpsilon())
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        scorer(KAnonymousWithEpsilon(random_state=0).fit(X), X)
    with pytest.warns(PrivacyLeakWarning, match="differentially private NoisyMicroaggregation"):
        scorer(NoisyMicroaggregation(random_state=0).fit(X), X)


@pytest.mark.parametrize("estimator", SYNTHESIZERS, ids=_ids(SYNTHESIZERS))
def test_verbose_prints_phase_lines_only_when_asked(estimator, capsys):
    assert estimator.get_params()["verbose"] == 0
    first, second = _fitted(estimator, random_state=0), None
    assert capsys.readouterr() == ("", "")  # silent by default
    second = _fitted(estimator, random_state=0, verbose=1)
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) >= 3
    name = type(estimator).__name__
    assert all(line.startswith(f"[{name}] ") and line.endswith(" s)") for line in lines)
    # Printing changes nothing in the release.
    np.testing.assert_array_equal(_sample(first), _sample(second))


# -------------------------------------- nothing outside the release depends on the data
# A fitted DP object is a release: whoever holds it (its attributes, generators, pickle,
# repr) must learn nothing beyond the noisy outputs, and what a fit, a score or a search
# prints (warnings, log lines) must be a function of public inputs and released values.

DP_SYNTHESIZERS = [est for est in SYNTHESIZERS if is_differentially_private(est)]


def _neighbour(X):
    """A replace-one neighbour of ``X``: its first row replaced by its complement."""
    X_prime = X.copy()
    X_prime[0] = 1 - X_prime[0]
    return X_prime


def _seed_material(obj, found=None, seen=None):
    """Every Generator, BitGenerator and SeedSequence reachable from ``obj``."""
    found = [] if found is None else found
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, str | bytes | int | float | np.ndarray):
        return found
    seen.add(id(obj))
    if isinstance(obj, np.random.Generator | np.random.BitGenerator | np.random.SeedSequence):
        found.append(obj)
        return found
    if isinstance(obj, dict):
        children = list(obj.values())
    elif isinstance(obj, list | tuple | set):
        children = list(obj)
    else:
        children = list(getattr(obj, "__dict__", {}).values())
    for child in children:
        _seed_material(child, found, seen)
    return found


def _entropy(material):
    if isinstance(material, np.random.Generator):
        material = material.bit_generator
    if isinstance(material, np.random.BitGenerator):
        material = material.seed_seq
    return material.entropy


def _release(est):
    """The fitted state minus the sampling stream: what the fit's noise determines."""
    state = {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}
    return pickle.dumps(state)


def _refits_from_entropy(estimator, X, entropy):
    """The attack: refit with found entropy as the seed everywhere, as a Generator rebuilt
    from it and, for an int a ``random_state`` accepts, as the int."""
    seeds = [lambda: np.random.default_rng(np.random.SeedSequence(entropy))]
    if isinstance(entropy, int) and 0 <= entropy < 2**32:
        seeds.append(lambda: entropy)
    names = [n for n in estimator.get_params(deep=True) if n.endswith("random_state")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded refits, warned
        return [clone(estimator).set_params(**{n: seed() for n in names}).fit(X) for seed in seeds]


@pytest.mark.parametrize("estimator", DP_SYNTHESIZERS, ids=_ids(DP_SYNTHESIZERS))
def test_no_seed_material_in_a_fitted_object_regenerates_its_fit(estimator):
    X = _data(estimator)
    est = pickle.loads(pickle.dumps(clone(estimator).set_params(random_state=None).fit(X)))
    material = _seed_material(est)
    assert material, "a fitted synthesizer keeps its sampling stream"
    for found in material:
        for attack in _refits_from_entropy(est, X, _entropy(found)):
            assert _release(attack) != _release(est)


def test_the_attack_regenerates_a_fit_whose_stream_shares_its_seed():
    # The broken variant the tests around must catch: the kept sampling stream and the
    # fit's stream children of one seed (what an int seed gives; it warns).
    X = _data(NoisyMicroaggregation())
    with pytest.warns(PrivacyLeakWarning, match="random_state=12345"):
        est = NoisyMicroaggregation(epsilon=2.0, random_state=12345).fit(X)
    found = _seed_material({k: v for k, v in vars(est).items() if k != "random_state"})
    assert any(
        _release(attack) == _release(est)
        for m in found
        for attack in _refits_from_entropy(est, X, _entropy(m))
    )


@pytest.mark.parametrize("estimator", DP_SYNTHESIZERS, ids=_ids(DP_SYNTHESIZERS))
def test_a_generator_seed_is_drawn_from_and_warned_never_kept(estimator, monkeypatch):
    # random_state=Generator is a seed: the fit warns, and nothing it keeps (but the
    # parameter itself, stored as given) is the caller's generator, shares its entropy,
    # or shares the entropy of the fit's own stream.
    X = _data(estimator)
    fit_streams = []
    fitted_state = skprivsynth.base._FitData.fitted_state

    def recording(data):
        state, fit_rng = fitted_state(data)
        fit_streams.append(fit_rng)
        return state, fit_rng

    monkeypatch.setattr(skprivsynth.base._FitData, "fitted_state", recording)
    caller = np.random.default_rng()
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=Generator") as caught:
        est = clone(estimator).set_params(random_state=caller).fit(X)
    assert len(caught) == 1
    kept = {k: v for k, v in vars(est).items() if k != "random_state"}
    assert not any(m is caller or m is caller.bit_generator for m in _seed_material(kept))
    material = _seed_material(pickle.loads(pickle.dumps(kept)))
    assert material, "a fitted synthesizer keeps its sampling stream"
    forbidden = {repr(_entropy(caller)), repr(_entropy(fit_streams[0]))}
    assert not forbidden & {repr(_entropy(m)) for m in material}
    for found in material:
        for attack in _refits_from_entropy(est, X, _entropy(found)):
            assert _release(attack) != _release(est)


def _messages(fit, capsys, caplog):
    """Warnings, standard streams and log records of ``fit()``, as text."""
    capsys.readouterr()
    caplog.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    out, err = capsys.readouterr()
    return (
        [(w.category.__name__, str(w.message)) for w in caught],
        out,
        err,
        [r.getMessage() for r in caplog.records],
    )


@pytest.mark.parametrize("estimator", DP_SYNTHESIZERS, ids=_ids(DP_SYNTHESIZERS))
def test_a_fit_says_the_same_on_neighbouring_datasets(estimator, capsys, caplog):
    X = _data(estimator)
    said = [
        _messages(lambda D=D: clone(estimator).set_params(random_state=0).fit(D), capsys, caplog)
        for D in (X, _neighbour(X))
    ]
    assert said[0] == said[1]


def _mixed_frames():
    """A frame with a float column of 20 distinct values, and a neighbour with 21."""
    rng = np.random.default_rng(0)
    n = 200
    real = pd.DataFrame(
        {
            "x": rng.choice(np.arange(20) + 0.5, n),
            "c": rng.integers(0, 3, n),
        }
    )
    neighbour = real.copy()
    neighbour.loc[0, "x"] = 99.25  # a 21st distinct non-integer value
    return real, neighbour


def test_a_dp_score_says_the_same_on_neighbouring_datasets(capsys, caplog):
    from skprivsynth import make_private_pipeline
    from skprivsynth.metrics import make_marginal_scorer

    real, neighbour = _mixed_frames()
    domain = {"x": {"bins": [0, 5, 10, 15, 20, 100]}, "c": 3}
    pipe = make_private_pipeline(MarginalSynthesizer(epsilon=1.0), domain)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(real)
    scorer = make_marginal_scorer(space="decoded", epsilon=1.0)
    said = [_messages(lambda D=D: scorer(pipe, D), capsys, caplog) for D in (real, neighbour)]
    assert said[0] == said[1]


def test_a_pipeline_and_a_search_say_the_same_on_neighbouring_datasets(capsys, caplog):
    from skprivsynth import make_private_pipeline
    from skprivsynth.metrics import make_marginal_scorer
    from skprivsynth.model_selection import PrivateSelectionSearch

    real, neighbour = _mixed_frames()
    domain = {"x": {"bins": [0, 5, 10, 15, 20, 100]}, "c": 3}

    def pipeline(decode_share=0.1):
        return make_private_pipeline(
            MarginalSynthesizer(epsilon=1.0), domain, decode_share=decode_share, random_state=0
        )

    said = [_messages(lambda D=D: pipeline().fit(D), capsys, caplog) for D in (real, neighbour)]
    assert said[0] == said[1]

    def search(D):
        return PrivateSelectionSearch(
            pipeline(decode_share=0),
            {"marginalsynthesizer__epsilon": [0.5, 1.0]},
            scoring=make_marginal_scorer(space="decoded", epsilon=0.5),
            delta=1e-6,
            random_state=0,
        ).fit(D)

    said = [_messages(lambda D=D: search(D), capsys, caplog) for D in (real, neighbour)]
    assert said[0] == said[1]


@pytest.mark.parametrize("estimator", DP_SYNTHESIZERS, ids=_ids(DP_SYNTHESIZERS))
@pytest.mark.parametrize("kind", ["int", "RandomState", "Generator"])
def test_a_seeded_dp_fit_warns_once_per_fit(estimator, kind):
    seed = {
        "int": 3,
        "RandomState": np.random.RandomState(3),
        "Generator": np.random.default_rng(3),
    }
    est = clone(estimator).set_params(random_state=seed[kind])
    X = _data(est)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.fit(X)
        leaks = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
        assert len(leaks) == 1 and "random_state=" in str(leaks[0].message)
        assert leaks[0].filename == __file__  # points at the caller's fit
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        est.set_params(random_state=None).fit(X)
