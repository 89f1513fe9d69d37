"""A weighted workload on the hospital table's long-tailed ``cost``, side by side with
the unweighted run (issue 45).

Run:  OMP_NUM_THREADS=1 python benchmarks/bench_weights.py [--n 20000] [--epsilon 1]
      [--seeds 0 1 2] [--weights 1 4 16]

The generated hospital table of ``benchmarks/hospital.py`` (``--n`` rows, seed 0,
``id`` and ``notes`` dropped) through ``make_private_pipeline(MarginalSynthesizer(ε))``
with its declared domain.  Weight 1 is the default workload (every 3-way set of the 7
columns, each of weight 1); weight ``c`` gives the 3-way sets holding ``cost`` weight
``c`` (``workload={set: c if "cost" in set else 1}``, by column name).  The weights
were fixed before any run.  Synthetic n = ``--n``; the metrics are those of the report
(``MarginalErrorDisplay.from_data`` with the declared domain): cost's std ratio, tail
ratio and 1-way TVD, the table's tvd1 and tvd2, and the real bootstrap's tail ratio
of cost (the sampling floor, seed 0).  Two columns say where the tail goes: ``rounds``
counts the selection rounds that measured a set holding ``cost`` (of all rounds), and
``top_code_from`` is the lower edge of the code holding the real 99.9th percentile of
cost after the synthesizer's grouping of bins (the rounds measure codes, never bins
within one); ``--bins`` prints that code's bins with their real counts and the shares
it is decoded by (post-processing of the 1-way release).
"""

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from skprivsynth import MarginalSynthesizer, make_private_pipeline
from skprivsynth.metrics import numeric_column_errors
from skprivsynth.report import MarginalErrorDisplay

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hospital import make_hospital  # noqa: E402

COLUMN = "cost"


def _top_group(pipe, real):
    """The bins of the code (group of bins) holding the real 99.9th percentile: their
    edges, real counts and decoded shares within the code."""
    encoder, synthesizer = pipe.steps[0][1], pipe.steps[-1][1]
    j = list(real.columns).index(COLUMN)
    edges = np.asarray(encoder.bin_edges_[j], dtype=float)
    codes = synthesizer._compression.encode[j]
    top = np.quantile(real[COLUMN], 0.999)
    b = int(np.clip(np.searchsorted(edges, top, side="right") - 1, 0, len(codes) - 1))
    bins, shares = synthesizer._compression.members[j][codes[b]]
    counts = np.histogram(real[COLUMN], edges)[0]
    return [(edges[k], edges[k + 1], counts[k], w) for k, w in zip(bins, shares, strict=True)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--weights", type=float, nargs="+", default=[1, 4, 16])
    parser.add_argument("--bins", action="store_true", help="print the top code's bins")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # seeded runs, quantile bins of the evaluation
    frame, domain = make_hospital(args.n, 0)
    real = frame.drop(columns=["id", "notes"])
    columns = list(real.columns)
    bootstrap = real.iloc[np.random.default_rng(0).integers(0, len(real), len(real))]
    floor = numeric_column_errors(real[[COLUMN]], bootstrap[[COLUMN]]).loc[COLUMN]
    print(
        f"bootstrap of the real table: {COLUMN} std ratio {floor['std_ratio']:.3f}, "
        f"tail ratio {floor['tail_ratio']:.3f} (floor {floor['tail_floor']:.2f})",
        flush=True,
    )
    print("| weight | seed | std ratio | tail ratio | 1-way TVD | tvd1 | tvd2 | rounds "
          "| top_code_from | time_s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for c in args.weights:
        workload = None
        if c != 1:
            workload = {s: (c if COLUMN in s else 1) for s in itertools.combinations(columns, 3)}
        for seed in args.seeds:
            start = time.perf_counter()
            synthesizer = MarginalSynthesizer(args.epsilon, workload=workload, random_state=seed)
            pipe = make_private_pipeline(synthesizer, domain, random_state=seed).fit(real)
            synthetic = pipe.sample(len(real), random_state=seed)
            elapsed = time.perf_counter() - start
            display = MarginalErrorDisplay.from_data(real, synthetic, domain=domain)
            errors = display.numeric_errors.loc[COLUMN]
            tvd = (
                0.5
                * np.abs(
                    display.real_frequencies[COLUMN] - display.synthetic_frequencies[COLUMN]
                ).sum()
            )
            cliques = pipe.steps[-1][1].cliques_
            held = sum(columns.index(COLUMN) in q for q in cliques)
            row = (
                c,
                seed,
                errors["std_ratio"],
                errors["tail_ratio"],
                tvd,
                display.summary.loc[1, "mean_tvd"],
                display.summary.loc[2, "mean_tvd"],
            )
            rows.append(row)
            print(
                f"| {c:g} | {seed} | {row[2]:.3f} | {row[3]:.2f} | {row[4]:.4f} | "
                f"{row[5]:.4f} | {row[6]:.4f} | {held} of {len(cliques)} | "
                f"{_top_group(pipe, real)[0][0]:,.0f} | {elapsed:.1f} |",
                flush=True,
            )
            if args.bins:
                for lo, hi, count, share in _top_group(pipe, real):
                    print(f"    [{lo:,.0f}, {hi:,.0f}): {count} real rows, share {share:.3f}")
    print("\nmeans over the seeds (min–max):")
    print("| weight | std ratio | tail ratio | 1-way TVD | tvd1 | tvd2 |")
    print("|---|---|---|---|---|---|")
    table = np.array(rows)
    for c in args.weights:
        part = table[table[:, 0] == c][:, 2:]
        cells = [
            f"{m:.{p}f} ({lo:.{p}f}–{hi:.{p}f})"
            for m, lo, hi, p in zip(
                part.mean(0), part.min(0), part.max(0), [3, 2, 4, 4, 4], strict=True
            )
        ]
        print(f"| {c:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
