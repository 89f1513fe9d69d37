"""Person-level privacy on one table (``max_rows_per_person``): the bound, the
person-weighted tables' sensitivity on worst-case neighbours, record and replay at
person level, an audit against a variant that calibrates per row, and sampling."""

import json
import pickle
import warnings

import numpy as np
import pytest
from neighbours import largest_moves, releases_on_neighbours
from replay import assert_replays

from skprivsynth import MarginalSynthesizer, people
from skprivsynth._math.people import bound_contributions, fill_slots
from skprivsynth.auditing import audit_mechanism, gdp_mu
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.releases import record_releases

K = 6
DOMAIN = [2, 4, 5, 3]  # sex, age group (person columns 0, 1); diagnosis, ward (rows)
PERSON_COLUMNS = [0, 1]


def _visits(n_people=300, seed=0):
    """Codes of visits and the person of each: person columns constant, 1..12 rows a
    person (some above the bound K), events depending on the person's age group."""
    rng = np.random.default_rng(seed)
    sex, age = rng.integers(0, 2, n_people), rng.integers(0, 4, n_people)
    rows = rng.geometric(0.25 + 0.1 * (age < 2), n_people).clip(1, 12)
    person = np.repeat(np.arange(n_people), rows)
    diagnosis = (age[person] + rng.integers(0, 2, person.size)) % 5
    ward = (diagnosis // 2 + rng.integers(0, 2, person.size)) % 3
    X = np.column_stack([sex[person], age[person], diagnosis, ward]).astype(float)
    return X, person


def _replace_person(X, persons, who, new_rows):
    """The table with all the rows of person ``who`` replaced by ``new_rows`` (the
    same person key, at the end of the table)."""
    keep = persons != who
    X_new = np.vstack([X[keep], new_rows])
    return X_new, np.r_[persons[keep], np.full(len(new_rows), who)]


def _worst_case_pair(n_people=300, seed=0):
    """A person with K rows all in one cell, replaced by one with K rows all in
    another cell (every column, person columns included)."""
    X, persons = _visits(n_people, seed)
    low = np.zeros((K, len(DOMAIN)))
    high = np.tile(np.array(DOMAIN, dtype=float) - 1, (K, 1))
    D = _replace_person(X, persons, 0, low)
    return D, _replace_person(X, persons, 0, high)


def _estimator(epsilon=1.0, **params):
    params = {"person_columns": PERSON_COLUMNS, **params}
    return MarginalSynthesizer(
        epsilon, domain=DOMAIN, max_rows_per_person=K, random_state=0, **params
    )


# ---------------------------------------------------------------------------- the bound


def test_bound_keeps_each_persons_first_rows():
    persons = np.array(["b", "a", "b", "b", "a", "c", "b"])
    keep, person, first, counts = bound_contributions(persons, 2)
    assert keep.tolist() == [True, True, True, False, True, True, False]
    assert counts.tolist() == [2, 2, 1]  # a, b, c
    assert first.tolist() == [1, 0, 5]
    assert person.tolist() == [1, 0, 1, 1, 0, 2, 1]


def test_person_table_weights_sum_to_one_per_person():
    X, persons = _visits()
    table = people.PersonTable(X, persons, K, PERSON_COLUMNS)
    w = people.PersonTable.weights(table.codes, len(DOMAIN))
    assert table.n_people == len(np.unique(persons))
    assert np.isclose(w.sum(), table.n_people)
    # The count column is min(rows, K) − 1, and the person columns the first row's.
    rows = np.bincount(persons)
    assert np.array_equal(np.bincount(table.codes[:, -1].astype(int)) > 0,
                          np.bincount(np.minimum(rows, K) - 1) > 0)  # fmt: skip


def test_the_bound_is_applied_before_any_release():
    """Rows beyond a person's first K change nothing: every release's statistic is the
    same, and the replayed run is identical."""
    X, persons = _visits()
    big = np.flatnonzero(np.bincount(persons) > K)[0]
    beyond = np.flatnonzero(persons == big)[K:]
    X_changed = X.copy()
    X_changed[beyond, 2:] = 0  # the events past the bound
    X_more = np.vstack([X, np.tile(X[beyond[:1]], (5, 1))])  # and more of them
    persons_more = np.r_[persons, np.full(5, big)]

    def fit(data):
        return _estimator().fit(data[0], persons=data[1])

    for other in [(X_changed, persons), (X_more, persons_more)]:
        for (_, a), (_, b) in releases_on_neighbours(fit, (X, persons), other):
            assert np.array_equal(a, b)


# ---------------------------------------------------- sensitivity on worst-case neighbours


@pytest.mark.parametrize("selection, lags", [("adaptive", None), ("mst", None), ("adaptive", [2])])
def test_person_level_sensitivity_on_worst_case_neighbours(selection, lags):
    """Every release moves by at most its declared sensitivity when a person with K
    rows in one cell is replaced by a person with K rows in another, and the 1-way
    tables attain it (the bound is tight); with a lag column too (its previous-row
    column is a function of the person's rows)."""
    D, D_prime = _worst_case_pair()

    def fit(data):
        est = _estimator(8.0, selection=selection, lag_columns=lags)
        return est.fit(data[0], persons=data[1])

    moves = largest_moves(releases_on_neighbours(fit, D, D_prime))
    assert moves["Gaussian mechanism"] == pytest.approx(1.0)
    assert moves["exponential mechanism"] <= 1.0 + 1e-12


def test_person_level_sensitivity_when_the_count_changes():
    """A person with K rows in one cell replaced by a person with one row elsewhere:
    the count column moves too, and still within the declared sensitivity."""
    X, persons = _visits()
    low = np.zeros((K, len(DOMAIN)))
    D = _replace_person(X, persons, 0, low)
    D_prime = _replace_person(X, persons, 0, np.array([DOMAIN], dtype=float) - 1)

    def fit(data):
        return _estimator(8.0).fit(data[0], persons=data[1])

    moves = largest_moves(releases_on_neighbours(fit, D, D_prime))
    assert "exponential mechanism" in moves
    assert max(moves.values()) <= 1.0 + 1e-12


def test_a_per_row_calibration_exceeds_the_declared_sensitivity(monkeypatch):
    """The same test catches a fit whose kept rows weigh 1 (calibrated per row): the
    1-way tables then move by K·√2."""
    monkeypatch.setattr(people, "person_weights", lambda counts: np.ones(len(counts)))
    D, D_prime = _worst_case_pair()

    def fit(data):
        return _estimator(8.0).fit(data[0], persons=data[1])

    moves = largest_moves(releases_on_neighbours(fit, D, D_prime))
    assert moves["Gaussian mechanism"] == pytest.approx(K)


# ----------------------------------------------------------------- record and replay


@pytest.mark.parametrize("selection, lags", [("adaptive", None), ("mst", None), ("adaptive", [2])])
def test_replay_at_person_level(selection, lags):
    """A fit and sample on D and, replaying its releases, on D' (one person's rows all
    replaced, with another number of rows) agree on everything."""
    X, persons = _visits()
    D = (X, persons)
    D_prime = _replace_person(X, persons, 3, np.tile(np.array(DOMAIN, float) - 1, (2, 1)))

    def run(data):
        est = _estimator(8.0, selection=selection, verbose=1, lag_columns=lags)
        est.fit(data[0], persons=data[1])
        rows, keys = est.sample_people(40, random_state=1)
        state = {k: v for k, v in vars(est).items() if k != "_log_clock"}
        return {"rows": rows, "keys": keys, "report": str(est.privacy_report_),
                "state": pickle.dumps(state)}  # fmt: skip

    assert_replays(run, D, D_prime, seeded=True)


# -------------------------------------------------------------------------- the audit


def audit_person_level(variant, n_runs, random_state=0, monkeypatch=None):
    """GDP audit of a person-level fit on a worst-case pair of people.

    One column of two levels; 400 people of ``k = 20`` rows, half at each level; the
    audited person has all their rows at level 0 on ``D`` and at level 1 on ``D'``.
    Event (fixed in advance): the fitted model's share of level 0 is at least the
    midpoint of the two tables' person-weighted shares.  ``"per-row"``: the kept rows
    weigh 1 (calibrated per row), so the weighted table moves by ``k`` times the
    declared sensitivity.
    """
    k, n_people, eps, delta = 20, 400, 1.0, 1e-9
    if variant == "per-row":
        monkeypatch.setattr(people, "person_weights", lambda counts: np.ones(len(counts)))
    levels = (np.arange(n_people) % 2).astype(float)
    levels[0] = 0.0
    X0 = np.repeat(levels, k)[:, None].reshape(n_people, k, 1)
    X1 = X0.copy()
    X1[0] = 1.0
    persons = np.repeat(np.arange(n_people), k)
    midpoint = (n_people / 2 - 0.5) / n_people

    def mechanism(X, seed):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            est = MarginalSynthesizer(eps, delta=delta, domain=[2], max_rows_per_person=k,
                                      random_state=seed)  # fmt: skip
            return est.fit(X.reshape(-1, 1), persons=persons)

    return audit_mechanism(
        mechanism,
        X0,
        X1,
        events={"share of level 0 >= midpoint": lambda e: e.model_.marginal((0,))[0] >= midpoint},
        mu=gdp_mu(eps, delta),
        n_runs=n_runs,
        n_search_runs=50,
        random_state=random_state,
    )


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["honest", "per-row"])
def test_audit_person_level(variant, monkeypatch):
    result = audit_person_level(variant, 600, random_state=1, monkeypatch=monkeypatch)
    if variant == "honest":
        assert not result.violation, result.summary()
    else:
        assert result.violation, result.summary()


