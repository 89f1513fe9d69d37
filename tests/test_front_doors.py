"""Every front door on the tables people bring (issue 45): the pipeline, GridSearchCV
and the marginal scorer on a mixed table (numbers, a date and its part, missing values,
ordered levels, a declared domain), the accountant of the README, the advice of the
error messages, the privacy report's reprs and the progress lines."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV, KFold

from skprivsynth import MarginalSynthesizer, make_private_pipeline
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.metrics import make_marginal_scorer

MIXED_DOMAIN = {
    "admitted": {
        "type": "datetime",
        "range": ["2024-01-01", "2024-12-31T23:00"],
        "resolution": "h",
    },
    "month": {"part_of": "admitted", "part": "month"},
    "age": {"type": "integer", "range": [0, 120]},
    "severity": {"levels": ["low", "medium", "high"], "ordered": True},
    "stay_days": {"type": "float", "range": [0, 365], "decimals": 1},
    "lab": {"type": "float", "range": [0, 20], "missing": True},
    "sex": ["F", "M"],
}


def mixed_table(n=600, seed=0):
    """A table of the README's domain: every kind of column, correlated."""
    rng = np.random.default_rng(seed)
    admitted = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365 * 24, n), "h")
    age = rng.choice([20, 35, 50, 64, 80], n) + rng.integers(0, 3, n)
    severity = np.where(age > 60, "high", rng.choice(["low", "medium"], n))
    lab = np.round(rng.gamma(2.0, 2.0, n).clip(0, 20), 2)
    lab[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame(
        {
            "admitted": admitted,
            "month": admitted.month,
            "age": age,
            "severity": pd.Categorical(severity, ["low", "medium", "high"], ordered=True),
            "stay_days": np.round(rng.exponential(4.0, n) + (age > 60) * 5, 1).clip(0, 365),
            "lab": lab,
            "sex": rng.choice(["F", "M"], n),
        }
    )


@pytest.fixture(scope="module")
def mixed():
    return mixed_table()


def _quiet_search(search, X):
    """Fit ``search`` with the expected PrivacyLeakWarning of exact scores silenced and
    every other warning (a failed score among them) raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return search.fit(X)


def _assert_finite_and_ranked(search):
    scores = search.cv_results_["mean_test_score"]
    assert np.isfinite(scores).all(), scores
    assert len(set(scores)) == len(scores), scores  # a ranking, not ties of failures
    assert sorted(search.cv_results_["rank_test_score"]) == list(range(1, len(scores) + 1))


# A -------------------------------------------------------------------------------------
def test_grid_search_over_epsilon_with_the_marginal_scorer_on_a_mixed_table(mixed):
    pipe = make_private_pipeline(MarginalSynthesizer(random_state=0), MIXED_DOMAIN)
    search = GridSearchCV(
        pipe,
        {"marginalsynthesizer__epsilon": [0.05, 5.0]},
        scoring=make_marginal_scorer(degree=2),
        cv=KFold(2, shuffle=True, random_state=0),
    )
    _assert_finite_and_ranked(_quiet_search(search, mixed))
    assert search.best_params_ == {"marginalsynthesizer__epsilon": 5.0}


@pytest.mark.slow
def test_grid_search_over_epsilon_with_the_marginal_scorer_on_adult(adult):
    pipe = make_private_pipeline(MarginalSynthesizer(random_state=0), adult.domain)
    search = GridSearchCV(
        pipe,
        {"marginalsynthesizer__epsilon": [0.05, 5.0]},
        scoring=make_marginal_scorer(degree=2),
        cv=KFold(2, shuffle=True, random_state=0),
    )
    _assert_finite_and_ranked(_quiet_search(search, adult.data.iloc[:4000]))
    assert search.best_params_ == {"marginalsynthesizer__epsilon": 5.0}


def test_the_scorer_of_integer_codes_is_the_tvd_of_their_tables(mixed):
    pipe = make_private_pipeline(MarginalSynthesizer(epsilon=1.0, random_state=0), MIXED_DOMAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        pipe.fit(mixed)
        encoded = make_marginal_scorer(degree=2)(pipe, mixed)
        bare = make_marginal_scorer(degree=1)(pipe[-1], pipe[0].transform(mixed))
    assert -1 <= encoded < 0 and -1 <= bare < 0
    with pytest.raises(ValueError, match="form='conjunction'.*integer codes.*form='table'"):
        make_marginal_scorer(form="conjunction")(pipe, mixed)


# B -------------------------------------------------------------------------------------
@pytest.mark.parametrize("degree", [1, 2])
def test_decoded_scorer_measures_what_pipeline_score_measures(mixed, degree):
    from skprivsynth import ReducedSpaceLP

    for synthesizer in (
        MarginalSynthesizer(epsilon=1.0, random_state=0),
        ReducedSpaceLP(epsilon=1.0, m=200, random_state=0),
    ):
        pipe = make_private_pipeline(synthesizer, MIXED_DOMAIN, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            pipe.fit(mixed)
            decoded = make_marginal_scorer(degree=degree, space="decoded")(pipe, mixed)
            if degree == 2:
                assert decoded == pipe.score(mixed)
            # The same tables, with one float column read value by value instead of
            # in the encoder's bins, would score near -1 on it.
            assert decoded > -0.5


# C -------------------------------------------------------------------------------------
def test_a_pure_budget_names_the_delta_that_admits_a_zcdp_fit(adult):
    from skprivsynth import PrivacyAccountant
    from skprivsynth.exceptions import BudgetExceededError

    X = adult.data.iloc[:500].to_numpy()
    fit = MarginalSynthesizer(epsilon=1.0, domain=list(adult.domain.values())).fit
    advice = r"need a delta: give the accountant one, e\.g\. PrivacyAccountant\(epsilon=5, delta="
    with pytest.raises(BudgetExceededError, match=advice):
        with PrivacyAccountant(epsilon=5):
            fit(X)
    with PrivacyAccountant(epsilon=5, delta=1e-9) as accountant:  # the advice, as shown
        fit(X)
    assert 0 < accountant.spent <= 5


# D -------------------------------------------------------------------------------------
def _partial_domain():
    return {c: s for c, s in MIXED_DOMAIN.items() if c != "age"}


def test_python_advice_on_a_learned_domain_works_in_python(mixed):
    from skprivsynth import ReducedSpaceLP

    # MarginalSynthesizer needs the declared codes: the advice does not offer
    # allow_learned_domain, and passing it anyway gets the same advice, not another error.
    for allow in (False, True):
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=1.0), _partial_domain(), allow_learned_domain=allow
        )
        with pytest.raises(ValueError, match=r"\['age'\]") as info:
            pipe.fit(mixed)
        message = str(info.value)
        assert "allow_learned_domain=True does not apply to MarginalSynthesizer" in message
        assert "--" not in message  # no command-line option in a Python message
    # A synthesizer that can run on a learned domain: following the advice works.
    pipe = make_private_pipeline(ReducedSpaceLP(epsilon=1.0, m=100), _partial_domain())
    with pytest.raises(ValueError, match="pass allow_learned_domain=True to the pipeline"):
        pipe.fit(mixed)
    with pytest.warns(PrivacyLeakWarning, match="age"):
        pipe.set_params(allow_learned_domain=True).fit(mixed)
    assert pipe.sample(5).shape == (5, mixed.shape[1])


@pytest.mark.parametrize("method", ["marginal", "reduced-space-lp"])
def test_command_line_advice_on_a_learned_domain_works_on_the_command_line(
    tmp_path, mixed, capsys, method
):
    import json

    from skprivsynth.cli import main

    source, out, domain = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "d.json"
    mixed.drop(columns="month").to_csv(source, index=False)
    declared = {c: s for c, s in _partial_domain().items() if c != "month"}
    domain.write_text(json.dumps(declared))
    argv = ["synthesize", str(source), "-o", str(out), "--domain", str(domain)]
    argv += ["--method", method, "-q"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "declare the columns ['age'] in --domain" in err and "--drop" in err
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main([*argv, "--allow-learned-domain"])
    err = capsys.readouterr().err
    shown = err + "".join(str(w.message) for w in caught)
    # advice that works here: the command line's words, beside Python's in the library's
    # own warning (one warning for both doors, never silenced and re-said)
    assert "(domain=" not in shown and "allow_learned_domain=" not in shown
    if method == "marginal":  # the advice above did not offer the option
        assert code == 2 and "--allow-learned-domain does not apply" in err
        assert not out.exists()
    else:
        assert code == 0 and out.exists()
        assert any(
            "['age']" in str(w.message)
            and "--domain" in str(w.message)
            and "--drop" in str(w.message)
            for w in caught
        )


# E -------------------------------------------------------------------------------------
def test_privacy_report_reprs_are_tables_naming_the_columns(mixed):
    pipe = make_private_pipeline(MarginalSynthesizer(epsilon=1.0, random_state=0), MIXED_DOMAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        pipe.fit(mixed)
    report = pipe.privacy_report_
    text = repr(report)
    assert text.startswith("PrivacyReport: MarginalSynthesizer + private bins, ")
    assert "{'step'" not in text and "column 0" not in text
    header = text.splitlines()[2].split()
    assert header == ["#", "by", "release", "mechanism", "budget"]
    assert "1-way marginal of age" in text and "ρ = " in text
    assert len(text.splitlines()) == 3 + len(report.entries)
    html = report._repr_html_()
    assert "<table>" in html and "<th>release</th>" in html and "1-way marginal of age" in html
    # A synthesizer fitted on an array knows no names: their positions, in the same table.
    codes = pipe[0].transform(mixed)
    sizes = [int(k) for k in codes.max(axis=0) + 1]
    bare = MarginalSynthesizer(epsilon=1.0, domain=sizes, random_state=0).fit(codes)
    bare = repr(bare.privacy_report_)
    assert "1-way marginal of column 0" in bare and "by" not in bare.splitlines()[2].split()


# F -------------------------------------------------------------------------------------
def test_progress_lines_name_columns_in_plain_words(tmp_path, mixed, capsys):
    import json

    from skprivsynth.cli import main

    source, out, domain = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "d.json"
    mixed.drop(columns="month").to_csv(source, index=False)
    declared = {c: s for c, s in MIXED_DOMAIN.items() if c not in ("month", "admitted")}
    domain.write_text(json.dumps(declared))
    argv = ["synthesize", str(source), "-o", str(out), "--domain", str(domain)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert main([*argv, "--drop", "admitted", "--param", "epsilon=5", "--seed", "0"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[Marginal")]
    rounds = [line for line in lines if ": measured the table of " in line]
    assert rounds, lines
    names = set(declared)
    for line in rounds:  # after --drop, the names of the columns kept, not positions
        table = line.split("measured the table of ")[1].split(",")[0]
        assert set(table.split(" × ")) <= names, line
    for line in lines:  # plain words: no positions, no symbols, no raw statistics
        assert "columns (0" not in line and "ρ" not in line and "e+0" not in line, line


# G -------------------------------------------------------------------------------------
def test_private_sampler_refuses_a_short_budget_before_any_work(monkeypatch, tmp_path, adult):
    from skprivsynth import PrivateSampler
    from skprivsynth.synthesizers import private_sampling

    def no_pass(*args, **kwargs):
        raise AssertionError("the data was read before the refusal")

    monkeypatch.setattr(private_sampling, "_SamplerStatistics", no_pass)
    rng = np.random.default_rng(0)
    messages = set()
    for X in (rng.random((2000, 12)) < 0.3, rng.random((2000, 12)) < 0.7):
        with pytest.raises(ValueError, match="max_samples_=0.*Refused before any work") as info:
            PrivateSampler(epsilon=1.0, n_samples=10).fit(X.astype(float))
        messages.add(str(info.value))
    assert len(messages) == 1  # public n, p, m, degree and bounds only: the same message


def test_command_line_private_sampler_refuses_before_the_fit(tmp_path, adult, capsys):
    import json
    import time

    from skprivsynth.cli import main

    source, out, domain = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "d.json"
    adult.data.to_csv(source, index=False)
    domain.write_text(json.dumps(adult.domain))
    argv = ["synthesize", str(source), "-o", str(out), "--domain", str(domain)]
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        code = main([*argv, "--method", "private-sampler", "--max-bins", "2", "-q"])
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert "max_samples_=0" in err and "Refused before any work of the fit" in err
    assert time.perf_counter() - start < 15  # the fit's LP took 25 s before the refusal


# H -------------------------------------------------------------------------------------
# The main parameter of each synthesizer, two values, and the constructor arguments of
# its recommended use (user guide); PrivateSampler with a stated release size, whose
# budget the Theorem 12.2 cost then gives (epsilon=None).
_MAIN_PARAMETER = {
    "MarginalSynthesizer": ({"random_state": 0}, "epsilon", [0.1, 5.0]),
    "MicroaggregationSynthesizer": ({"random_state": 0}, "k", [5, 100]),
    "NoisyMicroaggregation": ({"random_state": 0}, "epsilon", [0.1, 20.0]),
    "ReducedSpaceLP": ({"epsilon": 5.0, "random_state": 0}, "m", [32, 256]),
    "PrivateSampler": ({"epsilon": None, "n_samples": 300, "random_state": 0}, "m", ["auto", 1200]),
    "CorrelatedGaussianMechanism": ({"delta": 1e-6, "random_state": 0}, "epsilon", [0.1, 5.0]),
}


def _all_synthesizers():
    from skprivsynth.synthesizers import all_synthesizers

    # The package's own (tests register a test-only one, LaplaceHistogram).
    return [cls for _, cls in all_synthesizers() if cls.__module__.startswith("skprivsynth.")]


def test_every_synthesizer_has_a_main_parameter_here():
    assert {cls.__name__ for cls in _all_synthesizers()} == set(_MAIN_PARAMETER)


@pytest.mark.slow
@pytest.mark.parametrize("cls", _all_synthesizers(), ids=lambda cls: cls.__name__)
def test_pipeline_search_and_scorer_on_a_mixed_table(cls, mixed):
    params, name, values = _MAIN_PARAMETER[cls.__name__]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        pipe = make_private_pipeline(cls(**params), MIXED_DOMAIN)
    step = pipe.steps[-1][0]
    table = mixed.iloc[:300] if cls.__name__ == "PrivateSampler" else mixed
    search = GridSearchCV(
        pipe,
        {f"{step}__{name}": values},
        scoring=make_marginal_scorer(degree=2),
        cv=KFold(2, shuffle=True, random_state=0),
    )
    _assert_finite_and_ranked(_quiet_search(search, table))
    # The refitted best pipeline scores (its decoded tables) like the search's scorer.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert np.isfinite(search.best_estimator_.score(table))
