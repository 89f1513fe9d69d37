"""Person-level fits on a table read in chunks (:class:`~skprivsynth.people.PersonChunks`,
``synthesize --person ... --chunksize N``): the same releases and rows as the fit in
memory for the same seed, the bound before any release, record and replay on
neighbouring people, and memory that holds the people, not the rows."""

import json
import pickle
import re

import numpy as np
import pandas as pd
import pytest
from neighbours import releases_on_neighbours
from replay import assert_replays
from test_people import DOMAIN, K, _replace_person, _visits, _visits_csv

from skprivsynth import Chunks, MarginalSynthesizer, make_private_pipeline, people
from skprivsynth._math.people import bound_contributions, chunk_ranks, merge_person_counts
from skprivsynth.cli import main
from skprivsynth.releases import record_releases

NUMERIC = [0, 0, 5, 3]  # diagnosis and ward as numeric bins (for mean_columns)


def _shuffled(seed=3):
    """Visits with each person's rows spread over the table (chunks split people)."""
    X, persons = _visits()
    order = np.random.default_rng(seed).permutation(len(X))
    return X[order], persons[order]


def _fit(X, persons, **params):
    est = MarginalSynthesizer(1.0, domain=DOMAIN, max_rows_per_person=K, random_state=0, **params)
    return est.fit(X, persons=persons, numeric_codes=NUMERIC)


def _outcome(est):
    """What a fit released and what it samples, comparable with ``==``."""
    rows, keys = est.sample_people(60, random_state=1)
    fitted = {k: v for k, v in vars(est).items() if k.endswith("_") or k.startswith("_c")}
    return {"rows": rows.tobytes(), "keys": keys.tobytes(), "report": str(est.privacy_report_),
            "fitted": pickle.dumps(fitted)}  # fmt: skip


def test_ranks_and_counts_over_chunks_are_the_whole_tables():
    _, persons = _shuffled()
    keep, person, _, counts = bound_contributions(persons, K)
    keys = total = None
    for start in range(0, len(persons), 101):
        keys, total = merge_person_counts(keys, total, persons[start : start + 101])
    assert np.array_equal(keys, np.unique(persons))
    assert np.array_equal(np.minimum(total, K), counts)
    seen = np.zeros(keys.size, dtype=np.int64)
    ranks = np.concatenate([
        chunk_ranks(np.searchsorted(keys, persons[s : s + 101]), seen)
        for s in range(0, len(persons), 101)
    ])  # fmt: skip
    assert np.array_equal(ranks < K, keep)


def test_counts_over_chunks_of_keys_of_growing_width():
    """Text keys whose width grows from chunk to chunk are counted as the whole column
    (a longer key is never cut to an earlier chunk's width)."""
    persons = np.array(["P1", "P2", "P1", "P10", "P1000", "P100", "P1", "P10", "P1000"])
    keys = counts = None
    for part in np.split(persons, [2, 3, 5, 8]):
        keys, counts = merge_person_counts(keys, counts, np.array(part.tolist()))  # own width
    expected, number = np.unique(persons, return_counts=True)
    assert keys.tolist() == expected.tolist() and counts.tolist() == number.tolist()


@pytest.mark.parametrize("chunksize", [1, 97, 5000])
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"selection": "mst"},
        {"lag_columns": [2]},
        {"person_columns": [0, 1], "lag_columns": [3], "mean_columns": [2]},
    ],
)
def test_chunked_fit_is_the_in_memory_fit(params, chunksize):
    """Same seed, same releases, same model, same synthetic people: a person's rank,
    first row, mean and previous row are carried across chunk boundaries, and the
    weights' sums are exact in any chunking."""
    X, persons = _shuffled()
    a = _fit(X, persons, **params)
    b = _fit(Chunks.from_array(X, chunksize), Chunks.from_array(persons, chunksize), **params)
    assert b.n_samples_fit_ == a.n_samples_fit_ == len(np.unique(persons))
    assert _outcome(a) == _outcome(b)


