"""Write a large Adult-like CSV for the scale benchmarks (generator data, never committed).

Run:  python benchmarks/make_large.py N [--output PATH] [--chunksize 1000000] [--seed 0]

Fits a :class:`~skprivsynth.MarginalSynthesizer` (MST selection, ε = 10: the data is a
generator, not a release) on the bundled Adult data, then samples ``N`` rows in batches of
``--chunksize`` and appends each batch to the CSV, so memory does not grow with ``N``.
The file has Adult's 14 columns, integer-coded like ``load_adult().data`` (codes
``0..K-1`` of the bundled domain, ``skprivsynth/data/adult-domain.json``), with a header
row.  Default output: ``benchmarks/data/adult-<N>.csv`` (``benchmarks/data/`` is ignored
by git).  About 31 bytes per row: 10⁶ rows ≈ 31 MB, 10⁸ rows ≈ 3.1 GB.  It prints the
path, rows and size.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import pandas as pd

from skprivsynth import MarginalSynthesizer
from skprivsynth.datasets import load_adult

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def default_path(n_rows):
    return os.path.join(DATA_DIR, f"adult-{n_rows}.csv")


def write_large(path, n_rows, chunksize=1_000_000, seed=0, progress=True):
    """Write ``n_rows`` Adult-like rows to ``path`` in batches; return the path."""
    adult = load_adult()
    model = MarginalSynthesizer(
        epsilon=10.0, selection="mst", domain=adult.domain, random_state=seed
    ).fit(adult.data)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    temporary = f"{path}.partial"
    start, done = time.perf_counter(), 0
    with open(temporary, "w", newline="") as stream:
        while done < n_rows:
            size = min(chunksize, n_rows - done)
            batch = pd.DataFrame(model.sample(size), columns=adult.feature_names)
            batch.to_csv(stream, index=False, header=done == 0)
            done += size
            if progress:
                print(
                    f"{done} / {n_rows} rows, {time.perf_counter() - start:.1f} s",
                    file=sys.stderr,
                )
    os.replace(temporary, path)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n_rows", type=int, help="number of rows to write")
    parser.add_argument("--output", help="CSV path (default: benchmarks/data/adult-N.csv)")
    parser.add_argument("--chunksize", type=int, default=1_000_000, help="rows per batch")
    parser.add_argument("--seed", type=int, default=0, help="seed of the model and the draws")
    args = parser.parse_args(argv)
    if args.n_rows < 1 or args.chunksize < 1:
        parser.error("n_rows and --chunksize must be positive integers")
    path = write_large(
        args.output or default_path(args.n_rows), args.n_rows, args.chunksize, args.seed
    )
    print(f"{path}: {args.n_rows} rows, {os.path.getsize(path) / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