# ----------------------------------------------------------------------------- sampling


def test_synthetic_people_keep_their_person_columns_and_bound():
    X, persons = _visits(600)
    est = _estimator().fit(X, persons=persons)
    rows, keys = est.sample_people()
    assert rows.shape[1] == len(DOMAIN)
    assert keys.max() + 1 == len(np.unique(persons))  # the public number of people
    per_person = np.bincount(keys)
    assert per_person.min() >= 1 and per_person.max() <= K
    for j in PERSON_COLUMNS:
        first = rows[np.r_[0, np.flatnonzero(np.diff(keys)) + 1], j]
        assert np.array_equal(rows[:, j], first[keys])
    assert est.sample(7).shape[1] == len(DOMAIN)


def test_rows_per_person_follow_the_data():
    """The synthetic distribution of rows per person is close to the bounded one's
    (a DP estimate at ε = 4 on 3,000 people) and far from a uniform one's."""
    X, persons = _visits(3000, seed=1)
    est = MarginalSynthesizer(4.0, domain=DOMAIN, max_rows_per_person=K,
                              person_columns=PERSON_COLUMNS, random_state=0)  # fmt: skip
    _, keys = est.fit(X, persons=persons).sample_people()
    real = np.bincount(np.minimum(np.bincount(persons), K), minlength=K + 1)[1:]
    synth = np.bincount(np.bincount(keys), minlength=K + 1)[1:]
    tvd = 0.5 * np.abs(real / real.sum() - synth / synth.sum()).sum()
    assert tvd < 0.05, (real, synth)
    uniform = 0.5 * np.abs(real / real.sum() - 1 / K).sum()
    assert uniform > 3 * tvd


