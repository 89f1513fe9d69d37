"""Every DP synthesizer with its defaults on Adult, next to uniform random records.

Run:  python benchmarks/bench_defaults.py [--seeds 1] [--methods NAME ...]

Each synthesizer is built with no parameter but ``random_state`` (so ε = 1, its default)
and fitted through ``make_private_pipeline(synthesizer, adult.domain)``: the encoding
the library picks for it, coarsened columns decoded from level frequencies released
with ``decode_epsilon=0.1`` (the ε column is the composed total of the pipeline's
``privacy_report_``).  Metric: decode to the 14 integer-coded columns, mean total
variation distance of the 1-way tables (tvd1), of the 91 2-way tables (tvd2) and of
200 random 3-way tables (tvd3); synthetic size n = 48,842.  References: uniform random
records (each column uniform over its declared levels, independently: what a
synthesizer must never be worse than) and independent Laplace 1-way marginals at ε = 1.
"""

from __future__ import annotations

import argparse
from functools import partial

import numpy as np
import pandas as pd
from bench_adult import independent_laplace, markdown_table, tvd_row
from default_pipelines import default_synthesizer, fit_sample

import skprivsynth
from skprivsynth import make_private_pipeline
from skprivsynth.datasets import load_adult


def uniform_records(data, domain, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: rng.integers(0, k, len(data)) for c, k in domain.items()})


def previous_reduced_space_lp(seed):
    """ReducedSpaceLP with the defaults it had before they were measured."""
    return skprivsynth.ReducedSpaceLP(
        reduced_space="uniform", objective="linf", workload="tables", random_state=seed
    )


SYNTHESIZERS = {
    "MarginalSynthesizer": partial(default_synthesizer, "MarginalSynthesizer"),
    "ReducedSpaceLP": partial(default_synthesizer, "ReducedSpaceLP"),
    "ReducedSpaceLP, previous defaults (uniform, linf, tables)": previous_reduced_space_lp,
    "NoisyMicroaggregation": partial(default_synthesizer, "NoisyMicroaggregation"),
    "CorrelatedGaussianMechanism": partial(default_synthesizer, "CorrelatedGaussianMechanism"),
    "PrivateSampler": partial(default_synthesizer, "PrivateSampler"),
}


def run_synthesizer(make, data, domain, seed):
    pipe = make_private_pipeline(make(seed), domain, random_state=seed)
    synthetic, elapsed = fit_sample(pipe, data, len(data), seed)
    report = pipe.privacy_report_
    return synthetic, elapsed, report.epsilon, report.delta


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="*", default=None)
    parser.add_argument("--seeds", type=int, default=1)
    args = parser.parse_args()
    adult = load_adult()
    data, domain = adult.data, adult.domain
    rows = []

    def add(name, results, epsilon, delta):
        mean = pd.DataFrame(results).mean()
        rows.append({"method": name, "epsilon": epsilon, "delta": delta,
                     **mean.round(4).to_dict()})  # fmt: skip
        print(rows[-1], flush=True)

    add("uniform random records",
        [{**tvd_row(data, uniform_records(data, domain, s), domain), "time_s": 0.0}
         for s in range(args.seeds)], "–", "–")  # fmt: skip
    add("independent Laplace",
        [{**tvd_row(data, independent_laplace(data, domain, 1.0, s)[0], domain), "time_s": 0.0}
         for s in range(args.seeds)], 1.0, 0)  # fmt: skip
    for name, make in SYNTHESIZERS.items():
        if args.methods and name not in args.methods:
            continue
        results = []
        try:
            for seed in range(args.seeds):
                synthetic, elapsed, epsilon, delta = run_synthesizer(make, data, domain, seed)
                results.append({**tvd_row(data, synthetic, domain), "time_s": elapsed})
        except (ValueError, RuntimeError) as error:
            rows.append({"method": name, "epsilon": "–", "delta": "–", "tvd1": "–",
                         "tvd2": "–", "tvd3": "–", "time_s": f"refused: {error}"})  # fmt: skip
            print(rows[-1], flush=True)
            continue
        add(name, results, round(epsilon, 4), f"{delta:.0e}" if delta else 0)
    print()
    print(markdown_table(rows))


if __name__ == "__main__":
    main()
