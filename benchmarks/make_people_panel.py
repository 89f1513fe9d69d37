"""A generated panel of visits as a CSV, for the memory of person-level runs.

The visits of ``benchmarks/bench_people.py``'s model (no real person behind them: a sex
and an age group constant within a person, 1 to 40 visits each, a diagnosis, a severity
and a ward per visit) plus a cost per visit (a gamma draw, declared as a float range, so
that the encoder's private bins are fitted on one row per person), the rows shuffled
(each person's visits spread over the file, as in a table sorted by date), and the
domain file declaring every column but the key.  About 4.6 rows a person:
435,000 people give about 2,000,000 rows.

``python benchmarks/make_people_panel.py OUT_DIR [N_PEOPLE]`` writes ``OUT_DIR/panel.csv``
and ``OUT_DIR/panel-domain.json``; then, as in
``benchmarks/history/2026-12-03-peoplestream.md``::

    /usr/bin/time -v skprivsynth synthesize OUT_DIR/panel.csv --domain \\
        OUT_DIR/panel-domain.json --person patient_id --max-rows-per-person 10 \\
        --seed 0 -q -o out.csv [--chunksize 100000]

With ``--events`` it also writes the panel as two tables: ``OUT_DIR/people.csv`` (the
key, sex and age of every person; every tenth person's visits left out, so that about
one person in ten has no event) and ``OUT_DIR/events.csv`` (the key and the visit
columns, in the panel's order), for ``synthesize OUT_DIR/people.csv --events
OUT_DIR/events.csv --person patient_id --domain OUT_DIR/panel-domain.json ...``
(``benchmarks/history/2026-12-03-eventsstream.md``).
"""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_people import DOMAIN, make_visits  # noqa: E402

COLUMNS = ["sex", "age", "diagnosis", "severity", "ward"]


def make_panel(n_people, seed=0):
    """The panel as a DataFrame (key first) and its domain."""
    X, person = make_visits(n_people, seed)
    rng = np.random.default_rng(2000 + seed)
    frame = pd.DataFrame(X.astype(np.int64), columns=COLUMNS)
    frame["cost"] = np.round(rng.gamma(2.0, 15.0 + 10.0 * frame["severity"]).clip(0, 500), 2)
    frame.insert(0, "patient_id", [f"P{p:07d}" for p in person])
    frame = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    domain = {c: list(range(k)) for c, k in zip(COLUMNS, DOMAIN, strict=True)}
    domain["cost"] = {"type": "float", "range": [0, 500]}
    return frame, domain


def split_panel(frame):
    """The panel as a people table (first row of each person: key, sex, age) and an
    events table (key and visit columns, the panel's order), every tenth person's
    events left out (people without events)."""
    people = frame.drop_duplicates("patient_id")[["patient_id", "sex", "age"]]
    people = people.sort_values("patient_id").reset_index(drop=True)
    number = frame["patient_id"].str[1:].astype(np.int64)
    events = frame.loc[number % 10 != 0, ["patient_id", *COLUMNS[2:], "cost"]]
    return people, events.reset_index(drop=True)


def main(argv):
    split = "--events" in argv
    argv = [a for a in argv if a != "--events"]
    out = Path(argv[0])
    n_people = int(argv[1]) if len(argv) > 1 else 435_000
    frame, domain = make_panel(n_people)
    frame.to_csv(out / "panel.csv", index=False)
    (out / "panel-domain.json").write_text(json.dumps(domain))
    print(f"{len(frame)} rows, {n_people} people -> {out / 'panel.csv'}")
    if split:
        people, events = split_panel(frame)
        people.to_csv(out / "people.csv", index=False)
        events.to_csv(out / "events.csv", index=False)
        print(f"{len(people)} people, {len(events)} events -> {out / 'people.csv'}, "
              f"{out / 'events.csv'}")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
