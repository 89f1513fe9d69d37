"""MarginalSynthesizer: how far each model fit runs (``tol``, in nats of the loss).

Run:  nice -n 10 python benchmarks/bench_marginal_estimation.py [--epsilon 0.5 1 2 4 8]
                                                          [--seeds 0 1 2] [--tol 1 0.1]
                                                          [--tables adult tree]

Each release is ``make_private_pipeline(MarginalSynthesizer(epsilon=ε, tol=tol,
random_state=seed), domain, random_state=seed)`` (decoding ε 0.1 on top), fitted and
sampled (as many records as the data) on two tables:

``adult``
    The bundled Adult data (48,842 rows, 14 declared columns).
``tree``
    50,000 rows of 20 columns of 2–12 levels drawn from a random Bayesian network
    on a random tree (seeded, generated here): each column's conditional distribution
    given its parent is a Dirichlet(0.3) draw per parent level, hence skewed.  It keeps
    the comparison from being tuned to Adult.

Each fit stops once a step lowers the loss by at most ``tol`` nats (default 0.1), or
after its cap of steps (``iterations // 5`` a round, ``iterations`` for the final fit;
the rule before 2026-11-26, a fixed 50 steps a round, is ``bench_budget.py``'s
``steps:50`` variant).  Metric: mean total
variation distance of the 1-way, all 2-way and 200 random 3-way tables
(``bench_adult.tvd_row``), number of selected marginals, fit + sample time in seconds;
mean over the seeds.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from bench_adult import markdown_table, tvd_row

from skprivsynth import MarginalSynthesizer, PrivacyLeakWarning, make_private_pipeline
from skprivsynth.datasets import load_adult


def tree_table(n=50_000, d=20, seed=0):
    """Rows of a random tree-shaped Bayesian network with skewed conditionals."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 13, size=d)
    parent = [None] + [int(rng.integers(0, j)) for j in range(1, d)]
    codes = np.empty((n, d), dtype=np.int64)
    for j in range(d):
        if parent[j] is None:
            p = rng.dirichlet(np.full(sizes[j], 0.3))
            codes[:, j] = rng.choice(sizes[j], size=n, p=p)
            continue
        cond = rng.dirichlet(np.full(sizes[j], 0.3), size=sizes[parent[j]])
        cum = np.cumsum(cond, axis=1)[codes[:, parent[j]]]
        codes[:, j] = np.minimum((rng.random((n, 1)) > cum).sum(axis=1), sizes[j] - 1)
    columns = [f"x{j}" for j in range(d)]
    return pd.DataFrame(codes, columns=columns), dict(zip(columns, map(int, sizes), strict=True))


def run(data, domain, epsilon, tol, seed):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded on purpose
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=epsilon, tol=tol, random_state=seed),
            domain,
            random_state=seed,
        )
        synthetic = pipe.fit(data).sample(len(data), random_state=seed)
    elapsed = time.perf_counter() - start
    return {
        **tvd_row(data, synthetic, domain),
        "cliques": len(pipe[-1].cliques_),
        "time_s": elapsed,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", nargs="*", type=float, default=[0.5, 1, 2, 4, 8])
    parser.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    parser.add_argument("--tol", nargs="*", type=float, default=[1.0, 0.1])
    parser.add_argument("--tables", nargs="*", default=["adult", "tree"])
    args = parser.parse_args()
    tables = {}
    if "adult" in args.tables:
        adult = load_adult()
        tables["adult"] = adult.data, adult.domain
    if "tree" in args.tables:
        tables["tree"] = tree_table()
    for name, (data, domain) in tables.items():
        rows = []
        for epsilon in args.epsilon:
            for tol in args.tol:
                results = pd.DataFrame(
                    [run(data, domain, epsilon, tol, seed) for seed in args.seeds]
                ).mean()
                rows.append(
                    {"table": name, "epsilon": epsilon, "tol": tol}
                    | {k: round(float(v), 4) for k, v in results.items() if k.startswith("tvd")}
                    | {"cliques": round(float(results["cliques"]), 1)}
                    | {"time_s": round(float(results["time_s"]))}
                )
                print(rows[-1], flush=True)
        print()
        print(markdown_table(rows), flush=True)
        print()


if __name__ == "__main__":
    main()