def test_row_level_fit_given_persons_warns():
    X, persons = _visits()
    with pytest.warns(PrivacyLeakWarning, match="per row"):
        MarginalSynthesizer(1.0, domain=DOMAIN, random_state=0).fit(X, persons=persons)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(max_rows_per_person=None, person_columns=[0]), "person_columns"),
        (dict(person_columns=[7]), "person_columns"),
        (dict(noise="discrete"), "noise='continuous'"),
    ],
)
def test_public_refusals(params, match):
    X, persons = _visits()
    est = MarginalSynthesizer(**{"domain": DOMAIN, "max_rows_per_person": K, **params})
    with record_releases() as recording, pytest.raises(ValueError, match=match):
        est.fit(X, persons=persons)
    assert len(recording) == 0


def test_bound_needs_persons():
    X, _ = _visits()
    with pytest.raises(ValueError, match="persons"):
        MarginalSynthesizer(domain=DOMAIN, max_rows_per_person=K).fit(X)



def test_pools_stop_at_their_draws_and_serve_every_common_kind():
    """Slots of a kind the model never draws made the pools run their 40 rounds at four
    times the slots each (18 s of a 20 s sample on nlswork): the records drawn are now
    at most ``draws_per_slot`` a slot, and the other slots are all served."""
    rng = np.random.default_rng(0)
    drawn = []

    def draw(m):
        drawn.append(m)
        return rng.integers(0, 10, size=(m, 1))  # kinds 0..9, never 10

    slot_keys = np.r_[np.repeat(np.arange(10), 100), np.full(5, 10)]
    filled, todo = fill_slots(
        slot_keys, 1, np.int64, draw, lambda r: r[:, 0], rng, slot_keys.size, 16
    )
    assert sum(drawn) <= 16 * slot_keys.size
    np.testing.assert_array_equal(todo, np.flatnonzero(slot_keys == 10))
    served = np.setdiff1d(np.arange(slot_keys.size), todo)
    np.testing.assert_array_equal(filled[served, 0], slot_keys[served])


