"""Record and replay over every DP entry point (``pytest -k replay``).

Each test fits on ``D`` recording every release (:mod:`skprivsynth.releases`) and on a
replace-one neighbour ``D'`` replaying them; everything else must be identical
(:func:`replay.assert_replays`).  The entry points: every DP synthesizer
(:func:`~skprivsynth.synthesizers.all_synthesizers`) on Boolean data, and on codes that
reach selection and compression, the private pipeline on a table with every column
kind, the DP scorer, private selection, and the command line on neighbouring CSV files.
"""

import json
import pickle

import numpy as np
import pandas as pd
import pytest
from estimator_checks import TEST_PARAMS
from replay import assert_replays, observe

from skprivsynth import (
    MarginalSynthesizer,
    NoisyMicroaggregation,
    ReducedSpaceLP,
    make_private_pipeline,
    make_synthesis_pipeline,
)
from skprivsynth.base import get_synthesizer_tags
from skprivsynth.cli import main
from skprivsynth.metrics import make_marginal_scorer
from skprivsynth.model_selection import PrivateSelectionSearch
from skprivsynth.preprocessing import BooleanEncoder
from skprivsynth.releases import RELEASE_PRIMITIVES, ReplayMismatch, record_releases
from skprivsynth.synthesizers import all_synthesizers
from skprivsynth.validation import is_differentially_private


def _boolean(n=240, p=5, seed=0):
    rng = np.random.default_rng(seed)
    latent = rng.random((n, 1))
    return (rng.random((n, p)) < 0.2 + 0.6 * latent).astype(float)


