"""Rounds on tables of numeric columns: the numeric pairs' test against no rounds.

Run (one command, about 2 minutes):

    python benchmarks/bench_numeric_pairs.py [--rows 600 2000 20000] [--seeds 0 1 2]

Tables: four float columns in a declared range [0, 100], ``50 + 10·(w·z + √(1 − w²)·e_j)``
with one shared standard normal ``z`` (pairwise correlation ``w²`` = 0.81, or 0: the
columns independent), rounded to 2 decimals.  ``make_private_pipeline(
MarginalSynthesizer(epsilon=1))`` with its defaults (bins chosen privately from the
range), against the same with the 1-way share forced to 1 (``independent``: no rounds,
what the margin of the median pair alone decided before 2026-11-27: a numeric pair is
grouped to the rounds' noise, so its margin is below 1 by construction).  Metrics as in
bench_mixed.py: mean TVD of all 2-way tables on the real deciles, median KS.
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
import bench_mixed  # noqa: E402

import skprivsynth.synthesizers.marginal as marginal  # noqa: E402
from skprivsynth import Domain, MarginalSynthesizer, make_private_pipeline  # noqa: E402

SHARE = marginal.one_way_share


def table(n, correlation, seed=1):
    rng = np.random.default_rng(seed)
    w = np.sqrt(correlation)
    values = w * rng.standard_normal((n, 1)) + np.sqrt(1 - w**2) * rng.standard_normal((n, 4))
    return pd.DataFrame(np.round(50 + 10 * values, 2), columns=list("abcd"))


def run(X, spec, variant, seed):
    marginal.one_way_share = SHARE if variant == "default" else (lambda *args: 1.0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the seeded-release warning (a benchmark)
            pipe = make_private_pipeline(
                MarginalSynthesizer(1.0, random_state=seed), Domain(spec), random_state=seed
            )
            synthetic = pipe.fit(X).sample(len(X))
    finally:
        marginal.one_way_share = SHARE
    numeric, _ = bench_mixed.column_errors(X, synthetic, spec)
    return bench_mixed.two_way_tvd(X, synthetic, spec), float(numeric["ks"].median())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", type=int, default=[600, 2000, 20000])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    args = parser.parse_args(argv)
    print("| n | correlation | variant | tvd2 | median KS |")
    print("|---|---|---|---|---|")
    for n in args.rows:
        for correlation in (0.81, 0.0):
            X = table(n, correlation)
            spec = {c: {"type": "float", "range": [0.0, 100.0]} for c in X}
            for variant in ("default", "independent"):
                scores = np.array([run(X, spec, variant, seed) for seed in args.seeds])
                tvd2, ks = scores.mean(axis=0)
                print(f"| {n:,} | {correlation:g} | {variant} | {tvd2:.4f} | {ks:.4f} |")


if __name__ == "__main__":
    main()
