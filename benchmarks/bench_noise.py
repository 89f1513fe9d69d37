"""Cost of floating-point-safe (discrete) noise versus numpy's float samplers.

Run:  python benchmarks/bench_noise.py [--sizes 10000 100000 1000000] [--repeat 7]

For each size it times (process CPU time, best of ``--repeat`` runs: the least
disturbed by other processes on a shared machine):

* ``laplace_mechanism(values, Δ, ε, noise="continuous")`` vs ``noise="discrete"``
  (rounding to the grid + exact CKS discrete Laplace, calibrated by
  ``discrete_laplace_calibration``);
* ``gaussian_mechanism(values, σ, noise="continuous")`` vs ``noise="discrete"``
  (exact CKS discrete Gaussian).

and prints a Markdown table with the ratio discrete / continuous.

Both sides go through the public mechanism end to end (input validation, and for the
discrete side calibration, rounding to the grid, range check and the final scaling).
The warm-up call lets the discrete Gaussian cache its per-σ² envelope tables
(``_gaussian_envelope``), which the repeated timings then reuse; the column "discrete,
first call" times the same call with that cache cleared first, i.e. what a single
release with a new σ² costs (the Laplace sampler has no per-scale tables: its column
is the warm time measured again).
"""

from __future__ import annotations

import argparse
import time
import timeit

import numpy as np

from skprivsynth._math import discrete_noise
from skprivsynth.privacy import gaussian_mechanism, laplace_mechanism


def _best(fn, repeat):
    fn()  # warm-up (caches, first-touch allocations)
    return min(timeit.repeat(fn, number=1, repeat=repeat, timer=time.process_time))


def run(sizes, repeat, seed=0):
    """Return rows ``(mechanism, size, continuous_ms, discrete_ms, ratio, first_call_ms)``."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        values = rng.random(n)
        sens = 2.0 / 1000  # e.g. a marginal table of a dataset with n = 1000 rows

        def lap(noise, values=values, sens=sens):
            return laplace_mechanism(values, sens, 1.0, rng, noise=noise)

        def gau(noise, values=values, sens=sens):
            return gaussian_mechanism(values, 5 * sens, rng, noise=noise, sensitivity=sens)

        for name, fn in (("Laplace", lap), ("Gaussian", gau)):
            cont = _best(lambda fn=fn: fn("continuous"), repeat)
            disc = _best(lambda fn=fn: fn("discrete"), repeat)

            def cold(fn=fn):
                discrete_noise._gaussian_envelope.cache_clear()
                return fn("discrete")

            first = _best(cold, repeat)
            rows.append((name, n, 1e3 * cont, 1e3 * disc, disc / cont, 1e3 * first))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    rows = run(args.sizes, args.repeat)
    print("| mechanism | draws | continuous (ms) | discrete (ms) | ratio "
          "| discrete, first call (ms) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, n, cont, disc, ratio, first in rows:
        print(f"| {name} | {n:,} | {cont:.2f} | {disc:.2f} | {ratio:.1f}× | {first:.2f} |")


if __name__ == "__main__":
    main()
