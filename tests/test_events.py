"""A people table with its events table (skprivsynth.events): the person-level
sensitivity of every release on worst-case neighbours (a person's row and all their
events replaced), a per-row calibration caught, the bound applied before any release,
record and replay, exact referential integrity, and what the synthetic tables keep."""

import warnings

import numpy as np
import pandas as pd
import pytest
from neighbours import largest_moves, releases_on_neighbours
from replay import assert_replays

from skprivsynth import MarginalSynthesizer, PeopleEventsSynthesizer
from skprivsynth._math import people as people_math
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.releases import record_releases

K = 4
DOMAIN = {
    "sex": ["F", "M"],
    "age": {"levels": ["young", "middle", "old"], "ordered": True},
    "ward": ["A", "B", "C", "D"],
    "cost": {"bins": [0, 100, 500, 2000]},
    "day": {"type": "datetime", "range": ["2024-01-01", "2024-12-31"], "resolution": "D",
            "bins": ["2024-01-01", "2024-04-01", "2024-07-01", "2024-10-01", "2024-12-31"]},
}  # fmt: skip


def _tables(n_people=1200, seed=0):
    """People (sex, age) and their events (ward, cost, day): the old have more events
    and go to ward C; about 15 % of the people have none."""
    rng = np.random.default_rng(seed)
    age = rng.choice(3, n_people, p=[0.4, 0.35, 0.25])
    people = pd.DataFrame({
        "id": [f"P{i:05d}" for i in range(n_people)],
        "sex": rng.choice(["F", "M"], n_people),
        "age": pd.Categorical.from_codes(age, ["young", "middle", "old"], ordered=True),
    })  # fmt: skip
    counts = np.where(rng.random(n_people) < 0.15, 0, 1 + rng.poisson(0.5 + 1.5 * age))
    person = np.repeat(np.arange(n_people), counts)
    old = age[person] == 2
    other = rng.choice(["A", "B", "D"], person.size)
    ward = np.where(old & (rng.random(person.size) < 0.7), "C", other)
    cost = np.round(np.where(ward == "C", rng.uniform(500, 2000, person.size),
                             rng.uniform(0, 500, person.size)), 2)  # fmt: skip
    day = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, person.size), "D")
    events = pd.DataFrame({"id": people["id"].to_numpy()[person], "ward": ward, "cost": cost,
                           "day": day})  # fmt: skip
    return people, events


def _estimator(epsilon=4.0, **params):
    synthesizer = MarginalSynthesizer(epsilon=epsilon, random_state=0, **params)
    return PeopleEventsSynthesizer(
        synthesizer, domain=DOMAIN, max_events_per_person=K, random_state=0
    )


def _fit(estimator, tables):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return estimator.fit(*tables, key="id")


def _replace(tables, who, person, rows):
    """``tables`` with person ``who``'s row replaced by ``person`` and their events by
    ``rows`` (a frame of event columns, possibly empty)."""
    people, events = tables
    key = people["id"].iloc[who]
    people = people.copy()
    for column, value in person.items():
        people.loc[people["id"] == key, column] = value
    dtypes = events.dtypes.to_dict()  # the schema is public: the same in D and D'
    events = pd.concat([events[events["id"] != key], rows.assign(id=key)], ignore_index=True)
    return people, events[list(dtypes)].astype(dtypes)


def _events(n, ward, cost, day):
    return pd.DataFrame({"ward": [ward] * n, "cost": [cost] * n,
                         "day": [pd.Timestamp(day)] * n})  # fmt: skip


def _worst_case_pair():
    """A person with K events in one cell, replaced by a person of other attributes
    with K events in another cell; and by a person without events."""
    tables = _tables()
    low = _replace(tables, 0, {"sex": "F", "age": "young"}, _events(K, "A", 1.0, "2024-01-02"))
    high = _replace(tables, 0, {"sex": "M", "age": "old"}, _events(K, "D", 1999.0, "2024-12-30"))
    none = _replace(tables, 0, {"sex": "M", "age": "old"}, _events(0, "A", 1.0, "2024-01-02"))
    return low, high, none