def test_person_chunks_hold_the_people_not_the_rows():
    """Many rows per person: no array kept by the table, nor any chunk it yields, grows
    with the number of rows (a few values per person and one chunk)."""
    rng = np.random.default_rng(0)
    n_people, per_person = 40, 250
    persons = np.repeat(np.arange(n_people), per_person)[rng.permutation(n_people * per_person)]
    X = rng.integers(0, 3, size=(persons.size, 4)).astype(float)
    table = people.PersonChunks(Chunks.from_array(X, 500), Chunks.from_array(persons, 500), K,
                                [0], [1], [3] * 4, [2], [3] * 4)  # fmt: skip
    held = [v for v in vars(table).values() if isinstance(v, np.ndarray)]
    assert held and max(len(v) for v in held) == n_people
    chunks = list(table.codes)
    assert max(len(c) for c in chunks) <= 500
    assert sum(len(c) for c in chunks) == n_people * K  # the bound, chunk by chunk


def test_sources_that_cannot_be_read_again_are_refused_before_any_release():
    """Persons in memory beside chunks, or a one-shot iterator of either, are refused
    before anything is released (the fit reads both several times), by the
    synthesizer and by the pipeline (whose encoder releases first)."""
    X, persons = _visits()
    frame, domain = _frame_and_domain()
    keys = frame.pop("patient_id").to_numpy()
    pipe = make_private_pipeline(MarginalSynthesizer(1.0, max_rows_per_person=K), domain=domain)
    one_shot = lambda data: iter(list(Chunks.from_array(data, 100)))  # noqa: E731
    cases = [
        (ValueError, "persons must be one too", lambda: _fit(Chunks.from_array(X, 100), persons)),
        (TypeError, "one-shot", lambda: _fit(one_shot(X), Chunks.from_array(persons, 100))),
        (TypeError, "one-shot", lambda: _fit(Chunks.from_array(X, 100), one_shot(persons))),
        (ValueError, "persons must be one too", lambda: pipe.fit(
            Chunks.from_array(frame, 100), marginalsynthesizer__persons=keys)),
        (TypeError, "one-shot", lambda: pipe.fit(
            one_shot(frame), marginalsynthesizer__persons=Chunks.from_array(keys, 100))),
    ]  # fmt: skip
    for error, match, fit in cases:
        with record_releases() as recording, pytest.raises(error, match=match):
            fit()
        assert len(recording) == 0


def test_the_bound_is_applied_before_any_release_in_chunks():
    """Rows beyond a person's first K change nothing in the chunked fit either: every
    release's statistic is the same."""
    X, persons = _shuffled()
    big = np.flatnonzero(np.bincount(persons) > K)[0]
    beyond = np.flatnonzero(persons == big)[K:]
    X_changed = X.copy()
    X_changed[beyond, 2:] = 0
    X_more = np.vstack([X, np.tile(X[beyond[:1]], (7, 1))])
    persons_more = np.r_[persons, np.full(7, big)]

    def fit(data):
        return _fit(Chunks.from_array(data[0], 50), Chunks.from_array(data[1], 50),
                    lag_columns=[3], mean_columns=[2])  # fmt: skip

    for other in [(X_changed, persons), (X_more, persons_more)]:
        pairs = releases_on_neighbours(fit, (X, persons), other)
        assert pairs
        for (_, a), (_, b) in pairs:
            assert np.array_equal(a, b)


def test_replay_chunked_fit_at_person_level():
    """A chunked fit and sample on D and, replaying its releases, on D' (one person's
    rows all replaced, another number of rows, at the end of the table) agree."""
    X, persons = _shuffled()
    D = (X, persons)
    D_prime = _replace_person(X, persons, 3, np.tile(np.array(DOMAIN, float) - 1, (2, 1)))

    def run(data):
        est = _fit(Chunks.from_array(data[0], 64), Chunks.from_array(data[1], 64),
                   lag_columns=[2], verbose=1)  # fmt: skip
        rows, keys = est.sample_people(40, random_state=1)
        return {"rows": rows, "keys": keys, "report": str(est.privacy_report_),
                "n": est.n_samples_fit_}  # fmt: skip

    assert_replays(run, D, D_prime, seeded=True)


