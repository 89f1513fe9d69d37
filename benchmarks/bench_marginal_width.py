"""MarginalSynthesizer fit time against the number of columns (synthetic data).

Run:  python benchmarks/bench_marginal_width.py [--columns 14 24 37] [--rows 40000]

Data: a random tree-structured table (column j copies a random earlier column modulo
its size with probability 0.6, else uniform), 2-15 levels per column, seed 0; fit at
ε = 1 with the defaults (``max_degree="auto"``: 3-way candidates up to 20 columns).
"""

import argparse
import time

import numpy as np

from skprivsynth import MarginalSynthesizer


def tree_table(n_columns, n_rows, rng):
    sizes = rng.integers(2, 16, n_columns)
    X = np.zeros((n_rows, n_columns), dtype=np.int64)
    X[:, 0] = rng.integers(0, sizes[0], n_rows)
    for j in range(1, n_columns):
        parent = X[:, rng.integers(0, j)]
        X[:, j] = np.where(
            rng.random(n_rows) < 0.6, parent % sizes[j], rng.integers(0, sizes[j], n_rows)
        )
    return X, [int(k) for k in sizes]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, nargs="+", default=[14, 24, 37])
    parser.add_argument("--rows", type=int, default=40_000)
    args = parser.parse_args()
    print("| columns | rows | cliques | fit_s |\n|---|---|---|---|")
    for d in args.columns:
        X, sizes = tree_table(d, args.rows, np.random.default_rng(0))
        start = time.perf_counter()
        est = MarginalSynthesizer(1.0, domain=sizes, random_state=0).fit(X)
        print(f"| {d} | {args.rows} | {len(est.cliques_)} | {time.perf_counter() - start:.1f} |")


if __name__ == "__main__":
    main()