def _fitter(**params):
    return lambda tables: _fit(_estimator(8.0, **params), tables)


# ---------------------------------------------------- sensitivity on worst-case neighbours


@pytest.mark.parametrize("selection", ["adaptive", "mst"])
def test_person_level_sensitivity_on_worst_case_neighbours(selection):
    """Every release moves by at most its declared sensitivity when a person (their row
    of the people table and all their events) is replaced by another, with K events
    elsewhere or none; the 1-way tables attain it (the bound is tight)."""
    low, high, none = _worst_case_pair()
    for other in (high, none):
        moves = largest_moves(releases_on_neighbours(_fitter(selection=selection), low, other))
        assert moves["Gaussian mechanism"] <= 1.0 + 1e-12
        assert moves["exponential mechanism"] <= 1.0 + 1e-12
    moves = largest_moves(releases_on_neighbours(_fitter(selection=selection), low, high))
    assert moves["Gaussian mechanism"] == pytest.approx(1.0)


def test_a_per_row_calibration_exceeds_the_declared_sensitivity(monkeypatch):
    """The same test catches a fit whose events weigh 1 each (calibrated per row): the
    1-way tables then move by K times the declared sensitivity."""
    monkeypatch.setattr(people_math, "person_weights", lambda counts: np.ones(len(counts)))
    monkeypatch.setattr("skprivsynth.people.person_weights", people_math.person_weights)
    low, high, _ = _worst_case_pair()
    moves = largest_moves(releases_on_neighbours(_fitter(), low, high))
    assert moves["Gaussian mechanism"] == pytest.approx(K)


def test_the_bound_is_applied_before_any_release():
    """Events of a person beyond their first K (in the events table's order) are never
    read: changing them changes no release."""
    people, events = _tables()
    many = events.groupby("id").cumcount().to_numpy() >= K
    assert many.any()
    changed = events.copy()
    changed.loc[many, "ward"] = "D"
    changed.loc[many, "cost"] = 1.0
    for (_, a), (_, b) in releases_on_neighbours(_fitter(), (people, events), (people, changed)):
        assert np.array_equal(a, b)


def test_replay_at_person_level():
    """A fit and sample on D and, replaying its releases, on D' (one person with K events
    replaced by one without any) agree on everything: the two tables, their dtypes and
    the report."""
    low, _, none = _worst_case_pair()

    def run(tables):
        est = _estimator(8.0, verbose=1).fit(*tables, key="id")
        people, events = est.sample(300, random_state=1)
        return {"people": people, "events": events, "report": str(est.privacy_report_)}

    outcome = assert_replays(run, low, none, seeded=True)
    assert "replace-one person" in outcome["result"]["report"]


# ------------------------------------------------------------------ the synthetic tables


@pytest.fixture(scope="module")
def fitted():
    tables = _tables(2000, seed=1)
    return tables, _fit(_estimator(4.0), tables)


def test_keys_point_into_the_people_table(fitted):
    """Synthetic keys 0..n_people − 1, one row each; every event's key is a person;
    columns and dtypes as given; no event column missing where none was declared."""
    (people, events), est = fitted
    synthetic_people, synthetic_events = est.sample(random_state=0)
    assert len(synthetic_people) == len(people) == est.n_people_
    assert synthetic_people["id"].tolist() == list(range(len(people)))
    assert synthetic_events["id"].isin(synthetic_people["id"]).all()
    assert list(synthetic_people.columns) == list(people.columns)
    assert list(synthetic_events.columns) == list(events.columns)
    for real, synthetic in ((people, synthetic_people), (events, synthetic_events)):
        for column in real.columns.drop("id"):
            assert synthetic[column].dtype == real[column].dtype, column
        assert not synthetic.isna().any().any()
    assert synthetic_events.groupby("id").size().max() <= K


def _counts(people, events):
    """Each person's number of events, bounded at K."""
    return np.minimum(people["id"].map(events.groupby("id").size()).fillna(0), K).astype(int)


