"""MarginalSynthesizer on a CSV of n rows: in memory against chunks (time, peak RSS, same?).

Run:  python benchmarks/bench_chunks.py [--n 1000000] [--chunksize 250000]

Data: ``benchmarks/data/adult-<n>.csv`` (14 integer-coded Adult-like columns), written by
``benchmarks/make_large.py`` when missing.  For each selection ("mst", "adaptive"), two
fits with the same seed, each in a fresh process whose peak RSS is read by
``resource.getrusage(RUSAGE_SELF).ru_maxrss``:

- **in memory**: ``pandas.read_csv`` of the whole file, then ``fit`` of the frame;
- **chunks**: ``fit(Chunks.from_csv(path, chunksize))`` (two passes over the file).

Prints a markdown table: wall time of the whole fit (reading included), peak RSS, and
whether the two fits selected the same marginals and give the same sample.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_large import default_path, write_large  # noqa: E402


def measure(mode, path, chunksize, selection):
    """One fit (run in its own process); returns timings, peak RSS and a fingerprint."""
    import pandas as pd

    from skprivsynth import Chunks, MarginalSynthesizer
    from skprivsynth.datasets import load_adult

    est = MarginalSynthesizer(
        epsilon=1.0, selection=selection, domain=load_adult().domain, random_state=0
    )
    start = time.perf_counter()
    est.fit(pd.read_csv(path) if mode == "memory" else Chunks.from_csv(path, chunksize))
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "cliques": [list(c) for c in est.cliques_],
        "sample": est.sample(1000, random_state=1).tolist(),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--chunksize", type=int, default=250_000)
    parser.add_argument("--measure", nargs=4, metavar=("MODE", "PATH", "CHUNKSIZE", "SEL"))
    args = parser.parse_args()
    if args.measure:
        mode, path, chunksize, selection = args.measure
        print(json.dumps(measure(mode, path, int(chunksize), selection)))
        return
    path = default_path(args.n)
    if not os.path.exists(path):
        write_large(path, args.n)
    print(f"### MarginalSynthesizer, n = {args.n:,}: in memory vs chunks of {args.chunksize:,}\n")
    print("| selection | in memory: time | peak RSS | chunks: time | peak RSS | same release |")
    print("|---|---|---|---|---|---|")
    for selection in ("mst", "adaptive"):
        runs = {}
        for mode in ("memory", "chunks"):
            command = [sys.executable, __file__, "--measure", mode, path]
            command += [str(args.chunksize), selection]
            out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            runs[mode] = json.loads(out.splitlines()[-1])
        memory, chunks = runs["memory"], runs["chunks"]
        same = memory["cliques"] == chunks["cliques"] and memory["sample"] == chunks["sample"]
        print(
            f"| {selection} | {memory['seconds']:.1f} s | {memory['rss_mb']:.0f} MB | "
            f"{chunks['seconds']:.1f} s | {chunks['rss_mb']:.0f} MB | {'yes' if same else 'NO'} |"
        )


if __name__ == "__main__":
    main()
