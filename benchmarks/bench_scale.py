"""Fits on CSV files larger than memory: data-pass time against the I/O floor, peak RSS.

Run:  python benchmarks/bench_scale.py [--sizes 1000000 10000000] [--chunksize 250000]
          [--methods marginal microaggregation] [--tables scale,dask,partitioned]

Data: ``benchmarks/data/adult-<n>.csv`` (14 integer-coded Adult-like columns), written by
``benchmarks/make_large.py`` when missing (10⁸ rows ≈ 3.1 GB: pass ``--sizes 100000000``
only when disk and time allow).  Tables (markdown, to stdout):

1. ``scale`` (default), for each n: the **I/O floor** (a plain
   ``pandas.read_csv(path, chunksize=C)`` loop over the file) and, per method, the time
   of each pass over the data (reading, encoding and the per-chunk statistic, from the
   first chunk read to the last statistic merged), the whole fit, the ratio of a pass to
   the floor (target ≤ 1.5) and the peak RSS of the process (target ≤ 2 GB).  Every
   measurement runs in a fresh subprocess, started by a fresh wrapper process that reads
   ``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``.  Methods: ``marginal`` =
   ``MarginalSynthesizer(selection="mst")`` on the integer codes (declared bundled
   domain; ``--marginal-selection adaptive`` for the default selection);
   ``microaggregation`` = ``BooleanEncoder(max_bins=8)`` (declared domain, 94 Boolean
   columns) then ``MicroaggregationSynthesizer(k=50)``, shown after a second floor: the
   read and the encoding of every chunk, without any statistic.
2. ``dask``: at the smallest n, the same fits on a 2-worker
   ``dask.distributed.LocalCluster`` (``dask.dataframe.read_csv``), compared with the
   in-memory fit: the marginal synthesizer's released model and samples, and the
   microaggregation's global moments (principal components, lattice), exactly.
3. ``partitioned``: covariance loss of the partitioned microaggregation against
   the in-memory one for several chunk sizes and k, on the bundled Adult (48,842 rows,
   one-hot ``max_bins=8``) and on the generated file of the smallest ``--sizes``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_large import default_path, write_large  # noqa: E402

from skprivsynth import Chunks, MarginalSynthesizer, MicroaggregationSynthesizer  # noqa: E402
from skprivsynth.datasets import load_adult  # noqa: E402
from skprivsynth.preprocessing import BooleanEncoder  # noqa: E402

MICRO_K = 50


class _TimedPasses:
    """A chunk factory that records the wall time of every full pass over the file."""

    def __init__(self, path, chunksize, transform=None):
        self.path, self.chunksize, self.transform = path, chunksize, transform
        self.passes = []

    def __call__(self):
        start = time.perf_counter()
        for chunk in pd.read_csv(self.path, chunksize=self.chunksize):
            yield chunk if self.transform is None else self.transform(chunk)
        self.passes.append(time.perf_counter() - start)


def _encoder(adult):
    return BooleanEncoder(categories=adult.domain, max_bins=8).fit(adult.data.head())


def _encode_frame(frame, encoder, names):
    return pd.DataFrame(encoder.transform(frame), columns=names)


def measure(kind, path, chunksize, selection):
    """One measurement (run in its own process); returns a dict of timings."""
    adult = load_adult()
    start = time.perf_counter()
    if kind == "floor":
        rows = sum(len(chunk) for chunk in pd.read_csv(path, chunksize=chunksize))
        return {"rows": rows, "passes": [time.perf_counter() - start]}
    if kind == "encode":
        encoder = _encoder(adult)
        for chunk in pd.read_csv(path, chunksize=chunksize):
            encoder.transform(chunk)
        return {"passes": [time.perf_counter() - start]}
    if kind == "marginal":
        source = _TimedPasses(path, chunksize)
        MarginalSynthesizer(
            epsilon=1.0, domain=adult.domain, selection=selection, random_state=0
        ).fit(Chunks(source))
    elif kind == "microaggregation":
        source = _TimedPasses(path, chunksize, _encoder(adult).transform)
        MicroaggregationSynthesizer(k=MICRO_K, random_state=0).fit(Chunks(source))
    else:
        raise ValueError(f"unknown measurement {kind!r}")
    return {"passes": source.passes, "fit": time.perf_counter() - start}


_WRAPPER = (
    "import json, resource, subprocess, sys\n"
    "out = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=True).stdout\n"
    "result = json.loads(out.splitlines()[-1])\n"
    "result['rss_mb'] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
    "print(json.dumps(result))\n"
)


def isolated(kind, path, chunksize, selection):
    """Run :func:`measure` in a fresh process; its peak RSS (MB) is read by a wrapper."""
    command = [sys.executable, __file__, "--measure", kind, "--path", path]
    command += ["--chunksize", str(chunksize), "--marginal-selection", selection]
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *command], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out)


def scale_table(sizes, chunksize, methods, selection):
    print(f"### Data passes against the I/O floor (chunksize {chunksize})\n")
    print(
        "| n | CSV (MB) | method | floor: read_csv (s) | passes (s) | pass / floor "
        "| whole fit (s) | peak RSS (MB) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        path = default_path(n)
        if not os.path.exists(path):
            write_large(path, n, progress=False)
        megabytes = os.path.getsize(path) / 1e6
        floor = isolated("floor", path, chunksize, selection)
        assert floor["rows"] == n, floor
        base = floor["passes"][0]
        print(
            f"| {n:.0e} | {megabytes:.0f} | read_csv only | {base:.2f} | – | 1.00 | – "
            f"| {floor['rss_mb']:.0f} |",
            flush=True,
        )
        for method in methods:
            if method == "microaggregation":
                r = isolated("encode", path, chunksize, selection)
                print(
                    f"| {n:.0e} | {megabytes:.0f} | read_csv + one-hot encoding | {base:.2f} "
                    f"| {r['passes'][0]:.2f} | {r['passes'][0] / base:.2f} | – "
                    f"| {r['rss_mb']:.0f} |",
                    flush=True,
                )
            r = isolated(method, path, chunksize, selection)
            passes = " + ".join(f"{p:.2f}" for p in r["passes"])
            ratios = " / ".join(f"{p / base:.2f}" for p in r["passes"])
            label = f"marginal ({selection})" if method == "marginal" else f"microagg. k={MICRO_K}"
            print(
                f"| {n:.0e} | {megabytes:.0f} | {label} | {base:.2f} | {passes} | {ratios} "
                f"| {r['fit']:.2f} | {r['rss_mb']:.0f} |",
                flush=True,
            )
    print()


def dask_table(n, chunksize, selection):
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster

    path = default_path(n)
    if not os.path.exists(path):
        write_large(path, n, progress=False)
    adult = load_adult()
    data = pd.read_csv(path)
    blocksize = max(1, int(os.path.getsize(path) * chunksize / n))
    print(f"### The same fits on a 2-worker LocalCluster (n = {n:.0e})\n")
    print("| method | in memory (s) | LocalCluster (s) | identical |")
    print("|---|---|---|---|")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
        with Client(cluster):
            frame = dd.read_csv(path, blocksize=blocksize)

            def marginal():
                return MarginalSynthesizer(
                    epsilon=1.0, domain=adult.domain, selection=selection, random_state=0
                )

            start = time.perf_counter()
            a = marginal().fit(data)
            t_memory = time.perf_counter() - start
            start = time.perf_counter()
            b = marginal().fit(frame)
            t_dask = time.perf_counter() - start
            same = str(a.privacy_report_) == str(b.privacy_report_) and np.array_equal(
                a.sample(100_000, random_state=1), b.sample(100_000, random_state=1)
            )
            print(f"| marginal ({selection}): model and samples | {t_memory:.2f} | {t_dask:.2f} "
                  f"| {same} |", flush=True)  # fmt: skip

            encoder = _encoder(adult)
            start = time.perf_counter()
            a = MicroaggregationSynthesizer(k=MICRO_K).fit(encoder.transform(data))
            t_memory = time.perf_counter() - start
            start = time.perf_counter()
            names = list(encoder.get_feature_names_out())
            meta = pd.DataFrame({name: pd.Series(dtype="f8") for name in names})
            b = MicroaggregationSynthesizer(k=MICRO_K).fit(
                frame.map_partitions(_encode_frame, encoder, names, meta=meta)
            )
            t_dask = time.perf_counter() - start
            same = np.array_equal(a.components_, b.components_) and (a.t_, a.alpha_) == (
                b.t_,
                b.alpha_,
            )
            print(f"| microagg. k={MICRO_K}: components, lattice | {t_memory:.2f} "
                  f"| {t_dask:.2f} | {same} |", flush=True)  # fmt: skip
    print()


def partitioned_table(n_large):
    adult = load_adult()
    encoder = _encoder(adult)
    X = encoder.transform(adult.data)
    print(f"### Covariance loss of the partitioned microaggregation (Adult, n = {len(X)})\n")
    _loss_rows(X, [None, 25_000, 10_000, 5_000, 2_000, 1_000], (5, 10, 50))
    path = default_path(n_large)
    if not os.path.exists(path):
        write_large(path, n_large, progress=False)
    X = encoder.transform(pd.read_csv(path))
    print(f"### The same on generator data (make_large.py, n = {n_large:,})\n")
    _loss_rows(X, [None, 250_000, 100_000, 25_000], (10, 50))


def _loss_rows(X, chunksizes, ks):
    header = ["k"] + ["in memory" if c is None else f"chunks of {c:,}" for c in chunksizes]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for k in ks:
        losses = [
            MicroaggregationSynthesizer(k=k)
            .fit(X if c is None else Chunks.from_array(X, c))
            .covariance_loss_
            for c in chunksizes
        ]
        print(f"| {k} | " + " | ".join(f"{v:.3f}" for v in losses) + " |", flush=True)
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--chunksize", type=int, default=250_000)
    parser.add_argument(
        "--methods", nargs="+", default=["marginal", "microaggregation"],
        choices=["marginal", "microaggregation"],
    )  # fmt: skip
    parser.add_argument("--marginal-selection", default="mst", choices=["mst", "adaptive"])
    parser.add_argument(
        "--tables", default="scale", help="comma-separated: scale, dask, partitioned"
    )
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.path, args.chunksize, args.marginal_selection)))
        return
    tables = args.tables.split(",")
    if "scale" in tables:
        scale_table(args.sizes, args.chunksize, args.methods, args.marginal_selection)
    if "dask" in tables:
        dask_table(min(args.sizes), args.chunksize, args.marginal_selection)
    if "partitioned" in tables:
        partitioned_table(min(args.sizes))


if __name__ == "__main__":
    main()