def test_events_per_person_and_their_relation_to_the_person(fitted):
    """The distribution of events per person (zero included) and its relation to age,
    and ward given age over the join, come back close."""
    (people, events), est = fitted
    synthetic_people, synthetic_events = est.sample(random_state=0)
    real = np.bincount(_counts(people, events), minlength=K + 1) / len(people)
    synthetic = np.bincount(_counts(synthetic_people, synthetic_events), minlength=K + 1)
    assert 0.5 * np.abs(real - synthetic / len(synthetic_people)).sum() < 0.08
    # the old have more events, in the real and the synthetic tables
    for p, e in ((people, events), (synthetic_people, synthetic_events)):
        events_by_age = pd.Series(_counts(p, e).to_numpy(), index=p["age"].to_numpy())
        by_age = events_by_age.groupby(level=0, observed=True).mean()
        assert by_age["old"] > by_age["young"] + 0.5
    # ward C is the old's ward, across the join
    bounded = events[events.groupby("id").cumcount() < K]

    def share_c(p, e):
        joined = e.merge(p, on="id")
        return (joined.loc[joined["age"] == "old", "ward"] == "C").mean()

    assert share_c(synthetic_people, synthetic_events) == pytest.approx(
        share_c(people, bounded), abs=0.1
    )


# ---------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda p, e: (p.rename(columns={"id": "pid"}), e), "key='id' is not a column of people"),
        (lambda p, e: (p.assign(ward="A"), e), r"columns \['ward'\] are in both"),
        (lambda p, e: (p.assign(region="N"), e), r"columns \['region'\] are not declared"),
        (lambda p, e: (p, e[["id"]]), "events has no column but the key"),
    ],
)
def test_refusals_name_the_problem(change, match):
    people, events = _tables(50)
    with pytest.raises(ValueError, match=match):
        _estimator().fit(*change(people, events), key="id")


def test_a_part_across_tables_is_refused():
    people, events = _tables(50)
    domain = {**DOMAIN, "month": {"part_of": "day", "part": "month"}}
    people = people.assign(month=1)
    est = PeopleEventsSynthesizer(domain=domain, max_events_per_person=K)
    with pytest.raises(ValueError, match="'month' of people is declared from"):
        est.fit(people, events, key="id")


@pytest.mark.parametrize("k", [0, 2.5, True])
def test_the_bound_is_a_positive_integer(k):
    est = PeopleEventsSynthesizer(domain=DOMAIN, max_events_per_person=k)
    with pytest.raises(ValueError, match="max_events_per_person must be an integer"):
        est.fit(*_tables(50), key="id")


# ------------------------------------------------------------------------ command line


def test_the_command_line_writes_both_tables(tmp_path):
    """``synthesize people.csv --events events.csv --person id`` writes the synthetic
    people and their events, each event's key a person's; replaying its releases on
    files that differ in one person (their row and all their events) writes the same."""
    import json

    from skprivsynth.cli import main

    (tmp_path / "domain.json").write_text(json.dumps(DOMAIN))
    people_csv, events_csv = tmp_path / "people.csv", tmp_path / "events.csv"
    out_people, out_events = tmp_path / "p.csv", tmp_path / "e.csv"
    low, _, none = _worst_case_pair()

    def run(tables):
        tables[0].to_csv(people_csv, index=False)
        tables[1].to_csv(events_csv, index=False)
        code = main(["synthesize", str(people_csv), "--events", str(events_csv), "--person", "id",
                     "--max-rows-per-person", str(K), "--domain", str(tmp_path / "domain.json"),
                     "-o", str(out_people), "--events-output", str(out_events), "--seed", "0",
                     "--param", "epsilon=8"])  # fmt: skip
        return {"code": code, "people": out_people.read_text(), "events": out_events.read_text()}

    outcome = assert_replays(run, low, none, seeded=True)
    assert outcome["result"]["code"] == 0, outcome["stderr"]
    assert "replace-one person neighbours" in outcome["stderr"]
    people = pd.read_csv(out_people)
    events = pd.read_csv(out_events)
    assert list(people.columns) == ["id", "sex", "age"]
    assert list(events.columns) == ["id", "ward", "cost", "day"]
    assert len(people) == len(low[0]) and events["id"].isin(people["id"]).all()