def _codes(n=400, seed=0):
    """Six code columns, correlated, with rare levels (MarginalSynthesizer compresses
    them) and enough pairs for its rounds to select."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(0, 2, n)) % 5
    c = rng.choice(6, n, p=[0.5, 0.3, 0.15, 0.03, 0.01, 0.01])
    d = (c > 1).astype(int) + rng.integers(0, 2, n)
    e = rng.integers(0, 2, n)
    f = (e ^ (a > 1)).astype(int)
    return np.column_stack([a, b, c, d, e, f]).astype(float)


def _flipped(X):
    X_prime = X.copy()
    X_prime[0] = 1 - X_prime[0]
    return X_prime


def _moved(X):
    X_prime = X.copy()
    X_prime[0] = [3, 4, 5, 2, 1, 0]  # the row to rare levels of every column
    return X_prime


#: Wall-clock readings of a fit: its progress lines' clock, the LP's build and solve times.
_CLOCKS = {"_log_clock", "build_time_", "solve_time_"}


def _state(est):
    """The fitted estimator as bytes, without its clock readings."""
    return pickle.dumps({k: v for k, v in vars(est).items() if k not in _CLOCKS})


def _fit_and_sample(estimator, released_state=True):
    def run(X):
        est = estimator().fit(X)
        result = {"sample": est.sample(12, random_state=1), "report": str(est.privacy_report_)}
        if released_state:
            result["state"] = _state(est)
        return result

    return run


SEEDS = {"int": lambda: 0, "Generator": lambda: np.random.default_rng(0)}

#: Synthesizers whose fitted state is private (never shared): the release is the sample.
PRIVATE_STATE = {"PrivateSampler"}


def _dp_synthesizers():
    """``{id: (class, parameters)}``: every DP synthesizer with its test parameters and
    phase lines, and, for those with a ``noise`` option, with discrete noise."""
    found = {}
    for name, cls in all_synthesizers():
        params = TEST_PARAMS.get(name, {})
        if not is_differentially_private(cls):
            continue
        found[name] = cls, {**params, "verbose": 1}
        if get_synthesizer_tags(cls(**params)).noise:
            found[f"{name}-discrete"] = cls, {**params, "noise": "discrete"}
    return found


BOOLEAN = _dp_synthesizers()


@pytest.mark.parametrize("seed", list(SEEDS))
@pytest.mark.parametrize("name", list(BOOLEAN))
def test_replay_a_synthesizer_on_boolean_data(name, seed):
    X = _boolean()
    cls, params = BOOLEAN[name]
    run = _fit_and_sample(
        lambda: cls(**params, random_state=SEEDS[seed]()),
        released_state=cls.__name__ not in PRIVATE_STATE,
    )
    assert_replays(run, X, _flipped(X), seeded=True)


CODES = {
    "adaptive": dict(),
    "adaptive-discrete": dict(noise="discrete"),
    "mst": dict(selection="mst"),
    "correlated": dict(measurement="correlated"),
}


@pytest.mark.parametrize("variant", list(CODES))
def test_replay_marginal_selection_and_compression(variant):
    X = _codes()
    domain = [4, 5, 6, 3, 2, 2]

    def estimator():
        return MarginalSynthesizer(
            epsilon=1.0, domain=domain, verbose=1, random_state=0, **CODES[variant]
        )

    outcome = assert_replays(_fit_and_sample(estimator), X, _moved(X), seeded=True)
    assert "rare levels merged" in outcome["stderr"]  # the fit compressed rare levels


# ------------------------------------------------------------------ a table of every kind


DOMAIN = {
    "admitted": {
        "type": "datetime",
        "range": ["2024-01-01", "2024-12-31T23:00"],
        "resolution": "h",
    },
    "month": {"part_of": "admitted", "part": "month"},
    "age": {"type": "integer", "range": [0, 120]},
    "cost": {"type": "float", "range": [0, 1000], "decimals": 1, "missing": True},
    "severity": {"levels": ["low", "medium", "high"], "ordered": True},
    "group": ["a", "b", "c"],
    "kids": [0, 1, 2, 3],
}


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    admitted = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 366 * 24, n), "h")
    admitted = admitted.where(admitted <= pd.Timestamp("2024-12-31T23:00"), "2024-06-01")
    cost = np.round(rng.lognormal(4, 1, n).clip(0, 1000), 1)
    cost[rng.random(n) < 0.2] = np.nan
    frame = pd.DataFrame(
        {
            "admitted": admitted,
            "month": admitted.month,
            "age": rng.choice([20, 35, 35, 50, 64, 80], n) + rng.integers(0, 3, n),
            "cost": cost,
            "severity": pd.Categorical(
                rng.choice(["low", "medium", "high"], n), ["low", "medium", "high"], ordered=True
            ),
            "group": rng.choice(["a", "c"], n),  # "b" only where a neighbour puts it
            "kids": rng.integers(0, 3, n),
        }
    )
    frame["group"] = frame["group"].astype("category")
    return frame


def _neighbour(frame, **row):
    """``frame`` with row 0 replaced by ``row`` (the other cells kept)."""
    other = frame.copy()
    for column, value in row.items():
        if column == "group":
            other["group"] = other["group"].astype(str)
            other.loc[0, "group"] = value
            other["group"] = other["group"].astype("category")
        else:
            other.loc[0, column] = value
    if "admitted" in row:
        other.loc[0, "month"] = pd.Timestamp(row["admitted"]).month
    return other


NEIGHBOURS = {
    "the only level": dict(group="b"),
    "a missing value": dict(cost=np.nan),
    "the range's end": dict(admitted=pd.Timestamp("2024-12-31T23:00"), age=120, cost=1000.0),
    "a level at the edge": dict(severity="high", kids=3),
}


def _pipeline(synthesizer, **params):
    return make_private_pipeline(synthesizer, DOMAIN, random_state=0, **params)


def _fit_pipeline(make):
    def run(frame):
        pipe = make().fit(frame)
        return {
            "sample": pipe.sample(60, random_state=1),
            "state": [_state(step) for _, step in pipe.steps],
            "report": str(pipe.privacy_report_),
        }

    return run


@pytest.mark.parametrize("neighbour", list(NEIGHBOURS))
def test_replay_the_private_pipeline_on_every_kind(neighbour):
    frame = _table(n=800)  # enough rows for the grid points (range_plan)
    run = _fit_pipeline(
        lambda: _pipeline(MarginalSynthesizer(epsilon=1.0, verbose=1, random_state=0))
    )
    outcome = assert_replays(run, frame, _neighbour(frame, **NEIGHBOURS[neighbour]), seeded=True)
    assert "recurring values" in outcome["result"]["report"]  # grid points were released


def test_replay_the_public_bins_of_a_small_table():
    """200 rows cannot lift PrivTree's tests (range_plan): the bins are public, the
    neighbours' runs call the same releases, and the report has no private bins."""
    frame = _table(n=200)
    run = _fit_pipeline(lambda: _pipeline(MarginalSynthesizer(epsilon=1.0, random_state=0)))
    outcome = assert_replays(
        run, frame, _neighbour(frame, **NEIGHBOURS["the range's end"]), seeded=True
    )
    assert "private bins" not in outcome["result"]["report"]