def _frame_and_domain():
    X, persons = _shuffled()
    frame = pd.DataFrame(X.astype(int), columns=["sex", "age", "diagnosis", "ward"])
    frame.insert(1, "patient_id", [f"P{p:04d}" for p in persons])
    frame["cost"] = np.round(np.random.default_rng(0).gamma(2.0, 10.0, len(frame)).clip(0, 100), 1)
    domain = {c: list(range(k)) for c, k in zip(["sex", "age", "diagnosis", "ward"], DOMAIN,
                                                  strict=True)}  # fmt: skip
    domain["cost"] = {"type": "float", "range": [0, 100]}
    return frame, domain


def test_pipeline_on_chunks_is_the_pipeline_in_memory():
    """The encoder's releases (private bins of a declared range) read one row of each
    person drawn as in memory, so the chunked pipeline releases and samples the same."""
    frame, domain = _frame_and_domain()

    def run(data, **kwargs):
        est = MarginalSynthesizer(1.0, max_rows_per_person=K, random_state=0, lag_columns="cost")
        pipe = make_private_pipeline(est, domain=domain, random_state=0)
        out = people.synthesize_people(pipe, data, "patient_id", K, np.random.default_rng(2),
                                       **kwargs)  # fmt: skip
        if not isinstance(out, pd.DataFrame):  # batches
            out = pd.concat(list(out), ignore_index=True)
        return pipe, out

    pipe_a, a = run(frame)
    pipe_b, b = run(Chunks.from_array(frame, 83), batch_size=10_000)
    assert str(pipe_a.privacy_report_) == str(pipe_b.privacy_report_)
    assert "replace-one person" in pipe_b.privacy_report_.neighbouring_relation
    pd.testing.assert_frame_equal(a, b)
    assert list(b.columns) == list(frame.columns)
    # Batches of people: the keys run on across batches, each person's rows together.
    _, c = run(Chunks.from_array(frame, 83), batch_size=50)
    assert np.array_equal(np.unique(c["patient_id"]), np.arange(pipe_a[-1].n_samples_fit_))
    assert (np.diff(c["patient_id"].to_numpy()) >= 0).all()
    _, d = run(frame, batch_size=50)  # in memory, the same batches
    pd.testing.assert_frame_equal(c, d)


def test_replay_chunked_pipeline_with_private_bins():
    """The chunked pipeline, the encoder's private bins and decoding weights included,
    on D and, replaying, on D' (one person's rows replaced by three others at the end)
    says and samples the same."""
    frame, domain = _frame_and_domain()
    others = frame[frame["patient_id"] != "P0003"]
    new = pd.DataFrame({"sex": [1] * 3, "patient_id": ["P0003"] * 3, "age": [3] * 3,
                        "diagnosis": [4] * 3, "ward": [2] * 3, "cost": [99.5] * 3})  # fmt: skip
    D_prime = pd.concat([others, new], ignore_index=True)

    def run(data):
        est = MarginalSynthesizer(4.0, max_rows_per_person=K, random_state=0)
        pipe = make_private_pipeline(est, domain=domain, random_state=0)
        batches = people.synthesize_people(pipe, Chunks.from_array(data, 70), "patient_id", K,
                                           np.random.default_rng(2), batch_size=10_000)  # fmt: skip
        return {"rows": pd.concat(list(batches)), "report": str(pipe.privacy_report_)}

    outcome = assert_replays(run, frame, D_prime, seeded=True)
    assert "bins of 'cost': PrivTree" in outcome["result"]["report"]