def test_the_command_line_names_what_events_need(tmp_path, capsys):
    from skprivsynth.cli import main

    people, events = _tables(50)
    people.to_csv(tmp_path / "p.csv", index=False)
    events.to_csv(tmp_path / "e.csv", index=False)
    code = main(["synthesize", str(tmp_path / "p.csv"), "--events", str(tmp_path / "e.csv"),
                 "-o", str(tmp_path / "out.csv")])  # fmt: skip
    assert code != 0 and "--events needs --person" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


def test_lag_and_mean_columns_name_event_columns():
    """``lag_columns`` and ``mean_columns`` name event columns (refused otherwise, before
    any release), and with them the fit keeps the tables' contract."""
    tables = _tables(300)
    for params in ({"lag_columns": ["sex"]}, {"mean_columns": ["nope"]}):
        est = PeopleEventsSynthesizer(domain=DOMAIN, max_events_per_person=K, **params)
        with record_releases() as recording, pytest.raises(ValueError, match="must name event"):
            est.fit(*tables, key="id")
        assert len(recording) == 0
    est = _estimator(4.0)
    est.set_params(lag_columns=["ward"], mean_columns=["cost"])
    people, events = _fit(est, tables).sample(random_state=0)
    assert events["id"].isin(people["id"]).all() and not events.isna().any().any()


def test_the_synthesizers_own_lag_and_mean_columns_are_kept(tmp_path, capsys):
    """``mean_columns`` given to the synthesizer (as ``--param mean_columns=cost`` on the
    command line) is used when the two-table estimator has none of its own: the model
    holds the person mean as one more column."""
    import json

    from skprivsynth.cli import main

    tables = _tables(300)
    est = PeopleEventsSynthesizer(
        MarginalSynthesizer(4.0, mean_columns="cost", random_state=0), domain=DOMAIN,
        max_events_per_person=K, random_state=0,
    )  # fmt: skip
    plain = _fit(_estimator(4.0), tables).pipeline_[-1]
    fitted = _fit(est, tables).pipeline_[-1]
    assert len(fitted.model_.sizes) == len(plain.model_.sizes) + 1
    (tmp_path / "d.json").write_text(json.dumps(DOMAIN))
    for name, frame in zip(("p.csv", "e.csv"), tables, strict=True):
        frame.to_csv(tmp_path / name, index=False)
    code = main(["synthesize", str(tmp_path / "p.csv"), "--events", str(tmp_path / "e.csv"),
                 "--person", "id", "--max-rows-per-person", str(K), "--domain",
                 str(tmp_path / "d.json"), "-o", str(tmp_path / "po.csv"), "--events-output",
                 str(tmp_path / "eo.csv"), "--seed", "0",
                 "--param", "mean_columns=cost"])  # fmt: skip
    assert code == 0, capsys.readouterr().err


def test_whether_anyone_has_no_event_is_not_in_the_output():
    """D: everyone has events; D': one person's events all removed (the only person
    without one).  Replaying D's releases, the two runs write the same tables with the
    same dtypes, an integer event column declared missing included, and the fitted
    encoder (handed on with the estimator) reads the same dtypes."""
    people, events = _tables(400, seed=2)
    people = people[people["id"].isin(events["id"])].reset_index(drop=True)
    events = events.assign(n=np.random.default_rng(0).integers(0, 5, len(events)))
    domain = {**DOMAIN, "n": {"type": "integer", "range": [0, 4], "missing": True}}
    D = (people, events)
    D_prime = (people, events[events["id"] != people["id"].iloc[0]].reset_index(drop=True))

    def run(tables):
        est = PeopleEventsSynthesizer(
            MarginalSynthesizer(8.0, random_state=0), domain=domain, max_events_per_person=K,
            random_state=0,
        ).fit(*tables, key="id")  # fmt: skip
        synthetic_people, synthetic_events = est.sample(200, random_state=1)
        encoder_dtypes = [str(t) for t in est.pipeline_[0].dtypes_]
        return {"people": synthetic_people, "events": synthetic_events, "fit": encoder_dtypes}

    assert_replays(run, D, D_prime, seeded=True)
