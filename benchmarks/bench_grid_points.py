"""Cost of the grid points' dense discrete release versus the sparse continuous one.

Run:  python benchmarks/bench_grid_points.py [--sizes 100001 525600 10000000] [--repeat 3]

For each number ``L`` of eligible points (an integer range [0, 100000]; a datetime at
minute resolution over a year, 525,600 points; ten million) and each ρ, it times
``grid_points(..., noise="continuous")`` (the sparse release: the empty points drawn in
distribution) and ``noise="discrete"`` (every eligible point drawn with exact discrete
Gaussian noise), 2,000 points holding rows, process CPU time, best of ``--repeat``
runs, and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from skprivsynth.privacy import PrivacyReport
from skprivsynth.privacy.binning import grid_points


def _best(keys, counts, size, rho, noise, repeat):
    best = float("inf")
    for seed in range(repeat):
        report = PrivacyReport("b", zcdp_delta=1e-9)
        start = time.process_time()
        grid_points(
            keys, counts, [[0, size]], rho, np.random.default_rng(seed), report=report, noise=noise
        )
        best = min(best, time.process_time() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_001, 525_600, 10_000_000])
    parser.add_argument("--rhos", type=float, nargs="+", default=[1e-4, 1e-2, 1.0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| eligible points L | ρ | continuous (sparse), ms | discrete (dense), ms |")
    print("|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    for size in args.sizes:
        keys = np.unique(rng.integers(0, size, 2000))
        counts = rng.integers(1, 500, keys.size)
        for rho in args.rhos:
            times = [
                _best(keys, counts, size, rho, noise, args.repeat) * 1e3
                for noise in ("continuous", "discrete")
            ]
            print(f"| {size:,} | {rho:g} | {times[0]:.1f} | {times[1]:.1f} |")


if __name__ == "__main__":
    main()