# -------------------------------------------------------------------------- pipeline


def _frame():
    import pandas as pd

    X, persons = _visits()
    frame = pd.DataFrame(X.astype(int), columns=["sex", "age", "diagnosis", "ward"])
    return frame, persons, {c: list(range(k)) for c, k in zip(frame.columns, DOMAIN, strict=True)}


def test_pipeline_states_the_person_level_guarantee():
    from skprivsynth import make_private_pipeline

    frame, persons, domain = _frame()
    pipe = make_private_pipeline(_estimator(), domain=domain)
    with pytest.warns(PrivacyLeakWarning):
        pipe.fit(frame, marginalsynthesizer__persons=persons)
    rows, keys = pipe.sample_people(30, random_state=0)
    assert list(rows.columns) == list(frame.columns) and len(rows) == len(keys)
    assert np.bincount(keys).min() >= 1 and keys.max() == 29
    for column in ["sex", "age"]:
        assert (rows.groupby(keys)[column].nunique() == 1).all()
    assert pipe.privacy_statement().endswith("replace-one person neighbours")
    assert "replace-one person" in pipe.privacy_report_.neighbouring_relation


def _ranged_pair():
    """Frames of a person with K rows at the bottom of a declared float range, and of the
    same person with K rows at its top (the encoder bins and decodes the range)."""
    import pandas as pd

    frame, persons, domain = _frame()
    domain["cost"] = {"type": "float", "range": [0, 100]}
    rng = np.random.default_rng(0)
    frame["cost"] = np.round(rng.gamma(2.0, 10.0, len(frame)).clip(0, 100), 1)
    others = persons != 0
    pairs = []
    for value in (0.5, 99.5):
        person = pd.DataFrame({"sex": [0] * K, "age": [0] * K, "diagnosis": [0] * K,
                               "ward": [0] * K, "cost": [value] * K})  # fmt: skip
        pairs.append((pd.concat([frame[others], person], ignore_index=True),
                      np.r_[persons[others], np.zeros(K, int)]))  # fmt: skip
    return pairs, domain


def _encoder_moves(pairs, domain):
    from skprivsynth import make_private_pipeline

    def fit(data):
        est = MarginalSynthesizer(8.0, max_rows_per_person=K, random_state=0)
        pipe = make_private_pipeline(est, domain=domain, random_state=0)
        return pipe.fit(data[0], marginalsynthesizer__persons=data[1])

    return largest_moves(releases_on_neighbours(fit, *pairs))


def test_pipeline_encoder_releases_are_person_level():
    """Behind a person-level synthesizer the encoder's releases (private bins of a
    declared range, their decoding weights) read one row of each person: replacing a
    person with K rows at one end of the range by K rows at the other moves each
    release by at most one row's sensitivity, and the run states one guarantee."""
    pairs, domain = _ranged_pair()
    moves = _encoder_moves(pairs, domain)
    assert "PrivTree bins" in moves
    assert max(moves.values()) <= 1.0 + 1e-12


def test_an_encoder_fitted_on_every_row_exceeds_the_declared_sensitivity(monkeypatch):
    """The same test catches a pipeline whose encoder reads every row of a person."""
    monkeypatch.setattr(
        "skprivsynth.pipeline.encoder_rows", lambda persons, k, seed: np.arange(len(persons))
    )
    pairs, domain = _ranged_pair()
    assert _encoder_moves(pairs, domain)["PrivTree bins"] == pytest.approx(K)


def test_releases_under_different_relations_do_not_compose():
    from skprivsynth.privacy import PrivacyReport

    person = PrivacyReport("a", neighbouring_relation=people.person_relation(3))
    row = PrivacyReport("b")
    for report in (person, row):
        report.add("x", "Laplace mechanism", 1.0, 0.5, 2.0, "")
    with pytest.raises(ValueError, match="neighbouring relations"):
        person.compose(row)
    assert person.compose(PrivacyReport("c")).neighbouring_relation == person.neighbouring_relation


