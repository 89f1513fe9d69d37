"""Balanced sampling from MarginalSynthesizer's model against a random order in the groups.

Run:  python benchmarks/bench_sampling.py [--tables vietnam hi ...] [--epsilon 1]
                                          [--seeds 0 1 2] [--draws 2]

Each (table, ε, seed) is fitted once with the defaults; the same model is then sampled
(n = table size, ``--draws`` times) by the two samplers of ``GraphicalModel.sample``:

``balanced``
    The default: within a group of records sharing a separator's values, the records
    are sorted by the values drawn before and take the systematic points in the order
    of the radical inverse of their rank (``_math/graphical_model._systematic_draws``).
``random order``
    The sampler before 2026-11-27: the same systematic points, records in random order
    inside the group.

Tables: benchmarks/categorical_tables.py (the suite and the held-out tables) and Adult.
Metric: tvd1, tvd2, tvd3 as bench_peers.py, mean over seeds and draws; CPU seconds of
the sampling alone.  Prints one markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_budget import load  # noqa: E402
from bench_peers import tvd_row  # noqa: E402

import skprivsynth._math.graphical_model as graphical_model  # noqa: E402
from skprivsynth import MarginalSynthesizer  # noqa: E402

BALANCED = graphical_model._systematic_draws


def random_order(cond, group, rng, strata=()):
    """The systematic draws with the records in random order inside each group."""
    return BALANCED(cond, group, rng)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["vietnam", "hi", "ofp", "adult"])
    parser.add_argument("--epsilon", nargs="+", type=float, default=[1.0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--draws", type=int, default=2)
    args = parser.parse_args(argv)
    print("| table | ε | sampler | tvd1 | tvd2 | tvd3 | sampling CPU s |")
    print("|---|---|---|---|---|---|---|")
    for table in args.tables:
        X, sizes, columns = load(table)
        domain = dict(zip(columns, sizes, strict=True))
        real = pd.DataFrame(X, columns=columns)
        for epsilon in args.epsilon:
            results = {"random order": [], "balanced": []}
            for seed in args.seeds:
                est = MarginalSynthesizer(epsilon, domain=sizes, random_state=seed).fit(X)
                for sampler, draws in (("random order", random_order), ("balanced", BALANCED)):
                    graphical_model._systematic_draws = draws
                    try:
                        for draw in range(args.draws):
                            start = time.process_time()
                            fake = est.sample(len(X), random_state=1000 * seed + draw)
                            seconds = time.process_time() - start
                            fake = pd.DataFrame(np.asarray(fake), columns=columns)
                            row = tvd_row(real, fake, domain)
                            results[sampler].append([*row.values(), seconds])
                    finally:
                        graphical_model._systematic_draws = BALANCED
            for sampler, rows in results.items():
                tvd1, tvd2, tvd3, seconds = np.mean(rows, axis=0)
                print(
                    f"| {table} | {epsilon:g} | {sampler} | {tvd1:.4f} | {tvd2:.4f} | "
                    f"{tvd3:.4f} | {seconds:.2f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