@pytest.mark.parametrize(
    "synthesizer",
    [
        lambda: MarginalSynthesizer(epsilon=1.0, noise="discrete", random_state=0),
        lambda: ReducedSpaceLP(epsilon=2.0, m=256, random_state=0),
        lambda: NoisyMicroaggregation(epsilon=2.0, random_state=0),
    ],
    ids=["marginal-discrete", "reduced-space", "noisy-microaggregation"],
)
def test_replay_other_synthesizers_behind_the_encoder(synthesizer):
    frame = _table()
    run = _fit_pipeline(lambda: _pipeline(synthesizer()))
    assert_replays(run, frame, _neighbour(frame, **NEIGHBOURS["the range's end"]), seeded=True)


def test_replay_a_dp_score():
    frame = _table()
    pipe = _pipeline(MarginalSynthesizer(epsilon=1.0, random_state=0)).fit(frame)

    def run(D):
        scorer = make_marginal_scorer(
            space="decoded", epsilon=1.0, noise_random_state=np.random.default_rng(0)
        )
        return scorer(pipe, D)

    assert_replays(run, frame, _neighbour(frame, group="b"))


BINNED = {  # public bins and levels only: private selection accounts for no encoder release
    "age": {"bins": [0, 30, 60, 121]},
    "cost": {"bins": [0, 50, 100, 1000], "missing": True},
    "severity": DOMAIN["severity"],
    "group": DOMAIN["group"],
    "kids": DOMAIN["kids"],
}


def _search(categories=BINNED, pipe=None):
    if pipe is None:
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=1.0), categories, decode_share=0, random_state=0
        )
    return PrivateSelectionSearch(
        pipe,
        {"marginalsynthesizer__epsilon": [0.5, 1.0]},
        scoring=make_marginal_scorer(
            space="decoded", epsilon=0.5, noise_random_state=np.random.default_rng(0)
        ),
        delta=1e-6,
        random_state=0,
    )


def test_replay_private_selection():
    frame = _table()

    def run(D):
        search = _search(BINNED).fit(D[list(BINNED)])
        return {"best": search.best_params_, "sample": search.sample(30, random_state=1)}

    assert_replays(run, frame, _neighbour(frame, group="b", cost=np.nan), seeded=True)


def test_replay_private_selection_refuses_list_form_ranges_before_any_release():
    frame = _table()[["age", "cost", "kids"]]
    listed = [DOMAIN["age"], BINNED["cost"], DOMAIN["kids"]]  # a range in a list

    def run(D):
        pipe = make_synthesis_pipeline(
            BooleanEncoder(categories=listed, encoding="ordinal", random_state=0),
            MarginalSynthesizer(epsilon=1.0),
        )
        return _search(pipe=pipe).fit(D.set_axis(range(3), axis=1)).best_params_

    outcome = assert_replays(run, frame, _neighbour(frame, age=120), min_releases=0)
    assert outcome["error"] is not None


# ------------------------------------------------------------------ the command line


