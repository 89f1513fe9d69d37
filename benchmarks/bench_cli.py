"""Wall time of the command line's first steps: the demo and a mixed 11-column table.

Run:  python benchmarks/bench_cli.py [--method correlated-gaussian] [--rows 7000]

Times ``skprivsynth demo --method METHOD`` (the bundled Adult, 48,842 rows) and
``skprivsynth synthesize --method METHOD`` on a mixed table built from 11 Adult columns:
two numeric columns (age and hours per week in years and hours, floats drawn within
their code, declared by bin edges), eight columns of string levels (declared as lists)
and one column of integer codes (declared by its count).  Seeded (a benchmark, not a
release).  Timings are wall-clock on a shared 2-core machine and noisy.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from skprivsynth.cli import main
from skprivsynth.datasets import load_adult
from skprivsynth.privacy import PrivacyLeakWarning

_LEVELS = [
    "workclass",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native-country",
    "income>50K",
]


def mixed_table(n_rows, seed=0):
    """An 11-column table of ``n_rows`` Adult rows and its declared domain."""
    adult = load_adult()
    data = adult.data.iloc[:n_rows]
    rng = np.random.default_rng(seed)
    table = {
        "age": 17.0 + data["age"] + rng.random(len(data)),
        "hours-per-week": 1.0 + data["hours-per-week"] + rng.random(len(data)),
        "education-num": data["education-num"],
    }
    domain = {
        "age": {"bins": [17, 25, 35, 45, 55, 65, 103]},
        "hours-per-week": {"bins": [1, 20, 35, 41, 50, 101]},
        "education-num": adult.domain["education-num"],
    }
    for column in _LEVELS:
        levels = [f"{column[:3]}{k}" for k in range(adult.domain[column])]
        table[column] = np.asarray(levels, dtype=object)[data[column].to_numpy()]
        domain[column] = levels
    import pandas as pd

    return pd.DataFrame(table), domain


def _timed(argv):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded runs
        code = main(argv)
    assert code == 0, argv
    return time.perf_counter() - start


def run(method, n_rows):
    rows = [("demo (Adult, 48,842 x 14)", _timed(["demo", "--method", method]))]
    data, domain = mixed_table(n_rows)
    with tempfile.TemporaryDirectory() as tmp:
        source, domain_file = Path(tmp) / "mixed.csv", Path(tmp) / "domain.json"
        data.to_csv(source, index=False)
        domain_file.write_text(json.dumps(domain))
        argv = ["synthesize", str(source), "-o", str(Path(tmp) / "out.csv")]
        argv += ["--domain", str(domain_file), "--method", method, "--seed", "0"]
        rows.append((f"synthesize (mixed, {n_rows:,} x 11)", _timed(argv)))
    print(f"\n| {method} | wall time (s) |\n|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.1f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="correlated-gaussian")
    parser.add_argument("--rows", type=int, default=7000)
    args = parser.parse_args()
    run(args.method, args.rows)