def test_take_gathers_rows_in_the_order_asked():
    frame, _ = _frame_and_domain()
    rows = np.array([500, 3, 3, len(frame) - 1, 0, 201])
    taken = Chunks.from_array(frame, 100).take(rows)
    pd.testing.assert_frame_equal(taken, frame.iloc[rows])
    assert np.array_equal(Chunks.from_array(frame.to_numpy(), 7).take(rows), frame.to_numpy()[rows])


# ---------------------------------------------------------------------- command line


def _cli_files(tmp_path, text, cost=True):
    frame, domain = _frame_and_domain()
    domain = domain if cost else {c: v for c, v in domain.items() if c != "cost"}
    (tmp_path / "domain.json").write_text(json.dumps(domain))
    (tmp_path / "visits.csv").write_text(text if text is not None else frame.to_csv(index=False))
    return ["synthesize", str(tmp_path / "visits.csv"), "--domain", str(tmp_path / "domain.json"),
            "--person", "patient_id", "--max-rows-per-person", str(K), "--seed", "0"]  # fmt: skip


@pytest.mark.parametrize("param", [[], ["--param", "lag_columns=cost"],
                                   ["--param", "mean_columns=cost"]])  # fmt: skip
def test_command_line_chunked_is_the_command_line_in_memory(tmp_path, capsys, param):
    """``synthesize --person ... --chunksize N`` writes the file the in-memory run
    writes, says the same, and prints nothing about the number of rows."""
    argv = _cli_files(tmp_path, None)
    assert main([*argv, *param, "-o", str(tmp_path / "a.csv")]) == 0
    in_memory = capsys.readouterr().err
    assert main([*argv, *param, "-o", str(tmp_path / "b.csv"), "--chunksize", "61"]) == 0
    streamed = capsys.readouterr().err
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()
    untimed = [re.sub(r"\(\d+\.\d+ s\)", "", e) for e in (in_memory, streamed)]
    assert untimed[0].replace("a.csv", "b.csv") == untimed[1]
    assert "rows read" not in streamed and "replace-one person neighbours" in streamed


def test_command_line_reads_keys_as_text(tmp_path, capsys):
    """Keys that read as numbers in some chunks and as text in others are one person
    each, read as text in every chunk ("007" and "7" are two people, as written)."""
    frame, _ = _frame_and_domain()
    frame["patient_id"] = [f"{int(p[1:]):03d}" if int(p[1:]) % 2 else p
                           for p in frame["patient_id"]]  # fmt: skip
    argv = _cli_files(tmp_path, frame.to_csv(index=False))
    assert main([*argv, "-o", str(tmp_path / "a.csv")]) == 0
    assert main([*argv, "-o", str(tmp_path / "b.csv"), "--chunksize", "40"]) == 0
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()
    assert people.read_persons(tmp_path / "visits.csv", "patient_id").str.startswith("0").any()


def test_replay_the_chunked_command_line_at_person_level(tmp_path):
    """The streamed command on two files that differ in all the rows of one patient
    (another number of rows) says and writes the same, replaying the releases."""
    argv = _cli_files(tmp_path, None, cost=False)
    data, output = tmp_path / "visits.csv", tmp_path / "synthetic.csv"
    X, persons = _visits()
    neighbour = _replace_person(X, persons, 5, np.tile(np.array(DOMAIN, float) - 1, (K + 3, 1)))

    def run(text):
        data.write_text(text)
        code = main([*argv, "-o", str(output), "--chunksize", "45"])
        return {"code": code, "csv": output.read_text()}

    outcome = assert_replays(run, _visits_csv((X, persons)), _visits_csv(neighbour), seeded=True)
    assert outcome["result"]["code"] == 0, outcome["stderr"]
    assert "replace-one person neighbours" in outcome["stderr"]


def test_command_line_person_level_refuses_dask_before_reading(tmp_path, capsys):
    argv = _cli_files(tmp_path, None)
    assert main([*argv, "-o", str(tmp_path / "out.csv"), "--dask", "local"]) == 2
    err = capsys.readouterr().err
    assert "rank and previous row across chunks" in err and "--chunksize" in err
    assert not (tmp_path / "out.csv").exists()