CSV = {
    "a fractional value in an integer column": ("age", "50.5"),
    "an empty cell": ("cost", ""),
    "a level at the edge": ("severity", "high"),
    "a timestamp at the range's end": ("admitted", "2024-12-31 23:00:00"),
}


def _csv_text(frame, column=None, value=None):
    text = frame.drop(columns="month").to_csv(index=False).splitlines()
    if column is not None:
        header = text[0].split(",")
        cells = text[1].split(",")
        cells[header.index(column)] = value
        text[1] = ",".join(cells)
    return "\n".join(text) + "\n"


@pytest.mark.parametrize("options", [[], ["--chunksize", "100"]], ids=["in-memory", "chunked"])
@pytest.mark.parametrize("neighbour", list(CSV))
def test_replay_the_command_line_on_neighbouring_files(tmp_path, neighbour, options):
    domain = {k: v for k, v in DOMAIN.items() if k != "month"}
    (tmp_path / "domain.json").write_text(json.dumps(domain))
    data, output = tmp_path / "data.csv", tmp_path / "synthetic.csv"

    def run(text):
        data.write_text(text)
        code = main(
            ["synthesize", str(data), "-o", str(output), "--domain", str(tmp_path / "domain.json")]
            + ["--seed", "0", *options]
        )
        return {"code": code, "csv": output.read_text()}

    frame = _table()
    outcome = assert_replays(run, _csv_text(frame), _csv_text(frame, *CSV[neighbour]))
    assert outcome["result"]["code"] == 0, outcome["stderr"]


# ------------------------------------------------------------------ the method


def test_every_release_goes_through_a_registered_primitive():
    names = set(RELEASE_PRIMITIVES)
    assert {
        "Laplace mechanism",
        "Gaussian mechanism",
        "exponential mechanism",
        "PrivTree bins",
        "grid points",
        "residual measurements",
        "Bingham projection",
        "correlated Gaussian mechanism",
        "private sampling",
    } <= names
    frame = _table(n=800)  # enough rows for the grid points (range_plan)
    with record_releases() as recording:
        _pipeline(MarginalSynthesizer(epsilon=1.0, random_state=0)).fit(frame)
    made = {call["release"] for call in recording.calls}
    assert {"PrivTree bins", "grid points", "Gaussian mechanism"} <= made


def _leaky_run(X):
    """A realistic mistake: the number of rows above a threshold printed unreleased."""
    est = MarginalSynthesizer(epsilon=1.0, domain=[2] * 5, random_state=0).fit(X)
    print(f"{int((X[:, 0] == 1).sum())} rows with the first feature")
    return _state(est)


def test_replay_catches_a_printed_count_and_a_data_dependent_call():
    X = _boolean()
    with pytest.raises(AssertionError, match="stdout differs"):
        assert_replays(_leaky_run, X, _flipped(X))

    def branching(X):  # a budget chosen from the data
        epsilon = 1.0 if X[0, 0] == X[1, 0] else 2.0
        return _state(MarginalSynthesizer(epsilon=epsilon, domain=[2] * 5).fit(X))

    X[0, 0] = X[1, 0]
    first, recording = observe(branching, X)
    with pytest.raises(ReplayMismatch):
        observe(branching, _flipped(X), recording)


@pytest.mark.parametrize(
    "column, values",
    [("kids", (2.5, 7)), ("group", ("z", "y")), ("age", (121, 500))],
    ids=["integer level", "level", "range"],
)
def test_replay_an_out_of_domain_value_is_refused_in_the_same_words(column, values):
    frame = _table().astype({"kids": float})  # as read from a file with a 2.5 in it
    first, second = (_neighbour(frame, **{column: v}) for v in values)
    second = pd.concat([second.iloc[1:4], second.iloc[:1], second.iloc[4:]])  # another row
    run = _fit_pipeline(lambda: _pipeline(MarginalSynthesizer(epsilon=1.0, random_state=0)))
    outcome = assert_replays(
        run, first.reset_index(drop=True), second.reset_index(drop=True), min_releases=0
    )
    assert outcome["error"] is not None and column in outcome["error"]