# ---------------------------------------------------------------------- command line


def _visits_csv(frame_persons):
    import pandas as pd

    X, persons = frame_persons
    frame = pd.DataFrame(X.astype(int), columns=["sex", "age", "diagnosis", "ward"])
    frame.insert(0, "patient_id", [f"P{p:05d}" for p in persons])
    return frame.to_csv(index=False)


def test_replay_the_command_line_at_person_level(tmp_path):
    """``synthesize --person patient_id --max-rows-per-person K`` on two files that
    differ in all the rows of one patient (another number of rows) says and writes the
    same, replaying the releases; the output holds synthetic keys."""
    from skprivsynth.cli import main

    domain = dict(zip(["sex", "age", "diagnosis", "ward"], DOMAIN, strict=True))
    (tmp_path / "domain.json").write_text(json.dumps(domain))
    data, output = tmp_path / "visits.csv", tmp_path / "synthetic.csv"
    X, persons = _visits()
    neighbour = _replace_person(X, persons, 5, np.tile(np.array(DOMAIN, float) - 1, (K + 3, 1)))

    def run(text):
        data.write_text(text)
        code = main(["synthesize", str(data), "-o", str(output), "--domain",
                     str(tmp_path / "domain.json"), "--person", "patient_id",
                     "--max-rows-per-person", str(K), "--seed", "0"])  # fmt: skip
        return {"code": code, "csv": output.read_text()}

    outcome = assert_replays(run, _visits_csv((X, persons)), _visits_csv(neighbour), seeded=True)
    assert outcome["result"]["code"] == 0, outcome["stderr"]
    assert "replace-one person neighbours" in outcome["stderr"]
    header, first = outcome["result"]["csv"].splitlines()[:2]
    assert header == "patient_id,sex,age,diagnosis,ward" and first.startswith("0,")



# ------------------------------------------------------------------------ lag columns


