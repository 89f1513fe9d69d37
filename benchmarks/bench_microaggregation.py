"""Benchmark of MicroaggregationSynthesizer: speed, memory and accuracy.

Run:  python benchmarks/bench_microaggregation.py [--max-n 1000000] [--quick]
          [--tables speed,adult,pipeline]

Tables (markdown, to stdout):

1. fit time vs n on structured random Boolean data (p = 100, a 5-factor latent model),
   next to the time of one ``X.T @ X`` on the same matrix (the single-pass floor of any
   method that needs second moments), and the peak memory of fit (tracemalloc) in
   units of the data size n·p·8 bytes.
2. Adult one-hot (p = 588, n = 20,000): fit time, covariance loss and within-group
   SSE / total SSE at k = 5, 10, 50, next to the MDAV reference values of the project's
   reference table.
3. Adult through the pipeline (BooleanEncoder(max_bins=8) -> synthesizer -> decode,
   the metric of benchmarks/RESULTS.md): tvd1 / tvd2 / tvd3 at k = 5, 10, 50.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from skprivsynth import MicroaggregationSynthesizer, make_synthesis_pipeline
from skprivsynth.datasets import load_adult
from skprivsynth.metrics import categorical_marginal_tvd
from skprivsynth.preprocessing import BooleanEncoder


def structured_boolean(n, p, rng, n_factors=5):
    """Boolean data from a latent factor model (so PCA has structure to find)."""
    loadings = rng.normal(size=(n_factors, p))
    X = np.empty((n, p))
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        logits = rng.normal(size=(stop - start, n_factors)) @ loadings
        X[start:stop] = rng.random((stop - start, p)) < 1 / (1 + np.exp(-logits))
    return X


def best_of(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def speed_table(sizes, p, k, repeats):
    rng = np.random.default_rng(0)
    print(f"### Fit time vs n (p = {p}, k = {k}, structured random Boolean; best of {repeats})\n")
    print("| n | X.T @ X (s) | fit (s) | fit / XᵀX | peak fit memory / (n·p·8 B) | groups |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        X = structured_boolean(n, p, rng)
        gram = best_of(lambda X=X: X.T @ X, repeats)
        synth = MicroaggregationSynthesizer(k=k)
        fit = best_of(lambda X=X, s=synth: s.fit(X), repeats)
        tracemalloc.start()
        synth.fit(X)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(
            f"| {n:,} | {gram:.3f} | {fit:.3f} | {fit / gram:.1f} | "
            f"{peak / X.nbytes:.2f} | {synth.group_sizes_.size:,} |"
        )
    print()


def adult_onehot_table(adult, n_rows):
    blocks = [np.eye(k)[adult.data[c].to_numpy()] for c, k in adult.domain.items()]
    X = np.hstack(blocks)[:n_rows]
    total_sse = ((X - X.mean(0)) ** 2).sum()
    print(f"### Adult one-hot (n = {n_rows:,}, p = {X.shape[1]})\n")
    print("| method | k | fit (s) | within-group SSE / total SSE | covariance loss ‖Σ_X − Σ_Y‖_F |")
    print("|---|---|---|---|---|")
    for k in (5, 10, 50):
        start = time.perf_counter()
        synth = MicroaggregationSynthesizer(k=k).fit(X)
        fit = time.perf_counter() - start
        # Within-group SSE = total SSE − between-group SSE, and the between-group SSE
        # is n · trace(Σ_Y) for the group-mean random vector Y (weights |I_j|/n).
        centred_means = synth.records_ - X.mean(0)
        between = X.shape[0] * (synth.weights_ @ (centred_means**2).sum(1))
        within = total_sse - between
        print(
            f"| MicroaggregationSynthesizer | {k} | {fit:.2f} | {within / total_sse:.3f} | "
            f"{synth.covariance_loss_:.3f} |"
        )
    print("| MDAV (reference, n = 20,000) | 10 | 16 | 0.51 | 0.41 |")
    print("| MDAV (reference, n = 20,000) | 5 | 64 | – | – |")
    print()


def adult_pipeline_table(adult, max_bins):
    print(
        f"### Adult through the pipeline (BooleanEncoder(max_bins={max_bins}), "
        "decoded to 14 columns, n synthetic = 48,842; coarsened ranges decoded uniformly)\n"
    )
    print("| k | tvd1 | tvd2 | tvd3 | fit (s) |")
    print("|---|---|---|---|---|")
    for k in (5, 10, 50):
        pipe = make_synthesis_pipeline(
            BooleanEncoder(categories=adult.domain, max_bins=max_bins, random_state=0),
            MicroaggregationSynthesizer(k=k, random_state=0),
        )
        start = time.perf_counter()
        pipe.fit(adult.data)
        fit = time.perf_counter() - start
        synthetic = pipe.sample(random_state=0)
        tvd = [
            categorical_marginal_tvd(
                adult.data,
                synthetic,
                degree=d,
                domain=adult.domain,
                max_marginals=200 if d == 3 else None,
                random_state=0,
            )
            for d in (1, 2, 3)
        ]
        print(f"| {k} | {tvd[0]:.4f} | {tvd[1]:.4f} | {tvd[2]:.4f} | {fit:.2f} |")
    print("| bootstrap floor (reference) | 0.005 | 0.015 | 0.036 | – |")
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument(
        "--tables",
        default="speed,adult,pipeline",
        help="comma-separated subset of: speed, adult, pipeline",
    )
    args = parser.parse_args()
    tables = set(args.tables.split(","))
    sizes = [n for n in (10_000, 100_000, 1_000_000) if n <= args.max_n]
    if args.quick:
        sizes = [10_000, 50_000]
    if "speed" in tables:
        speed_table(sizes, p=100, k=10, repeats=1 if args.quick else 3)
    adult = load_adult()
    if "adult" in tables:
        adult_onehot_table(adult, n_rows=20_000)
    if "pipeline" in tables:
        for max_bins in (8, 1000):
            adult_pipeline_table(adult, max_bins)


if __name__ == "__main__":
    main()
