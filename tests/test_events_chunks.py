"""A people table with its events read in chunks (``PeopleEventsSynthesizer.fit(people,
Chunks_of_events)``, ``synthesize --events ... --chunksize N``): the same releases and
tables as the fit in memory for the same seed, a person's first events kept across
chunks, record and replay on neighbouring people, and the refusals."""

import json
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from neighbours import releases_on_neighbours
from replay import assert_replays
from test_events import DOMAIN, K, _estimator, _tables

from skprivsynth import Chunks, MarginalSynthesizer, PeopleEventsSynthesizer
from skprivsynth.cli import main
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.releases import record_releases


def _shuffled(n_people=240, seed=3):
    """People and their events in a random order (a person's events span chunks)."""
    people, events = _tables(n_people, seed)
    order = np.random.default_rng(seed).permutation(len(events))
    return people, events.iloc[order].reset_index(drop=True)


def _fit(events, people, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return _estimator(4.0).set_params(**params).fit(people, events, key="id")


def _outcome(est):
    """What a fit released and what it samples, comparable with ``==``."""
    people, events = est.sample(random_state=1)
    synthesizer = est.pipeline_[-1]
    fitted = {k: v for k, v in vars(synthesizer).items() if k.endswith("_")}
    return {"people": people.to_csv(), "events": events.to_csv(),
            "dtypes": str(people.dtypes) + str(events.dtypes),
            "report": str(est.privacy_report_), "fitted": pickle.dumps(fitted)}  # fmt: skip


@pytest.mark.parametrize("params", [{}, {"lag_columns": ["cost"], "mean_columns": ["cost"]}])
def test_chunked_fit_is_the_in_memory_fit(params):
    """Same seed, same releases, same model, same synthetic tables for events in one
    chunk, in three, in chunks of 7 rows and in memory."""
    people, events = _shuffled()
    expected = _outcome(_fit(events, people, **params))
    n = len(events)
    for chunksize in (n, n // 3, 7):
        assert _outcome(_fit(Chunks.from_array(events, chunksize), people, **params)) == expected


def test_a_person_whose_events_span_chunks_keeps_their_first_k():
    """A person with 3 K events spread over chunks of 7 rows: the events beyond their
    first K in the chunks' order change no release, changed or added at the end."""
    people, events = _shuffled()
    who = events["id"].value_counts().index[0]
    extra = pd.DataFrame({"id": [who] * 2 * K, "ward": "D", "cost": 1999.0,
                          "day": pd.Timestamp("2024-12-30")})  # fmt: skip
    spread = pd.concat([events, extra], ignore_index=True)
    spread = spread.iloc[np.random.default_rng(0).permutation(len(spread))].reset_index(drop=True)
    rows = np.flatnonzero(spread["id"].to_numpy() == who)
    assert len(rows) >= 3 * K and len(np.unique(rows // 7)) > K  # over many chunks
    beyond = rows[K:]
    changed = spread.copy()
    changed.loc[beyond, ["ward", "cost"]] = ["A", 1.0]
    more = pd.concat([spread, spread.iloc[beyond]], ignore_index=True)
    fit = lambda tables: _fit(Chunks.from_array(tables[1], 7), tables[0])  # noqa: E731
    for other in (changed, more):
        pairs = releases_on_neighbours(fit, (people, spread), (people, other))
        assert pairs
        for (_, a), (_, b) in pairs:
            assert np.array_equal(a, b)


def test_replay_chunked_fit_without_anyone_without_events():
    """D: everyone has events; D': one person's events all removed.  Read in chunks and
    replaying D's releases, the two fits write the same tables with the same dtypes."""
    people, events = _tables(300, seed=2)
    people = people[people["id"].isin(events["id"])].reset_index(drop=True)
    D = (people, events)
    D_prime = (people, events[events["id"] != people["id"].iloc[0]].reset_index(drop=True))

    def run(tables):
        est = PeopleEventsSynthesizer(
            MarginalSynthesizer(8.0, random_state=0), domain=DOMAIN, max_events_per_person=K,
            random_state=0,
        ).fit(tables[0], Chunks.from_array(tables[1], 50), key="id")  # fmt: skip
        synthetic_people, synthetic_events = est.sample(200, random_state=1)
        return {"people": synthetic_people, "events": synthetic_events,
                "report": str(est.privacy_report_)}  # fmt: skip

    assert_replays(run, D, D_prime, seeded=True)


@pytest.mark.parametrize(
    "events, error, match",
    [
        (lambda e: Chunks.from_array(e.rename(columns={"id": "pid"}), 50), ValueError,
         r"key='id' is not a column of events; its columns are \['pid', 'ward'"),
        (lambda e: (e.iloc[i : i + 50] for i in range(0, len(e), 50)), TypeError,
         "events must be a pandas DataFrame or a skprivsynth.Chunks of DataFrames"),
        (lambda e: Chunks.from_array(e.to_numpy(), 50), TypeError,
         "its first chunk is ndarray"),
    ],
)  # fmt: skip
def test_refusals_name_the_parameter_before_any_release(events, error, match):
    people, frame = _tables(50)
    with record_releases() as recording, pytest.raises(error, match=match) as raised:
        _estimator().fit(people, events(frame), key="id")
    assert len(recording) == 0
    assert "P000" not in str(raised.value)  # no key, no value of the tables


def test_batches_of_people_are_the_sample_and_run_on():
    """``sample(batch_size=...)``: one batch is the sample drawn at once (the same
    Generator); batches of 50 people give keys that run on, every event's key a person
    of its batch, and the same tables whatever the chunking of the fit."""
    people, events = _shuffled()
    est = _fit(events, people)
    whole = est.sample(random_state=np.random.default_rng(1))
    (one,) = est.sample(random_state=np.random.default_rng(1), batch_size=len(people))
    for a, b in zip(whole, one, strict=True):
        pd.testing.assert_frame_equal(a, b)
    batches = list(est.sample(random_state=np.random.default_rng(1), batch_size=50))
    assert [len(p) for p, _ in batches] == [50] * (len(people) // 50) + [len(people) % 50]
    for start, (p, e) in zip(range(0, len(people), 50), batches, strict=True):
        assert p["id"].tolist() == list(range(start, start + len(p)))
        assert e["id"].isin(p["id"]).all()
    chunked = _fit(Chunks.from_array(events, 61), people)
    again = chunked.sample(random_state=np.random.default_rng(1), batch_size=50)
    for (p, e), (q, f) in zip(batches, again, strict=True):
        pd.testing.assert_frame_equal(p, q)
        pd.testing.assert_frame_equal(e, f)
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1 or None; got 0"):
        est.sample(batch_size=0)


# ---------------------------------------------------------------------- command line


def _argv(tmp_path, tables):
    (tmp_path / "domain.json").write_text(json.dumps(DOMAIN))
    tables[0].to_csv(tmp_path / "people.csv", index=False)
    tables[1].to_csv(tmp_path / "events.csv", index=False)
    return ["synthesize", str(tmp_path / "people.csv"), "--events", str(tmp_path / "events.csv"),
            "--person", "id", "--max-rows-per-person", str(K), "--domain",
            str(tmp_path / "domain.json"), "--seed", "0", "--param", "epsilon=8"]  # fmt: skip


def _written(tmp_path, argv, name, *options):
    people, events = tmp_path / f"{name}_p.csv", tmp_path / f"{name}_e.csv"
    code = main([*argv, "-o", str(people), "--events-output", str(events), *options])
    return code, people.read_text(), events.read_text()


def test_command_line_streamed_events_are_the_events_in_memory(tmp_path, capsys):
    """``--events ... --chunksize N`` writes the files the in-memory run writes; keys
    read as text in both files ("007" and "7" two people, in every chunk)."""
    people, events = _shuffled()
    number = {key: i for i, key in enumerate(people["id"])}
    text = lambda key: f"{number[key]:03d}" if number[key] % 2 else str(number[key])  # noqa: E731
    people, events = people.assign(id=people["id"].map(text)), events.assign(
        id=events["id"].map(text)
    )
    argv = _argv(tmp_path, (people, events))
    in_memory = _written(tmp_path, argv, "a")
    assert in_memory[0] == 0, capsys.readouterr().err
    for chunksize in ("61", "7"):
        assert _written(tmp_path, argv, f"b{chunksize}", "--chunksize", chunksize) == in_memory
    assert pd.read_csv(tmp_path / "people.csv", dtype=str)["id"].str.startswith("0").any()
    assert len(pd.read_csv(tmp_path / "a_p.csv")) == len(people)
    err = capsys.readouterr().err
    assert "replace-one person neighbours" in err and "rows read" not in err


def test_command_line_streamed_events_are_drawn_in_batches_of_people(tmp_path, monkeypatch):
    """With ``--chunksize`` the people are drawn and written a batch at a time: the
    files are the same for any chunking, every person once, every event's key a person."""
    monkeypatch.setattr("skprivsynth.cli._synthesize._SAMPLE_BATCH", 70)
    people, events = _shuffled()
    argv = _argv(tmp_path, (people, events))
    written = [_written(tmp_path, argv, f"c{n}", "--chunksize", n) for n in ("61", "500")]
    assert written[0] == written[1] and written[0][0] == 0
    synthetic_people = pd.read_csv(tmp_path / "c61_p.csv")
    synthetic_events = pd.read_csv(tmp_path / "c61_e.csv")
    assert synthetic_people["id"].tolist() == list(range(len(people)))
    assert synthetic_events["id"].isin(synthetic_people["id"]).all()
    assert (np.diff(synthetic_events["id"].to_numpy()) >= 0).all()


def test_command_line_events_refuse_dask_before_reading(tmp_path, capsys):
    argv = _argv(tmp_path, _tables(50))
    code, *_ = (main([*argv, "-o", str(tmp_path / "p.csv"), "--events-output",
                      str(tmp_path / "e.csv"), "--dask", "local"]),)  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "--events reads the events in order" in err and "--chunksize" in err
    assert not (tmp_path / "p.csv").exists() and not (tmp_path / "e.csv").exists()