def _chains(n_people=2000, seed=0):
    """People whose rows walk: each row's level is the previous one's ± 1 (of 8)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, K + 1, n_people)
    person = np.repeat(np.arange(n_people), counts)
    steps = rng.choice([-1, 0, 1], person.size)
    level = np.empty(person.size)
    starts = np.cumsum(counts) - counts
    for start, c in zip(starts, counts, strict=True):
        walk = rng.integers(0, 8) + np.cumsum(np.r_[0, steps[start + 1 : start + c]])
        level[start : start + c] = np.clip(walk, 0, 7)
    group = rng.integers(0, 2, n_people)[person]
    return np.column_stack([group, level, rng.integers(0, 3, person.size)]), person


def _lag_one(X, persons, column=1):
    same = persons[1:] == persons[:-1]
    return np.corrcoef(X[:-1, column][same], X[1:, column][same])[0, 1]


def test_lag_columns_keep_consecutive_rows_related():
    """A lag column's value at the previous row is modelled and sampled in order: the
    lag-1 correlation of a walk comes back (it is lost without), and the number of
    rows, the person columns and the 1-way table stay as they were."""
    X, persons = _chains()
    real = _lag_one(X, persons)
    assert real > 0.8
    fits = {}
    for lags in (None, [1]):
        est = MarginalSynthesizer(4.0, domain=[2, 8, 3], max_rows_per_person=K,
                                  person_columns=[0], lag_columns=lags, random_state=0)  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            fits[lags is not None] = est.fit(X, persons=persons).sample_people(random_state=0)
    (without, p0), (with_lag, p1) = fits[False], fits[True]
    assert _lag_one(without, p0) < 0.2
    assert _lag_one(with_lag, p1) > real - 0.15
    for Y, p in ((without, p0), (with_lag, p1)):
        assert np.bincount(p).max() <= K and Y.shape[1] == 3
        assert (np.diff(Y[:, 0])[np.diff(p) == 0] == 0).all()  # a person column
        share = np.bincount(Y[:, 1].astype(int), minlength=8) / len(Y)
        real = np.bincount(X[:, 1].astype(int), minlength=8) / len(X)
        assert 0.5 * np.abs(share - real).sum() < 0.08


def test_lag_columns_need_the_bound():
    est = MarginalSynthesizer(domain=DOMAIN, lag_columns=[2])
    with pytest.raises(ValueError, match="lag_columns=\\[2\\] applies with max_rows_per_person"):
        est.fit(_visits()[0])
    est = _estimator(lag_columns=[7])
    with pytest.raises(ValueError, match="lag_columns must list distinct column indices"):
        est.fit(*_visits()[:1], persons=_visits()[1])


def test_a_lag_read_across_people_exceeds_the_declared_sensitivity(monkeypatch):
    """The worst-case test catches a lag column read from the previous row of the table
    (another person's) instead of the person's own previous row: replacing a person
    then also changes the next person's first row."""
    X, persons = _visits()
    low = np.zeros((K, len(DOMAIN)))
    high = np.tile(np.array(DOMAIN, dtype=float) - 1, (K, 1))
    # Person 0's rows first, so the row after them is another person's.
    others = persons != 0
    D = (np.vstack([low, X[others]]), np.r_[np.zeros(K, int), persons[others]])
    D_prime = (np.vstack([high, X[others]]), D[1])

    def fit(data):
        return _estimator(8.0, lag_columns=[2]).fit(data[0], persons=data[1])

    moves = largest_moves(releases_on_neighbours(fit, D, D_prime))
    assert moves["Gaussian mechanism"] <= 1.0 + 1e-12
    monkeypatch.setattr(
        people, "previous_rows", lambda keep, person: np.r_[-1, np.flatnonzero(keep)[:-1]]
    )
    moves = largest_moves(releases_on_neighbours(fit, D, D_prime))
    assert moves["Gaussian mechanism"] > 1.0 + 1e-6


# ----------------------------------------------------------------------- person means


def test_person_means_are_person_level_and_replay():
    """A person mean column is a function of the person's own rows: every release moves
    by at most its declared sensitivity on worst-case neighbours, and a fit and sample
    on D and, replaying, on D' agree on everything."""
    D, D_prime = _worst_case_pair()
    numeric = [0, 0, 5, 0]  # diagnosis as ordered numeric codes

    def fit(data):
        est = _estimator(8.0, mean_columns=[2])
        return est.fit(data[0], persons=data[1], numeric_codes=numeric)

    moves = largest_moves(releases_on_neighbours(fit, D, D_prime))
    assert moves["Gaussian mechanism"] == pytest.approx(1.0)
    assert moves["exponential mechanism"] <= 1.0 + 1e-12

    def run(data):
        rows, keys = fit(data).sample_people(40, random_state=1)
        return {"rows": rows, "keys": keys}

    assert_replays(run, D, D_prime, seeded=True)


def test_person_means_keep_a_persons_level():
    """People whose rows scatter around a level of their own: with the level modelled
    (``mean_columns``) the synthetic people's means spread as the real ones do, and
    consecutive rows correlate; without, every person's rows are drawn alike."""
    rng = np.random.default_rng(0)
    n_people = 2000
    counts = rng.integers(2, K + 1, n_people)
    person = np.repeat(np.arange(n_people), counts)
    level = rng.integers(1, 7, n_people)[person]
    X = np.column_stack([rng.integers(0, 2, person.size),
                         np.clip(level + rng.integers(-1, 2, person.size), 0, 7)])  # fmt: skip

    def spread(Y, p):
        return np.std(np.bincount(p, weights=Y[:, 1]) / np.bincount(p))

    out = {}
    for means in (None, [1]):
        est = MarginalSynthesizer(4.0, domain=[2, 8], max_rows_per_person=K, mean_columns=means,
                                  random_state=0)  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            Y, p = est.fit(X, persons=person, numeric_codes=[0, 8]).sample_people(random_state=0)
        out[means is not None] = (spread(Y, p), _lag_one(Y, p))
    real = (spread(X, person), _lag_one(X, person))
    assert out[True][0] > 0.8 * real[0] and out[False][0] < 0.6 * real[0]
    assert out[True][1] > real[1] - 0.15 and out[False][1] < 0.2


def test_mean_columns_are_numeric():
    est = _estimator(mean_columns=[2])
    with pytest.raises(ValueError, match="mean_columns must name numeric columns"):
        est.fit(_visits()[0], persons=_visits()[1])
